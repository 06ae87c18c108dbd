// SPDX-License-Identifier: MIT
/*
 * The dashboard's screen (ncurses): a header, the table of rows in the
 * view's order, the event log, the help screen drawn from the key table,
 * and a footer. Drawing only: the keys are top_keys.c's.
 */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "top.h"

/* Colour pairs. */
enum { C_BAR = 1, C_TITLE, C_SORT, C_GOOD, C_BAD, C_WARN, C_DIM };

static void set_color(struct view *v, int pair, bool on)
{
	if (!v->color)
		return;
	if (on)
		attron(COLOR_PAIR(pair));
	else
		attroff(COLOR_PAIR(pair));
}

static void draw_bar(struct view *v, int y, const char *text)
{
	move(y, 0);
	set_color(v, C_BAR, true);
	attron(A_REVERSE * !v->color);
	printw("%-*.*s", COLS, COLS, text);
	attroff(A_REVERSE);
	set_color(v, C_BAR, false);
}

static void draw_header(struct view *v)
{
	const struct ibve_ports_summary *s;
	char line[512], when[32];
	time_t now = time(NULL);
	struct tm tm;
	long up;

	s = ibve_ports_summary(v->ports);
	up = (long)s->uptime;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (s->host[0])
		snprintf(
			line, sizeof(line),
			" ibv_eventtop - %s - %s - Linux %s - up %02ld:%02ld:%02ld%s",
			when, s->host, s->kernel, up / 3600, up % 3600 / 60,
			up % 60, v->paused ? "   [PAUSED]" : "");
	else
		snprintf(
			line, sizeof(line),
			" ibv_eventtop - replay of %s - %02ld:%02ld:%02ld of capture%s%s",
			v->replay_path, up / 3600, up % 3600 / 60, up % 60,
			v->replay_eof ? " (end)" : "",
			v->paused ? "   [PAUSED]" : "");
	draw_bar(v, 0, line);
	mvprintw(1, 0, " %zu device%s, %zu port%s, %llu event%s, %.2f events/s",
		 s->devices, s->devices == 1 ? "" : "s", s->ports,
		 s->ports == 1 ? "" : "s", (unsigned long long)s->events,
		 s->events == 1 ? "" : "s", s->per_second);
	printw("   sort: %s%s", top_col_title((enum top_col)v->sort),
	       v->invert ? " (inverted)" : "");
	if (v->name_filter[0] || v->editing)
		printw("   filter: %s%s", v->name_filter,
		       v->editing ? "_" : "");
	clrtoeol();
}

/* Cell attributes that carry meaning: state, errors, fresh counters. */
static int cell_pair(const struct ibve_port_row *p, int col)
{
	switch (col) {
	case COL_STATE:
		return strcmp(p->state, "ACTIVE") == 0 ? C_GOOD
		       : strcmp(p->state, "-") == 0    ? 0
						       : C_BAD;
	case COL_DOWN:
		return p->counts[IBVE_KIND_LINK_DOWN] ? C_BAD : 0;
	case COL_FATAL:
		return p->counts[IBVE_KIND_FATAL] ? C_BAD : 0;
	case COL_MODULE:
		return p->counts[IBVE_KIND_MODULE] ? C_WARN : 0;
	case COL_TEMP:
		return p->counts[IBVE_KIND_TEMP] ? C_BAD : 0;
	}
	return 0;
}

static void draw_counters(struct view *v, const struct ibve_port_row *p,
			  int width)
{
	int used = 0;

	if (!p->moved) {
		addstr("-");
		return;
	}
	for (size_t c = 0; c < p->counter_count && used < width; c++) {
		const struct ibve_counter *k = &p->counters[c];
		char cell[96];
		int n;

		if (!k->delta)
			continue;
		n = snprintf(cell, sizeof(cell), "%s%s+%llu", used ? " " : "",
			     k->name, (unsigned long long)k->delta);
		if (k->changed) {
			attron(A_BOLD);
			set_color(v, C_WARN, true);
		}
		printw("%.*s", width - used, cell);
		if (k->changed) {
			set_color(v, C_WARN, false);
			attroff(A_BOLD);
		}
		used += n;
	}
}

static void draw_row(struct view *v, int y, const struct ibve_port_row *p,
		     bool selected)
{
	int x = 0;

	move(y, 0);
	if (selected)
		attron(A_REVERSE);
	for (int c = 0; c < COL_COUNT && x < COLS; c++) {
		int w = top_col_width((enum top_col)c);
		int aw = w < 0 ? -w : w, pair;
		char cell[256];

		if (!top_col_visible(v, (enum top_col)c))
			continue;
		if (c == COL_COUNTERS) {
			move(y, x);
			draw_counters(v, p, COLS - x);
			break;
		}
		top_cell(p, (enum top_col)c, cell, sizeof(cell));
		pair = selected ? 0 : cell_pair(p, c);
		if (pair)
			set_color(v, pair, true);
		mvprintw(y, x, w < 0 ? "%-*.*s" : "%*.*s", aw, aw, cell);
		if (pair)
			set_color(v, pair, false);
		x += aw + 1;
	}
	if (selected) {
		printw("%*s",
		       COLS > getcurx(stdscr) ? COLS - getcurx(stdscr) : 0, "");
		attroff(A_REVERSE);
	}
	clrtoeol();
}

static void draw_titles(struct view *v, int y)
{
	int x = 0;

	move(y, 0);
	set_color(v, C_TITLE, true);
	attron(A_BOLD);
	printw("%*s", COLS, "");
	for (int c = 0; c < COL_COUNT && x < COLS; c++) {
		int w = top_col_width((enum top_col)c);
		int aw = w < 0 ? -w : w;
		const char *t = top_col_title((enum top_col)c);

		if (!top_col_visible(v, (enum top_col)c))
			continue;
		if (c == v->sort) {
			set_color(v, C_TITLE, false);
			set_color(v, C_SORT, true);
			attron(A_UNDERLINE * !v->color);
		}
		if (c == COL_COUNTERS)
			mvprintw(y, x, "%.*s", COLS - x, t);
		else
			mvprintw(y, x, w < 0 ? "%-*.*s" : "%*.*s", aw, aw, t);
		if (c == v->sort) {
			attroff(A_UNDERLINE);
			set_color(v, C_SORT, false);
			set_color(v, C_TITLE, true);
		}
		x += aw + 1;
	}
	attroff(A_BOLD);
	set_color(v, C_TITLE, false);
}

static void draw_log(struct view *v, int top, int rows)
{
	const struct ibve_event *ev;
	char line[512];

	draw_bar(v, top, " Events, newest first");
	for (int i = 0; i < rows - 1; i++) {
		move(top + 1 + i, 0);
		clrtoeol();
		ev = ibve_ports_recent(v->ports, (size_t)i);
		if (!ev)
			continue;
		ibve_event_format_text(ev, line, sizeof(line), 0);
		line[strcspn(line, "\n")] = '\0';
		if (ev->severity >= IBVE_SEVERITY_ERROR)
			set_color(v, C_BAD, true);
		else if (ev->severity == IBVE_SEVERITY_WARNING)
			set_color(v, C_WARN, true);
		printw("%.*s", COLS, line);
		set_color(v, C_BAD, false);
		set_color(v, C_WARN, false);
	}
}

static void draw_help(struct view *v)
{
	erase();
	draw_bar(
		v, 0,
		" ibv_eventtop help - any listed key works here too; h, ? or q leaves");
	for (size_t i = 0; i < top_key_count(); i++) {
		const char *label, *help;

		top_key_help(i, &label, &help);
		attron(A_BOLD);
		mvprintw(2 + (int)i, 2, "%-8s", label);
		attroff(A_BOLD);
		printw(" %s", help);
	}
	mvprintw(
		4 + (int)(top_key_count()), 2,
		"Columns: link DOWN/UP (PORT_ERR/PORT_ACTIVE), LID, PKEY, SM and GID changes,");
	mvprintw(
		5 + (int)(top_key_count()), 2,
		"client REREGisters, FATAL, OTHER; EV/MIN over the last minute; bold counters moved");
	mvprintw(
		6 + (int)(top_key_count()), 2,
		"in the last refresh. Device-wide events count on every port of the device.");
}

/* The process view: its text table, the titles reversed. */
static void draw_procs(struct view *v, int y, int rows)
{
	size_t n = ibve_buf_grow(&v->out, &v->out_size, top_procs_format, v);
	char *line = n == (size_t)-1 ? NULL : v->out;

	for (int i = 0; line && *line && i <= rows; i++) {
		char *end = strchr(line, '\n');

		if (end)
			*end = '\0';
		if (i) {
			mvprintw(y + i, 0, "%.*s", COLS, line);
		} else {
			attron(A_BOLD | A_REVERSE);
			mvprintw(y, 0, "%-*.*s", COLS, COLS, line);
			attroff(A_BOLD | A_REVERSE);
		}
		line = end ? end + 1 : NULL;
	}
	if (!v->procs.n)
		mvprintw(y, 1,
			 "no process's events yet (ibv_eventtop -A sees them)");
}

void top_draw(struct view *v)
{
	int table_rows, y = 3;

	if (v->help) {
		draw_help(v);
		refresh();
		return;
	}
	top_order(v);
	erase();
	draw_header(v);
	table_rows = LINES - 5;
	if (v->log)
		table_rows = table_rows / 2;
	if (table_rows < 1)
		table_rows = 1;
	if (v->selected >= (int)v->norder)
		v->selected = v->norder ? (int)v->norder - 1 : 0;
	if (v->selected < v->scroll)
		v->scroll = v->selected;
	if (v->selected >= v->scroll + table_rows)
		v->scroll = v->selected - table_rows + 1;
	if (v->procs_view) {
		draw_procs(v, y, table_rows);
	} else {
		draw_titles(v, y++);
		for (int i = 0;
		     i < table_rows && (size_t)(v->scroll + i) < v->norder; i++)
			draw_row(v, y + i,
				 ibve_ports_at(v->ports,
					       v->order[v->scroll + i]),
				 v->scroll + i == v->selected);
	}
	if (!v->norder && !v->procs_view)
		mvprintw(y, 1,
			 v->name_filter[0] ? "no port matches the filter"
					   : "no ports");
	if (v->log)
		draw_log(v, y + table_rows + 1, LINES - 2 - (y + table_rows));
	draw_bar(
		v, LINES - 1,
		v->editing
			? " Filter by device name: type, Enter keeps it, Esc clears"
			: " q Quit  h Help  < > Sort  I Invert  / Filter  Space Pause  r Reset  e Events  p Procs  ^L Redraw");
	refresh();
}

/* Best effort on a crash: give the terminal back before dying. */
static void crash(int sig)
{
	endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

void top_screen_start(struct view *v)
{
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (v->color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(C_BAR, COLOR_BLACK, COLOR_CYAN);
		init_pair(C_TITLE, COLOR_BLACK, COLOR_GREEN);
		init_pair(C_SORT, COLOR_BLACK, COLOR_CYAN);
		init_pair(C_GOOD, COLOR_GREEN, -1);
		init_pair(C_BAD, COLOR_RED, -1);
		init_pair(C_WARN, COLOR_YELLOW, -1);
		init_pair(C_DIM, COLOR_BLUE, -1);
	} else {
		v->color = false;
	}
	signal(SIGSEGV, crash);
	signal(SIGBUS, crash);
	signal(SIGABRT, crash);
	signal(SIGFPE, crash);
	v->curses = true;
}

void top_screen_end(struct view *v)
{
	if (v->curses)
		endwin();
	v->curses = false;
}

/* A line of text under the screen: leave it, say it, come back. */
void top_screen_note(struct view *v, const char *text)
{
	if (v->curses)
		endwin();
	fprintf(stderr, "%s\n", text);
	if (v->curses)
		refresh();
}
