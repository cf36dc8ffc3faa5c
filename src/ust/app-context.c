/* SPDX-License-Identifier: MIT */
/*
 * app-context.c - application contexts ($app.PROVIDER:NAME): the
 * process's providers (app-context.h), and the values a channel that
 * records such contexts writes after its other contexts (ustabi.h: a tag,
 * then the value, LTTng-UST 2.13's layout).
 *
 * Only channels sent with application contexts (wire.h, ABI minor 11) come
 * here: fastpath.c sends their events through reserve_app(), which asks
 * the providers once per context (trawl_ust_app_ctx_get()), reserves the
 * payload plus their size, then writes them (trawl_ust_app_ctx_write())
 * from the same answers. Other channels never do.
 *
 * The providers' table. Written under provider_lock by (un)registration,
 * read without a lock by any traced thread, in signal handlers too. A
 * slot's name is written once, before nr_providers counts the slot
 * (release, paired with the readers' acquire of nr_providers), and never
 * changes: a provider registered again under the same name takes its old
 * slot back, another name a new slot. Its get function is stored (release)
 * after the name and cleared by unregistration; a reader that loaded it
 * (acquire) may call it after it was cleared, which app-context.h allows
 * (the function stays callable). So readers never see a name change under
 * them, and the table holds at most 64 names for the process's life.
 *
 * Hostile answers: a provider is the program's own code, but what it
 * answers is checked as data: a type past STRING is NONE, a string is read
 * only within the bytes it said it had (strnlen), and at most
 * TRAWL_USTCTL_APP_CTX_STRING_MAX of them are written (cut at a UTF-8
 * character's start).
 */
#include "ust/ust.h"
#include "ust/app-context.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

#define MAX_PROVIDERS 64

struct provider {
	char name[TRAWL_USTCTL_APP_CTX_NAME_MAX]; /* "$app.PROVIDER": written once */
	trawl_ust_app_get_fn get;                 /* NULL: unregistered */
};

static struct provider providers[MAX_PROVIDERS];
static uint32_t nr_providers; /* slots in use, named (release/acquire) */
static pthread_mutex_t provider_lock = PTHREAD_MUTEX_INITIALIZER;

/* "$app.PROVIDER" with PROVIDER of [A-Za-z0-9_.]: its length, or 0. */
static size_t provider_name_len(const char *p)
{
	size_t i;

	if (strncmp(p, "$app.", 5))
		return 0;
	for (i = 5; p[i]; i++) {
		char c = p[i];

		if (i >= TRAWL_USTCTL_APP_CTX_NAME_MAX - 1 ||
		    !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.'))
			return 0;
	}
	return i > 5 ? i : 0;
}

TRAWL_EXPORT int trawl_ust_app_provider_register(const char *provider, trawl_ust_app_get_fn get)
{
	uint32_t i, n;
	int ret = 0;

	if (!provider || !get || !provider_name_len(provider))
		return -EINVAL;
	pthread_mutex_lock(&provider_lock);
	n = nr_providers;
	for (i = 0; i < n; i++)
		if (!strcmp(providers[i].name, provider))
			break;
	if (i < n && providers[i].get) {
		ret = -EEXIST;
	} else if (i == n && n == MAX_PROVIDERS) {
		ret = -ENOSPC;
	} else {
		if (i == n) {
			strcpy(providers[i].name, provider); /* (length checked) */
			__atomic_store_n(&nr_providers, n + 1, __ATOMIC_RELEASE);
		}
		/* Pairs with the acquire in find(): the name is there first. */
		__atomic_store_n(&providers[i].get, get, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&provider_lock);
	return ret;
}

TRAWL_EXPORT int trawl_ust_app_provider_unregister(const char *provider)
{
	int ret = -ENOENT;
	uint32_t i;

	if (!provider)
		return -EINVAL;
	pthread_mutex_lock(&provider_lock);
	for (i = 0; i < nr_providers; i++) {
		if (!strcmp(providers[i].name, provider) && providers[i].get) {
			__atomic_store_n(&providers[i].get, NULL, __ATOMIC_RELAXED);
			ret = 0;
		}
	}
	pthread_mutex_unlock(&provider_lock);
	return ret;
}

/* The get function of the provider of context @name ("$app.P:N": the
 * provider is "$app.P"), or NULL. */
static trawl_ust_app_get_fn find(const char *name)
{
	const char *colon = strchr(name + 5, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);
	uint32_t i, n = __atomic_load_n(&nr_providers, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++) {
		if (!strncmp(providers[i].name, name, len) && providers[i].name[len] == '\0')
			return __atomic_load_n(&providers[i].get, __ATOMIC_ACQUIRE);
	}
	return NULL;
}

struct trawl_ust_app_ctx *trawl_ust_app_ctx_create(const char *names, uint32_t nr)
{
	struct trawl_ust_app_ctx *a;
	const char *p = names;
	uint32_t i;

	if (!nr || nr > TRAWL_USTCTL_MAX_APP_CTX)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	for (i = 0; i < nr; i++) {
		a->names[i] = strdup(p); /* (wire.c checked each: NUL-terminated, valid) */
		if (!a->names[i]) {
			while (i--)
				free(a->names[i]);
			free(a);
			return NULL;
		}
		p += strlen(p) + 1;
	}
	a->nr = nr;
	return a;
}

void trawl_ust_app_ctx_destroy(struct trawl_ust_app_ctx *a)
{
	uint32_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr; i++)
		free(a->names[i]);
	free(a);
}

/* Bytes of a string value as written, NUL excluded: within what the
 * provider said it had, up to its NUL, at most STRING_MAX, not cutting a
 * UTF-8 character. */
static uint32_t string_len(const struct trawl_ust_app_value *v)
{
	uint32_t max = v->len < TRAWL_USTCTL_APP_CTX_STRING_MAX ? v->len : TRAWL_USTCTL_APP_CTX_STRING_MAX;
	uint32_t n = (uint32_t)strnlen(v->u.str, max);

	if (n == TRAWL_USTCTL_APP_CTX_STRING_MAX && v->len > n && v->u.str[n] != '\0')
		while (n && ((unsigned char)v->u.str[n] & 0xc0) == 0x80)
			n--; /* a continuation byte: cut before its character */
	return n;
}

static uint32_t value_size(const struct trawl_ust_app_value *v)
{
	if (v->type == TRAWL_USTCTL_APP_STRING)
		return string_len(v) + 1;
	return trawl_ustctl_app_type_size(v->type);
}

size_t trawl_ust_app_ctx_get(const struct trawl_ust_app_ctx *a, struct trawl_ust_app_value *v)
{
	size_t size = 0;
	uint32_t i;

	for (i = 0; i < a->nr; i++) {
		trawl_ust_app_get_fn get = find(a->names[i]);

		memset(&v[i], 0, sizeof(v[i]));
		if (get)
			get(a->names[i], &v[i]);
		if (v[i].type >= TRAWL_USTCTL_NR_APP_TYPES ||
		    (v[i].type == TRAWL_USTCTL_APP_STRING && !v[i].u.str))
			v[i].type = TRAWL_USTCTL_APP_NONE;
		size += 1 + value_size(&v[i]); /* the tag, then the value */
	}
	return size;
}

char *trawl_ust_app_ctx_write(char *p, const struct trawl_ust_app_ctx *a,
			      const struct trawl_ust_app_value *v)
{
	uint32_t i, n;
	int8_t s8;
	int16_t s16;
	int32_t s32;

	for (i = 0; i < a->nr; i++) {
		*p++ = (char)v[i].type;
		switch (v[i].type) {
		case TRAWL_USTCTL_APP_S8:
		case TRAWL_USTCTL_APP_U8:
			s8 = (int8_t)v[i].u.s;
			memcpy(p, &s8, 1);
			break;
		case TRAWL_USTCTL_APP_S16:
		case TRAWL_USTCTL_APP_U16:
			s16 = (int16_t)v[i].u.s;
			memcpy(p, &s16, 2);
			break;
		case TRAWL_USTCTL_APP_S32:
		case TRAWL_USTCTL_APP_U32:
			s32 = (int32_t)v[i].u.s;
			memcpy(p, &s32, 4);
			break;
		case TRAWL_USTCTL_APP_S64:
		case TRAWL_USTCTL_APP_U64:
			memcpy(p, &v[i].u.s, 8);
			break;
		case TRAWL_USTCTL_APP_FLOAT:
			memcpy(p, &v[i].u.f, 4);
			break;
		case TRAWL_USTCTL_APP_DOUBLE:
			memcpy(p, &v[i].u.d, 8);
			break;
		case TRAWL_USTCTL_APP_STRING:
			n = string_len(&v[i]);
			memcpy(p, v[i].u.str, n);
			p[n] = '\0';
			break;
		default:
			break;
		}
		p += value_size(&v[i]);
	}
	return p;
}
