// SPDX-License-Identifier: MIT
/*
 * The mlx5 DEVX event source: device events the verbs queue never
 * carries (cables and modules, temperature, general firmware events),
 * through a DEVX event channel of the same context. Built only with
 * libmlx5's headers (MLX5=0 leaves it out); elsewhere the stubs at the
 * end keep the monitor's code the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "internal.h"
#include "mlx5_source.h"

#ifdef IBVE_HAVE_MLX5
#include <infiniband/mlx5dv.h>

/* Unaffiliated events worth subscribing: each alone, keeping the rest. */
static const uint16_t wanted[] = {
	IBVE_MLX5_PORT_CHANGE,
	IBVE_MLX5_PORT_MODULE,
	IBVE_MLX5_TEMP_WARN,
	IBVE_MLX5_GENERAL,
};

struct ibve_mlx5_chan {
	struct mlx5dv_devx_event_channel *ch;
	uint64_t overflows;
};

struct ibv_context *ibve_mlx5_open(struct ibv_device *dev,
				   struct ibve_mlx5_chan **out,
				   struct ibve_monitor *m)
{
	struct mlx5dv_context_attr attr = { .flags =
						    MLX5DV_CONTEXT_FLAGS_DEVX };
	const char *name = ibv_get_device_name(dev);
	struct ibve_mlx5_chan *c;
	struct ibv_context *ctx;
	char refused[256] = "";
	size_t nref = 0, nok = 0;
	int fl;

	*out = NULL;
	if (!mlx5dv_is_supported(dev))
		return ibv_open_device(dev);
	ctx = mlx5dv_open_device(dev, &attr);
	if (!ctx) {
		ibve_monitor_add_note(
			m, "%s: no DEVX context (%s): no mlx5 device events",
			name, strerror(errno));
		return ibv_open_device(dev);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return ctx;
	c->ch = mlx5dv_devx_create_event_channel(ctx, 0);
	if (!c->ch) {
		ibve_monitor_add_note(
			m,
			"%s: no DEVX event channel (%s): no mlx5 device events",
			name, strerror(errno));
		free(c);
		return ctx;
	}
	fl = fcntl(c->ch->fd, F_GETFL);
	if (fl >= 0)
		fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK);
	for (size_t i = 0; i < ARRAY_SIZE(wanted); i++) {
		uint16_t num = wanted[i];
		/* events_sz is in bytes; the cookie says which it was */
		int r = mlx5dv_devx_subscribe_devx_event(
			c->ch, NULL, sizeof(num), &num, num);

		if (!r) {
			nok++;
			continue;
		}
		snprintf(refused + strlen(refused),
			 sizeof(refused) - strlen(refused), "%s%s (%s)",
			 nref++ ? ", " : "",
			 ibve_event_desc_find(IBVE_SOURCE_MLX5, num)->name,
			 strerror(r > 0 ? r : errno));
	}
	if (nref)
		ibve_monitor_add_note(m, "%s: DEVX events refused: %s", name,
				      refused);
	if (!nok) {
		mlx5dv_devx_destroy_event_channel(c->ch);
		free(c);
		return ctx;
	}
	*out = c;
	return ctx;
}

int ibve_mlx5_fd(const struct ibve_mlx5_chan *c)
{
	return c->ch->fd;
}

size_t ibve_mlx5_read(struct ibve_mlx5_chan *c, const char *device,
		      uint64_t guid, struct ibve_event *evs, size_t max,
		      bool *gone)
{
	size_t n = 0;

	*gone = false;
	while (n < max) {
		union {
			struct mlx5dv_devx_async_event_hdr hdr;
			uint8_t raw[sizeof(uint64_t) + 64];
		} buf;
		struct ibve_event *ev = &evs[n];
		ssize_t len =
			mlx5dv_devx_get_event(c->ch, &buf.hdr, sizeof(buf));

		memset(ev, 0, sizeof(*ev));
		clock_gettime(CLOCK_REALTIME, &ev->time);
		ibve_strcpy(ev->device, device, sizeof(ev->device));
		ev->node_guid = guid;
		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			if (errno == EOVERFLOW) {
				/* The kernel says so once per overflow. */
				ibve_mlx5_event_lost(ev, ++c->overflows);
				n++;
				continue;
			}
			*gone = true; /* EIO: the device went away */
			break;
		}
		if ((size_t)len < sizeof(buf))
			continue; /* OMIT_EV_DATA was not asked for */
		ibve_mlx5_decode(ev, buf.hdr.out_data, 64);
		n++;
	}
	return n;
}

void ibve_mlx5_close(struct ibve_mlx5_chan *c)
{
	if (!c)
		return;
	mlx5dv_devx_destroy_event_channel(c->ch);
	free(c);
}

#else /* no libmlx5 headers */

struct ibv_context *ibve_mlx5_open(struct ibv_device *dev,
				   struct ibve_mlx5_chan **out,
				   struct ibve_monitor *m)
{
	(void)m;
	*out = NULL;
	return ibv_open_device(dev);
}

int ibve_mlx5_fd(const struct ibve_mlx5_chan *c)
{
	(void)c;
	return -1;
}

size_t ibve_mlx5_read(struct ibve_mlx5_chan *c, const char *device,
		      uint64_t guid, struct ibve_event *evs, size_t max,
		      bool *gone)
{
	(void)c;
	(void)device;
	(void)guid;
	(void)evs;
	(void)max;
	*gone = false;
	return 0;
}

void ibve_mlx5_close(struct ibve_mlx5_chan *c)
{
	(void)c;
}

#endif
