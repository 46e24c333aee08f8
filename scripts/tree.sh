#!/bin/bash
# Make the kernel tree: Debian's pristine linux-source-6.1 as the first commit
# (tag "baseline"), then every patch of patches/series applied with git am.
#
# The tree is also where the series is edited, so this script never discards
# work in it. It re-applies the series only when the tree holds nothing but
# what it applied last time (tree.stamp). When the tree holds more (commits,
# edits, new files):
# - patches/ unchanged since: the tree is used as it is, with a warning;
# - patches/ changed too, or LOCKDOWN_TREE_STRICT=1 (CI): it stops and says
#   how to go on.
# FORCE=1 (make tree FORCE=1) re-applies anyway, after saving the work: the
# commits on a saved/ branch, the edits as a diff, the new files in a tar.
set -euo pipefail
. "$(dirname "$0")/common.sh"

stamp=$build/tree.stamp

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
	rm -f "$stamp"
}

# The commit this script last left the tree at, or the baseline.
last_applied() {
	local last
	last=$(cut -d' ' -f2 "$stamp" 2>/dev/null || true)
	git -C "$tree" rev-parse -q --verify "${last:-baseline}^{commit}" 2>/dev/null ||
		git -C "$tree" rev-parse baseline
}

# Print one line per kind of work the tree holds beyond the last apply.
tree_work() {
	local last n
	last=$(last_applied)
	[ -d "$tree/.git/rebase-apply" ] && echo "a git am or rebase in progress"
	if [ "$(git -C "$tree" rev-parse HEAD)" != "$last" ]; then
		n=$(git -C "$tree" rev-list --count "$last..HEAD")
		echo "HEAD is not the series as last applied: $n commit(s) after it" \
			"($(git -C "$tree" log -1 --format='%h %s'))"
	fi
	n=$(git -C "$tree" status --porcelain --untracked-files=no | wc -l)
	[ "$n" -eq 0 ] || echo "$n file(s) with uncommitted changes"
	n=$(tree_new_files | wc -l)
	[ "$n" -eq 0 ] || echo "$n new file(s) git does not track, e.g. $(tree_new_files | head -n 1)"
	return 0
}

# Keep everything tree_work found, then say where it went.
save_work() {
	local when
	when=$(date +%Y%m%d-%H%M%S)
	cd "$tree"
	if [ "$(git rev-parse HEAD)" != "$(last_applied)" ]; then
		git branch -f "saved/$when" HEAD
		log "commits kept on branch saved/$when of $tree"
	fi
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		git diff HEAD >"$build/saved-$when.diff"
		log "uncommitted edits saved to $build/saved-$when.diff"
	fi
	if [ -n "$(tree_new_files)" ]; then
		tree_new_files | tar -C "$tree" -cf "$build/saved-$when.tar" -T -
		log "new files saved to $build/saved-$when.tar"
	fi
}

apply_series() {
	cd "$tree"
	git am --abort >/dev/null 2>&1 || true
	git reset -q --hard baseline
	git clean -q -fdx
	rm -f "$stamp"
	local n=0 p
	for p in $(series_patches); do
		if ! git am -q --committer-date-is-author-date "$patches_dir/$p"; then
			# Only patches/ went in: leave the baseline for the next try.
			git am --abort
			git reset -q --hard baseline
			die "patch $p does not apply"
		fi
		n=$((n + 1))
	done
	log "tree at baseline + $n patches"
	echo "$(series_hash) $(git rev-parse HEAD)" >"$stamp"
}

git -C "$tree" rev-parse -q --verify baseline >/dev/null 2>&1 || extract
work=$(tree_work)
same_series=0
[ "$(cut -d' ' -f1 "$stamp" 2>/dev/null)" = "$(series_hash)" ] && same_series=1

if [ -n "${FORCE:-}" ] && [ "$FORCE" != 0 ]; then
	[ -z "$work" ] || save_work
	apply_series
elif [ -z "$work" ]; then
	if [ $same_series = 1 ]; then
		log "tree up to date: $tree"
	else
		apply_series
	fi
elif [ $same_series = 1 ] && [ -z "${LOCKDOWN_TREE_STRICT:-}" ]; then
	log "the tree holds work that is not in patches/; building it as it is:"
	echo "$work" | sed 's/^/    /' >&2
	log "make patches turns its commits into patches/ (commit edits and new files first)"
else
	if [ $same_series = 1 ]; then
		echo "tree.sh: the tree must be exactly patches/ here (LOCKDOWN_TREE_STRICT)," \
			"and it holds more:" >&2
	else
		echo "tree.sh: patches/ changed since the tree was made, and the tree holds" \
			"work that is not in patches/:" >&2
	fi
	echo "$work" | sed 's/^/    /' >&2
	cat >&2 <<-EOF
		Nothing was changed. To go on, either
		  keep the tree's work: commit it in $tree, then make patches
		    (patches/ is rewritten from the tree's commits), or
		  rebuild the tree from patches/: make tree FORCE=1
		    (commits go to a saved/ branch, edits and new files to $build/saved-*).
	EOF
	exit 1
fi
