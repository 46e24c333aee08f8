#!/bin/bash
# Run the tree's checkpatch.pl --strict over every patch of the series.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# From the tree: checkpatch caches CamelCase words in the git tree it runs in.
cd "$tree"
bad=0
for p in $(series_patches); do
	# On stdin: given a path git tracks, checkpatch lints it as a source file.
	# The tree is Debian's tarball with no upstream history, so a Fixes:
	# tag's commit can never be found in it: that one lookup is skipped.
	ignore=UNKNOWN_COMMIT_ID
	# A patch that only removes files leaves MAINTAINERS nothing to add;
	# one that adds a file still has to answer checkpatch's question.
	grep -q '^new file mode' "$patches_dir/$p" ||
		ignore=$ignore,FILE_PATH_CHANGES
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
