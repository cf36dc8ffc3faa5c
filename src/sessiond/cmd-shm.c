/* SPDX-License-Identifier: MIT */
/*
 * cmd-shm.c - SET_SHM_PATH (`trawl create --shm-path`): where a session's
 * user-space buffers live as files, for `trawl crash` to read after a crash.
 *
 * The daemon only keeps the path here. The files are made as the session's
 * owner when a trace gets its buffers (ust-shm.c): the folder is the
 * owner's to choose, and nothing running as root opens it.
 */
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void sd_cmd_set_shm_path(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	size_t n;

	if (!s)
		return;
	/* As LTTng (LTTNG_ERR_SESSION_STARTED): the buffers exist by then. */
	if (s->started_once)
		return (void)sd_fail(r, -EBUSY, "session '%s' has been started: its shared memory path "
						"is fixed", s->name);
	n = strnlen(req->output, sizeof(req->output));
	if (req->output[0] != '/' || n >= sizeof(s->shm_path))
		return (void)sd_fail(r, -EINVAL, "shared memory path must be an absolute folder");
	memcpy(s->shm_path, req->output, n + 1);
}
