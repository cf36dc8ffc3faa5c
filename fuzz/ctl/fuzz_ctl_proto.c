/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctl_proto.c - libFuzzer target for the ctl protocol's checks: the
 * daemon's request decoder and the client's reply decoder. The first byte
 * picks which; the rest is the message as it would arrive on the socket.
 * Whatever the checks accept is then used as the daemon and the library
 * use it: a request's strings are read, a reply becomes a list whose every
 * record is read through the public typed getters (with a full struct and
 * with an older caller's short one), so an accepted-but-unsafe message
 * shows up under ASan.
 */
#include "ctl/ctl-int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk_req(const struct trawl_ctl_wire_req *r)
{
	sink += strlen(r->session) + strlen(r->channel) + strlen(r->name) + strlen(r->target) +
		strlen(r->filter) + strlen(r->output) + strlen(r->exclusions);
	sink += trawl_ctl_name_valid(r->session) + trawl_ctl_name_valid(r->name);
	sink += r->process_attr + r->value;
	sink += strlen(r->trigger.name) + strlen(r->trigger.captures);
	if (r->trigger.nr_actions <= TRAWL_CTL_TRIGGER_MAX_ACTIONS && r->trigger.nr_actions)
		sink += strlen(r->trigger.actions[r->trigger.nr_actions - 1].output);
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Reads record @i through its getter, as a program would. */
static void walk_rec(const struct trawl_ctl_list *l, size_t i, uint32_t struct_size)
{
	union {
		uint32_t struct_size;
		struct trawl_ctl_session_info s;
		struct trawl_ctl_domain_info d;
		struct trawl_ctl_channel_info c;
		struct trawl_ctl_event_info e;
		struct trawl_ctl_context_info x;
		struct trawl_ctl_available_info a;
		struct trawl_ctl_field_info f;
		struct trawl_ctl_snapshot_info n;
		struct trawl_ctl_tracker_info t;
		struct trawl_ctl_tracker_value_info v;
		struct trawl_ctl_trigger_info g;
		struct trawl_ctl_trigger_action_info ga;
	} u;

	memset(&u, 0, sizeof(u));
	u.struct_size = struct_size;
	switch (trawl_ctl_list_kind(l, i)) {
	case TRAWL_CTL_ITEM_SESSION:
		if (!trawl_ctl_list_session_at(l, i, &u.s) && u.s.struct_size == sizeof(u.s))
			sink += slen(u.s.name) + slen(u.s.output);
		break;
	case TRAWL_CTL_ITEM_DOMAIN:
		if (!trawl_ctl_list_domain_at(l, i, &u.d) && u.d.struct_size == sizeof(u.d))
			sink += slen(u.d.problem);
		break;
	case TRAWL_CTL_ITEM_CHANNEL:
		if (!trawl_ctl_list_channel_at(l, i, &u.c) && u.c.struct_size == sizeof(u.c))
			sink += slen(u.c.name);
		break;
	case TRAWL_CTL_ITEM_EVENT:
		if (!trawl_ctl_list_event_at(l, i, &u.e) && u.e.struct_size == sizeof(u.e))
			sink += slen(u.e.channel) + slen(u.e.name) + slen(u.e.filter) +
				slen(u.e.target) + slen(u.e.exclusions);
		break;
	case TRAWL_CTL_ITEM_CONTEXT:
		if (!trawl_ctl_list_context_at(l, i, &u.x) && u.x.struct_size == sizeof(u.x))
			sink += slen(u.x.channel) + slen(u.x.name);
		break;
	case TRAWL_CTL_ITEM_AVAILABLE:
		if (!trawl_ctl_list_available_at(l, i, &u.a) && u.a.struct_size == sizeof(u.a))
			sink += slen(u.a.name);
		break;
	case TRAWL_CTL_ITEM_FIELD:
		if (!trawl_ctl_list_field_at(l, i, &u.f) && u.f.struct_size == sizeof(u.f))
			sink += slen(u.f.event) + slen(u.f.name) + slen(u.f.type);
		break;
	case TRAWL_CTL_ITEM_SNAPSHOT:
		if (!trawl_ctl_list_snapshot_at(l, i, &u.n) && u.n.struct_size == sizeof(u.n))
			sink += slen(u.n.session) + slen(u.n.path);
		break;
	case TRAWL_CTL_ITEM_TRACKER:
		if (!trawl_ctl_list_tracker_at(l, i, &u.t) && u.t.struct_size == sizeof(u.t))
			sink += u.t.nr_values + (size_t)u.t.process_attr;
		break;
	case TRAWL_CTL_ITEM_TRACKER_VALUE:
		if (!trawl_ctl_list_tracker_value_at(l, i, &u.v) && u.v.struct_size == sizeof(u.v))
			sink += u.v.value;
		break;
	case TRAWL_CTL_ITEM_TRIGGER:
		if (!trawl_ctl_list_trigger_at(l, i, &u.g) && u.g.struct_size == sizeof(u.g))
			sink += slen(u.g.name) + slen(u.g.pattern) + slen(u.g.filter) +
				slen(u.g.exclusions) + slen(u.g.captures) + slen(u.g.session) +
				slen(u.g.channel);
		break;
	case TRAWL_CTL_ITEM_TRIGGER_ACTION:
		if (!trawl_ctl_list_trigger_action_at(l, i, &u.ga) && u.ga.struct_size == sizeof(u.ga))
			sink += slen(u.ga.session) + slen(u.ga.output_name) + slen(u.ga.output);
		break;
	default:
		break;
	}
}

static void walk_reply(uint8_t *payload, size_t len)
{
	struct trawl_ctl_list *l = ctl_list_from_reply(payload, len); /* takes payload */
	size_t i;

	if (!l)
		return;
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		walk_rec(l, i, sizeof(struct trawl_ctl_event_info) + 64);
		walk_rec(l, i, 12); /* an older caller's short struct */
	}
	trawl_ctl_list_destroy(l);
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
		if (!trawl_ctl_reply_check(copy, len)) {
			walk_reply(copy, len);
			return 0;
		}
	} else if (!trawl_ctl_req_check(hdr.cmd, copy, len)) {
		walk_req((const struct trawl_ctl_wire_req *)copy);
	}
	free(copy);
	return 0;
}
