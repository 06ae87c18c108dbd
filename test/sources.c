// SPDX-License-Identifier: MIT
/*
 * A helper of test/rxe: a pipeline of the sources NAMEd, and of no other,
 * added by name as a program on the library would: for a source no option
 * of the commands asks for yet, or to watch one without the others' own
 * wake-ups. Says "sources: watching ..." on standard error once started,
 * writes every record as JSON Lines on standard output, and ends with
 * status 0 on SIGTERM.
 *
 * Usage: sources NAME...
 */
#include <signal.h>
#include <stdio.h>

#include <ibvevent.h>

static int on_signal(int signo, void *arg)
{
	(void)signo;
	(void)arg;
	return IBVE_STOP_USER;
}

static void on_note(enum ibve_note_kind kind, const char *text, void *arg)
{
	(void)kind;
	(void)arg;
	fprintf(stderr, "sources: %s\n", text);
}

int main(int argc, char **argv)
{
	struct ibve_source_opts o = { .sz = sizeof(o) };
	struct ibve_run_opts run = { .sz = sizeof(run) };
	struct ibve_pipeline *p = NULL;
	struct ibve_sink *out;
	char line[1024];
	int r = ibve_pipeline_new(&p);

	if (argc < 2) {
		fprintf(stderr, "usage: sources NAME...\n");
		return 2;
	}
	if (!r)
		r = ibve_loop_add_signal(ibve_pipeline_loop(p), SIGTERM,
					 on_signal, NULL);
	for (int i = 1; !r && i < argc; i++)
		r = ibve_pipeline_add_source(p, argv[i], &o);
	if (!r)
		r = ibve_sink_stream(&out, stdout, "standard output",
				     IBVE_FORMAT_JSON);
	if (!r)
		r = ibve_pipeline_add_sink(p, out, 0);
	ibve_pipeline_set_notes(p, on_note, NULL);
	if (!r)
		r = ibve_pipeline_start(p);
	if (r) {
		fprintf(stderr, "sources: %s\n", ibve_errmsg());
		ibve_pipeline_free(p);
		return 3;
	}
	ibve_pipeline_describe(p, line, sizeof(line));
	fprintf(stderr, "sources: watching %s\n", line);
	r = ibve_pipeline_run(p, &run);
	if (r < 0)
		fprintf(stderr, "sources: %s\n", ibve_errmsg());
	ibve_pipeline_free(p);
	return r == IBVE_STOP_USER ? 0 : 1;
}
