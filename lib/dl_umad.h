/* SPDX-License-Identifier: MIT */
/* libibumad, loaded (dl.h) when the subnet source starts. */
#ifndef IBVE_DL_UMAD_H
#define IBVE_DL_UMAD_H

#include <infiniband/umad.h>

#include "dl.h"

#define IBVE_UMAD_FUNCS(X)    \
	X(umad_close_port)    \
	X(umad_get_ca)        \
	X(umad_get_cas_names) \
	X(umad_get_issm_path) \
	X(umad_get_mad)       \
	X(umad_get_mad_addr)  \
	X(umad_get_port)      \
	X(umad_init)          \
	X(umad_open_port)     \
	X(umad_recv)          \
	X(umad_register)      \
	X(umad_release_ca)    \
	X(umad_release_port)  \
	X(umad_send)          \
	X(umad_set_addr)      \
	X(umad_status)        \
	X(umad_unregister)

struct ibve_umad {
	IBVE_UMAD_FUNCS(IBVE_DL_MEMBER)
};
extern struct ibve_umad ibve_umad_fn;
extern struct ibve_dl ibve_umad_dl;

/* Every libibumad call goes through the table. */
#define umad_close_port	   (*ibve_umad_fn.umad_close_port)
#define umad_get_ca	   (*ibve_umad_fn.umad_get_ca)
#define umad_get_cas_names (*ibve_umad_fn.umad_get_cas_names)
#define umad_get_issm_path (*ibve_umad_fn.umad_get_issm_path)
#define umad_get_mad	   (*ibve_umad_fn.umad_get_mad)
#define umad_get_mad_addr  (*ibve_umad_fn.umad_get_mad_addr)
#define umad_get_port	   (*ibve_umad_fn.umad_get_port)
#define umad_init	   (*ibve_umad_fn.umad_init)
#define umad_open_port	   (*ibve_umad_fn.umad_open_port)
#define umad_recv	   (*ibve_umad_fn.umad_recv)
#define umad_register	   (*ibve_umad_fn.umad_register)
#define umad_release_ca	   (*ibve_umad_fn.umad_release_ca)
#define umad_release_port  (*ibve_umad_fn.umad_release_port)
#define umad_send	   (*ibve_umad_fn.umad_send)
#define umad_set_addr	   (*ibve_umad_fn.umad_set_addr)
#define umad_status	   (*ibve_umad_fn.umad_status)
#define umad_unregister	   (*ibve_umad_fn.umad_unregister)

#endif
