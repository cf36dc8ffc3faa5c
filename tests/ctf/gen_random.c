/* SPDX-License-Identifier: MIT */
/*
 * Random type trees, random values: the encoder's alignment and bit-packing
 * rules against babeltrace2 on shapes nobody thought to write by hand.
 *
 * From a seed, builds event classes whose payloads are random trees of
 * integers (1..64 bits, any power-of-two alignment, explicit byte orders
 * where CTF allows them), floats, strings, enums, arrays, sequences and
 * nested structs (with minimum alignments), writes events with random
 * values into two streams (compact and large headers, one with an event
 * context), and writes DIR.json with every value. check_random.py reads the
 * trace back with bt2 and compares.
 *
 *   gen_random DIR le|be SEED
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum kind { K_INT, K_FLOAT, K_STRING, K_ENUM, K_ARRAY, K_SEQ, K_STRUCT };

#define MAX_FIELDS 5

struct node {
	enum kind kind;
	unsigned size, align, is_signed; /* K_INT, K_ENUM (container), K_FLOAT */
	enum trawl_ctf_byte_order bo;
	unsigned length;                 /* K_ARRAY */
	struct node *elem;               /* K_ARRAY, K_SEQ */
	unsigned nr;                     /* K_STRUCT */
	char names[MAX_FIELDS][16];
	struct node *fields[MAX_FIELDS];
};

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static unsigned node_align(const struct node *n)
{
	unsigned a, i;

	switch (n->kind) {
	case K_STRING:
		return 8;
	case K_ARRAY:
	case K_SEQ:
		return node_align(n->elem);
	case K_STRUCT:
		a = n->align;
		for (i = 0; i < n->nr; i++)
			if (node_align(n->fields[i]) > a)
				a = node_align(n->fields[i]);
		return a;
	default:
		return n->align;
	}
}

/* @mode: 0 anything, 1 a scalar, 2 no array or sequence (an array's element). */
static struct node *gen_node(int depth, int mode)
{
	static const unsigned aligns[] = { 1, 1, 1, 2, 4, 8, 8, 8, 16, 32, 64 };
	struct node *n = calloc(1, sizeof(*n));
	unsigned r;

	if (!n)
		abort();
	if (mode == 1 || depth >= 3)
		r = pick(4);
	else if (mode == 2)
		r = (unsigned[]){ K_INT, K_FLOAT, K_STRING, K_ENUM, K_STRUCT }[pick(5)];
	else
		r = pick(7);
	n->kind = (enum kind)r;
	switch (n->kind) {
	case K_INT:
	case K_ENUM:
		n->size = 1 + pick(64);
		n->is_signed = pick(2);
		n->align = aligns[pick(sizeof(aligns) / sizeof(aligns[0]))];
		if (n->kind == K_ENUM && n->size < 8)
			n->size = 8;
		n->bo = TRAWL_CTF_BO_NATIVE;
		if (n->size % 8 == 0 && n->align >= 8 && pick(3) == 0)
			n->bo = pick(2) ? TRAWL_CTF_BO_BE : TRAWL_CTF_BO_LE;
		break;
	case K_FLOAT:
		n->size = pick(2) ? 32 : 64;
		n->align = (unsigned[]){ 8, 32, 64 }[pick(3)];
		break;
	case K_STRING:
		break;
	case K_ARRAY:
		n->length = pick(4);
		n->elem = gen_node(depth + 1, 2);
		break;
	case K_SEQ:
		n->elem = gen_node(depth + 1, 2);
		break;
	case K_STRUCT:
		n->align = (unsigned[]){ 1, 8, 32, 64 }[pick(4)];
		n->nr = pick(MAX_FIELDS);
		for (unsigned i = 0; i < n->nr; i++) {
			snprintf(n->names[i], sizeof(n->names[i]), "f%u", i);
			n->fields[i] = gen_node(depth + 1, 0);
		}
		break;
	}
	return n;
}

static void free_node(struct node *n)
{
	if (!n)
		return;
	free_node(n->elem);
	for (unsigned i = 0; i < n->nr; i++)
		free_node(n->fields[i]);
	free(n);
}

static struct trawl_ctf_type *to_type(const struct node *n);

/* Adds field @name of node @n to @st; a sequence gets its length field first. */
static void add_field(struct trawl_ctf_type *st, const char *name, const struct node *n)
{
	if (n->kind == K_SEQ) {
		char len_name[40];

		snprintf(len_name, sizeof(len_name), "%s_len", name);
		if (trawl_ctf_type_struct_add(st, len_name, trawl_ctf_type_integer_create(8, 0, 8)) ||
		    trawl_ctf_type_struct_add(st, name, trawl_ctf_type_sequence_create(
			to_type(n->elem), len_name)))
			abort();
		return;
	}
	if (trawl_ctf_type_struct_add(st, name, to_type(n)))
		abort();
}

static struct trawl_ctf_type *to_type(const struct node *n)
{
	struct trawl_ctf_type *t = NULL;

	switch (n->kind) {
	case K_INT:
	case K_ENUM:
		t = trawl_ctf_type_integer_create(n->size, (int)n->is_signed, n->align);
		if (t && n->bo != TRAWL_CTF_BO_NATIVE && trawl_ctf_type_integer_set_byte_order(t, n->bo))
			abort();
		if (t && n->kind == K_ENUM) {
			t = trawl_ctf_type_enum_create(t);
			if (!t || trawl_ctf_type_enum_add(t, "ZERO", 0, 0) ||
			    trawl_ctf_type_enum_add(t, "SOME", 1, 100))
				abort();
		}
		break;
	case K_FLOAT:
		t = trawl_ctf_type_float_create(n->size, n->align);
		break;
	case K_STRING:
		t = trawl_ctf_type_string_create();
		break;
	case K_ARRAY:
		t = trawl_ctf_type_array_create(to_type(n->elem), n->length);
		break;
	case K_SEQ:
		abort(); /* only as a struct field (add_field) */
	case K_STRUCT:
		t = trawl_ctf_type_struct_create(n->align);
		for (unsigned i = 0; t && i < n->nr; i++)
			add_field(t, n->names[i], n->fields[i]);
		break;
	}
	if (!t)
		abort();
	return t;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *const strings[] = {
	"", "x", "hello-anchor", "h\xc3\xa9llo \xf0\x9f\x90\x9f", "tab\there \"q\" \\",
};

static uint64_t int_value(const struct node *n)
{
	uint64_t mask = n->size == 64 ? UINT64_MAX : (UINT64_C(1) << n->size) - 1;
	uint64_t v;

	switch (pick(n->kind == K_ENUM ? 3 : 6)) {
	case 0:
		v = 0;
		break;
	case 1:
		v = 1 + pick(100);
		break;
	case 2:
		v = rnd();
		break;
	case 3:
		v = mask; /* unsigned max or -1 */
		break;
	case 4:
		v = mask >> 1; /* signed max */
		break;
	default:
		v = (mask >> 1) + 1; /* signed min */
		break;
	}
	return v & mask;
}

static void write_value(struct trawl_ctf_stream *s, const struct node *n, FILE *js);

static void write_struct(struct trawl_ctf_stream *s, const struct node *n, FILE *js)
{
	trawl_ctf_write_align(s, node_align(n));
	fputc('{', js);
	for (unsigned i = 0; i < n->nr; i++) {
		const struct node *f = n->fields[i];

		if (i)
			fputc(',', js);
		if (f->kind == K_SEQ) {
			unsigned len = pick(5);

			trawl_ctf_write_uint(s, len, 8, 8, TRAWL_CTF_BO_NATIVE);
			fprintf(js, "\"%s_len\":%u,\"%s\":[", n->names[i], len, n->names[i]);
			trawl_ctf_write_align(s, node_align(f->elem));
			for (unsigned j = 0; j < len; j++) {
				if (j)
					fputc(',', js);
				write_value(s, f->elem, js);
			}
			fputc(']', js);
			continue;
		}
		fprintf(js, "\"%s\":", n->names[i]);
		write_value(s, f, js);
	}
	fputc('}', js);
}

static void write_value(struct trawl_ctf_stream *s, const struct node *n, FILE *js)
{
	static const float f32s[] = { 0.0f, -0.0f, 1.5f, -3.25e-38f, 3.4e38f, 1.0f / 0.0f };
	static const double f64s[] = { 0.0, -0.0, 1e-308, 4.9e-324, -2.5, -1.0 / 0.0 };
	uint64_t v, bits;

	switch (n->kind) {
	case K_INT:
	case K_ENUM:
		v = int_value(n);
		trawl_ctf_write_uint(s, v, n->size, n->align, n->bo);
		if (n->is_signed && n->size < 64 && (v >> (n->size - 1)) & 1)
			v |= ~((UINT64_C(1) << n->size) - 1); /* sign-extend */
		if (n->is_signed)
			fprintf(js, "%" PRId64, (int64_t)v);
		else
			fprintf(js, "%" PRIu64, v);
		break;
	case K_FLOAT:
		if (n->size == 32) {
			float f = f32s[pick(6)];
			uint32_t b;

			if (pick(4) == 0)
				f = (float)(int32_t)rnd() / 7.0f;
			memcpy(&b, &f, 4);
			bits = b;
			trawl_ctf_write_float(s, f, n->align, TRAWL_CTF_BO_NATIVE);
		} else {
			double d = f64s[pick(6)];

			if (pick(4) == 0)
				d = (double)(int64_t)rnd() / 3.0;
			memcpy(&bits, &d, 8);
			trawl_ctf_write_double(s, d, n->align, TRAWL_CTF_BO_NATIVE);
		}
		fprintf(js, "{\"float%u\":%" PRIu64 "}", n->size, bits);
		break;
	case K_STRING: {
		const char *str = strings[pick(5)];

		trawl_ctf_write_string(s, str);
		json_str(js, str);
		break;
	}
	case K_ARRAY:
		trawl_ctf_write_align(s, node_align(n->elem));
		fputc('[', js);
		for (unsigned j = 0; j < n->length; j++) {
			if (j)
				fputc(',', js);
			write_value(s, n->elem, js);
		}
		fputc(']', js);
		break;
	case K_SEQ:
		abort();
	case K_STRUCT:
		write_struct(s, n, js);
		break;
	}
}

#define NR_CLASSES 12
#define NR_EVENTS 400

int main(int argc, char **argv)
{
	struct node *payload[NR_CLASSES], *ctx;
	struct trawl_ctf_stream *st[2];
	struct trawl_ctf_trace *t;
	uint64_t ts[2] = { 1000, 1000 };
	char path[4200];
	FILE *js;

	if (argc != 4) {
		fprintf(stderr, "usage: gen_random DIR le|be SEED\n");
		return 2;
	}
	rng = strtoull(argv[3], NULL, 0) | 1;
	mkdir(argv[1], 0755);
	t = trawl_ctf_trace_create(!strcmp(argv[2], "be"));
	if (!t || trawl_ctf_trace_add_monotonic_clock(t) ||
	    trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, NULL, "monotonic"))
		return 1;
	/* Stream class 1: large headers and a random struct as event context. */
	ctx = gen_node(0, 0);
	if (ctx->kind != K_STRUCT)
		ctx->align = 8;
	ctx->kind = K_STRUCT;
	if (!ctx->nr) {
		ctx->nr = 1;
		snprintf(ctx->names[0], sizeof(ctx->names[0]), "f0");
		ctx->fields[0] = gen_node(1, 1);
	}
	free_node(ctx->elem);
	ctx->elem = NULL;
	if (trawl_ctf_trace_add_stream_class(t, 1, TRAWL_CTF_HEADER_LARGE, to_type(ctx), "monotonic"))
		return 1;
	for (unsigned c = 0; c < NR_CLASSES; c++) {
		struct node *p = calloc(1, sizeof(*p));
		char name[32];

		if (!p)
			return 1;
		p->kind = K_STRUCT;
		p->align = (unsigned[]){ 1, 8, 32, 64 }[pick(4)];
		p->nr = 1 + pick(MAX_FIELDS - 1);
		for (unsigned i = 0; i < p->nr; i++) {
			snprintf(p->names[i], sizeof(p->names[i]), "f%u", i);
			p->fields[i] = gen_node(0, 0);
		}
		payload[c] = p;
		snprintf(name, sizeof(name), "rnd:c%u", c);
		if (trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
			.name = name, .id = c, .stream_id = c % 2, .loglevel = -1 }, to_type(p)))
			return 1;
	}
	snprintf(path, sizeof(path), "%s/metadata", argv[1]);
	if (trawl_ctf_trace_write_metadata(t, path, 0))
		return 1;
	st[0] = trawl_ctf_stream_create(t, 0, argv[1], "chan_0", 0, 0, 4096);
	st[1] = trawl_ctf_stream_create(t, 1, argv[1], "chan_1", 1, 1, 8192);
	snprintf(path, sizeof(path), "%s.json", argv[1]);
	js = fopen(path, "w");
	if (!st[0] || !st[1] || !js)
		return 1;
	fputs("[\n", js);
	for (unsigned e = 0; e < NR_EVENTS; e++) {
		unsigned c = pick(NR_CLASSES), sid = c % 2;
		int ret;

		/* Mostly small steps, sometimes gaps the compact header cannot span. */
		ts[sid] += pick(8) ? pick(1000) : rnd() % (UINT64_C(1) << 36);
		if (trawl_ctf_event_begin(st[sid], c, ts[sid]))
			return 1;
		fprintf(js, "%s{\"stream\":%u,\"name\":\"rnd:c%u\",\"ts\":%" PRIu64, e ? ",\n" : "",
			sid, c, ts[sid]);
		if (sid == 1) {
			fputs(",\"ctx\":", js);
			write_struct(st[1], ctx, js);
			trawl_ctf_event_payload(st[1]);
		}
		fputs(",\"f\":", js);
		write_struct(st[sid], payload[c], js);
		fputc('}', js);
		ret = trawl_ctf_event_end(st[sid]);
		if (ret) {
			fprintf(stderr, "event %u (class %u): %d\n", e, c, ret);
			return 1;
		}
	}
	fputs("\n]\n", js);
	fclose(js);
	if (trawl_ctf_stream_close(st[0]) || trawl_ctf_stream_close(st[1]))
		return 1;
	trawl_ctf_trace_destroy(t);
	for (unsigned c = 0; c < NR_CLASSES; c++)
		free_node(payload[c]);
	free_node(ctx);
	return 0;
}
