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

int trawl_ustctl_app_ctx_name_valid(const char *name)
{
	size_t i, provider = 0, key = 0;
	int colon = 0;

	if (strncmp(name, "$app.", 5))
		return 0;
	for (i = 5; name[i]; i++) {
		char c = name[i];

		if (i >= TRAWL_USTCTL_APP_CTX_NAME_MAX - 1)
			return 0;
		if (c == ':' && !colon) {
			colon = 1;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || (c == ':' && colon)))
			return 0;
		if (colon)
			key++;
		else
			provider++;
	}
	return colon && provider && key;
}

void trawl_ustctl_app_ctx_field_name(const char *name, char *out)
{
	size_t i;

	for (i = 0; name[i] && i < TRAWL_USTCTL_APP_CTX_NAME_MAX - 1; i++)
		out[i] = name[i] == '$' || name[i] == '.' || name[i] == ':' ? '_' : name[i];
	out[i] = '\0';
}

/* The application contexts after CHANNEL (or NOTIFIER) @cmd's counters: none without the
 * flag; else 1 to TRAWL_USTCTL_MAX_APP_CTX valid names filling the rest
 * exactly, no two the same. 0 or -EPROTO. */
static int app_ctx_check(const void *buf, size_t len, const struct trawl_wire_cmd *cmd)
{
	size_t off = sizeof(*cmd) + (size_t)cmd->nr_counters * sizeof(struct trawl_wire_counter);
	const char *p = (const char *)buf + off, *names[TRAWL_USTCTL_MAX_APP_CTX];
	size_t rest = len - off, n;
	uint32_t nr = 0, i;

	if (!(cmd->flags & TRAWL_WIRE_CHAN_APP_CTX))
		return rest ? -EPROTO : 0;
	while (rest) {
		n = strnlen(p, rest < TRAWL_USTCTL_APP_CTX_NAME_MAX ? rest : TRAWL_USTCTL_APP_CTX_NAME_MAX);
		if (n == rest || n == TRAWL_USTCTL_APP_CTX_NAME_MAX || nr == TRAWL_USTCTL_MAX_APP_CTX ||
		    !trawl_ustctl_app_ctx_name_valid(p))
			return -EPROTO;
		for (i = 0; i < nr; i++)
			if (!strcmp(names[i], p))
				return -EPROTO;
		names[nr++] = p;
		p += n + 1;
		rest -= n + 1;
	}
	return nr ? 0 : -EPROTO;
}

uint32_t trawl_wire_app_ctx(const void *buf, size_t len, const char **names)
{
	struct trawl_wire_cmd cmd;
	size_t off, i;
	uint32_t nr = 0;

	memcpy(&cmd, buf, sizeof(cmd)); /* (decoded: len >= sizeof(cmd)) */
	off = sizeof(cmd) + (size_t)cmd.nr_counters * sizeof(struct trawl_wire_counter);
	*names = (const char *)buf + off;
	if (!(cmd.flags & TRAWL_WIRE_CHAN_APP_CTX))
		return 0;
	for (i = off; i < len; i++)
		nr += ((const char *)buf)[i] == '\0';
	return nr;
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
	if (cmd->cmd == TRAWL_WIRE_CMD_NOTIFIER && (cmd->flags & TRAWL_WIRE_CHAN_APP_CTX)) {
		/* (minor 13) the names only: no counters */
		if (cmd->nr_counters || app_ctx_check(buf, len, cmd))
			return -EPROTO;
		return 0;
	}
	if (cmd->cmd != TRAWL_WIRE_CMD_CHANNEL) {
		if (len != sizeof(*cmd) || cmd->nr_counters)
			return -EPROTO;
		return 0;
	}
	if (cmd->nr_counters > TRAWL_USTCTL_MAX_COUNTERS ||
	    len - sizeof(*cmd) < (size_t)cmd->nr_counters * sizeof(*counters))
		return -EPROTO;
	if (app_ctx_check(buf, len, cmd))
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
