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
import socket
import sys
import time

PROMPT = b'(qemu) '
COMMANDS = ['info status', 'info cpus', 'info registers -a',
            'cpu 0', 'info lapic', 'cpu 1', 'info lapic', 'info pic']
SYSRQ = ['alt-sysrq-l', 'alt-sysrq-w']
# How long the guest gets to print what SysRq asked for.
SYSRQ_WAIT = 5


def until_prompt(sock):
    seen = b''
    while not seen.endswith(PROMPT):
        data = sock.recv(65536)
        if not data:
            raise OSError('monitor closed')
        seen += data
    return seen[:-len(PROMPT)].decode(errors='replace')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(sys.argv[1])
        until_prompt(sock)
        for cmd in COMMANDS + ['sendkey ' + k for k in SYSRQ]:
            sock.sendall(cmd.encode() + b'\n')
            # HMP echoes the command line back, redrawn as it was
            # typed; the reply is what follows that line.
            reply = until_prompt(sock).replace('\r', '').split('\n', 1)
            print(f'### {cmd}\n{reply[-1] if len(reply) > 1 else ""}',
                  flush=True)
    time.sleep(SYSRQ_WAIT)


if __name__ == '__main__':
    try:
        main()
    except OSError as e:
        sys.exit(f'qemu-state: {e}')
