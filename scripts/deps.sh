#!/bin/bash
# Install the Debian packages the project uses, only those that are missing.
set -euo pipefail

pkgs=(
	linux-source-6.1 linux-config-6.1
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	xz-utils rsync python3 git perl openssl ccache
	qemu-system-x86 ovmf busybox-static
	groff mandoc python3-docutils
	sbsigntool ima-evm-utils
	mmdebstrap e2fsprogs qemu-utils
	systemd-boot-efi binutils mtools dosfstools fdisk
	shellcheck
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "==> installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
