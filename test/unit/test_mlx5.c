// SPDX-License-Identifier: MIT
/*
 * The mlx5 EQE decoder, from byte vectors laid out as the kernel's
 * struct mlx5_eqe: byte 1 type, byte 3 sub-type, data from byte 32.
 */
#include <errno.h>
#include <stdlib.h>

#include "ibvevent.h"
#include "tap.h"

static uint8_t eqe[64];

static void build(uint8_t type, uint8_t sub)
{
	memset(eqe, 0, sizeof(eqe));
	eqe[1] = type;
	eqe[3] = sub;
}

static struct ibve_event decode(void)
{
	struct ibve_event ev;

	memset(&ev, 0, sizeof(ev));
	if (ibve_mlx5_decode(&ev, eqe, sizeof(eqe)))
		ok(false, "decode failed");
	return ev;
}

/* The text details, without the time and columns in front. */
static const char *details(const struct ibve_event *ev)
{
	static char line[512];
	char *p;

	ibve_event_format_text(ev, line, sizeof(line), 0);
	/* the details follow the explanation: " (...)" */
	p = strstr(line, ibve_event_text(ev));
	if (!p)
		return "";
	p += strlen(ibve_event_text(ev));
	p += strspn(p, " ");
	p[strcspn(p, "\n")] = '\0';
	return p;
}

static void test_port_change(void)
{
	static const struct {
		uint8_t sub;
		const char *text;
		enum ibve_severity sev;
	} subs[] = {
		{ 1, "(port 2 down)", IBVE_SEVERITY_ERROR },
		{ 4, "(port 2 active)", IBVE_SEVERITY_INFO },
		{ 5, "(port 2 initialized)", IBVE_SEVERITY_INFO },
		{ 6, "(port 2 LID changed)", IBVE_SEVERITY_WARNING },
		{ 7, "(port 2 P_Key table changed)", IBVE_SEVERITY_WARNING },
		{ 8, "(port 2 GUID changed)", IBVE_SEVERITY_WARNING },
		{ 9, "(port 2 client re-register requested)",
		  IBVE_SEVERITY_WARNING },
		{ 3, "(port 2 sub-type 3)", IBVE_SEVERITY_WARNING },
	};

	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		struct ibve_event ev;

		build(0x09, subs[i].sub);
		eqe[40] = 0x2 << 4; /* port in the high nibble */
		ev = decode();
		ok(strcmp(ev.name, "PORT_CHANGE") == 0 &&
			   ev.source == IBVE_SOURCE_MLX5 && ev.code == 9 &&
			   ev.port == 2 && ev.cls == IBVE_CLASS_PORT,
		   "PORT_CHANGE sub-type %u: port 2", subs[i].sub);
		is_str(details(&ev), subs[i].text, "  its text, sub-type %u",
		       subs[i].sub);
		is_int(ev.severity, subs[i].sev, "  severity %s",
		       ibve_severity_name(subs[i].sev));
	}
}

static void test_port_module(void)
{
	static const char *const errors[16] = {
		[0] = "power budget exceeded",
		[1] = "long range for non-Mellanox cable",
		[2] = "bus stuck (I2C or data shorted)",
		[3] = "no EEPROM/retry timeout",
		[4] = "enforce part number list",
		[5] = "unknown identifier",
		[6] = "high temperature",
		[7] = "bad or shorted cable/module",
		[0xc] = "ports powered down: insufficient PCIe slot power",
	};
	static const char *const states[] = { NULL, "plugged", "unplugged",
					      NULL, "disabled" };
	struct ibve_event ev;
	char want[160];

	for (int st = 1; st <= 4; st++) {
		if (st == 3)
			continue;
		build(0x16, 0);
		eqe[33] = 5;
		eqe[35] = (uint8_t)(0xf0 | st); /* status in the low nibble */
		ev = decode();
		snprintf(want, sizeof(want), "(module 5 %s)", states[st]);
		is_str(details(&ev), want, "PORT_MODULE status %d", st);
		ok(ev.mlx5.module == 5 && ev.mlx5.module_status == st &&
			   ev.port == 0 && ev.cls == IBVE_CLASS_DEVICE,
		   "  fields: module 5, status %d, no port", st);
	}
	for (int e = 0; e < 16; e++) {
		build(0x16, 0);
		eqe[33] = 2;
		eqe[35] = 3;
		eqe[38] = (uint8_t)(0xa0 | e); /* type in the low nibble */
		ev = decode();
		if (errors[e])
			snprintf(want, sizeof(want),
				 "(module 2 cable error: %s)", errors[e]);
		else
			snprintf(want, sizeof(want),
				 "(module 2 cable error: error type %d)", e);
		is_str(details(&ev), want, "PORT_MODULE error type %d", e);
		is_int(ev.severity, IBVE_SEVERITY_ERROR, "  is an error");
	}
	build(0x16, 0);
	eqe[33] = 1;
	eqe[35] = 9;
	ev = decode();
	is_str(details(&ev), "(module 1 status 9)", "unknown module status");
	is_int(ev.severity, IBVE_SEVERITY_WARNING, "  a warning");
}

static void test_temp_and_general(void)
{
	static const struct {
		uint8_t sub;
		const char *text;
	} gen[] = {
		{ 1, "(delay-drop timeout)" },
		{ 5, "(PCI power change)" },
		{ 7, "(firmware live patch)" },
		{ 8, "(PCI sync for firmware update)" },
		{ 2, "(sub-type 2)" },
	};
	struct ibve_event ev;
	char json[1024];

	build(0x17, 0);
	eqe[32 + 7] = 0x01; /* msb bit 0: sensor 64 */
	eqe[40 + 7] = 0x21; /* lsb bits 0 and 5: ASIC and sensor 5 */
	eqe[40] = 0x80;	    /* lsb bit 63 */
	ev = decode();
	is_str(ev.name, "TEMP_WARN", "TEMP_WARN");
	is_str(details(&ev), "(sensors ASIC, 5, 63, 64)",
	       "  names its sensors");
	ok(ev.mlx5.sensor_map[1] == 0x8000000000000021ull &&
		   ev.mlx5.sensor_map[0] == 1,
	   "  the sensor map, big-endian");
	ibve_event_format_json(&ev, json, sizeof(json));
	ok(strstr(json, "\"sensors\":[0,5,63,64]") != NULL,
	   "  JSON sensors: %s", json);

	for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++) {
		build(0x22, gen[i].sub);
		ev = decode();
		is_str(details(&ev), gen[i].text, "GENERAL sub-type %u",
		       gen[i].sub);
	}
}

static void test_unknown_and_short(void)
{
	struct ibve_event ev;

	build(0x42, 7);
	ev = decode();
	is_str(ev.name, "UNKNOWN(66)",
	       "an unknown type is printed, not dropped");
	ok(ev.source == IBVE_SOURCE_MLX5 && ev.cls == IBVE_CLASS_UNKNOWN,
	   "  as an mlx5 event of unknown class");
	is_str(details(&ev), "(type 0x42 sub-type 7)", "  with its type");

	build(0x08, 0);
	ev = decode();
	ok(strcmp(ev.name, "INTERNAL_ERROR") == 0 &&
		   ev.severity == IBVE_SEVERITY_FATAL,
	   "INTERNAL_ERROR is fatal");

	memset(&ev, 0, sizeof(ev));
	is_int(ibve_mlx5_decode(&ev, eqe, 63), -EINVAL,
	       "a short entry is refused");
	is_int(ev.fields, 0, "  and leaves the record alone");
}

static void test_json_round_trip(void)
{
	struct ibve_event ev, back;
	char json[1024];

	build(0x16, 0);
	eqe[33] = 2;
	eqe[35] = 3;
	eqe[38] = 7;
	ev = decode();
	snprintf(ev.device, sizeof(ev.device), "mlx5_0");
	ev.time.tv_sec = 1;
	ibve_event_format_json(&ev, json, sizeof(json));
	ok(strstr(json, "\"event\":\"PORT_MODULE\",\"code\":22") &&
		   strstr(json, "\"source\":\"mlx5\"") &&
		   strstr(json,
			  "\"module\":2,\"module_status\":\"cable error\",\"error_code\":7,\"error_type\":\"bad or shorted cable/module\"") &&
		   strstr(json, "\"eqe\":\"0016"),
	   "JSON names the module, status and error: %s", json);
	ok(ibve_event_parse_json(json, strlen(json), &back) == 0 &&
		   memcmp(back.mlx5.eqe, ev.mlx5.eqe, 64) == 0 &&
		   back.mlx5.error_type == 7 && back.severity == ev.severity &&
		   strcmp(back.name, "PORT_MODULE") == 0,
	   "replay decodes it again from its eqe (%s)", ibve_errmsg());
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_port_change();
	test_port_module();
	test_temp_and_general();
	test_unknown_and_short();
	test_json_round_trip();
	return done_testing();
}
