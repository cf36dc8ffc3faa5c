/* SPDX-License-Identifier: MIT */
/*
 * proto.c - the decoder of trawl's streaming protocol (proto.h). Everything
 * here reads bytes from the network: nothing is trusted, every length is
 * checked against what was received before it is used.
 */
#include "relayd/proto.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

int trawl_relay_name_ok(const char *name)
{
	size_t i;

	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (i = 0; name[i]; i++)
		if (!name_char(name[i]) && name[i] != ':')
			return 0;
	return i < TRAWL_RELAY_NAME_LEN;
}

int trawl_relay_path_ok(const char *path)
{
	const char *p = path, *slash;
	size_t n;

	if (!path[0] || path[0] == '/' || strlen(path) >= TRAWL_RELAY_PATH_LEN)
		return 0;
	for (;;) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (!name_char(p[i]) && p[i] != '+')
				return 0;
		if (!slash)
			return 1;
		p = slash + 1;
	}
}

int trawl_relay_hdr_parse(const void *buf, uint16_t *cmd, uint32_t *handle, uint32_t *size)
{
	const uint8_t *p = buf;
	uint16_t version, c;
	uint32_t h, s;

	memcpy(&version, p + 4, 2);
	memcpy(&c, p + 6, 2);
	version = le16toh(version);
	c = le16toh(c);
	h = get32(p + 8);
	s = get32(p + 12);
	if (get32(p) != TRAWL_RELAY_MAGIC || version != TRAWL_RELAY_VERSION ||
	    c < TRAWL_RELAY_HELLO || c > TRAWL_RELAY_BEACON || s > TRAWL_RELAY_MAX_PAYLOAD ||
	    h >= TRAWL_RELAY_MAX_HANDLES)
		return -EPROTO;
	*cmd = c;
	*handle = h;
	*size = s;
	return 0;
}

uint16_t trawl_relay_hdr_version(const void *buf)
{
	const uint8_t *p = buf;
	uint16_t version;

	memcpy(&version, p + 4, 2);
	return get32(p) == TRAWL_RELAY_MAGIC ? le16toh(version) : 0;
}

/* 1 if the @len bytes at @s hold a NUL. */
static int has_nul(const uint8_t *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

static int parse_hello(struct trawl_relay_msg *m)
{
	const struct trawl_relay_hello *h = (const void *)m->payload;

	if (m->size != sizeof(*h) || !has_nul((const uint8_t *)h->session, sizeof(h->session)) ||
	    !has_nul((const uint8_t *)h->hostname, sizeof(h->hostname)) ||
	    !has_nul((const uint8_t *)h->base_path, sizeof(h->base_path)))
		return -EPROTO;
	m->creation_time = get64(m->payload);
	m->token = get64(m->payload + 8);
	m->flags = get32(m->payload + 16);
	m->live_timer_us = get32(m->payload + 20);
	m->session = h->session;
	m->hostname = h->hostname;
	m->base_path = h->base_path;
	if (!trawl_relay_name_ok(m->session) || !trawl_relay_name_ok(m->hostname) ||
	    (m->base_path[0] && !trawl_relay_path_ok(m->base_path)) ||
	    (m->flags & ~TRAWL_RELAY_F_LIVE))
		return -EPROTO;
	return 0;
}

/* OPEN: uint32 kind, path; RESUME: uint32 kind, uint64 size, path (@pre: 4 or 12). */
static int parse_open(struct trawl_relay_msg *m, size_t pre)
{
	if (m->size < pre + 1 || m->size > pre + TRAWL_RELAY_PATH_LEN ||
	    m->payload[m->size - 1] != '\0')
		return -EPROTO;
	m->kind = get32(m->payload);
	m->keep = pre > 4 ? get64(m->payload + 4) : 0;
	m->path = (const char *)m->payload + pre;
	if (m->kind > TRAWL_RELAY_FILE_METADATA || strlen(m->path) != m->size - pre - 1 ||
	    !trawl_relay_path_ok(m->path))
		return -EPROTO;
	return 0;
}

/* A trace folder a consumer may archive or clear: not archives/, not relayd's own files. */
static int chunk_path_ok(const char *path)
{
	return trawl_relay_path_ok(path) && strncmp(path, "archives/", 9) &&
	       strcmp(path, "archives") && path[0] != '.'; /* .token, .reserve: relayd's own */
}

/* REMOVE: one path. */
static int parse_remove(struct trawl_relay_msg *m)
{
	if (m->size < 2 || m->size > TRAWL_RELAY_PATH_LEN || m->payload[m->size - 1] != '\0')
		return -EPROTO;
	m->path = (const char *)m->payload;
	return strlen(m->path) == m->size - 1 && chunk_path_ok(m->path) ? 0 : -EPROTO;
}

/* ARCHIVE: FROM\0TO\0, both paths relayd may write, TO in archives/ and FROM not. */
static int parse_archive(struct trawl_relay_msg *m)
{
	const char *p = (const char *)m->payload;
	size_t from_len;

	if (m->size < 4 || m->size > 2 * TRAWL_RELAY_PATH_LEN || m->payload[m->size - 1] != '\0')
		return -EPROTO;
	from_len = strnlen(p, m->size);
	if (from_len + 2 > m->size)
		return -EPROTO;
	m->path = p;
	m->to = p + from_len + 1;
	if (strlen(m->to) != m->size - from_len - 2 || !chunk_path_ok(m->path) ||
	    !trawl_relay_path_ok(m->to) || strncmp(m->to, "archives/", 9))
		return -EPROTO;
	return 0;
}

/* A chunk's folder as CHUNK names it: "" (the session folder) or one name. */
static int chunk_name_ok(const char *name)
{
	return !name[0] || (chunk_path_ok(name) && !strchr(name, '/'));
}

/* CHUNK: uint32 op, FROM\0TO\0NEW\0 (proto.h). */
static int parse_chunk(struct trawl_relay_msg *m)
{
	const char *p = (const char *)m->payload + 4, *end;
	const char *s[3];
	int i;

	if (m->size < 4 + 3 || m->size > 4 + 3 * TRAWL_RELAY_PATH_LEN ||
	    m->payload[m->size - 1] != '\0')
		return -EPROTO;
	end = (const char *)m->payload + m->size;
	for (i = 0; i < 3; i++) {
		size_t n;

		if (p >= end)
			return -EPROTO;
		n = strnlen(p, (size_t)(end - p));
		if (n >= (size_t)(end - p) || n >= TRAWL_RELAY_PATH_LEN)
			return -EPROTO;
		s[i] = p;
		p += n + 1;
	}
	if (p != end)
		return -EPROTO;
	m->kind = get32(m->payload);
	m->path = s[0];
	m->to = s[1];
	m->next = s[2];
	if (!chunk_name_ok(m->path))
		return -EPROTO;
	if (m->kind == TRAWL_RELAY_CHUNK_CLEAR)
		return !m->to[0] && !m->next[0] ? 0 : -EPROTO;
	if (m->kind != TRAWL_RELAY_CHUNK_CLOSE || !trawl_relay_path_ok(m->to) ||
	    strncmp(m->to, "archives/", 9) || !chunk_name_ok(m->next) ||
	    (m->path[0] && !strcmp(m->path, m->next)))
		return -EPROTO;
	return 0;
}

ssize_t trawl_relay_msg_parse(const void *buf, size_t len, struct trawl_relay_msg *m)
{
	const size_t hl = sizeof(struct trawl_relay_hdr);
	int ret = 0;

	if (len < hl)
		return 0;
	memset(m, 0, sizeof(*m));
	if (trawl_relay_hdr_parse(buf, &m->cmd, &m->handle, &m->size))
		return -EPROTO;
	if (len - hl < m->size)
		return 0;
	m->payload = (const uint8_t *)buf + hl;
	switch (m->cmd) {
	case TRAWL_RELAY_HELLO:
		ret = parse_hello(m);
		break;
	case TRAWL_RELAY_OPEN:
		ret = parse_open(m, 4);
		break;
	case TRAWL_RELAY_RESUME:
		ret = parse_open(m, 12);
		break;
	case TRAWL_RELAY_APPEND:
	case TRAWL_RELAY_REPLACE:
		break;
	case TRAWL_RELAY_ARCHIVE:
		ret = m->handle ? -EPROTO : parse_archive(m);
		break;
	case TRAWL_RELAY_REMOVE:
		ret = m->handle ? -EPROTO : parse_remove(m);
		break;
	case TRAWL_RELAY_CHUNK:
		ret = m->handle ? -EPROTO : parse_chunk(m);
		break;
	case TRAWL_RELAY_BEACON:
		if (m->size != 8)
			ret = -EPROTO;
		else
			m->ts_end = get64(m->payload);
		break;
	case TRAWL_RELAY_CLOSE:
	case TRAWL_RELAY_END:
	case TRAWL_RELAY_PING:
	case TRAWL_RELAY_SEAL:
		ret = m->size ? -EPROTO : 0;
		break;
	default:
		ret = -EPROTO;
	}
	return ret ? ret : (ssize_t)(hl + m->size);
}
