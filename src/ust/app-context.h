/* SPDX-License-Identifier: MIT */
/*
 * app-context.h - application context providers of a traced process
 * (`trawl add-context -t '$app.PROVIDER:NAME'`, LTTng's), exported by
 * libtrawl-ust for trawl's JNI library of LTTng's Java agent
 * (src/ust-agents/context-jni.c), which registers one provider per
 * IContextInfoRetriever the program registers.
 *
 * A provider answers, in the thread of an event and during its
 * tracepoint, the value of one of its contexts for that event. It never
 * writes into the trace: libtrawl-ust asks it once per context and event,
 * then sizes and writes the values itself (ustabi.h has the layout), so a
 * provider cannot make the reservation and the bytes disagree.
 */
#ifndef TRAWL_UST_APP_CONTEXT_H
#define TRAWL_UST_APP_CONTEXT_H

#include <stdint.h>

/* What a provider answers for one context of one event. */
struct trawl_ust_app_value {
	uint32_t type; /* enum trawl_ustctl_app_type (ustabi.h); NONE: no value */
	/* STRING: the bytes of u.str that may be read (the string ends at its
	 * first NUL, or there; and at TRAWL_USTCTL_APP_CTX_STRING_MAX) */
	uint32_t len;
	union {
		int64_t s;       /* S8..S64 */
		uint64_t u;      /* U8..U64 */
		float f;         /* FLOAT */
		double d;        /* DOUBLE */
		const char *str; /* STRING: the provider's, valid during the call's tracepoint */
	} u;
};

/*
 * A provider's answer: fills @v for context @name ("$app.PROVIDER:NAME")
 * of the event the calling thread is recording (@v->type is NONE when
 * called). Called from any traced thread, possibly from a signal handler
 * that interrupted a tracepoint: it must not take locks or allocate.
 */
typedef void (*trawl_ust_app_get_fn)(const char *name, struct trawl_ust_app_value *v);

/**
 * trawl_ust_app_provider_register - answer the contexts of @provider
 * @provider: "$app.PROVIDER" (copied), PROVIDER made of [A-Za-z0-9_.]
 * @get: the answers; must stay callable for the process's life (an
 *       event that found it may still call it after it is unregistered)
 *
 * Events recorded from then on carry its values. Returns 0, -EINVAL (a
 * bad name), -EEXIST (registered already) or -ENOSPC (64 distinct
 * provider names in the process's life, at most).
 */
int trawl_ust_app_provider_register(const char *provider, trawl_ust_app_get_fn get);

/* Stops asking @provider's (its events record no value): 0, or -ENOENT if
 * it is not registered. */
int trawl_ust_app_provider_unregister(const char *provider);

#endif
