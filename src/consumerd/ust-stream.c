/* SPDX-License-Identifier: MIT */
/*
 * ust-stream.c - the user-space consumer's accesses to a stream's mapping,
 * each with SIGBUS caught (bus.h). A --shm-path buffer file its owner
 * truncates under us breaks that stream only: it is never read again, the
 * log says so at once and its session's stop in one line (the events it
 * held unread are lost; how many, nobody can read any more), and the
 * consumer goes on serving every other stream and session.
 */
#include "common/common.h"
#include "common/log.h"
#include "consumerd/bus.h"
#include "consumerd/ust-consumer-internal.h"

#include <errno.h>
#include <string.h>

static int stream_op_run(void *arg)
{
	struct stream_op *op = arg;

	return op->fn(op);
}

/* @cs's buffer shrank under us (a SIGBUS): abandoned for good, said in the
 * log now and by its session's stop (session_failure()). */
static void stream_broke(struct cchannel *c, struct cstream *cs)
{
	ucons_stream_abandon(c, cs, "shrank under the consumer (SIGBUS: truncated?)");
}

void ucons_stream_abandon(struct cchannel *c, struct cstream *cs, const char *how)
{
	struct ctrace *t = c->trace;

	cs->broken = 1;
	if (!t->broken++)
		trawl_msg_fmt(t->broken_chan, sizeof(t->broken_chan), "%s", c->info.name);
	else if (strcmp(t->broken_chan, c->info.name))
		t->broken_others = 1;
	trawl_log(TRAWL_LOG_ERROR,
		  "%s_%u: its buffer file %s: the stream is abandoned, the events it held "
		  "unread are lost",
		  c->info.name, (unsigned)(cs - c->streams), how);
}

/* @t's abandoned streams (stream_broke()), in one line. */
void ucons_trace_broken_msg(const struct ctrace *t, char *msg, size_t len)
{
	if (msg)
		trawl_msg_fmt(msg, len,
			      "%u buffer file%s of channel %s%s shrank under the consumer (truncated?): "
			      "%s abandoned, the events %s held unread are lost (not counted)",
			      t->broken, t->broken == 1 ? "" : "s", t->broken_chan,
			      t->broken_others ? " and others" : "",
			      t->broken == 1 ? "its stream" : "their streams", t->broken == 1 ? "it" : "they");
}

/* @fn on @cs with a SIGBUS caught (then @cs is broken): @fn's return, or
 * -EFAULT (broken, now or before). */
int ucons_stream_guarded(struct cchannel *c, struct cstream *cs, int (*fn)(struct stream_op *),
			 void *arg, int flag)
{
	struct stream_op op = {c, cs, fn, arg, flag};
	int bus, ret;

	if (cs->broken || !cs->rb)
		return -EFAULT;
	ret = trawl_cons_guarded(stream_op_run, &op, &bus);
	if (bus)
		stream_broke(c, cs);
	return ret;
}

static int op_flush(struct stream_op *op)
{
	return trawl_ustctl_stream_flush(op->cs->rb, op->flag);
}

static int op_flush_live(struct stream_op *op)
{
	return trawl_ustctl_stream_flush_live(op->cs->rb);
}

int ucons_stream_flush(struct cchannel *c, struct cstream *cs, int final)
{
	return ucons_stream_guarded(c, cs, op_flush, NULL, final);
}

int ucons_stream_flush_live(struct cchannel *c, struct cstream *cs)
{
	return ucons_stream_guarded(c, cs, op_flush_live, NULL, 0);
}

static int op_resume(struct stream_op *op)
{
	return trawl_ustctl_stream_resume(op->cs->rb, *(uint64_t *)op->arg);
}

int ucons_stream_resume(struct cchannel *c, struct cstream *cs, uint64_t next_seq)
{
	return ucons_stream_guarded(c, cs, op_resume, &next_seq, 0);
}

static int op_counters(struct stream_op *op)
{
	struct trawl_ustctl_stream_counters k;
	int ret = trawl_ustctl_stream_counters(op->cs->rb, &k);

	if (!ret) {
		op->cs->discarded = k.events_discarded;
		op->cs->in_buffer = k.bytes_in_buffer;
		op->cs->tallied = k.events_tallied;
	}
	return ret;
}

uint64_t ucons_stream_discarded(struct cchannel *c, struct cstream *cs)
{
	ucons_stream_guarded(c, cs, op_counters, NULL, 0);
	return cs->discarded;
}

static int op_produced(struct stream_op *op)
{
	struct trawl_ustctl_stream_counters k;
	int ret = trawl_ustctl_stream_counters(op->cs->rb, &k);

	if (!ret)
		*(uint64_t *)op->arg = k.bytes_produced;
	return ret;
}

uint64_t ucons_stream_produced(struct cchannel *c, struct cstream *cs)
{
	uint64_t v = UINT64_MAX;

	if (ucons_stream_guarded(c, cs, op_produced, &v, 0))
		return UINT64_MAX;
	return v;
}
