#!/usr/bin/env python3
"""Press keys on the guest's PS/2 keyboard when a test asks for it.

A guest test that needs a person at the keyboard prints, on the results
port, one of:

  # LDT-SENDKEY KEY...      press each KEY (QEMU key names), in order
  # LDT-KDB CMD;CMD;...     press 'a', then type each CMD and Enter at
                            each new kdb prompt on the console

This watches the results log and answers with QEMU monitor 'sendkey'
commands, which the emulated i8042 delivers like real key presses.  It runs
beside QEMU until QEMU has gone (the monitor socket closes) or vm.sh stops
it.

Usage: sendkeys.py RESULTS_LOG CONSOLE_LOG MONITOR_SOCKET
"""
import re
import socket
import sys
import time

REQUEST = re.compile(r'LDT-SENDKEY((?: [A-Za-z0-9_-]+)+)\s*$')
KDB = re.compile(r'LDT-KDB ([ -~]+?)\s*$')
PROMPT = 'kdb> '
HMP_PROMPT = b'(qemu) '
# The characters kdb commands use, as QEMU key names.
KEYNAMES = {' ': 'spc', '_': 'shift-minus', '-': 'minus', '.': 'dot'}


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


def until_prompt(sock):
    """Read up to the next HMP prompt; return what came before it."""
    seen = b''
    while not seen.endswith(HMP_PROMPT):
        data = sock.recv(4096)
        if not data:
            sys.exit('sendkeys: monitor closed')
        seen += data
    return seen[:-len(HMP_PROMPT)].decode(errors='replace').replace('\r', '')


def command(sock, line):
    """Send one HMP command, wait for the next prompt; return the reply.

    HMP echoes the command line back, redrawn as it was typed: the reply
    is what follows that line.
    """
    sock.sendall(line.encode() + b'\n')
    reply = until_prompt(sock).split('\n', 1)
    return reply[1] if len(reply) > 1 else ''


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return ''


def wait_prompts(console, count):
    """Wait until the console shows at least @count kdb prompts."""
    deadline = time.monotonic() + 120
    while read(console).count(PROMPT) < count:
        if time.monotonic() > deadline:
            sys.exit(f'sendkeys: no kdb prompt #{count} on the console')
        time.sleep(0.1)


def kdb_session(sock, console, commands):
    """Let the guest enter kdb, then type @commands, one per prompt."""
    seen = read(console).count(PROMPT)
    command(sock, 'sendkey a')
    for i, cmd in enumerate(commands):
        wait_prompts(console, seen + i + 1)
        for ch in cmd:
            command(sock, f'sendkey {KEYNAMES.get(ch, ch)} 20')
            time.sleep(0.05)
        command(sock, 'sendkey ret 20')


def main():
    log, console, path = sys.argv[1:4]
    sock = connect(path, time.monotonic() + 30)
    until_prompt(sock)                    # the banner and first prompt
    done = 0
    while True:
        lines = read(log).split('\n')[:-1]
        for line in lines[done:]:
            k = KDB.search(line)
            if k:
                print(f'sendkeys: kdb session {k.group(1)}', file=sys.stderr,
                      flush=True)
                kdb_session(sock, console, k.group(1).split(';'))
                continue
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
