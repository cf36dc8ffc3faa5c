/* SPDX-License-Identifier: MIT */
/*
 * context-jni.c - trawl's liblttng-ust-context-jni.so: the native library
 * LTTng's Java agent loads (System.loadLibrary("lttng-ust-context-jni"))
 * when a program registers an application context retriever
 * (ContextInfoManager.registerContextInfoRetriever(NAME, r)). Each
 * retriever becomes a provider "$app.NAME" of libtrawl-ust
 * (ust/app-context.h), so that a channel recording $app.NAME:KEY
 * (`trawl add-context -j -t '$app.NAME:KEY'`) records r's value for KEY.
 *
 * The values come with each log record: the agent asks its retrievers for
 * the contexts the session daemon enabled (agent-port.c's APP_CTX_ENABLE)
 * and passes them, serialized (jni-ctx.h), to tracepointWithContext() of
 * the JUL or log4j library, which hands them here for the thread
 * (trawl_jni_ctx_set()) while its tracepoint records. The provider finds
 * a context by its full name among the entries and answers its value
 * with LTTng-UST 2.13's types (its lttng_ust_context.c): Java's int as
 * int32, long int64, double, float, short int16, byte and boolean int8
 * (true 1), a string (also a char, or any other object's toString()) as
 * a string; null, a context the retriever does not supply, or a context
 * of no retriever: no value (the variant's "_none").
 *
 * The arrays are the program's own, but read as untrusted: an entry whose
 * name offset is outside the strings, whose name has no NUL inside them,
 * or whose type is unknown, is skipped (no value); a string value is read
 * within the strings only (libtrawl-ust stops at their end, at its NUL,
 * or at TRAWL_USTCTL_APP_CTX_STRING_MAX bytes). LTTng-UST's aborts the
 * program on an unknown type and reads a string past the array's end.
 *
 * Found here, in lib/lttng-compat, the JVM does not load Debian's, which
 * would bring LTTng-UST into the program.
 */
#include "common/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ust-agents/jni-ctx.h"
#include "ust/app-context.h"
#include "ustabi/ustabi.h"

#define ENTRY_LEN 13 /* int32 name offset, type, 8 bytes of value */

/* LTTng's Java agent's types (ContextInfoSerializer.DataType). */
enum jni_type {
	JNI_NULL = 0,
	JNI_INTEGER = 1,
	JNI_LONG = 2,
	JNI_DOUBLE = 3,
	JNI_FLOAT = 4,
	JNI_BYTE = 5,
	JNI_SHORT = 6,
	JNI_BOOLEAN = 7,
	JNI_STRING = 8,
};

struct jni_tls {
	const unsigned char *entries, *strings;
	size_t entries_len, strings_len;
};

static __thread struct jni_tls jni_tls;

__attribute__((visibility("default"))) void trawl_jni_ctx_set(const void *entries,
							       size_t entries_len,
							       const void *strings,
							       size_t strings_len)
{
	jni_tls.entries = entries;
	jni_tls.entries_len = entries ? entries_len : 0;
	jni_tls.strings = strings;
	jni_tls.strings_len = strings ? strings_len : 0;
}

/* The string at offset @off of the strings array, NUL-terminated inside
 * it, or NULL. */
static const char *string_at(const struct jni_tls *t, int32_t off)
{
	if (off < 0 || (size_t)off >= t->strings_len ||
	    !memchr(t->strings + off, '\0', t->strings_len - (size_t)off))
		return NULL;
	return (const char *)t->strings + off;
}

static void get_value(const char *name, struct trawl_ust_app_value *v)
{
	const struct jni_tls *t = &jni_tls;
	size_t i, n = t->entries_len / ENTRY_LEN;

	for (i = 0; i < n; i++) {
		const unsigned char *e = t->entries + i * ENTRY_LEN;
		const char *s;
		int32_t off, i32;
		int16_t i16;
		int8_t i8;

		memcpy(&off, e, 4);
		s = string_at(t, off);
		if (!s || strcmp(s, name))
			continue;
		switch (e[4]) {
		case JNI_INTEGER:
			memcpy(&i32, e + 5, 4);
			v->type = TRAWL_USTCTL_APP_S32;
			v->u.s = i32;
			break;
		case JNI_LONG:
			v->type = TRAWL_USTCTL_APP_S64;
			memcpy(&v->u.s, e + 5, 8);
			break;
		case JNI_DOUBLE:
			v->type = TRAWL_USTCTL_APP_DOUBLE;
			memcpy(&v->u.d, e + 5, 8);
			break;
		case JNI_FLOAT:
			v->type = TRAWL_USTCTL_APP_FLOAT;
			memcpy(&v->u.f, e + 5, 4);
			break;
		case JNI_SHORT:
			memcpy(&i16, e + 5, 2);
			v->type = TRAWL_USTCTL_APP_S16;
			v->u.s = i16;
			break;
		case JNI_BYTE:
		case JNI_BOOLEAN:
			memcpy(&i8, e + 5, 1);
			v->type = TRAWL_USTCTL_APP_S8;
			v->u.s = i8;
			break;
		case JNI_STRING:
			memcpy(&off, e + 5, 4);
			if (off >= 0 && (size_t)off < t->strings_len) {
				v->type = TRAWL_USTCTL_APP_STRING;
				v->u.str = (const char *)t->strings + off;
				v->len = (uint32_t)(t->strings_len - (size_t)off > UINT32_MAX
							    ? UINT32_MAX
							    : t->strings_len - (size_t)off);
			}
			break;
		default: /* JNI_NULL, or a type we do not know: no value */
			break;
		}
		return; /* the first entry of that name, as LTTng's */
	}
}

/* What registerProvider returns: the provider's name, for unregisterProvider. */
struct jni_provider {
	char name[TRAWL_USTCTL_APP_CTX_NAME_MAX];
};

JNIEXPORT jlong JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_registerProvider(
	JNIEnv *env, jclass cls, jstring provider_name);
JNIEXPORT void JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_unregisterProvider(
	JNIEnv *env, jclass cls, jlong provider);

/* 0 (the agent tells the program its retriever was refused) if the name is
 * not "$app." and [A-Za-z0-9_.], too long, or registered already. */
JNIEXPORT jlong JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_registerProvider(
	JNIEnv *env, jclass cls, jstring provider_name)
{
	struct jni_provider *p;
	const char *name;
	size_t len;

	(void)cls;
	if (!provider_name)
		return 0;
	name = (*env)->GetStringUTFChars(env, provider_name, NULL);
	if (!name)
		return 0;
	len = strlen(name);
	p = len < sizeof(p->name) ? malloc(sizeof(*p)) : NULL;
	if (p)
		memcpy(p->name, name, len + 1);
	(*env)->ReleaseStringUTFChars(env, provider_name, name);
	if (!p)
		return 0;
	if (trawl_ust_app_provider_register(p->name, get_value)) {
		free(p);
		return 0;
	}
	return (jlong)(uintptr_t)p;
}

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_unregisterProvider(
	JNIEnv *env, jclass cls, jlong provider)
{
	struct jni_provider *p = (struct jni_provider *)(uintptr_t)provider;

	(void)env;
	(void)cls;
	if (!p)
		return;
	/* get_value() may still be running in an event: it stays (the
	 * library is never unloaded) and reads no provider memory. */
	trawl_ust_app_provider_unregister(p->name);
	free(p);
}
