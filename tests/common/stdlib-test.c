/* SPDX-License-Identifier: MIT */
/*
 * src/common's small standard library: strbuf (pieces, printf, quoting,
 * detach, a failure remembered), trawl_array_grow (doubling, overflow
 * refused with the block kept), trawl_io (whole reads across short
 * writes, a deadline, a closed peer, SO_RCVTIMEO without a deadline),
 * trawl_daemon_start/ready (the caller exits with what the daemon says,
 * only once it said it, and 1 when the daemon dies without a word),
 * trawl_perf_counter_lookup (LTTng's raw:rHEX:NAME counters),
 * trawl_path_fmt (a cut refused, "" left) and trawl_msg_fmt (a cut marked).
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "common/common.h"
#include "common/daemon.h"
#include "common/io.h"
#include "common/strbuf.h"
#include "common/xmlw.h"
#include "../lib/check.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static void strbuf_checks(void)
{
	struct trawl_strbuf sb;
	size_t len = 0;
	char *s;
	int i;

	trawl_strbuf_init(&sb);
	s = trawl_strbuf_detach(&sb, &len);
	CHECK(s && len == 0 && !strcmp(s, ""));
	free(s);
	trawl_strbuf_add(&sb, "event {");
	trawl_strbuf_indent(&sb, 2);
	trawl_strbuf_addf(&sb, "id = %u; name = ", 7u);
	trawl_strbuf_add_quoted(&sb, "a\"b\\c\n\x01");
	s = trawl_strbuf_detach(&sb, &len);
	CHECK(s && !strcmp(s, "event {\t\tid = 7; name = \"a\\\"b\\\\c\\n\\001\"") && len == strlen(s));
	free(s);
	CHECK(sb.buf == NULL && sb.len == 0); /* empty again */
	for (i = 0; i < 10000; i++)
		trawl_strbuf_addf(&sb, "%04d", i);
	CHECK(sb.len == 40000 && !memcmp(sb.buf + 39996, "9999", 4));
	/* a failure is remembered: nothing more is added, detach says ENOMEM */
	sb.err = ENOMEM;
	trawl_strbuf_add(&sb, "more");
	CHECK(sb.len == 40000);
	errno = 0;
	CHECK(trawl_strbuf_detach(&sb, NULL) == NULL && errno == ENOMEM && sb.buf == NULL);
	trawl_strbuf_fini(&sb);
}

/* common/xmlw.c's compact mode (trawl --mi xml): one line, as LTTng's MI. */
static void xmlw_checks(void)
{
	struct trawl_xmlw w;
	char *s;

	trawl_xmlw_init(&w);
	trawl_xmlw_set_compact(&w);
	trawl_xmlw_open(&w, "a");
	trawl_xmlw_attr(&w, "k", "\"<&>\"");
	trawl_xmlw_text(&w, "e", "");  /* libxml2's: <e></e> */
	trawl_xmlw_open(&w, "empty"); /* nothing inside: <empty/> */
	trawl_xmlw_close(&w);
	trawl_xmlw_open(&w, "b");
	trawl_xmlw_text(&w, "t", "a<b & c>d");
	trawl_xmlw_close(&w);
	trawl_xmlw_u64(&w, "u", UINT64_MAX);
	trawl_xmlw_s64(&w, "i", -5);
	trawl_xmlw_bool(&w, "b", 2);
	trawl_xmlw_close(&w);
	s = trawl_xmlw_finish(&w, NULL);
	CHECK(s && !strcmp(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			      "<a k=\"&quot;&lt;&amp;&gt;&quot;\"><e></e><empty/>"
			      "<b><t>a&lt;b &amp; c&gt;d</t></b><u>18446744073709551615</u>"
			      "<i>-5</i><b>true</b></a>\n"));
	free(s);
}

static void array_checks(void)
{
	int *a = NULL, *keep;
	size_t cap = 0;

	CHECK(trawl_array_grow((void **)&a, &cap, 1, sizeof(*a), 16) == 0 && a && cap == 16);
	CHECK(trawl_array_grow((void **)&a, &cap, 16, sizeof(*a), 16) == 0 && cap == 16);
	CHECK(trawl_array_grow((void **)&a, &cap, 17, sizeof(*a), 16) == 0 && cap == 32);
	CHECK(trawl_array_grow((void **)&a, &cap, 1000, sizeof(*a), 16) == 0 && cap == 1024);
	a[999] = 5;
	keep = a;
	/* sizes that overflow are refused and leave the array alone */
	CHECK(trawl_array_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof(*a), 16) == -ENOMEM);
	CHECK(trawl_array_grow((void **)&a, &cap, SIZE_MAX, 1, 16) == -ENOMEM);
	CHECK(a == keep && cap == 1024 && a[999] == 5);
	free(a);
}

static void fmt_checks(void)
{
	char b[8], one[1];

	memset(b, 'x', sizeof(b));
	CHECK(trawl_path_fmt(b, sizeof(b), "%s/%d", "ab", 1234) == 0 && !strcmp(b, "ab/1234"));
	CHECK(trawl_path_fmt(b, sizeof(b), "%s/%d", "ab", 12345) == -ENAMETOOLONG && !b[0]);
	CHECK(trawl_path_fmt(one, sizeof(one), "%s", "") == 0 && !one[0]);
	CHECK(trawl_path_fmt(one, sizeof(one), "x") == -ENAMETOOLONG && !one[0]);
	CHECK(trawl_path_fmt(b, 0, "x") == -ENAMETOOLONG);

	CHECK(trawl_msg_fmt(b, sizeof(b), "%s", "1234567") == 0 && !strcmp(b, "1234567"));
	CHECK(trawl_msg_fmt(b, sizeof(b), "%s", "12345678") == 1 && !strcmp(b, "1234..."));
	CHECK(trawl_msg_fmt(b, 4, "%s", "abcd") == 1 && !strcmp(b, "abc"));
	CHECK(trawl_msg_fmt(b, 5, "%s", "abcde") == 1 && !strcmp(b, "a..."));
	CHECK(trawl_msg_fmt(one, sizeof(one), "x") == 1 && !one[0]);
	CHECK(trawl_msg_fmt(b, 0, "x") == 1);
}

static void io_checks(void)
{
	static char out[200000], in[200000];
	struct timeval tv = {.tv_usec = 50000};
	int sv[2], i;
	pid_t pid;

	for (i = 0; i < (int)sizeof(out); i++)
		out[i] = (char)(i * 13);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	pid = fork();
	if (pid == 0) {
		/* in pieces, slower than the reader */
		for (i = 0; i < 4; i++) {
			usleep(20000);
			if (trawl_io_send_all(sv[0], out + i * 50000, 50000))
				_exit(1);
		}
		_exit(0);
	}
	CHECK(trawl_io_recv_all(sv[1], in, sizeof(in), 5000) == 0 && !memcmp(in, out, sizeof(in)));
	CHECK(waitpid(pid, &i, 0) == pid && WIFEXITED(i) && WEXITSTATUS(i) == 0);
	CHECK(trawl_io_wait(sv[1], POLLIN, 0) == -ETIMEDOUT);
	CHECK(trawl_io_recv_all(sv[1], in, 1, 50) == -ETIMEDOUT);
	/* no deadline of ours: the socket's own SO_RCVTIMEO ends the wait */
	CHECK(setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0);
	CHECK(trawl_io_recv_all(sv[1], in, 1, -1) == -EAGAIN);
	CHECK(trawl_io_send_all(sv[0], "ab", 2) == 0);
	close(sv[0]);
	CHECK(trawl_io_recv_all(sv[1], in, 3, 1000) == -ECONNRESET);
	/* a closed peer: -EPIPE, and no SIGPIPE kills us */
	CHECK(trawl_io_send_all(sv[1], "x", 1) == -EPIPE);
	close(sv[1]);
}

/*
 * A process that daemonizes; its daemon waits for @go's byte, then says
 * @how: 'y' ready, 'n' failed, 'x' dies without a word. Returns the status
 * the daemonizing process exited with, and checks it did not exit before
 * the daemon spoke.
 */
static int daemon_case(char how)
{
	int go[2], status = -1;
	pid_t pid;

	CHECK(pipe(go) == 0);
	pid = fork();
	if (pid == 0) {
		int ready = -1;
		char c;

		close(go[1]);
		if (trawl_daemon_start(&ready))
			_exit(3);
		/* the daemon: the test's process is not its parent any more */
		if (read(go[0], &c, 1) != 1)
			_exit(4);
		if (how == 'x')
			_exit(0);
		trawl_daemon_ready(&ready, how == 'y');
		CHECK(ready == -1 && trawl_daemon_ready(&ready, 1) == 0); /* once */
		_exit(0);
	}
	close(go[0]);
	usleep(100 * 1000);
	/* the daemon has not spoken: the daemonizing process must still wait */
	CHECK(waitpid(pid, &status, WNOHANG) == 0);
	CHECK(write(go[1], "g", 1) == 1);
	close(go[1]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void daemon_checks(void)
{
	CHECK(daemon_case('y') == 0);
	CHECK(daemon_case('n') == 1);
	CHECK(daemon_case('x') == 1);
}

/* perf-counters.c: LTTng's names, and its raw:rHEX:NAME counters (PMU events by number). */
static void perf_counter_checks(void)
{
	uint32_t type = 0;
	uint64_t config = 0;

	CHECK(!trawl_perf_counter_lookup("page-fault", &type, &config) && type == PERF_TYPE_SOFTWARE &&
	      config == PERF_COUNT_SW_PAGE_FAULTS);
	CHECK(!trawl_perf_counter_lookup("raw:r0110:foo", &type, &config) && type == PERF_TYPE_RAW &&
	      config == 0x110);
	CHECK(!trawl_perf_counter_lookup("raw:rFFffFFffFFffFFff:a-b_9", &type, &config) &&
	      config == UINT64_MAX);
	/* LTTng's refusals: no r, no name, not hex, more ':'; and a name a CTF field cannot hold */
	CHECK(trawl_perf_counter_lookup("raw:0110:foo", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:r0110", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:r0110:", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:r:foo", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:rzz:foo", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:r01:a:b", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:r01:a b", &type, &config) == -ENOENT);
	CHECK(trawl_perf_counter_lookup("raw:r11111111111111111:a", &type, &config) == -ENOENT);
}

int main(void)
{
	perf_counter_checks();
	strbuf_checks();
	xmlw_checks();
	array_checks();
	fmt_checks();
	io_checks();
	daemon_checks();
	return CHECK_EXIT();
}
