/* SPDX-License-Identifier: MIT */
/* The curses view's state, shared by its loop (ui.c) and its drawing (ui_draw.c). */
#ifndef TRAWL_TOP_UI_H
#define TRAWL_TOP_UI_H

#include "top_main.h"

struct trawl_top_ui {
	struct trawl_top_source *src;	/* a recorded trace, or NULL */
	struct trawl_top_live *live;	/* or trawltop's own session */
	int netlive;		/* src is a relay daemon's live session */
	struct trawl_top_model m;
	const struct trawl_top_opts *o;
	int64_t trace_begin, trace_end;
	int64_t cur;		/* the interval shown begins here */
	int64_t len;		/* interval length, ns */
	int has_interval;	/* the model holds [cur, cur + len) */
	int at_end;
	enum trawl_top_view view;
	size_t sort_col[TRAWL_TOP_VIEW_COUNT];
	int sort_set[TRAWL_TOP_VIEW_COUNT];
	int reverse;
	char filter[64];
	struct trawl_top_table table;	/* the view, sorted and filtered */
	size_t sel, top;	/* selected row, first row shown */
	int details, help, playing, colors;
	double speed;		/* intervals of trace time per interval of wall time */
	char msg[160];		/* one line for the status bar */
};

/* Builds ui->table from the model for the current view, sort and filter. */
int trawl_top_ui_table(struct trawl_top_ui *ui);
/* Draws everything (header, view, details, help, status). */
void trawl_top_ui_draw(struct trawl_top_ui *ui);
/* Sets up colour pairs when the terminal has colours (ui->colors says so). */
void trawl_top_ui_colors(struct trawl_top_ui *ui);

#endif /* TRAWL_TOP_UI_H */
