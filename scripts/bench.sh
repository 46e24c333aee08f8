#!/bin/bash
# make bench: our series against the unpatched tree, both built from the same
# config (the guest's, less our KUnit option and debug info) and booted in
# the same run.
# Prints, each as ours / unpatched: kernel text size, build time from an
# empty output directory with ccache off (everything compiled) and with
# nothing to do, boot to results for each level scenario (median of three
# boots), and the cost of one lockdown check at none and at integrity.
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
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }

for side in ours base; do
	out=$build/out-bench-$side
	kmake() { make -C "${src[$side]}" O="$out" CC="ccache gcc" -j"$(nproc)" "$@"; }
	rm -rf "$out"
	mkdir -p "$out"
	cp "$cfg" "$out/.config"
	log "$side: building"
	t=$(now)
	kmake -s olddefconfig >/dev/null
	CCACHE_DISABLE=1 kmake -s bzImage modules >"$out/build.log" 2>&1 ||
		die "$side build failed: $out/build.log"
	cold[$side]=$(secs "$t")
	t=$(now)
	kmake -s bzImage modules >/dev/null 2>&1
	warm[$side]=$(secs "$t")
	text[$side]=$(size "$out/vmlinux" | awk 'NR == 2 { print $1 }')

	# The benchmark module, signed so that it loads at integrity too.
	mod=$out/bench
	rm -rf "$mod" && cp -r "$top/bench" "$mod"
	kmake -s M="$mod" modules >/dev/null
	"$out/scripts/sign-file" sha256 "$build/keys/signing_key.pem" \
		"$out/certs/signing_key.x509" "$mod/lockdown_bench.ko"
	stage=$(mktemp -d)
	mkdir -p "$stage/bench"
	cp "$mod/lockdown_bench.ko" "$stage/bench/"
	(cd "$stage" && find bench | cpio -o -H newc --quiet) >"$out/bench.cpio"
	rm -rf "$stage"

	for level in none integrity; do
		env=$out/bench-$level.env
		{
			[ $level = none ] && echo 'cmdline=""' || echo "cmdline=lockdown=$level"
			echo 'cmd="insmod /bench/lockdown_bench.ko && dmesg | grep lockdown_bench:"'
		} >"$env"
		LOCKDOWN_EXTRA_CPIO=$out/bench.cpio "$top/scripts/vm.sh" "$env" \
			"$out/vm-$level" "$out/arch/x86/boot/bzImage" || die "$side boot at $level failed"
		ps=$(tr -d '\r' <"$out/vm-$level/results.log" | sed -n 's/.*ps_per_check=\([0-9]*\).*/\1/p')
		[ -n "$ps" ] || die "$side at $level: no result in $out/vm-$level/results.log"
		[ $level = none ] && none[$side]=$ps || integ[$side]=$ps
	done

	for sc in "${scenarios[@]}"; do
		env=$out/boot-$sc.env
		scenario_env "$sc" >"$env"
		times=()
		for i in 1 2 3; do
			t=$(now)
			"$top/scripts/vm.sh" "$env" "$out/boot-$sc" \
				"$out/arch/x86/boot/bzImage" || die "$side boot $sc failed"
			times+=("$(secs "$t")")
			grep -q '^LDT-EXIT 0' <(tr -d '\r' <"$out/boot-$sc/results.log") ||
				die "$side boot $sc: the job failed: $out/boot-$sc/results.log"
		done
		boot[$side-$sc]=$(median "${times[@]}")
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
