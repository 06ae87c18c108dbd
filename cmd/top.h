/* SPDX-License-Identifier: MIT */
/*
 * ibv_eventtop, htop-style: the model is the library's port table; this
 * command adds the view (top_view.c: columns, cells, order, the batch
 * table and JSON; top_layout.c: the screen's columns and what fits), the
 * screen (top_screen.c: drawing) and the keys
 * (top_keys.c: handlers that never draw).
 */
#ifndef IBVE_TOP_H
#define IBVE_TOP_H

#include <stdbool.h>
#include <stddef.h>

#include "ibvevent.h"

/* The table's columns, shared by the screen and batch output. */
enum top_col {
	COL_DEVICE,
	COL_PORT,
	COL_STATE,
	COL_PHYS,
	COL_LINK,
	COL_RATE,
	COL_ADDRESS,
	COL_PEER,
	COL_DOWN_SINCE,
	COL_FLAPS,
	COL_DOWN,
	COL_UP,
	COL_LID,
	COL_PKEY,
	COL_SM,
	COL_GID,
	COL_REREG,
	COL_FATAL,
	COL_MODULE,
	COL_TEMP,
	COL_SUBNET,
	COL_OTHER,
	COL_TOTAL,
	COL_PER_MIN,
	COL_LAST,
	COL_AGE,
	COL_CAUSE,
	COL_COUNTERS,
	COL_COUNT
};

/* The process view's columns, in the order of its batch table. */
enum top_pcol {
	PCOL_PID,
	PCOL_COMM,
	PCOL_JOB,
	PCOL_DEVICE,
	PCOL_QP,
	PCOL_CQ,
	PCOL_SRQ,
	PCOL_WQ,
	PCOL_TOTAL,
	PCOL_RATE,
	PCOL_LAST,
	PCOL_AGE,
	PCOL_COUNT
};

/* A process (or kernel module) whose objects had events, on one device. */
struct top_proc {
	uint32_t pid;  /* 0: a kernel module's */
	char comm[40]; /* or "[module]" */
	char job[96];  /* "slurm job 12", "pod ...", "" */
	char device[IBVE_NAME_MAX];
	uint64_t by_class[IBVE_CLASS_WQ + 1]; /* QP, CQ, SRQ, WQ */
	uint64_t total;
	uint64_t sampled;  /* total at the last sample */
	double per_second; /* events over the last interval */
	char last[IBVE_EVENT_NAME_MAX];
	struct timespec last_time;
};

/*
 * At most TOP_PROCS_MAX rows: past that, a new owner takes the row whose
 * last event is the oldest, so that hours of processes coming and going
 * do not grow the table (bench/SOAK.md).
 */
#define TOP_PROCS_MAX 256
struct top_procs {
	struct top_proc *v;
	size_t n, cap;
	struct timespec prev; /* the last sample */
	bool sampled;
};

/* Events a second, the last TOP_RATE_SECS seconds (by their time). */
#define TOP_RATE_SECS 60
struct top_rate {
	int64_t sec[TOP_RATE_SECS];
	uint64_t n[TOP_RATE_SECS];
};

/*
 * The event log, newest first: a line a record, but a storm's (records
 * of one key, summarised by the pipeline: IBVE_SINK_SUMMARY) one line
 * that counts its events, moved up as they come.
 */
struct top_line {
	struct ibve_event ev; /* the newest record */
	uint64_t count;	      /* events */
	double first;	      /* its first event's time, in seconds */
	uint64_t id;	      /* kept while the line is moved or grows */
	bool storm, over;
};
#define TOP_LOG_MAX 512
#define TOP_STORM   10 /* events of a key a second: ibv_eventwatch's --storm */
struct top_log {
	struct top_line *v; /* a ring of TOP_LOG_MAX, newest at head - 1 */
	size_t head, n;
	uint64_t ids;
};

struct view {
	/* model */
	struct ibve_ports *ports;
	struct top_procs procs; /* the kernel source's owners */
	struct ibve_pipeline *pl;
	struct ibve_filter *filter;
	struct top_rate rate;  /* of the records, for the header */
	struct top_log events; /* the event log (v->log: shown) */
	const char *replay_path;
	/* options */
	double delay;
	unsigned long iterations, refreshes;
	bool batch, json, follow, color;
	/* replay */
	bool replay_eof;
	struct timespec clock; /* capture time shown */
	bool clock_set;
	/* screen */
	bool curses, paused, help, log, editing, procs_view;
	bool log_focus; /* the keys select in the log */
	int sort, scroll, selected;
	int log_sel, log_scroll; /* in the log, as last drawn */
	uint64_t log_id;	 /* the selected line's */
	bool invert;
	int psort; /* the process view's (enum top_pcol; PCOL_AGE: newest first) */
	bool pinvert;
	int hscroll;	  /* columns scrolled off after the first two */
	bool sort_follow; /* the sort column moved: bring it into view */
	char name_filter[IBVE_NAME_MAX];
	size_t *order, norder;
	size_t *porder, nporder; /* the process rows shown, in order */
	/* output */
	char *out;
	size_t out_size;
};

/*
 * A row's field that a column sorts by and, unless its cell is drawn
 * otherwise, shows as it is: its type and where it is in the row.
 */
enum { F_NONE, F_STR, F_UINT, F_U64, F_SIZE, F_DBL };
struct top_field {
	unsigned char type;
	unsigned short off;
};
/* Its initializer: { TOP_FIELD(struct ibve_port_row, STR, state) } */
#define TOP_FIELD(row, type, member) F_##type, offsetof(row, member)

/* A column of a table: its title, width (negative: left-aligned; 0: sized
 * to its cells) and field. The ports' (top_view.c), the processes'
 * (top_procs.c). */
struct top_column {
	const char *title;
	int width;
	struct top_field f;
};
extern const struct top_column top_columns[COL_COUNT];
extern const struct top_column top_pcolumns[PCOL_COUNT];
/* Column COL of the port view (a kind's from the library's kinds). */
const struct top_column *top_column(int col);

/* top_view.c */
int top_field_cmp(struct top_field f, const void *a, const void *b);
struct ibve_buf;
void top_field_put(struct ibve_buf *b, struct top_field f, const void *row);
/* S in a column of WIDTH (negative: left-aligned; 0: as it is), CUT to
 * it or not. */
void top_put_cell(struct ibve_buf *b, const char *s, int width, bool cut);
bool top_col_visible(const struct view *v, enum top_col col);
/* A count column's kind (enum ibve_kind); -1 for the others. */
int top_col_kind(enum top_col col);
size_t top_cell(const struct ibve_port_row *p, enum top_col col, char *buf,
		size_t size);
/* The rows shown, in the order shown: v->order, v->norder (ports) and
 * v->porder, v->nporder (processes). */
void top_order(struct view *v);

/*
 * top_layout.c: the screen's table, the ports' or the processes'
 * (v->procs_view): its columns in order of importance, those of the ports
 * without the per-kind counts that are zero on every row shown; the first
 * TOP_FROZEN stay when the rest scroll sideways (v->hscroll).
 */
#define TOP_FROZEN   2
#define TOP_MAX_COLS 32
size_t top_screen_cols(const struct view *v, int *cols);
const char *top_table_title(const struct view *v, int col);
/* The cell of the ROW-th row shown. */
size_t top_table_cell(const struct view *v, size_t row, int col, char *buf,
		      size_t size);
size_t top_nrows(const struct view *v);
/* The columns drawn on WIDTH columns: whole ones only, but for the first
 * that scrolls (clipped); *RIGHT: how many are off the right edge, whole
 * or in part (v->hscroll are off the left). */
struct top_span {
	int col, x, w;
	bool left;
};
size_t top_layout(const struct view *v, int width, struct top_span *s,
		  int *right);
/* The sort column, scrolled into view on WIDTH columns. */
void top_show_sort(struct view *v, int width);
/* A snapshot for batch mode on standard output; 0 or -errno. */
int top_print(struct view *v);

/*
 * The ERROR COUNTERS MOVED cell of P, for the table and the screen alike:
 * "[2 resets] " into B when counters went backwards; then the counters
 * that moved, most first, as a new array of *N for the caller to free
 * (NULL when none moved, or out of memory).
 */
const struct ibve_counter **top_moved(const struct ibve_port_row *p,
				      struct ibve_buf *b, size_t *n);

/* 42s, 3m04s, 2h05m, 3d04h */
void top_put_age(struct ibve_buf *b, double s);

/* top_procs.c: the process view (records of the kernel source) */
double top_secs(const struct timespec *from, const struct timespec *to);
void top_procs_add(struct top_procs *t, const struct ibve_event *ev);
/* Each row's events per second since the last sample, as of NOW (as
 * ibve_ports_sample() does the ports'). */
void top_procs_sample(struct top_procs *t, const struct timespec *now);
void top_procs_reset(struct top_procs *t);
void top_procs_free(struct top_procs *t);
int top_pcol_width(const struct view *v, enum top_pcol col);
size_t top_proc_cell(const struct view *v, const struct top_proc *p,
		     enum top_pcol col, char *buf, size_t size);
/* The rows that match the filter (command, job or device), in the
 * view's order: V->porder, V->nporder. */
void top_procs_order(struct view *v);
/* The rows of V->porder, as top_procs_order() left them (newest first by
 * default): their titles and cells as one text table. */
struct ibve_json;
void top_procs_text(const struct view *v, struct ibve_buf *b);
void top_procs_json(const struct view *v, struct ibve_json *j);
/* The view V as one JSON object and a newline (ibve_buf_grow()'s shape). */
size_t top_format_json(const void *arg, char *buf, size_t size);
/* The process table alone, ordered first, as snprintf writes. */
size_t top_procs_format(struct view *v, char *buf, size_t size);

/* top_log.c: what came. EV into the log L; -ENOMEM. */
int top_log_add(struct top_log *l, const struct ibve_event *ev);
/* The I-th line, 0 the newest; NULL past the last. */
const struct top_line *top_log_at(const struct top_log *l, size_t i);
/* The record line L shows: a storm's as a summary of all its events. */
void top_log_record(const struct top_line *l, struct ibve_event *ev);
/*
 * A line of the event log, for the screen's width: the time of day, the
 * port, the event, a storm's count, then the owner and job before the
 * description, so that an 80-column line keeps them.
 */
void top_log_line(const struct ibve_event *ev, char *line, size_t size);
/* The index of the line ID, or AT if it is gone (within the lines); 0. */
int top_log_find(const struct top_log *l, uint64_t id, int at);
void top_log_reset(struct top_log *l);
/* EV counted into R at its time. */
void top_rate_add(struct top_rate *r, const struct ibve_event *ev);
/* "2 devices, 2 ports, 28 events, 0.3/s over 10 s" as of the last
 * sample; MINUTE: ", 0.1/s over 1 min" too. */
void top_put_counts(struct ibve_buf *b, const struct view *v, bool minute);

/* top_screen.c */
void top_screen_start(struct view *v);
void top_screen_end(struct view *v);
void top_draw(struct view *v);
/* The pipeline's notes (ibve_note_cb; ARG the view). */
void top_screen_note(enum ibve_note_kind kind, const char *text, void *arg);

/* top_keys.c: what a key asks of the loop; handlers never draw. */
enum { K_NONE = 0, K_REDRAW = 1, K_QUIT = 2, K_RESAMPLE = 4 };
int top_key(struct view *v, int ch);
/* The I-th key's label and what it does, for the help screen; NULL past
 * the last. */
const char *top_key_help(size_t i, const char **help);

#endif
