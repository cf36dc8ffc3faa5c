/* SPDX-License-Identifier: MIT */
/*
 * ust-status.c - what the user-space domain reports: a session's status
 * and its channels' counters (asked of the consumer without waiting), and
 * the events the registered apps offer (`list -u`).
 */
#include "common/common.h"
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

static const char *field_type_name(const struct trawl_ustctl_field *f)
{
	static const char *const names[] = {"?", "integer", "float", "string", "array",
					    "sequence", "enum"};

	return f->type <= TRAWL_USTCTL_FIELD_ENUM ? names[f->type] : "?";
}

int ust_list_events(enum trawl_ctl_event_kind kind, int with_fields,
			   trawl_domain_list_cb cb, void *arg, struct trawl_domain_err *err)
{
	struct trawl_domain_field_desc fd[64];
	struct ust_app *a;
	uint32_t e, i;
	int ret;

	if (kind != TRAWL_CTL_EVENT_TRACEPOINT)
		return 0;
	for (a = apps; a; a = a->next) {
		for (e = 0; e < trawl_ustctl_app_event_count(a->h); e++) {
			const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(a->h, e);
			struct trawl_domain_event_desc d = {
				.name = ev->name,
				.kind = TRAWL_CTL_EVENT_TRACEPOINT,
				.loglevel = ev->loglevel,
				.pid = a->info.pid,
				.fields = fd,
			};

			for (i = 0; with_fields && i < ev->nr_fields && i < 64; i++) {
				fd[i].name = ev->fields[i].name;
				fd[i].type = field_type_name(&ev->fields[i]);
			}
			d.nr_fields = i;
			ret = cb(arg, &d);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* A consumer that died is known at once (its socket may not say so yet). */
static void ust_reap(struct trawl_domain_session *s)
{
	int status;

	if (cons_alive(s) && waitpid(s->cons->pid, &status, WNOHANG) == s->cons->pid)
		cons_dead(s->cons, 1, status);
}

/*
 * Streaming problems (relayd gone) and the counters are only known to the
 * consumer: `trawl status` asks it, without waiting (a consumer streaming
 * to a slow relayd answers between rounds of draining, 5 s apart: the
 * daemon's loop must not wait that long), and is answered once its reply
 * is in (cmd-list.c). Not while it drains a stop: the counters as of
 * its last answer then.
 */
int ust_status_ask(struct trawl_domain_session *s)
{
	ust_reap(s);
	if (!cons_alive(s) || !s->traces || cons_busy(s))
		return 0;
	return cons_status_ask(s);
}

int ust_status_pending(struct trawl_domain_session *s)
{
	return cons_status_pending(s);
}

int ust_channel_counters(struct trawl_domain_session *s, const char *channel,
				uint64_t *discarded, uint64_t *lost_packets)
{
	const struct ust_chan *c;

	for (c = s->chans; c && strcmp(c->attr.name, channel); c = c->next)
		;
	if (!c)
		return -ENOENT;
	/* the consumer's channel key is the index + 1 (ust-consumer.c) */
	*discarded = c->index < TRAWL_CONS_MAX_CHANNELS ? s->cons_chans[c->index].events_discarded : 0;
	*lost_packets = c->index < TRAWL_CONS_MAX_CHANNELS ? s->cons_chans[c->index].lost_packets : 0;
	return 0;
}

int ust_channel_usage(struct trawl_domain_session *s, const char *channel, uint64_t *high)
{
	const struct trawl_cons_chan_counters *k;
	const struct ust_chan *c;

	for (c = s->chans; c && strcmp(c->attr.name, channel); c = c->next)
		;
	if (!c || c->index >= TRAWL_CONS_MAX_CHANNELS)
		return -ENOENT;
	k = &s->cons_chans[c->index];
	if (!k->nr_sampled)
		return -ENODATA;
	*high = k->usage_high;
	return 0;
}

int ust_channel_memory(struct trawl_domain_session *s, const char *channel, uint64_t *resident,
			      uint64_t *size)
{
	const struct trace_chan *tc;
	const struct ust_trace *t;
	const struct ust_chan *c;
	uint64_t r, z;
	int found = 0;

	for (c = s->chans; c && strcmp(c->attr.name, channel); c = c->next)
		;
	if (!c)
		return -ENOENT;
	*resident = *size = 0;
	/* Each user's (per-uid) or process's (per-pid) buffers of the channel,
	 * those of a process gone too while they last. */
	for (t = s->traces; t; t = t->next)
		for (tc = t->chans; tc; tc = tc->next)
			if (tc->chan == c && tc->rb && !trawl_ustctl_channel_memory(tc->rb, &r, &z)) {
				*resident += r;
				*size += z;
				found = 1;
			}
	return found ? 0 : -ENODATA;
}

int ust_status(struct trawl_domain_session *s, struct trawl_domain_status *st)
{
	ust_reap(s);
	st->consumer_alive = s->cons ? (uint32_t)s->cons->alive : 1;
	st->events_discarded = s->cons_discarded;
	st->events_tallied = s->cons_tallied < s->cons_discarded ? s->cons_tallied : s->cons_discarded;
	st->bytes_written = s->cons_bytes;
	if (s->cons && s->cons->alive && s->status_fresh)
		trawl_msg_fmt(st->msg, sizeof(st->msg), "%s", s->status_msg);
	else if (s->cons && s->cons->alive)
		trawl_msg_fmt(st->msg, sizeof(st->msg), "%s", s->cons->last.msg);
	else
		trawl_msg_fmt(st->msg, sizeof(st->msg), "%s", s->cons ? s->cons->msg : "");
	if (!st->msg[0] && s->apps_dropped)
		trawl_msg_fmt(
			st->msg, sizeof(st->msg),
			"%u traced app%s dropped for not answering within %u ms or sending what "
			"it may not (the session daemon's log names them)",
			s->apps_dropped, s->apps_dropped == 1 ? " was" : "s were",
			sd_limits.app_reply_ms);
	return 0;
}
