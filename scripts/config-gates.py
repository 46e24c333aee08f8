#!/usr/bin/env python3
"""The options that gate lockdown, and how a trimmed config differs from
Debian's.

A gate is an option without which a lockdown hook site is not built: every
CONFIG_ symbol on the Makefile path that builds a file calling
security_locked_down(), lockdown_refuses() or lock_kernel_down(), every
CONFIG_ symbol that file tests in #if or IS_ENABLED(), the options
docs/audit.md names, and those of config/debian-gates.txt (paths the audit
follows that hold no hook site of their own, such as the NVMe PCI driver).

Usage: config-gates.py TREE DEBIAN_CONFIG TRIMMED_CONFIG [WHY_FILE]
       config-gates.py --restore TREE DEBIAN_CONFIG TRIMMED_CONFIG
Prints each differing option as "OPTION debian=V trimmed=V  why", gates
first, and exits 1 if a gate differs or an option differs without a why.
WHY_FILE lines are "OPTION why...", or "* why..." for any module Debian
builds as =m that the trimmed config leaves out, or "+ why..." for any
option the trimmed config no longer shows at all (its dependencies are
gone with the modules left out).
With --restore, prints instead a config fragment that gives every gate
that differs Debian's value, for merge_config.sh.
"""
import os
import re
import subprocess
import sys

HOOKS = ["security_locked_down", "lockdown_refuses", "lock_kernel_down"]
# Functions that act on a hook's answer rather than return it, and that other
# code calls to get the same refusal: wrapper_of() cannot tell them from a
# function that merely asks (tracefs_create_file()), so they are named.
# ksys_ioperm() also serves the VT's KDADDIO ioctl.
ACTING_WRAPPERS = ["ksys_ioperm"]
SYM = re.compile(r"\bCONFIG_([A-Z0-9_]+)")
IFSYM = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*")
ISEN = re.compile(r"IS_(?:ENABLED|BUILTIN|MODULE|REACHABLE)\(CONFIG_([A-Z0-9_]+)\)")


def read_config(path):
    vals = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^CONFIG_([A-Z0-9_]+)=(.*)$", line)
            if m:
                vals[m.group(1)] = m.group(2)
                continue
            m = re.match(r"^# CONFIG_([A-Z0-9_]+) is not set", line)
            if m:
                vals[m.group(1)] = "n"
    return vals


COND = re.compile(r"^\s*(ifdef|ifndef|ifeq|ifneq)\b(.*)$")


def makefile_lines(d):
    """Logical lines of directory d's Makefile and Kbuild, each with the
    CONFIG symbols of the ifdef/ifeq blocks around it."""
    out = []
    for name in ("Makefile", "Kbuild"):
        p = os.path.join(d, name)
        if not os.path.exists(p):
            continue
        with open(p) as f:
            text = f.read().replace("\\\n", " ")
        stack = []
        for line in text.splitlines():
            if line.lstrip().startswith("#"):
                continue
            m = COND.match(line)
            if m:
                stack.append(set(SYM.findall(m.group(2))))
            elif re.match(r"^\s*endif\b", line) and stack:
                stack.pop()
            else:
                out.append((line, set().union(*stack) if stack else set()))
    return out


def gates_of_object(tree, d, obj, seen):
    """CONFIG symbols on the way from the top to building d/obj."""
    key = (d, obj)
    if key in seen:
        return set()
    seen.add(key)
    syms = set()
    found = False
    for line, conds in makefile_lines(os.path.join(tree, d)):
        m = re.match(r"^\s*([A-Za-z0-9_.-]+)-(\$[({]CONFIG_([A-Z0-9_]+)[)}]|y|objs|m)\s*[:+]?=(.*)$", line)
        if not m or obj not in m.group(4).split():
            continue
        found = True
        syms |= conds
        if m.group(3):
            syms.add(m.group(3))
        target = m.group(1)
        # A list variable (arm-obj-y) is not a composite object.
        if target not in ("obj", "lib", "core") and not target.endswith("-obj"):
            syms |= gates_of_object(tree, d, target + ".o", seen)
    if (found or obj.endswith("/")) and d:
        parent, base = os.path.split(d)
        syms |= gates_of_object(tree, parent, base + "/", seen)
    if not found and not obj.endswith("/"):
        unplaced.add(os.path.join(d, obj))
    return syms


# Objects no Makefile line builds: a hook site the script cannot place.
unplaced = set()


def file_gates(tree, path):
    d, name = os.path.split(path)
    syms = set()
    if name.endswith(".c"):
        syms |= gates_of_object(tree, d, name[:-2] + ".o", set())
    with open(os.path.join(tree, path), errors="replace") as f:
        for line in f:
            if IFSYM.match(line):
                syms |= set(SYM.findall(line))
            syms |= set(ISEN.findall(line))
    return syms


def amd64(p):
    # Other architectures' files do not build on amd64; tools/ is userspace.
    return not p.startswith("tools/") and \
        not (p.startswith("arch/") and not p.startswith("arch/x86/"))


def calls(tree, names):
    """(file, line number) of every call of one of names."""
    pat = r"\b(" + "|".join(names) + r")\s*\("
    out = subprocess.run(["git", "-C", tree, "grep", "-n", "-E", pat, "--", "*.c", "*.h"],
                         capture_output=True, text=True).stdout
    hits = []
    for line in out.splitlines():
        path, num, _ = line.split(":", 2)
        if amd64(path):
            hits.append((path, int(num)))
    return hits


def wrapper_of(tree, path, num):
    """The function a hook call at path:num returns the answer of, if others
    can call it: defined in a header, or not static.  The nearest definition above the
    line that starts in column 0 names it."""
    with open(os.path.join(tree, path), errors="replace") as f:
        lines = f.readlines()[:num]
    # Only a function that returns the hook's answer stands for the hook;
    # one that merely asks (tracefs_create_file()) is a site, not a wrapper.
    # The return may start the statement a line or more above the call
    # (hibernation_allowed()).
    start = len(lines) - 1
    while start > 0 and not lines[start - 1].rstrip().endswith((";", "{", "}")):
        start -= 1
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", "".join(lines[start:]), flags=re.S)
    if not re.search(r"\breturn\b", code):
        return None
    for line in reversed(lines[:start]):
        if line.startswith("}"):
            return None
        if re.match(r"^[A-Za-z_]", line) and "(" in line and not line.rstrip().endswith(";"):
            m = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", line)
            if not m or m.group(1).startswith("SYSCALL_DEFINE"):
                return None
            if path.endswith(".h") or not line.startswith("static"):
                return m.group(1)
            return None
    return None


def hook_files(tree):
    """Files that call a hook, or a function that calls one directly (a
    wrapper such as nvme_passthru_locked_down() or vfio_noiommu_permitted())."""
    hits = calls(tree, HOOKS)
    wrappers = set()
    for path, num in hits:
        if path.startswith(("security/", "include/linux/security.h", "include/linux/lockdown.h")):
            continue
        fn = wrapper_of(tree, path, num)
        if fn and fn not in HOOKS:
            wrappers.add(fn)
    wrappers.update(ACTING_WRAPPERS)
    hits += calls(tree, sorted(wrappers))
    return sorted({p for p, _ in hits})


def main():
    args = sys.argv[1:]
    restore = bool(args) and args[0] == "--restore"
    if restore:
        args = args[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    tree, debian_cfg, trimmed_cfg = args[:3]
    why_file = args[3] if len(args) > 3 else None
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    gates = {}
    files = hook_files(tree)
    for p in files:
        for s in file_gates(tree, p):
            gates.setdefault(s, p)
    # A header's hook sites build wherever a C file includes it.
    for p in [p for p in files if p.endswith(".h") and not p.startswith("include/")]:
        d, name = os.path.split(p)
        for c in os.listdir(os.path.join(tree, d)):
            if c.endswith(".c"):
                with open(os.path.join(tree, d, c), errors="replace") as f:
                    if f'#include "{name}"' in f.read():
                        for s in file_gates(tree, os.path.join(d, c)):
                            gates.setdefault(s, p)
    with open(os.path.join(top, "docs", "audit.md")) as f:
        for s in SYM.findall(f.read()):
            gates.setdefault(s, "docs/audit.md")
    extra = os.path.join(top, "config", "debian-gates.txt")
    with open(extra) as f:
        for line in f:
            line = line.split("#")[0].split()
            if line:
                gates.setdefault(line[0].removeprefix("CONFIG_"), "config/debian-gates.txt")

    why = {}
    if why_file:
        with open(why_file) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    k, _, v = line.strip().partition(" ")
                    why[k.removeprefix("CONFIG_")] = v.strip()

    if unplaced:
        sys.exit("config-gates.py: no Makefile line builds these hook sites: "
                 + " ".join(sorted(unplaced)))
    deb, trim = read_config(debian_cfg), read_config(trimmed_cfg)
    with open(trimmed_cfg) as f:
        shown = set(SYM.findall(f.read()))
    if restore:
        for s in sorted(gates):
            dv = deb.get(s, "n")
            if dv != trim.get(s, "n"):
                print(f"# CONFIG_{s} is not set" if dv == "n" else f"CONFIG_{s}={dv}")
        return
    bad = 0
    gate_diffs, other = [], []
    for s in sorted(set(deb) | set(trim)):
        dv, tv = deb.get(s, "n"), trim.get(s, "n")
        if dv == tv:
            continue
        if s in gates:
            gate_diffs.append((s, dv, tv))
        else:
            other.append((s, dv, tv))
    considered = sum(1 for s in gates if s in deb or s in trim)
    print(f"# {len(gates)} gate options ({considered} known to these configs), "
          f"{len(gate_diffs)} differ; {len(other)} other options differ")
    for s, dv, tv in gate_diffs:
        reason = why.get(s)
        tag = "" if reason else "  GATE, no reason given"
        print(f"CONFIG_{s} debian={dv} trimmed={tv}  gate ({gates[s]}): {reason or '-'}{tag}")
        if not reason:
            bad = 1
    for s, dv, tv in other:
        reason = why.get(s)
        if not reason and dv == "m" and tv == "n":
            reason = why.get("*")
        if not reason and s not in shown:
            reason = why.get("+")
        if not reason:
            print(f"CONFIG_{s} debian={dv} trimmed={tv}  NO REASON")
            bad = 1
        elif os.environ.get("VERBOSE"):
            print(f"CONFIG_{s} debian={dv} trimmed={tv}  {reason}")
    dropped = sum(1 for s, dv, tv in other if dv == "m" and tv == "n" and s not in why)
    hidden = sum(1 for s, dv, tv in other
                 if s not in shown and s not in why and not (dv == "m" and tv == "n"))
    print(f"# modules left out: {dropped} ({why.get('*', 'no reason given')})")
    print(f"# options no longer shown: {hidden} ({why.get('+', 'no reason given')})")
    sys.exit(bad)


if __name__ == "__main__":
    main()
