/* SPDX-License-Identifier: MIT */
/*
 * ustabi.h - the app ABI: what libtrawl-ust (src/ust) and the daemons
 * (src/ustctl, and through it trawl-sessiond and trawl-consumerd) must agree
 * on besides the messages themselves (wire.h): name sizes, the types of
 * event fields, the context fields an app writes before each payload and
 * the perf counters it may add. Both sides link trawl-ustabi; neither
 * includes the other's headers.
 *
 * The names keep the TRAWL_USTCTL_ prefix they had when this lived in
 * ustctl.h, the daemons' API, which still offers them (it includes this
 * header): renaming every user at once would only churn.
 */
#ifndef TRAWL_USTABI_H
#define TRAWL_USTABI_H

#include <stdint.h>

#include "common/fdmsg.h"

#define TRAWL_USTCTL_NAME_MAX 256    /* bytes, NUL included: "provider:event" */
#define TRAWL_USTCTL_FIELD_NAME_MAX 64
#define TRAWL_USTCTL_PROCNAME_MAX 17 /* 16 + NUL, as the kernel's comm */
#define TRAWL_USTCTL_MAX_STREAMS TRAWL_FDMSG_MAX_FDS /* fds in one CHANNEL message */
#define TRAWL_USTCTL_CLOCK_NAME_MAX 64  /* bytes, NUL included: an app clock's name (a TSDL identifier) */
#define TRAWL_USTCTL_CLOCK_DESC_MAX 256 /* bytes, NUL included: its description */
#define TRAWL_USTCTL_CLOCK_FREQ_MAX 1000000000000ull /* Hz: 1 THz at most */

enum trawl_ustctl_field_type {
	TRAWL_USTCTL_FIELD_INTEGER = 1, /* size_bits, is_signed, base, byte_order */
	TRAWL_USTCTL_FIELD_FLOAT = 2,   /* size_bits: 32 or 64 (IEEE 754) */
	TRAWL_USTCTL_FIELD_STRING = 3,  /* NUL-terminated UTF-8 */
	TRAWL_USTCTL_FIELD_ARRAY = 4,   /* length elements; element = the integer attrs */
	TRAWL_USTCTL_FIELD_SEQUENCE = 5, /* length in field @length_name (the field just
					    before, "_<name>_length"); element = integer attrs */
	TRAWL_USTCTL_FIELD_ENUM = 6,    /* container = the integer attrs; enum_* */
};

enum trawl_ustctl_byte_order {
	TRAWL_USTCTL_BYTE_ORDER_NATIVE = 0,
	TRAWL_USTCTL_BYTE_ORDER_BE = 1, /* ctf_integer_network */
};

/*
 * Context fields: written by the app before each event's payload in a
 * channel sent with them, in the order of these bits, byte-aligned, host
 * byte order, then the perf counters (struct trawl_ustctl_contexts) in the
 * order they were added. The metadata's stream event context must declare
 * exactly the chosen ones, in this order, with these names and types.
 */
enum trawl_ustctl_context {
	TRAWL_USTCTL_CTX_VPID = 1u << 0,       /* int32_t "vpid" */
	TRAWL_USTCTL_CTX_VTID = 1u << 1,       /* int32_t "vtid" */
	TRAWL_USTCTL_CTX_PID = 1u << 2,        /* int32_t "pid" (same values: no pid namespaces) */
	TRAWL_USTCTL_CTX_TID = 1u << 3,        /* int32_t "tid" */
	TRAWL_USTCTL_CTX_PROCNAME = 1u << 4,   /* char[17], text (UTF-8), "procname": the
						  thread's name when it first recorded */
	TRAWL_USTCTL_CTX_PTHREAD_ID = 1u << 5, /* uint64_t, base 16, "pthread_id" */
	TRAWL_USTCTL_CTX_PPID = 1u << 6,       /* int32_t "ppid" (at registration) */
	TRAWL_USTCTL_CTX_IP = 1u << 7,         /* uint64_t, base 16, "ip": the call site */
	TRAWL_USTCTL_CTX_PRIO = 1u << 8,       /* int32_t "prio": as the kernel's prio context
						  (/proc's "priority"): 20 + nice, or -1 - rt
						  priority, -101 for SCHED_DEADLINE; read at
						  each event (src/ust/fastpath.c) */
	TRAWL_USTCTL_CTX_NICE = 1u << 9,       /* int32_t "nice", -20..19, read at each event */
	/* The thread's namespaces (ABI minor >= 10): each a uint64_t, base 10,
	 * the inode number of /proc/thread-self/ns/NAME (as LTTng-UST's
	 * "cgroup_ns"...: what `stat -L -c %i /proc/self/ns/cgroup` prints),
	 * 0 where the kernel has no such namespace; read once per thread, at
	 * its first event recording it (a fork child's threads read their
	 * own): a thread that unshare(2)s or setns(2)es later keeps the ones
	 * it had (src/ust/context.c). */
	TRAWL_USTCTL_CTX_CGROUP_NS = 1u << 10,
	TRAWL_USTCTL_CTX_IPC_NS = 1u << 11,
	TRAWL_USTCTL_CTX_MNT_NS = 1u << 12,
	TRAWL_USTCTL_CTX_NET_NS = 1u << 13,
	TRAWL_USTCTL_CTX_PID_NS = 1u << 14,
	TRAWL_USTCTL_CTX_TIME_NS = 1u << 15,
	TRAWL_USTCTL_CTX_USER_NS = 1u << 16,
	TRAWL_USTCTL_CTX_UTS_NS = 1u << 17,
};
#define TRAWL_USTCTL_CTX_ALL 0x3ffffu
#define TRAWL_USTCTL_CTX_NS_FIRST 10 /* the bit of cgroup_ns; the others follow */
#define TRAWL_USTCTL_CTX_NS_COUNT 8
#define TRAWL_USTCTL_CTX_NS_ALL 0x3fc00u

/* Bytes the context bits @contexts take before each payload (without
 * counters: trawl_ustctl_contexts_size()). */
uint32_t trawl_ustctl_context_size(uint32_t contexts);

/*
 * Per-thread perf counters (`add-context -u -t perf:thread:NAME`, as
 * LTTng-UST): each traced thread opens its own counter at its first event in
 * the channel and writes its value (uint64_t, base 10) at each event.
 * TRAWL_USTCTL_COUNTER_UNAVAILABLE is recorded by a thread that could not
 * open (or read) it: never a real count.
 */
#define TRAWL_USTCTL_MAX_COUNTERS 16 /* per channel */
#define TRAWL_USTCTL_COUNTER_UNAVAILABLE UINT64_MAX

/*
 * Application contexts ($app.PROVIDER:NAME, LTTng's; ABI minor >= 11): a
 * channel may record up to TRAWL_USTCTL_MAX_APP_CTX of them, after the
 * perf counters, in the order added. Each is a value of a type chosen per
 * event by the provider the process registered under $app.PROVIDER
 * (src/ust/app-context.c; LTTng's Java agent registers one per
 * IContextInfoRetriever), laid out as LTTng-UST 2.13 lays out its dynamic
 * type: a signed 8-bit tag (enum trawl_ustctl_app_type, labels "_none",
 * "_int8"...) then the value of that type, byte-aligned, host byte order
 * (nothing for NONE; a string with its NUL). No provider, or one that has
 * no value for NAME, records NONE.
 */
#define TRAWL_USTCTL_MAX_APP_CTX 16
#define TRAWL_USTCTL_APP_CTX_NAME_MAX 128 /* bytes, NUL included: "$app.PROVIDER:NAME" */
/* A string value's bytes at most, NUL excluded: a longer one is cut there
 * (at a UTF-8 character's start). */
#define TRAWL_USTCTL_APP_CTX_STRING_MAX 1024

enum trawl_ustctl_app_type {
	TRAWL_USTCTL_APP_NONE = 0,
	TRAWL_USTCTL_APP_S8 = 1,
	TRAWL_USTCTL_APP_S16 = 2,
	TRAWL_USTCTL_APP_S32 = 3,
	TRAWL_USTCTL_APP_S64 = 4,
	TRAWL_USTCTL_APP_U8 = 5,
	TRAWL_USTCTL_APP_U16 = 6,
	TRAWL_USTCTL_APP_U32 = 7,
	TRAWL_USTCTL_APP_U64 = 8,
	TRAWL_USTCTL_APP_FLOAT = 9,
	TRAWL_USTCTL_APP_DOUBLE = 10,
	TRAWL_USTCTL_APP_STRING = 11,
	TRAWL_USTCTL_NR_APP_TYPES = 12,
};

/* The bytes of a fixed-width value of @type in a record; 0 for NONE, a
 * STRING (sized by its NUL) and an unknown type. The app writes by it, the
 * daemon parses by it. */
static inline unsigned trawl_ustctl_app_type_size(uint32_t type)
{
	switch (type) {
	case TRAWL_USTCTL_APP_S8:
	case TRAWL_USTCTL_APP_U8:
		return 1;
	case TRAWL_USTCTL_APP_S16:
	case TRAWL_USTCTL_APP_U16:
		return 2;
	case TRAWL_USTCTL_APP_S32:
	case TRAWL_USTCTL_APP_U32:
	case TRAWL_USTCTL_APP_FLOAT:
		return 4;
	case TRAWL_USTCTL_APP_S64:
	case TRAWL_USTCTL_APP_U64:
	case TRAWL_USTCTL_APP_DOUBLE:
		return 8;
	default:
		return 0;
	}
}

/*
 * 1 if @name is an application context's name both sides accept:
 * "$app.PROVIDER:NAME", PROVIDER and NAME each at least one of
 * [A-Za-z0-9_.] (LTTng's Java agent's rule for a retriever's name; NAME
 * may have more ':'), shorter than TRAWL_USTCTL_APP_CTX_NAME_MAX, so that
 * its CTF field name ('$', '.' and ':' made '_', as LTTng's) is an
 * identifier.
 */
int trawl_ustctl_app_ctx_name_valid(const char *name);

/* @name's CTF field name into @out (TRAWL_USTCTL_APP_CTX_NAME_MAX bytes):
 * "$app.a:b" -> "_app_a_b", as LTTng's sessiond writes it. */
void trawl_ustctl_app_ctx_field_name(const char *name, char *out);

#endif /* TRAWL_USTABI_H */
