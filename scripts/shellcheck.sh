#!/bin/bash
# Every shell script of the project through shellcheck, at its default
# severity; .shellcheckrc says how sources are found and what is off.
set -euo pipefail
. "$(dirname "$0")/common.sh"

cd "$top"
files=(scripts/*.sh .ci/run tests/debian/run-tests.sh tests/workbench/*.sh
	tests/init tests/guest-tests)
if ! command -v shellcheck >/dev/null; then
	die "shellcheck is not installed (scripts/deps.sh installs it)"
fi
if shellcheck "${files[@]}"; then
	echo "shellcheck: ${#files[@]} scripts clean"
else
	die "shellcheck found the problems above"
fi
