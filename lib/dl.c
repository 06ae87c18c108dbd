// SPDX-License-Identifier: MIT
/*
 * The loader of the optional libraries (dl.h). A library is looked for
 * once: what that found, loaded or why not, is the answer for the rest of
 * the run, in every thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"
#include "util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* 1, or -ELIBACC with L->why said. */
static int load(struct ibve_dl *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(l->why, sizeof(l->why),
			 "cannot load %s (needed %s%s%s): %s", l->soname,
			 l->users, l->package ? "; Debian package " : "",
			 l->package ? l->package : "", dlerror());
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
