// SPDX-License-Identifier: MIT
/*
 * The library's optional libraries (dl.h): their tables, filled by the
 * loader the first time a source or the JSON reader needs one.
 */
#include "util.h"
#include "dl_jsonc.h"
#include "dl_umad.h"
#ifdef IBVE_HAVE_LLDPCTL
#include "dl_lldpctl.h"
#endif
#ifdef IBVE_HAVE_MLX5
#include "dl_mlx5.h"
#endif
#ifdef IBVE_HAVE_BPF
#include "dl_bpf.h"
#endif

/* The names the Makefile found; these are Debian 12's. */
#ifndef IBVE_SONAME_JSONC
#define IBVE_SONAME_JSONC "libjson-c.so.5"
#endif
#ifndef IBVE_SONAME_UMAD
#define IBVE_SONAME_UMAD "libibumad.so.3"
#endif
#ifndef IBVE_SONAME_LLDPCTL
#define IBVE_SONAME_LLDPCTL "liblldpctl.so.4"
#endif
#ifndef IBVE_SONAME_MLX5
#define IBVE_SONAME_MLX5 "libmlx5.so.1"
#endif
#ifndef IBVE_SONAME_BPF
#define IBVE_SONAME_BPF "libbpf.so.1"
#endif

#define IBVE_DL_NAME(f) #f,

/* LIB's table, the names of its functions (in order), and its loader. */
#define LIBRARY(lib, funcs, file, need, deb)                                  \
	struct ibve_##lib ibve_##lib##_fn;                                    \
	static const char *const lib##_names[] = { funcs(IBVE_DL_NAME) };     \
	IBVE_DL_DEFINE(, ibve_##lib##_dl, ibve_##lib##_fn, lib##_names, file, \
		       need, deb)

LIBRARY(jsonc, IBVE_JSONC_FUNCS, IBVE_SONAME_JSONC, "to read JSON",
	"libjson-c5");
LIBRARY(umad, IBVE_UMAD_FUNCS, IBVE_SONAME_UMAD, "for subnet events",
	"libibumad3");
#ifdef IBVE_HAVE_LLDPCTL
LIBRARY(lldpctl, IBVE_LLDPCTL_FUNCS, IBVE_SONAME_LLDPCTL,
	"for the LLDP peers of RoCE ports", "liblldpctl4");
#endif
#ifdef IBVE_HAVE_MLX5
LIBRARY(mlx5, IBVE_MLX5_FUNCS, IBVE_SONAME_MLX5, "for mlx5 DEVX events",
	"ibverbs-providers");
#endif
#ifdef IBVE_HAVE_BPF
LIBRARY(bpf, IBVE_BPF_FUNCS, IBVE_SONAME_BPF, "for the eBPF programs",
	"libbpf1");
#endif
