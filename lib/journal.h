/* SPDX-License-Identifier: MIT */
/* The systemd journal: a record as an entry's fields, and the catalog. */
#ifndef IBVE_JOURNAL_H
#define IBVE_JOURNAL_H

#include <stdio.h>
#include <sys/uio.h>

#include "util.h"

/* journald's socket for native entries, where sd_journal_sendv() sends. */
#define IBVE_JOURNAL_SOCKET "/run/systemd/journal/socket"

/* One entry's fields, "NAME=value" each; kept across records. */
struct ibve_journal_entry {
	struct iovec *iov; /* the fields, after ibve_journal_entry_build() */
	size_t n;
	size_t cap; /* of iov */
	char *text; /* where they live, one after the other */
	size_t size;
};

/*
 * EV as the fields of one entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER
 * (IDENT), MESSAGE_ID, then RDMA_<KEY> for each member of its JSON (none
 * for a null), written by its JSON writer (buf.h's fields mode). 0 or
 * -ENOMEM.
 */
int ibve_journal_entry_build(struct ibve_journal_entry *e,
			     const struct ibve_event *ev, const char *ident);
void ibve_journal_entry_free(struct ibve_journal_entry *e);

#endif
