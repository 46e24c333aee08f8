#!/usr/bin/env python3
"""Read the logs of every scenario's boot and print the report.

Each scenario directory holds results.log (TAP from the results port, framed
by "# LDT-SUITE" lines, ending in "LDT-EXIT <rc>"), console.log (the
kernel console, with KTAP from KUnit when built in) and end.log (vm.sh's
line on how the guest ended: "exit 0", "timeout after 180 s ...").  A
missing exit line, a plan that was not completed, a suite that failed
without a failing test, a guest that did not end by QEMU's own exit 0, or
a kernel splat on the console each count as a failure of their own; the
note of a guest that did not finish quotes end.log.  Without end.log (older
logs, the workbench column) the guest's end is not judged.

Usage: report.py RESULTS_DIR SCENARIO...
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario  # noqa: E402  (scripts/scenario.py, the scenario files' reader)

SPLAT = re.compile(r'(WARNING:|BUG:|Oops|KASAN:|UBSAN:|general protection fault|'
                   r'Kernel panic|possible circular locking|INFO: task .* blocked)')
RESULT = re.compile(r'^(not ok|ok) (\d+) (\S+)(.*)$')
# kselftest_harness.h names the test on its RUN line; a skipped test's
# result line ("ok 2 # SKIP reason") does not repeat the name.
RUN = re.compile(r'^#\s+RUN\s+(\S+) \.\.\.$')
# What the harness prints when an assertion fails: "# file.c:LINE:test:..."
DIAG = re.compile(r'^#\s+(\S+\.c:\d+:.*)$')
KTAP_SUBTEST = re.compile(r'^\s+(not ok|ok) \d+ (\S+)(.*)$')


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read().replace('\r', '').splitlines()
    except FileNotFoundError:
        return []


def outcome(status, rest):
    if status == 'ok' and re.search(r'#\s*SKIP', rest, re.I):
        return 'skip'
    return 'pass' if status == 'ok' else 'fail'


def clean_end(end):
    """Whether vm.sh's @end says QEMU exited 0 by itself: the guest powered
    off, or reset (-no-reboot), as a panic with panic=-1 does.  No end.log
    (None) is taken for one."""
    return end is None or end.split(':')[0] == 'exit 0'


def parse_results(lines, dies=False, end=None):
    """Yield (case, outcome, note) for one scenario's results port.  With
    @dies (guest_dies=1: the scenario ends in a panic nothing recovers
    from), the exit line must be missing instead.  @end is the first line
    of end.log, None without one."""
    suite, exit_rc, seen_any, failed_any = None, None, False, False
    running, diag = '?', []
    for line in lines + ['# LDT-END']:
        if line.startswith('# LDT-SUITE-EXIT '):
            _, _, name, rc = line.split()
            suite['rc'] = rc
        elif line.startswith('# LDT-SUITE ') or line == '# LDT-END':
            if suite:
                yield from close_suite(suite)
            seen_any = seen_any or line != '# LDT-END'
            suite = {'name': line.split()[-1], 'plan': 0, 'seen': 0,
                     'failed': 0, 'rc': None}
        elif line.startswith('LDT-EXIT '):
            exit_rc = line.split()[1]
        elif suite and re.match(r'^1\.\.\d+$', line):
            suite['plan'] = int(line[3:])
        elif suite and RUN.match(line):
            running, diag = RUN.match(line).group(1), []
        elif suite and DIAG.match(line):
            diag.append(DIAG.match(line).group(1))
        elif suite and RESULT.match(line):
            m = RESULT.match(line)
            case, rest = m.group(3), m.group(4)
            if case == '#':
                case, rest = running, '# ' + rest
            res = outcome(m.group(1), rest)
            # A failure says where: the first assertion that failed.
            if res == 'fail' and diag and not rest.strip(' #'):
                rest = diag[0]
            suite['seen'] += 1
            suite['failed'] += res == 'fail'
            failed_any = failed_any or res == 'fail'
            yield (case, res, rest.strip(' #'))
    if dies:
        if exit_rc is not None:
            yield ('guest.died', 'fail', f'LDT-EXIT {exit_rc}: the guest was to die in a panic, not exit')
        else:
            yield ('guest.died', 'pass' if clean_end(end) else 'fail',
                   f'no LDT-EXIT line, but not the reset of a panic: guest ended: {end}')
        return
    if exit_rc is None:
        yield ('guest.exit', 'fail', 'no LDT-EXIT line: ' +
               (f'guest ended: {end}' if end else 'guest hung, panicked or timed out'))
        return
    if not clean_end(end):
        # The job finished, but the guest did not power off.
        yield ('guest.end', 'fail', f'LDT-EXIT {exit_rc}, then guest ended: {end}')
    if not seen_any:
        # A scenario that runs a command instead of suites: its status decides.
        yield ('guest.cmd', 'pass' if exit_rc == '0' else 'fail', f'exit status {exit_rc}')
    elif exit_rc != '0' and not failed_any:
        yield ('guest.exit', 'fail', f'exit status {exit_rc} without a failed test')


def close_suite(suite):
    """A suite must finish its plan and exit 0 unless a test said why not."""
    name = suite['name']
    if suite['seen'] < suite['plan'] or suite['rc'] is None:
        yield (name + '.complete', 'fail',
               f"{suite['seen']} of {suite['plan']} results, exit {suite['rc']}: suite died")
    elif suite['rc'] != '0' and not suite['failed']:
        yield (name + '.exit', 'fail', f"exit status {suite['rc']} without a failed test")


def parse_console(lines, allowed=()):
    """Yield KUnit (KTAP) results and kernel splats from the console.  A
    splat line holding one of @allowed (console_allow=: the panic a
    scenario causes on purpose) is not one."""
    suite = None
    for line in lines:
        text = re.sub(r'^\[\s*\d+\.\d+\]\s?', '', line)
        if SPLAT.search(text) and not any(a in text for a in allowed):
            yield ('kernel.console', 'fail', text.strip())
        m = re.match(r'^\s+# Subtest: (\S+)', text)
        if m:
            suite = m.group(1)
            continue
        m = KTAP_SUBTEST.match(text)
        if m and suite:
            yield (f'kunit.{suite}.{m.group(2)}', outcome(m.group(1), m.group(3)),
                   m.group(3).strip(' #'))
        elif RESULT.match(text):
            suite = None


def parse_expectations(env, console):
    """What a scenario (@env, a scenario.Scenario) promises of its
    console: each console_expect= names a string that must appear on it,
    each console_reject= one that must not, in the file's order."""
    text = '\n'.join(console)
    for key, want, _ in env.items:
        must = {'console_expect': True, 'console_reject': False}.get(key)
        if must is None:
            continue
        yield (key.replace('console_', 'console.'),
               'pass' if (want in text) == must else 'fail',
               f'console {"lacks" if must else "shows"}: {want}')


def read_env(path):
    """The scenario a guest ran, as vm.sh kept it: (Scenario, error).  No
    file (the workbench column) is an empty scenario; one that does not
    parse is too, and the error is a result of its own."""
    try:
        return scenario.load(path), None
    except FileNotFoundError:
        return scenario.Scenario(path, []), None
    except scenario.Error as e:
        where, _, what = str(e).partition(': ')
        return scenario.Scenario(path, []), f'{os.path.basename(where)}: {what}'


def promised_cases(readme):
    """Test names in the last column of README's restriction table."""
    names = set()
    for line in read(readme):
        cols = [c.strip() for c in line.split('|')]
        if len(cols) > 6 and cols[1].startswith('`') and cols[2] in ('integrity', 'confidentiality'):
            for name in re.findall(r'`([a-z0-9_.]+)`', cols[-2]):
                names.add(name if '.' in name else 'restrict.' + name)
    return names


def write_markdown(path, table, order, scenarios):
    """The same matrix as a markdown table, for make readme."""
    mark = {'pass': 'ok', 'fail': '**FAIL**', 'skip': 'skip', None: ''}
    with open(path, 'w') as f:
        f.write('| test | ' + ' | '.join(scenarios) + ' |\n')
        f.write('|---|' + '---|' * len(scenarios) + '\n')
        for case in order:
            cells = [mark[table[case].get(s)] for s in scenarios]
            f.write(f'| `{case}` | ' + ' | '.join(cells) + ' |\n')


def main():
    top, scenarios = sys.argv[1], sys.argv[2:]
    table, counts, order = {}, {'pass': 0, 'fail': 0, 'skip': 0}, []
    for sc in scenarios:
        d = os.path.join(top, sc)
        env, bad_env = read_env(os.path.join(d, 'scenario.env'))
        dies = env.get('guest_dies') == '1'
        end = (read(os.path.join(d, 'end.log')) or [None])[0]
        results = [('scenario.env', 'fail', bad_env)] if bad_env else []
        results += list(parse_results(read(os.path.join(d, 'results.log')), dies, end))
        console = read(os.path.join(d, 'console.log'))
        results += list(parse_console(console, env.values('console_allow')))
        results += list(parse_expectations(env, console))
        for case, res, note in results:
            counts[res] += 1
            mark = {'pass': 'ok  ', 'fail': 'FAIL', 'skip': 'skip'}[res]
            print(f'{mark} {sc:<24} {case}' + (f'  # {note}' if res != 'pass' and note else ''))
            if case not in table:
                table[case] = {}
                order.append(case)
            prev = table[case].get(sc)
            table[case][sc] = res if prev in (None, 'pass') or res == 'fail' else prev

    # A test the README promises must have run: one that vanished from the
    # source would otherwise only shrink the totals.
    # Only a full run can tell: a subset (make check S=...) leaves out the
    # scenarios that run most of them.
    here = os.path.dirname(os.path.abspath(__file__))
    readme = os.path.join(here, '..', 'README.md')
    full = set(scenario.read_order(os.path.join(scenario.SCENARIOS, 'order')))
    if full <= set(scenarios):
        for case in sorted(promised_cases(readme) - set(order)):
            counts['fail'] += 1
            print(f'FAIL {"none":<24} {case}  # promised by README, no result')
            table[case] = {'none': 'fail'}
            order.append(case)

    failed = [s for s in scenarios if any(t.get(s) == 'fail' for t in table.values())]
    width = max([len(c) for c in order] + [10])
    cols = [max(len(s), 4) for s in scenarios]
    print()
    print(' ' * width + '  ' + '  '.join(s.rjust(w) for s, w in zip(scenarios, cols)))
    for case in order:
        cells = [{'pass': 'ok', 'fail': 'FAIL', 'skip': 'skip', None: '-'}[table[case].get(s)]
                 for s in scenarios]
        print(case.ljust(width) + '  ' + '  '.join(c.rjust(w) for c, w in zip(cells, cols)))
    write_markdown(os.path.join(top, 'matrix.md'), table, order, scenarios)
    print()
    line = f"{counts['pass']} passed, {counts['fail']} failed"
    if counts['skip']:
        line += f", {counts['skip']} skipped"
    with open(os.path.join(top, 'matrix.md'), 'a') as f:
        f.write(f'\nThat run: {line}.\n')
    print(f'logs: {os.path.abspath(top)}/SCENARIO/{{console,results}}.log')
    if failed:
        print(f"rerun the failed: make check S='{' '.join(failed)}'")
    print(line)
    return 1 if counts['fail'] or not counts['pass'] else 0


if __name__ == '__main__':
    sys.exit(main())
