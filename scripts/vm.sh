#!/bin/bash
# Boot the guest once. The job for the guest is the env file given (a
# scenario, tests/scenarios/NAME.env, or a file written as one): it is read
# by scripts/scenario.py, and packed as scenario.py writes it into a small
# cpio appended to the initramfs, as /scenario.env.
# Console (ttyS0) goes to stdout or to DIR/console.log, the results port
# (ttyS1) to DIR/results.log, QEMU's own messages to DIR/qemu.log (and,
# with -i, to this terminal).  A guest still running after LOCKDOWN_TIMEOUT
# seconds is stopped, its state recorded first in DIR/hang-state.log.  How
# the guest ended goes to DIR/end.log, one line (see ended() below).
# Exits with QEMU's status, 124 on a timeout.
# Usage: vm.sh [-i] [-n] ENVFILE DIR KERNEL
#   -i  interactive: console on this terminal
#   -n  dry run: print the QEMU command line and exit
# LOCKDOWN_EXTRA_CMDLINE is appended to the scenario's command line.
set -euo pipefail
. "$(dirname "$0")/common.sh"

interactive=0 dry=0
while getopts in o; do
	case $o in
	i) interactive=1 ;;
	n) dry=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
env=$1 dir=$2 kernel=$3

mkdir -p "$dir"
# The keys of the scenario this script reads, each with its value or its
# default, through scripts/scenario.py (the keys: docs/harness.md); the
# guest gets the file as scenario.py writes it, canonical, which is also
# what DIR/scenario.env keeps for report.py.
cmdline='' keyboard='' firmware='' efivars='' efivars_fresh='' mem=''
vars=$("$top/scripts/scenario.py" shell "$env" cmdline keyboard firmware efivars \
	efivars_fresh mem)
eval "$vars"
stage=$(mktemp -d)
# Killed while the guest runs (kexec-soak.sh stops a hang so): QEMU goes too.
trap 'rm -rf "$stage"; [ -z "${vm:-}" ] || { kill "$vm" 2>/dev/null
	echo "vm.sh stopped before the guest ended" >"$dir/end.log"; }' EXIT
"$top/scripts/scenario.py" shell "$env" >"$stage/scenario.env"
cp "$stage/scenario.env" "$dir/scenario.env"
(cd "$stage" && echo scenario.env | cpio -o -H newc --quiet) >"$dir/job.cpio"
# LOCKDOWN_EXTRA_CPIO: more files for this boot only (make bench's module).
# LOCKDOWN_VARIANT: boot with that variant's initramfs (its own modules).
# shellcheck disable=SC2086 # a list of files, split on purpose
cat "$(initramfs_path "${LOCKDOWN_VARIANT:-default}")" ${LOCKDOWN_EXTRA_CPIO:-} \
	"$dir/job.cpio" >"$dir/initrd.cpio"

read -ra accel <<<"$(qemu_accel)"
if [ $interactive = 1 ]; then
	console=(-serial mon:stdio)
else
	console=(-serial "file:$dir/console.log")
fi
# mem=MiB: the guest's memory (512), more for a crash kernel's reservation.
# firmware=ovmf: boot through UEFI (OVMF), for what exists only there.
# efivars=NAME keeps its EFI variables in $build/efivars-NAME.fd, from one
# boot to the next; efivars_fresh=1 starts that store empty (not in a dry
# run: the store may be in use by a run that boots, between two of its
# scenarios).
fw=()
if [ "$firmware" = ovmf ] && [ -n "$efivars" ]; then
	store=$build/efivars-$efivars.fd
	if [ $dry = 0 ] && { [ "$efivars_fresh" = 1 ] || [ ! -f "$store" ]; }; then
		cp /usr/share/OVMF/OVMF_VARS_4M.fd "$store"
	fi
	fw=(-drive "if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd"
	    -drive "if=pflash,format=raw,file=$store")
elif [ "$firmware" = ovmf ]; then
	fw=(-bios /usr/share/ovmf/OVMF.fd)
fi
# Devices the tests drive: pci-testdev (PCI sysfs and procfs, VFIO), edu
# (UIO), an NVMe controller with a 1 MiB namespace that stores nothing
# (nvme_passthru), and an ATI Rage 128 Pro for aty128fb (fb_mmio_mmap).
# shellcheck disable=SC2054 # commas separate QEMU's suboptions
qemu=(qemu-system-x86_64 -nodefaults -no-reboot -machine pc "${accel[@]}" "${fw[@]}"
	-smp 2 -m "$mem" -display none
	"${console[@]}" -serial "file:$dir/results.log" -serial null
	-device pci-testdev -device edu
	-blockdev driver=null-co,node-name=nvm,size=1048576,read-zeroes=on
	-device nvme,serial=lockdown,drive=nvm
	-device ati-vga
	-monitor "unix:$dir/monitor.sock,server=on,wait=off"
	-kernel "$kernel" -initrd "$dir/initrd.cpio"
	-append "console=ttyS0 panic=-1 $cmdline${LOCKDOWN_EXTRA_CMDLINE:+ $LOCKDOWN_EXTRA_CMDLINE}")
if [ $dry = 1 ]; then
	printf '%q ' "${qemu[@]}"; echo
	exit 0
fi

rm -f "$dir/console.log" "$dir/results.log" "$dir/monitor.sock" \
	"$dir/qemu.log" "$dir/end.log" "$dir/hang-state.log"

# How the guest ended, one line for DIR/end.log, which report.py quotes
# when a guest did not finish; @1 is QEMU's exit status.
#   exit RC[: MSG]               QEMU exited by itself: 0 when the guest
#                                powered off or reset (-no-reboot: a panic
#                                with panic=-1 too)
#   qemu failed to start: MSG    QEMU exited non-zero with nothing on the
#                                guest's console: it stopped before the guest
#                                ran (a bad option, a missing kernel or
#                                firmware file).  Not told apart with -i,
#                                whose console is the terminal: exit RC: MSG
#   qemu killed by SIGNAME[: MSG]  a signal QEMU does not catch (SIGKILL)
#   timeout after N s (state in hang-state.log)
#   vm.sh stopped before the guest ended   (the trap above)
# MSG: QEMU's first line in DIR/qemu.log that is not a warning, else its
# first line; left out when QEMU said nothing.
ended() {
	local rc=$1 msg
	msg=$(grep -v -m1 'warning:' "$dir/qemu.log" 2>/dev/null ||
		head -n1 "$dir/qemu.log" 2>/dev/null || true)
	if [ "$rc" -gt 128 ]; then
		echo "qemu killed by SIG$(kill -l $((rc - 128)))${msg:+: $msg}"
	elif [ "$rc" != 0 ] && [ $interactive = 0 ] && [ ! -s "$dir/console.log" ]; then
		echo "qemu failed to start: ${msg:-exit $rc, no message}"
	else
		echo "exit $rc${msg:+: $msg}"
	fi
}
# keyboard=1: a test presses keys on the guest's PS/2 keyboard through the
# QEMU monitor (sendkeys.py), as a person at the machine would.
keys=
if [ "$keyboard" = 1 ]; then
	python3 "$top/scripts/sendkeys.py" "$dir/results.log" "$dir/console.log" \
		"$dir/monitor.sock" 2>"$dir/sendkeys.log" &
	keys=$!
fi
timeout=${LOCKDOWN_TIMEOUT:-180} ending=
set +e
if [ $interactive = 1 ]; then
	timeout --foreground "$timeout" "${qemu[@]}" 2> >(tee "$dir/qemu.log" >&2)
	rc=$?
	[ $rc != 124 ] || ending="timeout after $timeout s"
else
	"${qemu[@]}" 2>"$dir/qemu.log" &
	vm=$!
	if timeout "$timeout" tail -s 0.2 --pid="$vm" -f /dev/null; then
		wait "$vm"
		rc=$?
		vm=
	else
		# A hang: record what the host can see of the guest, and what
		# it prints on SysRq, before stopping it (DIR/hang-state.log).
		[ -n "$keys" ] && kill "$keys" 2>/dev/null
		timeout 60 python3 "$top/scripts/qemu-state.py" "$dir/monitor.sock" \
			>"$dir/hang-state.log" 2>&1
		kill "$vm"
		wait "$vm"
		vm=
		rc=124
		ending="timeout after $timeout s (state in hang-state.log)"
	fi
fi
[ -n "$keys" ] && kill "$keys" 2>/dev/null; wait
set -e
# After the wait: with -i, tee may still be writing qemu.log.
[ -n "$ending" ] || ending=$(ended $rc)
echo "$ending" >"$dir/end.log"
[ $rc = 124 ] && echo "vm.sh: guest timed out after ${timeout}s;" \
	"its state: $dir/hang-state.log" >&2
exit $rc
