/* SPDX-License-Identifier: MIT */
/* Mutex operations, as LTTng-UST 2.13's pthread wrapper records them
 * (lttng_ust_pthread:pthread_mutex_lock_req, pthread_mutex_lock_acq,
 * pthread_mutex_trylock, pthread_mutex_unlock); the ip is their caller. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_pthread
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-helpers/tp-pthread.h"
#if !defined(TRAWL_UST_TP_PTHREAD_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_PTHREAD_H
#include <pthread.h>
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_ust_pthread, pthread_mutex_lock_req, TP_ARGS(pthread_mutex_t *, mutex, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, mutex, mutex) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_pthread, pthread_mutex_lock_acq, TP_ARGS(pthread_mutex_t *, mutex, int, status, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, mutex, mutex) ctf_integer(int, status, status) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_pthread, pthread_mutex_trylock, TP_ARGS(pthread_mutex_t *, mutex, int, status, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, mutex, mutex) ctf_integer(int, status, status) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_pthread, pthread_mutex_unlock, TP_ARGS(pthread_mutex_t *, mutex, int, status, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, mutex, mutex) ctf_integer(int, status, status) ctf_unused(ip)))
#endif
#include <trawl/tracepoint-event.h>
