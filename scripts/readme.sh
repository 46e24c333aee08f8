#!/bin/bash
# Put the matrix of the last make check into README.md, between the
# "matrix:begin" and "matrix:end" markers, with the run's summary line.
set -euo pipefail
. "$(dirname "$0")/common.sh"

results=${LOCKDOWN_RESULTS:-$build/results}
[ -f "$results/matrix.md" ] || die "no $results/matrix.md: run make check first"
python3 - "$top/README.md" "$results/matrix.md" <<'PY'
import re, sys
readme, matrix = sys.argv[1], open(sys.argv[2]).read()
s = open(readme).read()
new = '<!-- matrix:begin -->\n' + matrix + '<!-- matrix:end -->'
s, n = re.subn(r'<!-- matrix:begin -->.*?<!-- matrix:end -->', lambda m: new, s, flags=re.S)
if n != 1:
    sys.exit('readme.sh: README.md needs exactly one matrix:begin/end pair')
open(readme, 'w').write(s)
PY
