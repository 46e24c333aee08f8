// SPDX-License-Identifier: GPL-2.0
/*
 * Time security_locked_down() on its fast path: the reason asked for is
 * one the current level allows, as for almost every call on a running
 * system.  Built out of tree against each kernel that make bench compares.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/security.h>

static unsigned long calls = 2000000;
module_param(calls, ulong, 0444);

static int rounds = 5;
module_param(rounds, int, 0444);

/* The fastest of @rounds runs, in picoseconds per call. */
static u64 time_calls(enum lockdown_reason what, bool hook)
{
	u64 best = U64_MAX;
	int r;

	for (r = 0; r < rounds; r++) {
		unsigned long i;
		u64 start, ns;
		int ret = 0;

		start = ktime_get_ns();
		for (i = 0; i < calls; i++) {
			if (hook)
				ret |= security_locked_down(what);
			/* Keep the loop, and the call, from being folded away. */
			barrier();
		}
		ns = ktime_get_ns() - start;
		if (ret)
			pr_warn("lockdown_bench: reason %d refused\n", what);
		best = min(best, ns * 1000 / calls);
		cond_resched();
	}
	return best;
}

static int __init lockdown_bench_init(void)
{
	/* A confidentiality reason: allowed at none and at integrity. */
	u64 loop = time_calls(LOCKDOWN_KCORE, false);
	u64 call = time_calls(LOCKDOWN_KCORE, true);

	pr_info("lockdown_bench: calls=%lu ps_per_check=%llu loop_ps=%llu\n",
		calls, call > loop ? call - loop : 0, loop);
	return 0;
}

static void __exit lockdown_bench_exit(void)
{
}

module_init(lockdown_bench_init);
module_exit(lockdown_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Cost of one lockdown check on its fast path");
