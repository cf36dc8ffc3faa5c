/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what a consumer streaming to trawl-relayd reads from it
 * (consumerd/output-relay.c), which a hostile relayd or a man in the middle
 * chooses. The root kernel consumer parses it. An output is set up as it is
 * in the middle of streaming: a few packets sent and kept (not confirmed),
 * over two files, some of them closed while their packets wait, PINGs
 * outstanding; the input's first bytes choose those, the rest is relayd's
 * bytes on the connection (a socketpair, ended after them). Then the
 * consumer's check reads them: replies let packets go, errors and bad
 * replies break the stream (what was not confirmed is counted lost), extra
 * bytes are a protocol error. After each input: no more confirmed than was
 * sent, the kept packets and the files' counts of them agree, nothing
 * leaks (ASan), and the check returned (no wait on bytes that never come).
 */
#include "consumerd/output.h"
#include "consumerd/output-internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFILES 4

static struct trawl_output *make(const uint8_t *cfg)
{
	struct trawl_output *o = calloc(1, sizeof(*o));
	uint32_t i, n = cfg[1] % 40;

	if (!o)
		abort();
	o->relay = 1;
	o->reserve = -1;
	o->sealing = cfg[0] & 1;
	o->broken = o->sealing ? EIO : 0; /* sealing happens once broken */
	o->relay_failed = o->sealing;
	o->pings = (uint32_t)(cfg[0] >> 1) % 18;
	o->conn_base = cfg[2];
	snprintf(o->peer, sizeof(o->peer), "fuzz:1");
	o->files = calloc(NFILES, sizeof(*o->files));
	o->q = calloc(64, sizeof(*o->q));
	if (!o->files || !o->q)
		abort();
	o->nr_files = NFILES;
	o->q_cap = 64;
	o->q_head = cfg[3] % 8;
	for (i = 0; i < NFILES; i++)
		o->files[i] = (struct ofile){.fd = 0, .closed = (cfg[4] >> i) & 1};
	for (i = 0; i < n && o->q_head + i < o->q_cap; i++) {
		struct unacked *u = &o->q[o->q_head + i];
		size_t len = sizeof(struct trawl_ctf_packet_start) + 16 * (i + 1);

		o->sent_bytes += len;
		*u = (struct unacked){
			.end = o->sent_bytes, .events = (int64_t)i - 1,
			.data_h = i % 2, .index_h = 2 + i % 2,
			.data_end = o->sent_bytes, .index_end = 32 * (i + 1),
			.pkt = calloc(1, len), .len = len,
		};
		if (!u->pkt)
			abort();
		o->files[u->data_h].pending++;
		o->files[u->index_h].pending++;
		o->q_len++;
	}
	o->acked_bytes = 0;
	return o;
}

static void check(const struct trawl_output *o)
{
	uint32_t pending[NFILES] = {0};

	if (o->acked_bytes > o->sent_bytes || o->q_head + o->q_len > o->q_cap)
		__builtin_trap();
	for (size_t i = 0; i < o->q_len; i++) {
		const struct unacked *u = &o->q[o->q_head + i];

		if (u->end <= o->acked_bytes || !u->pkt)
			__builtin_trap();
		pending[u->data_h]++;
		pending[u->index_h]++;
	}
	for (uint32_t i = 0; i < NFILES; i++)
		if (o->files[i].fd >= 0 && o->files[i].pending != pending[i])
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_output *o;
	int sv[2];

	if (size < 5 || size > 4096)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	o = make(data);
	o->sock = sv[0];
	if (write(sv[1], data + 5, size - 5) != (ssize_t)(size - 5))
		abort();
	close(sv[1]);
	/*
	 * A reconnection is not for this target: once the connection ends,
	 * the next attempt is far off.
	 */
	trawl_output_relay_check(o);
	if (o->down)
		o->retry_at_ms = UINT64_MAX;
	check(o);
	trawl_output_relay_check(o);
	check(o);
	trawl_output_destroy(o);
	return 0;
}
