/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the checks of client text bound for tracefs
 * (src/kernel/check.c) and for the ELF/SDT locator (uprobe-elf.c), which
 * parses a file a user chose. The first byte picks the parser; the rest is
 * its input. Beyond not crashing, what a check accepts must be inert in
 * tracefs' languages: no white space, '#', newline or non-ASCII byte where
 * uprobe_events and kprobe_events would split or cut a line, and a
 * formatted kprobe location must parse back to the same values.
 */
#include "kernel/internal.h"

#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts if @s holds a byte that splits or cuts a tracefs command line. */
static void inert(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || *s == '#')
			abort();
}

static void kprobe(const char *text)
{
	struct trawl_kernel_kprobe_loc a, b;
	char err[TRAWL_KERNEL_ERR_LEN], buf[300];

	if (trawl_kernel_kprobe_loc_parse(text, &a, err, sizeof(err)) != 0)
		return;
	trawl_kernel_kprobe_loc_format(&a, buf, sizeof(buf));
	inert(buf);
	if (strpbrk(buf, "%=():"))
		abort();
	if (trawl_kernel_kprobe_loc_parse(buf, &b, err, sizeof(err)) != 0 ||
	    strcmp(a.sym, b.sym) || a.offset != b.offset || a.addr != b.addr)
		abort();
}

static void uprobe(const char *text)
{
	struct trawl_kernel_uprobe_loc loc;
	char err[TRAWL_KERNEL_ERR_LEN];

	if (trawl_kernel_uprobe_loc_parse(text, &loc, err, sizeof(err)) != 0)
		return;
	inert(loc.path);
	inert(loc.provider);
	inert(loc.symbol);
	if (loc.path[0] != '/' || strchr(loc.path, ':') || strchr(loc.symbol, ':'))
		abort();
}

static void filter(const char *text)
{
	char err[TRAWL_KERNEL_ERR_LEN];
	const char *p;

	if (trawl_kernel_check_filter(text, err, sizeof(err)) != 0)
		return;
	for (p = text; *p; p++)
		if (((unsigned char)*p < ' ' && *p != '\t') || (unsigned char)*p >= 0x7f)
			abort();
}

/* The locator on an ELF image: data[0] picks ELF or SDT, the names are fixed. */
static void locate(const uint8_t *data, size_t size)
{
	struct trawl_kernel_uprobe_loc loc = { .path = "/fuzz" };
	static struct trawl_kernel_uprobe_sites s;
	char *copy;
	Elf *e;
	uint32_t i;

	if (size < 1)
		return;
	loc.kind = data[0] & 1 ? TRAWL_KERNEL_UPROBE_SDT : TRAWL_KERNEL_UPROBE_ELF;
	strcpy(loc.provider, "trawl_test");
	strcpy(loc.symbol, data[0] & 1 ? "tick" : "main");
	/* libelf may write into the image it was given: hand it a copy. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return;
	memcpy(copy, data + 1, size - 1);
	elf_version(EV_CURRENT);
	e = elf_memory(copy, size - 1);
	if (e) {
		if (trawl_kernel_elf_locate(e, size - 1, &loc, &s) == 0) {
			if (s.n == 0 || s.n > TRAWL_KERNEL_UPROBE_SITES_MAX)
				abort();
			for (i = 0; i < s.n; i++)
				if (s.offset[i] >= size - 1 || s.ref_ctr[i] >= size - 1)
					abort();
		} else if (!memchr(s.err, '\0', sizeof(s.err))) {
			abort();
		}
		elf_end(e);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TRAWL_KERNEL_ERR_LEN] = "", *text;

	if (size < 1)
		return 0;
	if (data[0] >= 0xf0) {
		locate(data + 1, size - 1);
		return 0;
	}
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 6) {
	case 0:
		if (trawl_kernel_check_probe_name(text, err, sizeof(err)) == 0)
			inert(text);
		break;
	case 1:
		if (trawl_kernel_check_event_pattern(text, err, sizeof(err)) == 0)
			inert(text);
		break;
	case 2:
		if (trawl_kernel_check_ksym(text, err, sizeof(err)) == 0)
			inert(text);
		break;
	case 3:
		kprobe(text);
		break;
	case 4:
		uprobe(text);
		break;
	default:
		filter(text);
	}
	if (memchr(err, '\n', strnlen(err, sizeof(err))))
		abort();
	free(text);
	return 0;
}
