/* SPDX-License-Identifier: MIT */
/*
 * jni-ctx-parse.c - the values of application contexts in LTTng's Java
 * agent's arrays (jni-ctx-parse.h), with LTTng-UST 2.13's types (its
 * lttng_ust_context.c): Java's int as int32, long int64, double, float,
 * short int16, byte and boolean int8 (true 1), a string (also a char, or
 * any other object's toString()) as a string; null, or a type we do not
 * know (LTTng-UST aborts the program on one): no value.
 */
#include <stdint.h>
#include <string.h>

#include "ust-agents/jni-ctx-parse.h"
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

/* The string at offset @off of @strings (@len bytes), NUL-terminated
 * inside it, or NULL. */
static const char *string_at(const unsigned char *strings, size_t len, int32_t off)
{
	if (off < 0 || (size_t)off >= len || !memchr(strings + off, '\0', len - (size_t)off))
		return NULL;
	return (const char *)strings + off;
}

void trawl_jni_ctx_lookup(const unsigned char *entries, size_t entries_len,
			  const unsigned char *strings, size_t strings_len, const char *name,
			  struct trawl_ust_app_value *v)
{
	size_t i, n = entries ? entries_len / ENTRY_LEN : 0;

	if (!strings)
		strings_len = 0;
	for (i = 0; i < n; i++) {
		const unsigned char *e = entries + i * ENTRY_LEN;
		const char *s;
		int32_t off, i32;
		int16_t i16;
		int8_t i8;

		memcpy(&off, e, 4);
		s = string_at(strings, strings_len, off);
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
			if (off >= 0 && (size_t)off < strings_len) {
				v->type = TRAWL_USTCTL_APP_STRING;
				v->u.str = (const char *)strings + off;
				v->len = (uint32_t)(strings_len - (size_t)off > UINT32_MAX
							    ? UINT32_MAX
							    : strings_len - (size_t)off);
			}
			break;
		default: /* JNI_NULL, or a type we do not know: no value */
			break;
		}
		return; /* the first entry of that name, as LTTng's */
	}
}

