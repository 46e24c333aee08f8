#!/bin/bash
# Boot one guest per scenario and print the report.
# Usage: check.sh [-n] [SCENARIO...]   (default: workbench, then
# tests/scenarios/order; make check S='none integrity' names some)
#   -n  print the run, one scenario a line, and boot nothing
# Expects the tree, kernels and initramfs to be built (make check does that).
# With LOCKDOWN_VARIANT=V (make check-debug), every scenario that runs on the
# default kernel runs on variant V's kernel and initramfs instead; those
# made for another variant are left out.
set -euo pipefail
. "$(dirname "$0")/common.sh"
scenario=$top/scripts/scenario.py

scenario_variant() {
	"$scenario" get "$top/tests/scenarios/$1.env" variant
}

# The run, through scripts/scenario.py, which checks each scenario file
# first and puts each scenario after those its after= names: a full run
# takes tests/scenarios/order (every scenario once, each after its after=)
# and refuses a scenario whose after= names one the variant leaves out;
# a run that names some pulls a missing after= in just before its first
# use, and refuses one named after a scenario that needs it.
dry=0
[ "${1:-}" != -n ] || { dry=1; shift; }
full=0
if [ $# -eq 0 ]; then
	full=1
	order=$("$scenario" order)
	mapfile -t order <<<"$order"
	set -- "${order[@]}"
	if [ -n "${LOCKDOWN_VARIANT:-}" ]; then
		keep=()
		for sc; do
			[ "$(scenario_variant "$sc")" = default ] && keep+=("$sc")
		done
		set -- "${keep[@]}"
	fi
	plan=$("$scenario" plan --no-pull "$@")
else
	plan=$("$scenario" plan --extra workbench "$@")
fi
[ -n "$plan" ] || die "no scenario to run"
mapfile -t order <<<"$plan"
set -- "${order[@]}"
[ $full = 0 ] || [ -n "${LOCKDOWN_VARIANT:-}" ] || set -- workbench "$@"
if [ $dry = 1 ]; then
	printf '%s\n' "$@"
	exit 0
fi
suffix=${LOCKDOWN_VARIANT:+-$LOCKDOWN_VARIANT}
results=${LOCKDOWN_RESULTS:-$build/results$suffix}
rm -rf "$results"
mkdir -p "$results"

# The harness's own tests, as one more column of the report: a full run
# (no scenario named) or one that names "workbench".
workbench() {
	local dir=$results/workbench t rc all=0
	mkdir -p "$dir"
	for t in tree_test run_test report_test scenario_test; do
		echo "# LDT-SUITE $t"
		rc=0
		"$top/tests/workbench/$t.sh" || rc=$?
		echo "# LDT-SUITE-EXIT $t $rc"
		[ $rc = 0 ] || all=1
	done >"$dir/results.log" 2>&1
	echo "LDT-EXIT $all" >>"$dir/results.log"
}

for sc in "$@"; do
	if [ "$sc" = workbench ]; then
		workbench
		continue
	fi
	env=$top/tests/scenarios/$sc.env
	variant=$(scenario_variant "$sc")
	[ -n "${LOCKDOWN_VARIANT:-}" ] && variant=$LOCKDOWN_VARIANT
	start=$(date +%s.%N)
	"$top/scripts/vm.sh" "$env" "$results/$sc" "$(kout "$variant")/arch/x86/boot/bzImage" || true
	printf '%s %.1f\n' "$sc" "$(echo "$(date +%s.%N) - $start" | bc)" >>"$results/boot-times"
done
log "boot times (s): $(tr '\n' ' ' <"$results/boot-times")"
"$top/scripts/report.py" "$results" "$@"
