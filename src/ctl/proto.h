/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the ctl protocol between libtrawl-ctl (client) and
 * trawl-sessiond (server), over the Unix socket `sessiond.sock`.
 *
 * One request, one reply, on a connection that may carry many. Each message
 * is a header followed by `size` bytes of payload:
 *
 *   request:  hdr{cmd, size = sizeof(req)}          req
 *   reply:    hdr{cmd, status, size}                reply_head  item[nr_items]
 *
 * Every struct here is a wire struct: fixed-width fields, no pointers, strings
 * in fixed arrays that must hold a NUL. The receiver trusts nothing: it reads
 * exactly `size` bytes (bounded by TRAWL_CTL_MAX_PAYLOAD) and checks every
 * field with trawl_ctl_req_check() / trawl_ctl_reply_check() before use.
 * `version` changes whenever a struct changes; a peer refuses other versions.
 */
#ifndef TRAWL_CTL_PROTO_H
#define TRAWL_CTL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ctl.h"

#define TRAWL_CTL_MAGIC 0x4c435254u /* "TRCL" */
#define TRAWL_CTL_VERSION 1u
#define TRAWL_CTL_NAME_LEN 256u
#define TRAWL_CTL_TEXT_LEN 1024u
#define TRAWL_CTL_PATH_LEN 1024u /* bytes, NUL included: trace folders */
#define TRAWL_CTL_MAX_ITEMS 65536u
#define TRAWL_CTL_ERR_LEN 256u

enum trawl_ctl_cmd {
	TRAWL_CTL_CMD_PING = 1,
	TRAWL_CTL_CMD_CREATE = 2,
	TRAWL_CTL_CMD_DESTROY = 3,
	TRAWL_CTL_CMD_ENABLE_CHANNEL = 4,
	TRAWL_CTL_CMD_DISABLE_CHANNEL = 5,
	TRAWL_CTL_CMD_ENABLE_EVENT = 6,
	TRAWL_CTL_CMD_DISABLE_EVENT = 7,
	TRAWL_CTL_CMD_ADD_CONTEXT = 8,
	TRAWL_CTL_CMD_START = 9,
	TRAWL_CTL_CMD_STOP = 10,
	TRAWL_CTL_CMD_LIST_SESSIONS = 11,
	TRAWL_CTL_CMD_LIST_SESSION = 12,   /* one session: domains, channels, events */
	TRAWL_CTL_CMD_LIST_AVAILABLE = 13, /* events a domain offers */
	TRAWL_CTL_CMD_SNAPSHOT_RECORD = 14,
	TRAWL_CTL_CMD_QUIT = 15,           /* daemon exits (its owner or root only) */
	TRAWL_CTL_CMD_MAX_ = 16,
};

struct trawl_ctl_wire_hdr {
	uint32_t magic;   /* TRAWL_CTL_MAGIC */
	uint16_t version; /* TRAWL_CTL_VERSION */
	uint16_t cmd;     /* enum trawl_ctl_cmd */
	uint32_t size;    /* bytes of payload after this header */
	int32_t status;   /* reply: 0 or a negative errno; request: 0 */
} __attribute__((packed));

/* req.flags */
#define TRAWL_CTL_F_SNAPSHOT 0x1u   /* create */
#define TRAWL_CTL_F_LIVE 0x2u       /* create */
#define TRAWL_CTL_F_ALL 0x4u        /* destroy --all, enable-event --all */
#define TRAWL_CTL_F_FIELDS 0x8u     /* list --fields */
#define TRAWL_CTL_F_NO_OUTPUT 0x10u /* create --no-output */

/* req.overwrite */
#define TRAWL_CTL_MODE_DEFAULT 0u
#define TRAWL_CTL_MODE_DISCARD 1u
#define TRAWL_CTL_MODE_OVERWRITE 2u

/* req.buffers */
#define TRAWL_CTL_BUFFERS_DEFAULT 0u
#define TRAWL_CTL_BUFFERS_UID 1u
#define TRAWL_CTL_BUFFERS_PID 2u

struct trawl_ctl_wire_req {
	uint32_t struct_size;   /* sizeof(struct trawl_ctl_wire_req) */
	uint32_t domain;        /* 0, TRAWL_DOMAIN_KERNEL (1) or TRAWL_DOMAIN_UST (2) */
	uint32_t flags;         /* TRAWL_CTL_F_* */
	uint32_t event_kind;    /* enum trawl_domain_event_kind */
	int32_t loglevel;       /* 0..14 */
	uint32_t loglevel_type; /* enum trawl_domain_loglevel_type */
	uint64_t subbuf_size;   /* bytes, 0 = default */
	uint32_t num_subbuf;    /* 0 = default */
	uint32_t overwrite;     /* TRAWL_CTL_MODE_* */
	uint32_t switch_timer_us;
	uint32_t read_timer_us;
	uint32_t buffers;       /* TRAWL_CTL_BUFFERS_* */
	uint32_t reserved;
	char session[TRAWL_CTL_NAME_LEN];
	char channel[TRAWL_CTL_NAME_LEN];
	char name[TRAWL_CTL_NAME_LEN];   /* event, context, or new session's name */
	char target[TRAWL_CTL_TEXT_LEN]; /* probe location */
	char filter[TRAWL_CTL_TEXT_LEN];
	char output[TRAWL_CTL_PATH_LEN]; /* create: absolute trace folder, "" = none */
} __attribute__((packed));

/* Item kinds: enum trawl_ctl_item_kind in <trawl/ctl.h>. */

struct trawl_ctl_wire_item {
	uint32_t kind;       /* enum trawl_ctl_item_kind */
	uint32_t domain;
	uint32_t enabled;
	uint32_t event_kind;
	int32_t loglevel;
	uint32_t reserved;
	uint64_t v[6];
	char name[TRAWL_CTL_NAME_LEN];
	char text[TRAWL_CTL_TEXT_LEN];
	char text2[TRAWL_CTL_TEXT_LEN];
} __attribute__((packed));

struct trawl_ctl_wire_reply {
	uint32_t struct_size; /* sizeof(struct trawl_ctl_wire_reply) */
	uint32_t item_size;   /* sizeof(struct trawl_ctl_wire_item) */
	uint32_t nr_items;
	uint32_t reserved;
	char err[TRAWL_CTL_ERR_LEN];     /* "" or the one line to show */
	char name[TRAWL_CTL_NAME_LEN];   /* create: the session's name */
	char path[TRAWL_CTL_PATH_LEN];   /* create/snapshot: trace folder */
} __attribute__((packed));

#define TRAWL_CTL_MAX_PAYLOAD                                                                     \
	(sizeof(struct trawl_ctl_wire_reply) +                                                    \
	 (size_t)TRAWL_CTL_MAX_ITEMS * sizeof(struct trawl_ctl_wire_item))

/* 1 if @s holds a NUL within @len bytes. */
int trawl_ctl_str_ok(const char *s, size_t len);

/*
 * trawl_ctl_hdr_check - validates a received header. @is_reply: 1 on the
 * client. Returns 0 or -EPROTO (bad magic, version, cmd or size).
 */
int trawl_ctl_hdr_check(const struct trawl_ctl_wire_hdr *hdr, int is_reply);

/*
 * trawl_ctl_req_check - validates a request payload of @len bytes for
 * @cmd: size, NUL-terminated strings, enum ranges, names made of
 * printable characters without '/'. Returns 0 or -EPROTO / -EINVAL.
 */
int trawl_ctl_req_check(uint16_t cmd, const void *payload, size_t len);

/* Validates a reply payload; returns 0 or -EPROTO. */
int trawl_ctl_reply_check(const void *payload, size_t len);

/*
 * trawl_ctl_name_valid - 1 if @name can be a session or channel name: 1 to
 * 255 bytes of [A-Za-z0-9_.:-], not starting with '.' or '-'.
 */
int trawl_ctl_name_valid(const char *name);

/* Full-buffer I/O on a stream socket, retrying on EINTR. 0 or negative errno
 * (-ECONNRESET when the peer closed mid-way or before the first byte). */
int trawl_ctl_write_all(int fd, const void *buf, size_t len);
int trawl_ctl_read_all(int fd, void *buf, size_t len);

#endif /* TRAWL_CTL_PROTO_H */
