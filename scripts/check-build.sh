#!/bin/bash
# The build matrix, one line per build:
# - every prefix of the series builds: apply the patches one at a time in a
#   worktree of the tree and build the guest kernel (and modules) after
#   each, incrementally, with the guest config; LOCKDOWN_BISECT_FROM=N
#   applies the first N-1 without building them and starts there, to check
#   the patches added since a full run;
# - the whole series builds with the lockdown LSM off, and with SECURITY off;
# - the C files the series touches compile without a warning under Debian's
#   own config (linux-config-6.1), after make prepare.
set -euo pipefail
. "$(dirname "$0")/common.sh"

wt=$build/linux-bisect
out=$build/out-bisect
if [ ! -d "$wt" ]; then
	git -C "$tree" worktree add -q --detach "$wt" baseline
fi
cd "$wt"
git am --abort >/dev/null 2>&1 || true
git reset -q --hard baseline
git clean -q -fdx

export CCACHE_DIR=${CCACHE_DIR:-$build/ccache}
mkdir -p "$out"
kmake() { make -C "$wt" O="$out" CC="ccache gcc" -j"$(nproc)" "$@"; }

# The guest's config, without debug info: the matrix is about what compiles.
guest_config() {
	cp "$(kout default)/.config" "$1"
	config_without_debug_info "$1"
}

bad=0 n=0 from=${LOCKDOWN_BISECT_FROM:-1}
for p in $(series_patches); do
	n=$((n + 1))
	git am -q --committer-date-is-author-date "$patches_dir/$p" || die "$p does not apply"
	if [ $n -lt "$from" ]; then
		echo "--   $p (applied, not built: LOCKDOWN_BISECT_FROM=$from)"
		continue
	fi
	start=$(date +%s)
	# The guest's config each time: olddefconfig drops what this prefix
	# does not know yet, and a later prefix gets it back.
	guest_config "$out/.config"
	if kmake -s olddefconfig >/dev/null && kmake -s bzImage modules >"$out/build-$n.log" 2>&1; then
		echo "ok   $p ($(($(date +%s) - start)) s)"
	else
		echo "FAIL $p: $out/build-$n.log"
		bad=1
	fi
done

# The guest config with @1 switched off, built whole: what the series adds
# must compile away cleanly.
build_without() {
	local opt=$1 o=$build/out-no-${1,,} start
	start=$(date +%s)

	mkdir -p "$o"
	guest_config "$o/.config"
	# tinyconfig sets the 32-bit frame warning limit, which some 6.1 files
	# exceed on 64-bit; this build must show only warnings of ours.
	"$wt/scripts/config" --file "$o/.config" --disable "$opt" --set-val FRAME_WARN 2048
	make -C "$wt" O="$o" -s olddefconfig >/dev/null
	if grep -q "^CONFIG_$opt=" "$o/.config"; then
		echo "FAIL CONFIG_$opt=n: olddefconfig turned it back on"
		bad=1
	elif make -C "$wt" O="$o" CC="ccache gcc" -j"$(nproc)" -s bzImage modules \
		>"$o/build.log" 2>&1 && ! grep -q 'warning:' "$o/build.log"; then
		echo "ok   CONFIG_$opt=n ($(($(date +%s) - start)) s)"
	else
		echo "FAIL CONFIG_$opt=n: $o/build.log"
		bad=1
	fi
}
build_without SECURITY_LOCKDOWN_LSM
build_without SECURITY

# Debian's config: prepare the tree, then compile each C file of the series
# that Debian builds, as its own object, with warnings shown.
debian_objects() {
	local o=$build/out-debian f obj start n=0
	start=$(date +%s)
	local conf=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz

	mkdir -p "$o"
	xz -dc "$conf" >"$o/.config"
	# Debian signs with its own certificates, which the source lacks.
	"$wt/scripts/config" --file "$o/.config" --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str MODULE_SIG_KEY "certs/signing_key.pem"
	make -C "$wt" O="$o" -s olddefconfig >/dev/null
	make -C "$wt" O="$o" CC="ccache gcc" -j"$(nproc)" -s prepare \
		>"$o/prepare.log" 2>&1 || { echo "FAIL debian prepare: $o/prepare.log"; bad=1; return; }
	: >"$o/objects.log"
	for f in $(git -C "$wt" diff --name-only baseline HEAD -- '*.c' ':!tools'); do
		obj=${f%.c}.o
		# Included by another file, or not built by Debian: nothing to do.
		grep -q "${obj##*/}" "$wt/${f%/*}/Makefile" 2>/dev/null || continue
		if make -C "$wt" O="$o" CC="ccache gcc" -s "$obj" >>"$o/objects.log" 2>&1; then
			n=$((n + 1))
		else
			echo "FAIL debian $obj: $o/objects.log"
			bad=1
		fi
	done
	if grep -q 'warning:' "$o/objects.log"; then
		grep 'warning:' "$o/objects.log"
		echo "FAIL debian config: warnings in $o/objects.log"
		bad=1
	else
		echo "ok   debian config: $n objects ($(($(date +%s) - start)) s)"
	fi
}
debian_objects
exit $bad
