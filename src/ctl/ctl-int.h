/* SPDX-License-Identifier: MIT */
/*
 * ctl-int.h - what the files of libtrawl-ctl share: the connection, one
 * request/reply exchange, and the list built from a reply's records.
 */
#ifndef TRAWL_CTL_INT_H
#define TRAWL_CTL_INT_H

#include "ctl/proto.h"
#include "trawl/ctl.h"

#include <stddef.h>
#include <stdint.h>

struct trawl_ctl {
	int fd;
	int root_daemon;
	char err[TRAWL_CTL_ERROR_MAX]; /* the daemon's line for the last failure, or "" */
};

/* One record of a reply, pointing into its list's payload. */
struct ctl_rec {
	uint32_t kind;                            /* enum trawl_ctl_item_kind */
	const unsigned char *body;                /* the kind's wire struct (unaligned) */
	const char *str[TRAWL_CTL_REC_MAX_STRINGS]; /* NUL-terminated, checked */
};

struct trawl_ctl_list {
	size_t nr;
	struct ctl_rec *recs;   /* owned */
	unsigned char *payload; /* owned: the checked reply the records point into */
};

/*
 * ctl_copy_str - copies @src (NULL: "") into @dst of @len bytes.
 * Returns 0, or -ENAMETOOLONG when it does not fit (then @dst is unchanged).
 */
int ctl_copy_str(char *dst, size_t len, const char *src);

/*
 * ctl_output_resolve - an output as the daemon takes it, into @dst of @len
 * bytes: a folder made absolute against the current directory (file://
 * dropped), or a net:// / net6:// URL as given; NULL: "". Returns 0,
 * -EINVAL (another scheme, empty) or -ENAMETOOLONG.
 */
int ctl_output_resolve(char *dst, size_t len, const char *output);

/* A request carrying snapshot output @o's name, URLs and size (snapshot.c). 0. */
int ctl_snapshot_output_req(struct trawl_ctl_wire_req *r, const struct trawl_ctl_snapshot_output *o);

/* A zeroed request with its struct_size set (max_size TRAWL_CTL_SIZE_UNSET). */
void ctl_req_init(struct trawl_ctl_wire_req *r);

/*
 * ctl_transact - sends @req as @cmd and reads the reply, which is checked
 * (trawl_ctl_reply_check()) before anything in it is used. The daemon's
 * line goes to ctl->err. On status 0, if @out is not NULL, *out receives
 * the reply's records (the caller's to free with trawl_ctl_list_destroy()).
 * Returns the daemon's status, or -ENOTCONN (transport), -EPROTO (a bad
 * reply), -EPROTONOSUPPORT (another protocol version), -ENOMEM.
 */
int ctl_transact(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req,
		 struct trawl_ctl_list **out);

/* ctl_transact()'s two halves, for a request whose reply is awaited later
 * (notify.c): send: 0 or -ENOTCONN; recv: as ctl_transact(). */
int ctl_send_req(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req);
int ctl_recv_reply(struct trawl_ctl *ctl, uint16_t cmd, struct trawl_ctl_list **out);

/* Like ctl_transact() for a request naming only @session, with @flags. */
int ctl_session_cmd(struct trawl_ctl *ctl, uint16_t cmd, const char *session, uint32_t flags);

/*
 * ctl_list_from_reply - a list of the records of a checked reply @payload
 * of @len bytes, taking @payload over (freed on failure too). NULL on ENOMEM.
 */
struct trawl_ctl_list *ctl_list_from_reply(unsigned char *payload, size_t len);

#endif /* TRAWL_CTL_INT_H */
