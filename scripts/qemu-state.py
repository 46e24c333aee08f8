#!/usr/bin/env python3
"""Record where a hung guest is, before vm.sh stops it.

A boot that runs out of time leaves only a console that stopped talking.
This asks the QEMU monitor for what the host can see (run state, each
vCPU's registers, local APIC and PIC state: is a CPU halted waiting for a
timer interrupt that never comes?), then presses SysRq-l and SysRq-w on
the guest's PS/2 keyboard so that a guest kernel still taking interrupts
prints every CPU's backtrace and its blocked tasks on the console.

With --vmlinux, the guest is also stopped for a moment and gdb, attached
through QEMU's gdbstub, prints every vCPU's backtrace: this works when the
guest kernel does not, but its symbols are right only for a guest booted
with nokaslr.

Usage: qemu-state.py [--vmlinux VMLINUX] MONITOR_SOCKET
(the report goes to stdout)
"""
import shutil
import socket
import subprocess
import sys
import time

from sendkeys import command, connect, until_prompt

COMMANDS = ['info status', 'info cpus', 'info registers -a',
            'cpu 0', 'info lapic', 'cpu 1', 'info lapic', 'info pic']
SYSRQ = ['sendkey alt-sysrq-l', 'sendkey alt-sysrq-w']
# How long the guest gets to print what SysRq asked for.
SYSRQ_WAIT = 5


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def gdb_backtraces(sock, vmlinux):
    """Every vCPU's backtrace, read by gdb with the guest stopped."""
    port = free_port()
    command(sock, 'stop')
    command(sock, f'gdbserver tcp:127.0.0.1:{port}')
    try:
        gdb = subprocess.run(
            ['gdb', '-batch', '-nx', '-ex', 'set pagination off',
             '-ex', f'target remote 127.0.0.1:{port}',
             '-ex', 'thread apply all bt 30', '-ex', 'detach', vmlinux],
            capture_output=True, text=True, timeout=120, check=False)
        out = gdb.stdout + gdb.stderr
    except subprocess.TimeoutExpired:
        out = 'gdb timed out\n'
    command(sock, 'gdbserver none')
    command(sock, 'cont')
    return out


def main():
    args = sys.argv[1:]
    vmlinux = None
    if len(args) == 3 and args[0] == '--vmlinux':
        vmlinux, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    sock = connect(args[0], time.monotonic() + 10)
    until_prompt(sock)
    for cmd in COMMANDS:
        print(f'### {cmd}\n{command(sock, cmd)}', flush=True)
    if vmlinux and shutil.which('gdb'):
        print(f'### gdb: thread apply all bt\n{gdb_backtraces(sock, vmlinux)}',
              flush=True)
    for cmd in SYSRQ:
        print(f'### {cmd}\n{command(sock, cmd)}', flush=True)
    time.sleep(SYSRQ_WAIT)


if __name__ == '__main__':
    main()
