#!/bin/bash
# report.py on saved logs: each directory of tests/workbench/report-logs is
# a RESULTS_DIR of a run that went some way (all passed, a test failed, a
# hang, QEMU failed to start, a splat, ...); its file "expect" says what
# the report must say of it:
#   scenarios NAME...   the scenarios report.py is given, in that order
#   exit RC             report.py's exit status
#   summary LINE        its last line
#   has LINE            a line of the report (runs of spaces squeezed)
#   lacks TEXT          no line of the report holds TEXT
# Boots nothing; prints TAP, one test per directory.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
logs=$top/tests/workbench/report-logs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

# Check one case, @1 its directory; prints what differs, fails if anything.
check_case() {
	local dir=$1 run=$tmp/${1##*/} kw rest scenarios=() rc want_rc="" why=0
	# report.py writes matrix.md into the directory it reads: a copy.
	cp -r "$dir" "$run"
	while read -r kw rest; do
		[ "$kw" = scenarios ] && read -ra scenarios <<<"$rest"
	done <"$dir/expect"
	[ ${#scenarios[@]} -gt 0 ] || { echo "# no scenarios line in $dir/expect"; return 1; }
	python3 "$top/scripts/report.py" "$run" "${scenarios[@]}" >"$run.out" 2>&1
	rc=$?
	tr -s ' ' <"$run.out" >"$run.squeezed"
	while read -r kw rest; do
		case $kw in
		'' | '#'* | scenarios) ;;
		exit)
			want_rc=$rest
			[ "$rc" = "$rest" ] || { echo "# exit status $rc, not $rest"; why=1; }
			;;
		summary)
			[ "$(tail -n1 "$run.out")" = "$rest" ] ||
				{ echo "# last line is not: $rest"; why=1; }
			;;
		has)
			grep -qxF -- "$rest" "$run.squeezed" || { echo "# no line: $rest"; why=1; }
			;;
		lacks)
			! grep -qF -- "$rest" "$run.squeezed" || { echo "# a line holds: $rest"; why=1; }
			;;
		*) echo "# $dir/expect: what is '$kw'?"; why=1 ;;
		esac
	done <"$dir/expect"
	[ -n "$want_rc" ] || { echo "# no exit line in $dir/expect"; why=1; }
	if [ $why != 0 ]; then
		echo "# report.py said:"
		# Its lines per test (up to the matrix), and its last lines.
		{ sed '/^$/q' "$run.out" | head -n 30; tail -n 3 "$run.out"; } | sed 's/^/#   /'
	fi
	return $why
}

cases=("$logs"/*/)
echo "1..${#cases[@]}"
for dir in "${cases[@]}"; do
	dir=${dir%/} name=${dir##*/}
	n=$((n + 1))
	if check_case "$dir"; then
		echo "ok $n workbench.report_${name//-/_}"
	else
		echo "not ok $n workbench.report_${name//-/_}"
		bad=1
	fi
done
exit $bad
