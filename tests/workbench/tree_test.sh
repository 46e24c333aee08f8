#!/bin/bash
# The edit loop never loses work: tree.sh and patches.sh, driven through
# make as a developer drives them, on a small stand-in for Debian's source
# tarball (LOCKDOWN_TARBALL) and a two-patch series (LOCKDOWN_PATCHES), in
# a build directory of its own. Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LOCKDOWN_BUILD=$tmp/build LOCKDOWN_TARBALL=$tmp/src.tar.xz \
	LOCKDOWN_PATCHES=$tmp/patches
unset LOCKDOWN_TREE_STRICT FORCE
tree=$LOCKDOWN_BUILD/linux
n=0 bad=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n workbench.$2"
	else
		echo "not ok $n workbench.$2"
		bad=1
	fi
}
check() { local name=$1; shift; "$@" >>"$tmp/log" 2>&1; ok $? "$name"; }
fails() { local name=$1; shift; ! "$@" >>"$tmp/log" 2>&1; ok $? "$name"; }
mk() { make -s -C "$top" "$@"; }
git_t() { git -C "$tree" "$@"; }
# Called through check, which shellcheck cannot see.
# shellcheck disable=SC2317
same() { [ "$(cat "$1")" = "$2" ]; }

# The stand-in source: Debian's "/*" .gitignore and two files.
mkdir -p "$tmp/linux-source-6.1/lib"
printf '/*\n' >"$tmp/linux-source-6.1/.gitignore"
echo base >"$tmp/linux-source-6.1/lib/a.c"
echo base >"$tmp/linux-source-6.1/lib/b.c"
tar -C "$tmp" -cJf "$LOCKDOWN_TARBALL" linux-source-6.1

# The series: two commits made in a scratch clone, then format-patch'd.
git init -q "$tmp/gen" && cp -a "$tmp/linux-source-6.1/." "$tmp/gen/"
(
	cd "$tmp/gen" && git add -f -A && git commit -qm base &&
		echo one >>lib/a.c && git commit -qam "lib: first" &&
		echo two >>lib/b.c && git commit -qam "lib: second" &&
		mkdir "$LOCKDOWN_PATCHES" &&
		git format-patch -q -o "$LOCKDOWN_PATCHES" HEAD~2 &&
		(cd "$LOCKDOWN_PATCHES" && ls 0*.patch >series) &&
		printf 'subject\n\nbody\n' >"$LOCKDOWN_PATCHES/cover-letter.txt"
) >>"$tmp/log" 2>&1 || { echo "Bail out! could not make the stand-in series"; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

echo "1..16"
check tree_made mk tree
check tree_is_series same "$tree/lib/b.c" "$(printf 'base\ntwo')"
applied=$(git_t rev-parse HEAD)

# Work in progress: an edit, and a new file (ignored by Debian's .gitignore).
echo edit >>"$tree/lib/a.c"
echo new >"$tree/lib/new.c"
check tree_with_work_builds_as_is mk tree
check tree_keeps_edit same "$tree/lib/a.c" "$(printf 'base\none\nedit')"
check tree_keeps_new_file same "$tree/lib/new.c" new
fails tree_strict_refuses_work env LOCKDOWN_TREE_STRICT=1 make -s -C "$top" tree

# patches/ changes under the work (git pull, say): refuse, change nothing.
echo "# a comment" >>"$LOCKDOWN_PATCHES/series"
fails tree_refuses_new_series_over_work mk tree
check tree_refusal_changes_nothing test "$(git_t rev-parse HEAD)" = "$applied" -a \
	-f "$tree/lib/new.c" -a "$(tail -n1 "$tree/lib/a.c")" = edit
fails patches_refuses_uncommitted mk patches

# The developer commits (the new file with add -f) and regenerates patches/.
git_t add -f lib/new.c && git_t commit -qam "lib: third" >>"$tmp/log"
check patches_from_commits mk patches
check patches_has_the_commit grep -q '^+new$' "$LOCKDOWN_PATCHES"/0003-*.patch
check tree_up_to_date_after_patches test "$(mk tree 2>&1)" = "==> tree up to date: $tree"

# A clean tree follows a changed series; FORCE=1 saves what it discards.
sed -i '/0003-/d' "$LOCKDOWN_PATCHES/series"
check tree_follows_series_when_clean mk tree
check tree_dropped_patch test ! -e "$tree/lib/new.c"
echo lost? >>"$tree/lib/b.c"
echo new2 >"$tree/new2.c"
check tree_force_rebuilds mk tree FORCE=1
check tree_force_saved_all sh -c "grep -q '^+lost?' '$LOCKDOWN_BUILD'/saved-*.diff &&
	tar -tf '$LOCKDOWN_BUILD'/saved-*.tar | grep -qx new2.c &&
	[ \"\$(git -C '$tree' status --porcelain --untracked-files=no)\" = '' ]"

[ $bad = 0 ] || sed 's/^/# /' "$tmp/log"
exit $bad
