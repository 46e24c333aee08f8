#!/bin/bash
# Make the kernel tree: Debian's pristine linux-source-6.1 as the first commit
# (tag "baseline"), then every patch of patches/series applied with git am.
# Every run leaves the tree at exactly baseline + series.
set -euo pipefail
. "$(dirname "$0")/common.sh"

extract() {
	log "extracting $tarball into $tree"
	[ -f "$tarball" ] || die "$tarball missing: run scripts/deps.sh"
	rm -rf "$tree" "$build/linux-source-6.1"
	mkdir -p "$build"
	tar -C "$build" -xf "$tarball"
	mv "$build/linux-source-6.1" "$tree"
	cd "$tree"
	git init -q -b main
	git config user.name "Kernel Lockdown Project"
	git config user.email "lockdown@localhost"
	# Debian's top-level .gitignore ignores everything ("/*"): force the add.
	git add -f -A
	# A fixed date makes the baseline commit id the same on every machine.
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git commit -q -m "Debian linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)"
	git tag baseline
}

up_to_date() {
	[ -f "$build/tree.stamp" ] || return 1
	[ "$(cat "$build/tree.stamp")" = "$(series_hash) $(git -C "$tree" rev-parse HEAD)" ] || return 1
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]
}

apply_series() {
	cd "$tree"
	git am --abort >/dev/null 2>&1 || true
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		local save="$build/discarded-$(date +%Y%m%d-%H%M%S).diff"
		git diff HEAD >"$save"
		log "uncommitted changes in the tree saved to $save"
	fi
	# Commits not yet in patches/ survive on a branch: HEAD is neither the
	# baseline nor the series as this script last applied it.
	local head last
	head=$(git rev-parse HEAD)
	last=$(cut -d' ' -f2 "$build/tree.stamp" 2>/dev/null || true)
	if [ "$head" != "$(git rev-parse baseline)" ] && [ "$head" != "$last" ]; then
		git branch -f "saved/$(date +%Y%m%d-%H%M%S)" HEAD
	fi
	git reset -q --hard baseline
	git clean -q -fdx
	local n=0 p
	for p in $(grep -v '^#' "$top/patches/series" 2>/dev/null | grep .); do
		git am -q --committer-date-is-author-date "$top/patches/$p" ||
			die "patch $p does not apply"
		n=$((n + 1))
	done
	log "tree at baseline + $n patches"
	echo "$(series_hash) $(git rev-parse HEAD)" >"$build/tree.stamp"
}

git -C "$tree" rev-parse -q --verify baseline >/dev/null 2>&1 || extract
if up_to_date; then
	log "tree up to date: $tree"
else
	apply_series
fi
