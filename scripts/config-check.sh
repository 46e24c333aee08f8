#!/bin/bash
# Fail loudly when an option requested by a fragment did not survive
# olddefconfig (a missing dependency silently drops it). Fragments are read
# in order and a later one overrides an earlier one, as merge_config.sh does.
# Usage: config-check.sh .config FRAGMENT...
set -euo pipefail
cfg=$1; shift
declare -A want=()
order=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=* | "# CONFIG_"*" is not set") ;;
	*) continue ;;
	esac
	opt=${line#\# }; opt=${opt%%[= ]*}
	[ -n "${want[$opt]+x}" ] || order+=("$opt")
	want[$opt]=$line
done < <(cat "$@")

bad=0
for opt in "${order[@]}"; do
	got=$(grep -E "^($opt=|# $opt is not set)" "$cfg" || true)
	# An option that is off may also be absent (its dependencies are off).
	[ -z "$got" ] && [ "${want[$opt]}" = "# $opt is not set" ] && continue
	if [ "$got" != "${want[$opt]}" ]; then
		echo "config-check: wanted '${want[$opt]}', got '${got:-nothing}'" >&2
		bad=1
	fi
done
[ $bad = 0 ] || { echo "config-check: requested options did not survive olddefconfig" >&2; exit 1; }
