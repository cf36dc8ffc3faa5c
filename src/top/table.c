/* SPDX-License-Identifier: MIT */
/*
 * Tables of typed cells: rows added by views.c, sorted and filtered the same
 * way for every front end, written as aligned text or as JSON.
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void trawl_top_table_fini(struct trawl_top_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i].text);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

struct trawl_top_cell *trawl_top_table_row(struct trawl_top_table *t)
{
	struct trawl_top_cell *row;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct trawl_top_cell *cells = realloc(t->cells, cap * t->ncols * sizeof(*cells));

		if (!cells)
			return NULL;
		t->cells = cells;
		t->cap = cap;
	}
	row = &t->cells[t->nrows++ * t->ncols];
	memset(row, 0, t->ncols * sizeof(*row));
	return row;
}

int trawl_top_cell_text(struct trawl_top_cell *c, const char *s)
{
	free(c->text);
	c->text = strdup(s ? s : "");
	return c->text ? 0 : -ENOMEM;
}

struct sort_ctx {
	size_t col;
	int text, reverse;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	const struct trawl_top_cell *x = (const struct trawl_top_cell *)a + s->col;
	const struct trawl_top_cell *y = (const struct trawl_top_cell *)b + s->col;
	int r;

	if (s->text)
		r = strcmp(x->text ? x->text : "", y->text ? y->text : "");
	else	/* numbers: largest first, as top */
		r = x->num < y->num ? 1 : x->num > y->num ? -1 : 0;
	if (r == 0) {	/* ties by the first column (pid, tid...), for a stable view */
		x = a;
		y = b;
		r = x->num < y->num ? -1 : x->num > y->num;
		if (r == 0 && x->text && y->text)
			r = strcmp(x->text, y->text);
	}
	return s->reverse ? -r : r;
}

void trawl_top_table_sort(struct trawl_top_table *t, size_t col, int reverse)
{
	struct sort_ctx s = { col, 0, reverse };

	if (col >= t->ncols || t->nrows < 2)
		return;
	s.text = t->cols[col].kind == TRAWL_TOP_COL_TEXT;
	qsort_r(t->cells, t->nrows, t->ncols * sizeof(*t->cells), row_cmp, &s);
}

static int row_matches(const struct trawl_top_table *t, const struct trawl_top_cell *row,
		       const char *filter, long long id, int is_id)
{
	for (size_t c = 0; c < t->ncols; c++) {
		const char *key = t->cols[c].key;

		if (is_id && (!strcmp(key, "pid") || !strcmp(key, "tid")) &&
		    (long long)row[c].num == id)
			return 1;
		if (row[c].text && (!strcmp(key, "command") || !strcmp(key, "path") ||
				    !strcmp(key, "event") || !strcmp(key, "syscall")) &&
		    strstr(row[c].text, filter))
			return 1;
	}
	return 0;
}

void trawl_top_table_filter(struct trawl_top_table *t, const char *filter)
{
	size_t kept = 0;
	char *end;
	long long id;
	int is_id;

	if (!filter || !filter[0])
		return;
	id = strtoll(filter, &end, 10);
	is_id = *end == 0;
	for (size_t r = 0; r < t->nrows; r++) {
		struct trawl_top_cell *row = &t->cells[r * t->ncols];

		if (row_matches(t, row, filter, id, is_id)) {
			if (kept != r)
				memcpy(&t->cells[kept * t->ncols], row, t->ncols * sizeof(*row));
			kept++;
		} else {
			for (size_t c = 0; c < t->ncols; c++)
				free(row[c].text);
		}
	}
	t->nrows = kept;
}

/* 1234567 -> "1.2M": sizes in binary units, as top. */
static void human_bytes(double v, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	int u = -1;

	if (v < 10000) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", v, units[u]);
}

void trawl_top_cell_format(const struct trawl_top_col *c, const struct trawl_top_cell *cell,
			   char *buf, size_t len)
{
	switch (c->kind) {
	case TRAWL_TOP_COL_TEXT: snprintf(buf, len, "%s", cell->text ? cell->text : ""); break;
	case TRAWL_TOP_COL_INT: snprintf(buf, len, "%.0f", cell->num); break;
	case TRAWL_TOP_COL_PCT: snprintf(buf, len, "%.1f", cell->num); break;
	case TRAWL_TOP_COL_NS: snprintf(buf, len, "%.1f", cell->num / 1e3); break;
	case TRAWL_TOP_COL_MS: snprintf(buf, len, "%.1f", cell->num / 1e6); break;
	case TRAWL_TOP_COL_BYTES: human_bytes(cell->num, buf, len); break;
	case TRAWL_TOP_COL_RATE: snprintf(buf, len, "%.1f", cell->num); break;
	}
}

void trawl_top_table_print(const struct trawl_top_table *t, FILE *f, size_t max)
{
	char buf[256];

	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, "%s%*s", c ? " " : "", t->cols[c].width, t->cols[c].head);
	fprintf(f, "\n");
	for (size_t r = 0; r < t->nrows && (!max || r < max); r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct trawl_top_col *col = &t->cols[c];

			trawl_top_cell_format(col, &t->cells[r * t->ncols + c], buf, sizeof(buf));
			/* the last column is not padded (long paths, no trailing blanks) */
			if (c + 1 == t->ncols && col->width < 0)
				fprintf(f, " %s", buf);
			else
				fprintf(f, "%s%*s", c ? " " : "", col->width, buf);
		}
		fprintf(f, "\n");
	}
}

void trawl_top_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);	/* other bytes as they are: paths need not be UTF-8 */
	}
	fputc('"', f);
}

void trawl_top_table_json(const struct trawl_top_table *t, FILE *f)
{
	fputc('[', f);
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(f, "%s{", r ? "," : "");
		for (size_t c = 0; c < t->ncols; c++) {
			const struct trawl_top_cell *cell = &t->cells[r * t->ncols + c];
			enum trawl_top_col_kind k = t->cols[c].kind;

			fprintf(f, "%s\"%s\":", c ? "," : "", t->cols[c].key);
			if (k == TRAWL_TOP_COL_TEXT)
				trawl_top_json_string(f, cell->text ? cell->text : "");
			else if (k == TRAWL_TOP_COL_PCT || k == TRAWL_TOP_COL_RATE)
				fprintf(f, "%.2f", cell->num);
			else
				fprintf(f, "%.0f", cell->num);
		}
		fputc('}', f);
	}
	fputc(']', f);
}
