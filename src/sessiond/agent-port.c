/* SPDX-License-Identifier: MIT */
/*
 * agent-port.c - the TCP port LTTng's agents (python3-lttngust's
 * lttngust.agent, LTTng's JUL and log4j agents) register on.
 *
 * LTTng 2.13's session daemon listens on 127.0.0.1, the first free port of
 * 5345..5354, and writes the port in agent.port: the root daemon's in
 * /var/run/lttng, a user's in $LTTNG_HOME/.lttng ($HOME without it), where
 * the agents read it. trawl does the same (the root daemon writes
 * /var/run/lttng/agent.port only with its default runtime folder, so that a
 * test's daemon never redirects the machine's agents; always agent.port in
 * its runtime folder); where LTTng gives up (the range taken), trawl takes
 * any free port (the agents read it from the file).
 *
 * The protocol (big-endian; LTTng's agent.c, lttngust/cmd.py):
 *
 *   agent:  register {u32 domain, u32 pid, u32 major, u32 minor}   (once)
 *   daemon: header {u64 data_size, u32 cmd, u32 cmd_version} data
 *     cmd 2 ENABLE: {u32 loglevel, u32 loglevel_type, char name[256],
 *                    u32 filter_len} filter[filter_len]  -> agent: u32 status
 *     cmd 3 DISABLE: {char name[256]}                     -> agent: u32 status
 *     cmd 4 REGISTRATION_DONE: (nothing)                  (no answer)
 *     cmd 1 LIST: (nothing) -> agent: {u32 status, u32 size, u32 count}
 *                                     names[size] (each ending in NUL)
 *     cmd 5 APP_CTX_ENABLE: {u32 len, provider[len], u32 len, name[len]}
 *                   (each with its NUL; "$app.P:N" gives "P" and "N")
 *                                                     -> agent: u32 status
 *
 * At registration the daemon sends an ENABLE for each enabled rule of the
 * agent's domain that may trace the agent's process, then
 * REGISTRATION_DONE; later each rule enabled or disabled (and every rule of
 * a destroyed session) is sent to the registered agents it concerns, and an
 * enable-event or disable-event answers its client once those agents have
 * answered (as LTTng's, which waits for each agent's reply), or
 * app-reply-ms is up: a record logged after the command returns is
 * filtered by the agent with the new rule (sd_agent_settle()). The
 * agent then hands every log record of its framework to its native library
 * (liblttng-ust-python-agent: trawl's, src/ust-agents), whose tracepoint
 * (lttng_python:event) the session's user-space rule with the whole filter
 * records (cmd-agent.c). `list -j|-l|-p` asks each registered agent of the
 * domain for its loggers (LIST), waiting for them in nested rounds (loop.c)
 * at most app-reply-ms.
 *
 * Peers are untrusted (any local process can connect to 127.0.0.1): a
 * connection's user is the owner of its socket (asked of the kernel by the
 * connection's exact 4-tuple, NETLINK_SOCK_DIAG: peer_uid()); a user daemon
 * serves its own user and root only, the root daemon everyone, each agent
 * seeing only the rules of root's sessions and its own user's. Connections
 * count against the apps socket's caps (app-conns-per-uid, app-conns:
 * docs/SECURITY.md); the registration must be whole within app-register-ms
 * of the connection; an agent answers each command with 4 bytes (LIST: its
 * loggers, at most 1 MiB; only printable names listed, and at most 16,384
 * of an untrusted user's agents in one list) and may send nothing else
 * (more is a protocol error: dropped); what waits to be sent to an agent,
 * and how many answers it owes, are capped (a peer that does not read is
 * dropped), and an untrusted user's agents' buffers are charged to its
 * app-bytes-per-uid, which its apps share. Nothing here ever blocks the
 * loop.
 */
#include "common/common.h"
#include "common/log.h"
#include "sessiond/agent-wire.h"
#include "sessiond/sessiond.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define AGENT_PORT_FIRST 5345 /* LTTng's DEFAULT_AGENT_TCP_PORT_RANGE */
#define AGENT_PORT_LAST 5354
#define AGENT_NAME_LEN 256   /* LTTng's LTTNG_SYMBOL_NAME_LEN */
#define AGENT_CMD_LIST 1
#define AGENT_CMD_ENABLE 2
#define AGENT_CMD_DISABLE 3
#define AGENT_CMD_REG_DONE 4
#define AGENT_CMD_APP_CTX_ENABLE 5
#define AGENT_OUT_MAX (256u << 10) /* bytes waiting for one agent */
#define AGENT_PEND_MAX 256         /* answers one agent may owe */
#define AGENT_LIST_UID_NAMES 16384 /* names an untrusted uid's agents add to one list */

/* An answer owed: to a command (4 bytes), or to LIST @query. */
struct pend {
	int list;
	uint64_t query;
};

/* A `list -j|-l|-p` waiting for the agents' loggers. */
struct agent_query {
	struct agent_query *next;
	uint64_t id;
	uint32_t waiting; /* answers still to come */
	struct sd_reply *r;
	uint32_t domain;
};

static struct agent_query *queries;
static uint64_t next_query = 1;
/* The answers to the rule changes of the command being served (its id 0
 * outside sd_agent_changes_begin() .. sd_agent_settle()). */
static struct agent_query changes;

struct agent {
	struct agent *next;
	int fd;
	uid_t uid;
	int trusted;
	struct sd_uid *owner;
	int registered;
	uint32_t domain; /* TRAWL_CTL_DOMAIN_JUL.. once registered */
	unsigned char reg[AGENT_WIRE_REG_LEN];
	size_t reg_len;
	uint32_t pid; /* as it says */
	struct pend pend[AGENT_PEND_MAX]; /* answers owed, oldest at pend_head */
	unsigned pend_head, pend_n;
	int late; /* missed a command's deadline (sd_agent_settle()): not waited
		   * for again until it owes nothing */
	unsigned char in[AGENT_WIRE_LIST_HEAD_LEN]; /* the answer being read: its head */
	size_t in_len;
	char *names; /* a LIST answer's names, being read */
	size_t names_len, names_size, names_charge;
	unsigned char *out;
	size_t out_len, out_cap;
	size_t charged; /* of its user's app-bytes-per-uid (untrusted): out, names */
};

static struct agent *agents;
static uint32_t untrusted_agents;
static int listen_fd = -1;
static char port_files[2][4200];

static void agent_drop(struct agent *a, const char *why)
{
	struct agent **pp;

	if (why)
		sd_log_peer(a->uid, TRAWL_LOG_WARN, "agent port: dropping an agent of uid %d: %s",
			    (int)a->uid, why);
	for (pp = &agents; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	/* its LIST answers will not come */
	while (a->pend_n) {
		struct pend *q = &a->pend[a->pend_head];
		struct agent_query *qq;

		for (qq = queries; q->query && qq; qq = qq->next)
			if (qq->id == q->query && qq->waiting)
				qq->waiting--;
		a->pend_head = (a->pend_head + 1) % AGENT_PEND_MAX;
		a->pend_n--;
	}
	free(a->names);
	sd_watch_del(a->fd);
	close(a->fd);
	a->owner->app_bytes -= a->charged;
	a->owner->app_conns--;
	untrusted_agents -= !a->trusted;
	sd_uid_put(a->owner);
	free(a->out);
	free(a);
}

/*
 * Charges @more bytes of @a's buffers to its user's budget (the apps'
 * app-bytes-per-uid: a user's agents and apps share it; trusted ones are
 * not charged): 0, or -1 over it. agent_uncharge() gives back.
 */
static int agent_charge(struct agent *a, size_t more)
{
	if (a->trusted)
		return 0;
	if (a->owner->app_bytes + more > sd_limits.app_bytes_per_uid) {
		sd_log_peer(a->uid, TRAWL_LOG_WARN,
			    "agent port: an agent of uid %d is over the "
			    "memory its user's apps and agents may take",
			    (int)a->uid);
		return -1;
	}
	a->owner->app_bytes += more;
	a->charged += more;
	return 0;
}

static void agent_uncharge(struct agent *a, size_t less)
{
	if (a->trusted)
		return;
	a->owner->app_bytes -= less;
	a->charged -= less;
}

/* Sends what it can of @a's queue; the watch asks for POLLOUT while some is left. */
static int agent_flush(struct agent *a)
{
	while (a->out_len) {
		ssize_t n = send(a->fd, a->out, a->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0)
			return -1;
		memmove(a->out, a->out + n, a->out_len - (size_t)n);
		a->out_len -= (size_t)n;
	}
	sd_watch_events(a->fd, (short)(POLLIN | (a->out_len ? POLLOUT : 0)));
	return 0;
}

/* Queues one command (header, @data of @len bytes; LIST: for @query): 0,
 * or -1 over a cap. */
static int agent_queue_for(struct agent *a, uint32_t cmd, const void *data, size_t len,
			   uint64_t query)
{
	unsigned char hdr[16];
	uint64_t size = htobe64((uint64_t)len);
	uint32_t c = htobe32(cmd), v = 0;

	if (a->out_len + sizeof(hdr) + len > AGENT_OUT_MAX ||
	    (cmd != AGENT_CMD_REG_DONE && a->pend_n == AGENT_PEND_MAX))
		return -1;
	if (a->out_len + sizeof(hdr) + len > a->out_cap) {
		size_t cap = a->out_cap ? a->out_cap : 4096;
		unsigned char *p;

		while (cap < a->out_len + sizeof(hdr) + len)
			cap *= 2;
		if (agent_charge(a, cap - a->out_cap))
			return -1;
		p = realloc(a->out, cap);
		if (!p) {
			agent_uncharge(a, cap - a->out_cap);
			return -1;
		}
		a->out = p;
		a->out_cap = cap;
	}
	memcpy(hdr, &size, 8);
	memcpy(hdr + 8, &c, 4);
	memcpy(hdr + 12, &v, 4);
	memcpy(a->out + a->out_len, hdr, sizeof(hdr));
	if (len)
		memcpy(a->out + a->out_len + sizeof(hdr), data, len);
	a->out_len += sizeof(hdr) + len;
	if (cmd != AGENT_CMD_REG_DONE) {
		struct pend *q = &a->pend[(a->pend_head + a->pend_n++) % AGENT_PEND_MAX];

		q->list = cmd == AGENT_CMD_LIST;
		q->query = query;
	}
	return 0;
}

static int agent_queue(struct agent *a, uint32_t cmd, const void *data, size_t len)
{
	return agent_queue_for(a, cmd, data, len, 0);
}

/* An ENABLE or DISABLE of logger @name (levels, whole filter) for @a (not
 * sent yet), its answer awaited by query @query (0: none): 0 or -1. */
static int agent_queue_logger_for(struct agent *a, const char *name, uint32_t loglevel_type,
				  int loglevel, const char *filter, int enable, uint64_t query)
{
	unsigned char msg[4 + 4 + AGENT_NAME_LEN + 4 + TRAWL_CTL_FILTER_MAX];
	size_t flen = filter[0] ? strnlen(filter, TRAWL_CTL_FILTER_MAX - 1) + 1 : 0;
	uint32_t v;

	memset(msg, 0, sizeof(msg));
	if (!enable) {
		memcpy(msg, name, strnlen(name, AGENT_NAME_LEN - 1));
		return agent_queue_for(a, AGENT_CMD_DISABLE, msg, AGENT_NAME_LEN, query);
	}
	v = htobe32((uint32_t)loglevel);
	memcpy(msg, &v, 4);
	v = htobe32(loglevel_type);
	memcpy(msg + 4, &v, 4);
	memcpy(msg + 8, name, strnlen(name, AGENT_NAME_LEN - 1));
	v = htobe32((uint32_t)flen);
	memcpy(msg + 8 + AGENT_NAME_LEN, &v, 4);
	memcpy(msg + 12 + AGENT_NAME_LEN, filter, flen ? flen - 1 : 0);
	return agent_queue_for(a, AGENT_CMD_ENABLE, msg, 12 + AGENT_NAME_LEN + flen, query);
}

static int agent_queue_logger(struct agent *a, const char *name, uint32_t loglevel_type,
			      int loglevel, const char *filter, int enable)
{
	return agent_queue_logger_for(a, name, loglevel_type, loglevel, filter, enable, 0);
}

/* An APP_CTX_ENABLE of "$app.PROVIDER:NAME" @name for @a: 0 or -1. */
static int agent_queue_app_ctx(struct agent *a, const char *name)
{
	unsigned char msg[8 + SD_APP_CTX_NAME_MAX + 1];
	const char *colon = strchr(name + 5, ':');
	size_t plen, nlen;
	uint32_t v;

	/* (checked when added: ust-context.c) */
	if (strncmp(name, "$app.", 5) || !colon || strlen(name) >= SD_APP_CTX_NAME_MAX)
		return 0;
	plen = (size_t)(colon - (name + 5));
	nlen = strlen(colon + 1);
	v = htobe32((uint32_t)plen + 1);
	memcpy(msg, &v, 4);
	memcpy(msg + 4, name + 5, plen);
	msg[4 + plen] = '\0';
	v = htobe32((uint32_t)nlen + 1);
	memcpy(msg + 5 + plen, &v, 4);
	memcpy(msg + 9 + plen, colon + 1, nlen + 1);
	return agent_queue(a, AGENT_CMD_APP_CTX_ENABLE, msg, 10 + plen + nlen);
}

static int agent_queue_rule(struct agent *a, const struct sd_event *e, int enable)
{
	return agent_queue_logger(a, e->name, (uint32_t)e->loglevel_type, e->loglevel, e->filter,
				  enable);
}

/* Whether session @s may trace the processes of agent @a (its rules are sent). */
static int agent_sees(const struct agent *a, const struct sd_session *s)
{
	return s->uid == 0 || s->uid == a->uid;
}

void sd_agent_rule_changed(const struct sd_session *s, uint32_t domain, const struct sd_event *e,
			   int enabled)
{
	struct agent *a, *next;

	for (a = agents; a; a = next) {
		uint64_t query = a->late ? 0 : changes.id;

		next = a->next;
		if (!a->registered || a->domain != domain || !agent_sees(a, s))
			continue;
		if (agent_queue_logger_for(a, e->name, (uint32_t)e->loglevel_type, e->loglevel,
					   e->filter, enabled, query) ||
		    agent_flush(a)) {
			agent_drop(a, "it does not read its commands");
			continue;
		}
		changes.waiting += query != 0;
	}
}

void sd_agent_app_ctx_enabled(const struct sd_session *s, uint32_t domain, const char *name)
{
	struct agent *a, *next;

	for (a = agents; a; a = next) {
		next = a->next;
		if (!a->registered || a->domain != domain || !agent_sees(a, s))
			continue;
		if (agent_queue_app_ctx(a, name) || agent_flush(a))
			agent_drop(a, "it does not read its commands");
	}
}

void sd_agent_logger_changed(uid_t owner, uint32_t domain, const char *name,
			     uint32_t loglevel_type, int loglevel, const char *filter, int enabled)
{
	struct agent *a, *next;

	for (a = agents; a; a = next) {
		next = a->next;
		if (!a->registered || a->domain != domain || (owner != 0 && owner != a->uid))
			continue;
		if (agent_queue_logger(a, name, loglevel_type, loglevel, filter, enabled) ||
		    agent_flush(a))
			agent_drop(a, "it does not read its commands");
	}
}

struct trigger_walk {
	struct agent *a;
	int failed;
};

static void trigger_enable(const char *name, uint32_t loglevel_type, int loglevel,
			   const char *filter, void *arg)
{
	struct trigger_walk *w = arg;

	w->failed |= agent_queue_logger(w->a, name, loglevel_type, loglevel, filter, 1);
}

/* @a registered: every enabled rule and trigger it may see, then
 * REGISTRATION_DONE. */
static int agent_registered(struct agent *a)
{
	uint32_t domain;
	const struct sd_session *s;
	const struct sd_event *e;

	if (agent_wire_reg(a->reg, &domain, &a->pid)) {
		agent_drop(a, "not an LTTng 2.13 agent (domain or protocol version)");
		return -1;
	}
	a->domain = domain;
	a->registered = 1;
	sd_watch_deadline(a->fd, 0, NULL);
	for (s = sd.sessions; s; s = s->next) {
		const struct sd_agent_domain *ad = &s->agent[domain - TRAWL_CTL_DOMAIN_JUL];
		uint32_t i;

		if (!agent_sees(a, s))
			continue;
		/* the application contexts first: the agent hands their
		 * values to its first records */
		for (i = 0; i < ad->nr_app_ctx; i++)
			if (agent_queue_app_ctx(a, ad->app_ctx[i]))
				goto full;
		for (e = ad->events; e; e = e->next)
			if (e->enabled > 0 && agent_queue_rule(a, e, 1))
				goto full;
	}
	{
		struct trigger_walk w = {a, 0};

		sd_agent_triggers(domain, a->uid, trigger_enable, &w);
		if (w.failed)
			goto full;
	}
	if (agent_queue(a, AGENT_CMD_REG_DONE, NULL, 0))
		goto full;
	if (agent_flush(a)) {
		agent_drop(a, NULL);
		return -1;
	}
	return 0;
full:
	agent_drop(a, "too many rules to send at once");
	return -1;
}

/* LIST answer of @a complete (names in a->names): its query takes them. */
static void list_answered(struct agent *a, const struct pend *q)
{
	struct agent_query *qq;
	const char *name;
	size_t pos = 0;

	for (qq = queries; qq && qq->id != q->query; qq = qq->next)
		;
	if (!qq)
		return; /* its command answered already (time was up) */
	if (qq->waiting)
		qq->waiting--;
	if (a->owner->list_query != qq->id) {
		a->owner->list_query = qq->id;
		a->owner->list_names = 0;
	}
	/* each listable name as an event rule takes one (agent_wire_name_next()) */
	while (!qq->r->status &&
	       agent_wire_name_next(a->names, a->names_len, &pos, TRAWL_CTL_NAME_MAX, &name)) {
		struct trawl_ctl_wire_available body = {
			.domain = a->domain,
			.kind = TRAWL_CTL_EVENT_TRACEPOINT,
			.loglevel = -1,
			.pid = (int32_t)(a->pid & 0x7fffffff),
		};
		const char *strs[TRAWL_CTL_REC_MAX_STRINGS] = {name};

		/* an untrusted user's agents fill a bounded part of the list:
		 * never root's whole answer (its records' cap) */
		if (!a->trusted && a->owner->list_names == AGENT_LIST_UID_NAMES) {
			sd_log_peer(a->uid, TRAWL_LOG_WARN,
				    "agent port: the loggers of uid "
				    "%d's agents past %u left out of a list",
				    (int)a->uid, AGENT_LIST_UID_NAMES);
			break;
		}
		a->owner->list_names += !a->trusted;
		sd_reply_rec(qq->r, TRAWL_CTL_ITEM_AVAILABLE, &body, strs);
	}
}

/* @a's answers from @buf (@n bytes, at most what the oldest owed one
 * needs): 0, or -1 when it must be dropped. */
static int agent_answer(struct agent *a, const unsigned char *buf, size_t n)
{
	struct pend *q = &a->pend[a->pend_head];
	size_t head = q->list ? 12 : 4;

	if (a->in_len < head) {
		memcpy(a->in + a->in_len, buf, n);
		a->in_len += n;
		if (a->in_len < head)
			return 0;
		if (q->list) {
			uint32_t size;

			if (agent_wire_list_head(a->in, &size) || agent_charge(a, size))
				return -1;
			a->names_charge = size;
			a->names = malloc(size ? size : 1);
			if (!a->names)
				return -1; /* (the charge: given back at the drop) */
			a->names_size = size;
			a->names_len = 0;
		}
	} else {
		memcpy(a->names + a->names_len, buf, n);
		a->names_len += n;
	}
	if (q->list && a->names_len < a->names_size)
		return 0;
	if (q->list) {
		list_answered(a, q);
		agent_uncharge(a, a->names_charge);
		a->names_charge = 0;
	} else if (q->query && q->query == changes.id && changes.waiting) {
		changes.waiting--;
	}
	a->late &= a->pend_n > 1; /* (caught up: waited for again) */
	free(a->names);
	a->names = NULL;
	a->names_len = a->names_size = 0;
	a->in_len = 0;
	a->pend_head = (a->pend_head + 1) % AGENT_PEND_MAX;
	a->pend_n--;
	return 0;
}

static void agent_io(int fd, short revents, void *arg)
{
	struct agent *a = arg;
	unsigned char buf[4096];
	ssize_t n;

	(void)fd;
	if ((revents & POLLOUT) && agent_flush(a))
		return agent_drop(a, NULL);
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	for (;;) {
		size_t want;

		if (!a->registered)
			want = sizeof(a->reg) - a->reg_len;
		else if (!a->pend_n)
			want = 0;
		else if (a->in_len < (a->pend[a->pend_head].list ? 12u : 4u))
			want = (a->pend[a->pend_head].list ? 12u : 4u) - a->in_len;
		else
			want = a->names_size - a->names_len;
		/* owed nothing: one byte, to tell an end from unasked bytes */
		n = recv(a->fd, buf, want ? (want < sizeof(buf) ? want : sizeof(buf)) : 1,
			 MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0)
			return agent_drop(a, NULL);
		if (!want)
			return agent_drop(a, "it sent what was not asked");
		if (!a->registered) {
			memcpy(a->reg + a->reg_len, buf, (size_t)n);
			a->reg_len += (size_t)n;
			if (a->reg_len == sizeof(a->reg) && agent_registered(a))
				return;
			continue;
		}
		if (agent_answer(a, buf, (size_t)n))
			return agent_drop(a, "its answer is malformed or too long");
	}
}

static int query_done(void *arg)
{
	return !((struct agent_query *)arg)->waiting;
}

void sd_agent_changes_begin(void)
{
	/* (a nested round serves no command: sd_loop_wait()'s one level) */
	if (sd_loop_nested() || changes.id)
		return;
	changes.id = next_query++;
	changes.waiting = 0;
	changes.next = queries;
	queries = &changes;
}

void sd_agent_settle(void)
{
	struct agent_query **pp;
	struct agent *a;

	if (!changes.id)
		return;
	if (changes.waiting)
		sd_loop_wait(query_done, &changes, sd_now_ms() + sd_limits.app_reply_ms);
	/* An agent that did not answer in time is not waited for again until
	 * it has caught up: a deaf one (dropped at its cap of owed answers)
	 * delays one command, not each. */
	for (a = agents; a && changes.waiting; a = a->next) {
		unsigned i;

		for (i = 0; i < a->pend_n && !a->late; i++)
			a->late = a->pend[(a->pend_head + i) % AGENT_PEND_MAX].query == changes.id;
	}
	for (pp = &queries; *pp; pp = &(*pp)->next) {
		if (*pp == &changes) {
			*pp = changes.next;
			break;
		}
	}
	/* (an answer that comes later matches no query: agent_answer()) */
	changes.id = 0;
	changes.waiting = 0;
}

void sd_agent_list(uint32_t domain, const struct sd_peer *p, struct sd_reply *r)
{
	struct agent_query q = {.id = next_query++, .r = r, .domain = domain};
	struct agent_query **pp;
	struct agent *a, *next;

	if (sd_loop_nested())
		return; /* (no agent asked in a nested round: none listed) */
	for (a = agents; a; a = next) {
		next = a->next;
		if (!a->registered || a->domain != domain || (!p->trusted && a->uid != p->uid))
			continue;
		if (agent_queue_for(a, AGENT_CMD_LIST, NULL, 0, q.id) || agent_flush(a)) {
			agent_drop(a, "it does not read its commands");
			continue;
		}
		q.waiting++;
	}
	if (!q.waiting)
		return;
	q.next = queries;
	queries = &q;
	sd_loop_wait(query_done, &q, sd_now_ms() + sd_limits.app_reply_ms);
	for (pp = &queries; *pp; pp = &(*pp)->next) {
		if (*pp == &q) {
			*pp = q.next;
			break;
		}
	}
	/* an agent that did not answer in time is dropped (as an app that
	 * misses its deadline): the next list does not wait for it again */
	for (a = agents; a && q.waiting; a = next) {
		unsigned i;

		next = a->next;
		for (i = 0; i < a->pend_n; i++) {
			const struct pend *o = &a->pend[(a->pend_head + i) % AGENT_PEND_MAX];

			if (o->list && o->query == q.id) {
				agent_drop(a, "no answer to LIST in time");
				break;
			}
		}
	}
}

static void agent_expired(int fd, void *arg)
{
	(void)fd;
	agent_drop(arg, "no registration in time");
}

/* Whether @a, a sock_diag address of @family, is IPv4 address @v4 (an
 * AF_INET6 socket connected to 127.0.0.1, as a dual-stack JVM's: ::ffff:v4). */
static int diag_addr_is(uint8_t family, const uint32_t a[4], uint32_t v4)
{
	if (family == AF_INET)
		return a[0] == v4;
	return family == AF_INET6 && !a[0] && !a[1] && a[2] == htonl(0xffff) && a[3] == v4;
}

/*
 * The user of the TCP connection @fd's peer: the owner (idiag_uid) of the
 * peer's socket, asked of the kernel by its exact 4-tuple (its local
 * address is our peer, its remote us) through NETLINK_SOCK_DIAG, in the
 * daemon's network namespace (where 127.0.0.1 is). One request, one
 * answer: the kernel answers within the send (an exact lookup, not a
 * dump), so the answer is read without waiting; whatever else comes, or
 * nothing, is a failure. Only an established socket counts: the kernel
 * reports uid 0 for a TIME_WAIT or SYN_RECV one (a peer that closed at
 * once must not pass for root). 0 or -1 (the peer refused).
 */
static int peer_uid(int fd, uid_t *uid)
{
	struct sockaddr_in peer, self;
	socklen_t len = sizeof(peer);
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 req;
	} ask;
	union {
		struct nlmsghdr nh;
		unsigned char bytes[1024];
	} ans;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	const struct inet_diag_msg *m;
	ssize_t n;
	int nl, ret = -1;

	if (getpeername(fd, (struct sockaddr *)&peer, &len) || len != sizeof(peer) ||
	    peer.sin_family != AF_INET)
		return -1;
	len = sizeof(self);
	if (getsockname(fd, (struct sockaddr *)&self, &len) || len != sizeof(self))
		return -1;
	memset(&ask, 0, sizeof(ask));
	ask.nh.nlmsg_len = sizeof(ask);
	ask.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	ask.nh.nlmsg_flags = NLM_F_REQUEST; /* (no NLM_F_DUMP: the one socket) */
	ask.nh.nlmsg_seq = 1;
	ask.req.sdiag_family = AF_INET;
	ask.req.sdiag_protocol = IPPROTO_TCP;
	ask.req.idiag_states = 1u << TCP_ESTABLISHED;
	ask.req.id.idiag_sport = peer.sin_port;
	ask.req.id.idiag_dport = self.sin_port;
	ask.req.id.idiag_src[0] = peer.sin_addr.s_addr;
	ask.req.id.idiag_dst[0] = self.sin_addr.s_addr;
	ask.req.id.idiag_cookie[0] = ask.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return -1;
	if (sendto(nl, &ask, sizeof(ask), 0, (struct sockaddr *)&kernel, sizeof(kernel)) !=
	    (ssize_t)sizeof(ask))
		goto out;
	n = recv(nl, &ans, sizeof(ans), MSG_DONTWAIT);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(*m)) || !NLMSG_OK(&ans.nh, (size_t)n) ||
	    ans.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY || ans.nh.nlmsg_seq != 1 ||
	    ans.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		goto out; /* (NLMSG_ERROR: no such socket) */
	m = NLMSG_DATA(&ans.nh);
	if (m->idiag_state != TCP_ESTABLISHED || m->id.idiag_sport != peer.sin_port ||
	    m->id.idiag_dport != self.sin_port ||
	    !diag_addr_is(m->idiag_family, m->id.idiag_src, peer.sin_addr.s_addr) ||
	    !diag_addr_is(m->idiag_family, m->id.idiag_dst, self.sin_addr.s_addr))
		goto out;
	*uid = (uid_t)m->idiag_uid;
	ret = 0;
out:
	close(nl);
	return ret;
}

static void agent_accept(int fd, short revents, void *arg)
{
	int i;

	(void)revents;
	(void)arg;
	for (i = 0; i < 16; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct agent *a;
		uid_t uid;
		int trusted;
		struct sd_uid *owner;

		if (cfd < 0)
			return;
		/* whose: a user daemon serves its user and root */
		if (peer_uid(cfd, &uid) || (!sd.root_daemon && uid != 0 && uid != geteuid())) {
			close(cfd);
			continue;
		}
		trusted = uid == 0 || uid == geteuid();
		owner = sd_uid_get(uid);
		if (!owner) {
			close(cfd);
			continue;
		}
		if (!trusted && (owner->app_conns >= sd_limits.app_conns_per_uid ||
				 untrusted_agents >= sd_limits.app_conns)) {
			owner->refused++;
			sd_log_peer(uid, TRAWL_LOG_WARN, "agent port: refusing an agent of uid %d: "
							 "over its connection cap", (int)uid);
			sd_uid_put(owner);
			close(cfd);
			continue;
		}
		a = calloc(1, sizeof(*a));
		if (!a || sd_watch_add(cfd, agent_io, a)) {
			free(a);
			sd_uid_put(owner);
			close(cfd);
			continue;
		}
		a->fd = cfd;
		a->uid = uid;
		a->trusted = trusted;
		a->owner = owner;
		owner->app_conns++;
		untrusted_agents += !trusted;
		a->next = agents;
		agents = a;
		sd_watch_nested(cfd, 1); /* (their answers to list -p: read in nested rounds) */
		sd_watch_deadline(cfd, sd_now_ms() + sd_limits.app_register_ms, agent_expired);
	}
}

/* Writes @port to @path (its folder made 0755 if needed, as LTTng's). */
static int write_port_file(const char *path, unsigned port)
{
	char dir[4200], text[16];
	char *slash;
	int fd, n, ret = 0;

	if (trawl_path_fmt(dir, sizeof(dir), "%s", path))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (trawl_path_fmt(text, sizeof(text), "%u\n", port))
		ret = -EINVAL;
	n = (int)strlen(text);
	if (!ret && write(fd, text, (size_t)n) != n)
		ret = -EIO;
	close(fd);
	return ret;
}

int sd_agent_port_start(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	const char *home;
	unsigned port;
	int fd, one = 1, ret, i;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (port = AGENT_PORT_FIRST; port <= AGENT_PORT_LAST + 1; port++) {
		/* past the range (LTTng gives up there): any free port */
		sa.sin_port = htons(port > AGENT_PORT_LAST ? 0 : (uint16_t)port);
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
	}
	if (port > AGENT_PORT_LAST + 1 || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) || sd_watch_add(fd, agent_accept, NULL)) {
		ret = -errno;
		close(fd);
		return ret ? ret : -EADDRINUSE;
	}
	port = ntohs(sa.sin_port);
	listen_fd = fd;
	if (sd.root_daemon) {
		ret = trawl_path_fmt(port_files[0], sizeof(port_files[0]), "%s/agent.port",
				     sd.runtime_dir);
		if (!getenv("TRAWL_ROOT_RUNTIME_DIR"))
			ret |= trawl_path_fmt(port_files[1], sizeof(port_files[1]),
					      "/var/run/lttng/agent.port");
	} else {
		home = getenv("LTTNG_HOME");
		if (!home || home[0] != '/')
			home = getenv("HOME");
		ret = home && home[0] == '/'
			      ? trawl_path_fmt(port_files[0], sizeof(port_files[0]),
					       "%s/.lttng/agent.port", home)
			      : -ENOENT;
	}
	if (ret)
		port_files[0][0] = port_files[1][0] = '\0';
	for (i = 0; i < 2; i++) {
		if (port_files[i][0] && (ret = write_port_file(port_files[i], port))) {
			sd_warn("agent port %u: cannot write %s: %s", port, port_files[i],
				strerror(-ret));
			port_files[i][0] = '\0';
		}
	}
	sd_log("agents: listening on 127.0.0.1:%u", port);
	return 0;
}

void sd_agent_port_stop(void)
{
	int i;

	while (agents)
		agent_drop(agents, NULL);
	if (listen_fd >= 0) {
		sd_watch_del(listen_fd);
		close(listen_fd);
		listen_fd = -1;
	}
	for (i = 0; i < 2; i++)
		if (port_files[i][0])
			unlink(port_files[i]);
}
