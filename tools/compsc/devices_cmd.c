// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * `compsc devices`: the SR-IOV PFs of this machine with their VFs, the
 * SR-IOV capability as the PF reports it (devices_pci.c, libpci) and the
 * CompSC state of each VF (devices_state.c, debugfs and ethtool -S).
 */
#include "cli.h"
#include "devices.h"

#include <string.h>

static const char devices_usage[] =
"usage: compsc devices [--json]\n"
"\n"
"Lists every SR-IOV physical function (a function with an SR-IOV extended\n"
"capability, read with libpci) and its enabled VFs: BDF, driver bound,\n"
"TotalVFs/NumVFs, VF device ID, VF offset/stride; per VF whether its\n"
"CompSC area is registered (debugfs compsc/areas), the driver's mode and\n"
"restores so far (ethtool -S compsc_mode, compsc_restores) and the last\n"
"migration the stand-in hypervisor ran (debugfs compsc_standin/<BDF>/result).\n"
"\"-\" (null in JSON): nothing publishes that value here.\n"
"\n"
"  --json   one JSON document (keys: tools/README.md)\n"
"\n"
"Needs root: config space past 64 bytes (where SR-IOV lives) is readable\n"
"with CAP_SYS_ADMIN only, and debugfs by root.\n"
"Exit: 0 listed (also when there is no PF), 2 usage error or not readable.\n";

static const char *dev_mode_name(enum dev_mode m)
{
	switch (m) {
	case DEV_MODE_COMPSC:
		return "compsc";
	case DEV_MODE_STOCK:
		return "stock";
	default:
		return NULL;
	}
}

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* System Page Size is a one-hot mask: bit n is 4 KiB << n. */
static u64 dev_page_bytes(u32 mask)
{
	int n;

	for (n = 0; n < 32; n++)
		if (mask & (1u << n))
			return 4096ull << n;
	return 0;
}

static void dev_vf_text(const struct dev_vf *vf)
{
	char restores[24] = "-", mig[64 + sizeof(vf->mig_reason)] = "-";

	if (vf->restores >= 0)
		snprintf(restores, sizeof(restores), "%lld", vf->restores);
	if (!strcmp(vf->mig_status, "error") ||
	    !strcmp(vf->mig_status, "taken_back"))
		snprintf(mig, sizeof(mig), "%s (errno %d)", vf->mig_status,
			 vf->mig_errno);
	else if (vf->mig_status[0] && vf->mig_reason[0])
		snprintf(mig, sizeof(mig), "%s (%s)", vf->mig_status,
			 vf->mig_reason);
	else if (vf->mig_status[0] && vf->migrations > 0)
		snprintf(mig, sizeof(mig), "%s (%lld migration%s)", vf->mig_status,
			 vf->migrations, vf->migrations == 1 ? "" : "s");
	else if (vf->mig_status[0])
		snprintf(mig, sizeof(mig), "%s", vf->mig_status);
	printf("  %-3d %-13s %-12s %-10s %-5s %-7s %-9s %s\n", vf->index,
	       vf->bdf, vf->present ? dash(vf->driver) : "(absent)",
	       dash(vf->netdev),
	       vf->area < 0 ? "-" : vf->area ? "yes" : "no",
	       dash(dev_mode_name(vf->mode)), restores, mig);
}

static void dev_pf_text(const struct dev_pf *pf)
{
	const struct dev_sriov *s = &pf->sr;
	int k;

	printf("PF %s  %04x:%04x  driver %s\n", pf->bdf, pf->vendor, pf->device,
	       dash(pf->driver));
	printf("  SR-IOV: TotalVFs %u, InitialVFs %u, NumVFs %u, VF Enable %s, VF device %04x:%04x, VF offset %u, VF stride %u, page size %llu KiB\n",
	       s->total_vfs, s->initial_vfs, s->num_vfs,
	       s->ctrl & DEV_SRIOV_VFE ? "yes" : "no", pf->vendor,
	       s->vf_device, s->vf_offset, s->vf_stride,
	       (unsigned long long)dev_page_bytes(s->page_size) / 1024);
	if (!pf->nr_vfs) {
		printf("  no VFs enabled\n");
		return;
	}
	printf("  %-3s %-13s %-12s %-10s %-5s %-7s %-9s %s\n", "VF", "BDF",
	       "driver", "interface", "area", "mode", "restores",
	       "last migration");
	for (k = 0; k < pf->nr_vfs; k++)
		dev_vf_text(&pf->vfs[k]);
}

static void dev_text(const struct dev_list *l)
{
	int i, vfs = 0;

	if (!l->nr_pf) {
		printf("no SR-IOV physical functions found (%d PCI function%s scanned)\n",
		       l->nr_devices, l->nr_devices == 1 ? "" : "s");
		return;
	}
	for (i = 0; i < l->nr_pf; i++) {
		if (i)
			putchar('\n');
		dev_pf_text(&l->pf[i]);
		vfs += l->pf[i].nr_vfs;
	}
	printf("\n%d PF%s, %d VF%s enabled\n", l->nr_pf, l->nr_pf == 1 ? "" : "s",
	       vfs, vfs == 1 ? "" : "s");
	if (l->areas_err[0])
		printf("area -: %s (compsc.ko not loaded or debugfs not mounted)\n",
		       l->areas_err);
}

static void dev_str_or_null(struct jw *j, const char *key, const char *s)
{
	if (s && *s)
		jw_str(j, key, s);
	else
		jw_null(j, key);
}

static void dev_int_or_null(struct jw *j, const char *key, long long v)
{
	if (v >= 0)
		jw_s64(j, key, v);
	else
		jw_null(j, key);
}

static void dev_vf_json(struct jw *j, const struct dev_vf *vf)
{
	jw_obj(j, NULL);
	jw_u64(j, "index", vf->index);
	jw_str(j, "bdf", vf->bdf);
	jw_bool(j, "present", vf->present);
	dev_str_or_null(j, "driver", vf->driver);
	dev_str_or_null(j, "netdev", vf->netdev);
	if (vf->area < 0)
		jw_null(j, "area_registered");
	else
		jw_bool(j, "area_registered", vf->area);
	dev_str_or_null(j, "mode", dev_mode_name(vf->mode));
	dev_int_or_null(j, "restores", vf->restores);
	if (vf->mig_status[0]) {
		jw_obj(j, "last_migration");
		jw_str(j, "source", vf->mig_source);
		jw_str(j, "status", vf->mig_status);
		dev_int_or_null(j, "migrations", vf->migrations);
		jw_s64(j, "errno", vf->mig_errno);
		dev_str_or_null(j, "reason", vf->mig_reason);
		jw_end_obj(j);
	} else {
		jw_null(j, "last_migration");
	}
	jw_end_obj(j);
}

static void dev_sriov_json(struct jw *j, const struct dev_pf *pf)
{
	const struct dev_sriov *s = &pf->sr;
	char id[10];

	snprintf(id, sizeof(id), "%04x:%04x", pf->vendor, s->vf_device);
	jw_obj(j, "sriov");
	jw_u64(j, "total_vfs", s->total_vfs);
	jw_u64(j, "initial_vfs", s->initial_vfs);
	jw_u64(j, "num_vfs", s->num_vfs);
	jw_bool(j, "vf_enable", s->ctrl & DEV_SRIOV_VFE);
	jw_u64(j, "vf_device", s->vf_device);
	jw_str(j, "vf_id", id);
	jw_u64(j, "vf_offset", s->vf_offset);
	jw_u64(j, "vf_stride", s->vf_stride);
	jw_u64(j, "supported_page_sizes", s->page_sizes);
	jw_u64(j, "system_page_size", dev_page_bytes(s->page_size));
	jw_u64(j, "capabilities", s->cap);
	jw_u64(j, "control", s->ctrl);
	jw_end_obj(j);
}

static void dev_pf_json(struct jw *j, const struct dev_pf *pf)
{
	char id[10];
	int k;

	snprintf(id, sizeof(id), "%04x:%04x", pf->vendor, pf->device);
	jw_obj(j, NULL);
	jw_str(j, "bdf", pf->bdf);
	jw_str(j, "id", id);
	jw_u64(j, "vendor", pf->vendor);
	jw_u64(j, "device", pf->device);
	dev_str_or_null(j, "driver", pf->driver);
	dev_sriov_json(j, pf);
	jw_arr(j, "vfs");
	for (k = 0; k < pf->nr_vfs; k++)
		dev_vf_json(j, &pf->vfs[k]);
	jw_end_arr(j);
	jw_end_obj(j);
}

static void dev_json(const struct dev_list *l)
{
	struct jw j;
	int i;

	jw_init(&j, stdout);
	jw_obj(&j, NULL);
	jw_u64(&j, "pci_functions", l->nr_devices);
	jw_arr(&j, "pfs");
	for (i = 0; i < l->nr_pf; i++)
		dev_pf_json(&j, &l->pf[i]);
	jw_end_arr(&j);
	dev_str_or_null(&j, "areas_error", l->areas_err);
	jw_end_obj(&j);
	jw_done(&j);
}

int cmd_devices(int argc, char **argv)
{
	char why[CLI_WHY_MAX];
	struct dev_list l;
	int i, json = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(devices_usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--json"))
			return cli_err(EXIT_USAGE, "devices: unknown argument '%s' (see compsc devices --help)",
				       argv[i]);
		json = 1;
	}
	if (dev_scan(&l, why, sizeof(why)))
		return cli_err(EXIT_USAGE, "devices: %s", why);
	dev_state(&l);
	if (json)
		dev_json(&l);
	else
		dev_text(&l);
	dev_list_free(&l);
	return 0;
}
