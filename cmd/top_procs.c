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

void top_procs_add(struct top_procs *t, const struct ibve_event *ev)
{
	bool kernel = ev->fields & IBVE_FIELD_KERNEL;
	const char *who = kernel ? ev->kernel.consumer : ev->kernel.comm;
	uint32_t pid = kernel ? 0 : ev->kernel.pid;
	struct top_proc *p = NULL;
	char name[sizeof(p->comm)];

	if (!(ev->fields & (IBVE_FIELD_OWNER | IBVE_FIELD_KERNEL)))
		return;
	snprintf(name, sizeof(name), kernel ? "[%s]" : "%s", who);
	/* a process by its pid, a module by its name */
	for (size_t i = 0; i < t->n && !p; i++)
		if (t->v[i].pid == pid &&
		    strcmp(t->v[i].device, ev->device) == 0 &&
		    (pid || strcmp(t->v[i].comm, name) == 0))
			p = &t->v[i];
	if (!p) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct top_proc *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return; /* the ports' counts still have it */
			t->v = v;
			t->cap = cap;
		}
		p = &t->v[t->n++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		snprintf(p->device, sizeof(p->device), "%s", ev->device);
	}
	/* the latest name and job: a pid may be reused */
	memcpy(p->comm, name, sizeof(p->comm));
	if (!kernel)
		ibve_cgroup_job(ev->kernel.cgroup, p->job, sizeof(p->job));
	p->qp += ev->cls == IBVE_CLASS_QP;
	p->cq += ev->cls == IBVE_CLASS_CQ;
	p->srq += ev->cls == IBVE_CLASS_SRQ;
	p->wq += ev->cls == IBVE_CLASS_WQ;
	p->total++;
	snprintf(p->last, sizeof(p->last), "%s", ev->name);
	p->last_time = ev->time;
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

static int newest_first(const void *a, const void *b)
{
	const struct top_proc *x = *(const struct top_proc *const *)a;
	const struct top_proc *y = *(const struct top_proc *const *)b;

	if (x->last_time.tv_sec != y->last_time.tv_sec)
		return x->last_time.tv_sec < y->last_time.tv_sec ? 1 : -1;
	if (x->last_time.tv_nsec != y->last_time.tv_nsec)
		return x->last_time.tv_nsec < y->last_time.tv_nsec ? 1 : -1;
	return x->pid > y->pid ? 1 : -(x->pid < y->pid);
}

/* The rows in the order shown; NULL when out of memory. */
static const struct top_proc **ordered(const struct top_procs *t)
{
	const struct top_proc **o = malloc((t->n + 1) * sizeof(*o));

	if (!o)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		o[i] = &t->v[i];
	qsort(o, t->n, sizeof(*o), newest_first);
	return o;
}

static double age(const struct view *v, const struct top_proc *p)
{
	const struct timespec *now = &ibve_ports_summary(v->ports)->now;
	double a = (double)(now->tv_sec - p->last_time.tv_sec) +
		   (double)(now->tv_nsec - p->last_time.tv_nsec) / 1e9;

	return a > 0 ? a : 0;
}

/* The titles, in the widths of row(). */
static void titles(struct ibve_buf *b)
{
	ibve_buf_printf(b, "%7s %-15s %-40s %-10s %5s %5s %5s %5s %6s %-20s %s",
			"PID", "COMM", "JOB", "DEVICE", "QP", "CQ", "SRQ", "WQ",
			"TOTAL", "LAST", "AGE");
}

/* One row as the text table and the screen show it. */
static void row(const struct view *v, const struct top_proc *p,
		struct ibve_buf *b)
{
	char pid[16];

	snprintf(pid, sizeof(pid), p->pid ? "%u" : "-", p->pid);
	ibve_buf_printf(b, "%7s ", pid);
	ibve_buf_printf(b, "%-15.15s ", p->comm);
	ibve_buf_printf(b, "%-40.40s ", p->job[0] ? p->job : "-");
	ibve_buf_printf(b, "%-10.10s ", p->device);
	ibve_buf_printf(b,
			"%5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64
			" %6" PRIu64 " ",
			p->qp, p->cq, p->srq, p->wq, p->total);
	ibve_buf_printf(b, "%-20.20s ", p->last);
	top_put_age(b, age(v, p));
}

void top_procs_text(const struct view *v, struct ibve_buf *b)
{
	const struct top_proc **o = ordered(&v->procs);

	if (!o)
		return;
	titles(b);
	ibve_buf_putc(b, '\n');
	for (size_t i = 0; i < v->procs.n; i++) {
		row(v, o[i], b);
		ibve_buf_putc(b, '\n');
	}
	free(o);
}

void top_procs_json(const struct view *v, struct ibve_json *j)
{
	const struct top_proc **o = ordered(&v->procs);
	char when[64];

	if (!o)
		return;
	ibve_json_open_array(j, "processes");
	for (size_t i = 0; i < v->procs.n; i++) {
		const struct top_proc *p = o[i];

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
		ibve_json_uint(j, "qp", p->qp);
		ibve_json_uint(j, "cq", p->cq);
		ibve_json_uint(j, "srq", p->srq);
		ibve_json_uint(j, "wq", p->wq);
		ibve_json_close(j);
		ibve_json_uint(j, "total", p->total);
		ibve_json_str(j, "last_event", p->last);
		ibve_time_format(&p->last_time, when, sizeof(when));
		ibve_json_str(j, "last_time", when);
		ibve_json_double(j, "last_age", "%.3f", age(v, p));
		ibve_json_close(j);
	}
	ibve_json_close_array(j);
	free(o);
}

size_t top_procs_format(const void *arg, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	top_procs_text(arg, &b);
	return ibve_buf_end(&b);
}
