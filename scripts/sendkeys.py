#!/usr/bin/env python3
"""Press keys on the guest's PS/2 keyboard when a test asks for it.

A guest test that needs a person at the keyboard prints
'# LDT-SENDKEY KEY...' on the results port.  This watches the results log
and sends each KEY, in order, as a QEMU monitor 'sendkey' command, which
the emulated i8042 delivers like a real key press.  It runs beside QEMU
until QEMU has gone (the monitor socket closes) or vm.sh stops it.

Usage: sendkeys.py RESULTS_LOG MONITOR_SOCKET
"""
import os
import re
import socket
import sys
import time

REQUEST = re.compile(r'LDT-SENDKEY((?: [A-Za-z0-9_-]+)+)\s*$')


def connect(path, deadline):
    while time.monotonic() < deadline:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            time.sleep(0.05)
    sys.exit(f'sendkeys: no monitor at {path}')


def command(sock, line):
    """Send one HMP command and wait for the next prompt."""
    sock.sendall(line.encode() + b'\n')
    seen = b''
    while not seen.endswith(b'(qemu) '):
        data = sock.recv(4096)
        if not data:
            sys.exit('sendkeys: monitor closed')
        seen += data


def main():
    log, path = sys.argv[1:3]
    sock = connect(path, time.monotonic() + 30)
    command(sock, 'info status')          # eat the banner and first prompt
    done = 0
    while True:
        lines = []
        if os.path.exists(log):
            with open(log, errors='replace') as f:
                lines = f.read().split('\n')[:-1]
        for line in lines[done:]:
            m = REQUEST.search(line)
            if not m:
                continue
            print(f'sendkeys: sending{m.group(1)}', file=sys.stderr,
                  flush=True)
            for key in m.group(1).split():
                command(sock, f'sendkey {key}')
                # sendkey holds the keys for 100 ms; let them go first
                time.sleep(0.3)

        done = len(lines)
        time.sleep(0.1)


if __name__ == '__main__':
    main()
