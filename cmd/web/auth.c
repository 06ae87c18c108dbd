// SPDX-License-Identifier: MIT
/*
 * HTTP basic auth against bcrypt hashes ($2y$, $2b$, $2a$), verified with
 * libxcrypt's crypt_rn(), which is loaded on first use.
 *
 * bcrypt is slow on purpose: about 60 ms at cost 10 here, spent in the
 * one poll loop while events wait. A scrape every 15 s should not pay it
 * each time, so a (user, password) pair once verified is remembered as
 * its HMAC-SHA-256 under a key drawn at random for this process (the
 * password itself is not kept, and the digest is worthless elsewhere).
 * The last few pairs that failed are remembered likewise, so a scraper
 * with a wrong password costs one bcrypt, not one a scrape. A user that
 * does not exist costs a bcrypt all the same (at the highest cost of the
 * users), so that the time of an answer does not tell which users exist;
 * digests and hashes are compared in constant time.
 *
 * What is not remembered costs a bcrypt, and a client that sends new
 * passwords as fast as it can would keep the loop in bcrypt: so bcrypt
 * gets a budget, a quarter of the loop's time (BUDGET_RATE seconds a
 * second, up to BUDGET_BURST at once). Past it a pair that is not
 * remembered is refused without a bcrypt (and not remembered as failed);
 * a remembered one, a scraper's, still passes at once. Costs above
 * IBVE_AUTH_COST_MAX are refused at load: one check would stop the loop for
 * seconds.
 */
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "internal.h"

#ifndef IBVE_CRYPT_SONAME
#define IBVE_CRYPT_SONAME "libcrypt.so.1"
#endif

#define DIGEST	 32 /* HMAC-SHA-256 */
#define FAILED	 8  /* failed pairs remembered */
#define HASH_LEN 60 /* "$2y$10$" 22 characters of salt, 31 of hash */

#define BUDGET_RATE  0.25 /* seconds of bcrypt a second, at most... */
#define BUDGET_BURST 1.0  /* ...after up to this much at once */

static struct {
	__typeof__(crypt_rn) *rn;
	__typeof__(crypt_gensalt_rn) *gensalt_rn;
} xcrypt;

static int xcrypt_load(void)
{
	static const char *const names[] = { "crypt_rn", "crypt_gensalt_rn" };
	WEB_LIB(lib, xcrypt, names, IBVE_CRYPT_SONAME,
		"for the passwords of --web-config", "libcrypt1");

	return web_lib_load(&lib);
}

struct user {
	char *name;
	char hash[HASH_LEN + 1];
	unsigned char ok[DIGEST]; /* the pair last verified */
	bool cached;
};

struct ibve_auth {
	struct user *users;
	size_t n;
	unsigned char key[32];
	unsigned char failed[FAILED][DIGEST];
	size_t nfailed, next;
	char dummy[CRYPT_GENSALT_OUTPUT_SIZE]; /* for users that do not exist */
	int dummy_cost;
	struct crypt_data *cd;
	double spent;	     /* seconds of bcrypt not yet paid back */
	struct timespec was; /* when SPENT was last brought up to date */
};

int ibve_auth_new(struct ibve_auth **out)
{
	struct ibve_auth *a;
	int r;

	*out = NULL;
	if ((r = xcrypt_load()) || (r = ibve_gnutls_load()))
		return r;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->cd = calloc(1, sizeof(*a->cd)))) {
		free(a);
		return ibve_error(ENOMEM, "out of memory");
	}
	if (getrandom(a->key, sizeof(a->key), 0) != (ssize_t)sizeof(a->key)) {
		r = ibve_error(errno ? errno : EIO, "getrandom: %s",
			       strerror(errno ? errno : EIO));
		ibve_auth_free(a);
		return r;
	}
	*out = a;
	return 0;
}

void ibve_auth_free(struct ibve_auth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->users[i].name);
	free(a->users);
	free(a->cd);
	explicit_bzero(a, sizeof(*a));
	free(a);
}

static bool is_bcrypt(const char *hash)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(hash) != HASH_LEN || strncmp(hash, "$2", 2) ||
	    !strchr("aby", hash[2]) || hash[3] != '$' || hash[6] != '$' ||
	    hash[4] < '0' || hash[4] > '3' || hash[5] < '0' || hash[5] > '9')
		return false;
	cost = (hash[4] - '0') * 10 + hash[5] - '0';
	return cost >= 4 && cost <= 31 && strspn(hash + 7, b64) == HASH_LEN - 7;
}

int ibve_auth_add_user(struct ibve_auth *a, const char *name, const char *hash)
{
	struct user *u;
	int cost;

	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->users[i].name, name) == 0)
			return -EEXIST;
	if (!is_bcrypt(hash))
		return -EINVAL;
	cost = (hash[4] - '0') * 10 + hash[5] - '0';
	if (cost > IBVE_AUTH_COST_MAX)
		return -E2BIG;
	u = realloc(a->users, (a->n + 1) * sizeof(*u));
	if (!u)
		return ibve_error(ENOMEM, "out of memory");
	a->users = u;
	u += a->n;
	memset(u, 0, sizeof(*u));
	if (!(u->name = strdup(name)))
		return ibve_error(ENOMEM, "out of memory");
	memcpy(u->hash, hash, HASH_LEN + 1);
	a->n++;
	/* the stand-in for unknown users costs what the costliest user costs */
	if (cost > a->dummy_cost) {
		errno = 0;
		if (!xcrypt.gensalt_rn("$2b$", (unsigned long)cost, NULL, 0,
				       a->dummy, sizeof(a->dummy)))
			return ibve_error(errno ? errno : EIO,
					  "crypt_gensalt_rn: %s",
					  strerror(errno ? errno : EIO));
		a->dummy_cost = cost;
	}
	return 0;
}

/* Whether the N bytes at A and B are the same, in a time that says not. */
static bool same(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

static int digest(const struct ibve_auth *a, const char *user,
		  const char *password, unsigned char *out)
{
	size_t lu = strlen(user) + 1, lp = strlen(password);
	char *text = malloc(lu + lp);
	int r;

	if (!text)
		return -ENOMEM;
	memcpy(text, user, lu); /* with its '\0': "ab"+"c" is not "a"+"bc" */
	memcpy(text + lu, password, lp);
	r = ibve_gnutls.hmac_fast(GNUTLS_MAC_SHA256, a->key, sizeof(a->key),
				  text, lu + lp, out);
	explicit_bzero(text, lu + lp);
	free(text);
	return r ? -EIO : 0;
}

static double seconds_between(const struct timespec *a,
			      const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Whether the budget has room for a bcrypt now (and SPENT paid back). */
static bool budget_left(struct ibve_auth *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (a->was.tv_sec || a->was.tv_nsec)
		a->spent -= seconds_between(&a->was, &now) * BUDGET_RATE;
	if (a->spent < 0)
		a->spent = 0;
	a->was = now;
	return a->spent < BUDGET_BURST;
}

static bool bcrypt_ok(struct ibve_auth *a, const char *password,
		      const char *hash)
{
	struct timespec t0, t1;
	const char *out;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(a->cd, 0, sizeof(*a->cd));
	out = xcrypt.rn(password, hash, a->cd, sizeof(*a->cd));
	ok = out && strlen(out) == strlen(hash) &&
	     same(out, hash, strlen(hash));
	explicit_bzero(a->cd, sizeof(*a->cd));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	a->spent += seconds_between(&t0, &t1);
	return ok;
}

bool ibve_auth_check(struct ibve_auth *a, const char *user,
		     const char *password)
{
	unsigned char d[DIGEST];
	struct user *u = NULL;
	bool ok;

	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->users[i].name, user) == 0)
			u = &a->users[i];
	if (digest(a, user, password, d))
		return false;
	if (u && u->cached && same(u->ok, d, DIGEST))
		return true;
	for (size_t i = 0; i < a->nfailed; i++)
		if (same(a->failed[i], d, DIGEST))
			return false;
	if (!budget_left(a))
		return false; /* a flood: refused unchecked, not remembered */
	ok = bcrypt_ok(a, password, u ? u->hash : a->dummy) && u;
	if (ok) {
		memcpy(u->ok, d, DIGEST);
		u->cached = true;
	} else {
		memcpy(a->failed[a->next], d, DIGEST);
		a->next = (a->next + 1) % FAILED;
		if (a->nfailed < FAILED)
			a->nfailed++;
	}
	return ok;
}
