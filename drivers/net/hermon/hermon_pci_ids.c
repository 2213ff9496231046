/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Mellanox (vendor 0x15b3) device ids of the Hermon family. */

#include <stdbool.h>
#include <stddef.h>

#include <rte_common.h>

#include "hermon_bus.h"

static const struct hermon_pci_id hermon_pci_ids[] = {
	{ 0x6340, true,  "MT25408 ConnectX IB SDR" },
	{ 0x634a, true,  "MT25418 ConnectX IB DDR" },
	{ 0x6354, true,  "MT25428 ConnectX IB QDR" },
	{ 0x6368, true,  "MT25448 ConnectX EN 10GigE" },
	{ 0x6372, true,  "MT25458 ConnectX EN 10GBASE-T" },
	{ 0x6732, true,  "MT26418 ConnectX-2 IB DDR PCIe gen2" },
	{ 0x673c, true,  "MT26428 ConnectX-2 IB QDR PCIe gen2" },
	{ 0x6746, true,  "MT26438 ConnectX-2 EN 40GigE PCIe gen2" },
	{ 0x6750, true,  "MT26448 ConnectX-2 EN 10GigE PCIe gen2" },
	{ 0x675a, true,  "MT26458 ConnectX-2 EN 10GBASE-T PCIe gen2" },
	{ 0x6764, true,  "MT26468 ConnectX-2 EN 10GigE PCIe gen2" },
	{ 0x676e, true,  "MT26478 ConnectX-2 EN 40GigE PCIe gen2" },
	{ 0x6778, true,  "MT26488 ConnectX-2" },
	{ 0x1002, false, "MT25400 ConnectX-2 virtual function" },
	{ 0x1003, true,  "MT27500 ConnectX-3" },
	{ 0x1004, false, "MT27500 ConnectX-3 virtual function" },
	{ 0x1005, true,  "MT27510 ConnectX-3 family" },
	{ 0x1006, true,  "MT27511 ConnectX-3 family" },
	{ 0x1007, true,  "MT27520 ConnectX-3 Pro" },
	{ 0x1008, true,  "MT27521 ConnectX-3 Pro family" },
	{ 0x1009, true,  "MT27530 ConnectX-3 family" },
	{ 0x100a, true,  "MT27531 ConnectX-3 family" },
	{ 0x100b, true,  "MT27540 ConnectX-3 family" },
	{ 0x100c, true,  "MT27541 ConnectX-3 family" },
	{ 0x100d, true,  "MT27550 ConnectX-3 family" },
	{ 0x100e, true,  "MT27551 ConnectX-3 family" },
	{ 0x100f, true,  "MT27560 ConnectX-3 family" },
	{ 0x1010, true,  "MT27561 ConnectX-3 family" },
};

const struct hermon_pci_id *
hermon_pci_id_find(uint16_t device_id)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(hermon_pci_ids); i++)
		if (hermon_pci_ids[i].device_id == device_id)
			return &hermon_pci_ids[i];
	return NULL;
}
