#!/bin/bash
# Regenerate patches/ from the tree's commits after the baseline: numbered
# format-patch files, the cover letter (subject and text from
# patches/cover-letter.txt) and the series file. Deterministic: an unchanged
# tree gives byte-identical files.
set -euo pipefail
. "$(dirname "$0")/common.sh"

cd "$tree"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "uncommitted changes in $tree: commit them first"
[ -z "$(tree_new_files)" ] ||
	die "files git does not track in $tree (git add -f them, or remove them): $(tree_new_files | head -n 3 | tr '\n' ' ')"
n=$(git rev-list --count baseline..HEAD)
[ "$n" -gt 0 ] || die "no commits after baseline"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -c core.abbrev=12 format-patch -q --zero-commit --no-signature \
	--cover-letter -o "$tmp" baseline..HEAD

# Fill in the cover letter's placeholders from the project's own text.
cover=$tmp/0000-cover-letter.patch
subject=$(head -n1 "$patches_dir/cover-letter.txt")
date=$(git log -1 --format=%aD)
python3 - "$cover" "$patches_dir/cover-letter.txt" "$subject" "$date" <<'PY'
import re, sys
cover, text, subject, date = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
body = text.split('\n', 2)[2] if '\n' in text else ''
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***\n', body)
# The cover letter's date is the newest author date, not the current time.
s = re.sub(r'^Date: .*$', 'Date: ' + date, s, count=1, flags=re.M)
open(cover, 'w').write(s)
PY

rm -f "$patches_dir"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$patches_dir/"
{
	echo "# Kernel lockdown for Debian linux-source-6.1: apply with git am, in order."
	for p in "$patches_dir"/[0-9][0-9][0-9][0-9]-*.patch; do
		case ${p##*/} in 0000-*) ;; *) echo "${p##*/}" ;; esac
	done
} >"$patches_dir/series"
# The tree is exactly baseline + series now: spare tree.sh a reset.
echo "$(series_hash) $(git rev-parse HEAD)" >"$build/tree.stamp"
log "patches/: $n patches"
