/* SPDX-License-Identifier: MIT */
/*
 * perf counter contexts on kernel events (`add-context -k -t perf:cpu:X`).
 *
 * An ftrace record cannot carry a counter value, and without a kernel module
 * nothing can read a counter inside the tracepoint. perf can: a sample of a
 * group member with PERF_SAMPLE_READ and PERF_FORMAT_GROUP carries the values
 * of every event of its group, read at the moment of the sample
 * (perf_output_read_group() reads each active sibling first). So a channel
 * with perf:cpu contexts is recorded through perf instead of its tracefs
 * instance; the instance stays the channel's configuration (enabled events,
 * filters, buffer size), read once when the consumer opens the channel, with
 * its own tracing off.
 *
 * Per CPU N (cpu-wide: pid -1, cpu N):
 *
 *   group 0:  leader = counter 0 (counting, disabled until start)
 *             members = counters 1..nc-1, then tracepoints 0..15
 *   group 1:  its own counters 0..nc-1, then tracepoints 16..31
 *   ...
 *
 * Tracepoint events (PERF_TYPE_TRACEPOINT, config = the id in tracefs) sample
 * every hit (sample_period 1; the software-event path never throttles) with
 * PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_RAW on CLOCK_MONOTONIC
 * (the clock of the tracefs path and of user space: merged views stay
 * ordered), and all of one CPU's tracepoint events write into one mmap ring
 * (PERF_EVENT_IOC_SET_OUTPUT). The RAW data of a tracepoint sample is the
 * ftrace record (common header + fields, same layout: the kernel builds both
 * from the same event class), so convert.c turns it into a CTF event as it
 * does a page's record, with the counters (the first nc values of the group
 * read) as u64 context fields.
 *
 * Why several groups: a sample carries 8 bytes for every member of its group,
 * tracepoints included (their own counts, which we do not need), so one group
 * per CPU would make `--syscall` (720 events) samples 5.8 KiB each, and
 * `--all` (2,300 events) cannot be one group at all (perf refuses a group read
 * over 16 KiB). Groups of 16 tracepoints keep a sample's read to at most
 * (16 + nc + 1) * 8 bytes, at the price of nc counters per 16 events (each
 * counts every page fault or context switch of the CPU once). Counters of
 * different groups start at slightly different moments (one ioctl per
 * group), so at each start the consumer reads every group and offsets groups
 * 1.. onto group 0 (calibrate(): exact unless the CPU never stays quiet for
 * three reads); should an offset still be off, per CPU a value is never
 * reported below the previous one. With at most 16 enabled tracepoints (one
 * group) the values are exact with no calibration.
 *
 * What differs from the tracefs path: the events are fixed at the first start
 * (the groups are opened once, by the consumer; the session then switches the
 * instance's own events off, and the daemon refuses enable-event); overwrite
 * channels and snapshots are refused at add-context (perf's backward rings are
 * not read here); the consumer itself is filtered out in the kernel with a
 * `common_pid !=` filter (its reads of the rings would otherwise feed them),
 * trawl's other processes as the converter meets them (notrace.c). Lost samples (PERF_RECORD_LOST) go into events_discarded.
 *
 * Cost (bench/kernel, 2 M getppid() on CPU 0, sys_enter/exit_getppid, one
 * perf:cpu:page-fault context, medians of 3 on a loaded 2-core VM, two runs):
 * +790 and +599 ns per event, 0 lost, 16 bytes/event on disk, against
 * +327 and +213 for the same channel through ftrace and +857 and +683 for
 * `perf record -a` (which lost 22 K and 107 K events): the price is perf's
 * sample path (and the group read), paid only by channels with counters.
 *
 * The ring protocol (include/uapi/linux/perf_event.h): the kernel writes
 * records, then publishes data_head; we load data_head with acquire order
 * (pairs with the kernel's barrier before its data_head store: records below
 * head are complete), read records up to head, then store data_tail with
 * release order (pairs with the kernel's read of data_tail before it reuses
 * space: our reads of the records are done before it may overwrite them).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GROUP_TRACEPOINTS 16
#define FILTER_MAX 4096

/* "perf:cpu:X" -> type/config; -ENOENT (unknown X) or -EINVAL (not perf:cpu:). */
static int counter_lookup(const char *ctx, uint32_t *type, uint64_t *config)
{
	if (strncmp(ctx, "perf:cpu:", 9))
		return -EINVAL;
	return trawl_perf_counter_lookup(ctx + 9, type, config);
}

int trawl_kernel_perf_field_name(const char *ctx, char *buf, size_t len)
{
	size_t i;
	int ret = trawl_path_fmt(buf, len, "%s", ctx);

	for (i = 0; buf[i]; i++)
		if (buf[i] == ':' || buf[i] == '-')
			buf[i] = '_';
	return ret;
}

static int perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void counter_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->read_format = PERF_FORMAT_GROUP;
	/* every member of a group must use the leader's clock */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* One line saying why counter @name (the part after perf:cpu:) cannot be opened. */
static void open_error(const char *name, uint32_t type, int e, char *err, size_t errlen)
{
	int hw = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;

	if (hw && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL))
		trawl_msg_fmt(err, errlen,
			      "perf counter '%s' is not available on this machine: no hardware "
			      "PMU (perf_event_open: %s)",
			      name, strerror(e));
	else if (e == EACCES || e == EPERM)
		trawl_msg_fmt(err, errlen,
			      "perf counter '%s': perf_event_open: %s (cpu-wide counters need "
			      "root or CAP_PERFMON)",
			      name, strerror(e));
	else
		trawl_msg_fmt(err, errlen,
			      "perf counter '%s' is not available on this machine "
			      "(perf_event_open: %s)",
			      name, strerror(e));
}

int trawl_kernel_perf_counter_check(const char *ctx, char *err, size_t errlen)
{
	struct perf_event_attr a;
	uint32_t type;
	uint64_t config;
	int fd, ret;

	if (!strncmp(ctx, "perf:thread:", 12)) {
		trawl_msg_fmt(err, errlen,
			      "kernel context \"%s\": per-thread counters are not supported on "
			      "kernel channels (use perf:cpu:%s)",
			      ctx, ctx + 12);
		return -EOPNOTSUPP;
	}
	ret = counter_lookup(ctx, &type, &config);
	if (ret < 0) {
		trawl_msg_fmt(
			err, errlen,
			"unknown perf counter '%s' (perf:cpu: then cpu-clock, task-clock, "
			"page-fault, major-faults, minor-faults, context-switches, cpu-migrations, "
			"alignment-faults, emulation-faults, a hardware counter or raw:rHEX:NAME)",
			strncmp(ctx, "perf:cpu:", 9) ? ctx : ctx + 9);
		return -EINVAL;
	}
	counter_attr(&a, type, config);
	a.disabled = 1;
	fd = perf_open(&a, 0, -1);
	if (fd < 0) {
		ret = -errno;
		open_error(ctx + 9, type, -ret, err, errlen);
		/* a counter this machine lacks is "not supported here", as in user space */
		return ret == -ENOENT || ret == -ENODEV ? -EOPNOTSUPP : ret;
	}
	close(fd);
	return 0;
}

/* ---- the recording ---------------------------------------------------------- */

struct tp {
	uint16_t id;
	char *filter;        /* owned: the instance's filter, and not the consumer */
};

struct pcpu {
	int *fds;            /* every fd of this CPU, nfds of them; owned */
	int nfds;
	int *leaders;        /* fd of each group's leader (in fds) */
	int64_t *off;        /* ngroups x nc: added to a group's counters */
	uint64_t last[TRAWL_KCTX_PERF_MAX]; /* the last values reported */
	struct perf_event_mmap_page *meta;  /* mapped ring, NULL: none */
	uint8_t *data;
	size_t data_size;    /* bytes, a power of two */
	size_t map_len;
	int ring_fd;         /* -1: no ring (offline CPU, or no tracepoint) */
	int flush_fd;        /* dummy event writing COMM records into the ring, -1: none */
	int heap;            /* meta and data are malloc'd (trawl_kernel_perf_create_fake) */
};

struct trawl_kernel_perf {
	int nc;
	uint32_t type[TRAWL_KCTX_PERF_MAX];
	uint64_t config[TRAWL_KCTX_PERF_MAX];
	char names[TRAWL_KCTX_PERF_MAX][64];
	struct tp *tps;      /* owned */
	int ntp;
	int ngroups;
	uint16_t *group_of;  /* 65536 entries: ftrace id -> group; owned */
	int ncpus;
	struct pcpu *cpus;   /* owned */
	uint8_t rec[65536];  /* a record that wraps around the ring's end, copied */
};

/* Reads the instance's enabled tracepoints (set_event) and their filters. */
static int load_tracepoints(struct trawl_kernel_perf *p, const char *inst, pid_t hide, char *err,
			    size_t errlen)
{
	size_t cap = 1u << 20;
	char *buf = malloc(cap), *line, *save = NULL;
	int ret, n = 0;

	if (!buf)
		return -ENOMEM;
	{
		char rel[512];

		ret = trawl_path_fmt(rel, sizeof(rel), "%s/set_event", inst);
		if (!ret)
			ret = trawl_kernel_read_file(rel, buf, cap);
	}
	if (ret < 0) {
		trawl_msg_fmt(err, errlen, "cannot read the channel's enabled events: %s",
			      strerror(-ret));
		free(buf);
		return ret;
	}
	for (line = buf; *line; line++)
		n += *line == '\n';
	p->tps = calloc((size_t)n + 1, sizeof(*p->tps));
	if (!p->tps) {
		free(buf);
		return -ENOMEM;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), rel[768], val[64], filt[FILTER_MAX];
		struct tp *t = &p->tps[p->ntp];

		if (!colon)
			continue;
		*colon = '/';
		/* set_event's names are folder names: both paths fit in 768 bytes or neither. */
		if (trawl_path_fmt(rel, sizeof(rel), "%s/events/%s/id", inst, line) ||
		    trawl_kernel_read_file(rel, val, sizeof(val)) <= 0)
			continue; /* gone (a removed probe): nothing to record */
		t->id = (uint16_t)strtoul(val, NULL, 10);
		if (trawl_path_fmt(rel, sizeof(rel), "%s/events/%s/filter", inst, line) ||
		    trawl_kernel_read_file(rel, filt, sizeof(filt)) <= 0 ||
		    !strncmp(filt, "none", 4))
			filt[0] = '\0';
		filt[strcspn(filt, "\n")] = '\0';
		/* the consumer's own events (its polls, its reads) would feed themselves */
		if ((filt[0] ? asprintf(&t->filter, "(%s) && common_pid != %d", filt, (int)hide)
			     : asprintf(&t->filter, "common_pid != %d", (int)hide)) < 0) {
			t->filter = NULL;
			free(buf);
			return -ENOMEM;
		}
		p->ntp++;
	}
	free(buf);
	return 0;
}

/* Makes room for @need more fds: raises RLIMIT_NOFILE (root may raise the hard limit too). */
static void raise_nofile(size_t need)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_cur >= need + 256)
		return;
	r.rlim_cur = need + 256;
	if (r.rlim_max < r.rlim_cur)
		r.rlim_max = r.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &r) < 0 && getrlimit(RLIMIT_NOFILE, &r) == 0) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int cpu_map(struct pcpu *c, size_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t pages = 2;

	while (pages * 2 * (size_t)pg <= bytes && pages < (1u << 20))
		pages *= 2;
	c->data_size = pages * (size_t)pg;
	c->map_len = c->data_size + (size_t)pg;
	c->meta = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->ring_fd, 0);
	if (c->meta == MAP_FAILED) {
		c->meta = NULL;
		return -errno;
	}
	c->data = (uint8_t *)c->meta + pg;
	return 0;
}

/*
 * The kernel writes a PERF_RECORD_LOST only before the next record that
 * fits, so the losses of a ring's last burst stay in the kernel when no
 * event comes after them (measured: 40 K of 200 K flood samples were neither
 * recorded nor counted). A dummy event with comm=1 on the same ring lets
 * trawl_kernel_perf_flush_lost() make that next record: a COMM record of our
 * own, which the reader skips. Without it the last losses go uncounted.
 */
static void flush_open(struct pcpu *c, int cpu)
{
	struct perf_event_attr a;
	int fd;

	counter_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.read_format = 0;
	a.comm = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	fd = perf_open(&a, cpu, -1);
	if (fd < 0)
		return;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->ring_fd) < 0) {
		close(fd);
		return;
	}
	c->fds[c->nfds++] = fd;
	c->flush_fd = fd;
}

/* Opens CPU @cpu's groups. -ENODEV: the CPU is offline (left empty). */
static int cpu_open(struct trawl_kernel_perf *p, struct pcpu *c, int cpu, uint64_t bytes,
		    char *err, size_t errlen)
{
	struct perf_event_attr a;
	int g, j, fd;

	c->ring_fd = -1;
	c->flush_fd = -1;
	c->fds = calloc((size_t)(p->ngroups * p->nc + p->ntp + 1), sizeof(int));
	c->leaders = calloc((size_t)p->ngroups, sizeof(int));
	c->off = calloc((size_t)(p->ngroups * p->nc), sizeof(int64_t));
	if (!c->fds || !c->leaders || !c->off)
		return -ENOMEM;
	for (g = 0; g < p->ngroups; g++) {
		for (j = 0; j < p->nc; j++) {
			counter_attr(&a, p->type[j], p->config[j]);
			a.disabled = j == 0; /* the leader starts the group */
			fd = perf_open(&a, cpu, j ? c->leaders[g] : -1);
			if (fd < 0) {
				int e = errno;

				if (e == ENODEV && cpu > 0)
					return -ENODEV;
				if (e == EMFILE || e == ENFILE)
					trawl_msg_fmt(
						err, errlen,
						"perf: too many open files for %d counters and "
						"%d events per CPU (perf_event_open: %s)",
						p->ngroups * p->nc, p->ntp, strerror(e));
				else
					open_error(p->names[j] + 9, p->type[j], e, err, errlen);
				return -e;
			}
			c->fds[c->nfds++] = fd;
			if (j == 0)
				c->leaders[g] = fd;
		}
		for (j = g * GROUP_TRACEPOINTS; j < p->ntp && j < (g + 1) * GROUP_TRACEPOINTS; j++) {
			const struct tp *t = &p->tps[j];

			counter_attr(&a, PERF_TYPE_TRACEPOINT, t->id);
			a.sample_period = 1;
			a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_RAW;
			a.sample_id_all = 1; /* PERF_RECORD_LOST gets a time too */
			a.watermark = 1;
			a.wakeup_watermark = (uint32_t)TRAWL_MIN(bytes / 4, (uint64_t)1 << 30);
			fd = perf_open(&a, cpu, c->leaders[g]);
			if (fd < 0) {
				int e = errno;

				trawl_msg_fmt(err, errlen,
					      "perf: cannot open tracepoint id %u on CPU %d: %s%s",
					      t->id, cpu, strerror(e),
					      e == EMFILE ? " (too many open files)" : "");
				return -e;
			}
			c->fds[c->nfds++] = fd;
			if (c->ring_fd < 0) {
				int ret;

				c->ring_fd = fd;
				ret = cpu_map(c, bytes);
				if (ret < 0) {
					trawl_msg_fmt(err, errlen,
						      "perf: cannot map the ring of CPU %d: %s",
						      cpu, strerror(-ret));
					return ret;
				}
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->ring_fd) < 0) {
				trawl_msg_fmt(err, errlen, "perf: PERF_EVENT_IOC_SET_OUTPUT: %s",
					      strerror(errno));
				return -errno;
			}
			if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, t->filter) < 0) {
				trawl_msg_fmt(err, errlen,
					      "perf: the kernel refused the filter \"%s\": %s",
					      t->filter, strerror(errno));
				return -errno;
			}
		}
	}
	if (c->ring_fd >= 0)
		flush_open(c, cpu);
	return 0;
}

static void cpu_close(struct pcpu *c)
{
	int i;

	if (c->heap) {
		free(c->meta);
		free(c->data);
	} else if (c->meta) {
		munmap(c->meta, c->map_len);
	}
	for (i = 0; i < c->nfds; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	free(c->leaders);
	free(c->off);
	memset(c, 0, sizeof(*c));
	c->ring_fd = -1;
	c->flush_fd = -1;
}

int trawl_kernel_perf_create(const char *instance_rel, char (*ctxs)[64], int nc, int ncpus,
			     uint64_t buffer_bytes, pid_t hide, struct trawl_kernel_perf **out,
			     char *err, size_t errlen)
{
	struct trawl_kernel_perf *p;
	int i, ret;

	if (nc <= 0 || nc > TRAWL_KCTX_PERF_MAX || ncpus <= 0)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nc = nc;
	for (i = 0; i < nc; i++) {
		if (trawl_path_fmt(p->names[i], sizeof(p->names[i]), "%s", ctxs[i]) ||
		    counter_lookup(ctxs[i], &p->type[i], &p->config[i]) < 0) {
			trawl_msg_fmt(err, errlen, "unknown perf counter '%s'", ctxs[i]);
			ret = -EINVAL;
			goto err_free;
		}
	}
	ret = load_tracepoints(p, instance_rel, hide, err, errlen);
	if (ret < 0)
		goto err_free;
	p->ngroups = p->ntp ? (p->ntp + GROUP_TRACEPOINTS - 1) / GROUP_TRACEPOINTS : 1;
	p->group_of = malloc(65536 * sizeof(*p->group_of));
	p->cpus = calloc((size_t)ncpus, sizeof(*p->cpus));
	if (!p->group_of || !p->cpus) {
		ret = -ENOMEM;
		goto err_free;
	}
	memset(p->group_of, 0xff, 65536 * sizeof(*p->group_of));
	for (i = 0; i < p->ntp; i++)
		p->group_of[p->tps[i].id] = (uint16_t)(i / GROUP_TRACEPOINTS);
	p->ncpus = ncpus;
	raise_nofile((size_t)ncpus * (size_t)(p->ngroups * nc + p->ntp));
	for (i = 0; i < ncpus; i++) {
		ret = cpu_open(p, &p->cpus[i], i, buffer_bytes, err, errlen);
		if (ret == -ENODEV) {
			cpu_close(&p->cpus[i]);
			continue;
		}
		if (ret < 0)
			goto err_free;
	}
	*out = p;
	return 0;

err_free:
	trawl_kernel_perf_destroy(p);
	return ret;
}

/*
 * Closing the last perf event of a tracepoint waits for a grace period
 * (tracepoint_synchronize_unregister(), under the kernel's event_mutex, so
 * closing from several threads does not help): the 720 syscall events of
 * `--syscall '*'` took 25 s to close, and the session's destroy waited for
 * it. With many tracepoints, a child holding the same perf files takes the
 * last references (and the waits) after we are gone; our own closes are then
 * quick. The child keeps nothing else open (the control socket's end of file
 * tells the session we are done) and init reaps it.
 */
static void release_in_child(struct trawl_kernel_perf *p)
{
	int sync[2], fd, cpu, i;
	long maxfd = sysconf(_SC_OPEN_MAX);
	uint8_t *keep;
	pid_t pid;
	char c;

	if (p->ntp < 64 || maxfd <= 0 || pipe2(sync, O_CLOEXEC) < 0)
		return;
	keep = calloc((size_t)maxfd, 1);
	if (!keep) {
		close(sync[0]);
		close(sync[1]);
		return;
	}
	for (cpu = 0; cpu < p->ncpus; cpu++)
		for (i = 0; i < p->cpus[cpu].nfds; i++)
			if (p->cpus[cpu].fds[i] >= 0 && p->cpus[cpu].fds[i] < maxfd)
				keep[p->cpus[cpu].fds[i]] = 1;
	keep[sync[0]] = 1;
	pid = fork();
	if (pid == 0) {
		for (fd = 0; fd < maxfd; fd++)
			if (!keep[fd])
				close(fd);
		/* wait until the parent closed its copies, then drop the last ones */
		while (read(sync[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	free(keep);
	close(sync[0]);
	/* sync[1] closes when this process exits, after it closed its perf files */
	if (pid < 0)
		close(sync[1]);
}

void trawl_kernel_perf_destroy(struct trawl_kernel_perf *p)
{
	int i;

	if (!p)
		return;
	release_in_child(p);
	for (i = 0; p->cpus && i < p->ncpus; i++)
		cpu_close(&p->cpus[i]);
	free(p->cpus);
	free(p->group_of);
	for (i = 0; p->tps && i < p->ntp; i++)
		free(p->tps[i].filter);
	free(p->tps);
	free(p);
}

int trawl_kernel_perf_flush_lost(struct trawl_kernel_perf *p)
{
	cpu_set_t old, one;
	char name[17] = "";
	int i, pinned = sched_getaffinity(0, sizeof(old), &old) == 0, done = 0;

	if (prctl(PR_GET_NAME, name) < 0)
		return -errno;
	for (i = 0; i < p->ncpus; i++) {
		if (p->cpus[i].flush_fd < 0)
			continue;
		CPU_ZERO(&one);
		CPU_SET(i, &one);
		/* the COMM record goes to the events of the CPU we run on */
		if (!pinned || sched_setaffinity(0, sizeof(one), &one) < 0)
			continue;
		prctl(PR_SET_NAME, name);
		done++;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return done;
}

int trawl_kernel_perf_poll_fd(const struct trawl_kernel_perf *p, int cpu)
{
	return cpu < p->ncpus && p->cpus[cpu].meta ? p->cpus[cpu].ring_fd : -1;
}

/* Reads group @g's counters (PERF_FORMAT_GROUP: u64 nr, then u64 values). */
static int group_read(const struct trawl_kernel_perf *p, const struct pcpu *c, int g, uint64_t *v)
{
	uint64_t buf[1 + TRAWL_KCTX_PERF_MAX + GROUP_TRACEPOINTS];
	ssize_t n = read(c->leaders[g], buf, sizeof(buf));

	if (n < (ssize_t)(8 * (1 + (size_t)p->nc)) || buf[0] < (uint64_t)p->nc)
		return -EIO;
	memcpy(v, buf + 1, (size_t)p->nc * 8);
	return 0;
}

/*
 * Offsets groups 1.. of a CPU onto group 0: reads group 0, group g, group 0
 * again, until the two reads of group 0 agree (nothing was counted in
 * between, so group g's read is of the same moment), at most 100 times.
 * The reads run on the CPU itself: local reads need no IPI, and while we
 * run there nothing else can fault or switch on it, so the window is a few
 * hundred ns. Measured before: reading from the other CPU under load, an
 * offset was off by hundreds of page faults.
 */
static void calibrate(struct trawl_kernel_perf *p, struct pcpu *c, int cpu)
{
	uint64_t a[TRAWL_KCTX_PERF_MAX], b[TRAWL_KCTX_PERF_MAX], a2[TRAWL_KCTX_PERF_MAX];
	cpu_set_t old, one;
	int g, j, tries, pinned;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pinned = sched_getaffinity(0, sizeof(old), &old) == 0 &&
		 sched_setaffinity(0, sizeof(one), &one) == 0;
	for (g = 1; g < p->ngroups; g++) {
		for (tries = 0; tries < 100; tries++) {
			if (group_read(p, c, 0, a) < 0 || group_read(p, c, g, b) < 0 ||
			    group_read(p, c, 0, a2) < 0)
				break;
			if (!memcmp(a, a2, (size_t)p->nc * 8))
				break;
		}
		for (j = 0; j < p->nc; j++)
			c->off[g * p->nc + j] = (int64_t)(a[j] - b[j]);
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
}

int trawl_kernel_perf_enable(struct trawl_kernel_perf *p, int on)
{
	int i, g;

	for (i = 0; i < p->ncpus; i++) {
		struct pcpu *c = &p->cpus[i];

		if (!c->nfds)
			continue;
		for (g = 0; g < p->ngroups; g++)
			if (ioctl(c->leaders[g], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
				return -errno;
		/* Groups 1.. continue from group 0's values (see the top of this file). */
		if (on && p->ngroups > 1)
			calibrate(p, c, i);
	}
	return 0;
}

static inline uint64_t rd64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

/* One PERF_RECORD_SAMPLE body (@len bytes): time, group read, raw. */
static int take_sample(struct trawl_kernel_perf *p, struct pcpu *c, struct trawl_kernel_stream *s,
		       const uint8_t *b, size_t len)
{
	uint64_t ts, nr, vals[TRAWL_KCTX_PERF_MAX];
	uint32_t raw_len;
	size_t off;
	uint16_t id, g;
	int j;

	if (len < 16)
		return 0;
	ts = rd64(b);
	nr = rd64(b + 8);
	if (nr < (uint64_t)p->nc || nr > (len - 16) / 8)
		return 0;
	off = 16 + (size_t)nr * 8;
	if (len - off < 4)
		return 0;
	memcpy(&raw_len, b + off, 4);
	off += 4;
	if (raw_len > len - off || raw_len < 8)
		return 0;
	memcpy(&id, b + off, 2);
	g = p->group_of[id];
	if (g == 0xffff || g >= p->ngroups)
		return 0;
	for (j = 0; j < p->nc; j++) {
		uint64_t v = rd64(b + 16 + (size_t)j * 8) + (uint64_t)c->off[g * p->nc + j];

		/* never below what this CPU reported before (groups started apart) */
		if (v < c->last[j])
			v = c->last[j];
		vals[j] = c->last[j] = v;
	}
	return trawl_kernel_stream_convert_record(s, ts, b + off, raw_len, vals);
}

int trawl_kernel_perf_drain(struct trawl_kernel_perf *p, int cpu, struct trawl_kernel_stream *s,
			    int max)
{
	struct pcpu *c;
	uint64_t head, tail;
	int n = 0, ret = 0;

	if (cpu >= p->ncpus || !p->cpus[cpu].meta)
		return 0;
	c = &p->cpus[cpu];
	/* acquire: pairs with the kernel's barrier before publishing data_head */
	head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
	tail = c->meta->data_tail;
	while (tail < head && (!max || n < max)) {
		size_t at = (size_t)(tail & (c->data_size - 1));
		struct perf_event_header h;
		const uint8_t *rec;

		/* records are 8-byte aligned and the ring a power of two: a header never wraps */
		memcpy(&h, c->data + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* cannot happen with a sane kernel: stop rather than loop */
		if (at + h.size <= c->data_size) {
			rec = c->data + at;
		} else {
			size_t first = c->data_size - at;

			memcpy(p->rec, c->data + at, first);
			memcpy(p->rec + first, c->data, h.size - first);
			rec = p->rec;
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			ret = take_sample(p, c, s, rec + sizeof(h), h.size - sizeof(h));
			if (ret < 0)
				break;
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			trawl_kernel_stream_add_lost(s, rd64(rec + sizeof(h) + 8));
		}
		tail += h.size;
		n++;
	}
	/* release: our reads of the records are done before the kernel may reuse the space */
	__atomic_store_n(&c->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? ret : n;
}

/* ---- without the kernel (fuzz/kernel, tests) ---------------------------------- */

int trawl_kernel_perf_create_fake(int nc, const uint16_t *ids, int ntp, size_t ring_bytes,
				  struct trawl_kernel_perf **out)
{
	struct trawl_kernel_perf *p;
	struct pcpu *c;
	int i;

	if (nc <= 0 || nc > TRAWL_KCTX_PERF_MAX || ntp < 0 || ring_bytes < 64 ||
	    (ring_bytes & (ring_bytes - 1)))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nc = nc;
	p->ntp = ntp;
	p->ngroups = ntp ? (ntp + GROUP_TRACEPOINTS - 1) / GROUP_TRACEPOINTS : 1;
	p->ncpus = 1;
	p->tps = calloc((size_t)ntp + 1, sizeof(*p->tps));
	p->group_of = malloc(65536 * sizeof(*p->group_of));
	p->cpus = c = calloc(1, sizeof(*p->cpus));
	if (!p->tps || !p->group_of || !c)
		goto err;
	memset(p->group_of, 0xff, 65536 * sizeof(*p->group_of));
	for (i = 0; i < ntp; i++) {
		p->tps[i].id = ids[i];
		p->group_of[ids[i]] = (uint16_t)(i / GROUP_TRACEPOINTS);
	}
	c->ring_fd = c->flush_fd = -1;
	c->heap = 1;
	c->off = calloc((size_t)(p->ngroups * nc), sizeof(int64_t));
	c->meta = calloc(1, sizeof(*c->meta));
	c->data = malloc(ring_bytes);
	c->data_size = ring_bytes;
	if (!c->off || !c->meta || !c->data)
		goto err;
	*out = p;
	return 0;
err:
	trawl_kernel_perf_destroy(p);
	return -ENOMEM;
}

void trawl_kernel_perf_fake_fill(struct trawl_kernel_perf *p, uint64_t tail, const uint8_t *buf,
				 size_t len)
{
	struct pcpu *c = &p->cpus[0];
	size_t i;

	len = TRAWL_MIN(len, c->data_size);
	for (i = 0; i < len; i++)
		c->data[(tail + i) & (c->data_size - 1)] = buf[i];
	c->meta->data_tail = tail;
	c->meta->data_head = tail + len;
}
