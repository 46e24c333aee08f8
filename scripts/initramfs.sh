#!/bin/bash
# Build the lockdown selftests static and pack them with busybox and the
# guest init into an initramfs: $build/initramfs.cpio for the default kernel,
# $build/initramfs-VARIANT.cpio for a VARIANT whose modules differ (debug).
# Usage: initramfs.sh [VARIANT]
set -euo pipefail
. "$(dirname "$0")/common.sh"

variant=${1:-default}
out=$(kout "$variant")
st=$build/selftests
stage=$build/initramfs-$variant
cpio=$(initramfs_path "$variant")

# The selftests include the uapi headers of the tree under test.
# LOCKDOWN_SELFTESTS: take them already built from that directory instead
# (check-old-kernel.sh: today's tests for an older series' kernel).
if [ -n "${LOCKDOWN_SELFTESTS:-}" ]; then
	st=$LOCKDOWN_SELFTESTS
	[ -d "$st" ] || die "no selftests in $st"
else
	mkdir -p "$st"
	make -s -C "$tree" O="$out" headers >/dev/null
	make -s -C "$tree/tools/testing/selftests/lockdown" OUTPUT="$st" \
		USERLDFLAGS=-static KHDR_INCLUDES="-isystem $out/usr/include" >&2
fi

rm -rf "$stage"
mkdir -p "$stage"/{bin,boot,dev,proc,sys,selftests}
# kexec_file_load tests load the guest's own (unsigned) kernel.
cp "$out/arch/x86/boot/bzImage" "$stage/boot/bzImage"
# ... and the same kernel PE-signed with the key every kernel here trusts.
sbsign --key "$build/keys/signing_key.pem" --cert "$build/keys/signing_key.pem" \
	--output "$stage/boot/bzImage.signed" "$out/arch/x86/boot/bzImage" 2>/dev/null
# ... and, for the IMA tests, its security.ima signature by the same key
# (evmctl), with the key's certificate to load into the .ima keyring.
evmctl ima_sign -a sha256 --key "$build/keys/signing_key.pem" -f \
	"$stage/boot/bzImage" >/dev/null
mv "$stage/boot/bzImage.sig" "$stage/boot/bzImage.ima-sig"
openssl x509 -in "$build/keys/signing_key.pem" -outform DER \
	-out "$stage/boot/ima-cert.der"
cp /bin/busybox "$stage/bin/busybox"
install -m 755 "$top/tests/init" "$stage/init"
install -m 755 "$top/tests/guest-tests" "$stage/bin/guest-tests"
# Modules for the signature tests: signed by modules_install, and as built.
# The default kernel's modules are loaded into the variants' kernels too, so
# they go without debug info and BTF (split BTF is valid only against the
# vmlinux it was made from; a module without it loads anywhere), stripped by
# modules_install before it signs them.
strip_opts="--strip-debug --remove-section=.BTF"
mods=$(mktemp -d)
make -s -C "$tree" O="$out" INSTALL_MOD_PATH="$mods" \
	INSTALL_MOD_STRIP="$strip_opts" modules_install >/dev/null
mkdir -p "$stage/modules/signed" "$stage/modules/unsigned"
find "$mods" -name '*.ko' -exec cp {} "$stage/modules/signed/" \;
# shellcheck disable=SC2086 # options, split on purpose
strip $strip_opts -o "$stage/modules/unsigned/test_module.ko" "$out/lib/test_module.ko"
rm -rf "$mods"
find "$st" -maxdepth 1 -type f -executable -exec cp {} "$stage/selftests/" \;
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$cpio.new"
mv "$cpio.new" "$cpio"
