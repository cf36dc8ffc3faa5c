/* SPDX-License-Identifier: MIT */
/*
 * reader-dump: every event of the traces through the public field API of
 * <trawl/reader.h>, one typed line per event, in the format dump_bt2.py
 * writes from babeltrace2's Python bindings (bt2), so the two can be
 * compared byte for byte (tests/reader/fields.sh):
 *
 *   env TRACE KEY=VALUE               (each entry of each trace with streams)
 *   event NAME class=ID sc=ID stream=ID trace=NAME time=NS cycles=N cpu=N|-
 *     pc=VALUE cc=VALUE ec=VALUE p=VALUE   (scopes that show something)
 *
 * VALUE: i:-5 u:7 e:3[A|B] f:%.17g s:"..." {a=V, b=V} [V, V] <V, V>
 * (v=V); strings escape '"', '\\' and bytes outside 0x20-0x7e as \xNN.
 *
 * Usage: reader-dump [--isect] [--begin NS] [--end NS] [--seek NS] TRACE...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trawl/reader.h>

static void put_string(const char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\' || c < 0x20 || c > 0x7e)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void put_field(const struct trawl_reader_field *f)
{
	const char *labels[16];
	size_t i, n, len;
	const char *s;

	switch (trawl_reader_field_kind(f)) {
	case TRAWL_READER_FIELD_INTEGER:
		if (trawl_reader_field_is_signed(f))
			printf("i:%" PRId64, trawl_reader_field_int(f));
		else
			printf("u:%" PRIu64, trawl_reader_field_uint(f));
		break;
	case TRAWL_READER_FIELD_ENUM:
		if (trawl_reader_field_is_signed(f))
			printf("e:%" PRId64 "[", trawl_reader_field_int(f));
		else
			printf("e:%" PRIu64 "[", trawl_reader_field_uint(f));
		n = trawl_reader_field_enum_labels(f, labels, 16);
		for (i = 0; i < n && i < 16; i++)
			printf("%s%s", i ? "|" : "", labels[i]);
		printf("]");
		break;
	case TRAWL_READER_FIELD_FLOAT:
		printf("f:%.17g", trawl_reader_field_double(f));
		break;
	case TRAWL_READER_FIELD_STRING:
		s = trawl_reader_field_string(f, &len);
		printf("s:");
		put_string(s, len);
		break;
	case TRAWL_READER_FIELD_STRUCT:
		printf("{");
		for (i = 0; i < trawl_reader_field_count(f); i++) {
			printf("%s%s=", i ? ", " : "",
			       trawl_reader_field_name(trawl_reader_field_at(f, i)));
			put_field(trawl_reader_field_at(f, i));
		}
		printf("}");
		break;
	case TRAWL_READER_FIELD_ARRAY:
	case TRAWL_READER_FIELD_SEQUENCE:
		printf(trawl_reader_field_kind(f) == TRAWL_READER_FIELD_ARRAY ? "[" : "<");
		for (i = 0; i < trawl_reader_field_count(f); i++) {
			printf("%s", i ? ", " : "");
			put_field(trawl_reader_field_at(f, i));
		}
		printf(trawl_reader_field_kind(f) == TRAWL_READER_FIELD_ARRAY ? "]" : ">");
		break;
	case TRAWL_READER_FIELD_VARIANT:
		printf("(%s=", trawl_reader_field_name(trawl_reader_field_at(f, 0)));
		put_field(trawl_reader_field_at(f, 0));
		printf(")");
		break;
	}
}

static void put_traces(struct trawl_reader *r)
{
	size_t t, i;

	for (t = 0; t < trawl_reader_trace_count(r); t++) {
		const struct trawl_reader_trace *tr = trawl_reader_trace_at(r, t);

		/* babeltrace2 lists a trace's environment when it has a stream */
		if (!trawl_reader_trace_stream_count(tr))
			continue;
		for (i = 0; i < trawl_reader_trace_env_count(tr); i++) {
			const char *k = trawl_reader_trace_env_name(tr, i);
			const char *sv = trawl_reader_trace_env_string(tr, k);
			int64_t iv;

			if (sv)
				printf("env %s %s=%s\n", trawl_reader_trace_name(tr), k, sv);
			else if (!trawl_reader_trace_env_int(tr, k, &iv))
				printf("env %s %s=%" PRId64 "\n", trawl_reader_trace_name(tr), k, iv);
		}
	}
}

/*
 * The fast accessors (trawl_reader_event_int() and kin) agree with the
 * tree on every top-level member of @f (scope @sc), and refuse what is
 * not there or not of their kind. A mismatch stops the dump (fields.sh
 * then fails with this message).
 */
/* @a and @b, the values of one member, say the same; @b's kind is the class's. */
static int same_value(const struct trawl_reader_value *a, const struct trawl_reader_value *b,
		      int class_kind)
{
	if (a->ret != b->ret)
		return 0;
	if (a->ret)	/* -ENOMSG: a compound member; -ENODATA: none */
		return a->ret == -ENOMSG ? class_kind > TRAWL_READER_FIELD_STRING :
					   class_kind == a->ret;
	if (a->kind != b->kind || a->kind != class_kind)
		return 0;
	switch (a->kind) {
	case TRAWL_READER_FIELD_FLOAT:
		return !memcmp(&a->d, &b->d, sizeof(a->d));
	case TRAWL_READER_FIELD_STRING:
		return a->i == b->i && !memcmp(a->str, b->str, (size_t)a->i + 1);
	default:
		return a->i == b->i;
	}
}

/*
 * The selection read of the payload done before anything else decoded the
 * current event (touch_flat()), for check_read() to compare: the body's
 * first decoding then is the selection's.
 */
static struct {
	int done, ret;
	size_t n;
	struct trawl_reader_value *v;
} early;

/* The @n members of scope @sc in check_read()'s order (reversed, then two not there). */
static struct trawl_reader_member *members_of(enum trawl_reader_scope sc, size_t n)
{
	struct trawl_reader_member *mem = calloc(n + 2, sizeof(*mem));
	size_t i;

	if (!mem) {
		fprintf(stderr, "reader-dump: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		mem[i] = (struct trawl_reader_member){ sc, (int)(n - 1 - i) };
	mem[n] = (struct trawl_reader_member){ sc, (int)n };
	mem[n + 1] = (struct trawl_reader_member){ sc, -ENOENT };
	return mem;
}

/* Member @l of @body, in place, is @v (what the selection read). */
static int same_in_place(const unsigned char *body, const struct trawl_reader_layout *l,
			 const struct trawl_reader_value *v)
{
	const unsigned char *p = body + l->offset;
	int sign = l->load == TRAWL_READER_LOAD_INT;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	int64_t i;

	if (v->ret)
		return 0;
	switch (l->load) {
	case TRAWL_READER_LOAD_TEXT:
		u64 = strnlen((const char *)p, l->size);
		return v->kind == TRAWL_READER_FIELD_STRING && (uint64_t)v->i == u64 &&
		       !memcmp(v->str, p, u64);
	default:
		break;
	}
	switch (l->size) {
	case 1:
		memcpy(&u8, p, 1);
		i = sign ? (int64_t)(int8_t)u8 : (int64_t)u8;
		break;
	case 2:
		memcpy(&u16, p, 2);
		i = sign ? (int64_t)(int16_t)u16 : (int64_t)u16;
		break;
	case 4:
		memcpy(&u32, p, 4);
		i = sign ? (int64_t)(int32_t)u32 : (int64_t)u32;
		break;
	case 8:
		memcpy(&u64, p, 8);
		i = (int64_t)u64;
		break;
	default:
		return 0;
	}
	return (v->kind == TRAWL_READER_FIELD_INTEGER || v->kind == TRAWL_READER_FIELD_ENUM) &&
	       v->i == i;
}

/*
 * Reads @mem[0..@n) of the current event through a selection into @v; the
 * members it has in place, loaded from the event's body, are the same.
 */
static int read_selection(struct trawl_reader *r, const struct trawl_reader_member *mem,
			  size_t n, struct trawl_reader_value *v)
{
	struct trawl_reader_selection *sel;
	struct trawl_reader_layout lay;
	const unsigned char *body;
	int ret = trawl_reader_selection_create(trawl_reader_event_class_of(r), mem, n, &sel);

	if (ret) {
		fprintf(stderr, "reader-dump: trawl_reader_selection_create: %d\n", ret);
		exit(1);
	}
	ret = trawl_reader_event_read_selection(r, sel, v);
	/* NULL too where this event's body is not where the layout starts (its header's size) */
	body = trawl_reader_event_body(r, sel);
	for (size_t i = 0; i < n && !ret; i++) {
		if (trawl_reader_selection_layout(sel, i, &lay) ||
		    (lay.load != TRAWL_READER_LOAD_NONE && body &&
		     !same_in_place(body, &lay, &v[i]))) {
			fprintf(stderr, "reader-dump: %s: member %zu in place differs\n",
				trawl_reader_event_name(r), i);
			exit(1);
		}
	}
	trawl_reader_selection_destroy(sel);
	return ret;
}

/*
 * trawl_reader_event_read() reads the @n members of @f the same, all in
 * one call (in reverse order, then two that are not there), and so does a
 * selection of them, read now and (the payload) before the event was
 * decoded, each value of the kind trawl_reader_event_class_field_kind()
 * says. Returns 1 when they do not (said on stderr).
 */
static int check_read(struct trawl_reader *r, enum trawl_reader_scope sc,
		      const struct trawl_reader_field *f, size_t n)
{
	const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(r);
	struct trawl_reader_member *mem = members_of(sc, n);
	struct trawl_reader_value *val = calloc(n + 2, sizeof(*val));
	struct trawl_reader_value *sv = calloc(n + 2, sizeof(*sv));
	size_t i, bad_at = SIZE_MAX;
	int ret, sret;

	if (!val || !sv) {
		fprintf(stderr, "reader-dump: out of memory\n");
		exit(1);
	}
	ret = trawl_reader_event_read(r, mem, n + 2, val);
	sret = read_selection(r, mem, n + 2, sv);
	for (i = 0; i < n + 2 && !ret && !sret; i++) {
		int kind = trawl_reader_event_class_field_kind(ec, sc, mem[i].index);

		if (!same_value(&sv[i], &val[i], kind) ||
		    (early.done && sc == TRAWL_READER_SCOPE_EVENT_PAYLOAD &&
		     (early.n != n + 2 || early.ret || !same_value(&early.v[i], &val[i], kind)))) {
			fprintf(stderr,
				"reader-dump: %s: scope %d: a selection reads member %zu otherwise\n",
				trawl_reader_event_name(r), (int)sc, i);
			exit(1);
		}
	}
	if (sret != ret) {
		fprintf(stderr, "reader-dump: %s: scope %d: a selection returns %d, not %d\n",
			trawl_reader_event_name(r), (int)sc, sret, ret);
		exit(1);
	}
	for (i = 0; i < n && !ret && bad_at == SIZE_MAX; i++) {
		const struct trawl_reader_field *m = trawl_reader_field_at(f, n - 1 - i);
		const struct trawl_reader_value *v = &val[i];
		int k = trawl_reader_field_kind(m);
		const char *ts;
		size_t tlen;
		double d;

		if ((ts = trawl_reader_field_string(m, &tlen)))
			bad_at = v->ret || v->kind != TRAWL_READER_FIELD_STRING ||
					 (size_t)v->i != tlen || memcmp(v->str, ts, tlen + 1) ? i : bad_at;
		else if (k == TRAWL_READER_FIELD_INTEGER || k == TRAWL_READER_FIELD_ENUM)
			bad_at = v->ret || v->kind != k || v->i != trawl_reader_field_int(m) ? i : bad_at;
		else if (k == TRAWL_READER_FIELD_FLOAT && (d = trawl_reader_field_double(m), 1))
			bad_at = v->ret || v->kind != k || memcmp(&v->d, &d, sizeof(d)) ? i : bad_at;
		else
			bad_at = v->ret != -ENOMSG ? i : bad_at;
	}
	if (!ret && bad_at == SIZE_MAX && (val[n].ret != -ENODATA || val[n + 1].ret != -ENODATA))
		bad_at = n;
	free(mem);
	free(val);
	free(sv);
	if (!ret && bad_at == SIZE_MAX)
		return 0;
	fprintf(stderr, "reader-dump: %s: scope %d: trawl_reader_event_read() differs (%d, at %zu)\n",
		trawl_reader_event_name(r), (int)sc, ret, bad_at);
	return 1;
}

static void check_flat(struct trawl_reader *r, enum trawl_reader_scope sc,
		       const struct trawl_reader_field *f)
{
	size_t i, n = trawl_reader_field_kind(f) == TRAWL_READER_FIELD_STRUCT ?
			      trawl_reader_field_count(f) : 0;
	int64_t iv;
	uint64_t uv;
	double dv;
	const char *str;
	size_t len;
	int bad = 0;

	for (i = 0; i < n && !bad; i++) {
		const struct trawl_reader_field *m = trawl_reader_field_at(f, i);
		int k = trawl_reader_field_kind(m), is_int;
		const char *ts;
		size_t tlen;

		is_int = k == TRAWL_READER_FIELD_INTEGER || k == TRAWL_READER_FIELD_ENUM;
		if (is_int)
			bad = trawl_reader_event_int(r, sc, (int)i, &iv) ||
			      trawl_reader_event_uint(r, sc, (int)i, &uv) ||
			      uv != trawl_reader_field_uint(m) || iv != trawl_reader_field_int(m);
		else
			bad = trawl_reader_event_int(r, sc, (int)i, &iv) != -ENOMSG;
		if (k == TRAWL_READER_FIELD_FLOAT)
			bad |= trawl_reader_event_double(r, sc, (int)i, &dv) ||
			       memcmp(&dv, &(double){ trawl_reader_field_double(m) }, sizeof(dv));
		else
			bad |= trawl_reader_event_double(r, sc, (int)i, &dv) != -ENOMSG;
		ts = trawl_reader_field_string(m, &tlen);
		if (ts)
			bad |= trawl_reader_event_string(r, sc, (int)i, &str, &len) || len != tlen ||
			       memcmp(str, ts, len + 1);
		else
			bad |= trawl_reader_event_string(r, sc, (int)i, &str, &len) != -ENOMSG;
		if (bad)
			fprintf(stderr, "reader-dump: %s: scope %d member %zu: the fast accessors differ\n",
				trawl_reader_event_name(r), (int)sc, i);
	}
	if (!bad && (trawl_reader_event_int(r, sc, (int)n, &iv) != -ENODATA ||
		     trawl_reader_event_string(r, sc, -1, &str, NULL) != -ENODATA)) {
		fprintf(stderr, "reader-dump: %s: scope %d: a member past the end is read\n",
			trawl_reader_event_name(r), (int)sc);
		bad = 1;
	}
	if (!bad)
		bad = check_read(r, sc, f, n);
	if (bad)
		exit(1);
}

/* Every other event, the fast accessors read first (no tree decoded yet). */
static void touch_flat(struct trawl_reader *r)
{
	static unsigned long nev;
	int64_t v;
	int sc, ret;

	free(early.v);
	memset(&early, 0, sizeof(early));
	if (nev++ % 2) {
		/* every fourth event, a read of nothing first: it decodes them all the same */
		if (nev % 4 == 0 && trawl_reader_event_read(r, NULL, 0, NULL) != 0) {
			fprintf(stderr, "reader-dump: %s\n", trawl_reader_error(r));
			exit(1);
		}
		/* the others, the whole payload through a selection first */
		if (nev % 4 == 2) {
			const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(r);
			struct trawl_reader_member *mem;
			size_t n = 0;

			while (trawl_reader_event_class_field_kind(ec, TRAWL_READER_SCOPE_EVENT_PAYLOAD,
								   (int)n) >= 0)
				n++;
			mem = members_of(TRAWL_READER_SCOPE_EVENT_PAYLOAD, n);
			early.v = calloc(n + 2, sizeof(*early.v));
			if (!early.v) {
				fprintf(stderr, "reader-dump: out of memory\n");
				exit(1);
			}
			early.n = n + 2;
			early.ret = read_selection(r, mem, n + 2, early.v);
			early.done = 1;
			free(mem);
		}
		return;
	}
	for (sc = TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT; sc <= TRAWL_READER_SCOPE_EVENT_PAYLOAD;
	     sc++) {
		ret = trawl_reader_event_int(r, (enum trawl_reader_scope)sc, 0, &v);
		if (ret && ret != -ENODATA && ret != -ENOMSG) {
			fprintf(stderr, "reader-dump: %s\n", trawl_reader_error(r));
			exit(1);
		}
	}
}

static int put_event(struct trawl_reader *r)
{
	static const char *const scope_names[] = { "pc", "cc", "ec", "p" };
	const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(r);
	const struct trawl_reader_stream *s = trawl_reader_event_stream(r);
	const struct trawl_reader_field *f;
	int64_t ns;
	uint64_t cycles, cpu;
	int sc, ret;

	printf("event %s class=%" PRIu64 " sc=%" PRIu64 " stream=%" PRIu64 " trace=%s",
	       trawl_reader_event_name(r), trawl_reader_event_class_id(ec),
	       trawl_reader_event_class_stream_class_id(ec), trawl_reader_stream_id(s),
	       trawl_reader_trace_name(trawl_reader_stream_trace(s)));
	if (!trawl_reader_event_time_ns(r, &ns) && !trawl_reader_event_cycles(r, &cycles))
		printf(" time=%" PRId64 " cycles=%" PRIu64, ns, cycles);
	if (!trawl_reader_event_cpu(r, &cpu))
		printf(" cpu=%" PRIu64, cpu);
	else
		printf(" cpu=-");
	printf("\n");
	touch_flat(r);
	for (sc = TRAWL_READER_SCOPE_PACKET_CONTEXT; sc <= TRAWL_READER_SCOPE_EVENT_PAYLOAD; sc++) {
		ret = trawl_reader_event_field(r, (enum trawl_reader_scope)sc, &f);
		if (ret == -ENODATA)
			continue;
		if (ret)
			return ret;
		printf("  %s=", scope_names[sc]);
		put_field(f);
		printf("\n");
		check_flat(r, (enum trawl_reader_scope)sc, f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int64_t begin = INT64_MIN, end = INT64_MAX, seek = 0;
	int i = 1, ret, do_seek = 0, isect = 0;
	struct trawl_reader *r;

	if (i < argc && !strcmp(argv[i], "--isect")) {
		isect = 1;
		i++;
	}
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		int64_t v = strtoll(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "--begin"))
			begin = v;
		else if (!strcmp(argv[i], "--end"))
			end = v;
		else if (!strcmp(argv[i], "--seek")) {
			seek = v;
			do_seek = 1;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: reader-dump [--isect] [--begin NS] [--end NS] [--seek NS] TRACE...\n");
		return 2;
	}
	ret = trawl_reader_open((const char *const *)argv + i, (size_t)(argc - i), &r);
	if (!ret)
		ret = trawl_reader_set_time_range(r, begin, end);
	if (!ret && isect)
		ret = trawl_reader_set_stream_intersection(r);
	if (!ret && do_seek)
		ret = trawl_reader_seek_ns(r, seek);
	if (ret) {
		fprintf(stderr, "reader-dump: %s\n", trawl_reader_error(r));
		trawl_reader_destroy(r);
		return 1;
	}
	put_traces(r);
	while ((ret = trawl_reader_next(r)) > 0) {
		ret = put_event(r);
		if (ret)
			break;
	}
	if (ret < 0)
		fprintf(stderr, "reader-dump: %s\n", trawl_reader_error(r));
	trawl_reader_destroy(r);
	return ret < 0;
}
