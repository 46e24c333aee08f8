#!/bin/bash
# Build the Debian tier's guest: a bookworm root file system made by
# mmdebstrap from this machine's own apt sources, with the packages of
# config/debian-packages.txt and the tests of tests/debian/, as a raw ext4
# image, $build/debian/rootfs.img, root on /dev/vda.  The image has no
# kernel: the host boots it with -kernel.
# With "debconf", the image is $build/debian/rootfs-debconf.img and has the
# linux-image package of scripts/kernel-debconfig.sh installed, as an
# administrator installs a custom kernel, with Debian's initramfs-tools;
# its vmlinuz and initrd.img are copied out to $build/debian/debconf-boot/
# for the host to boot.
# Rebuilt only when the package list, this recipe, tests/debian/ or the
# kernel package change.
# Usage: rootfs.sh [debconf]
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:-variant}
pkglist=$top/config/debian-packages.txt
dir=$build/debian
img=$dir/rootfs.img
stage=$dir/root
kdebs=()
if [ "$flavour" = debconf ]; then
	img=$dir/rootfs-debconf.img
	stage=$dir/root-debconf
	mapfile -t kdebs < <(find "$build/debconf" -maxdepth 1 -name 'linux-image-*.deb' \
		! -name '*-dbg_*' | sort)
	[ ${#kdebs[@]} = 1 ] ||
		die "want one linux-image package in $build/debconf, found ${#kdebs[@]}: run scripts/kernel-debconfig.sh"
fi
# Sparse: the file takes only what the file system holds.
size=2G

# mmdebstrap runs this script again as its customize hook (see below).
customize() {
	local root=$1
	echo lockdown-guest >"$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tlockdown-guest\n' >"$root/etc/hosts"
	echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
	install -m 755 "$top/tests/debian/run-tests.sh" \
		"$root/usr/local/sbin/lockdown-run-tests"
	install -m 644 "$top/tests/debian/lockdown-tests.service" \
		"$root/etc/systemd/system/lockdown-tests.service"
	chroot "$root" systemctl enable lockdown-tests.service
	# Root has no password and nobody logs in: a getty on the console
	# would only vhangup() it under the tests' output.
	chroot "$root" systemctl mask serial-getty@ttyS0.service
	# nvme-cli's boot-time NVMe over Fabrics connect: the guest has no
	# fabrics, and the unit fails without them.
	chroot "$root" systemctl mask nvmf-autoconnect.service
	# The kernel package, as an administrator installs it: dpkg -i, whose
	# postinst has initramfs-tools make the initramfs.  (apt inside
	# mmdebstrap cannot install a local package into the chroot.)
	if [ -n "${ROOTFS_KDEB:-}" ]; then
		cp "$ROOTFS_KDEB" "$root/tmp/"
		chroot "$root" dpkg -i "/tmp/${ROOTFS_KDEB##*/}"
		rm -f "$root/tmp/${ROOTFS_KDEB##*/}"
	fi
}
if [ "${MMDEBSTRAP_HOOK:-}" = customize ]; then
	customize "$1"
	exit 0
fi

# The files apt itself reads (it skips other names, such as *.disabled),
# passed to mmdebstrap as they are: the guest uses this machine's mirrors.
apt_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -s "$f" ] && echo "$f"
	done
	return 0
}

# The kernel package and Debian's initramfs-tools come on top, for debconf.
packages() {
	{
		sed 's/#.*//' "$pkglist"
		# What the kernel package depends on; the package itself comes
		# in the customize hook.
		[ ${#kdebs[@]} = 0 ] || printf '%s\n' initramfs-tools linux-base
	} | tr -s ' \t\n' '\n' | grep . | paste -sd,
}

stamp=$({
	cat "$pkglist" "$0" "${kdebs[@]}"
	find "$top/tests/debian" -type f | LC_ALL=C sort | xargs cat
} | sha256sum | cut -d' ' -f1)
if [ -f "$img" ] && [ "$(cat "$img.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

mapfile -t sources < <(apt_sources)
[ ${#sources[@]} -gt 0 ] || die "no apt sources in /etc/apt"
mkdir -p "$dir"
rm -rf "$stage"
log "building the Debian root file system in $img"
# unshare mode: as root, mmdebstrap then mounts /proc and /sys for the
# chroot in a mount namespace of its own, never in the machine's.
# The hook's sh expands $ROOTFS_SH and $1 (the chroot), not this one.
export ROOTFS_SH ROOTFS_KDEB=${kdebs[0]:-}
ROOTFS_SH=$(realpath "$0")
# shellcheck disable=SC2016
if ! mmdebstrap --mode=unshare --variant=minbase --format=directory \
	--include="$(packages)" \
	--customize-hook='"$ROOTFS_SH" "$1"' \
	bookworm "$stage" "${sources[@]}" >"$dir/mmdebstrap.log" 2>&1; then
	tail -n 40 "$dir/mmdebstrap.log" >&2
	die "mmdebstrap failed: $dir/mmdebstrap.log"
fi

# mmdebstrap empties /etc/machine-id after the hooks, and with it empty
# every boot of a fresh copy is a first boot, where systemd-firstboot waits
# for answers on the console.  Every guest may share this one.
tr -d - </proc/sys/kernel/random/uuid >"$stage/etc/machine-id"

# The installed kernel and the initramfs its postinst made, for -kernel.
if [ "$flavour" = debconf ]; then
	rm -rf "$dir/debconf-boot"
	mkdir -p "$dir/debconf-boot"
	cp "$stage"/boot/vmlinuz-* "$dir/debconf-boot/vmlinuz"
	cp "$stage"/boot/initrd.img-* "$dir/debconf-boot/initrd.img" ||
		die "the kernel package's postinst made no initramfs"
fi

# mkfs.ext4 -d copies the tree in: no loop device, no mount.
rm -f "$img.new"
truncate -s "$size" "$img.new"
mkfs.ext4 -q -L lockdown-root -d "$stage" "$img.new"
mv "$img.new" "$img"
rm -rf "$stage"
echo "$stamp" >"$img.stamp"
