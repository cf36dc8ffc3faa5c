/* SPDX-License-Identifier: MIT */
/*
 * live-proto.c - decoding what viewers send and what the trace files hold,
 * for the live server (live.c). Nothing here does I/O or keeps state beyond
 * its arguments, so the fuzz target drives it directly.
 */
#include "relayd/live-proto.h"
#include "common/common.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

/* Payload bytes each command carries (0: none); -1: not a command. */
static int payload_of(uint32_t cmd)
{
	switch (cmd) {
	case LIVE_CMD_CONNECT:
		return (int)sizeof(struct live_wire_connect);
	case LIVE_CMD_LIST_SESSIONS:
	case LIVE_CMD_CREATE_SESSION:
		return 0;
	case LIVE_CMD_ATTACH_SESSION:
		return (int)sizeof(struct live_wire_attach_request);
	case LIVE_CMD_GET_NEXT_INDEX:
	case LIVE_CMD_GET_METADATA:
	case LIVE_CMD_GET_NEW_STREAMS:
	case LIVE_CMD_DETACH_SESSION:
		return 8;
	case LIVE_CMD_GET_PACKET:
		return (int)sizeof(struct live_wire_get_packet);
	default:
		return -1;
	}
}

int live_cmd_payload_size(const void *hdr, uint32_t *cmd)
{
	struct live_wire_cmd h;
	int want;

	memcpy(&h, hdr, sizeof(h));
	*cmd = be32toh(h.cmd);
	want = payload_of(*cmd);
	if (want < 0)
		return -EBADMSG;
	if (be64toh(h.data_size) != (uint64_t)want)
		return -EMSGSIZE;
	return want;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

int live_request_decode(uint32_t cmd, const void *payload, size_t len, struct live_request *req)
{
	const unsigned char *p = payload;
	int want = payload_of(cmd);

	memset(req, 0, sizeof(*req));
	if (want < 0 || len != (size_t)want)
		return -EBADMSG;
	req->cmd = cmd;
	switch (cmd) {
	case LIVE_CMD_CONNECT:
		req->id = get64(p);
		req->major = get32(p + 8);
		req->minor = get32(p + 12);
		req->type = get32(p + 16);
		break;
	case LIVE_CMD_ATTACH_SESSION:
		req->id = get64(p);
		req->offset = get64(p + 8);
		req->seek = get32(p + 16);
		break;
	case LIVE_CMD_GET_NEXT_INDEX:
	case LIVE_CMD_GET_METADATA:
	case LIVE_CMD_GET_NEW_STREAMS:
	case LIVE_CMD_DETACH_SESSION:
		req->id = get64(p);
		break;
	case LIVE_CMD_GET_PACKET:
		req->id = get64(p);
		req->offset = get64(p + 8);
		req->len = get32(p + 16);
		break;
	default:
		break;
	}
	return 0;
}

int live_index_header_check(const void *hdr16)
{
	const unsigned char *p = hdr16;
	uint32_t len = get32(p + 12);

	if (get32(p) != 0xC1F1DCC1u || get32(p + 4) != 1)
		return -EBADMSG;
	if (len < LIVE_INDEX_ENTRY_MIN || len > LIVE_INDEX_ENTRY_MAX || len % 8)
		return -EBADMSG;
	return (int)len;
}

int live_index_entry_decode(const void *buf, uint64_t data_size, struct live_index_entry *e)
{
	const unsigned char *p = buf;
	uint64_t bytes;

	e->offset = get64(p);
	e->packet_size = get64(p + 8);
	e->content_size = get64(p + 16);
	e->ts_begin = get64(p + 24);
	e->ts_end = get64(p + 32);
	e->discarded = get64(p + 40);
	e->stream_id = get64(p + 48);
	if (!e->packet_size || e->packet_size % 8 || e->content_size > e->packet_size)
		return -EBADMSG;
	bytes = e->packet_size / 8;
	if (bytes > UINT32_MAX)
		return -EBADMSG;
	if (e->offset > UINT64_MAX - bytes)
		return -EBADMSG;
	if (e->offset > data_size || bytes > data_size - e->offset)
		return -EAGAIN;
	return 0;
}

/* ---- metadata scanner ---- */

enum { ST_CODE, ST_STRING, ST_STRING_ESC, ST_CHAR, ST_CHAR_ESC, ST_LINE_COMMENT, ST_BLOCK_COMMENT };

#define METADATA_PACKET_MAGIC 0x75D11D57u
#define METADATA_HEADER_SIZE 37u /* magic, uuid, checksum, content/packet size, 5 bytes */

void live_tsdl_scan_init(struct live_tsdl_scan *s)
{
	memset(s, 0, sizeof(*s));
}

/* Packetized metadata: advance over the whole packets present in @all. */
static void scan_packets(struct live_tsdl_scan *s, const char *all, size_t len)
{
	while (s->next_packet <= len && len - s->next_packet >= METADATA_HEADER_SIZE) {
		const unsigned char *h = (const unsigned char *)all + s->next_packet;
		uint32_t magic, psize;

		memcpy(&magic, h, 4);
		memcpy(&psize, h + 28, 4);
		if (magic != METADATA_PACKET_MAGIC) {
			if (__builtin_bswap32(magic) != METADATA_PACKET_MAGIC)
				return; /* not a packet: stop here for good */
			psize = __builtin_bswap32(psize);
		}
		if (psize % 8 || psize / 8 < METADATA_HEADER_SIZE)
			return;
		if (psize / 8 > len - s->next_packet)
			return; /* not all there yet */
		s->next_packet += psize / 8;
		s->usable = s->next_packet;
	}
	s->pos = len;
}

void live_tsdl_scan_feed(struct live_tsdl_scan *s, const char *all, size_t len)
{
	uint64_t i;

	if (s->pos == 0 && len >= 4 && !s->binary) {
		uint32_t magic;

		memcpy(&magic, all, 4);
		if (magic == METADATA_PACKET_MAGIC || __builtin_bswap32(magic) == METADATA_PACKET_MAGIC)
			s->binary = 1;
	}
	if (s->binary) {
		scan_packets(s, all, len);
		return;
	}
	if (s->pos == 0 && len < 4)
		return; /* too little to tell text from packets */
	for (i = s->pos; i < len; i++) {
		unsigned char c = (unsigned char)all[i];

		switch (s->state) {
		case ST_CODE:
			if (c == '"') {
				s->state = ST_STRING;
			} else if (c == '\'') {
				s->state = ST_CHAR;
			} else if (c == '/' && s->prev == '/') {
				s->state = ST_LINE_COMMENT;
			} else if (c == '*' && s->prev == '/') {
				s->state = ST_BLOCK_COMMENT;
				c = 0; /* so that a slash right after the star does not close it */
			} else if (c == '{' || c == '[' || c == '(') {
				s->depth++;
			} else if (c == '}' || c == ']' || c == ')') {
				if (s->depth)
					s->depth--;
			} else if (c == ';' && s->depth == 0) {
				s->usable = i + 1;
			}
			break;
		case ST_STRING:
			if (c == '\\')
				s->state = ST_STRING_ESC;
			else if (c == '"')
				s->state = ST_CODE;
			break;
		case ST_CHAR:
			if (c == '\\')
				s->state = ST_CHAR_ESC;
			else if (c == '\'')
				s->state = ST_CODE;
			break;
		case ST_STRING_ESC:
			s->state = ST_STRING;
			break;
		case ST_CHAR_ESC:
			s->state = ST_CHAR;
			break;
		case ST_LINE_COMMENT:
			if (c == '\n')
				s->state = ST_CODE;
			break;
		case ST_BLOCK_COMMENT:
			if (c == '/' && s->prev == '*')
				s->state = ST_CODE;
			break;
		}
		/* A comment's opening '/' is no division: forget it. */
		s->prev = (s->state == ST_LINE_COMMENT || s->state == ST_CODE || s->state == ST_BLOCK_COMMENT) ? c : 0;
	}
	s->pos = len;
}

/* ---- clock ---- */

static const char *find(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; n <= len && i <= len - n; i++)
		if (!memcmp(hay + i, needle, n))
			return hay + i;
	return NULL;
}

/* Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" at @p (@left bytes). */
static int parse_uuid(const char *p, size_t left, uint8_t uuid[16])
{
	if (left < 36)
		return -EINVAL;
	return trawl_uuid_parse(p, uuid);
}

/* Skips spaces, '=' and an opening quote. */
static const char *skip_assign(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '='))
		p++;
	return p;
}

int live_metadata_clock(const char *md, size_t len, uint8_t uuid[16], int *has_uuid, uint64_t *freq)
{
	const char *c = find(md, len, "clock {"), *end, *p;

	*has_uuid = 0;
	*freq = 1000000000u;
	if (!c)
		return -ENOENT;
	end = find(c, len - (size_t)(c - md), "};");
	if (!end)
		end = md + len;
	p = find(c, (size_t)(end - c), "uuid");
	if (p) {
		p = skip_assign(p + 4, end);
		if (p < end && *p == '"' && parse_uuid(p + 1, (size_t)(end - p - 1), uuid) == 0)
			*has_uuid = 1;
	}
	p = find(c, (size_t)(end - c), "freq");
	if (p) {
		uint64_t v = 0;
		int digits = 0;

		for (p = skip_assign(p + 4, end); p < end && *p >= '0' && *p <= '9' && digits < 19; p++, digits++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (digits)
			*freq = v;
	}
	return 0;
}

/* The signed decimal value of key @key (a whole word) in [c, end): 0 or -ENOENT. */
static int clock_int(const char *c, const char *end, const char *key, int64_t *out)
{
	size_t n = strlen(key);
	const char *p = c;

	while ((p = find(p, (size_t)(end - p), key)) != NULL) {
		const char *q = p + n;
		int neg = 0, digits = 0;
		uint64_t v = 0;

		p = q;
		if (q < end && (*q == '_' || (*q >= 'a' && *q <= 'z')))
			continue; /* "offset_s" is not "offset" */
		q = skip_assign(q, end);
		if (q < end && *q == '-') {
			neg = 1;
			q++;
		}
		for (; q < end && *q >= '0' && *q <= '9' && digits < 18; q++, digits++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (!digits)
			return -ENOENT;
		*out = neg ? -(int64_t)v : (int64_t)v;
		return 0;
	}
	return -ENOENT;
}

int live_metadata_clock_offset(const char *md, size_t len, int64_t *offset_s, int64_t *offset)
{
	const char *c = find(md, len, "clock {"), *end;

	*offset_s = *offset = 0;
	if (!c)
		return -ENOENT;
	end = find(c, len - (size_t)(c - md), "};");
	if (!end)
		end = md + len;
	clock_int(c, end, "offset_s", offset_s);
	clock_int(c, end, "offset", offset);
	return 0;
}
