#!/bin/sh
# The Debian guest's tests, run by lockdown-tests.service once the boot is
# over, output on the serial console.  The last line is "LDT-EXIT <rc>": a
# guest that powers off without printing it is a failure on the host's side.
rc=0

echo "LDT-BEGIN"
level=$(cat /sys/kernel/security/lockdown 2>&1) || rc=1
echo "LDT lockdown: $level"

# Our own unit is Type=exec, so the boot's job queue can empty while we run;
# wait for it, so that the state is "running" or "degraded", not "starting".
state=$(timeout 120 systemctl is-system-running --wait 2>&1) || rc=1
echo "LDT state: $state"

failed=$(systemctl --failed --no-legend --plain 2>&1)
if [ -n "$failed" ]; then
	rc=1
	echo "$failed" | sed 's/^/LDT failed: /'
fi

echo "LDT-EXIT $rc"
exit "$rc"
