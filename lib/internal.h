/* SPDX-License-Identifier: MIT */
/* Shared inside libibvevent only; nothing here is exported. */
#ifndef IBVE_INTERNAL_H
#define IBVE_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "ibvevent.h"

#define IBVE_EXPORT   __attribute__((visibility("default")))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Counts of the public enums, for tables inside the library only. */
#define IBVE_SEVERITY_COUNT (IBVE_SEVERITY_FATAL + 1)

/* Copy SRC into DST of SIZE bytes, always terminated, truncating. */
static inline void ibve_strcpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Length of the valid UTF-8 sequence at S (0: not valid). */
static inline size_t ibve_utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80	 ? 1
		   : s[0] < 0xc2 ? 0
		   : s[0] < 0xe0 ? 2
		   : s[0] < 0xf0 ? 3
		   : s[0] < 0xf5 ? 4
				 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * SRC into DST of SIZE bytes as the records are written: a byte that is
 * not UTF-8 as U+FFFD, whole characters only, so that what is written
 * reads back. False when SRC did not fit (DST holds what did).
 */
bool ibve_utf8_copy(char *dst, const char *src, size_t size);

/*
 * The error idiom: a failing function returns ibve_error(errno, what) — a
 * negative errno — after saying why for ibve_errmsg().
 */
int ibve_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Time arithmetic, written once. */
void ibve_ts_add(struct timespec *t, double seconds);
void ibve_ts_add_ms(struct timespec *t, long ms);
bool ibve_ts_before(const struct timespec *a, const struct timespec *b);
double ibve_ts_secs(const struct timespec *from, const struct timespec *to);

/*
 * A source's own environment variable NAME (IBVEVENT_...): seconds, at
 * most a day, 0 when unset or not a number; whether it is VALUE.
 */
unsigned int ibve_env_seconds(const char *name);
bool ibve_env_is(const char *name, const char *value);

#include "buf.h"

#define IBVE_SYSFS "/sys/class/infiniband"

/*
 * The part of a filter a record's identity decides: its device, and the
 * include and exclude terms (name, class, source, severity). Whether F has
 * any such part.
 */
bool ibve_filter_match_identity(const struct ibve_filter *f,
				const struct ibve_event *ev);
bool ibve_filter_has_identity(const struct ibve_filter *f);
/* F's owner sets (--pid, --comm): how many, and where in *V. */
size_t ibve_filter_pids(const struct ibve_filter *f, const uint32_t **v);
size_t ibve_filter_comms(const struct ibve_filter *f, const char (**v)[16]);

struct ibv_async_event;

/*
 * ibve_event_from_verbs() into a record the pipeline made: already zeroed,
 * its time and device name set (a storm is not zeroed and timed twice).
 */
void ibve_event_fill_verbs(struct ibve_event *ev,
			   const struct ibv_async_event *ae,
			   uint64_t node_guid);

/* rdma-core 62's IBV_EVENT_DEVICE_SPEED_CHANGE, unknown to Debian 12's. */
#define IBVE_VERBS_DEVICE_SPEED_CHANGE 20

/*
 * The rates of N ports before (OLD) and after (NOW), "" unknown: the ports
 * whose rate changed go into EV (IBVE_FIELD_RATES, when any did).
 */
void ibve_rates_diff(struct ibve_event *ev, const char (*old)[28],
		     const char (*now)[28], uint32_t n);
/* PORT_ACTIVE at NOW after a PORT_ERR at DOWN_AT: the down time on EV. */
void ibve_event_set_down(struct ibve_event *ev, const struct timespec *down_at);

int ibve_sysfs_read(const char *path, char *buf, size_t size);
/* A port's attributes, each file read once; -errno: no such port. */
int ibve_sysfs_port(const char *device, uint32_t port,
		    struct ibve_port_attrs *a);
/* The same from a port's directory DIR (IBVE_SYSFS/DEV/ports/N). */
int ibve_sysfs_port_dir(const char *dir, struct ibve_port_attrs *a);
/*
 * The network device of the RoCE or iWARP port whose directory is DIR
 * (its default GID's), into BUF; -errno and "" when there is none
 * (InfiniBand).
 */
int ibve_sysfs_port_netdev(const char *dir, char *buf, size_t size);
/* The node GUID of DEVICE from sysfs, 0 when it cannot be read. */
uint64_t ibve_sysfs_node_guid(const char *device);
/*
 * ibv_get_device_list(), after ibve_providers_preload() with the providers
 * the present devices need loaded first, so that libibverbs does not load
 * all it knows of.
 */
struct ibv_device;
struct ibv_device **ibve_get_device_list(int *n);
/* ibv_get_device_list() failed with ERR (-errno): say why, return ERR. */
int ibve_device_list_error(int err);

/* The object or detail of EV, as text shows it: " (qp 0x000011, ...)". */
void ibve_buf_event_details(struct ibve_buf *b, const struct ibve_event *ev);
/* A summary's words, "storm: x12,345 in 1.0 s", for text and syslog. */
void ibve_buf_summary(struct ibve_buf *b, const struct ibve_event *ev);
/* The text of EV: its summary's words, else its explanation. */
void ibve_buf_event_text(struct ibve_buf *b, const struct ibve_event *ev);
/* Its optional fields as JSON members. */
void ibve_json_event_fields(struct ibve_json *j, const struct ibve_event *ev);
/* EV's members as the journal's fields, each after a NUL (buf.h). */
size_t ibve_event_format_fields(const struct ibve_event *ev, char *buf,
				size_t size);

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

/* Whether a port counter of that name counts errors (dashboard). */
bool ibve_is_error_counter(const char *name);

/* Append a formatted note to the list *NOTES of *N; false if out of memory. */
bool ibve_notes_addv(char ***notes, size_t *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * EV as source SOURCE (-1: none said) has row D's event: D, the kernel's
 * view of a verbs row, or SOURCE's own row of the name; else D as it is.
 */
void ibve_event_set_row(struct ibve_event *ev, int source,
			const struct ibve_event_desc *d);
/*
 * What events this version does not know share (name "UNKNOWN", no code):
 * their explanation, MESSAGE_ID and advice.
 */
extern const struct ibve_event_desc ibve_unknown_desc;
/*
 * For a filter term WORD that names nothing: the event name, class, source
 * or severity (after "severity>=" and the like, that bound with the
 * nearest level) it is nearest, in OUT; false when none is near.
 */
bool ibve_term_suggest(const char *word, char *out, size_t size);
/* The generic row used for codes this version does not know. */
void ibve_event_set_unknown(struct ibve_event *ev, enum ibve_source source,
			    int code);

#endif
