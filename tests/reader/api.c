/* SPDX-License-Identifier: MIT */
/*
 * The public API of libtrawl-reader (<trawl/reader.h>), function by
 * function, over CTF corpus traces whose babeltrace2 output is known
 * (expected/, expected-warnings/): whole lines and field text as
 * babeltrace2 prints them, settings and their errors, seeking and time
 * ranges, discarded-event records and their warning text, traces, streams,
 * event classes, and the field accessors that reader-dump (fields.sh)
 * does not reach. Every value field is also checked against bt2 there.
 *
 * Usage: reader-api CORPUS_DIR (TZ=UTC: the expected times are UTC)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trawl/reader.h>

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #c);                                \
			exit(1);                                              \
		}                                                             \
	} while (0)

static const char *corpus;

static struct trawl_reader *open_one(const char *name)
{
	char path[4096];
	const char *paths[1] = { path };
	struct trawl_reader *r;

	snprintf(path, sizeof(path), "%s/succeed/%s", corpus, name);
	CHECK(trawl_reader_open(paths, 1, &r) == 0);
	CHECK(strcmp(trawl_reader_error(r), "") == 0);
	return r;
}

static FILE *expected(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s.txt", corpus, dir, name);
	f = fopen(path, "r");
	CHECK(f);
	return f;
}

/* Whole lines, field text, event accessors: wk-heartbeat-u as expected. */
static void test_lines(void)
{
	struct trawl_reader *r = open_one("wk-heartbeat-u");
	struct trawl_reader_buf line = { 0 };
	FILE *exp = expected("expected", "wk-heartbeat-u");
	char want[8192];
	int n = 0, ret;
	int64_t ns, prev = INT64_MIN;
	uint64_t cycles, cpu;

	CHECK(trawl_reader_event_class_of(r) == NULL);
	CHECK(strcmp(trawl_reader_event_name(r), "") == 0);
	CHECK(trawl_reader_event_time_ns(r, &ns) == -ENODATA);
	CHECK(trawl_reader_event_append_line(r, &line) == -ENODATA);
	while ((ret = trawl_reader_next(r)) > 0) {
		const char *text, *body;
		size_t len;

		CHECK(fgets(want, sizeof(want), exp));
		/* the line: appended after what is there already */
		line.len = 0;
		CHECK(trawl_reader_event_append_line(r, &line) == 0);
		CHECK(line.len == strlen(want) && !memcmp(line.data, want, line.len));
		/* the fields only, twice (the second from the reader's buffer) */
		CHECK(trawl_reader_event_text(r, &text, &len) == 0);
		body = strstr(want, "heartbeat:msg: ") + strlen("heartbeat:msg: ");
		CHECK(len == strlen(body) - 1 && !memcmp(text, body, len));
		CHECK(text[len] == '\0');
		CHECK(trawl_reader_event_text(r, &text, &len) == 0);
		CHECK(len == strlen(body) - 1 && !memcmp(text, body, len));
		CHECK(strcmp(trawl_reader_event_name(r), "heartbeat:msg") == 0);
		CHECK(trawl_reader_event_time_ns(r, &ns) == 0 && ns >= prev);
		CHECK(trawl_reader_event_cycles(r, &cycles) == 0);
		prev = ns;
		/* cpu_id of the packet context, as the line shows it */
		CHECK(trawl_reader_event_cpu(r, &cpu) == 0);
		snprintf(want, sizeof(want), "{ cpu_id = %" PRIu64 " }", cpu);
		CHECK(!strncmp(text, want, strlen(want)));
		n++;
	}
	CHECK(ret == 0 && n == 20);
	CHECK(!fgets(want, sizeof(want), exp));
	CHECK(trawl_reader_next(r) == 0);	/* the end stays the end */
	fclose(exp);
	free(line.data);
	trawl_reader_destroy(r);
}

/* Settings: only before reading, unknown bits refused. */
static void test_settings(void)
{
	struct trawl_reader *r = open_one("wk-heartbeat-u");
	struct trawl_reader_text_options o;
	struct trawl_reader_buf line = { 0 };
	const struct trawl_reader_field *f;
	uint64_t n = 0;

	CHECK(trawl_reader_set_flags(r, 0x80) == -EINVAL);
	CHECK(trawl_reader_set_time_range(r, 10, 5) == -EINVAL);
	trawl_reader_text_options_init(&o);
	CHECK(o.struct_size == sizeof(o));
	CHECK(o.names == (TRAWL_READER_TEXT_NAMES_PAYLOAD | TRAWL_READER_TEXT_NAMES_CONTEXT));
	o.struct_size = sizeof(size_t);	/* older than any version */
	CHECK(trawl_reader_set_text_options(r, &o) == -EINVAL);
	o.struct_size = sizeof(o);
	o.flags = 0x1000;
	CHECK(trawl_reader_set_text_options(r, &o) == -EINVAL);
	o.flags = TRAWL_READER_TEXT_CLOCK_SECONDS | TRAWL_READER_TEXT_NO_DELTA;
	o.names = 0;
	o.fields = 0;
	CHECK(trawl_reader_set_text_options(r, &o) == 0);
	CHECK(trawl_reader_set_flags(r, TRAWL_READER_NO_FIELDS) == 0);
	while (trawl_reader_next(r) > 0) {
		CHECK(trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &f) == -EPERM);
		CHECK(trawl_reader_event_append_line(r, &line) == -EPERM);
		n++;
	}
	CHECK(n == 20 && line.len == 0);
	CHECK(trawl_reader_set_flags(r, 0) == -EBUSY);
	CHECK(strstr(trawl_reader_error(r), "before reading"));
	CHECK(trawl_reader_set_clock_offset(r, 1, 0) == -EBUSY);
	CHECK(trawl_reader_set_time_range(r, 0, 1) == -EBUSY);
	CHECK(trawl_reader_set_stream_intersection(r) == -EBUSY);
	trawl_reader_destroy(r);

	/* text options: no names, seconds, no delta, no trace fields */
	r = open_one("wk-heartbeat-u");
	CHECK(trawl_reader_set_text_options(r, &o) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_append_line(r, &line) == 0);
	CHECK(line.len == strlen("[1351532897.586558519] heartbeat:msg: { 2 }, { 3214, 3208 }, { \"heartbeat\" }\n"));
	CHECK(!memcmp(line.data, "[1351532897.586558519] heartbeat:msg: { 2 }, { 3214, 3208 }, { \"heartbeat\" }\n",
		      line.len));
	/* a time as the lines show it */
	line.len = 0;
	CHECK(trawl_reader_append_time(r, 1351532897586558519LL, &line) == 0);
	CHECK(line.len == 20 && !memcmp(line.data, "1351532897.586558519", 20));
	free(line.data);
	trawl_reader_destroy(r);
}

static int warnings;
static void on_warning(void *arg, const char *msg)
{
	(void)arg;
	CHECK(!strchr(msg, '\n'));
	CHECK(strstr(msg, "[warning] Fallback to [sec.ns]"));
	warnings++;
}

/* A clock offset moving times before the Epoch: babeltrace2's warning, once. */
static void test_clock_offset(void)
{
	struct trawl_reader *r = open_one("wk-heartbeat-u");
	struct trawl_reader_buf line = { 0 };
	int64_t ns;

	CHECK(trawl_reader_set_clock_offset(r, -1351532898, 0) == 0);
	trawl_reader_set_warning_cb(r, on_warning, NULL);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == 0 && ns == -413441481);
	CHECK(trawl_reader_event_append_line(r, &line) == 0);
	CHECK(!strncmp(line.data, "[-0.413441481] (+?.??????\?\?\?) ", 30));
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_append_line(r, &line) == 0);
	CHECK(warnings == 1);
	free(line.data);
	trawl_reader_destroy(r);
}

/* Seeking, time ranges, the traces' span, progress. */
static void test_time(void)
{
	struct trawl_reader *r = open_one("wk-heartbeat-u");
	int64_t ns, first = 0, tenth = 0, last = 0, b, e;
	uint64_t done, total;
	int n = 0;

	CHECK(trawl_reader_time_range(r, &b, &e) == 0);
	trawl_reader_progress(r, &done, &total);
	CHECK(done == 0 && total > 0);
	while (trawl_reader_next(r) > 0) {
		CHECK(trawl_reader_event_time_ns(r, &ns) == 0);
		if (n == 0)
			first = ns;
		if (n == 10)
			tenth = ns;
		last = ns;
		n++;
	}
	CHECK(b <= first && e >= last && b > 0);
	trawl_reader_progress(r, &done, NULL);
	CHECK(done > 0 && done <= total);
	/* seek to the 11th event's time: it comes next */
	CHECK(trawl_reader_seek_ns(r, tenth) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == 0 && ns == tenth);
	/* before the start: the first event; after the end: nothing */
	CHECK(trawl_reader_seek_ns(r, first - 1000000000) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == 0 && ns == first);
	CHECK(trawl_reader_seek_ns(r, INT64_MAX) == 0);
	CHECK(trawl_reader_next(r) == 0);
	trawl_reader_destroy(r);

	/* a range: from the 11th event to the last but one, 9 events */
	r = open_one("wk-heartbeat-u");
	CHECK(trawl_reader_set_time_range(r, tenth, last - 1) == 0);
	n = 0;
	while (trawl_reader_next(r) > 0) {
		CHECK(trawl_reader_event_time_ns(r, &ns) == 0);
		CHECK(ns >= tenth && ns < last);
		n++;
	}
	CHECK(n == 9);
	/* seeking before the range lands on its beginning */
	CHECK(trawl_reader_seek_ns(r, first) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == 0 && ns == tenth);
	trawl_reader_destroy(r);

	/* no clock: no time */
	r = open_one("succeed1");
	CHECK(trawl_reader_time_range(r, &b, &e) == -ENODATA);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == -ENODATA);
	trawl_reader_destroy(r);
}

/* Stream intersection: the expected output; and a trace with none. */
static void test_intersection(void)
{
	struct trawl_reader *r = open_one("intersection-3eventsintersect");
	struct trawl_reader_buf line = { 0 };
	FILE *exp = expected("expected-special",
			     "intersection-3eventsintersect.stream-intersection");
	char want[4096];

	CHECK(trawl_reader_set_stream_intersection(r) == 0);
	while (trawl_reader_next(r) > 0) {
		line.len = 0;
		CHECK(trawl_reader_event_append_line(r, &line) == 0);
		CHECK(fgets(want, sizeof(want), exp));
		CHECK(line.len == strlen(want) && !memcmp(line.data, want, line.len));
	}
	CHECK(!fgets(want, sizeof(want), exp));
	fclose(exp);
	trawl_reader_destroy(r);
	r = open_one("intersection-nointersect");
	CHECK(trawl_reader_set_stream_intersection(r) == -EINVAL);
	CHECK(strstr(trawl_reader_error(r), "no time range in common"));
	trawl_reader_destroy(r);
	free(line.data);
}

struct disc_seen {
	struct trawl_reader *r;
	struct trawl_reader_buf text;
	int n;
};

static void on_discarded(void *arg, const struct trawl_reader_discarded *d)
{
	struct disc_seen *seen = arg;

	CHECK(d->struct_size >= sizeof(*d));
	CHECK(d->stream && trawl_reader_stream_path(d->stream));
	CHECK(trawl_reader_discarded_append_text(seen->r, d, &seen->text) == 0);
	seen->n++;
}

/* Discarded records as babeltrace2 warns of them, and the totals. */
static void test_discarded(const char *name, uint64_t events, uint64_t packets)
{
	struct disc_seen seen = { 0 };
	FILE *exp = expected("expected-warnings", name);
	char want[4096], *p = NULL;
	uint64_t ev, pk;
	int lines = 0;

	seen.r = open_one(name);
	trawl_reader_set_discarded_cb(seen.r, on_discarded, &seen);
	while (trawl_reader_next(seen.r) > 0)
		;
	trawl_reader_discarded_totals(seen.r, &ev, &pk);
	CHECK(ev == events && pk == packets);
	CHECK(seen.text.len && seen.text.data[seen.text.len - 1] == '\n');
	/* the lines name streams by absolute path, the expected ones from the corpus */
	CHECK(trawl_reader_discarded_append_text(seen.r, &(struct trawl_reader_discarded){
		.struct_size = sizeof(struct trawl_reader_discarded), .count = 1,
		.stream = trawl_reader_trace_stream_at(trawl_reader_trace_at(seen.r, 0), 0) },
		&seen.text) == 0);
	CHECK(seen.text.len < 65536);
	seen.text.data[seen.text.len - 1] = '\0';
	for (p = seen.text.data; fgets(want, sizeof(want), exp); lines++) {
		char *nl = strchr(p, '\n'), *st = strstr(want, "within stream \"");
		char *got_st = strstr(p, "within stream \"");

		CHECK(nl && st && got_st && got_st < nl);
		*nl = '\0';
		want[strcspn(want, "\n")] = '\0';
		CHECK(!strncmp(p, want, (size_t)(st - want)));
		CHECK(strstr(got_st, strchr(st, '"') + 1 + strlen("succeed/")));
		p = nl + 1;
	}
	CHECK(lines == seen.n);
	/* the record made up above: "1 event", no time range */
	CHECK(strstr(p, "WARNING: Tracer discarded 1 event (unknown time range) in trace "));
	fclose(exp);
	free(seen.text.data);
	trawl_reader_destroy(seen.r);
}

/* Traces, streams and event classes. */
static void test_traces(void)
{
	struct trawl_reader *r = open_one("multi-domains");
	const struct trawl_reader_trace *t, *kernel = NULL;
	const struct trawl_reader_stream *s;
	size_t i, len;
	uint8_t uuid[16];
	int64_t v;

	CHECK(trawl_reader_trace_count(r) == 2);
	CHECK(trawl_reader_trace_at(r, 2) == NULL);
	for (i = 0; i < 2; i++) {
		t = trawl_reader_trace_at(r, i);
		if (!strcmp(trawl_reader_trace_env_string(t, "domain"), "kernel"))
			kernel = t;
	}
	CHECK(kernel);
	CHECK(strcmp(trawl_reader_trace_name(kernel), "joraj-alpa/kernel") == 0);
	CHECK(strstr(trawl_reader_trace_path(kernel), "multi-domains/kernel"));
	CHECK(trawl_reader_trace_uuid(kernel, uuid) == 0 && uuid[0] == 0x83 && uuid[15] == 0x89);
	CHECK(trawl_reader_trace_env_count(kernel) > 3);
	CHECK(trawl_reader_trace_env_name(kernel, trawl_reader_trace_env_count(kernel)) == NULL);
	CHECK(strcmp(trawl_reader_trace_env_string(kernel, "hostname"), "joraj-alpa") == 0);
	CHECK(trawl_reader_trace_env_string(kernel, "tracer_major") == NULL);
	CHECK(trawl_reader_trace_env_int(kernel, "tracer_major", &v) == 0 && v == 2);
	CHECK(trawl_reader_trace_env_int(kernel, "hostname", &v) == -ENOENT);
	/* packetized on disk, text here */
	CHECK(strstr(trawl_reader_trace_metadata(kernel, &len), "trace {"));
	CHECK(len > 1000 && len == strlen(trawl_reader_trace_metadata(kernel, NULL)));
	CHECK(trawl_reader_trace_stream_count(kernel) >= 1);
	CHECK(trawl_reader_trace_stream_at(kernel, trawl_reader_trace_stream_count(kernel)) == NULL);
	s = trawl_reader_trace_stream_at(kernel, 0);
	CHECK(trawl_reader_stream_trace(s) == kernel);
	CHECK(strstr(trawl_reader_stream_path(s), "/kernel/kernel_channel_0"));
	CHECK(trawl_reader_stream_path(s)[0] == '/');
	CHECK(trawl_reader_stream_class_id(s) == 0 && trawl_reader_stream_id(s) == 0);
	trawl_reader_destroy(r);
}

/* Member lookup, indexes by class, bases, enums, kinds: one kernel event. */
static void test_fields(void)
{
	struct trawl_reader *r = open_one("multi-domains");
	const struct trawl_reader_event_class *ec;
	const struct trawl_reader_field *p, *f, *pc;
	const char *labels[2];
	int64_t level;
	int idx;

	while (trawl_reader_next(r) > 0 &&
	       strcmp(trawl_reader_event_name(r), "lttng_test_filter_event"))
		;
	ec = trawl_reader_event_class_of(r);
	CHECK(ec && !strcmp(trawl_reader_event_class_name(ec), "lttng_test_filter_event"));
	CHECK(trawl_reader_event_class_id(ec) == 0);
	CHECK(trawl_reader_event_class_stream_class_id(ec) == 0);
	CHECK(trawl_reader_event_class_loglevel(ec, &level) == -ENODATA);
	CHECK(trawl_reader_event_class_emf_uri(ec) == NULL);
	CHECK(trawl_reader_event_stream(r) != NULL);
	CHECK(trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &p) == 0);
	CHECK(trawl_reader_field_kind(p) == TRAWL_READER_FIELD_STRUCT);
	CHECK(trawl_reader_field_name(p) == NULL);
	CHECK(trawl_reader_field_at(p, trawl_reader_field_count(p)) == NULL);
	/* by name, and by the class's index (same field) */
	f = trawl_reader_field_member(p, "intfield2");
	idx = trawl_reader_event_class_field_index(ec, TRAWL_READER_SCOPE_EVENT_PAYLOAD,
						   "intfield2");
	CHECK(f && idx >= 0 && trawl_reader_field_at(p, (size_t)idx) == f);
	CHECK(trawl_reader_field_base(f) == 16 && trawl_reader_field_is_signed(f));
	CHECK(trawl_reader_event_class_field_index(ec, TRAWL_READER_SCOPE_EVENT_PAYLOAD,
						   "nosuchfield") == -ENOENT);
	/* "__seqfield1_length" is shown as "_seqfield1_length": both spellings */
	f = trawl_reader_field_member(p, "_seqfield1_length");
	CHECK(f && f == trawl_reader_field_member(p, "__seqfield1_length"));
	CHECK(!strcmp(trawl_reader_field_name(f), "_seqfield1_length"));
	CHECK(trawl_reader_field_uint(f) == 4 && trawl_reader_field_int(f) == 4);
	CHECK(trawl_reader_field_double(f) == 0.0 && !trawl_reader_field_string(f, NULL));
	CHECK(trawl_reader_field_count(f) == 0 && !trawl_reader_field_at(f, 0));
	f = trawl_reader_field_member(p, "enum202");
	CHECK(f && trawl_reader_field_kind(f) == TRAWL_READER_FIELD_ENUM);
	CHECK(trawl_reader_field_base(f) == 10 && trawl_reader_field_uint(f) == 202);
	CHECK(trawl_reader_field_enum_labels(f, labels, 2) == 1);
	CHECK(!strcmp(labels[0], "RANGE: 101 TO 303"));
	CHECK(trawl_reader_field_enum_labels(f, NULL, 0) == 1);
	f = trawl_reader_field_member(p, "arrfield2");
	CHECK(f && trawl_reader_field_kind(f) == TRAWL_READER_FIELD_STRING);
	CHECK(!strcmp(trawl_reader_field_string(f, NULL), "test"));
	CHECK(trawl_reader_field_enum_labels(f, labels, 2) == 0);
	f = trawl_reader_field_member(p, "seqfield3");
	CHECK(f && trawl_reader_field_kind(f) == TRAWL_READER_FIELD_SEQUENCE);
	CHECK(trawl_reader_field_count(f) == 3);
	CHECK(trawl_reader_field_uint(trawl_reader_field_at(f, 2)) == 3);
	CHECK(trawl_reader_field_name(trawl_reader_field_at(f, 2)) == NULL);
	CHECK(trawl_reader_field_member(f, "x") == NULL);
	/* the packet context shows cpu_id, not its sizes and times */
	CHECK(trawl_reader_event_field(r, TRAWL_READER_SCOPE_PACKET_CONTEXT, &pc) == 0);
	CHECK(trawl_reader_field_count(pc) == 1);
	CHECK(trawl_reader_field_member(pc, "timestamp_begin") == NULL);
	CHECK(trawl_reader_event_class_field_index(ec, TRAWL_READER_SCOPE_PACKET_CONTEXT,
						   "cpu_id") == 0);
	CHECK(trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT, &f) == -ENODATA);
	CHECK(trawl_reader_event_field(r, (enum trawl_reader_scope)9, &f) == -EINVAL);
	/* the fast accessors: the same values, by the class's indexes */
	{
		enum trawl_reader_scope pl = TRAWL_READER_SCOPE_EVENT_PAYLOAD;
		int i2 = trawl_reader_event_class_field_index(ec, pl, "intfield2");
		int e = trawl_reader_event_class_field_index(ec, pl, "enum202");
		int a = trawl_reader_event_class_field_index(ec, pl, "arrfield2");
		int q = trawl_reader_event_class_field_index(ec, pl, "seqfield3");
		int64_t iv;
		uint64_t uv;
		double dv;
		const char *str;
		size_t len;

		CHECK(trawl_reader_event_int(r, pl, i2, &iv) == 0 &&
		      iv == trawl_reader_field_int(trawl_reader_field_member(p, "intfield2")));
		CHECK(trawl_reader_event_uint(r, pl, e, &uv) == 0 && uv == 202);
		CHECK(trawl_reader_event_int(r, pl, e, &iv) == 0 && iv == 202);
		CHECK(trawl_reader_event_string(r, pl, a, &str, &len) == 0 &&
		      !strcmp(str, "test") && len == 4);
		CHECK(trawl_reader_event_string(r, pl, a, &str, NULL) == 0);
		CHECK(trawl_reader_event_int(r, pl, a, &iv) == -ENOMSG);
		CHECK(trawl_reader_event_double(r, pl, i2, &dv) == -ENOMSG);
		CHECK(trawl_reader_event_string(r, pl, i2, &str, &len) == -ENOMSG);
		CHECK(trawl_reader_event_int(r, pl, q, &iv) == -ENOMSG);	/* a sequence */
		CHECK(trawl_reader_event_int(r, pl, -ENOENT, &iv) == -ENODATA);
		CHECK(trawl_reader_event_int(r, pl, (int)trawl_reader_field_count(p), &iv) ==
		      -ENODATA);
		CHECK(trawl_reader_event_int(r, TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT, 0,
					     &iv) == -ENODATA);
		CHECK(trawl_reader_event_uint(r, TRAWL_READER_SCOPE_PACKET_CONTEXT, 0, &uv) == 0 &&
		      uv == trawl_reader_field_uint(trawl_reader_field_at(pc, 0)));
		CHECK(trawl_reader_event_int(r, (enum trawl_reader_scope)9, 0, &iv) == -EINVAL);
		/* the same, several at once */
		{
			const struct trawl_reader_member want[] = {
				{ pl, i2 }, { pl, a }, { pl, q }, { pl, -ENOENT },
				{ TRAWL_READER_SCOPE_PACKET_CONTEXT, 0 },
				{ (enum trawl_reader_scope)9, 0 }, { pl, e },
			};
			struct trawl_reader_value v[7];

			CHECK(trawl_reader_event_read(r, want, 7, v) == 0);
			CHECK(v[0].ret == 0 && v[0].kind == TRAWL_READER_FIELD_INTEGER &&
			      v[0].i == trawl_reader_field_int(trawl_reader_field_member(p, "intfield2")));
			CHECK(v[1].ret == 0 && v[1].kind == TRAWL_READER_FIELD_STRING &&
			      !strcmp(v[1].str, "test") && v[1].i == 4);
			CHECK(v[2].ret == -ENOMSG);
			CHECK(v[3].ret == -ENODATA);
			CHECK(v[4].ret == 0 &&
			      (uint64_t)v[4].i == trawl_reader_field_uint(trawl_reader_field_at(pc, 0)));
			CHECK(v[5].ret == -EINVAL);
			CHECK(v[6].ret == 0 && v[6].kind == TRAWL_READER_FIELD_ENUM && v[6].i == 202);
			CHECK(trawl_reader_event_read(r, NULL, 0, NULL) == 0);
			/* the same through a selection, whose kinds the class says */
			{
				struct trawl_reader_selection *sel;
				struct trawl_reader_value w[7];

				CHECK(trawl_reader_selection_create(ec, want, 7, &sel) == 0);
				CHECK(trawl_reader_event_read_selection(r, sel, w) == 0);
				CHECK(w[0].ret == 0 && w[0].kind == v[0].kind && w[0].i == v[0].i);
				CHECK(w[1].ret == 0 && w[1].kind == TRAWL_READER_FIELD_STRING &&
				      !strcmp(w[1].str, "test") && w[1].i == 4);
				CHECK(w[2].ret == -ENOMSG && w[3].ret == -ENODATA);
				CHECK(w[4].ret == 0 && w[4].i == v[4].i);
				CHECK(w[5].ret == -EINVAL);
				CHECK(w[6].ret == 0 && w[6].kind == TRAWL_READER_FIELD_ENUM &&
				      w[6].i == 202);
				trawl_reader_selection_destroy(sel);
				CHECK(trawl_reader_selection_create(ec, NULL, 0, &sel) == 0);
				CHECK(trawl_reader_event_read_selection(r, sel, NULL) == 0);
				trawl_reader_selection_destroy(sel);
				CHECK(trawl_reader_selection_create(ec, NULL, 1, &sel) == -EINVAL &&
				      !sel);
				CHECK(trawl_reader_selection_create(NULL, want, 1, &sel) == -EINVAL);
				trawl_reader_selection_destroy(NULL);
			}
			CHECK(trawl_reader_event_class_field_kind(ec, pl, i2) ==
			      TRAWL_READER_FIELD_INTEGER);
			CHECK(trawl_reader_event_class_field_kind(ec, pl, a) ==
			      TRAWL_READER_FIELD_STRING);
			CHECK(trawl_reader_event_class_field_kind(ec, pl, q) ==
			      TRAWL_READER_FIELD_SEQUENCE);
			CHECK(trawl_reader_event_class_field_kind(ec, pl, e) ==
			      TRAWL_READER_FIELD_ENUM);
			CHECK(trawl_reader_event_class_field_kind(ec, pl, -ENOENT) == -ENODATA);
			CHECK(trawl_reader_event_class_field_kind(
				      ec, pl, (int)trawl_reader_field_count(p)) == -ENODATA);
			CHECK(trawl_reader_event_class_field_kind(
				      ec, TRAWL_READER_SCOPE_PACKET_CONTEXT, 0) ==
			      TRAWL_READER_FIELD_INTEGER);
			CHECK(trawl_reader_event_class_field_kind(ec, (enum trawl_reader_scope)9,
								  0) == -EINVAL);
		}
	}
	/* the fields stay valid for the event; its text is made too */
	{
		const char *text;
		size_t len;

		CHECK(trawl_reader_event_text(r, &text, &len) == 0);
		CHECK(trawl_reader_field_uint(trawl_reader_field_member(p, "_seqfield1_length")) == 4);
	}
	trawl_reader_destroy(r);
}

/* The fast accessors first, then the tree, then the text: one decoding each. */
static void test_fast_fields(void)
{
	struct trawl_reader *r = open_one("wk-heartbeat-u");
	const struct trawl_reader_field *p;
	const char *str, *text;
	size_t len;
	int64_t v;
	int msg = -1, n = 0;

	while (trawl_reader_next(r) > 0) {
		if (msg < 0)
			msg = trawl_reader_event_class_field_index(trawl_reader_event_class_of(r),
								   TRAWL_READER_SCOPE_EVENT_PAYLOAD,
								   "msg");
		CHECK(msg >= 0);
		CHECK(trawl_reader_event_string(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, msg, &str,
						&len) == 0);
		CHECK(!strcmp(str, "heartbeat") && len == 9);
		CHECK(trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &p) == 0);
		CHECK(!strcmp(trawl_reader_field_string(trawl_reader_field_at(p, (size_t)msg), NULL),
			      "heartbeat"));
		CHECK(trawl_reader_event_text(r, &text, &len) == 0 && strstr(text, "heartbeat"));
		n++;
	}
	CHECK(n == 20);
	CHECK(trawl_reader_event_int(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, 0, &v) == -ENODATA);
	CHECK(trawl_reader_event_read(r, NULL, 0, NULL) == -ENODATA);
	trawl_reader_destroy(r);
	/* a selection: read first, on every event; no event; another class; NO_FIELDS */
	{
		const struct trawl_reader_member want[] = {
			{ TRAWL_READER_SCOPE_EVENT_PAYLOAD, msg },
			{ TRAWL_READER_SCOPE_EVENT_PAYLOAD, -1 },
		};
		struct trawl_reader_selection *sel = NULL;
		struct trawl_reader_value w[2];
		struct trawl_reader *r2;

		r = open_one("wk-heartbeat-u");
		for (n = 0; trawl_reader_next(r) > 0; n++) {
			if (!sel)
				CHECK(trawl_reader_selection_create(trawl_reader_event_class_of(r),
								    want, 2, &sel) == 0);
			CHECK(trawl_reader_event_read_selection(r, sel, w) == 0);
			CHECK(w[0].ret == 0 && w[0].kind == TRAWL_READER_FIELD_STRING &&
			      !strcmp(w[0].str, "heartbeat") && w[0].i == 9);
			CHECK(w[1].ret == -ENODATA);
			/* again, and the text after it: the event is decoded the same */
			CHECK(trawl_reader_event_read_selection(r, sel, w) == 0 && w[0].i == 9);
			CHECK(trawl_reader_event_text(r, &text, &len) == 0 &&
			      strstr(text, "heartbeat"));
		}
		CHECK(n == 20);
		CHECK(trawl_reader_event_read_selection(r, sel, w) == -ENODATA);
		/* a class of another reader is another class */
		r2 = open_one("wk-heartbeat-u");
		CHECK(trawl_reader_next(r2) == 1);
		CHECK(trawl_reader_event_read_selection(r2, sel, w) == -EINVAL &&
		      strstr(trawl_reader_error(r2), "selection"));
		trawl_reader_destroy(r2);
		r2 = open_one("wk-heartbeat-u");
		CHECK(trawl_reader_set_flags(r2, TRAWL_READER_NO_FIELDS) == 0);
		CHECK(trawl_reader_next(r2) == 1);
		trawl_reader_selection_destroy(sel);
		CHECK(trawl_reader_selection_create(trawl_reader_event_class_of(r2), want, 2,
						    &sel) == 0);
		CHECK(trawl_reader_event_read_selection(r2, sel, w) == -EPERM);
		trawl_reader_destroy(r2);
		trawl_reader_destroy(r);
		/* it outlives its reader */
		trawl_reader_selection_destroy(sel);
	}
	/* with TRAWL_READER_NO_FIELDS, fields are not read */
	r = open_one("wk-heartbeat-u");
	CHECK(trawl_reader_set_flags(r, TRAWL_READER_NO_FIELDS) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_int(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, 0, &v) == -EPERM);
	CHECK(trawl_reader_event_read(r, NULL, 0, NULL) == -EPERM);
	trawl_reader_destroy(r);
}

static void test_errors(void)
{
	char path[4096];
	const char *paths[1] = { path };
	struct trawl_reader *r;

	snprintf(path, sizeof(path), "%s/does-not-exist", corpus);
	CHECK(trawl_reader_open(paths, 1, &r) == -ENOENT);
	CHECK(strstr(trawl_reader_error(r), "does-not-exist"));
	CHECK(!strchr(trawl_reader_error(r), '\n'));
	trawl_reader_destroy(r);
	snprintf(path, sizeof(path), "%s/check.sh", corpus);
	CHECK(trawl_reader_open(paths, 1, &r) == -ENOTDIR);
	trawl_reader_destroy(r);
	snprintf(path, sizeof(path), "%s/fail/fail2", corpus);
	CHECK(trawl_reader_open(paths, 1, &r) < 0);
	CHECK(strstr(trawl_reader_error(r), "metadata"));
	trawl_reader_destroy(r);
	CHECK(strcmp(trawl_reader_error(NULL), "") == 0);
	trawl_reader_destroy(NULL);
}

/*
 * trawl_reader_next_n() against trawl_reader_next() on the trace at @path:
 * the same events (time, cycles, class, stream) after each call whatever
 * @step, the same end and the same error. Returns how many events
 * trawl_reader_next_n() took (UINT64_MAX: the trace does not open), its
 * last return in *@ret, its error in next_n_error.
 */
static char next_n_error[1024];

static uint64_t next_n_path(const char *path, uint64_t step, int *ret)
{
	const char *paths[1] = { path };
	struct trawl_reader *a, *b;
	uint64_t k, i, total = 0;
	int ra = 1, rb;

	if (trawl_reader_open(paths, 1, &a)) {
		trawl_reader_destroy(a);
		return UINT64_MAX;
	}
	CHECK(trawl_reader_open(paths, 1, &b) == 0);
	CHECK(trawl_reader_set_flags(a, TRAWL_READER_NO_FIELDS) == 0);
	CHECK(trawl_reader_set_flags(b, TRAWL_READER_NO_FIELDS) == 0);
	k = 1;
	CHECK(trawl_reader_next_n(b, 0, &k) == -EINVAL && k == 0);
	do {
		rb = trawl_reader_next_n(b, step, &k);
		CHECK(k <= step);
		CHECK(rb != 1 || k == step);
		total += k;
		for (i = 0; i < k; i++) {
			ra = trawl_reader_next(a);
			CHECK(ra == 1);
		}
		if (rb == 1) {
			int64_t na = 0, nb = 0;	/* (left as they are without a clock) */
			uint64_t ca = 0, cb = 0;

			CHECK(trawl_reader_event_time_ns(a, &na) == trawl_reader_event_time_ns(b, &nb));
			CHECK(na == nb);
			CHECK(trawl_reader_event_cycles(a, &ca) == trawl_reader_event_cycles(b, &cb));
			CHECK(ca == cb);
			CHECK(!strcmp(trawl_reader_event_name(a), trawl_reader_event_name(b)));
			CHECK(!strcmp(trawl_reader_stream_path(trawl_reader_event_stream(a)),
				      trawl_reader_stream_path(trawl_reader_event_stream(b))));
		}
	} while (rb == 1);
	ra = trawl_reader_next(a);
	CHECK(ra == rb);
	CHECK(!strcmp(trawl_reader_error(a), trawl_reader_error(b)));
	*ret = rb;
	snprintf(next_n_error, sizeof(next_n_error), "%s", rb < 0 ? trawl_reader_error(b) : "");
	trawl_reader_destroy(a);
	trawl_reader_destroy(b);
	return total;
}

static void next_n_one(const char *dir, const char *name, uint64_t step)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s/%s", corpus, dir, name);
	next_n_path(path, step, &ret);
}

/*
 * reader-api --next-n TRACE COUNT [ERROR]: next_n_path() on TRACE in steps
 * of several sizes, each taking COUNT events (-1: any number), then the
 * end, or an error whose message holds ERROR.
 */
static int next_n_main(int argc, char **argv)
{
	static const uint64_t steps[] = { 1, 2, 7, 64, 1000, 100000 };
	long long want = argc > 3 ? strtoll(argv[3], NULL, 10) : -1;
	uint64_t first = 0, n;
	unsigned j;
	int ret;

	if (argc < 4) {
		fprintf(stderr, "usage: %s --next-n TRACE COUNT [ERROR]\n", argv[0]);
		return 2;
	}
	for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
		n = next_n_path(argv[2], steps[j], &ret);
		CHECK(n != UINT64_MAX);
		CHECK(want < 0 || n == (uint64_t)want);
		CHECK(j == 0 || n == first);
		first = n;
		CHECK(argc > 4 ? ret < 0 && strstr(next_n_error, argv[4]) : ret == 0);
	}
	printf("%s: %" PRIu64 " events%s%s, next_n in steps of 1 to 100000 as next: ok\n",
	       argv[2], first, argc > 4 ? ", then " : "", next_n_error);
	return 0;
}

/* trawl_reader_next_n() over every corpus trace, in steps of several sizes. */
static void test_next_n(void)
{
	static const char *const dirs[] = { "succeed", "fail" };
	static const uint64_t steps[] = { 1, 3, 64, 100000 };
	char path[1024];
	unsigned i, j, n = 0;
	FILE *ls;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "ls '%s/%s'", corpus, dirs[i]);
		ls = popen(path, "r");
		CHECK(ls);
		while (fgets(path, sizeof(path), ls)) {
			path[strcspn(path, "\n")] = '\0';
			for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++)
				next_n_one(dirs[i], path, steps[j]);
			n++;
		}
		CHECK(pclose(ls) == 0);
	}
	CHECK(n > 40);
}

/*
 * trawl_reader_append_lines() against trawl_reader_next() and
 * trawl_reader_event_append_line() on @dir/@name: the same text, line
 * counts and stops as @step and @limit say, the same end and error.
 */
static void append_lines_one(const char *dir, const char *name, uint64_t step, size_t limit)
{
	struct trawl_reader_buf ta = { 0 }, tb = { 0 };
	char path[4096];
	const char *paths[1] = { path };
	struct trawl_reader *a, *b;
	uint64_t k, i;
	int ra = 1, rb;

	snprintf(path, sizeof(path), "%s/%s/%s", corpus, dir, name);
	if (trawl_reader_open(paths, 1, &a)) {
		trawl_reader_destroy(a);
		return;
	}
	CHECK(trawl_reader_open(paths, 1, &b) == 0);
	k = 1;
	CHECK(trawl_reader_append_lines(b, &tb, 0, limit, &k) == -EINVAL && k == 0);
	do {
		size_t last = tb.len;	/* where the last line appended starts */

		rb = trawl_reader_append_lines(b, &tb, step, limit, &k);
		CHECK(k <= step);
		for (i = 0; i < k; i++) {
			ra = trawl_reader_next(a);
			CHECK(ra == 1);
			last = ta.len;
			CHECK(trawl_reader_event_append_line(a, &ta) == 0);
		}
		/* it stops at @step lines or at @limit bytes, not before, not after */
		CHECK(rb != 1 || k == step || (k >= 1 && tb.len >= limit));
		CHECK(k < 2 || last < limit);
		CHECK(ta.len == tb.len && (!ta.len || !memcmp(ta.data, tb.data, ta.len)));
		if (tb.len > (1u << 16))	/* as a viewer writes its lines out */
			ta.len = tb.len = 0;
	} while (rb == 1);
	/* the end, or the error of the move or of the line, as one by one */
	ra = trawl_reader_next(a);
	if (ra == 1)
		ra = trawl_reader_event_append_line(a, &ta);
	CHECK(ra == rb);
	CHECK(ta.len == tb.len && (!ta.len || !memcmp(ta.data, tb.data, ta.len)));
	CHECK(!strcmp(trawl_reader_error(a), trawl_reader_error(b)));
	free(ta.data);
	free(tb.data);
	trawl_reader_destroy(a);
	trawl_reader_destroy(b);
}

/* trawl_reader_append_lines() over every corpus trace, in steps and limits of several sizes. */
static void test_append_lines(void)
{
	static const char *const dirs[] = { "succeed", "fail" };
	static const uint64_t steps[] = { 1, 3, 100000 };
	static const size_t limits[] = { 1, 300, SIZE_MAX };
	char path[1024];
	unsigned i, j, l, n = 0;
	FILE *ls;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "ls '%s/%s'", corpus, dirs[i]);
		ls = popen(path, "r");
		CHECK(ls);
		while (fgets(path, sizeof(path), ls)) {
			path[strcspn(path, "\n")] = '\0';
			for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++)
				for (l = 0; l < sizeof(limits) / sizeof(limits[0]); l++)
					append_lines_one(dirs[i], path, steps[j], limits[l]);
			n++;
		}
		CHECK(pclose(ls) == 0);
	}
	CHECK(n > 40);
}

/* The integer at @p as layout @l says to load it. */
static int64_t load_int(const unsigned char *p, const struct trawl_reader_layout *l)
{
	int sign = l->load == TRAWL_READER_LOAD_INT;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (l->size) {
	case 1:
		memcpy(&u8, p, 1);
		return sign ? (int64_t)(int8_t)u8 : (int64_t)u8;
	case 2:
		memcpy(&u16, p, 2);
		return sign ? (int64_t)(int16_t)u16 : (int64_t)u16;
	case 4:
		memcpy(&u32, p, 4);
		return sign ? (int64_t)(int32_t)u32 : (int64_t)u32;
	default:
		CHECK(l->size == 8);
		memcpy(&u64, p, 8);
		return (int64_t)u64;
	}
}

#define IN_PLACE_CLASSES 64
#define IN_PLACE_MEMBERS 128

/*
 * In place: every member of the contexts and payload of every event of a
 * kernel trace (fixed layouts: integers and comm arrays), loaded from
 * trawl_reader_event_body() where trawl_reader_selection_layout() says, is
 * what trawl_reader_event_read_selection() reads, before and after it;
 * members and events that are not in place say so.
 */
static void test_in_place(void)
{
	static const enum trawl_reader_scope scopes[] = {
		TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,
		TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT,
		TRAWL_READER_SCOPE_EVENT_PAYLOAD,
	};
	const struct trawl_reader_event_class *ecs[IN_PLACE_CLASSES];
	struct trawl_reader_selection *sels[IN_PLACE_CLASSES];
	size_t nmem[IN_PLACE_CLASSES], ncls = 0, events = 0, lent = 0, ints = 0, texts = 0;
	struct trawl_reader_member mem[IN_PLACE_MEMBERS];
	struct trawl_reader_value v[IN_PLACE_MEMBERS];
	struct trawl_reader_layout lay;
	struct trawl_reader *r = open_one("lttng-tracefile-rotation"), *r2;
	const unsigned char *body;
	size_t k, i, n;

	while (trawl_reader_next(r) > 0) {
		const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(r);

		for (k = 0; k < ncls && ecs[k] != ec; k++)
			;
		if (k == ncls) {
			CHECK(ncls < IN_PLACE_CLASSES);
			n = 0;
			/* the packet context's first member is never in the body */
			mem[n++] = (struct trawl_reader_member){
				TRAWL_READER_SCOPE_PACKET_CONTEXT, 0
			};
			for (size_t sc = 0; sc < sizeof(scopes) / sizeof(scopes[0]); sc++)
				for (int idx = 0;
				     trawl_reader_event_class_field_kind(ec, scopes[sc], idx) >= 0;
				     idx++) {
					CHECK(n < IN_PLACE_MEMBERS);
					mem[n++] = (struct trawl_reader_member){ scopes[sc], idx };
				}
			CHECK(trawl_reader_selection_create(ec, mem, n, &sels[k]) == 0);
			ecs[k] = ec;
			nmem[k] = n;
			ncls++;
			CHECK(trawl_reader_selection_layout(sels[k], 0, &lay) == 0 &&
			      lay.load == TRAWL_READER_LOAD_NONE);
			CHECK(trawl_reader_selection_layout(sels[k], n, &lay) == -EINVAL &&
			      lay.load == TRAWL_READER_LOAD_NONE && !lay.size);
		}
		/* the body lent before the values are read, or after */
		if (events % 2)
			body = trawl_reader_event_body(r, sels[k]);
		CHECK(trawl_reader_event_read_selection(r, sels[k], v) == 0);
		if (!(events % 2))
			body = trawl_reader_event_body(r, sels[k]);
		events++;
		lent += body != NULL;
		/* a selection of another class lends nothing, and says nothing */
		if (k > 0)
			CHECK(trawl_reader_event_body(r, sels[0]) == NULL &&
			      !strcmp(trawl_reader_error(r), ""));
		for (i = 0; i < nmem[k]; i++) {
			const unsigned char *p;
			size_t len;

			CHECK(trawl_reader_selection_layout(sels[k], i, &lay) == 0);
			if (lay.load == TRAWL_READER_LOAD_NONE)
				continue;
			CHECK(body != NULL && v[i].ret == 0);
			p = body + lay.offset;
			switch (lay.load) {
			case TRAWL_READER_LOAD_INT:
			case TRAWL_READER_LOAD_UINT:
				CHECK(v[i].kind == TRAWL_READER_FIELD_INTEGER ||
				      v[i].kind == TRAWL_READER_FIELD_ENUM);
				CHECK(load_int(p, &lay) == v[i].i);
				ints++;
				break;
			case TRAWL_READER_LOAD_TEXT:
				len = strnlen((const char *)p, lay.size);
				CHECK(v[i].kind == TRAWL_READER_FIELD_STRING &&
				      (size_t)v[i].i == len && !memcmp(v[i].str, p, len));
				texts++;
				break;
			default:
				CHECK(!"a load of another kind");
			}
		}
	}
	/* LTTng's kernel events: tids and comm arrays, in place */
	/* 12,305 events, all but 8 (those with strings) of fixed layouts */
	CHECK(events == 12305 && lent == 12297 && ints > lent && texts > 0);
	CHECK(trawl_reader_event_body(r, sels[0]) == NULL);	/* no current event */
	for (k = 0; k < ncls; k++)
		trawl_reader_selection_destroy(sels[k]);
	trawl_reader_destroy(r);
	/* with TRAWL_READER_NO_FIELDS, bodies are not lent */
	r2 = open_one("lttng-tracefile-rotation");
	CHECK(trawl_reader_set_flags(r2, TRAWL_READER_NO_FIELDS) == 0);
	CHECK(trawl_reader_next(r2) == 1);
	mem[0] = (struct trawl_reader_member){ TRAWL_READER_SCOPE_EVENT_PAYLOAD, 0 };
	CHECK(trawl_reader_selection_create(trawl_reader_event_class_of(r2), mem, 1, &sels[0]) ==
	      0);
	CHECK(trawl_reader_selection_layout(sels[0], 0, &lay) == 0 &&
	      lay.load != TRAWL_READER_LOAD_NONE);
	CHECK(trawl_reader_event_body(r2, sels[0]) == NULL);
	trawl_reader_selection_destroy(sels[0]);
	trawl_reader_destroy(r2);
	/* a string payload: no fixed layout, nothing in place, the values read still */
	r = open_one("wk-heartbeat-u");
	CHECK(trawl_reader_next(r) == 1);
	mem[0] = (struct trawl_reader_member){
		TRAWL_READER_SCOPE_EVENT_PAYLOAD,
		trawl_reader_event_class_field_index(trawl_reader_event_class_of(r),
						     TRAWL_READER_SCOPE_EVENT_PAYLOAD, "msg")
	};
	CHECK(trawl_reader_selection_create(trawl_reader_event_class_of(r), mem, 1, &sels[0]) ==
	      0);
	CHECK(trawl_reader_selection_layout(sels[0], 0, &lay) == 0 &&
	      lay.load == TRAWL_READER_LOAD_NONE);
	CHECK(trawl_reader_event_body(r, sels[0]) == NULL);
	CHECK(trawl_reader_event_read_selection(r, sels[0], v) == 0 &&
	      !strcmp(v[0].str, "heartbeat"));
	trawl_reader_selection_destroy(sels[0]);
	trawl_reader_destroy(r);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--next-n"))
		return next_n_main(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	corpus = argv[1];
	test_lines();
	test_settings();
	test_clock_offset();
	test_time();
	test_intersection();
	test_discarded("multi-domains", 728, 0);
	test_discarded("packet_seq_num-2_streams_lost_in_2", 0, 6);
	test_discarded("ev-disc-no-ts-begin-end", 17, 0);
	test_traces();
	test_fields();
	test_fast_fields();
	test_in_place();
	test_next_n();
	test_append_lines();
	test_errors();
	printf("reader API: lines, settings, time, discarded, traces, fields, in place, next_n, "
	       "append_lines, errors: "
	       "ok\n");
	return 0;
}
