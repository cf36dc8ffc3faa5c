/* SPDX-License-Identifier: MIT */
/*
 * proto.c - checks of ctl protocol messages, shared by client and server.
 * Everything that arrives on a socket goes through one of these before any
 * field is used; the fuzz target fuzz/ctl/ feeds them random bytes.
 */
#include "ctl/proto.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int trawl_ctl_str_ok(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

int trawl_ctl_name_valid(const char *name)
{
	size_t i, n = strnlen(name, TRAWL_CTL_NAME_LEN);

	if (n == 0 || n >= TRAWL_CTL_NAME_LEN || name[0] == '.' || name[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-' || c == ':'))
			return 0;
	}
	return 1;
}

int trawl_ctl_hdr_check(const struct trawl_ctl_wire_hdr *hdr, int is_reply)
{
	if (hdr->magic != TRAWL_CTL_MAGIC || hdr->version != TRAWL_CTL_VERSION)
		return -EPROTO;
	if (hdr->cmd == 0 || hdr->cmd >= TRAWL_CTL_CMD_MAX_)
		return -EPROTO;
	if (is_reply) {
		if (hdr->size < sizeof(struct trawl_ctl_wire_reply) || hdr->size > TRAWL_CTL_MAX_PAYLOAD)
			return -EPROTO;
		if (hdr->status > 0 || hdr->status < -4095)
			return -EPROTO;
	} else {
		if (hdr->size != sizeof(struct trawl_ctl_wire_req) || hdr->status != 0)
			return -EPROTO;
	}
	return 0;
}

static int req_strings_ok(const struct trawl_ctl_wire_req *r)
{
	return trawl_ctl_str_ok(r->session, sizeof(r->session)) &&
	       trawl_ctl_str_ok(r->channel, sizeof(r->channel)) &&
	       trawl_ctl_str_ok(r->name, sizeof(r->name)) &&
	       trawl_ctl_str_ok(r->target, sizeof(r->target)) &&
	       trawl_ctl_str_ok(r->filter, sizeof(r->filter)) &&
	       trawl_ctl_str_ok(r->output, sizeof(r->output));
}

int trawl_ctl_req_check(uint16_t cmd, const void *payload, size_t len)
{
	struct trawl_ctl_wire_req r;

	if (len != sizeof(r))
		return -EPROTO;
	memcpy(&r, payload, sizeof(r));
	if (r.struct_size != sizeof(r) || !req_strings_ok(&r))
		return -EPROTO;
	if (r.domain > 2 || r.event_kind > 4 || r.loglevel_type > 2 || r.overwrite > 2 ||
	    r.buffers > 2)
		return -EINVAL;
	if (r.loglevel < 0 || r.loglevel > 14)
		return -EINVAL;
	if (r.session[0] && !trawl_ctl_name_valid(r.session))
		return -EINVAL;
	if (r.channel[0] && !trawl_ctl_name_valid(r.channel))
		return -EINVAL;
	/* a folder, or a relay daemon's URL (the daemon checks the rest of it) */
	if (r.output[0] && r.output[0] != '/' && strncmp(r.output, "net://", 6) &&
	    strncmp(r.output, "net6://", 7))
		return -EINVAL;
	switch (cmd) {
	case TRAWL_CTL_CMD_CREATE:
		if (r.name[0] && !trawl_ctl_name_valid(r.name))
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_ENABLE_CHANNEL:
	case TRAWL_CTL_CMD_DISABLE_CHANNEL:
	case TRAWL_CTL_CMD_ENABLE_EVENT:
	case TRAWL_CTL_CMD_DISABLE_EVENT:
	case TRAWL_CTL_CMD_ADD_CONTEXT:
	case TRAWL_CTL_CMD_LIST_AVAILABLE:
		if (r.domain == 0)
			return -EINVAL;
		break;
	default:
		break;
	}
	return 0;
}

int trawl_ctl_reply_check(const void *payload, size_t len)
{
	struct trawl_ctl_wire_reply h;
	const unsigned char *p = payload;
	size_t i;

	if (len < sizeof(h))
		return -EPROTO;
	memcpy(&h, payload, sizeof(h));
	if (h.struct_size != sizeof(h) || h.item_size != sizeof(struct trawl_ctl_wire_item))
		return -EPROTO;
	if (h.nr_items > TRAWL_CTL_MAX_ITEMS ||
	    (len - sizeof(h)) / sizeof(struct trawl_ctl_wire_item) != h.nr_items ||
	    (len - sizeof(h)) % sizeof(struct trawl_ctl_wire_item))
		return -EPROTO;
	if (!trawl_ctl_str_ok(h.err, sizeof(h.err)) || !trawl_ctl_str_ok(h.name, sizeof(h.name)) ||
	    !trawl_ctl_str_ok(h.path, sizeof(h.path)))
		return -EPROTO;
	for (i = 0; i < h.nr_items; i++) {
		struct trawl_ctl_wire_item it;

		memcpy(&it, p + sizeof(h) + i * sizeof(it), sizeof(it));
		if (it.kind < TRAWL_CTL_ITEM_SESSION || it.kind > TRAWL_CTL_ITEM_FIELD)
			return -EPROTO;
		if (!trawl_ctl_str_ok(it.name, sizeof(it.name)) ||
		    !trawl_ctl_str_ok(it.text, sizeof(it.text)) ||
		    !trawl_ctl_str_ok(it.text2, sizeof(it.text2)))
			return -EPROTO;
	}
	return 0;
}

int trawl_ctl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int trawl_ctl_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
