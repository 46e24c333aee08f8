#!/bin/bash
# Boot the guest at LEVEL; run CMD in it and power off, or, without CMD,
# give an interactive shell on the serial console (Ctrl-a x quits QEMU).
# Usage: run.sh LEVEL [CMD]
set -euo pipefail
. "$(dirname "$0")/common.sh"

level=${1:-none} cmd=${2:-}
case $level in
none) cmdline="" ;;
integrity | confidentiality) cmdline="lockdown=$level" ;;
*) die "LEVEL must be none, integrity or confidentiality, not '$level'" ;;
esac

dir=$build/run
mkdir -p "$dir"
# A scenario of two keys, written by scripts/scenario.py, which quotes
# CMD so that the guest's shell reads it as typed.
{
	"$top/scripts/scenario.py" assign cmdline "quiet $cmdline"
	"$top/scripts/scenario.py" assign cmd "$cmd"
} >"$dir/run.env"

if [ -z "$cmd" ]; then
	exec "$top/scripts/vm.sh" -i "$dir/run.env" "$dir" "$(kout default)/arch/x86/boot/bzImage"
fi
"$top/scripts/vm.sh" "$dir/run.env" "$dir" "$(kout default)/arch/x86/boot/bzImage" || true
# The command's output came over the results port, apart from the kernel's.
tr -d '\r' <"$dir/results.log" | grep -v '^LDT-EXIT '
rc=$(tr -d '\r' <"$dir/results.log" | sed -n 's/^LDT-EXIT //p')
exit "${rc:-255}"
