#!/bin/bash
# Boot the guest once. The job for the guest is the env file given: it is
# packed into a small cpio appended to the initramfs, as /scenario.env.
# Console (ttyS0) goes to stdout or to DIR/console.log, the results port
# (ttyS1) to DIR/results.log.  A guest still running after LOCKDOWN_TIMEOUT
# seconds is stopped, its state recorded first in DIR/hang-state.log.
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
cmdline="" keyboard=0 firmware=bios efivars="" efivars_fresh=0 mem=512
# shellcheck source=/dev/null # the scenario file, named on the command line
. "$env"
stage=$(mktemp -d)
trap 'rm -rf "$stage"; [ -z "${vm:-}" ] || kill "$vm" 2>/dev/null || true' EXIT
cp "$env" "$stage/scenario.env"
cp "$env" "$dir/scenario.env"
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
# boot to the next; efivars_fresh=1 starts that store empty.
fw=()
if [ "$firmware" = ovmf ] && [ -n "$efivars" ]; then
	store=$build/efivars-$efivars.fd
	if [ "$efivars_fresh" = 1 ] || [ ! -f "$store" ]; then
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

rm -f "$dir/console.log" "$dir/results.log" "$dir/monitor.sock"
# keyboard=1: a test presses keys on the guest's PS/2 keyboard through the
# QEMU monitor (sendkeys.py), as a person at the machine would.
keys=
if [ "$keyboard" = 1 ]; then
	python3 "$top/scripts/sendkeys.py" "$dir/results.log" "$dir/console.log" \
		"$dir/monitor.sock" 2>"$dir/sendkeys.log" &
	keys=$!
fi
timeout=${LOCKDOWN_TIMEOUT:-180}
set +e
if [ $interactive = 1 ]; then
	timeout --foreground "$timeout" "${qemu[@]}"
	rc=$?
else
	"${qemu[@]}" &
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
	fi
fi
[ -n "$keys" ] && kill "$keys" 2>/dev/null; wait
set -e
[ $rc = 124 ] && echo "vm.sh: guest timed out after ${timeout}s;" \
	"its state: $dir/hang-state.log" >&2
exit $rc
