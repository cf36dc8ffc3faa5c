/* SPDX-License-Identifier: MIT */
/*
 * context-ctf.c - the context fields of ustctl.h described with ctf.h types,
 * so that a daemon declares exactly what the app writes (fastpath.c).
 */
#include <errno.h>
#include <string.h>

#include "common/common.h"
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

/* LTTng-UST 2.13's dynamic type: the tag's labels and the options' names
 * (the same but for the leading '_', which TSDL's writer adds to a field's
 * name, so that "_int8" names the option written "_int8"). */
static const char *const app_types[TRAWL_USTCTL_NR_APP_TYPES] = {
	"none", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double",
	"string",
};

static struct trawl_ctf_type *app_option(uint32_t t)
{
	switch (t) {
	case TRAWL_USTCTL_APP_NONE:
		return trawl_ctf_type_struct_create(8); /* "struct {} _none" */
	case TRAWL_USTCTL_APP_FLOAT:
		return trawl_ctf_type_float_create(32, 8);
	case TRAWL_USTCTL_APP_DOUBLE:
		return trawl_ctf_type_float_create(64, 8);
	case TRAWL_USTCTL_APP_STRING:
		return trawl_ctf_type_string_create();
	default: /* S8..U64: 8 << ((t - 1) % 4) bits, signed for the first four */
		return trawl_ctf_type_integer_create(8u << ((t - 1) % 4), t <= TRAWL_USTCTL_APP_S64, 8);
	}
}

/* Application context @name as LTTng lays it out: an enum field
 * "<field>_tag" (signed 8-bit container), then the variant "<field>" it
 * selects, <field> being @name with '$', '.' and ':' made '_'. */
static int add_app_ctx(struct trawl_ctf_type *s, const char *name)
{
	char field[TRAWL_USTCTL_APP_CTX_NAME_MAX], tag[TRAWL_USTCTL_APP_CTX_NAME_MAX + 4];
	struct trawl_ctf_type *e, *v;
	char label[16];
	uint32_t t;

	if (!trawl_ustctl_app_ctx_name_valid(name))
		return -EINVAL;
	trawl_ustctl_app_ctx_field_name(name, field);
	if (trawl_path_fmt(tag, sizeof(tag), "%s_tag", field))
		return -EINVAL;
	e = trawl_ctf_type_enum_create(trawl_ctf_type_integer_create(8, 1, 8));
	for (t = 0; e && t < TRAWL_USTCTL_NR_APP_TYPES; t++) {
		if (trawl_path_fmt(label, sizeof(label), "_%s", app_types[t]) ||
		    trawl_ctf_type_enum_add(e, label, t, t)) {
			trawl_ctf_type_destroy(e);
			e = NULL;
		}
	}
	if (!e || trawl_ctf_type_struct_add(s, tag, e))
		return -ENOMEM;
	v = trawl_ctf_type_variant_create(tag);
	for (t = 0; v && t < TRAWL_USTCTL_NR_APP_TYPES; t++) {
		if (trawl_ctf_type_struct_add(v, app_types[t], app_option(t))) {
			trawl_ctf_type_destroy(v);
			v = NULL;
		}
	}
	return v ? trawl_ctf_type_struct_add(s, field, v) : -ENOMEM;
}

struct trawl_ctf_type *trawl_ustctl_contexts_ctf_type(const struct trawl_ustctl_contexts *ctx)
{
	struct trawl_ctf_type *s;
	uint32_t bits = ctx->bits;
	size_t i;

	errno = 0;
	if (!bits && !ctx->nr_counters && !ctx->nr_app)
		return NULL;
	if ((bits & ~TRAWL_USTCTL_CTX_ALL) || ctx->nr_counters > TRAWL_USTCTL_MAX_COUNTERS ||
	    ctx->nr_app > TRAWL_USTCTL_MAX_APP_CTX) {
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
	/* Then the application contexts, each a tag and a variant. */
	for (i = 0; i < ctx->nr_app; i++)
		if (add_app_ctx(s, ctx->app[i]))
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
