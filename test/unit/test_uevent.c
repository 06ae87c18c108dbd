// SPDX-License-Identifier: MIT
/*
 * The hot-plug source's reading of kernel uevents, on messages the
 * soft-RoCE guest's kernels (6.1, 6.12) really sent (test/uevents/), and
 * on variants of them cut short or altered; and its cache of RDMA device
 * names, which an UNREGISTER needs and which evicts past 64 devices.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hotplug.h"
#include "tap.h"
#include "util.h"

#define DIR "test/uevents/"

struct uev {
	char buf[8192]; /* as read_uevents() reads: a '\0' after the end */
	size_t len;
};

static bool load(struct uev *u, const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), DIR "%s.bin", name);
	f = fopen(path, "rb");
	if (!f) {
		ok(false, "%s: %s", path, strerror(errno));
		return false;
	}
	u->len = fread(u->buf, 1, sizeof(u->buf) - 1, f);
	fclose(f);
	u->buf[u->len] = '\0';
	return true;
}

static bool parse(const struct uev *u, struct ibve_hp_msg *m)
{
	memset(m, 0, sizeof(*m));
	return ibve_hp_uevent_parse(u->buf, u->len, m);
}

static const char *const kernels[] = { "6.1", "6.12" };

/* Every stored message: the uverbs node's two taken, the rest left. */
static void test_stored(void)
{
	static const char *const others[] = {
		"net-dummy1-add",	  "queues-rx0-add",
		"queues-tx0-add",	  "infiniband-rxe1-add",
		"infiniband-rxe1-remove", "queues-rx0-remove",
		"queues-tx0-remove",	  "net-dummy1-remove",
	};
	struct ibve_hp_msg m;
	struct uev u;
	char name[64];

	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		snprintf(name, sizeof(name), "%s-uverbs1-add", kernels[k]);
		if (load(&u, name)) {
			ok(parse(&u, &m) && m.what == IBVE_HP_ADDED,
			   "%s: an arrival", name);
			is_str(m.chardev, "uverbs1", "%s: its node", name);
			is_str(m.device, "", "%s: no device name", name);
		}
		snprintf(name, sizeof(name), "%s-uverbs1-remove", kernels[k]);
		if (load(&u, name)) {
			ok(parse(&u, &m) && m.what == IBVE_HP_REMOVED,
			   "%s: a removal", name);
			is_str(m.chardev, "uverbs1", "%s: its node", name);
		}
		for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
			snprintf(name, sizeof(name), "%s-%s", kernels[k],
				 others[i]);
			if (load(&u, name))
				ok(!parse(&u, &m), "%s: not a uverbs node",
				   name);
		}
	}
}

/* The offset just past FIELD's value in U, or 0. */
static size_t end_of(const struct uev *u, const char *field)
{
	for (size_t i = 0; i < u->len; i += strlen(u->buf + i) + 1)
		if (strcmp(u->buf + i, field) == 0)
			return i + strlen(field);
	return 0;
}

/*
 * The arrival cut at every length (a '\0' after the cut, as the reader
 * puts one): taken exactly when ACTION, DEVPATH and SUBSYSTEM (the last
 * of the three) are whole, and then with the whole node name.
 */
static void test_cut(void)
{
	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		struct uev whole, u;
		size_t need, wrong = 0;
		char name[64];

		snprintf(name, sizeof(name), "%s-uverbs1-add", kernels[k]);
		if (!load(&whole, name))
			continue;
		need = end_of(&whole, "SUBSYSTEM=infiniband_verbs");
		ok(need > end_of(&whole, "ACTION=add") &&
			   need > end_of(&whole, "DEVPATH=/devices/virtual/"
						 "infiniband_verbs/uverbs1"),
		   "%s: SUBSYSTEM comes after ACTION and DEVPATH", name);
		for (size_t n = 0; n <= whole.len; n++) {
			struct ibve_hp_msg m;
			bool got;

			u = whole;
			u.len = n;
			u.buf[n] = '\0';
			got = parse(&u, &m);
			if (got != (n >= need) ||
			    (got && strcmp(m.chardev, "uverbs1") != 0)) {
				printf("#   cut at %zu of %zu: %s '%s'\n", n,
				       whole.len, got ? "taken" : "left",
				       m.chardev);
				wrong++;
			}
		}
		is_int(wrong, 0, "%s cut at each of its %zu lengths", name,
		       whole.len + 1);
	}
}

/* MSG ("|" for each '\0') as a message of its own. */
static bool parse_text(const char *msg, struct ibve_hp_msg *m)
{
	struct uev u;

	u.len = strlen(msg);
	memcpy(u.buf, msg, u.len + 1);
	for (size_t i = 0; i < u.len; i++)
		if (u.buf[i] == '|')
			u.buf[i] = '\0';
	return parse(&u, m);
}

#define V_PATH "DEVPATH=/devices/virtual/infiniband_verbs/uverbs1|"
#define V_SUBS "SUBSYSTEM=infiniband_verbs|"

/* Altered messages: what the kernel does not send is left. */
static void test_malformed(void)
{
	struct ibve_hp_msg m;

	ok(!parse_text("", &m), "empty: left");
	ok(!parse_text("add@/devices/virtual/infiniband_verbs/uverbs1", &m),
	   "a summary and nothing else: left");
	ok(!parse_text("add@/devices/virtual/infiniband_verbs/uverbs1"
		       "ACTION=add" V_PATH V_SUBS,
		       &m),
	   "no '\\0' after the summary: its first key is not read");
	ok(!parse_text("add@x|" V_PATH V_SUBS, &m), "no ACTION: left");
	ok(!parse_text("add@x|ACTION=add|" V_SUBS, &m), "no DEVPATH: left");
	ok(!parse_text("add@x|ACTION=add|" V_PATH, &m), "no SUBSYSTEM: left");
	ok(!parse_text("change@x|ACTION=change|" V_PATH V_SUBS, &m),
	   "ACTION=change: left");
	ok(!parse_text("bind@x|ACTION=bind|" V_PATH V_SUBS, &m),
	   "ACTION=bind: left");
	ok(!parse_text("add@x|ACTION=add|" V_PATH
		       "SUBSYSTEM=infiniband_verbsX|",
		       &m),
	   "a longer subsystem name: left");
	ok(!parse_text("add@x|ACTION=add|" V_PATH "SUBSYSTEM=infiniband|", &m),
	   "subsystem infiniband (the device, not its node): left");
	ok(!parse_text("add@x|ACTION=add|"
		       "DEVPATH=/class/infiniband_verbs/abi_version|" V_SUBS,
		       &m),
	   "the class's abi_version: left");
	ok(!parse_text("add@x|XACTION=add|" V_PATH V_SUBS, &m),
	   "a key that only ends in ACTION=: left");
	ok(parse_text("add@x|ACTION=add|DEVPATH=uverbs7|" V_SUBS, &m) &&
		   strcmp(m.chardev, "uverbs7") == 0,
	   "a DEVPATH without '/': the node is all of it");
	ok(parse_text("remove@x||SEQNUM=9||ACTION=remove|" V_PATH V_SUBS, &m) &&
		   m.what == IBVE_HP_REMOVED &&
		   strcmp(m.chardev, "uverbs1") == 0,
	   "empty fields between keys are skipped");
	ok(parse_text("add@x|ACTION=add|DEVPATH=/d/uverbs"
		      "123456789012345678901234567890|" V_SUBS,
		      &m) &&
		   strlen(m.chardev) == sizeof(m.chardev) - 1,
	   "an overlong node name is cut to the field, ended");
}

/* The name cache: full at 64, then a new index evicts one entry. */
static void test_name_cache(void)
{
	struct ibve_name_cache *c = calloc(1, sizeof(*c));
	char name[IBVE_NAME_MAX];
	size_t missing = 0, wrong = 0;

	if (!ok(c != NULL, "a cache"))
		return;
	ok(ibve_name_cache_get(c, 1) == NULL, "empty: nothing known");
	for (uint32_t i = 1; i <= IBVE_NAME_CACHE; i++) {
		snprintf(name, sizeof(name), "rxe%u", i);
		ibve_name_cache_put(c, i, name);
	}
	is_int(c->n, IBVE_NAME_CACHE, "64 devices fill it");
	for (uint32_t i = 1; i <= IBVE_NAME_CACHE; i++) {
		const char *got = ibve_name_cache_get(c, i);

		snprintf(name, sizeof(name), "rxe%u", i);
		missing += !got;
		wrong += got && strcmp(got, name) != 0;
	}
	ok(!missing && !wrong, "each of the 64 has its name");
	ibve_name_cache_put(c, 5, "renamed5");
	is_str(ibve_name_cache_get(c, 5), "renamed5",
	       "a known index takes its new name");
	is_int(c->n, IBVE_NAME_CACHE, "and evicts nothing");
	ok(ibve_name_cache_get(c, 4) && ibve_name_cache_get(c, 6),
	   "its neighbours are kept");

	/* index 65 goes where 65 % 64 says: entry 1, which held index 2 */
	ibve_name_cache_put(c, 65, "rxe65");
	is_str(ibve_name_cache_get(c, 65), "rxe65",
	       "full: a new index is still learned");
	is_int(c->n, IBVE_NAME_CACHE, "the cache does not grow past 64");
	ok(ibve_name_cache_get(c, 2) == NULL, "index 2 was evicted for it");
	missing = 0;
	for (uint32_t i = 1; i <= IBVE_NAME_CACHE; i++)
		missing += i != 2 && !ibve_name_cache_get(c, i);
	is_int(missing, 0, "every other entry is kept");
	ibve_name_cache_put(c, 129, "rxe129");
	ok(ibve_name_cache_get(c, 129) && !ibve_name_cache_get(c, 65),
	   "index 129 evicts 65, its slot's holder");
	ok(ibve_name_cache_get(c, 4294967295u) == NULL,
	   "an index never seen: NULL");
	free(c);
}

int main(void)
{
	test_stored();
	test_cut();
	test_malformed();
	test_name_cache();
	return done_testing();
}
