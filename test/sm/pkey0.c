// SPDX-License-Identifier: MIT
/*
 * Preloaded into OpenSM after ibsim's umad2sim: a MAD umad_recv() gives
 * comes on P_Key index 0, as the kernel would say of every MAD of the
 * simulated fabric (it has no other P_Key).
 *
 * umad2sim's read() fills the address of a MAD it delivers but its P_Key
 * index, which keeps what the buffer held before. OpenSM keeps that
 * address with a subscription and matches an unsubscribe by it, address
 * and all: with another leftover there, it refused one of ours ("Failed
 * to UnSubscribe to non existing inform object"), about once in 150 runs
 * on a loaded machine, and left the subscription behind.
 */
#include <dlfcn.h>
#include <infiniband/umad.h>
#include <stddef.h>

int umad_recv(int fd, void *umad, int *length, int timeout_ms)
{
	static int (*next)(int, void *, int *, int);
	int r;

	if (!next)
		next = (int (*)(int, void *, int *, int))dlsym(RTLD_NEXT,
							       "umad_recv");
	if (!next)
		return -1;
	r = next(fd, umad, length, timeout_ms);
	if (r >= 0)
		umad_set_pkey(umad, 0);
	return r;
}
