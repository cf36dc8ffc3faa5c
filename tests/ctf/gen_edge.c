/* SPDX-License-Identifier: MIT */
/*
 * Metadata corner cases a traced app or a tracefs format can bring, each of
 * which once made (or could make) a trace babeltrace2 rejects or misreads:
 *   - names, enum labels, env strings and model.emf.uri holding quotes,
 *     backslashes, newlines, control bytes followed by hex digits, UTF-8;
 *   - an enum without labels (TSDL has no empty enum), an empty label;
 *   - an empty struct, a zero-length array, an array of strings, a
 *     sequence of structs, events with an empty or no payload struct;
 *   - a string buffer reused before event_end() (the writer copies);
 *   - TSDL keywords as field and length-field names.
 * check_edge.py reads the trace back with bt2 and the babeltrace2 CLI.
 *
 *   gen_edge DIR
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int failures;

#define CHECK(x)                                                                  \
	do {                                                                      \
		int ret_ = (x);                                                   \
		if (ret_) {                                                       \
			fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, ret_); \
			failures++;                                               \
		}                                                                 \
	} while (0)

static struct trawl_ctf_type *u(unsigned bits)
{
	return trawl_ctf_type_integer_create(bits, 0, 8);
}

int main(int argc, char **argv)
{
	struct trawl_ctf_trace *t;
	struct trawl_ctf_type *p, *e, *el;
	struct trawl_ctf_stream *s;
	char path[4200], buf[8];

	if (argc != 2)
		return 2;
	mkdir(argv[1], 0755);
	t = trawl_ctf_trace_create(0);
	if (!t)
		return 1;
	CHECK(trawl_ctf_trace_add_monotonic_clock(t));
	CHECK(trawl_ctf_trace_env_add_string(t, "weird", "a\"b\\c\nd\001e\x7f" "f\xc3\xa9"));
	CHECK(trawl_ctf_trace_env_add_string(t, "empty", ""));
	CHECK(trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, NULL, "monotonic"));

	p = trawl_ctf_type_struct_create(8);
	e = trawl_ctf_type_enum_create(u(8));
	CHECK(trawl_ctf_type_enum_add(e, "", 0, 0));
	CHECK(trawl_ctf_type_enum_add(e, "q\"\\\n\001a\xc3\xa9", 1, 1));
	CHECK(trawl_ctf_type_struct_add(p, "e0", trawl_ctf_type_enum_create(u(8))));
	CHECK(trawl_ctf_type_struct_add(p, "e1", e));
	CHECK(trawl_ctf_type_struct_add(p, "e2", trawl_ctf_type_enum_create(u(8))));
	CHECK(trawl_ctf_type_struct_add(p, "es", trawl_ctf_type_struct_create(8)));
	CHECK(trawl_ctf_type_struct_add(p, "a0", trawl_ctf_type_array_create(u(32), 0)));
	CHECK(trawl_ctf_type_struct_add(p, "astr",
					trawl_ctf_type_array_create(trawl_ctf_type_string_create(), 2)));
	el = trawl_ctf_type_struct_create(8);
	CHECK(trawl_ctf_type_struct_add(el, "x", u(16)));
	CHECK(trawl_ctf_type_struct_add(el, "d", trawl_ctf_type_float_create(64, 8)));
	CHECK(trawl_ctf_type_struct_add(p, "n", u(8)));
	CHECK(trawl_ctf_type_struct_add(p, "sq", trawl_ctf_type_sequence_create(el, "n")));
	/* TSDL keywords as field names, as tracepoints have them. */
	CHECK(trawl_ctf_type_struct_add(p, "align", u(16)));
	CHECK(trawl_ctf_type_struct_add(p, "struct", trawl_ctf_type_string_create()));
	CHECK(trawl_ctf_type_struct_add(p, "enum", u(8)));
	CHECK(trawl_ctf_type_struct_add(p, "int", trawl_ctf_type_sequence_create(u(8), "enum")));
	CHECK(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "we\"ird\\na\nme\001", .id = 0, .stream_id = 0, .loglevel = -1,
		.emf_uri = "http://x/\"y\"" }, p));
	CHECK(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "nofields", .id = 1, .stream_id = 0, .loglevel = -1 },
		trawl_ctf_type_struct_create(8)));
	CHECK(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "nullfields", .id = 2, .stream_id = 0, .loglevel = -1 }, NULL));
	snprintf(path, sizeof(path), "%s/metadata", argv[1]);
	CHECK(trawl_ctf_trace_write_metadata(t, path, 0));

	s = trawl_ctf_stream_create(t, 0, argv[1], "chan_0", 0, 0, 4096);
	if (!s)
		return 1;
	CHECK(trawl_ctf_event_begin(s, 0, 5));
	trawl_ctf_write_uint(s, 3, 8, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(s, 1, 8, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(s, 255, 8, 8, TRAWL_CTF_BO_NATIVE);
	/* Strings are copied when written: the buffer may change before event_end(). */
	strcpy(buf, "s1");
	trawl_ctf_write_string(s, buf);
	strcpy(buf, "XXXXXXX");
	trawl_ctf_write_string(s, "");
	trawl_ctf_write_uint(s, 2, 8, 8, TRAWL_CTF_BO_NATIVE);
	for (int i = 0; i < 2; i++) {
		trawl_ctf_write_uint(s, 7 + (unsigned)i, 16, 8, TRAWL_CTF_BO_NATIVE);
		trawl_ctf_write_double(s, i + 0.5, 8, TRAWL_CTF_BO_NATIVE);
	}
	trawl_ctf_write_uint(s, 4096, 16, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_string(s, "kw");
	trawl_ctf_write_uint(s, 3, 8, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_bytes(s, "\x01\x02\x03", 3, 8);
	CHECK(trawl_ctf_event_end(s));
	CHECK(trawl_ctf_event_begin(s, 1, 6));
	CHECK(trawl_ctf_event_end(s));
	CHECK(trawl_ctf_event_begin(s, 2, 7));
	CHECK(trawl_ctf_event_end(s));
	CHECK(trawl_ctf_stream_close(s));
	trawl_ctf_trace_destroy(t);
	return failures ? 1 : 0;
}
