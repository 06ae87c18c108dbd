// SPDX-License-Identifier: MIT
/*
 * seccomp-errno SYSCALL ERRNO [ARG=VALUE]... -- CMD [ARGS...]
 *
 * Runs CMD with a seccomp filter that makes SYSCALL fail with ERRNO
 * whenever its arguments are the values given (ARG 0 to 5: ARG 0 of read
 * is the descriptor, ARG 2 the count), and lets every other call through.
 * A fault the kernel cannot be made to give on this machine (EIO from a
 * device's event queue) is given this way by the kernel itself, with no
 * library of the program's replaced. SYSCALL and ERRNO are names (read,
 * EIO) or numbers. Exit status 125 when the filter cannot be set, 127
 * when CMD cannot be run.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp-errno: add this architecture's AUDIT_ARCH"
#endif

static const struct {
	const char *name;
	long nr;
} syscalls[] = {
	{ "read", SYS_read },
	{ "write", SYS_write },
	{ "recvmsg", SYS_recvmsg },
	{ "recvfrom", SYS_recvfrom },
	{ "ioctl", SYS_ioctl },
	{ "openat", SYS_openat },
	{ "epoll_wait", SYS_epoll_wait },
};

static const struct {
	const char *name;
	int value;
} errnos[] = {
	{ "EIO", EIO },		{ "ENODEV", ENODEV }, { "EBADF", EBADF },
	{ "ENOBUFS", ENOBUFS }, { "EACCES", EACCES }, { "ENOMEM", ENOMEM },
};

static void usage(void)
{
	fprintf(stderr, "usage: seccomp-errno SYSCALL ERRNO [ARG=VALUE]... "
			"-- CMD [ARGS...]\n");
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct sock_filter f[64];
	struct sock_fprog prog = { 0, f };
	long nr = -1;
	int err = -1, i, n = 0;

#define ADD(code, k, jt, jf) \
	(f[n++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf))
	if (argc < 5)
		usage();
	for (size_t k = 0; k < sizeof(syscalls) / sizeof(*syscalls); k++)
		if (strcmp(argv[1], syscalls[k].name) == 0)
			nr = syscalls[k].nr;
	if (nr < 0)
		nr = number(argv[1]);
	for (size_t k = 0; k < sizeof(errnos) / sizeof(*errnos); k++)
		if (strcmp(argv[2], errnos[k].name) == 0)
			err = errnos[k].value;
	if (err < 0)
		err = (int)number(argv[2]);
	if (err <= 0 || err > 4095)
		usage();

	/* the architecture, then the call: others pass */
	ADD(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0,
	    0);
	ADD(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	ADD(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	ADD(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	ADD(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 1, 0);
	ADD(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	/* each argument, both halves of its 64 bits (little-endian) */
	for (i = 3; i < argc && strcmp(argv[i], "--"); i++) {
		char *eq = strchr(argv[i], '=');
		long a;
		uint64_t v;
		uint32_t off;

		if (!eq || n + 6 > 62)
			usage();
		*eq = '\0';
		a = number(argv[i]);
		if (a < 0 || a > 5)
			usage();
		v = (uint64_t)strtoull(eq + 1, NULL, 0);
		off = (uint32_t)(offsetof(struct seccomp_data, args) +
				 (size_t)a * sizeof(uint64_t));
		ADD(BPF_LD | BPF_W | BPF_ABS, off, 0, 0);
		ADD(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)v, 1, 0);
		ADD(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
		ADD(BPF_LD | BPF_W | BPF_ABS, off + 4, 0, 0);
		ADD(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(v >> 32), 1, 0);
		ADD(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	}
	if (i + 1 >= argc)
		usage();
	ADD(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)err, 0, 0);
	prog.len = (unsigned short)n;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "seccomp-errno: cannot set the filter: %s\n",
			strerror(errno));
		return 125;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "seccomp-errno: %s: %s\n", argv[i + 1],
		strerror(errno));
	return 127;
}
