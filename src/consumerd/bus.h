/* SPDX-License-Identifier: MIT */
/*
 * bus.h - the user-space consumer's reads of ring buffers that can shrink
 * under it: a `create --shm-path` buffer is a regular file, which cannot be
 * sealed as the memfds are (ringbuffer.c: F_SEAL_SHRINK), so the session's
 * owner (or a traced program holding its fd) can truncate it, and the
 * consumer's next load from the mapping would be a SIGBUS that kills it,
 * with every other session it serves. Each access to a stream's mapping
 * runs in trawl_cons_guarded(): a SIGBUS there jumps back and the caller
 * abandons that stream (ust-consumer.c: stream_broke()).
 */
#ifndef TRAWL_CONSUMERD_BUS_H
#define TRAWL_CONSUMERD_BUS_H

/* Installs the SIGBUS handler (once, before any mapping is read): a SIGBUS
 * outside trawl_cons_guarded() kills the process as before. 0 or -errno. */
int trawl_cons_bus_init(void);

/*
 * @fn(@arg) with a SIGBUS turned into a jump back: returns what @fn
 * returned, or -EFAULT with *@bus set (then @fn did not finish: what it
 * held, it holds). Called inside another's @fn, it just runs @fn (the
 * outer call catches). Single-threaded (the consumer's one loop).
 */
int trawl_cons_guarded(int (*fn)(void *), void *arg, int *bus);

/* 1 if @fd (a stream's buffer) may shrink under its mapping: not a memfd
 * sealed against it (a --shm-path file). Its packets are then copied out,
 * under the guard, before they are written: a write(2) from a mapping that
 * shrank mid-packet would leave a torn packet in the trace. */
int trawl_cons_fd_shrinkable(int fd);

#endif /* TRAWL_CONSUMERD_BUS_H */
