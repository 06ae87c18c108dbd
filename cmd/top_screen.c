// SPDX-License-Identifier: MIT
/*
 * The dashboard's screen (ncurses): a header, the table of rows in the
 * view's order, the event log, the help screen drawn from the key table,
 * and a footer. Drawing only: the keys are top_keys.c's.
 */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "common.h"
#include "top.h"

/* Colour pairs. */
enum { C_BAR = 1, C_TITLE, C_SORT, C_GOOD, C_BAD, C_WARN };

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
	const struct ibve_ports_summary *s = ibve_ports_summary(v->ports);
	char line[512], when[32], sort[128], filter[16 + IBVE_NAME_MAX];
	struct ibve_buf b = { line, sizeof(line), 0 };
	time_t now = time(NULL);
	long up = (long)s->uptime;
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	/* PAUSED first: the line is cut at the screen's edge */
	ibve_buf_printf(&b, " ibv_eventtop%s - ", v->paused ? " [PAUSED]" : "");
	if (s->host[0])
		ibve_buf_printf(&b, "%s - %s - Linux %s - up %02ld:%02ld:%02ld",
				when, s->host, s->kernel, up / 3600,
				up % 3600 / 60, up % 60);
	else
		ibve_buf_printf(&b,
				"replay of %s - %02ld:%02ld:%02ld of capture%s",
				v->replay_path, up / 3600, up % 3600 / 60,
				up % 60, v->replay_eof ? " (end)" : "");
	ibve_buf_end(&b);
	draw_bar(v, 0, line);
	snprintf(sort, sizeof(sort), "   sort: %s%s",
		 top_table_title(v, v->procs_view ? v->psort : v->sort),
		 (v->procs_view ? v->pinvert : v->invert) ? " (inverted)" : "");
	/* while it is typed, the prompt shows it */
	snprintf(filter, sizeof(filter), "   filter: %s", v->name_filter);
	/* too long: the last minute's rate goes first, then the sort (its
	 * title is marked) */
	for (int drop = 0; drop < 3 && (!drop || b.len > (size_t)COLS);
	     drop++) {
		b.len = 1;
		top_put_counts(&b, v, drop == 0);
		if (drop < 2)
			ibve_buf_puts(&b, sort);
		if (v->name_filter[0] && !v->editing)
			ibve_buf_puts(&b, filter);
	}
	ibve_buf_end(&b);
	/* cut at the edge: a line that wraps would push the next down */
	mvprintw(1, 0, "%.*s", COLS, line);
	clrtoeol();
}

/* Cell attributes that carry meaning: state, errors, a changed peer. */
static int cell_pair(const struct ibve_port_row *p, int col)
{
	static const int counts[COL_COUNT] = {
		[COL_DOWN] = C_BAD,
		[COL_FATAL] = C_BAD,
		[COL_MODULE] = C_WARN,
		[COL_TEMP] = C_BAD,
	};

	if (col == COL_STATE)
		return strcmp(p->state, "ACTIVE") == 0 ? C_GOOD
		       : strcmp(p->state, "-") == 0    ? 0
						       : C_BAD;
	if (col == COL_PEER)
		return p->peer.state == IBVE_PEER_KNOWN && p->peer.changed
			       ? C_WARN
			       : 0;
	return counts[col] && p->counts[top_col_kind(col)] ? counts[col] : 0;
}

/*
 * The table's cell (top_moved()): a counter that moved at the last
 * refresh in bold, the resets in the warning colour; cut at WIDTH.
 */
static void draw_counters(struct view *v, const struct ibve_port_row *p,
			  int width)
{
	char resets[32];
	struct ibve_buf b = { resets, sizeof(resets), 0 };
	size_t n;
	const struct ibve_counter **k = top_moved(p, &b, &n);
	int used = (int)ibve_buf_end(&b);

	set_color(v, C_WARN, true);
	printw("%.*s", width, resets);
	set_color(v, C_WARN, false);
	if (!p->moved && used < width)
		addstr("-");
	for (size_t i = 0; i < n && used < width; i++) {
		char cell[96];
		int len = snprintf(cell, sizeof(cell), "%s%s+%llu",
				   i ? " " : "", k[i]->name,
				   (unsigned long long)k[i]->delta);

		if (k[i]->changed) {
			attron(A_BOLD);
			set_color(v, C_WARN, true);
		}
		printw("%.*s", width - used, cell);
		if (k[i]->changed) {
			set_color(v, C_WARN, false);
			attroff(A_BOLD);
		}
		used += len;
	}
	free(k);
}

/* TEXT in a column of width W at Y, X: cut, never wrapped. */
static void put_cell(int y, const struct top_span *sp, const char *text)
{
	mvprintw(y, sp->x, sp->left ? "%-*.*s" : "%*.*s", sp->w, sp->w, text);
}

static void draw_row(struct view *v, int y, size_t row,
		     const struct top_span *sp, size_t nsp, bool selected)
{
	move(y, 0);
	clrtoeol();
	if (selected) {
		attron(A_REVERSE);
		printw("%*s", COLS, "");
	}
	for (size_t i = 0; i < nsp; i++) {
		int c = sp[i].col, pair = 0;
		char cell[512];

		if (!v->procs_view) {
			const struct ibve_port_row *p =
				ibve_ports_at(v->ports, v->order[row]);

			if (c == COL_COUNTERS) {
				move(y, sp[i].x);
				draw_counters(v, p, sp[i].w);
				continue;
			}
			pair = selected ? 0 : cell_pair(p, c);
		}
		top_table_cell(v, row, c, cell, sizeof(cell));
		set_color(v, pair, true); /* pair 0: none */
		put_cell(y, &sp[i], cell);
		set_color(v, pair, false);
	}
	if (selected)
		attroff(A_REVERSE);
}

static void draw_titles(struct view *v, int y, const struct top_span *sp,
			size_t nsp)
{
	int sort = v->procs_view ? v->psort : v->sort;

	move(y, 0);
	set_color(v, C_TITLE, true);
	attron(A_BOLD);
	attron(A_REVERSE * !v->color);
	printw("%*s", COLS, "");
	for (size_t i = 0; i < nsp; i++) {
		if (sp[i].col == sort) {
			set_color(v, C_TITLE, false);
			set_color(v, C_SORT, true);
			attron(A_UNDERLINE * !v->color);
		}
		put_cell(y, &sp[i], top_table_title(v, sp[i].col));
		if (sp[i].col == sort) {
			attroff(A_UNDERLINE);
			set_color(v, C_SORT, false);
			set_color(v, C_TITLE, true);
		}
	}
	attroff(A_BOLD | A_REVERSE);
	set_color(v, C_TITLE, false);
}

/*
 * TEXT wrapped at spaces (a word longer than a line cut) from line Y on,
 * before line END: its first line from column X0, the others from X1,
 * each to the right margin M; DRAW: or only count. The lines it takes.
 */
static int put_wrapped(int y, int end, int x0, int x1, int m, const char *text,
		       bool draw)
{
	int lines = 0;

	for (int x = x0; *text && y + lines < end && COLS - x - m > 0; x = x1) {
		int w = COLS - x - m, n = (int)strlen(text);

		if (n > w) {
			for (n = w; n > 0 && text[n] != ' '; n--)
				;
			n = n ? n : w;
		}
		if (draw)
			mvprintw(y + lines, x, "%-*.*s", w, n, text);
		lines++;
		text += n;
		while (*text == ' ')
			text++;
	}
	return lines;
}

/* The log on ROWS lines from TOP; in focus, the selected event whole. */
static void draw_log(struct view *v, int top, int rows)
{
	const struct top_line *l;
	struct ibve_event ev;
	int sel = -1, y = top + 1, end = top + rows;
	char line[1024];

	draw_bar(v, top,
		 v->log_focus
			 ? " Events, newest first - Up, Down: the selected "
			   "one whole; Tab: the rows"
			 : " Events, newest first");
	v->log_scroll = v->log_focus ? v->log_scroll : 0;
	if (v->log_focus && v->events.n) {
		sel = v->log_sel =
			top_log_find(&v->events, v->log_id, v->log_sel);
		l = top_log_at(&v->events, (size_t)sel);
		v->log_id = l->id;
		top_log_record(l, &ev);
		top_log_line(&ev, line, sizeof(line));
		/* the lines above it, then all of it, in view */
		if (sel < v->log_scroll)
			v->log_scroll = sel;
		rows = sel + put_wrapped(0, end - y, 0, 2, 0, line, false) -
		       (end - y);
		if (v->log_scroll < rows)
			v->log_scroll = rows;
	}
	/* (the screen was erased) */
	for (int i = v->log_scroll;
	     y < end && (l = top_log_at(&v->events, (size_t)i)); i++) {
		move(y, 0);
		top_log_record(l, &ev);
		top_log_line(&ev, line, sizeof(line));
		if (ev.severity >= IBVE_SEVERITY_ERROR)
			set_color(v, C_BAD, true);
		else if (ev.severity == IBVE_SEVERITY_WARNING)
			set_color(v, C_WARN, true);
		if (i == sel) {
			attron(A_REVERSE);
			y += put_wrapped(y, end, 0, 2, 0, line, true);
			attroff(A_REVERSE);
		} else {
			printw("%.*s", COLS, line);
			y++;
		}
		set_color(v, C_BAD, false);
		set_color(v, C_WARN, false);
	}
}

static void draw_help(struct view *v)
{
	const char *label, *help;
	int y = 1;

	erase();
	draw_bar(v, 0,
		 " ibv_eventtop help - any key listed works here; h ? q leave");
	for (size_t i = 0; (label = top_key_help(i, &help)) && y < LINES; i++) {
		attron(A_BOLD);
		mvprintw(y++, 2, "%-10s ", label);
		attroff(A_BOLD);
		printw("%.*s", COLS > 13 ? COLS - 13 : 0, help);
	}
	put_wrapped(
		y + 1, LINES, 2, 2, 2,
		"DOWN, UP: PORT_ERR, PORT_ACTIVE; LID, PKEY, SM, GID: changes; "
		"REREG: client reregisters; EV/MIN: the last minute. "
		"Device-wide events count on every port. Counts all 0 fold "
		"away. Bold counters moved at the last refresh.",
		true);
}

/* The footer's keys: as many as the width takes, the first first. */
static void draw_footer(struct view *v)
{
	static const char *const items[] = {
		"q Quit",      "h Help",   "< > Sort",	 "Left Right Cols",
		"/ Filter",    "e Events", "Tab Select", "p Procs",
		"Space Pause", "I Invert", "r Reset",	 "^L Redraw",
	};
	char line[256];
	size_t n = 0;

	if (v->editing) { /* the text as it is, to edit */
		snprintf(line, sizeof(line),
			 " Filter by %s: %s_   Enter keeps it, Esc clears",
			 v->procs_view ? "command, job or device"
				       : "device name",
			 v->name_filter);
		draw_bar(v, LINES - 1, line);
		return;
	}
	line[0] = '\0';
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		size_t k = strlen(items[i]);

		if (n + 1 + k > (size_t)COLS || n + 3 + k >= sizeof(line))
			break;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s",
				      i ? "  " : " ", items[i]);
	}
	draw_bar(v, LINES - 1, line);
}

/* Above the titles, the columns off either edge: "< 2 columns" over the
 * first that scrolls, "7 columns >" at the right. */
static void draw_off(const struct view *v, int y, const struct top_span *sp,
		     size_t nsp, int right)
{
	char s[32];
	int n;

	if (v->hscroll && nsp > TOP_FROZEN)
		mvprintw(y, sp[TOP_FROZEN].x, "< %d column%s", v->hscroll,
			 v->hscroll == 1 ? "" : "s");
	n = snprintf(s, sizeof(s), "%d column%s >", right,
		     right == 1 ? "" : "s");
	if (right && n < COLS)
		mvaddstr(y, COLS - n, s);
}

void top_draw(struct view *v)
{
	struct top_span sp[TOP_MAX_COLS];
	int cols[TOP_MAX_COLS], table_rows, max, right, y = 3;
	size_t nsp, nrows;

	if (v->help) {
		draw_help(v);
		refresh();
		return;
	}
	top_order(v);
	nrows = top_nrows(v);
	/* columns folded since it scrolled away: Left acts at once */
	max = (int)top_screen_cols(v, cols) - TOP_FROZEN - 1;
	if (v->hscroll > max)
		v->hscroll = max > 0 ? max : 0;
	if (v->sort_follow)
		top_show_sort(v, COLS);
	erase();
	draw_header(v);
	table_rows = LINES - 5;
	if (v->log)
		table_rows = table_rows / 2;
	if (table_rows < 1)
		table_rows = 1;
	if (v->selected >= (int)nrows)
		v->selected = nrows ? (int)nrows - 1 : 0;
	if (v->selected < v->scroll)
		v->scroll = v->selected;
	if (v->selected >= v->scroll + table_rows)
		v->scroll = v->selected - table_rows + 1;
	nsp = top_layout(v, COLS, sp, &right);
	draw_off(v, y - 1, sp, nsp, right);
	draw_titles(v, y++, sp, nsp);
	for (int i = 0; i < table_rows && (size_t)(v->scroll + i) < nrows; i++)
		draw_row(v, y + i, (size_t)(v->scroll + i), sp, nsp,
			 v->scroll + i == v->selected && !v->log_focus);
	if (!nrows)
		mvprintw(
			y, 1, "%.*s", COLS - 1,
			v->procs_view
				? v->procs.n
					  ? "no process matches the filter"
					  : "no process's events yet (ibv_eventtop -A sees them)"
			: v->name_filter[0] ? "no port matches the filter"
			: v->replay_path
				? "no ports"
				: "no RDMA devices yet: waiting for them to appear");
	if (v->log)
		draw_log(v, y + table_rows + 1, LINES - 2 - (y + table_rows));
	draw_footer(v);
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

/* A note under the screen, if there is one: leave it, say it, come back. */
void top_screen_note(enum ibve_note_kind kind, const char *text, void *arg)
{
	const struct view *v = arg;

	if (v->curses)
		endwin();
	cmd_notes(kind, text, NULL);
	if (v->curses)
		refresh();
}
