/* SPDX-License-Identifier: MIT */
/*
 * agent-wire.h - what trawl-sessiond reads from LTTng's agents on the agent
 * port (agent-port.c has the protocol), as pure functions (fuzz/agent).
 */
#ifndef TRAWL_SESSIOND_AGENT_WIRE_H
#define TRAWL_SESSIOND_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_WIRE_REG_LEN 16       /* {u32 domain, pid, major, minor} */
#define AGENT_WIRE_LIST_HEAD_LEN 12 /* {u32 status, size, count} */
#define AGENT_WIRE_LIST_MAX (1u << 20) /* bytes of one LIST answer's names */

/* A registration (@b): 0 with @domain (TRAWL_CTL_DOMAIN_JUL..PYTHON) and
 * @pid (as it says), or -1: another domain or protocol than 2.0. */
int agent_wire_reg(const unsigned char b[AGENT_WIRE_REG_LEN], uint32_t *domain, uint32_t *pid);

/* A LIST answer's head (@b): 0 with @size, the bytes of names that follow
 * (0 for a failed answer), or -1: over AGENT_WIRE_LIST_MAX, or a failed
 * answer with names. */
int agent_wire_list_head(const unsigned char b[AGENT_WIRE_LIST_HEAD_LEN], uint32_t *size);

/*
 * The next listable logger name of @names (@len bytes) from *@pos on: 1
 * with *@name (NUL-terminated within @len, 1 to @name_max - 1 bytes, no
 * control byte) and *@pos past it, or 0 at the end. Names that are not
 * listable are skipped, as is a last one without its NUL.
 */
int agent_wire_name_next(const char *names, size_t len, size_t *pos, size_t name_max,
			 const char **name);

#endif
