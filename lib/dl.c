// SPDX-License-Identifier: MIT
/*
 * The loader of the optional libraries (dl.h) and their tables. A library
 * is looked for once: what that found, loaded or why not, is the answer
 * for the rest of the run, in every thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "dl_jsonc.h"
#include "dl_umad.h"
#ifdef IBVE_HAVE_MLX5
#include "dl_mlx5.h"
#endif
#ifdef IBVE_HAVE_BPF
#include "dl_bpf.h"
#endif

/* The names the Makefile found; these are Debian 12's. */
#ifndef IBVE_SONAME_JSONC
#define IBVE_SONAME_JSONC "libjson-c.so.5"
#endif
#ifndef IBVE_SONAME_UMAD
#define IBVE_SONAME_UMAD "libibumad.so.3"
#endif
#ifndef IBVE_SONAME_MLX5
#define IBVE_SONAME_MLX5 "libmlx5.so.1"
#endif
#ifndef IBVE_SONAME_BPF
#define IBVE_SONAME_BPF "libbpf.so.1"
#endif

#define IBVE_DL_NAME(f) #f,

/* LIB's table, the names of its functions (in order), and its loader. */
#define LIBRARY(lib, funcs, file, need)                                   \
	struct ibve_##lib ibve_##lib##_fn;                                \
	static const char *const lib##_names[] = { funcs(IBVE_DL_NAME) }; \
	_Static_assert(sizeof(ibve_##lib##_fn) ==                         \
			       ARRAY_SIZE(lib##_names) * sizeof(void *),  \
		       "one name per function");                          \
	struct ibve_dl ibve_##lib##_dl = { .soname = file,                \
					   .users = need,                 \
					   .names = lib##_names,          \
					   .n = ARRAY_SIZE(lib##_names),  \
					   .fn = &ibve_##lib##_fn }

LIBRARY(jsonc, IBVE_JSONC_FUNCS, IBVE_SONAME_JSONC, "to read JSON");
LIBRARY(umad, IBVE_UMAD_FUNCS, IBVE_SONAME_UMAD, "for subnet events");
#ifdef IBVE_HAVE_MLX5
LIBRARY(mlx5, IBVE_MLX5_FUNCS, IBVE_SONAME_MLX5, "for mlx5 DEVX events");
#endif
#ifdef IBVE_HAVE_BPF
LIBRARY(bpf, IBVE_BPF_FUNCS, IBVE_SONAME_BPF, "for the eBPF programs");
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* 1, or -ELIBACC with L->why said. */
static int load(struct ibve_dl *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(l->why, sizeof(l->why),
			 "cannot load %s (needed %s): %s", l->soname, l->users,
			 dlerror());
		return -ELIBACC;
	}
	for (size_t i = 0; i < l->n; i++) {
		void *f = dlsym(h, l->names[i]);

		if (!f) {
			snprintf(l->why, sizeof(l->why),
				 "%s has no function %s (needed %s)", l->soname,
				 l->names[i], l->users);
			memset(l->fn, 0, l->n * sizeof(f));
			dlclose(h);
			return -ELIBACC;
		}
		memcpy((char *)l->fn + i * sizeof(f), &f, sizeof(f));
	}
	return 1; /* kept loaded for the rest of the run */
}

int ibve_dl_load(struct ibve_dl *l)
{
	int state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);

	if (!state) {
		pthread_mutex_lock(&lock);
		state = l->state;
		if (!state) {
			state = load(l);
			__atomic_store_n(&l->state, state, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&lock);
	}
	return state > 0 ? 0 : ibve_error(-state, "%s", l->why);
}
