// SPDX-License-Identifier: MIT
/*
 * The screen's table, the ports' or the processes': its columns in order
 * of importance, their titles, widths and cells, and which of them fit
 * the width of the screen when the table is scrolled sideways. No
 * drawing: top_screen.c draws what this lays out.
 */
#include <stdlib.h>
#include <string.h>

#include "top.h"

/* The screen's order of the ports' columns: what went wrong and when
 * first, then where the cable goes, the counts by kind, then what the
 * port is. */
static const enum top_col screen_cols[] = {
	COL_DEVICE, COL_PORT,	COL_STATE,   COL_DOWN_SINCE, COL_FLAPS,
	COL_CAUSE,  COL_LAST,	COL_AGE,     COL_TOTAL,	     COL_PER_MIN,
	COL_PEER,   COL_DOWN,	COL_UP,	     COL_LID,	     COL_PKEY,
	COL_SM,	    COL_GID,	COL_REREG,   COL_FATAL,	     COL_MODULE,
	COL_TEMP,   COL_SUBNET, COL_OTHER,   COL_COUNTERS,   COL_PHYS,
	COL_LINK,   COL_RATE,	COL_ADDRESS,
};

/* A count column that is zero on every row shown. */
static bool folded(const struct view *v, enum top_col col)
{
	int kind = top_col_kind(col);

	if (kind < 0)
		return false;
	for (size_t i = 0; i < v->norder; i++)
		if (ibve_ports_at(v->ports, v->order[i])->counts[kind])
			return false;
	return true;
}

size_t top_screen_cols(const struct view *v, int *cols)
{
	size_t n = 0;

	if (v->procs_view) {
		for (int c = 0; c < PCOL_COUNT; c++)
			cols[n++] = c;
		return n;
	}
	for (size_t i = 0; i < sizeof(screen_cols) / sizeof(screen_cols[0]);
	     i++)
		if (top_col_visible(v, screen_cols[i]) &&
		    !folded(v, screen_cols[i]))
			cols[n++] = (int)screen_cols[i];
	return n;
}

const char *top_table_title(const struct view *v, int col)
{
	return v->procs_view ? top_pcolumns[col].title : top_column(col)->title;
}

size_t top_table_cell(const struct view *v, size_t row, int col, char *buf,
		      size_t size)
{
	if (v->procs_view)
		return top_proc_cell(v, &v->procs.v[v->porder[row]], col, buf,
				     size);
	return top_cell(ibve_ports_at(v->ports, v->order[row]), col, buf, size);
}

/*
 * Its width on the screen (negative: left-aligned): its own, or its
 * widest cell's (a storm's counts have more digits than their titles);
 * those sized to their cells (JOB, the counters that moved, the peers)
 * from their title's, within reason.
 */
static int top_table_width(const struct view *v, int col)
{
	const struct top_column *c = v->procs_view ? &top_pcolumns[col]
						   : top_column(col);
	bool own = !v->procs_view && (col == COL_COUNTERS || col == COL_PEER);
	size_t w = own || !c->width ? strlen(c->title) : (size_t)abs(c->width);
	size_t max = !own ? 64 : col == COL_COUNTERS ? 80 : 32;
	char cell[512];

	for (size_t i = 0; i < top_nrows(v) && w < max; i++) {
		size_t n = top_table_cell(v, i, col, cell, sizeof(cell));

		if (n > w)
			w = n;
	}
	w = w < max ? w : max;
	return c->width > 0 ? (int)w : -(int)w;
}

size_t top_nrows(const struct view *v)
{
	return v->procs_view ? v->nporder : v->norder;
}

size_t top_layout(const struct view *v, int width, struct top_span *s,
		  int *right)
{
	int cols[TOP_MAX_COLS], x = 0, skip = v->hscroll;
	size_t n = top_screen_cols(v, cols), k = 0;

	*right = 0;
	/* at least one column that scrolls stays */
	if (skip > (int)n - TOP_FROZEN - 1)
		skip = (int)n - TOP_FROZEN - 1;
	for (size_t i = 0; i < n; i++) {
		int w = top_table_width(v, cols[i]);
		int aw = w < 0 ? -w : w;

		if (i >= TOP_FROZEN && skip > 0) {
			skip--;
			continue;
		}
		if (x >= width || aw > width - x) {
			*right = (int)(n - i);
			if (x < width && k <= TOP_FROZEN) /* clipped */
				s[k++] = (struct top_span){ cols[i], x,
							    width - x, w < 0 };
			break;
		}
		s[k++] = (struct top_span){ cols[i], x, aw, w < 0 };
		x += aw + 1;
	}
	return k;
}

void top_show_sort(struct view *v, int width)
{
	int cols[TOP_MAX_COLS], sort = v->procs_view ? v->psort : v->sort;
	size_t n = top_screen_cols(v, cols), pos = n;
	struct top_span s[TOP_MAX_COLS];
	bool shown = false;
	int more;

	v->sort_follow = false;
	for (size_t i = 0; i < n; i++)
		if (cols[i] == sort)
			pos = i;
	if (pos == n || pos < TOP_FROZEN)
		return;
	if ((int)pos - TOP_FROZEN < v->hscroll)
		v->hscroll = (int)pos - TOP_FROZEN;
	while (!shown) {
		size_t k = top_layout(v, width, s, &more);

		for (size_t i = 0; i < k; i++)
			shown |= s[i].col == sort;
		if (!shown && (!more || ++v->hscroll >= (int)n))
			break;
	}
}
