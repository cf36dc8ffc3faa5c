/* SPDX-License-Identifier: MIT */
/*
 * jul-jni.c - trawl's liblttng-ust-jul-jni.so: the native library that
 * LTTng's Java agent for java.util.logging (Debian's
 * liblttng-ust-agent-java, lttng-ust-agent-jul.jar, unchanged) loads with
 * System.loadLibrary("lttng-ust-jul-jni") when a program makes an
 * org.lttng.ust.agent.jul.LttngLogHandler. It implements the same native
 * methods of org.lttng.ust.agent.jul.LttngJulApi, with the same arguments,
 * and records lttng_jul:event through libtrawl-ust.
 *
 * The agent calls it only for the records of a logger that a session's
 * rule enables (the rules reach it over the agent port:
 * sessiond/agent-port.c); the session's own rule on lttng_jul:event (the
 * logger name and level filter made by `trawl enable-event --jul`:
 * sessiond/cmd-agent.c) decides what each session keeps, as in LTTng.
 *
 * The agent's application contexts ($app.PROVIDER:NAME: the two byte
 * arrays of tracepointWithContext) are handed to context-jni.c's
 * providers (jni-ctx.h) while the tracepoint records: a channel recording
 * them asks for their values then.
 *
 * Built into lib/lttng-compat (installed: lib/trawl/lttng-compat): with that
 * folder on LD_LIBRARY_PATH, which the JVM puts first in java.library.path,
 * the agent finds it before Debian's (which records through LTTng-UST).
 */
#include "common/common.h"

#include "ust-agents/jni-ctx.h"
#include "ust-agents/jni-str.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "ust-agents/tp-jul.h"

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_jul_LttngJulApi_tracepoint(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jlong millis, jint log_level, jint thread_id);
JNIEXPORT void JNICALL Java_org_lttng_ust_agent_jul_LttngJulApi_tracepointWithContext(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jlong millis, jint log_level, jint thread_id,
	jbyteArray context_entries, jbyteArray context_strings);

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_jul_LttngJulApi_tracepoint(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jlong millis, jint log_level, jint thread_id)
{
	struct jni_str s_msg, s_logger, s_class, s_method;

	/* Nothing to convert when no session has the event enabled. */
	if (!tracepoint_enabled(lttng_jul, event))
		return;
	do_tracepoint(lttng_jul, event, jni_str_get(env, &s_msg, msg),
		      jni_str_get(env, &s_logger, logger_name),
		      jni_str_get(env, &s_class, class_name),
		      jni_str_get(env, &s_method, method_name), (long)millis, (int)log_level,
		      (int)thread_id);
	jni_str_put(env, &s_method);
	jni_str_put(env, &s_class);
	jni_str_put(env, &s_logger);
	jni_str_put(env, &s_msg);
}

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_jul_LttngJulApi_tracepointWithContext(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jlong millis, jint log_level, jint thread_id,
	jbyteArray context_entries, jbyteArray context_strings)
{
	struct jni_ctx c;

	if (!tracepoint_enabled(lttng_jul, event))
		return;
	jni_ctx_begin(env, &c, context_entries, context_strings);
	Java_org_lttng_ust_agent_jul_LttngJulApi_tracepoint(env, cls, msg, logger_name, class_name,
							     method_name, millis, log_level,
							     thread_id);
	jni_ctx_end(env, &c);
}
