/* SPDX-License-Identifier: MIT */
/*
 * kernel-refresh.c - what changes while tracing and the converter must
 * know: trawl's own threads (left out of the trace, notrace.c) and the BPF
 * programs that complete the channels' records (bpf.c), taken again every
 * second.
 */
#include "common/common.h"
#include "common/log.h"
#include "consumerd/kernel-consumer-internal.h"

#include <stdio.h>
#include <time.h>

/*
 * The BPF programs that complete what channels record (bpf.c): attached
 * when an instance has the event enabled. Checked at setup and again with
 * the hidden set, every second, for events enabled while tracing.
 */
/* Whether @ch records a process id context (or a namespace, taken from
 * the process or parent): a thread gone by conversion needs its fork record. */
static int needs_ids(const struct kchan *ch)
{
	int i;

	for (i = 0; i < ch->nctx; i++)
		if (ch->ctx[i] == TRAWL_KCTX_PID || ch->ctx[i] == TRAWL_KCTX_VPID ||
		    ch->ctx[i] == TRAWL_KCTX_PPID ||
		    (ch->ctx[i] >= TRAWL_KCTX_CGROUP_NS && ch->ctx[i] <= TRAWL_KCTX_UTS_NS))
			return 1;
	return 0;
}

static void bpf_update(struct kconsumer *k)
{
	const char *inst[MAX_CHANNELS];
	char rel[512], buf[8];
	int i;

	if (!k->bpf)
		return;
	for (i = 0; i < k->nch; i++)
		inst[i] = k->ch[i].instance;
	if (trawl_kernel_syscall_bpf_update(k->bpf, inst, k->nch, &k->sc_state) < 0)
		trawl_log(TRAWL_LOG_WARN, "kernel consumer: cannot attach the syscall BPF programs: "
			"string arguments are left empty");
	for (i = 0; i < k->nch; i++) {
		if (((!trawl_path_fmt(rel, sizeof(rel), "%s/events/sched/sched_process_fork/enable",
				      k->ch[i].instance) &&
		      trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0 && buf[0] != '0') ||
		     needs_ids(&k->ch[i])) &&
		    trawl_kernel_bpf_attach_fork(k->bpf) < 0)
			trawl_log(TRAWL_LOG_WARN, "kernel consumer: cannot attach the sched_process_fork "
				"BPF program: its process ids come from /proc");
	}
}

void kcons_bpf_update_cb(void *arg)
{
	bpf_update(arg);
}

/*
 * trawl's own threads (notrace.c) and the BPF programs channels need, taken
 * again every second: by the refresher thread once it runs (refresh.c says
 * why), here before that (the first, before tracing starts) and without it.
 */
void kcons_refresh(struct kconsumer *k)
{
	struct timespec now;
	uint64_t ns, now_ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	/* a buffer overflows when this gap outlasts it: the stats say how long it got */
	if (k->round_at && ns - k->round_at > k->max_gap_ns)
		k->max_gap_ns = ns - k->round_at;
	k->round_at = ns;
	if (k->refresher) {
		trawl_kernel_refresher_take(k->refresher, &k->hidden);
		return;
	}
	if (k->hidden_at && ns - k->hidden_at < 1000000000u)
		return;
	trawl_kernel_hidden_collect(&k->hidden);
	k->hidden_at = ns;
	bpf_update(k);
	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	if (now_ns - ns > k->max_refresh_ns)
		k->max_refresh_ns = now_ns - ns;
}
