/* SPDX-License-Identifier: MIT */
/*
 * wire.c - the app ABI's shared code (wire.h, ustabi.h): headers, the
 * app's decoder of commands (untrusted: a daemon may be another user's
 * root, or an impostor on a socket path), the size of the context fields,
 * opening a per-thread counter and reading a whole message. Linked into
 * libtrawl-ust and trawl-ustctl (the daemon's decoders of app messages are
 * src/ustctl/wire-decode.c).
 */
#define _GNU_SOURCE
#include "ustabi/wire.h"
#include "common/io.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

uint32_t trawl_ustctl_context_size(uint32_t contexts)
{
	uint32_t n = 0;

	n += contexts & TRAWL_USTCTL_CTX_VPID ? 4 : 0;
	n += contexts & TRAWL_USTCTL_CTX_VTID ? 4 : 0;
	n += contexts & TRAWL_USTCTL_CTX_PID ? 4 : 0;
	n += contexts & TRAWL_USTCTL_CTX_TID ? 4 : 0;
	n += contexts & TRAWL_USTCTL_CTX_PROCNAME ? 17 : 0;
	n += contexts & TRAWL_USTCTL_CTX_PTHREAD_ID ? 8 : 0;
	n += contexts & TRAWL_USTCTL_CTX_PPID ? 4 : 0;
	n += contexts & TRAWL_USTCTL_CTX_IP ? 8 : 0;
	n += contexts & TRAWL_USTCTL_CTX_PRIO ? 4 : 0;
	n += contexts & TRAWL_USTCTL_CTX_NICE ? 4 : 0;
	n += 8 * (uint32_t)__builtin_popcount(contexts & TRAWL_USTCTL_CTX_NS_ALL);
	return n;
}

/*
 * How every trawl process opens a per-thread counter (the app's threads,
 * and the daemon's probe): counting for the calling thread on any CPU,
 * kernel mode included when allowed - context switches and faults taken
 * inside system calls only count then; LTTng-UST always excludes the
 * kernel, and its "cs" counter stays 0 - else user mode only (an
 * unprivileged user under perf_event_paranoid 2, Debian's default).
 * Returns the fd (close-on-exec) or -errno.
 */
int trawl_wire_counter_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		attr.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

int trawl_wire_cmd_decode(const void *buf, size_t len, struct trawl_wire_cmd *cmd,
			  struct trawl_wire_counter *counters)
{
	uint32_t i;

	if (len < sizeof(*cmd))
		return -EPROTO;
	memcpy(cmd, buf, sizeof(*cmd));
	if (trawl_wire_hdr_check(&cmd->hdr, TRAWL_WIRE_CMD, len))
		return -EPROTO;
	if (cmd->cmd == TRAWL_WIRE_CMD_ENABLE && len > sizeof(*cmd)) {
		/* Filters: whole NUL-terminated strings (src/filter parses them). */
		if (cmd->nr_counters || len - sizeof(*cmd) > TRAWL_WIRE_MAX_FILTERS ||
		    ((const char *)buf)[len - 1] != '\0')
			return -EPROTO;
		return 0;
	}
	if (cmd->cmd != TRAWL_WIRE_CMD_CHANNEL) {
		if (len != sizeof(*cmd) || cmd->nr_counters)
			return -EPROTO;
		return 0;
	}
	if (cmd->nr_counters > TRAWL_USTCTL_MAX_COUNTERS ||
	    len - sizeof(*cmd) != (size_t)cmd->nr_counters * sizeof(*counters))
		return -EPROTO;
	for (i = 0; i < cmd->nr_counters; i++) {
		memcpy(&counters[i], (const char *)buf + sizeof(*cmd) + i * sizeof(*counters),
		       sizeof(*counters));
		if ((counters[i].type != PERF_TYPE_SOFTWARE && counters[i].type != PERF_TYPE_HARDWARE &&
		     counters[i].type != PERF_TYPE_HW_CACHE && counters[i].type != PERF_TYPE_RAW) ||
		    counters[i].reserved)
			return -EPROTO;
	}
	return 0;
}

void trawl_wire_hdr_init(struct trawl_wire_hdr *h, uint16_t type, uint32_t size)
{
	h->magic = TRAWL_WIRE_MAGIC;
	h->version = TRAWL_WIRE_VERSION;
	h->type = type;
	h->size = size;
	h->seq = 0;
}

int trawl_wire_hdr_check(const struct trawl_wire_hdr *h, uint16_t type, size_t len)
{
	if (len < sizeof(*h) || h->magic != TRAWL_WIRE_MAGIC || h->version != TRAWL_WIRE_VERSION ||
	    h->type != type || h->size != len)
		return -EPROTO;
	return 0;
}

int trawl_wire_recv_msg(int fd, void **msg, size_t *len, int timeout_ms)
{
	struct trawl_wire_hdr h;
	char *buf;
	int ret;

	ret = trawl_io_recv_all(fd, &h, sizeof(h), timeout_ms);
	if (ret)
		return ret;
	if (h.magic != TRAWL_WIRE_MAGIC || h.size < sizeof(h) || h.size > TRAWL_WIRE_MAX_MSG)
		return -EPROTO;
	buf = malloc(h.size);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	ret = trawl_io_recv_all(fd, buf + sizeof(h), h.size - sizeof(h), timeout_ms);
	if (ret) {
		free(buf);
		return ret;
	}
	*msg = buf;
	*len = h.size;
	return 0;
}
