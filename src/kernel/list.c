/* SPDX-License-Identifier: MIT */
/*
 * `trawl list --kernel [--fields]` and `trawl list --kernel --syscall`: what
 * the kernel offers, read from the top-level events folder (read only).
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct list_ctx {
	int syscalls, fields;
	struct trawl_kernel_list_item *items;
	int n;
	size_t cap;
	int error;
};

static const char *kind_name(const struct trawl_kernel_field *f)
{
	switch (f->kind) {
	case TRAWL_KF_HEX: return "integer (hex)";
	case TRAWL_KF_TEXT: return "char array";
	case TRAWL_KF_ARRAY: return "integer array";
	case TRAWL_KF_STRING: return "string";
	case TRAWL_KF_BYTES: return "byte sequence";
	case TRAWL_KF_SEQ_I32: return "integer sequence";
	case TRAWL_KF_DECODED: return "sequence (decoded)";
	default: return "integer";
	}
}

static int list_one(const char *sys, const char *ev, void *arg)
{
	struct list_ctx *c = arg;
	struct trawl_kernel_list_item *it;

	if (!strcmp(sys, "ftrace"))
		return 0;
	if (c->syscalls) {
		if (strcmp(sys, "syscalls") || strncmp(ev, "sys_enter_", 10))
			return 0;
	}
	if (trawl_array_grow((void **)&c->items, &c->cap, (size_t)c->n + 1, sizeof(*c->items), 256)) {
		c->error = -ENOMEM;
		return 1;
	}
	it = &c->items[c->n++];
	memset(it, 0, sizeof(*it));
	/*
	 * A name too long for the list's fields fails the list (a cut name
	 * would name another event, or none), with -ENAMETOOLONG.
	 */
	if (trawl_path_fmt(it->system, sizeof(it->system), "%s", sys) ||
	    (c->syscalls ? trawl_path_fmt(it->name, sizeof(it->name), "%s", ev + 10)
			 : trawl_kernel_event_ctf_name(sys, ev, it->name, sizeof(it->name)))) {
		c->n--;
		c->error = -ENAMETOOLONG;
		return 1;
	}
	if (c->fields) {
		char rel[512], *text = malloc(65536);
		struct trawl_kernel_event e;
		size_t sz = 0;
		FILE *f;
		int i;

		if (text && !trawl_path_fmt(rel, sizeof(rel), "events/%s/%s/format", sys, ev) &&
		    trawl_kernel_read_file(rel, text, 65536) > 0 &&
		    trawl_kernel_event_parse(sys, ev, text, &e) == 0) {
			f = open_memstream(&it->fields, &sz);
			if (f) {
				for (i = 0; i < e.nfields; i++)
					fprintf(f, "%s %s\n", e.fields[i].name, kind_name(&e.fields[i]));
				fclose(f);
			}
			trawl_kernel_event_fini(&e);
		}
		free(text);
	}
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct trawl_kernel_list_item *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int trawl_kernel_list(int syscalls, int fields, struct trawl_kernel_list_item **items)
{
	struct list_ctx c = { syscalls, fields, NULL, 0, 0, 0 };
	int ret;

	ret = trawl_kernel_foreach_event("events", list_one, &c);
	if (ret < 0 || c.error) {
		trawl_kernel_list_free(c.items, c.n);
		return ret < 0 ? ret : c.error;
	}
	qsort(c.items, (size_t)c.n, sizeof(*c.items), cmp_item);
	*items = c.items;
	return c.n;
}

void trawl_kernel_list_free(struct trawl_kernel_list_item *items, int n)
{
	int i;

	for (i = 0; items && i < n; i++)
		free(items[i].fields);
	free(items);
}
