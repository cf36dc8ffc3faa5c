/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for everything the daemons read from a traced app:
 * the registration and event-description decoders (wire.c) and the
 * consumer's view of a stream's shared memory (ringbuffer.c), which a
 * hostile app can fill with anything; and what an app reads from a daemon:
 * commands with their perf counter lists and application contexts; and an app's EVENTS_ADDED and
 * TALLY. The first byte picks the surface (% 8 == 4: EVENTS_ADDED, % 16 ==
 * 13: TALLY, else % 4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringbuffer/ringbuffer.h"
#include "ustctl/app-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_shm(const uint8_t *data, size_t size)
{
	struct trawl_rb_reader r;
	struct trawl_rb_packet pkt;
	int fd, i, overwrite = size && (data[0] & 1);

	memset(&r, 0, sizeof(r));
	fd = trawl_rb_shm_create(4096, 4, (uint32_t)overwrite, 0, TRAWL_RB_CLOCK_MONOTONIC, NULL);
	if (fd < 0)
		return;
	if (trawl_rb_map(&r.rb, fd, 4096, 4, (uint32_t)overwrite, 0) || trawl_rb_reader_init(&r)) {
		close(fd);
		return;
	}
	close(fd);
	/* The input is what the app wrote over the control page and data. */
	memcpy(r.rb.map, data, size < r.rb.map_size ? size : r.rb.map_size);
	for (i = 0; i < 16; i++) {
		int ret = trawl_rb_reader_get(&r, &pkt);

		if (ret == -EAGAIN)
			break;
		if (ret)
			continue;
		if (pkt.content_size > pkt.packet_size || pkt.content_size < TRAWL_RB_PACKET_START)
			abort();
		/* Touch every byte the consumer would write out. */
		{
			uint8_t sum = 0;
			size_t k;

			for (k = 0; k < pkt.content_size; k++)
				sum ^= ((const uint8_t *)pkt.data)[k];
			if (sum == 0 && k == 0)
				abort(); /* never: content_size >= 84 */
		}
		trawl_rb_reader_put(&r);
	}
	trawl_rb_flush(&r.rb, 1);
	trawl_rb_reader_get(&r, &pkt);
	trawl_rb_reader_fini(&r);
	trawl_rb_unmap(&r.rb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_ustctl_app_info info;
	struct trawl_ustctl_event *ev;
	uint32_t nr, i;
	void *copy;

	if (size < 1)
		return 0;
	/* A private, exactly sized copy: reads past the end are caught. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if (data[0] % 8 == 4) {
		/* EVENTS_ADDED against a daemon that has data[0] / 8 events. */
		if (!trawl_wire_events_added_decode(copy, size - 1, data[0] / 8u, &nr) &&
		    (!nr || nr > TRAWL_WIRE_MAX_EVENTS - data[0] / 8u || size - 1 != sizeof(struct trawl_wire_events_added)))
			abort();
		free(copy);
		return 0;
	}
	if (data[0] % 16 == 13) {
		struct trawl_ustctl_tally_entry *e;

		/* What the daemon relies on after a successful decode. */
		if (!trawl_wire_tally_decode(copy, size - 1, &e, &nr)) {
			if (!nr || nr > TRAWL_WIRE_MAX_TALLY ||
			    size - 1 != sizeof(struct trawl_wire_tally) + nr * sizeof(struct trawl_wire_tally_entry))
				abort();
			for (i = 0; i < nr; i++)
				if (strnlen(e[i].name, sizeof(e[i].name)) >= sizeof(e[i].name) ||
				    !strchr(e[i].name, ':') || e[i].loglevel < 0 || e[i].loglevel > 14 ||
				    !e[i].count || e[i].count > TRAWL_WIRE_MAX_TALLY_COUNT)
					abort();
			free(e);
		}
		free(copy);
		return 0;
	}
	switch (data[0] % 4) {
	case 0:
		trawl_wire_register_decode(copy, size - 1, &info, &nr);
		break;
	case 1:
		if (!trawl_wire_event_decode(copy, size - 1, &ev)) {
			/* Every decoded field must be usable as is. */
			for (i = 0; i < ev->nr_fields; i++) {
				const struct trawl_ustctl_field *f = &ev->fields[i];

				if (strlen(f->name) >= sizeof(f->name))
					abort();
				if (f->type == TRAWL_USTCTL_FIELD_ENUM && f->nr_enum_entries &&
				    strlen(f->enum_entries[f->nr_enum_entries - 1].label) >= TRAWL_USTCTL_FIELD_NAME_MAX)
					abort();
			}
			free(ev);
		}
		break;
	case 2:
		fuzz_shm(data + 1, size - 1);
		break;
	default: {
		struct trawl_wire_counter counters[TRAWL_USTCTL_MAX_COUNTERS];
		struct trawl_wire_cmd cmd;

		if (!trawl_wire_cmd_decode(copy, size - 1, &cmd, counters)) {
			/* What the app relies on after a successful decode. */
			int filters = cmd.cmd == TRAWL_WIRE_CMD_ENABLE && size - 1 > sizeof(cmd);

			const char *names;
			int app_cmd = cmd.cmd == TRAWL_WIRE_CMD_CHANNEL ||
				      cmd.cmd == TRAWL_WIRE_CMD_NOTIFIER;
			uint32_t nr_app = app_cmd ? trawl_wire_app_ctx(copy, size - 1, &names) : 0;
			size_t app_bytes = 0;

			/* A CHANNEL's or NOTIFIER's application contexts: 1 to
			 * the most, each a valid name, filling the rest exactly. */
			for (i = 0; i < nr_app; i++) {
				if (i >= TRAWL_USTCTL_MAX_APP_CTX || !trawl_ustctl_app_ctx_name_valid(names))
					abort();
				app_bytes += strlen(names) + 1;
				names += strlen(names) + 1;
			}
			if ((cmd.flags & TRAWL_WIRE_CHAN_APP_CTX) && app_cmd && !nr_app)
				abort();
			if (cmd.nr_counters > TRAWL_USTCTL_MAX_COUNTERS ||
			    (cmd.cmd != TRAWL_WIRE_CMD_CHANNEL && cmd.nr_counters) ||
			    (!filters && size - 1 != sizeof(cmd) + cmd.nr_counters * sizeof(counters[0]) + app_bytes))
				abort();
			/* An ENABLE's filters: bounded, the last one NUL-terminated. */
			if (filters && (size - 1 - sizeof(cmd) > TRAWL_WIRE_MAX_FILTERS || ((const char *)copy)[size - 2] != '\0'))
				abort();
			for (i = 0; i < cmd.nr_counters; i++)
				if (counters[i].reserved || counters[i].type > 4) /* up to PERF_TYPE_RAW */
					abort();
		}
		break;
	}
	}
	free(copy);
	return 0;
}
