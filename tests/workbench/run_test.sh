#!/bin/bash
# make run passes CMD to the guest as typed: a loop variable, quotes and an
# exit status come through. Boots the default kernel once; prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
n=0 bad=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n workbench.$2"; else echo "not ok $n workbench.$2"; bad=1; fi
}

# shellcheck disable=SC2016 # $f is for the guest's shell, not this one.
cmd='for f in /sys/kernel/security/lockdown; do echo "<$f>"; done; cat $f; echo '\''a b'\''; exit 3'
# -o initramfs: make check has built it, and what it needs.
make -s -C "$top" -o initramfs run LEVEL=integrity CMD="$cmd" >"$out" 2>&1
rc=$?

echo "1..3"
grep -qx '</sys/kernel/security/lockdown>' "$out"
ok $? run_cmd_keeps_dollar
grep -qx 'none \[integrity\] confidentiality' "$out" && grep -qx 'a b' "$out"
ok $? run_cmd_runs_at_level
# make itself exits 2 when a recipe fails; it names the recipe's status.
[ $rc = 2 ] && grep -q 'Error 3$' "$out"
ok $? run_cmd_exit_status
[ $bad = 0 ] || { echo "# make run exited $rc:"; sed 's/^/# /' "$out"; }
exit $bad
