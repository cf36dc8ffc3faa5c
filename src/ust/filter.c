/* SPDX-License-Identifier: MIT */
/*
 * filter.c - event filters in the app: the per-slot filter table and the
 * entry point the generated probes call (trawl_ust_filter_pass()).
 *
 * A slot (an event recording into a channel) has a filter when every rule
 * of its session that enables the event in that channel has one; the daemon
 * sends the filters of all those rules with the ENABLE command, and the
 * event records when any of them is true. Here the texts are parsed and
 * bound to the event's fields once (src/filter), and the result is
 * published in a table; the slot's filter word is the table index + 1.
 *
 * Lifetime: a published entry is never freed or changed while the process
 * runs, as a thread may be evaluating it after loading the slot's word just
 * before the slot changed (the same rule as channels, ust.h). Entries are
 * shared by every slot with the same event and filter texts, so the table
 * grows with distinct (event, filters) pairs only: TRAWL_UST_MAX_FILTERS of
 * them, then enabling fails with -ENOSPC.
 *
 * Ordering: an entry is stored (release) before any slot names it; the
 * probe loads the slot's word, then the entry, with acquire order.
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "filter/filter.h"

#define TRAWL_UST_MAX_FILTERS 4096u
#define MAX_FILTERS_PER_SLOT 64u

struct ufilter {
	const struct trawl_ust_event_desc *ev;
	char *texts; /* as received: NUL-terminated expressions */
	size_t len;
	unsigned int nr;
	struct trawl_filter_prog **progs;
};

static struct ufilter *table[TRAWL_UST_MAX_FILTERS];
static uint32_t table_used; /* under trawl_ust_lock */

static void ufilter_free(struct ufilter *f)
{
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		trawl_filter_prog_destroy(f->progs[i]);
	free(f->progs);
	free(f->texts);
	free(f);
}

static void fields_of(const struct trawl_ust_event_desc *ev, struct trawl_filter_field *out)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++) {
		const struct trawl_ust_field_desc *d = &ev->fields[i];

		out[i].name = d->name;
		out[i].bits = d->size_bits;
		out[i].is_signed = d->is_signed;
		out[i].is_text = d->is_text;
		out[i].big_endian = d->big_endian;
		switch (d->type & ~TRAWL_UST_FIELD_NOWRITE) {
		case TRAWL_UST_FIELD_INTEGER:
		case TRAWL_UST_FIELD_ENUM:
			out[i].kind = TRAWL_FILTER_FIELD_INT;
			break;
		case TRAWL_UST_FIELD_FLOAT:
			out[i].kind = TRAWL_FILTER_FIELD_FLOAT;
			break;
		case TRAWL_UST_FIELD_STRING:
			out[i].kind = TRAWL_FILTER_FIELD_STRING;
			break;
		case TRAWL_UST_FIELD_ARRAY:
			out[i].kind = TRAWL_FILTER_FIELD_ARRAY;
			break;
		case TRAWL_UST_FIELD_SEQUENCE:
			out[i].kind = TRAWL_FILTER_FIELD_SEQUENCE;
			break;
		default:
			out[i].kind = 0; /* never matches a name's use */
			break;
		}
	}
}

/* Parses and binds @texts for @ev into a new entry. 0 or -errno. */
static int ufilter_create(const struct trawl_ust_event_desc *ev, const char *texts, size_t len,
			  struct ufilter **out)
{
	struct trawl_filter_field *fields;
	struct ufilter *f;
	size_t off;
	int ret = -ENOMEM;

	f = calloc(1, sizeof(*f));
	fields = calloc(ev->nr_fields + 1, sizeof(*fields));
	if (!f || !fields)
		goto err;
	f->ev = ev;
	f->len = len;
	f->texts = malloc(len);
	f->progs = calloc(MAX_FILTERS_PER_SLOT, sizeof(*f->progs));
	if (!f->texts || !f->progs)
		goto err;
	memcpy(f->texts, texts, len);
	fields_of(ev, fields);
	for (off = 0; off < len; off += strlen(texts + off) + 1) {
		struct trawl_filter *parsed;

		if (f->nr == MAX_FILTERS_PER_SLOT) {
			ret = -E2BIG;
			goto err;
		}
		ret = trawl_filter_parse(texts + off, &parsed, NULL);
		if (ret)
			goto err;
		ret = trawl_filter_bind(parsed, fields, ev->nr_fields, &f->progs[f->nr]);
		trawl_filter_destroy(parsed);
		if (ret)
			goto err;
		f->nr++;
	}
	free(fields);
	*out = f;
	return 0;
err:
	free(fields);
	if (f)
		ufilter_free(f);
	return ret;
}

int trawl_ust_filter_get(const struct trawl_ust_event_desc *ev, const char *texts, size_t len, uint32_t *id)
{
	struct ufilter *f;
	uint32_t i;
	int ret;

	*id = 0;
	if (!len)
		return 0;
	/* From the daemon, trusted but checked: whole strings, each short. */
	if (len > 65536 || texts[len - 1] != '\0')
		return -EINVAL;
	for (i = 0; i < table_used; i++) {
		f = table[i];
		if (f->ev == ev && f->len == len && !memcmp(f->texts, texts, len)) {
			*id = i + 1;
			return 0;
		}
	}
	if (table_used == TRAWL_UST_MAX_FILTERS)
		return -ENOSPC;
	ret = ufilter_create(ev, texts, len, &f);
	if (ret)
		return ret;
	/* Release: the entry is complete before a slot can name it (pairs
	 * with the acquire load in trawl_ust_filter_pass()). */
	__atomic_store_n(&table[table_used], f, __ATOMIC_RELEASE);
	*id = ++table_used;
	return 0;
}

static int ctx_value(void *arg, unsigned int which, struct trawl_ust_filter_arg *out)
{
	int32_t tid;
	const char *procname;
	uint64_t pthread_id;

	(void)arg;
	switch (which) {
	case TRAWL_FILTER_CTX_VPID:
	case TRAWL_FILTER_CTX_PID:
		out->i = trawl_ust_pid;
		return 0;
	case TRAWL_FILTER_CTX_PPID:
	case TRAWL_FILTER_CTX_VPPID:
		out->i = trawl_ust_ppid;
		return 0;
	case TRAWL_FILTER_CTX_CPU_ID: {
		int (*plugin)(void) = __atomic_load_n(&trawl_ust_getcpu_fn, __ATOMIC_RELAXED);

		out->i = plugin ? plugin() : sched_getcpu();
		return 0;
	}
	case TRAWL_FILTER_CTX_PRIO:
	case TRAWL_FILTER_CTX_NICE: {
		int32_t prio, nice;

		trawl_ust_context_sched(&prio, &nice);
		out->i = which == TRAWL_FILTER_CTX_PRIO ? prio : nice;
		return out->i == INT32_MIN ? -1 : 0;
	}
	default:
		break;
	}
	trawl_ust_context_thread(&tid, &procname, &pthread_id);
	switch (which) {
	case TRAWL_FILTER_CTX_VTID:
	case TRAWL_FILTER_CTX_TID:
		out->i = tid;
		return 0;
	case TRAWL_FILTER_CTX_PROCNAME:
		out->p = procname;
		out->n = 17;
		return 0;
	case TRAWL_FILTER_CTX_PTHREAD_ID:
		out->i = (int64_t)pthread_id;
		return 0;
	default:
		return -1;
	}
}

TRAWL_EXPORT int trawl_ust_filter_pass(uint32_t filter, const struct trawl_ust_filter_arg *args)
{
	const struct ufilter *f;
	unsigned int i;

	if (trawl_unlikely(filter == 0 || filter > TRAWL_UST_MAX_FILTERS))
		return 0;
	f = __atomic_load_n(&table[filter - 1], __ATOMIC_ACQUIRE);
	if (trawl_unlikely(!f))
		return 0;
	for (i = 0; i < f->nr; i++)
		if (trawl_filter_run(f->progs[i], args, ctx_value, NULL))
			return 1;
	return 0;
}
