/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctl_proto.c - libFuzzer target for the ctl protocol's checks: the
 * daemon's request decoder and the client's reply decoder. The first byte
 * picks which; the rest is the message as it would arrive on the socket.
 * Whatever the checks accept is then walked field by field, as the daemon
 * and library do, so an accepted-but-unsafe message shows up under ASan.
 */
#include "ctl/proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk_req(const struct trawl_ctl_wire_req *r)
{
	sink += strlen(r->session) + strlen(r->channel) + strlen(r->name) + strlen(r->target) +
		strlen(r->filter) + strlen(r->output);
	sink += trawl_ctl_name_valid(r->session) + trawl_ctl_name_valid(r->name);
}

static void walk_reply(const uint8_t *p, size_t len)
{
	struct trawl_ctl_wire_reply h;
	size_t i;

	memcpy(&h, p, sizeof(h));
	sink += strlen(h.err) + strlen(h.name) + strlen(h.path);
	for (i = 0; i < h.nr_items; i++) {
		struct trawl_ctl_wire_item it;

		memcpy(&it, p + sizeof(h) + i * sizeof(it), sizeof(it));
		sink += strlen(it.name) + strlen(it.text) + strlen(it.text2);
	}
	(void)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_ctl_wire_hdr hdr;
	const uint8_t *payload;
	size_t len;
	int is_reply;
	uint8_t *copy;

	if (size < 1 + sizeof(hdr))
		return 0;
	is_reply = data[0] & 1;
	memcpy(&hdr, data + 1, sizeof(hdr));
	payload = data + 1 + sizeof(hdr);
	len = size - 1 - sizeof(hdr);
	if (trawl_ctl_hdr_check(&hdr, is_reply))
		return 0;
	if (hdr.size != len)
		return 0;
	/* A private, exactly-sized copy so ASan sees any overread. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, payload, len);
	if (is_reply) {
		if (!trawl_ctl_reply_check(copy, len))
			walk_reply(copy, len);
	} else if (!trawl_ctl_req_check(hdr.cmd, copy, len)) {
		walk_req((const struct trawl_ctl_wire_req *)copy);
	}
	free(copy);
	return 0;
}
