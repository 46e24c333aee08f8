#!/bin/bash
# The Debian guest's tests, run by lockdown-tests.service once the boot is
# over, output on the serial console: "LDT ok NAME", "LDT not ok NAME # why",
# "LDT skip NAME # why".  The last line is "LDT-EXIT <rc>": a guest that
# powers off without printing it is a failure on the host's side.
# Each test uses Debian's own tools as a user would, at whatever level the
# guest booted (lockdown= on the command line, or none).
# The test functions are called through run(), which shellcheck cannot see.
# shellcheck disable=SC2317
set -u
export LC_ALL=C
rc=0
work=/var/tmp/ldt
logs=/var/log/ldt
mkdir -p "$work" "$logs"

level=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/security/lockdown)
# What the host booted, from an SMBIOS OEM string it sets (not from the
# command line, which the signed image carries): ldt.firmware=secureboot
# when OVMF enforced Secure Boot, where the level must be integrity with
# nothing on the command line; uefi for the same image without Secure
# Boot, where it must be none; bios for QEMU's -kernel.
firmware=$(dmidecode -t 11 2>/dev/null | sed -n 's/.*ldt\.firmware=\([a-z]*\).*/\1/p')
firmware=${firmware:-bios}
want=$(sed -n 's/.*lockdown=\([a-z]*\).*/\1/p' /proc/cmdline)
[ -n "$want" ] || { [ "$firmware" = secureboot ] && want=integrity; }
want=${want:-none}
locked() { [ "$level" != none ]; }
confidential() { [ "$level" = confidentiality ]; }

# Run test function $1 in a subshell; its output goes to $logs/$1.log, and
# on failure its last lines to the console.  A test fails through fail(),
# which ends the subshell, or by returning non-zero; it skips by returning
# 77.
run() {
	local name=$1 r
	("$@") >"$logs/$name.log" 2>&1
	r=$?
	# What a test found worth telling, whatever its result.
	sed -n "s/^NOTE: /LDT-NOTE $name: /p" "$logs/$name.log"
	if [ $r = 0 ]; then
		echo "LDT ok $name"
	elif [ $r = 77 ]; then
		echo "LDT skip $name # $(tail -n 1 "$logs/$name.log")"
	else
		rc=1
		echo "LDT not ok $name # level $level: $(tail -n 1 "$logs/$name.log")"
		tail -n 30 "$logs/$name.log" | sed "s/^/LDT-LOG $name: /"
	fi
}

# Fail the current test with a message: ends the test's subshell.
fail() {
	echo "FAIL: $*"
	exit 1
}
# The count of refusals of reason $1 (as root); fails the test when the
# reason is not listed or has no number.
count() {
	local n
	n=$(awk -v r="$1" '$1 == r { print $4 }' /sys/kernel/security/lockdown_reasons)
	[[ $n =~ ^[0-9]+$ ]] || fail "no count for reason $1: '$n'"
	echo "$n"
}
# Y when module signatures must be enforced: under Secure Boot on a kernel
# built with IMA's arch policy (Debian's config installs /boot/config-*),
# which calls set_module_sig_enforced(); N otherwise.
sig_enforce_expected() {
	if [ "$firmware" = secureboot ] &&
		grep -qx 'CONFIG_IMA_ARCH_POLICY=y' "/boot/config-$(uname -r)" 2>/dev/null; then
		echo Y
	else
		echo N
	fi
}
# How many kernel log lines contain $1 (dmesg: no journald delay).
klines() { dmesg | grep -cF -- "$1" || true; }

echo "LDT-BEGIN level=$level"

t_level() {
	echo "level $level, command line asks for $want"
	[ "$level" = "$want" ] || fail "level $level, not $want"
}

# Under Secure Boot the level is integrity, set by Secure Boot, and the log
# says so; mokutil, which reads the firmware's variable, agrees.  The same
# signed image booted by UEFI without Secure Boot stays at none, and
# mokutil and the log say Secure Boot is off.  Booted by BIOS, no line
# says Secure Boot locked the kernel down.
t_secureboot() {
	local sb='Lockdown: kernel locked down to integrity by EFI Secure Boot; see man kernel_lockdown.7'
	echo "firmware: $firmware"
	dmesg | grep -i -e 'secure boot' -e 'Lockdown:' | head -n 20
	case $firmware in
	secureboot)
		mokutil --sb-state | tee "$work/sb-state"
		grep -qx 'SecureBoot enabled' "$work/sb-state" || fail "mokutil: not enabled"
		dmesg | grep -qF "$sb" || fail "no line: $sb"
		grep -qx 'none \[integrity\] confidentiality' /sys/kernel/security/lockdown ||
			fail "level: $(cat /sys/kernel/security/lockdown)"
		echo "NOTE: $(dmesg | grep -F "$sb" | sed 's/^\[[ 0-9.]*\] //')"
		;;
	uefi)
		mokutil --sb-state | tee "$work/sb-state"
		grep -qx 'SecureBoot disabled' "$work/sb-state" || fail "mokutil: not disabled"
		dmesg | grep -q 'Secure boot disabled' || fail "no line: Secure boot disabled"
		dmesg | grep -q 'by EFI Secure Boot' && fail "locked down without Secure Boot"
		grep -qx '\[none\] integrity confidentiality' /sys/kernel/security/lockdown ||
			fail "level: $(cat /sys/kernel/security/lockdown)"
		;;
	bios)
		[ ! -d /sys/firmware/efi ] || fail "EFI under a BIOS boot"
		dmesg | grep -q 'by EFI Secure Boot' && fail "Secure Boot lockdown without Secure Boot"
		;;
	*) fail "unknown firmware $firmware" ;;
	esac
	return 0
}

# Module signatures, with Debian's insmod: a module signed by the build's
# key (in tree, and out of tree as DKMS signs one) loads at every level; an
# unsigned one, a stand-in for an unsigned DKMS module, loads only at none
# and is refused above with lockdown's message.  The modules come from the
# EFI system partition of scripts/esp.sh, /dev/vdb.
t_module_signature() {
	local esp=/mnt/esp msg='Lockdown: insmod: unsigned module loading is restricted; see man kernel_lockdown.7'
	mkdir -p "$esp"
	mountpoint -q "$esp" || mount -t vfat -o ro /dev/vdb1 "$esp" || fail "cannot mount the ESP"
	# In tree: the variant kernel's test_module, or with Debian's config
	# (which builds none) msr from the installed kernel package, through
	# modprobe as Debian loads it.
	local before lines rejected
	if [ -f "$esp/ldt/test_module.ko" ]; then
		insmod "$esp/ldt/test_module.ko" || fail "signed test_module refused at $level"
		rmmod test_module || fail "rmmod test_module"
	else
		modprobe -r msr 2>/dev/null
		grep -q '^msr ' /proc/modules && fail "msr cannot be unloaded first"
		[ -d /sys/module/msr ] && fail "msr is built in: no module to load"
		modprobe msr || fail "modprobe msr refused at $level"
		grep -q '^msr ' /proc/modules || fail "modprobe msr loaded nothing"
		modprobe -r msr || fail "modprobe -r msr"
	fi
	insmod "$esp/ldt/ldt_dkms-signed.ko" || fail "signed ldt_dkms refused at $level"
	rmmod ldt_dkms || fail "rmmod ldt_dkms"
	# What the kernel reports must match what it was built and booted for.
	[ "$(cat /sys/module/module/parameters/sig_enforce)" = "$(sig_enforce_expected)" ] ||
		fail "sig_enforce $(cat /sys/module/module/parameters/sig_enforce), expected $(sig_enforce_expected)"
	count module_signature >/dev/null
	before=$(count module_signature) lines=$(klines "$msg")
	rejected=$(klines 'Loading of unsigned module is rejected')
	if insmod "$esp/ldt/ldt_dkms-unsigned.ko" 2>"$work/insmod.err"; then
		rmmod ldt_dkms
		locked && fail "unsigned module loaded at $level"
		[ "$(count module_signature)" = "$before" ] || fail "a load at none counted"
	elif [ "$(sig_enforce_expected)" = Y ]; then
		# Signatures enforced (module.sig_enforce, or Debian's IMA arch
		# policy under Secure Boot): the module loader refuses before
		# lockdown is asked, with EKEYREJECTED and a line of its own.
		cat "$work/insmod.err"
		grep -q 'Key was rejected by service' "$work/insmod.err" ||
			fail "insmod with signatures enforced: $(cat "$work/insmod.err")"
		[ "$(klines 'Loading of unsigned module is rejected')" = $((rejected + 1)) ] ||
			fail "not one new line: Loading of unsigned module is rejected"
		[ "$(klines "$msg")" = "$lines" ] || fail "a lockdown line with signatures enforced"
		[ "$(count module_signature)" = "$before" ] ||
			fail "counted as a lockdown refusal with signatures enforced"
		echo "NOTE: signatures enforced at $level: $(cat "$work/insmod.err")"
	else
		cat "$work/insmod.err"
		locked || fail "unsigned module refused at none: $(cat "$work/insmod.err")"
		grep -q 'Operation not permitted' "$work/insmod.err" ||
			fail "insmod: not EPERM: $(cat "$work/insmod.err")"
		[ "$(count module_signature)" = $((before + 1)) ] ||
			fail "module_signature count $before -> $(count module_signature)"
		[ "$(klines "$msg")" = $((lines + 1)) ] || fail "not one new line: $msg"
		echo "NOTE: unsigned module refused: $(cat "$work/insmod.err")"
	fi
	if locked && grep -q '^ldt_dkms ' /proc/modules; then
		fail "ldt_dkms listed after a refusal"
	fi
	umount "$esp"
	return 0
}

# Booted as a Debian system: the boot finished and no unit failed.
t_boot() {
	local state failed
	state=$(timeout 180 systemctl is-system-running --wait)
	echo "state: $state"
	failed=$(systemctl --failed --no-legend --plain)
	if [ -n "$failed" ]; then
		local unit
		for unit in $(echo "$failed" | awk '{ print $1 }'); do
			journalctl -b -u "$unit" --no-pager -q | tail -n 8
		done
		fail "failed units: $failed"
	fi
	[ "$state" = running ] || fail "system is $state"
}

# auditd receives lockdown's records: a refused read of /dev/mem is in
# auditd's log with the reason's name; below integrity the read works.
t_auditd() {
	local _
	systemctl is-active --quiet auditd || fail "auditd is not running"
	if locked; then
		dd if=/dev/mem of=/dev/null bs=1 count=1 && fail "/dev/mem read at $level"
		# auditd writes what it receives; give it a moment.
		for _ in $(seq 20); do
			grep 'lsm=lockdown result=denied reason=dev_mem' /var/log/audit/audit.log |
				grep -q 'comm="dd"' && return 0
			sleep 0.5
		done
		grep lockdown /var/log/audit/audit.log | tail -n 5
		fail "no lockdown record for dd in the audit log"
	else
		dd if=/dev/mem of=/dev/null bs=1 count=1 || fail "/dev/mem unreadable at none"
		! grep -q 'lsm=lockdown' /var/log/audit/audit.log ||
			fail "lockdown records at none"
	fi
}

# ausearch, the tool the man page points to, finds those records.
# At none, where t_auditd's dd read /dev/mem, it finds none.
t_ausearch() {
	grep 'lsm=lockdown' /var/log/audit/audit.log | tail -n 2
	if locked; then
		ausearch -m AVC -c dd | grep 'lsm=lockdown' ||
			fail "ausearch -m AVC -c dd finds no lockdown record"
	else
		# ausearch works here: it finds auditd's own start.
		ausearch -m DAEMON_START >/dev/null || fail "ausearch finds no DAEMON_START"
		! ausearch -m AVC -c dd 2>&1 | grep 'lsm=lockdown' ||
			fail "ausearch finds lockdown records at none"
	fi
	return 0
}

# Anyone may read what is refused; counts only for root.  Reads of
# /sys/power/state by nobody (logind's CanHibernate does the same) are no
# refusal: no count, no log line, no audit record.
t_hibernation_query() {
	local before after lines recs
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		cat /sys/kernel/security/lockdown_reasons >"$work/reasons.nobody" ||
		fail "nobody cannot read lockdown_reasons"
	awk '$4 != "-" { bad = 1 } END { exit bad }' "$work/reasons.nobody" ||
		fail "nobody sees counts"
	grep -q "^hibernation integrity $(locked && echo refused || echo allowed) -$" \
		"$work/reasons.nobody" || fail "hibernation line for nobody: $(grep ^hibernation "$work/reasons.nobody")"
	if locked; then
		grep -qw disk /sys/power/state && fail "disk listed at $level"
	else
		grep -qw disk /sys/power/state || fail "disk not listed at none"
	fi
	before=$(count hibernation) || exit 1
	lines=$(klines 'hibernation is restricted')
	recs=$(grep -c 'reason=hibernation' /var/log/audit/audit.log || true)
	# shellcheck disable=SC2016 # expanded by the inner bash
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c \
		'for i in $(seq 5000); do read -r s </sys/power/state; read -r d </sys/power/disk; done' ||
		fail "nobody cannot read /sys/power"
	after=$(count hibernation) || exit 1
	echo "NOTE: hibernation refusals: $before before, $after after 10000 reads by nobody"
	[ "$before" = "$after" ] || fail "reads counted: $before -> $after"
	sleep 1
	lines=$(($(klines 'hibernation is restricted') - lines))
	recs=$(($(grep -c 'reason=hibernation' /var/log/audit/audit.log || true) - recs))
	echo "new log lines $lines, new audit records $recs"
	[ "$lines" = 0 ] || fail "$lines log lines"
	[ "$recs" = 0 ] || fail "$recs audit records"
	# The control: a real refusal is counted, logged and audited.  Only
	# where it is refused: at none this write would hibernate the guest.
	if locked; then
		lines=$(klines 'hibernation is restricted')
		recs=$(grep -c 'reason=hibernation' /var/log/audit/audit.log || true)
		echo disk >/sys/power/state 2>"$work/disk.err" && fail "hibernated at $level"
		grep -q 'Operation not permitted' "$work/disk.err" || fail "not EPERM: $(cat "$work/disk.err")"
		[ "$(count hibernation)" = $((after + 1)) ] || fail "the refusal was not counted"
		[ "$(klines 'hibernation is restricted')" = $((lines + 1)) ] || fail "the refusal was not logged"
		sleep 1
		[ "$(grep -c 'reason=hibernation' /var/log/audit/audit.log)" = $((recs + 1)) ] ||
			fail "the refusal was not audited"
	fi
}

# wg-quick from wireguard-tools between two network namespaces joined by a
# veth pair.  Side a has SaveConfig = true: "wg-quick down" rewrites its
# file from "wg showconf", as wg-quick@.service does at every shutdown.  At
# every level the file must keep its keys and the tunnel come back up.
wg_conf() {
	# name, private key, address, port, peer public key, psk, peer addr, peer port, save
	cat <<-EOF
	[Interface]
	PrivateKey = $2
	Address = $3/24
	ListenPort = $4
	$([ "$9" = 1 ] && echo "SaveConfig = true")

	[Peer]
	PublicKey = $5
	PresharedKey = $6
	AllowedIPs = $7/32, 10.78.0.0/24
	Endpoint = $8
	EOF
}

t_wg_quick_saveconfig() {
	local ka kb pa pb psk
	{ ip netns add lda && ip netns add ldb; } || fail "netns"
	ip link add va netns lda type veth peer vb netns ldb || fail "veth"
	ip -n lda addr add 192.168.77.1/24 dev va && ip -n lda link set va up
	ip -n ldb addr add 192.168.77.2/24 dev vb && ip -n ldb link set vb up
	ip -n lda link set lo up && ip -n ldb link set lo up
	ka=$(wg genkey) kb=$(wg genkey) psk=$(wg genpsk)
	pa=$(echo "$ka" | wg pubkey) pb=$(echo "$kb" | wg pubkey)
	umask 077
	mkdir -p /etc/wireguard
	wg_conf wga "$ka" 10.77.0.1 51820 "$pb" "$psk" 10.77.0.2 192.168.77.2:51821 1 \
		>/etc/wireguard/wga.conf
	wg_conf wgb "$kb" 10.77.0.2 51821 "$pa" "$psk" 10.77.0.1 192.168.77.1:51820 0 \
		>/etc/wireguard/wgb.conf
	ip netns exec lda wg-quick up wga || fail "wg-quick up wga"
	ip netns exec ldb wg-quick up wgb || fail "wg-quick up wgb"
	ip netns exec lda ping -c 3 -W 5 10.77.0.2 || fail "no tunnel"
	# wg-quick up routed the allowed IPs that are not on the link.
	ip -n lda route show dev wga | grep -q '^10.78.0.0/24' ||
		fail "wg-quick up added no route for 10.78.0.0/24"
	ip netns exec lda wg show wga | grep -q 'private key: (hidden)' ||
		fail "wg show: no private key"

	ip netns exec lda wg-quick down wga || fail "wg-quick down wga"
	cat /etc/wireguard/wga.conf
	grep -qx "PrivateKey = $ka" /etc/wireguard/wga.conf ||
		fail "SaveConfig lost the private key"
	grep -qx "PresharedKey = $psk" /etc/wireguard/wga.conf ||
		fail "SaveConfig lost the preshared key"
	ip netns exec lda wg-quick up wga || fail "wg-quick up wga again"
	ip netns exec lda ping -c 3 -W 5 10.77.0.2 || fail "no tunnel after down and up"
	ip netns exec lda wg-quick down wga
	ip netns exec ldb wg-quick down wgb
	ip netns del lda
	ip netns del ldb
	return 0
}

# IPsec SA keys through ip xfrm: zeroed at confidentiality, shown below.
t_ip_xfrm_state() {
	local key=0x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
	ip xfrm state add src 10.0.0.1 dst 10.0.0.2 proto ah spi 0x4c44 \
		auth 'hmac(sha256)' "$key" || fail "ip xfrm state add"
	ip xfrm state list | tee "$work/xfrm"
	ip xfrm state flush
	if confidential; then
		grep -q "$key" "$work/xfrm" && fail "key shown at confidentiality"
		grep -q "0x0\{64\}" "$work/xfrm" || fail "no zeroed key"
	else
		grep -q "$key" "$work/xfrm" || fail "key not shown at $level"
	fi
	return 0
}

# A LUKS device through every flow that reads its table back.  Each step
# either works or fails with an error; the data always reads back as
# written, so no step left the device with a wrong key.
luks_flow() {
	local type=$1 keyring=$2 name=ldt$1$2 img loop dev table hidden=0
	img=$work/$name.img
	truncate -s 48M "$img"
	loop=$(losetup -f --show "$img") || fail "losetup"
	echo -n "lockdown-test-passphrase" >"$work/pass"
	cryptsetup luksFormat -q --type "$type" --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --key-file "$work/pass" "$loop" ||
		fail "luksFormat"
	local open=(cryptsetup open --key-file "$work/pass")
	[ "$keyring" = keyring ] || open+=(--disable-keyring)
	"${open[@]}" "$loop" "$name" || fail "open"
	dev=/dev/mapper/$name
	head -c 4M /dev/urandom >"$work/marker"
	dd if="$work/marker" of="$dev" bs=1M oflag=direct conv=fsync status=none ||
		fail "write"
	intact() {
		# Past the page cache: what the table's key decrypts now.
		dd if="$dev" bs=1M count=4 iflag=direct status=none |
			cmp - "$work/marker" || fail "data differs after $1"
	}

	cryptsetup status "$name" || fail "cryptsetup status"
	dmsetup table "$name" || fail "dmsetup table"
	table=$(dmsetup table --showkeys "$name") || fail "dmsetup table --showkeys"
	echo "table: $table"
	echo "NOTE: $type $keyring, key field: $(echo "$table" | awk '{ print ($5 ~ /^[0-9a-f]+$/) ? "hex" : $5 }' | cut -c1-20)"
	# The key field is the fifth: hex, a keyring reference, or "-".
	case $(echo "$table" | awk '{ print $5 }') in
	-) hidden=1 ;;
	:*) ;;
	*) confidential && fail "hex key shown at confidentiality" ;;
	esac
	if confidential && [ "$keyring" != keyring ]; then
		[ "$hidden" = 1 ] || fail "key not withheld"
	else
		[ "$hidden" = 0 ] || fail "key withheld at $level"
	fi

	# The round trip: reloading what was shown.  With the key withheld the
	# reload must fail, leaving the live table alone; with a hex key it
	# must work.  A keyring reference may fail at any level: cryptsetup
	# drops the key from the keyring once the table is loaded.
	if echo "$table" | dmsetup reload "$name"; then
		[ "$hidden" = 0 ] || fail "reload of a withheld key accepted"
		dmsetup resume "$name" || fail "resume"
		echo "NOTE: $type $keyring, round trip: reloaded"
	else
		[ "$hidden" = 1 ] || [ "$keyring" = keyring ] ||
			fail "round trip refused with the key shown"
		echo "NOTE: $type $keyring, round trip: reload refused"
	fi
	intact "the round trip" || return 1

	if cryptsetup resize --key-file "$work/pass" --size 65536 "$name"; then
		echo "NOTE: $type $keyring, resize: done"
		[ "$(blockdev --getsz "$dev")" = 65536 ] || fail "resize: wrong size"
	else
		echo "NOTE: $type $keyring, resize: refused"
		[ "$hidden" = 1 ] || fail "resize failed with the key shown"
	fi
	intact "resize" || return 1

	# refresh compares the key it unlocks with the table's: with the key
	# withheld it fails ("Mismatching parameters") and changes nothing.
	if cryptsetup refresh --key-file "$work/pass" "$name"; then
		echo "NOTE: $type $keyring, refresh: done"
	else
		[ "$hidden" = 1 ] || fail "refresh failed with the key shown"
		echo "NOTE: $type $keyring, refresh: refused"
	fi
	intact "refresh" || return 1

	cryptsetup close "$name" || fail "close"
	"${open[@]}" "$loop" "$name" || fail "reopen"
	intact "close and open" || return 1
	cryptsetup close "$name"
	losetup -d "$loop"
	rm -f "$img"
}

# Plain dm-crypt has no header: the key lives only in the kernel's table,
# and resize reloads the table with the key read back from it.  With the
# key withheld at confidentiality that read gives "-": resize must fail
# (or succeed with the right key), never load a wrong one; the data must
# read back after it, and after close and open with the key file.
t_plain() {
	local name=ldtplain img loop dev table rc=0 out
	img=$work/$name.img
	truncate -s 48M "$img"
	loop=$(losetup -f --show "$img") || fail "losetup"
	head -c 32 /dev/urandom >"$work/plainkey"
	local open=(cryptsetup open --type plain --cipher aes-xts-plain64
		--key-size 256 --key-file "$work/plainkey")
	"${open[@]}" "$loop" "$name" || fail "open"
	dev=/dev/mapper/$name
	head -c 4M /dev/urandom >"$work/marker"
	dd if="$work/marker" of="$dev" bs=1M oflag=direct conv=fsync status=none ||
		fail "write"
	cryptsetup status "$name" || fail "cryptsetup status"
	table=$(dmsetup table --showkeys "$name") || fail "dmsetup table --showkeys"
	echo "table: $table"
	if confidential; then
		[ "$(echo "$table" | awk '{ print $5 }')" = - ] || fail "key not withheld"
	else
		[ "$(echo "$table" | awk '{ print $5 }')" != - ] || fail "key withheld at $level"
	fi
	out=$(cryptsetup resize --size 65536 "$name" 2>&1) || rc=$?
	echo "resize: status $rc: $out"
	if [ "$rc" = 0 ]; then
		[ "$(blockdev --getsz "$dev")" = 65536 ] || fail "resize: wrong size"
		echo "NOTE: plain, resize: done"
	else
		confidential || fail "resize failed at $level: $out"
		echo "NOTE: plain, resize refused: $(echo "$out" | head -n 1 | cut -c1-100)"
	fi
	# Past the page cache: what the table's key decrypts now.
	dd if="$dev" bs=1M count=4 iflag=direct status=none |
		cmp - "$work/marker" || fail "data differs after resize"
	cryptsetup close "$name" || fail "close"
	"${open[@]}" "$loop" "$name" || fail "reopen"
	dd if="$dev" bs=1M count=4 iflag=direct status=none |
		cmp - "$work/marker" || fail "data differs after close and open"
	cryptsetup close "$name"
	losetup -d "$loop"
	rm -f "$img"
}

t_luks1() { luks_flow luks1 plain; }
t_luks2_keyring() { luks_flow luks2 keyring; }
t_luks2_no_keyring() { luks_flow luks2 plain; }

# nvme-cli on QEMU's NVMe controller: what a user runs works at every
# level; creating an I/O completion queue, which would hand the controller
# a host address it keeps, is refused from integrity and reaches the
# controller at none (which fails it: the buffer is not a queue).
t_nvme_cli() {
	local ctrl=/dev/nvme0 out before
	[ -e "$ctrl" ] || fail "no $ctrl"
	nvme list | tee "$work/nvme-list"
	grep -q '/dev/nvme0n1' "$work/nvme-list" || fail "nvme list: no nvme0n1"
	nvme id-ctrl "$ctrl" | grep -E '^(sn|mn) ' || fail "nvme id-ctrl"
	nvme id-ctrl "$ctrl" | grep -q '^sn *: *ldt0001' || fail "nvme id-ctrl: wrong serial"
	nvme smart-log "$ctrl" | grep -i 'temperature' || fail "nvme smart-log"
	nvme id-ns "$ctrl" -n 1 | grep -q '^nsze' || fail "nvme id-ns"
	# Opcode 0x05 moves data to the controller: nvme-cli sends 4 KiB of
	# zeros from the file.  Queue 1 is the kernel's own, so a controller
	# that gets the command answers with an error status and creates
	# nothing.
	before=$(count nvme_passthru) || exit 1
	out=$(nvme admin-passthru "$ctrl" --opcode=0x05 --cdw10=0x10001 --cdw11=1 \
		--data-len=4096 --input-file=/dev/zero 2>&1)
	echo "create I/O CQ: $out"
	if locked; then
		echo "$out" | grep -q 'Operation not permitted' ||
			fail "create I/O CQ not refused at $level: $out"
		[ "$(count nvme_passthru)" = $((before + 1)) ] ||
			fail "nvme_passthru count $before -> $(count nvme_passthru)"
	else
		echo "$out" | grep -q 'Operation not permitted' &&
			fail "create I/O CQ refused at none"
		echo "$out" | grep -q 'Invalid Queue Identifier' ||
			fail "create I/O CQ: not the controller's refusal at none: $out"
	fi
	echo "NOTE: create I/O CQ at $level: $(echo "$out" | head -n 1)"
	return 0
}

# logind, asked by desktops on every lock screen whether hibernation is
# possible: "na" from integrity, with no refusal logged, counted or
# audited for the asking; at none, with swap, "yes".
t_logind_canhibernate() {
	local ans before lines i
	dd if=/dev/zero of=/swapfile bs=1M count=256 status=none || fail "no swap file"
	chmod 600 /swapfile
	mkswap -q /swapfile || fail "mkswap"
	swapon /swapfile || fail "swapon"
	ans=$(busctl call org.freedesktop.login1 /org/freedesktop/login1 \
		org.freedesktop.login1.Manager CanHibernate) || fail "busctl"
	echo "CanHibernate: $ans"
	echo "NOTE: CanHibernate at $level: $ans"
	before=$(count hibernation) || exit 1
	lines=$(klines 'hibernation is restricted')
	for i in $(seq 100); do
		busctl call org.freedesktop.login1 /org/freedesktop/login1 \
			org.freedesktop.login1.Manager CanHibernate >/dev/null || fail "busctl $i"
	done
	swapoff /swapfile && rm -f /swapfile
	[ "$(count hibernation)" = "$before" ] || fail "asking counted: $before -> $(count hibernation)"
	[ "$(klines 'hibernation is restricted')" = "$lines" ] || fail "asking logged refusals"
	if locked; then
		# "na" because lockdown took disk away, not for want of swap.
		grep -qw disk /sys/power/state && fail "disk listed at $level"
		[ "$ans" = 's "na"' ] || fail "CanHibernate $ans at $level"
	else
		[ "$ans" = 's "yes"' ] || fail "CanHibernate $ans at none"
	fi
}

# bpftool and perf as users run them: listing programs and counting work
# at every level; perf's sampling of kernel registers is refused at
# confidentiality only.
t_bpftool_perf() {
	local out rc=0 before lines
	bpftool prog list >"$work/bpftool" || fail "bpftool prog list"
	perf stat -e task-clock,context-switches true 2>&1 | tee "$work/perf-stat" |
		grep -qE '[0-9.]+ +msec +task-clock' || fail "perf stat: $(cat "$work/perf-stat")"
	# Sampling without the registers works at every level.
	perf record -q -o "$work/plain.data" -e cpu-clock -a sleep 0.5 ||
		fail "perf record -a refused at $level"
	[ -s "$work/plain.data" ] || fail "perf record -a wrote nothing"
	before=$(count perf) || exit 1
	lines=$(klines 'unsafe use of perf is restricted')
	out=$(perf record -q -o "$work/perf.data" -e cpu-clock --intr-regs=ip -a sleep 0.5 2>&1) ||
		rc=$?
	echo "perf record --intr-regs: status $rc: $out"
	if confidential; then
		[ "$rc" != 0 ] || fail "perf sampled kernel registers at confidentiality"
		[ "$(count perf)" -gt "$before" ] || fail "the perf refusal was not counted"
		[ "$(klines 'unsafe use of perf is restricted')" -gt "$lines" ] ||
			fail "the perf refusal was not logged"
		echo "NOTE: perf record --intr-regs refused: $(echo "$out" | tr '\n' ' ' | cut -c1-120)"
	else
		[ "$rc" = 0 ] || fail "perf record --intr-regs failed at $level: $out"
		[ -s "$work/perf.data" ] || fail "perf record --intr-regs wrote nothing"
		[ "$(count perf)" = "$before" ] || fail "perf refusals counted at $level"
	fi
	return 0
}

# bpftrace on a kernel function, below confidentiality: counting calls and
# reading get_random_u64()'s return value both work, and nothing is
# counted as refused (the restriction is confidentiality's alone).  At
# confidentiality bpftrace refuses to start by itself, saying why, before
# it loads anything; the kernel's refusal of the read is the selftests'
# bpf_func_args.  The command bpftrace runs (-c) is exec'd once the probe
# is attached, and exec draws its stack and mmap offsets from
# get_random_u64().
t_bpftrace_args() {
	local out rc=0 before
	before=$(count bpf_read_kernel) || exit 1
	out=$(timeout 180 bpftrace \
		-e 'kretfunc:get_random_u64 { @calls = count(); @last = retval; }' \
		-c /bin/true 2>&1) || rc=$?
	echo "bpftrace: status $rc: $out"
	if confidential; then
		[ "$rc" != 0 ] || fail "bpftrace ran at confidentiality"
		echo "$out" | grep -q "Kernel lockdown is enabled and set to 'confidentiality'" ||
			fail "bpftrace failed without naming lockdown: $out"
		[ "$(count bpf_read_kernel)" = "$before" ] ||
			fail "bpftrace loaded something before refusing"
		echo "NOTE: bpftrace refuses to start at confidentiality: $(echo "$out" | head -n 1 | cut -c1-100)"
		return 0
	fi
	[ "$rc" = 0 ] || fail "bpftrace failed at $level: $out"
	echo "$out" | grep -qE '^@calls: [1-9]' || fail "no calls counted: $out"
	echo "$out" | grep -qE '^@last: [0-9]+' || fail "no value printed at $level: $out"
	[ "$(count bpf_read_kernel)" = "$before" ] || fail "bpf_read_kernel refusals counted at $level"
	return 0
}

# kexec -s of the installed kernel package's kernel, as an administrator
# reboots into an update.  /boot's own vmlinuz is unsigned: it loads at
# none and is refused above, by lockdown (EPERM, counted) or, under Secure
# Boot with Debian's IMA arch policy, by enforced signatures (not
# counted).  Then a kernel that verifies is loaded and started with
# systemctl kexec: by BIOS the same kernel signed with the build's key
# (built in), under UEFI signed with the firmware's key (scripts/esp.sh).
# Under Secure Boot the level is raised to confidentiality first, so that
# only the hand-off, not Secure Boot in the next kernel, can explain it.
# The next boot's t_kexec_level checks the level.  Ends the boot.
kexec_marker=/var/lib/ldt/kexec-from
t_kexec() {
	local release unsigned signed initrd before lines
	release=$(uname -r)
	unsigned=/boot/vmlinuz-$release initrd=/boot/initrd.img-$release
	mkdir -p /mnt/esp
	mountpoint -q /mnt/esp || mount -t vfat -o ro /dev/vdb1 /mnt/esp || fail "no ESP"
	signed=/mnt/esp/ldt/vmlinuz-buildkey.efi
	[ "$firmware" = bios ] || signed=/mnt/esp/ldt/vmlinuz-signed.efi
	[ -f "$unsigned" ] || fail "no $unsigned"
	[ -f "$signed" ] || fail "no $signed"
	count kexec >/dev/null
	before=$(count kexec) lines=$(klines 'kexec of unsigned images is restricted')
	if kexec -s -l "$unsigned" --initrd="$initrd" --reuse-cmdline 2>"$work/kexec.err"; then
		locked && fail "unsigned kernel loaded at $level"
		[ "$(count kexec)" = "$before" ] || fail "a load at none counted"
		kexec -u
	elif ! locked; then
		fail "unsigned kernel refused at none: $(cat "$work/kexec.err")"
	elif [ "$firmware" = secureboot ] && [ "$(sig_enforce_expected)" = Y ]; then
		cat "$work/kexec.err"
		[ "$(count kexec)" = "$before" ] || fail "counted as a lockdown refusal with signatures enforced"
		dmesg | grep -q 'Enforced kernel signature verification failed' ||
			fail "no line: Enforced kernel signature verification failed"
		echo "NOTE: unsigned kernel refused, signatures enforced: $(head -n 1 "$work/kexec.err")"
	else
		grep -q 'Operation not permitted' "$work/kexec.err" || fail "not EPERM: $(cat "$work/kexec.err")"
		[ "$(count kexec)" = $((before + 1)) ] || fail "kexec refusal not counted"
		[ "$(klines 'kexec of unsigned images is restricted')" = $((lines + 1)) ] ||
			fail "kexec refusal not logged"
		echo "NOTE: unsigned kernel refused at $level: $(head -n 1 "$work/kexec.err")"
	fi
	if [ "$firmware" = secureboot ]; then
		echo confidentiality >/sys/kernel/security/lockdown || fail "raise"
		level=confidentiality
	fi
	before=$(count kexec)
	kexec -s -l "$signed" --initrd="$initrd" --reuse-cmdline ||
		fail "signed kernel $signed refused at $level"
	[ "$(count kexec)" = "$before" ] || fail "a signed load counted"
	mkdir -p "${kexec_marker%/*}"
	echo "$level" >"$kexec_marker"
	sync
	echo "NOTE: kexec -s -l $signed loaded at $level; systemctl kexec"
	return 0
}

# The boot after systemctl kexec: at the level of the boot before, which
# the hand-off put on the command line and the kernel took from there,
# not from Secure Boot.
t_kexec_level() {
	local from
	from=$(cat "$kexec_marker") || fail "no marker"
	rm -f "$kexec_marker"
	echo "kexec from $from, now $level: $(cat /proc/cmdline)"
	[ "$level" = "$from" ] || fail "level $level after kexec from $from"
	if [ "$from" != none ]; then
		# First when the hand-off added it; where it was, with
		# --reuse-cmdline of a line that named it; never after "--".
		sed 's/ -- .*//' /proc/cmdline | grep -qw "lockdown=$from" ||
			fail "no lockdown=$from for the kernel on the command line"
		dmesg | grep -qF "kernel locked down to $from by command line" ||
			fail "no line: kernel locked down to $from by command line"
	fi
	echo "NOTE: after kexec: $level, as before"
}

tests=(t_level t_boot t_secureboot t_module_signature t_auditd t_ausearch
	t_hibernation_query t_wg_quick_saveconfig t_ip_xfrm_state t_luks1
	t_luks2_keyring t_luks2_no_keyring t_plain t_nvme_cli t_logind_canhibernate
	t_bpftool_perf t_bpftrace_args)
# The Debian-config image has the kernel package installed: kexec it.
[ ! -f "/boot/vmlinuz-$(uname -r)" ] || tests+=(t_kexec)
# The boot after a kexec runs only its own check.
if [ -f "$kexec_marker" ]; then
	tests=(t_kexec_level)
fi
# The host fails every planned test that prints no result.
echo "LDT-PLAN ${tests[*]}"
for t in "${tests[@]}"; do
	run "$t"
done
# A kernel loaded by t_kexec: start it; the next boot ends the run.
if [ -f "$kexec_marker" ] && [ "${tests[*]}" != t_kexec_level ]; then
	echo "LDT-KEXEC $rc"
	systemctl kexec
	exit "$rc"
fi

echo "LDT-EXIT $rc"
# Power off now rather than wait for the unit's exit to trigger it; the
# host stops a guest that has not powered off two minutes after LDT-EXIT
# and counts it as a failure.
systemctl poweroff --no-block
exit "$rc"
