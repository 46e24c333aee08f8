#!/bin/bash
# Every prefix of the series builds: apply the patches one at a time in a
# worktree of the tree and build the guest kernel (and modules) after each,
# incrementally, with the guest config. Prints one line per patch.
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

bad=0 n=0
for p in $(grep -v '^#' "$top/patches/series" | grep .); do
	n=$((n + 1))
	git am -q --committer-date-is-author-date "$top/patches/$p" || die "$p does not apply"
	start=$(date +%s)
	# The guest's config each time: olddefconfig drops what this prefix
	# does not know yet, and a later prefix gets it back.
	cp "$(kout default)/.config" "$out/.config"
	if kmake -s olddefconfig >/dev/null && kmake -s bzImage modules >"$out/build-$n.log" 2>&1; then
		echo "ok   $p ($(($(date +%s) - start)) s)"
	else
		echo "FAIL $p: $out/build-$n.log"
		bad=1
	fi
done
exit $bad
