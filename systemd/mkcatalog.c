// SPDX-License-Identifier: MIT
/*
 * Writes ibvevent.catalog, the journal catalog, from the library's event
 * table at build time: one entry per MESSAGE_ID, so the catalog cannot
 * drift from the table.
 */
#include <stdio.h>

#include "journal.h"

int main(void)
{
	ibve_journal_catalog(stdout);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
