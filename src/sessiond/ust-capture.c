/* SPDX-License-Identifier: MIT */
/*
 * ust-capture.c - the captured fields of a trigger's hit (add-trigger
 * --capture), read from the event's payload as the app's probe serialized it
 * (tracepoint-event.h: each field byte-aligned, in order, in the app's byte
 * order; a string up to its NUL; an array's elements; a sequence's after its
 * own length field), described by the event's fields as the app registered
 * them (ustctl.h).
 *
 * Context fields ($ctx.NAME): the app writes those the daemon asked for
 * (ust_capture_contexts(): the notifier's context bits, ABI minor >= 10)
 * before the payload, as it writes a channel's (ustabi.h: in the order of
 * the bits, byte-aligned, its byte order), and they are read as fields of
 * the types context-ctf.c declares for them.
 *
 * The record comes from the app's ring: every length is checked against
 * what is left of it, and a field that does not fit, or any after it, is
 * "<unavailable>", as is a capture naming no field of the event and a
 * context the app was not asked for (an app older than ABI minor 10, a
 * perf: counter).
 *
 * Application contexts ($app.PROVIDER:NAME): an app of ABI minor 13 or
 * later is asked for the values of those the captures name
 * (ust_capture_app_contexts(): wire.h NOTIFIER) and writes them after the
 * context fields, before the payload, each as a channel records it
 * (ustabi.h: a tag, then the value), from the provider the process
 * registered at that event, as LTTng-UST 2.13 evaluates an app context in
 * an event notifier's capture bytecode. A value the provider did not give
 * (no provider, a Java retriever's null, a key it does not know, or, with
 * LTTng's Java agent, a context no session's add-context enabled: the
 * agent serializes only those) is "_none", captured as "<unavailable>",
 * as LTTng's is. An integer is captured as LTTng's msgpack carries it:
 * unsigned unless negative. A tag past the known types, or a value cut by
 * the record's end, makes it, the ones after it and the payload's fields
 * unavailable (the payload's start is not known). Older apps write none:
 * their captures of application contexts are unavailable.
 *
 * Each capture is a line typed as common/capture.h says (libtrawl-ctl gives
 * programs the values typed, and as text).
 */
#include "common/capture.h"
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNAVAILABLE TRAWL_CAPTURE_UNAVAILABLE_TEXT

/* Where each field lies in the payload: offset, bytes, and (integers) value. */
struct span {
	size_t off, len;
	uint64_t value; /* an integer's, for the sequence it gives the length of */
	int ok;
};

static uint64_t read_uint(const unsigned char *p, uint32_t bytes, int be)
{
	uint64_t v = 0;
	uint32_t i;

	if (be) {
		for (i = 0; i < bytes; i++)
			v = v << 8 | p[i];
		return v;
	}
	memcpy(&v, p, bytes); /* the app's byte order is ours (one machine) */
	return bytes == 1 ? (uint8_t)v : bytes == 2 ? (uint16_t)v : bytes == 4 ? (uint32_t)v : v;
}

static uint32_t elem_bytes(const struct trawl_ustctl_field *f)
{
	uint32_t b = f->size_bits / 8;

	return b == 1 || b == 2 || b == 4 || b == 8 ? b : 0;
}

/*
 * Lays the payload's first @upto fields out in @sp (@upto entries): the
 * captures need no field past them. @length_of: a sequence's length
 * field, resolved once (plan_sequences()), or the sequence's own index
 * if it has none before it.
 */
static void layout(const struct trawl_ustctl_event *ev, uint32_t upto, const uint32_t *length_of,
		   const unsigned char *p, size_t len, struct span *sp)
{
	size_t off = 0;
	uint32_t i, k;

	for (i = 0; i < upto; i++) {
		const struct trawl_ustctl_field *f = &ev->fields[i];
		uint32_t eb = elem_bytes(f);
		size_t need = 0;
		int bad = 0;

		switch (f->type) {
		case TRAWL_USTCTL_FIELD_INTEGER:
		case TRAWL_USTCTL_FIELD_ENUM:
		case TRAWL_USTCTL_FIELD_FLOAT:
			need = eb;
			bad = !eb;
			break;
		case TRAWL_USTCTL_FIELD_STRING: {
			const void *nul = off < len ? memchr(p + off, '\0', len - off) : NULL;

			need = nul ? (size_t)((const unsigned char *)nul - (p + off)) + 1 : 0;
			bad = !nul;
			break;
		}
		case TRAWL_USTCTL_FIELD_ARRAY:
			bad = !eb || f->length > len;
			need = bad ? 0 : (size_t)f->length * eb;
			break;
		case TRAWL_USTCTL_FIELD_SEQUENCE:
			k = length_of[i];
			bad = k >= i || !sp[k].ok || !eb || sp[k].value > len / eb;
			need = bad ? 0 : (size_t)sp[k].value * eb;
			break;
		default:
			bad = 1;
			break;
		}
		if (bad || off > len || need > len - off) {
			for (; i < upto; i++)
				sp[i].ok = 0;
			return;
		}
		sp[i].off = off;
		sp[i].len = need;
		sp[i].ok = 1;
		if (f->type == TRAWL_USTCTL_FIELD_INTEGER || f->type == TRAWL_USTCTL_FIELD_ENUM)
			sp[i].value = read_uint(p + off, eb, f->byte_order == TRAWL_USTCTL_BYTE_ORDER_BE);
		off += need;
	}
}

/* Appends @s to @out (@cap bytes, *@used so far), escaped, as room allows. */
static void put_text(char *out, size_t cap, size_t *used, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		static const char hex[] = "0123456789abcdef";
		unsigned char c = (unsigned char)s[i];
		char esc[4];
		size_t el = 2;

		esc[0] = '\\';
		if (c == '\n') {
			esc[1] = 'n';
		} else if (c == '\\') {
			esc[1] = '\\';
		} else if (c < 0x20 || c == 0x7f) {
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			el = 4;
		} else {
			esc[0] = (char)c;
			el = 1;
		}
		if (*used + el + 2 > cap) /* room for the line's end and the NUL */
			return;
		memcpy(out + *used, esc, el);
		*used += el;
		out[*used] = '\0';
	}
}

/* Appends @n bytes of @s as they are (a type tag, a tab, a ','). */
static void put_raw(char *out, size_t cap, size_t *used, const char *s, size_t n)
{
	if (*used + n + 2 > cap) /* room for the line's end and the NUL */
		return;
	memcpy(out + *used, s, n);
	*used += n;
	out[*used] = '\0';
}

static void put_tag(char *out, size_t cap, size_t *used, char tag)
{
	put_raw(out, cap, used, &tag, 1);
}

/* An integer's text: in hex as the field is shown if @as_shown, else in decimal. */
static void put_int(char *out, size_t cap, size_t *used, const struct trawl_ustctl_field *f,
		    const unsigned char *p, int as_shown)
{
	uint32_t eb = elem_bytes(f);
	uint64_t u = read_uint(p, eb, f->byte_order == TRAWL_USTCTL_BYTE_ORDER_BE);
	char buf[32];

	if (f->base == 16 && as_shown)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, u);
	else if (f->is_signed && eb < 8 && (u >> (eb * 8 - 1)) & 1)
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)(u | ~((UINT64_C(1) << (eb * 8)) - 1)));
	else if (f->is_signed)
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)u);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, u);
	put_raw(out, cap, used, buf, strlen(buf));
}

/* An integer's (or an enumeration's) whole line. */
static void put_int_line(char *out, size_t cap, size_t *used, const struct trawl_ustctl_field *f,
			 const unsigned char *p)
{
	int e = f->type == TRAWL_USTCTL_FIELD_ENUM;

	put_tag(out, cap, used,
		f->is_signed ? (e ? TRAWL_CAPTURE_SIGNED_ENUM : TRAWL_CAPTURE_SIGNED)
			     : (e ? TRAWL_CAPTURE_UNSIGNED_ENUM : TRAWL_CAPTURE_UNSIGNED));
	if (f->base == 16) {
		put_int(out, cap, used, f, p, 0);
		put_raw(out, cap, used, "\t", 1);
	}
	put_int(out, cap, used, f, p, 1);
}

static void put_unavailable(char *out, size_t cap, size_t *used)
{
	put_tag(out, cap, used, TRAWL_CAPTURE_UNAVAILABLE);
	put_text(out, cap, used, UNAVAILABLE, sizeof(UNAVAILABLE));
}

/* A real's line: the exact value (%a), then the text (%g). */
static void put_real(char *out, size_t cap, size_t *used, double v)
{
	char buf[40]; /* holds either */

	put_tag(out, cap, used, TRAWL_CAPTURE_REAL);
	if (snprintf(buf, sizeof(buf), "%a", v) < (int)sizeof(buf))
		put_raw(out, cap, used, buf, strlen(buf));
	put_raw(out, cap, used, "\t", 1);
	if (snprintf(buf, sizeof(buf), "%g", v) >= (int)sizeof(buf))
		buf[0] = '\0'; /* (never) */
	put_text(out, cap, used, buf, sizeof(buf));
}

/* One field's value (element @index of an array or sequence, -1: whole). */
static void put_field(char *out, size_t cap, size_t *used, const struct trawl_ustctl_field *f,
		      const unsigned char *p, const struct span *sp, long index)
{
	uint32_t eb = elem_bytes(f);
	size_t i, n;

	switch (f->type) {
	case TRAWL_USTCTL_FIELD_INTEGER:
	case TRAWL_USTCTL_FIELD_ENUM:
		if (index >= 0)
			break;
		return put_int_line(out, cap, used, f, p + sp->off);
	case TRAWL_USTCTL_FIELD_FLOAT: {
		double v;

		if (index >= 0)
			break;
		if (eb == 4) {
			float fv;

			memcpy(&fv, p + sp->off, 4);
			v = fv;
		} else {
			memcpy(&v, p + sp->off, 8);
		}
		return put_real(out, cap, used, v);
	}
	case TRAWL_USTCTL_FIELD_STRING:
		if (index >= 0)
			break;
		put_tag(out, cap, used, TRAWL_CAPTURE_STRING);
		return put_text(out, cap, used, (const char *)p + sp->off, sp->len);
	case TRAWL_USTCTL_FIELD_ARRAY:
	case TRAWL_USTCTL_FIELD_SEQUENCE:
		n = eb ? sp->len / eb : 0;
		if (index >= 0) {
			if ((size_t)index >= n)
				break;
			return put_int_line(out, cap, used, f, p + sp->off + (size_t)index * eb);
		}
		if (f->is_text) {
			put_tag(out, cap, used, TRAWL_CAPTURE_STRING);
			return put_text(out, cap, used, (const char *)p + sp->off, sp->len);
		}
		put_tag(out, cap, used, TRAWL_CAPTURE_ARRAY);
		put_tag(out, cap, used, f->is_signed ? TRAWL_CAPTURE_SIGNED : TRAWL_CAPTURE_UNSIGNED);
		for (i = 0; f->base == 16 && i < n; i++) {
			/* shown in hex: the values in decimal first */
			if (i)
				put_raw(out, cap, used, ",", 1);
			put_int(out, cap, used, f, p + sp->off + i * eb, 0);
		}
		if (f->base == 16)
			put_raw(out, cap, used, "\t", 1);
		put_raw(out, cap, used, "[", 1);
		for (i = 0; i < n; i++) {
			if (i)
				put_raw(out, cap, used, ", ", 2);
			put_int(out, cap, used, f, p + sp->off + i * eb, 1);
		}
		return put_raw(out, cap, used, "]", 1);
	}
	put_unavailable(out, cap, used);
}

/* An application context's value in the record (ustabi.h layout). */
struct app_span {
	uint32_t type;	 /* enum trawl_ustctl_app_type */
	size_t off, len; /* the value's bytes (a string's without its NUL) */
};

/*
 * Lays out the @nr application values at @p (@len bytes, the app's) in
 * @as: how many are whole, in order (@nr if all are); *@end: the bytes the
 * whole ones take.
 */
static uint32_t app_layout(const unsigned char *p, size_t len, uint32_t nr, struct app_span *as,
			   size_t *end)
{
	size_t off = 0, n;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		if (off >= len || p[off] >= TRAWL_USTCTL_NR_APP_TYPES)
			break;
		as[i].type = p[off];
		as[i].off = off + 1;
		if (as[i].type == TRAWL_USTCTL_APP_STRING) {
			/* its NUL within the bytes left, and within what the app
			 * may write (app-context.c) */
			size_t room = len - as[i].off;
			const unsigned char *nul =
				memchr(p + as[i].off, '\0',
				       room < TRAWL_USTCTL_APP_CTX_STRING_MAX + 1
					       ? room
					       : TRAWL_USTCTL_APP_CTX_STRING_MAX + 1);

			if (!nul)
				break;
			as[i].len = (size_t)(nul - (p + as[i].off));
			n = as[i].len + 1;
		} else {
			as[i].len = n = trawl_ustctl_app_type_size(as[i].type);
		}
		if (n > len - as[i].off)
			break;
		off = as[i].off + n;
	}
	*end = off;
	return i;
}

/* An application context's value as a capture line: LTTng's types (its
 * msgpack's: an integer unsigned unless negative, a float a double). */
static void put_app(char *out, size_t cap, size_t *used, const unsigned char *p,
		    const struct app_span *a)
{
	char buf[40];
	int64_t s = 0;
	uint64_t u = 0;
	double d;
	float f;

	switch (a->type) {
	case TRAWL_USTCTL_APP_S8:
	case TRAWL_USTCTL_APP_S16:
	case TRAWL_USTCTL_APP_S32:
	case TRAWL_USTCTL_APP_S64: {
		int8_t s8;
		int16_t s16;
		int32_t s32;

		if (a->len == 1)
			memcpy(&s8, p + a->off, 1), s = s8;
		else if (a->len == 2)
			memcpy(&s16, p + a->off, 2), s = s16;
		else if (a->len == 4)
			memcpy(&s32, p + a->off, 4), s = s32;
		else
			memcpy(&s, p + a->off, 8);
		if (s < 0) {
			put_tag(out, cap, used, TRAWL_CAPTURE_SIGNED);
			snprintf(buf, sizeof(buf), "%" PRId64, s);
		} else {
			put_tag(out, cap, used, TRAWL_CAPTURE_UNSIGNED);
			snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)s);
		}
		return put_raw(out, cap, used, buf, strlen(buf));
	}
	case TRAWL_USTCTL_APP_U8:
	case TRAWL_USTCTL_APP_U16:
	case TRAWL_USTCTL_APP_U32:
	case TRAWL_USTCTL_APP_U64:
		memcpy(&u, p + a->off, a->len); /* the app's byte order is ours */
		u = a->len == 1	  ? (uint8_t)u
		    : a->len == 2 ? (uint16_t)u
		    : a->len == 4 ? (uint32_t)u
				  : u;
		put_tag(out, cap, used, TRAWL_CAPTURE_UNSIGNED);
		snprintf(buf, sizeof(buf), "%" PRIu64, u);
		return put_raw(out, cap, used, buf, strlen(buf));
	case TRAWL_USTCTL_APP_FLOAT:
	case TRAWL_USTCTL_APP_DOUBLE:
		if (a->len == 4)
			memcpy(&f, p + a->off, 4), d = f;
		else
			memcpy(&d, p + a->off, 8);
		return put_real(out, cap, used, d);
	case TRAWL_USTCTL_APP_STRING:
		put_tag(out, cap, used, TRAWL_CAPTURE_STRING);
		return put_text(out, cap, used, (const char *)p + a->off, a->len);
	}
	put_unavailable(out, cap, used); /* NONE: no value */
}

uint32_t ust_capture_app_contexts(const char *descriptors,
				  char (*names)[TRAWL_USTCTL_APP_CTX_NAME_MAX])
{
	const char *d = descriptors, *end;
	uint32_t nr = 0, i;

	for (; d && *d; d = *end ? end + 1 : end) {
		size_t n;

		end = strchr(d, ',');
		if (!end)
			end = d + strlen(d);
		n = (size_t)(end - d);
		if (nr == TRAWL_USTCTL_MAX_APP_CTX || n >= TRAWL_USTCTL_APP_CTX_NAME_MAX ||
		    strncmp(d, "$app.", 5))
			continue;
		memcpy(names[nr], d, n);
		names[nr][n] = '\0';
		if (!trawl_ustctl_app_ctx_name_valid(names[nr]))
			continue; /* (an element's index too: a value is no array) */
		for (i = 0; i < nr; i++)
			if (!strcmp(names[i], names[nr]))
				break;
		if (i == nr)
			nr++;
	}
	return nr;
}

/* The field context bit @bit is written as, named as LTTng names it. */
static int context_field(uint32_t bit, const char *name, struct trawl_ustctl_field *f)
{
	memset(f, 0, sizeof(*f));
	if (strlen(name) >= sizeof(f->name))
		return -1;
	memcpy(f->name, name, strlen(name) + 1);
	f->type = TRAWL_USTCTL_FIELD_INTEGER;
	f->base = 10;
	switch (bit) {
	case TRAWL_USTCTL_CTX_PROCNAME:
		f->type = TRAWL_USTCTL_FIELD_ARRAY;
		f->size_bits = 8;
		f->is_signed = 1;
		f->is_text = 1;
		f->length = 17;
		return 0;
	case TRAWL_USTCTL_CTX_PTHREAD_ID:
	case TRAWL_USTCTL_CTX_IP:
		f->size_bits = 64;
		f->base = 16;
		return 0;
	default:
		f->size_bits = bit & TRAWL_USTCTL_CTX_NS_ALL ? 64 : 32;
		f->is_signed = !(bit & TRAWL_USTCTL_CTX_NS_ALL);
		return 0;
	}
}

uint32_t ust_capture_contexts(const char *descriptors)
{
	const char *d = descriptors, *end;
	uint32_t bits = 0, bit;

	for (; d && *d; d = *end ? end + 1 : end) {
		char name[TRAWL_USTCTL_FIELD_NAME_MAX];
		size_t n;

		end = strchr(d, ',');
		if (!end)
			end = d + strlen(d);
		n = (size_t)(end - d);
		if (n <= 5 || strncmp(d, "$ctx.", 5) || n - 5 >= sizeof(name))
			continue;
		memcpy(name, d + 5, n - 5);
		name[n - 5] = '\0';
		name[strcspn(name, "[")] = '\0';
		if (!trawl_ustctl_context_from_name(name, &bit))
			bits |= bit;
	}
	return bits;
}

/*
 * The context @name (after "$ctx.") among the @contexts the app writes: its
 * bit in *@bit and where it lies among them in *@off (bytes). 0, or -1 if
 * the app does not write it.
 */
static int context_find(const char *name, uint32_t contexts, uint32_t *bit, size_t *off)
{
	struct trawl_ustctl_field f;
	uint32_t b;

	if (trawl_ustctl_context_from_name(name, bit) || !(contexts & *bit) ||
	    context_field(*bit, name, &f))
		return -1;
	/* The ones before it, in the order of the bits (ustabi.h). */
	*off = 0;
	for (b = 1; b < *bit; b <<= 1)
		if (contexts & b)
			*off += trawl_ustctl_context_size(b);
	return 0;
}

/*
 * Plans. What each capture names is resolved once per (event description,
 * trigger), when the first hit comes (ust-notify.c keeps the plan beside
 * the notifier's event): an app describes an event with up to
 * TRAWL_WIRE_MAX_FIELDS fields and a trigger may carry hundreds of
 * captures, and looking each one up by name at every hit cost the daemon
 * captures x fields name comparisons a hit (0.6 ms with 204 captures of
 * the last of 512 fields), and each sequence's length field fields / 2
 * more. Resolving sorts the field names once (O(fields log fields),
 * whatever names the app chose), so a hit costs the layout of the fields
 * up to the last one captured and one line per capture, no name compared.
 */
enum cap_kind {
	CAP_NONE,    /* unavailable whatever the record holds */
	CAP_FIELD,   /* at: the payload field's index */
	CAP_CONTEXT, /* at: the context's bit; off: where it lies among the contexts */
	CAP_APP,     /* at: the application context's place among the values */
};

struct cap_item {
	enum cap_kind kind;
	uint32_t at;
	size_t off;
	long index; /* an element of an array or sequence, -1: the whole value */
};

struct ust_capture_plan {
	uint32_t nr_fields; /* of the event it was made for */
	uint32_t upto;      /* fields laid out at a hit: past the last one captured */
	uint32_t *length_of; /* owned, [upto]: each sequence's length field (layout()) */
	uint32_t contexts;
	int app_values;
	uint32_t nr_app; /* application contexts the app writes (ust_capture_app_contexts()) */
	uint32_t nr;
	struct cap_item item[]; /* one per capture, in order */
};

struct name_at {
	const char *name;
	uint32_t i;
};

static int name_at_cmp(const void *a, const void *b)
{
	const struct name_at *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* The first entry of @by (@nr, sorted) not before (@name, @i). */
static size_t name_bound(const struct name_at *by, size_t nr, const char *name, uint32_t i)
{
	struct name_at key = {name, i};
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (name_at_cmp(&by[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first field named @name (LTTng's lookup: the first of the name), or
 * @nr if none. */
static uint32_t field_first(const struct name_at *by, uint32_t nr, const char *name)
{
	size_t k = name_bound(by, nr, name, 0);

	return k < nr && !strcmp(by[k].name, name) ? by[k].i : nr;
}

/* Each sequence's length field among @ev's first @upto: the last field of
 * its length_name before it (the probe wrote that one just before), else
 * the sequence's own index (none: layout() stops there). */
static void plan_sequences(const struct trawl_ustctl_event *ev, const struct name_at *by,
			   uint32_t upto, uint32_t *length_of)
{
	uint32_t i;

	for (i = 0; i < upto; i++) {
		const struct trawl_ustctl_field *f = &ev->fields[i];
		size_t k;

		length_of[i] = i;
		if (f->type != TRAWL_USTCTL_FIELD_SEQUENCE)
			continue;
		k = name_bound(by, ev->nr_fields, f->length_name, i);
		if (k > 0 && !strcmp(by[k - 1].name, f->length_name))
			length_of[i] = by[k - 1].i;
	}
}

/* The capture @d (@n bytes of the descriptors) resolved into @it. */
static void plan_item(const struct trawl_ustctl_event *ev, const struct name_at *by,
		      uint32_t contexts, const char (*app)[TRAWL_USTCTL_APP_CTX_NAME_MAX],
		      uint32_t nr_app, const char *d, size_t n, struct cap_item *it)
{
	char name[TRAWL_USTCTL_FIELD_NAME_MAX + 16], *br;
	uint32_t i;

	it->kind = CAP_NONE;
	it->index = -1;
	if (!strncmp(d, "$app.", 5)) {
		for (i = 0; i < nr_app; i++)
			if (strlen(app[i]) == n && !memcmp(app[i], d, n))
				break;
		if (i < nr_app) {
			it->kind = CAP_APP;
			it->at = i;
		}
		return;
	}
	if (n >= sizeof(name))
		return;
	memcpy(name, d, n);
	name[n] = '\0';
	br = strchr(name, '[');
	if (br) {
		char *stop;

		it->index = strtol(br + 1, &stop, 10);
		if (stop == br + 1 || *stop != ']' || stop[1] || it->index < 0)
			return; /* not LTTng's form: no such field */
		*br = '\0';
	}
	if (name[0] == '$') {
		if (!strncmp(name, "$ctx.", 5) && !context_find(name + 5, contexts, &it->at, &it->off))
			it->kind = CAP_CONTEXT;
		return;
	}
	i = field_first(by, ev->nr_fields, name);
	if (i < ev->nr_fields) {
		it->kind = CAP_FIELD;
		it->at = i;
	}
}

/* How many captures @descriptors holds (joined by ','). */
static uint32_t count_captures(const char *d)
{
	uint32_t nr = 0;

	for (; d && *d; nr++) {
		d = strchr(d, ',');
		d = d ? d + 1 : "";
	}
	return nr;
}

int ust_capture_plan_create(const struct trawl_ustctl_event *ev, uint32_t contexts, int app_values,
			    const char *descriptors, struct ust_capture_plan **out)
{
	char app[TRAWL_USTCTL_MAX_APP_CTX][TRAWL_USTCTL_APP_CTX_NAME_MAX];
	uint32_t nr = count_captures(descriptors), k, i;
	struct ust_capture_plan *pl;
	const char *d = descriptors, *end;
	struct name_at *by;

	pl = calloc(1, sizeof(*pl) + (size_t)nr * sizeof(pl->item[0]));
	by = calloc(ev->nr_fields + 1, sizeof(*by));
	if (!pl || !by)
		goto err;
	for (i = 0; i < ev->nr_fields; i++)
		by[i] = (struct name_at){ev->fields[i].name, i};
	qsort(by, ev->nr_fields, sizeof(*by), name_at_cmp);
	pl->nr_fields = ev->nr_fields;
	pl->contexts = contexts;
	pl->app_values = app_values;
	pl->nr_app = app_values ? ust_capture_app_contexts(descriptors, app) : 0;
	for (k = 0; k < nr; k++, d = *end ? end + 1 : end) {
		end = strchr(d, ',');
		if (!end)
			end = d + strlen(d);
		plan_item(ev, by, contexts, (const char(*)[TRAWL_USTCTL_APP_CTX_NAME_MAX])app,
			  pl->nr_app, d, (size_t)(end - d), &pl->item[k]);
		if (pl->item[k].kind == CAP_FIELD && pl->item[k].at >= pl->upto)
			pl->upto = pl->item[k].at + 1;
	}
	pl->nr = nr;
	pl->length_of = calloc(pl->upto + 1, sizeof(*pl->length_of));
	if (!pl->length_of)
		goto err;
	plan_sequences(ev, by, pl->upto, pl->length_of);
	free(by);
	*out = pl;
	return 0;
err:
	free(by);
	free(pl);
	return -ENOMEM;
}

void ust_capture_plan_destroy(struct ust_capture_plan *pl)
{
	if (!pl)
		return;
	free(pl->length_of);
	free(pl);
}

size_t ust_capture_plan_size(const struct ust_capture_plan *pl)
{
	return sizeof(*pl) + (size_t)pl->nr * sizeof(pl->item[0]) +
	       ((size_t)pl->upto + 1) * sizeof(*pl->length_of);
}

int ust_capture_plan_fits(const struct ust_capture_plan *pl, const struct trawl_ustctl_event *ev)
{
	return pl->nr_fields == ev->nr_fields;
}

uint32_t ust_capture_plan_format(const struct ust_capture_plan *pl,
				 const struct trawl_ustctl_event *ev, const void *record,
				 size_t len, char *out, size_t cap)
{
	struct app_span as[TRAWL_USTCTL_MAX_APP_CTX];
	size_t ctx_size = trawl_ustctl_context_size(pl->contexts);
	/* A record shorter than its contexts: what is there of them, no payload. */
	size_t ctx_len = ctx_size <= len ? ctx_size : len, app_len = 0, used = 0;
	const unsigned char *p = (const unsigned char *)record + ctx_len, *ap = p;
	struct span *sp = calloc(pl->upto + 1, sizeof(*sp));
	uint32_t nr = 0, app_ok = 0, k;

	if (cap)
		out[0] = '\0';
	len -= ctx_len;
	if (pl->app_values) {
		app_ok = app_layout(ap, len, pl->nr_app, as, &app_len);
		p += app_len;
		len -= app_len;
	}
	/* (the payload's start is known only past every value: else no field is) */
	if (sp && app_ok == pl->nr_app)
		layout(ev, pl->upto, pl->length_of, p, len, sp);
	for (k = 0; k < pl->nr; k++) {
		const struct cap_item *it = &pl->item[k];
		struct trawl_ustctl_field cf;
		struct span cs;

		/* Room for this capture's line, however short (put_text()
		 * always leaves room for its end): else the rest are left out. */
		if (used + 2 > cap)
			break;
		nr++;
		switch (it->kind) {
		case CAP_APP:
			if (it->at < app_ok)
				put_app(out, cap, &used, ap, &as[it->at]);
			else
				put_unavailable(out, cap, &used);
			break;
		case CAP_CONTEXT:
			cs = (struct span){.off = it->off, .len = trawl_ustctl_context_size(it->at), .ok = 1};
			if (sp && it->off <= ctx_len && cs.len <= ctx_len - it->off &&
			    !context_field(it->at, "", &cf))
				put_field(out, cap, &used, &cf, record, &cs, it->index);
			else
				put_unavailable(out, cap, &used);
			break;
		case CAP_FIELD:
			if (sp && sp[it->at].ok)
				put_field(out, cap, &used, &ev->fields[it->at], p, &sp[it->at],
					  it->index);
			else
				put_unavailable(out, cap, &used);
			break;
		case CAP_NONE:
			put_unavailable(out, cap, &used);
			break;
		}
		out[used++] = '\n';
		out[used] = '\0';
	}
	free(sp);
	return nr;
}

uint32_t ust_capture_format(const struct trawl_ustctl_event *ev, uint32_t contexts, int app_values,
			    const void *record, size_t len, const char *descriptors, char *out,
			    size_t cap)
{
	struct ust_capture_plan *pl;
	uint32_t nr;

	if (cap)
		out[0] = '\0';
	if (ust_capture_plan_create(ev, contexts, app_values, descriptors, &pl))
		return 0;
	nr = ust_capture_plan_format(pl, ev, record, len, out, cap);
	ust_capture_plan_destroy(pl);
	return nr;
}
