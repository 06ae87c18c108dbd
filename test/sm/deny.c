// SPDX-License-Identifier: MIT
/*
 * Test helper: run COMMAND with every open() of a file for reading and
 * writing without blocking (flags O_RDWR | O_NONBLOCK exactly, as
 * libibumad opens a umad device) failing with EACCES, as a device node
 * the user may not open would. A seccomp filter does it in the kernel;
 * anything else opens as usual.
 *
 * Usage: deny COMMAND [ARG...]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARG_LO(n) offsetof(struct seccomp_data, args[n])

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 3, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* openat(dirfd, path, flags): flags; open(path, flags) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, O_RDWR | O_NONBLOCK, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };

	if (argc < 2) {
		fprintf(stderr, "usage: deny COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "deny: cannot set a seccomp filter: %s\n",
			strerror(errno));
		return 3;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "deny: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
