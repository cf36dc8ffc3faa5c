/* SPDX-License-Identifier: MIT */
/*
 * loss.c - "stopped, but data was lost": the one line on stderr and the
 * exit status (CLI_EXIT_LOST, 11) that `stop`, `destroy` and `status` give
 * when a session's trace lacks events its programs or the kernel recorded.
 *
 * Why not 0 with a warning, as `lttng stop` does: a loss must never be
 * silent (issue 10), and a script only reads the exit status. Why not 1:
 * the command did its job (the session stopped, the trace is complete and
 * readable up to and around the gaps), so a script can tell "stopped, data
 * lost" from "could not stop" and decide for itself.
 *
 * Counted here: every domain's events discarded (full buffers, the kernel's
 * or the converter's drops, packets a full disk or a lost relayd never took,
 * events a program recorded while its daemon had not set it up: each also
 * counted in the trace's packets where it happened, which babeltrace2
 * reports as discarded events), and a stop the daemon could not complete
 * (its line says what and how much). Snapshot sessions are left out of the
 * first: overwriting the oldest data is what they are for. The line gives
 * the cause: the part of user space's count programs' tallies made (the
 * daemon dropped the program while it recorded, or set it up late:
 * src/ust/slots.c) is not a buffer too small, and is said apart.
 *
 * Run as `lttng` (argv[0], cli_as_lttng: trawl installed in LTTng's place,
 * as LTTng's own scripts call it), the status is LTTng's, 0, and the line
 * is still said: a script written for LTTng checks that stop succeeded
 * (LTTng's ust/blocking and tracefile-limits scripts fill their buffers on
 * purpose).
 */
#include "common/common.h"
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What a session's listing says of its losses. */
struct loss {
	int found, active, snapshot;
	uint64_t discarded[3]; /* by enum trawl_ctl_domain */
	uint64_t tallied;      /* of user space's, programs' tallies' */
	char output[TRAWL_CTL_PATH_MAX];
};

static int loss_read(struct trawl_ctl *ctl, const char *name, struct loss *lo)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	int ret;

	memset(lo, 0, sizeof(*lo));
	ret = trawl_ctl_list_session(ctl, name, &l);
	if (ret)
		return ret;
	n = trawl_ctl_list_count(l);
	for (i = 0; i < n; i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};
		struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};

		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_SESSION &&
		    !trawl_ctl_list_session_at(l, i, &s)) {
			lo->found = 1;
			lo->active = s.active;
			lo->snapshot = s.snapshot;
			/* for the loss line only: a cut path there is marked "..." */
			trawl_msg_fmt(lo->output, sizeof(lo->output), "%s",
				      s.output ? s.output : "");
		} else if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_DOMAIN &&
			   !trawl_ctl_list_domain_at(l, i, &d) && d.domain < 3) {
			lo->discarded[d.domain] += d.events_discarded;
			if (d.domain == TRAWL_CTL_DOMAIN_UST)
				lo->tallied += d.events_tallied;
		}
	}
	trawl_ctl_list_destroy(l);
	return lo->found ? 0 : -ENOENT;
}

/* "N events discarded (kernel K, user-space U)", or "" when none. */
static void discarded_text(const struct loss *lo, char *buf, size_t len)
{
	uint64_t k = lo->discarded[TRAWL_CTL_DOMAIN_KERNEL], u = lo->discarded[TRAWL_CTL_DOMAIN_UST];

	buf[0] = '\0';
	if (lo->snapshot || (!k && !u))
		return;
	if (k && u)
		trawl_msg_fmt(buf, len,
			      "%" PRIu64 " events discarded (kernel %" PRIu64
			      ", user space %" PRIu64 ")",
			      k + u, k, u);
	else
		trawl_msg_fmt(buf, len, "%" PRIu64 " event%s discarded in %s", k + u,
			      k + u == 1 ? "" : "s", k ? "the kernel domain" : "user space");
}

/*
 * Why @lo's discarded events were, after "where they happened": full
 * buffers (the kernel's drops, a full disk: the same advice), programs'
 * tallies (the daemon had dropped or not yet set up the program), or both.
 */
static void cause_say(const struct loss *lo)
{
	static const char full[] = "(buffers too small or the consumer too slow: see "
				   "enable-channel --subbuf-size/--num-subbuf)";
	uint64_t all = lo->discarded[TRAWL_CTL_DOMAIN_KERNEL] + lo->discarded[TRAWL_CTL_DOMAIN_UST];
	uint64_t t = lo->tallied < lo->discarded[TRAWL_CTL_DOMAIN_UST]
			     ? lo->tallied
			     : lo->discarded[TRAWL_CTL_DOMAIN_UST];

	if (!t) {
		fprintf(stderr, " %s", full);
		return;
	}
	fprintf(stderr, ": %" PRIu64 " event%s recorded while %s program was disconnected from the "
			"session daemon (or not yet set up by it)",
		t, t == 1 ? "" : "s", t == 1 ? "its" : "their");
	if (t < all)
		fprintf(stderr, ", %" PRIu64 " %s", all - t, full);
}

/*
 * Prints the line for session @name if it lost data, @failed (the daemon's
 * line for a stop it could not complete, or NULL) included; @what: "stopped
 * with data lost" or "lost data". Returns CLI_EXIT_LOST if it did, else 0.
 */
static int loss_say(const char *name, const struct loss *lo, const char *what, const char *failed)
{
	char disc[160];

	discarded_text(lo, disc, sizeof(disc));
	if (!disc[0] && !failed)
		return 0;
	fprintf(stderr, "trawl: session %s %s: %s%s%s", name, what, failed ? failed : "",
		failed && disc[0] ? "; also " : "", disc);
	if (disc[0]) {
		fprintf(stderr, ", counted in the trace%s%s where they happened", lo->output[0] ? " in " : "",
			lo->output);
		cause_say(lo);
	}
	fputc('\n', stderr);
	return cli_as_lttng && !failed ? 0 : CLI_EXIT_LOST; /* a stop not completed: never 0 */
}

int cli_loss_stop(struct trawl_ctl *ctl, const char *name, int *lost)
{
	int ret = trawl_ctl_session_stop(ctl, name);
	char failed[TRAWL_CTL_PATH_MAX + 256];
	struct loss lo;

	*lost = 0;
	/* Not stopped by this call at all: a plain failure. */
	if (ret == -ENOENT || ret == -EBUSY || ret == -ENOTCONN || ret == -EPROTO ||
	    ret == -EACCES || ret == -EPERM)
		return cli_fail(ctl, ret, "stop");
	trawl_msg_fmt(
		failed, sizeof(failed), "%s",
		ret ? (trawl_ctl_last_error(ctl)[0] ? trawl_ctl_last_error(ctl) : strerror(-ret))
		    : "");
	if (loss_read(ctl, name, &lo) || (ret && lo.active))
		return ret ? cli_fail(ctl, ret, "stop") : 0;
	/* A stop the daemon could not complete left data out of the trace. */
	*lost = loss_say(name, &lo, "stopped with data lost", ret ? failed : NULL) != 0;
	return 0;
}

int cli_loss_stop_active(struct trawl_ctl *ctl, const char *name, int *lost)
{
	struct loss lo;

	*lost = 0;
	if (loss_read(ctl, name, &lo) || !lo.active)
		return 0; /* destroy says what is wrong with it */
	return cli_loss_stop(ctl, name, lost);
}

int cli_loss_stop_all(struct trawl_ctl *ctl, int *lost)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	int ret, one;

	*lost = 0;
	if (trawl_ctl_list_sessions(ctl, &l))
		return 0; /* destroy --all says what is wrong */
	n = trawl_ctl_list_count(l);
	for (i = 0; i < n; i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		/* destroy --all destroys the caller's own sessions (sessiond's sd_cmd_destroy) */
		if (trawl_ctl_list_session_at(l, i, &s) || !s.active || s.uid != geteuid())
			continue;
		ret = cli_loss_stop(ctl, s.name, &one);
		if (ret) {
			trawl_ctl_list_destroy(l);
			return ret;
		}
		*lost |= one;
	}
	trawl_ctl_list_destroy(l);
	return 0;
}

int cli_loss_status(struct trawl_ctl *ctl, const char *name)
{
	struct loss lo;

	if (loss_read(ctl, name, &lo))
		return 0;
	return loss_say(name, &lo, lo.active ? "lost data" : "stopped with data lost", NULL);
}
