/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats: turns tracefs's `events/<sys>/<event>/format` text into
 * a field list (the consumer turns it into a src/ctf payload type) and a
 * conversion plan.
 *
 * Only the `field:` lines are used: they carry everything we need (C type,
 * offset, size, signedness) and, unlike the `print fmt` lines, they are
 * regular (libtraceevent fails on some print fmts of recent kernels).
 *
 * What the CTF payload keeps: every field except the common header
 * (common_type, common_flags, common_preempt_count, common_pid: the
 * stream's contexts give the pid/tid when asked for) and syscalls'
 * __syscall_nr (the event name says which syscall it is). Syscall arguments
 * are stored by the kernel as unsigned longs; we narrow them to their C type
 * (an `int fd` becomes a signed 32-bit field, so AT_FDCWD reads -100, as in
 * LTTng's traces). Fixed fields adjacent in the record are copied by one
 * memcpy (the plan's ops), which is what keeps the converter cheap.
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "common/common.h"
#include "kernel/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int trawl_kernel_event_ctf_name(const char *sys, const char *ev, char *buf, size_t len)
{
	const char *lttng = trawl_kernel_layout_name(sys, ev);

	if (lttng)
		return trawl_path_fmt(buf, len, "%s", lttng);
	if (!strcmp(sys, "syscalls") && !strncmp(ev, "sys_enter_", 10))
		return trawl_path_fmt(buf, len, "syscall_entry_%s", ev + 10);
	if (!strcmp(sys, "syscalls") && !strncmp(ev, "sys_exit_", 9))
		return trawl_path_fmt(buf, len, "syscall_exit_%s", ev + 9);
	return trawl_path_fmt(buf, len, "%s", ev);
}

/*
 * A field name for CTF: the C name (src/ctf writes every name with CTF's
 * leading '_', which readers strip, so TSDL keywords are safe).
 */
static void field_name(char *dst, size_t len, const char *src, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < len; i++)
		dst[o++] = (isalnum((unsigned char)src[i]) || src[i] == '_') ? src[i] : '_';
	dst[o] = '\0';
}

/* Size and signedness of the C types syscall arguments are declared with. */
static int syscall_arg_size(const char *type, int *is_signed)
{
	static const struct { const char *t; int size, sgn; } tab[] = {
		{ "int", 4, 1 }, { "unsigned int", 4, 0 }, { "unsigned", 4, 0 },
		{ "pid_t", 4, 1 }, { "uid_t", 4, 0 }, { "gid_t", 4, 0 }, { "qid_t", 4, 0 },
		{ "key_serial_t", 4, 1 }, { "clockid_t", 4, 1 }, { "mqd_t", 4, 1 },
		{ "rwf_t", 4, 1 }, { "u32", 4, 0 }, { "__u32", 4, 0 }, { "s32", 4, 1 },
		{ "umode_t", 2, 0 }, { "short", 2, 1 }, { "unsigned short", 2, 0 },
		{ "long", 8, 1 }, { "unsigned long", 8, 0 }, { "size_t", 8, 0 },
		{ "ssize_t", 8, 1 }, { "loff_t", 8, 1 }, { "off_t", 8, 1 }, { "u64", 8, 0 },
		{ "__u64", 8, 0 }, { "aio_context_t", 8, 0 }, { "timer_t", 4, 1 },
	};
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(tab); i++) {
		if (!strcmp(type, tab[i].t)) {
			*is_signed = tab[i].sgn;
			return tab[i].size;
		}
	}
	return 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*s))
		memmove(s, s + 1, strlen(s));
}

/*
 * Sets the kind and CTF sizes of field @f from its C @type and @count (-1:
 * not an array, 0: flexible array) and its record size. 1 = kept, 0 =
 * skipped, <0 = a format we do not understand.
 */
static int classify(const char *sys, const char *type, long count, struct trawl_kernel_field *f)
{
	unsigned int size = f->size;

	if (!strcmp(f->name, "__probe_ip")) {
		/* the probed address of kprobe/uprobe events: LTTng calls it ip */
		snprintf(f->name, sizeof(f->name), "ip");
		f->kind = TRAWL_KF_HEX;
		f->is_signed = 0;
		return size == 8 || size == 4 ? 1 : -EINVAL;
	}
	if (!strncmp(type, "__data_loc", 10) || !strncmp(type, "__rel_loc", 9)) {
		f->rel_loc = type[2] == 'r';
		f->kind = strstr(type, "char") ? TRAWL_KF_STRING : TRAWL_KF_BYTES;
		return size == 4 ? 1 : -EINVAL;
	}
	/* In "__data_loc char[] name" the [] sits before the name: handled above. */
	if (count == 0)
		return 0; /* flexible array member: no fixed size to describe */
	if (count > 0) {
		if (size == 0 || size % (unsigned)count)
			return -EINVAL;
		f->count = (uint16_t)count;
		f->ctf_size = (uint16_t)(size / (unsigned)count);
		f->kind = (!strcmp(type, "char") || !strcmp(type, "const char")) ? TRAWL_KF_TEXT
										  : TRAWL_KF_ARRAY;
		if (f->kind == TRAWL_KF_ARRAY && f->ctf_size != 1 && f->ctf_size != 2 &&
		    f->ctf_size != 4 && f->ctf_size != 8)
			return -EINVAL;
		return 1;
	}
	if (strchr(type, '*')) {
		f->kind = TRAWL_KF_HEX;
		f->is_signed = 0;
		return size == 8 || size == 4 ? 1 : -EINVAL;
	}
	f->kind = TRAWL_KF_INT;
	if (!strcmp(sys, "ftrace") && (!strcmp(f->name, "ip") || !strcmp(f->name, "parent_ip")))
		f->kind = TRAWL_KF_HEX; /* code addresses */
	if (!strcmp(sys, "syscalls") && size == 8) {
		int s, cs = syscall_arg_size(type, &s);

		if (cs) {
			f->ctf_size = (uint16_t)cs;
			f->is_signed = (uint8_t)s;
		}
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		/* e.g. 16-byte integers: keep the bytes */
		f->kind = TRAWL_KF_ARRAY;
		f->count = (uint16_t)size;
		f->ctf_size = 1;
		f->is_signed = 0;
	}
	return 1;
}

/* Parses one "field:DECL;\toffset:O;\tsize:S;\tsigned:X;" line. 1 = kept, 0 = skipped, <0 = bad. */
static int parse_field(const char *sys, const char *line, struct trawl_kernel_field *f)
{
	char decl[256], type[256];
	const char *semi, *p, *name_end, *name_start;
	unsigned int off, size, sgn = 0;
	long count = -1;
	size_t n;
	int ret;

	semi = strchr(line, ';');
	if (!semi || (size_t)(semi - line) >= sizeof(decl))
		return -EINVAL;
	memcpy(decl, line, (size_t)(semi - line));
	decl[semi - line] = '\0';
	p = strstr(semi, "offset:");
	if (!p || sscanf(p, "offset:%u;", &off) != 1)
		return -EINVAL;
	p = strstr(semi, "size:");
	if (!p || sscanf(p, "size:%u;", &size) != 1)
		return -EINVAL;
	p = strstr(semi, "signed:");
	if (p)
		sscanf(p, "signed:%u;", &sgn);
	if (off > 0xffff || size > 0xffff)
		return -EINVAL;
	trim(decl);
	n = strlen(decl);
	name_end = decl + n;
	if (n && decl[n - 1] == ']') {
		const char *lb = strrchr(decl, '[');

		if (!lb)
			return -EINVAL;
		count = lb[1] == ']' ? 0 : strtol(lb + 1, NULL, 0);
		name_end = lb;
	}
	name_start = name_end;
	while (name_start > decl && (isalnum((unsigned char)name_start[-1]) || name_start[-1] == '_'))
		name_start--;
	if (name_start == name_end)
		return -EINVAL;
	if (!strncmp(name_start, "common_", 7) ||
	    (!strcmp(sys, "syscalls") && !strncmp(name_start, "__syscall_nr", 12)))
		return 0;
	memset(f, 0, sizeof(*f));
	field_name(f->name, sizeof(f->name), name_start, (size_t)(name_end - name_start));
	if (trawl_path_fmt(type, sizeof(type), "%.*s", (int)(name_start - decl), decl))
		return -EINVAL;
	trim(type);
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sgn != 0;
	f->ctf_size = (uint16_t)size;
	ret = classify(sys, type, count, f);
	f->src_kind = f->kind;
	f->src_signed = f->is_signed;
	return ret;
}

/* The op that makes output field @f from its source (see layout.c). */
static void op_for(const struct trawl_kernel_field *f, struct trawl_kernel_op *op)
{
	memset(op, 0, sizeof(*op));
	op->src = f->offset;
	op->rel_loc = f->rel_loc;
	op->xform = f->xform;
	op->is_signed = f->src_signed;
	op->len = f->size;
	op->kind = TRAWL_KOP_COPY;
	if (f->xform >= TRAWL_KX_SC_STR) {
		op->kind = TRAWL_KOP_SC;
		op->arg = f->sc_arg;
		op->aux = f->sc_aux;
		op->dst = f->ctf_size;
		op->len = 0;
		/* an entry's string: the record's pointer is checked against BPF's (scaux.c) */
		if (f->xform == TRAWL_KX_SC_STR && f->src_kind != TRAWL_KF_STRING)
			op->len = 0;
		return;
	}
	if (f->xform >= TRAWL_KX_FORK_PARENT_PID) {
		op->kind = TRAWL_KOP_FORK;
		op->len = 0;
		return;
	}
	if (f->xform == TRAWL_KX_RWBS) {
		op->kind = TRAWL_KOP_RWBS;
		op->dst = 4;
		return;
	}
	switch (f->src_kind) {
	case TRAWL_KF_STRING:
		op->kind = f->kind == TRAWL_KF_TEXT ? TRAWL_KOP_STR2TEXT : TRAWL_KOP_STRING;
		op->dst = f->count;
		op->len = 4;
		return;
	case TRAWL_KF_BYTES:
		op->kind = TRAWL_KOP_BYTES;
		op->len = 4;
		return;
	case TRAWL_KF_TEXT:
		if (f->kind == TRAWL_KF_STRING)
			op->kind = TRAWL_KOP_TEXT2STR;
		else
			op->len = TRAWL_MIN(f->size, f->count);
		return;
	case TRAWL_KF_ARRAY:
		return;
	default:
		/* little-endian: narrowing keeps the low bytes, a plain copy */
		if (f->xform == TRAWL_KX_PRIO || f->ctf_size > f->size) {
			op->kind = TRAWL_KOP_INT;
			op->dst = f->ctf_size;
			op->add = f->xform == TRAWL_KX_PRIO ? -100 : 0;
		} else {
			op->len = f->ctf_size;
		}
		return;
	}
}

static int build_ops(struct trawl_kernel_event *ev)
{
	int i;

	free(ev->ops);
	ev->ops = calloc((size_t)ev->nfields + 1, sizeof(*ev->ops));
	if (!ev->ops)
		return -ENOMEM;
	ev->nops = 0;
	ev->min_len = 0;
	for (i = 0; i < ev->nfields; i++) {
		const struct trawl_kernel_field *f = &ev->fields[i];
		struct trawl_kernel_op *prev = ev->nops ? &ev->ops[ev->nops - 1] : NULL;
		struct trawl_kernel_op op;

		op_for(f, &op);
		if (op.kind == TRAWL_KOP_SC)
			ev->sc_has_ops = 1;
		/* fields from BPF's record have no source in the ftrace record (but an entry's string) */
		if (op.kind != TRAWL_KOP_FORK && (op.kind != TRAWL_KOP_SC || f->xform == TRAWL_KX_SC_STR) &&
		    (uint32_t)f->offset + f->size > ev->min_len)
			ev->min_len = (uint32_t)f->offset + f->size;
		if (op.kind == TRAWL_KOP_COPY && prev && prev->kind == TRAWL_KOP_COPY &&
		    prev->src + prev->len == op.src && prev->len + op.len <= 0xffff) {
			prev->len = (uint16_t)(prev->len + op.len);
			continue;
		}
		ev->ops[ev->nops++] = op;
	}
	return 0;
}

static int field_off(struct trawl_kernel_event *ev, const char *name, uint16_t *off)
{
	int i;

	for (i = 0; i < ev->nfields; i++) {
		if (!strcmp(ev->fields[i].name, name)) {
			*off = ev->fields[i].offset;
			/* a name held as a __data_loc string (sched_process_fork's comms since 6.x) */
			if (ev->fields[i].kind == TRAWL_KF_STRING)
				ev->hook_loc |= (uint8_t)(1u << (off - ev->hook_off));
			return 1;
		}
	}
	return 0;
}

static void find_hook(struct trawl_kernel_event *ev)
{
	uint16_t *o = ev->hook_off;

	if (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_process_exec")) {
		if (field_off(ev, "filename", &o[0]) && field_off(ev, "pid", &o[1]))
			ev->hook = TRAWL_KHOOK_EXEC;
	} else if (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_process_fork")) {
		/* hook_off[2]: parent_pid, for fork.c */
		if (field_off(ev, "child_comm", &o[0]) && field_off(ev, "child_pid", &o[1]) &&
		    field_off(ev, "parent_pid", &o[2]))
			ev->hook = TRAWL_KHOOK_COMM;
	} else if (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_switch")) {
		if (field_off(ev, "prev_comm", &o[0]) && field_off(ev, "prev_pid", &o[1]) &&
		    field_off(ev, "next_comm", &o[2]) && field_off(ev, "next_pid", &o[3]))
			ev->hook = TRAWL_KHOOK_SWITCH;
	} else if (!strcmp(ev->system, "task") && !strcmp(ev->name, "task_rename")) {
		if (field_off(ev, "newcomm", &o[0]) && field_off(ev, "pid", &o[1]))
			ev->hook = TRAWL_KHOOK_COMM;
	}
}

/* Thread-id fields ("pid", "prev_pid", "child_pid", ...: the kernel's pid is a tid). */
static void find_subjects(struct trawl_kernel_event *ev)
{
	int i;

	for (i = 0; i < ev->nfields && ev->nsubj < 4; i++) {
		const struct trawl_kernel_field *f = &ev->fields[i];
		size_t n = strlen(f->name);

		if (f->kind == TRAWL_KF_INT && f->size == 4 && f->is_signed && n >= 3 &&
		    !strcmp(f->name + n - 3, "pid") && (n == 3 || f->name[n - 4] == '_') &&
		    strcmp(ev->system, "syscalls"))
			ev->subj_off[ev->nsubj++] = f->offset;
	}
}

/* The kernel's fields of a format text, as they are (no layout, no plan). */
static int parse_fields(const char *sys, const char *name, const char *text, struct trawl_kernel_event *ev)
{
	const char *line = text;
	size_t cap = 0;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ev->ctf_id = -1;
	if (trawl_path_fmt(ev->system, sizeof(ev->system), "%s", sys) ||
	    trawl_path_fmt(ev->name, sizeof(ev->name), "%s", name) ||
	    trawl_kernel_event_ctf_name(sys, name, ev->ctf_name, sizeof(ev->ctf_name)))
		return -ENAMETOOLONG;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "ID:", 3)) {
			ev->ftrace_id = (uint16_t)strtoul(p + 3, NULL, 10);
		} else if (!strncmp(p, "field:", 6)) {
			struct trawl_kernel_field f;

			ret = parse_field(sys, p + 6, &f);
			if (ret < 0)
				return ret;
			if (ret > 0) {
				if (trawl_array_grow((void **)&ev->fields, &cap,
						     (size_t)ev->nfields + 1, sizeof(f), 8))
					return -ENOMEM;
				ev->fields[ev->nfields++] = f;
			}
		} else if (!strncmp(p, "print fmt:", 10)) {
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int trawl_kernel_event_parse(const char *sys, const char *name, const char *text,
			     struct trawl_kernel_event *ev)
{
	int ret = parse_fields(sys, name, text, ev);

	if (ret < 0)
		goto err;
	/* hooks and trawl's own-record test read the ftrace fields, by their ftrace names */
	find_hook(ev);
	find_subjects(ev);
	ret = trawl_kernel_layout_apply(ev);
	if (ret == 0 && strncmp(name, "sys_exit_", 9))
		ret = trawl_kernel_syscall_layout(ev, NULL); /* exits: with their entry, below */
	if (ret < 0)
		goto err;
	ret = build_ops(ev);
	if (ret < 0)
		goto err;
	return 0;
err:
	trawl_kernel_event_fini(ev);
	return ret;
}

int trawl_kernel_event_parse_fields(const char *sys, const char *name, const char *text,
				    struct trawl_kernel_event *ev)
{
	int ret = parse_fields(sys, name, text, ev);

	if (ret < 0)
		trawl_kernel_event_fini(ev);
	return ret;
}

int trawl_kernel_event_syscall_exit(struct trawl_kernel_event *ev, const char *enter_text)
{
	struct trawl_kernel_event enter;
	char name[160];
	int ret;

	if (strncmp(ev->name, "sys_exit_", 9))
		return -EINVAL;
	ret = trawl_path_fmt(name, sizeof(name), "sys_enter_%s", ev->name + 9);
	if (ret)
		return ret;
	ret = trawl_kernel_event_parse_fields(ev->system, name, enter_text, &enter);
	if (ret < 0)
		return ret;
	ret = trawl_kernel_syscall_layout(ev, &enter);
	if (ret == 0)
		ret = build_ops(ev);
	trawl_kernel_event_fini(&enter);
	return ret;
}

void trawl_kernel_event_fini(struct trawl_kernel_event *ev)
{
	free(ev->fields);
	free(ev->ops);
	ev->fields = NULL;
	ev->ops = NULL;
	ev->nfields = ev->nops = 0;
}
