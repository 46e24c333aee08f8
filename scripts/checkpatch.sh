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
	# FILE_PATH_CHANGES only asks whether MAINTAINERS needs a line for a
	# file added or removed; the series answers it in MAINTAINERS itself
	# (the lockdown entry covers its directories), not patch by patch.
	if out=$("$tree/scripts/checkpatch.pl" --strict --quiet --no-tree \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES \
		- <"$patches_dir/$p" 2>&1); then
		echo "ok   $p"
	else
		echo "FAIL $p"
		echo "$out" | sed 's/^/     /'
		bad=1
	fi
done
exit $bad
