// SPDX-License-Identifier: MIT
/*
 * The LLDP neighbour of a RoCE port's netdev, as lldpd learnt it: one
 * connection to its control socket (liblldpctl's own synchronous I/O on a
 * local socket lldpd answers from memory), its interfaces, and of each
 * netdev asked the first neighbour: chassis id, port id, system name and
 * port description, the strings lldpcli shows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "lldp.h"
#ifdef IBVE_HAVE_LLDPCTL
#include "dl_lldpctl.h"
#endif

#ifdef IBVE_HAVE_LLDPCTL
static void none(struct ibve_peer *p, const char *fmt, const char *netdev)
{
	memset(p, 0, sizeof(*p));
	p->kind = IBVE_PEER_LLDP;
	p->state = IBVE_PEER_NONE;
	snprintf(p->reason, sizeof(p->reason), fmt, netdev);
}

static void str(char *dst, size_t size, lldpctl_atom_t *a, lldpctl_key_t key)
{
	const char *s = a ? lldpctl_atom_get_str(a, key) : NULL;

	/* a neighbour's text is anyone's bytes: written as it reads back */
	ibve_utf8_copy(dst, s ? s : "", size);
}

/* P := the first neighbour of local port PORT (an interface's). */
static void neighbour(struct ibve_peer *p, lldpctl_atom_t *port,
		      const char *netdev)
{
	lldpctl_atom_t *list = lldpctl_atom_get(port, lldpctl_k_port_neighbors);
	lldpctl_atom_iter_t *it = list ? lldpctl_atom_iter(list) : NULL;
	lldpctl_atom_t *n = it ? lldpctl_atom_iter_value(list, it) : NULL;
	lldpctl_atom_t *ch = n ? lldpctl_atom_get(n, lldpctl_k_port_chassis)
			       : NULL;

	if (!n) {
		none(p, "no LLDP neighbour on %s", netdev);
	} else {
		memset(p, 0, sizeof(*p));
		p->kind = IBVE_PEER_LLDP;
		p->state = IBVE_PEER_KNOWN;
		str(p->chassis, sizeof(p->chassis), ch, lldpctl_k_chassis_id);
		str(p->name, sizeof(p->name), ch, lldpctl_k_chassis_name);
		str(p->port_id, sizeof(p->port_id), n, lldpctl_k_port_id);
		str(p->port_desc, sizeof(p->port_desc), n,
		    lldpctl_k_port_descr);
	}
	lldpctl_atom_dec_ref(ch);
	lldpctl_atom_dec_ref(n);
	lldpctl_atom_dec_ref(list);
}

/* liblldpctl's own log (stderr by default): what fails is said once, by us */
static void quiet(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

int ibve_lldp_lookup(const char *const *netdevs, struct ibve_peer *peers,
		     size_t n)
{
	int r = ibve_dl_load(&ibve_lldpctl_dl);
	const char *path;
	lldpctl_conn_t *c;
	lldpctl_atom_t *ifs, *i;
	lldpctl_atom_iter_t *it;

	if (r)
		return r;
	lldpctl_log_callback(quiet);
	path = lldpctl_get_default_transport();
	if (access(path, F_OK) && errno == ENOENT)
		return ibve_error(ENOENT, "lldpd at %s: not started", path);
	if (!(c = lldpctl_new_name(path, NULL, NULL, NULL)))
		return ibve_error(ENOMEM, "lldpd at %s", path);
	if (!(ifs = lldpctl_get_interfaces(c))) {
		r = ibve_error(ECONNREFUSED, "lldpd at %s: %s", path,
			       lldpctl_strerror(lldpctl_last_error(c)));
		lldpctl_release(c);
		return r;
	}
	for (size_t k = 0; k < n; k++)
		none(&peers[k], "lldpd does not watch %s", netdevs[k]);
	for (it = lldpctl_atom_iter(ifs);
	     it && (i = lldpctl_atom_iter_value(ifs, it));
	     it = lldpctl_atom_iter_next(ifs, it)) {
		const char *name =
			lldpctl_atom_get_str(i, lldpctl_k_interface_name);
		lldpctl_atom_t *port = NULL;

		for (size_t k = 0; name && k < n; k++) {
			if (strcmp(name, netdevs[k]) != 0)
				continue;
			if (!port)
				port = lldpctl_get_port(i);
			if (port)
				neighbour(&peers[k], port, netdevs[k]);
		}
		lldpctl_atom_dec_ref(port);
		lldpctl_atom_dec_ref(i);
	}
	lldpctl_atom_dec_ref(ifs);
	lldpctl_release(c);
	return 0;
}
#else
int ibve_lldp_lookup(const char *const *netdevs, struct ibve_peer *peers,
		     size_t n)
{
	(void)netdevs;
	(void)peers;
	(void)n;
	return ibve_error(ENOTSUP, "built without liblldpctl");
}
#endif

/* A port with a netdev of its own, whose far end LLDP can say. */
static bool roce(const struct ibve_port_info *p)
{
	return p->link_layer == IBV_LINK_LAYER_ETHERNET && p->netdev[0];
}

IBVE_EXPORT int ibve_device_list_lldp(struct ibve_device_info *list,
				      size_t count)
{
	const char **names = NULL;
	struct ibve_peer *peers = NULL;
	size_t n = 0, k = 0;
	int r;

	for (size_t d = 0; d < count; d++)
		for (size_t p = 0; p < list[d].port_count; p++)
			n += roce(&list[d].ports[p]);
	if (!n)
		return 0;
	names = calloc(n, sizeof(*names));
	peers = calloc(n, sizeof(*peers));
	if (!names || !peers) {
		r = ibve_error(ENOMEM, "LLDP peers");
		goto out;
	}
	for (size_t d = 0; d < count; d++)
		for (size_t p = 0; p < list[d].port_count; p++)
			if (roce(&list[d].ports[p]))
				names[k++] = list[d].ports[p].netdev;
	if ((r = ibve_lldp_lookup(names, peers, n)))
		goto out;
	k = 0;
	for (size_t d = 0; d < count; d++)
		for (size_t p = 0; p < list[d].port_count; p++)
			if (roce(&list[d].ports[p]))
				list[d].ports[p].peer = peers[k++];
out:
	free(names);
	free(peers);
	return r;
}
