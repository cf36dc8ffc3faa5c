/* SPDX-License-Identifier: MIT */
/*
 * wire-info.c - prints the ctl protocol's constants and sizes, as
 * src/ctl/proto.h defines them, for the tests that speak the protocol by
 * hand (tests/cli/protocol.sh, users.sh): they build hostile messages
 * from these numbers instead of keeping a copy of the layout.
 *
 * Output: one "NAME VALUE" per line.
 */
#include "ctl/proto.h"
#include "trawl/ctl.h"

#include <stddef.h>
#include <stdio.h>

int main(void)
{
	printf("MAGIC %u\n", TRAWL_CTL_MAGIC);
	printf("VERSION %u\n", TRAWL_CTL_VERSION);
	printf("HDR %zu\n", sizeof(struct trawl_ctl_wire_hdr));
	printf("REQ %zu\n", sizeof(struct trawl_ctl_wire_req));
	printf("REQ_DOMAIN_OFF %zu\n", offsetof(struct trawl_ctl_wire_req, domain));
	printf("REPLY %zu\n", sizeof(struct trawl_ctl_wire_reply));
	printf("REC %zu\n", sizeof(struct trawl_ctl_wire_rec));
	printf("REC_SESSION_BODY %zu\n", sizeof(struct trawl_ctl_wire_session));
	printf("ITEM_SESSION %d\n", TRAWL_CTL_ITEM_SESSION);
	printf("CMD_PING %d\n", TRAWL_CTL_CMD_PING);
	printf("CMD_CREATE %d\n", TRAWL_CTL_CMD_CREATE);
	printf("CMD_LIST_SESSIONS %d\n", TRAWL_CTL_CMD_LIST_SESSIONS);
	return 0;
}
