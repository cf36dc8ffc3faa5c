/* SPDX-License-Identifier: MIT */
/*
 * agent-internal.h - what the files of libtrawl-ust's agent share: a
 * connection to a session daemon, the waiting state, and the calls between
 *   agent.c       the agent thread: connections, registration, fork
 *   agent-wait.c  the early-events wait and a late daemon's tally
 *   agent-cmd.c   the daemon's commands, and the channels they make
 * Not for the rest of the library (ust.h is its interface to the agent).
 */
#ifndef TRAWL_UST_AGENT_INTERNAL_H
#define TRAWL_UST_AGENT_INTERNAL_H

#include "ust/ust.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

struct trawl_ust_conn {
	int fd;
	int root;
	int pending_fd; /* connected, not yet registered (agent start) */
	/* Under trawl_ust_agent_reg_lock (agent-wait.c's top comment): */
	int tried, absent;
	uint64_t done_gen;
	uint64_t generation; /* registry generation sent */
	/* The daemon's REGISTRATION_DONE came for this connection, and said
	 * it takes EVENTS_ADDED; an addition awaits its REGISTRATION_DONE. */
	int done_once, takes_added, adding;
	struct trawl_ust_event_desc **events; /* the daemon's event indices */
	uint32_t nr_events;
	struct trawl_ust_chan *chans;
	/* The daemon was late (trawl_ust_agent_wait_registered() gave up):
	 * events are counted until its setup of registry generation
	 * tally_gen is complete (slots.c). Under trawl_ust_lock. */
	struct trawl_ust_tally *tally;
	uint64_t tally_gen;
	/* Whole messages to the daemon: the agent's and a destructor's TALLY
	 * (a leaf lock: taken with no other held). fd changes under it. */
	pthread_mutex_t send_lock;
	int reg_sent; /* under trawl_ust_agent_reg_lock: this fd's registration went whole */
	/* The registration's progress, for a waiter at exit (reg_wait_sent()):
	 * steps taken (connect, each message sent), and whether the agent
	 * waits on the daemon (in connect(), or for room in the socket).
	 * Relaxed: the waiter only looks whether they move. */
	uint32_t reg_progress;
	int reg_waiting;
	/* The tally's memfd (wire.h TALLY_SHM), made at the connection's first
	 * tally: its head, mapped for ever (a probe may count into it), and
	 * its fd, under trawl_ust_lock; reg_whole and tshm_sent are under
	 * send_lock: the registration went whole on fd, and the memfd too. */
	struct trawl_wire_tally_head *tshm;
	int tshm_fd;
	uint32_t tshm_nr_max; /* its entries (tally_shm_entries()) */
	int reg_whole, tshm_sent;
	/* This connection's notification ring (wire.h NOTIFIER), or NULL;
	 * under trawl_ust_lock, published in trawl_ust_notifies[] too. */
	struct trawl_ust_notify *notify;
};

/* agent.c: the user's daemon's connection [0] and root's [1]; the
 * process's name (its main thread's, taken at start and in a fork child),
 * for REGISTER and the state dump. */
extern struct trawl_ust_conn trawl_ust_agent_conns[2];
extern char trawl_ust_agent_procname[17];

/* agent-wait.c: the waiting state (agent-wait.c's top comment): each
 * connection's tried, absent, done_gen and reg_sent are under reg_lock,
 * reg_cond (CLOCK_MONOTONIC) broadcast on every change; running: the
 * agent thread runs (under reg_lock). */
extern pthread_mutex_t trawl_ust_agent_reg_lock;
extern pthread_cond_t trawl_ust_agent_reg_cond;
extern int trawl_ust_agent_running;

/* agent.c: the daemon's apps.sock for @c in @sa: 0, or -errno (-EEXIST:
 * the root connection would be the user's). */
int trawl_ust_agent_sock_path(const struct trawl_ust_conn *c, struct sockaddr_un *sa);
/* agent.c: sends @len bytes whole on @fd, saying when it waits for room in
 * the socket (@c->reg_waiting) and counting each message sent
 * (@c->reg_progress). 0 or -errno. */
int trawl_ust_agent_reg_send(struct trawl_ust_conn *c, int fd, const void *buf, size_t len);

/* agent-wait.c: publishes @c's registration state to waiters; @done_gen 0
 * leaves it unchanged unless @reset. */
void trawl_ust_agent_reg_publish(struct trawl_ust_conn *c, int absent, uint64_t done_gen, int reset);
/* agent-wait.c: TRAWL_UST_REGISTER_TIMEOUT in ms (0: no wait, no tally). */
long trawl_ust_agent_register_timeout_ms(void);
/* agent-wait.c: the daemon's setup of @c is complete up to its generation
 * (@apply), or will not come: @c's tally ends. Called with no lock held. */
void trawl_ust_agent_tally_done(struct trawl_ust_conn *c, int apply);
/* agent-wait.c: forgets @c's tally memfd (the mapping stays).
 * trawl_ust_lock held. */
void trawl_ust_agent_tally_shm_detach(struct trawl_ust_conn *c);
/* agent-wait.c: sends @c's tally memfd to the daemon after the
 * registration (@wait: waits for that to go). Called with no lock held. */
void trawl_ust_agent_tally_shm_send(struct trawl_ust_conn *c, int wait);

/* agent-cmd.c: makes @ch unreachable from the fast path, its memory kept
 * mapped. trawl_ust_lock held; @ch off its list. */
void trawl_ust_agent_chan_drop(struct trawl_ust_chan *ch);
/* agent-cmd.c: unpublishes @c's notification ring (kept mapped). */
void trawl_ust_agent_notify_forget(struct trawl_ust_conn *c);
/* agent-cmd.c: reads one command from @c (and the fds sent with it) and
 * answers it: 0, or -errno with the connection to be closed. */
int trawl_ust_agent_serve_one(struct trawl_ust_conn *c);

#endif /* TRAWL_UST_AGENT_INTERNAL_H */
