// SPDX-License-Identifier: MIT
/*
 * The loader of optional libraries (lib/dl.c), on real libraries of this
 * host: zlib for one that lacks a function, a name no library has, many
 * threads at once, and the four tables the library uses, each resolved
 * in full against the installed library.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibvevent.h"
#include "dl_jsonc.h"
#include "dl_umad.h"
#ifdef IBVE_HAVE_LLDPCTL
#include "dl_lldpctl.h"
#endif
#ifdef IBVE_HAVE_MLX5
#include "dl_mlx5.h"
#endif
#ifdef IBVE_HAVE_BPF
#include "dl_bpf.h"
#endif
#include "tap.h"

/* Whether a file of that name is mapped into this process. */
static bool mapped(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return found;
}

static struct {
	const char *(*version)(void);
	unsigned long (*adler)(unsigned long, const unsigned char *,
			       unsigned int);
} z;
static const char *const z_names[] = { "zlibVersion", "adler32" };
static struct ibve_dl z_dl = { .soname = "libz.so.1",
			       .users = "for a test",
			       .names = z_names,
			       .n = 2,
			       .fn = &z };

static void *load_z(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)ibve_dl_load(&z_dl);
}

static void test_threads(void)
{
	pthread_t t[8];
	int bad = 0;

	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, load_z, NULL);
	for (int i = 0; i < 8; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad += r != NULL;
	}
	is_int(bad, 0, "eight threads load the same library at once: all 0");
	ok(z.version && strncmp(z.version(), "1.", 2) == 0,
	   "its functions are in the table: zlib %s",
	   z.version ? z.version() : "?");
	is_int(z.adler(1, (const unsigned char *)"a", 1), 0x00620062,
	       "and give what the library gives");
}

static void test_missing(void)
{
	static const char *const names[] = { "zlibVersion", "umad_init" };
	static struct {
		void (*a)(void), (*b)(void);
	} fn;
	static struct ibve_dl l = { .soname = "libz.so.1",
				    .users = "for a test",
				    .names = names,
				    .n = 2,
				    .fn = &fn };
	static struct ibve_dl none = { .soname = "libibvevent-no-such.so.0",
				       .users = "for a test",
				       .names = names,
				       .n = 2,
				       .fn = &fn };

	is_int(ibve_dl_load(&l), -ELIBACC, "a library without a function");
	is_str(ibve_errmsg(),
	       "libz.so.1 has no function umad_init (needed for a test)",
	       "names the library and the function");
	ok(!fn.a && !fn.b, "leaves no half-filled table");
	ibve_error(EIO, "something else");
	is_int(ibve_dl_load(&l), -ELIBACC, "asked again: the same answer");
	is_str(ibve_errmsg(),
	       "libz.so.1 has no function umad_init (needed for a test)",
	       "with the same reason");
	is_int(ibve_dl_load(&none), -ELIBACC, "a library that is not there");
	ok(strncmp(ibve_errmsg(),
		   "cannot load libibvevent-no-such.so.0 (needed for a test): ",
		   58) == 0 &&
		   strstr(ibve_errmsg(), "No such file"),
	   "is named with the loader's reason: %s", ibve_errmsg());
}

/* Each table of the library resolves in full on this host. */
static void test_tables(void)
{
	struct json_object *o;

	ok(!mapped("/libjson-c.so"), "json-c is not loaded before it is used");
	is_int(ibve_dl_load(&ibve_jsonc_dl), 0, "json-c loads: %s",
	       ibve_jsonc_dl.soname);
	ok(mapped("/libjson-c.so"), "and is then mapped");
	o = json_tokener_parse("{\"a\":[1,2]}");
	ok(o && json_object_is_type(o, json_type_object),
	   "a json-c call through the table works");
	json_object_put(o);
	is_int(ibve_dl_load(&ibve_umad_dl), 0, "libibumad loads: %s",
	       ibve_umad_dl.soname);
#ifdef IBVE_HAVE_MLX5
	is_int(ibve_dl_load(&ibve_mlx5_dl), 0, "libmlx5 loads: %s",
	       ibve_mlx5_dl.soname);
#endif
#ifdef IBVE_HAVE_BPF
	is_int(ibve_dl_load(&ibve_bpf_dl), 0, "libbpf loads: %s",
	       ibve_bpf_dl.soname);
#endif
#ifdef IBVE_HAVE_LLDPCTL
	is_int(ibve_dl_load(&ibve_lldpctl_dl), 0, "liblldpctl loads: %s",
	       ibve_lldpctl_dl.soname);
#endif
}

int main(void)
{
	test_tables();
	test_threads();
	test_missing();
	return done_testing();
}
