/* SPDX-License-Identifier: MIT */
/*
 * The values and CTF types of the syscall structures LTTng-modules 2.13
 * decodes (scdecode.c has the layouts): from the bytes trawl.bpf.c read at
 * the syscall, LTTng's fields, computed with its overrides' rules (what a
 * short length, a fault, a page cap or a failed call gives), and the types
 * LTTng's metadata declares for them, so babeltrace2 prints the same text.
 * The bytes are a traced program's: every length is checked against what
 * BPF actually read.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/bpf-records.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ctf/ctf.h"

static uint32_t rd_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* LTTng's locvars for a socket address */
struct sa {
	uint16_t family;
	uint8_t port[2];   /* network order */
	uint8_t v4[4];
	uint8_t v6[16];
	uint32_t v4len, v6len;
};

/* The address length LTTng checks: connect's addrlen, or accept's *upeer_addrlen. */
static uint32_t sa_len(const struct trawl_kernel_scinfo *sc, uint8_t aux)
{
	const uint8_t *p;
	uint32_t l;

	if (!(aux & TRAWL_KX_AUX_PTR))
		return (uint32_t)(int32_t)sc->args[aux % 6];
	p = trawl_kernel_scinfo_arg_data(sc, (aux & 0x7f) % 6, &l);
	return p && l == 4 ? rd_u32(p) : 0;
}

/*
 * As LTTng's connect / accept code: a length below the family's sockaddr
 * (compared unsigned, as its sizeof comparison does) decodes nothing; a
 * part that could not be read is zeros, its length still set.
 */
static void sa_decode(const struct trawl_kernel_scinfo *sc, const struct trawl_kernel_op *op, struct sa *s)
{
	uint32_t l, len = sa_len(sc, op->aux);
	const uint8_t *p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);

	memset(s, 0, sizeof(*s));
	if (len < 2 || !p || l < 2)
		return;
	s->family = rd_u16(p);
	if (s->family == AF_INET) {
		if (len < 16)
			return;
		if (l >= 8)
			memcpy(s->port, p + 2, 2), memcpy(s->v4, p + 4, 4);
		s->v4len = 4;
	} else if (s->family == AF_INET6) {
		if (len < 28)
			return;
		if (l >= 4)
			memcpy(s->port, p + 2, 2);
		if (l >= 24)
			memcpy(s->v6, p + 8, 16);
		s->v6len = 8;
	}
}

/* LTTng's poll locvars: fds_length (returned), overflow, fds_max_len. */
static uint32_t poll_count(const struct trawl_kernel_scinfo *sc, const struct trawl_kernel_op *op, int out,
			   uint8_t *ovf, uint32_t *max)
{
	uint32_t nfds = (uint32_t)sc->args[op->aux % 6], l, cnt;

	trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
	*ovf = 0;
	*max = 0;
	if (!out) {
		cnt = TRAWL_MIN(nfds, (uint32_t)TRAWL_BPF_POLLFD_MAX);
		*ovf = nfds > TRAWL_BPF_POLLFD_MAX;
		*max = cnt;
	} else {
		if (sc->ret <= 0 || sc->ret > (int64_t)nfds)
			return 0;
		*ovf = nfds > TRAWL_BPF_POLLFD_MAX;
		cnt = *ovf ? TRAWL_BPF_POLLFD_MAX : (uint32_t)sc->ret;
		*max = *ovf ? TRAWL_BPF_POLLFD_MAX : nfds;
	}
	if (l != *max * 8u) { /* not read (a fault): LTTng's copy failed, no fds */
		*max = 0;
		return 0;
	}
	return cnt;
}

/* LTTng's epoll_wait locvars: fds_length (returned), overflow. */
static uint32_t epoll_count(const struct trawl_kernel_scinfo *sc, const struct trawl_kernel_op *op, uint8_t *ovf)
{
	int64_t m = (int32_t)sc->args[op->aux % 6], ret = sc->ret;
	uint32_t l, cnt;

	trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
	*ovf = 0;
	if (m <= 0 || ret <= 0 || ret > m)
		return 0;
	m = TRAWL_MIN(m, (int64_t)TRAWL_BPF_EPOLL_MAX);
	*ovf = ret > m;
	cnt = (uint32_t)(*ovf ? m : ret);
	return l == cnt * 12u ? cnt : 0;
}

/* The bytes of fd set @arg LTTng records: DIV_ROUND_UP(n, 8), 0 if any set could not be read. */
static uint32_t fdset_bytes(const struct trawl_kernel_scinfo *sc, int arg)
{
	int64_t n = (int32_t)sc->args[0];
	uint32_t need, l;
	int a;

	if (n <= 0 || n > 1024 || arg < 1 || arg > 3 || !sc->args[arg])
		return 0;
	need = (uint32_t)((n + 63) / 64) * 8;
	for (a = 1; a <= 3; a++) {
		trawl_kernel_scinfo_arg_data(sc, a, &l);
		if (sc->args[a] && l != need)
			return 0;
	}
	return (uint32_t)((n + 7) / 8);
}

static uint8_t *put(uint8_t *o, const void *v, size_t n)
{
	if (n) /* v may be NULL then (nothing read) */
		memcpy(o, v, n);
	return o + n;
}

static uint8_t *write_pollfds(const struct trawl_kernel_op *op, const struct trawl_kernel_scinfo *sc, int out,
			      uint8_t *o)
{
	uint32_t max, cnt, l, i, nr = 0;
	const uint8_t *p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
	uint8_t ovf;

	cnt = poll_count(sc, op, out, &ovf, &max);
	for (i = 0; i < max && nr < cnt; i++) {
		/* struct pollfd: int fd, short events, short revents; at exit only fds with revents */
		uint16_t ev = rd_u16(p + 8 * i + (out ? 6 : 4));
		uint8_t bits = (uint8_t)ev;

		if (out && !ev)
			continue;
		o = put(o, p + 8 * i, 4);
		o = put(o, &ev, 2);
		o = put(o, &bits, 1);
		nr++;
	}
	/* fewer revents than ret (the program changed them): zeros, as LTTng */
	for (; nr < cnt; nr++) {
		memset(o, 0, 7);
		o += 7;
	}
	return o;
}

/* One struct epoll_event (12 bytes, packed) at @p as LTTng's epoll element: NULL @p: zeros, as its fault path. */
static uint8_t *write_epoll_event(const uint8_t *p, uint8_t *o)
{
	uint8_t bits;

	if (!p) {
		memset(o, 0, 17);
		return o + 17;
	}
	bits = p[0];
	o = put(o, p + 4, 8); /* data_union.u64 */
	o = put(o, p + 4, 4); /* data_union.fd: its low int */
	o = put(o, p, 4);     /* raw_events */
	return put(o, &bits, 1); /* events */
}

static uint8_t *write_epoll(const struct trawl_kernel_op *op, const struct trawl_kernel_scinfo *sc, uint8_t *o)
{
	uint32_t l, i;
	const uint8_t *p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
	uint8_t ovf;
	uint32_t cnt = epoll_count(sc, op, &ovf);

	for (i = 0; i < cnt; i++) /* struct epoll_event (packed on x86-64): u32 events, u64 data */
		o = write_epoll_event(p + 12 * i, o);
	return o;
}

uint8_t *trawl_kernel_scdecode_write(const struct trawl_kernel_op *op, const struct trawl_kernel_scinfo *sc,
				     uint8_t *o)
{
	uint32_t l, u32, max;
	const uint8_t *p;
	uint8_t u8;
	struct sa s;

	switch (op->xform) {
	case TRAWL_KX_SC_INT1:
		p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
		u32 = p && l == 4 ? rd_u32(p) : 0;
		return put(o, &u32, 4);
	case TRAWL_KX_SA_FAMILY: sa_decode(sc, op, &s); return put(o, &s.family, 2);
	case TRAWL_KX_SA_PORT: sa_decode(sc, op, &s); return put(o, s.port, 2);
	case TRAWL_KX_SA_V4LEN: sa_decode(sc, op, &s); return put(o, &s.v4len, 4);
	case TRAWL_KX_SA_V4: sa_decode(sc, op, &s); return put(o, s.v4, s.v4len);
	case TRAWL_KX_SA_V6LEN: sa_decode(sc, op, &s); return put(o, &s.v6len, 4);
	case TRAWL_KX_SA_V6: sa_decode(sc, op, &s); return put(o, s.v6, s.v6len * 2);
	case TRAWL_KX_POLL_LEN:
	case TRAWL_KX_POLL_LEN_OUT:
		u32 = poll_count(sc, op, op->xform == TRAWL_KX_POLL_LEN_OUT, &u8, &max);
		return put(o, &u32, 4);
	case TRAWL_KX_POLL_OVF:
	case TRAWL_KX_POLL_OVF_OUT:
		poll_count(sc, op, op->xform == TRAWL_KX_POLL_OVF_OUT, &u8, &max);
		return put(o, &u8, 1);
	case TRAWL_KX_POLL_FDS:
	case TRAWL_KX_POLL_FDS_OUT:
		return write_pollfds(op, sc, op->xform == TRAWL_KX_POLL_FDS_OUT, o);
	case TRAWL_KX_EPOLL_LEN:
		u32 = epoll_count(sc, op, &u8);
		return put(o, &u32, 4);
	case TRAWL_KX_EPOLL_OVF:
		epoll_count(sc, op, &u8);
		return put(o, &u8, 1);
	case TRAWL_KX_EPOLL_FDS:
		return write_epoll(op, sc, o);
	case TRAWL_KX_EPOLL_OP: {
		int32_t v = sc->found ? (int32_t)sc->args[op->arg % 6] : 0;

		return put(o, &v, 4);
	}
	case TRAWL_KX_EPOLL_EVENT: /* not read (a fault): zeros, as LTTng */
		p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
		return write_epoll_event(p && l == 12 ? p : NULL, o);
	case TRAWL_KX_FDSET_LEN:
		u8 = (uint8_t)fdset_bytes(sc, op->arg % 6);
		return put(o, &u8, 1);
	case TRAWL_KX_FDSET:
		p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
		return put(o, p, fdset_bytes(sc, op->arg % 6));
	default: /* TRAWL_KX_SC_ZERO */
		memset(o, 0, op->dst);
		return o + op->dst;
	}
}

/* ---- CTF types (as LTTng's metadata declares them) ----------------------- */

static struct trawl_ctf_type *int_t(unsigned bits, int is_signed, unsigned base, int big_endian)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(bits, is_signed, bits < 8 ? 1 : 8);

	if (t && base != 10)
		trawl_ctf_type_integer_set_base(t, base);
	if (t && big_endian)
		trawl_ctf_type_integer_set_byte_order(t, TRAWL_CTF_BO_BE);
	return t;
}

/* Adds the fields @names (NULL-ended) to @st, each of @bits bits; NULL @st stays NULL. */
static struct trawl_ctf_type *add_fields(struct trawl_ctf_type *st, const char *const *names, unsigned bits,
					 int is_signed, unsigned base)
{
	for (; st && *names; names++) {
		if (trawl_ctf_type_struct_add(st, *names, int_t(bits, is_signed, base, 0)) < 0) {
			trawl_ctf_type_destroy(st);
			return NULL;
		}
	}
	return st;
}

/*
 * LTTng's struct of poll or epoll flag bits: one bit each, then padding.
 * (LTTng's designated initializers put "padding" at the index of its last
 * flag, POLLNVAL / EPOLLHUP, which it therefore never declares.)
 */
static struct trawl_ctf_type *flags_type(int epoll)
{
	static const char *const pollf[] = { "POLLIN", "POLLPRI", "POLLOUT", "POLLERR", "POLLHUP", NULL };
	static const char *const epollf[] = { "EPOLLIN", "EPOLLPRI", "EPOLLOUT", "EPOLLERR", NULL };
	struct trawl_ctf_type *st = add_fields(trawl_ctf_type_struct_create(1), epoll ? epollf : pollf, 1, 0, 10);
	static const char *const pad[] = { "padding", NULL };

	return add_fields(st, pad, epoll ? 4 : 3, 0, 10);
}

/* A struct of @n fields @names of @types (taken, also NULL ones: then the struct is NULL). */
static struct trawl_ctf_type *struct_of(const char *const *names, struct trawl_ctf_type **types, int n)
{
	struct trawl_ctf_type *st = trawl_ctf_type_struct_create(8);
	int i, bad = !st;

	for (i = 0; i < n; i++) {
		if (bad || !types[i]) {
			bad = 1;
			trawl_ctf_type_destroy(types[i]);
			continue;
		}
		if (trawl_ctf_type_struct_add(st, names[i], types[i]) < 0) /* taken, also on failure */
			bad = 1;
	}
	if (bad) {
		trawl_ctf_type_destroy(st);
		return NULL;
	}
	return st;
}

static struct trawl_ctf_type *pollfd_type(void)
{
	static const char *const names[] = { "fd", "raw_events", "events" };
	struct trawl_ctf_type *t[] = { int_t(32, 1, 10, 0), int_t(16, 0, 16, 0), flags_type(0) };

	return struct_of(names, t, 3);
}

static struct trawl_ctf_type *epoll_type(void)
{
	static const char *const un[] = { "u64", "fd" }, *const names[] = { "data_union", "raw_events", "events" };
	struct trawl_ctf_type *u[] = { int_t(64, 0, 16, 0), int_t(32, 1, 10, 0) };
	struct trawl_ctf_type *t[] = { struct_of(un, u, 2), int_t(32, 0, 16, 0), flags_type(1) };

	return struct_of(names, t, 3);
}

struct trawl_ctf_type *trawl_kernel_scdecode_type(const struct trawl_kernel_field *f)
{
	char len_name[80];
	struct trawl_ctf_type *e;

	switch (f->xform) {
	case TRAWL_KX_EPOLL_OP: /* LTTng's enum lttng_epoll_op over an int */
		e = trawl_ctf_type_enum_create(int_t(32, 1, 10, 0));
		if (e && (trawl_ctf_type_enum_add(e, "EPOLL_CTL_ADD", 1, 1) < 0 ||
			  trawl_ctf_type_enum_add(e, "EPOLL_CTL_DEL", 2, 2) < 0 ||
			  trawl_ctf_type_enum_add(e, "EPOLL_CTL_MOD", 3, 3) < 0)) {
			trawl_ctf_type_destroy(e);
			e = NULL;
		}
		return e;
	case TRAWL_KX_EPOLL_EVENT:
		return epoll_type();
	case TRAWL_KX_SA_V4:
		e = int_t(8, 0, 10, 1);
		snprintf(len_name, sizeof(len_name), "_v4addr_length");
		break;
	case TRAWL_KX_SA_V6:
		e = int_t(16, 0, 10, 1);
		snprintf(len_name, sizeof(len_name), "_v6addr_length");
		break;
	case TRAWL_KX_POLL_FDS:
	case TRAWL_KX_POLL_FDS_OUT:
		e = pollfd_type();
		snprintf(len_name, sizeof(len_name), "fds_length");
		break;
	case TRAWL_KX_EPOLL_FDS:
		e = epoll_type();
		snprintf(len_name, sizeof(len_name), "fds_length");
		break;
	case TRAWL_KX_FDSET:
		e = int_t(8, 0, 16, 0);
		snprintf(len_name, sizeof(len_name), "_%s_length", f->name);
		break;
	default:
		return NULL;
	}
	return e ? trawl_ctf_type_sequence_create(e, len_name) : NULL;
}
