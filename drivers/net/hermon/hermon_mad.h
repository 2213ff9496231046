/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MAD_H
#define HERMON_MAD_H

/*
 * The PMD's use of the firmware's embedded subnet management agent through
 * MAD_IFC (hermon_mad.c): what Linux mlx4_core/mlx4_ib read with it (the
 * node GUID, an IB port's PortInfo, GUIDs and P_Keys).
 */

#include <stdint.h>

#include "hermon_mad_wire.h"

struct hermon_dev;
struct prdma_port_attr;

/*
 * One SubnGet (@method HERMON_MAD_METHOD_GET) or SubnSet (with @set, 64
 * bytes of attribute data) of @attr/@attr_mod, LID routed, to the SMA of
 * @port, keys ignored; @data gets the response's 64 bytes of attribute
 * data. A MAD status in the response is -EPROTO (-ENOTSUP for an
 * unsupported method/attribute, -EINVAL for a bad value), rte_errno set.
 */
int hermon_mad_subn(struct hermon_dev *hd, uint8_t port, uint8_t method, uint16_t attr,
		    uint32_t attr_mod, const uint8_t *set, uint8_t data[HERMON_SMP_DATA_LEN]);

/* NodeInfo: the node GUID (hd->node_guid); Linux mlx4_ib init_node_data. */
int hermon_mad_node_guid(struct hermon_dev *hd);
/* PortInfo capability mask of IB port @port; Linux mlx4_get_port_ib_caps. */
int hermon_mad_port_caps(struct hermon_dev *hd, uint8_t port, uint32_t *cap);
/* GID @index of IB port @port: PortInfo GID prefix + GUIDInfo entry (Linux
 * __mlx4_ib_query_gid); -ENOENT for an unset GUID. */
int hermon_mad_ib_gid(struct hermon_dev *hd, uint8_t port, uint32_t index,
		      uint8_t gid[16]);
/* State, LID, physical state, width, speed, MTU and capabilities of IB port
 * @port from its PortInfo (Linux mlx4_ib ib_link_query_port). */
int hermon_mad_ib_port(struct hermon_dev *hd, uint8_t port, struct prdma_port_attr *attr);

#endif /* HERMON_MAD_H */
