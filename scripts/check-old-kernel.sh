#!/bin/bash
# Today's tests on an older series' kernel: shows which of them catch what
# that series let through (#24 asks that each fix's test fail on the series
# the outside review read, git tag series-54).
#
# REV's patches/ are applied to the baseline in a worktree of the tree, under
# $build/old-REV (its own build directory: kernel, initramfs, results); the
# kernel is built with today's guest.config and today's selftests' config,
# and boots today's selftests (built by make check), guest init and
# scenarios.  Only the scenarios of the default kernel run.  The report is
# the result: the failures are what the old kernel let through, so this
# script exits 0 when the guests ran, whatever they found.
# Usage: check-old-kernel.sh REV [SCENARIO...]   (make check-old REV=series-54)
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -ge 1 ] || die "usage: check-old-kernel.sh REV [SCENARIO...]"
rev=$1
shift
id=$(git -C "$top" rev-parse --short "$rev^{commit}") || die "no commit $rev"
[ -n "$(ls "$build/selftests" 2>/dev/null)" ] ||
	die "no selftests built in $build/selftests: run make initramfs first"
old=$build/old-${rev//\//-}
wt=$old/linux

# The old series, applied once per commit of this repository.
if [ "$(cat "$old/applied" 2>/dev/null)" != "$id" ]; then
	log "applying the series of $rev ($id) in $wt"
	if [ -d "$wt" ]; then
		# The tree may have been made anew since: then the worktree
		# is only a directory.
		git -C "$tree" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
	fi
	git -C "$tree" worktree prune
	rm -rf "$old"
	mkdir -p "$old"
	git -C "$tree" worktree add -q --detach "$wt" baseline
	pd=$(mktemp -d)
	git -C "$top" archive "$id" patches | tar -C "$pd" -x
	n=0
	while read -r p; do
		git -C "$wt" am -q --committer-date-is-author-date "$pd/patches/$p" ||
			die "$rev: patch $p does not apply"
		n=$((n + 1))
	done < <(grep -v '^#' "$pd/patches/series" | grep .)
	rm -rf "$pd"
	log "$wt at baseline + $n patches of $rev"
	echo "$id" >"$old/applied"
fi

# The same signing key as every kernel here: the initramfs's modules and
# signed images are signed with it.
mkdir -p "$old/keys"
ln -sfn "$build/keys/signing_key.pem" "$old/keys/signing_key.pem"
export CCACHE_DIR=${CCACHE_DIR:-$build/ccache}
LOCKDOWN_BUILD=$old \
	LOCKDOWN_SELFTESTS_CONFIG=$tree/tools/testing/selftests/lockdown/config \
	"$top/scripts/kernel.sh" default
LOCKDOWN_BUILD=$old LOCKDOWN_SELFTESTS=$build/selftests \
	"$top/scripts/initramfs.sh" default

if [ $# -eq 0 ]; then
	order=$("$top/scripts/scenario.py" order)
	for sc in $order; do
		[ "$("$top/scripts/scenario.py" get "$top/tests/scenarios/$sc.env" variant)" != default ] ||
			set -- "$@" "$sc"
	done
fi
log "today's tests on the kernel of $rev: $*"
LOCKDOWN_BUILD=$old "$top/scripts/check.sh" "$@" | tee "$old/report.txt" || true
# The first scenario the run booted (check.sh may put an after= first).
first=$(LOCKDOWN_BUILD=$old "$top/scripts/check.sh" -n "$@" | head -n 1)
grep -q '^LDT-EXIT' "$old/results/$first/results.log" 2>/dev/null ||
	die "the first guest did not finish: see $old/results/$first"
log "report in $old/report.txt, logs in $old/results"
