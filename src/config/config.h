/* SPDX-License-Identifier: MIT */
/*
 * config.h - session configurations: LTTng 2.13's session XML (the files of
 * `lttng save` / `lttng load`, valid against its session.xsd), written from
 * and applied to a session daemon through <trawl/ctl.h>.
 *
 * Both directions run in the client, as the user who asked: saving lists a
 * session and writes the file; loading reads the file, checks all of it,
 * then makes each session with the same calls the commands make (create,
 * enable-channel, enable-event, add-context, track, enable-rotation, start),
 * so the daemon checks every step as it checks the commands. The daemon
 * never opens a file a user names (docs/SECURITY.md).
 *
 * Errors: 0 or a negative errno; @err receives one line (without a newline)
 * naming what was wrong: the file and line, or the session and what the
 * daemon said.
 */
#ifndef TRAWL_CONFIG_CONFIG_H
#define TRAWL_CONFIG_CONFIG_H

#include <stddef.h>

#include "trawl/ctl.h"

#define TRAWL_CONFIG_EXT ".lttng"	   /* a session file's name: NAME.lttng */
#define TRAWL_CONFIG_MAX_BYTES (16u << 20) /* the largest file read */

struct trawl_config_doc; /* a parsed file: its sessions */

/**
 * trawl_config_doc_parse - check and read a session file
 * @buf: the file's bytes (need not end in NUL)
 * @len: their count (at most TRAWL_CONFIG_MAX_BYTES)
 * @file: its name, for messages
 * @out: receives the document, the caller's to free with trawl_config_doc_destroy()
 * @err: receives "FILE:LINE: what" on failure
 * @errlen: bytes at @err
 *
 * Refuses what LTTng's session.xsd refuses (unknown or repeated elements,
 * values out of range, a DOCTYPE) and what trawl cannot do (the agent
 * domains' channels, blocking, ...), so nothing is
 * applied from a file that cannot be applied whole.
 *
 * Return: 0, -EINVAL (@err says why) or -ENOMEM.
 */
int trawl_config_doc_parse(const char *buf, size_t len, const char *file,
			   struct trawl_config_doc **out, char *err, size_t errlen);

/** trawl_config_doc_destroy - free a document (NULL: nothing happens). */
void trawl_config_doc_destroy(struct trawl_config_doc *doc);

/** trawl_config_doc_count - the sessions of @doc. */
size_t trawl_config_doc_count(const struct trawl_config_doc *doc);

/** trawl_config_doc_name - session @i's name, owned by @doc. */
const char *trawl_config_doc_name(const struct trawl_config_doc *doc, size_t i);

/* What a load does besides making the sessions as the file says. */
struct trawl_config_load_opts {
	const char *session;	   /* only this session (NULL: all) */
	int overwrite;		   /* destroy a session of the same name first (-f) */
	const char *override_url;  /* output of every session loaded (NULL: the file's) */
	const char *override_name; /* the loaded session's name (one session only) */
};

/**
 * trawl_config_doc_apply - make session @i of @doc on the daemon of @ctl
 * @ctl: a connection
 * @doc: a parsed document
 * @i: the session's index
 * @o: options (overwrite, overrides), or NULL
 * @err: receives the failure's line
 * @errlen: bytes at @err
 *
 * A session that fails half-made is destroyed, unless the failure was its
 * creation (a session of that name existed: it is left alone).
 *
 * Return: 0 or the failed call's error (-EEXIST: the name is taken).
 */
int trawl_config_doc_apply(struct trawl_ctl *ctl, const struct trawl_config_doc *doc, size_t i,
			   const struct trawl_config_load_opts *o, char *err, size_t errlen);

/**
 * trawl_config_load - load sessions as LTTng's `load` does
 * @ctl: a connection
 * @path: a session file, or a folder whose *.lttng files are read; NULL for
 *        the user's folder ($LTTNG_HOME or $HOME, then .lttng/sessions)
 *        then the system's (/etc/lttng/sessions)
 * @o: which session, overwrite, overrides (NULL: all, as the files say)
 * @loaded: NULL, or receives the number of sessions made
 * @err: receives the failure's line
 * @errlen: bytes at @err
 *
 * Stops at the first failure. Return: 0, -ENOENT (no such path, or the
 * session named is in none of the files), or a parse or apply error.
 */
int trawl_config_load(struct trawl_ctl *ctl, const char *path,
		      const struct trawl_config_load_opts *o, size_t *loaded, char *err,
		      size_t errlen);

/**
 * trawl_config_autoload - what a session daemon loads when it starts
 * @ctl: a connection to that daemon
 * @path: its --load PATH, or NULL for LTTng's autoload folders: the user's
 *        .lttng/sessions/auto and /etc/lttng/sessions/auto, each only if
 *        the daemon's user owns it (or is root), as LTTng 2.13
 * @err: receives the failure's line
 * @errlen: bytes at @err
 *
 * Return: 0 (also when the folders do not exist) or the first error.
 */
int trawl_config_autoload(struct trawl_ctl *ctl, const char *path, char *err, size_t errlen);

/**
 * trawl_config_autoload_pending - 1 if trawl_config_autoload(ctl, NULL, ...)
 * has a folder to read (one exists that it would read), else 0
 */
int trawl_config_autoload_pending(void);

/**
 * trawl_config_session_xml - session @name as a session file
 * @ctl: a connection
 * @name: the session's name
 * @xml: receives the document, the caller's to free
 * @len: receives its length in bytes
 * @err: receives the failure's line
 * @errlen: bytes at @err
 *
 * Return: 0, -ENOENT (no such session) or another list error.
 */
int trawl_config_session_xml(struct trawl_ctl *ctl, const char *name, char **xml, size_t *len,
			     char *err, size_t errlen);

/**
 * trawl_config_save - save sessions as LTTng's `save` does
 * @ctl: a connection
 * @name: the session, or NULL for every session of the user
 * @dir: the folder to save into (made if missing); NULL for the user's
 *       .lttng/sessions. Each session goes to DIR/NAME.lttng.
 * @force: replace a file that exists (else -EEXIST)
 * @err: receives the failure's line
 * @errlen: bytes at @err
 *
 * Return: 0 or the first error.
 */
int trawl_config_save(struct trawl_ctl *ctl, const char *name, const char *dir, int force,
		      char *err, size_t errlen);

/**
 * trawl_config_home_dir - the user's session folder (LTTng's): $LTTNG_HOME
 * or $HOME (else the password file's home), then "/.lttng/sessions"
 * @buf: receives the path
 * @len: bytes at @buf
 *
 * Return: 0, -ENOENT (no home) or -ENAMETOOLONG.
 */
int trawl_config_home_dir(char *buf, size_t len);

#endif /* TRAWL_CONFIG_CONFIG_H */
