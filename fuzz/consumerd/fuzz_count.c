/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: counting the events of a user-space packet the
 * consumer could not write (consumerd/count.c), a packet a traced program
 * wrote in shared memory. The input is "METADATA TEXT \0 PACKET BYTES".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "consumerd/count.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen, plen;
	uint8_t *pkt;

	if (!nul || size > (4u << 20))
		return 0;
	mlen = (size_t)(nul - data);
	plen = size - mlen - 1;
	/* exactly the packet's size, so ASan sees any overread */
	pkt = malloc(plen ? plen : 1);
	if (!pkt)
		return 0;
	memcpy(pkt, nul + 1, plen);
	trawl_cons_packet_events((const char *)data, mlen, pkt, plen);
	free(pkt);
	return 0;
}
