#!/bin/bash
# Fail loudly when an option requested by a fragment did not survive
# olddefconfig (a missing dependency silently drops it).
# Usage: config-check.sh .config FRAGMENT...
set -euo pipefail
cfg=$1; shift
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	opt=${want#\# }; opt=${opt%%[= ]*}
	got=$(grep -E "^($opt=|# $opt is not set)" "$cfg" || echo "$opt absent")
	if [ "$got" != "$want" ]; then
		[ "$want" = "# $opt is not set" ] && [ "$got" = "$opt absent" ] && continue
		echo "config-check: wanted '$want', got '$got'" >&2
		bad=1
	fi
done < <(cat "$@")
[ $bad = 0 ] || { echo "config-check: requested options did not survive olddefconfig" >&2; exit 1; }
