/* SPDX-License-Identifier: MIT */
/*
 * jni-str.h - a Java string as C text for one tracepoint call, shared by
 * trawl's JNI libraries of LTTng's Java agents (jul-jni.c, log4j-jni.c).
 *
 * The text is the JVM's modified UTF-8 (GetStringUTFChars): never an
 * embedded NUL (U+0000 is the two bytes C0 80), as LTTng-UST's JNI library
 * records it. A null reference (JUL's source class of a record the JVM
 * could not infer, a log4j event without a message) and a conversion the
 * JVM could not make (out of memory: an exception is then pending, which
 * Java throws when the native method returns) are recorded as "".
 */
#ifndef TRAWL_UST_AGENTS_JNI_STR_H
#define TRAWL_UST_AGENTS_JNI_STR_H

#include <jni.h>

struct jni_str {
	jstring ref;       /* the Java string, or NULL */
	const char *chars; /* the JVM's copy, released by jni_str_put(), or NULL */
};

/* The text of @ref, valid until jni_str_put(@s): never NULL. */
static inline const char *jni_str_get(JNIEnv *env, struct jni_str *s, jstring ref)
{
	s->ref = ref;
	s->chars = ref ? (*env)->GetStringUTFChars(env, ref, NULL) : NULL;
	return s->chars ? s->chars : "";
}

static inline void jni_str_put(JNIEnv *env, struct jni_str *s)
{
	if (s->chars)
		(*env)->ReleaseStringUTFChars(env, s->ref, s->chars);
	s->chars = NULL;
}

#endif
