/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: ctf_packet_check(), which reads packet headers out of
 * shared memory a traced program may have scribbled on. The first 16 bytes of
 * the input become the trace uuid so the fuzzer can reach past the uuid check.
 */
#include "ctf/internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trawl_ctf_trace *le, *be;
	struct ctf_packet_info info;
	uint8_t uuid[16] = { 0 };

	if (!le) {
		le = trawl_ctf_trace_create(0);
		be = trawl_ctf_trace_create(1);
	}
	if (size >= 36) {
		memcpy(uuid, data + 4, 16); /* the uuid where a packet carries it */
		trawl_ctf_trace_set_uuid(le, uuid);
		trawl_ctf_trace_set_uuid(be, uuid);
	}
	if (ctf_packet_check(le, 0, data, size, &info) == 0 &&
	    (info.content_bits > (uint64_t)size * 8 || info.packet_bits < info.content_bits))
		__builtin_trap();
	if (ctf_packet_check(be, 0, data, size, &info) == 0 &&
	    (info.content_bits > (uint64_t)size * 8 || info.packet_bits < info.content_bits))
		__builtin_trap();
	return 0;
}
