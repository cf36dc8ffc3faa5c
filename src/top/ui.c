/* SPDX-License-Identifier: MIT */
/*
 * The interactive view of a recorded trace: one interval at a time, moved
 * by keys (step, seek, play at a speed). The model keeps the interval
 * shown; switching views, sorting and filtering only rebuild the table.
 * Curses is left (endwin) on every way out: q, end of input, SIGINT and
 * SIGTERM (ncurses restores the terminal before the default action).
 */
#include "ui.h"

#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int trawl_top_ui_table(struct trawl_top_ui *ui)
{
	int ret = trawl_top_view_build(&ui->m, ui->view, &ui->table);

	if (ret < 0)
		return ret;
	if (!ui->sort_set[ui->view]) {
		ui->sort_col[ui->view] = ui->table.sort_col;
		ui->sort_set[ui->view] = 1;
	}
	trawl_top_table_sort(&ui->table, ui->sort_col[ui->view], ui->reverse);
	trawl_top_table_filter(&ui->table, ui->filter);
	return 0;
}

/* Reads the interval at @begin (seeking when it does not follow the one shown). */
static int ui_goto(struct trawl_top_ui *ui, int64_t begin)
{
	int ret;

	if (begin < ui->trace_begin)
		begin = ui->trace_begin;
	if (begin > ui->trace_end)
		begin = ui->trace_end;
	if (!ui->has_interval || begin != ui->cur + ui->len) {
		ret = trawl_top_source_seek(ui->src, &ui->m, begin);
		if (ret < 0)
			return ret;
	}
	ret = trawl_top_source_interval(ui->src, &ui->m, begin, ui->len);
	if (ret < 0)
		return ret;
	ui->at_end = ret == 0 || begin + ui->len > ui->trace_end;
	if (ret == 0)
		return 0;
	ui->cur = begin;
	ui->has_interval = 1;
	if (ui->at_end)
		ui->playing = 0;
	return trawl_top_ui_table(ui);
}

/*
 * A relay daemon's live session: the next interval of trace time, which
 * comes once the session has events (or quiet times) past its end.
 */
static int ui_net_next(struct trawl_top_ui *ui)
{
	int ret;

	if (ui->at_end)
		return 0;
	if (!ui->has_interval) {
		ret = trawl_top_source_first_ns(ui->src, &ui->cur);
		if (ret < 0)
			return ret;
		ui->trace_begin = ui->cur;
	} else {
		ui->cur += ui->len;
	}
	ret = trawl_top_source_interval(ui->src, &ui->m, ui->cur, ui->len);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		ui->at_end = 1;
		ui->playing = 0;
		snprintf(ui->msg, sizeof(ui->msg), "the live session ended");
		return 0;
	}
	ui->has_interval = 1;
	ui->trace_end = ui->cur + ui->len;
	return trawl_top_ui_table(ui);
}

/* Live: the events since the last interval (no time to move in). */
static int ui_live_next(struct trawl_top_ui *ui)
{
	char err[512] = "";
	int ret;

	if (ui->netlive)
		return ui_net_next(ui);
	ret = trawl_top_live_interval(ui->live, &ui->m, err, sizeof(err));

	if (ret < 0) {
		snprintf(ui->msg, sizeof(ui->msg), "%.150s", err);
		return 0;	/* shown; the next interval may work */
	}
	ui->has_interval = 1;
	ui->trace_begin = ui->trace_begin ? ui->trace_begin : ui->m.begin;
	ui->trace_end = ui->m.end;
	return trawl_top_ui_table(ui);
}

/* A line typed on the status bar (echoed), or "" on ESC. */
static void prompt(const char *what, char *buf, int len)
{
	move(LINES - 1, 0);
	clrtoeol();
	printw("%s", what);
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(buf, len - 1) == ERR)
		buf[0] = 0;
	noecho();
	curs_set(0);
}

static int key_time(struct trawl_top_ui *ui, int key)
{
	char buf[32], *end;
	double s;

	switch (key) {
	case ' ':
		ui->playing = !ui->playing && !ui->at_end;
		return 0;
	case 'n': case KEY_RIGHT:
		return ui->at_end ? 0 : ui_goto(ui, ui->cur + ui->len);
	case 'p': case KEY_LEFT:
		return ui_goto(ui, ui->cur - ui->len);
	case '+':
		ui->speed = ui->speed < 64 ? ui->speed * 2 : ui->speed;
		return 0;
	case '-':
		ui->speed = ui->speed > 1.0 / 64 ? ui->speed / 2 : ui->speed;
		return 0;
	case '[': case ']':
		ui->len = key == '[' ? ui->len / 2 : ui->len * 2;
		if (ui->len < 1000000)
			ui->len = 1000000;	/* 1 ms */
		ui->has_interval = 0;
		return ui_goto(ui, ui->cur);
	case 'g':
		prompt("go to (seconds from the start): ", buf, sizeof(buf));
		s = strtod(buf, &end);
		if (end == buf || *end || s < 0) {
			snprintf(ui->msg, sizeof(ui->msg), "not a time: \"%s\"", buf);
			return 0;
		}
		ui->has_interval = 0;
		return ui_goto(ui, ui->trace_begin + (int64_t)(s * 1e9));
	}
	return 0;
}

static int key_view(struct trawl_top_ui *ui, int key)
{
	size_t *col = &ui->sort_col[ui->view];
	int rows = LINES - 6 > 1 ? LINES - 6 : 1;

	switch (key) {
	case '\t':
		ui->view = (ui->view + 1) % TRAWL_TOP_VIEW_COUNT;
		break;
	case KEY_BTAB:
		ui->view = (ui->view + TRAWL_TOP_VIEW_COUNT - 1) % TRAWL_TOP_VIEW_COUNT;
		break;
	case '1': case '2': case '3': case '4': case '5': case '6':
		ui->view = (enum trawl_top_view)(key - '1');
		break;
	case '<': if (*col > 0) (*col)--; break;
	case '>': if (*col + 1 < ui->table.ncols) (*col)++; break;
	case 'r': ui->reverse = !ui->reverse; break;
	case '/': prompt("filter (pid or name; empty: none): ", ui->filter,
			 (int)sizeof(ui->filter)); break;
	case KEY_UP: if (ui->sel) ui->sel--; return 0;
	case KEY_DOWN: ui->sel++; return 0;
	case KEY_PPAGE: ui->sel = ui->sel > (size_t)rows ? ui->sel - (size_t)rows : 0; return 0;
	case KEY_NPAGE: ui->sel += (size_t)rows; return 0;
	case KEY_HOME: ui->sel = 0; return 0;
	case KEY_END: ui->sel = ui->table.nrows ? ui->table.nrows - 1 : 0; return 0;
	case '\n': case '\r': case KEY_ENTER: ui->details = !ui->details; return 0;
	case '?': ui->help = !ui->help; return 0;
	default:
		if (ui->live || ui->netlive) {
			snprintf(ui->msg, sizeof(ui->msg), "live: no time to move in");
			return 0;
		}
		return key_time(ui, key);
	}
	return trawl_top_ui_table(ui);
}

static volatile sig_atomic_t ui_stop;

static void on_stop(int sig)
{
	ui_stop = 1;
}

static int ui_loop(struct trawl_top_ui *ui)
{
	int ret, key;

	if (ui->live || ui->netlive)
		ret = ui_live_next(ui);
	else
		ret = ui_goto(ui, ui->o->begin_set ? ui->o->begin_ns : ui->trace_begin);
	while (ret >= 0 && !ui_stop) {
		trawl_top_ui_draw(ui);
		/* playing: the next interval after len / speed of wall time */
		timeout(ui->playing ? (int)((double)ui->len / 1e6 / ui->speed) : -1);
		key = getch();
		if (key == 'q' || key == 'Q' || ui_stop)
			break;
		if (key == ERR) {
			if (ui->live || ui->netlive)
				ret = ui_live_next(ui);
			else if (ui->playing)
				ret = ui_goto(ui, ui->cur + ui->len);
			continue;
		}
		ui->msg[0] = 0;
		if (key == KEY_RESIZE)
			continue;	/* ncurses updated LINES and COLS: the next draw fits */
		ret = key_view(ui, key);
	}
	return ret;
}

static int ui_run(struct trawl_top_ui *ui);

int trawl_top_ui_trace(struct trawl_top_source *src, const struct trawl_top_opts *o)
{
	struct trawl_top_ui ui = { .src = src, .o = o, .speed = 1.0 };

	int ret;

	trawl_top_model_init(&ui.m);
	trawl_top_source_range(src, &ui.trace_begin, &ui.trace_end);
	ret = ui_run(&ui);
	trawl_top_table_fini(&ui.table);
	trawl_top_model_fini(&ui.m);
	return ret;
}

int trawl_top_ui_net(struct trawl_top_source *src, const struct trawl_top_opts *o)
{
	struct trawl_top_ui ui = { .src = src, .o = o, .speed = 1.0, .playing = 1, .netlive = 1 };
	int ret;

	trawl_top_model_init(&ui.m);
	ret = ui_run(&ui);
	trawl_top_table_fini(&ui.table);
	trawl_top_model_fini(&ui.m);
	return ret;
}

int trawl_top_ui_live(const struct trawl_top_opts *o)
{
	struct trawl_top_ui ui = { .o = o, .speed = 1.0, .playing = 1 };
	char err[512] = "";
	int ret;

	trawl_top_model_init(&ui.m);
	ret = trawl_top_live_start(&ui.live, err, sizeof(err));
	if (ret == 0)	/* the first snapshot only says where the intervals begin */
		ret = trawl_top_live_interval(ui.live, &ui.m, err, sizeof(err));
	if (ret == 0)
		ret = ui_run(&ui);
	trawl_top_live_stop(ui.live);
	trawl_top_table_fini(&ui.table);
	trawl_top_model_fini(&ui.m);
	if (ret < 0 && err[0]) {
		fprintf(stderr, "trawltop: %s\n", err);
		ret = -ECANCELED;
	}
	return ret;
}

static int ui_run(struct trawl_top_ui *ui)
{
	const struct trawl_top_opts *o = ui->o;
	/* SA_RESTART: a signal must not cut a daemon call short (getch still returns) */
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESTART };
	int ret;

	ui->len = o->interval_ns > 0 ? o->interval_ns : 1000000000;
	ui->view = o->view >= 0 ? (enum trawl_top_view)o->view : TRAWL_TOP_VIEW_PROCS;
	if (o->filter)
		snprintf(ui->filter, sizeof(ui->filter), "%s", o->filter);
	if (!newterm(NULL, stdout, stdin))
		return -ENOTTY;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	trawl_top_ui_colors(ui);
	/* after newterm(): ours replace ncurses' handlers, so the loop ends and cleans up */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = ui_loop(ui);
	endwin();
	return ret;
}
