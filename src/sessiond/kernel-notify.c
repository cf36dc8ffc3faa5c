/* SPDX-License-Identifier: MIT */
/*
 * kernel-notify.c - triggers whose event-rule-matches condition is on kernel
 * events (tracepoints, system calls, kprobes and uprobes): each gets a kernel notifier
 * (src/kernel/notify.c) when it is registered, whose fds the loop watches;
 * each event read is a hit of the trigger (triggers.c), with its captures.
 * A trigger that cannot be watched is not registered: the client is told
 * why (a filter the kernel refuses, perf_event_open failing).
 *
 * Kernel triggers are the root daemon's only, for root and the members of
 * group 'tracing' (triggers.c condition_check()), who may see every kernel
 * event: their hits carry the trigger's owner as the uid the event is
 * seen by (a kernel event belongs to no app).
 */
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernel/kernel.h"

struct knotifier {
	struct knotifier *next;
	uint64_t trig_id;
	uid_t owner;
	struct trawl_kernel_notifier *n; /* owned */
	uint64_t lost_said;              /* lost events already logged */
};

static struct knotifier *knotifiers;

static void hit(uint64_t ts_ns, uint32_t nr_captures, const char *captures, void *arg)
{
	const struct knotifier *k = arg;

	sd_trigger_hit(k->trig_id, k->owner, ts_ns, nr_captures, captures);
}

static void knotifier_read(int fd, short revents, void *arg)
{
	struct knotifier *k = arg;
	uint64_t lost;

	(void)revents;
	trawl_kernel_notifier_read(k->n, fd, hit, k);
	lost = trawl_kernel_notifier_lost(k->n);
	if (lost != k->lost_said) {
		sd_warn("kernel trigger %llu: %llu events lost (its rings were full)",
		       (unsigned long long)k->trig_id, (unsigned long long)(lost - k->lost_said));
		sd_trigger_discarded(k->trig_id, k->owner, lost - k->lost_said);
		k->lost_said = lost;
	}
}

static void knotifier_free(struct knotifier *k)
{
	const int *fds;
	uint32_t i, nr = trawl_kernel_notifier_fds(k->n, &fds);

	for (i = 0; i < nr; i++)
		sd_watch_del(fds[i]);
	trawl_kernel_notifier_destroy(k->n);
	free(k);
}

int sd_kernel_notify_add(uint64_t trig_id, uid_t owner, uint32_t event_kind, const char *pattern,
			 const char *target, const char *filter, const char *captures,
			 const struct sd_uprobe_located *located, struct sd_reply *r)
{
	struct trawl_kernel_trigger_probe probe = {
		.uprobe = event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE,
		.target = target,
		.uid = owner,
		.gid = (gid_t)owner,
		.fd = -1,
	};
	char err[TRAWL_KERNEL_ERR_LEN];
	struct knotifier *k;
	const int *fds;
	uint32_t i, nr;
	int ret;

	if (probe.uprobe && located)
		probe.located_ret = sd_uprobe_located_get(located, &probe.fd, &probe.sites);
	k = calloc(1, sizeof(*k));
	if (!k) {
		if (probe.fd >= 0)
			close(probe.fd);
		return sd_fail(r, -ENOMEM, "failed to register trigger: out of memory");
	}
	k->trig_id = trig_id;
	k->owner = owner;
	if (event_kind == TRAWL_CTL_EVENT_PROBE || event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE)
		ret = trawl_kernel_notifier_create_probe(&probe, captures, &k->n, err, sizeof(err));
	else
		ret = trawl_kernel_notifier_create(pattern, event_kind == TRAWL_CTL_EVENT_SYSCALL,
						   filter, captures, &k->n, err, sizeof(err));
	if (ret) {
		free(k);
		return sd_fail(r, ret, "failed to register trigger: %s", err);
	}
	nr = trawl_kernel_notifier_fds(k->n, &fds);
	for (i = 0; i < nr; i++) {
		if (sd_watch_add(fds[i], knotifier_read, k)) {
			while (i--)
				sd_watch_del(fds[i]);
			trawl_kernel_notifier_destroy(k->n);
			free(k);
			return sd_fail(r, -ENOMEM, "failed to register trigger: out of memory");
		}
	}
	k->next = knotifiers;
	knotifiers = k;
	return 0;
}

void sd_kernel_notify_remove(uint64_t trig_id)
{
	struct knotifier **pp, *k;

	for (pp = &knotifiers; (k = *pp); pp = &k->next) {
		if (k->trig_id == trig_id) {
			*pp = k->next;
			knotifier_free(k);
			return;
		}
	}
}

void sd_kernel_notify_fini(void)
{
	while (knotifiers) {
		struct knotifier *k = knotifiers;

		knotifiers = k->next;
		knotifier_free(k);
	}
}
