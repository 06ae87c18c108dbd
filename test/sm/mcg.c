// SPDX-License-Identifier: MIT
/*
 * Test client: create a multicast group by joining it as a full member
 * (SA MCMemberRecord Set), hold it for a while, then leave (Delete), which
 * deletes the group. Prints one line per answered step. Runs under ibsim's
 * umad2sim like any libibumad program.
 *
 * Usage: mcg MGID SECONDS     (MGID as 8 groups of hex: ff12:601b:...)
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define MCM_ATTR   0x0038
#define SA_QKEY	   0x80010000u
#define METHOD_SET 0x02
#define METHOD_DEL 0x15

/* Component mask bits of MCMemberRecord (IBA 15.2.5.17). */
#define CM_MGID	     (1ull << 0)
#define CM_PORT_GID  (1ull << 1)
#define CM_QKEY	     (1ull << 2)
#define CM_TCLASS    (1ull << 6)
#define CM_PKEY	     (1ull << 7)
#define CM_SL	     (1ull << 12)
#define CM_FLOW	     (1ull << 13)
#define CM_JOINSTATE (1ull << 16)

static int fd, agent;
static umad_port_t port;

static int request(uint8_t method, const uint8_t mgid[16], uint32_t tid)
{
	uint8_t buf[sizeof(struct ib_user_mad) + 256];
	uint8_t *mad = umad_get_mad(buf), *d = mad + 56;
	uint64_t mask = CM_MGID | CM_PORT_GID | CM_QKEY | CM_TCLASS | CM_PKEY |
			CM_SL | CM_FLOW | CM_JOINSTATE;
	uint64_t be;
	int len;

	memset(buf, 0, sizeof(buf));
	mad[0] = 1;    /* base version */
	mad[1] = 0x03; /* SA */
	mad[2] = 2;
	mad[3] = method;
	mad[12] = (uint8_t)(tid >> 24);
	mad[13] = (uint8_t)(tid >> 16);
	mad[14] = (uint8_t)(tid >> 8);
	mad[15] = (uint8_t)tid;
	mad[16] = MCM_ATTR >> 8;
	mad[17] = MCM_ATTR & 0xff;
	be = htobe64(mask);
	memcpy(mad + 48, &be, 8);
	memcpy(d, mgid, 16);
	memcpy(d + 16, &port.gid_prefix, 8);
	memcpy(d + 24, &port.port_guid, 8);
	d[40] = d[41] = 0xff; /* P_Key 0xffff */
	d[48] = 0x21;	      /* scope 2 (link-local), full member */
	umad_set_addr(buf, (int)port.sm_lid, 1, (int)port.sm_sl, SA_QKEY);
	if (umad_send(fd, agent, buf, 256, 2000, 3) < 0)
		return -1;
	for (;;) {
		len = 256;
		if (umad_recv(fd, buf, &len, 10000) < 0)
			return -1;
		if (umad_status(buf))
			return -1;
		if ((mad[12] << 24 | mad[13] << 16 | mad[14] << 8 | mad[15]) !=
		    (int)tid)
			continue;
		return mad[4] << 8 | mad[5]; /* MAD status */
	}
}

int main(int argc, char **argv)
{
	char names[4][UMAD_CA_NAME_LEN];
	uint8_t mgid[16];
	struct in6_addr a;
	int st;

	if (argc != 3 || inet_pton(AF_INET6, argv[1], &a) != 1) {
		fprintf(stderr, "usage: mcg MGID SECONDS\n");
		return 2;
	}
	memcpy(mgid, &a, 16);
	if (umad_init() < 0 || umad_get_cas_names(names, 4) < 1 ||
	    umad_get_port(names[0], 0, &port) < 0) {
		fprintf(stderr, "mcg: no umad port\n");
		return 1;
	}
	fd = umad_open_port(names[0], port.portnum);
	agent = fd < 0 ? -1 : umad_register(fd, 0x03, 2, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "mcg: cannot open the umad port\n");
		return 1;
	}
	st = request(METHOD_SET, mgid, 0x4d430001);
	printf("join status %d\n", st);
	fflush(stdout);
	if (st)
		return 1;
	sleep((unsigned int)atoi(argv[2]));
	st = request(METHOD_DEL, mgid, 0x4d430002);
	printf("leave status %d\n", st);
	fflush(stdout);
	return st ? 1 : 0;
}
