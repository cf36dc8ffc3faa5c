/* SPDX-License-Identifier: MIT */
/*
 * context-ctf.c - the context fields of ustctl.h described with ctf.h types,
 * so that a daemon declares exactly what the app writes (fastpath.c).
 */
#include <errno.h>
#include <string.h>

#include "ctf/ctf.h"
#include "ustctl/ustctl.h"

static const struct {
	const char *name;
	uint32_t bit;
} contexts[] = {
	{ "vpid", TRAWL_USTCTL_CTX_VPID },	   { "vtid", TRAWL_USTCTL_CTX_VTID },
	{ "pid", TRAWL_USTCTL_CTX_PID },	   { "tid", TRAWL_USTCTL_CTX_TID },
	{ "procname", TRAWL_USTCTL_CTX_PROCNAME }, { "pthread_id", TRAWL_USTCTL_CTX_PTHREAD_ID },
	{ "ppid", TRAWL_USTCTL_CTX_PPID },	   { "ip", TRAWL_USTCTL_CTX_IP },
	{ "prio", TRAWL_USTCTL_CTX_PRIO },	   { "nice", TRAWL_USTCTL_CTX_NICE },
	{ "cgroup_ns", TRAWL_USTCTL_CTX_CGROUP_NS }, { "ipc_ns", TRAWL_USTCTL_CTX_IPC_NS },
	{ "mnt_ns", TRAWL_USTCTL_CTX_MNT_NS },	   { "net_ns", TRAWL_USTCTL_CTX_NET_NS },
	{ "pid_ns", TRAWL_USTCTL_CTX_PID_NS },	   { "time_ns", TRAWL_USTCTL_CTX_TIME_NS },
	{ "user_ns", TRAWL_USTCTL_CTX_USER_NS },   { "uts_ns", TRAWL_USTCTL_CTX_UTS_NS },
};

int trawl_ustctl_context_from_name(const char *name, uint32_t *bit)
{
	size_t i;

	for (i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++) {
		if (!strcmp(name, contexts[i].name)) {
			*bit = contexts[i].bit;
			return 0;
		}
	}
	return -ENOENT;
}

static struct trawl_ctf_type *context_type(uint32_t bit)
{
	struct trawl_ctf_type *t;

	switch (bit) {
	case TRAWL_USTCTL_CTX_PROCNAME:
		/* As LTTng: 17 signed 8-bit UTF-8 code units. */
		t = trawl_ctf_type_integer_create(8, 1, 8);
		if (!t || trawl_ctf_type_integer_set_utf8(t)) {
			trawl_ctf_type_destroy(t);
			return NULL;
		}
		return trawl_ctf_type_array_create(t, 17);
	case TRAWL_USTCTL_CTX_PTHREAD_ID:
	case TRAWL_USTCTL_CTX_IP:
		t = trawl_ctf_type_integer_create(64, 0, 8);
		if (t && trawl_ctf_type_integer_set_base(t, 16)) {
			trawl_ctf_type_destroy(t);
			return NULL;
		}
		return t;
	default:
		/* The namespaces' inode numbers: unsigned 64-bit, base 10, as
		 * LTTng-UST declares its ino_t. */
		if (bit & TRAWL_USTCTL_CTX_NS_ALL)
			return trawl_ctf_type_integer_create(64, 0, 8);
		return trawl_ctf_type_integer_create(32, 1, 8);
	}
}

struct trawl_ctf_type *trawl_ustctl_contexts_ctf_type(const struct trawl_ustctl_contexts *ctx)
{
	struct trawl_ctf_type *s;
	uint32_t bits = ctx->bits;
	size_t i;

	errno = 0;
	if (!bits && !ctx->nr_counters)
		return NULL;
	if ((bits & ~TRAWL_USTCTL_CTX_ALL) || ctx->nr_counters > TRAWL_USTCTL_MAX_COUNTERS) {
		errno = EINVAL;
		return NULL;
	}
	s = trawl_ctf_type_struct_create(8);
	if (!s)
		return NULL;
	/* Bit order is the order the app writes them in. */
	for (i = 0; i < 32; i++) {
		uint32_t bit = 1u << i;
		size_t k;

		if (!(bits & bit))
			continue;
		for (k = 0; contexts[k].bit != bit; k++)
			;
		if (trawl_ctf_type_struct_add(s, contexts[k].name, context_type(bit)))
			goto err;
	}
	/* Then the counters: unsigned 64-bit, base 10, as LTTng-UST. */
	for (i = 0; i < ctx->nr_counters; i++)
		if (trawl_ctf_type_struct_add(s, ctx->counters[i].name, trawl_ctf_type_integer_create(64, 0, 8)))
			goto err;
	return s;
err:
	trawl_ctf_type_destroy(s);
	errno = ENOMEM;
	return NULL;
}

struct trawl_ctf_type *trawl_ustctl_context_ctf_type(uint32_t bits)
{
	struct trawl_ustctl_contexts ctx = { .bits = bits };

	return trawl_ustctl_contexts_ctf_type(&ctx);
}
