/* SPDX-License-Identifier: MIT */
/*
 * app-cmd.c - the daemon's commands to an app (ustctl.h): each one
 * wire.h's CMD, sent through trawl_ustctl_app_call() (app.c), which waits
 * for the reply on a blocking app and queues it on one the daemon's loop
 * drives.
 */
#include "ustctl/app-internal.h"
#include "ringbuffer/ringbuffer.h"
#include "ustabi/notify.h"

/* ustctl.h names the app ABI's commands and REGISTRATION_DONE flags for the daemons. */
_Static_assert(TRAWL_WIRE_CMD_REGISTRATION_DONE == (int)TRAWL_USTCTL_CMD_REGISTRATION_DONE &&
		       TRAWL_WIRE_CMD_ENABLE == (int)TRAWL_USTCTL_CMD_ENABLE &&
		       TRAWL_WIRE_DONE_TAKES_ADDED == TRAWL_USTCTL_DONE_TAKES_ADDED &&
		       TRAWL_WIRE_DONE_REFUSED == TRAWL_USTCTL_DONE_REFUSED,
	       "ustctl.h names wire.h's commands and flags");

#include <errno.h>
#include <string.h>

static void cmd_init(struct trawl_wire_cmd *cmd, uint32_t kind)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->cmd = kind;
}

int trawl_ustctl_app_send_channel(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				  uint32_t session_handle, uint32_t chan_handle)
{
	return trawl_ustctl_app_send_channel_ctx(app, chan, session_handle, chan_handle, 0);
}

int trawl_ustctl_app_send_channel_ctx(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				      uint32_t session_handle, uint32_t chan_handle, uint32_t contexts)
{
	struct trawl_ustctl_contexts ctx = { .bits = contexts };

	return trawl_ustctl_app_send_channel_ctxs(app, chan, session_handle, chan_handle, &ctx);
}

int trawl_ustctl_app_send_channel_ctxs(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				       uint32_t session_handle, uint32_t chan_handle,
				       const struct trawl_ustctl_contexts *ctx)
{
	return trawl_ustctl_app_send_channel_opts(app, chan, session_handle, chan_handle, ctx, 0);
}

int trawl_ustctl_app_send_channel_opts(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				       uint32_t session_handle, uint32_t chan_handle,
				       const struct trawl_ustctl_contexts *ctx, int64_t blocking_us)
{
	/* the counters, then the application contexts' names */
	char extra[TRAWL_USTCTL_MAX_COUNTERS * sizeof(struct trawl_wire_counter) +
		   TRAWL_USTCTL_MAX_APP_CTX * TRAWL_USTCTL_APP_CTX_NAME_MAX];
	struct trawl_wire_counter counter;
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	struct trawl_wire_cmd cmd;
	uint32_t i, nr_fds = chan->attr.nr_streams;
	size_t len, n;
	uint64_t ms;
	int ret;

	if ((ctx->bits & ~TRAWL_USTCTL_CTX_ALL) || ctx->nr_counters > TRAWL_USTCTL_MAX_COUNTERS ||
	    ctx->nr_app > TRAWL_USTCTL_MAX_APP_CTX || blocking_us < -1)
		return -EINVAL;
	ms = blocking_us > 0 ? ((uint64_t)blocking_us + 999) / 1000 : 0;
	if (ms >= TRAWL_WIRE_BLOCKING_INF)
		return -EINVAL;
	/* An app of ABI minor 0 would take the counters for garbage and
	 * refuse prio/nice: say why instead. */
	if (trawl_ustctl_app_info(app)->abi_minor < 1 &&
	    (ctx->nr_counters || (ctx->bits & (TRAWL_USTCTL_CTX_PRIO | TRAWL_USTCTL_CTX_NICE))))
		return -EPROTONOSUPPORT;
	/* Before minor 10 an app knows no namespace contexts. */
	if (trawl_ustctl_app_info(app)->abi_minor < 10 && (ctx->bits & TRAWL_USTCTL_CTX_NS_ALL))
		return -EPROTONOSUPPORT;
	/* Before minor 12 an app records no application context. */
	if (trawl_ustctl_app_info(app)->abi_minor < 12 && ctx->nr_app)
		return -EPROTONOSUPPORT;
	/* Before minor 5 an app stamps CLOCK_MONOTONIC whatever it is told. */
	if (trawl_ustctl_app_info(app)->abi_minor < 5 && chan->attr.clock == TRAWL_RB_CLOCK_TSC)
		return -EPROTONOSUPPORT;
	cmd_init(&cmd, TRAWL_WIRE_CMD_CHANNEL);
	cmd.contexts = ctx->bits;
	cmd.nr_counters = ctx->nr_counters;
	cmd.session_handle = session_handle;
	cmd.chan_handle = chan_handle;
	cmd.nr_streams = chan->attr.nr_streams;
	cmd.num_subbuf = chan->attr.num_subbuf;
	cmd.overwrite = chan->attr.overwrite;
	cmd.subbuf_size = chan->attr.subbuf_size;
	cmd.clock = chan->attr.clock;
	if (blocking_us && trawl_ustctl_app_info(app)->abi_minor >= 6) {
		cmd.flags = TRAWL_WIRE_CHAN_BLOCKING;
		cmd.event_id = blocking_us < 0 ? TRAWL_WIRE_BLOCKING_INF : (uint32_t)ms;
	}
	len = 0;
	for (i = 0; i < ctx->nr_counters; i++) {
		memset(&counter, 0, sizeof(counter));
		counter.type = ctx->counters[i].type;
		counter.config = ctx->counters[i].config;
		memcpy(extra + len, &counter, sizeof(counter));
		len += sizeof(counter);
	}
	for (i = 0; i < ctx->nr_app; i++) {
		n = strnlen(ctx->app[i], TRAWL_USTCTL_APP_CTX_NAME_MAX - 1);
		memcpy(extra + len, ctx->app[i], n);
		extra[len + n] = '\0';
		len += n + 1;
	}
	if (ctx->nr_app)
		cmd.flags |= TRAWL_WIRE_CHAN_APP_CTX;
	memcpy(fds, chan->fds, nr_fds * sizeof(int));
	if (chan->wake_fd >= 0 && trawl_ustctl_app_info(app)->abi_minor >= 11) {
		cmd.flags |= TRAWL_WIRE_CHAN_WAKE;
		fds[nr_fds++] = chan->wake_fd;
	} else if (chan->wake_fd >= 0) {
		/* It cannot wake the consumer: the consumer polls the channel. */
		ret = trawl_ustctl_channel_mark_legacy(chan);
		if (ret)
			return ret;
	}
	return trawl_ustctl_app_call(app, &cmd, extra, len, fds, nr_fds);
}

int trawl_ustctl_app_send_notifier(struct trawl_ustctl_app *app, uint32_t chan_handle, int ring_fd,
				   int event_fd, uint32_t nr_slots, uint32_t slot_size,
				   uint32_t contexts,
				   const char (*app_ctx)[TRAWL_USTCTL_APP_CTX_NAME_MAX],
				   uint32_t nr_app, uint32_t counter)
{
	char names[TRAWL_USTCTL_MAX_APP_CTX * TRAWL_USTCTL_APP_CTX_NAME_MAX];
	struct trawl_wire_cmd cmd;
	int fds[2] = { ring_fd, event_fd };
	size_t len = 0, n;
	uint32_t i;

	if (trawl_ustctl_app_info(app)->abi_minor < 9 ||
	    (contexts && trawl_ustctl_app_info(app)->abi_minor < 10) ||
	    (nr_app && trawl_ustctl_app_info(app)->abi_minor < 13))
		return -EPROTONOSUPPORT;
	if ((ring_fd < 0) != (event_fd < 0) || (contexts & ~TRAWL_USTCTL_CTX_ALL) ||
	    nr_app > TRAWL_USTCTL_MAX_APP_CTX || counter > TRAWL_NOTIFY_COUNTERS)
		return -EINVAL;
	cmd_init(&cmd, TRAWL_WIRE_CMD_NOTIFIER);
	cmd.session_handle = UINT32_MAX; /* no session's START or STOP */
	cmd.chan_handle = chan_handle;
	cmd.num_subbuf = nr_slots;
	cmd.subbuf_size = slot_size;
	cmd.contexts = contexts;
	/* (older apps ignore it: it was 0 before minor 14) */
	cmd.event_id = counter;
	for (i = 0; i < nr_app; i++) {
		if (!trawl_ustctl_app_ctx_name_valid(app_ctx[i]))
			return -EINVAL;
		n = strlen(app_ctx[i]); /* (valid: shorter than the name's room) */
		memcpy(names + len, app_ctx[i], n + 1);
		len += n + 1;
	}
	if (nr_app)
		cmd.flags = TRAWL_WIRE_CHAN_APP_CTX;
	return trawl_ustctl_app_call(app, &cmd, nr_app ? names : NULL, len,
				     ring_fd < 0 ? NULL : fds, ring_fd < 0 ? 0 : 2);
}

int trawl_ustctl_app_enable_event(struct trawl_ustctl_app *app, uint32_t chan_handle, uint32_t event_index,
				  uint32_t event_id)
{
	struct trawl_wire_cmd cmd;

	if (event_index >= trawl_ustctl_app_event_count(app))
		return -ENOENT;
	cmd_init(&cmd, TRAWL_WIRE_CMD_ENABLE);
	cmd.chan_handle = chan_handle;
	cmd.event_index = event_index;
	cmd.event_id = event_id;
	return trawl_ustctl_app_call(app, &cmd, NULL, 0, NULL, 0);
}

int trawl_ustctl_app_enable_event_filter(struct trawl_ustctl_app *app, uint32_t chan_handle,
					 uint32_t event_index, uint32_t event_id, const char *filters,
					 size_t filters_len)
{
	struct trawl_wire_cmd cmd;

	if (event_index >= trawl_ustctl_app_event_count(app))
		return -ENOENT;
	if (filters_len && filters[filters_len - 1] != '\0')
		return -EINVAL;
	cmd_init(&cmd, TRAWL_WIRE_CMD_ENABLE);
	cmd.chan_handle = chan_handle;
	cmd.event_index = event_index;
	cmd.event_id = event_id;
	return trawl_ustctl_app_call(app, &cmd, filters, filters_len, NULL, 0);
}

int trawl_ustctl_app_disable_event(struct trawl_ustctl_app *app, uint32_t chan_handle, uint32_t event_index)
{
	struct trawl_wire_cmd cmd;

	if (event_index >= trawl_ustctl_app_event_count(app))
		return -ENOENT;
	cmd_init(&cmd, TRAWL_WIRE_CMD_DISABLE);
	cmd.chan_handle = chan_handle;
	cmd.event_index = event_index;
	return trawl_ustctl_app_call(app, &cmd, NULL, 0, NULL, 0);
}

static int session_cmd(struct trawl_ustctl_app *app, uint32_t kind, uint32_t session_handle)
{
	struct trawl_wire_cmd cmd;

	cmd_init(&cmd, kind);
	cmd.session_handle = session_handle;
	return trawl_ustctl_app_call(app, &cmd, NULL, 0, NULL, 0);
}

int trawl_ustctl_app_start(struct trawl_ustctl_app *app, uint32_t session_handle)
{
	return session_cmd(app, TRAWL_WIRE_CMD_START, session_handle);
}

int trawl_ustctl_app_stop(struct trawl_ustctl_app *app, uint32_t session_handle)
{
	return session_cmd(app, TRAWL_WIRE_CMD_STOP, session_handle);
}

int trawl_ustctl_app_regenerate_statedump(struct trawl_ustctl_app *app, uint32_t session_handle)
{
	/* An app of ABI minor < 2 would answer -EINVAL: it has no state dump. */
	if (trawl_ustctl_app_info(app)->abi_minor < 2)
		return 0;
	return session_cmd(app, TRAWL_WIRE_CMD_REGENERATE_STATEDUMP, session_handle);
}

static int chan_cmd(struct trawl_ustctl_app *app, uint32_t kind, uint32_t chan_handle)
{
	struct trawl_wire_cmd cmd;

	cmd_init(&cmd, kind);
	cmd.chan_handle = chan_handle;
	return trawl_ustctl_app_call(app, &cmd, NULL, 0, NULL, 0);
}

int trawl_ustctl_app_flush(struct trawl_ustctl_app *app, uint32_t chan_handle)
{
	return chan_cmd(app, TRAWL_WIRE_CMD_FLUSH, chan_handle);
}

int trawl_ustctl_app_release_channel(struct trawl_ustctl_app *app, uint32_t chan_handle)
{
	return chan_cmd(app, TRAWL_WIRE_CMD_RELEASE, chan_handle);
}

int trawl_ustctl_app_registration_done(struct trawl_ustctl_app *app)
{
	return trawl_ustctl_app_registration_done_flags(app, 0);
}

int trawl_ustctl_app_registration_done_flags(struct trawl_ustctl_app *app, uint32_t flags)
{
	struct trawl_wire_cmd cmd;

	cmd_init(&cmd, TRAWL_WIRE_CMD_REGISTRATION_DONE);
	cmd.flags = flags;
	cmd.event_index = trawl_ustctl_app_event_count(app);
	/* Whatever the app says, its next addition may come now. */
	trawl_ustctl_app_addition_answered(app);
	return trawl_ustctl_app_call(app, &cmd, NULL, 0, NULL, 0);
}

int trawl_ustctl_app_refuse(struct trawl_ustctl_app *app)
{
	struct trawl_wire_cmd cmd;

	/* Without DONE_TAKES_ADDED: the app adds nothing more here (it
	 * registers anew when its providers change), and it compares no
	 * count, so the one it has is the one it is told. */
	cmd_init(&cmd, TRAWL_WIRE_CMD_REGISTRATION_DONE);
	cmd.flags = TRAWL_WIRE_DONE_REFUSED;
	cmd.event_index = trawl_ustctl_app_claimed(app);
	trawl_ustctl_app_addition_answered(app);
	return trawl_ustctl_app_call(app, &cmd, NULL, 0, NULL, 0);
}
