/* SPDX-License-Identifier: MIT */
/*
 * The writer's contracts beyond field encoding:
 *   - bad input is refused with an error (and nothing babeltrace2 would reject
 *     is written): invalid names, unknown ids, oversized events, malformed
 *     ready-made packets;
 *   - discarded events are counted in the packet context (checked by
 *     check_discarded.py with babeltrace2);
 *   - packets built elsewhere append with their index entries;
 *   - metadata grows: metadata_new() returns only what was added.
 *
 *   writer_api DIR      (writes DIR/discarded and DIR/appended)
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static int failures;

#define EXPECT(cond)                                                              \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                               \
		}                                                                 \
	} while (0)

static struct trawl_ctf_trace *simple_trace(void)
{
	struct trawl_ctf_trace *t = trawl_ctf_trace_create(0);
	struct trawl_ctf_type *p;

	EXPECT(t != NULL);
	EXPECT(trawl_ctf_trace_env_add_string(t, "hostname", "h") == 0);
	EXPECT(trawl_ctf_trace_add_monotonic_clock(t) == 0);
	EXPECT(trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, NULL,
						"monotonic") == 0);
	p = trawl_ctf_type_struct_create(8);
	EXPECT(trawl_ctf_type_struct_add(p, "v", trawl_ctf_type_integer_create(32, 0, 8)) == 0);
	EXPECT(trawl_ctf_type_struct_add(p, "s", trawl_ctf_type_string_create()) == 0);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:ev", .id = 0, .stream_id = 0, .loglevel = -1 }, p) == 0);
	return t;
}

static int write_ev(struct trawl_ctf_stream *s, uint64_t ts, uint32_t v, const char *str)
{
	int ret = trawl_ctf_event_begin(s, 0, ts);

	if (ret)
		return ret;
	trawl_ctf_write_uint(s, v, 32, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_string(s, str);
	return trawl_ctf_event_end(s);
}

/* A variant (LTTng-UST's dynamic type): its tag must be an earlier enum
 * field; its TSDL names the tag and lists the options. */
static void variant(void)
{
	struct trawl_ctf_type *s = trawl_ctf_type_struct_create(8), *e, *v;
	struct trawl_ctf_trace *t;
	size_t len;
	char *m;

	EXPECT(trawl_ctf_type_variant_create("bad name") == NULL);
	/* no tag field yet, then a tag that is not an enum */
	v = trawl_ctf_type_variant_create("tag");
	EXPECT(trawl_ctf_type_struct_add(v, "none", trawl_ctf_type_struct_create(8)) == 0);
	EXPECT(trawl_ctf_type_struct_add(s, "v", v) == -EINVAL);
	EXPECT(trawl_ctf_type_struct_add(s, "tag", trawl_ctf_type_integer_create(8, 1, 8)) == 0);
	v = trawl_ctf_type_variant_create("tag");
	EXPECT(trawl_ctf_type_struct_add(s, "v", v) == -EINVAL);
	trawl_ctf_type_destroy(s);

	s = trawl_ctf_type_struct_create(8);
	e = trawl_ctf_type_enum_create(trawl_ctf_type_integer_create(8, 1, 8));
	EXPECT(trawl_ctf_type_enum_add(e, "_none", 0, 0) == 0);
	EXPECT(trawl_ctf_type_enum_add(e, "_int32", 1, 1) == 0);
	EXPECT(trawl_ctf_type_struct_add(s, "x_tag", e) == 0);
	v = trawl_ctf_type_variant_create("x_tag");
	EXPECT(trawl_ctf_type_struct_add(v, "none", trawl_ctf_type_struct_create(8)) == 0);
	EXPECT(trawl_ctf_type_struct_add(v, "int32", trawl_ctf_type_integer_create(32, 1, 8)) == 0);
	EXPECT(trawl_ctf_type_struct_add(v, "int32", trawl_ctf_type_string_create()) == -EINVAL);
	EXPECT(trawl_ctf_type_struct_add(s, "x", v) == 0);
	t = trawl_ctf_trace_create(0);
	EXPECT(t && trawl_ctf_trace_add_monotonic_clock(t) == 0);
	EXPECT(trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, s, "monotonic") == 0);
	m = trawl_ctf_trace_metadata(t, &len);
	EXPECT(m && strstr(m, "variant <_x_tag> {\n") && strstr(m, "} _x;\n") &&
	       strstr(m, "integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _int32;"));
	free(m);
	trawl_ctf_trace_destroy(t);
}

static void bad_input(void)
{
	struct trawl_ctf_trace *t = simple_trace();
	struct trawl_ctf_type *s = trawl_ctf_type_struct_create(8);
	struct trawl_ctf_type *i;
	size_t len;
	char *m;

	/* Names that are not TSDL identifiers, or are keywords. */
	EXPECT(trawl_ctf_type_struct_add(s, "9lives", trawl_ctf_type_string_create()) == -EINVAL);
	EXPECT(trawl_ctf_type_struct_add(s, "a b", trawl_ctf_type_string_create()) == -EINVAL);
	/* Field names may be TSDL keywords (written "_struct"); env keys may not. */
	EXPECT(trawl_ctf_type_struct_add(s, "struct", trawl_ctf_type_string_create()) == 0);
	EXPECT(trawl_ctf_trace_env_add_string(t, "struct", "v") == -EINVAL);
	{
		char longname[300];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		EXPECT(trawl_ctf_type_struct_add(s, longname, trawl_ctf_type_string_create()) ==
		       -EINVAL);
	}
	EXPECT(trawl_ctf_type_struct_add(s, "ok", trawl_ctf_type_string_create()) == 0);
	EXPECT(trawl_ctf_type_struct_add(s, "ok", trawl_ctf_type_string_create()) == -EINVAL);
	/* A sequence needs an earlier unsigned integer length field. */
	EXPECT(trawl_ctf_type_struct_add(s, "seq", trawl_ctf_type_sequence_create(
		trawl_ctf_type_integer_create(8, 0, 8), "nolen")) == -EINVAL);
	EXPECT(trawl_ctf_type_struct_add(s, "seq", trawl_ctf_type_sequence_create(
		trawl_ctf_type_integer_create(8, 0, 8), "ok")) == -EINVAL); /* a string */
	/* Bad sizes and alignments. */
	EXPECT(trawl_ctf_type_integer_create(0, 0, 8) == NULL);
	EXPECT(trawl_ctf_type_integer_create(65, 0, 8) == NULL);
	EXPECT(trawl_ctf_type_integer_create(8, 0, 3) == NULL);
	EXPECT(trawl_ctf_type_float_create(16, 8) == NULL);
	i = trawl_ctf_type_integer_create(12, 0, 1);
	EXPECT(trawl_ctf_type_integer_set_byte_order(i, TRAWL_CTF_BO_BE) == -EINVAL);
	EXPECT(trawl_ctf_type_integer_set_base(i, 7) == -EINVAL);
	/* Enum values must fit the container. */
	i = trawl_ctf_type_enum_create(i);
	EXPECT(trawl_ctf_type_enum_add(i, "x", 4096, 4096) == -EINVAL);
	EXPECT(trawl_ctf_type_enum_add(i, "x", 5, 4) == -EINVAL);
	EXPECT(trawl_ctf_type_enum_add(i, "x", 4, 5) == 0);
	trawl_ctf_type_destroy(i);
	trawl_ctf_type_destroy(s);
	/* Duplicates and undeclared references. */
	EXPECT(trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, NULL,
						"monotonic") == -EEXIST);
	EXPECT(trawl_ctf_trace_add_stream_class(t, 1, TRAWL_CTF_HEADER_COMPACT, NULL,
						"noclock") == -EINVAL);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:ev", .id = 0, .stream_id = 0, .loglevel = -1 }, NULL) == -EEXIST);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:ev2", .id = 1, .stream_id = 7, .loglevel = -1 }, NULL) == -EINVAL);
	EXPECT(trawl_ctf_trace_env_add_string(t, "bad key", "v") == -EINVAL);
	/* A clock mapping to an undeclared clock, log levels babeltrace2 warns about. */
	s = trawl_ctf_type_struct_create(8);
	i = trawl_ctf_type_integer_create(64, 0, 8);
	EXPECT(trawl_ctf_type_integer_set_clock(i, "noclock") == 0);
	EXPECT(trawl_ctf_type_struct_add(s, "ts", i) == 0);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:clk", .id = 2, .stream_id = 0, .loglevel = -1 }, s) == -EINVAL);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:ll", .id = 2, .stream_id = 0, .loglevel = 15 }, NULL) == -EINVAL);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:ll", .id = 2, .stream_id = 0, .loglevel = -2 }, NULL) == -EINVAL);

	/* Appendable metadata: after the first emission, only the new class. */
	m = trawl_ctf_trace_metadata_new(t, &len);
	EXPECT(m && strstr(m, "/* CTF 1.8 */") && strstr(m, "\"t:ev\""));
	free(m);
	m = trawl_ctf_trace_metadata_new(t, &len);
	EXPECT(m && len == 0);
	free(m);
	EXPECT(trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "t:late", .id = 1, .stream_id = 0, .loglevel = 3 }, NULL) == 0);
	m = trawl_ctf_trace_metadata_new(t, &len);
	EXPECT(m && strstr(m, "\"t:late\"") && !strstr(m, "\"t:ev\"") && !strstr(m, "trace {"));
	free(m);
	EXPECT(trawl_ctf_trace_env_add_string(t, "late", "v") == -EBUSY);
	trawl_ctf_trace_destroy(t);
}

/* Three packets; 5 events lost after the first, 7 + 1 oversized after the second. */
static void discarded(const char *dir)
{
	struct trawl_ctf_trace *t = simple_trace();
	struct trawl_ctf_stream *s;
	static char big[8192];
	char path[4200];
	uint64_t ts = 1000;
	int i;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	EXPECT(trawl_ctf_trace_write_metadata(t, path, 0) == 0);
	s = trawl_ctf_stream_create(t, 0, dir, "chan_0", 0, 0, 4096);
	EXPECT(s != NULL);
	EXPECT(trawl_ctf_event_begin(s, 42, ts) == -EINVAL); /* undeclared id */
	for (i = 0; i < 10; i++)
		EXPECT(write_ev(s, ts += 10, (uint32_t)i, "first") == 0);
	EXPECT(trawl_ctf_stream_flush(s) == 0);
	trawl_ctf_stream_add_discarded(s, 5);
	for (i = 0; i < 10; i++)
		EXPECT(write_ev(s, ts += 10, (uint32_t)i, "second") == 0);
	EXPECT(write_ev(s, ts - 20, 0, "backwards") == -ERANGE);
	/* A field writer's error fails the event and leaves the packet as it was. */
	EXPECT(trawl_ctf_event_begin(s, 0, ts) == 0);
	EXPECT(trawl_ctf_write_uint(s, 1, 32, 3, TRAWL_CTF_BO_NATIVE) == -EINVAL);
	trawl_ctf_write_string(s, "bad");
	EXPECT(trawl_ctf_event_end(s) == -EINVAL);
	EXPECT(trawl_ctf_stream_flush(s) == 0);
	trawl_ctf_stream_add_discarded(s, 7);
	memset(big, 'x', sizeof(big) - 1);
	EXPECT(write_ev(s, ts += 10, 0, big) == -EMSGSIZE); /* counted as discarded */
	for (i = 0; i < 10; i++) {
		if (i != 5) {
			EXPECT(write_ev(s, ts += 10, (uint32_t)i, "third") == 0);
			continue;
		}
		/* No flush in the middle of an event. */
		EXPECT(trawl_ctf_event_begin(s, 0, ts += 10) == 0);
		trawl_ctf_write_uint(s, (uint32_t)i, 32, 8, TRAWL_CTF_BO_NATIVE);
		EXPECT(trawl_ctf_stream_flush(s) == -EBUSY);
		trawl_ctf_write_string(s, "third");
		EXPECT(trawl_ctf_event_end(s) == 0);
	}
	EXPECT(trawl_ctf_stream_close(s) == 0);
	trawl_ctf_trace_destroy(t);
}

/* Packets built by hand (as a ring buffer would), appended ready-made. */
static void appended(const char *dir)
{
	struct trawl_ctf_trace *t = simple_trace();
	struct trawl_ctf_stream *s;
	uint8_t pkt[512];
	struct trawl_ctf_packet_start *ps = (struct trawl_ctf_packet_start *)pkt;
	char path[4200];
	size_t off = sizeof(*ps);
	uint32_t seq;
	int e;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	EXPECT(trawl_ctf_trace_write_metadata(t, path, 1) == 0); /* packetized */
	s = trawl_ctf_stream_create(t, 0, dir, "chan_0", 0, 3, 4096);
	EXPECT(s != NULL);
	for (seq = 0; seq < 3; seq++) {
		memset(pkt, 0, sizeof(pkt));
		off = sizeof(*ps);
		ps->header.magic = TRAWL_CTF_MAGIC;
		memcpy(ps->header.uuid, trawl_ctf_trace_uuid(t), 16);
		/* Not the stream's (0): the writer makes it so (check_index.py checks). */
		ps->header.stream_instance_id = 77;
		for (e = 0; e < 4; e++) {
			uint32_t hdr = (uint32_t)((1000 + seq * 100 + (uint32_t)e) << 5); /* id 0 */
			uint32_t v = seq * 10 + (uint32_t)e;

			memcpy(pkt + off, &hdr, 4);
			memcpy(pkt + off + 4, &v, 4);
			memcpy(pkt + off + 8, "ok", 3);
			off += 11;
		}
		ps->context.timestamp_begin = 1000 + seq * 100;
		ps->context.timestamp_end = 1003 + seq * 100;
		ps->context.content_size = off * 8;
		ps->context.packet_size = sizeof(pkt) * 8;
		ps->context.packet_seq_num = seq;
		ps->context.cpu_id = 3;
		EXPECT(trawl_ctf_stream_append_packet(s, pkt, sizeof(pkt)) == 0);
	}
	/* Malformed: content past the buffer, wrong magic, wrong uuid. Nothing is written. */
	ps->context.content_size = sizeof(pkt) * 8 + 8;
	EXPECT(trawl_ctf_stream_append_packet(s, pkt, sizeof(pkt)) == -EINVAL);
	ps->context.content_size = off * 8;
	ps->header.magic = 0xdeadbeef;
	EXPECT(trawl_ctf_stream_append_packet(s, pkt, sizeof(pkt)) == -EINVAL);
	ps->header.magic = TRAWL_CTF_MAGIC;
	ps->header.uuid[0] ^= 1;
	EXPECT(trawl_ctf_stream_append_packet(s, pkt, sizeof(pkt)) == -EINVAL);
	EXPECT(trawl_ctf_stream_append_packet(s, pkt, 10) == -EINVAL);
	/* each packet's content, padded to a page (ctf/packet.h; pages are 4 KiB or more) */
	EXPECT(trawl_ctf_stream_bytes(s) % 4096 == 0 && trawl_ctf_stream_bytes(s) >= 3 * 4096);
	EXPECT(trawl_ctf_stream_bytes(s) == 3 * (uint64_t)sysconf(_SC_PAGESIZE));
	EXPECT(trawl_ctf_stream_close(s) == 0);
	trawl_ctf_trace_destroy(t);
}

int main(int argc, char **argv)
{
	char path[4000];

	if (argc != 2) {
		fprintf(stderr, "usage: writer_api DIR\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	bad_input();
	variant();
	snprintf(path, sizeof(path), "%s/discarded", argv[1]);
	discarded(path);
	snprintf(path, sizeof(path), "%s/appended", argv[1]);
	appended(path);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
