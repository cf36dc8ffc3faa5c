/* SPDX-License-Identifier: MIT */
/*
 * Field class trees: creation, deep copy (each use of a named type gets its
 * own nodes, see internal.h), destruction, and babeltrace2's clock
 * arithmetic (so timestamps print to the same nanosecond).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

void rd_err_set(struct rd_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->set)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->set = 1;
}

struct fc *fc_new(enum fc_kind kind)
{
	struct fc *fc = calloc(1, sizeof(*fc));

	if (!fc)
		return NULL;
	fc->kind = kind;
	fc->align = 8;
	fc->slot = -1;
	fc->base = 10;
	return fc;
}

static char *xstrdup_or_null(const char *s, int *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = 1;
	return d;
}

struct fc *fc_copy(const struct fc *src)
{
	struct fc *fc;
	int oom = 0;
	uint32_t i;

	if (!src)
		return NULL;
	fc = malloc(sizeof(*fc));
	if (!fc)
		return NULL;
	*fc = *src;
	fc->labels = NULL;
	fc->ranges = NULL;
	fc->members = NULL;
	fc->ref_path = NULL;
	fc->map_name = NULL;
	fc->ref = NULL;
	fc->choices = NULL;
	fc->nchoices = 0;
	fc->elem = NULL;
	fc->slot = -1;
	fc->is_target = false;
	if (src->nlabels) {
		fc->labels = calloc(src->nlabels, sizeof(char *));
		if (!fc->labels)
			oom = 1;
		for (i = 0; !oom && i < src->nlabels; i++)
			fc->labels[i] = xstrdup_or_null(src->labels[i], &oom);
	}
	if (!oom && src->nranges) {
		fc->ranges = malloc(src->nranges * sizeof(*fc->ranges));
		if (fc->ranges)
			memcpy(fc->ranges, src->ranges,
			       src->nranges * sizeof(*fc->ranges));
		else
			oom = 1;
	}
	if (!oom && src->nmembers) {
		fc->members = calloc(src->nmembers, sizeof(*fc->members));
		if (!fc->members)
			oom = 1;
		for (i = 0; !oom && i < src->nmembers; i++) {
			fc->members[i].name =
				xstrdup_or_null(src->members[i].name, &oom);
			fc->members[i].fc = fc_copy(src->members[i].fc);
			if (!fc->members[i].fc)
				oom = 1;
		}
	}
	if (!oom)
		fc->ref_path = xstrdup_or_null(src->ref_path, &oom);
	if (!oom)
		fc->map_name = xstrdup_or_null(src->map_name, &oom);
	if (!oom && src->elem) {
		fc->elem = fc_copy(src->elem);
		if (!fc->elem)
			oom = 1;
	}
	if (oom) {
		/* keep counts consistent with what was allocated */
		if (!fc->labels)
			fc->nlabels = 0;
		if (!fc->ranges)
			fc->nranges = 0;
		if (!fc->members)
			fc->nmembers = 0;
		fc_destroy(fc);
		return NULL;
	}
	return fc;
}

void fc_destroy(struct fc *fc)
{
	uint32_t i;

	if (!fc)
		return;
	for (i = 0; i < fc->nlabels && fc->labels; i++)
		free(fc->labels[i]);
	free(fc->labels);
	free(fc->ranges);
	for (i = 0; i < fc->nmembers && fc->members; i++) {
		free(fc->members[i].name);
		fc_destroy(fc->members[i].fc);
	}
	free(fc->members);
	free(fc->ref_path);
	free(fc->map_name);
	free(fc->choices);
	fc_destroy(fc->elem);
	free(fc);
}

struct fc *fc_struct_member(const struct fc *st, const char *name)
{
	uint32_t i;

	if (!st || (st->kind != FC_STRUCT && st->kind != FC_VARIANT))
		return NULL;
	for (i = 0; i < st->nmembers; i++)
		if (strcmp(st->members[i].name, name) == 0)
			return st->members[i].fc;
	return NULL;
}

/* Cycles to ns as babeltrace2 computes it: exact at 1 GHz, else in double. */
static uint64_t ns_from_value(uint64_t freq, uint64_t value)
{
	double d;

	if (freq == 1000000000ULL)
		return value;
	d = (1e9 * (double)value) / (double)freq;
	if (d >= (double)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)d;
}

void clock_class_finish(struct clock_class *cc)
{
	/* normalise offset cycles into whole seconds, as the CTF reader does */
	if (cc->freq && cc->offset >= 0 && (uint64_t)cc->offset >= cc->freq) {
		cc->offset_s += cc->offset / (int64_t)cc->freq;
		cc->offset %= (int64_t)cc->freq;
	}
	cc->base_offset_ns = cc->offset_s * 1000000000LL +
			     (int64_t)ns_from_value(cc->freq, (uint64_t)cc->offset);
}

/*
 * --clock-offset/--clock-offset-ns, as babeltrace2 applies them: whole
 * seconds go to offset_s, the rest is converted to cycles (in double) and
 * added to the offset in cycles, then the cycles are normalised again.
 */
void clock_class_apply_offset(struct clock_class *cc, int64_t offset_s,
			      int64_t offset_ns)
{
	uint64_t ns_part, cycles;
	int64_t extra_s;

	if (!offset_s && !offset_ns)
		return;
	if (offset_ns < 0) {
		extra_s = -((-offset_ns) / 1000000000LL + 1);
		ns_part = (uint64_t)(offset_ns - extra_s * 1000000000LL);
	} else {
		extra_s = offset_ns / 1000000000LL;
		ns_part = (uint64_t)(offset_ns - extra_s * 1000000000LL);
	}
	cycles = cc->freq == 1000000000ULL ? ns_part :
		 (uint64_t)(((double)ns_part * (double)cc->freq) / 1e9);
	cc->offset_s += offset_s + extra_s;
	cc->offset += (int64_t)cycles;
	clock_class_finish(cc);
}

int64_t clock_ns_from_origin(const struct clock_class *cc, uint64_t cycles,
			     bool *overflow)
{
	uint64_t v = ns_from_value(cc->freq, cycles);
	int64_t res;

	if (v > (uint64_t)INT64_MAX ||
	    __builtin_add_overflow(cc->base_offset_ns, (int64_t)v, &res)) {
		if (overflow)
			*overflow = true;
		return 0;
	}
	if (overflow)
		*overflow = false;
	return res;
}
