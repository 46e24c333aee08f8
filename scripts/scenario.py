#!/usr/bin/env python3
"""The one reader of scenario files (tests/scenarios/NAME.env).

A scenario file holds only comments (a line whose first non-blank is #),
blank lines and assignments KEY=VALUE, one a line, KEY at the start of it.
VALUE is one shell word: bare (letters, digits and _@%+=:,./-, and \\X for
any other X but a newline), '...' (no escapes, may span lines) or "..."
(backslash escapes only $ ` " and \\; no $ or ` of its own), or these
joined; nothing may follow it on its line.
Every key is one of KEYS below (the table in docs/harness.md is
`scenario.py table`); a key may appear once, but the repeatable ones; each
value must be one its key allows.  Anything else is an error that names
the file and line.

Every consumer reads scenarios through this file:

  scenario.py get FILE KEY        the value, or the key's default; a
                                  repeatable key prints each value, a line each
  scenario.py shell FILE [KEY...] the file as canonical, safely quoted
                                  assignments (what the guest sources as
                                  /scenario.env); with KEYs, just those,
                                  each with its value or default (vm.sh)
  scenario.py assign KEY VALUE    one canonical assignment, checked (run.sh)
  scenario.py check [FILE...]     check the files; without FILE, every
                                  scenario, their after= and the order file
  scenario.py order               the scenarios of tests/scenarios/order,
                                  checked against the files
  scenario.py plan [--no-pull] [--extra NAME]... NAME...
                                  the run of NAMEs in order, each after the
                                  scenarios its after= names; one that
                                  is missing is pulled in before it (not
                                  with --no-pull: an error); --extra NAME
                                  is no scenario (check.sh's workbench)
  scenario.py list-variants       the kernel variants the scenarios boot
  scenario.py table               the table of keys, in markdown

`--dir DIR` before the command reads the scenarios of DIR instead of
tests/scenarios.  report.py imports it: load(), Scenario, read_order().
"""

import difflib
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(TOP, 'tests', 'scenarios')
LEVELS = ('none', 'integrity', 'confidentiality')
NAME = re.compile(r'[a-z0-9][a-z0-9-]*')


class Error(Exception):
    """A scenario that does not parse or check: FILE:LINE: what."""


# Checks of a value: each returns None when it is allowed, else what is.
def one_of(*values):
    def check(v):
        return None if v in values else 'one of ' + ', '.join(repr(x) for x in values)
    return check


def words(pattern, what):
    def check(v):
        ws = v.split(' ')
        if v and all(re.fullmatch(pattern, w) for w in ws):
            return None
        return what + ', separated by single spaces'
    return check


def positive(v):
    return None if re.fullmatch(r'[1-9][0-9]*', v) else 'a positive decimal integer'


def seed(v):
    return None if re.fullmatch(r'[0-9]+|0[xX][0-9a-fA-F]+', v) else 'an integer (decimal or 0x hex)'


def line(v):
    return None if '\n' not in v else 'one line'


def nonempty_line(v):
    return None if v and '\n' not in v else 'a non-empty line'


def any_text(v):
    return None


def variant(v):
    if v == 'default' or (NAME.fullmatch(v) and
                          os.path.isfile(os.path.join(TOP, 'config', f'variant-{v}.config'))):
        return None
    return "'default' or NAME with a config/variant-NAME.config"


def store_name(v):
    return None if re.fullmatch(r'[A-Za-z0-9_-]+', v) else 'empty or a name of letters, digits, - and _'


def empty_or(check):
    def c(v):
        return None if v == '' else check(v)
    return c


class Key:
    def __init__(self, name, readers, meaning, default, default_doc, allowed_doc, check,
                 repeat=False):
        self.name, self.readers, self.meaning = name, readers, meaning
        self.default, self.default_doc = default, default_doc
        self.allowed_doc, self.check, self.repeat = allowed_doc, check, repeat


# The keys, derived from their readers (grep each name in scripts/,
# tests/init, tests/guest-tests and the selftests in the tree).  A default
# of '' is "unset": the guest's shell and the selftests see no variable.
# shell FILE KEY... gives every key asked for its default.
KEYS = [
    # Host: which kernel, how to boot it, which run.
    Key('variant', 'host: Makefile (kernels to build), check.sh, check-old-kernel.sh',
        'the kernel config variant the scenario boots: `config/variant-NAME.config` over '
        'the guest config. `make check-debug` and `make check-old` run only the '
        '`default` scenarios',
        'default', '`default`', '`default`, or a NAME with `config/variant-NAME.config`',
        variant),
    Key('after', 'host: check.sh (`scenario.py plan`)',
        'scenarios that must have run before this one in the same run (state they '
        'share: an EFI variable store). check.sh refuses a run that has one after this '
        'one, or (the full run, `make check-debug`) leaves one out; `make check S=...` '
        'pulls a missing one in before it',
        '', 'none', 'scenario names, one space between',
        words(NAME.pattern, 'names of scenarios')),
    Key('cmdline', 'host: vm.sh',
        'the kernel command line, after `console=ttyS0 panic=-1` and before '
        '`LOCKDOWN_EXTRA_CMDLINE`',
        '', 'empty', 'one line', line),
    Key('firmware', 'host: vm.sh',
        '`bios`: SeaBIOS, the kernel given with `-kernel`; `ovmf`: UEFI (OVMF), for '
        'what exists only there',
        'bios', '`bios`', '`bios`, `ovmf`', one_of('bios', 'ovmf')),
    Key('efivars', 'host: vm.sh',
        'keep the EFI variables in `$LOCKDOWN_BUILD/efivars-NAME.fd`, from one boot to '
        'the next (needs `firmware=ovmf`); a scenario that reads a store others wrote '
        'names the one that starts it in `after=`',
        '', 'empty: variables last one boot', 'a NAME of letters, digits, `-`, `_`',
        empty_or(store_name)),
    Key('efivars_fresh', 'host: vm.sh',
        '`1`: start the `efivars=` store from OVMF\'s empty one (it also starts so when '
        'missing)',
        '0', '`0`', '`0`, `1` (`1` needs `efivars=`)', one_of('0', '1')),
    Key('mem', 'host: vm.sh',
        'the guest\'s memory in MiB (more for a crash kernel\'s reservation)',
        '512', '`512`', 'a positive integer', positive),
    Key('keyboard', 'host: vm.sh',
        '`1`: `scripts/sendkeys.py` types the `# LDT-KDB` commands the tests ask for '
        'on the guest\'s PS/2 keyboard, at each `kdb>` prompt',
        '0', '`0`', '`0`, `1`', one_of('0', '1')),
    # Guest: what init runs, what the selftests are told.
    Key('level', 'guest: guest-tests (as `LOCKDOWN_EXPECT_LEVEL`, for securityfs_test)',
        'the level the tests must find',
        '', 'unset: guest-tests passes it on empty, and securityfs_test fails '
        '`level_is_the_scenario_level`', '`none`, `integrity`, `confidentiality`',
        one_of(*LEVELS)),
    Key('raise', 'guest: init',
        'written to `/sys/kernel/security/lockdown` before the tests (not in the second '
        'boot of a kexec scenario)',
        '', 'unset: no raise', 'empty, `integrity`, `confidentiality`',
        one_of('', 'integrity', 'confidentiality')),
    Key('tests', 'guest: init (to guest-tests)',
        'the selftests to run, each a suite of TAP on the results port',
        '', 'unset: with no `cmd=` either, a shell on the console',
        'selftest names, separated by spaces', words(r'[a-z0-9_]+', 'selftest names')),
    Key('cmd', 'guest: init',
        'a command for `sh -c` instead of the selftests; its output goes to the results '
        'port, its status is the exit status (`make run`, `make bench`, `make kexec-soak`)',
        '', 'unset', 'any text, lines too; not with `tests=`', any_text),
    Key('kexec_tests', 'guest: init',
        'the selftests of the second boot, which the first one starts by kexec once its '
        '`tests=` passed (init tells the boots apart by `ldt_kexec=2` on the command line)',
        '', 'unset: one boot', 'selftest names, separated by spaces; needs `tests=`',
        words(r'[a-z0-9_]+', 'selftest names')),
    Key('kexec_start', 'guest: init',
        'how the first boot starts the second: empty, `kexec_load_test --exec`; '
        '`panic`: SysRq-c, for a crash kernel',
        '', 'unset: kexec_load_test --exec', 'empty, `panic`; needs `kexec_tests=`',
        one_of('', 'panic')),
    # Report: what the console must show.
    Key('guest_dies', 'report: report.py',
        '`1`: the guest must end in a panic, without an `LDT-EXIT` line',
        '0', '`0`', '`0`, `1`', one_of('0', '1')),
    Key('console_expect', 'report: report.py',
        'a string the console must show (each line one more test)',
        '', 'none', 'a non-empty line; repeatable', nonempty_line, repeat=True),
    Key('console_reject', 'report: report.py',
        'a string the console must not show (each line one more test)',
        '', 'none', 'a non-empty line; repeatable', nonempty_line, repeat=True),
    Key('console_allow', 'report: report.py',
        'a console line holding this string is no kernel splat (the panic a scenario '
        'causes on purpose)',
        '', 'none', 'a non-empty line; repeatable', nonempty_line, repeat=True),
    # Guest: selftests' own variables (init exports every key).
    Key('LOCKDOWN_EXPECT_EFI', 'guest: firmware_test',
        '`1`: a boot not through UEFI fails instead of skipping',
        '', 'unset: as `0`, skips', '`0`, `1`', one_of('0', '1')),
    Key('LOCKDOWN_EFI_SSDT', 'guest: efi_ssdt_test',
        'the step of the `efivar_ssdt=` boots: `write` stores the SSDT in an EFI '
        'variable, `loaded` finds the table, `refused` finds it absent and refusals counted',
        '', 'unset: efi_ssdt_test skips', '`write`, `loaded`, `refused`',
        one_of('write', 'loaded', 'refused')),
    Key('LOCKDOWN_FUZZ_SEED', 'guest: fuzz_test',
        'the seed of the fuzzer, so that a failure replays',
        '', 'unset: the time', 'an integer (decimal or 0x hex)', seed),
    Key('LOCKDOWN_FUZZ_THREADS', 'guest: fuzz_test', 'threads that fuzz',
        '', 'unset: fuzz_test\'s `FUZZ_DEF_THREADS`',
        'a positive integer (fuzz_test bounds it)', positive),
    Key('LOCKDOWN_FUZZ_ITERS', 'guest: fuzz_test', 'iterations of each thread',
        '', 'unset: fuzz_test\'s `FUZZ_DEF_ITERS`',
        'a positive integer (fuzz_test bounds it)', positive),
    Key('LOCKDOWN_FUZZ_SECONDS', 'guest: fuzz_test', 'the most seconds the fuzzing takes',
        '', 'unset: fuzz_test\'s `FUZZ_DEF_SECONDS`',
        'a positive integer (fuzz_test bounds it)', positive),
    Key('LOCKDOWN_IMA_APPRAISE', 'guest: ima_kexec_test',
        'how IMA appraises in this boot: `log` (`ima_appraise=log` on the command line) '
        'guarantees nothing',
        '', 'unset: as `enforce`', '`enforce`, `log`', one_of('enforce', 'log')),
    Key('LOCKDOWN_IMA_POLICY', 'guest: ima_kexec_test',
        'the IMA policy the test writes, rules separated by `;`',
        '', 'unset: ima_kexec_test\'s `KEXEC_RULE`', 'a non-empty line', nonempty_line),
    Key('LOCKDOWN_IMA_GUARANTEE', 'guest: ima_kexec_test',
        '`0`: the policy guarantees no signature appraisal, so lockdown refuses both images',
        '', 'unset: as `1`', '`0`, `1`', one_of('0', '1')),
    Key('LOCKDOWN_KEXEC_RAISE', 'guest: kexec_raise_test, kexec_crash_test',
        'the level the test raises to after loading the next or crash kernel',
        '', 'unset: kexec_raise_test fails, kexec_crash_test does not raise',
        '`integrity`, `confidentiality`', one_of('integrity', 'confidentiality')),
    Key('LOCKDOWN_KEXEC_REUSE_CMDLINE', 'guest: kexec_load_test (kexec_next.h)',
        'load the next kernel with this boot\'s line, `lockdown=` and all '
        '(`kexec --reuse-cmdline`); the test asks only whether it is set',
        '', 'unset', '`1`', one_of('1')),
    Key('LOCKDOWN_NO_KEXEC_SIG', 'guest: restrict_test',
        '`1`: the kernel has no `KEXEC_SIG`, so a signed image is refused too',
        '', 'unset', '`0`, `1`', one_of('0', '1')),
]
BY_NAME = {k.name: k for k in KEYS}


def _rel(path):
    """@path from the top of the checkout when it is in it: shorter."""
    r = os.path.relpath(path, TOP)
    return path if r.startswith('..') else r


def _where(path, line):
    return f'{_rel(path)}:{line}'


BARE = re.compile(r'[A-Za-z0-9_@%+=:,./-]+')


def _word(text, pos, path, line):
    """The shell word at @pos of @text: (value, end)."""
    out, i = [], pos
    while i < len(text):
        c = text[i]
        if c in ' \t\n':
            break
        m = BARE.match(text, i)
        if m:
            out.append(m.group())
            i = m.end()
        elif c == '\\':
            if i + 1 >= len(text) or text[i + 1] == '\n':
                raise Error(f'{_where(path, line)}: a backslash ends the line: a value '
                            'goes on one line, but inside quotes')
            out.append(text[i + 1])
            i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise Error(f'{_where(path, line)}: a \' that does not end')
            out.append(text[i + 1:j])
            i = j + 1
        elif c == '"':
            i += 1
            while True:
                if i >= len(text):
                    raise Error(f'{_where(path, line)}: a " that does not end')
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == '\\':
                    if i + 1 < len(text) and text[i + 1] in '$`"\\':
                        out.append(text[i + 1])
                        i += 2
                        continue
                    raise Error(f'{_where(path, line)}: in "...", a backslash escapes only '
                                '$ ` " and \\')
                if c in '$`':
                    raise Error(f'{_where(path, line)}: {c} in "...": a value is not '
                                f'expanded; write \\{c}, or quote with \'...\'')
                out.append(c)
                i += 1
        else:
            what = {'\r': 'a carriage return (CRLF line ends?)', '$': '$ (no expansion)',
                    '`': '` (no command substitution)'}.get(c, repr(c))
            raise Error(f'{_where(path, line)}: {what} outside quotes: quote the value '
                        "with '...'")
    return ''.join(out), i


class Scenario:
    """A scenario file, parsed: its assignments in file order."""

    def __init__(self, path, items):
        self.path = path
        self.items = items          # [(key, value, line)]
        self.name = os.path.basename(path)[:-4] if path.endswith('.env') else path

    def values(self, key):
        return [v for k, v, _ in self.items if k == key]

    def get(self, key):
        """The value of @key, or its default ('': unset)."""
        k = BY_NAME[key]
        vs = self.values(key)
        return vs[-1] if vs else k.default

    def line(self, key):
        return next((n for k, _, n in self.items if k == key), None)

    def has(self, key):
        return any(k == key for k, _, _ in self.items)


def parse(text, path):
    """Parse @text, the contents of @path, strictly: a Scenario or Error."""
    items, seen, pos, line = [], {}, 0, 1
    while pos < len(text):
        end = text.find('\n', pos)
        end = len(text) if end < 0 else end
        raw = text[pos:end]
        if not raw.strip(' \t') or raw.lstrip(' \t').startswith('#'):
            pos, line = end + 1, line + 1
            continue
        m = re.match(r'([A-Za-z_][A-Za-z0-9_]*)=', raw)
        if not m:
            hint = ''
            if raw[:1] in ' \t':
                hint = ': an assignment starts at the start of its line'
            elif re.match(r'\s*(export|readonly|local)\b', raw):
                hint = ': no export, just KEY=VALUE (the guest exports every key)'
            elif '=' not in raw:
                hint = ': no ='
            raise Error(f'{_where(path, line)}: not a KEY=VALUE line{hint}: {raw.strip()!r}')
        key = m.group(1)
        if key not in BY_NAME:
            near = difflib.get_close_matches(key, BY_NAME, n=1)
            raise Error(f'{_where(path, line)}: unknown key {key}' +
                        (f' (did you mean {near[0]}?)' if near else '') +
                        '; the keys: docs/harness.md, "Scenario keys"')
        k = BY_NAME[key]
        if key in seen and not k.repeat:
            raise Error(f'{_where(path, line)}: {key} repeats (first on line {seen[key]}); '
                        'a key may appear once (but console_expect, console_reject, '
                        'console_allow)')
        seen.setdefault(key, line)
        value, i = _word(text, pos + m.end(), path, line)
        rest_end = text.find('\n', i)
        rest_end = len(text) if rest_end < 0 else rest_end
        rest = text[i:rest_end]
        if rest.strip(' \t'):
            raise Error(f'{_where(path, line)}: {rest.strip()!r} after the value of {key}: '
                        'one value a line, quoted if it holds spaces; a comment goes on a '
                        'line of its own')
        if '\n' in value and key != 'cmd':
            raise Error(f'{_where(path, line)}: {key}: a value of one line')
        why = k.check(value)
        if why:
            raise Error(f'{_where(path, line)}: {key}={value!r}: not {why}')
        items.append((key, value, line))
        line += text.count('\n', pos, rest_end) + 1
        pos = rest_end + 1
    sc = Scenario(path, items)
    _check_keys(sc)
    return sc


def _check_keys(sc):
    """What one key asks of another, within a file."""
    def bad(key, msg):
        raise Error(f'{_where(sc.path, sc.line(key))}: {msg}')
    if sc.get('efivars') and sc.get('firmware') != 'ovmf':
        bad('efivars', 'efivars= needs firmware=ovmf')
    if sc.get('efivars_fresh') == '1' and not sc.get('efivars'):
        bad('efivars_fresh', 'efivars_fresh=1 needs efivars=')
    if sc.has('cmd') and sc.has('tests'):
        bad(max(('cmd', 'tests'), key=sc.line), 'cmd= and tests= exclude each other')
    if sc.has('kexec_tests') and not sc.get('tests'):
        bad('kexec_tests', 'kexec_tests= needs tests=')
    if sc.has('kexec_start') and not sc.get('kexec_tests'):
        bad('kexec_start', 'kexec_start= needs kexec_tests=')
    if sc.name in sc.get('after').split():
        bad('after', f'{sc.name} cannot run after itself')


def load(path):
    """The scenario in file @path (FileNotFoundError, Error)."""
    with open(path, encoding='utf-8', errors='strict') as f:
        try:
            text = f.read()
        except UnicodeDecodeError as e:
            raise Error(f'{_rel(path)}: not UTF-8: {e}') from None
    return parse(text, path)


def quote(value):
    """@value as one word for sh (busybox's too) and bash."""
    if BARE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def shell(sc, keys=None):
    """Canonical assignments: the file's, in order; or one per key of
    @keys, with its value or default."""
    if keys is None:
        return ''.join(f'{k}={quote(v)}\n' for k, v, _ in sc.items)
    out = []
    for key in keys:
        if key not in BY_NAME:
            raise Error(f'no key {key}')
        if BY_NAME[key].repeat:
            raise Error(f'{key} is repeatable: ask with get')
        out.append(f'{key}={quote(sc.get(key))}\n')
    return ''.join(out)


class Scenarios:
    """The scenario files of a directory, loaded when asked for."""

    def __init__(self, directory=SCENARIOS):
        self.dir = directory
        self.cache = {}

    def path(self, name):
        return os.path.join(self.dir, name + '.env')

    def names(self):
        return sorted(f[:-4] for f in os.listdir(self.dir) if f.endswith('.env'))

    def exists(self, name):
        return bool(NAME.fullmatch(name)) and os.path.isfile(self.path(name))

    def get(self, name):
        if name not in self.cache:
            if not self.exists(name):
                raise Error(f'no scenario {name} ({_rel(self.path(name))})')
            self.cache[name] = load(self.path(name))
        return self.cache[name]

    def after(self, name):
        """@name's after= list, each checked to be a scenario."""
        sc = self.get(name)
        deps = sc.get('after').split()
        for d in deps:
            if not self.exists(d):
                raise Error(f'{_where(sc.path, sc.line("after"))}: after={d}: '
                            f'no scenario {d} ({_rel(self.path(d))})')
        return deps

    def closure(self, name, stack=()):
        """Every scenario @name runs after, directly or not."""
        if name in stack:
            cycle = ' -> '.join(stack[stack.index(name):] + (name,))
            raise Error(f'{_rel(self.path(name))}: after= goes round: {cycle}')
        out = []
        for d in self.after(name):
            for x in self.closure(d, stack + (name,)) + [d]:
                if x not in out:
                    out.append(x)
        return out

    def check_state(self, name):
        """A scenario that keeps an EFI variable store it does not start
        names, through after=, one that starts it."""
        sc = self.get(name)
        store = sc.get('efivars')
        if not store or sc.get('efivars_fresh') == '1':
            return
        starters = [d for d in self.closure(name)
                    if self.get(d).get('efivars') == store and
                    self.get(d).get('efivars_fresh') == '1']
        if not starters:
            raise Error(f'{_where(sc.path, sc.line("efivars"))}: efivars={store} reads a '
                        'store another scenario writes: name the one with efivars_fresh=1 '
                        'in after=')

    def check(self, name):
        self.get(name)
        self.closure(name)
        self.check_state(name)

    def order_path(self):
        return os.path.join(self.dir, 'order')

    def order(self):
        """tests/scenarios/order: each scenario once, after its after=."""
        path = self.order_path()
        names, where = read_order(path), {}
        with open(path) as f:
            for n, text in enumerate(f, 1):
                w = text.split('#')[0].split()
                if len(w) > 1:
                    raise Error(f'{_where(path, n)}: one scenario a line')
                if w:
                    if w[0] in where:
                        raise Error(f'{_where(path, n)}: {w[0]} again (first on line '
                                    f'{where[w[0]]})')
                    if not self.exists(w[0]):
                        raise Error(f'{_where(path, n)}: no scenario {w[0]}')
                    where[w[0]] = n
        for name in self.names():
            if name not in where:
                raise Error(f'scenario {name} is not listed in {_rel(path)}')
        for name in names:
            for d in self.after(name):
                if where[d] > where[name]:
                    raise Error(f'{_where(path, where[name])}: {name} runs after {d} '
                                f'(after= in {_rel(self.path(name))}): list {d} first')
        return names

    def plan(self, names, pull=True, extra=()):
        """@names as a run: each after what its after= names.  A missing
        one is pulled in just before (@pull), else an error; one named
        later is an error.  Returns (run, notes)."""
        named = set(names)

        def order(strict):
            run, notes = [], []

            def add(name):
                if name in run:
                    return
                if name in extra:
                    run.append(name)
                    return
                self.check(name)
                for d in self.after(name):
                    if d in run:
                        continue
                    sc = self.get(name)
                    at = _where(sc.path, sc.line('after'))
                    if strict and d in named:
                        raise Error(f'{name} needs {d} to have run before it (after= in '
                                    f'{at}), but this run has {d} after it: name {d} '
                                    f"first, as in make check S='{fixed()}'")
                    if strict and not pull:
                        raise Error(f'{name} needs {d} to have run before it (after= in '
                                    f'{at}), but this run leaves {d} out: run them '
                                    f"together, as in make check S='{fixed()}'")
                    notes.append(f'{d} added to the run, before {name}, which needs it '
                                 f'(after= in {at})')
                    add(d)
                run.append(name)
            for n in names:
                add(n)
            return run, notes

        def fixed():
            # The run asked for, each scenario moved or pulled in before
            # the first that needs it.
            return ' '.join(order(False)[0])

        return order(True)

    def check_all(self):
        for name in self.names():
            self.check(name)
        self.order()

    def variants(self):
        vs = {self.get(n).get('variant') for n in self.names()}
        return ['default'] + sorted(vs - {'default'})


def read_order(path):
    """The names in an order file, in order (no checks: report.py)."""
    with open(path) as f:
        return [w for text in f for w in text.split('#')[0].split()]


def table():
    """The keys as a markdown table (docs/harness.md holds a copy)."""
    rows = ['| key | read by | what it means | default | allowed values |',
            '|---|---|---|---|---|']
    for k in KEYS:
        rows.append(f'| `{k.name}` | {k.readers} | {k.meaning} | {k.default_doc} | '
                    f'{k.allowed_doc} |')
    return '\n'.join(rows) + '\n'


def main(argv):
    directory = SCENARIOS
    if argv[:1] == ['--dir'] and len(argv) > 1:
        directory, argv = argv[1], argv[2:]
    cmd, args = (argv[0], argv[1:]) if argv else ('', [])
    scs = Scenarios(directory)
    if cmd == 'get' and len(args) == 2:
        sc, key = load(args[0]), args[1]
        if key not in BY_NAME:
            raise Error(f'no key {key}')
        vals = sc.values(key) if BY_NAME[key].repeat else [sc.get(key)]
        sys.stdout.write(''.join(v + '\n' for v in vals))
    elif cmd == 'shell' and args:
        sys.stdout.write(shell(load(args[0]), args[1:] or None))
    elif cmd == 'assign' and len(args) == 2:
        sys.stdout.write(shell(parse(f'{args[0]}={quote(args[1])}\n', '(assign)')))
    elif cmd == 'check':
        if args:
            for path in args:
                load(path)
        else:
            scs.check_all()
    elif cmd == 'order' and not args:
        print('\n'.join(scs.order()))
    elif cmd == 'plan':
        pull, extra, names = True, [], []
        it = iter(args)
        for a in it:
            if a == '--no-pull':
                pull = False
            elif a == '--extra':
                extra.append(next(it, ''))
            else:
                names.append(a)
        run, notes = scs.plan(names, pull, extra)
        for n in notes:
            print(f'==> {n}', file=sys.stderr)
        sys.stdout.write(''.join(n + '\n' for n in run))
    elif cmd == 'list-variants' and not args:
        print('\n'.join(scs.variants()))
    elif cmd == 'table' and not args:
        sys.stdout.write(table())
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except (Error, OSError) as e:
        print(f'scenario.py: {e}', file=sys.stderr)
        sys.exit(1)
