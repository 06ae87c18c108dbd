// SPDX-License-Identifier: MIT
/*
 * What came, as the dashboard tells it: the rate of events over the last
 * seconds, for the header.
 */
#include <string.h>

#include "buf.h"
#include "top.h"

void top_rate_add(struct top_rate *r, const struct ibve_event *ev)
{
	size_t b = (size_t)(ev->time.tv_sec % TOP_RATE_SECS);

	if (r->sec[b] != ev->time.tv_sec) {
		r->sec[b] = ev->time.tv_sec;
		r->n[b] = 0;
	}
	r->n[b] += ibve_event_count(ev);
}

/* Events a second over the last WINDOW seconds, as of the last sample. */
static double rate(const struct view *v, int window)
{
	const struct ibve_ports_summary *s = ibve_ports_summary(v->ports);
	int64_t now = s->now.tv_sec;
	/* a view up for less than the window: over its time */
	double up = s->uptime < window ? s->uptime : window;
	uint64_t n = 0;

	for (size_t i = 0; i < TOP_RATE_SECS; i++)
		if (v->rate.sec[i] > now - window && v->rate.sec[i] <= now)
			n += v->rate.n[i];
	return (double)n / (up < 1 ? 1 : up);
}

void top_put_rates(struct ibve_buf *b, const struct view *v, bool minute)
{
	ibve_buf_printf(b, ", %.1f/s over 10 s", rate(v, 10));
	if (minute)
		ibve_buf_printf(b, ", %.1f/s over 1 min", rate(v, 60));
}
