/* SPDX-License-Identifier: MIT */
/*
 * fuzz_relay_proto.c - libFuzzer target for what trawl-relayd reads from the
 * network: the streaming protocol's message decoder (relayd/proto.h), fed a
 * byte stream as a connection delivers it, and the URL parser (relayd/url.h)
 * the daemons and the CLI share. The first byte picks which; the rest is
 * the input, copied into a buffer of exactly its size so that any read past
 * it shows up under ASan. Every accepted message is walked as relayd walks
 * it (names, paths, payload bytes).
 */
#include "relayd/proto.h"
#include "relayd/url.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk(const struct trawl_relay_msg *m)
{
	uint32_t i;

	for (i = 0; i < m->size; i++)
		sink += m->payload[i];
	if (m->cmd == TRAWL_RELAY_HELLO)
		sink += strlen(m->session) + strlen(m->hostname) + m->live_timer_us + m->token;
	if (m->cmd == TRAWL_RELAY_OPEN || m->cmd == TRAWL_RELAY_RESUME)
		sink += strlen(m->path) + m->kind + (size_t)m->keep +
			(size_t)trawl_relay_path_ok(m->path);
	if (m->cmd == TRAWL_RELAY_ARCHIVE)
		sink += strlen(m->path) + strlen(m->to);
	if (m->cmd == TRAWL_RELAY_CHUNK)
		sink += m->kind + strlen(m->path) + strlen(m->to) + strlen(m->next);
	if (m->cmd == TRAWL_RELAY_BEACON)
		sink += (size_t)m->ts_end;
}

static void messages(const uint8_t *p, size_t len)
{
	struct trawl_relay_msg m;
	ssize_t n;

	while ((n = trawl_relay_msg_parse(p, len, &m)) > 0) {
		walk(&m);
		p += n;
		len -= (size_t)n;
	}
}

static void url(const uint8_t *p, size_t len)
{
	struct trawl_relay_url u;
	char *s = malloc(len + 1), why[256], buf[600];

	if (!s)
		return;
	memcpy(s, p, len);
	s[len] = '\0';
	if (!trawl_relay_url_parse(s, 5342, &u, why, sizeof(why))) {
		trawl_relay_url_format(&u, buf, sizeof(buf));
		sink += strlen(buf);
	} else {
		sink += strlen(why);
	}
	sink += (size_t)trawl_relay_path_ok(s) + (size_t)trawl_relay_name_ok(s);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size < 1)
		return 0;
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if (data[0] & 1)
		url(copy, size - 1);
	else
		messages(copy, size - 1);
	free(copy);
	return 0;
}
