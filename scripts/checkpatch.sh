#!/bin/bash
# Run the tree's checkpatch.pl --strict over every patch of the series.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Whether every file that patch @1 adds is under a directory that an F:
# line of the tree's MAINTAINERS names (or is named by one itself).
new_files_maintained() {
	python3 - "$1" "$tree/MAINTAINERS" <<'PY'
import re, sys
patch, maint = open(sys.argv[1]).read(), open(sys.argv[2]).read()
dirs = [f for f in re.findall(r'^F:\s+(\S+)', maint, re.M)]
new = re.findall(r'^diff --git a/(\S+) b/\S+\nnew file mode', patch, re.M)
ok = all(any(f == d or (d.endswith('/') and f.startswith(d)) for d in dirs)
         for f in new)
sys.exit(0 if ok else 1)
PY
}

# From the tree: checkpatch caches CamelCase words in the git tree it runs in.
cd "$tree"
bad=0
for p in $(series_patches); do
	# On stdin: given a path git tracks, checkpatch lints it as a source file.
	# The tree is Debian's tarball with no upstream history, so a Fixes:
	# tag's commit can never be found in it: that one lookup is skipped.
	ignore=UNKNOWN_COMMIT_ID
	# A patch that only removes files leaves MAINTAINERS nothing to add;
	# one that adds a file still has to answer checkpatch's question,
	# unless MAINTAINERS already lists a directory of every file it adds.
	if ! grep -q '^new file mode' "$patches_dir/$p" ||
		new_files_maintained "$patches_dir/$p"; then
		ignore=$ignore,FILE_PATH_CHANGES
	fi
	if out=$("$tree/scripts/checkpatch.pl" --strict --quiet --no-tree \
		--ignore "$ignore" - <"$patches_dir/$p" 2>&1); then
		echo "ok   $p"
	else
		echo "FAIL $p"
		echo "$out" | sed 's/^/     /'
		bad=1
	fi
done
exit $bad
