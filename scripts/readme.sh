#!/bin/bash
# Put the matrix of the last make check into README.md, between the
# "matrix:begin" and "matrix:end" markers, with the run's summary line; and
# the introspection file as a guest booted at integrity shows it, between
# "reasons:begin" and "reasons:end".
set -euo pipefail
. "$(dirname "$0")/common.sh"

results=${LOCKDOWN_RESULTS:-$build/results}
[ -f "$results/matrix.md" ] || die "no $results/matrix.md: run make check first"
reasons=$(mktemp)
trap 'rm -f "$reasons"' EXIT
"$top/scripts/run.sh" integrity 'cat /sys/kernel/security/lockdown_reasons' >"$reasons"
python3 - "$top/README.md" "$results/matrix.md" "$reasons" <<'PY'
import re, sys
readme, matrix, reasons = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
s = open(readme).read()
for name, body in (('matrix', matrix), ('reasons', '```\n' + reasons + '```\n')):
    new = f'<!-- {name}:begin -->\n' + body + f'<!-- {name}:end -->'
    s, n = re.subn(f'<!-- {name}:begin -->.*?<!-- {name}:end -->', lambda m: new, s, flags=re.S)
    if n != 1:
        sys.exit(f'readme.sh: README.md needs exactly one {name}:begin/end pair')
open(readme, 'w').write(s)
PY
