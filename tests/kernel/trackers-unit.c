/* SPDX-License-Identifier: MIT */
/*
 * LTTng's tracker rules as the kernel consumer applies them (src/kernel/
 * tracker.c), without the kernel: the sets' text, which version applies to
 * a record by its time, which ids of a thread by its history, the empty set
 * (nothing recorded), the idle tasks (tid 0: pid 0, root), and a thread
 * nothing knows (left out, counted).
 */
#include "kernel/internal.h"
#include "../lib/check.h"

#include <errno.h>
#include <string.h>

#define SET(t, spec, ts) trawl_kernel_trackers_set(t, spec, strlen(spec), ts, err, sizeof(err))

static const struct trawl_kernel_ident proc5 = {.tgid = 5, .vpid = 1, .uid = 1000, .gid = 100,
						 .vuid = 0, .vgid = 0};
static const struct trawl_kernel_ident proc6 = {.tgid = 6, .vpid = 6, .uid = 0, .gid = 0,
						 .vuid = 0, .vgid = 0};

int main(void)
{
	struct trawl_kernel_trackers *t;
	struct trawl_kernel_ident id;
	uint64_t dropped, unknown;
	char err[TRAWL_KERNEL_ERR_LEN];

	CHECK(trawl_kernel_trackers_create(&t) == 0);
	/* bad text: unknown tracker, a value that is no number, one tracker twice */
	CHECK(SET(t, "bogus:1\n", 0) == -EINVAL && strstr(err, "bogus"));
	CHECK(SET(t, "pid:1x\n", 0) == -EINVAL);
	CHECK(SET(t, "pid:1,\n", 0) == -EINVAL);
	CHECK(SET(t, "pid:4294967296\n", 0) == -EINVAL);
	CHECK(SET(t, "pid:1\npid:2\n", 0) == -EINVAL);
	CHECK(trawl_kernel_trackers_attrs(t) == 0);

	/* no tracker restricts: everything is kept, nothing is looked up */
	CHECK(SET(t, "", 0) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 12345678, 10) == 1);

	/* thread 100 of process 5, 101 of process 6; a set given at the same time replaces the last */
	trawl_kernel_trackers_ident_add(t, 100, 0, &proc5);
	trawl_kernel_trackers_ident_add(t, 101, 0, &proc6);
	CHECK(SET(t, "pid:7,5\n", 0) == 0);
	CHECK(trawl_kernel_trackers_attrs(t) == 1u);
	CHECK(trawl_kernel_trackers_keep(t, 100, 10) == 1);
	CHECK(trawl_kernel_trackers_keep(t, 101, 10) == 0);
	/* from 1000 on: process 6 only, by its pid, and uid 0 */
	CHECK(SET(t, "pid:6\nuid:0\n", 1000) == 0);
	CHECK(trawl_kernel_trackers_attrs(t) == 5u);
	CHECK(trawl_kernel_trackers_keep(t, 100, 999) == 1);  /* made before the change */
	CHECK(trawl_kernel_trackers_keep(t, 100, 1000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 101, 500) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 101, 1500) == 1);
	/* thread 101 becomes uid 1000 at 2000 (setuid): its records from then on are left out */
	id = proc6;
	id.uid = 1000;
	trawl_kernel_trackers_ident_add(t, 101, 2000, &id);
	CHECK(trawl_kernel_trackers_keep(t, 101, 1999) == 1);
	CHECK(trawl_kernel_trackers_keep(t, 101, 2000) == 0);
	/* the vpid tracker sees process 5 as 1 */
	CHECK(SET(t, "vpid:1\n", 3000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 100, 3000) == 1);
	CHECK(trawl_kernel_trackers_keep(t, 101, 3000) == 0);
	/* the idle tasks: pid 0, root's ids */
	CHECK(SET(t, "pid:0\nuid:0\ngid:0\nvpid:0\n", 4000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 0, 4000) == 1);
	/* a thread nothing knows (no /proc entry, no BPF record): left out, counted */
	trawl_kernel_trackers_counts(t, &dropped, &unknown);
	CHECK(unknown == 0);
	CHECK(SET(t, "pid:5\n", 5000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 0x7ffffffe, 5000) == 0);
	trawl_kernel_trackers_counts(t, &dropped, &unknown);
	CHECK(unknown == 1);
	/* an empty set (untrack --all): nothing, the idle tasks neither */
	CHECK(SET(t, "uid:\n", 6000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 100, 6000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 0, 6000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 100, 5500) == 1);
	/* a thread's history keeps its newest changes, in time order whatever the arrival */
	trawl_kernel_trackers_ident_add(t, 300, 50, &proc6);
	trawl_kernel_trackers_ident_add(t, 300, 20, &proc5);
	CHECK(SET(t, "pid:5\n", 7000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 300, 7030) == 0);  /* process 6 since 50 */
	/* a thread's history grows as it changes, its newest 8 kept */
	for (int i = 0; i < 12; i++)
		trawl_kernel_trackers_ident_add(t, 400, 8000 + 10 * (uint64_t)i, i % 2 ? &proc6 : &proc5);
	CHECK(SET(t, "pid:5\n", 8000) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 400, 8110) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 400, 8100) == 1);
	CHECK(trawl_kernel_trackers_keep(t, 400, 8095) == 0);
	CHECK(trawl_kernel_trackers_keep(t, 400, 8005) == 1); /* before the oldest kept: that one */
	trawl_kernel_trackers_destroy(t);
	return CHECK_EXIT();
}
