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
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int instance_seq;

static void probe_group(struct trawl_kernel_instance *inst, char *buf, size_t len)
{
	if (!inst->probe_group[0])
		snprintf(inst->probe_group, sizeof(inst->probe_group), "trawl_%d_%d", (int)getpid(),
			 ++instance_seq);
	snprintf(buf, len, "%s", inst->probe_group);
}

static void ident(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++) {
		char c = src[i];
		dst[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
				 ? c : '_';
	}
	dst[i] = '\0';
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
			snprintf(cmd, sizeof(cmd), "-:%s\n", sp + 1);
			trawl_kernel_write_file(inst->probes[i], cmd, 1);
		}
		free(inst->probes[i]);
	}
	free(inst->probes);
	inst->probes = NULL;
	inst->nprobes = 0;
}

/* Defines "@kind:group/name args" in @file and enables it in the instance. */
static int define_and_enable(struct trawl_kernel_instance *inst, const char *file, char kind,
			     const char *name, const char *args, char *err, size_t errlen)
{
	char group[64], ev[160], cmd[4352], rel[512];
	int ret;

	probe_group(inst, group, sizeof(group));
	ident(ev, sizeof(ev), name);
	snprintf(cmd, sizeof(cmd), "%c:%s/%s %s\n", kind, group, ev, args);
	ret = trawl_kernel_write_file(file, cmd, 1);
	if (ret < 0) {
		snprintf(err, errlen, "cannot define %s probe \"%s\" at %s: %s",
			 file[0] == 'u' ? "user-space" : "kernel", name, args,
			 ret == -EINVAL ? "the kernel refused it (unknown symbol or bad address?)"
					: ret == -EEXIST || ret == -EBUSY ? "an event with this name exists"
									  : strerror(-ret));
		return ret;
	}
	snprintf(rel, sizeof(rel), "%s %s/%s", file, group, ev);
	ret = remember(inst, file, rel + strlen(file) + 1);
	if (ret < 0)
		return ret;
	snprintf(rel, sizeof(rel), "%s/events/%s/%s/enable", inst->path, group, ev);
	ret = trawl_kernel_write_file(rel, "1", 0);
	if (ret < 0)
		snprintf(err, errlen, "cannot enable probe \"%s\": %s", name, strerror(-ret));
	return ret;
}

static int have_kprobes(char *err, size_t errlen)
{
	char path[512];

	/* Tests use TRAWL_KERNEL_NO_KPROBES=1 to reach the fallbacks on kernels with kprobes. */
	if (!getenv("TRAWL_KERNEL_NO_KPROBES") &&
	    trawl_kernel_path(path, sizeof(path), "kprobe_events") == 0 && access(path, W_OK) == 0)
		return 1;
	snprintf(err, errlen, "kprobes unavailable: this kernel has no kprobe_events "
		 "(built without CONFIG_KPROBES / CONFIG_KPROBE_EVENTS)");
	return 0;
}

int trawl_kernel_probe_add(struct trawl_kernel_instance *inst, const char *name,
			   const char *target, int retprobe, char *err, size_t errlen)
{
	if (!have_kprobes(err, errlen))
		return -EOPNOTSUPP;
	return define_and_enable(inst, "kprobe_events", retprobe ? 'r' : 'p', name, target, err,
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
		snprintf(why, len, "no kernel BTF (/sys/kernel/btf/vmlinux): %s", strerror(-ret));
		return ret;
	}
	id = btf__find_by_name_kind(vmlinux, sym, BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0) {
		snprintf(why, len, "no function \"%s\" in the kernel's BTF", sym);
		return -ENOENT;
	}
	opts.attach_btf_id = (uint32_t)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "trawl_fentry", "GPL", prog, 2, &opts);
	if (fd < 0) {
		snprintf(why, len, "BPF fentry refused: %s", strerror(-fd));
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
		snprintf(why, len, "the function tracer is disabled (TRAWL_KERNEL_NO_FTRACE)");
		return -EOPNOTSUPP;
	}
	snprintf(val, sizeof(val), "%s\n", sym);
	ret = trawl_kernel_instance_write(inst, "set_ftrace_filter", val);
	if (ret == 0)
		ret = trawl_kernel_instance_write(inst, "current_tracer", "function");
	if (ret < 0) {
		snprintf(why, len, "the function tracer refused%s (%s)",
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

	if (have_kprobes(err, errlen)) {
		snprintf(ev, sizeof(ev), "%s_entry", name);
		ret = define_and_enable(inst, "kprobe_events", 'p', ev, target, err, errlen);
		if (ret < 0)
			return ret;
		snprintf(ev, sizeof(ev), "%s_return", name);
		return define_and_enable(inst, "kprobe_events", 'r', ev, target, err, errlen);
	}
	if (function_tracer(inst, target, why_ft, sizeof(why_ft)) == 0)
		return 0;
	ret = fentry_probe(target, why, sizeof(why));
	if (ret < 0) {
		snprintf(err, errlen, "function probes unavailable: no kprobes (kernel built without "
			 "CONFIG_KPROBES), %s and %s", why_ft, why);
		return ret == -ENOENT ? -ENOENT : -EOPNOTSUPP;
	}
	snprintf(err, errlen, "function probes: this kernel has BPF fentry/fexit but no kprobes; "
		 "trawl records function probes through kprobes only");
	return -EOPNOTSUPP;
}

/* The file offset of @sym in the ELF file @path (what uprobe_events wants). */
static int elf_symbol_offset(const char *path, const char *sym, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	uint64_t vaddr = 0;
	int fd, found = 0, ret = -ENOENT;
	size_t i, nph;
	Elf *e;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return -ENOEXEC;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, sym)) {
				vaddr = s.st_value;
				found = 1;
				break;
			}
		}
	}
	if (found && elf_getphdrnum(e, &nph) == 0) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
				*off = vaddr - ph.p_vaddr + ph.p_offset;
				ret = 0;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

int trawl_kernel_uprobe_add(struct trawl_kernel_instance *inst, const char *name,
			    const char *target, int nargs, char *err, size_t errlen)
{
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	char path[4096], args[4352], real[4096], ubuf[512];
	const char *sym;
	uint64_t off = 0;
	size_t o;
	int ret, i;

	if (strncmp(target, "elf:", 4) || !(sym = strrchr(target + 4, ':')) || sym == target + 4) {
		snprintf(err, errlen, "user-space probe \"%s\": expected elf:PATH:SYMBOL", target);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%.*s", (int)(sym - target - 4), target + 4);
	sym++;
	if (!realpath(path, real)) {
		snprintf(err, errlen, "user-space probe: %s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (trawl_kernel_path(ubuf, sizeof(ubuf), "uprobe_events") < 0 || access(ubuf, W_OK) < 0) {
		snprintf(err, errlen, "uprobes unavailable: this kernel has no uprobe_events "
			 "(built without CONFIG_UPROBE_EVENTS)");
		return -EOPNOTSUPP;
	}
	ret = elf_symbol_offset(real, sym, &off);
	if (ret < 0) {
		snprintf(err, errlen, "user-space probe: no function \"%s\" in %s", sym, real);
		return ret;
	}
	o = (size_t)snprintf(args, sizeof(args), "%s:0x%llx", real, (unsigned long long)off);
	for (i = 0; i < nargs && i < 6 && o < sizeof(args); i++)
		o += (size_t)snprintf(args + o, sizeof(args) - o, " a%d=%s:s64", i, regs[i]);
	return define_and_enable(inst, "uprobe_events", 'p', name, args, err, errlen);
}

int trawl_kernel_probe_disable(struct trawl_kernel_instance *inst, const char *name, char *err,
			       size_t errlen)
{
	static const char *const suffix[] = { "", "_entry", "_return" };
	char ev[200], id[160], rel[512];
	int found = 0;
	size_t i;

	if (!inst->probe_group[0]) {
		snprintf(err, errlen, "no probe \"%s\" in this channel", name);
		return -ENOENT;
	}
	for (i = 0; i < TRAWL_ARRAY_SIZE(suffix); i++) {
		snprintf(ev, sizeof(ev), "%s%s", name, suffix[i]);
		ident(id, sizeof(id), ev);
		snprintf(rel, sizeof(rel), "%s/events/%s/%s/enable", inst->path, inst->probe_group, id);
		if (trawl_kernel_write_file(rel, "0", 0) == 0)
			found++;
	}
	if (!found) {
		snprintf(err, errlen, "no probe \"%s\" in this channel", name);
		return -ENOENT;
	}
	return 0;
}
