/* SPDX-License-Identifier: MIT */
/*
 * ust-consumer.c - the user-space consumers (trawl-consumerd --ust): one per
 * owner, shared by the owner's sessions; commands to them are pipelined
 * (see the design comment in domain-ust.c).
 *
 * One file past 1,000 lines, kept so for now: a consumer's life (spawned
 * as its owner, pipelined commands and their replies, a restart replaying
 * the sessions it held, reaped through its pidfd however long its owner's
 * file system holds it) is one state machine over struct ust_consumer, and
 * each part changes that state the others read. The process part (spawn,
 * reap: cons_exec(), cons_gone() .. cons_reap(), cons_wait_gone()) is the
 * one to move out first when it grows.
 */
#include "common/common.h"
#include "sessiond/ust-internal.h"
#include "common/io.h"
#include "common/fdmsg.h"
#include "common/ids.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct ust_consumer *consumers;
uint64_t next_trace_key; /* unique in the daemon: consumers are shared */

#ifndef P_PIDFD
#define P_PIDFD 3 /* waitid()'s idtype for a pidfd (Linux 5.4) */
#endif

/* A consumer's pidfd in the loop: it went, reaped through the pidfd (the
 * process it names, never a later one with its pid). */
static void cons_gone(int fd, short revents, void *arg)
{
	siginfo_t si;

	(void)revents;
	(void)arg;
	memset(&si, 0, sizeof(si));
	if (waitid((idtype_t)P_PIDFD, (id_t)fd, &si, WEXITED | WNOHANG) == 0 && !si.si_pid)
		return; /* not yet */
	sd_watch_del(fd);
	close(fd);
}

/*
 * Reaps @pid, a consumer that was killed or told to quit, once it is gone,
 * without waiting for it: the loop watches its pidfd. SIGKILL ends a
 * process only once it leaves the kernel, and the owner's file system (a
 * FUSE file system of theirs, a stopped NFS server) holds a consumer
 * writing there, unkillable, for as long as it likes: a waitpid() for it
 * held the root daemon, everyone's commands behind it
 * (security-held-consumer). If the pidfd cannot be had, @pid stays a
 * zombie until the daemon exits.
 */
static void cons_reap_later(pid_t pid)
{
	int fd;

	if (waitpid(pid, NULL, WNOHANG) != 0)
		return; /* gone, reaped now (or not ours any more) */
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 || sd_watch_add(fd, cons_gone, NULL)) {
		if (fd >= 0)
			close(fd);
		sd_log("user-space consumer (pid %d): not gone after it was stopped, and cannot be "
		       "watched: left unreaped", (int)pid);
		return;
	}
	sd_watch_nested(fd, 1);
}

/*
 * Waits for a consumer that closed its end (or was found dead) to be gone
 * for good: one that is still running (it closes its socket only as it
 * exits, or on a protocol error) is killed first, since the one started
 * in its place reads the same ring buffers. Bounded: 2 s (one the kernel
 * holds longer is reaped when it goes, cons_reap_later(), and none is
 * started in its place until then). Returns 1 with *@status set once
 * reaped, else 0.
 */
static int cons_reap(struct ust_consumer *c, int *status)
{
	struct timespec ms = {0, 1000000};
	int i;

	for (i = 0; i < 2000; i++) {
		pid_t r = waitpid(c->pid, status, WNOHANG);

		if (r == c->pid || (r < 0 && errno == ECHILD))
			return r == c->pid;
		if (i == 0)
			kill(c->pid, SIGKILL);
		nanosleep(&ms, NULL);
	}
	cons_reap_later(c->pid);
	return 0;
}

static int cons_restart(struct ust_consumer *c);

/*
 * Commands go out without waiting: each is queued whole (header, payload,
 * its fds dup()ed) and written as the consumer's socket takes it, the
 * loop watching for POLLOUT while some are left; replies are read as they
 * come, whole or in parts. So a consumer that stops reading (SIGSTOP, a
 * folder its owner holds up) holds nothing but its own sessions' commands:
 * they wait in the queue, and it is killed (and started again) once it has
 * not answered for CONS_ASYNC_MS while replies are owed (cons_arm()). The
 * queue is bounded besides: past CONS_OUT_MAX bytes or cons_out_max_fds()
 * fds, the consumer is taken for hung at once.
 */
struct cons_out {
	struct cons_out *next;
	size_t len, off;  /* bytes of the message, written */
	uint32_t nr_fds;  /* fds[], owned: sent with the first byte */
	unsigned char *msg; /* header then payload, in the same allocation */
	int fds[];
};

#define CONS_OUT_MAX (256u << 20) /* bytes queued for one consumer, at most */

/* The fds its queue may hold (the streams of the channels not sent yet):
 * an eighth of the daemon's, so that a consumer that reads nothing cannot
 * take the fds the daemon serves everyone with. */
static uint64_t cons_out_max_fds(void)
{
	return sd.fd_limit / 8 > 256 ? sd.fd_limit / 8 : 256;
}

/* Frees @c's queue (its fds closed). */
static void cons_out_drop(struct ust_consumer *c)
{
	while (c->out) {
		struct cons_out *o = c->out;
		uint32_t i;

		c->out = o->next;
		for (i = 0; i < o->nr_fds; i++)
			close(o->fds[i]);
		free(o);
	}
	c->out_tail = &c->out;
	c->out_bytes = 0;
	c->out_fds = 0;
}

void cons_dead(struct ust_consumer *c, int status_known, int status)
{
	int reaped;

	if (!c->alive)
		return;
	c->alive = 0;
	c->pending = 0;
	cons_out_drop(c);
	sd_watch_del(c->fd);
	close(c->fd);
	c->fd = -1;
	reaped = status_known || cons_reap(c, &status);
	if (reaped && WIFSIGNALED(status))
		trawl_msg_fmt(c->msg, sizeof(c->msg), "consumer died (signal %d)",
			      WTERMSIG(status));
	else if (reaped && WIFEXITED(status))
		trawl_msg_fmt(c->msg, sizeof(c->msg), "consumer exited (status %d)",
			      WEXITSTATUS(status));
	else
		trawl_msg_fmt(c->msg, sizeof(c->msg), "consumer died");
	sd_log("uid %d's user-space consumer (pid %d): %s", (int)c->uid, (int)c->pid, c->msg);
	/* Its sessions' buffers are still there (we hold the memfds): another
	 * consumer empties them (cons_restart()). Not from inside a restart:
	 * that one tries again itself. */
	if (reaped && c->refs > 0 && !c->restarting)
		cons_restart(c);
	if (apps_chans_wait(NULL))
		apps_chans_kick(); /* its live channels: not waited for any more */
}

/*
 * While replies are owed, the next comes within this of the consumer's
 * previous answer, or the consumer is taken for hung: its own
 * bounds are a round of draining and a command (TRAWL_OUTPUT_ROUND_MS +
 * TRAWL_OUTPUT_COMMAND_MS: 13 s) whatever relayd does. Generous, as the
 * kernel consumer's: only the session's own stop waits that long.
 */
#define CONS_ASYNC_MS 30000

/* 1 if some session of @c awaits a reply without blocking (@status: a
 * STATUS asked by `trawl status` too). */
static int cons_owed(const struct ust_consumer *c, int status)
{
	const struct trawl_domain_session *s;

	for (s = sessions; s; s = s->next)
		if (s->cons == c && ((s->wait_cmd && !s->wait_over) ||
				     (status && s->status_asked && s->status_gen == c->generation)))
			return 1;
	return 0;
}

int cons_busy(const struct trawl_domain_session *s)
{
	return s->cons && s->cons->alive && cons_owed(s->cons, 0);
}

static void cons_async_expired(int fd, void *arg)
{
	struct ust_consumer *c = arg;

	(void)fd;
	sd_log("uid %d's user-space consumer (pid %d) did not answer within %d ms: killed",
	       (int)c->uid, (int)c->pid, CONS_ASYNC_MS);
	cons_dead(c, 0, 0); /* restarted: cons_async_done() asks the new one */
}

/*
 * What @c's socket is watched for (POLLOUT while commands are queued), and
 * the deadline of its answers while replies are owed: CONS_ASYNC_MS after
 * its last answer (or the first command owed since it was idle).
 */
static void cons_arm(struct ust_consumer *c)
{
	if (!c->alive)
		return;
	sd_watch_events(c->fd, (short)(POLLIN | (c->out ? POLLOUT : 0)));
	sd_watch_deadline(c->fd, c->pending > 0 || c->out ? c->progress_ms + CONS_ASYNC_MS : 0,
			  cons_async_expired);
}

/* Reply number c->answered, @r, is in: the session awaiting it has it. */
static void cons_async_reply(struct ust_consumer *c, const struct trawl_cons_reply *r)
{
	struct trawl_domain_session *s;

	for (s = sessions; s; s = s->next) {
		if (s->cons != c)
			continue;
		if (s->wait_cmd && !s->wait_over && s->wait_gen == c->generation &&
		    c->answered > s->wait_from && c->answered < s->wait_at && r->status &&
		    !s->wait_first_err)
			s->wait_first_err = r->status;
		if (s->wait_cmd && !s->wait_over && s->wait_gen == c->generation &&
		    s->wait_at == c->answered) {
			s->wait_reply = *r;
			s->wait_over = 1;
		}
		if (s->status_asked && s->status_gen == c->generation &&
		    s->status_at == c->answered) {
			s->status_asked = 0;
			s->status_fresh = 1;
			cons_counters_take(s, r);
			memcpy(s->status_msg, r->msg, sizeof(s->status_msg));
			s->status_msg[sizeof(s->status_msg) - 1] = '\0';
		}
	}
	cons_arm(c);
}

/* Reply number c->answered + 1, @r, is in. Returns its status. */
static int cons_reply_in(struct ust_consumer *c, const struct trawl_cons_reply *r)
{
	c->pending--;
	c->answered++;
	c->last = *r;
	c->progress_ms = sd_now_ms();
	cons_async_reply(c, r);
	if (apps_chans_wait(NULL))
		apps_chans_kick(); /* maybe a live channel's streams are on relayd */
	if (r->status)
		sd_log("uid %d's consumer: %s", (int)c->uid, strerror(-r->status));
	return r->status;
}

/*
 * Reads what replies have come, without waiting (a part of one is kept
 * for later). Returns the first failed status among them, or 0; the
 * consumer is dead (and maybe restarted) after a protocol error.
 */
static int cons_read_replies(struct ust_consumer *c)
{
	int first = 0;

	while (c->alive) {
		ssize_t n = recv(c->fd, c->rbuf + c->rgot, sizeof(c->rbuf) - c->rgot, MSG_DONTWAIT);
		struct trawl_cons_reply r;
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		/* closed, an error, or a reply nobody asked for */
		if (n <= 0 || c->pending <= 0) {
			cons_dead(c, 0, 0); /* restarted: what was pending is replayed */
			break;
		}
		c->rgot += (size_t)n;
		if (c->rgot < sizeof(c->rbuf))
			continue;
		c->rgot = 0;
		memcpy(&r, c->rbuf, sizeof(r));
		if (r.magic != TRAWL_CONS_MAGIC) {
			cons_dead(c, 0, 0);
			break;
		}
		/* The consumer runs as the session's owner, who can answer in
		 * its place: its line reaches root's terminal (`list`'s
		 * Problem, a stop's or a rotation's failure), so no escape
		 * sequence of theirs stays in it (security-cons-line). */
		r.msg[sizeof(r.msg) - 1] = '\0';
		trawl_str_printable(r.msg);
		ret = cons_reply_in(c, &r);
		if (ret && !first)
			first = ret;
	}
	return first;
}

/* Writes what the socket takes of @c's queue. 0, or -errno (then dead). */
static int cons_write(struct ust_consumer *c)
{
	while (c->alive && c->out) {
		struct cons_out *o = c->out;
		ssize_t n;

		if (!o->off) {
			struct iovec v = {o->msg, o->len};

			n = trawl_fdmsg_sendmsg(c->fd, &v, 1, o->fds, o->nr_fds, MSG_DONTWAIT);
		} else {
			n = send(c->fd, o->msg + o->off, o->len - o->off, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0)
				n = -errno;
		}
		if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
			break;
		if (n < 0)
			return (int)n;
		if (!o->off) {
			uint32_t i;

			for (i = 0; i < o->nr_fds; i++) /* (the consumer has its own now) */
				close(o->fds[i]);
			c->out_fds -= o->nr_fds;
			o->nr_fds = 0;
		}
		o->off += (size_t)n;
		if (o->off < o->len)
			break;
		c->out = o->next;
		if (!c->out)
			c->out_tail = &c->out;
		c->out_bytes -= o->len;
		free(o);
	}
	return 0;
}

static void cons_readable(int fd, short revents, void *arg)
{
	struct ust_consumer *c = arg;

	(void)fd;
	if ((revents & POLLOUT) && cons_write(c)) {
		cons_dead(c, 0, 0);
		return;
	}
	if (revents & POLLIN)
		cons_read_replies(c);
	else if (revents & (POLLERR | POLLHUP | POLLNVAL))
		cons_dead(c, 0, 0);
	cons_arm(c);
}

/* A command could not be sent: the consumer is dead. If another one took
 * its place, it was told the state of every session (cons_restart()),
 * which is what every command but SNAPSHOT says: the command is done. */
static int cons_send_failed(struct ust_consumer *c, uint16_t cmd, int err)
{
	cons_dead(c, 0, 0);
	return c->alive && cmd != TRAWL_CONS_SNAPSHOT ? 0 : err;
}

/* Queues a command for @c (its reply counted as owed) and writes what the
 * socket takes now: never waits. 0 or -errno. */
static int cons_send_to(struct ust_consumer *c, uint16_t cmd, uint64_t session_key,
			uint64_t trace_key, uint64_t chan_key, const void *payload, uint32_t size,
			const int *fds, uint32_t nr_fds)
{
	struct trawl_cons_hdr h = {
		.magic = TRAWL_CONS_MAGIC,
		.version = TRAWL_CONS_VERSION,
		.cmd = cmd,
		.size = size,
		.nr_fds = nr_fds,
		.session_key = session_key,
		.trace_key = trace_key,
		.channel_key = chan_key,
	};
	struct cons_out *o;
	uint32_t i;
	int ret;

	if (!c || !c->alive)
		return -EPIPE;
	if (nr_fds > TRAWL_FDMSG_MAX_FDS)
		return -EINVAL;
	o = malloc(sizeof(*o) + nr_fds * sizeof(int) + sizeof(h) + size);
	if (!o)
		return -ENOMEM;
	o->next = NULL;
	o->len = sizeof(h) + size;
	o->off = 0;
	o->msg = (unsigned char *)(o->fds + nr_fds);
	memcpy(o->msg, &h, sizeof(h));
	if (size)
		memcpy(o->msg + sizeof(h), payload, size);
	/* (the caller's fds may be closed before the message is out: ours) */
	for (o->nr_fds = 0; o->nr_fds < nr_fds; o->nr_fds++) {
		o->fds[o->nr_fds] = fcntl(fds[o->nr_fds], F_DUPFD_CLOEXEC, 3);
		if (o->fds[o->nr_fds] < 0) {
			ret = -errno;
			for (i = 0; i < o->nr_fds; i++)
				close(o->fds[i]);
			free(o);
			return ret;
		}
	}
	if (!c->out && !c->pending)
		c->progress_ms = sd_now_ms(); /* (idle until now: the deadline counts from here) */
	*c->out_tail = o;
	c->out_tail = &o->next;
	c->out_bytes += o->len;
	c->out_fds += o->nr_fds;
	c->pending++;
	c->sent++;
	if (c->out_bytes > CONS_OUT_MAX || c->out_fds > cons_out_max_fds()) {
		sd_log("uid %d's user-space consumer (pid %d) left %llu bytes and %llu fds of "
		       "commands unread: killed", (int)c->uid, (int)c->pid,
		       (unsigned long long)c->out_bytes, (unsigned long long)c->out_fds);
		return cons_send_failed(c, cmd, -ENOBUFS);
	}
	ret = cons_write(c);
	if (ret)
		return cons_send_failed(c, cmd, ret);
	cons_arm(c);
	return 0;
}

/*
 * Whether @s streams to a live relayd: its output is a relay destination
 * (consumerd/output.h: relay:SESSION,HOSTNAME,CTIME,LIVE_US,...) whose
 * fourth field, the live timer, is not 0.
 */
static int session_live(const struct trawl_domain_session *s)
{
	const char *p = s->output;
	int i;

	if (strncmp(p, "relay:", 6))
		return 0;
	for (i = 0; i < 3 && p; i++)
		p = strchr(p + (i ? 1 : 6), ',');
	return p && p[1] >= '0' && p[1] <= '9' && strtoul(p + 1, NULL, 10) != 0;
}

/* Sends a command about session @s (and fds); its reply is read later.
 * Returns 0 or a negative errno. */
int cons_send(struct trawl_domain_session *s, uint16_t cmd, uint64_t trace_key,
	      uint64_t chan_key, const void *payload, uint32_t size, const int *fds,
	      uint32_t nr_fds)
{
	return cons_send_to(s->cons, cmd, s->id, trace_key, chan_key, payload, size, fds, nr_fds);
}

/*
 * A live session's ADD_CHANNEL is answered once the channel's streams and
 * their first packets are on relayd (consumerd/ust-consumer.c), and the
 * app must not get the channel, so record, before that: the apps wait for
 * that reply, the loop does not (app_sync(), apps_chans_ready()).
 */
void cons_chan_sent(struct trawl_domain_session *s, struct trace_chan *tc)
{
	tc->ready_at = 0;
	if (!session_live(s) || !cons_alive(s))
		return;
	tc->ready_gen = s->cons->generation;
	tc->ready_at = s->cons->sent;
}

int cons_chan_ready(const struct trawl_domain_session *s, const struct trace_chan *tc)
{
	const struct ust_consumer *c = s->cons;

	/* (a consumer started in another's place is told of it by the replay:
	 * not waited for, as that one's first answer was not) */
	return !tc->ready_at || !c || !c->alive || c->generation != tc->ready_gen ||
	       c->answered >= tc->ready_at;
}

/* Sends @cmd about @s (the awaited command with its payload), its reply
 * to be awaited without blocking. */
static int cons_async_send(struct trawl_domain_session *s, uint16_t cmd)
{
	struct ust_consumer *c = s->cons;
	uint32_t gen = c->generation;
	uint32_t size = cmd == s->wait_cmd ? s->wait_size : 0;
	int ret = cons_send_to(c, cmd, s->id, 0, 0, size ? &s->wait_payload : NULL, size, NULL, 0);

	if (ret)
		return ret;
	/* (restarted meanwhile: gen is no longer the consumer's, and
	 * cons_async_done() asks the new one) */
	s->wait_gen = gen;
	s->wait_at = c->sent;
	s->wait_over = 0;
	cons_arm(c);
	return 0;
}

int cons_status_ask(struct trawl_domain_session *s)
{
	struct ust_consumer *c = s->cons;

	if (!c || !c->alive)
		return 0;
	if (s->status_asked && s->status_gen == c->generation)
		return -EINPROGRESS; /* one asked already: its answer serves this one too */
	if (cons_send_to(c, TRAWL_CONS_STATUS, s->id, 0, 0, NULL, 0, NULL, 0) || !c->alive)
		return 0;
	s->status_asked = 1;
	s->status_gen = c->generation;
	s->status_at = c->sent;
	cons_arm(c);
	return -EINPROGRESS;
}

int cons_status_pending(struct trawl_domain_session *s)
{
	struct ust_consumer *c = s->cons;

	if (s->status_asked && (!c || !c->alive || c->generation != s->status_gen))
		s->status_asked = 0; /* gone, or restarted: the counters as they are */
	return s->status_asked;
}

int cons_async(struct trawl_domain_session *s, uint16_t cmd)
{
	return cons_async_with(s, cmd, NULL, 0);
}

static int cons_async_begin(struct trawl_domain_session *s, uint16_t cmd, uint64_t from,
			    const void *payload, uint32_t size);

int cons_async_with(struct trawl_domain_session *s, uint16_t cmd, const void *payload,
		    uint32_t size)
{
	return cons_async_begin(s, cmd, s->cons ? s->cons->sent : 0, payload, size);
}

int cons_async_after(struct trawl_domain_session *s, uint16_t cmd, uint64_t from)
{
	return cons_async_begin(s, cmd, from, NULL, 0);
}

static int cons_async_begin(struct trawl_domain_session *s, uint16_t cmd, uint64_t from,
			    const void *payload, uint32_t size)
{
	int ret;

	if (size > sizeof(s->wait_payload))
		return -E2BIG;
	if (size)
		memcpy(&s->wait_payload, payload, size);
	s->wait_size = size;
	s->wait_cmd = 0;
	if (!cons_alive(s))
		return 0;
	s->wait_cmd = cmd;
	s->wait_from = from;
	s->wait_first_err = 0;
	s->wait_tries = 0;
	s->wait_died[0] = '\0';
	memset(&s->wait_reply, 0, sizeof(s->wait_reply));
	ret = cons_async_send(s, cmd);
	if (ret)
		s->wait_cmd = 0;
	return ret ? ret : -EINPROGRESS;
}

int cons_async_done(struct trawl_domain_session *s, struct trawl_cons_reply *reply, int *ret)
{
	struct ust_consumer *c = s->cons;

	*ret = 0;
	memset(reply, 0, sizeof(*reply));
	if (!s->wait_cmd)
		return 1;
	if (!c || !c->alive) {
		/* dead for good: what it wrote is the trace (status says so) */
		s->wait_cmd = 0;
		return 1;
	}
	if (!s->wait_over && s->wait_gen != c->generation) {
		/*
		 * Restarted: the new one was told the session's state (a
		 * stopped session is flushed again, a rotated one's traces are
		 * in the new chunk: cons_replay()); a stop or rotation asks it
		 * for the counters, the other commands are sent again.
		 */
		uint16_t again = s->wait_cmd == TRAWL_CONS_FLUSH || s->wait_cmd == TRAWL_CONS_ROTATE
					 ? TRAWL_CONS_STATUS
					 : s->wait_cmd;

		if (!s->wait_died[0])
			trawl_msg_fmt(s->wait_died, sizeof(s->wait_died), "%s", c->msg);
		s->wait_from = c->sent; /* (the replay's errors are not the command's) */
		if (++s->wait_tries > 3 || (*ret = cons_async_send(s, again))) {
			s->wait_cmd = 0;
			if (!*ret)
				*ret = -EIO;
			return 1;
		}
	}
	if (!s->wait_over)
		return 0;
	*reply = s->wait_reply;
	*ret = reply->status;
	s->wait_cmd = 0;
	return 1;
}

/*
 * Waits for every pending reply, each within 10 s (then the consumer is
 * killed, and restarted): only at the daemon's exit (its sessions stopped
 * and destroyed there, the consumers told to quit). Returns the first
 * error.
 */
static int cons_sync_c(struct ust_consumer *c)
{
	int ret, first = 0;

	while (c && c->alive && c->pending > 0) {
		struct pollfd p = {.fd = c->fd, .events = (short)(POLLIN | (c->out ? POLLOUT : 0))};

		ret = poll(&p, 1, 10000);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			sd_log("uid %d's user-space consumer (pid %d) did not answer within 10 s: killed",
			       (int)c->uid, (int)c->pid);
			cons_dead(c, 0, 0);
			continue; /* restarted: what it was told is replayed, and waited for */
		}
		if ((p.revents & POLLOUT) && cons_write(c)) {
			cons_dead(c, 0, 0);
			continue;
		}
		ret = 0;
		if (p.revents & POLLIN)
			ret = cons_read_replies(c);
		else if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
			cons_dead(c, 0, 0);
		if (ret && !first)
			first = ret;
	}
	if (c)
		cons_arm(c);
	return c && c->alive ? first : -EPIPE;
}

/*
 * Syncs @s's consumer; the last reply (a session command's) gives @s's
 * counters. If the consumer was restarted meanwhile, the last reply is the
 * replay's: one more STATUS of @s gives them.
 */
int cons_sync(struct trawl_domain_session *s)
{
	int ret, tries;

	for (tries = 0; tries < 3; tries++) {
		uint32_t gen = s->cons ? s->cons->generation : 0;

		ret = cons_sync_c(s->cons);
		if (ret || s->cons->generation == gen)
			break;
		ret = cons_send_to(s->cons, TRAWL_CONS_STATUS, s->id, 0, 0, NULL, 0, NULL, 0);
		if (ret)
			break;
	}
	/* a failed command's reply has the counters too (a stop that lost packets) */
	if (s->cons && s->cons->alive)
		cons_counters_take(s, &s->cons->last);
	return ret;
}

void cons_counters_take(struct trawl_domain_session *s, const struct trawl_cons_reply *r)
{
	s->cons_discarded = r->events_discarded;
	s->cons_tallied = r->events_tallied;
	s->cons_bytes = r->bytes_written;
	memcpy(s->cons_chans, r->chans, sizeof(s->cons_chans));
}

int cons_alive(const struct trawl_domain_session *s)
{
	return s->cons && s->cons->alive;
}

/* Starts c's process (as c->uid/c->gid) on a new socketpair. 0 or -errno (@err set). */
static int cons_exec(struct ust_consumer *c, struct trawl_domain_err *err)
{
	struct trawl_ids ids;
	int sv[2], ret, err_fd = -1;
	pid_t pid;

	if (!consumerd_path || !consumerd_path[0]) {
		trawl_domain_err_set(err, "trawl-consumerd not found beside trawl-sessiond");
		return -ENOENT;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	if (geteuid() == c->uid) {
		/* The common case: posix_spawn (a vfork underneath) keeps this
		 * off the commands' latency, fork would copy the daemon's tables. */
		char *argv[] = {(char *)consumerd_path, (char *)"--ust", (char *)"--fd",
				(char *)"3", NULL};
		posix_spawn_file_actions_t fa;
		posix_spawnattr_t at;
		sigset_t none;

		sigemptyset(&none);
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
		posix_spawnattr_init(&at);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
		ret = posix_spawn(&pid, consumerd_path, &fa, &at, argv, environ);
		posix_spawnattr_destroy(&at);
		posix_spawn_file_actions_destroy(&fa);
		if (ret) {
			errno = ret;
			pid = -1;
		}
	} else {
		char who[48];

		snprintf(who, sizeof(who), "uid %d's consumer", (int)c->uid);
		err_fd = sd_log_pipe(c->uid, who);
		trawl_ids_lookup(c->uid, c->gid, &ids);
		pid = fork();
	}
	if (pid < 0) {
		ret = -errno;
		trawl_domain_err_set(err, "cannot start trawl-consumerd: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		if (err_fd >= 0)
			close(err_fd);
		return ret;
	}
	if (pid == 0) {
		char *argv[] = {(char *)consumerd_path, (char *)"--ust", (char *)"--fd", (char *)"3",
				NULL};
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* The consumer writes the trace: it runs as the session's owner. */
		if (trawl_ids_assume(&ids))
			_exit(126);
		/* Never the daemon's log file (sd_log_pipe()); no pipe: nowhere. */
		if (err_fd < 0)
			err_fd = open("/dev/null", O_WRONLY);
		if (err_fd < 0 || dup2(err_fd, 2) < 0)
			_exit(126);
		if (sv[1] == 3)
			fcntl(3, F_SETFD, 0);
		else
			dup2(sv[1], 3);
		execv(consumerd_path, argv);
		_exit(127);
	}
	close(sv[1]);
	if (err_fd >= 0)
		close(err_fd);
	c->pid = pid;
	c->fd = sv[0];
	c->alive = 1;
	c->pending = 0;
	c->rgot = 0;
	cons_out_drop(c);
	c->sent = c->answered = 0;
	c->generation++;
	c->progress_ms = sd_now_ms();
	sd_watch_add(sv[0], cons_readable, c);
	/* (its commands go out and its replies come in while apps are waited for) */
	sd_watch_nested(sv[0], 1);
	return 0;
}

static struct ust_consumer *cons_spawn(uid_t uid, gid_t gid, struct trawl_domain_err *err)
{
	struct ust_consumer *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->uid = uid;
	c->gid = gid;
	if (cons_exec(c, err)) {
		free(c);
		return NULL;
	}
	c->next = consumers;
	consumers = c;
	return c;
}

/* The ADD_CHANNEL of @tc (a channel @c of trace @t of @s). */
void cons_channel_msg(const struct trawl_domain_session *s, const struct trace_chan *tc,
		      struct trawl_cons_add_channel *ac)
{
	const struct ust_chan *c = tc->chan;

	memset(ac, 0, sizeof(*ac));
	snprintf(ac->name, sizeof(ac->name), "%s", c->attr.name);
	ac->attr = *trawl_ustctl_channel_attr(tc->rb);
	ac->first_instance_id = (uint64_t)c->index * ac->attr.nr_streams;
	ac->switch_timer_us = c->attr.switch_timer_us;
	ac->read_timer_us = c->attr.read_timer_us;
	ac->snapshot_mode = (uint32_t)s->snapshot;
	ac->tracefile_size = c->attr.tracefile_size;
	ac->tracefile_count = c->attr.tracefile_count;
}

uint32_t cons_channel_fds(const struct trace_chan *tc, struct trawl_cons_add_channel *ac, int *fds)
{
	uint32_t i, n = ac->attr.nr_streams;

	for (i = 0; i < n; i++)
		fds[i] = trawl_ustctl_channel_stream_fd(tc->rb, i);
	if (trawl_ustctl_channel_wake_fd(tc->rb) >= 0) {
		fds[n++] = trawl_ustctl_channel_wake_fd(tc->rb);
		ac->flags |= TRAWL_CONS_F_WAKE;
	}
	return n;
}

/*
 * Not freed at once: a consumer killed before it drained @t would lose
 * what was left, silently. Until its reply, @t stays listed, so a
 * consumer started in its place is told of it (cons_replay()) and drains
 * and removes it in turn.
 */
void cons_remove_trace(struct trawl_domain_session *s, struct ust_trace *t)
{
	struct ust_consumer *c = s->cons;

	t->gone = 1;
	if (!c || !c->alive)
		return;
	if (cons_send_to(c, TRAWL_CONS_REMOVE_TRACE, s->id, t->key, 0, NULL, 0, NULL, 0))
		return;
	t->removed_gen = c->generation;
	t->removed_at = c->sent;
}

int cons_trace_removed(const struct trawl_domain_session *s, const struct ust_trace *t)
{
	const struct ust_consumer *c = s->cons;

	/* A consumer dead for good drains nothing: nothing to wait for. */
	if (!c || !c->alive)
		return 1;
	return t->removed_at && c->generation == t->removed_gen && c->answered >= t->removed_at;
}

/* Tells c (just started) everything about @s: traces, metadata, channels. */
static void cons_replay(struct ust_consumer *c, struct trawl_domain_session *s)
{
	struct trawl_cons_add_channel ac;
	struct trawl_cons_add_trace at;
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	struct ust_trace *t;
	struct trace_chan *tc;

	for (t = s->traces; t && c->alive; t = t->next) {
		memset(&at, 0, sizeof(at));
		snprintf(at.path, sizeof(at.path), "%s", t->path);
		at.flags = TRAWL_CONS_F_RESUME;
		cons_send_to(c, TRAWL_CONS_ADD_TRACE, s->id, t->key, 0, &at, sizeof(at), NULL, 0);
		t->metadata_dirty = 1;
		metadata_push(s, t);
		for (tc = t->chans; tc && c->alive; tc = tc->next) {
			cons_channel_msg(s, tc, &ac);
			ac.flags = TRAWL_CONS_F_RESUME;
			cons_send_to(c, TRAWL_CONS_ADD_CHANNEL, s->id, t->key, tc->chan->index + 1, &ac,
				     sizeof(ac), fds, cons_channel_fds(tc, &ac, fds));
		}
		if (t->gone) /* drained by this one, then removed again */
			cons_remove_trace(s, t);
	}
	/* A stopped session's streams are flushed (again) and paused. */
	if (s->traces && !s->active)
		cons_send_to(c, TRAWL_CONS_FLUSH, s->id, 0, 0, NULL, 0, NULL, 0);
}

/* At most this many restarts of one consumer a minute: one that keeps
 * crashing on start-up is not started for ever. */
#define CONS_RESTARTS_PER_MIN 100

/*
 * A consumer died while sessions use it: start another in its place (same
 * object, so every session still points at it) and replay, for each of
 * them, what the dead one was told. The ring buffers are in the memfds we
 * hold; the new consumer carries on reading each stream where the dead
 * one stopped, and appends to the files after their last whole packet
 * (TRAWL_CONS_F_RESUME): nothing the apps committed is lost.
 */
static int cons_restart(struct ust_consumer *c)
{
	struct trawl_domain_err err = {""};
	struct trawl_domain_session *s;
	time_t now = time(NULL);
	int ret = -EPIPE;

	c->restarting = 1;
	while (!c->alive) {
		if (now - c->restart_window >= 60) {
			c->restart_window = now;
			c->restarts_in_window = 0;
		}
		if (c->restarts_in_window >= CONS_RESTARTS_PER_MIN) {
			sd_log("uid %d's user-space consumer died %d times within a minute: not "
			       "started again", (int)c->uid, CONS_RESTARTS_PER_MIN);
			break;
		}
		c->restarts_in_window++;
		c->restarts++;
		ret = cons_exec(c, &err);
		if (ret) {
			sd_log("uid %d's user-space consumer: %s", (int)c->uid,
			       err.msg[0] ? err.msg : strerror(-ret));
			break;
		}
		for (s = sessions; s && c->alive; s = s->next)
			if (s->cons == c)
				cons_replay(c, s);
		if (c->alive)
			sd_log("uid %d's user-space consumer started again (pid %d)", (int)c->uid,
			       (int)c->pid);
	}
	c->restarting = 0;
	return c->alive ? 0 : ret;
}

/* Gives @s its owner's consumer, started if none runs. */
int cons_get(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct ust_consumer *c;

	if (s->cons) {
		if (s->cons->alive)
			return 0;
		/* Not replaced: the session's data so far is what it wrote. */
		trawl_domain_err_set(err, "%s", s->cons->msg);
		return -EPIPE;
	}
	for (c = consumers; c; c = c->next)
		if (c->alive && c->uid == s->uid && c->gid == s->gid)
			break;
	if (!c)
		c = cons_spawn(s->uid, s->gid, err);
	if (!c)
		return -ENOMEM;
	c->refs++;
	s->cons = c;
	return 0;
}

/* @s is done with its consumer: its files are closed; the last user stops it. */

void cons_put(struct trawl_domain_session *s)
{
	struct ust_consumer *c = s->cons;

	if (!c)
		return;
	s->cons = NULL;
	if (c->alive && !s->released) {
		cons_send_to(c, TRAWL_CONS_REMOVE_SESSION, s->id, 0, 0, NULL, 0, NULL, 0);
		cons_sync_c(c);
	}
	if (--c->refs > 0)
		return;
	/* Kept for the owner's next session (no start-up cost then), until the
	 * daemon exits. */
	if (c->alive)
		return;
	cons_free(c);
}

/*
 * Waits at most @ms for @pid, told to quit, to exit (the daemon's exit: a
 * consumer writes its last packets before it answers QUIT). 0 once reaped,
 * else -1.
 */
static int cons_wait_gone(pid_t pid, int ms)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), ret;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (fd < 0)
		return waitpid(pid, NULL, WNOHANG) != 0 ? 0 : -1;
	do
		ret = poll(&p, 1, ms);
	while (ret < 0 && errno == EINTR);
	close(fd);
	return waitpid(pid, NULL, WNOHANG) != 0 ? 0 : -1;
}

/*
 * Stops (if alive) and frees a consumer no session uses. A consumer that
 * is not gone at once (one killed earlier that its owner's file system
 * still holds; at the daemon's exit, one told to quit still at work past
 * 10 s) is not waited for: cons_reap_later().
 */
void cons_free(struct ust_consumer *c)
{
	struct ust_consumer **pp;
	int told = c->alive;

	c->restarting = 1; /* told to quit: never started again */
	if (c->alive) {
		cons_send_to(c, TRAWL_CONS_QUIT, 0, 0, 0, NULL, 0, NULL, 0);
		if (cons_sync_c(c))
			kill(c->pid, SIGKILL); /* hung: never wait on it forever */
	}
	if (c->alive) {
		/* Told to quit: not a death worth logging. */
		sd_watch_del(c->fd);
		close(c->fd);
		c->alive = 0;
	}
	if (!told || cons_wait_gone(c->pid, 10000))
		cons_reap_later(c->pid);
	for (pp = &consumers; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	free(c);
}
