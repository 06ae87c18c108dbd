/* SPDX-License-Identifier: MIT */
/* Port and device attributes read from sysfs (sysfs.c). */
#ifndef IBVE_SYSFS_H
#define IBVE_SYSFS_H

#include "util.h"

#define IBVE_SYSFS "/sys/class/infiniband"

int ibve_sysfs_read(const char *path, char *buf, size_t size);
/* A port's attributes, each file read once; -errno: no such port. */
int ibve_sysfs_port(const char *device, uint32_t port,
		    struct ibve_port_attrs *a);
/* The same from a port's directory DIR (IBVE_SYSFS/DEV/ports/N). */
int ibve_sysfs_port_dir(const char *dir, struct ibve_port_attrs *a);
/*
 * Port PORT of DEVICE, and the name of its netdev (GID 0's, a RoCE port's
 * default GID) into NAME: 1 named; 0 a port without one (InfiniBand);
 * -1 no such port.
 */
int ibve_sysfs_port_netdev(const char *device, uint32_t port, char *name,
			   size_t size);
/* The node GUID of DEVICE from sysfs, 0 when it cannot be read. */
uint64_t ibve_sysfs_node_guid(const char *device);

#endif
