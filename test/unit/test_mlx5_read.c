// SPDX-License-Identifier: MIT
/*
 * What the mlx5 source makes of one read of a DEVX event channel
 * (ibve_mlx5_got(), which its loop follows): a whole entry, a short read,
 * an overflow, a drained channel, a device gone. There is no mlx5
 * hardware here, so the channel's read itself is never reached; what a
 * whole entry decodes to is test_mlx5.c's.
 */
#include <errno.h>
#include <stdint.h>

#include "mlx5.h"
#include "tap.h"

/* The source's buffer: the 8-byte cookie header, then a 64-byte entry. */
#define WHOLE (sizeof(uint64_t) + 64)

int main(void)
{
	size_t wrong = 0;

	is_int(ibve_mlx5_got((long)WHOLE, 0, WHOLE), IBVE_MLX5_GOT_ENTRY,
	       "72 bytes of 72: an entry");
	is_int(ibve_mlx5_got((long)WHOLE - 1, 0, WHOLE), IBVE_MLX5_GOT_SHORT,
	       "71 bytes: short, skipped");
	is_int(ibve_mlx5_got(8, 0, WHOLE), IBVE_MLX5_GOT_SHORT,
	       "the header alone (no event data asked): short");
	is_int(ibve_mlx5_got(0, 0, WHOLE), IBVE_MLX5_GOT_SHORT,
	       "0 bytes: short");
	for (long n = 0; n < (long)WHOLE; n++)
		wrong += ibve_mlx5_got(n, EIO, WHOLE) != IBVE_MLX5_GOT_SHORT;
	is_int(wrong, 0, "every length under 72 is short, whatever errno says");
	is_int(ibve_mlx5_got(-1, EOVERFLOW, WHOLE), IBVE_MLX5_GOT_LOST,
	       "EOVERFLOW: events lost");
	is_int(ibve_mlx5_got(-1, EAGAIN, WHOLE), IBVE_MLX5_GOT_DRAINED,
	       "EAGAIN: drained");
	is_int(ibve_mlx5_got(-1, EINTR, WHOLE), IBVE_MLX5_GOT_DRAINED,
	       "EINTR: drained");
	is_int(ibve_mlx5_got(-1, EIO, WHOLE), IBVE_MLX5_GOT_GONE,
	       "EIO: the device went away");
	is_int(ibve_mlx5_got(-1, ENODEV, WHOLE), IBVE_MLX5_GOT_GONE,
	       "ENODEV: the device went away");
	return done_testing();
}
