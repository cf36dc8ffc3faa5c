/* SPDX-License-Identifier: MIT */
/*
 * The trace description and its TSDL metadata.
 *
 * Metadata may grow while tracing: apps register new events after the trace
 * started. Each clock, stream class and event class remembers whether it was
 * emitted, so trawl_ctf_trace_metadata_new() returns exactly what a reader
 * has not seen yet, in an order TSDL accepts (clocks, then stream classes,
 * then event classes). The trace and env blocks can only be emitted once.
 */
#include "common/array.h"
#include "ctf/internal.h"
#include "common/common.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct env_entry {
	char *key;   /* owned */
	char *str;   /* owned, or NULL for an integer */
	int64_t num;
};

struct clock_entry {
	struct trawl_ctf_clock_desc d; /* name/description owned; uuid points to uuid_buf */
	uint8_t uuid_buf[16];
	int has_uuid;
	int no_uuid;
	int emitted;
};

struct stream_class {
	uint32_t id;
	enum trawl_ctf_header_kind kind;
	struct trawl_ctf_type *event_context; /* owned, or NULL */
	char *clock;                          /* owned */
	int emitted;
};

struct event_class {
	struct trawl_ctf_event_class_desc d; /* name/emf_uri owned */
	struct trawl_ctf_type *payload;      /* owned, or NULL */
	int emitted;
};

struct trawl_ctf_trace {
	int big_endian;
	uint8_t uuid[16];
	int header_emitted;
	struct env_entry *env;
	size_t nr_env;
	struct clock_entry *clocks;
	size_t nr_clocks;
	struct stream_class *streams;
	size_t nr_streams;
	struct event_class *events;
	size_t nr_events, cap_events;
};

struct trawl_ctf_trace *trawl_ctf_trace_create(int big_endian)
{
	struct trawl_ctf_trace *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->big_endian = !!big_endian;
	if (trawl_ctf_uuid_generate(t->uuid)) {
		free(t);
		errno = EIO;
		return NULL;
	}
	return t;
}

void trawl_ctf_trace_destroy(struct trawl_ctf_trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_env; i++) {
		free(t->env[i].key);
		free(t->env[i].str);
	}
	free(t->env);
	for (i = 0; i < t->nr_clocks; i++) {
		free((char *)t->clocks[i].d.name);
		free((char *)t->clocks[i].d.description);
	}
	free(t->clocks);
	for (i = 0; i < t->nr_streams; i++) {
		trawl_ctf_type_destroy(t->streams[i].event_context);
		free(t->streams[i].clock);
	}
	free(t->streams);
	for (i = 0; i < t->nr_events; i++) {
		free((char *)t->events[i].d.name);
		free((char *)t->events[i].d.emf_uri);
		trawl_ctf_type_destroy(t->events[i].payload);
	}
	free(t->events);
	free(t);
}

int trawl_ctf_trace_set_uuid(struct trawl_ctf_trace *t, const uint8_t uuid[16])
{
	if (t->header_emitted)
		return -EBUSY;
	memcpy(t->uuid, uuid, 16);
	return 0;
}

const uint8_t *trawl_ctf_trace_uuid(const struct trawl_ctf_trace *t)
{
	return t->uuid;
}

int trawl_ctf_trace_big_endian(const struct trawl_ctf_trace *t)
{
	return t->big_endian;
}

static int env_add(struct trawl_ctf_trace *t, const char *key, const char *str, int64_t num)
{
	struct env_entry *e;
	size_t i;

	if (t->header_emitted)
		return -EBUSY;
	if (!trawl_ctf_identifier_valid(key))
		return -EINVAL;
	for (i = 0; i < t->nr_env; i++)
		if (!strcmp(t->env[i].key, key))
			return -EEXIST;
	e = realloc(t->env, (t->nr_env + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	t->env = e;
	e = &t->env[t->nr_env];
	e->key = strdup(key);
	e->str = str ? strdup(str) : NULL;
	e->num = num;
	if (!e->key || (str && !e->str)) {
		free(e->key);
		free(e->str);
		return -ENOMEM;
	}
	t->nr_env++;
	return 0;
}

int trawl_ctf_trace_env_add_string(struct trawl_ctf_trace *t, const char *key, const char *value)
{
	if (!value)
		return -EINVAL;
	return env_add(t, key, value, 0);
}

int trawl_ctf_trace_env_add_int(struct trawl_ctf_trace *t, const char *key, int64_t value)
{
	return env_add(t, key, NULL, value);
}

static const struct clock_entry *clock_find(const struct trawl_ctf_trace *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_clocks; i++)
		if (!strcmp(t->clocks[i].d.name, name))
			return &t->clocks[i];
	return NULL;
}

int trawl_ctf_trace_add_clock(struct trawl_ctf_trace *t, const struct trawl_ctf_clock_desc *c)
{
	struct clock_entry *e;

	if (!c || !trawl_ctf_identifier_valid(c->name) || !c->freq)
		return -EINVAL;
	if (clock_find(t, c->name))
		return -EEXIST;
	e = realloc(t->clocks, (t->nr_clocks + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	t->clocks = e;
	e = &t->clocks[t->nr_clocks];
	e->d = *c;
	e->emitted = 0;
	e->has_uuid = c->uuid != NULL;
	e->no_uuid = !!c->no_uuid;
	if (c->uuid)
		memcpy(e->uuid_buf, c->uuid, 16);
	e->d.uuid = NULL;
	e->d.name = strdup(c->name);
	e->d.description = c->description ? strdup(c->description) : NULL;
	if (!e->d.name || (c->description && !e->d.description)) {
		free((char *)e->d.name);
		free((char *)e->d.description);
		return -ENOMEM;
	}
	t->nr_clocks++;
	return 0;
}

int trawl_ctf_trace_add_monotonic_clock(struct trawl_ctf_trace *t)
{
	int64_t off = trawl_ctf_clock_offset();
	uint8_t boot[16];
	int have_boot = trawl_ctf_boot_id(boot) == 0;
	struct trawl_ctf_clock_desc c = {
		.name = "monotonic",
		.description = "Monotonic Clock",
		.freq = 1000000000,
		.precision = 1,
		.offset_s = off / 1000000000,
		.offset = off % 1000000000,
		.absolute = 0,
		.uuid = have_boot ? boot : NULL,
	};

	if (c.offset < 0) {
		c.offset += 1000000000;
		c.offset_s--;
	}
	return trawl_ctf_trace_add_clock(t, &c);
}

static struct stream_class *stream_find(struct trawl_ctf_trace *t, uint32_t id)
{
	size_t i;

	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].id == id)
			return &t->streams[i];
	return NULL;
}

int ctf_trace_event_align(const struct trawl_ctf_trace *t, uint32_t sid, uint32_t id)
{
	size_t i;

	for (i = 0; i < t->nr_events; i++) {
		const struct event_class *e = &t->events[i];

		if (e->d.stream_id == sid && e->d.id == id)
			return e->payload && e->payload->u.strct.nr ? (int)e->payload->align_bits : 1;
	}
	return -EINVAL;
}

unsigned ctf_trace_context_align(const struct trawl_ctf_trace *t, uint32_t sid)
{
	size_t i;

	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].id == sid)
			return t->streams[i].event_context && t->streams[i].event_context->u.strct.nr
				       ? t->streams[i].event_context->align_bits
				       : 0;
	return 0;
}

int ctf_trace_stream_kind(const struct trawl_ctf_trace *t, uint32_t id)
{
	size_t i;

	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].id == id)
			return (int)t->streams[i].kind;
	return -EINVAL;
}

/* 1 if every integer of @ty that maps to a clock maps to one @t declares. */
static int clocks_known(const struct trawl_ctf_trace *t, const struct trawl_ctf_type *ty)
{
	size_t i;

	switch (ty->kind) {
	case CTF_INTEGER:
		return !ty->u.integer.clock || clock_find(t, ty->u.integer.clock);
	case CTF_ENUM:
		return clocks_known(t, ty->u.enumeration.container);
	case CTF_ARRAY:
	case CTF_SEQUENCE:
		return clocks_known(t, ty->u.array.elem);
	case CTF_STRUCT:
	case CTF_VARIANT:
		for (i = 0; i < ty->u.strct.nr; i++)
			if (!clocks_known(t, ty->u.strct.fields[i].type))
				return 0;
		return 1;
	default:
		return 1;
	}
}

int trawl_ctf_trace_add_stream_class(struct trawl_ctf_trace *t, uint32_t id,
				     enum trawl_ctf_header_kind kind,
				     struct trawl_ctf_type *event_context, const char *clock_name)
{
	struct stream_class *s;
	int ret = -EINVAL;

	if ((kind != TRAWL_CTF_HEADER_COMPACT && kind != TRAWL_CTF_HEADER_LARGE) ||
	    !clock_name || !clock_find(t, clock_name) ||
	    (event_context && (event_context->kind != CTF_STRUCT || !clocks_known(t, event_context))))
		goto err;
	ret = -EEXIST;
	if (stream_find(t, id))
		goto err;
	ret = -ENOMEM;
	s = realloc(t->streams, (t->nr_streams + 1) * sizeof(*s));
	if (!s)
		goto err;
	t->streams = s;
	s = &t->streams[t->nr_streams];
	s->clock = strdup(clock_name);
	if (!s->clock)
		goto err;
	s->id = id;
	s->kind = kind;
	s->event_context = event_context;
	s->emitted = 0;
	t->nr_streams++;
	return 0;
err:
	trawl_ctf_type_destroy(event_context);
	return ret;
}

int trawl_ctf_trace_add_event_class(struct trawl_ctf_trace *t,
				    const struct trawl_ctf_event_class_desc *d,
				    struct trawl_ctf_type *payload)
{
	const struct stream_class *sc;
	struct event_class *e;
	size_t i;
	int ret = -EINVAL;

	/* babeltrace2 warns about a log level outside LTTng's 0 (EMERG) .. 14 (DEBUG). */
	if (!d || !d->name || !*d->name || d->loglevel < -1 || d->loglevel > 14 ||
	    (payload && (payload->kind != CTF_STRUCT || !clocks_known(t, payload))))
		goto err;
	sc = stream_find(t, d->stream_id);
	if (!sc)
		goto err;
	if (sc->kind == TRAWL_CTF_HEADER_LARGE && d->id >= 0xffffffffu)
		goto err;
	ret = -EEXIST;
	for (i = 0; i < t->nr_events; i++)
		if (t->events[i].d.stream_id == d->stream_id && t->events[i].d.id == d->id)
			goto err;
	ret = -ENOMEM;
	if (trawl_array_grow((void **)&t->events, &t->cap_events, t->nr_events + 1, sizeof(*e), 16))
		goto err;
	e = &t->events[t->nr_events];
	e->d = *d;
	e->d.name = strdup(d->name);
	e->d.emf_uri = d->emf_uri ? strdup(d->emf_uri) : NULL;
	if (!e->d.name || (d->emf_uri && !e->d.emf_uri)) {
		free((char *)e->d.name);
		free((char *)e->d.emf_uri);
		ret = -ENOMEM;
		goto err;
	}
	e->payload = payload;
	e->emitted = 0;
	t->nr_events++;
	return 0;
err:
	trawl_ctf_type_destroy(payload);
	return ret;
}

/* ------------------------------------------------------------------ */
/* TSDL                                                               */
/* ------------------------------------------------------------------ */

static void tsdl_header(struct trawl_strbuf *sb, const struct trawl_ctf_trace *t)
{
	char uuid[37];
	size_t i;

	trawl_ctf_uuid_format(t->uuid, uuid);
	trawl_strbuf_add(sb, "/* CTF 1.8 */\n\n");
	trawl_strbuf_add(sb, "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		   "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		   "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		   "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		   "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n\n");
	trawl_strbuf_addf(sb,
		"trace {\n"
		"\tmajor = 1;\n"
		"\tminor = 8;\n"
		"\tuuid = \"%s\";\n"
		"\tbyte_order = %s;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t\tuint8_t  uuid[16];\n"
		"\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n"
		"\t} align(8);\n"
		"};\n\n",
		uuid, t->big_endian ? "be" : "le");
	if (t->nr_env) {
		trawl_strbuf_add(sb, "env {\n");
		for (i = 0; i < t->nr_env; i++) {
			trawl_strbuf_addf(sb, "\t%s = ", t->env[i].key);
			if (t->env[i].str)
				trawl_strbuf_add_quoted(sb, t->env[i].str);
			else
				trawl_strbuf_addf(sb, "%lld", (long long)t->env[i].num);
			trawl_strbuf_add(sb, ";\n");
		}
		trawl_strbuf_add(sb, "};\n\n");
	}
}

static void tsdl_clock(struct trawl_strbuf *sb, const struct trawl_ctf_trace *t,
		       const struct clock_entry *c)
{
	char uuid[37];

	trawl_ctf_uuid_format(c->has_uuid ? c->uuid_buf : t->uuid, uuid);
	trawl_strbuf_addf(sb, "clock {\n\tname = \"%s\";\n", c->d.name);
	if (!c->no_uuid)
		trawl_strbuf_addf(sb, "\tuuid = \"%s\";\n", uuid);
	if (c->d.description) {
		trawl_strbuf_add(sb, "\tdescription = ");
		trawl_strbuf_add_quoted(sb, c->d.description);
		trawl_strbuf_add(sb, ";\n");
	}
	trawl_strbuf_addf(sb,
		"\tfreq = %llu;\n\tprecision = %llu;\n\toffset_s = %lld;\n\toffset = %lld;\n"
		"\tabsolute = %s;\n};\n\n",
		(unsigned long long)c->d.freq, (unsigned long long)c->d.precision,
		(long long)c->d.offset_s, (long long)c->d.offset, c->d.absolute ? "TRUE" : "FALSE");
	/* Clock-mapped integers for the headers of streams using this clock. */
	trawl_strbuf_addf(sb,
		"typealias integer { size = 27; align = 1; signed = false; map = clock.%1$s.value; } := uint27_clock_%1$s_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; map = clock.%1$s.value; } := uint32_clock_%1$s_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.%1$s.value; } := uint64_clock_%1$s_t;\n\n",
		c->d.name);
}

static void tsdl_stream(struct trawl_strbuf *sb, const struct stream_class *s)
{
	const char *c = s->clock;

	trawl_strbuf_addf(sb, "stream {\n\tid = %u;\n", s->id);
	if (s->kind == TRAWL_CTF_HEADER_COMPACT)
		trawl_strbuf_addf(sb,
			"\tevent.header := struct {\n"
			"\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
			"\t\tvariant <id> {\n"
			"\t\t\tstruct { uint27_clock_%1$s_t timestamp; } compact;\n"
			"\t\t\tstruct { uint32_t id; uint64_clock_%1$s_t timestamp; } extended;\n"
			"\t\t} v;\n"
			"\t} align(8);\n",
			c);
	else
		trawl_strbuf_addf(sb,
			"\tevent.header := struct {\n"
			"\t\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
			"\t\tvariant <id> {\n"
			"\t\t\tstruct { uint32_clock_%1$s_t timestamp; } compact;\n"
			"\t\t\tstruct { uint32_t id; uint64_clock_%1$s_t timestamp; } extended;\n"
			"\t\t} v;\n"
			"\t} align(8);\n",
			c);
	trawl_strbuf_addf(sb,
		"\tpacket.context := struct {\n"
		"\t\tuint64_clock_%1$s_t timestamp_begin;\n"
		"\t\tuint64_clock_%1$s_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n"
		"\t\tuint64_t packet_seq_num;\n"
		"\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n"
		"\t} align(8);\n",
		c);
	if (s->event_context && s->event_context->u.strct.nr) {
		trawl_strbuf_add(sb, "\tevent.context := ");
		ctf_type_tsdl_struct(sb, s->event_context, 1);
		trawl_strbuf_add(sb, ";\n");
	}
	trawl_strbuf_add(sb, "};\n\n");
}

static void tsdl_event(struct trawl_strbuf *sb, const struct event_class *e)
{
	trawl_strbuf_add(sb, "event {\n\tname = ");
	trawl_strbuf_add_quoted(sb, e->d.name);
	trawl_strbuf_addf(sb, ";\n\tid = %u;\n\tstream_id = %u;\n", e->d.id, e->d.stream_id);
	if (e->d.loglevel >= 0)
		trawl_strbuf_addf(sb, "\tloglevel = %d;\n", e->d.loglevel);
	if (e->d.emf_uri) {
		trawl_strbuf_add(sb, "\tmodel.emf.uri = ");
		trawl_strbuf_add_quoted(sb, e->d.emf_uri);
		trawl_strbuf_add(sb, ";\n");
	}
	/* Also when empty: LTTng declares "fields := struct { };" for an event
	 * without fields, and viewers then show its payload as "{ }". */
	if (e->payload) {
		trawl_strbuf_add(sb, "\tfields := ");
		ctf_type_tsdl_struct(sb, e->payload, 1);
		trawl_strbuf_add(sb, ";\n");
	}
	trawl_strbuf_add(sb, "};\n\n");
}

static char *metadata(struct trawl_ctf_trace *t, size_t *len, int only_new)
{
	struct trawl_strbuf sb;
	size_t i;

	trawl_strbuf_init(&sb);
	if (!only_new || !t->header_emitted)
		tsdl_header(&sb, t);
	for (i = 0; i < t->nr_clocks; i++)
		if (!only_new || !t->clocks[i].emitted)
			tsdl_clock(&sb, t, &t->clocks[i]);
	for (i = 0; i < t->nr_streams; i++)
		if (!only_new || !t->streams[i].emitted)
			tsdl_stream(&sb, &t->streams[i]);
	for (i = 0; i < t->nr_events; i++)
		if (!only_new || !t->events[i].emitted)
			tsdl_event(&sb, &t->events[i]);
	if (sb.err) {
		trawl_strbuf_fini(&sb);
		errno = ENOMEM;
		return NULL;
	}
	if (!sb.buf)
		trawl_strbuf_add(&sb, "");
	t->header_emitted = 1;
	for (i = 0; i < t->nr_clocks; i++)
		t->clocks[i].emitted = 1;
	for (i = 0; i < t->nr_streams; i++)
		t->streams[i].emitted = 1;
	for (i = 0; i < t->nr_events; i++)
		t->events[i].emitted = 1;
	return trawl_strbuf_detach(&sb, len);
}

char *trawl_ctf_trace_metadata(struct trawl_ctf_trace *t, size_t *len)
{
	return metadata(t, len, 0);
}

char *trawl_ctf_trace_metadata_new(struct trawl_ctf_trace *t, size_t *len)
{
	return metadata(t, len, 1);
}

/* ------------------------------------------------------------------ */
/* Packetized metadata                                                */
/* ------------------------------------------------------------------ */

/* The metadata packet header, 37 bytes. */
struct metadata_packet_header {
	uint32_t magic;
	uint8_t uuid[16];
	uint32_t checksum;
	uint32_t content_size; /* bits, header included */
	uint32_t packet_size;  /* bits */
	uint8_t compression_scheme;
	uint8_t encryption_scheme;
	uint8_t checksum_scheme;
	uint8_t major;
	uint8_t minor;
} __attribute__((packed));

#define METADATA_PACKET_SIZE 4096u

static uint32_t to_order32(uint32_t v, int big_endian)
{
	return big_endian ? htobe32(v) : htole32(v);
}

int trawl_ctf_metadata_packetize(const char *text, size_t len, const uint8_t uuid[16],
				 int big_endian, void **out, size_t *out_len)
{
	const size_t room = METADATA_PACKET_SIZE - sizeof(struct metadata_packet_header);
	size_t nr = len ? (len + room - 1) / room : 1;
	size_t i, off = 0;
	uint8_t *buf;

	uint8_t *p;

	_Static_assert(sizeof(struct metadata_packet_header) == 37, "metadata header is 37 bytes");
	buf = malloc(nr * sizeof(struct metadata_packet_header) + len);
	if (!buf)
		return -ENOMEM;
	/* the last packet as long as its text: no padding (packet_size = content_size) */
	for (i = 0, p = buf; i < nr; i++) {
		size_t n = len - off < room ? len - off : room;
		uint32_t bits = (uint32_t)((sizeof(struct metadata_packet_header) + n) * 8);
		struct metadata_packet_header h = {
			.magic = to_order32(TRAWL_CTF_METADATA_MAGIC, big_endian),
			.content_size = to_order32(bits, big_endian),
			.packet_size = to_order32(bits, big_endian),
			.major = 1,
			.minor = 8,
		};

		memcpy(h.uuid, uuid, 16);
		memcpy(p, &h, sizeof(h));
		memcpy(p + sizeof(h), text + off, n);
		p += sizeof(h) + n;
		off += n;
	}
	*out = buf;
	*out_len = (size_t)(p - buf);
	return 0;
}

int trawl_ctf_trace_write_metadata(struct trawl_ctf_trace *t, const char *path, int packetized)
{
	size_t len, plen;
	void *pkts = NULL;
	char *text = trawl_ctf_trace_metadata(t, &len);
	int fd, ret;

	if (!text)
		return -errno;
	if (packetized) {
		ret = trawl_ctf_metadata_packetize(text, len, t->uuid, t->big_endian, &pkts, &plen);
		if (ret)
			goto out_text;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		ret = -errno;
		goto out_pkts;
	}
	ret = packetized ? trawl_write_all(fd, pkts, plen) : trawl_write_all(fd, text, len);
	if (close(fd) && !ret)
		ret = -errno;
out_pkts:
	free(pkts);
out_text:
	free(text);
	return ret;
}
