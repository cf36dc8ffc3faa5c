/* SPDX-License-Identifier: MIT */
/*
 * kernel-meta.c - the kernel trace's metadata: one stream class per channel
 * (its event context from the channel's contexts), event classes added
 * as the converter first meets each event (kernel-consumer.c says why).
 */
#include "common/common.h"
#include "common/log.h"
#include "consumerd/kernel-consumer-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Appends what the metadata model gained since the last call to the metadata file. */
static int meta_append(struct kconsumer *k)
{
	size_t len = 0;
	char *text = trawl_ctf_trace_metadata_new(k->trace, &len);
	struct iovec v = {text, len};
	int ret;

	if (!text)
		return -errno;
	ret = len ? trawl_output_file_append(k->out, k->meta_h, &v, 1) : 0;
	free(text);
	return ret;
}

/*
 * `regenerate metadata`: what is recorded so far is drained (its event
 * classes join the model), then the metadata file is replaced by the whole
 * model's text. The model only ever grows, so the new text declares every
 * event already written.
 */
int kcons_meta_rewrite(struct kconsumer *k)
{
	size_t len = 0;
	char *text;
	int ret = kcons_drain_all(k, 1);

	if (ret < 0)
		return ret;
	ret = meta_append(k); /* the model's "new" mark moves past everything */
	if (ret < 0)
		return ret;
	text = trawl_ctf_trace_metadata(k->trace, &len);
	if (!text)
		return -errno;
	ret = trawl_output_file_replace(k->out, k->meta_h, text, len);
	free(text);
	if (!ret)
		trawl_output_sync(k->out);
	return ret;
}

static struct trawl_ctf_type *int_type(unsigned bits, int is_signed, unsigned base)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(bits, is_signed, 8);

	if (t && base != 10)
		trawl_ctf_type_integer_set_base(t, base);
	return t;
}

static struct trawl_ctf_type *text_type(uint64_t n)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(8, 0, 8);

	if (!t)
		return NULL;
	trawl_ctf_type_integer_set_utf8(t);
	return trawl_ctf_type_array_create(t, n);
}

/* The event context struct of a channel's contexts (NULL without contexts). */
static struct trawl_ctf_type *context_type(const struct kchan *ch, int *err)
{
	static const char *const names[] = {
		[TRAWL_KCTX_PID] = "pid", [TRAWL_KCTX_TID] = "tid",
		[TRAWL_KCTX_PROCNAME] = "procname", [TRAWL_KCTX_PRIO] = "prio",
		[TRAWL_KCTX_PPID] = "ppid", [TRAWL_KCTX_VPID] = "vpid", [TRAWL_KCTX_VTID] = "vtid",
		[TRAWL_KCTX_NICE] = "nice",
		[TRAWL_KCTX_CGROUP_NS] = "cgroup_ns", [TRAWL_KCTX_IPC_NS] = "ipc_ns",
		[TRAWL_KCTX_MNT_NS] = "mnt_ns", [TRAWL_KCTX_NET_NS] = "net_ns",
		[TRAWL_KCTX_PID_NS] = "pid_ns", [TRAWL_KCTX_TIME_NS] = "time_ns",
		[TRAWL_KCTX_USER_NS] = "user_ns", [TRAWL_KCTX_UTS_NS] = "uts_ns",
	};
	struct trawl_ctf_type *st;
	char field[80];
	int i, ret = -ENOMEM;

	*err = 0;
	if (!ch->nctx)
		return NULL;
	st = trawl_ctf_type_struct_create(8);
	for (i = 0; st && i < ch->nctx; i++) {
		int k = ch->ctx[i];
		/* (the namespaces' inode numbers: unsigned int, as LTTng-modules') */
		int ns = k >= TRAWL_KCTX_CGROUP_NS && k <= TRAWL_KCTX_UTS_NS;
		struct trawl_ctf_type *f = k >= TRAWL_KCTX_PERF	      ? int_type(64, 0, 10)
					   : k == TRAWL_KCTX_PROCNAME ? text_type(16)
								      : int_type(32, !ns, 10);
		const char *name = k < TRAWL_KCTX_PERF ? names[k] : field;

		if (k >= TRAWL_KCTX_PERF &&
		    trawl_kernel_perf_field_name(ch->perf_ctx[k - TRAWL_KCTX_PERF], field,
						 sizeof(field))) {
			trawl_ctf_type_destroy(f);
			f = NULL;
			ret = -ENAMETOOLONG;
		}
		if (!f || trawl_ctf_type_struct_add(st, name, f) < 0) {
			trawl_ctf_type_destroy(st);
			st = NULL;
		}
	}
	if (!st)
		*err = ret;
	return st;
}

/*
 * src/ctf writes every field name with a leading '_' (as LTTng does, and
 * babeltrace2 shows it without), so a TSDL keyword (epoll_ctl's "event",
 * tracepoints' "align" or "callsite") is a name like any other: one more
 * '_' here made babeltrace2 show "_event" where LTTng's traces show "event".
 */
static int add_field(struct trawl_ctf_type *st, const char *name, struct trawl_ctf_type *t)
{
	return trawl_ctf_type_struct_add(st, name, t);
}

/* The payload struct of a tracefs event, field for field as convert.c writes it. */
static struct trawl_ctf_type *payload_type(const struct trawl_kernel_event *ev)
{
	struct trawl_ctf_type *st = trawl_ctf_type_struct_create(8);
	int i, ret = 0;

	for (i = 0; st && i < ev->nfields && !ret; i++) {
		const struct trawl_kernel_field *f = &ev->fields[i];
		struct trawl_ctf_type *t = NULL;
		char len_name[80];

		switch (f->kind) {
		case TRAWL_KF_INT:
		case TRAWL_KF_HEX:
			t = int_type(f->ctf_size * 8u, f->is_signed, f->kind == TRAWL_KF_HEX ? 16 : 10);
			if (t && f->big_endian)
				trawl_ctf_type_integer_set_byte_order(t, TRAWL_CTF_BO_BE);
			break;
		case TRAWL_KF_TEXT:
			t = text_type(f->count);
			break;
		case TRAWL_KF_ARRAY:
			t = int_type(f->ctf_size * 8u, f->is_signed, 10);
			t = t ? trawl_ctf_type_array_create(t, f->count) : NULL;
			break;
		case TRAWL_KF_STRING:
			t = trawl_ctf_type_string_create();
			break;
		case TRAWL_KF_BYTES:
			/* as LTTng: the length field "_<name>_length", then the bytes */
			snprintf(len_name, sizeof(len_name), "_%s_length", f->name);
			ret = trawl_ctf_type_struct_add(st, len_name, int_type(32, 0, 10));
			t = int_type(8, 0, 16);
			t = t ? trawl_ctf_type_sequence_create(t, len_name) : NULL;
			break;
		case TRAWL_KF_SEQ_I32:
			/* as LTTng's ctf_sequence(pid_t, vtids, ..., u8, ...) */
			snprintf(len_name, sizeof(len_name), "_%s_length", f->name);
			ret = trawl_ctf_type_struct_add(st, len_name, int_type(8, 0, 10));
			t = int_type(32, 1, 10);
			t = t ? trawl_ctf_type_sequence_create(t, len_name) : NULL;
			break;
		case TRAWL_KF_DECODED: /* a socket address, pollfd array, ... (its length field is before) */
			t = trawl_kernel_scdecode_type(f);
			break;
		}
		if (!ret)
			ret = t ? add_field(st, f->name, t) : -ENOMEM;
	}
	if (ret < 0) {
		trawl_ctf_type_destroy(st);
		st = NULL;
	}
	return st;
}

int kcons_meta_setup(struct kconsumer *k)
{
	struct utsname u;
	char host[256] = "";
	int i, ret;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	if (trawl_ctf_trace_env_add_string(k->trace, "hostname", host) < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "domain", "kernel") < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "sysname", u.sysname) < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "kernel_release", u.release) < 0 ||
	    /*
	     * As LTTng's kernel traces say (the user-space side says lttng-ust):
	     * babeltrace2 then takes the clock's origin as the Unix epoch for
	     * both domains and merges them, and Trace Compass recognises a
	     * kernel trace.
	     */
	    trawl_ctf_trace_env_add_string(k->trace, "tracer_name", "lttng-modules") < 0 ||
	    trawl_ctf_trace_env_add_int(k->trace, "tracer_major", 2) < 0 ||
	    trawl_ctf_trace_env_add_int(k->trace, "tracer_minor", 13) < 0 ||
	    trawl_ctf_trace_env_add_int(k->trace, "tracer_patchlevel", 0) < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "trace_buffering_scheme", "global") < 0)
		return -ENOMEM;
	/* CLOCK_MONOTONIC with ctf's offset estimator, as user-space traces: one view interleaves both */
	ret = trawl_ctf_trace_add_monotonic_clock(k->trace);
	if (ret < 0)
		return ret;
	for (i = 0; i < k->nch; i++) {
		struct trawl_ctf_type *ctx = context_type(&k->ch[i], &ret);

		if (ret < 0)
			return ret;
		ret = trawl_ctf_trace_add_stream_class(k->trace, k->ch[i].id, TRAWL_CTF_HEADER_COMPACT,
						       ctx, "monotonic");
		if (ret < 0)
			return ret;
	}
	return meta_append(k);
}

/* The converter met a new event: append its class to the metadata. */
int kcons_declare_event(struct trawl_kernel_event *ev, void *arg)
{
	struct kchan *ch = arg;
	struct trawl_ctf_event_class_desc d = {
		.name = ev->ctf_name, .id = (uint32_t)ev->ctf_id, .stream_id = ch->id, .loglevel = -1,
	};
	struct trawl_ctf_type *payload = payload_type(ev);
	int ret;

	ret = payload ? trawl_ctf_trace_add_event_class(ch->k->trace, &d, payload) : -ENOMEM;
	if (ret == 0)
		ret = meta_append(ch->k);
	if (ret < 0)
		trawl_log(TRAWL_LOG_WARN, "kernel consumer: cannot describe event %s:%s (%s): "
			"its records are left out", ev->system, ev->name, strerror(-ret));
	return ret;
}
