# shellcheck shell=bash
# Shared settings for the project's scripts; sourced, never run.
# The build directory lives outside the repository and is shared by every
# checkout on this machine, so CI reuses what a session has built.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LOCKDOWN_BUILD:-/var/tmp/kernel-lockdown}
tree=$build/linux
# shellcheck disable=SC2034 # read by tree.sh and check-build.sh
tarball=${LOCKDOWN_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
patches_dir=${LOCKDOWN_PATCHES:-$top/patches}

# Where each kind of build output goes, keyed by config variant.
kout() { echo "$build/out-${1:-default}"; }

die() { echo "${0##*/}: $*" >&2; exit 1; }
log() { echo "==> $*" >&2; }

# The patch files of the series, in order.
series_patches() {
	grep -v '^#' "$patches_dir/series" 2>/dev/null | grep . || true
}

# Files that are in the tree but not in git: Debian's .gitignore hides
# every one of them, so ask for the ignored ones too.
tree_new_files() {
	git -C "$tree" status --porcelain -z --ignored --untracked-files=all |
		tr '\0' '\n' | sed -n 's/^\(??\|!!\) //p'
}

# Identifies the series as applied: the series file and every patch in it.
series_hash() {
	local p
	mapfile -t p < <(series_patches)
	(cd "$patches_dir" && cat series "${p[@]}" 2>/dev/null) |
		sha256sum | cut -d' ' -f1
}

# The initramfs a kernel variant boots with.  It carries modules, which load
# only into the kernel they were built with when the variant changes the
# module ABI (the debug variant's lockdep does): such a variant gets its own.
initramfs_path() {
	if [ "${1:-default}" = default ]; then
		echo "$build/initramfs.cpio"
	else
		echo "$build/initramfs-$1.cpio"
	fi
}

# Strip debug info from the kernel config @1.  The guests need DWARF for
# their BTF (the BPF tests); builds that only compare or compile do not,
# and DWARF doubles their time without changing a diagnostic.
config_without_debug_info() {
	"$tree/scripts/config" --file "$1" --enable DEBUG_INFO_NONE \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_BTF
}

# QEMU's accelerator options: TCG, or KVM when LOCKDOWN_KVM is set (under
# nested virtualisation KVM guests hang after the firmware).
qemu_accel() {
	if [ -n "${LOCKDOWN_KVM:-}" ]; then
		echo -accel kvm -cpu host
	else
		echo -accel tcg -cpu max
	fi
}
