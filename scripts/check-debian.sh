#!/bin/bash
# The Debian tier: the series' kernel (config/variant-debian.config) boots the
# Debian 12 root file system of scripts/rootfs.sh from a virtio disk, with
# systemd as init, once per level; Debian's own tools (wg-quick, cryptsetup,
# dmsetup, ip, auditd...) run tests/debian/run-tests.sh there.  Each guest
# writes to a throwaway overlay: the image itself never changes.
# Prints one line per test and ends with "N passed, N failed".
# Usage: check-debian.sh [LEVEL...]   (default: none integrity confidentiality)
set -euo pipefail
. "$(dirname "$0")/common.sh"

levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(none integrity confidentiality)

"$top/scripts/kernel.sh" debian
"$top/scripts/rootfs.sh"
kernel=$(kout debian)/arch/x86/boot/bzImage
img=$build/debian/rootfs.img
logs=$build/check-debian
rm -rf "$logs"
mkdir -p "$logs"

read -ra accel <<<"$(qemu_accel)"
timeout=${LOCKDOWN_DEBIAN_TIMEOUT:-900}

# Seconds a guest has to power off once its tests printed LDT-EXIT.
grace=${LOCKDOWN_DEBIAN_POWEROFF:-120}

# Boot the image at level $1; the console goes to $logs/$1/console.log.
# How the guest ended goes to $logs/$1/ended; a guest that finished its
# tests but did not power off is stopped, and that is a failure of its own.
boot() {
	local level=$1 dir=$logs/$1 lockdown='' vm rc start now done_at=''
	mkdir -p "$dir"
	[ "$level" = none ] || lockdown="lockdown=$level"
	qemu-img create -q -f qcow2 -b "$img" -F raw "$dir/overlay.qcow2"
	log "booting the Debian guest at $level (log: $dir/console.log)"
	# show_status: the console says which unit a slow shutdown waits for.
	qemu-system-x86_64 -nodefaults -no-reboot \
		-machine pc "${accel[@]}" -smp 2 -m 1024 -display none \
		-serial "file:$dir/console.log" \
		-drive "file=$dir/overlay.qcow2,format=qcow2,if=virtio" \
		-kernel "$kernel" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1 $lockdown" &
	vm=$!
	start=$(date +%s)
	while kill -0 "$vm" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		if [ -z "$done_at" ] && grep -aq '^LDT-EXIT' "$dir/console.log" 2>/dev/null; then
			done_at=$now
		fi
		if [ -n "$done_at" ] && [ $((now - done_at)) -ge "$grace" ]; then
			kill "$vm"
			echo "tests done, but no power-off within ${grace}s" >"$dir/ended"
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
	rm -f "$dir/overlay.qcow2"
}

pass=0 fail=0
# The guest prints "LDT ok NAME", "LDT not ok NAME # why", "LDT skip NAME #
# why", and "LDT-EXIT rc" last; a guest that never prints LDT-EXIT failed.
report() {
	local level=$1 console=$logs/$1/console.log line name
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"LDT ok "*)
			name=${line#LDT ok }
			echo "ok   debian-$level $name"
			pass=$((pass + 1)) ;;
		"LDT not ok "*)
			name=${line#LDT not ok }
			echo "FAIL debian-$level $name"
			fail=$((fail + 1)) ;;
		"LDT skip "*)
			name=${line#LDT skip }
			echo "skip debian-$level $name" ;;
		"LDT-NOTE "*)
			echo "     ${line#LDT-NOTE }" ;;
		esac
	done < <(grep -a '^LDT[ -]' "$console" 2>/dev/null || true)
	if ! grep -aq '^LDT-EXIT' "$console" 2>/dev/null; then
		echo "FAIL debian-$level guest  # never finished: $(cat "$logs/$level/ended")"
		fail=$((fail + 1))
	elif grep -q 'no power-off' "$logs/$level/ended"; then
		echo "FAIL debian-$level poweroff  # $(cat "$logs/$level/ended")"
		fail=$((fail + 1))
	else
		echo "ok   debian-$level poweroff"
		pass=$((pass + 1))
	fi
}

for level in "${levels[@]}"; do
	case $level in
	none | integrity | confidentiality) ;;
	*) die "unknown level $level" ;;
	esac
	boot "$level"
	report "$level"
done
echo "Logs: $logs/LEVEL/console.log"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
