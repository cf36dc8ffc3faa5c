/* SPDX-License-Identifier: MIT */
/*
 * log4j-jni.c - trawl's liblttng-ust-log4j-jni.so: the native library that
 * LTTng's Java agent for log4j 1.2 (Debian's liblttng-ust-agent-java,
 * lttng-ust-agent-log4j.jar, unchanged) loads with
 * System.loadLibrary("lttng-ust-log4j-jni") when a program makes an
 * org.lttng.ust.agent.log4j.LttngLogAppender. It implements the same native
 * methods of org.lttng.ust.agent.log4j.LttngLog4jApi and records
 * lttng_log4j:event through libtrawl-ust. What is enabled, the application
 * contexts and where it is found: as jul-jni.c says for JUL.
 */
#include "common/common.h"

#include "ust-agents/jni-ctx.h"
#include "ust-agents/jni-str.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "ust-agents/tp-log4j.h"

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_log4j_LttngLog4jApi_tracepoint(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jstring file_name, jint line_number, jlong timestamp,
	jint log_level, jstring thread_name);
JNIEXPORT void JNICALL Java_org_lttng_ust_agent_log4j_LttngLog4jApi_tracepointWithContext(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jstring file_name, jint line_number, jlong timestamp,
	jint log_level, jstring thread_name, jbyteArray context_entries,
	jbyteArray context_strings);

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_log4j_LttngLog4jApi_tracepoint(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jstring file_name, jint line_number, jlong timestamp,
	jint log_level, jstring thread_name)
{
	struct jni_str s_msg, s_logger, s_class, s_method, s_file, s_thread;

	if (!tracepoint_enabled(lttng_log4j, event))
		return;
	do_tracepoint(lttng_log4j, event, jni_str_get(env, &s_msg, msg),
		      jni_str_get(env, &s_logger, logger_name),
		      jni_str_get(env, &s_class, class_name),
		      jni_str_get(env, &s_method, method_name),
		      jni_str_get(env, &s_file, file_name), (int)line_number, (long)timestamp,
		      (int)log_level, jni_str_get(env, &s_thread, thread_name));
	jni_str_put(env, &s_thread);
	jni_str_put(env, &s_file);
	jni_str_put(env, &s_method);
	jni_str_put(env, &s_class);
	jni_str_put(env, &s_logger);
	jni_str_put(env, &s_msg);
}

JNIEXPORT void JNICALL Java_org_lttng_ust_agent_log4j_LttngLog4jApi_tracepointWithContext(
	JNIEnv *env, jclass cls, jstring msg, jstring logger_name, jstring class_name,
	jstring method_name, jstring file_name, jint line_number, jlong timestamp,
	jint log_level, jstring thread_name, jbyteArray context_entries,
	jbyteArray context_strings)
{
	struct jni_ctx c;

	if (!tracepoint_enabled(lttng_log4j, event))
		return;
	jni_ctx_begin(env, &c, context_entries, context_strings);
	Java_org_lttng_ust_agent_log4j_LttngLog4jApi_tracepoint(env, cls, msg, logger_name,
								 class_name, method_name, file_name,
								 line_number, timestamp, log_level,
								 thread_name);
	jni_ctx_end(env, &c);
}
