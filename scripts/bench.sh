#!/bin/bash
# make bench: our series against the unpatched tree, both built from the same
# config (the guest's, less our KUnit option and debug info) and booted in
# the same run.
# Prints, each as ours / unpatched: kernel text size, build time from an
# empty output directory with ccache off (everything compiled) and with
# nothing to do, boot to results for each level scenario, and the cost of
# one lockdown check at none and at integrity (each the median of
# LOCKDOWN_BENCH_RUNS boots, default 5, alternating between the kernels).
# LOCKDOWN_BENCH_REUSE=1 keeps builds made from the same config and times
# the boots only; the build figures printed are then those of that build.
set -euo pipefail
. "$(dirname "$0")/common.sh"

base=$build/linux-base
if [ ! -d "$base" ]; then
	git -C "$tree" worktree add -q --detach "$base" baseline
fi
git -C "$base" checkout -q --detach baseline

# The guest's config less our KUnit option and less debug info, which would
# only dilute the build ratio; the benchmark needs no BTF.
cfg=$build/bench.config
grep -v 'CONFIG_SECURITY_LOCKDOWN_KUNIT_TEST' "$(kout default)/.config" >"$cfg"
config_without_debug_info "$cfg"
export CCACHE_DIR=${CCACHE_DIR:-$build/ccache}

declare -A src=([ours]=$tree [base]=$base) text cold warm boot none integ
# Boot to results: the same job on both kernels, which both take lockdown=
# and the securityfs file; "runtime" raises the level at run time first.
scenarios=(none integrity confidentiality runtime)
scenario_env() {
	case $1 in
	none) echo 'cmdline=""' ;;
	runtime) printf 'cmdline=""\nraise=integrity\n' ;;
	*) echo "cmdline=lockdown=$1" ;;
	esac
	echo 'cmd="cat /sys/kernel/security/lockdown"'
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }

# Build both kernels first; the figures of a build are kept beside it, so
# that LOCKDOWN_BENCH_REUSE=1 can time the boots again without rebuilding.
build_side() {
	local side=$1
	local out=$build/out-bench-$side t
	local saved=$out/bench.builds
	kmake() { make -C "${src[$side]}" O="$out" CC="ccache gcc" -j"$(nproc)" "$@"; }

	if [ "${LOCKDOWN_BENCH_REUSE:-0}" = 1 ] && [ -s "$saved" ] &&
		[ "$(sed -n 's/^config=//p' "$saved")" = "$(sha256sum <"$cfg")" ]; then
		log "$side: reusing the build of $(sed -n 's/^date=//p' "$saved")"
	else
		rm -rf "$out"
		mkdir -p "$out"
		cp "$cfg" "$out/.config"
		log "$side: building"
		t=$(now)
		kmake -s olddefconfig >/dev/null
		CCACHE_DISABLE=1 kmake -s bzImage modules >"$out/build.log" 2>&1 ||
			die "$side build failed: $out/build.log"
		printf 'cold=%s\n' "$(secs "$t")" >"$out/bench.new"
		t=$(now)
		kmake -s bzImage modules >/dev/null 2>&1
		printf 'warm=%s\ndate=%s\nconfig=%s\n' "$(secs "$t")" \
			"$(date -u +%F)" "$(sha256sum <"$cfg")" >>"$out/bench.new"
		mv "$out/bench.new" "$saved"
	fi
	cold[$side]=$(sed -n 's/^cold=//p' "$saved")
	warm[$side]=$(sed -n 's/^warm=//p' "$saved")
	built[$side]=$(sed -n 's/^date=//p' "$saved")
	text[$side]=$(size "$out/vmlinux" | awk 'NR == 2 { print $1 }')

	# The benchmark module, signed so that it loads at integrity too.
	local mod=$out/bench stage
	rm -rf "$mod" && cp -r "$top/bench" "$mod"
	kmake -s M="$mod" modules >/dev/null
	"$out/scripts/sign-file" sha256 "$build/keys/signing_key.pem" \
		"$out/certs/signing_key.x509" "$mod/lockdown_bench.ko"
	stage=$(mktemp -d)
	mkdir -p "$stage/bench"
	cp "$mod/lockdown_bench.ko" "$stage/bench/"
	(cd "$stage" && find bench | cpio -o -H newc --quiet) >"$out/bench.cpio"
	rm -rf "$stage"
}

# One boot of @side's kernel for the check's cost at @level; prints it.
check_cost() {
	local side=$1 level=$2 out=$build/out-bench-$1 env ps
	env=$out/bench-$level.env
	{
		[ "$level" = none ] && echo 'cmdline=""' || echo "cmdline=lockdown=$level"
		echo 'cmd="insmod /bench/lockdown_bench.ko && dmesg | grep lockdown_bench:"'
	} >"$env"
	LOCKDOWN_EXTRA_CPIO=$out/bench.cpio "$top/scripts/vm.sh" "$env" \
		"$out/vm-$level" "$out/arch/x86/boot/bzImage" >&2 ||
		die "$side boot at $level failed"
	ps=$(tr -d '\r' <"$out/vm-$level/results.log" | sed -n 's/.*ps_per_check=\([0-9]*\).*/\1/p')
	[ -n "$ps" ] || die "$side at $level: no result in $out/vm-$level/results.log"
	echo "$ps"
}

# One boot of @side's kernel to the results of scenario @sc; prints seconds.
boot_time() {
	local side=$1 sc=$2 out=$build/out-bench-$1 env t
	env=$out/boot-$sc.env
	scenario_env "$sc" >"$env"
	t=$(now)
	"$top/scripts/vm.sh" "$env" "$out/boot-$sc" "$out/arch/x86/boot/bzImage" >&2 ||
		die "$side boot $sc failed"
	secs "$t"
	grep -q '^LDT-EXIT 0' <(tr -d '\r' <"$out/boot-$sc/results.log") ||
		die "$side boot $sc: the job failed: $out/boot-$sc/results.log"
}

declare -A built
for side in ours base; do
	build_side $side
done

# Every timed boot alternates between the two kernels, so that a slower
# stretch of the host (TCG under nested virtualisation drifts by tens of
# per cent within minutes) weighs on both sides alike; each figure is the
# median of its runs.
runs=${LOCKDOWN_BENCH_RUNS:-5}
declare -A samples
log "timing: $runs boots per figure and kernel, alternating"
for ((i = 0; i < runs; i++)); do
	for level in none integrity; do
		for side in ours base; do
			samples[$side-$level]+=" $(check_cost $side $level)"
		done
	done
	for sc in "${scenarios[@]}"; do
		for side in ours base; do
			samples[$side-boot-$sc]+=" $(boot_time "$side" "$sc")"
		done
	done
done
# The samples are space-separated numbers: split on purpose.
# shellcheck disable=SC2086
for side in ours base; do
	none[$side]=$(median ${samples[$side-none]})
	integ[$side]=$(median ${samples[$side-integrity]})
	for sc in "${scenarios[@]}"; do
		boot[$side-$sc]=$(median ${samples[$side-boot-$sc]})
	done
done

ratio() { echo "scale=2; $1 / $2" | bc; }
row() { printf '%-34s %12s %12s %7s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }
printf '%-34s %12s %12s %7s\n' "" ours unpatched ratio
row "kernel text (bytes)" "${text[ours]}" "${text[base]}"
row "build, empty dir, no ccache (s)" "${cold[ours]}" "${cold[base]}"
row "build, nothing to do (s)" "${warm[ours]}" "${warm[base]}"
for sc in "${scenarios[@]}"; do
	row "boot to results, $sc (s)" "${boot[ours-$sc]}" "${boot[base-$sc]}"
done
row "lockdown check at none (ps)" "${none[ours]}" "${none[base]}"
row "lockdown check at integrity (ps)" "${integ[ours]}" "${integ[base]}"
echo "text added by the series: $((text[ours] - text[base])) bytes"
echo "builds timed on ${built[ours]} (ours) and ${built[base]} (unpatched);" \
	"each boot figure the median of $runs, taken alternately"
for side in ours base; do
	echo "check cost samples, $side (ps): none${samples[$side-none]}; integrity${samples[$side-integrity]}"
done
