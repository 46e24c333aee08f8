#!/bin/bash
# The Debian tier: the series' kernel (config/variant-debian.config) boots the
# Debian 12 root file system of scripts/rootfs.sh from a virtio disk, with
# systemd as init, once per scenario; Debian's own tools (wg-quick, cryptsetup,
# dmsetup, ip, auditd, insmod, mokutil...) run tests/debian/run-tests.sh there.
# Each guest writes to a throwaway overlay: the image itself never changes.
# Scenarios:
#   none, integrity, confidentiality  lockdown= on the command line (none:
#       nothing), QEMU's -kernel on a BIOS machine.
#   secureboot  OVMF with Secure Boot enforced (Debian's snakeoil keys) boots
#       the signed unified kernel image of scripts/esp.sh from its EFI system
#       partition; nothing on the command line: the level is Secure Boot's.
#   secureboot-unsigned  the same firmware and disk with the image unsigned:
#       the firmware must refuse it, and no kernel starts.
# LOCKDOWN_DEBIAN_KERNEL=debconf (make check-debian-config): the same on the
# kernel of scripts/kernel-debconfig.sh, Debian's own config, installed in
# the root file system from its linux-image package with Debian's
# initramfs, which the -kernel scenarios boot with -initrd and the unified
# image carries.
# Prints one line per test and ends with "N passed, N failed".
# Usage: check-debian.sh [SCENARIO...]   (default: all of the above)
set -euo pipefail
. "$(dirname "$0")/common.sh"

all=(none integrity confidentiality secureboot secureboot-unsigned)
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("${all[@]}")
for s in "${scenarios[@]}"; do
	[[ " ${all[*]} " == *" $s "* ]] || die "unknown scenario $s (known: ${all[*]})"
done

flavour=${LOCKDOWN_DEBIAN_KERNEL:-variant}
case $flavour in
variant)
	"$top/scripts/kernel.sh" debian
	"$top/scripts/rootfs.sh"
	"$top/scripts/esp.sh"
	kernel=$(kout debian)/arch/x86/boot/bzImage initrd=() suffix='' tier=debian
	;;
debconf)
	"$top/scripts/kernel-debconfig.sh"
	"$top/scripts/rootfs.sh" debconf
	"$top/scripts/esp.sh" debconf
	kernel=$build/debian/debconf-boot/vmlinuz suffix=-debconf tier=debian-config
	initrd=(-initrd "$build/debian/debconf-boot/initrd.img")
	;;
*) die "LOCKDOWN_DEBIAN_KERNEL: variant or debconf, not $flavour" ;;
esac
img=$build/debian/rootfs$suffix.img
logs=$build/check-$tier
rm -rf "$logs"
mkdir -p "$logs"

read -ra accel <<<"$(qemu_accel)"
timeout=${LOCKDOWN_DEBIAN_TIMEOUT:-900}
ovmf=/usr/share/OVMF

# Seconds a guest has to power off once its tests printed LDT-EXIT.
grace=${LOCKDOWN_DEBIAN_POWEROFF:-120}

# What the firmware prints when Secure Boot refuses an image, and what the
# kernel prints first: secureboot-unsigned ends when the first is seen.
refused_re='Access Denied|Security Violation'
started_re='Linux version'

# QEMU's machine and boot arguments for scenario $1 in directory $2, in
# the array args.
# shellcheck disable=SC2054 # commas separate QEMU's suboptions
machine_args() {
	local s=$1 dir=$2 lockdown=''
	# Root first (/dev/vda), then an NVMe controller for nvme-cli with a
	# sparse 64 MiB namespace of its own.
	truncate -s 64M "$dir/nvme.img"
	local root=(-drive "file=$dir/overlay.qcow2,format=qcow2,if=none,id=root"
		-device virtio-blk-pci,drive=root
		-drive "file=$dir/nvme.img,format=raw,if=none,id=nvm"
		-device nvme,serial=ldt0001,drive=nvm)
	case $s in
	secureboot*)
		local esp=$build/debian/esp-signed$suffix.img
		[ "$s" = secureboot ] || esp=$build/debian/esp-unsigned$suffix.img
		cp "$ovmf/OVMF_VARS_4M.snakeoil.fd" "$dir/vars.fd"
		args=(-machine q35,smm=on "${accel[@]}"
			-global driver=cfi.pflash01,property=secure,value=on
			-drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf/OVMF_CODE_4M.snakeoil.fd"
			-drive "if=pflash,format=raw,unit=1,file=$dir/vars.fd"
			"${root[@]}"
			-drive "file=$esp,format=raw,if=none,id=esp,readonly=on"
			-device virtio-blk-pci,drive=esp,bootindex=0) ;;
	*)
		[ "$s" = none ] || lockdown="lockdown=$s"
		args=(-machine pc "${accel[@]}" "${root[@]}"
			-drive "file=$build/debian/esp-signed$suffix.img,format=raw,if=none,id=esp,readonly=on"
			-device virtio-blk-pci,drive=esp
			-kernel "$kernel" "${initrd[@]}"
			-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1 $lockdown") ;;
	esac
}

# Boot scenario $1; the console goes to $logs/$1/console.log.  How the
# guest ended goes to $logs/$1/ended; a guest that finished its tests but
# did not power off is stopped, and that is a failure of its own.
boot() {
	local s=$1 dir=$logs/$1 vm rc start now done_at='' args g=$grace
	mkdir -p "$dir"
	qemu-img create -q -f qcow2 -b "$img" -F raw "$dir/overlay.qcow2"
	machine_args "$s" "$dir"
	log "booting the Debian guest: $s (log: $dir/console.log)"
	# show_status: the console says which unit a slow shutdown waits for.
	qemu-system-x86_64 -nodefaults -no-reboot -smp 2 -m 1024 -display none \
		-serial "file:$dir/console.log" "${args[@]}" &
	vm=$!
	start=$(date +%s)
	while kill -0 "$vm" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		if [ -z "$done_at" ] && grep -aqE '^LDT-EXIT' "$dir/console.log" 2>/dev/null; then
			done_at=$now
		fi
		# An image the firmware refused: a few seconds more show what
		# the firmware does next, and whether a kernel starts anyway.
		if [ "$s" = secureboot-unsigned ] && [ -z "$done_at" ] &&
			grep -aqE "$refused_re" "$dir/console.log" 2>/dev/null; then
			done_at=$now g=10
		fi
		if [ -n "$done_at" ] && [ $((now - done_at)) -ge "$g" ]; then
			kill "$vm"
			if [ "$s" = secureboot-unsigned ]; then
				echo "stopped ${g}s after the firmware's refusal" >"$dir/ended"
			else
				echo "tests done, but no power-off within ${g}s" >"$dir/ended"
			fi
			break
		fi
		if [ $((now - start)) -ge "$timeout" ]; then
			kill "$vm"
			echo "timed out after ${timeout}s" >"$dir/ended"
			break
		fi
	done
	set +e
	wait "$vm"
	rc=$?
	set -e
	[ -f "$dir/ended" ] || echo "exited, QEMU status $rc" >"$dir/ended"
	rm -f "$dir/overlay.qcow2" "$dir/nvme.img"
}

pass=0 fail=0
# The guest prints "LDT ok NAME", "LDT not ok NAME # why", "LDT skip NAME #
# why", and "LDT-EXIT rc" last; a guest that never prints LDT-EXIT failed.
report() {
	local level=$1 console=$logs/$1/console.log line name
	if [ "$level" = secureboot-unsigned ]; then
		report_refused "$console"
		return
	fi
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"LDT ok "*)
			name=${line#LDT ok }
			echo "ok   $tier-$level $name"
			pass=$((pass + 1)) ;;
		"LDT not ok "*)
			name=${line#LDT not ok }
			echo "FAIL $tier-$level $name"
			fail=$((fail + 1)) ;;
		"LDT skip "*)
			name=${line#LDT skip }
			echo "skip $tier-$level $name" ;;
		"LDT-NOTE "*)
			echo "     ${line#LDT-NOTE }" ;;
		esac
	done < <(grep -a '^LDT[ -]' "$console" 2>/dev/null || true)
	if ! grep -aq '^LDT-EXIT' "$console" 2>/dev/null; then
		echo "FAIL $tier-$level guest  # never finished: $(cat "$logs/$level/ended")"
		fail=$((fail + 1))
	elif grep -q 'no power-off' "$logs/$level/ended"; then
		echo "FAIL $tier-$level poweroff  # $(cat "$logs/$level/ended")"
		fail=$((fail + 1))
	else
		echo "ok   $tier-$level poweroff"
		pass=$((pass + 1))
	fi
}

# secureboot-unsigned: the firmware said why it refused the image, and no
# kernel started.
report_refused() {
	local console=$1 why
	# The firmware's line, without the terminal codes before it.
	why=$(grep -aE "$refused_re" "$console" | head -n 1 | tr -d '\r' |
		sed 's/.*BdsDxe:/BdsDxe:/' || true)
	if [ -z "$why" ]; then
		echo "FAIL $tier-secureboot-unsigned firmware_refuses  # no refusal: $(cat "$logs/secureboot-unsigned/ended")"
		fail=$((fail + 1))
	elif grep -aq "$started_re" "$console"; then
		echo "FAIL $tier-secureboot-unsigned firmware_refuses  # a kernel started after: $why"
		fail=$((fail + 1))
	else
		echo "ok   $tier-secureboot-unsigned firmware_refuses"
		echo "     firmware: $why"
		pass=$((pass + 1))
	fi
}

for s in "${scenarios[@]}"; do
	boot "$s"
	report "$s"
done
echo "Logs: $logs/SCENARIO/console.log"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
