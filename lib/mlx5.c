// SPDX-License-Identifier: MIT
/*
 * mlx5 event queue entries: a pure decoder and its tables, always built,
 * so a capture taken on a ConnectX host decodes anywhere. Layouts from the
 * kernel's struct mlx5_eqe (big-endian): byte 1 type, byte 3 sub-type,
 * event data from byte 32.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>

#include "buf.h"
#include "mlx5.h"

#define EQE_TYPE     1
#define EQE_SUB_TYPE 3
#define EQE_DATA     32

struct sub {
	uint8_t value;
	const char *text;
	enum ibve_severity severity;
};

/* PORT_CHANGE sub-types. */
static const struct sub port_changes[] = {
	{ 1, "down", IBVE_SEVERITY_ERROR },
	{ 4, "active", IBVE_SEVERITY_INFO },
	{ 5, "initialized", IBVE_SEVERITY_INFO },
	{ 6, "LID changed", IBVE_SEVERITY_WARNING },
	{ 7, "P_Key table changed", IBVE_SEVERITY_WARNING },
	{ 8, "GUID changed", IBVE_SEVERITY_WARNING },
	{ 9, "client re-register requested", IBVE_SEVERITY_WARNING },
};

/* PORT_MODULE status. */
static const struct sub module_states[] = {
	{ 1, "plugged", IBVE_SEVERITY_INFO },
	{ 2, "unplugged", IBVE_SEVERITY_WARNING },
	{ 3, "cable error", IBVE_SEVERITY_ERROR },
	{ 4, "disabled", IBVE_SEVERITY_WARNING },
};

/* PORT_MODULE error types, with status "error". */
static const struct sub module_errors[] = {
	{ 0x0, "power budget exceeded", IBVE_SEVERITY_ERROR },
	{ 0x1, "long range for non-Mellanox cable", IBVE_SEVERITY_ERROR },
	{ 0x2, "bus stuck (I2C or data shorted)", IBVE_SEVERITY_ERROR },
	{ 0x3, "no EEPROM/retry timeout", IBVE_SEVERITY_ERROR },
	{ 0x4, "enforce part number list", IBVE_SEVERITY_ERROR },
	{ 0x5, "unknown identifier", IBVE_SEVERITY_ERROR },
	{ 0x6, "high temperature", IBVE_SEVERITY_ERROR },
	{ 0x7, "bad or shorted cable/module", IBVE_SEVERITY_ERROR },
	{ 0xc, "ports powered down: insufficient PCIe slot power",
	  IBVE_SEVERITY_ERROR },
};

/* GENERAL sub-types. */
static const struct sub generals[] = {
	{ 1, "delay-drop timeout", IBVE_SEVERITY_WARNING },
	{ 5, "PCI power change", IBVE_SEVERITY_WARNING },
	{ 7, "firmware live patch", IBVE_SEVERITY_INFO },
	{ 8, "PCI sync for firmware update", IBVE_SEVERITY_INFO },
};

#define FIND(table, v) find(table, ARRAY_SIZE(table), v)

static const struct sub *find(const struct sub *t, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == v)
			return &t[i];
	return NULL;
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

IBVE_EXPORT int ibve_mlx5_decode(struct ibve_event *ev, const uint8_t *eqe,
				 size_t len)
{
	struct ibve_mlx5_fields *m = &ev->mlx5;
	const struct sub *s = NULL;
	uint8_t type;

	if (len < sizeof(m->eqe))
		return -EINVAL;
	memcpy(m->eqe, eqe, sizeof(m->eqe));
	ev->fields |= IBVE_FIELD_MLX5;
	type = eqe[EQE_TYPE];
	m->sub_type = eqe[EQE_SUB_TYPE];
	ibve_event_set_code(ev, IBVE_SOURCE_MLX5, type);
	ev->port = 0;

	switch (type) {
	case IBVE_MLX5_PORT_CHANGE:
		ev->port = (eqe[EQE_DATA + 8] >> 4) & 0xf;
		s = FIND(port_changes, m->sub_type);
		break;
	case IBVE_MLX5_PORT_MODULE:
		m->module = eqe[EQE_DATA + 1];
		m->module_status = eqe[EQE_DATA + 3] & 0xf;
		m->error_type = eqe[EQE_DATA + 6] & 0xf;
		s = FIND(module_states, m->module_status);
		break;
	case IBVE_MLX5_TEMP_WARN:
		m->sensor_map[0] = be64_at(eqe + EQE_DATA);
		m->sensor_map[1] = be64_at(eqe + EQE_DATA + 8);
		break;
	case IBVE_MLX5_GENERAL:
		s = FIND(generals, m->sub_type);
		break;
	}
	if (s)
		ev->severity = s->severity;
	else if (type == IBVE_MLX5_PORT_CHANGE ||
		 type == IBVE_MLX5_PORT_MODULE || type == IBVE_MLX5_GENERAL)
		ev->severity = IBVE_SEVERITY_WARNING; /* unknown sub-type */
	return 0;
}

/* S's text, or WHAT and V where the table has no S. */
static void sub_text(struct ibve_buf *b, const struct sub *s, const char *what,
		     unsigned int v)
{
	if (s)
		ibve_buf_puts(b, s->text);
	else
		ibve_buf_printf(b, "%s %u", what, v);
}

/* What the entry says, for text: "module 2 cable error: bad or ...". */
void ibve_mlx5_details(struct ibve_buf *b, const struct ibve_event *ev)
{
	const struct ibve_mlx5_fields *m = &ev->mlx5;

	switch (ev->code) {
	case IBVE_MLX5_PORT_CHANGE:
		ibve_buf_printf(b, "port %u ", ev->port);
		sub_text(b, FIND(port_changes, m->sub_type), "sub-type",
			 m->sub_type);
		return;
	case IBVE_MLX5_PORT_MODULE:
		ibve_buf_printf(b, "module %u ", m->module);
		sub_text(b, FIND(module_states, m->module_status), "status",
			 m->module_status);
		if (m->module_status == 3) { /* "cable error" */
			ibve_buf_puts(b, ": ");
			sub_text(b, FIND(module_errors, m->error_type),
				 "error type", m->error_type);
		}
		return;
	case IBVE_MLX5_TEMP_WARN: {
		bool any = false;

		ibve_buf_puts(b, "sensors");
		for (int i = 0; i < 128; i++) {
			uint64_t w = i < 64 ? m->sensor_map[1]
					    : m->sensor_map[0];

			if (!(w >> (i % 64) & 1))
				continue;
			ibve_buf_puts(b, any ? ", " : " ");
			if (i == 0)
				ibve_buf_puts(b, "ASIC");
			else
				ibve_buf_printf(b, "%d", i);
			any = true;
		}
		if (!any)
			ibve_buf_puts(b, " none named");
		return;
	}
	case IBVE_MLX5_GENERAL:
		sub_text(b, FIND(generals, m->sub_type), "sub-type",
			 m->sub_type);
		return;
	}
	ibve_buf_printf(b, "type 0x%02x sub-type %u", m->eqe[EQE_TYPE],
			m->sub_type);
}

/* The same as JSON members, then the raw entry. */
void ibve_mlx5_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct ibve_mlx5_fields *m = &ev->mlx5;
	const struct sub *s;
	char hex[2 * sizeof(m->eqe) + 1];

	ibve_json_uint(j, "sub_type", m->sub_type);
	switch (ev->code) {
	case IBVE_MLX5_PORT_CHANGE:
		s = FIND(port_changes, m->sub_type);
		ibve_json_str(j, "change", s ? s->text : "unknown");
		break;
	case IBVE_MLX5_PORT_MODULE:
		s = FIND(module_states, m->module_status);
		ibve_json_uint(j, "module", m->module);
		ibve_json_str(j, "module_status", s ? s->text : "unknown");
		if (m->module_status == 3) {
			s = FIND(module_errors, m->error_type);
			ibve_json_uint(j, "error_code", m->error_type);
			ibve_json_str(j, "error_type", s ? s->text : "unknown");
		}
		break;
	case IBVE_MLX5_TEMP_WARN:
		ibve_json_open_array(j, "sensors");
		for (int i = 0; i < 128; i++) {
			uint64_t w = i < 64 ? m->sensor_map[1]
					    : m->sensor_map[0];

			if (w >> (i % 64) & 1)
				ibve_json_uint(j, NULL, (uint64_t)i);
		}
		ibve_json_close_array(j);
		break;
	case IBVE_MLX5_GENERAL:
		s = FIND(generals, m->sub_type);
		ibve_json_str(j, "general", s ? s->text : "unknown");
		break;
	}
	for (size_t i = 0; i < sizeof(m->eqe); i++)
		snprintf(hex + 2 * i, 3, "%02x", m->eqe[i]);
	ibve_json_str(j, "eqe", hex);
}

enum ibve_mlx5_got ibve_mlx5_got(long len, int err, size_t whole)
{
	if (len >= 0)
		return (size_t)len < whole ? IBVE_MLX5_GOT_SHORT
					   : IBVE_MLX5_GOT_ENTRY;
	if (err == EAGAIN || err == EINTR)
		return IBVE_MLX5_GOT_DRAINED;
	return err == EOVERFLOW ? IBVE_MLX5_GOT_LOST : IBVE_MLX5_GOT_GONE;
}

void ibve_mlx5_event_lost(struct ibve_event *ev, uint64_t overflows)
{
	ibve_event_set_code(ev, IBVE_SOURCE_MLX5, IBVE_MLX5_EVENTS_LOST);
	ev->lost = overflows;
	ev->fields |= IBVE_FIELD_LOST;
}
