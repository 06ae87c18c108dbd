/* SPDX-License-Identifier: MIT */
/* The device list, its providers loaded first (providers.c). */
#ifndef IBVE_PROVIDERS_H
#define IBVE_PROVIDERS_H

/*
 * ibv_get_device_list(), after ibve_providers_preload() with the providers
 * the present devices need loaded first, so that libibverbs does not load
 * all it knows of.
 */
struct ibv_device;
struct ibv_device **ibve_get_device_list(int *n);
/* ibv_get_device_list() failed with ERR (-errno): say why, return ERR. */
int ibve_device_list_error(int err);

#endif
