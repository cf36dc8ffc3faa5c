/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the kernel backend's parsers of outside data:
 *   first byte even: the rest is a raw ring-buffer page converted to CTF
 *                    against three fixed formats (fixed fields, a char
 *                    array, a __data_loc string, a __rel_loc byte sequence);
 *   first byte odd:  the rest is tracefs format text, parsed into fields and a plan;
 *   first byte 2 mod 4 (perf): byte 1 places the data in a 4 KiB perf ring
 *                    (so that records wrap), the rest is the ring's records
 *                    (samples of the same three events with two counter
 *                    values, lost records, others) read as perf.c reads them.
 * No tracefs or perf access: the event table and the ring are filled by hand.
 */
#include "kernel/internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = {
	"ID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:44;\tsize:4;\tsigned:1;\n",
	"ID: 2\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n",
	"ID: 3\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:__rel_loc u8[] buf;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n",
};
static const char *const names[][2] = {
	{ "sched", "sched_switch" }, { "sched", "sched_process_exec" }, { "test", "bytes" },
};

static int emit(struct trawl_kernel_stream *s, const uint8_t *pkt, size_t len, void *arg)
{
	(void)s;
	(void)arg;
	/* copy every byte so ASan sees out-of-bounds output */
	uint8_t *copy = malloc(len);

	if (copy) {
		memcpy(copy, pkt, len);
		free(copy);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trawl_kernel_events *t;
	static struct trawl_kernel_converter conv;
	struct trawl_kernel_stream s;
	static const uint8_t uuid[16];

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		struct trawl_kernel_event ev;
		char *text = malloc(size);

		if (!text)
			return 0;
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		if (trawl_kernel_event_parse("syscalls", "sys_enter_x", text, &ev) == 0)
			trawl_kernel_event_fini(&ev);
		free(text);
		return 0;
	}
	if (!t) {
		trawl_kernel_events_create("none", &t);
		for (int i = 0; i < 3; i++) {
			struct trawl_kernel_event *ev = calloc(1, sizeof(*ev));

			if (trawl_kernel_event_parse(names[i][0], names[i][1], formats[i], ev))
				abort();
			trawl_kernel_events_add(t, ev, 1);
		}
		trawl_kernel_converter_init(&conv, t, uuid);
		conv.ctx[0] = TRAWL_KCTX_TID;
		conv.nctx = 1;
	}
	if ((data[0] & 3) == 2) {
		static const uint16_t ids[] = { 1, 2, 3 };
		static struct trawl_kernel_converter pconv;
		struct trawl_kernel_perf *p;

		if (size < 2)
			return 0;
		if (!pconv.events) {
			trawl_kernel_converter_init(&pconv, t, uuid);
			pconv.ctx[0] = TRAWL_KCTX_TID;
			pconv.ctx[1] = TRAWL_KCTX_PERF;
			pconv.ctx[2] = TRAWL_KCTX_PERF + 1;
			pconv.nctx = 3;
		}
		if (trawl_kernel_perf_create_fake(2, ids, 3, 4096, &p) < 0)
			return 0;
		if (trawl_kernel_stream_init(&s, &pconv, 0, 8192, emit, NULL) == 0) {
			trawl_kernel_perf_fake_fill(p, (uint64_t)data[1] * 16, data + 2, size - 2);
			trawl_kernel_perf_drain(p, 0, &s, 0);
			trawl_kernel_stream_flush(&s);
			trawl_kernel_stream_fini(&s);
		}
		trawl_kernel_perf_destroy(p);
		return 0;
	}
	if (trawl_kernel_stream_init(&s, &conv, 0, 8192, emit, NULL) < 0)
		return 0;
	trawl_kernel_stream_convert_page(&s, data + 1, size - 1);
	trawl_kernel_stream_flush(&s);
	trawl_kernel_stream_fini(&s);
	return 0;
}
