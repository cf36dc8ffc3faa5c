/* SPDX-License-Identifier: MIT */
/*
 * ust-context.c - which contexts a user-space channel can record, checked
 * when they are added (`trawl add-context -u`), so that a bad name or a
 * counter this machine cannot count fails there, in one line, and not
 * silently in every app.
 *
 * perf:thread:NAME counters are probed with perf_event_open() as the user
 * whose apps will open them (the session's owner): in this daemon when it
 * runs as that user, else in a child that takes the owner's ids (root's
 * daemon serving another user's session). The owner can stop that child
 * (SIGSTOP: it is theirs once it took their ids), so the root daemon does
 * not wait for it: cmd-channel.c begins the probe as an owner job
 * (ust_counter_probe_begin(), as-owner.c) and adds the context once the
 * child has answered, within owner-ms.
 *
 * perf:cpu:NAME is refused for user space (as LTTng-UST does), and the
 * kernel domain offers it. A CPU-wide counter would need, in every app,
 * perf_event_paranoid <= 0 or CAP_PERFMON (the default here is 2), one fd
 * per CPU per counter, and a read of the counter of the CPU the thread is
 * on, which it may leave between the read and the record; and in per-user
 * buffers it would show each app what other users' processes did on that
 * CPU. The kernel domain reads it where the event happens, with the
 * privileges it already has.
 */
#include "sessiond/ust-internal.h"
#include "common/ids.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int probe(void *c)
{
	return trawl_ustctl_counter_probe(c);
}

/* In the owner job's child: the probe of counter @arg (its name), as 1 + its
 * errno (1: it opens), so that the job's own failures (negative) differ. */
static int probe_named(void *arg)
{
	struct trawl_ustctl_counter c;

	if (trawl_ustctl_counter_lookup(arg, &c))
		return 1; /* (unknown: ust_context_parse() says so in its line) */
	return 1 - trawl_ustctl_counter_probe(&c);
}

int ust_counter_probe_begin(struct sd_owner_job *j, const char *name, uid_t uid, gid_t gid,
			    int *probe_ret)
{
	int ret = sd_owner_begin(j, uid, gid, probe_named, (void *)name);

	if (ret == -EINPROGRESS || ret == -EUSERS) /* (-EUSERS: the owner's cap, as-owner.c) */
		return ret;
	return ust_counter_probe_result(ret, probe_ret);
}

int ust_counter_probe_result(int job_ret, int *probe_ret)
{
	if (job_ret <= 0)
		return job_ret ? job_ret : -EIO;
	*probe_ret = 1 - job_ret;
	return 0;
}

/* trawl_ustctl_counter_probe() as @uid/@gid: 0 or -errno. */
static int probe_as(const struct trawl_ustctl_counter *c, uid_t uid, gid_t gid)
{
	struct trawl_ids ids;

	trawl_ids_lookup(uid, gid, &ids);
	return trawl_ids_run(&ids, probe, (void *)c);
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static int add_counter(const struct trawl_domain_context *dc, const char *name, uid_t uid,
		       gid_t gid, struct trawl_ustctl_contexts *ctx, struct trawl_domain_err *err)
{
	struct trawl_ustctl_counter c;
	uint32_t i;
	int ret;

	if (trawl_ustctl_counter_lookup(name, &c)) {
		trawl_domain_err_set(err, "unknown perf counter '%s' (software counters: page-fault, "
					  "minor-faults, major-faults, context-switches, cpu-migrations, "
					  "task-clock, cpu-clock, alignment-faults, emulation-faults; hardware "
					  "ones by name or raw:rHEX:NAME)",
				     name);
		return -EINVAL;
	}
	for (i = 0; i < ctx->nr_counters; i++) {
		if (!strcmp(ctx->counters[i].name, c.name)) {
			trawl_domain_err_set(err, "perf counter '%s' is already recorded", name);
			return -EEXIST;
		}
	}
	if (ctx->nr_counters == TRAWL_USTCTL_MAX_COUNTERS) {
		trawl_domain_err_set(err, "a channel records at most %d perf counters",
				     TRAWL_USTCTL_MAX_COUNTERS);
		return -ENOSPC;
	}
	ret = dc->probed ? dc->probe_ret : probe_as(&c, uid, gid);
	if (ret == -ENODEV) {
		trawl_domain_err_set(err, "perf counter '%s' is not available on this machine: no hardware PMU",
				     name);
		return -EOPNOTSUPP;
	}
	if (ret == -EACCES || ret == -EPERM) {
		trawl_domain_err_set(err, "perf counter '%s' cannot be opened by uid %d: perf_event_paranoid "
					  "is %d (perf_event_open(2) needs <= 2 for a thread's own counters)",
				     name, (int)uid, paranoid_level());
		return -EACCES;
	}
	if (ret) {
		trawl_domain_err_set(err, "perf counter '%s' cannot be opened: %s", name, strerror(-ret));
		return ret;
	}
	ctx->counters[ctx->nr_counters++] = c;
	return 0;
}

_Static_assert(SD_MAX_APP_CTX == TRAWL_USTCTL_MAX_APP_CTX &&
		       SD_APP_CTX_NAME_MAX == TRAWL_USTCTL_APP_CTX_NAME_MAX,
	       "sessiond.h's application context limits are the app ABI's");

/* $app.PROVIDER:NAME: recorded after the counters, in the order added. */
static int add_app(const char *name, struct trawl_ustctl_contexts *ctx,
		   struct trawl_domain_err *err)
{
	uint32_t i;

	if (!trawl_ustctl_app_ctx_name_valid(name)) {
		trawl_domain_err_set(err, "invalid application context '%.*s' (wanted "
					  "$app.PROVIDER:NAME, each made of A-Z a-z 0-9 _ ., at most "
					  "%d bytes in all)",
				     TRAWL_USTCTL_APP_CTX_NAME_MAX, name, TRAWL_USTCTL_APP_CTX_NAME_MAX - 1);
		return -EINVAL;
	}
	for (i = 0; i < ctx->nr_app; i++) {
		if (!strcmp(ctx->app[i], name)) {
			trawl_domain_err_set(err, "context '%s' is already recorded", name);
			return -EEXIST;
		}
	}
	if (ctx->nr_app == TRAWL_USTCTL_MAX_APP_CTX) {
		trawl_domain_err_set(err, "a channel records at most %d application contexts",
				     TRAWL_USTCTL_MAX_APP_CTX);
		return -ENOSPC;
	}
	/* (valid: shorter than the buffer) */
	memcpy(ctx->app[ctx->nr_app++], name, strlen(name) + 1);
	return 0;
}

int ust_context_parse(const struct trawl_domain_context *dc, uid_t uid, gid_t gid,
		      struct trawl_ustctl_contexts *ctx, struct trawl_domain_err *err)
{
	const char *name = dc->name;
	uint32_t bit;

	if (!strncmp(name, "$app.", 5))
		return add_app(name, ctx, err);
	if (!strncmp(name, "perf:thread:", 12))
		return add_counter(dc, name + 12, uid, gid, ctx, err);
	if (!strncmp(name, "perf:cpu:", 9)) {
		/* Why not: the top comment. */
		trawl_domain_err_set(err, "user space records per-thread counters only: use "
					  "perf:thread:%s with -u, or perf:cpu:%s with -k (CPU-wide "
					  "counters in apps would need perf_event_paranoid <= 0)",
				     name + 9, name + 9);
		return -EINVAL;
	}
	if (trawl_ustctl_context_from_name(name, &bit)) {
		trawl_domain_err_set(err, "user-space tracing does not record '%s' (it records "
					  "vpid, vtid, pid, tid, procname, pthread_id, ppid, ip, prio, nice, "
					  "cgroup_ns, ipc_ns, mnt_ns, net_ns, pid_ns, time_ns, user_ns, "
					  "uts_ns, perf:thread:COUNTER)",
				     name);
		return -EOPNOTSUPP;
	}
	if (ctx->bits & bit) {
		trawl_domain_err_set(err, "context '%s' is already recorded", name);
		return -EEXIST;
	}
	ctx->bits |= bit;
	return 0;
}
