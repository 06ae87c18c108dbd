/* SPDX-License-Identifier: MIT */
/* A record's row of the event table, and names near a word (event.c). */
#ifndef IBVE_EVENT_H
#define IBVE_EVENT_H

#include "util.h"

/*
 * EV as source SOURCE (-1: none said) has row D's event: D, the kernel's
 * view of a verbs row, or SOURCE's own row of the name; else D as it is.
 */
void ibve_event_set_row(struct ibve_event *ev, int source,
			const struct ibve_event_desc *d);
/*
 * What events this version does not know share (name "UNKNOWN", no code):
 * their explanation, MESSAGE_ID and advice.
 */
extern const struct ibve_event_desc ibve_unknown_desc;
/* The generic row used for codes this version does not know. */
void ibve_event_set_unknown(struct ibve_event *ev, enum ibve_source source,
			    int code);
/*
 * EV's owner (pid and comm, where its source keeps them), or false: its
 * source says it has none.
 */
bool ibve_event_owner(const struct ibve_event *ev, const void **pid,
		      const char **comm);
/*
 * For a filter term WORD that names nothing: the event name, class, source
 * or severity (after "severity>=" and the like, that bound with the
 * nearest level) it is nearest, in OUT; false when none is near.
 */
bool ibve_term_suggest(const char *word, char *out, size_t size);

#endif
