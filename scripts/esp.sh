#!/bin/bash
# The Debian tier's EFI system partitions, for booting the debian variant
# under OVMF with Secure Boot enforced (Debian's snakeoil keys), as a real
# machine boots: the firmware loads \EFI\BOOT\BOOTX64.EFI from a GPT disk.
# That file is a unified kernel image (systemd's EFI stub carrying the
# kernel and its command line), so the firmware's signature check covers
# both.  Two disks: esp-signed.img (signed with the snakeoil key) and
# esp-unsigned.img (the same image unsigned, which the firmware must
# refuse).  Both carry ldt/: modules the guest loads to test module
# signatures (an in-tree one signed by the build key, an out-of-tree one
# as DKMS builds it, signed and unsigned).
# With "debconf", the same for the Debian-config kernel of
# scripts/kernel-debconfig.sh, with the initramfs Debian's initramfs-tools
# made for it (rootfs.sh debconf) inside the unified image; the disks are
# esp-signed-debconf.img and esp-unsigned-debconf.img.
# Usage: esp.sh [debconf]   (after kernel.sh debian, or rootfs.sh debconf)
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:-variant}
out=$(kout debian)
dir=$build/debian/esp
suffix='' initrd=''
if [ "$flavour" = debconf ]; then
	out=$(kout debconf) dir=$build/debian/esp-debconf suffix=-debconf
	initrd=$build/debian/debconf-boot/initrd.img
	[ -f "$initrd" ] || die "missing $initrd: run scripts/rootfs.sh debconf"
fi
stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
sbkey=/usr/share/ovmf/PkKek-1-snakeoil.key
sbcert=/usr/share/ovmf/PkKek-1-snakeoil.pem
# What the guest boots with: no lockdown=, so the level comes from the
# firmware alone.  What the tests expect comes from the host (SMBIOS), not
# from this image, which boots with and without Secure Boot.
cmdline="root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1"

for f in "$stub" "$sbkey" "$sbcert" "$out/arch/x86/boot/bzImage"; do
	[ -f "$f" ] || die "missing $f"
done
rm -rf "$dir"
mkdir -p "$dir/files/EFI/BOOT" "$dir/files/ldt" "$dir/dkms"

# The modules: signed by the build key as modules_install would sign them.
sign() { "$out/scripts/sign-file" sha256 "$build/keys/signing_key.pem" \
	"$out/certs/signing_key.x509" "$1" "$2"; }
# Debian's config builds no test_module: its guest loads one of the
# image's own modules instead.
[ ! -f "$out/lib/test_module.ko" ] ||
	sign "$out/lib/test_module.ko" "$dir/files/ldt/test_module.ko"
cp "$top"/tests/debian/ldt_dkms/* "$dir/dkms/"
if ! make -C "$tree" O="$out" M="$dir/dkms" modules >"$dir/dkms.log" 2>&1; then
	cat "$dir/dkms.log" >&2
	die "out-of-tree module build failed"
fi
cp "$dir/dkms/ldt_dkms.ko" "$dir/files/ldt/ldt_dkms-unsigned.ko"
sign "$dir/dkms/ldt_dkms.ko" "$dir/files/ldt/ldt_dkms-signed.ko"
! grep -q '~Module signature appended~' "$dir/files/ldt/ldt_dkms-unsigned.ko" ||
	die "the out-of-tree module came out signed"

# Debian ships the snakeoil key encrypted, with the passphrase "snakeoil"
# (README.Debian of the ovmf package): a clear copy for sbsign.
openssl pkey -in "$sbkey" -passin pass:snakeoil -out "$dir/snakeoil.key" ||
	die "cannot decrypt $sbkey"

# Debian-config only: the installed kernel signed for kexec -s, with the
# snakeoil key (the firmware's db keys verify kexec images under UEFI,
# through the .platform keyring) and with the build's key (built into the
# kernel, for BIOS boots).
if [ "$flavour" = debconf ]; then
	sbsign --key "$dir/snakeoil.key" --cert "$sbcert" \
		--output "$dir/files/ldt/vmlinuz-signed.efi" "$out/arch/x86/boot/bzImage" \
		2>>"$dir/sbsign.log" || die "sbsign of the kernel failed: $dir/sbsign.log"
	sbsign --key "$build/keys/signing_key.pem" --cert "$build/keys/signing_key.pem" \
		--output "$dir/files/ldt/vmlinuz-buildkey.efi" "$out/arch/x86/boot/bzImage" \
		2>>"$dir/sbsign.log" || die "sbsign of the kernel failed: $dir/sbsign.log"
fi

# The unified kernel image.  Section addresses leave the stub's own
# sections (below 0x20000) alone; the kernel goes last, with room to grow.
# The initramfs, when there is one, goes 64 MiB above the kernel.
echo "$cmdline" >"$dir/cmdline"
sections=(--add-section .osrel=/etc/os-release --change-section-vma .osrel=0x20000
	--add-section .cmdline="$dir/cmdline" --change-section-vma .cmdline=0x30000
	--add-section .linux="$out/arch/x86/boot/bzImage" --change-section-vma .linux=0x2000000)
[ -z "$initrd" ] ||
	sections+=(--add-section .initrd="$initrd" --change-section-vma .initrd=0x6000000)
objcopy "${sections[@]}" "$stub" "$dir/uki-unsigned.efi"
sbsign --key "$dir/snakeoil.key" --cert "$sbcert" --output "$dir/uki-signed.efi" \
	"$dir/uki-unsigned.efi" 2>"$dir/sbsign.log" || die "sbsign failed: $dir/sbsign.log"
# The pair differs by the signature alone: the firmware must refuse the
# unsigned one for want of it, not for a malformed image.
sbverify --cert "$sbcert" "$dir/uki-signed.efi" >"$dir/sbverify.log" 2>&1 ||
	die "the signed image does not verify: $dir/sbverify.log"
if sbverify --list "$dir/uki-unsigned.efi" 2>&1 | grep -q 'signature 1'; then
	die "the unsigned image carries a signature"
fi

# A 64 MiB GPT disk, one 62 MiB EFI system partition from 1 MiB, made without a
# loop device or a mount: sfdisk writes the table, mtools the FAT.
mkesp() {
	local uki=$1 img=$2
	rm -f "$img"
	truncate -s 64M "$img"
	printf 'label: gpt\nstart=2048, size=62M, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=ESP\n' |
		sfdisk -q "$img"
	mformat -i "$img@@1M" -F -v LDT-ESP -T $((62 * 2048)) ::
	cp "$uki" "$dir/files/EFI/BOOT/BOOTX64.EFI"
	mcopy -i "$img@@1M" -s "$dir/files/EFI" "$dir/files/ldt" ::/
}
mkesp "$dir/uki-signed.efi" "$build/debian/esp-signed$suffix.img"
mkesp "$dir/uki-unsigned.efi" "$build/debian/esp-unsigned$suffix.img"
