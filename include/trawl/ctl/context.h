/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/context.h> - context fields.
 *
 * A context field is recorded with every event of a channel (the process
 * ID, the thread's name, a perf counter...).
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_CONTEXT_H
#define TRAWL_CTL_CONTEXT_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * trawl_ctl_context_add - add a context field to every event of channels
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name; NULL for every channel of the domain
 * @context: "pid", "procname", "perf:thread:page-faults"... (trawl
 *           add-context --list names them)
 *
 * Contexts are added before the session first starts.
 * Return: 0, -EINVAL (unknown here), -EEXIST, -EBUSY.
 */
int trawl_ctl_context_add(struct trawl_ctl *ctl, const char *session,
			  enum trawl_ctl_domain domain, const char *channel, const char *context);

/* A context field of a channel. Strings belong to the list. */
struct trawl_ctl_context_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *channel;
	const char *name;
};

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_CONTEXT_H */
