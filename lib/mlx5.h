/* SPDX-License-Identifier: MIT */
/* mlx5 event queue entries (mlx5.c): for the mlx5 source. */
#ifndef IBVE_MLX5_H
#define IBVE_MLX5_H

#include "util.h"

struct ibve_buf;
struct ibve_json;

/* An mlx5 record's decoded fields: for text, and as JSON members. */
void ibve_mlx5_details(struct ibve_buf *b, const struct ibve_event *ev);
void ibve_mlx5_json(struct ibve_json *j, const struct ibve_event *ev);
/* EV is the DEVX channel's overflow, the OVERFLOWS-th so far. */
void ibve_mlx5_event_lost(struct ibve_event *ev, uint64_t overflows);
/*
 * What one read of a DEVX event channel gave: LEN bytes (a header and an
 * entry are WHOLE bytes), or LEN -1 and ERR (errno).
 */
enum ibve_mlx5_got {
	IBVE_MLX5_GOT_ENTRY,   /* a whole entry: decode it */
	IBVE_MLX5_GOT_SHORT,   /* fewer bytes (no entry data): skip it */
	IBVE_MLX5_GOT_LOST,    /* EOVERFLOW: the kernel dropped events */
	IBVE_MLX5_GOT_DRAINED, /* EAGAIN, EINTR: nothing more now */
	IBVE_MLX5_GOT_GONE,    /* EIO and the like: the device went away */
};
enum ibve_mlx5_got ibve_mlx5_got(long len, int err, size_t whole);

#endif
