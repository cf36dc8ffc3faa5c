/* SPDX-License-Identifier: MIT */
/*
 * klayout: LTTng-modules' layout of ftrace records (src/kernel/layout.c,
 * convert.c), without the kernel. Each case parses a tracefs format text as
 * Linux 6.18 writes it, converts one record with known values, and checks
 * the CTF payload byte for byte against what LTTng-modules 2.13 records
 * (names and order from the event's fields, values by its conventions:
 * prio - 100, rwbs as flag bits, tid from the record header). Also: which of
 * trawl's own records are dropped (notrace.c: a wake-up of another program
 * by trawl's thread is kept), and that records the converter cannot write
 * are counted in events_discarded. Prints "N passed, M failed".
 */
#define _GNU_SOURCE
#include "ctf/layout.h"
#include "kernel/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed, passed;

#define CHECK(c, ...)                                                    \
	do {                                                             \
		if (c) {                                                 \
			passed++;                                        \
		} else {                                                 \
			failed++;                                        \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                    \
			fputc('\n', stderr);                             \
		}                                                        \
	} while (0)

#define COMMON                                                                          \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"             \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"             \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"     \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char switch_fmt[] = "name: sched_switch\nID: 300\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\nprint fmt: \"x\"\n";

static const char waking_fmt[] = "name: sched_waking\nID: 301\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\nprint fmt: \"x\"\n";

static const char rq_fmt[] = "name: block_rq_issue\nID: 302\nformat:\n" COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\nprint fmt: \"x\"\n";

static const char fork_fmt[] = "name: sched_process_fork\nID: 303\nformat:\n" COMMON
	"\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n\nprint fmt: \"x\"\n";

static const char softirq_fmt[] = "name: softirq_entry\nID: 304\nformat:\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\nprint fmt: \"x\"\n";

static const char page_fmt[] = "name: mm_page_alloc\nID: 305\nformat:\n" COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\nprint fmt: \"x\"\n";

static uint8_t last[4096];
static size_t last_len;

static int emit(struct trawl_kernel_stream *s, const uint8_t *pkt, size_t len, void *arg)
{
	(void)s;
	(void)arg;
	/* the packet's first event: after the packet start and a 4-byte compact header */
	last_len = len - sizeof(struct trawl_ctf_packet_start) - TRAWL_CTF_COMPACT_HEADER_SIZE;
	memcpy(last, pkt + sizeof(struct trawl_ctf_packet_start) + TRAWL_CTF_COMPACT_HEADER_SIZE,
	       last_len);
	return 0;
}

/* Parses @fmt as event @sys:@name and converts @rec; the payload lands in last[]. */
static int convert(const char *sys, const char *name, const char *fmt, const uint8_t *rec, uint32_t len,
		   const struct trawl_kernel_hidden *hidden, struct trawl_kernel_event **evp)
{
	struct trawl_kernel_events *t;
	struct trawl_kernel_event *ev = calloc(1, sizeof(*ev));
	struct trawl_kernel_converter c;
	struct trawl_kernel_stream s;
	static const uint8_t uuid[16];
	int ret;

	if (!ev || trawl_kernel_event_parse(sys, name, fmt, ev) < 0 ||
	    trawl_kernel_events_create(NULL, &t) < 0)
		return -1;
	trawl_kernel_events_add(t, ev, 1);
	trawl_kernel_converter_init(&c, t, uuid);
	c.hidden = hidden;
	trawl_kernel_stream_init(&s, &c, 0, 8192, emit, NULL);
	last_len = 0;
	ret = trawl_kernel_stream_convert_record(&s, 1000, rec, len, NULL);
	trawl_kernel_stream_flush(&s);
	if (evp) {
		/* a copy of the names: the table owns the event */
		*evp = calloc(1, sizeof(**evp));
		memcpy(*evp, ev, sizeof(*ev));
		(*evp)->fields = malloc(sizeof(*ev->fields) * (size_t)ev->nfields);
		memcpy((*evp)->fields, ev->fields, sizeof(*ev->fields) * (size_t)ev->nfields);
		(*evp)->ops = NULL;
	}
	trawl_kernel_stream_fini(&s);
	trawl_kernel_converter_fini(&c);
	trawl_kernel_events_destroy(t);
	return ret;
}

static void put32(uint8_t *r, unsigned off, int32_t v)
{
	memcpy(r + off, &v, 4);
}

static void put64(uint8_t *r, unsigned off, int64_t v)
{
	memcpy(r + off, &v, 8);
}

static void header(uint8_t *r, uint16_t id, int32_t pid)
{
	memcpy(r, &id, 2);
	put32(r, 4, pid);
}

static int32_t get32(size_t off)
{
	int32_t v;

	memcpy(&v, last + off, 4);
	return v;
}

static int64_t get64(size_t off)
{
	int64_t v;

	memcpy(&v, last + off, 8);
	return v;
}

static const char *names(const struct trawl_kernel_event *ev)
{
	static char buf[512];
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ev->nfields && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? " " : "", ev->fields[i].name);
	return buf;
}

static void free_ev(struct trawl_kernel_event *ev)
{
	free(ev->fields);
	free(ev);
}

static void test_switch(void)
{
	struct trawl_kernel_event *ev;
	uint8_t r[64] = { 0 };

	header(r, 300, 42);
	memcpy(r + 8, "prevtask", 9);
	put32(r, 24, 42);
	put32(r, 28, 120);  /* kernel prio of a nice-0 task */
	put64(r, 32, 1);    /* TASK_INTERRUPTIBLE */
	memcpy(r + 40, "nexttask", 9);
	put32(r, 56, 43);
	put32(r, 60, 98);   /* an RT task, rt_priority 1 */
	CHECK(convert("sched", "sched_switch", switch_fmt, r, 64, NULL, &ev) == 1, "switch converted");
	CHECK(!strcmp(ev->ctf_name, "sched_switch"), "%s", ev->ctf_name);
	CHECK(!strcmp(names(ev), "prev_comm prev_tid prev_prio prev_state next_comm next_tid next_prio"),
	      "%s", names(ev));
	CHECK(last_len == 16 + 4 + 4 + 8 + 16 + 4 + 4, "len %zu", last_len);
	CHECK(!strcmp((char *)last, "prevtask"), "prev_comm");
	CHECK(get32(16) == 42 && get32(20) == 20 && get64(24) == 1, "prev %d %d", get32(16), get32(20));
	CHECK(!strcmp((char *)last + 32, "nexttask") && get32(48) == 43 && get32(52) == -2,
	      "next %d %d", get32(48), get32(52));
	free_ev(ev);
}

static void test_waking_hidden(void)
{
	int32_t trawl_tids[] = { 7, 8 };
	struct trawl_kernel_hidden h = { trawl_tids, 2, 2 };
	struct trawl_kernel_event *ev;
	uint8_t r[36] = { 0 };

	/* made by trawl's thread 7, waking program 99: kept, with LTTng's fields */
	header(r, 301, 7);
	memcpy(r + 8, "prog", 5);
	put32(r, 24, 99);
	put32(r, 28, 139);
	put32(r, 32, 1);
	CHECK(convert("sched", "sched_waking", waking_fmt, r, 36, &h, &ev) == 1,
	      "a wake-up of another program by trawl is kept");
	CHECK(!strcmp(names(ev), "comm tid prio target_cpu"), "%s", names(ev));
	CHECK(get32(16) == 99 && get32(20) == 39 && get32(24) == 1, "waking %d %d %d", get32(16),
	      get32(20), get32(24));
	free_ev(ev);
	/* trawl waking trawl: dropped */
	put32(r, 24, 8);
	CHECK(convert("sched", "sched_waking", waking_fmt, r, 36, &h, NULL) == 0,
	      "trawl waking trawl is dropped");
	/* another program waking trawl: kept */
	header(r, 301, 99);
	CHECK(convert("sched", "sched_waking", waking_fmt, r, 36, &h, NULL) == 1,
	      "a program waking trawl is kept");
}

static void test_block(void)
{
	struct trawl_kernel_event *ev;
	uint8_t r[72] = { 0 };

	header(r, 302, 555);
	put32(r, 8, (8 << 20) | 1);
	put64(r, 16, 123456);
	put32(r, 24, 8);
	put32(r, 28, 4096);
	memcpy(r + 34, "WS", 3);
	memcpy(r + 44, "dd", 3);
	put32(r, 60, (0 << 16) | 64); /* empty cmd */
	CHECK(convert("block", "block_rq_issue", rq_fmt, r, 72, NULL, &ev) == 1, "rq_issue");
	CHECK(!strcmp(names(ev), "dev sector nr_sector bytes tid rwbs comm"), "%s", names(ev));
	CHECK(get32(0) == ((8 << 20) | 1) && get64(4) == 123456 && get32(12) == 8 && get32(16) == 4096,
	      "dev/sector");
	CHECK(get32(20) == 555, "tid %d", get32(20));
	CHECK(get32(24) == (1 << 0 | 1 << 5), "rwbs WS -> %d", get32(24)); /* WRITE | SYNC */
	CHECK(!strcmp((char *)last + 28, "dd") && last_len == 44, "comm, len %zu", last_len);
	free_ev(ev);
	memcpy(r + 34, "FWFS\0\0", 6); /* preflush, write, FUA, sync */
	convert("block", "block_rq_issue", rq_fmt, r, 72, NULL, NULL);
	CHECK(get32(24) == (1 << 10 | 1 << 0 | 1 << 9 | 1 << 5), "rwbs FWFS -> %d", get32(24));
	memcpy(r + 34, "RA\0\0\0\0", 6);
	convert("block", "block_rq_issue", rq_fmt, r, 72, NULL, NULL);
	CHECK(get32(24) == (1 << 2 | 1 << 3), "rwbs RA -> %d", get32(24));
	memcpy(r + 34, "DE\0\0\0\0", 6);
	convert("block", "block_rq_issue", rq_fmt, r, 72, NULL, NULL);
	CHECK(get32(24) == (1 << 1 | 1 << 7), "rwbs DE -> %d", get32(24));
}

static void test_fork(void)
{
	struct trawl_kernel_event *ev;
	uint8_t r[48] = { 0 };

	/* child 2^30 - 3 cannot exist (pid_max <= 2^22): the record alone speaks */
	header(r, 303, 10);
	put32(r, 8, (6 << 16) | 24);
	put32(r, 12, 1073741821);
	put32(r, 16, (6 << 16) | 30);
	put32(r, 20, 1073741822);
	memcpy(r + 24, "mom\0\0\0kid\0\0\0", 12);
	CHECK(convert("sched", "sched_process_fork", fork_fmt, r, 36, NULL, &ev) == 1, "fork");
	CHECK(!strcmp(names(ev), "parent_comm parent_tid parent_pid parent_ns_inum child_comm child_tid "
				 "vtids child_pid child_ns_inum"), "%s", names(ev));
	CHECK(!strcmp((char *)last, "mom") && get32(16) == 1073741821 && get32(20) == 0 &&
	      get32(24) == 0, "parent");
	CHECK(!strcmp((char *)last + 28, "kid") && get32(44) == 1073741822, "child");
	CHECK(last[48] == 1 && get32(49) == 1073741822 && get32(53) == 0 && get32(57) == 0 &&
	      last_len == 61, "vtids/child_pid, len %zu", last_len);
	free_ev(ev);
}

static void test_names(void)
{
	struct trawl_kernel_event *ev;
	uint8_t r[40] = { 0 };

	header(r, 304, 1);
	put32(r, 8, 9);
	CHECK(convert("irq", "softirq_entry", softirq_fmt, r, 12, NULL, &ev) == 1, "softirq");
	CHECK(!strcmp(ev->ctf_name, "irq_softirq_entry") && get32(0) == 9 && last_len == 4, "%s",
	      ev->ctf_name);
	free_ev(ev);
	header(r, 305, 1);
	put64(r, 8, 77);
	put32(r, 16, 2);
	put64(r, 24, 0xcc0);
	put32(r, 32, 1);
	CHECK(convert("kmem", "mm_page_alloc", page_fmt, r, 40, NULL, &ev) == 1, "page alloc");
	CHECK(!strcmp(ev->ctf_name, "kmem_mm_page_alloc") &&
	      !strcmp(names(ev), "pfn order gfp_flags migratetype"), "%s: %s", ev->ctf_name, names(ev));
	/* gfp_flags narrowed to LTTng's 32-bit gfp_t */
	CHECK(get64(0) == 77 && get32(8) == 2 && get32(12) == 0xcc0 && get32(16) == 1 && last_len == 20,
	      "page alloc values, len %zu", last_len);
	free_ev(ev);
}

static uint64_t pkt_discarded;
static int pkts;

static int emit_count(struct trawl_kernel_stream *s, const uint8_t *pkt, size_t len, void *arg)
{
	const struct trawl_ctf_packet_start *ps = (const struct trawl_ctf_packet_start *)pkt;

	(void)s;
	(void)len;
	(void)arg;
	pkt_discarded = ps->context.events_discarded;
	pkts++;
	return 0;
}

/*
 * A record the converter cannot write (unknown id, shorter than its format,
 * torn off its page) is a lost event: counted, in events_discarded, never in
 * the first packet (readers take its count as the starting point); a
 * record of trawl's own threads is left out without being counted.
 */
static void test_unconverted(void)
{
	int32_t trawl_tids[] = { 7 };
	struct trawl_kernel_hidden h = { trawl_tids, 1, 1 };
	struct trawl_kernel_event *ev = calloc(1, sizeof(*ev));
	struct trawl_kernel_events *t = NULL;
	struct trawl_kernel_converter c;
	struct trawl_kernel_stream s;
	static const uint8_t uuid[16];
	uint8_t r[36] = { 0 }, page[16 + 48] = { 0 };

	if (!ev || trawl_kernel_event_parse("sched", "sched_waking", waking_fmt, ev) < 0 ||
	    trawl_kernel_events_create(NULL, &t) < 0) {
		CHECK(0, "setup");
		return;
	}
	trawl_kernel_events_add(t, ev, 1);
	trawl_kernel_converter_init(&c, t, uuid);
	c.hidden = &h;
	trawl_kernel_stream_init(&s, &c, 0, 8192, emit_count, NULL);
	pkts = 0;
	header(r, 301, 99);
	put32(r, 24, 98);
	CHECK(trawl_kernel_stream_convert_record(&s, 1000, r, 36, NULL) == 1, "a known record");
	header(r, 399, 99); /* no such event */
	CHECK(trawl_kernel_stream_convert_record(&s, 1001, r, 36, NULL) == 0, "unknown id");
	CHECK(pkts == 1 && pkt_discarded == 0, "packet 0 cut before the loss: %d %llu", pkts,
	      (unsigned long long)pkt_discarded);
	header(r, 301, 99);
	CHECK(trawl_kernel_stream_convert_record(&s, 1002, r, 20, NULL) == 0, "short record");
	header(r, 301, 7);
	put32(r, 24, 7);
	CHECK(trawl_kernel_stream_convert_record(&s, 1003, r, 36, NULL) == 0, "trawl's own");
	/* a page whose one record claims more bytes than the page holds */
	put64(page, 8, 48);
	put32(page, 16, 36 / 4);                    /* type_len 9: 36 bytes of data */
	put32(page, 16 + 4 + 36, 0);                /* then a type_len 0 record ... */
	put32(page, 16 + 4 + 36 + 4, 1000);         /* ... of 1000 bytes: torn */
	memcpy(page + 20, r, 36);
	put32(page + 20, 24, 98);
	header(page + 20, 301, 99);
	CHECK(trawl_kernel_stream_convert_page(&s, page, sizeof(page)) == 1, "page's whole record");
	trawl_kernel_stream_flush(&s);
	CHECK(s.unconverted == 3 && s.hidden == 1 && s.discarded == 3 && s.events == 2,
	      "unconverted %llu hidden %llu discarded %llu events %llu",
	      (unsigned long long)s.unconverted, (unsigned long long)s.hidden,
	      (unsigned long long)s.discarded, (unsigned long long)s.events);
	CHECK(pkts == 2 && pkt_discarded == 3, "last packet: %d %llu", pkts,
	      (unsigned long long)pkt_discarded);
	trawl_kernel_stream_fini(&s);
	trawl_kernel_converter_fini(&c);
	trawl_kernel_events_destroy(t);
}

int main(void)
{
	test_switch();
	test_waking_hidden();
	test_block();
	test_fork();
	test_names();
	test_unconverted();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
