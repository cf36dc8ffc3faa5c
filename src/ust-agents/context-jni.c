/* SPDX-License-Identifier: MIT */
/*
 * context-jni.c - trawl's liblttng-ust-context-jni.so: the native library
 * LTTng's Java agent loads (System.loadLibrary("lttng-ust-context-jni"))
 * when a program registers an application context retriever
 * (ContextInfoManager.registerContextInfoRetriever). trawl records no
 * application contexts ($app.PROVIDER:NAME), so it registers no provider:
 * registerProvider() answers 0, which the agent reports to the program as
 * a registration refused (false). Found here, in lib/lttng-compat, the
 * JVM does not load Debian's, which would bring LTTng-UST into the program.
 */
#include "common/common.h"

#include <jni.h>

JNIEXPORT jlong JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_registerProvider(
	JNIEnv *env, jclass cls, jstring provider_name);
JNIEXPORT void JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_unregisterProvider(
	JNIEnv *env, jclass cls, jlong provider);

JNIEXPORT jlong JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_registerProvider(
	JNIEnv *env, jclass cls, jstring provider_name)
{
	return 0;
}

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_context_LttngContextApi_unregisterProvider(
	JNIEnv *env, jclass cls, jlong provider)
{
}
