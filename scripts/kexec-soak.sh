#!/bin/bash
# Kexec soak: one guest that kexecs into its own kernel COUNT times, each
# boot loading the next with kexec_load_test, as boot 1 of the kexec
# scenarios does.  For hunting a hang that comes once in many kexec boots:
# a console silent for STALL seconds is taken for one, and the guest's state
# (registers, local APICs, gdb backtraces of both vCPUs) is written to
# DIR/hang-state.log before the guest is stopped.
#
# The boot count lives in /soak-boot in the root file system, which each
# boot packs whole as the next one's initramfs.  The guests boot with
# nokaslr, so that gdb can name the functions in the backtraces.
#
# Usage: kexec-soak.sh [-l LEVEL] [-s STALL] VARIANT COUNT [DIR]
#   DIR       console, results and hang-state.log ($build/kexec-soak)
#   -l LEVEL  raise to LEVEL at the first boot (kexec passes it on;
#             none raises nothing)
#   -s STALL  seconds of console silence taken for a hang (300)
# Exits 0 when all COUNT boots came up, 1 on a hang or a failed load.
# LOCKDOWN_EXTRA_CMDLINE is appended to the command line, as in vm.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"

level='' stall=300
while getopts l:s: o; do
	case $o in
	l) level=$OPTARG ;;
	s) stall=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || [ $# = 3 ] ||
	die "usage: kexec-soak.sh [-l LEVEL] [-s STALL] VARIANT COUNT [DIR]"
variant=$1 count=$2 dir=${3:-$build/kexec-soak}
case $level in
none) level='' ;;
'' | integrity | confidentiality) ;;
*) die "LEVEL must be none, integrity or confidentiality, not '$level'" ;;
esac
case $count in
'' | *[!0-9]* | 0) die "COUNT must be a number of boots, not '$count'" ;;
esac
kernel=$(kout "$variant")/arch/x86/boot/bzImage
vmlinux=$(kout "$variant")/vmlinux
[ -f "$kernel" ] || die "no $variant kernel: run make kernels or make check-debug"
mkdir -p "$dir"

# The guest's job, run by tests/init at every boot.  Its output goes to
# the results port: one "SOAK-BOOT n level" line per boot.
cat >"$dir/soak.env" <<EOF
cmdline="nokaslr"
cmd='n=\$((\$(cat /soak-boot 2>/dev/null || echo 0) + 1)); echo \$n >/soak-boot
[ \$n != 1 ] || [ -z "$level" ] || echo $level >/sys/kernel/security/lockdown
echo "SOAK-BOOT \$n \$(cat /sys/kernel/security/lockdown)"
[ \$n -lt $count ] || exit 0
LOCKDOWN_TEST_DESTRUCTIVE=1 /selftests/kexec_load_test >/dev/null 2>&1 ||
	{ echo "SOAK-LOAD-FAILED \$n"; exit 1; }
/selftests/kexec_load_test --exec'
EOF

# vm.sh's own timeout only backs up the stall check below.
LOCKDOWN_VARIANT=$variant LOCKDOWN_TIMEOUT=$((count * 600)) \
	"$top/scripts/vm.sh" "$dir/soak.env" "$dir" "$kernel" &
vm=$!
trap 'kill $vm 2>/dev/null || true' EXIT
hang=0
while kill -0 $vm 2>/dev/null; do
	sleep 10
	[ -f "$dir/console.log" ] || continue
	silent=$(($(date +%s) - $(stat -c %Y "$dir/console.log")))
	if [ $silent -gt "$stall" ]; then
		hang=1
		log "console silent for ${silent}s: recording the guest's state"
		# No backtraces without the vmlinux (renamed when CI must
		# skip check-debug): the rest of the state still.
		args=("$dir/monitor.sock")
		[ ! -f "$vmlinux" ] || args=(--vmlinux "$vmlinux" "${args[@]}")
		timeout 300 python3 "$top/scripts/qemu-state.py" "${args[@]}" \
			>"$dir/hang-state.log" 2>&1 || true
		kill $vm 2>/dev/null || true
		break
	fi
done
wait $vm 2>/dev/null || true
trap - EXIT

boots=$(tr -d '\r' <"$dir/results.log" | grep -c '^SOAK-BOOT ' || true)
echo "kexec-soak: $boots of $count boots came up$([ $hang = 0 ] || echo \
	"; then a hang: $dir/hang-state.log")"
[ $hang = 0 ] && [ "$boots" = "$count" ] &&
	! grep -q SOAK-LOAD-FAILED "$dir/results.log"
