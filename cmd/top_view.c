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

static const struct {
	const char *title;
	int width;	     /* negative: left-aligned */
	enum ibve_kind kind; /* count columns */
	bool counts;
} columns[COL_COUNT] = {
	[COL_DEVICE] = { "DEVICE", -10 },
	[COL_PORT] = { "PORT", 4 },
	[COL_STATE] = { "STATE", -6 },
	[COL_PHYS] = { "PHYS", -8 },
	[COL_LINK] = { "LINK", -4 },
	[COL_RATE] = { "RATE", 6 },
	[COL_ADDRESS] = { "LID/GID", -26 },
	[COL_PEER] = { "PEER", -22 }, /* a GUID and its port */
	[COL_DOWN_SINCE] = { "DOWN SINCE", 10 },
	[COL_FLAPS] = { "FLAPS", 5 },
	[COL_DOWN] = { "DOWN", 5, IBVE_KIND_LINK_DOWN, true },
	[COL_UP] = { "UP", 5, IBVE_KIND_LINK_UP, true },
	[COL_LID] = { "LID", 4, IBVE_KIND_LID, true },
	[COL_PKEY] = { "PKEY", 4, IBVE_KIND_PKEY, true },
	[COL_SM] = { "SM", 4, IBVE_KIND_SM, true },
	[COL_GID] = { "GID", 4, IBVE_KIND_GID, true },
	[COL_REREG] = { "REREG", 5, IBVE_KIND_REREG, true },
	[COL_FATAL] = { "FATAL", 5, IBVE_KIND_FATAL, true },
	[COL_MODULE] = { "MODULE", 6, IBVE_KIND_MODULE, true },
	[COL_TEMP] = { "TEMP", 4, IBVE_KIND_TEMP, true },
	[COL_SUBNET] = { "SUBNET", 6, IBVE_KIND_SUBNET, true },
	[COL_OTHER] = { "OTHER", 5, IBVE_KIND_OTHER, true },
	[COL_TOTAL] = { "TOTAL", 6 },
	[COL_PER_MIN] = { "EV/MIN", 6 },
	[COL_LAST] = { "LAST EVENT", -19 },
	[COL_AGE] = { "AGE", 6 },
	[COL_COUNTERS] = { "ERROR COUNTERS MOVED", -20 },
};

const char *top_col_title(enum top_col col)
{
	return (size_t)col < COL_COUNT ? columns[col].title : "";
}

int top_col_width(enum top_col col)
{
	return (size_t)col < COL_COUNT ? columns[col].width : 0;
}

int top_col_kind(enum top_col col)
{
	return (size_t)col < COL_COUNT && columns[col].counts
		       ? (int)columns[col].kind
		       : -1;
}

/* MODULE, TEMP and SUBNET only once such events exist; PEER once a
 * port's far end is known. */
bool top_col_visible(const struct view *v, enum top_col col)
{
	if (col == COL_MODULE || col == COL_TEMP || col == COL_SUBNET)
		return ibve_ports_summary(v->ports)->kinds[columns[col].kind];
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

/* The counters that moved, most first: "link_downed+2 symbol_error+1". */
static void put_moved(struct ibve_buf *b, const struct ibve_port_row *p)
{
	const struct ibve_counter **v;
	size_t n = 0;

	/* a counter that went backwards was reset: say so, first */
	if (p->counter_resets)
		ibve_buf_printf(b, "[%u reset%s] ", p->counter_resets,
				p->counter_resets == 1 ? "" : "s");
	if (!p->moved) {
		ibve_buf_putc(b, '-');
		return;
	}
	v = calloc(p->moved, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < p->counter_count && n < p->moved; i++)
		if (p->counters[i].delta)
			v[n++] = &p->counters[i];
	qsort(v, n, sizeof(*v), by_delta);
	for (size_t i = 0; i < n; i++)
		ibve_buf_printf(b, "%s%s+%" PRIu64, i ? " " : "", v[i]->name,
				v[i]->delta);
	free(v);
}

static void put_cell(struct ibve_buf *b, const struct ibve_port_row *p,
		     enum top_col col)
{
	char *end;
	double g;

	switch (col) {
	case COL_DEVICE:
		ibve_buf_text_str(b, p->device);
		break;
	case COL_PORT:
		if (p->port)
			ibve_buf_printf(b, "%u", p->port);
		else
			ibve_buf_putc(b, '-');
		break;
	case COL_STATE:
		ibve_buf_puts(b, p->state);
		break;
	case COL_PHYS:
		ibve_buf_puts(b, p->phys_state);
		break;
	case COL_LINK:
		ibve_buf_puts(b, strcmp(p->link_layer, "InfiniBand") == 0 ? "IB"
				 : strcmp(p->link_layer, "Ethernet") == 0
					 ? "Eth"
					 : p->link_layer);
		break;
	case COL_RATE:
		g = strtod(p->rate, &end);
		if (end != p->rate)
			ibve_buf_printf(b, "%gG", g);
		else
			ibve_buf_puts(b, p->rate);
		break;
	case COL_ADDRESS:
		ibve_buf_puts(b, p->address);
		break;
	case COL_PEER:
		put_peer(b, &p->peer);
		break;
	case COL_DOWN_SINCE:
		/* how long a port that is not up has been so; ">": at least */
		if (!p->state_num || p->state_num == 4 || p->state_num == 5 ||
		    (!p->since.tv_sec && !p->since.tv_nsec)) {
			ibve_buf_putc(b, '-');
			break;
		}
		if (p->since_start)
			ibve_buf_putc(b, '>');
		top_put_age(b, p->since_age);
		break;
	case COL_FLAPS:
		ibve_buf_printf(b, "%u", p->flaps_window);
		break;
	case COL_TOTAL:
		ibve_buf_printf(b, "%" PRIu64, p->total);
		break;
	case COL_PER_MIN:
		ibve_buf_printf(b, "%u", p->per_minute);
		break;
	case COL_LAST:
		ibve_buf_text_str(b, p->last_event[0] ? p->last_event : "-");
		break;
	case COL_AGE:
		if (p->total)
			top_put_age(b, p->last_age);
		else
			ibve_buf_putc(b, '-');
		break;
	case COL_COUNTERS:
		put_moved(b, p);
		break;
	case COL_COUNT:
		break;
	default:
		ibve_buf_printf(b, "%" PRIu64, p->counts[columns[col].kind]);
		break;
	}
}

size_t top_cell(const struct ibve_port_row *p, enum top_col col, char *buf,
		size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	put_cell(&b, p, col);
	return ibve_buf_end(&b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
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
	int c = 0;

	switch (col) {
	case COL_STATE:
		c = strcmp(a->state, b->state);
		break;
	case COL_PHYS:
		c = strcmp(a->phys_state, b->phys_state);
		break;
	case COL_LINK:
		c = strcmp(a->link_layer, b->link_layer);
		break;
	case COL_RATE:
		c = (a->rate_gbps > b->rate_gbps) -
		    (a->rate_gbps < b->rate_gbps);
		break;
	case COL_ADDRESS:
		c = strcmp(a->address, b->address);
		break;
	case COL_PEER:
		c = compare_peers(&a->peer, &b->peer);
		break;
	case COL_DOWN_SINCE:
		c = (a->since_age > b->since_age) -
		    (a->since_age < b->since_age);
		break;
	case COL_FLAPS:
		c = cmp_u64(a->flaps_window, b->flaps_window);
		break;
	case COL_TOTAL:
		c = cmp_u64(a->total, b->total);
		break;
	case COL_PER_MIN:
		c = cmp_u64(a->per_minute, b->per_minute);
		break;
	case COL_LAST:
		c = strcmp(a->last_event, b->last_event);
		break;
	case COL_AGE:
		/* rows with no event at all come after the oldest */
		if (!a->total || !b->total)
			c = cmp_u64(!a->total, !b->total);
		else
			c = (a->last_age > b->last_age) -
			    (a->last_age < b->last_age);
		break;
	case COL_COUNTERS:
		c = cmp_u64(a->moved, b->moved);
		break;
	case COL_DEVICE:
	case COL_PORT:
	case COL_COUNT:
		break;
	default:
		c = cmp_u64(a->counts[columns[col].kind],
			    b->counts[columns[col].kind]);
		break;
	}
	if (c)
		return c;
	c = strcmp(a->device, b->device);
	return c ? c : (a->port > b->port) - (a->port < b->port);
}

static struct view *sort_view; /* qsort has no argument */

static int row_order(const void *a, const void *b)
{
	int c = compare(ibve_ports_at(sort_view->ports, *(const size_t *)a),
			ibve_ports_at(sort_view->ports, *(const size_t *)b),
			(enum top_col)sort_view->sort);

	return sort_view->invert ? -c : c;
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
	sort_view = v;
	qsort(o, k, sizeof(*o), row_order);
	top_procs_order(v);
}

static void put_header(struct ibve_buf *b, const struct ibve_ports_summary *s)
{
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
	ibve_buf_printf(b,
			"%zu device%s, %zu port%s, %" PRIu64
			" event%s, %.2f events/s\n",
			s->devices, s->devices == 1 ? "" : "s", s->ports,
			s->ports == 1 ? "" : "s", s->events,
			s->events == 1 ? "" : "s", s->per_second);
}

static void put_padded(struct ibve_buf *b, const char *s, int width)
{
	int n = (int)strlen(s), w = width < 0 ? -width : width;

	if (width > 0)
		for (int i = n; i < w; i++)
			ibve_buf_putc(b, ' ');
	ibve_buf_puts(b, s);
	if (width < 0)
		for (int i = n; i < w; i++)
			ibve_buf_putc(b, ' ');
}

static size_t format_text(const void *arg, char *buf, size_t size)
{
	const struct view *v = arg;
	struct ibve_buf b = { buf, size, 0 };
	bool visible[COL_COUNT];

	/* once a table, not a row: PEER's looks at every port */
	for (int c = 0; c < COL_COUNT; c++)
		visible[c] = top_col_visible(v, (enum top_col)c);
	put_header(&b, ibve_ports_summary(v->ports));
	ibve_buf_putc(&b, '\n');
	for (int c = 0; c < COL_COUNT; c++) {
		if (!visible[c])
			continue;
		if (c)
			ibve_buf_putc(&b, ' ');
		if (c == COL_COUNT - 1)
			ibve_buf_puts(&b, columns[c].title);
		else
			put_padded(&b, columns[c].title, columns[c].width);
	}
	ibve_buf_putc(&b, '\n');
	for (size_t i = 0; i < v->norder; i++) {
		const struct ibve_port_row *p =
			ibve_ports_at(v->ports, v->order[i]);

		for (int c = 0; c < COL_COUNT; c++) {
			char cell[512];

			if (!visible[c])
				continue;
			if (c)
				ibve_buf_putc(&b, ' ');
			top_cell(p, (enum top_col)c, cell, sizeof(cell));
			if (c == COL_COUNT - 1)
				ibve_buf_puts(&b, cell);
			else
				put_padded(&b, cell, columns[c].width);
		}
		ibve_buf_putc(&b, '\n');
	}
	ibve_buf_putc(&b, '\n');
	if (v->procs.n) {
		top_procs_text(v, &b);
		ibve_buf_putc(&b, '\n');
	}
	return ibve_buf_end(&b);
}

bool top_print(struct view *v)
{
	size_t n;

	top_order(v);
	n = ibve_buf_grow(&v->out, &v->out_size,
			  v->json ? top_format_json : format_text, v);
	if (n == (size_t)-1) {
		errno = ENOMEM;
		return false;
	}
	if (fwrite(v->out, 1, n, stdout) != n || fflush(stdout)) {
		if (!errno)
			errno = EIO;
		return false;
	}
	return true;
}
