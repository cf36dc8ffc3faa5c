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
 * a context by its full name among the entries and answers its value with
 * LTTng-UST 2.13's types (jni-ctx-parse.c, which reads the arrays as
 * untrusted: the program's own, but nothing in them may crash it or the
 * trace); null, a context the retriever does not supply, or a context of
 * no retriever: no value (the variant's "_none").
 *
 * Found here, in lib/lttng-compat, the JVM does not load Debian's, which
 * would bring LTTng-UST into the program.
 */
#include "common/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ust-agents/jni-ctx.h"
#include "ust-agents/jni-ctx-parse.h"
#include "ust/app-context.h"
#include "ustabi/ustabi.h"

/*
 * The arrays of the thread's tracepointWithContext() in progress (on its
 * stack), or NULL. Initial-exec TLS, one pointer: a dynamic TLS block
 * would be allocated at a thread's first access, which may be an event
 * in a signal handler (libtrawl-ust's own per-thread state is the same).
 */
static __thread const struct jni_ctx *jni_cur __attribute__((tls_model("initial-exec")));

__attribute__((visibility("default"))) void trawl_jni_ctx_set(const struct jni_ctx *c)
{
	jni_cur = c;
}

static void get_value(const char *name, struct trawl_ust_app_value *v)
{
	const struct jni_ctx *c = jni_cur;

	if (c)
		trawl_jni_ctx_lookup((const unsigned char *)c->e, c->elen,
				     (const unsigned char *)c->s, c->slen, name, v);
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
