/* SPDX-License-Identifier: MIT */
#ifndef IBVE_MLX5_SOURCE_H
#define IBVE_MLX5_SOURCE_H

#include "ibvevent.h"

struct ibv_device;
struct ibve_mlx5_chan;

/*
 * Open DEV for the monitor: with DEVX and an event channel when it is an
 * mlx5 device (*CHAN set, or NULL without one), else as verbs does. What
 * could not be done becomes a note of M. NULL with errno on failure.
 */
struct ibv_context *ibve_mlx5_open(struct ibv_device *dev,
				   struct ibve_mlx5_chan **chan,
				   struct ibve_monitor *m);
int ibve_mlx5_fd(const struct ibve_mlx5_chan *c);
/* Ready events as records; *GONE when the device was taken away. */
size_t ibve_mlx5_read(struct ibve_mlx5_chan *c, const char *device,
		      uint64_t guid, struct ibve_event *evs, size_t max,
		      bool *gone);
/* Before the context is closed. */
void ibve_mlx5_close(struct ibve_mlx5_chan *c);

#endif
