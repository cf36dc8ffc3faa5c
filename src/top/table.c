/* SPDX-License-Identifier: MIT */
/*
 * Tables of typed cells: rows added by views.c, sorted and filtered the same
 * way for every front end, written as aligned text or as JSON.
 */
#include "top.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void trawl_top_table_fini(struct trawl_top_table *t)
{
	struct trawl_top_strblock *b, *next;

	for (b = t->strs; b; b = next) {
		next = b->next;
		free(b);
	}
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

int trawl_top_cell_text(struct trawl_top_table *t, struct trawl_top_cell *c, const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	struct trawl_top_strblock *b = t->strs;

	/* a copy in the table's blocks: one allocation per 64 KiB of text, not per cell */
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return -ENOMEM;
		b->next = t->strs;
		b->used = 0;
		b->cap = cap;
		t->strs = b;
	}
	c->text = memcpy(b->data + b->used, s ? s : "", n);
	b->used += n;
	return 0;
}

struct sort_ctx {
	size_t col, ncols;
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
	/*
	 * Ties by the first column (pid, tid...), then the others in order:
	 * a stable view, whatever order the rows came in (the model's hash maps).
	 */
	for (size_t c = 0; r == 0 && c < s->ncols; c++) {
		x = (const struct trawl_top_cell *)a + c;
		y = (const struct trawl_top_cell *)b + c;
		r = x->num < y->num ? -1 : x->num > y->num;
		if (r == 0 && x->text && y->text)
			r = strcmp(x->text, y->text);
	}
	return s->reverse ? -r : r;
}

static int row_ptr_cmp(const void *a, const void *b, void *arg)
{
	return row_cmp(*(const struct trawl_top_cell *const *)a,
		       *(const struct trawl_top_cell *const *)b, arg);
}

void trawl_top_table_sort(struct trawl_top_table *t, size_t col, int reverse)
{
	struct sort_ctx s = { col, t->ncols, 0, reverse };
	const struct trawl_top_cell **rows;
	struct trawl_top_cell *cells;

	if (col >= t->ncols || t->nrows < 2)
		return;
	s.text = t->cols[col].kind == TRAWL_TOP_COL_TEXT;
	/* rows by pointer, then copied once in order: a sort moves 8 bytes, not a row */
	rows = malloc(t->nrows * sizeof(*rows));
	cells = malloc(t->nrows * t->ncols * sizeof(*cells));
	if (!rows || !cells) {
		free(rows);
		free(cells);
		qsort_r(t->cells, t->nrows, t->ncols * sizeof(*t->cells), row_cmp, &s);
		return;
	}
	for (size_t r = 0; r < t->nrows; r++)
		rows[r] = &t->cells[r * t->ncols];
	qsort_r(rows, t->nrows, sizeof(*rows), row_ptr_cmp, &s);
	for (size_t r = 0; r < t->nrows; r++)
		memcpy(&cells[r * t->ncols], rows[r], t->ncols * sizeof(*cells));
	free(rows);
	free(t->cells);
	t->cells = cells;
	t->cap = t->nrows;
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
		}
	}
	t->nrows = kept;
}

/*
 * @v as printf's "%.0f", "%.1f" or "%.2f" (@decimals 0, 1, 2) prints it,
 * without printf: batch output (text and JSON) formats a cell per column per row per interval,
 * and printf's exact decimal conversion was most of trawltop's time after
 * decoding. The shortcut takes non-negative values whose scaled value is
 * below 2^36 (so the product's rounding error is under 2^-17) and not
 * within 10^-4 of a rounding tie (where that error might round the other
 * way than printf's exact conversion); the rest go to snprintf. Either
 * way the text is printf's.
 */
static void fmt_fixed(double v, int decimals, char *buf, size_t len)
{
	static const double scale[] = { 1, 10, 100 };
	double x = v * scale[decimals], r;
	char tmp[24];
	uint64_t n;
	size_t k = 0, i;

	if (!(v >= 0) || signbit(v) || x >= 0x1p36 || len < sizeof(tmp) + 1)
		goto slow;
	r = nearbyint(x);	/* ties to even, as printf's exact rounding */
	if (fabs(x - r) > 0.4999 && x != r)
		goto slow;
	n = (uint64_t)r;
	for (i = 0; i < (size_t)decimals; i++) {
		tmp[k++] = (char)('0' + n % 10);
		n /= 10;
	}
	if (decimals)
		tmp[k++] = '.';
	do {
		tmp[k++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	for (i = 0; i < k; i++)
		buf[i] = tmp[k - 1 - i];
	buf[k] = '\0';
	return;
slow:
	snprintf(buf, len, "%.*f", decimals, v);
}

/* 1234567 -> "1.2M": sizes in binary units, as top. */
static void human_bytes(double v, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	int u = -1;
	size_t n;

	if (v < 10000) {
		fmt_fixed(v, 0, buf, len);
		return;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	fmt_fixed(v, 1, buf, len);
	n = strlen(buf);
	if (n + 1 < len) {
		buf[n] = units[u];
		buf[n + 1] = '\0';
	}
}

void trawl_top_cell_format(const struct trawl_top_col *c, const struct trawl_top_cell *cell,
			   char *buf, size_t len)
{
	switch (c->kind) {
	case TRAWL_TOP_COL_TEXT: {
		const char *s = cell->text ? cell->text : "";
		size_t n = strlen(s);

		n = n < len ? n : len - 1;	/* cut as snprintf would */
		memcpy(buf, s, n);
		buf[n] = '\0';
		break;
	}
	case TRAWL_TOP_COL_INT: fmt_fixed(cell->num, 0, buf, len); break;
	case TRAWL_TOP_COL_PCT: fmt_fixed(cell->num, 1, buf, len); break;
	case TRAWL_TOP_COL_NS: fmt_fixed(cell->num / 1e3, 1, buf, len); break;
	case TRAWL_TOP_COL_MS: fmt_fixed(cell->num / 1e6, 1, buf, len); break;
	case TRAWL_TOP_COL_BYTES: human_bytes(cell->num, buf, len); break;
	case TRAWL_TOP_COL_RATE: fmt_fixed(cell->num, 1, buf, len); break;
	}
}

/*
 * Batch output goes out through a buffer of its own: a table is thousands of
 * cells, and a stdio call per piece (each taking the stream's lock) cost
 * more than formatting them.
 */
struct out {
	FILE *f;
	size_t n;
	char b[16384];
};

static void out_flush(struct out *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

static void out_put(struct out *o, const char *s, size_t n)
{
	if (n > sizeof(o->b) - o->n) {
		out_flush(o);
		if (n > sizeof(o->b)) {
			fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

static void out_str(struct out *o, const char *s)
{
	out_put(o, s, strlen(s));
}

static void out_char(struct out *o, char c)
{
	if (o->n == sizeof(o->b))
		out_flush(o);
	o->b[o->n++] = c;
}

/* @s right-aligned in @width (left-aligned when negative), as "%*s" does. */
static void put_padded(struct out *o, const char *s, int width)
{
	static const char blanks[] = "                                ";
	size_t n = strlen(s), w = (size_t)(width < 0 ? -(long)width : width), pad;

	pad = w > n ? w - n : 0;
	if (width < 0)
		out_put(o, s, n);
	while (pad) {
		size_t k = pad < sizeof(blanks) - 1 ? pad : sizeof(blanks) - 1;

		out_put(o, blanks, k);
		pad -= k;
	}
	if (width >= 0)
		out_put(o, s, n);
}

void trawl_top_table_print(const struct trawl_top_table *t, FILE *f, size_t max)
{
	struct out o = { .f = f };
	char buf[256];

	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			out_char(&o, ' ');
		put_padded(&o, t->cols[c].head, t->cols[c].width);
	}
	out_char(&o, '\n');
	for (size_t r = 0; r < t->nrows && (!max || r < max); r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct trawl_top_col *col = &t->cols[c];

			trawl_top_cell_format(col, &t->cells[r * t->ncols + c], buf, sizeof(buf));
			if (c)
				out_char(&o, ' ');
			/* the last column is not padded (long paths, no trailing blanks) */
			put_padded(&o, buf, c + 1 == t->ncols && col->width < 0 ? 0 : col->width);
		}
		out_char(&o, '\n');
	}
	out_flush(&o);
}

static void json_string(struct out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run = p;

	out_char(o, '"');
	for (; *p; p++) {
		if (*p != '"' && *p != '\\' && *p >= 0x20 && *p != 0x7f)
			continue;	/* other bytes as they are: paths need not be UTF-8 */
		out_put(o, (const char *)run, (size_t)(p - run));
		if (*p == '"' || *p == '\\') {
			out_char(o, '\\');
			out_char(o, (char)*p);
		} else {
			char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

			out_put(o, u, sizeof(u));
		}
		run = p + 1;
	}
	out_put(o, (const char *)run, (size_t)(p - run));
	out_char(o, '"');
}

void trawl_top_json_string(FILE *f, const char *s)
{
	struct out o = { .f = f };

	json_string(&o, s);
	out_flush(&o);
}

void trawl_top_table_json(const struct trawl_top_table *t, FILE *f)
{
	struct out o = { .f = f };
	char num[64];

	out_char(&o, '[');
	for (size_t r = 0; r < t->nrows; r++) {
		if (r)
			out_char(&o, ',');
		out_char(&o, '{');
		for (size_t c = 0; c < t->ncols; c++) {
			const struct trawl_top_cell *cell = &t->cells[r * t->ncols + c];
			enum trawl_top_col_kind k = t->cols[c].kind;

			if (c)
				out_char(&o, ',');
			out_char(&o, '"');
			out_str(&o, t->cols[c].key);
			out_put(&o, "\":", 2);
			if (k == TRAWL_TOP_COL_TEXT) {
				json_string(&o, cell->text ? cell->text : "");
				continue;
			}
			/* "%.2f" or "%.0f", as printf writes them */
			fmt_fixed(cell->num, k == TRAWL_TOP_COL_PCT || k == TRAWL_TOP_COL_RATE ? 2 : 0,
				  num, sizeof(num));
			out_str(&o, num);
		}
		out_char(&o, '}');
	}
	out_char(&o, ']');
	out_flush(&o);
}
