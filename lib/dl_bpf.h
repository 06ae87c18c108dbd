/* SPDX-License-Identifier: MIT */
/*
 * libbpf (and with it libelf and zlib), loaded (dl.h) when the kernel
 * source starts. Include the skeleton after this header: its calls go
 * through the table too (attach and detach included, which it defines
 * though the source attaches each program itself).
 */
#ifndef IBVE_DL_BPF_H
#define IBVE_DL_BPF_H

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "dl.h"

#define IBVE_BPF_FUNCS(X)                  \
	X(bpf_link__destroy)               \
	X(bpf_map__fd)                     \
	X(bpf_map__get_next_key)           \
	X(bpf_map__lookup_and_delete_elem) \
	X(bpf_map__lookup_elem)            \
	X(bpf_map__set_max_entries)        \
	X(bpf_map__update_elem)            \
	X(bpf_object__attach_skeleton)     \
	X(bpf_object__destroy_skeleton)    \
	X(bpf_object__detach_skeleton)     \
	X(bpf_object__load_skeleton)       \
	X(bpf_object__open_skeleton)       \
	X(bpf_program__attach)             \
	X(bpf_program__set_autoload)       \
	X(btf__find_by_name_kind)          \
	X(btf__free)                       \
	X(btf__load_vmlinux_btf)           \
	X(btf__parse_split)                \
	X(libbpf_set_print)                \
	X(ring_buffer__consume)            \
	X(ring_buffer__free)               \
	X(ring_buffer__new)

struct ibve_bpf {
	IBVE_BPF_FUNCS(IBVE_DL_MEMBER)
};
extern struct ibve_bpf ibve_bpf_fn;
extern struct ibve_dl ibve_bpf_dl;

/* Every libbpf call goes through the table. */
#define bpf_link__destroy     (*ibve_bpf_fn.bpf_link__destroy)
#define bpf_map__fd	      (*ibve_bpf_fn.bpf_map__fd)
#define bpf_map__get_next_key (*ibve_bpf_fn.bpf_map__get_next_key)
#define bpf_map__lookup_and_delete_elem \
	(*ibve_bpf_fn.bpf_map__lookup_and_delete_elem)
#define bpf_map__lookup_elem	     (*ibve_bpf_fn.bpf_map__lookup_elem)
#define bpf_map__set_max_entries     (*ibve_bpf_fn.bpf_map__set_max_entries)
#define bpf_map__update_elem	     (*ibve_bpf_fn.bpf_map__update_elem)
#define bpf_object__attach_skeleton  (*ibve_bpf_fn.bpf_object__attach_skeleton)
#define bpf_object__destroy_skeleton (*ibve_bpf_fn.bpf_object__destroy_skeleton)
#define bpf_object__detach_skeleton  (*ibve_bpf_fn.bpf_object__detach_skeleton)
#define bpf_object__load_skeleton    (*ibve_bpf_fn.bpf_object__load_skeleton)
#define bpf_object__open_skeleton    (*ibve_bpf_fn.bpf_object__open_skeleton)
#define bpf_program__attach	     (*ibve_bpf_fn.bpf_program__attach)
#define bpf_program__set_autoload    (*ibve_bpf_fn.bpf_program__set_autoload)
#define btf__find_by_name_kind	     (*ibve_bpf_fn.btf__find_by_name_kind)
#define btf__free		     (*ibve_bpf_fn.btf__free)
#define btf__load_vmlinux_btf	     (*ibve_bpf_fn.btf__load_vmlinux_btf)
#define btf__parse_split	     (*ibve_bpf_fn.btf__parse_split)
#define libbpf_set_print	     (*ibve_bpf_fn.libbpf_set_print)
#define ring_buffer__consume	     (*ibve_bpf_fn.ring_buffer__consume)
#define ring_buffer__free	     (*ibve_bpf_fn.ring_buffer__free)
#define ring_buffer__new	     (*ibve_bpf_fn.ring_buffer__new)

#endif
