// SPDX-License-Identifier: MIT
/*
 * The dashboard's view of the port table: its columns (title, width,
 * cell), the order of the rows shown, and batch output (a table for
 * people, one JSON object for programs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "top.h"

#define PORT(type, member) TOP_FIELD(struct ibve_port_row, type, member)

const struct top_column top_columns[COL_COUNT] = {
	[COL_DEVICE] = { "DEVICE", -10 },
	[COL_PORT] = { "PORT", 4 },
	[COL_STATE] = { "STATE", -6, { PORT(STR, state) } },
	[COL_PHYS] = { "PHYS", -8, { PORT(STR, phys_state) } },
	[COL_LINK] = { "LINK", -4, { PORT(STR, link_layer) } },
	[COL_RATE] = { "RATE", 6, { PORT(DBL, rate_gbps) } },
	[COL_ADDRESS] = { "LID/GID", -26, { PORT(STR, address) } },
	[COL_PEER] = { "PEER", -22 }, /* a GUID and its port */
	[COL_DOWN_SINCE] = { "DOWN SINCE", 10, { PORT(DBL, since_age) } },
	[COL_FLAPS] = { "FLAPS", 5, { PORT(UINT, flaps_window) } },
	/* the kinds': their titles and widths are the library's table's */
	[COL_DOWN... COL_OTHER] = { NULL, 0 },
	[COL_TOTAL] = { "TOTAL", 6, { PORT(U64, total) } },
	[COL_PER_MIN] = { "EV/MIN", 6, { PORT(UINT, per_minute) } },
	[COL_LAST] = { "LAST EVENT", -19, { PORT(STR, last_event) } },
	[COL_AGE] = { "AGE", 6, { PORT(DBL, last_age) } },
	[COL_CAUSE] = { "CAUSE", -18, { PORT(STR, down_cause) } },
	[COL_COUNTERS] = { "ERROR COUNTERS MOVED", -20, { PORT(SIZE, moved) } },
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static uint64_t field_uint(struct top_field f, const void *row)
{
	const void *p = (const char *)row + f.off;

	if (f.type == F_UINT)
		return *(const unsigned int *)p;
	if (f.type == F_SIZE)
		return *(const size_t *)p;
	return *(const uint64_t *)p;
}

int top_field_cmp(struct top_field f, const void *a, const void *b)
{
	const char *x = (const char *)a + f.off, *y = (const char *)b + f.off;

	switch (f.type) {
	case F_NONE:
		return 0;
	case F_STR:
		return strcmp(x, y);
	case F_DBL:
		return (*(const double *)x > *(const double *)y) -
		       (*(const double *)x < *(const double *)y);
	}
	return cmp_u64(field_uint(f, a), field_uint(f, b));
}

void top_field_put(struct ibve_buf *b, struct top_field f, const void *row)
{
	if (f.type == F_STR)
		ibve_buf_puts(b, (const char *)row + f.off);
	else
		ibve_buf_printf(b, "%" PRIu64, field_uint(f, row));
}

void top_put_cell(struct ibve_buf *b, const char *s, int width, bool cut)
{
	int w = width < 0 ? -width : width;

	/* a negative precision is none */
	ibve_buf_printf(b, width < 0 ? "%-*.*s" : "%*.*s", w, cut && w ? w : -1,
			s);
}

/* The count columns are the kinds' in their order, DOWN first. */
_Static_assert(COL_OTHER - COL_DOWN == IBVE_KIND_OTHER, "a kind's column");

int top_col_kind(enum top_col col)
{
	return col >= COL_DOWN && col <= COL_OTHER ? (int)(col - COL_DOWN) : -1;
}

const struct top_column *top_column(int col)
{
	static struct top_column kinds[IBVE_KIND_OTHER + 1];
	int k = top_col_kind(col);

	if (k < 0)
		return &top_columns[col];
	kinds[k] = (struct top_column){
		ibve_kind_info((unsigned int)k)->title,
		ibve_kind_info((unsigned int)k)->width,
		{ F_U64, offsetof(struct ibve_port_row, counts) +
				 (size_t)k * sizeof(uint64_t) }
	};
	return &kinds[k];
}

/* MODULE, TEMP and SUBNET only once such events exist; PEER once a
 * port's far end is known, CAUSE once the autopsy said why one went down. */
bool top_col_visible(const struct view *v, enum top_col col)
{
	if (col == COL_MODULE || col == COL_TEMP || col == COL_SUBNET)
		return ibve_ports_summary(v->ports)->kinds[top_col_kind(col)];
	if (col == COL_CAUSE) {
		for (size_t i = 0; i < ibve_ports_count(v->ports); i++)
			if (ibve_ports_at(v->ports, i)->down_cause[0])
				return true;
		return false;
	}
	if (col == COL_PEER) {
		for (size_t i = 0; i < ibve_ports_count(v->ports); i++)
			if (ibve_ports_at(v->ports, i)->peer.state ==
			    IBVE_PEER_KNOWN)
				return true;
		return false;
	}
	return (size_t)col < COL_COUNT;
}

void top_put_age(struct ibve_buf *b, double s)
{
	long v = (long)s;

	if (v < 60)
		ibve_buf_printf(b, "%lds", v);
	else if (v < 3600)
		ibve_buf_printf(b, "%ldm%02lds", v / 60, v % 60);
	else if (v < 86400)
		ibve_buf_printf(b, "%ldh%02ldm", v / 3600, v % 3600 / 60);
	else
		ibve_buf_printf(b, "%ldd%02ldh", v / 86400, v % 86400 / 3600);
}

static int by_delta(const void *a, const void *b)
{
	const struct ibve_counter *x = *(const struct ibve_counter *const *)a;
	const struct ibve_counter *y = *(const struct ibve_counter *const *)b;

	if (x->delta != y->delta)
		return x->delta < y->delta ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The last known far end, in the watcher's words; "now " when the port's
 * last record said it changed (a re-cable or a bad patch). */
static void put_peer(struct ibve_buf *b, const struct ibve_peer *p)
{
	char words[256];

	if (p->state != IBVE_PEER_KNOWN) {
		ibve_buf_putc(b, '-');
		return;
	}
	ibve_peer_format(p, words, sizeof(words));
	if (p->changed)
		ibve_buf_puts(b, "now ");
	ibve_buf_text_str(b, words);
}

const struct ibve_counter **top_moved(const struct ibve_port_row *p,
				      struct ibve_buf *b, size_t *n)
{
	const struct ibve_counter **v;

	/* a counter that went backwards was reset: say so, first */
	if (p->counter_resets)
		ibve_buf_printf(b, "[%u reset%s] ", p->counter_resets,
				p->counter_resets == 1 ? "" : "s");
	*n = 0;
	v = p->moved ? calloc(p->moved, sizeof(*v)) : NULL;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->counter_count && *n < p->moved; i++)
		if (p->counters[i].delta)
			v[(*n)++] = &p->counters[i];
	qsort(v, *n, sizeof(*v), by_delta);
	return v;
}

/* The counters that moved, most first: "link_downed+2 symbol_error+1". */
static void put_moved(struct ibve_buf *b, const struct ibve_port_row *p)
{
	size_t n;
	const struct ibve_counter **v = top_moved(p, b, &n);

	if (!p->moved)
		ibve_buf_putc(b, '-');
	for (size_t i = 0; i < n; i++)
		ibve_buf_printf(b, "%s%s+%" PRIu64, i ? " " : "", v[i]->name,
				v[i]->delta);
	free(v);
}

size_t top_cell(const struct ibve_port_row *p, enum top_col col, char *buf,
		size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char *end;
	double g;

	switch (col) {
	case COL_DEVICE:
		ibve_buf_text_str(&b, p->device);
		break;
	case COL_PORT:
		if (p->port)
			ibve_buf_printf(&b, "%u", p->port);
		else
			ibve_buf_putc(&b, '-');
		break;
	case COL_LINK:
		ibve_buf_puts(&b, strcmp(p->link_layer, "InfiniBand") == 0
					  ? "IB"
				  : strcmp(p->link_layer, "Ethernet") == 0
					  ? "Eth"
					  : p->link_layer);
		break;
	case COL_RATE:
		g = strtod(p->rate, &end);
		if (end != p->rate)
			ibve_buf_printf(&b, "%gG", g);
		else
			ibve_buf_puts(&b, p->rate);
		break;
	case COL_PEER:
		put_peer(&b, &p->peer);
		break;
	case COL_DOWN_SINCE:
		/* how long a port that is not up has been so; ">": at least */
		if (!p->state_num || p->state_num == 4 || p->state_num == 5 ||
		    (!p->since.tv_sec && !p->since.tv_nsec)) {
			ibve_buf_putc(&b, '-');
			break;
		}
		if (p->since_start)
			ibve_buf_putc(&b, '>');
		top_put_age(&b, p->since_age);
		break;
	case COL_LAST:
		ibve_buf_text_str(&b, p->last_event[0] ? p->last_event : "-");
		break;
	case COL_CAUSE:
		ibve_buf_puts(&b, p->down_cause[0] ? p->down_cause : "-");
		break;
	case COL_AGE:
		if (p->total)
			top_put_age(&b, p->last_age);
		else
			ibve_buf_putc(&b, '-');
		break;
	case COL_COUNTERS:
		put_moved(&b, p);
		break;
	default:
		top_field_put(&b, top_column(col)->f, p);
		break;
	}
	return ibve_buf_end(&b);
}

/* By the peer's words; ports with none after the others. */
static int compare_peers(const struct ibve_peer *a, const struct ibve_peer *b)
{
	char x[256], y[256];
	bool ka = a->state == IBVE_PEER_KNOWN, kb = b->state == IBVE_PEER_KNOWN;

	if (!ka || !kb)
		return (ka < kb) - (ka > kb);
	ibve_peer_format(a, x, sizeof(x));
	ibve_peer_format(b, y, sizeof(y));
	return strcmp(x, y);
}

/* Order of two rows by COL (ties by device and port). */
static int compare(const struct ibve_port_row *a, const struct ibve_port_row *b,
		   enum top_col col)
{
	int c;

	if (col == COL_PEER)
		c = compare_peers(&a->peer, &b->peer);
	else if (col == COL_AGE && (!a->total || !b->total))
		/* rows with no event at all come after the oldest */
		c = cmp_u64(!a->total, !b->total);
	else
		c = top_field_cmp(top_column(col)->f, a, b);
	if (c)
		return c;
	c = strcmp(a->device, b->device);
	return c ? c : (a->port > b->port) - (a->port < b->port);
}

static int row_order(const void *a, const void *b, void *arg)
{
	const struct view *v = arg;
	int c = compare(ibve_ports_at(v->ports, *(const size_t *)a),
			ibve_ports_at(v->ports, *(const size_t *)b),
			(enum top_col)v->sort);

	return v->invert ? -c : c;
}

void top_order(struct view *v)
{
	size_t n = ibve_ports_count(v->ports), k = 0;
	size_t *o = realloc(v->order, (n + 1) * sizeof(*o));

	if (!o)
		return;
	v->order = o;
	for (size_t i = 0; i < n; i++) {
		const struct ibve_port_row *p = ibve_ports_at(v->ports, i);

		if ((!v->name_filter[0] || strstr(p->device, v->name_filter)) &&
		    ibve_filter_match_port(v->filter, p->device, p->port))
			o[k++] = i;
	}
	v->norder = k;
	qsort_r(o, k, sizeof(*o), row_order, v);
	top_procs_order(v);
}

static void put_header(struct ibve_buf *b, const struct view *v)
{
	const struct ibve_ports_summary *s = ibve_ports_summary(v->ports);
	long up = (long)s->uptime;

	ibve_buf_puts(b, "ibv_eventtop - ");
	ibve_buf_local_time(b, &s->now, false);
	ibve_buf_puts(b, " - ");
	if (s->host[0]) {
		ibve_buf_text_str(b, s->host);
		ibve_buf_puts(b, " - Linux ");
		ibve_buf_text_str(b, s->kernel);
	} else {
		ibve_buf_puts(b, "replay");
	}
	ibve_buf_printf(b, " - up %02ld:%02ld:%02ld\n", up / 3600,
			up % 3600 / 60, up % 60);
	top_put_counts(b, v, true);
	ibve_buf_putc(b, '\n');
}

/* A row of the table; with no P, its titles. */
static void put_row(struct ibve_buf *b, const struct ibve_port_row *p,
		    const bool *visible)
{
	for (int c = 0; c < COL_COUNT; c++) {
		char cell[512];

		if (!visible[c])
			continue;
		if (p)
			top_cell(p, (enum top_col)c, cell, sizeof(cell));
		if (c)
			ibve_buf_putc(b, ' ');
		top_put_cell(b, p ? cell : top_column(c)->title,
			     c == COL_COUNT - 1 ? 0 : top_column(c)->width,
			     false);
	}
	ibve_buf_putc(b, '\n');
}

static size_t format_text(const void *arg, char *buf, size_t size)
{
	const struct view *v = arg;
	struct ibve_buf b = { buf, size, 0 };
	bool visible[COL_COUNT];

	/* once a table, not a row: PEER's looks at every port */
	for (int c = 0; c < COL_COUNT; c++)
		visible[c] = top_col_visible(v, (enum top_col)c);
	put_header(&b, v);
	ibve_buf_putc(&b, '\n');
	put_row(&b, NULL, visible);
	for (size_t i = 0; i < v->norder; i++)
		put_row(&b, ibve_ports_at(v->ports, v->order[i]), visible);
	ibve_buf_putc(&b, '\n');
	if (v->procs.n) {
		top_procs_text(v, &b);
		ibve_buf_putc(&b, '\n');
	}
	return ibve_buf_end(&b);
}

int top_print(struct view *v)
{
	size_t n;

	top_order(v);
	n = ibve_buf_grow(&v->out, &v->out_size,
			  v->json ? top_format_json : format_text, v);
	if (n == (size_t)-1)
		return -ENOMEM;
	if (fwrite(v->out, 1, n, stdout) != n || fflush(stdout))
		return errno ? -errno : -EIO;
	return 0;
}
