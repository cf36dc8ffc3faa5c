/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the application contexts a Java program hands
 * trawl's JNI library (src/ust-agents/jni-ctx-parse.c: LTTng's agent's
 * serialized arrays, the program's own but untrusted), through what
 * libtrawl-ust makes of the answers (src/ust/app-context.c: sized, then
 * written into exactly that many bytes, which ASan holds it to).
 *
 * Input: byte 0 splits the rest: the entries array first (byte 0 * 13
 * bytes at most), then the strings array. Asked for two contexts of
 * provider "$app.f", and one of a provider never registered.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ust-agents/jni-ctx-parse.h"
#include "ust/ust.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const unsigned char *in_entries, *in_strings;
static size_t in_elen, in_slen;

static void get(const char *name, struct trawl_ust_app_value *v)
{
	trawl_jni_ctx_lookup(in_entries, in_elen, in_strings, in_slen, name, v);
	/* A string value never points outside the strings, nor says it has
	 * more bytes than are left. */
	if (v->type == TRAWL_USTCTL_APP_STRING &&
	    ((const unsigned char *)v->u.str < in_strings ||
	     (const unsigned char *)v->u.str + v->len != in_strings + in_slen))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char names[] = "$app.f:a\0$app.f:b\0$app.g:c";
	static struct trawl_ust_app_ctx *a;
	struct trawl_ust_app_value v[TRAWL_USTCTL_MAX_APP_CTX];
	size_t split, n;
	char *buf, *end;

	if (!a) {
		a = trawl_ust_app_ctx_create(names, 3);
		if (!a || trawl_ust_app_provider_register("$app.f", get))
			abort();
	}
	if (!size)
		return 0;
	split = (size_t)data[0] * 13;
	if (split > size - 1)
		split = size - 1;
	/* copies of their exact sizes: ASan sees a read past either */
	in_elen = split;
	in_slen = size - 1 - split;
	in_entries = in_elen ? memcpy(malloc(in_elen), data + 1, in_elen) : NULL;
	in_strings = in_slen ? memcpy(malloc(in_slen), data + 1 + split, in_slen) : NULL;
	n = trawl_ust_app_ctx_get(a, v);
	buf = malloc(n ? n : 1);
	end = trawl_ust_app_ctx_write(buf, a, v);
	if ((size_t)(end - buf) != n || n < 3 ||
	    n > 3 + 2 * (1 + TRAWL_USTCTL_APP_CTX_STRING_MAX))
		abort();
	/* the third context's provider was never registered: its tag says none */
	if (buf[n - 1] != TRAWL_USTCTL_APP_NONE)
		abort();
	free(buf);
	free((void *)in_entries);
	free((void *)in_strings);
	return 0;
}
