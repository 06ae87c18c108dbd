// SPDX-License-Identifier: MIT
/*
 * ibv_eventtop's process view: who owns the objects whose events the
 * kernel source (-A) sees, per device: the process and its job, or the
 * kernel module, its events by class, the last one and its age.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "top.h"

static int cmp_time(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return (a->tv_nsec > b->tv_nsec) - (a->tv_nsec < b->tv_nsec);
}

void top_procs_add(struct top_procs *t, const struct ibve_event *ev)
{
	bool kernel = ev->fields & IBVE_FIELD_KERNEL;
	const char *who = kernel ? ev->kernel.consumer : ev->kernel.comm;
	uint32_t pid = kernel ? 0 : ev->kernel.pid;
	uint64_t n = ibve_event_count(ev);
	struct top_proc *p = NULL, *found;
	char name[sizeof(p->comm)];

	/* owners of objects: not who set a netdev down (-A's records) */
	if (!ev->affiliated ||
	    !(ev->fields & (IBVE_FIELD_OWNER | IBVE_FIELD_KERNEL)))
		return;
	snprintf(name, sizeof(name), kernel ? "[%s]" : "%s", who);
	/* a process by its pid, a module by its name */
	for (size_t i = 0; i < t->n && !p; i++)
		if (t->v[i].pid == pid &&
		    strcmp(t->v[i].device, ev->device) == 0 &&
		    (pid || strcmp(t->v[i].comm, name) == 0))
			p = &t->v[i];
	found = p;
	if (!p && t->n == TOP_PROCS_MAX) {
		/* full: the row whose last event is the oldest makes room */
		p = &t->v[0];
		for (size_t i = 1; i < t->n; i++)
			if (cmp_time(&t->v[i].last_time, &p->last_time) < 0)
				p = &t->v[i];
	} else if (!p) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct top_proc *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return; /* the ports' counts still have it */
			t->v = v;
			t->cap = cap;
		}
		p = &t->v[t->n++];
	}
	if (p != found) {
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		snprintf(p->device, sizeof(p->device), "%s", ev->device);
	}
	/* the latest name and job: a pid may be reused */
	memcpy(p->comm, name, sizeof(p->comm));
	if (!kernel)
		ibve_cgroup_job(ev->kernel.cgroup, p->job, sizeof(p->job));
	/* events: a storm's summary stands for its count */
	if (ev->cls >= IBVE_CLASS_QP && ev->cls <= IBVE_CLASS_WQ)
		p->by_class[ev->cls] += n;
	p->total += n;
	snprintf(p->last, sizeof(p->last), "%s", ev->name);
	p->last_time = ev->time;
}

double top_secs(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

void top_procs_sample(struct top_procs *t, const struct timespec *now)
{
	double dt = t->sampled ? top_secs(&t->prev, now) : 0;

	/* a storm's row: its rate, whether its records were one per event
	 * or summaries */
	for (size_t i = 0; i < t->n; i++) {
		struct top_proc *p = &t->v[i];

		p->per_second = dt > 0 ? (double)(p->total - p->sampled) / dt
				       : 0;
		p->sampled = p->total;
	}
	t->prev = *now;
	t->sampled = true;
}

void top_procs_reset(struct top_procs *t)
{
	t->n = 0;
}

void top_procs_free(struct top_procs *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

#define PROC(type, member) TOP_FIELD(struct top_proc, type, member)

const struct top_column top_pcolumns[PCOL_COUNT] = {
	[PCOL_PID] = { "PID", 7, { PROC(UINT, pid) } },
	[PCOL_COMM] = { "COMM", -15, { PROC(STR, comm) } },
	[PCOL_JOB] = { "JOB", 0, { PROC(STR, job) } },
	[PCOL_DEVICE] = { "DEVICE", -10, { PROC(STR, device) } },
	[PCOL_QP] = { "QP", 5, { PROC(U64, by_class[IBVE_CLASS_QP]) } },
	[PCOL_CQ] = { "CQ", 5, { PROC(U64, by_class[IBVE_CLASS_CQ]) } },
	[PCOL_SRQ] = { "SRQ", 5, { PROC(U64, by_class[IBVE_CLASS_SRQ]) } },
	[PCOL_WQ] = { "WQ", 5, { PROC(U64, by_class[IBVE_CLASS_WQ]) } },
	[PCOL_TOTAL] = { "TOTAL", 6, { PROC(U64, total) } },
	[PCOL_RATE] = { "EV/S", 7, { PROC(DBL, per_second) } },
	[PCOL_LAST] = { "LAST", -20, { PROC(STR, last) } },
	[PCOL_AGE] = { "AGE", -6 }, /* ties sort newest first */
};

int top_pcol_width(const struct view *v, enum top_pcol col)
{
	size_t w = 3; /* "JOB" */

	if (col != PCOL_JOB)
		return top_pcolumns[col].width;
	for (size_t i = 0; i < v->procs.n; i++) {
		size_t n = strlen(v->procs.v[i].job);

		if (n > w)
			w = n;
	}
	return -(int)w;
}

static double age(const struct view *v, const struct top_proc *p)
{
	double a = top_secs(&p->last_time, &ibve_ports_summary(v->ports)->now);

	return a > 0 ? a : 0;
}

size_t top_proc_cell(const struct view *v, const struct top_proc *p,
		     enum top_pcol col, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	switch (col) {
	case PCOL_PID:
		if (p->pid)
			ibve_buf_printf(&b, "%u", p->pid);
		else
			ibve_buf_putc(&b, '-');
		break;
	case PCOL_JOB:
		ibve_buf_puts(&b, p->job[0] ? p->job : "-");
		break;
	case PCOL_RATE:
		ibve_buf_printf(&b, p->per_second < 100 ? "%.1f" : "%.0f",
				p->per_second);
		break;
	case PCOL_AGE:
		top_put_age(&b, age(v, p));
		break;
	default:
		top_field_put(&b, top_pcolumns[col].f, p);
		break;
	}
	return ibve_buf_end(&b);
}

/* Order of two rows by COL; ties newest first, then by pid. */
static int compare(const struct top_proc *x, const struct top_proc *y,
		   enum top_pcol col)
{
	int c = top_field_cmp(top_pcolumns[col].f, x, y);

	if (!c)
		c = cmp_time(&y->last_time, &x->last_time);
	return c ? c : (x->pid > y->pid) - (x->pid < y->pid);
}

static int proc_order(const void *a, const void *b, void *arg)
{
	const struct view *v = arg;
	const struct top_procs *t = &v->procs;
	int c = compare(&t->v[*(const size_t *)a], &t->v[*(const size_t *)b],
			(enum top_pcol)v->psort);

	return v->pinvert ? -c : c;
}

static bool matches(const struct view *v, const struct top_proc *p)
{
	const char *f = v->name_filter;

	return !f[0] || strstr(p->comm, f) || strstr(p->job, f) ||
	       strstr(p->device, f);
}

void top_procs_order(struct view *v)
{
	size_t *o = realloc(v->porder, (v->procs.n + 1) * sizeof(*o));

	if (!o)
		return;
	v->porder = o;
	v->nporder = 0;
	for (size_t i = 0; i < v->procs.n; i++)
		if (matches(v, &v->procs.v[i]))
			o[v->nporder++] = i;
	qsort_r(o, v->nporder, sizeof(*o), proc_order, v);
}

static void put_prow(const struct view *v, const struct top_proc *p,
		     struct ibve_buf *b)
{
	for (int c = 0; c < PCOL_COUNT; c++) {
		/* a cell at its column's width: cut to it but for the last */
		int w = c < PCOL_COUNT - 1 ? top_pcol_width(v, c) : 0;
		char cell[128];

		if (p)
			top_proc_cell(v, p, c, cell, sizeof(cell));
		if (c)
			ibve_buf_putc(b, ' ');
		top_put_cell(b, p ? cell : top_pcolumns[c].title, w, true);
	}
	ibve_buf_putc(b, '\n');
}

void top_procs_text(const struct view *v, struct ibve_buf *b)
{
	put_prow(v, NULL, b);
	for (size_t i = 0; i < v->nporder; i++)
		put_prow(v, &v->procs.v[v->porder[i]], b);
}

void top_procs_json(const struct view *v, struct ibve_json *j)
{
	char when[64];

	ibve_json_open_array(j, "processes");
	for (size_t i = 0; i < v->nporder; i++) {
		const struct top_proc *p = &v->procs.v[v->porder[i]];

		ibve_json_open(j, NULL);
		ibve_json_uint_or_null(j, "pid", p->pid);
		if (p->pid) {
			ibve_json_str(j, "comm", p->comm);
			ibve_json_str_or_null(j, "job", p->job);
		} else { /* "[module]" */
			char mod[32];

			snprintf(mod, sizeof(mod), "%.*s",
				 (int)strlen(p->comm) - 2, p->comm + 1);
			ibve_json_str(j, "kernel", mod);
		}
		ibve_json_str(j, "device", p->device);
		ibve_json_open(j, "counts");
		for (int c = IBVE_CLASS_QP; c <= IBVE_CLASS_WQ; c++)
			ibve_json_uint(j, ibve_class_name(c), p->by_class[c]);
		ibve_json_close(j);
		ibve_json_uint(j, "total", p->total);
		ibve_json_double(j, "per_second", "%.3f", p->per_second);
		ibve_json_str(j, "last_event", p->last);
		ibve_time_format(&p->last_time, when, sizeof(when));
		ibve_json_str(j, "last_time", when);
		ibve_json_double(j, "last_age", "%.3f", age(v, p));
		ibve_json_close(j);
	}
	ibve_json_close_array(j);
}

size_t top_procs_format(struct view *v, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	top_procs_order(v);
	top_procs_text(v, &b);
	return ibve_buf_end(&b);
}
