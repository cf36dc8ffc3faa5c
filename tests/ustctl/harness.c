/* SPDX-License-Identifier: MIT */
/*
 * The session daemon's and consumer's side of ustctl, played by one small
 * program without trawl's daemons: accept the test app on apps.sock, check
 * its registration, make a channel with every context field (and the
 * perf:thread:page-fault counter), enable
 * tall:seq with id 3, start, say registration done, drain packets while
 * it runs, flush at the end, then check every packet and event byte by
 * byte: the context values, each thread's sequence in order in each stream,
 * every event once (none missing unless discarded), and events
 * read + discarded == written.
 * The packets also go, as they are, into a CTF trace written with ctf.h
 * (metadata from trawl_ustctl_contexts_ctf_type()), which babeltrace2 must
 * read with the same context values.
 *
 *   ustctl-harness PATH-OF-ust-app-all
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctf/ctf.h"
#include "ctf_stream.h"
#include "ctf/layout.h"
#include "ustctl/ustctl.h"

#define THREADS 2
#define EVENTS 20000
#define MAX_CPUS 64

static int fails;
static pid_t child;
/* A thread's events are in order within a stream, but it may migrate, and
 * packets of different streams are taken in any order: order is checked
 * per stream, completeness per thread. */
static uint64_t next_seq[MAX_CPUS][THREADS], per_thread[THREADS], events_read;
static uint8_t seen[THREADS][EVENTS];
static int my_nice;
/* Every context bit, then one perf counter (page-fault). */
/* Every context but the namespaces (ust-e2e-ns checks those), and a counter. */
#define CTX_BITS (TRAWL_USTCTL_CTX_ALL & ~TRAWL_USTCTL_CTX_NS_ALL)
#define CTX_SIZE (4 * 4 + 17 + 8 + 4 + 8 + 4 + 4 + 8)
static struct trawl_ctf_stream *files[MAX_CPUS];

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); fails++; } while (0)

static void check_packet(const struct trawl_ustctl_packet *pkt, uint32_t cpu)
{
	const struct trawl_ctf_packet_start *ps = pkt->data;
	const char *d = pkt->data;
	uint64_t off = sizeof(*ps);

	if (ps->header.magic != TRAWL_CTF_MAGIC || ps->header.stream_id != 7 || ps->context.cpu_id != cpu ||
	    ps->context.content_size != pkt->content_size * 8 || ps->context.packet_size != pkt->packet_size * 8)
		FAIL("packet header/context of cpu %u", cpu);
	while (off < pkt->content_size) {
		int32_t vpid, vtid, pid, tid, ppid, prio, nice;
		uint32_t id, thread;
		uint64_t pthread_id, n, ip, faults;
		char procname[17];

		if ((d[off] & 31) == 31) {
			memcpy(&id, d + off + 1, 4);
			off += 13;
		} else {
			uint32_t w;

			memcpy(&w, d + off, 4);
			id = w & 31;
			off += 4;
		}
		if (id != 3 || off + CTX_SIZE + 12 > pkt->content_size) {
			FAIL("event id %u at %llu", id, (unsigned long long)off);
			return;
		}
		memcpy(&vpid, d + off, 4);
		memcpy(&vtid, d + off + 4, 4);
		memcpy(&pid, d + off + 8, 4);
		memcpy(&tid, d + off + 12, 4);
		memcpy(procname, d + off + 16, 17);
		memcpy(&pthread_id, d + off + 33, 8);
		memcpy(&ppid, d + off + 41, 4);
		memcpy(&ip, d + off + 45, 8);
		memcpy(&prio, d + off + 53, 4);
		memcpy(&nice, d + off + 57, 4);
		memcpy(&faults, d + off + 61, 8);
		memcpy(&thread, d + off + 69, 4);
		memcpy(&n, d + off + 73, 8);
		off += CTX_SIZE + 12;
		if (vpid != child || pid != child || vtid <= 0 || tid != vtid || ppid != getpid() || !pthread_id || !ip ||
		    procname[16] || strcmp(procname, "ust-app-all"))
			FAIL("context: vpid %d pid %d vtid %d tid %d ppid %d procname '%.17s'", vpid, pid, vtid, tid, ppid,
			     procname);
		if (nice != my_nice || prio != 20 + my_nice)
			FAIL("context: prio %d nice %d, want %d %d", prio, nice, 20 + my_nice, my_nice);
		/* The thread's own page-fault counter, opened (its order across
		 * streams is not the harness's to check: e2e.py contexts). */
		if (faults == TRAWL_USTCTL_COUNTER_UNAVAILABLE)
			FAIL("thread %u: page-fault counter unavailable", thread);
		/* Gaps only where events were discarded; never back in a
		 * stream, never twice. */
		if (thread >= THREADS || n >= EVENTS || n < next_seq[cpu][thread] || seen[thread][n]) {
			FAIL("thread %u: event %llu on cpu %u, expected %llu or more, once", thread,
			     (unsigned long long)n, cpu,
			     thread < THREADS ? (unsigned long long)next_seq[cpu][thread] : 0ull);
			return;
		}
		seen[thread][n] = 1;
		next_seq[cpu][thread] = n + 1;
		per_thread[thread]++;
		events_read++;
	}
}

static void drain(struct trawl_ustctl_stream **streams, uint32_t nr)
{
	struct trawl_ustctl_packet pkt;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		int ret;

		while ((ret = trawl_ustctl_stream_get_packet(streams[i], &pkt)) != -EAGAIN) {
			if (ret) {
				FAIL("get_packet: %s", strerror(-ret));
				break;
			}
			check_packet(&pkt, i);
			if (files[i] && trawl_ctf_stream_append_packet(files[i], pkt.data, pkt.content_size))
				FAIL("append_packet");
			trawl_ustctl_stream_put_packet(streams[i]);
		}
	}
}

/*
 * The app may register before its providers' constructors ran, then again
 * with them (it drops the earlier connection): takes the next registration
 * that offers tall:seq.
 */
static struct trawl_ustctl_app *accept_app(int lfd)
{
	struct trawl_ustctl_app *app;
	struct pollfd pfd;
	uint32_t i;
	int fd, ret;

	for (;;) {
		pfd.fd = lfd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 10000) != 1 || (fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			FAIL("the app did not connect");
			return NULL;
		}
		ret = trawl_ustctl_app_accept(fd, &app);
		if (ret) {
			FAIL("accept: %s", strerror(-ret));
			return NULL;
		}
		for (i = 0; i < trawl_ustctl_app_event_count(app); i++)
			if (!strcmp(trawl_ustctl_app_event(app, i)->name, "tall:seq"))
				return app;
		trawl_ustctl_app_destroy(app);
	}
}

static uint32_t event_index(struct trawl_ustctl_app *app, const char *name)
{
	uint32_t i;

	for (i = 0; i < trawl_ustctl_app_event_count(app); i++)
		if (!strcmp(trawl_ustctl_app_event(app, i)->name, name))
			return i;
	return UINT32_MAX;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/trawl-ustctl-harness.XXXXXX", run[64], none[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct trawl_ustctl_stream *streams[MAX_CPUS];
	struct trawl_ustctl_channel_attr attr = { 0 };
	const struct trawl_ustctl_app_info *info;
	struct trawl_ustctl_channel *chan;
	struct trawl_ustctl_app *app;
	struct pollfd pfd;
	uint32_t i, seq_index = UINT32_MAX;
	uint64_t discarded = 0;
	int lfd, status, ret, tries;
	struct trawl_ctf_event_class_desc evdesc = { "tall:seq", 3, 7, -1, NULL };
	struct trawl_ctf_trace *trace = NULL;
	struct trawl_ctf_type *payload;
	char tdir[96], path[128], cmd2[160];
	struct trawl_ustctl_contexts ctxs = { .bits = CTX_BITS, .nr_counters = 1 };

	/* The app inherits our nice value. */
	errno = 0;
	my_nice = getpriority(PRIO_PROCESS, 0);
	if (errno || trawl_ustctl_counter_lookup("page-fault", &ctxs.counters[0]))
		return 2;
	{
		/* a raw PMU counter's field is named as LTTng names it */
		struct trawl_ustctl_counter raw;

		if (trawl_ustctl_counter_lookup("raw:r0110:foo", &raw) ||
		    strcmp(raw.name, "perf_thread_raw_r0110_foo") || raw.config != 0x110 ||
		    !trawl_ustctl_counter_is_hardware(&raw))
			FAIL("raw counter: field %s config %llx", raw.name, (unsigned long long)raw.config);
	}
	if (argc < 2 || !mkdtemp(dir))
		return 2;
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(none, sizeof(none), "%s/none", dir);
	mkdir(run, 0700);
	setenv("TRAWL_RUNTIME_DIR", run, 1);
	setenv("TRAWL_ROOT_RUNTIME_DIR", none, 1);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/apps.sock", run);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4))
		return 2;
	child = fork();
	if (child == 0) {
		execl(argv[1], "ust-app-all", "2", "20000", "10000", (char *)NULL);
		_exit(127);
	}
	app = accept_app(lfd);
	if (!app)
		goto out;
	info = trawl_ustctl_app_info(app);
	if (info->pid != child || info->ppid != getpid() || info->bits_per_long != sizeof(long) * 8 ||
	    strcmp(info->procname, "ust-app-all"))
		FAIL("registration: pid %d ppid %d bits %u procname %s", info->pid, info->ppid, info->bits_per_long,
		     info->procname);
	for (i = 0; i < trawl_ustctl_app_event_count(app); i++) {
		const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(app, i);

		if (!strcmp(ev->name, "tall:seq"))
			seq_index = i;
		if (!strcmp(ev->name, "tall:first") && ev->loglevel != 4)
			FAIL("tall:first loglevel %d", ev->loglevel);
	}
	if (seq_index == UINT32_MAX) {
		FAIL("no tall:seq");
		goto out_app;
	} else {
		const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(app, seq_index);

		if (ev->nr_fields != 2 || strcmp(ev->fields[0].name, "thread") || ev->fields[0].size_bits != 32 ||
		    ev->fields[0].is_signed || strcmp(ev->fields[1].name, "n") || ev->fields[1].size_bits != 64)
			FAIL("tall:seq fields");
	}
	attr.subbuf_size = 65536;
	attr.num_subbuf = 4;
	attr.nr_streams = trawl_ustctl_possible_cpus();
	if (attr.nr_streams > MAX_CPUS)
		attr.nr_streams = MAX_CPUS;
	attr.stream_id = 7;
	/* The trace these packets go to. */
	trace = trawl_ctf_trace_create(0);
	payload = trawl_ctf_type_struct_create(8);
	if (!trace || trawl_ctf_trace_add_monotonic_clock(trace) ||
	    trawl_ctf_trace_add_stream_class(trace, 7, TRAWL_CTF_HEADER_COMPACT,
					     trawl_ustctl_contexts_ctf_type(&ctxs), "monotonic") ||
	    !payload || trawl_ctf_type_struct_add(payload, "thread", trawl_ctf_type_integer_create(32, 0, 8)) ||
	    trawl_ctf_type_struct_add(payload, "n", trawl_ctf_type_integer_create(64, 0, 8)) ||
	    trawl_ctf_trace_add_event_class(trace, &evdesc, payload)) {
		FAIL("ctf trace description");
		goto out_app;
	}
	snprintf(tdir, sizeof(tdir), "%s/trace", dir);
	mkdir(tdir, 0700);
	snprintf(path, sizeof(path), "%s/metadata", tdir);
	if (trawl_ctf_trace_write_metadata(trace, path, 0))
		FAIL("metadata");
	memcpy(attr.uuid, trawl_ctf_trace_uuid(trace), 16);
	ret = trawl_ustctl_channel_create(&attr, &chan);
	if (ret) {
		FAIL("channel_create: %s", strerror(-ret));
		goto out_app;
	}
	for (i = 0; i < attr.nr_streams; i++) {
		char name[32];

		snprintf(name, sizeof(name), "chan_%u", i);
		files[i] = trawl_ctf_stream_create(trace, 7, tdir, name, i, i, attr.subbuf_size);
		ret = trawl_ustctl_stream_map(dup(trawl_ustctl_channel_stream_fd(chan, i)), &attr, i, i, &streams[i]);
		if (ret) {
			FAIL("stream_map: %s", strerror(-ret));
			goto out_app;
		}
	}
	if (trawl_ustctl_context_size(CTX_BITS) != 61 || trawl_ustctl_contexts_size(&ctxs) != CTX_SIZE ||
	    trawl_ustctl_context_size(TRAWL_USTCTL_CTX_ALL) != 61 + 8 * 8)
		FAIL("context size %u", trawl_ustctl_context_size(TRAWL_USTCTL_CTX_ALL));
	for (tries = 0;; tries++) {
		ret = 0;
		if ((ret = trawl_ustctl_app_send_channel_ctxs(app, chan, 1, 10, &ctxs)) ||
		    (ret = trawl_ustctl_app_send_channel_ctx(app, chan, 1, 10, 0)) != -EEXIST ||
		    (ret = trawl_ustctl_app_enable_event(app, 10, seq_index, 3)) ||
		    (ret = trawl_ustctl_app_enable_event(app, 11, seq_index, 3)) != -ENOENT ||
		    (ret = trawl_ustctl_app_start(app, 1)) ||
		    /* End of the setup: the app's constructor, waiting, returns. */
		    (ret = trawl_ustctl_app_registration_done(app))) {
			/* A provider registered late (a loaded host): the app
			 * dropped this connection to register again. */
			if ((ret == -ECONNRESET || ret == -EPIPE) && tries < 5) {
				trawl_ustctl_app_destroy(app);
				app = accept_app(lfd);
				if (!app)
					goto out;
				seq_index = event_index(app, "tall:seq");
				continue;
			}
			FAIL("commands: %s", strerror(-ret));
			goto out_app;
		}
		break;
	}
	/* Drain every 1 ms while the app runs, as a consumer would. */
	while (waitpid(child, &status, WNOHANG) == 0) {
		drain(streams, attr.nr_streams);
		usleep(1000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		FAIL("the app failed: status %d", status);
	/* The app is gone: its socket says so. */
	pfd.fd = trawl_ustctl_app_fd(app);
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 1000) != 1)
		FAIL("the app's exit is not seen on its socket");
	for (i = 0; i < attr.nr_streams; i++) {
		struct trawl_ustctl_stream_counters k;

		while ((ret = trawl_ustctl_stream_flush(streams[i], 1)) == -EAGAIN)
			drain(streams, attr.nr_streams);
		drain(streams, attr.nr_streams);
		trawl_ustctl_stream_counters(streams[i], &k);
		discarded += k.events_discarded;
		if (k.packets_corrupt)
			FAIL("%llu corrupt packets", (unsigned long long)k.packets_corrupt);
	}
	printf("ustctl harness: %llu events read, %llu discarded, of %d\n", (unsigned long long)events_read,
	       (unsigned long long)discarded, THREADS * EVENTS);
	if (events_read + discarded != THREADS * EVENTS)
		FAIL("accounting: %llu + %llu != %d", (unsigned long long)events_read, (unsigned long long)discarded,
		     THREADS * EVENTS);
	if (!discarded)
		for (i = 0; i < THREADS; i++)
			if (per_thread[i] != EVENTS || events_read != THREADS * EVENTS)
				FAIL("thread %u: %llu events", i, (unsigned long long)per_thread[i]);
	for (i = 0; i < attr.nr_streams; i++) {
		trawl_ustctl_stream_unmap(streams[i]);
		if (trawl_ctf_stream_close(files[i]))
			FAIL("stream close");
	}
	trawl_ustctl_channel_destroy(chan);
	/* babeltrace2, the independent reader, sees the same context values. */
	if (!access("/usr/bin/babeltrace2", X_OK)) {
		char cmd[512], want[128], line[1024];
		unsigned long lines = 0, good = 0;
		FILE *f;

		/* Its discarded-events warnings go to stderr: not mixed into the lines. */
		snprintf(cmd, sizeof(cmd), "babeltrace2 %s 2>/dev/null", tdir);
		snprintf(want, sizeof(want), "{ vpid = %d, vtid = ", (int)child);
		f = popen(cmd, "r");
		while (f && fgets(line, sizeof(line), f)) {
			lines++;
			if (strstr(line, "tall:seq") && strstr(line, want) && strstr(line, "procname = \"ust-app-all\"") &&
			    strstr(line, "pthread_id = 0x") && strstr(line, "ip = 0x"))
				good++;
			else if (strstr(line, "tall:seq") && lines - good < 4)
				fprintf(stderr, "unexpected: %s", line);
		}
		if (f)
			pclose(f);
		printf("babeltrace2: %lu lines, %lu with the expected context\n", lines, good);
		if (good != events_read)
			FAIL("babeltrace2 read %lu good events of %llu", good, (unsigned long long)events_read);
	}
	trawl_ctf_trace_destroy(trace);
	trace = NULL;
	snprintf(cmd2, sizeof(cmd2), "rm -rf %s", tdir);
	if (system(cmd2))
		FAIL("cleanup");
out_app:
	trawl_ustctl_app_destroy(app);
out:
	if (child > 0 && waitpid(child, NULL, WNOHANG) == 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	unlink(sa.sun_path);
	rmdir(run);
	rmdir(dir);
	close(lfd);
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
