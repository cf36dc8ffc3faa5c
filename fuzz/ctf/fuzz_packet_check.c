/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: trawl_ctf_packet_prepare() (ctf/packet.h), the check
 * every packet passes before it is written: by the consumers, on a
 * sub-buffer's start in memory a traced program can write, and by
 * the tests' trawl_ctf_stream (tests/lib/ctf_stream.h). Each input goes
 * through the consumers' expectations (host byte order, nothing more) and
 * a closed packet's in both byte orders, with the input's own uuid (bytes
 * 4..19) and stream id expected so
 * the fuzzer reaches past them. A packet that passes must be one the writer
 * can write: its content within the input, at least its header, and what
 * goes to disk saying so.
 */
#include "ctf/packet.h"

#include <endian.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, const struct trawl_ctf_packet_expect *exp)
{
	struct trawl_ctf_packet p;
	uint64_t v;

	if (trawl_ctf_packet_prepare(&p, data, size, exp, 7, 4096))
		return;
	if (p.bytes < sizeof(p.head) || p.bytes > size)
		__builtin_trap();
	if (p.size < p.bytes || p.size - p.bytes >= sizeof(trawl_ctf_packet_zeros) ||
	    (exp->unpadded && p.size != p.bytes))
		__builtin_trap();
	if (be64toh(p.entry.packet_size) != p.size * 8 || be64toh(p.entry.offset) != 4096 ||
	    be64toh(p.entry.content_size) > p.bytes * 8 ||
	    be64toh(p.entry.stream_instance_id) != 7)
		__builtin_trap();
	v = exp->big_endian ? be64toh(p.head.context.packet_size)
			    : le64toh(p.head.context.packet_size);
	if (v != p.size * 8)
		__builtin_trap();
	if (exp->closed && be64toh(p.entry.timestamp_end) < be64toh(p.entry.timestamp_begin))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_ctf_packet_expect exp = {.big_endian = trawl_ctf_host_big_endian(),
					      .stream_id = -1};
	uint8_t uuid[16] = {0};
	uint32_t sid = 0;

	check(data, size, &exp); /* the consumers' check */
	exp.unpadded = 1;	 /* a consumer's seal */
	check(data, size, &exp);
	exp.unpadded = 0;
	if (size >= 24) {
		memcpy(uuid, data + 4, 16);
		memcpy(&sid, data + 20, 4);
	}
	exp.uuid = uuid;
	exp.closed = 1;
	exp.big_endian = 0;
	exp.stream_id = le32toh(sid);
	check(data, size, &exp);
	exp.big_endian = 1;
	exp.stream_id = be32toh(sid);
	check(data, size, &exp);
	return 0;
}
