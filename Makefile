# Kernel lockdown for Debian's linux-source-6.1: entry points.
# Each target is a thin call into one script under scripts/.
SHELL := /bin/bash
LEVEL ?= none
export LEVEL
# CMD reaches the guest as typed: $(value CMD) is the text before make
# expands it ($f stays $f), quoted for the shell.
shell_quote = '$(subst ','\'',$(1))'

.PHONY: all deps tree patches kernel kernels initramfs run check checkpatch \
	manlint shellcheck bench readme check-build check-debug check-debian \
	check-debian-config check-all check-old \
	kexec-soak \
	kernel-path tree-path clean

all: check

deps:
	@scripts/deps.sh

tree: deps
	@scripts/tree.sh

patches:
	@scripts/patches.sh

kernel: tree
	@scripts/kernel.sh default

# default and every variant= of the scenarios (scripts/scenario.py reads
# them; a scenario that does not parse stops here).
kernels: tree
	@variants=$$(scripts/scenario.py list-variants) && \
		for v in $$variants; do scripts/kernel.sh $$v || exit 1; done

initramfs: kernel
	@scripts/initramfs.sh

run: initramfs
	@scripts/run.sh "$$LEVEL" $(call shell_quote,$(value CMD))

# S='none integrity' runs only those scenarios (tests/scenarios/order).
check: kernels initramfs checkpatch manlint shellcheck
	@scripts/check.sh $(S)

# The default kernel's scenarios again, on a kernel with KASAN, UBSAN,
# lockdep, KFENCE and DEBUG_ATOMIC_SLEEP (config/variant-debug.config).
# With 4-level paging: in 6.1, identify_cpu() clears the boot CPU's feature
# bits for a moment, and KASAN, asked then by an interrupt whether LA57 is
# on, takes a direct-map address for a wild one (TCG's "max" CPU has LA57).
check-debug: tree checkpatch
	@scripts/kernel.sh debug
	@scripts/initramfs.sh debug
	@LOCKDOWN_VARIANT=debug LOCKDOWN_TIMEOUT=$${LOCKDOWN_TIMEOUT:-900} \
		LOCKDOWN_EXTRA_CMDLINE=no5lvl scripts/check.sh

# The Debian tier: Debian 12's own userspace, systemd as init, on the
# series' kernel, at each level (scripts/check-debian.sh).  Not part of
# make check: it builds one more kernel and a root file system.
check-debian: tree
	@scripts/deps.sh
	@scripts/check-debian.sh $(L)

# The Debian tier on a kernel built with Debian's own config
# (scripts/kernel-debconfig.sh: make bindeb-pkg, the package installed in
# the root file system, Debian's initramfs).  About an hour cold on 2 cores.
check-debian-config: tree
	@scripts/deps.sh
	@LOCKDOWN_DEBIAN_KERNEL=debconf scripts/check-debian.sh $(L)

# The hunt for a rare hang of a kexec'd debug kernel (docs/measurements.md,
# "The kexec hang of a debug kernel"): one debug guest kexecs into its own
# kernel SOAK_COUNT times, at SOAK_LEVEL; a console silent for 300 s is
# taken for a hang, and the guest's state is recorded before it is stopped.
SOAK_COUNT ?= 30
SOAK_LEVEL ?= confidentiality
kexec-soak: tree
	@scripts/kernel.sh debug
	@scripts/initramfs.sh debug
	@LOCKDOWN_EXTRA_CMDLINE=no5lvl scripts/kexec-soak.sh -l "$(SOAK_LEVEL)" \
		debug "$(SOAK_COUNT)"

# Today's tests on the kernel of an older series (REV: a tag or commit of
# this repository, e.g. series-54, the series the outside review read):
# which tests catch what that series let through.
check-old: initramfs
	@scripts/check-old-kernel.sh "$(REV)" $(S)

# Every tier: what CI runs (.ci/run: check, then check-debug), and the
# build matrix.
check-all: check check-debug check-build

checkpatch: tree
	@scripts/checkpatch.sh

manlint: tree
	@scripts/manlint.sh

shellcheck: deps
	@scripts/shellcheck.sh

readme:
	@scripts/readme.sh

check-build: kernel
	@scripts/check-build.sh

bench: kernel initramfs
	@scripts/bench.sh

kernel-path:
	@source scripts/common.sh && echo "$$(kout default)/arch/x86/boot/bzImage"

tree-path:
	@source scripts/common.sh && echo "$$tree"

clean:
	@source scripts/common.sh && rm -rf "$$build"/{out-*,selftests,initramfs*,results,run,bench.config}

# The man page: make install-man [DESTDIR=/staging] [PREFIX=/usr/local]
PREFIX ?= /usr/local
.PHONY: install-man
install-man:
	install -D -m 644 man/kernel_lockdown.7 \
		"$(DESTDIR)$(PREFIX)/share/man/man7/kernel_lockdown.7"
