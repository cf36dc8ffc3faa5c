/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/channel.h> - channels.
 *
 * A channel is a set of ring buffers of one domain of a session, with its
 * sizes, timers and modes; event rules and contexts belong to one.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_CHANNEL_H
#define TRAWL_CTL_CHANNEL_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl_channel_attr; /* a channel's name and attributes */

/**
 * trawl_ctl_channel_attr_create - a new channel description
 * @name: the channel's name (rules as session names). Copied.
 *
 * Unset attributes take the domain's defaults. Sizes are bytes; timers µs.
 *
 * Return: the object, the caller's to free with trawl_ctl_channel_attr_destroy(),
 * or NULL with errno EINVAL (bad name) or ENOMEM.
 */
struct trawl_ctl_channel_attr *trawl_ctl_channel_attr_create(const char *name);

/**
 * trawl_ctl_channel_attr_destroy - free a channel description
 * @attr: the object, or NULL (then nothing happens)
 */
void trawl_ctl_channel_attr_destroy(struct trawl_ctl_channel_attr *attr);

/**
 * trawl_ctl_channel_attr_set_subbuf_size - bytes per sub-buffer
 * @attr: a channel description
 * @bytes: a power of two, at least 4096
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_channel_attr_set_subbuf_size(struct trawl_ctl_channel_attr *attr, uint64_t bytes);

/**
 * trawl_ctl_channel_attr_set_num_subbuf - sub-buffers per ring buffer
 * @attr: a channel description
 * @num: a power of two, at least 2
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_channel_attr_set_num_subbuf(struct trawl_ctl_channel_attr *attr, uint32_t num);

/**
 * trawl_ctl_channel_attr_set_overwrite - what happens when the buffer is full
 * @attr: a channel description
 * @overwrite: 1: the oldest data is overwritten (flight recorder); 0: new
 *             events are dropped and counted
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_overwrite(struct trawl_ctl_channel_attr *attr, int overwrite);

/**
 * trawl_ctl_channel_attr_set_switch_timer - close the current packet periodically
 * @attr: a channel description
 * @us: period in µs, 0 for none
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_switch_timer(struct trawl_ctl_channel_attr *attr, uint32_t us);

/**
 * trawl_ctl_channel_attr_set_read_timer - how often full packets are looked for
 * @attr: a channel description
 * @us: period in µs, 0 for the domain's default
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_read_timer(struct trawl_ctl_channel_attr *attr, uint32_t us);

/**
 * trawl_ctl_channel_attr_set_buffers - the buffering scheme
 * @attr: a channel description
 * @buffers: PER_UID or PER_PID (user space), GLOBAL (kernel), DEFAULT
 *
 * A scheme the channel's domain does not have is refused when the channel
 * is enabled. Return: 0 or -EINVAL (not an enum trawl_ctl_buffers value).
 */
int trawl_ctl_channel_attr_set_buffers(struct trawl_ctl_channel_attr *attr,
				       enum trawl_ctl_buffers buffers);

/**
 * trawl_ctl_channel_attr_set_tracefile_size - split each stream's file (LTTng's --tracefile-size)
 * @attr: a channel description
 * @bytes: 0 (the default: one file per stream), or the most a stream file
 *         holds: the stream goes on in a new file, <channel>_<cpu>_<n>, at a
 *         packet boundary. Less than the sub-buffer size is raised to it.
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_tracefile_size(struct trawl_ctl_channel_attr *attr, uint64_t bytes);

/**
 * trawl_ctl_channel_attr_set_tracefile_count - files kept per stream (LTTng's --tracefile-count)
 * @attr: a channel description
 * @count: 0 (the default: all), or the newest files kept per stream, with a
 *         tracefile size: the file after the last reuses the first's name
 *         (n modulo @count), the oldest file truncated. Without a size it
 *         does nothing. As in LTTng 2.13, the events of the files
 *         overwritten are not counted discarded (readers see the newest
 *         files as the whole trace, and `stop` reports no loss for them).
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_tracefile_count(struct trawl_ctl_channel_attr *attr, uint32_t count);

/**
 * trawl_ctl_channel_attr_set_blocking_timeout - how long a writer waits for room
 * @attr: a channel description
 * @us: 0: never (the default: a full buffer drops the event, counted);
 *      TRAWL_CTL_BLOCKING_INF (-1): until there is room; else the most
 *      microseconds an event waits for the consumer before it is dropped
 *
 * LTTng 2.13's --blocking-timeout: user-space discard-mode channels only (the
 * daemon refuses it for a kernel or overwrite channel), and an app waits only
 * if it allows it (LTTNG_UST_ALLOW_BLOCKING or TRAWL_UST_ALLOW_BLOCKING set in
 * its environment); see trawl-ust(3).
 * Return: 0 or -EINVAL (below -1 or above TRAWL_CTL_BLOCKING_MAX_US).
 */
int trawl_ctl_channel_attr_set_blocking_timeout(struct trawl_ctl_channel_attr *attr, int64_t us);

/**
 * trawl_ctl_channel_attr_set_monitor_timer - how often the channel's buffers
 * are sampled (LTTng's --monitor-timer)
 * @attr: a channel description
 * @us: the period in µs; 0: never (the channel's buffer-usage and
 *      session-consumed-size triggers then never fire on its samples).
 *      Without a call: LTTng's default, 1 s.
 *
 * Each period the consumer reports how full the channel's buffers are and
 * what it consumed; the session daemon evaluates the buffer-usage and
 * session-consumed-size conditions of triggers on each report.
 * Return: 0 or -EINVAL (@us above TRAWL_CTL_MONITOR_MAX_US).
 */
int trawl_ctl_channel_attr_set_monitor_timer(struct trawl_ctl_channel_attr *attr, uint64_t us);

/**
 * trawl_ctl_channel_attr_set_output - LTTng's --output: mmap or splice
 * @attr: a channel description
 * @output: TRAWL_CTL_OUTPUT_DEFAULT, _SPLICE or _MMAP
 *
 * LTTng 2.13's rules: a user-space channel is mmap only (the daemon refuses
 * splice: -EOPNOTSUPP); a kernel channel is splice by default, mmap if asked,
 * and mmap in a snapshot session whatever is asked. What the channel then
 * says (trawl_ctl_channel_info.output, list, --mi xml, save) is all it
 * changes: trawl's consumers write every channel the same way.
 * Return: 0 or -EINVAL (not one of those).
 */
int trawl_ctl_channel_attr_set_output(struct trawl_ctl_channel_attr *attr,
				      enum trawl_ctl_output output);

/**
 * trawl_ctl_channel_enable - create a channel, or enable it again
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the channel (only its name counts when it exists already)
 *
 * Channels are created before the session first starts.
 * Return: 0, -EEXIST (enabled already), -EBUSY, -EINVAL...
 */
int trawl_ctl_channel_enable(struct trawl_ctl *ctl, const char *session,
			     enum trawl_ctl_domain domain, const struct trawl_ctl_channel_attr *attr);

/**
 * trawl_ctl_channel_disable - pause recording in a channel
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name
 *
 * Return: 0, -ENOENT, -EEXIST (disabled already).
 */
int trawl_ctl_channel_disable(struct trawl_ctl *ctl, const char *session,
			      enum trawl_ctl_domain domain, const char *channel);

/* A channel, with every attribute resolved. Strings belong to the list. */
struct trawl_ctl_channel_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *name;
	int32_t enabled;
	int32_t overwrite;        /* 1: overwrite mode, 0: discard mode */
	uint64_t subbuf_size;     /* bytes */
	uint32_t num_subbuf;
	uint32_t switch_timer_us; /* 0: off */
	uint32_t read_timer_us;
	enum trawl_ctl_buffers buffers; /* PER_UID, PER_PID or GLOBAL */
	uint64_t tracefile_size;	/* bytes per stream file, 0: unlimited */
	uint32_t tracefile_count;	/* files kept per stream, 0: unlimited */
	int64_t blocking_timeout_us; /* 0: never blocks, TRAWL_CTL_BLOCKING_INF: without end */
	/* LTTng's per-channel statistics, as of the consumers' last answer, over
	 * every buffer of the channel (all users' or processes'); 0 in other lists: */
	uint64_t discarded_events; /* discard mode: events dropped (buffers full) */
	uint64_t lost_packets;     /* overwrite mode: packets overwritten before they
				      were read (user space; 0 for the kernel) */
	enum trawl_ctl_output output; /* TRAWL_CTL_OUTPUT_SPLICE or _MMAP */
	uint64_t monitor_timer_us;    /* the consumer's sampling period, 0: none */
	/* The memory the channel's buffers hold (LTTng 2.15's "Memory usage"),
	 * user space, list of a session; 0 in other lists, for the kernel, and
	 * before any app was traced (buffers are made for the first one): */
	uint64_t memory_resident; /* bytes of buffer pages written so far (a CPU that
				     never traced holds its control page only) */
	uint64_t memory_size;     /* bytes of the buffer files, every page written */
};

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_CHANNEL_H */
