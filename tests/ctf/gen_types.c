/* SPDX-License-Identifier: MIT */
/*
 * Writes a CTF trace covering every field type the writer offers, with
 * random values and extremes, and a JSON file of the values written, which
 * check_types.py compares with what babeltrace2 reads.
 *
 *   gen_types DIR le|be compact|large SEED
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHECK(x)                                                                  \
	do {                                                                      \
		int r_ = (x);                                                     \
		if (r_) {                                                         \
			fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_); \
			exit(1);                                                  \
		}                                                                 \
	} while (0)

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct trawl_ctf_type *integer(unsigned size, int sign, unsigned align, unsigned base,
				      enum trawl_ctf_byte_order bo)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(size, sign, align);

	if (!t || trawl_ctf_type_integer_set_base(t, base) ||
	    trawl_ctf_type_integer_set_byte_order(t, bo)) {
		fprintf(stderr, "integer type\n");
		exit(1);
	}
	return t;
}

/* The integer fields of event "ints": size, signedness, alignment, base, byte order. */
static const struct {
	const char *name;
	unsigned size, sign, align, base;
	enum trawl_ctf_byte_order bo;
} ints[] = {
	{ "u1", 1, 0, 1, 10, TRAWL_CTF_BO_NATIVE },   { "s1", 1, 1, 1, 10, TRAWL_CTF_BO_NATIVE },
	{ "u5", 5, 0, 1, 10, TRAWL_CTF_BO_NATIVE },   { "s7", 7, 1, 1, 10, TRAWL_CTF_BO_NATIVE },
	{ "u63", 63, 0, 1, 10, TRAWL_CTF_BO_NATIVE }, { "s63", 63, 1, 8, 10, TRAWL_CTF_BO_NATIVE },
	{ "u64", 64, 0, 8, 10, TRAWL_CTF_BO_NATIVE }, { "s64", 64, 1, 8, 10, TRAWL_CTF_BO_NATIVE },
	{ "x8", 8, 0, 8, 16, TRAWL_CTF_BO_NATIVE },   { "o16", 16, 0, 8, 8, TRAWL_CTF_BO_NATIVE },
	{ "b32", 32, 0, 8, 2, TRAWL_CTF_BO_NATIVE },  { "be32", 32, 1, 8, 10, TRAWL_CTF_BO_BE },
	{ "le16", 16, 1, 8, 10, TRAWL_CTF_BO_LE },    { "net24", 24, 0, 8, 16, TRAWL_CTF_BO_NETWORK },
	{ "u13a32", 13, 0, 32, 10, TRAWL_CTF_BO_NATIVE }, { "s33", 33, 1, 1, 10, TRAWL_CTF_BO_NATIVE }, { "be40", 40, 1, 8, 10, TRAWL_CTF_BO_BE },
	{ "s64a64", 64, 1, 64, 10, TRAWL_CTF_BO_NATIVE },
};
#define NR_INTS (sizeof(ints) / sizeof(ints[0]))

static int64_t int_value(unsigned size, int sign, int i)
{
	uint64_t max = size == 64 ? UINT64_MAX : (UINT64_C(1) << size) - 1;
	uint64_t v;

	switch (i) {
	case 0: /* the smallest */
		return sign ? (size == 64 ? INT64_MIN : -(INT64_C(1) << (size - 1))) : 0;
	case 1: /* the largest */
		return sign ? (int64_t)(max >> 1) : (int64_t)max;
	case 2:
		return sign ? -1 : 1;
	default:
		v = rnd() & max;
		if (sign && size < 64 && (v >> (size - 1)))
			v |= ~max; /* sign-extend */
		return (int64_t)v;
	}
}

static void json_str(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

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
	"", "hello-anchor", "h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac \xf0\x9f\x90\x9f", "tab\there",
	"quote\" and backslash\\",
};

int main(int argc, char **argv)
{
	struct trawl_ctf_trace *t;
	struct trawl_ctf_stream *st[2];
	struct trawl_ctf_type *p, *e;
	enum trawl_ctf_header_kind kind;
	char path[4096];
	uint64_t ts = 1000;
	unsigned i, ev;
	FILE *js;
	int be;

	if (argc != 5) {
		fprintf(stderr, "usage: gen_types DIR le|be compact|large SEED\n");
		return 2;
	}
	be = !strcmp(argv[2], "be");
	kind = !strcmp(argv[3], "large") ? TRAWL_CTF_HEADER_LARGE : TRAWL_CTF_HEADER_COMPACT;
	rng = strtoull(argv[4], NULL, 0) | 1;
	mkdir(argv[1], 0755);

	t = trawl_ctf_trace_create(be);
	CHECK(!t);
	CHECK(trawl_ctf_trace_env_add_string(t, "hostname", "testhost"));
	CHECK(trawl_ctf_trace_env_add_string(t, "domain", "ust"));
	CHECK(trawl_ctf_trace_env_add_string(t, "tracer_name", "trawl"));
	CHECK(trawl_ctf_trace_env_add_int(t, "tracer_major", 0));
	CHECK(trawl_ctf_trace_add_monotonic_clock(t));
	/* Stream 0: no event context; stream 1: vtid + procname context. */
	CHECK(trawl_ctf_trace_add_stream_class(t, 0, kind, NULL, "monotonic"));
	p = trawl_ctf_type_struct_create(8);
	CHECK(trawl_ctf_type_struct_add(p, "vtid", integer(32, 1, 8, 10, TRAWL_CTF_BO_NATIVE)));
	CHECK(trawl_ctf_type_struct_add(p, "procname", trawl_ctf_type_array_create(
		({ struct trawl_ctf_type *c = integer(8, 0, 8, 10, TRAWL_CTF_BO_NATIVE);
		   trawl_ctf_type_integer_set_utf8(c); c; }), 16)));
	CHECK(trawl_ctf_trace_add_stream_class(t, 1, kind, p, "monotonic"));

	/* Event 0 "ints": every integer flavour. */
	p = trawl_ctf_type_struct_create(8);
	for (i = 0; i < NR_INTS; i++)
		CHECK(trawl_ctf_type_struct_add(p, ints[i].name, integer(ints[i].size, ints[i].sign,
			ints[i].align, ints[i].base, ints[i].bo)));
	CHECK(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "test:ints", .id = 0, .stream_id = 0, .loglevel = 13 }, p));
	/* Event 1 "misc": floats, enums, strings, arrays, sequences, text, struct. */
	p = trawl_ctf_type_struct_create(8);
	CHECK(trawl_ctf_type_struct_add(p, "f32", trawl_ctf_type_float_create(32, 8)));
	CHECK(trawl_ctf_type_struct_add(p, "f64", trawl_ctf_type_float_create(64, 64)));
	e = trawl_ctf_type_enum_create(integer(8, 1, 8, 10, TRAWL_CTF_BO_NATIVE));
	CHECK(trawl_ctf_type_enum_add(e, "ZERO", 0, 0));
	CHECK(trawl_ctf_type_enum_add(e, "small \"range\"", 1, 5));
	CHECK(trawl_ctf_type_enum_add(e, "NEG", -128, -100));
	CHECK(trawl_ctf_type_struct_add(p, "es", e));
	e = trawl_ctf_type_enum_create(integer(64, 0, 8, 10, TRAWL_CTF_BO_NATIVE));
	CHECK(trawl_ctf_type_enum_add(e, "BIG", (int64_t)(UINT64_MAX - 10), (int64_t)UINT64_MAX));
	CHECK(trawl_ctf_type_enum_add(e, "ONE", 1, 1));
	CHECK(trawl_ctf_type_struct_add(p, "eu", e));
	CHECK(trawl_ctf_type_struct_add(p, "str", trawl_ctf_type_string_create()));
	CHECK(trawl_ctf_type_struct_add(p, "arr", trawl_ctf_type_array_create(
		integer(32, 1, 8, 10, TRAWL_CTF_BO_NATIVE), 4)));
	CHECK(trawl_ctf_type_struct_add(p, "n", integer(32, 0, 8, 10, TRAWL_CTF_BO_NATIVE)));
	CHECK(trawl_ctf_type_struct_add(p, "seq", trawl_ctf_type_sequence_create(
		integer(16, 0, 8, 16, TRAWL_CTF_BO_NATIVE), "n")));
	{
		struct trawl_ctf_type *c = integer(8, 1, 8, 10, TRAWL_CTF_BO_NATIVE);

		CHECK(trawl_ctf_type_integer_set_utf8(c));
		CHECK(trawl_ctf_type_struct_add(p, "txt", trawl_ctf_type_array_create(c, 8)));
		c = integer(8, 1, 8, 10, TRAWL_CTF_BO_NATIVE);
		CHECK(trawl_ctf_type_integer_set_utf8(c));
		CHECK(trawl_ctf_type_struct_add(p, "tn", integer(8, 0, 8, 10, TRAWL_CTF_BO_NATIVE)));
		CHECK(trawl_ctf_type_struct_add(p, "tseq", trawl_ctf_type_sequence_create(c, "tn")));
	}
	{
		struct trawl_ctf_type *s = trawl_ctf_type_struct_create(8);

		CHECK(trawl_ctf_type_struct_add(s, "x", integer(3, 0, 1, 10, TRAWL_CTF_BO_NATIVE)));
		CHECK(trawl_ctf_type_struct_add(s, "y", trawl_ctf_type_string_create()));
		CHECK(trawl_ctf_type_struct_add(p, "st", s));
	}
	CHECK(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "test:misc", .id = 1, .stream_id = 0, .loglevel = 4,
		.emf_uri = "http://example.com/misc" }, p));
	/* Events 2..39 in stream 1 (ids above 30 need the extended header). */
	for (ev = 2; ev < 40; ev++) {
		char name[32];

		snprintf(name, sizeof(name), "test:ev%u", ev);
		p = trawl_ctf_type_struct_create(8);
		CHECK(trawl_ctf_type_struct_add(p, "v", integer(64, 0, 8, 10, TRAWL_CTF_BO_NATIVE)));
		CHECK(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
			.name = name, .id = ev, .stream_id = 1, .loglevel = -1 }, p));
	}
	snprintf(path, sizeof(path), "%s/metadata", argv[1]);
	CHECK(trawl_ctf_trace_write_metadata(t, path, be)); /* be traces: packetized metadata */

	/* Stream 0's packets hold the 10,000-element sequence (20 KB). */
	st[0] = trawl_ctf_stream_create(t, 0, argv[1], "chan_0", 0, 0, 32768);
	st[1] = trawl_ctf_stream_create(t, 1, argv[1], "chan_1", 1, 1, 4096);
	CHECK(!st[0] || !st[1]);
	snprintf(path, sizeof(path), "%s.json", argv[1]);
	js = fopen(path, "w");
	CHECK(!js);
	fprintf(js, "[\n");
	for (ev = 0; ev < 600; ev++) {
		/* Timestamp steps: small, then past 2^27 and 2^32 ns now and then. */
		ts += ev % 97 == 5 ? (UINT64_C(1) << 33) + 7 : ev % 13 == 3 ? (UINT64_C(1) << 27) + 1 : rnd() % 5000;
		fprintf(js, "%s{\"ts\": %" PRIu64, ev ? ",\n" : "", ts);
		if (ev % 3 == 0) {
			CHECK(trawl_ctf_event_begin(st[0], 0, ts));
			fprintf(js, ", \"stream\": 0, \"name\": \"test:ints\", \"f\": {");
			for (i = 0; i < NR_INTS; i++) {
				int64_t v = int_value(ints[i].size, ints[i].sign, ev / 3);

				CHECK(trawl_ctf_write_int(st[0], v, ints[i].size, ints[i].align, ints[i].bo));
				if (ints[i].sign)
					fprintf(js, "%s\"%s\": %" PRId64, i ? ", " : "", ints[i].name, v);
				else
					fprintf(js, "%s\"%s\": %" PRIu64, i ? ", " : "", ints[i].name,
						(uint64_t)v & (ints[i].size == 64 ? UINT64_MAX : (UINT64_C(1) << ints[i].size) - 1));
			}
			CHECK(trawl_ctf_event_end(st[0]));
			fprintf(js, "}");
		} else if (ev % 3 == 1) {
			static const float f32s[] = { NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 1.5f, -3.25e-38f, 3.4e38f };
			static const double f64s[] = { NAN, -INFINITY, INFINITY, -0.0, 1e-308, 4.9e-324, 1.7976931348623157e308, -2.5 };
			static const int64_t es[] = { 0, 3, -120, 100, -1, 5 };
			static const uint64_t eu[] = { UINT64_MAX, 1, 2, UINT64_MAX - 11, 0 };
			static uint16_t seq[10000];
			float f = ev < 24 ? f32s[ev / 3 % 8] : (float)((double)(int64_t)rnd() / 1e9);
			double d = ev < 24 ? f64s[ev / 3 % 8] : (double)(int64_t)rnd() / 7.0;
			const char *s = strings[ev % 5];
			uint32_t n = ev == 4 ? 10000 : ev == 7 ? 0 : (uint32_t)(rnd() % 20);
			int32_t arr[4];
			char txt[8] = "abc", tseq[20];
			uint8_t tn = (uint8_t)(rnd() % 20);
			unsigned x = (unsigned)(rnd() & 7);
			uint32_t fb;
			uint64_t db;

			memcpy(&fb, &f, 4);
			memcpy(&db, &d, 8);
			for (i = 0; i < 4; i++)
				arr[i] = (int32_t)int_value(32, 1, (int)(ev + i) % 5);
			for (i = 0; i < n; i++)
				seq[i] = (uint16_t)rnd();
			for (i = 0; i < tn; i++)
				tseq[i] = (char)('a' + rnd() % 26);
			if (ev % 2)
				memcpy(txt, "\xc3\xa9t\xc3\xa9!!!", 8); /* a full array: no NUL */
			CHECK(trawl_ctf_event_begin(st[0], 1, ts));
			CHECK(trawl_ctf_write_float(st[0], f, 8, 0));
			CHECK(trawl_ctf_write_double(st[0], d, 64, 0));
			CHECK(trawl_ctf_write_int(st[0], es[ev % 6], 8, 8, 0));
			CHECK(trawl_ctf_write_uint(st[0], eu[ev % 5], 64, 8, 0));
			CHECK(trawl_ctf_write_string(st[0], s));
			for (i = 0; i < 4; i++)
				CHECK(trawl_ctf_write_int(st[0], arr[i], 32, 8, 0));
			CHECK(trawl_ctf_write_uint(st[0], n, 32, 8, 0));
			for (i = 0; i < n; i++)
				CHECK(trawl_ctf_write_uint(st[0], seq[i], 16, 8, 0));
			CHECK(trawl_ctf_write_bytes(st[0], txt, 8, 8));
			CHECK(trawl_ctf_write_uint(st[0], tn, 8, 8, 0));
			CHECK(trawl_ctf_write_bytes(st[0], tseq, tn, 8));
			CHECK(trawl_ctf_write_align(st[0], 8)); /* struct st */
			CHECK(trawl_ctf_write_uint(st[0], x, 3, 1, 0));
			CHECK(trawl_ctf_write_string(st[0], "nested"));
			CHECK(trawl_ctf_event_end(st[0]));
			fprintf(js, ", \"stream\": 0, \"name\": \"test:misc\", \"f\": {\"f32\": %u, \"f64\": %" PRIu64
				", \"es\": %" PRId64 ", \"eu\": %" PRIu64 ", \"str\": ", fb, db, es[ev % 6], eu[ev % 5]);
			json_str(js, s, strlen(s));
			fprintf(js, ", \"arr\": [%d, %d, %d, %d], \"n\": %u, \"seq\": [", arr[0], arr[1], arr[2], arr[3], n);
			for (i = 0; i < n; i++)
				fprintf(js, "%s%u", i ? ", " : "", seq[i]);
			fprintf(js, "], \"txt\": ");
			json_str(js, txt, 8);
			fprintf(js, ", \"tn\": %u, \"tseq\": ", tn);
			json_str(js, tseq, tn);
			fprintf(js, ", \"st\": {\"x\": %u, \"y\": \"nested\"}}", x);
		} else {
			uint32_t id = 2 + (uint32_t)(rnd() % 38);
			uint64_t v = rnd();
			int32_t vtid = (int32_t)(rnd() % 100000);

			CHECK(trawl_ctf_event_begin(st[1], id, ts));
			CHECK(trawl_ctf_write_int(st[1], vtid, 32, 8, 0));
			CHECK(trawl_ctf_write_bytes(st[1], "worker\0\0\0\0\0\0\0\0\0\0", 16, 8));
			CHECK(trawl_ctf_event_payload(st[1]));
			CHECK(trawl_ctf_write_uint(st[1], v, 64, 8, 0));
			CHECK(trawl_ctf_event_end(st[1]));
			fprintf(js, ", \"stream\": 1, \"name\": \"test:ev%u\", \"ctx\": {\"vtid\": %d, \"procname\": \"worker\"}, \"f\": {\"v\": %" PRIu64 "}",
				id, vtid, v);
		}
		fprintf(js, "}");
	}
	fprintf(js, "\n]\n");
	CHECK(fclose(js));
	CHECK(trawl_ctf_stream_close(st[0]));
	CHECK(trawl_ctf_stream_close(st[1]));
	trawl_ctf_trace_destroy(t);
	return 0;
}
