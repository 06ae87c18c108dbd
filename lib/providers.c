// SPDX-License-Identifier: MIT
/*
 * The providers the present devices need, loaded before libibverbs lists
 * the devices, in programs that ask for it (ibve_providers_preload()):
 * it learns libibverbs' private ABI, which a library should not impose
 * on every program that links it.
 *
 * ibv_get_device_list() matches each device against the providers that
 * are already registered, and only when a device is left unmatched does it
 * dlopen() every provider its configuration names: seventeen in rdma-core
 * 44, most of the time ibv_devinfo takes. The kernel tells which provider
 * each device wants (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, the number every
 * provider's match table names), so those are loaded first, from
 * libibverbs' own provider directory with its private ABI's suffix. A
 * device they do not match (or a provider that will not load) still gets
 * libibverbs' full load: nothing is lost but the time.
 *
 * RDMAV_DRIVERS and IBV_DRIVERS name providers to load first: with either
 * set, libibverbs is left to do all of it. Its configuration chooses
 * providers too (a "driver <name>" line per file, a name with a '/' a
 * path of the administrator's), so a provider is loaded here only where
 * its own file, CONFIG_DIR/<name>.driver, names it plainly: a provider
 * taken out of the configuration, or moved to another path, is left to
 * libibverbs.
 */
#include <dlfcn.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "hotplug.h"
#include "providers.h"
#include "sysfs.h"

/* Provider names (/etc/libibverbs.d) by the kernel's driver id. */
static const char *const provider_of[] = {
	[RDMA_DRIVER_MLX5] = "mlx5",
	[RDMA_DRIVER_MLX4] = "mlx4",
	[RDMA_DRIVER_CXGB4] = "cxgb4",
	[RDMA_DRIVER_MTHCA] = "mthca",
	[RDMA_DRIVER_BNXT_RE] = "bnxt_re",
	[RDMA_DRIVER_OCRDMA] = "ocrdma",
	[RDMA_DRIVER_IRDMA] = "irdma",
	[RDMA_DRIVER_VMW_PVRDMA] = "vmw_pvrdma",
	[RDMA_DRIVER_QEDR] = "qedr",
	[RDMA_DRIVER_HNS] = "hns",
	[RDMA_DRIVER_RXE] = "rxe",
	[RDMA_DRIVER_HFI1] = "hfi1verbs",
	[RDMA_DRIVER_QIB] = "ipathverbs",
	[RDMA_DRIVER_EFA] = "efa",
	[RDMA_DRIVER_SIW] = "siw",
	[RDMA_DRIVER_ERDMA] = "erdma",
};

#define NPROVIDERS (sizeof(provider_of) / sizeof(provider_of[0]))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled;	       /* ibve_providers_preload() was called */
static bool tried[NPROVIDERS]; /* each provider is loaded at most once */
static char prefix[4096];      /* ".../libibverbs/lib", "" unknown */
static unsigned int pabi;      /* libibverbs' private ABI, 0 unknown */

/* rdma-core's IBV_CONFIG_DIR, as its default build and Debian's set it */
#define CONFIG_DIR "/etc/libibverbs.d"

#define NL_TYPE(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
#define BATCH	    32 /* requests in one send: their replies fit the buffer */

/* Each device's index, from a dump of RDMA_NLDEV_CMD_GET. */
struct indices {
	uint32_t v[256];
	size_t n;
};

static void index_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct indices *ix = arg;

	if (type == RDMA_NLDEV_ATTR_DEV_INDEX && ix->n < 256)
		ix->v[ix->n++] = ibve_nl_attr_u32(data, len);
}

static void driver_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	uint64_t *id = arg;

	/* a u32, though the header's comment says u64 */
	if (type != RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID)
		return;
	if (len == sizeof(*id))
		memcpy(id, data, sizeof(*id));
	else if (len == sizeof(uint32_t))
		*id = ibve_nl_attr_u32(data, len);
}

/* A GET_CHARDEV request for the uverbs node of device INDEX, at P. */
static size_t chardev_request(char *p, uint32_t index, uint32_t seq)
{
	struct nlmsghdr *h = (struct nlmsghdr *)p;

	*h = (struct nlmsghdr){ .nlmsg_len = NLMSG_HDRLEN,
				.nlmsg_type =
					NL_TYPE(RDMA_NLDEV_CMD_GET_CHARDEV),
				.nlmsg_flags = NLM_F_REQUEST,
				.nlmsg_seq = seq };
	ibve_nl_attr_put(h, RDMA_NLDEV_ATTR_DEV_INDEX, &index, sizeof(index));
	ibve_nl_attr_put(h, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs",
			 sizeof("uverbs"));
	return h->nlmsg_len;
}

/*
 * Which providers the devices want, in WANT: one socket, one dump for the
 * devices' indices, then their uverbs nodes asked in batches (the kernel
 * answers a send's requests before the send returns).
 */
static void wanted(bool *want)
{
	struct nlmsghdr dump = {
		.nlmsg_len = NLMSG_HDRLEN,
		.nlmsg_type = NL_TYPE(RDMA_NLDEV_CMD_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nlmsg_seq = 1,
	};
	struct indices ix = { .n = 0 };
	/* zeroed: an attribute's padding goes to the kernel too */
	char req[BATCH * 64] __attribute__((aligned(NLMSG_ALIGNTO))) = { 0 };
	int fd = ibve_nl_rdma_socket(0);

	if (fd < 0)
		return;
	if (send(fd, &dump, dump.nlmsg_len, 0) < 0 ||
	    !ibve_nl_replies(fd, true, NL_TYPE(RDMA_NLDEV_CMD_GET), index_attr,
			     NULL, &ix))
		goto out;
	for (size_t i = 0; i < ix.n; i += BATCH) {
		size_t len = 0, k;
		uint64_t id[BATCH];

		for (k = 0; k < BATCH && i + k < ix.n; k++)
			len += chardev_request(req + len, ix.v[i + k],
					       (uint32_t)(2 + i + k));
		if (send(fd, req, len, 0) < 0)
			break;
		/* a reply's driver id, whichever device it is of */
		for (size_t j = 0; j < k; j++)
			id[j] = RDMA_DRIVER_UNKNOWN;
		for (size_t j = 0; j < k; j++) {
			if (!ibve_nl_replies(fd, false,
					     NL_TYPE(RDMA_NLDEV_CMD_GET_CHARDEV),
					     driver_attr, NULL, &id[j]))
				goto out;
			if (id[j] < NPROVIDERS && provider_of[id[j]])
				want[id[j]] = true;
		}
	}
out:
	close(fd);
}

/*
 * Where libibverbs keeps its providers and the suffix it gives them:
 * lib<name>-rdmav<N>.so beside it, N its IBVERBS_PRIVATE_<N> ABI, which
 * it exports as verbs_register_driver_<N>.
 */
static bool find_providers(void)
{
	Dl_info info;
	char sym[40];
	void *reg = NULL;
	const char *slash;

	for (unsigned int n = 1; n < 200 && !reg; n++) {
		snprintf(sym, sizeof(sym), "verbs_register_driver_%u", n);
		if ((reg = dlsym(RTLD_DEFAULT, sym)))
			pabi = n;
	}
	if (!reg || !dladdr(reg, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/')))
		return false;
	return snprintf(prefix, sizeof(prefix), "%.*s/libibverbs/lib",
			(int)(slash - info.dli_fname),
			info.dli_fname) < (int)sizeof(prefix);
}

/*
 * Whether CONFIG_DIR/NAME.driver has a line "driver NAME", read as
 * libibverbs reads it (blanks before and between, '#' a comment).
 */
static bool configured(const char *name)
{
	char path[sizeof(CONFIG_DIR) + 64], buf[1024];
	size_t nlen = strlen(name);

	snprintf(path, sizeof(path), CONFIG_DIR "/%s.driver", name);
	if (ibve_sysfs_read(path, buf, sizeof(buf)))
		return false;
	for (char *l = buf, *next; l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		l += strspn(l, " \t");
		if (strncmp(l, "driver", 6) || !strchr(" \t", l[6]) || !l[6])
			continue;
		l += 6 + strspn(l + 6, " \t");
		if (!strncmp(l, name, nlen) && strchr(" \t", l[nlen]))
			return true;
	}
	return false;
}

IBVE_EXPORT void ibve_providers_preload(void)
{
	pthread_mutex_lock(&lock);
	enabled = true;
	pthread_mutex_unlock(&lock);
}

/* Those providers, loaded (once each); a no-op where it cannot tell. */
static void load(void)
{
	static bool found, looked;
	bool want[NPROVIDERS] = { false };
	char path[sizeof(prefix) + 64];

	if (getenv("RDMAV_DRIVERS") || getenv("IBV_DRIVERS"))
		return;
	pthread_mutex_lock(&lock);
	if (enabled && !looked) {
		found = find_providers();
		looked = true;
	}
	if (enabled && found) {
		wanted(want);
		for (size_t i = 0; i < NPROVIDERS; i++) {
			if (!want[i] || tried[i])
				continue;
			tried[i] = true;
			if (!configured(provider_of[i]))
				continue;
			snprintf(path, sizeof(path), "%s%s-rdmav%u.so", prefix,
				 provider_of[i], pabi);
			/* kept: libibverbs never unloads a provider either */
			(void)dlopen(path, RTLD_NOW);
		}
	}
	pthread_mutex_unlock(&lock);
}

struct ibv_device **ibve_get_device_list(int *n)
{
	load();
	return ibv_get_device_list(n);
}

int ibve_device_list_error(int err)
{
	if (err == -ENOSYS)
		return ibve_error(ENOSYS,
				  "no RDMA devices found: the kernel offers no "
				  "RDMA to user space (is ib_uverbs loaded?)");
	return ibve_error(err, "listing RDMA devices: %s", strerror(-err));
}
