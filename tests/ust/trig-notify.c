/* SPDX-License-Identifier: MIT */
/*
 * Waits for triggers' notifications through <trawl/ctl.h>'s notification
 * channel (triggers.py notify, bench/triggers):
 *
 *   ust-trig-notify [-t] COUNT TIMEOUT_MS TRIGGER...
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
 *
 * With -t, each capture's typed value (trawl_ctl_capture_value) follows,
 * one line each, "  typed=V": "?" (unavailable), "u:N" and "i:N"
 * (integers), "U:N" and "E:N" (enumerations), "r:%.17g" (reals), "t:S"
 * (strings: printable ASCII as is, '\' and other bytes as \xHH), or
 * "a:V,V,..." (arrays: their elements' V). Every getter of another type is
 * checked to refuse the value (exit 1 if one does not).
 *
 *   ust-trig-notify -l TIMEOUT_MS TRIGGER
 *
 * (security-triggers-fair) takes TRIGGER's notifications, after "ready",
 * until receive() says some were lost (TRAWL_CTL_NOTIFICATIONS_DROPPED),
 * TIMEOUT_MS at most, then prints "lost got=N dropped=D" (notifications
 * taken before, the channel's count of those lost) and exits 0; 1 if no
 * loss was said in time.
 *
 *   ust-trig-notify -a TOTALFILE TIMEOUT_MS TRIGGER
 *
 * (security-capture-flood) takes TRIGGER's notifications, after "ready",
 * until TOTALFILE holds a number E (the hits the programs fired) and the
 * notifications taken plus the channel's count of those lost reach E, then
 * takes what else comes within 100 ms, prints the first notification (as
 * above) and "all got=N dropped=D captures=C" (C: the fewest captures a
 * notification had, and the most, "C-C2" if they differ), and exits 0; 1
 * if E was not reached within TIMEOUT_MS.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <trawl/ctl.h>

static int typed;

/* Exits if a getter of another type than @v's takes it. */
static void refusals(const struct trawl_ctl_capture_value *v)
{
	enum trawl_ctl_capture_type t = trawl_ctl_capture_value_type(v);
	uint64_t u;
	int64_t s;
	double r;
	int ok_u = t == TRAWL_CTL_CAPTURE_UNSIGNED_INT || t == TRAWL_CTL_CAPTURE_UNSIGNED_ENUM;
	int ok_s = t == TRAWL_CTL_CAPTURE_SIGNED_INT || t == TRAWL_CTL_CAPTURE_SIGNED_ENUM;

	if ((trawl_ctl_capture_value_unsigned(v, &u) == 0) != ok_u ||
	    (trawl_ctl_capture_value_signed(v, &s) == 0) != ok_s ||
	    (trawl_ctl_capture_value_real(v, &r) == 0) != (t == TRAWL_CTL_CAPTURE_REAL) ||
	    (trawl_ctl_capture_value_string(v) != NULL) != (t == TRAWL_CTL_CAPTURE_STRING) ||
	    (t != TRAWL_CTL_CAPTURE_ARRAY && trawl_ctl_capture_value_array_length(v)) ||
	    trawl_ctl_capture_value_array_element(v, trawl_ctl_capture_value_array_length(v))) {
		fprintf(stderr, "a value of type %d is taken by another type's getter\n", (int)t);
		exit(1);
	}
}

static void print_value(const struct trawl_ctl_capture_value *v)
{
	const unsigned char *p;
	uint64_t u = 0;
	int64_t s = 0;
	double r = 0;
	uint32_t i;

	refusals(v);
	switch (trawl_ctl_capture_value_type(v)) {
	case TRAWL_CTL_CAPTURE_UNSIGNED_INT:
	case TRAWL_CTL_CAPTURE_UNSIGNED_ENUM:
		trawl_ctl_capture_value_unsigned(v, &u);
		printf("%c:%llu",
		       trawl_ctl_capture_value_type(v) == TRAWL_CTL_CAPTURE_UNSIGNED_INT ? 'u' : 'U',
		       (unsigned long long)u);
		break;
	case TRAWL_CTL_CAPTURE_SIGNED_INT:
	case TRAWL_CTL_CAPTURE_SIGNED_ENUM:
		trawl_ctl_capture_value_signed(v, &s);
		printf("%c:%lld", trawl_ctl_capture_value_type(v) == TRAWL_CTL_CAPTURE_SIGNED_INT ? 'i' : 'E',
		       (long long)s);
		break;
	case TRAWL_CTL_CAPTURE_REAL:
		trawl_ctl_capture_value_real(v, &r);
		printf("r:%.17g", r);
		break;
	case TRAWL_CTL_CAPTURE_STRING:
		printf("t:");
		for (p = (const unsigned char *)trawl_ctl_capture_value_string(v); *p; p++)
			printf(*p >= 0x20 && *p < 0x7f && *p != '\\' ? "%c" : "\\x%02x", *p);
		break;
	case TRAWL_CTL_CAPTURE_ARRAY:
		printf("a:");
		for (i = 0; i < trawl_ctl_capture_value_array_length(v); i++) {
			if (i)
				printf(",");
			print_value(trawl_ctl_capture_value_array_element(v, i));
		}
		break;
	default:
		printf("?");
	}
}

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
	for (i = 0; typed && i < trawl_ctl_notification_capture_count(n); i++) {
		printf("  typed=");
		print_value(trawl_ctl_notification_capture_value(n, i));
		printf("\n");
	}
	if (trawl_ctl_notification_capture_value(n, trawl_ctl_notification_capture_count(n))) {
		fprintf(stderr, "a value past the last capture\n");
		exit(1);
	}
	fflush(stdout);
}

/* -l: until a loss is said (see the top). */
static int until_lost(int timeout, const char *trigger)
{
	struct trawl_ctl_notification_channel *ch;
	struct trawl_ctl_notification *n;
	uint64_t end = now_ns() + (uint64_t)timeout * 1000000u;
	int ret, got = 0;

	ret = trawl_ctl_notification_channel_create(&ch);
	if (!ret)
		ret = trawl_ctl_notification_channel_subscribe(ch, trigger);
	if (ret) {
		fprintf(stderr, "notification channel: %s\n", strerror(-ret));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (now_ns() < end) {
		ret = trawl_ctl_notification_channel_receive(ch, 100, &n);
		if (ret == TRAWL_CTL_NOTIFICATIONS_DROPPED) {
			printf("lost got=%d dropped=%llu\n", got,
			       (unsigned long long)trawl_ctl_notification_channel_dropped(ch));
			trawl_ctl_notification_channel_destroy(ch);
			return 0;
		}
		if (!ret) {
			trawl_ctl_notification_destroy(n);
			got++;
		} else if (ret != -ETIMEDOUT) {
			fprintf(stderr, "receive: %s\n", strerror(-ret));
			return 1;
		}
	}
	fprintf(stderr, "no loss said in %d ms (%d notifications, dropped=%llu)\n", timeout, got,
		(unsigned long long)trawl_ctl_notification_channel_dropped(ch));
	return 1;
}

/* E from @path, or -1 while it is not written. */
static long long total_of(const char *path)
{
	FILE *f = fopen(path, "r");
	long long e = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &e) != 1)
		e = -1;
	fclose(f);
	return e;
}

/* -a: every hit, delivered or counted lost (see the top). */
static int all_of(const char *total_file, int timeout, const char *trigger)
{
	struct trawl_ctl_notification_channel *ch;
	struct trawl_ctl_notification *n;
	uint64_t end = now_ns() + (uint64_t)timeout * 1000000u;
	long long got = 0, e = -1, lost;
	uint32_t cmin = UINT32_MAX, cmax = 0;
	int ret, done = 0;

	ret = trawl_ctl_notification_channel_create(&ch);
	if (!ret)
		ret = trawl_ctl_notification_channel_subscribe(ch, trigger);
	if (ret) {
		fprintf(stderr, "notification channel: %s\n", strerror(-ret));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (now_ns() < end) {
		ret = trawl_ctl_notification_channel_receive(ch, 100, &n);
		if (!ret) {
			uint32_t c = trawl_ctl_notification_capture_count(n);

			if (!got)
				print(n);
			cmin = c < cmin ? c : cmin;
			cmax = c > cmax ? c : cmax;
			trawl_ctl_notification_destroy(n);
			got++;
			continue;
		}
		if (ret != TRAWL_CTL_NOTIFICATIONS_DROPPED && ret != -ETIMEDOUT) {
			fprintf(stderr, "receive: %s\n", strerror(-ret));
			return 1;
		}
		if (done && ret == -ETIMEDOUT)
			break; /* E reached, and nothing more came */
		if (e < 0)
			e = total_of(total_file);
		if (e >= 0 && got + (long long)trawl_ctl_notification_channel_dropped(ch) >= e)
			done = 1;
	}
	lost = (long long)trawl_ctl_notification_channel_dropped(ch);
	trawl_ctl_notification_channel_destroy(ch);
	printf("all got=%lld dropped=%lld captures=", got, lost);
	printf(cmin == cmax ? "%u\n" : "%u-%u\n", got ? cmin : 0, cmax);
	if (!done) {
		fprintf(stderr, "%lld notified or lost of %lld in %d ms\n", got + lost, e, timeout);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct trawl_ctl_notification_channel *ch;
	struct trawl_ctl_notification *n;
	int i, got = 0, count, timeout, ret, marks = 0;
	uint64_t end;

	if (argc == 4 && !strcmp(argv[1], "-l"))
		return until_lost(atoi(argv[2]), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "-a"))
		return all_of(argv[2], atoi(argv[3]), argv[4]);
	if (argc > 1 && !strcmp(argv[1], "-t")) {
		typed = 1;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: ust-trig-notify [-t] COUNT TIMEOUT_MS TRIGGER...\n");
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
		/* several may have come in one answer: take them all (a loss
		 * is said in turn, on stderr: stdout has notifications only) */
		while ((ret = trawl_ctl_notification_channel_receive(ch, 0, &n)) >= 0) {
			if (ret == TRAWL_CTL_NOTIFICATIONS_DROPPED) {
				if (n) {
					fprintf(stderr, "a loss came with a notification\n");
					return 1;
				}
				fprintf(stderr, "notifications dropped\n");
				marks++;
				continue;
			}
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
	while ((ret = trawl_ctl_notification_channel_receive(ch, 100, &n)) ==
	       TRAWL_CTL_NOTIFICATIONS_DROPPED)
		marks++;
	if (ret != -ETIMEDOUT) {
		if (!ret)
			print(n);
		fprintf(stderr, "one notification too many (or an error: %d)\n", ret);
		return 1;
	}
	/* every loss counted was said (in one mark or more), and no mark came without one */
	if (!trawl_ctl_notification_channel_dropped(ch) != !marks) {
		fprintf(stderr, "%llu dropped, %d marks\n",
			(unsigned long long)trawl_ctl_notification_channel_dropped(ch), marks);
		return 1;
	}
	printf("dropped=%llu\n", (unsigned long long)trawl_ctl_notification_channel_dropped(ch));
	trawl_ctl_notification_channel_destroy(ch);
	return 0;
}
