// SPDX-License-Identifier: MIT
/* Port attributes from /sys/class/infiniband, for the dashboard and the
 * metrics: what a refresh reads without opening the device. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sysfs.h"

int ibve_sysfs_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/* "4: ACTIVE" -> 4 and "ACTIVE"; returns the number, or 0. */
static int attr_word(const char *dir, const char *name, char *out, size_t size)
{
	char path[512], v[96], *p;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (ibve_sysfs_read(path, v, sizeof(v)))
		return 0;
	p = strchr(v, ':');
	p = p ? p + 1 : v;
	while (*p == ' ')
		p++;
	ibve_strcpy(out, p, size);
	return atoi(v);
}

int ibve_sysfs_port(const char *device, uint32_t port,
		    struct ibve_port_attrs *a)
{
	char dir[256];

	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports/%u", device, port);
	return ibve_sysfs_port_dir(dir, a);
}

int ibve_sysfs_port_dir(const char *dir, struct ibve_port_attrs *a)
{
	char path[300], v[96];
	uint8_t raw[16];

	if (access(dir, F_OK))
		return -errno;
	a->state =
		attr_word(dir, "state", a->state_name, sizeof(a->state_name));
	attr_word(dir, "phys_state", a->phys_state, sizeof(a->phys_state));
	attr_word(dir, "link_layer", a->link_layer, sizeof(a->link_layer));
	attr_word(dir, "rate", a->rate, sizeof(a->rate));
	if (strcmp(a->link_layer, "InfiniBand") == 0) {
		snprintf(path, sizeof(path), "%s/lid", dir);
		if (ibve_sysfs_read(path, a->address + 4,
				    sizeof(a->address) - 4) == 0)
			memcpy(a->address, "LID ", 4);
		return 0;
	}
	/*
	 * RoCE and iWARP: the first GID, as an IPv6 address. The kernel
	 * writes it in full (%pI6), which inet_pton() reads.
	 */
	snprintf(path, sizeof(path), "%s/gids/0", dir);
	if (ibve_sysfs_read(path, v, sizeof(v)) == 0 &&
	    inet_pton(AF_INET6, v, raw) == 1)
		inet_ntop(AF_INET6, raw, a->address, sizeof(a->address));
	return 0;
}

int ibve_sysfs_port_netdev(const char *device, uint32_t port, char *name,
			   size_t size)
{
	char path[320];

	snprintf(path, sizeof(path), IBVE_SYSFS "/%s/ports/%u", device, port);
	if (access(path, F_OK))
		return -1;
	snprintf(path, sizeof(path),
		 IBVE_SYSFS "/%s/ports/%u/gid_attrs/ndevs/0", device, port);
	return !ibve_sysfs_read(path, name, size);
}

uint64_t ibve_sysfs_node_guid(const char *device)
{
	char path[256], v[64];
	uint64_t guid = 0;

	snprintf(path, sizeof(path), IBVE_SYSFS "/%s/node_guid", device);
	if (ibve_sysfs_read(path, v, sizeof(v)) == 0)
		ibve_guid_parse(v, &guid);
	return guid;
}
