// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * CompSC side of `compsc devices`: what the project's kernel code exposes
 * about each VF, read where it is published and never guessed.
 *
 *   area registered   debugfs compsc/areas (compsc.ko's registry; a line
 *                     "PF VF GPA SIZE" per area a PF driver accepted)
 *   mode, restores    the VF's interface, ethtool -S: a CompSC driver with
 *                     a registered area reports compsc_mode and
 *                     compsc_restores; any other driver has no compsc_*
 *   last migration    debugfs compsc_standin/<VF>/result (the stand-in)
 *                     or compsc_vfio/<VF>/result (the variant driver, where
 *                     it offers DMA logging), one format
 */
#include "devices.h"

#include <dirent.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEV_DEBUGFS	"/sys/kernel/debug"
#define DEV_AREAS	DEV_DEBUGFS "/compsc/areas"
/* ethtool -S answers -EBUSY while a host holds the device (a migration) */
#define DEV_BUSY_TRIES	20
#define DEV_STATS_MAX	4096

/* compsc/areas: mark every VF that has a line. */
static void dev_areas(struct dev_list *l)
{
	char bdf[DEV_BDF_LEN + 1], line[256];
	int i, vf, k;
	FILE *f = fopen(DEV_AREAS, "r");

	if (!f) {
		snprintf(l->areas_err, sizeof(l->areas_err), "%s: %s", DEV_AREAS,
			 strerror(errno));
		return;
	}
	for (i = 0; i < l->nr_pf; i++)
		for (k = 0; k < l->pf[i].nr_vfs; k++)
			l->pf[i].vfs[k].area = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%16s %d", bdf, &vf) != 2)
			continue;
		for (i = 0; i < l->nr_pf; i++)
			if (!strcmp(l->pf[i].bdf, bdf) && vf >= 0 &&
			    vf < l->pf[i].nr_vfs)
				l->pf[i].vfs[vf].area = 1;
	}
	fclose(f);
}

/* The first network interface of PCI function @bdf, or "". */
static void dev_netdev(const char *bdf, char *out)
{
	char path[96];
	struct dirent *e;
	DIR *d;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", bdf);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		/* interface names are shorter than IFNAMSIZ (16) */
		if (e->d_name[0] != '.' && strlen(e->d_name) < DEV_NAME_LEN) {
			memcpy(out, e->d_name, strlen(e->d_name) + 1);
			break;
		}
	closedir(d);
}

static int dev_ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;
	int tries = DEV_BUSY_TRIES;
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	while (ioctl(fd, SIOCETHTOOL, &ifr)) {
		if (errno != EBUSY || !--tries)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Number of ethtool -S values of @ifname, or -errno. */
static int dev_stats_len(int fd, const char *ifname)
{
	struct {
		struct ethtool_sset_info hdr;
		__u32 len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ull << ETH_SS_STATS } };
	int err = dev_ethtool(fd, ifname, &info);

	if (err)
		return err;
	if (!info.hdr.sset_mask)
		return 0;
	return info.len > DEV_STATS_MAX ? -E2BIG : (int)info.len;
}

/* Index of @name among the @n strings, or -1. */
static int dev_stat_index(const struct ethtool_gstrings *s, int n,
			  const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp((const char *)s->data + i * ETH_GSTRING_LEN, name,
			     ETH_GSTRING_LEN))
			return i;
	return -1;
}

static void dev_mode_from(struct dev_vf *vf, const struct ethtool_gstrings *s,
			  const struct ethtool_stats *st, int n)
{
	int mode = dev_stat_index(s, n, "compsc_mode");
	int restores = dev_stat_index(s, n, "compsc_restores");

	vf->mode = mode >= 0 && st->data[mode] ? DEV_MODE_COMPSC : DEV_MODE_STOCK;
	if (restores >= 0)
		vf->restores = (long long)st->data[restores];
}

/* ethtool -S of the VF's interface: compsc_mode and compsc_restores. */
static void dev_stats(int fd, struct dev_vf *vf)
{
	struct ethtool_gstrings *s;
	struct ethtool_stats *st;
	int n = dev_stats_len(fd, vf->netdev);

	if (n < 0)
		return;
	s = calloc(1, sizeof(*s) + (size_t)n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)n * sizeof(__u64));
	if (!s || !st)
		goto out;
	s->cmd = ETHTOOL_GSTRINGS;
	s->string_set = ETH_SS_STATS;
	s->len = n;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	/* the set may change between the calls (the area comes or goes) */
	if (!dev_ethtool(fd, vf->netdev, s) && !dev_ethtool(fd, vf->netdev, st) &&
	    s->len == (__u32)n && st->n_stats == (__u32)n)
		dev_mode_from(vf, s, st, n);
out:
	free(s);
	free(st);
}

/*
 * The VF's last migration as the host side that ran it recorded it: the
 * stand-in or compsc_vfio (a VF is bound to at most one of them).
 */
static void dev_mig_result(struct dev_vf *vf)
{
	static const char *const owners[] = { "compsc_standin", "compsc_vfio" };
	char path[128], line[160], val[sizeof(vf->mig_status)];
	FILE *f = NULL;
	long long n;
	size_t i;
	int e;

	for (i = 0; !f && i < sizeof(owners) / sizeof(owners[0]); i++) {
		snprintf(path, sizeof(path), DEV_DEBUGFS "/%s/%s/result",
			 owners[i], vf->bdf);
		f = fopen(path, "r");
	}
	if (!f)
		return;
	vf->mig_source = owners[i - 1];
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "migrations=%lld", &n) == 1)
			vf->migrations = n;
		else if (sscanf(line, "status=%15s", val) == 1)
			snprintf(vf->mig_status, sizeof(vf->mig_status), "%s", val);
		else if (sscanf(line, "errno=%d", &e) == 1)
			vf->mig_errno = e;
		else if (!strncmp(line, "reason=", 7))
			snprintf(vf->mig_reason, sizeof(vf->mig_reason), "%.*s",
				 (int)strcspn(line + 7, "\n"), line + 7);
	}
	fclose(f);
}

void dev_state(struct dev_list *l)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct dev_vf *vf;
	int i, k;

	for (i = 0; i < l->nr_pf; i++)
		for (k = 0; k < l->pf[i].nr_vfs; k++) {
			vf = &l->pf[i].vfs[k];
			vf->area = -1;
			vf->restores = -1;
			vf->migrations = -1;
			dev_netdev(vf->bdf, vf->netdev);
			if (vf->netdev[0] && fd >= 0)
				dev_stats(fd, vf);
			dev_mig_result(vf);
		}
	dev_areas(l);
	if (fd >= 0)
		close(fd);
}
