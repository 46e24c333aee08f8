#!/usr/bin/env python3
"""Record where a hung guest is, before vm.sh stops it.

A boot that runs out of time leaves only a console that stopped talking.
This asks the QEMU monitor for what the host can see (run state, each
vCPU's registers, local APIC and PIC state: is a CPU halted waiting for a
timer interrupt that never comes?), then presses SysRq-l and SysRq-w on
the guest's PS/2 keyboard so that a guest kernel still taking interrupts
prints every CPU's backtrace and its blocked tasks on the console.

Usage: qemu-state.py MONITOR_SOCKET   (the report goes to stdout)
"""
import sys
import time

from sendkeys import command, connect, until_prompt

COMMANDS = ['info status', 'info cpus', 'info registers -a',
            'cpu 0', 'info lapic', 'cpu 1', 'info lapic', 'info pic',
            'sendkey alt-sysrq-l', 'sendkey alt-sysrq-w']
# How long the guest gets to print what SysRq asked for.
SYSRQ_WAIT = 5


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sock = connect(sys.argv[1], time.monotonic() + 10)
    until_prompt(sock)
    for cmd in COMMANDS:
        print(f'### {cmd}\n{command(sock, cmd)}', flush=True)
    time.sleep(SYSRQ_WAIT)


if __name__ == '__main__':
    main()
