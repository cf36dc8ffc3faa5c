/* SPDX-License-Identifier: MIT */
/*
 * The syscall arguments LTTng-modules 2.13 decodes on x86-64 instead of
 * recording a pointer (include/instrumentation/syscalls/headers/
 * x86-64-syscalls_pointers_override.h and syscalls_pointers_override.h):
 * connect's and accept's socket address (family, port, v4addr, v6addr),
 * poll's and ppoll's struct pollfd array, epoll_wait's and epoll_pwait's
 * returned events, epoll_ctl's op (as LTTng's enum lttng_epoll_op) and
 * event, select's and pselect6's fd sets. Their fields are listed
 * here whole, in LTTng's order, names and types; trawl.bpf.c reads the
 * structures (bpf-records.h's rules, the sizes LTTng copies) and this file
 * turns them into LTTng's values, with LTTng's rules for short lengths,
 * faults, caps (a page of pollfd or epoll_event) and overflow flags.
 *
 * Not done: clone's flag split, which
 * LTTng 2.13 records only when built with CONFIG_LTTNG_EXPERIMENTAL_BITWISE_ENUM
 * (off by default: its Makefile's `?= n`); its default `flags` is the hex
 * integer trawl records (syscalls.c).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/bpf-records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dec_field {
	const char *name;
	const char *type;  /* i32 u32 u64 x32 x64 u8 u16 n16 (network order), dec (TRAWL_KF_DECODED) */
	uint8_t xform;     /* TRAWL_KX_COPY: argument @arg itself */
	int8_t arg, aux;
};

#define DEC_MAX_FIELDS 12

struct dec_sc {
	const char *name;
	struct dec_field in[DEC_MAX_FIELDS], out[DEC_MAX_FIELDS]; /* ended by a NULL name */
	uint32_t bpf_in, bpf_out;
};

#define A(n, t, a) { n, t, TRAWL_KX_COPY, a, 0 }
#define D(n, t, x, a, aux) { n, t, TRAWL_KX_##x, a, aux }
/* LTTng's locvars sa_family, port, v4addr, v6addr of the sockaddr at @a, of length @len */
#define SA(port, a, len)                                                                          \
	D("family", "u16", SA_FAMILY, a, len), D(port, "n16", SA_PORT, a, len),                   \
		D("_v4addr_length", "u32", SA_V4LEN, a, len), D("v4addr", "dec", SA_V4, a, len),  \
		D("_v6addr_length", "u32", SA_V6LEN, a, len), D("v6addr", "dec", SA_V6, a, len)
#define FDSETS                                                                                    \
	D("_readfds_length", "u8", FDSET_LEN, 1, 0), D("readfds", "dec", FDSET, 1, 0),            \
		D("_writefds_length", "u8", FDSET_LEN, 2, 0), D("writefds", "dec", FDSET, 2, 0),  \
		D("_exceptfds_length", "u8", FDSET_LEN, 3, 0), D("exceptfds", "dec", FDSET, 3, 0)
#define PTR2 (2 | TRAWL_KX_AUX_PTR)
#define R(i, r) TRAWL_BPF_SC_RULE(i, TRAWL_BPF_RULE_##r)

static const struct dec_sc dec_scs[] = {
	{ "accept",
	  { A("fd", "i32", 0), A("upeer_sockaddr", "x64", 1), D("upeer_addrlen", "i32", SC_INT1, 2, 0) },
	  { D("upeer_addrlen", "i32", SC_INT1, 2, 0), SA("sport", 1, PTR2) },
	  R(2, INT1), R(1, SOCKADDR) | R(2, INT1) | TRAWL_BPF_SC_ARGS },
	{ "accept4",
	  { A("fd", "i32", 0), A("upeer_sockaddr", "x64", 1), D("upeer_addrlen", "i32", SC_INT1, 2, 0),
	    A("flags", "x32", 3) },
	  { D("upeer_addrlen", "i32", SC_INT1, 2, 0), SA("sport", 1, PTR2) },
	  R(2, INT1), R(1, SOCKADDR) | R(2, INT1) | TRAWL_BPF_SC_ARGS },
	{ "connect",
	  { A("fd", "i32", 0), A("uservaddr", "x64", 1), A("addrlen", "x32", 2), SA("dport", 1, 2) },
	  { A(NULL, NULL, 0) }, /* ret only */
	  R(1, SOCKADDR), 0 },
	{ "epoll_ctl",
	  { A("epfd", "i32", 0), D("op_enum", "dec", EPOLL_OP, 1, 0), A("fd", "i32", 2),
	    D("event", "dec", EPOLL_EVENT, 3, 0) },
	  { A(NULL, NULL, 0) }, /* ret only */
	  R(3, EPEV), 0 },
	{ "epoll_pwait",
	  { A("epfd", "i32", 0), A("maxevents", "i32", 2), A("timeout", "i32", 3), A("sigmask", "x64", 4),
	    A("sigsetsize", "u64", 5) },
	  { D("fds_length", "u32", EPOLL_LEN, 1, 2), D("overflow", "u8", EPOLL_OVF, 1, 2),
	    D("fds", "dec", EPOLL_FDS, 1, 2) },
	  0, R(1, EPOLL) | TRAWL_BPF_SC_ARGS },
	{ "epoll_wait",
	  { A("epfd", "i32", 0), A("maxevents", "i32", 2), A("timeout", "i32", 3) },
	  { D("fds_length", "u32", EPOLL_LEN, 1, 2), D("overflow", "u8", EPOLL_OVF, 1, 2),
	    D("fds", "dec", EPOLL_FDS, 1, 2) },
	  0, R(1, EPOLL) | TRAWL_BPF_SC_ARGS },
	{ "poll",
	  { A("timeout_msecs", "i32", 2), A("nfds", "u32", 1), D("fds_length", "u32", POLL_LEN, 0, 1),
	    D("overflow", "u8", POLL_OVF, 0, 1), D("fds", "dec", POLL_FDS, 0, 1) },
	  { A("nfds", "u32", 1), D("fds_length", "u32", POLL_LEN_OUT, 0, 1),
	    D("fds", "dec", POLL_FDS_OUT, 0, 1) },
	  R(0, POLLFDS), R(0, POLLFDS) | TRAWL_BPF_SC_ARGS },
	{ "ppoll",
	  { A("tsp", "u64", 2), A("sigmask", "u64", 3), A("sigsetsize", "u64", 4), A("nfds", "u32", 1),
	    D("fds_length", "u32", POLL_LEN, 0, 1), D("overflow", "u8", POLL_OVF, 0, 1),
	    D("fds", "dec", POLL_FDS, 0, 1) },
	  { A("nfds", "u32", 1), D("fds_length", "u32", POLL_LEN_OUT, 0, 1),
	    D("overflow", "u8", POLL_OVF_OUT, 0, 1), D("fds", "dec", POLL_FDS_OUT, 0, 1) },
	  R(0, POLLFDS), R(0, POLLFDS) | TRAWL_BPF_SC_ARGS },
	{ "pselect6",
	  { A("n", "i32", 0), D("overflow", "u8", SC_ZERO, 0, 0), A("tvp", "u64", 4), A("sig", "x64", 5),
	    FDSETS },
	  { D("overflow", "u8", SC_ZERO, 0, 0), A("tvp", "u64", 4), FDSETS },
	  R(1, FDSET) | R(2, FDSET) | R(3, FDSET),
	  R(1, FDSET) | R(2, FDSET) | R(3, FDSET) | TRAWL_BPF_SC_ARGS },
	{ "select",
	  { A("n", "i32", 0), D("overflow", "u8", SC_ZERO, 0, 0), A("tvp", "u64", 4), FDSETS },
	  { D("overflow", "u8", SC_ZERO, 0, 0), A("tvp", "u64", 4), FDSETS },
	  R(1, FDSET) | R(2, FDSET) | R(3, FDSET),
	  R(1, FDSET) | R(2, FDSET) | R(3, FDSET) | TRAWL_BPF_SC_ARGS },
};

static const struct dec_sc *dec_find(const char *sys)
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(dec_scs); i++)
		if (!strcmp(dec_scs[i].name, sys))
			return &dec_scs[i];
	return NULL;
}

int trawl_kernel_scdecode_bpf_mask(const char *sys, int at_exit, uint32_t *mask)
{
	const struct dec_sc *d = dec_find(sys);

	if (!d)
		return -ENOENT;
	*mask = at_exit ? d->bpf_out : d->bpf_in;
	return 0;
}

/* @o's output type from the table's name for it. */
static void dec_type(const char *t, struct trawl_kernel_field *o)
{
	o->kind = t[0] == 'x' ? TRAWL_KF_HEX : TRAWL_KF_INT;
	o->is_signed = t[0] == 'i';
	o->big_endian = t[0] == 'n';
	o->ctf_size = (uint16_t)(atoi(t + 1) / 8);
	if (!strcmp(t, "dec")) {
		o->kind = TRAWL_KF_DECODED;
		o->ctf_size = 1;
	}
}

/*
 * One field of @d: an argument at entry comes from the ftrace record
 * (@enter's kernel field of that argument), at exit from BPF's record; the
 * decoded ones from BPF's data.
 */
static int dec_field(const struct dec_field *d, const struct trawl_kernel_event *enter, int at_exit,
		     struct trawl_kernel_field *o)
{
	memset(o, 0, sizeof(*o));
	if (d->xform == TRAWL_KX_COPY && !at_exit) {
		if (!enter || d->arg >= enter->nfields)
			return -EINVAL; /* a kernel whose syscall has other arguments */
		*o = enter->fields[d->arg];
	} else {
		o->xform = d->xform == TRAWL_KX_COPY ? TRAWL_KX_SC_ARG : d->xform;
		o->src_kind = TRAWL_KF_INT;
	}
	if (trawl_path_fmt(o->name, sizeof(o->name), "%s", d->name))
		return -ENAMETOOLONG;
	o->sc_arg = (uint8_t)d->arg;
	o->sc_aux = (uint8_t)d->aux;
	o->count = 0;
	dec_type(d->type, o);
	return 0;
}

int trawl_kernel_scdecode_fields(const char *sys, int at_exit, const struct trawl_kernel_event *enter,
				 struct trawl_kernel_field *out, int max)
{
	const struct dec_sc *d = dec_find(sys);
	const struct dec_field *f;
	int n = 0, ret;

	if (!d)
		return -ENOENT;
	for (f = at_exit ? d->out : d->in; f < (at_exit ? d->out : d->in) + DEC_MAX_FIELDS && f->name; f++) {
		if (n == max)
			return -E2BIG;
		ret = dec_field(f, enter, at_exit, &out[n]);
		if (ret < 0)
			return ret;
		n++;
	}
	return n;
}
