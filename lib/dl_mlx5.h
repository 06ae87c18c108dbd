/* SPDX-License-Identifier: MIT */
/*
 * libmlx5, loaded (dl.h) when the mlx5 source opens a device whose kernel
 * driver is mlx5's (libibverbs has then loaded it already, as the
 * device's provider).
 */
#ifndef IBVE_DL_MLX5_H
#define IBVE_DL_MLX5_H

#include <infiniband/mlx5dv.h>

#include "dl.h"

#define IBVE_MLX5_FUNCS(X)                   \
	X(mlx5dv_devx_create_event_channel)  \
	X(mlx5dv_devx_destroy_event_channel) \
	X(mlx5dv_devx_get_event)             \
	X(mlx5dv_devx_subscribe_devx_event)  \
	X(mlx5dv_is_supported)               \
	X(mlx5dv_open_device)

struct ibve_mlx5 {
	IBVE_MLX5_FUNCS(IBVE_DL_MEMBER)
};
extern struct ibve_mlx5 ibve_mlx5_fn;
extern struct ibve_dl ibve_mlx5_dl;

/* Every libmlx5 call goes through the table. */
#define mlx5dv_devx_create_event_channel \
	(*ibve_mlx5_fn.mlx5dv_devx_create_event_channel)
#define mlx5dv_devx_destroy_event_channel \
	(*ibve_mlx5_fn.mlx5dv_devx_destroy_event_channel)
#define mlx5dv_devx_get_event (*ibve_mlx5_fn.mlx5dv_devx_get_event)
#define mlx5dv_devx_subscribe_devx_event \
	(*ibve_mlx5_fn.mlx5dv_devx_subscribe_devx_event)
#define mlx5dv_is_supported (*ibve_mlx5_fn.mlx5dv_is_supported)
#define mlx5dv_open_device  (*ibve_mlx5_fn.mlx5dv_open_device)

#endif
