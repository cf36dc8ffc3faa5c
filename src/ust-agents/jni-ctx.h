/* SPDX-License-Identifier: MIT */
/*
 * jni-ctx.h - the application contexts LTTng's Java agent hands to
 * tracepointWithContext() (jul-jni.c, log4j-jni.c): two byte arrays made by
 * its ContextInfoSerializer, which context-jni.c's provider reads while the
 * tracepoint records (through trawl_jni_ctx_set(), per thread).
 *
 * The entries array: 13 bytes per context, in the JVM's byte order (int32
 * offset of the context's full name "$app.P:N" in the strings array, a
 * type byte, 8 bytes of value); the strings array: UTF-8 strings each
 * ending with two NUL bytes (Java's writeChar('\0')). Both are the
 * program's own, but are read as untrusted (context-jni.c).
 */
#ifndef TRAWL_UST_AGENTS_JNI_CTX_H
#define TRAWL_UST_AGENTS_JNI_CTX_H

#include <jni.h>
#include <stddef.h>

struct jni_ctx {
	jbyteArray entries, strings; /* the Java arrays, or NULL */
	jbyte *e, *s;                /* the JVM's copies, released by jni_ctx_end(), or NULL */
	size_t elen, slen;           /* their bytes (0 without) */
};

/* context-jni.c (exported: the JUL and log4j libraries link it): @c for
 * the calling thread's tracepoints until the next call (NULL: none); @c
 * stays the caller's, and must live until then. */
void trawl_jni_ctx_set(const struct jni_ctx *c);

/* Hands @entries and @strings (either may be NULL) to the provider for the
 * tracepoint that follows; jni_ctx_end() after it. */
static inline void jni_ctx_begin(JNIEnv *env, struct jni_ctx *c, jbyteArray entries,
				 jbyteArray strings)
{
	jsize elen = entries ? (*env)->GetArrayLength(env, entries) : 0;
	jsize slen = strings ? (*env)->GetArrayLength(env, strings) : 0;

	c->entries = entries;
	c->strings = strings;
	c->e = elen > 0 ? (*env)->GetByteArrayElements(env, entries, NULL) : NULL;
	c->s = slen > 0 ? (*env)->GetByteArrayElements(env, strings, NULL) : NULL;
	c->elen = c->e ? (size_t)elen : 0;
	c->slen = c->s ? (size_t)slen : 0;
	trawl_jni_ctx_set(c);
}

static inline void jni_ctx_end(JNIEnv *env, struct jni_ctx *c)
{
	trawl_jni_ctx_set(NULL);
	/* JNI_ABORT: nothing was written, nothing to copy back */
	if (c->e)
		(*env)->ReleaseByteArrayElements(env, c->entries, c->e, JNI_ABORT);
	if (c->s)
		(*env)->ReleaseByteArrayElements(env, c->strings, c->s, JNI_ABORT);
}

#endif
