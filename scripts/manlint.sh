#!/bin/bash
# Lint man/kernel_lockdown.7 and check that it names every lockdown reason.
# Usage: scripts/manlint.sh [TREE]   (TREE defaults to the tree of make tree)
set -euo pipefail
. "$(dirname "$0")/common.sh"

tree=${1:-$tree}
page=$top/man/kernel_lockdown.7
hdr=$tree/include/linux/security.h
[ -f "$page" ] || die "no $page"
[ -f "$hdr" ] || die "no $hdr: run make tree, or pass the kernel tree"

# 1. groff, with all warnings: any output fails.
command -v groff >/dev/null || die "groff is missing (scripts/deps.sh installs it)"
out=$(groff -man -ww -z "$page" 2>&1) || die "groff failed: $out"
[ -z "$out" ] || die "groff warnings:"$'\n'"$out"

# Neither groff nor mandoc minds a blank line; man-pages style wants .PP.
blank=$(grep -n '^[[:space:]]*$' "$page" | cut -d: -f1 | tr '\n' ' ') || true
[ -z "$blank" ] || die "blank lines (use .PP) at lines: $blank"

# 2. mandoc, warnings and worse: any output fails.  It exits non-zero on
# findings, so its output, not its status, decides.
if command -v mandoc >/dev/null; then
	out=$(mandoc -T lint -W warning "$page" 2>&1) || true
	[ -z "$out" ] || die "mandoc warnings:"$'\n'"$out"
fi

# 3. Every reason of enum lockdown_reason, as a whole word outside comments.
reasons=$(sed -n '/^enum lockdown_reason {/,/^};/p' "$hdr" |
	grep -o 'LOCKDOWN_[A-Z0-9_]*' | sed 's/^LOCKDOWN_//' | tr '[:upper:]' '[:lower:]' |
	grep -vxE 'none|integrity_max|confidentiality_max|reason_count') ||
	die "no reasons found in enum lockdown_reason of $hdr"
text=$(grep -v '^\.\\"' "$page")
missing=()
for r in $reasons; do
	grep -qw -- "$r" <<<"$text" || missing+=("$r")
done
[ ${#missing[@]} -eq 0 ] || die "reasons missing from the page: ${missing[*]}"

# 4. The admin guide of the series builds without a docutils warning.
rst=$tree/Documentation/admin-guide/LSM/lockdown.rst
rstnote="no admin guide in this tree"
if [ -f "$rst" ]; then
	out=$(python3 -m docutils --halt=warning "$rst" /dev/null 2>&1) ||
		die "docutils: $rst:"$'\n'"$out"
	[ -z "$out" ] || die "docutils warnings: $rst:"$'\n'"$out"
	rstnote="admin guide ok"
fi

echo "manlint: ok ($(wc -w <<<"$reasons") reasons, $rstnote)"
