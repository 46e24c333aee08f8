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
#   uefi  OVMF without Secure Boot (no keys enrolled) boots the same signed
#       image: the level must stay none.
#   secureboot-unsigned  the Secure Boot firmware and disk of secureboot
#       with the image unsigned: the firmware must refuse it, and no kernel
#       starts.  Runs only after secureboot passed in the same run: the
#       refusal means something only where the signed image boots.
# The guest learns which firmware booted it from an SMBIOS OEM string
# (ldt.firmware=), and writes its results to the second serial port.
# LOCKDOWN_DEBIAN_KERNEL=debconf (make check-debian-config): the same on the
# kernel of scripts/kernel-debconfig.sh, Debian's own config, installed in
# the root file system from its linux-image package with Debian's
# initramfs, which the -kernel scenarios boot with -initrd and the unified
# image carries.
# Prints one line per test and ends with "N passed, N failed".
# Usage: check-debian.sh [SCENARIO...]   (default: all of the above)
set -euo pipefail
. "$(dirname "$0")/common.sh"

all=(none integrity confidentiality uefi secureboot secureboot-unsigned)
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("${all[@]}")
for s in "${scenarios[@]}"; do
	[[ " ${all[*]} " == *" $s "* ]] || die "unknown scenario $s (known: ${all[*]})"
done
if [[ " ${scenarios[*]} " == *" secureboot-unsigned "* ]] &&
	[[ " ${scenarios[*]} " != *" secureboot "* ]]; then
	die "secureboot-unsigned needs secureboot in the same run"
fi

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

# The EFI system partition's PCI slot, so that the firmware's refusal can
# be told apart from one of another boot option.
esp_slot=0x10
# What the firmware prints when Secure Boot refuses the ESP's image, and
# what shows that a kernel started: secureboot-unsigned ends 30 s after
# the first is seen.
refused_re="failed to load Boot[0-9A-F]+ .*Pci\($esp_slot,0x0\).*: (Access Denied|Security Violation)"
started_re='EFI stub|Linux version|LDT-BEGIN'

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
	secureboot* | uefi)
		local esp=$build/debian/esp-signed$suffix.img fw=snakeoil oem=secureboot
		[ "$s" != secureboot-unsigned ] || esp=$build/debian/esp-unsigned$suffix.img
		# The plain firmware and its empty variable store: no keys, no
		# Secure Boot.
		[ "$s" != uefi ] || fw='' oem=uefi
		cp "$ovmf/OVMF_VARS_4M${fw:+.$fw}.fd" "$dir/vars.fd"
		args=(-machine q35,smm=on "${accel[@]}"
			-global driver=cfi.pflash01,property=secure,value=on
			-drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf/OVMF_CODE_4M${fw:+.$fw}.fd"
			-drive "if=pflash,format=raw,unit=1,file=$dir/vars.fd"
			-smbios "type=11,value=ldt.firmware=$oem"
			"${root[@]}"
			-drive "file=$esp,format=raw,if=none,id=esp,readonly=on"
			-device "virtio-blk-pci,drive=esp,bootindex=0,addr=$esp_slot") ;;
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
		-serial "file:$dir/console.log" -serial "file:$dir/results.log" \
		"${args[@]}" &
	vm=$!
	start=$(date +%s)
	while kill -0 "$vm" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		if [ -z "$done_at" ] && grep -aqE '^LDT-EXIT' "$dir/results.log" 2>/dev/null; then
			done_at=$now
		fi
		# An image the firmware refused: a few seconds more show what
		# the firmware does next, and whether a kernel starts anyway.
		if [ "$s" = secureboot-unsigned ] && [ -z "$done_at" ] &&
			grep -aqE "$refused_re" "$dir/console.log" 2>/dev/null; then
			done_at=$now g=30
		fi
		if [ -n "$done_at" ] && [ $((now - done_at)) -ge "$g" ]; then
			kill "$vm" 2>/dev/null || true
			if [ "$s" = secureboot-unsigned ]; then
				echo "stopped ${g}s after the firmware's refusal" >"$dir/ended"
			else
				echo "tests done, but no power-off within ${g}s" >"$dir/ended"
			fi
			break
		fi
		if [ $((now - start)) -ge "$timeout" ]; then
			kill "$vm" 2>/dev/null || true
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
	local level=$1 results=$logs/$1/results.log line name plan='' seen=' ' bad=0 rc
	if [ "$level" = secureboot-unsigned ]; then
		report_refused "$logs/$1/console.log"
		return
	fi
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"LDT-PLAN "*)
			# A kexec makes a second boot, with a plan of its own.
			plan+=" ${line#LDT-PLAN }" ;;
		"LDT-KEXEC "*)
			[ "${line#LDT-KEXEC }" = 0 ] || [ "$bad" != 0 ] || {
				echo "FAIL $tier-$level guest  # $line before the kexec, with no failed test"
				bad=$((bad + 1))
			} ;;
		"LDT ok "*)
			name=${line#LDT ok }
			seen+="$name "
			echo "ok   $tier-$level $name"
			pass=$((pass + 1)) ;;
		"LDT not ok "*)
			name=${line#LDT not ok }
			seen+="${name%% *} "
			echo "FAIL $tier-$level $name"
			bad=$((bad + 1)) ;;
		"LDT skip "*)
			name=${line#LDT skip }
			seen+="${name%% *} "
			echo "skip $tier-$level $name" ;;
		"LDT-NOTE "*)
			echo "     ${line#LDT-NOTE }" ;;
		esac
	done < <(grep -a '^LDT[ -]' "$results" 2>/dev/null || true)
	# The Debian-config image has the kernel package: kexec must be
	# planned there, and a kexec must have made its second boot.
	if [ "$tier" = debian-config ] && [[ " $plan " != *" t_kexec "* ]]; then
		echo "FAIL $tier-$level t_kexec  # not planned"
		bad=$((bad + 1))
	fi
	if grep -aq '^LDT-KEXEC' "$results" 2>/dev/null && [[ " $plan " != *" t_kexec_level "* ]]; then
		echo "FAIL $tier-$level t_kexec_level  # no second boot after the kexec"
		bad=$((bad + 1))
	fi
	# Every planned test has a result, and a failing exit has a failure.
	for name in $plan; do
		if [[ $seen != *" $name "* ]]; then
			echo "FAIL $tier-$level $name  # no result"
			bad=$((bad + 1))
		fi
	done
	rc=$(sed -n 's/^LDT-EXIT \([0-9]*\).*/\1/p' "$results" 2>/dev/null | head -n 1)
	if [ -z "$plan" ]; then
		echo "FAIL $tier-$level plan  # the guest printed no LDT-PLAN"
		bad=$((bad + 1))
	fi
	if [ -z "$rc" ]; then
		echo "FAIL $tier-$level guest  # never finished: $(cat "$logs/$level/ended")"
		bad=$((bad + 1))
	elif [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
		echo "FAIL $tier-$level guest  # LDT-EXIT $rc with no failed test"
		bad=$((bad + 1))
	elif grep -q 'no power-off' "$logs/$level/ended"; then
		echo "FAIL $tier-$level poweroff  # $(cat "$logs/$level/ended")"
		bad=$((bad + 1))
	else
		echo "ok   $tier-$level poweroff"
		pass=$((pass + 1))
	fi
	fail=$((fail + bad))
	[ "$bad" = 0 ]
}

# secureboot-unsigned: the firmware said why it refused the image, and no
# kernel started.
report_refused() {
	local console=$1 why
	if [ "$secureboot_ok" != 1 ]; then
		echo "FAIL $tier-secureboot-unsigned firmware_refuses  # secureboot did not pass in this run"
		fail=$((fail + 1))
		return
	fi
	# The firmware's line, without the terminal codes before it.
	why=$(grep -aE "$refused_re" "$console" | head -n 1 | tr -d '\r' |
		sed 's/.*BdsDxe:/BdsDxe:/' || true)
	if [ -z "$why" ]; then
		echo "FAIL $tier-secureboot-unsigned firmware_refuses  # no refusal: $(cat "$logs/secureboot-unsigned/ended")"
		fail=$((fail + 1))
	elif grep -aqE "$started_re" "$console"; then
		echo "FAIL $tier-secureboot-unsigned firmware_refuses  # a kernel started after: $why"
		fail=$((fail + 1))
	else
		echo "ok   $tier-secureboot-unsigned firmware_refuses"
		echo "     firmware: $why"
		pass=$((pass + 1))
	fi
}

# secureboot comes before secureboot-unsigned in any order asked for.
secureboot_ok=0
for s in "${all[@]}"; do
	[[ " ${scenarios[*]} " == *" $s "* ]] || continue
	boot "$s"
	if report "$s" && [ "$s" = secureboot ]; then
		secureboot_ok=1
	fi
done
echo "Logs: $logs/SCENARIO/console.log"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
