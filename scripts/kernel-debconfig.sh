#!/bin/bash
# Build the series with Debian's own config, as a Debian administrator
# builds a custom kernel: config.amd64_none_amd64 from linux-config-6.1,
# trimmed only in modules a QEMU machine does not use (make localmodconfig
# with config/debian-modules.txt), every option that gates a lockdown hook
# site set back to Debian's value, and make bindeb-pkg.  The packages go
# to $build/debconf/.  scripts/config-gates.py lists every option that
# differs from Debian's, with why (config/debian-trim-why.txt), and fails
# the build if a gate differs or a difference has no reason.
# Usage: kernel-debconfig.sh [--config]   (--config: stop after the check)
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=$(kout debconf)
debs=$build/debconf
conf=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
mods=$top/config/debian-modules.txt
why=$top/config/debian-trim-why.txt
[ -f "$conf" ] || die "missing $conf: run scripts/deps.sh"
key=$build/keys/signing_key.pem
[ -f "$key" ] || "$top/scripts/kernel.sh" default >/dev/null
mkdir -p "$out" "$debs"
export CCACHE_DIR=${CCACHE_DIR:-$build/ccache}
kmake() { make -C "$tree" O="$out" CC="ccache gcc" -j"$(nproc)" "$@"; }

stamp=$(cat "$conf" "$mods" "$why" "$0" "$top/scripts/config-gates.py" \
	"$top/config/debian-gates.txt" | sha256sum | cut -d' ' -f1)-$(git -C "$tree" rev-parse HEAD)
if [ "$(cat "$out/config.stamp" 2>/dev/null)" != "$stamp" ]; then
	log "configuring debconf: Debian's config, trimmed"
	xz -dc "$conf" >"$out/debian.config"
	cp "$out/debian.config" "$out/.config"
	{
		echo "Module Size Used by"
		sed 's/#.*//' "$mods" | tr -s ' \t' '\n' | grep . | sed 's/$/ 0 0/'
	} >"$out/lsmod"
	# Questions about options new to the config take their defaults.
	{ yes '' || true; } | kmake -s LSMOD="$out/lsmod" localmodconfig >"$out/localmodconfig.log" 2>&1 ||
		die "localmodconfig failed: $out/localmodconfig.log"
	"$top/scripts/config-gates.py" --restore "$tree" "$out/debian.config" \
		"$out/.config" >"$out/gates.config"
	cat >"$out/local.config" <<-EOT
	CONFIG_LOCALVERSION="-lockdown"
	CONFIG_MODULE_SIG_ALL=y
	CONFIG_MODULE_SIG_KEY="$key"
	# CONFIG_IKCONFIG is not set
	EOT
	KCONFIG_CONFIG="$out/.config" "$tree/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "$out/gates.config" "$out/local.config" >/dev/null
	kmake -s olddefconfig >/dev/null
	echo "$stamp" >"$out/config.stamp"
fi
if ! "$top/scripts/config-gates.py" "$tree" "$out/debian.config" "$out/.config" "$why" |
	tee "$out/config-diff.txt"; then
	die "the trimmed config differs from Debian's without a reason: $out/config-diff.txt"
fi

[ "${1:-}" != --config ] || exit 0

# Build first; package only what changed since the packages were made
# (packaging alone, with its debug package, takes minutes).  The build
# version is the package revision, as bindeb-pkg sets it: with another,
# each of the two would relink vmlinux for the other.
revision=1lockdown
log "building the Debian-config kernel in $out (log: $out/build.log)"
if ! kmake KBUILD_BUILD_VERSION="$revision" bzImage modules >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "kernel build failed: $out/build.log"
fi
release=$(cat "$out/include/config/kernel.release")
image=$(find "$debs" -maxdepth 1 -name "linux-image-${release}_*.deb" 2>/dev/null | head -n 1)
if [ -n "$image" ] && [ "$image" -nt "$out/vmlinux" ] &&
	[ -z "$(find "$out" -name '*.ko' -newer "$image" -print -quit)" ]; then
	log "packages up to date: $image"
	exit 0
fi
# Packages of an earlier build must not stand in for this one's.
rm -f "$debs"/linux-* "$build"/linux-*.deb "$build"/linux-*.buildinfo "$build"/linux-*.changes
log "building the Debian-config kernel packages in $debs (log: $out/build.log)"
if ! kmake KDEB_PKGVERSION="$(make -s -C "$tree" kernelversion)-$revision" \
	bindeb-pkg >>"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "bindeb-pkg failed: $out/build.log"
fi
mv "$build"/linux-*.deb "$build"/linux-*.buildinfo "$build"/linux-*.changes "$debs/"
[ -f "$(echo "$debs"/linux-image-"$release"_*.deb)" ] ||
	die "bindeb-pkg made no linux-image-$release package"
ls -l "$debs"
