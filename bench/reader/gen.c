/* SPDX-License-Identifier: MIT */
/*
 * trawl-bench-gen: writes a CTF 1.8 trace shaped like the one LTTng-UST 2.13
 * records for the ANCHORS.md program (event `anchor:ev`, payload int64 a,
 * uint32 b, string s = "hello-anchor"; 6-byte "large" event header + 25
 * payload bytes = 31 bytes per event; LTTng's 32-byte packet header and
 * 52-byte packet context; an LTTng index file per stream).
 *
 * Usage: trawl-bench-gen DIR EVENTS [STREAMS] [PACKET_KIB] [DISCARD_EVERY]
 * writes DIR/ust/uid/0/64-bit/{metadata, chan_<n>, index/chan_<n>.idx}.
 * Events are spread round-robin over STREAMS streams (default 1, at most
 * 256), 100 ns apart; packets are PACKET_KIB KiB (default 1024). With
 * DISCARD_EVERY > 0, every packet claims DISCARD_EVERY more discarded
 * events than the last.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PH_SIZE 32
#define PC_SIZE 52
#define EV_SIZE 31

static const uint8_t uuid[16] = { 0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee, 0x11, 0xe0,
				  0x8c, 0x08, 0xcb, 0x07, 0xd7, 0xb3, 0xa5, 0x64 };

static const char metadata[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n\n"
	"trace {\n\tmajor = 1;\n\tminor = 8;\n"
	"\tuuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
	"\tbyte_order = le;\n"
	"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n"
	"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n"
	"env {\n\thostname = \"vm\";\n\tdomain = \"ust\";\n"
	"\ttracer_name = \"lttng-ust\";\n\ttracer_major = 2;\n\ttracer_minor = 13;\n};\n\n"
	"clock {\n\tname = \"monotonic\";\n"
	"\tuuid = \"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\";\n"
	"\tdescription = \"Monotonic Clock\";\n\tfreq = 1000000000;\n"
	"\tprecision = 1;\n\toffset_s = 1764700000;\n\toffset = 123456789;\n"
	"\tabsolute = TRUE;\n};\n\n"
	"typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; } := uint32_clock_monotonic_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
	"struct packet_context {\n\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\tuint64_clock_monotonic_t timestamp_end;\n\tuint64_t content_size;\n"
	"\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n"
	"\tunsigned long events_discarded;\n\tuint32_t cpu_id;\n};\n\n"
	"struct event_header_large {\n"
	"\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
	"\tvariant <id> {\n\t\tstruct {\n\t\t\tuint32_clock_monotonic_t timestamp;\n\t\t} compact;\n"
	"\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n\t\t} extended;\n"
	"\t} v;\n} align(8);\n\n"
	"stream {\n\tid = 0;\n\tevent.header := struct event_header_large;\n"
	"\tpacket.context := struct packet_context;\n};\n\n"
	"event {\n\tname = \"anchor:ev\";\n\tid = 0;\n\tstream_id = 0;\n\tloglevel = 13;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _a;\n"
	"\t\tinteger { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _b;\n"
	"\t\tstring _s;\n\t};\n};\n\n";

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);	/* the trace is little-endian, like the host */
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

struct gen_stream {
	FILE *f, *idx;
	uint8_t *pkt;
	size_t fill;
	uint64_t seq, first_ts, last_ts, nev, disc, offset;
	uint32_t cpu;
};

static int flush_packet(struct gen_stream *s, size_t pkt_size, uint64_t disc_step)
{
	uint8_t *p = s->pkt;
	uint8_t ie[72];

	if (s->nev == 0)
		return 0;
	s->disc += disc_step;
	put32(p, 0xC1FC1FC1u);
	memcpy(p + 4, uuid, 16);
	put32(p + 20, 0);
	put64(p + 24, s->cpu);
	put64(p + 32, s->first_ts);
	put64(p + 40, s->last_ts);
	put64(p + 48, (uint64_t)s->fill * 8);
	put64(p + 56, (uint64_t)pkt_size * 8);
	put64(p + 64, s->seq);
	put64(p + 72, s->disc);
	put32(p + 80, s->cpu);
	memset(p + s->fill, 0, pkt_size - s->fill);
	if (fwrite(p, 1, pkt_size, s->f) != pkt_size)
		return -EIO;
	be64(ie, s->offset);
	be64(ie + 8, (uint64_t)pkt_size * 8);
	be64(ie + 16, (uint64_t)s->fill * 8);
	be64(ie + 24, s->first_ts);
	be64(ie + 32, s->last_ts);
	be64(ie + 40, s->disc);
	be64(ie + 48, 0);
	be64(ie + 56, s->cpu);
	be64(ie + 64, s->seq);
	if (fwrite(ie, 1, sizeof(ie), s->idx) != sizeof(ie))
		return -EIO;
	s->offset += pkt_size;
	s->seq++;
	s->nev = 0;
	s->fill = PH_SIZE + PC_SIZE;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t events, i, ts = 1000000000ULL;
	unsigned nstreams = 1, s;
	size_t pkt_size = 1024 * 1024;
	uint64_t disc_step = 0;
	struct gen_stream *st;
	char path[4096], cmd[4200];
	FILE *m;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DIR EVENTS [STREAMS] [PACKET_KIB] [DISCARD_EVERY]\n",
			argv[0]);
		return 2;
	}
	events = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		nstreams = (unsigned)strtoul(argv[3], NULL, 10);
	if (argc > 4)
		pkt_size = (size_t)strtoul(argv[4], NULL, 10) * 1024;
	if (argc > 5)
		disc_step = strtoull(argv[5], NULL, 10);
	if (!nstreams || nstreams > 256 || pkt_size < 4096) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/ust/uid/0/64-bit/index'", argv[1]);
	if (system(cmd) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/ust/uid/0/64-bit/metadata", argv[1]);
	m = fopen(path, "w");
	if (!m || fwrite(metadata, 1, sizeof(metadata) - 1, m) != sizeof(metadata) - 1 ||
	    fclose(m)) {
		fprintf(stderr, "%s: cannot write %s\n", argv[0], path);
		return 1;
	}
	st = calloc(nstreams, sizeof(*st));
	if (!st)
		return 1;
	for (s = 0; s < nstreams; s++) {
		uint8_t hdr[16];

		snprintf(path, sizeof(path), "%s/ust/uid/0/64-bit/chan_%u", argv[1], s);
		st[s].f = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/ust/uid/0/64-bit/index/chan_%u.idx",
			 argv[1], s);
		st[s].idx = fopen(path, "w");
		st[s].pkt = malloc(pkt_size);
		if (!st[s].f || !st[s].idx || !st[s].pkt)
			return 1;
		be32(hdr, 0xC1F1DCC1u);
		be32(hdr + 4, 1);
		be32(hdr + 8, 1);
		be32(hdr + 12, 72);
		fwrite(hdr, 1, 16, st[s].idx);
		st[s].cpu = s;
		st[s].fill = PH_SIZE + PC_SIZE;
	}
	for (i = 0; i < events; i++) {
		struct gen_stream *g = &st[i % nstreams];
		uint8_t *e;

		ts += 100 + (i * 7919) % 61;	/* 100-160 ns apart */
		if (g->fill + EV_SIZE > pkt_size && flush_packet(g, pkt_size, disc_step))
			return 1;
		if (g->nev == 0)
			g->first_ts = ts;
		e = g->pkt + g->fill;
		e[0] = 0;	/* id 0, compact: 16-bit id, 32-bit timestamp */
		e[1] = 0;
		put32(e + 2, (uint32_t)ts);
		put64(e + 6, (uint64_t)(int64_t)i);
		put32(e + 14, (uint32_t)i);
		memcpy(e + 18, "hello-anchor", 13);
		g->fill += EV_SIZE;
		g->last_ts = ts;
		g->nev++;
	}
	for (s = 0; s < nstreams; s++) {
		if (flush_packet(&st[s], pkt_size, disc_step) || fclose(st[s].f) ||
		    fclose(st[s].idx))
			return 1;
		free(st[s].pkt);
	}
	free(st);
	return 0;
}
