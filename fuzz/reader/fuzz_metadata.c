/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the TSDL metadata parser and resolver. The input is
 * metadata text; parsing and resolving must end in success or an error
 * message, never a crash, a hang or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_class *tc = NULL;
	struct rd_err err = { 0 };
	char *text;

	if (size > (1u << 20))
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tsdl_parse(text, size, "metadata", &tc, &err) == 0) {
		tsdl_resolve(tc, "metadata", &err);
		trace_class_destroy(tc);
	}
	free(text);
	return 0;
}
