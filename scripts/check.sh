#!/bin/bash
# Boot one guest per scenario and print the report.
# Usage: check.sh [SCENARIO...]   (default: workbench, then
# tests/scenarios/order; make check S='none integrity' names some)
# Expects the tree, kernels and initramfs to be built (make check does that).
# With LOCKDOWN_VARIANT=V (make check-debug), every scenario that runs on the
# default kernel runs on variant V's kernel and initramfs instead; those
# made for another variant are left out.
set -euo pipefail
. "$(dirname "$0")/common.sh"

scenario_variant() {
	local variant=default
	eval "$(grep '^variant=' "$top/tests/scenarios/$1.env" || true)"
	echo "$variant"
}

if [ $# -eq 0 ]; then
	mapfile -t order < <(grep -v '^#' "$top/tests/scenarios/order")
	set -- "${order[@]}"
	[ -n "${LOCKDOWN_VARIANT:-}" ] || set -- workbench "$@"
	for f in "$top"/tests/scenarios/*.env; do
		f=${f##*/}
		grep -qx "${f%.env}" "$top/tests/scenarios/order" ||
			die "scenario ${f%.env} is not listed in tests/scenarios/order"
	done
	if [ -n "${LOCKDOWN_VARIANT:-}" ]; then
		keep=()
		for sc; do
			[ "$(scenario_variant "$sc")" = default ] && keep+=("$sc")
		done
		set -- "${keep[@]}"
	fi
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
	for t in tree_test run_test report_test; do
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
	[ -f "$env" ] || die "no scenario $sc"
	variant=$(scenario_variant "$sc")
	[ -n "${LOCKDOWN_VARIANT:-}" ] && variant=$LOCKDOWN_VARIANT
	start=$(date +%s.%N)
	"$top/scripts/vm.sh" "$env" "$results/$sc" "$(kout "$variant")/arch/x86/boot/bzImage" || true
	printf '%s %.1f\n' "$sc" "$(echo "$(date +%s.%N) - $start" | bc)" >>"$results/boot-times"
done
log "boot times (s): $(tr '\n' ' ' <"$results/boot-times")"
"$top/scripts/report.py" "$results" "$@"
