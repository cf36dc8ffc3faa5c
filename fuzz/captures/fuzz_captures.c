/* SPDX-License-Identifier: MIT */
/*
 * fuzz_captures.c - libFuzzer target for a trigger's captured values on
 * their way from a traced app to a program (common/capture.h): the session
 * daemon's reading of an app's hit (src/sessiond/ust-capture.c: the
 * event's fields as the app registered them, the record from the app's
 * ring, the trigger's capture descriptors; every byte of the record is the
 * app's), then libtrawl-ctl's parsing of the lines the daemon wrote
 * (src/ctl/notify.c, included here for its static parser) and every typed
 * getter on each value. Also the parser on the input's bytes as they are
 * (what a daemon of another version, or a bug, would send).
 *
 * Input: byte 0: the event's number of fields (1..6); 4 bytes a field
 * (type, size, flags: signed/hex/text/big-endian, array length or
 * sequence's length field); 4 bytes of context bits (the top one: the
 * record holds the application contexts' values, ABI minor 13, after
 * them); 2 bytes: the room
 * for the text (1..2100); the descriptors up to a NUL; the record (the
 * rest, copied to a buffer of exactly its size: ASan sees any read past
 * it).
 *
 * Checked: the text is NUL-terminated within its room and has as many
 * lines as the count returned; the parser takes what was written, its
 * values are of the types the getters say.
 */
#include "ctl/notify.c"
#include "sessiond/ust-internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libtrawl-ctl's connection, which notify.c's channel uses (not its parser):
 * never called here */
void ctl_req_init(struct trawl_ctl_wire_req *r)
{
	(void)r;
	abort();
}

int ctl_send_req(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req)
{
	(void)ctl, (void)cmd, (void)req;
	abort();
}

int ctl_recv_reply(struct trawl_ctl *ctl, uint16_t cmd, struct trawl_ctl_list **out)
{
	(void)ctl, (void)cmd, (void)out;
	abort();
}

static volatile size_t sink;

static void walk_value(const struct trawl_ctl_capture_value *v)
{
	uint64_t u;
	int64_t s;
	double d;
	const char *str;
	uint32_t i, n;

	sink += (size_t)trawl_ctl_capture_value_type(v);
	sink += !trawl_ctl_capture_value_unsigned(v, &u) ? (size_t)u : 0;
	sink += !trawl_ctl_capture_value_signed(v, &s) ? (size_t)s : 0;
	sink += !trawl_ctl_capture_value_real(v, &d) ? (size_t)(d == d) : 0;
	str = trawl_ctl_capture_value_string(v);
	sink += str ? strlen(str) : 0;
	n = trawl_ctl_capture_value_array_length(v);
	for (i = 0; i < n; i++) {
		const struct trawl_ctl_capture_value *e = trawl_ctl_capture_value_array_element(v, i);

		if (!e)
			abort();
		sink += !trawl_ctl_capture_value_unsigned(e, &u) ? (size_t)u : 0;
	}
	if (trawl_ctl_capture_value_array_element(v, n))
		abort();
}

/* The lines @text (@nr of them) as libtrawl-ctl takes them. */
static void parse(const char *text, uint32_t nr, int must)
{
	struct trawl_ctl_notification *n = calloc(1, sizeof(*n));
	uint32_t i;
	int ret;

	if (!n)
		return;
	ret = captures_split(n, text, nr);
	if (ret) {
		if (must && ret != -ENOMEM)
			abort(); /* the daemon's own lines must parse */
		free(n);
		return;
	}
	for (i = 0; i < nr; i++) {
		const char *t = trawl_ctl_notification_capture(n, i);

		if (!t || !trawl_ctl_notification_capture_value(n, i))
			abort();
		sink += strlen(t);
		walk_value(trawl_ctl_notification_capture_value(n, i));
	}
	if (trawl_ctl_notification_capture_value(n, nr))
		abort();
	trawl_ctl_notification_destroy(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sizes[] = {8, 16, 32, 64};
	static const enum trawl_ustctl_field_type types[] = {
		TRAWL_USTCTL_FIELD_INTEGER, TRAWL_USTCTL_FIELD_ENUM,  TRAWL_USTCTL_FIELD_FLOAT,
		TRAWL_USTCTL_FIELD_STRING,  TRAWL_USTCTL_FIELD_ARRAY, TRAWL_USTCTL_FIELD_SEQUENCE,
		(enum trawl_ustctl_field_type)0};
	struct trawl_ustctl_field fields[6];
	struct trawl_ustctl_event ev;
	uint32_t contexts, nr, i, k, lines;
	int app_values;
	size_t pos = 0, cap, dl, rlen;
	const char *nul;
	char *desc, *out, *raw;
	unsigned char *rec;

	/* the parser alone, on the bytes as they come */
	raw = malloc(size + 1);
	if (!raw)
		return 0;
	memcpy(raw, data, size);
	raw[size] = '\0';
	for (lines = 0, i = 0; i < size && raw[i]; i++)
		lines += raw[i] == '\n';
	parse(raw, lines < TRAWL_CTL_NOTIFY_CAPTURES_MAX ? lines + (size & 1) : lines, 0);
	free(raw);

	if (size < 1 + 6 * 4 + 4 + 2)
		return 0;
	memset(&ev, 0, sizeof(ev));
	memset(fields, 0, sizeof(fields));
	snprintf(ev.name, sizeof(ev.name), "p:e");
	ev.nr_fields = 1u + data[pos++] % 6u;
	ev.fields = fields;
	for (i = 0; i < 6; i++, pos += 4) {
		struct trawl_ustctl_field *f = &fields[i];
		uint8_t fl = data[pos + 2];

		snprintf(f->name, sizeof(f->name), "f%u", (unsigned)i);
		f->type = types[data[pos] % 7u];
		f->size_bits = sizes[data[pos + 1] & 3u];
		if (f->type == TRAWL_USTCTL_FIELD_FLOAT)
			f->size_bits = data[pos + 1] & 1u ? 64 : 32; /* as wire-decode.c takes them */
		f->is_signed = fl & 1u;
		f->base = fl & 2u ? 16 : 10;
		f->is_text = !!(fl & 4u);
		f->byte_order = fl & 8u ? TRAWL_USTCTL_BYTE_ORDER_BE : TRAWL_USTCTL_BYTE_ORDER_NATIVE;
		f->length = data[pos + 3];
		k = i ? data[pos + 3] % i : 0;
		snprintf(f->length_name, sizeof(f->length_name), "f%u", (unsigned)k);
	}
	memcpy(&contexts, data + pos, 4);
	pos += 4;
	app_values = (int)(contexts >> 31);
	contexts &= ~(UINT32_C(1) << 31);
	cap = 1u + ((size_t)data[pos] << 8 | data[pos + 1]) % 2100u;
	pos += 2;
	nul = memchr(data + pos, '\0', size - pos);
	dl = nul ? (size_t)(nul - (const char *)(data + pos)) : size - pos;
	desc = malloc(dl + 1);
	out = malloc(cap);
	rlen = size - pos - dl - !!nul;
	rec = malloc(rlen ? rlen : 1);
	if (!desc || !out || !rec)
		goto out;
	memcpy(desc, data + pos, dl);
	desc[dl] = '\0';
	memcpy(rec, data + pos + dl + !!nul, rlen);
	nr = ust_capture_format(&ev, contexts, app_values, rec, rlen, desc, out, cap);
	sink += ust_capture_contexts(desc);
	{
		char names[TRAWL_USTCTL_MAX_APP_CTX][TRAWL_USTCTL_APP_CTX_NAME_MAX];
		uint32_t nr_app = ust_capture_app_contexts(desc, names);

		if (nr_app > TRAWL_USTCTL_MAX_APP_CTX)
			abort();
		for (i = 0; i < nr_app; i++)
			if (!trawl_ustctl_app_ctx_name_valid(names[i]))
				abort();
	}
	if (cap > 0) {
		if (!memchr(out, '\0', cap))
			abort();
		for (lines = 0, i = 0; out[i]; i++)
			lines += out[i] == '\n';
		if (lines != nr)
			abort();
		if (nr <= TRAWL_CTL_NOTIFY_CAPTURES_MAX)
			parse(out, nr, 1);
	}
out:
	free(desc);
	free(out);
	free(rec);
	return 0;
}
