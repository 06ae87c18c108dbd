/* SPDX-License-Identifier: MIT */
/* liblldpctl, loaded (dl.h) when the LLDP peers of RoCE ports are asked. */
#ifndef IBVE_DL_LLDPCTL_H
#define IBVE_DL_LLDPCTL_H

#include <lldpctl.h>

#include "dl.h"

#define IBVE_LLDPCTL_FUNCS(X)            \
	X(lldpctl_atom_dec_ref)          \
	X(lldpctl_atom_get)              \
	X(lldpctl_atom_get_str)          \
	X(lldpctl_atom_iter)             \
	X(lldpctl_atom_iter_next)        \
	X(lldpctl_atom_iter_value)       \
	X(lldpctl_get_default_transport) \
	X(lldpctl_get_interfaces)        \
	X(lldpctl_get_port)              \
	X(lldpctl_last_error)            \
	X(lldpctl_log_callback)          \
	X(lldpctl_new_name)              \
	X(lldpctl_release)               \
	X(lldpctl_strerror)

struct ibve_lldpctl {
	IBVE_LLDPCTL_FUNCS(IBVE_DL_MEMBER)
};
extern struct ibve_lldpctl ibve_lldpctl_fn;
extern struct ibve_dl ibve_lldpctl_dl;

/* Every liblldpctl call goes through the table. */
#define lldpctl_atom_dec_ref	(*ibve_lldpctl_fn.lldpctl_atom_dec_ref)
#define lldpctl_atom_get	(*ibve_lldpctl_fn.lldpctl_atom_get)
#define lldpctl_atom_get_str	(*ibve_lldpctl_fn.lldpctl_atom_get_str)
#define lldpctl_atom_iter	(*ibve_lldpctl_fn.lldpctl_atom_iter)
#define lldpctl_atom_iter_next	(*ibve_lldpctl_fn.lldpctl_atom_iter_next)
#define lldpctl_atom_iter_value (*ibve_lldpctl_fn.lldpctl_atom_iter_value)
#define lldpctl_get_default_transport \
	(*ibve_lldpctl_fn.lldpctl_get_default_transport)
#define lldpctl_get_interfaces (*ibve_lldpctl_fn.lldpctl_get_interfaces)
#define lldpctl_get_port       (*ibve_lldpctl_fn.lldpctl_get_port)
#define lldpctl_last_error     (*ibve_lldpctl_fn.lldpctl_last_error)
#define lldpctl_log_callback   (*ibve_lldpctl_fn.lldpctl_log_callback)
#define lldpctl_new_name       (*ibve_lldpctl_fn.lldpctl_new_name)
#define lldpctl_release	       (*ibve_lldpctl_fn.lldpctl_release)
#define lldpctl_strerror       (*ibve_lldpctl_fn.lldpctl_strerror)

#endif
