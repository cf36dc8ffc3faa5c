/* SPDX-License-Identifier: MIT */
/*
 * jsonw.c - JSON text for the exports (why hand-written: jsonw.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonw.h"

int jsonw_reserve(struct trawl_reader_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *d;

	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = c & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Whether a byte of @w is below 0x20, at or above 0x80, '"' or '\\' (Mycroft's zero-byte test). */
static inline uint64_t swar_special(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');

	return ((w - ones * 0x20) | (q - ones) | (bs - ones) | w) & high;
}

/*
 * The count of bytes at @s (of @n) that go out as they are: printable
 * ASCII but '"' and '\\'. Eight at a time (names and most strings of a
 * trace are plain: this is most of JSON's cost per event otherwise).
 */
static inline size_t plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;
	uint64_t w;

	while (n - i >= 8) {
		memcpy(&w, s + i, 8);
		if (swar_special(w))
			break;
		i += 8;
	}
	while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
		i++;
	return i;
}

int jsonw_string(struct trawl_reader_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run;

	/* the worst case: every byte becomes \u00XX or U+FFFD (6 bytes) */
	if (n > (SIZE_MAX - 2) / 6 || (b->cap - b->len < n * 6 + 2 && jsonw_reserve(b, n * 6 + 2)))
		return -ENOMEM;
	b->data[b->len++] = '"';
	while (i < n) {
		unsigned char c = s[i];

		run = i + plain_run(s + i, n - i);
		if (run > i) {
			memcpy(b->data + b->len, s + i, run - i);
			b->len += run - i;
			i = run;
			continue;
		}
		if (c >= 0x80) {
			size_t l = utf8_len(s + i, n - i);

			if (l) {
				memcpy(b->data + b->len, s + i, l);
				b->len += l;
				i += l;
			} else {
				memcpy(b->data + b->len, "\xef\xbf\xbd", 3);
				b->len += 3;
				i++;
			}
			continue;
		}
		b->data[b->len++] = '\\';
		switch (c) {
		case '"': b->data[b->len++] = '"'; break;
		case '\\': b->data[b->len++] = '\\'; break;
		case '\n': b->data[b->len++] = 'n'; break;
		case '\t': b->data[b->len++] = 't'; break;
		case '\r': b->data[b->len++] = 'r'; break;
		default:
			memcpy(b->data + b->len, "u00", 3);
			b->data[b->len + 3] = hex[c >> 4];
			b->data[b->len + 4] = hex[c & 15];
			b->len += 5;
		}
		i++;
	}
	b->data[b->len++] = '"';
	return 0;
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The 8 digits of @v (< 10^8) before @end, zeros included; 32-bit divisions only. */
static inline void put8(char *end, uint32_t v)
{
	int k;

	for (k = 0; k < 4; k++) {
		uint32_t d = (v % 100) * 2;

		v /= 100;
		*--end = digit_pairs[d + 1];
		*--end = digit_pairs[d];
	}
}

/* The count of decimal digits of @v (1 for 0): from its bit length (x 1233 / 4096 ~ log10(2)), then one check. */
static inline int digits10(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL};
	int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + (v >= p10[t]) + !v;
}

int jsonw_u64_plain(struct trawl_reader_buf *b, uint64_t v)
{
	/*
	 * A time in ns has 19 digits: 64-bit divisions by 10^8 cut it into
	 * chunks written with 32-bit ones, which cost a third as much. The
	 * digits go straight to their place in the buffer, last first (built
	 * in a scratch array and copied, they cost a store-forwarding stall).
	 */
	int n = digits10(v);
	char *end;
	uint32_t w;

	if (b->cap - b->len < 20 && jsonw_reserve(b, 20))
		return -ENOMEM;
	end = b->data + b->len + n;
	b->len += (size_t)n;
	while (v >= 100000000) {
		put8(end, (uint32_t)(v % 100000000));
		v /= 100000000;
		end -= 8;
	}
	w = (uint32_t)v;
	while (w >= 100) {
		uint32_t d = (w % 100) * 2;

		w /= 100;
		*--end = digit_pairs[d + 1];
		*--end = digit_pairs[d];
	}
	if (w >= 10) {
		*--end = digit_pairs[w * 2 + 1];
		*--end = digit_pairs[w * 2];
	} else {
		*--end = (char)('0' + w);
	}
	return 0;
}

int jsonw_uint(struct trawl_reader_buf *b, uint64_t v)
{
	if (v <= JSONW_SAFE_INT)
		return jsonw_u64_plain(b, v);
	return jsonw_lit(b, "\"") || jsonw_u64_plain(b, v) || jsonw_lit(b, "\"") ? -ENOMEM : 0;
}

int jsonw_int(struct trawl_reader_buf *b, int64_t v)
{
	/* the magnitude as unsigned: -INT64_MIN does not fit an int64_t */
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int big = mag > JSONW_SAFE_INT;

	if ((big && jsonw_lit(b, "\"")) || (v < 0 && jsonw_lit(b, "-")) ||
	    jsonw_u64_plain(b, mag) || (big && jsonw_lit(b, "\"")))
		return -ENOMEM;
	return 0;
}

int jsonw_double(struct trawl_reader_buf *b, double v)
{
	char tmp[40];
	int n;

	if (isnan(v))
		return jsonw_lit(b, "\"nan\"");
	if (isinf(v))
		return v > 0 ? jsonw_lit(b, "\"inf\"") : jsonw_lit(b, "\"-inf\"");
	/* %.17g reads back to the same double */
	n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	if (n <= 0 || (size_t)n >= sizeof(tmp))
		return -EINVAL;
	/* a float stays one for the reader: "2222" would parse as an integer */
	if (!strpbrk(tmp, ".e") && (size_t)n + 2 < sizeof(tmp)) {
		memcpy(tmp + n, ".0", 2);
		n += 2;
	}
	return jsonw_raw(b, tmp, (size_t)n);
}

int jsonw_us_of_ns(struct trawl_reader_buf *b, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	char frac[4];

	frac[0] = '.';
	frac[1] = (char)('0' + mag / 100 % 10);
	frac[2] = (char)('0' + mag / 10 % 10);
	frac[3] = (char)('0' + mag % 10);
	if ((ns < 0 && jsonw_lit(b, "-")) || jsonw_u64_plain(b, mag / 1000))
		return -ENOMEM;
	return jsonw_raw(b, frac, 4);
}

static int jsonw_enum(struct trawl_reader_buf *b, const struct trawl_reader_field *f)
{
	const char *labels[8];
	size_t n = trawl_reader_field_enum_labels(f, labels, 8), i;
	int ret = jsonw_lit(b, "{\"label\":");

	if (!ret)
		ret = n ? jsonw_string(b, labels[0], strlen(labels[0])) : jsonw_lit(b, "null");
	if (!ret && n > 1) {
		const char **all = labels;

		if (n > 8 && !(all = malloc(n * sizeof(*all))))
			return -ENOMEM;
		trawl_reader_field_enum_labels(f, all, n);
		ret = jsonw_lit(b, ",\"labels\":[");
		for (i = 0; i < n && !ret; i++)
			ret = (i && jsonw_lit(b, ",")) || jsonw_string(b, all[i], strlen(all[i]));
		if (!ret)
			ret = jsonw_lit(b, "]");
		if (all != labels)
			free(all);
	}
	if (!ret)
		ret = jsonw_lit(b, ",\"value\":");
	if (!ret)
		ret = trawl_reader_field_is_signed(f) ? jsonw_int(b, trawl_reader_field_int(f))
						      : jsonw_uint(b, trawl_reader_field_uint(f));
	return ret ? ret : jsonw_lit(b, "}");
}

/*
 * The names' cache (jsonw.h): direct-mapped on the name's address. The
 * address is the key, unchecked: event, trace and field names are the
 * metadata's and live as long as the reader (a live reader keeps the
 * metadata it parsed before until it is destroyed), which outlives the
 * cache in every caller. Checking each name with strcmp cost 13% of
 * view --format=json (perf, 2 M events).
 */
#define NAMES_SLOTS 512
#define KEY_COPY 32
#define FLAT_SLOTS 256
#define FLAT_SCOPES 4

/*
 * An event class whose scopes hold only integers (not enums), floats and
 * strings at their top level is written member by member through the
 * reader's flat accessors (trawl_reader_event_uint() and the others: read
 * in place), not through the tree of trawl_reader_event_field(): decoding
 * the tree and walking it with an accessor call per member and property
 * was half of view --format=json's instructions (callgrind, 1 M events).
 * What the class holds is learnt from its first event's tree; the text
 * is the same either way (a member that fails sends the event to the tree).
 */
struct flat_member {
	const char *name;	/* the metadata's (a key of the names' cache) */
	uint8_t kind;		/* integer, float or string */
	uint8_t is_signed;
};

struct flat_class {
	const struct trawl_reader_event_class *ec;
	bool flat;		/* else: the tree, always */
	int8_t count[FLAT_SCOPES];	/* members of each scope; -1: the scope is absent */
	struct flat_member *m;	/* owned: scope by scope */
	struct flat_class *next;	/* owned: other classes of this slot */
};

struct jsonw_names {
	struct {
		const char *p;
		char *json;	/* owned: "escaped": */
		size_t len;
	} slot[NAMES_SLOTS];
	/* the last time's ,"time_ns":"DIGITS without the low 8, and those digits / 10^8 */
	uint64_t time_hi;
	size_t time_len;
	char time_txt[40];
	struct flat_class *flat[FLAT_SLOTS];	/* owned: event classes met, by address */
};

struct jsonw_names *jsonw_names_create(void)
{
	return calloc(1, sizeof(struct jsonw_names));
}

void jsonw_names_destroy(struct jsonw_names *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < NAMES_SLOTS; i++)
		free(c->slot[i].json);
	for (i = 0; i < FLAT_SLOTS; i++) {
		struct flat_class *fc = c->flat[i], *next;

		for (; fc; fc = next) {
			next = fc->next;
			free(fc->m);
			free(fc);
		}
	}
	free(c);
}

static int name_fill(struct jsonw_names *c, size_t i, const char *name)
{
	struct trawl_reader_buf t = {0};

	/* at least KEY_COPY bytes, so that a short key is copied with a constant size */
	if (jsonw_string(&t, name, strlen(name)) || jsonw_lit(&t, ":") ||
	    jsonw_reserve(&t, KEY_COPY)) {
		free(t.data);
		return -ENOMEM;
	}
	free(c->slot[i].json);
	c->slot[i].p = name;
	c->slot[i].json = t.data;
	c->slot[i].len = t.len;
	return 0;
}

static inline int key_of(struct trawl_reader_buf *b, struct jsonw_names *c, const char *name)
{
	size_t i = ((uintptr_t)name >> 3) & (NAMES_SLOTS - 1);

	if (__builtin_expect(!c, 0)) {
		if (jsonw_string(b, name, strlen(name)))
			return -ENOMEM;
		return jsonw_lit(b, ":");
	}
	if (c->slot[i].p != name && name_fill(c, i, name))
		return -ENOMEM;
	if (c->slot[i].len > KEY_COPY)
		return jsonw_raw(b, c->slot[i].json, c->slot[i].len);
	/* a constant size: two moves instead of a call of memcpy */
	if (b->cap - b->len < KEY_COPY && jsonw_reserve(b, KEY_COPY))
		return -ENOMEM;
	memcpy(b->data + b->len, c->slot[i].json, KEY_COPY);
	b->len += c->slot[i].len;
	return 0;
}

int jsonw_key(struct trawl_reader_buf *b, struct jsonw_names *c, const char *name)
{
	return key_of(b, c, name);
}

/* Members as "name":value pairs (structures, variants), or elements. */
static int jsonw_children(struct trawl_reader_buf *b, const struct trawl_reader_field *f,
			  int named, struct jsonw_names *c)
{
	size_t i, n = trawl_reader_field_count(f);
	int ret = named ? jsonw_lit(b, "{") : jsonw_lit(b, "[");

	for (i = 0; i < n && !ret; i++) {
		const struct trawl_reader_field *m = trawl_reader_field_at(f, i);

		if (i)
			ret = jsonw_lit(b, ",");
		if (!ret && named) {
			const char *name = trawl_reader_field_name(m);

			ret = key_of(b, c, name ? name : "");
		}
		if (!ret)
			ret = jsonw_field_names(b, m, c);
	}
	if (ret)
		return ret;
	return named ? jsonw_lit(b, "}") : jsonw_lit(b, "]");
}

int jsonw_field(struct trawl_reader_buf *b, const struct trawl_reader_field *f)
{
	return jsonw_field_names(b, f, NULL);
}

int jsonw_field_names(struct trawl_reader_buf *b, const struct trawl_reader_field *f,
		      struct jsonw_names *c)
{
	const char *s;
	size_t len;

	switch (trawl_reader_field_kind(f)) {
	case TRAWL_READER_FIELD_INTEGER:
		return trawl_reader_field_is_signed(f) ? jsonw_int(b, trawl_reader_field_int(f))
						       : jsonw_uint(b, trawl_reader_field_uint(f));
	case TRAWL_READER_FIELD_ENUM:
		return jsonw_enum(b, f);
	case TRAWL_READER_FIELD_FLOAT:
		return jsonw_double(b, trawl_reader_field_double(f));
	case TRAWL_READER_FIELD_STRING:
		s = trawl_reader_field_string(f, &len);
		return jsonw_string(b, s ? s : "", s ? len : 0);
	case TRAWL_READER_FIELD_STRUCT:
	case TRAWL_READER_FIELD_VARIANT:
		return jsonw_children(b, f, 1, c);
	case TRAWL_READER_FIELD_ARRAY:
	case TRAWL_READER_FIELD_SEQUENCE:
		return jsonw_children(b, f, 0, c);
	}
	return jsonw_lit(b, "null");
}

#define SCOPE(s, k) {s, k, sizeof(k) - 1}
static const struct {
	enum trawl_reader_scope scope;
	const char *key; /* with its comma, quotes and colon */
	size_t len;
} scopes[] = {
	SCOPE(TRAWL_READER_SCOPE_PACKET_CONTEXT, ",\"packet_context\":"),
	SCOPE(TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, ",\"common_context\":"),
	SCOPE(TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT, ",\"specific_context\":"),
	SCOPE(TRAWL_READER_SCOPE_EVENT_PAYLOAD, ",\"payload\":"),
};

/*
 * ,"time_ns":"NS" (a string: beyond 2^53). Events in a row share all but the
 * last 8 digits of their times (1/10 s), so the text of those is kept from
 * one event to the next and only the low 8 are made: a 19-digit time
 * costs one 32-bit conversion instead of three and a digit count.
 */
static int time_ns(struct trawl_reader_buf *b, struct jsonw_names *c, int64_t ns)
{
	uint64_t v = (uint64_t)ns, hi = v / 100000000;

	if (!c || ns < 0 || hi * 100000000 <= JSONW_SAFE_INT)
		return jsonw_lit(b, ",\"time_ns\":") || jsonw_int(b, ns) ? -ENOMEM : 0;
	if (hi != c->time_hi || !c->time_len) {
		struct trawl_reader_buf t = {.data = c->time_txt, .cap = sizeof(c->time_txt)};

		memcpy(t.data, ",\"time_ns\":\"", 12);
		t.len = 12;
		jsonw_u64_plain(&t, hi); /* <= 20 digits: fits, no growth */
		c->time_len = t.len;
		c->time_hi = hi;
	}
	if (b->cap - b->len < c->time_len + 9 && jsonw_reserve(b, c->time_len + 9))
		return -ENOMEM;
	memcpy(b->data + b->len, c->time_txt, c->time_len);
	b->len += c->time_len + 9;
	put8(b->data + b->len - 1, (uint32_t)(v - hi * 100000000));
	b->data[b->len - 1] = '"';
	return 0;
}

/* What the current event's class holds (flat_class), learnt from this event's tree. */
static struct flat_class *flat_learn(struct trawl_reader *r, const struct trawl_reader_event_class *ec)
{
	struct flat_class *fc = calloc(1, sizeof(*fc));
	const struct trawl_reader_field *root[FLAT_SCOPES] = {0};
	size_t total = 0, i, k, n;

	if (!fc)
		return NULL;
	fc->ec = ec;
	for (i = 0; i < FLAT_SCOPES; i++) {
		int ret = trawl_reader_event_field(r, scopes[i].scope, &root[i]);

		fc->count[i] = -1;
		if (ret == -ENODATA)
			continue;
		if (ret || trawl_reader_field_kind(root[i]) != TRAWL_READER_FIELD_STRUCT ||
		    trawl_reader_field_count(root[i]) > 64)
			return fc;	/* not flat (or an error the tree will tell) */
		fc->count[i] = (int8_t)trawl_reader_field_count(root[i]);
		total += (size_t)fc->count[i];
	}
	fc->m = calloc(total ? total : 1, sizeof(*fc->m));
	if (!fc->m)
		return fc;
	for (i = 0, k = 0; i < FLAT_SCOPES; i++) {
		for (n = 0; fc->count[i] > 0 && n < (size_t)fc->count[i]; n++, k++) {
			const struct trawl_reader_field *f = trawl_reader_field_at(root[i], n);
			enum trawl_reader_field_kind kind = trawl_reader_field_kind(f);
			const char *name = trawl_reader_field_name(f);

			if (!name || (kind != TRAWL_READER_FIELD_INTEGER &&
				      kind != TRAWL_READER_FIELD_FLOAT &&
				      kind != TRAWL_READER_FIELD_STRING))
				return fc;
			fc->m[k] = (struct flat_member){name, (uint8_t)kind,
							(uint8_t)trawl_reader_field_is_signed(f)};
		}
	}
	fc->flat = true;
	return fc;
}

/* The class of the current event in @c, learnt at its first event; NULL when out of memory. */
static struct flat_class *flat_of(struct trawl_reader *r, struct jsonw_names *c)
{
	const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(r);
	size_t h = ((uintptr_t)ec >> 4) & (FLAT_SLOTS - 1);
	struct flat_class *fc;

	for (fc = c->flat[h]; fc; fc = fc->next)
		if (fc->ec == ec)
			return fc;
	fc = flat_learn(r, ec);
	if (fc) {
		fc->next = c->flat[h];
		c->flat[h] = fc;
	}
	return fc;
}

/* The scopes of a flat class's event; nonzero: the tree must do it (b is then as it was). */
static int flat_scopes(struct trawl_reader *r, struct trawl_reader_buf *b, struct jsonw_names *c,
		       const struct flat_class *fc)
{
	const struct flat_member *m = fc->m;
	size_t start = b->len, i;
	int ret = 0, k;

	for (i = 0; i < FLAT_SCOPES && !ret; i++) {
		if (fc->count[i] < 0)
			continue;
		ret = jsonw_raw(b, scopes[i].key, scopes[i].len) || jsonw_lit(b, "{") ? -ENOMEM : 0;
		for (k = 0; k < fc->count[i] && !ret; k++, m++) {
			if (k && jsonw_lit(b, ","))
				ret = -ENOMEM;
			if (!ret)
				ret = key_of(b, c, m->name);
			if (ret)
				break;
			if (m->kind == TRAWL_READER_FIELD_INTEGER && m->is_signed) {
				int64_t v;

				ret = trawl_reader_event_int(r, scopes[i].scope, k, &v);
				ret = ret ? ret : jsonw_int(b, v);
			} else if (m->kind == TRAWL_READER_FIELD_INTEGER) {
				uint64_t v;

				ret = trawl_reader_event_uint(r, scopes[i].scope, k, &v);
				ret = ret ? ret : jsonw_uint(b, v);
			} else if (m->kind == TRAWL_READER_FIELD_FLOAT) {
				double v;

				ret = trawl_reader_event_double(r, scopes[i].scope, k, &v);
				ret = ret ? ret : jsonw_double(b, v);
			} else {
				const char *str;
				size_t len;

				ret = trawl_reader_event_string(r, scopes[i].scope, k, &str, &len);
				ret = ret ? ret : jsonw_string(b, str, len);
			}
		}
		if (!ret)
			ret = jsonw_lit(b, "}");
	}
	if (ret)
		b->len = start;
	return ret;
}

int jsonw_event(struct trawl_reader *r, struct trawl_reader_buf *b, struct jsonw_names *c)
{
	const struct trawl_reader_stream *st = trawl_reader_event_stream(r);
	const char *name = trawl_reader_event_name(r), *trace;
	const struct flat_class *fc;
	size_t start = b->len, i;
	int64_t ns;
	int ret;

	if (!st)
		return -ENODATA;
	trace = trawl_reader_trace_name(trawl_reader_stream_trace(st));
	/* the name and the trace as keys of the cache: "NAME": with its colon, which goes */
	ret = jsonw_lit(b, "{\"name\":") || key_of(b, c, name) ? -ENOMEM : 0;
	b->len -= !ret;
	if (!ret && !trawl_reader_event_time_ns(r, &ns))
		ret = time_ns(b, c, ns);
	if (!ret)
		ret = jsonw_lit(b, ",\"trace\":") || key_of(b, c, trace) ? -ENOMEM : 0;
	b->len -= !ret;
	if (!ret && c && (fc = flat_of(r, c)) && fc->flat && !flat_scopes(r, b, c, fc))
		i = FLAT_SCOPES;	/* done */
	else
		i = 0;
	for (; i < sizeof(scopes) / sizeof(scopes[0]) && !ret; i++) {
		const struct trawl_reader_field *f;

		ret = trawl_reader_event_field(r, scopes[i].scope, &f);
		if (ret == -ENODATA) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = jsonw_raw(b, scopes[i].key, scopes[i].len);
		if (!ret)
			ret = jsonw_field_names(b, f, c);
	}
	if (!ret)
		ret = jsonw_lit(b, "}\n");
	if (ret)
		b->len = start;
	return ret;
}
