// SPDX-License-Identifier: MIT
/*
 * The dashboard's keys: one table gives each key its handler and its line
 * of help. Handlers change the view and say what the loop should do next
 * (K_*); they never draw.
 */
#include <curses.h>
#include <string.h>

#include "top.h"

struct key {
	int keys[4];
	const char *label;
	const char *help;
	int (*fn)(struct view *v);
};

static int key_quit(struct view *v)
{
	(void)v;
	return K_QUIT;
}

static int key_help(struct view *v)
{
	v->help = !v->help;
	return K_REDRAW;
}

/* Move the sort column by STEP, over the screen's columns in their
 * order, the ports' or the processes'; the screen scrolls to it. */
static int move_sort(struct view *v, int step)
{
	int cols[TOP_MAX_COLS], *sort = v->procs_view ? &v->psort : &v->sort;
	size_t n = top_screen_cols(v, cols), pos = 0;

	if (!n)
		return K_NONE;
	for (size_t i = 0; i < n; i++)
		if (cols[i] == *sort)
			pos = i;
	*sort = cols[(step < 0 ? pos + n - 1 : pos + 1) % n];
	v->sort_follow = true;
	return K_REDRAW;
}

static int key_left(struct view *v)
{
	if (v->hscroll > 0)
		v->hscroll--;
	return K_REDRAW;
}

/* Only while some column is still off to the right. */
static int key_right(struct view *v)
{
	struct top_span s[TOP_MAX_COLS];
	bool more;

	top_layout(v, COLS, s, &more);
	if (more)
		v->hscroll++;
	return K_REDRAW;
}

static int key_sort_left(struct view *v)
{
	return move_sort(v, -1);
}

static int key_sort_right(struct view *v)
{
	return move_sort(v, 1);
}

static int key_invert(struct view *v)
{
	if (v->procs_view)
		v->pinvert = !v->pinvert;
	else
		v->invert = !v->invert;
	return K_REDRAW;
}

static int key_filter(struct view *v)
{
	v->editing = true;
	return K_REDRAW;
}

static int key_pause(struct view *v)
{
	v->paused = !v->paused;
	return K_REDRAW;
}

static int key_reset(struct view *v)
{
	ibve_ports_reset(v->ports);
	top_procs_reset(&v->procs);
	return K_REDRAW | K_RESAMPLE;
}

static int key_procs(struct view *v)
{
	v->procs_view = !v->procs_view;
	v->hscroll = v->selected = v->scroll = 0;
	return K_REDRAW;
}

static int key_log(struct view *v)
{
	v->log = !v->log;
	return K_REDRAW;
}

static int key_up(struct view *v)
{
	if (v->selected > 0)
		v->selected--;
	return K_REDRAW;
}

static int key_down(struct view *v)
{
	if ((size_t)v->selected + 1 < top_nrows(v))
		v->selected++;
	return K_REDRAW;
}

static int page_rows(void)
{
	return LINES > 8 ? LINES - 6 : 1;
}

static int key_pgup(struct view *v)
{
	v->selected = v->selected > page_rows() ? v->selected - page_rows() : 0;
	return K_REDRAW;
}

static int key_pgdn(struct view *v)
{
	v->selected += page_rows();
	if (top_nrows(v) && (size_t)v->selected >= top_nrows(v))
		v->selected = (int)top_nrows(v) - 1;
	return K_REDRAW;
}

static int key_home(struct view *v)
{
	v->selected = 0;
	return K_REDRAW;
}

static int key_end(struct view *v)
{
	v->selected = top_nrows(v) ? (int)top_nrows(v) - 1 : 0;
	return K_REDRAW;
}

static int key_redraw(struct view *v)
{
	(void)v;
	clearok(curscr, TRUE);
	return K_REDRAW;
}

/* One table: the keys, the footer and the help screen. */
static const struct key keys[] = {
	{ { 'q', KEY_F(10) }, "q", "quit", key_quit },
	{ { 'h', '?', KEY_F(1) }, "h ?", "show or hide this help", key_help },
	{ { '<', ',' }, "<", "sort by the column to the left", key_sort_left },
	{ { '>', '.' }, ">", "sort by the column to the right", key_sort_right },
	{ { 'I' }, "I", "invert the sort order", key_invert },
	{ { '/' },
	  "/",
	  "filter: ports by device; processes by command, job, device",
	  key_filter },
	{ { ' ', 'Z' }, "Z space", "pause or resume the display", key_pause },
	{ { 'r' }, "r", "reset event counts and counter deltas", key_reset },
	{ { 'e' }, "e", "show or hide the event log (newest first)", key_log },
	{ { 'p' },
	  "p",
	  "processes (-A: whose QPs, CQs, SRQs, WQs had events) or ports",
	  key_procs },
	{ { KEY_LEFT }, "Left", "scroll the columns back", key_left },
	{ { KEY_RIGHT },
	  "Right",
	  "scroll the columns: those off the right edge",
	  key_right },
	{ { KEY_UP, 'k' }, "Up", "previous row", key_up },
	{ { KEY_DOWN, 'j' }, "Down", "next row", key_down },
	{ { KEY_PPAGE }, "PgUp", "a page up", key_pgup },
	{ { KEY_NPAGE }, "PgDn", "a page down", key_pgdn },
	{ { KEY_HOME, 'g' }, "Home", "first row", key_home },
	{ { KEY_END, 'G' }, "End", "last row", key_end },
	{ { 12 }, "^L", "redraw the screen", key_redraw },
};

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
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		for (size_t k = 0; k < 4 && keys[i].keys[k]; k++)
			if (keys[i].keys[k] == ch) {
				/* help is a screen of its own: q leaves it */
				if (v->help && keys[i].fn == key_quit)
					return key_help(v);
				return keys[i].fn(v);
			}
	return K_NONE;
}

size_t top_key_count(void)
{
	return sizeof(keys) / sizeof(keys[0]);
}

void top_key_help(size_t i, const char **label, const char **help)
{
	*label = keys[i].label;
	*help = keys[i].help;
}
