#!/bin/bash
# Build the guest kernel: tinyconfig + config fragments, merged with the tree's
# merge_config.sh, checked, then built with ccache.
# Usage: kernel.sh [VARIANT]   (VARIANT selects config/variant-VARIANT.config)
set -euo pipefail
. "$(dirname "$0")/common.sh"

variant=${1:-default}
out=$(kout "$variant")
frags=("$top/config/guest.config")
# What the selftests need; LOCKDOWN_SELFTESTS_CONFIG names another list
# (check-old-kernel.sh: today's tests' needs, on an older series' tree).
tests_config=${LOCKDOWN_SELFTESTS_CONFIG:-$tree/tools/testing/selftests/lockdown/config}
[ -f "$tests_config" ] && frags+=("$tests_config")
[ "$variant" = default ] || frags+=("$top/config/variant-$variant.config")
for f in "${frags[@]}"; do [ -f "$f" ] || die "missing fragment $f"; done

# One module signing key for every kernel built here, so that a module
# signed once (the initramfs carries one set) verifies on every variant.
key=$build/keys/signing_key.pem
if [ ! -f "$key" ]; then
	mkdir -p "${key%/*}"
	openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-subj "/CN=kernel-lockdown test build key" \
		-addext "basicConstraints=critical,CA:FALSE" \
		-addext "keyUsage=digitalSignature" \
		-addext "subjectKeyIdentifier=hash" \
		-outform PEM -out "$key.tmp" -keyout "$key.tmp" 2>/dev/null
	mv "$key.tmp" "$key"
fi
echo "CONFIG_MODULE_SIG_KEY=\"$key\"" >"$build/keys/key.config"
frags+=("$build/keys/key.config")

mkdir -p "$out"
export CCACHE_DIR=${CCACHE_DIR:-$build/ccache}
kmake() { make -C "$tree" O="$out" CC="ccache gcc" -j"$(nproc)" "$@"; }

# Rebuild .config only when a fragment or the tree changed.
stamp=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)-$(git -C "$tree" rev-parse HEAD)
if [ "$(cat "$out/config.stamp" 2>/dev/null)" != "$stamp" ]; then
	log "configuring $variant"
	kmake -s tinyconfig >/dev/null
	KCONFIG_CONFIG="$out/.config" "$tree/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	kmake -s olddefconfig >/dev/null
	"$top/scripts/config-check.sh" "$out/.config" "${frags[@]}"
	echo "$stamp" >"$out/config.stamp"
fi

log "building $variant kernel in $out"
if ! kmake -s bzImage modules >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "kernel build failed: $out/build.log"
fi
grep -i 'warning:' "$out/build.log" >&2 || true
