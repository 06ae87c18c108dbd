// SPDX-License-Identifier: MIT
/*
 * Test client for what ibsim cannot raise: a pipeline of the subnet source
 * (its own refresh an hour away) and a replay source reading FILE, a FIFO
 * the test writes port events to. A replayed SM_CHANGE, CLIENT_REREGISTER,
 * LID_CHANGE or PORT_ACTIVE of one of the subnet source's ports must make
 * it subscribe again at once, as the verbs source's would. Writes every
 * record as JSON Lines; ends with status 0 on SIGTERM. Under ibsim, run it
 * with IBVEVENT_SM_ISSM=1, or the SM's Reports do not reach it. With -a,
 * the link autopsy too (its windows close by the records' time: a record
 * written after a window's end closes it).
 *
 * Usage: resub [-a] FILE
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

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
	fprintf(stderr, "resub: %s\n", text);
}

int main(int argc, char **argv)
{
	struct ibve_source_opts sm = { .sz = sizeof(sm),
				       .flags = IBVE_SRC_REQUIRED,
				       .refresh = 3600 };
	struct ibve_source_opts replay = { .sz = sizeof(replay) };
	struct ibve_source_opts autopsy = { .sz = sizeof(autopsy) };
	struct ibve_run_opts run = { .sz = sizeof(run) };
	struct ibve_pipeline *p = NULL;
	struct ibve_sink *out;
	bool a = argc == 3 && !strcmp(argv[1], "-a");
	int r;

	if (argc != 2 + a) {
		fprintf(stderr, "usage: resub [-a] FILE\n");
		return 2;
	}
	replay.path = argv[1 + a];
	if (ibve_pipeline_new(&p) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGTERM, on_signal,
				 NULL) ||
	    ibve_pipeline_add_source(p, "sm", &sm) ||
	    ibve_pipeline_add_source(p, "replay", &replay) ||
	    (a && ibve_pipeline_add_source(p, "autopsy", &autopsy)) ||
	    ibve_sink_stream(&out, stdout, "standard output",
			     IBVE_FORMAT_JSON) ||
	    ibve_pipeline_add_sink(p, out, 0)) {
		fprintf(stderr, "resub: %s\n", ibve_errmsg());
		ibve_pipeline_free(p);
		return 3;
	}
	ibve_pipeline_set_notes(p, on_note, NULL);
	if (ibve_pipeline_start(p)) {
		fprintf(stderr, "resub: %s\n", ibve_errmsg());
		ibve_pipeline_free(p);
		return 3;
	}
	r = ibve_pipeline_run(p, &run);
	if (r < 0)
		fprintf(stderr, "resub: %s\n", ibve_errmsg());
	ibve_pipeline_free(p);
	return r == IBVE_STOP_USER ? 0 : 1;
}
