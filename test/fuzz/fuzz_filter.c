// SPDX-License-Identifier: MIT
/* Filter terms: any text is refused cleanly or gives a working filter. */
#include <stdlib.h>
#include <string.h>

#include "ibvevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibve_filter *f = NULL;
	char *terms = malloc(size + 1);
	struct ibve_event ev;

	if (ibve_filter_new(&f) || !terms)
		abort();
	memcpy(terms, data, size);
	terms[size] = '\0';
	/* accepted or refused (which leaves it as it was), it must work */
	ibve_filter_add_terms(f, terms, size & 1);
	for (size_t i = 0; ibve_event_desc_at(i); i++) {
		const struct ibve_event_desc *d = ibve_event_desc_at(i);

		memset(&ev, 0, sizeof(ev));
		strcpy(ev.device, "mlx5_0");
		ev.port = (uint32_t)(i % 3);
		ibve_event_set_code(&ev, d->source, d->code);
		ibve_filter_match(f, &ev);
	}
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 99);
	ibve_filter_match(f, &ev);

	ibve_filter_free(f);
	free(terms);
	return 0;
}
