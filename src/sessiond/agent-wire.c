/* SPDX-License-Identifier: MIT */
/* agent-wire.c - what an agent sends trawl-sessiond, read (agent-wire.h). */
#include "sessiond/agent-wire.h"

#include "trawl/ctl-types.h"

#include <endian.h>
#include <string.h>

#define AGENT_MAJOR 2
#define AGENT_MINOR 0
#define AGENT_RET_SUCCESS 1

static uint32_t be32_at(const unsigned char *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return be32toh(v);
}

int agent_wire_reg(const unsigned char b[AGENT_WIRE_REG_LEN], uint32_t *domain, uint32_t *pid)
{
	uint32_t d = be32_at(b);

	/* LTTng's checks: an agent domain, its protocol 2.0 */
	if (d < TRAWL_CTL_DOMAIN_JUL || d > TRAWL_CTL_DOMAIN_PYTHON ||
	    be32_at(b + 8) != AGENT_MAJOR || be32_at(b + 12) != AGENT_MINOR)
		return -1;
	*domain = d;
	*pid = be32_at(b + 4);
	return 0;
}

int agent_wire_list_head(const unsigned char b[AGENT_WIRE_LIST_HEAD_LEN], uint32_t *size)
{
	uint32_t status = be32_at(b), n = be32_at(b + 4);

	if (n > AGENT_WIRE_LIST_MAX || (status != AGENT_RET_SUCCESS && n))
		return -1; /* (a failed answer has no names) */
	*size = n;
	return 0;
}

/* Whether @name (@n bytes) has no control byte (UTF-8 is kept). */
static int printable(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return 0;
	return 1;
}

int agent_wire_name_next(const char *names, size_t len, size_t *pos, size_t name_max,
			 const char **name)
{
	while (*pos < len) {
		const char *s = names + *pos;
		size_t n = strnlen(s, len - *pos);

		*pos += n + 1;
		/* its NUL within @len, one byte at least, printable: the
		 * agent's user must not write a terminal escape or a forged
		 * line into root's `list -p` */
		if (n && n < name_max && *pos <= len && printable(s, n)) {
			*name = s;
			return 1;
		}
	}
	return 0;
}
