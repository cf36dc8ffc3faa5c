/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for what an agent sends trawl-sessiond on the agent port
 * (src/sessiond/agent-wire.c): a registration (the first 16 bytes), a LIST
 * answer's head (the next 12) and its names (the rest, as long as the head
 * says or what there is). Checked: a registration taken is of an agent
 * domain; a head taken never says more than 1 MiB; every name given is
 * NUL-terminated inside the buffer, shorter than the bound and printable,
 * and the walk ends.
 */
#include "sessiond/agent-wire.h"
#include "trawl/ctl-types.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t domain, pid, names_size;
	size_t pos = 0, len, count = 0;
	const char *name;
	char *names;

	if (size < AGENT_WIRE_REG_LEN + AGENT_WIRE_LIST_HEAD_LEN)
		return 0;
	if (!agent_wire_reg(data, &domain, &pid) &&
	    (domain < TRAWL_CTL_DOMAIN_JUL || domain > TRAWL_CTL_DOMAIN_PYTHON))
		abort();
	data += AGENT_WIRE_REG_LEN;
	size -= AGENT_WIRE_REG_LEN;
	if (agent_wire_list_head(data, &names_size))
		return 0;
	if (names_size > AGENT_WIRE_LIST_MAX)
		abort();
	data += AGENT_WIRE_LIST_HEAD_LEN;
	size -= AGENT_WIRE_LIST_HEAD_LEN;
	len = size < names_size ? size : names_size;
	/* a copy of exactly @len bytes: ASan sees any read past it */
	names = malloc(len ? len : 1);
	if (!names)
		return 0;
	memcpy(names, data, len);
	while (agent_wire_name_next(names, len, &pos, 64, &name)) {
		size_t n = strlen(name), i;

		if (name < names || name + n >= names + len || !n || n >= 64)
			abort();
		for (i = 0; i < n; i++)
			if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
				abort();
		if (++count > len)
			abort();
	}
	free(names);
	return 0;
}
