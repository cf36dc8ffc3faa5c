/* SPDX-License-Identifier: MIT */
/*
 * The public API of libtrawl-reader (<trawl/reader.h>) over a corpus trace:
 * every event comes out, in babeltrace2's order, with the name, time and
 * field text babeltrace2 prints (compared with the corpus' expected output),
 * seeking lands on the first event at or after the time asked, and bad
 * paths give one-line errors.
 *
 * Usage: reader-api CORPUS_DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trawl/reader.h>

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #c);                                \
			exit(1);                                              \
		}                                                             \
	} while (0)

int main(int argc, char **argv)
{
	char path[4096], exp_path[4096], line[8192];
	const char *paths[1] = { path };
	struct trawl_reader *r;
	FILE *exp;
	int64_t ns, first_ns = 0, mid_ns = 0;
	int n = 0, ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/succeed/wk-heartbeat-u", argv[1]);
	snprintf(exp_path, sizeof(exp_path), "%s/expected/wk-heartbeat-u.txt", argv[1]);
	exp = fopen(exp_path, "r");
	CHECK(exp);
	CHECK(trawl_reader_open(paths, 1, &r) == 0);
	CHECK(strcmp(trawl_reader_error(r), "") == 0);
	while ((ret = trawl_reader_next(r)) > 0) {
		const char *text, *name = trawl_reader_event_name(r), *body;
		size_t len;

		CHECK(fgets(line, sizeof(line), exp));
		line[strcspn(line, "\n")] = '\0';
		CHECK(strcmp(name, "heartbeat:msg") == 0);
		CHECK(trawl_reader_event_time_ns(r, &ns) == 0);
		if (n == 0)
			first_ns = ns;
		if (n == 10)
			mid_ns = ns;
		CHECK(ns >= first_ns);
		CHECK(trawl_reader_event_text(r, &text, &len) == 0);
		/* the expected line ends with "NAME: " then the fields */
		body = strstr(line, "heartbeat:msg: ");
		CHECK(body);
		body += strlen("heartbeat:msg: ");
		if (strlen(body) != len || memcmp(body, text, len) != 0) {
			fprintf(stderr, "event %d: got   %.*s\n         want  %s\n", n,
				(int)len, text, body);
			return 1;
		}
		n++;
	}
	CHECK(ret == 0);
	CHECK(n == 20);
	CHECK(!fgets(line, sizeof(line), exp));
	fclose(exp);

	/* seek to the 11th event's time: it comes next */
	CHECK(trawl_reader_seek_ns(r, mid_ns) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == 0);
	CHECK(ns == mid_ns);
	/* before the start: the first event */
	CHECK(trawl_reader_seek_ns(r, first_ns - 1000000000) == 0);
	CHECK(trawl_reader_next(r) == 1);
	CHECK(trawl_reader_event_time_ns(r, &ns) == 0 && ns == first_ns);
	/* after the end: nothing */
	CHECK(trawl_reader_seek_ns(r, INT64_MAX) == 0);
	CHECK(trawl_reader_next(r) == 0);
	trawl_reader_destroy(r);

	/* errors: one line naming the path */
	snprintf(path, sizeof(path), "%s/does-not-exist", argv[1]);
	CHECK(trawl_reader_open(paths, 1, &r) == -ENOENT);
	CHECK(strstr(trawl_reader_error(r), "does-not-exist"));
	CHECK(!strchr(trawl_reader_error(r), '\n'));
	trawl_reader_destroy(r);
	snprintf(path, sizeof(path), "%s/fail/fail2", argv[1]);
	CHECK(trawl_reader_open(paths, 1, &r) < 0);
	CHECK(strstr(trawl_reader_error(r), "metadata"));
	trawl_reader_destroy(r);
	printf("reader API: 20 events as babeltrace2 prints them, seeking, errors: ok\n");
	return 0;
}
