/* SPDX-License-Identifier: MIT */
/*
 * The lttng-live client's checks of what the relay daemon sends, and the
 * requests it sends (live_wire.h). Pure functions: no I/O, no state.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "reader/live_wire.h"

static uint32_t get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* Copies the field @src of @size bytes into @dst (as big), ended within it. */
static void get_str(char *dst, const char *src, size_t size)
{
	memcpy(dst, src, size);
	dst[size - 1] = '\0';
}

/* ---- URL ----------------------------------------------------------------- */

/* One path component of at most @size - 1 bytes into @dst; the rest in *@p. */
static int url_part(const char **p, char *dst, size_t size)
{
	size_t n = strcspn(*p, "/");

	if (!n || n >= size)
		return -EINVAL;
	memcpy(dst, *p, n);
	dst[n] = '\0';
	*p += n;
	return 0;
}

static int url_host(const char **pp, struct lv_url *u)
{
	const char *p = *pp, *end;
	size_t n;

	if (*p == '[') {
		end = strchr(++p, ']');
		if (!end)
			return -EINVAL;
		n = (size_t)(end - p);
		end++;
	} else {
		end = p + strcspn(p, ":/");
		n = (size_t)(end - p);
	}
	if (!n || n >= sizeof(u->host))
		return -EINVAL;
	memcpy(u->host, p, n);
	u->host[n] = '\0';
	strcpy(u->port, LV_DEFAULT_PORT);
	if (*end == ':') {
		n = strspn(end + 1, "0123456789");
		if (!n || n > 5 || (end[1 + n] && end[1 + n] != '/'))
			return -EINVAL;
		memcpy(u->port, end + 1, n);
		u->port[n] = '\0';
		end += 1 + n;
	}
	*pp = end;
	return 0;
}

int lv_url_parse(const char *url, struct lv_url *u, const char **why)
{
	static const char *const schemes[] = { "net://", "net4://", "net6://" };
	const char *p = NULL;
	size_t i;

	memset(u, 0, sizeof(*u));
	*why = "wanted net://HOST[:PORT][/host/HOSTNAME/SESSION]";
	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]) && !p; i++)
		if (!strncmp(url, schemes[i], strlen(schemes[i])))
			p = url + strlen(schemes[i]);
	if (!p || url_host(&p, u))
		return -EINVAL;
	if (!*p || !strcmp(p, "/"))
		return 0;
	if (strncmp(p, "/host/", 6))
		return -EINVAL;
	p += 6;
	if (url_part(&p, u->hostname, sizeof(u->hostname)))
		return -EINVAL;
	if (!*p || !strcmp(p, "/"))
		return 0;
	p++;
	if (url_part(&p, u->session, sizeof(u->session)) || (*p && strcmp(p, "/")))
		return -EINVAL;
	return 0;
}

/* ---- requests ------------------------------------------------------------ */

size_t lv_cmd_build(void *buf, uint32_t cmd, const void *payload, uint32_t len)
{
	struct live_wire_cmd h = {
		.data_size = htobe64(len),
		.cmd = htobe32(cmd),
		.cmd_version = 0,
	};

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy((char *)buf + sizeof(h), payload, len);
	return sizeof(h) + len;
}

/* ---- replies ------------------------------------------------------------- */

int64_t lv_sessions_count(const void *p)
{
	uint32_t n = get32(p);

	return n > LV_MAX_SESSIONS ? -EMSGSIZE : (int64_t)n;
}

void lv_session_decode(const void *wire, struct lv_session_info *out)
{
	const struct live_wire_session *w = wire;

	out->id = get64(&w->id);
	out->live_timer_us = get32(&w->live_timer);
	out->clients = get32(&w->clients);
	out->streams = get32(&w->streams);
	get_str(out->hostname, w->hostname, sizeof(w->hostname));
	get_str(out->name, w->session_name, sizeof(w->session_name));
}

int lv_streams_reply(const void *p, int attach, uint32_t *status, uint32_t *count)
{
	const struct live_wire_streams_reply *r = p;
	uint32_t ok = attach ? LIVE_ATTACH_OK : LIVE_NEW_STREAMS_OK;
	uint32_t max = attach ? LIVE_ATTACH_NO_SESSION : LIVE_NEW_STREAMS_HUP;

	*status = get32(&r->status);
	*count = get32(&r->streams_count);
	if (*status < 1 || *status > max)
		return -EBADMSG;
	if (*status != ok) {
		/* lttng-relayd leaves the count of a failed reply as it was */
		*count = 0;
		return 0;
	}
	return *count > LV_MAX_STREAMS_REPLY ? -EMSGSIZE : 0;
}

int lv_stream_decode(const void *wire, struct lv_stream_info *out)
{
	const struct live_wire_stream *w = wire;
	uint32_t md = get32(&w->metadata_flag);

	out->id = get64(&w->id);
	out->trace_id = get64(&w->ctf_trace_id);
	if (md > 1)
		return -EBADMSG;
	out->metadata = (int)md;
	get_str(out->path, w->path_name, sizeof(w->path_name));
	get_str(out->channel, w->channel_name, sizeof(w->channel_name));
	return 0;
}

int lv_index_decode(const void *wire, struct lv_index *out, const char **why)
{
	const struct live_wire_index *w = wire;
	uint64_t packet_bits;

	out->status = get32(&w->status);
	out->flags = get32(&w->flags);
	out->offset = get64(&w->offset);
	packet_bits = get64(&w->packet_size);
	out->content_bits = get64(&w->content_size);
	out->ts_begin = get64(&w->timestamp_begin);
	out->ts_end = get64(&w->timestamp_end);
	out->discarded = get64(&w->events_discarded);
	out->class_id = get64(&w->stream_id);
	out->packet_bytes = packet_bits / 8;
	*why = "unknown index status";
	if (out->status < LIVE_INDEX_OK || out->status > LIVE_INDEX_EOF)
		return -EBADMSG;
	if (out->status != LIVE_INDEX_OK)
		return 0;
	*why = "index of a packet of no whole bytes, or too big";
	if (packet_bits % 8 || !out->packet_bytes || out->packet_bytes > LV_MAX_PACKET)
		return -EBADMSG;
	*why = "index of a packet whose content exceeds it";
	if (out->content_bits > packet_bits)
		return -EBADMSG;
	*why = "index of a packet beyond any file size";
	if (out->offset > INT64_MAX - out->packet_bytes)
		return -EBADMSG;
	return 0;
}

int lv_packet_reply(const void *p, uint32_t asked, uint32_t *status, uint32_t *flags,
		    uint32_t *len)
{
	const struct live_wire_packet_reply *r = p;

	*status = get32(&r->status);
	*flags = get32(&r->flags);
	*len = get32(&r->len);
	if (*status < LIVE_PACKET_OK || *status > LIVE_PACKET_EOF)
		return -EBADMSG;
	if (*status != LIVE_PACKET_OK) {
		*len = 0;
		return 0;
	}
	return *len == 0 || *len > asked ? -EBADMSG : 0;
}

int lv_metadata_reply(const void *p, uint64_t room, uint32_t *status, uint64_t *len)
{
	const struct live_wire_metadata_reply *r = p;

	*status = get32(&r->status);
	*len = get64(&r->len);
	if (*status < LIVE_METADATA_OK || *status > LIVE_METADATA_ERR)
		return -EBADMSG;
	if (*status != LIVE_METADATA_OK) {
		*len = 0;
		return 0;
	}
	return *len > room ? -EMSGSIZE : 0;
}
