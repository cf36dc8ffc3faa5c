/* SPDX-License-Identifier: MIT */
/*
 * Dynamic probes: kprobes, kretprobes and uprobes as tracefs dynamic events.
 *
 * Dynamic events are global (kprobe_events, uprobe_events at the top of
 * tracefs), so each instance defines its own in group trawl_<daemon pid>_<n>
 * (n numbers instances within the daemon): two sessions may probe the same
 * symbol under the same name, and trawl_kernel_cleanup_dead() finds the
 * groups of dead daemons by their pid. Events are then enabled in the
 * instance only, like tracepoints.
 *
 * Where a mechanism is missing we say which one and why, in one line:
 *   - no kprobe_events file: the kernel was built without CONFIG_KPROBES
 *     (or CONFIG_KPROBE_EVENTS);
 *   - function probes fall back to the instance's function tracer (entry
 *     only: ftrace's "function" events), then to BPF fentry/fexit, which we probe
 *     by loading a one-instruction fentry program; on kernels that refuse
 *     it the error names both refusals.
 * BPF fentry is only used to diagnose here: on every kernel we met that
 * accepts fentry, kprobes are present too, and the kprobe path writes
 * straight into the instance's ring buffer like every other event.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int instance_seq;

/* A new group name, trawl_<pid>_<n>, into @group (at most 29 bytes: it
 * fits the 64 given; else "", which every definition would refuse). */
static void group_new(char *group, size_t len)
{
	if (trawl_path_fmt(group, len, "trawl_%d_%d", (int)getpid(), ++instance_seq))
		group[0] = '\0';
}

/* @inst's group, named at its first probe. */
static const char *probe_group(struct trawl_kernel_instance *inst)
{
	if (!inst->probe_group[0])
		group_new(inst->probe_group, sizeof(inst->probe_group));
	return inst->probe_group;
}

static int remember(struct trawl_kernel_instance *inst, const char *file, const char *ev)
{
	char **n = realloc(inst->probes, (size_t)(inst->nprobes + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	inst->probes = n;
	if (asprintf(&n[inst->nprobes], "%s %s", file, ev) < 0)
		return -ENOMEM;
	inst->nprobes++;
	return 0;
}

void trawl_kernel_probes_release(struct trawl_kernel_instance *inst)
{
	int i;

	for (i = 0; i < inst->nprobes; i++) {
		char *sp = strchr(inst->probes[i], ' '), cmd[320];

		if (sp) {
			*sp = '\0';
			/* Made by enable() from names that fit in 512 bytes: so does this. */
			if (!trawl_path_fmt(cmd, sizeof(cmd), "-:%s\n", sp + 1))
				trawl_kernel_write_file(inst->probes[i], cmd, 1);
		}
		free(inst->probes[i]);
	}
	free(inst->probes);
	inst->probes = NULL;
	inst->nprobes = 0;
}

/*
 * Defines "@kind:@group/@ev @args" in @file (kprobe_events, uprobe_events).
 * @ev was checked (trawl_kernel_check_probe_name) and @args formatted by us
 * from parsed values: no client text goes into @file as given. @what names
 * the location in error lines. Defining the same event again with other
 * locations adds them to it (the kernel's multi-probe events).
 */
static int define(const char *group, const char *file, char kind, const char *ev,
		  const char *args, const char *what, char *err, size_t errlen)
{
	char cmd[4352];
	int ret;

	ret = trawl_path_fmt(cmd, sizeof(cmd), "%c:%s/%s %s\n", kind, group, ev, args);
	if (ret == 0)
		ret = trawl_kernel_write_file(file, cmd, 1);
	if (ret == -ENAMETOOLONG)
		trawl_msg_fmt(err, errlen,
			      "cannot define %s probe \"%s\" at %s: its definition is "
			      "longer than %zu bytes",
			      file[0] == 'u' ? "user-space" : "kernel", ev, what, sizeof(cmd) - 1);
	else if (ret < 0)
		trawl_msg_fmt(err, errlen, "cannot define %s probe \"%s\" at %s: %s",
			      file[0] == 'u' ? "user-space" : "kernel", ev, what,
			      ret == -EINVAL
				      ? "the kernel refused it (unknown symbol or bad address?)"
			      : ret == -EEXIST || ret == -EBUSY ? "an event with this name exists"
								: strerror(-ret));
	return ret;
}

/* Remembers @ev (to remove it with the instance) and enables it in the instance. */
static int enable(struct trawl_kernel_instance *inst, const char *file, const char *ev, char *err,
		  size_t errlen)
{
	char rel[512];
	int ret;

	ret = trawl_path_fmt(rel, sizeof(rel), "%s/%s", inst->probe_group, ev);
	if (ret == 0)
		ret = remember(inst, file, rel);
	if (ret == 0)
		ret = trawl_path_fmt(rel, sizeof(rel), "%s/events/%s/%s/enable", inst->path,
				     inst->probe_group, ev);
	if (ret == 0)
		ret = trawl_kernel_write_file(rel, "1", 0);
	if (ret < 0)
		trawl_msg_fmt(err, errlen, "cannot enable probe \"%s\": %s", ev, strerror(-ret));
	return ret;
}

static int define_and_enable(struct trawl_kernel_instance *inst, const char *file, char kind,
			     const char *ev, const char *args, const char *what, char *err,
			     size_t errlen)
{
	int ret = define(probe_group(inst), file, kind, ev, args, what, err, errlen);

	return ret < 0 ? ret : enable(inst, file, ev, err, errlen);
}

static int have_kprobes(char *err, size_t errlen)
{
	char path[512];

	/* Tests use TRAWL_KERNEL_NO_KPROBES=1 to reach the fallbacks on kernels with kprobes. */
	if (!getenv("TRAWL_KERNEL_NO_KPROBES") &&
	    trawl_kernel_path(path, sizeof(path), "kprobe_events") == 0 && access(path, W_OK) == 0)
		return 1;
	trawl_msg_fmt(err, errlen,
		      "kprobes unavailable: this kernel has no kprobe_events "
		      "(built without CONFIG_KPROBES / CONFIG_KPROBE_EVENTS)");
	return 0;
}

int trawl_kernel_probe_add(struct trawl_kernel_instance *inst, const char *name,
			   const char *target, int retprobe, char *err, size_t errlen)
{
	struct trawl_kernel_kprobe_loc loc;
	char at[320];
	int ret;

	ret = trawl_kernel_check_probe_name(name, err, errlen);
	if (ret == 0)
		ret = trawl_kernel_kprobe_loc_parse(target, &loc, err, errlen);
	if (ret < 0)
		return ret;
	if (!have_kprobes(err, errlen))
		return -EOPNOTSUPP;
	if (trawl_kernel_kprobe_loc_format(&loc, at, sizeof(at))) {
		trawl_msg_fmt(err, errlen, "kernel probe \"%s\": location too long", name);
		return -ENAMETOOLONG;
	}
	return define_and_enable(inst, "kprobe_events", retprobe ? 'r' : 'p', name, at, at, err,
				 errlen);
}

/*
 * Loads a do-nothing fentry program on @sym: 0 if the kernel would run BPF
 * fentry probes, else a negative errno (with @why filled).
 */
static int fentry_probe(const char *sym, char *why, size_t len)
{
	struct bpf_insn prog[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *vmlinux;
	int id, fd, ret;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		ret = -errno;
		trawl_msg_fmt(why, len, "no kernel BTF (/sys/kernel/btf/vmlinux): %s",
			      strerror(-ret));
		return ret;
	}
	id = btf__find_by_name_kind(vmlinux, sym, BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0) {
		trawl_msg_fmt(why, len, "no function \"%s\" in the kernel's BTF", sym);
		return -ENOENT;
	}
	opts.attach_btf_id = (uint32_t)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "trawl_fentry", "GPL", prog, 2, &opts);
	if (fd < 0) {
		trawl_msg_fmt(why, len, "BPF fentry refused: %s", strerror(-fd));
		return fd;
	}
	close(fd);
	return 0;
}

/*
 * The function tracer of the instance, limited to @sym: records ftrace's
 * "function" events (ip, parent_ip), entry only. set_ftrace_filter is opened
 * here only, because function tracing was asked for; EPERM there means the
 * kernel refuses the function tracer.
 */
static int function_tracer(struct trawl_kernel_instance *inst, const char *sym, char *why,
			   size_t len)
{
	char val[256];
	int ret;

	if (getenv("TRAWL_KERNEL_NO_FTRACE")) {
		trawl_msg_fmt(why, len, "the function tracer is disabled (TRAWL_KERNEL_NO_FTRACE)");
		return -EOPNOTSUPP;
	}
	ret = trawl_path_fmt(val, sizeof(val), "%s\n", sym);
	if (ret == 0)
		ret = trawl_kernel_instance_write(inst, "set_ftrace_filter", val);
	if (ret == 0)
		ret = trawl_kernel_instance_write(inst, "current_tracer", "function");
	if (ret < 0) {
		trawl_msg_fmt(why, len, "the function tracer refused%s (%s)",
			      ret == -EINVAL ? " this function" : "", strerror(-ret));
		trawl_kernel_instance_write(inst, "current_tracer", "nop");
	}
	return ret;
}

int trawl_kernel_function_add(struct trawl_kernel_instance *inst, const char *name,
			      const char *target, char *err, size_t errlen)
{
	char ev[256], why[200], why_ft[200];
	int ret;

	/* @target goes to kprobe_events, set_ftrace_filter and BTF as a symbol only. */
	ret = trawl_kernel_check_probe_name(name, err, errlen);
	if (ret == 0)
		ret = trawl_kernel_check_ksym(target, err, errlen);
	if (ret < 0)
		return ret;
	if (have_kprobes(err, errlen)) {
		/* trawl_kernel_check_probe_name() took at most 56 bytes: both fit in 256. */
		if (trawl_path_fmt(ev, sizeof(ev), "%s_entry", name))
			return -ENAMETOOLONG;
		ret = define_and_enable(inst, "kprobe_events", 'p', ev, target, target, err, errlen);
		if (ret < 0)
			return ret;
		if (trawl_path_fmt(ev, sizeof(ev), "%s_return", name))
			return -ENAMETOOLONG;
		return define_and_enable(inst, "kprobe_events", 'r', ev, target, target, err,
					 errlen);
	}
	if (function_tracer(inst, target, why_ft, sizeof(why_ft)) == 0)
		return 0;
	ret = fentry_probe(target, why, sizeof(why));
	if (ret < 0) {
		trawl_msg_fmt(err, errlen,
			      "function probes unavailable: no kprobes (kernel built without "
			      "CONFIG_KPROBES), %s and %s",
			      why_ft, why);
		return ret == -ENOENT ? -ENOENT : -EOPNOTSUPP;
	}
	trawl_msg_fmt(err, errlen,
		      "function probes: this kernel has BPF fentry/fexit but no kprobes; "
		      "trawl records function probes through kprobes only");
	return -EOPNOTSUPP;
}

/*
 * The uprobe_events text of one site: the file as /proc/self/fd/N (the file
 * the requesting user opened, not whatever the path names now), the offset,
 * the SDT semaphore as reference counter, and for functions the first
 * @nargs integer arguments (x86-64 calling convention) as a0..a5.
 */
static int uprobe_args(char *buf, size_t len, int fd, const struct trawl_kernel_uprobe_sites *s,
		       uint32_t i, int nargs)
{
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	size_t o;
	int a;

	o = (size_t)snprintf(buf, len, "/proc/self/fd/%d:0x%llx", fd,
			     (unsigned long long)s->offset[i]);
	if (s->ref_ctr[i] && o < len)
		o += (size_t)snprintf(buf + o, len - o, "(0x%llx)",
				      (unsigned long long)s->ref_ctr[i]);
	for (a = 0; a < nargs && a < 6 && o < len; a++)
		o += (size_t)snprintf(buf + o, len - o, " a%d=%s:s64", a, regs[a]);
	return o < len ? 0 : -ENAMETOOLONG;
}

/*
 * The common part of trawl_kernel_uprobe_add(), _add_located() and
 * trawl_kernel_trigger_probe_define(): @name and @target checked, uprobe
 * @group/@name defined at every site (not enabled anywhere). @located: the
 * sites a process of @uid's found (@job_ret its result, @lfd the file it
 * opened, taken), checked here; NULL: they are found now, as @uid/@gid,
 * waited for.
 */
static int uprobe_define(const char *group, const char *name, const char *target, int nargs,
			 uid_t uid, gid_t gid, int job_ret, int lfd,
			 const struct trawl_kernel_uprobe_sites *located, char *err, size_t errlen)
{
	struct trawl_kernel_uprobe_sites *sites;
	struct trawl_kernel_uprobe_loc loc;
	char args[256], ubuf[512];
	uint32_t i;
	int ret, fd = lfd;

	ret = trawl_kernel_check_probe_name(name, err, errlen);
	if (ret == 0)
		ret = trawl_kernel_uprobe_loc_parse(target, &loc, err, errlen);
	if (ret == 0 && (trawl_kernel_path(ubuf, sizeof(ubuf), "uprobe_events") < 0 ||
			 access(ubuf, W_OK) < 0)) {
		trawl_msg_fmt(err, errlen,
			      "uprobes unavailable: this kernel has no uprobe_events "
			      "(built without CONFIG_UPROBE_EVENTS)");
		ret = -EOPNOTSUPP;
	}
	sites = ret == 0 ? malloc(sizeof(*sites)) : NULL;
	if (ret == 0 && !sites)
		ret = -ENOMEM;
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (located) {
		*sites = *located; /* (a copy: what the user's process wrote may change) */
		ret = trawl_kernel_uprobe_check(&loc, uid, job_ret, &fd, sites, err, errlen);
	} else {
		ret = trawl_kernel_uprobe_resolve(&loc, uid, gid, &fd, sites, err, errlen);
	}
	if (ret < 0)
		goto out;
	/* SDT probes record no arguments (as in LTTng): their sites share one event. */
	if (loc.kind == TRAWL_KERNEL_UPROBE_SDT)
		nargs = 0;
	for (i = 0; i < sites->n; i++) {
		/* At most 130 bytes: a cut would be a bug here, not the user's. */
		ret = uprobe_args(args, sizeof(args), fd, sites, i, nargs);
		if (ret == 0)
			ret = define(group, "uprobe_events", 'p', name, args, target, err, errlen);
		if (ret < 0)
			break;
	}
	/* The kernel holds the file from here on: our fd is no longer needed. */
	close(fd);
	if (ret < 0 && i > 0) {
		if (!trawl_path_fmt(args, sizeof(args), "-:%s/%s\n", group, name))
			trawl_kernel_write_file("uprobe_events", args, 1);
	}
out:
	free(sites);
	return ret;
}

static int uprobe_add(struct trawl_kernel_instance *inst, const char *name, const char *target,
		      int nargs, uid_t uid, gid_t gid, int job_ret, int lfd,
		      const struct trawl_kernel_uprobe_sites *located, char *err, size_t errlen)
{
	int ret = uprobe_define(probe_group(inst), name, target, nargs, uid, gid, job_ret, lfd,
				located, err, errlen);

	return ret < 0 ? ret : enable(inst, "uprobe_events", name, err, errlen);
}

int trawl_kernel_uprobe_add(struct trawl_kernel_instance *inst, const char *name,
			    const char *target, int nargs, uid_t uid, gid_t gid, char *err,
			    size_t errlen)
{
	return uprobe_add(inst, name, target, nargs, uid, gid, 0, -1, NULL, err, errlen);
}

int trawl_kernel_uprobe_add_located(struct trawl_kernel_instance *inst, const char *name,
				    const char *target, int nargs, uid_t uid, int located_ret,
				    int fd, const struct trawl_kernel_uprobe_sites *s, char *err,
				    size_t errlen)
{
	return uprobe_add(inst, name, target, nargs, uid, 0, located_ret, fd, s, err, errlen);
}

int trawl_kernel_probe_disable(struct trawl_kernel_instance *inst, const char *name, char *err,
			       size_t errlen)
{
	static const char *const suffix[] = { "", "_entry", "_return" };
	char rel[512];
	int found = 0, ret;
	size_t i;

	ret = trawl_kernel_check_probe_name(name, err, errlen);
	if (ret < 0)
		return ret;
	if (!inst->probe_group[0]) {
		trawl_msg_fmt(err, errlen, "no probe \"%s\" in this channel", name);
		return -ENOENT;
	}
	for (i = 0; i < TRAWL_ARRAY_SIZE(suffix); i++) {
		if (!trawl_path_fmt(rel, sizeof(rel), "%s/events/%s/%s%s/enable", inst->path,
				    inst->probe_group, name, suffix[i]) &&
		    trawl_kernel_write_file(rel, "0", 0) == 0)
			found++;
	}
	if (!found) {
		trawl_msg_fmt(err, errlen, "no probe \"%s\" in this channel", name);
		return -ENOENT;
	}
	return 0;
}

int trawl_kernel_trigger_probe_define(const struct trawl_kernel_trigger_probe *p,
				      char group[TRAWL_KERNEL_GROUP_LEN], char *err, size_t errlen)
{
	struct trawl_kernel_kprobe_loc loc;
	char at[320];
	int ret;

	group[0] = '\0';
	if (p->uprobe) {
		group_new(group, TRAWL_KERNEL_GROUP_LEN);
		ret = uprobe_define(group, TRAWL_KERNEL_TRIGGER_PROBE, p->target, 6, p->uid, p->gid,
				    p->located_ret, p->fd, p->sites, err, errlen);
		if (ret < 0)
			group[0] = '\0';
		return ret;
	}
	/* the location checked as enable-event --probe's (check.c), then
	 * written as we format it */
	ret = trawl_kernel_kprobe_loc_parse(p->target, &loc, err, errlen);
	if (ret < 0)
		return ret;
	if (!have_kprobes(err, errlen))
		return -EOPNOTSUPP;
	if (trawl_kernel_kprobe_loc_format(&loc, at, sizeof(at))) {
		trawl_msg_fmt(err, errlen, "kernel probe: location too long");
		return -ENAMETOOLONG;
	}
	group_new(group, TRAWL_KERNEL_GROUP_LEN);
	ret = define(group, "kprobe_events", 'p', TRAWL_KERNEL_TRIGGER_PROBE, at, at, err, errlen);
	if (ret < 0)
		group[0] = '\0';
	return ret;
}

void trawl_kernel_trigger_probe_remove(int uprobe, const char *group)
{
	char cmd[128];

	if (group[0] &&
	    !trawl_path_fmt(cmd, sizeof(cmd), "-:%s/%s\n", group, TRAWL_KERNEL_TRIGGER_PROBE))
		trawl_kernel_write_file(uprobe ? "uprobe_events" : "kprobe_events", cmd, 1);
}
