/* SPDX-License-Identifier: MIT */
/*
 * Waits for triggers' notifications through <trawl/ctl.h>'s notification
 * channel (triggers.py notify, bench/triggers):
 *
 *   ust-trig-notify COUNT TIMEOUT_MS TRIGGER...
 *
 * subscribes to each TRIGGER, prints "ready", then waits (poll() on the
 * channel's fd, then a receive that does not wait) for COUNT notifications,
 * TIMEOUT_MS at most in all, printing one line each:
 *
 *   TRIGGER latency_us=L captures=V1|V2|...
 *
 * (L: from the event's timestamp to its receipt here), then checks that a
 * receive with a 100 ms timeout finds no more (-ETIMEDOUT). Exits 0, or 1
 * naming what failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <trawl/ctl.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void print(const struct trawl_ctl_notification *n)
{
	uint64_t ts = trawl_ctl_notification_timestamp_ns(n), now = now_ns();
	uint32_t i;

	printf("%s latency_us=%llu captures=", trawl_ctl_notification_trigger(n),
	       (unsigned long long)(ts && now > ts ? (now - ts) / 1000 : 0));
	for (i = 0; i < trawl_ctl_notification_capture_count(n); i++)
		printf("%s%s", i ? "|" : "", trawl_ctl_notification_capture(n, i));
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct trawl_ctl_notification_channel *ch;
	struct trawl_ctl_notification *n;
	int i, got = 0, count, timeout, ret;
	uint64_t end;

	if (argc < 4) {
		fprintf(stderr, "usage: ust-trig-notify COUNT TIMEOUT_MS TRIGGER...\n");
		return 2;
	}
	count = atoi(argv[1]);
	timeout = atoi(argv[2]);
	ret = trawl_ctl_notification_channel_create(&ch);
	if (ret) {
		fprintf(stderr, "notification channel: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 3; i < argc; i++) {
		ret = trawl_ctl_notification_channel_subscribe(ch, argv[i]);
		if (ret) {
			fprintf(stderr, "subscribe %s: %s\n", argv[i], strerror(-ret));
			return 1;
		}
	}
	if (trawl_ctl_notification_channel_subscribe(ch, argv[3]) != -EEXIST) {
		fprintf(stderr, "a second subscription to %s was taken\n", argv[3]);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	end = now_ns() + (uint64_t)timeout * 1000000u;
	while (got < count && now_ns() < end) {
		struct pollfd pfd = {.fd = trawl_ctl_notification_channel_get_fd(ch), .events = POLLIN};

		if (pfd.fd < 0) {
			fprintf(stderr, "get_fd: %s\n", strerror(-pfd.fd));
			return 1;
		}
		if (poll(&pfd, 1, (int)((end - now_ns()) / 1000000u) + 1) <= 0)
			continue;
		/* several may have come in one answer: take them all */
		while ((ret = trawl_ctl_notification_channel_receive(ch, 0, &n)) == 0) {
			print(n);
			trawl_ctl_notification_destroy(n);
			got++;
		}
		if (ret != -ETIMEDOUT) {
			fprintf(stderr, "receive: %s\n", strerror(-ret));
			return 1;
		}
	}
	if (got < count) {
		fprintf(stderr, "%d of %d notifications in %d ms\n", got, count, timeout);
		return 1;
	}
	ret = trawl_ctl_notification_channel_receive(ch, 100, &n);
	if (ret != -ETIMEDOUT) {
		if (!ret)
			print(n);
		fprintf(stderr, "one notification too many (or an error: %d)\n", ret);
		return 1;
	}
	printf("dropped=%llu\n", (unsigned long long)trawl_ctl_notification_channel_dropped(ch));
	trawl_ctl_notification_channel_destroy(ch);
	return 0;
}
