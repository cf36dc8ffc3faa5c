/* SPDX-License-Identifier: MIT */
/*
 * Drawing the curses view: a header (the interval, events/s, discarded, a
 * bar per CPU), the views' tabs, the table with its sort column marked,
 * the details of the selected row, the help, and a status line. Colours
 * only when the terminal has them; reverse video marks things otherwise.
 */
#include "ui.h"

#include <curses.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

enum { PAIR_HEAD = 1, PAIR_BAR, PAIR_SEL, PAIR_TAB };

static void ui_attr_on(struct trawl_top_ui *ui, int pair, attr_t fallback)
{
	if (ui->colors)
		attron(COLOR_PAIR(pair));
	else
		attron(fallback);
}

static void ui_attr_off(struct trawl_top_ui *ui, int pair, attr_t fallback)
{
	if (ui->colors)
		attroff(COLOR_PAIR(pair));
	else
		attroff(fallback);
}

static void fmt_time(int64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns < 0 || !localtime_r(&s, &tm))
		snprintf(buf, len, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
	else
		snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (int)(ns % 1000000000 / 1000000));
}

static int draw_header(struct trawl_top_ui *ui)
{
	const struct trawl_top_model *m = &ui->m;
	double secs = (double)(m->end - m->begin) / 1e9;
	char t[48];
	int y = 1, x = 0;

	fmt_time(m->begin, t, sizeof(t));
	ui_attr_on(ui, PAIR_HEAD, A_BOLD);
	mvprintw(0, 0, "trawltop  %s +%.3fs  [%.3f/%.3f s]  %" PRIu64 " events (%.0f/s)  "
		       "%" PRIu64 " discarded  %s x%g", t, secs,
		 (double)(m->begin - ui->trace_begin) / 1e9,
		 (double)(ui->trace_end - ui->trace_begin) / 1e9, m->events,
		 secs > 0 ? (double)m->events / secs : 0.0, m->discarded,
		 ui->at_end ? "end" : ui->playing ? "playing" : "paused", ui->speed);
	ui_attr_off(ui, PAIR_HEAD, A_BOLD);
	for (size_t c = 0; c < m->ncpus; c++) {
		double pct = secs > 0 ? (double)m->cpus[c].busy_ns / 1e7 / secs : 0;
		int bar = (int)(pct / 10 + 0.5);

		if (!m->cpus[c].seen)
			continue;
		if (x + 24 > COLS) {
			x = 0;
			y++;
		}
		mvprintw(y, x, "cpu%-3zu[", c);
		ui_attr_on(ui, PAIR_BAR, A_BOLD);
		printw("%.*s", bar > 10 ? 10 : bar, "||||||||||");
		ui_attr_off(ui, PAIR_BAR, A_BOLD);
		mvprintw(y, x + 18, "%5.1f%%", pct);
		x += 25;
	}
	return y + 1;
}

static int draw_tabs(struct trawl_top_ui *ui, int y)
{
	move(y, 0);
	for (int v = 0; v < TRAWL_TOP_VIEW_COUNT; v++) {
		if (v == (int)ui->view)
			ui_attr_on(ui, PAIR_TAB, A_REVERSE);
		printw(" %d:%s ", v + 1, trawl_top_view_name((enum trawl_top_view)v));
		if (v == (int)ui->view)
			ui_attr_off(ui, PAIR_TAB, A_REVERSE);
	}
	if (ui->filter[0])
		printw("  filter: %s", ui->filter);
	return y + 1;
}

static void draw_row(struct trawl_top_ui *ui, int y, size_t r)
{
	const struct trawl_top_table *t = &ui->table;
	char buf[256];
	int x = 0;

	for (size_t c = 0; c < t->ncols && x < COLS; c++) {
		const struct trawl_top_col *col = &t->cols[c];
		int w = col->width < 0 ? -col->width : col->width;

		if (r == (size_t)-1)
			snprintf(buf, sizeof(buf), "%s%s", col->head,
				 c == ui->sort_col[ui->view] ? (ui->reverse ? "^" : "v") : "");
		else
			trawl_top_cell_format(col, &t->cells[r * t->ncols + c], buf, sizeof(buf));
		if (c + 1 == t->ncols && col->width < 0)
			mvprintw(y, x, "%.*s", COLS - x > 0 ? COLS - x : 0, buf);
		else
			mvprintw(y, x, "%*.*s", col->width, w, buf);
		x += w + 1;
	}
}

static void draw_table(struct trawl_top_ui *ui, int y, int rows)
{
	const struct trawl_top_table *t = &ui->table;

	ui_attr_on(ui, PAIR_HEAD, A_REVERSE);
	mvprintw(y, 0, "%*s", COLS, "");
	draw_row(ui, y, (size_t)-1);
	ui_attr_off(ui, PAIR_HEAD, A_REVERSE);
	if (ui->sel >= t->nrows)
		ui->sel = t->nrows ? t->nrows - 1 : 0;
	if (ui->sel < ui->top)
		ui->top = ui->sel;
	if (rows > 0 && ui->sel >= ui->top + (size_t)rows)
		ui->top = ui->sel - (size_t)rows + 1;
	for (int i = 0; i < rows && ui->top + (size_t)i < t->nrows; i++) {
		size_t r = ui->top + (size_t)i;

		if (r == ui->sel) {
			ui_attr_on(ui, PAIR_SEL, A_REVERSE);
			mvprintw(y + 1 + i, 0, "%*s", COLS, "");
		}
		draw_row(ui, y + 1 + i, r);
		if (r == ui->sel)
			ui_attr_off(ui, PAIR_SEL, A_REVERSE);
	}
	if (!t->nrows)
		mvprintw(y + 1, 0, "(nothing in this interval%s)",
			 ui->filter[0] ? " matching the filter" : "");
}

/* The selected row, one "column: value" per line, in two columns of text. */
static void draw_details(struct trawl_top_ui *ui, int y, int rows)
{
	const struct trawl_top_table *t = &ui->table;
	char buf[256];

	ui_attr_on(ui, PAIR_HEAD, A_REVERSE);
	mvprintw(y, 0, "%-*s", COLS, " details (ENTER closes)");
	ui_attr_off(ui, PAIR_HEAD, A_REVERSE);
	if (!t->nrows)
		return;
	for (size_t c = 0; c < t->ncols; c++) {
		int line = (int)(c % (size_t)rows), col = (int)(c / (size_t)rows) * 40;

		if (col + 10 > COLS)
			break;
		trawl_top_cell_format(&t->cols[c], &t->cells[ui->sel * t->ncols + c], buf,
				      sizeof(buf));
		mvprintw(y + 1 + line, col, "%-10s %.*s", t->cols[c].head,
			 COLS - col - 11 > 0 ? COLS - col - 11 : 0, buf);
	}
}

static void draw_help(int y)
{
	static const char *const lines[] = {
		"trawltop keys",
		"  q            quit                ?          this help",
		"  TAB, 1-6     views               /          filter by pid or name (empty: none)",
		"  < >          sort column         r          reverse the sort",
		"  UP DOWN PGUP PGDN HOME END       select a row; ENTER: its details",
		"  SPACE        play / pause        n RIGHT    next interval",
		"  p LEFT       previous interval   g          go to a time (s from the start)",
		"  + -          faster / slower     [ ]        shorter / longer interval",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mvprintw(y + (int)i, 2, "%-*s", COLS > 4 ? COLS - 4 : 0, lines[i]);
}

void trawl_top_ui_draw(struct trawl_top_ui *ui)
{
	int y, rows, details_rows = ui->details ? 8 : 0;

	erase();
	y = draw_header(ui);
	y = draw_tabs(ui, y);
	rows = LINES - y - 2 - (details_rows ? details_rows + 1 : 0);
	draw_table(ui, y, rows);
	if (details_rows && rows > 0)
		draw_details(ui, y + 1 + rows, details_rows);
	if (ui->help)
		draw_help(y + 1);
	mvprintw(LINES - 1, 0, "%.*s", COLS, ui->msg[0] ? ui->msg :
		 "? help  q quit  TAB view  < > sort  / filter  SPACE play  n/p step  g seek");
	refresh();
}

void trawl_top_ui_colors(struct trawl_top_ui *ui)
{
	ui->colors = has_colors();
	if (!ui->colors)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_BAR, COLOR_GREEN, -1);
	init_pair(PAIR_SEL, COLOR_BLACK, COLOR_YELLOW);
	init_pair(PAIR_TAB, COLOR_BLACK, COLOR_GREEN);
}
