// SPDX-License-Identifier: MIT
/*
 * Any 64 bytes decode as an mlx5 event, print as text and JSON, and the
 * JSON replays to the same record; shorter input is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibvevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibve_event ev, back;
	char text[4096], json[4096];

	memset(&ev, 0, sizeof(ev));
	if (size < 64) {
		if (ibve_mlx5_decode(&ev, data, size) != -EINVAL || ev.fields)
			abort();
		return 0;
	}
	if (ibve_mlx5_decode(&ev, data, size))
		abort();
	strcpy(ev.device, "mlx5_0");
	ibve_event_format_text(&ev, text, sizeof(text), 0);
	ibve_event_format_json(&ev, json, sizeof(json));
	if (ibve_event_parse_json(json, strlen(json), &back))
		abort();
	if (memcmp(back.mlx5.eqe, data, 64) != 0 || back.port != ev.port ||
	    back.severity != ev.severity || strcmp(back.name, ev.name) != 0)
		abort();
	return 0;
}
