// SPDX-License-Identifier: GPL-2.0
/*
 * A module built out of tree, as DKMS builds one: the Debian tier loads it
 * signed and unsigned to show which of the two lockdown lets in.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

static int __init ldt_dkms_init(void)
{
	pr_info("ldt_dkms: loaded\n");
	return 0;
}

static void __exit ldt_dkms_exit(void)
{
}

module_init(ldt_dkms_init);
module_exit(ldt_dkms_exit);
MODULE_DESCRIPTION("kernel-lockdown test: an out-of-tree module");
MODULE_LICENSE("GPL");
