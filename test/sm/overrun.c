// SPDX-License-Identifier: MIT
/*
 * Test client: the sanitizer suppressions for ibsim's umad2sim must not
 * hide an overrun of a buffer of ours that passes through the simulator.
 * Asks the SA for its ClassPortInfo and reads the answer, with buffers of
 * the right size (MODE exact: prints "status N", ends with status 0), or
 * on purpose with a receive buffer 32 bytes short of the length given to
 * umad_recv() (MODE recv), or a send length 32 bytes past the buffer given
 * to umad_send() (MODE send), or a sysfs path without its terminating NUL
 * given to open() (MODE open), which umad2sim's open() reads past while no
 * interceptor of the sanitizer's looks at it: under AddressSanitizer each
 * must be reported. MODE race reads the answer into a buffer another
 * thread writes without a lock, which umad2sim's read() fills with
 * memcpy(): under ThreadSanitizer that race must be reported. Runs under
 * ibsim's umad2sim like any libibumad program.
 *
 * Usage: overrun exact|recv|send|open|race
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define SA_QKEY 0x80010000u
#define MAD	256
#define SHORT	32

static int fd, agent;
static umad_port_t port;

/* Get(ClassPortInfo) to the SA, from a buffer of SIZE bytes, LEN sent. */
static int send_get(size_t size, int len)
{
	uint8_t *buf = calloc(1, size), *mad;
	int r;

	if (!buf)
		return -1;
	mad = umad_get_mad(buf);
	mad[0] = 1;    /* base version */
	mad[1] = 0x03; /* SA */
	mad[2] = 2;
	mad[3] = 0x01; /* Get */
	mad[15] = 0x42;
	mad[17] = 0x01; /* ClassPortInfo */
	umad_set_addr(buf, (int)port.sm_lid, 1, (int)port.sm_sl, SA_QKEY);
	r = umad_send(fd, agent, buf, len, 2000, 3);
	free(buf);
	return r;
}

/* The other thread of MODE race: writes the buffer being received into. */
static void *scribble(void *arg)
{
	uint8_t *mad = umad_get_mad(arg);

	mad[4] = 0; /* the status's first byte */
	return NULL;
}

/*
 * The answer into a buffer of SIZE bytes, LEN offered to umad_recv();
 * RACE: while another thread writes it.
 */
static int recv_resp(size_t size, int len, int race)
{
	uint8_t *buf = calloc(1, size), *mad;
	pthread_t t;
	int r;

	if (!buf)
		return -1;
	mad = umad_get_mad(buf);
	if (race && pthread_create(&t, NULL, scribble, buf)) {
		free(buf);
		return -1;
	}
	r = umad_recv(fd, buf, &len, 10000);
	if (race)
		pthread_join(t, NULL);
	if (r >= 0)
		r = umad_status(buf) ? -1 : mad[4] << 8 | mad[5];
	free(buf);
	return r;
}

/* A sysfs path of the port's, without its NUL: umad2sim rewrites it. */
static int open_unterminated(const char *ca)
{
	char path[256], *p;
	int n, f;

	n = snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", ca);
	p = malloc((size_t)n);
	if (!p)
		return -1;
	memcpy(p, path, (size_t)n);
	f = open(p, O_RDONLY | O_DIRECTORY);
	free(p);
	if (f >= 0)
		close(f);
	return f < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	char names[4][UMAD_CA_NAME_LEN];
	size_t whole = sizeof(struct ib_user_mad) + MAD;
	int st;

	if (argc != 2 ||
	    (strcmp(argv[1], "exact") != 0 && strcmp(argv[1], "recv") != 0 &&
	     strcmp(argv[1], "send") != 0 && strcmp(argv[1], "open") != 0 &&
	     strcmp(argv[1], "race") != 0)) {
		fprintf(stderr, "usage: overrun exact|recv|send|open|race\n");
		return 2;
	}
	if (umad_init() < 0 || umad_get_cas_names(names, 4) < 1 ||
	    umad_get_port(names[0], 0, &port) < 0) {
		fprintf(stderr, "overrun: no umad port\n");
		return 1;
	}
	if (strcmp(argv[1], "open") == 0) {
		st = open_unterminated(names[0]);
		printf("open %d\n", st);
		return st ? 1 : 0;
	}
	fd = umad_open_port(names[0], port.portnum);
	agent = fd < 0 ? -1 : umad_register(fd, 0x03, 2, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "overrun: cannot open the umad port\n");
		return 1;
	}
	if (send_get(whole, strcmp(argv[1], "send") ? MAD : MAD + SHORT) < 0) {
		fprintf(stderr, "overrun: cannot send\n");
		return 1;
	}
	st = strcmp(argv[1], "recv")
		     ? recv_resp(whole, MAD, strcmp(argv[1], "race") == 0)
		     : recv_resp(whole - SHORT, MAD, 0);
	printf("status %d\n", st);
	return st ? 1 : 0;
}
