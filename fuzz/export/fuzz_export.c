/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: src/export's formats (jsonl, chrome-json, perfetto,
 * timeline) written from a hostile trace. Everything they read of it
 * comes through the reader (fuzzed on its own in fuzz/reader), but the
 * exports interpret it: names and strings escaped into JSON and into the
 * timeline's HTML, sched_switch and state dump fields turned into threads
 * and CPUs (any tid, any CPU number), system calls matched, counters,
 * times going backwards or missing. The input is "METADATA TEXT \0 STREAM
 * BYTES" (fuzz/reader/make-seeds.sh packet), written as a trace folder.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static int put(const char *name, const void *p, size_t n)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ok = write(fd, p, n) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -1;
}

static void cleanup(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stream_0", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum trawl_export_format fmts[] = {TRAWL_EXPORT_JSONL, TRAWL_EXPORT_CHROME_JSON,
							TRAWL_EXPORT_PERFETTO, TRAWL_EXPORT_TIMELINE};
	const uint8_t *nul = memchr(data, 0, size);
	const char *paths[1] = {dir};
	size_t i;

	if (!nul || size > (1u << 20))
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/trawl-fuzz-export.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	if (put("metadata", data, (size_t)(nul - data)) ||
	    put("stream_0", nul + 1, size - (size_t)(nul - data) - 1))
		abort();
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct trawl_export_opts o = {.format = fmts[i], .paths = paths, .npaths = 1,
					      .output = "/dev/null", .cmd = "fuzz-export",
					      .detail = 1000};

		trawl_export_run(&o);
	}
	return 0;
}
