// SPDX-License-Identifier: MIT
/*
 * The dashboard's keys: one table gives each key what it does and its line
 * of help. Keys change the view and say what the loop should do next
 * (K_*); they never draw.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

/* What a key does (ARG: which way, or how far). */
enum {
	QUIT,
	HELP,
	SORT,
	INVERT,
	FILTER,
	PAUSE,
	RESET,
	LOG,
	FOCUS,
	PROCS,
	SCROLL,
	SELECT,
	REDRAW
};
/* SELECT's steps, but for a row: a page, or to the first or last row. */
enum { PAGE = 1 << 20, ALL = 1 << 28 };

/* One table: the keys and the help screen (a row without a label is
 * the row before's other way). */
static const struct key {
	int act, arg;
	const char *chars; /* its ASCII keys */
	int key;	   /* and an ncurses one (KEY_*), or 0 */
	const char *label, *help;
} keys[] = {
	{ QUIT, 0, "q", KEY_F(10), "q", "quit" },
	{ HELP, 0, "h?", KEY_F(1), "h ?", "show or hide this help" },
	{ SORT, -1, "<,", 0, "< >", "sort by the column to the left or right" },
	{ SORT, 1, ">.", 0, NULL, NULL },
	{ INVERT, 0, "I", 0, "I", "invert the sort order" },
	{ FILTER, 0, "/", 0, "/",
	  "filter: ports by device; processes by command, job, device" },
	{ PAUSE, 0, " Z", 0, "Z space", "pause or resume the display" },
	{ RESET, 0, "r", 0, "r",
	  "reset event counts, flaps and counter deltas" },
	{ LOG, 0, "e", 0, "e", "show or hide the event log (newest first)" },
	{ FOCUS, 0, "\t", 0, "Tab",
	  "select in the event log (the selected whole) or the rows" },
	{ PROCS, 0, "p", 0, "p",
	  "processes (-A: whose QPs, CQs, SRQs, WQs had events) or ports" },
	{ SCROLL, -1, "", KEY_LEFT, "Left Right",
	  "scroll the columns to those off the left or right edge" },
	{ SCROLL, 1, "", KEY_RIGHT, NULL, NULL },
	{ SELECT, -1, "k", KEY_UP, "Up Down",
	  "the previous or next row, or event (Tab)" },
	{ SELECT, 1, "j", KEY_DOWN, NULL, NULL },
	{ SELECT, -PAGE, "", KEY_PPAGE, "PgUp PgDn", "a page up or down" },
	{ SELECT, PAGE, "", KEY_NPAGE, NULL, NULL },
	{ SELECT, -ALL, "g", KEY_HOME, "Home End", "the first or last row" },
	{ SELECT, ALL, "G", KEY_END, NULL, NULL },
	{ REDRAW, 0, "\f", 0, "^L", "redraw the screen" },
};

/* Move the sort column by STEP, over the screen's columns in their
 * order, the ports' or the processes'; the screen scrolls to it. */
static int move_sort(struct view *v, int step)
{
	int cols[TOP_MAX_COLS], *sort = v->procs_view ? &v->psort : &v->sort;
	size_t n = top_screen_cols(v, cols), pos = 0;

	for (size_t i = 0; i < n; i++)
		if (cols[i] == *sort)
			pos = i;
	*sort = cols[(step < 0 ? pos + n - 1 : pos + 1) % n];
	v->sort_follow = true;
	return K_REDRAW;
}

/* The selected row STEP rows on, within the rows shown; in the event
 * log, the selected event, which stays selected as lines come. */
static void move_selected(struct view *v, int step)
{
	int n = v->log_focus ? (int)v->events.n : (int)top_nrows(v);
	int page = LINES > 8 ? LINES - 6 : 1, *at = &v->selected, to;

	if (v->log_focus) {
		at = &v->log_sel;
		*at = top_log_find(&v->events, v->log_id, *at);
		page /= 2;
	}
	to = *at + (abs(step) == PAGE ? step / PAGE * page : step);
	*at = to < n ? to : n - 1;
	if (*at < 0)
		*at = 0;
	if (v->log_focus && n)
		v->log_id = top_log_at(&v->events, (size_t)*at)->id;
}

static int act(struct view *v, const struct key *k)
{
	struct top_span s[TOP_MAX_COLS];
	int more = 0;

	switch (k->act) {
	case QUIT:
		if (!v->help)
			return K_QUIT;
		/* help is a screen of its own: q leaves it */
		/* fallthrough */
	case HELP:
		v->help = !v->help;
		break;
	case SORT:
		return move_sort(v, k->arg);
	case INVERT:
		if (v->procs_view)
			v->pinvert = !v->pinvert;
		else
			v->invert = !v->invert;
		break;
	case FILTER:
		v->editing = true;
		break;
	case PAUSE:
		v->paused = !v->paused;
		break;
	case RESET:
		ibve_ports_reset(v->ports);
		top_procs_reset(&v->procs);
		memset(&v->rate, 0, sizeof(v->rate));
		top_log_reset(&v->events);
		return K_REDRAW | K_RESAMPLE;
	case LOG:
		v->log = !v->log;
		v->log_focus = false;
		break;
	case FOCUS:
		v->log_focus = !v->log || !v->log_focus;
		v->log = true;
		break;
	case PROCS:
		v->procs_view = !v->procs_view;
		v->hscroll = v->selected = v->scroll = 0;
		break;
	case SCROLL:
		/* to the right only while some column is still off it */
		if (k->arg > 0)
			top_layout(v, COLS, s, &more);
		if (k->arg > 0 ? more : v->hscroll > 0)
			v->hscroll += k->arg;
		break;
	case SELECT:
		move_selected(v, k->arg);
		break;
	case REDRAW:
		clearok(curscr, TRUE);
		break;
	}
	return K_REDRAW;
}

/* A key while typing the filter. */
static int edit_filter(struct view *v, int ch)
{
	size_t n = strlen(v->name_filter);

	if (ch == 27) { /* Esc */
		v->name_filter[0] = '\0';
		v->editing = false;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		v->editing = false;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			v->name_filter[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(v->name_filter)) {
		v->name_filter[n] = (char)ch;
		v->name_filter[n + 1] = '\0';
	}
	v->selected = 0;
	return K_REDRAW;
}

int top_key(struct view *v, int ch)
{
	if (v->editing)
		return edit_filter(v, ch);
	if (ch == KEY_RESIZE)
		return K_REDRAW;
	for (size_t i = 0; ch > 0 && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (ch == keys[i].key ||
		    (ch < 128 && strchr(keys[i].chars, ch)))
			return act(v, &keys[i]);
	return K_NONE;
}

const char *top_key_help(size_t i, const char **help)
{
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (keys[k].label && !i--) {
			*help = keys[k].help;
			return keys[k].label;
		}
	}
	return NULL;
}
