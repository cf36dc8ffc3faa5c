/* SPDX-License-Identifier: MIT */
/*
 * jni-ctx-parse.h - the values of application contexts in the arrays
 * LTTng's Java agent serializes (jni-ctx.h has their format), as a pure
 * function: context-jni.c's provider, and fuzz/agent's target.
 */
#ifndef TRAWL_UST_AGENTS_JNI_CTX_PARSE_H
#define TRAWL_UST_AGENTS_JNI_CTX_PARSE_H

#include <stddef.h>

#include "ust/app-context.h"

/*
 * The value of context @name ("$app.P:N") in @entries (@entries_len bytes;
 * whole 13-byte entries only) and @strings (@strings_len bytes), into @v
 * (left as it is, NONE, when no entry names it, or the first that does has
 * no value we can read). Untrusted arrays: every offset is checked, a name
 * must end inside the strings, a string value is given with the bytes
 * left after it (@v->len), never more.
 */
void trawl_jni_ctx_lookup(const unsigned char *entries, size_t entries_len,
			  const unsigned char *strings, size_t strings_len, const char *name,
			  struct trawl_ust_app_value *v);

#endif
