/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/connect.h> - connections to a session daemon.
 *
 * A struct trawl_ctl is one connection, the caller's from trawl_ctl_connect()
 * to trawl_ctl_disconnect(); every other call of the API goes through one.
 * The API's conventions (errors, ownership, records) are at the top of
 * <trawl/ctl.h>.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_CONNECT_H
#define TRAWL_CTL_CONNECT_H

#include <trawl/ctl-types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl; /* a connection to a session daemon */

/* trawl_ctl_connect() flags */
#define TRAWL_CTL_CONNECT_NO_SPAWN 0x1u /* fail with -ENOTCONN rather than start a daemon */
#define TRAWL_CTL_CONNECT_USER 0x2u     /* the user's own daemon even if root's is usable */

/**
 * trawl_ctl_connect - connect to the session daemon this user should use
 * @out: receives the connection, the caller's to free with trawl_ctl_disconnect()
 * @flags: TRAWL_CTL_CONNECT_*
 *
 * Starts the user's daemon when none runs: trawl-sessiond from the same
 * installation as this library ($TRAWL_TRAWL_SESSIOND_PATH overrides).
 * Honours $TRAWL_RUNTIME_DIR and $TRAWL_ROOT_RUNTIME_DIR.
 *
 * Return: 0, -ENOTCONN, -EACCES (the root daemon refuses this user) or
 * -EPROTONOSUPPORT (the running daemon is from another version of trawl).
 */
int trawl_ctl_connect(struct trawl_ctl **out, unsigned flags);

/**
 * trawl_ctl_disconnect - close a connection and free it
 * @ctl: the connection, or NULL (then nothing happens)
 */
void trawl_ctl_disconnect(struct trawl_ctl *ctl);

/**
 * trawl_ctl_is_root_daemon - whether @ctl talks to the root daemon
 * @ctl: a connection
 *
 * Return: 1 if it does (that daemon may trace the kernel), else 0.
 */
int trawl_ctl_is_root_daemon(const struct trawl_ctl *ctl);

/**
 * trawl_ctl_last_error - the daemon's explanation of the last failure
 * @ctl: a connection
 *
 * Return: one line without a newline (at most TRAWL_CTL_ERROR_MAX bytes with
 * its NUL), or "" when the daemon sent none. Owned by @ctl, valid until its
 * next call.
 */
const char *trawl_ctl_last_error(const struct trawl_ctl *ctl);

/**
 * trawl_ctl_daemon_quit - ask the daemon to exit
 * @ctl: a connection
 *
 * Only the daemon's owner or root may. Return: 0 or -EACCES.
 */
int trawl_ctl_daemon_quit(struct trawl_ctl *ctl);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_CONNECT_H */
