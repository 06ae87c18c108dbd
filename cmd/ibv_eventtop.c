// SPDX-License-Identifier: MIT
/*
 * ibv_eventtop: a live, top-like view of every RDMA port, its async events
 * and its error counters. The model (counts, attributes, counters) is the
 * library's; this file parses options, wires the loop and draws.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "ibvevent.h"

#define PROG "ibv_eventtop"

enum { EXIT_OK, EXIT_NOT_MET, EXIT_USAGE, EXIT_RUNTIME, EXIT_BAD_INPUT };
enum stop { STOP_QUIT = 1, STOP_FAIL };
enum { OPT_NO_COLOR = 256, OPT_FOLLOW, OPT_SM, OPT_SM_ISSM };

/* What a key handler asks of the loop: handlers never draw. */
enum { K_NONE = 0, K_REDRAW = 1, K_QUIT = 2, K_RESAMPLE = 4 };

/* Colour pairs. */
enum { C_BAR = 1, C_TITLE, C_SORT, C_GOOD, C_BAD, C_WARN, C_DIM };

struct view {
	/* sources and model */
	struct ibve_top *top;
	struct ibve_monitor *mon;
	struct ibve_replay *replay;
	const char *replay_path;
	struct ibve_filter *filter;
	struct ibve_loop *loop;
	int timerfd;
	/* options */
	double delay;
	unsigned long iterations, refreshes;
	bool batch, json, follow, color, sm, sm_issm;
	/* replay */
	bool replay_eof, bad_input, have_pending, clock_set;
	struct ibve_event pending;
	struct timespec clock; /* capture time shown, with --follow */
	/* screen */
	bool curses, paused, help, log, editing;
	int sort, scroll, selected;
	bool invert;
	char name_filter[IBVE_NAME_MAX];
	size_t *order, norder;
	/* output */
	char *out;
	size_t out_size;
	int error;
};

static const struct option long_opts[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "delay", required_argument, NULL, 's' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "json", no_argument, NULL, 'j' },
	{ "replay", required_argument, NULL, 'r' },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "sm", no_argument, NULL, OPT_SM },
	{ "sm-issm", no_argument, NULL, OPT_SM_ISSM },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS]\n"
		"A live view of every RDMA port: state, async events by kind, the last\n"
		"event and its age, and the error counters that moved.\n"
		"\n"
		"  -d, --ib-dev NAME      only device NAME (repeatable)\n"
		"  -i, --ib-port N        only port N (repeatable)\n"
		"  -s, --delay SECONDS    refresh every SECONDS (default 1)\n"
		"  -n, --iterations N     exit after N refreshes\n"
		"  -b, --batch            no screen: print a table every refresh\n"
		"  -j, --json             with -b: one JSON object per refresh\n"
		"  -r, --replay FILE      counts from an ibv_eventwatch capture (- for stdin)\n"
		"      --follow           with -r: step through the capture, SECONDS of\n"
		"                         capture time per refresh\n"
		"      --sm               also the subnet manager's events on InfiniBand\n"
		"                         ports (SUBNET column; needs the umad device)\n"
		"      --sm-issm          with --sm: claim each port's IsSM capability and\n"
		"                         answer the SM as a standby SM (ibsim needs it)\n"
		"      --no-color         no colours (also when NO_COLOR is set)\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version\n"
		"\n"
		"Keys: q quit, h or ? help, < > sort column, I invert, / filter, space or Z\n"
		"pause, r reset, e event log, arrows and PgUp/PgDn scroll, Ctrl-L redraw.\n"
		"Exit status: 0 success, 2 usage error, 3 runtime failure, 4 malformed\n"
		"replay input.\n");
}

static void fail_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(EXIT_USAGE);
}

/* ------------------------------------------------------------------ */
/* Rows shown, in order                                                */

static struct view *sort_view; /* qsort has no argument */

static int row_order(const void *a, const void *b)
{
	const struct ibve_top_port *x =
		ibve_top_port_at(sort_view->top, *(const size_t *)a);
	const struct ibve_top_port *y =
		ibve_top_port_at(sort_view->top, *(const size_t *)b);
	int c = ibve_top_compare(x, y, (enum ibve_top_column)sort_view->sort);

	return sort_view->invert ? -c : c;
}

static bool row_wanted(const struct view *v, const struct ibve_top_port *p)
{
	struct ibve_event probe;

	if (v->name_filter[0] && !strstr(p->device, v->name_filter))
		return false;
	memset(&probe, 0, sizeof(probe));
	memcpy(probe.device, p->device, sizeof(probe.device));
	/* A capture's device-wide row is not one of the ports -i names. */
	probe.port = p->port ? p->port : UINT32_MAX;
	return ibve_filter_match(v->filter, &probe);
}

static void build_order(struct view *v)
{
	size_t n = ibve_top_port_count(v->top), k = 0;
	size_t *o = realloc(v->order, (n + 1) * sizeof(*o));

	if (!o)
		return;
	v->order = o;
	for (size_t i = 0; i < n; i++)
		if (row_wanted(v, ibve_top_port_at(v->top, i)))
			o[k++] = i;
	v->norder = k;
	sort_view = v;
	qsort(o, k, sizeof(*o), row_order);
}

/* ------------------------------------------------------------------ */
/* Batch output                                                        */

static bool print_snapshot(struct view *v)
{
	size_t n;

	build_order(v);
	for (;;) {
		n = v->json ? ibve_top_format_json(v->top, v->order, v->norder,
						   v->out, v->out_size)
			    : ibve_top_format_text(v->top, v->order, v->norder,
						   v->out, v->out_size);
		if (n < v->out_size)
			break;
		v->out_size = n + 1;
		v->out = realloc(v->out, v->out_size);
		if (!v->out) {
			v->error = ENOMEM;
			return false;
		}
	}
	if (fwrite(v->out, 1, n, stdout) != n ||
	    (!v->json && fputc('\n', stdout) == EOF) || fflush(stdout)) {
		v->error = errno ? errno : EIO;
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The screen                                                          */

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

/* Move the sort column by STEP, over the columns shown. */
static int move_sort(struct view *v, int step)
{
	do
		v->sort = (v->sort + IBVE_TOP_COL_COUNT + step) %
			  IBVE_TOP_COL_COUNT;
	while (!ibve_top_column_visible(v->top, (enum ibve_top_column)v->sort));
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
	ibve_top_reset(v->top);
	return K_REDRAW | K_RESAMPLE;
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
	if ((size_t)v->selected + 1 < v->norder)
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
	if (v->norder && (size_t)v->selected >= v->norder)
		v->selected = (int)v->norder - 1;
	return K_REDRAW;
}

static int key_home(struct view *v)
{
	v->selected = 0;
	return K_REDRAW;
}

static int key_end(struct view *v)
{
	v->selected = v->norder ? (int)v->norder - 1 : 0;
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
	  "filter by device name (Enter keeps it, Esc clears)",
	  key_filter },
	{ { ' ', 'Z' }, "Z space", "pause or resume the display", key_pause },
	{ { 'r' }, "r", "reset event counts and counter deltas", key_reset },
	{ { 'e' }, "e", "show or hide the event log (newest first)", key_log },
	{ { KEY_UP, 'k' }, "Up", "previous row", key_up },
	{ { KEY_DOWN, 'j' }, "Down", "next row", key_down },
	{ { KEY_PPAGE }, "PgUp", "a page up", key_pgup },
	{ { KEY_NPAGE }, "PgDn", "a page down", key_pgdn },
	{ { KEY_HOME, 'g' }, "Home", "first row", key_home },
	{ { KEY_END, 'G' }, "End", "last row", key_end },
	{ { 12 }, "^L", "redraw the screen", key_redraw },
};

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
	struct ibve_top_summary s;
	char line[512], when[32];
	time_t now = time(NULL);
	struct tm tm;
	long up;

	ibve_top_summary(v->top, &s);
	up = (long)s.uptime;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (s.host[0])
		snprintf(
			line, sizeof(line),
			" ibv_eventtop - %s - %s - Linux %s - up %02ld:%02ld:%02ld%s",
			when, s.host, s.kernel, up / 3600, up % 3600 / 60,
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
		 s.devices, s.devices == 1 ? "" : "s", s.ports,
		 s.ports == 1 ? "" : "s", (unsigned long long)s.events,
		 s.events == 1 ? "" : "s", s.per_second);
	printw("   sort: %s%s",
	       ibve_top_column_title((enum ibve_top_column)v->sort),
	       v->invert ? " (inverted)" : "");
	if (v->name_filter[0] || v->editing)
		printw("   filter: %s%s", v->name_filter,
		       v->editing ? "_" : "");
	clrtoeol();
}

/* Cell attributes that carry meaning: state, errors, fresh counters. */
static int cell_pair(const struct ibve_top_port *p, int col)
{
	switch (col) {
	case IBVE_TOP_COL_STATE:
		return strcmp(p->state, "ACTIVE") == 0 ? C_GOOD
		       : strcmp(p->state, "-") == 0    ? 0
						       : C_BAD;
	case IBVE_TOP_COL_DOWN:
		return p->counts[IBVE_TOP_LINK_DOWN] ? C_BAD : 0;
	case IBVE_TOP_COL_FATAL:
		return p->counts[IBVE_TOP_FATAL] ? C_BAD : 0;
	case IBVE_TOP_COL_MODULE:
		return p->counts[IBVE_TOP_MODULE] ? C_WARN : 0;
	case IBVE_TOP_COL_TEMP:
		return p->counts[IBVE_TOP_TEMP] ? C_BAD : 0;
	}
	return 0;
}

static void draw_counters(struct view *v, const struct ibve_top_port *p,
			  int width)
{
	int used = 0;

	if (!p->moved) {
		addstr("-");
		return;
	}
	for (size_t c = 0; c < p->counter_count && used < width; c++) {
		const struct ibve_top_counter *k = &p->counters[c];
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

static void draw_row(struct view *v, int y, const struct ibve_top_port *p,
		     bool selected)
{
	int x = 0;

	move(y, 0);
	if (selected)
		attron(A_REVERSE);
	for (int c = 0; c < IBVE_TOP_COL_COUNT && x < COLS; c++) {
		int w = ibve_top_column_width((enum ibve_top_column)c);
		int aw = w < 0 ? -w : w, pair;
		char cell[256];

		if (!ibve_top_column_visible(v->top, (enum ibve_top_column)c))
			continue;
		if (c == IBVE_TOP_COL_COUNTERS) {
			move(y, x);
			draw_counters(v, p, COLS - x);
			break;
		}
		ibve_top_cell(p, (enum ibve_top_column)c, cell, sizeof(cell));
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
	for (int c = 0; c < IBVE_TOP_COL_COUNT && x < COLS; c++) {
		int w = ibve_top_column_width((enum ibve_top_column)c);
		int aw = w < 0 ? -w : w;
		const char *t = ibve_top_column_title((enum ibve_top_column)c);

		if (!ibve_top_column_visible(v->top, (enum ibve_top_column)c))
			continue;
		if (c == v->sort) {
			set_color(v, C_TITLE, false);
			set_color(v, C_SORT, true);
			attron(A_UNDERLINE * !v->color);
		}
		if (c == IBVE_TOP_COL_COUNTERS)
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
		ev = ibve_top_recent(v->top, (size_t)i);
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
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		attron(A_BOLD);
		mvprintw(2 + (int)i, 2, "%-8s", keys[i].label);
		attroff(A_BOLD);
		printw(" %s", keys[i].help);
	}
	mvprintw(
		4 + (int)(sizeof(keys) / sizeof(keys[0])), 2,
		"Columns: link DOWN/UP (PORT_ERR/PORT_ACTIVE), LID, PKEY, SM and GID changes,");
	mvprintw(
		5 + (int)(sizeof(keys) / sizeof(keys[0])), 2,
		"client REREGisters, FATAL, OTHER; EV/MIN over the last minute; bold counters moved");
	mvprintw(
		6 + (int)(sizeof(keys) / sizeof(keys[0])), 2,
		"in the last refresh. Device-wide events count on every port of the device.");
}

static void draw(struct view *v)
{
	int table_rows, y = 3;

	if (v->help) {
		draw_help(v);
		refresh();
		return;
	}
	build_order(v);
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
	draw_titles(v, y++);
	for (int i = 0; i < table_rows && (size_t)(v->scroll + i) < v->norder;
	     i++)
		draw_row(v, y + i,
			 ibve_top_port_at(v->top, v->order[v->scroll + i]),
			 v->scroll + i == v->selected);
	if (!v->norder)
		mvprintw(y, 1,
			 v->name_filter[0] ? "no port matches the filter"
					   : "no ports");
	if (v->log)
		draw_log(v, y + table_rows + 1, LINES - 2 - (y + table_rows));
	draw_bar(
		v, LINES - 1,
		v->editing
			? " Filter by device name: type, Enter keeps it, Esc clears"
			: " q Quit  h Help  < > Sort  I Invert  / Filter  Space Pause  r Reset  e Events  ^L Redraw");
	refresh();
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

static int handle_key(struct view *v, int ch)
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

/* Best effort on a crash: give the terminal back before dying. */
static void crash(int sig)
{
	endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void start_screen(struct view *v)
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

/* ------------------------------------------------------------------ */
/* The loop's callbacks                                                */

static void now_wall(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* One refresh: sample the model, then show it. */
static int refresh_view(struct view *v, const struct timespec *at)
{
	struct timespec now;

	if (!at) {
		now_wall(&now);
		at = &now;
	}
	ibve_top_sample(v->top, at);
	v->refreshes++;
	if (v->batch) {
		if (!print_snapshot(v))
			return STOP_FAIL;
	} else if (!v->paused) {
		draw(v);
	}
	if (v->iterations && v->refreshes >= v->iterations)
		return STOP_QUIT;
	return 0;
}

static int on_monitor(int fd, short revents, void *arg)
{
	struct view *v = arg;
	struct ibve_event evs[64];
	int n;

	(void)fd;
	(void)revents;
	n = ibve_monitor_read(v->mon, evs, 64);
	if (n < 0) {
		v->error = -n;
		return STOP_FAIL;
	}
	for (int i = 0; i < n; i++)
		if (ibve_filter_match(v->filter, &evs[i]))
			ibve_top_event(v->top, &evs[i]);
	/* An operator sees a flap at once, not at the next refresh. */
	if (n && v->curses && !v->paused && !v->help)
		draw(v);
	return 0;
}

static void add_clock(struct timespec *t, double s)
{
	t->tv_sec += (time_t)s;
	t->tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static bool after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/*
 * Read replayed events. Without --follow, all that are there; with it,
 * those up to the capture clock (the next is held back). Batch --follow
 * steps the clock itself, a snapshot per step, as fast as it can.
 */
static int read_replay(struct view *v)
{
	for (;;) {
		struct ibve_event ev;
		char err[256];
		int r;

		if (v->have_pending) {
			ev = v->pending;
			v->have_pending = false;
		} else {
			r = ibve_replay_read(v->replay, &ev, err, sizeof(err));
			if (r == -EAGAIN)
				return 0;
			if (r == 0) {
				v->replay_eof = true;
				ibve_loop_remove_fd(v->loop,
						    ibve_replay_fd(v->replay));
				return 0;
			}
			if (r == -EINVAL) {
				if (v->curses)
					endwin();
				fprintf(stderr, "%s:%lu: %s\n", v->replay_path,
					ibve_replay_line(v->replay), err);
				if (v->curses)
					refresh();
				v->bad_input = true;
				continue;
			}
			if (r < 0) {
				v->error = -r;
				return STOP_FAIL;
			}
			if (!ibve_filter_match(v->filter, &ev))
				continue;
		}
		if (v->follow) {
			if (!v->clock_set) {
				v->clock = ev.time;
				v->clock_set = true;
			}
			while (after(&ev.time, &v->clock)) {
				if (!v->batch) {
					/* hold it until the clock gets there */
					v->pending = ev;
					v->have_pending = true;
					ibve_loop_remove_fd(
						v->loop,
						ibve_replay_fd(v->replay));
					return 0;
				}
				r = refresh_view(v, &v->clock);
				if (r)
					return r;
				add_clock(&v->clock, v->delay);
			}
		}
		ibve_top_event(v->top, &ev);
	}
}

static int on_replay_fd(int fd, short revents, void *arg)
{
	struct view *v = arg;
	int r;

	(void)fd;
	(void)revents;
	r = read_replay(v);
	if (r || !v->replay_eof)
		return r;
	/* The end: the final state, as of the capture's last moment. */
	if (v->follow && v->clock_set) {
		r = refresh_view(v, &v->clock);
	} else if (ibve_top_recent(v->top, 0)) {
		struct timespec last = ibve_top_recent(v->top, 0)->time;

		r = refresh_view(v, &last);
	} else {
		r = refresh_view(v, NULL);
	}
	return r || !v->batch ? r : STOP_QUIT;
}

static int on_timer(int fd, short revents, void *arg)
{
	struct view *v = arg;
	uint64_t ticks;

	(void)revents;
	if (read(fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return 0;
	if (!v->replay)
		return refresh_view(v, NULL);
	if (v->follow && !v->replay_eof) {
		int r;

		add_clock(&v->clock, v->delay);
		if (v->have_pending)
			ibve_loop_add_fd(v->loop, ibve_replay_fd(v->replay),
					 POLLIN, on_replay_fd, v);
		r = read_replay(v);
		if (r)
			return r;
		return refresh_view(v, &v->clock);
	}
	if (v->replay_eof) {
		/* the capture's clock has stopped: only keys change things */
		v->refreshes++;
		return v->iterations && v->refreshes >= v->iterations
			       ? STOP_QUIT
			       : 0;
	}
	return refresh_view(v, NULL);
}

static int on_stdin(int fd, short revents, void *arg)
{
	struct view *v = arg;
	int ch, want = K_NONE;

	(void)fd;
	(void)revents;
	while ((ch = getch()) != ERR)
		want |= handle_key(v, ch);
	if (want & K_QUIT)
		return STOP_QUIT;
	if (want & K_RESAMPLE) {
		struct timespec now;

		now_wall(&now);
		ibve_top_sample(v->top, v->replay
						? (v->follow ? &v->clock : &now)
						: &now);
	}
	if (want & K_REDRAW)
		draw(v);
	return 0;
}

static int on_signal(int signo, void *arg)
{
	struct view *v = arg;
	struct winsize ws;

	if (signo != SIGWINCH)
		return STOP_QUIT;
	if (v->curses && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		resizeterm(ws.ws_row, ws.ws_col);
		draw(v);
	}
	return 0;
}

/* ------------------------------------------------------------------ */

/* --sm: the InfiniBand ports subscribed, or -1 after saying why not. */
static int open_sm(struct view *v)
{
	char path[128];
	int r = ibve_monitor_add_sm(v->mon, path, sizeof(path));

	if (r == -EACCES)
		fprintf(stderr,
			PROG ": --sm: cannot open %s: %s (subnet events need "
			     "read-write access to it: root by default)\n",
			path, strerror(EACCES));
	else if (r < 0)
		fprintf(stderr, PROG ": --sm: %s\n", strerror(-r));
	else if (r == 0)
		fprintf(stderr,
			PROG ": --sm: no InfiniBand port to subscribe on\n");
	return r > 0 ? r : -1;
}

static int open_live(struct view *v, char **names, size_t nnames)
{
	const char *open[256];
	size_t n;
	int r = 0, nsm = 0;

	v->mon = ibve_monitor_new(IBVE_MONITOR_HOTPLUG | IBVE_MONITOR_MLX5 |
				  (v->sm ? IBVE_MONITOR_SM : 0) |
				  (v->sm_issm ? IBVE_MONITOR_SM_ISSM : 0));
	if (!v->mon) {
		fprintf(stderr, PROG ": cannot watch for devices: %s\n",
			strerror(errno));
		return EXIT_RUNTIME;
	}
	/* before the devices, as ibv_eventwatch does (see there) */
	if (v->sm && !nnames && (nsm = open_sm(v)) < 0)
		return EXIT_RUNTIME;
	for (size_t k = 0; k < nnames && !r; k++) {
		r = ibve_monitor_add_device(v->mon, names[k]);
		if (r == -ENODEV)
			fprintf(stderr,
				PROG ": device '%s': no such RDMA device\n",
				names[k]);
		else if (r)
			fprintf(stderr, PROG ": device '%s': %s\n", names[k],
				strerror(-r));
	}
	if (!nnames) {
		r = ibve_monitor_add_all(v->mon);
		if (r == -ENOSYS && nsm)
			r = 0; /* umad devices and no verbs: go on */
		if (r)
			fprintf(stderr, PROG ": %s\n",
				r == -ENOSYS
					? "no RDMA devices found: the kernel offers no RDMA to user space"
					: strerror(-r));
	}
	if (r)
		return EXIT_RUNTIME;
	if (v->sm && nnames && (nsm = open_sm(v)) < 0)
		return EXIT_RUNTIME;
	for (const char *note; (note = ibve_monitor_note(v->mon));)
		fprintf(stderr, PROG ": %s\n", note);
	n = ibve_monitor_devices(v->mon, open, 256);
	if (!n && !nsm) {
		fprintf(stderr, PROG ": no RDMA devices found\n");
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < n && i < 256; i++)
		ibve_top_add_device(v->top, open[i]);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct view v = { .delay = 1, .timerfd = -1, .sort = 0 };
	char **names = NULL;
	size_t nnames = 0;
	bool no_color = false;
	const char *nc = getenv("NO_COLOR");
	int opt, status = EXIT_OK, r;

	v.filter = ibve_filter_new();
	if (!v.filter)
		return EXIT_RUNTIME;
	while ((opt = getopt_long(argc, argv, "d:i:s:n:bjr:hV", long_opts,
				  NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'd': {
			void *more;

			if (!*optarg || strlen(optarg) >= IBVE_NAME_MAX)
				fail_usage("invalid device name '%s'", optarg);
			more = realloc(names, (nnames + 1) * sizeof(*names));
			if (!more) {
				fprintf(stderr, PROG ": out of memory\n");
				status = EXIT_RUNTIME;
				goto out;
			}
			names = more;
			names[nnames++] = optarg;
			ibve_filter_add_device(v.filter, optarg);
			break;
		}
		case 'i': {
			unsigned long p;

			errno = 0;
			p = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || !p ||
			    p > 65535)
				fail_usage("invalid port number '%s'", optarg);
			ibve_filter_add_port(v.filter, (uint32_t)p);
			break;
		}
		case 's':
			errno = 0;
			v.delay = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !isfinite(v.delay) || v.delay < 0.01 ||
			    v.delay > 86400)
				fail_usage(
					"invalid delay '%s': seconds, at least 0.01",
					optarg);
			break;
		case 'n':
			errno = 0;
			v.iterations = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' ||
			    !v.iterations)
				fail_usage(
					"invalid iterations '%s': a positive number",
					optarg);
			break;
		case 'b':
			v.batch = true;
			break;
		case 'j':
			v.json = true;
			break;
		case 'r':
			v.replay_path = optarg;
			break;
		case OPT_FOLLOW:
			v.follow = true;
			break;
		case OPT_SM:
			v.sm = true;
			break;
		case OPT_SM_ISSM:
			v.sm_issm = true;
			break;
		case OPT_NO_COLOR:
			no_color = true;
			break;
		case 'h':
			usage(stdout);
			goto out;
		case 'V':
			printf(PROG " %s (libibvevent %s)\n", IBVE_VERSION,
			       ibve_version());
			goto out;
		default:
			fprintf(stderr, "Try '" PROG
					" --help' for more information.\n");
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc)
		fail_usage("unexpected argument '%s'", argv[optind]);
	if (v.json && !v.batch)
		fail_usage("%s", "-j needs -b (JSON is for batch mode)");
	if (v.follow && !v.replay_path)
		fail_usage("%s", "--follow needs -r");
	if (v.sm_issm && !v.sm)
		fail_usage("%s", "--sm-issm goes with --sm");
	if (v.sm && v.replay_path)
		fail_usage("%s", "--sm is for watching devices, not with -r");
	if (!v.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, PROG
			": the screen needs a terminal; use -b for batch output\n");
		status = EXIT_RUNTIME;
		goto out;
	}
	v.color = !no_color && !(nc && *nc);
	signal(SIGPIPE, SIG_IGN);

	v.top = ibve_top_new(v.replay_path ? 0 : IBVE_TOP_SYSFS);
	v.loop = ibve_loop_new();
	if (!v.top || !v.loop) {
		fprintf(stderr, PROG ": out of memory\n");
		status = EXIT_RUNTIME;
		goto out;
	}
	if (v.replay_path) {
		v.replay = ibve_replay_open(v.replay_path);
		if (!v.replay) {
			fprintf(stderr, PROG ": %s: %s\n", v.replay_path,
				strerror(errno));
			status = EXIT_RUNTIME;
			goto out;
		}
		if (strcmp(v.replay_path, "-") == 0)
			v.replay_path = "<stdin>";
		ibve_loop_add_fd(v.loop, ibve_replay_fd(v.replay), POLLIN,
				 on_replay_fd, &v);
	} else {
		status = open_live(&v, names, nnames);
		if (status)
			goto out;
		ibve_loop_add_fd(v.loop, ibve_monitor_fd(v.mon), POLLIN,
				 on_monitor, &v);
	}
	ibve_loop_add_signal(v.loop, SIGINT, on_signal, &v);
	ibve_loop_add_signal(v.loop, SIGTERM, on_signal, &v);
	/* Batch replay without --follow has no clock: it ends at the end. */
	if (!(v.batch && v.replay)) {
		struct itimerspec its = { 0 };

		v.timerfd = timerfd_create(CLOCK_MONOTONIC,
					   TFD_CLOEXEC | TFD_NONBLOCK);
		if (v.timerfd < 0) {
			fprintf(stderr, PROG ": timerfd: %s\n",
				strerror(errno));
			status = EXIT_RUNTIME;
			goto out;
		}
		its.it_interval.tv_sec = (time_t)v.delay;
		its.it_interval.tv_nsec =
			(long)((v.delay - (double)(time_t)v.delay) * 1e9);
		its.it_value = its.it_interval;
		timerfd_settime(v.timerfd, 0, &its, NULL);
		ibve_loop_add_fd(v.loop, v.timerfd, POLLIN, on_timer, &v);
	}
	if (!v.batch) {
		start_screen(&v);
		ibve_loop_add_signal(v.loop, SIGWINCH, on_signal, &v);
		ibve_loop_add_fd(v.loop, STDIN_FILENO, POLLIN, on_stdin, &v);
	}
	/* Live: the first refresh at once, as top does. */
	r = v.replay ? 0 : refresh_view(&v, NULL);
	if (!r)
		r = ibve_loop_run(v.loop);
	if (v.curses)
		endwin();
	if (r < 0) {
		fprintf(stderr, PROG ": waiting for events: %s\n",
			strerror(-r));
		status = EXIT_RUNTIME;
	} else if (r == STOP_FAIL) {
		if (v.error != EPIPE) {
			fprintf(stderr, PROG ": %s%s\n",
				v.batch ? "write to standard output: " : "",
				strerror(v.error ? v.error : EIO));
			status = EXIT_RUNTIME;
		}
	} else if (v.bad_input) {
		status = EXIT_BAD_INPUT;
	}
out:
	if (v.timerfd >= 0)
		close(v.timerfd);
	ibve_loop_free(v.loop);
	ibve_monitor_free(v.mon);
	ibve_replay_close(v.replay);
	ibve_top_free(v.top);
	ibve_filter_free(v.filter);
	free(v.order);
	free(v.out);
	free(names);
	return status;
}
