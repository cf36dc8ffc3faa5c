/* SPDX-License-Identifier: MIT */
/*
 * wire-decode.c - the daemon's decoders of what an app sends (REGISTER,
 * EVENT, EVENTS_ADDED, TALLY: src/ustabi/wire.h) into ustctl.h's descriptions.
 * Every byte is hostile: a traced program of any user writes them
 * (fuzzed in fuzz/ustctl/).
 */
#include "common/common.h"
#include "ustctl/app-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Copies a fixed-size char array that must hold a NUL-terminated string. */
static int copy_str(char *dst, const char *src, size_t size, int allow_empty)
{
	const char *nul = memchr(src, '\0', size);

	if (!nul || (!allow_empty && nul == src))
		return -EPROTO;
	memcpy(dst, src, (size_t)(nul - src) + 1);
	return 0;
}

/*
 * "provider:event": exactly one ':' with something on both sides, and
 * printable ASCII only. An app's names reach root's terminal (`trawl list
 * -u`, the daemon's log): a control byte there is a terminal escape sequence
 * of another user's choosing. LTTng's names are C identifiers (tracef's
 * too); no real app is refused.
 */
static int event_name_ok(const char *name)
{
	const char *colon = strchr(name, ':'), *p;

	if (!colon || colon == name || colon[1] == '\0' || strchr(colon + 1, ':'))
		return 0;
	for (p = name; *p; p++)
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			return 0;
	return 1;
}

/* The clock after a REGISTER: 0 or -EPROTO. */
static int clock_decode(const struct trawl_wire_clock *w, struct trawl_ustctl_clock *c)
{
	const char *p;

	if (copy_str(c->name, w->name, sizeof(w->name), 0) ||
	    copy_str(c->description, w->description, sizeof(w->description), 1))
		return -EPROTO;
	/* A TSDL identifier (the registry refuses its keywords). */
	for (p = c->name; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (p != c->name && *p >= '0' && *p <= '9')))
			return -EPROTO;
	if (w->has_uuid > 1 || w->reserved || !w->freq || w->freq > TRAWL_USTCTL_CLOCK_FREQ_MAX ||
	    w->offset < 0 || (uint64_t)w->offset >= w->freq || w->offset_s < -(INT64_C(1) << 40) ||
	    w->offset_s > (INT64_C(1) << 40))
		return -EPROTO;
	memcpy(c->uuid, w->uuid, sizeof(c->uuid));
	c->has_uuid = (int)w->has_uuid;
	c->freq = w->freq;
	c->offset_s = w->offset_s;
	c->offset = w->offset;
	return 0;
}

int trawl_wire_register_decode(const void *buf, size_t len, struct trawl_ustctl_app_info *info,
			       uint32_t *nr_events)
{
	struct trawl_wire_register r;
	struct trawl_wire_clock wc;

	if (len != sizeof(r) && len != sizeof(r) + sizeof(wc))
		return -EPROTO;
	memcpy(&r, buf, sizeof(r));
	if (trawl_wire_hdr_check(&r.hdr, TRAWL_WIRE_REGISTER, len))
		return -EPROTO;
	if ((r.bits_per_long != 32 && r.bits_per_long != 64) || r.nr_events > TRAWL_WIRE_MAX_EVENTS)
		return -EPROTO;
	if (r.abi_major != TRAWL_UST_WIRE_ABI_MAJOR)
		return -EPROTO;
	/* Flags from minor 4 on (before: reserved, which nobody checked). */
	if (r.abi_minor >= 4 && (r.flags & ~TRAWL_WIRE_REG_CLOCK))
		return -EPROTO;
	if ((len > sizeof(r)) != (r.abi_minor >= 4 && (r.flags & TRAWL_WIRE_REG_CLOCK)))
		return -EPROTO;
	memset(info, 0, sizeof(*info));
	info->pid = (pid_t)r.pid;
	info->ppid = (pid_t)r.ppid;
	info->uid = (uid_t)r.uid;
	info->gid = (gid_t)r.gid;
	info->bits_per_long = r.bits_per_long;
	info->abi_major = r.abi_major;
	info->abi_minor = r.abi_minor;
	if (copy_str(info->procname, r.procname, sizeof(r.procname), 1))
		return -EPROTO;
	trawl_str_printable(info->procname); /* the app's word: shown to root */
	if (len > sizeof(r)) {
		memcpy(&wc, (const char *)buf + sizeof(r), sizeof(wc));
		if (clock_decode(&wc, &info->clock))
			return -EPROTO;
		info->has_clock = 1;
	}
	*nr_events = r.nr_events;
	return 0;
}

int trawl_wire_events_added_decode(const void *buf, size_t len, uint32_t have, uint32_t *nr_events)
{
	struct trawl_wire_events_added a;

	if (len != sizeof(a))
		return -EPROTO;
	memcpy(&a, buf, sizeof(a));
	if (trawl_wire_hdr_check(&a.hdr, TRAWL_WIRE_EVENTS_ADDED, len))
		return -EPROTO;
	if (a.first_index != have || !a.nr_events || have > TRAWL_WIRE_MAX_EVENTS ||
	    a.nr_events > TRAWL_WIRE_MAX_EVENTS - have)
		return -EPROTO;
	*nr_events = a.nr_events;
	return 0;
}


int trawl_wire_tally_entry_ok(const char *name, int32_t loglevel, uint32_t reserved, uint64_t count)
{
	return event_name_ok(name) && loglevel >= 0 && loglevel <= 14 && !reserved && count &&
	       count <= TRAWL_WIRE_MAX_TALLY_COUNT;
}

int trawl_wire_tally_decode(const void *buf, size_t len, struct trawl_ustctl_tally_entry **out,
			    uint32_t *nr)
{
	const struct trawl_wire_tally_entry *we;
	struct trawl_ustctl_tally_entry *e;
	struct trawl_wire_tally t;
	uint32_t i;

	if (len < sizeof(t))
		return -EPROTO;
	memcpy(&t, buf, sizeof(t));
	if (trawl_wire_hdr_check(&t.hdr, TRAWL_WIRE_TALLY, len) || !t.nr_entries ||
	    t.nr_entries > TRAWL_WIRE_MAX_TALLY || t.reserved[0] || t.reserved[1] || t.reserved[2] ||
	    len != sizeof(t) + (size_t)t.nr_entries * sizeof(*we))
		return -EPROTO;
	e = calloc(t.nr_entries, sizeof(*e));
	if (!e)
		return -ENOMEM;
	we = (const struct trawl_wire_tally_entry *)((const char *)buf + sizeof(t));
	for (i = 0; i < t.nr_entries; i++) {
		struct trawl_wire_tally_entry w;

		memcpy(&w, &we[i], sizeof(w));
		if (copy_str(e[i].name, w.name, sizeof(w.name), 0) ||
		    !trawl_wire_tally_entry_ok(e[i].name, w.loglevel, w.reserved, w.count)) {
			free(e);
			return -EPROTO;
		}
		e[i].loglevel = w.loglevel;
		e[i].count = w.count;
	}
	*out = e;
	*nr = t.nr_entries;
	return 0;
}

static int check_int_attrs(const struct trawl_wire_field *f)
{
	if (f->size_bits != 8 && f->size_bits != 16 && f->size_bits != 32 && f->size_bits != 64)
		return -EPROTO;
	if (f->is_signed > 1 || f->is_text > 1 || f->byte_order > TRAWL_USTCTL_BYTE_ORDER_BE)
		return -EPROTO;
	if (f->base != 2 && f->base != 8 && f->base != 10 && f->base != 16)
		return -EPROTO;
	return 0;
}

static int decode_field(const struct trawl_wire_field *w, struct trawl_ustctl_field *f,
			const struct trawl_ustctl_field *prev, uint32_t nr_prev, uint32_t nr_enum)
{
	uint32_t i;

	memset(f, 0, sizeof(*f));
	if (copy_str(f->name, w->name, sizeof(w->name), 0))
		return -EPROTO;
	for (i = 0; i < nr_prev; i++)
		if (!strcmp(prev[i].name, f->name))
			return -EPROTO; /* duplicate field name */
	f->type = (enum trawl_ustctl_field_type)w->type;
	f->size_bits = w->size_bits;
	f->is_signed = w->is_signed;
	f->base = w->base;
	f->byte_order = (enum trawl_ustctl_byte_order)w->byte_order;
	f->is_text = w->is_text;
	switch (w->type) {
	case TRAWL_USTCTL_FIELD_INTEGER:
	case TRAWL_USTCTL_FIELD_ARRAY:
		if (check_int_attrs(w))
			return -EPROTO;
		if (w->type == TRAWL_USTCTL_FIELD_ARRAY) {
			if (w->length > TRAWL_WIRE_MAX_MSG)
				return -EPROTO;
			f->length = w->length;
		}
		break;
	case TRAWL_USTCTL_FIELD_FLOAT:
		if (w->size_bits != 32 && w->size_bits != 64)
			return -EPROTO;
		f->is_signed = 1;
		f->base = 10;
		f->byte_order = TRAWL_USTCTL_BYTE_ORDER_NATIVE;
		f->is_text = 0;
		break;
	case TRAWL_USTCTL_FIELD_STRING:
		f->size_bits = 8;
		f->is_signed = 0;
		f->base = 10;
		f->byte_order = TRAWL_USTCTL_BYTE_ORDER_NATIVE;
		f->is_text = 1;
		break;
	case TRAWL_USTCTL_FIELD_SEQUENCE:
		if (check_int_attrs(w) || copy_str(f->length_name, w->length_name, sizeof(w->length_name), 0))
			return -EPROTO;
		/* The length is the field just before: an unsigned integer. */
		if (!nr_prev || strcmp(prev[nr_prev - 1].name, f->length_name) ||
		    prev[nr_prev - 1].type != TRAWL_USTCTL_FIELD_INTEGER || prev[nr_prev - 1].is_signed)
			return -EPROTO;
		break;
	case TRAWL_USTCTL_FIELD_ENUM:
		if (check_int_attrs(w) || copy_str(f->enum_name, w->enum_name, sizeof(w->enum_name), 0))
			return -EPROTO;
		if (w->enum_first > nr_enum || w->enum_count > nr_enum - w->enum_first || !w->enum_count)
			return -EPROTO;
		f->nr_enum_entries = w->enum_count;
		break;
	default:
		return -EPROTO;
	}
	return 0;
}

int trawl_wire_event_decode(const void *buf, size_t len, struct trawl_ustctl_event **out)
{
	const struct trawl_wire_field *wf;
	const struct trawl_wire_enum_entry *we;
	struct trawl_ustctl_enum_entry *entries;
	struct trawl_ustctl_field *fields;
	struct trawl_ustctl_event *ev;
	struct trawl_wire_event w;
	size_t need;
	uint32_t i;
	char *block;

	if (len < sizeof(w))
		return -EPROTO;
	memcpy(&w, buf, sizeof(w));
	if (trawl_wire_hdr_check(&w.hdr, TRAWL_WIRE_EVENT, len))
		return -EPROTO;
	if (w.nr_fields > TRAWL_WIRE_MAX_FIELDS || w.nr_enum_entries > TRAWL_WIRE_MAX_ENUM)
		return -EPROTO;
	need = sizeof(w) + (size_t)w.nr_fields * sizeof(*wf) + (size_t)w.nr_enum_entries * sizeof(*we);
	if (len != need)
		return -EPROTO;
	if (w.loglevel < 0 || w.loglevel > 14)
		return -EPROTO;
	block = calloc(1, sizeof(*ev) + (size_t)w.nr_fields * sizeof(*fields) +
				  (size_t)w.nr_enum_entries * sizeof(*entries));
	if (!block)
		return -ENOMEM;
	ev = (struct trawl_ustctl_event *)block;
	fields = (struct trawl_ustctl_field *)(block + sizeof(*ev));
	entries = (struct trawl_ustctl_enum_entry *)(fields + w.nr_fields);
	if (copy_str(ev->name, w.name, sizeof(w.name), 0) || !event_name_ok(ev->name))
		goto err;
	ev->loglevel = w.loglevel;
	ev->nr_fields = w.nr_fields;
	ev->fields = fields;
	we = (const struct trawl_wire_enum_entry *)((const char *)buf + sizeof(w) +
						    (size_t)w.nr_fields * sizeof(*wf));
	for (i = 0; i < w.nr_enum_entries; i++) {
		struct trawl_wire_enum_entry e;

		memcpy(&e, &we[i], sizeof(e));
		if (e.start > e.end || copy_str(entries[i].label, e.label, sizeof(e.label), 0))
			goto err;
		entries[i].start = e.start;
		entries[i].end = e.end;
	}
	wf = (const struct trawl_wire_field *)((const char *)buf + sizeof(w));
	for (i = 0; i < w.nr_fields; i++) {
		struct trawl_wire_field f;

		memcpy(&f, &wf[i], sizeof(f));
		if (decode_field(&f, &fields[i], fields, i, w.nr_enum_entries))
			goto err;
		if (fields[i].type == TRAWL_USTCTL_FIELD_ENUM)
			fields[i].enum_entries = entries + f.enum_first;
	}
	*out = ev;
	return 0;
err:
	free(block);
	return -EPROTO;
}
