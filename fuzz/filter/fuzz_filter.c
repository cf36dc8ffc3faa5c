/* SPDX-License-Identifier: MIT */
/*
 * fuzz_filter.c - src/filter on arbitrary input: the bytes up to the first
 * NUL are the expression; the bytes after it are the event's values, in
 * field order (8 bytes per integer or float; a count byte then the bytes of
 * each string, array and sequence, each in a block of its exact size so
 * that ASan sees any read past it). A parsed expression is bound to two
 * layouts (the same names with other kinds) and run with values made for
 * each; nothing may read out of bounds or trip UBSan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct trawl_filter_field layout1[] = {
	{ "a", TRAWL_FILTER_FIELD_INT, 32, 1, 0, 0 },      { "u", TRAWL_FILTER_FIELD_INT, 64, 0, 0, 0 },
	{ "f", TRAWL_FILTER_FIELD_FLOAT, 64, 1, 0, 0 },    { "s", TRAWL_FILTER_FIELD_STRING, 8, 0, 1, 0 },
	{ "t", TRAWL_FILTER_FIELD_ARRAY, 8, 1, 1, 0 },     { "arr", TRAWL_FILTER_FIELD_ARRAY, 16, 1, 0, 0 },
	{ "seq", TRAWL_FILTER_FIELD_SEQUENCE, 64, 0, 0, 1 }, { "b", TRAWL_FILTER_FIELD_SEQUENCE, 8, 1, 1, 0 },
};
/* The same names, other kinds (and a bogus element size). */
static const struct trawl_filter_field layout2[] = {
	{ "seq", TRAWL_FILTER_FIELD_INT, 8, 0, 0, 0 },     { "arr", TRAWL_FILTER_FIELD_INT, 16, 1, 0, 0 },
	{ "t", TRAWL_FILTER_FIELD_FLOAT, 32, 1, 0, 0 },    { "b", TRAWL_FILTER_FIELD_STRING, 8, 0, 1, 0 },
	{ "s", TRAWL_FILTER_FIELD_ARRAY, 8, 1, 1, 0 },     { "f", TRAWL_FILTER_FIELD_SEQUENCE, 32, 1, 0, 0 },
	{ "u", TRAWL_FILTER_FIELD_SEQUENCE, 8, 0, 1, 0 },  { "a", TRAWL_FILTER_FIELD_ARRAY, 24, 1, 0, 0 },
};
#define NR 8

static int ctx_value(void *arg, unsigned int which, struct trawl_ust_filter_arg *out)
{
	const char *name = arg;

	if (which == TRAWL_FILTER_CTX_CPU_ID)
		return -1;
	out->i = (int64_t)which * 1000 - 3;
	out->p = name;
	out->n = 3; /* "abc", no NUL */
	return 0;
}

/*
 * Fills @args for @layout from the value bytes, each string or array in a
 * block of its exact size (kept in @blocks, freed by the caller).
 */
static void make_args(const struct trawl_filter_field *layout, const uint8_t *v, size_t left,
		      struct trawl_ust_filter_arg *args, void **blocks)
{
	size_t i;

	memset(args, 0, NR * sizeof(*args));
	for (i = 0; i < NR; i++) {
		const struct trawl_filter_field *fd = &layout[i];
		size_t n, esz, bytes;
		uint8_t *b;

		blocks[i] = NULL;
		if (fd->kind == TRAWL_FILTER_FIELD_INT || fd->kind == TRAWL_FILTER_FIELD_FLOAT) {
			uint64_t x = 0;

			n = left < 8 ? left : 8;
			memcpy(&x, v, n);
			v += n;
			left -= n;
			if (fd->kind == TRAWL_FILTER_FIELD_FLOAT)
				memcpy(&args[i].d, &x, 8);
			else
				args[i].i = (int64_t)x;
			continue;
		}
		n = left ? v[0] % 8 : 0;
		if (left) {
			v++;
			left--;
		}
		esz = fd->kind == TRAWL_FILTER_FIELD_STRING ? 1 : (fd->bits + 7u) / 8u;
		bytes = n * esz;
		if (bytes > left) {
			n = left / esz;
			bytes = n * esz;
		}
		b = malloc(fd->kind == TRAWL_FILTER_FIELD_STRING ? bytes + 1 : (bytes ? bytes : 1));
		if (!b)
			continue;
		memcpy(b, v, bytes);
		v += bytes;
		left -= bytes;
		blocks[i] = b;
		args[i].p = b;
		if (fd->kind == TRAWL_FILTER_FIELD_STRING)
			b[bytes] = '\0';
		else
			args[i].n = n;
	}
}

static void run_layout(const struct trawl_filter *f, const struct trawl_filter_field *layout,
		       const uint8_t *v, size_t left)
{
	struct trawl_ust_filter_arg args[NR];
	struct trawl_filter_prog *prog;
	void *blocks[NR];
	char *procname = malloc(3);
	size_t i;

	if (!procname)
		return;
	memcpy(procname, "abc", 3);
	make_args(layout, v, left, args, blocks);
	if (!trawl_filter_bind(f, layout, NR, &prog)) {
		(void)trawl_filter_run(prog, args, ctx_value, procname);
		(void)trawl_filter_run(prog, args, NULL, NULL);
		trawl_filter_prog_destroy(prog);
	}
	for (i = 0; i < NR; i++)
		free(blocks[i]);
	free(procname);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	const uint8_t *v = nul ? nul + 1 : data + size;
	struct trawl_filter_error err;
	struct trawl_filter *f;
	char *text = malloc(tlen + 1);

	if (!text)
		return 0;
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	if (trawl_filter_parse(text, &f, &err)) {
		free(text);
		return 0;
	}
	free(text);
	run_layout(f, layout1, v, size - (size_t)(v - data));
	run_layout(f, layout2, v, size - (size_t)(v - data));
	trawl_filter_destroy(f);
	return 0;
}
