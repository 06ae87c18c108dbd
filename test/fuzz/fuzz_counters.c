// SPDX-License-Identifier: MIT
/*
 * A port's counter files read twice, as the counters source and the port
 * table read them: the input is the two readings, split at its first 0xff
 * byte, written to counters/symbol_error (the first, then the second) and
 * to hw_counters/link_downed (the other way round: a counter that went
 * backwards). Each reading is taken only when the file holds a decimal
 * number, as the kernel writes one; a move is the second less the first,
 * or the second alone when it went backwards (a reset); the COUNTERS_MOVED
 * record of the moves prints and replays the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ibvevent.h"
#include "ports.h"

#define FUZZ_NAME "fuzz_counters"
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void put(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		fail("cannot write a counter file", path, strerror(errno));
	close(fd);
}

/* What a file of DATA says: as read (its first 63 bytes, up to a NUL,
 * without the newlines and spaces at its end), a decimal number that fits
 * 64 bits; false for anything else. */
static bool says(const uint8_t *data, size_t size, uint64_t *v)
{
	char s[64];
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;
	unsigned __int128 x = 0;

	memcpy(s, data, n);
	s[n] = '\0';
	n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (unsigned)(s[i] - '0');
		if (x > UINT64_MAX)
			return false;
	}
	*v = (uint64_t)x;
	return true;
}

/* The move of a counter read as A (if READ_A), then as B (if READ_B). */
static uint64_t move(bool read_a, uint64_t a, bool read_b, uint64_t b)
{
	uint64_t from = read_a ? a : 0;

	if (!read_b)
		return 0;
	return b >= from ? b - from : b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *cut = memchr(data, 0xff, size);
	size_t n1 = cut ? (size_t)(cut - data) : size;
	const uint8_t *two = cut ? cut + 1 : data + size;
	size_t n2 = cut ? size - n1 - 1 : 0;
	struct ibve_counter *v;
	struct ibve_event ev = { 0 }, back;
	uint64_t a, b, want[2];
	bool ra, rb;
	size_t n;

	if (!dir[0]) {
		char sub[96];

		snprintf(dir, sizeof(dir), "/tmp/fuzz_counters.XXXXXX");
		if (!mkdtemp(dir))
			fail("cannot make a directory", dir, strerror(errno));
		snprintf(sub, sizeof(sub), "%s/counters", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub), "%s/hw_counters", dir);
		mkdir(sub, 0700);
	}
	put("counters/symbol_error", data, n1);
	put("hw_counters/link_downed", two, n2);
	n = ibve_counters_find(dir, &v);
	if (n != 2 || v[0].hw == v[1].hw)
		fail("both files are error counters", "", "");
	/* sorted by name: link_downed (hw) first */
	ibve_counters_read(dir, v, n, 0, true, NULL);
	put("counters/symbol_error", two, n2);
	put("hw_counters/link_downed", data, n1);
	ibve_counters_read(dir, v, n, 1.0, false, NULL);

	ra = says(data, n1, &a);
	rb = says(two, n2, &b);
	want[0] = move(rb, b, ra,
		       a); /* link_downed: the second, then the first */
	want[1] = move(ra, a, rb, b);
	for (size_t i = 0; i < 2; i++)
		if (v[i].delta != want[i]) {
			char w[32], got[32];

			snprintf(w, sizeof(w), "%llu",
				 (unsigned long long)want[i]);
			snprintf(got, sizeof(got), "%llu",
				 (unsigned long long)v[i].delta);
			fail("a move is the second reading less the first", w,
			     got);
		}

	clock_gettime(CLOCK_REALTIME, &ev.time);
	snprintf(ev.device, sizeof(ev.device), "rxe0");
	ev.port = 1;
	ibve_counters_moved(&ev, v, n, false, 1000000);
	round_trip(&ev, &back);
	for (size_t i = 0; i < ev.counters.n; i++)
		if (back.counters.moved[i].delta != ev.counters.moved[i].delta)
			fail("the moves replay", ev.counters.moved[i].name, "");
	free(v);
	return 0;
}
