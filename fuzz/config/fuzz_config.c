/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config.c - libFuzzer target for the session file parser
 * (src/config/parse.c): any bytes either parse into a document whose
 * sessions can be named, or fail with one line; never a crash, a leak
 * or an unbounded allocation.
 */
#include "config/config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <libxml/parser.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_config_doc *doc;
	char err[512];
	size_t i;

	if (trawl_config_doc_parse((const char *)data, size, "fuzz.lttng", &doc, err,
				   sizeof(err)) == 0) {
		for (i = 0; i < trawl_config_doc_count(doc); i++)
			if (!trawl_config_doc_name(doc, i))
				__builtin_trap();
		trawl_config_doc_destroy(doc);
	} else if (!err[0] || memchr(err, '\n', strnlen(err, sizeof(err)))) {
		__builtin_trap(); /* a failure says one line */
	}
	return 0;
}
