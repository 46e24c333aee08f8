#!/bin/bash
# scripts/scenario.py, the one reader of scenario files: every scenario
# parses; the readers it replaced (sourcing in vm.sh and in the guest, the
# grep and eval of check.sh, the Makefile's sed, report.py's shlex, as they
# were before it) read each scenario as it does; a file with a repeated
# key, an unknown key, bad quoting or a bad value fails, naming the file,
# the line and why; after= is kept (scenario.py plan, check.sh -n).  The
# key table in docs/harness.md is scenario.py's.  Boots nothing; prints TAP.
# shellcheck disable=SC2016 # $ in the texts is for scenario.py and the
# shells the test starts, not for this one
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sc=$top/scripts/scenario.py
scenarios=$top/tests/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# check.sh -n boots nothing and writes nothing; should it, not there.
export LOCKDOWN_BUILD=$tmp/build LOCKDOWN_RESULTS=$tmp/results
unset LOCKDOWN_VARIANT
n=0 bad=0

# ok STATUS NAME: one TAP line; returns STATUS, for a diagnostic after ||.
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n workbench.scenario_$2"
	else
		echo "not ok $n workbench.scenario_$2"
		bad=1
	fi
	return "$1"
}
# The guest's shell: busybox's, as in the initramfs.
if command -v busybox >/dev/null; then gsh=(busybox sh); else gsh=(dash); fi

# fails NAME TEXT MESSAGE: a scenario file x.env of TEXT (printf format)
# must not parse, and scenario.py must say MESSAGE (a fixed string,
# after "x.env:").
fails() {
	local name=$1 text=$2 want=$3 d=$tmp/fail-$1 out rc
	mkdir -p "$d"
	# shellcheck disable=SC2059 # the text is a format, for its \n
	printf "$text" >"$d/x.env"
	out=$("$sc" check "$d/x.env" 2>&1)
	rc=$?
	if [ $rc != 0 ] && [[ $out == *"x.env:$want"* ]]; then
		ok 0 "$name"
	else
		echo "# exit $rc, wanted an error holding: x.env:$want"
		echo "# scenario.py said: $out"
		ok 1 "$name"
	fi
}

# parses NAME TEXT: x.env of TEXT parses.
parses() {
	local d=$tmp/parse-$1 out
	mkdir -p "$d"
	# shellcheck disable=SC2059
	printf "$2" >"$d/x.env"
	out=$("$sc" check "$d/x.env" 2>&1)
	ok $? "$1" || echo "# $out"
}

# same NAME: the two files $tmp/old and $tmp/new hold the same.
same() {
	if cmp -s "$tmp/old" "$tmp/new"; then
		ok 0 "$1"
	else
		diff "$tmp/old" "$tmp/new" | head -n 20 | sed 's/^/# /'
		ok 1 "$1"
	fi
}

envs=("$scenarios"/*.env)
echo "1..43"

# Every scenario, its after= and the order file.
out=$("$sc" check 2>&1)
ok $? all_parse || echo "# $out"

# The readers before scenario.py, as they were (commit 225da44), against
# scenario.py, on every scenario.  Each writes one line or block per
# scenario to old, and scenario.py's reading to new.
# The guest: tests/init sources /scenario.env with set -a; vm.sh copied the
# file as it was, and now packs scenario.py shell.
: >"$tmp/old"
: >"$tmp/new"
# The environment of init and the tests: every variable exported.
guest_env() {
	echo "== ${f##*/}"
	env -i "${gsh[@]}" -c 'set -a; . "$1"; set +a; env' sh "$1" |
		grep -v '^\(PWD\|SHLVL\|_\)=' | sort
}
for f in "${envs[@]}"; do
	guest_env "$f" >>"$tmp/old"
	"$sc" shell "$f" >"$tmp/guest.env" || echo "shell failed" >>"$tmp/new"
	guest_env "$tmp/guest.env" >>"$tmp/new"
done
same legacy_guest_environment

# vm.sh: its defaults, then the file sourced; now scenario.py shell FILE KEY...
keys=(cmdline keyboard firmware efivars efivars_fresh mem)
: >"$tmp/old"
: >"$tmp/new"
for f in "${envs[@]}"; do
	bash -c 'cmdline="" keyboard=0 firmware=bios efivars="" efivars_fresh=0 mem=512
		. "$1" >/dev/null 2>&1; shift; declare -p "$@"' sh "$f" "${keys[@]}" >>"$tmp/old"
	bash -c 'vars=$("$1" shell "$2" "${@:3}") || exit 1; eval "$vars"; declare -p "${@:3}"' \
		sh "$sc" "$f" "${keys[@]}" >>"$tmp/new"
done
same legacy_vm_sh_keys

# check.sh's scenario_variant (eval of the grep'd line), check-old-kernel.sh
# (a variant= line at all: not a default scenario); now scenario.py get.
: >"$tmp/old"
: >"$tmp/new"
for f in "${envs[@]}"; do
	(
		variant=default
		eval "$(grep '^variant=' "$f" || true)"
		grep -q '^variant=' "$f" && other=1 || other=0
		echo "${f##*/} $variant $other"
	) >>"$tmp/old"
	v=$("$sc" get "$f" variant)
	[ "$v" = default ] && other=0 || other=1
	echo "${f##*/} $v $other" >>"$tmp/new"
done
same legacy_check_sh_variant

# The Makefile's variants (sed), and the kernels it built; now list-variants.
printf 'v := default $(sort $(shell sed -n %s %s/*.env))\nall:;@echo $(v)\n' \
	"'s/^variant=//p'" "$scenarios" | make -s -f - >"$tmp/old"
"$sc" list-variants | tr '\n' ' ' | sed 's/ $//' >"$tmp/new"
echo >>"$tmp/new"
same legacy_makefile_variants

# report.py: shlex on lines that start with the key (guest_dies,
# console_allow; console_expect and console_reject in the file's order).
python3 - "$top/scripts" "${envs[@]}" >"$tmp/out" 2>&1 <<'EOF'
import shlex, sys
sys.path.insert(0, sys.argv[1])
import scenario

def env_values(env, key):
    return [shlex.split(line[len(key) + 1:])[0] for line in env
            if line.startswith(key + '=')]

def expectations(env):
    for line in env:
        for key in ('console_expect=', 'console_reject='):
            if line.startswith(key):
                yield (key.rstrip('='), shlex.split(line[len(key):])[0])

bad = 0
for path in sys.argv[2:]:
    with open(path) as f:
        env = f.read().splitlines()
    sc = scenario.load(path)
    old = (env_values(env, 'guest_dies') == ['1'], env_values(env, 'console_allow'),
           list(expectations(env)))
    new = (sc.get('guest_dies') == '1', sc.values('console_allow'),
           [(k, v) for k, v, _ in sc.items if k in ('console_expect', 'console_reject')])
    if old != new:
        print(f'# {path}: shlex {old}, scenario.py {new}')
        bad = 1
sys.exit(bad)
EOF
ok $? legacy_report_py_keys || sed 's/^/# /' "$tmp/out" | head -n 10

# The order: check.sh's grep and report.py's split, now scenario.py order.
grep -v '^#' "$scenarios/order" >"$tmp/old"
"$sc" order >"$tmp/new"
same legacy_order

# The run check.sh makes of it: workbench, then the order; under
# LOCKDOWN_VARIANT, the default scenarios.
{ echo workbench; grep -v '^#' "$scenarios/order"; } >"$tmp/old"
"$top/scripts/check.sh" -n >"$tmp/new" 2>&1
same full_run_is_order
while read -r s; do
	grep -q '^variant=' "$scenarios/$s.env" || echo "$s"
done < <(grep -v '^#' "$scenarios/order") >"$tmp/old"
LOCKDOWN_VARIANT=debug "$top/scripts/check.sh" -n >"$tmp/new" 2>&1
same variant_run_is_default_scenarios

# Files that must not parse, and what scenario.py must say.
fails repeated_key 'level=none\ncmdline=""\nlevel=integrity\n' \
	'3: level repeats (first on line 1)'
fails unknown_key 'level=none\ncmdlne="lockdown=integrity"\n' \
	'2: unknown key cmdlne (did you mean cmdline?)'
fails unknown_key_lowercase_env 'lockdown_expect_efi=1\n' \
	'1: unknown key lockdown_expect_efi'
fails quote_not_closed 'cmdline="lockdown=integrity\nlevel=integrity\n' \
	'1: a " that does not end'
fails words_unquoted 'tests=securityfs_test restrict_test\n' \
	"1: 'restrict_test' after the value of tests"
fails comment_after_value 'level=none # booted at none\n' \
	"1: '# booted at none' after the value of level"
fails expansion_in_quotes 'cmdline="root=$ROOT"\n' \
	'1: $ in "...": a value is not expanded'
fails expansion_bare 'cmdline=$(cat /proc/cmdline)\n' \
	'1: $ (no expansion) outside quotes'
fails export 'export level=none\n' \
	'1: not a KEY=VALUE line: no export'
fails indented 'level=none\n  mem=1024\n' \
	'2: not a KEY=VALUE line: an assignment starts at the start of its line'
fails bad_value 'level=none\nmem=lots\n' \
	"2: mem='lots': not a positive decimal integer"
fails bad_level 'level=integrty\n' \
	"1: level='integrty': not one of 'none', 'integrity', 'confidentiality'"
fails bad_variant 'variant=flor-integrity\n' \
	"1: variant='flor-integrity': not 'default' or NAME"
fails value_of_two_lines "console_expect='a\nb'\n" \
	'1: console_expect: a value of one line'
fails efivars_without_ovmf 'efivars=ssdt\n' \
	'1: efivars= needs firmware=ovmf'
parses repeatable_keys 'console_expect="a"\nconsole_expect="b"\nconsole_reject=c\n'
out=$("$sc" get "$tmp/parse-repeatable_keys/x.env" console_expect | tr '\n' ' ')
[ "$out" = "a b " ]
ok $? repeatable_keys_in_order || echo "# get console_expect: $out"
parses shell_words "cmdline=a\"b c\"'d e'f\\\\ g\ncmd='x\ny'\n\n  # note\n"

# What shell writes, sourced by the guest's shell, is the value read.
val=$(printf 'it'"'"'s "$x" `y` \\ \t; a\nb')
"$sc" assign cmd "$val" >"$tmp/assign.env"
got=$(env -i "${gsh[@]}" -c '. "$1"; printf %s "$cmd"' sh "$tmp/assign.env")
back=$("$sc" get "$tmp/assign.env" cmd)
[ "$got" = "$val" ] && [ "$back" = "$val" ]
ok $? shell_quoting_round_trip

# after=: a run keeps it (scenarios a; b after a; c after b), in a
# directory of its own.
d=$tmp/dep
mkdir -p "$d"
printf 'level=none\n' >"$d/a.env"
printf 'after=a\nlevel=none\n' >"$d/b.env"
printf 'after=b\nlevel=none\n' >"$d/c.env"
printf 'a\nb\nc\n' >"$d/order"
plan() { "$sc" --dir "$d" plan "$@" 2>"$tmp/plan.err" | tr '\n' ' '; }
[ "$(plan c)" = "a b c " ] && grep -q '==> b added to the run, before c' "$tmp/plan.err"
ok $? after_pulls_in_what_is_missing || sed 's/^/# /' "$tmp/plan.err"
[ "$(plan a b c)" = "a b c " ]
ok $? after_keeps_a_good_order || sed 's/^/# /' "$tmp/plan.err"
out=$(plan c b)
[ -z "$out" ] && grep -q "c needs b to have run before it (after= in $d/c.env:1), but this run has b after it.*make check S='a b c'" \
	"$tmp/plan.err"
ok $? after_refuses_named_later || sed 's/^/# /' "$tmp/plan.err"
out=$(plan --no-pull b)
[ -z "$out" ] && grep -q 'but this run leaves a out' "$tmp/plan.err"
ok $? after_no_pull_refuses_missing || sed 's/^/# /' "$tmp/plan.err"
"$sc" --dir "$d" check >/dev/null 2>&1
ok $? after_directory_checks
# "scenario.py check" on the scenarios in $d must fail saying $1.
check_says() {
	local out
	out=$("$sc" --dir "$d" check 2>&1)
	[[ $out == *"$1"* ]]
	ok $? "$2" || echo "# $out"
}
printf 'b\na\nc\n' >"$d/order"
check_says "order:1: b runs after a (after= in $d/b.env): list a first" after_order_file_refused
printf 'a\nb\nc\n' >"$d/order"
printf 'after=c\nlevel=none\n' >"$d/a.env"
check_says "after= goes round: " after_cycle_refused
printf 'after=z\nlevel=none\n' >"$d/a.env"
check_says "a.env:1: after=z: no scenario z" after_unknown_refused
# A scenario on a kept EFI variable store must name the one that starts it.
printf 'firmware=ovmf\nefivars=s\nefivars_fresh=1\n' >"$d/a.env"
printf 'firmware=ovmf\nefivars=s\n' >"$d/b.env"
check_says "b.env:2: efivars=s reads a store another scenario writes" after_needed_by_efivars

# check.sh, on the real scenarios: S='efi-ssdt-none' pulls efi-ssdt-write
# in; named the other way round, it refuses before booting anything.
out=$("$top/scripts/check.sh" -n efi-ssdt-none 2>"$tmp/check.err" | tr '\n' ' ')
[ "$out" = "efi-ssdt-write efi-ssdt-none " ] &&
	grep -q '==> efi-ssdt-write added to the run, before efi-ssdt-none' "$tmp/check.err"
ok $? check_sh_pulls_in_efi_ssdt_write || { echo "# run: $out"; sed 's/^/# /' "$tmp/check.err"; }
"$top/scripts/check.sh" -n efi-ssdt-none efi-ssdt-write >/dev/null 2>"$tmp/check.err"
rc=$?
[ $rc != 0 ] && grep -q 'efi-ssdt-none needs efi-ssdt-write to have run before it' "$tmp/check.err"
ok $? check_sh_refuses_wrong_order || sed 's/^/# /' "$tmp/check.err"
# efi-ssdt-integrity and efi-ssdt-none each name efi-ssdt-write.
for s in efi-ssdt-integrity efi-ssdt-none; do
	[ "$("$sc" get "$scenarios/$s.env" after)" = efi-ssdt-write ] || echo "# $s: after= is not efi-ssdt-write"
done >"$tmp/after.out"
[ ! -s "$tmp/after.out" ]
ok $? efi_ssdt_after_write || cat "$tmp/after.out"

# vm.sh -n (a dry run: the QEMU command line) reads the keys through
# scenario.py, packs its canonical file for the guest, and stops at a file
# that does not parse.  $LOCKDOWN_BUILD is $tmp/build: no store is touched.
mkdir -p "$LOCKDOWN_BUILD"
: >"$LOCKDOWN_BUILD/initramfs.cpio"
vm() { "$top/scripts/vm.sh" -n "$1" "$tmp/vm" "$tmp/bzImage" 2>&1; }
line=$(vm "$scenarios/kexec-crash-none.env")
line2=$(vm "$scenarios/efi-ssdt-write.env")
(cd "$tmp/vm" && cpio -i --quiet --to-stdout scenario.env <job.cpio) >"$tmp/old"
"$sc" shell "$scenarios/efi-ssdt-write.env" >"$tmp/new"
[[ $line == *" -m 1024 "* && $line == *"-append console=ttyS0\ panic=-1\ crashkernel=256M"* &&
	$line2 == *"file=$LOCKDOWN_BUILD/efivars-ssdt.fd"* && $line2 == *" -m 512 "* ]] &&
	cmp -s "$tmp/old" "$tmp/new" && cmp -s "$tmp/new" "$tmp/vm/scenario.env" &&
	[ ! -e "$LOCKDOWN_BUILD/efivars-ssdt.fd" ]
ok $? vm_sh_reads_through_scenario_py || printf '# %s\n' "$line" "$line2"
out=$(vm "$tmp/fail-unknown_key/x.env")
rc=$?
[ $rc != 0 ] && [[ $out == *"x.env:2: unknown key cmdlne"* && $out != *qemu-system* ]]
ok $? vm_sh_refuses_bad_file || echo "# exit $rc: $out"

# The table of docs/harness.md is scenario.py's.
sed -n '/^<!-- scenario-keys:/,/^<!-- end scenario-keys -->/p' "$top/docs/harness.md" |
	sed '1d;$d' >"$tmp/old"
"$sc" table >"$tmp/new"
same docs_table_is_current

exit $bad
