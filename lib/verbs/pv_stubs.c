/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Symbols of Debian's libibverbs.so.1 that prdma has no use for.
 *
 * The public ones answer as a provider without the feature does. The
 * IBVERBS_PRIVATE_34 ones are the provider interface that libmlx4/libmlx5
 * (linked by DPDK's net_mlx4/net_mlx5, which EAL loads from its PMD
 * directory) bind to at load time: they must exist so that loading those
 * PMDs next to this library succeeds, and none of them does anything, so
 * no Mellanox provider registers and no call recurses into this library.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pv_private.h"

/* A provider-interface call: fails with EOPNOTSUPP (int and pointer alike 0/NULL-safe). */
#define PV_PRIV_INT(name) int name(void); int name(void) { errno = EOPNOTSUPP; return EOPNOTSUPP; }
#define PV_PRIV_PTR(name) void *name(void); void *name(void) { errno = EOPNOTSUPP; return NULL; }
#define PV_PRIV_VOID(name) void name(void); void name(void) { }

bool verbs_allow_disassociate_destroy;

PV_PRIV_INT(__ioctl_final_num_attrs)
PV_PRIV_VOID(__verbs_log)
PV_PRIV_PTR(_verbs_init_and_alloc_context)
PV_PRIV_INT(execute_ioctl)
PV_PRIV_INT(ibv_cmd_advise_mr)
PV_PRIV_INT(ibv_cmd_alloc_dm)
PV_PRIV_INT(ibv_cmd_alloc_mw)
PV_PRIV_INT(ibv_cmd_alloc_pd)
PV_PRIV_INT(ibv_cmd_attach_mcast)
PV_PRIV_INT(ibv_cmd_close_xrcd)
PV_PRIV_INT(ibv_cmd_create_ah)
PV_PRIV_INT(ibv_cmd_create_counters)
PV_PRIV_INT(ibv_cmd_create_cq)
PV_PRIV_INT(ibv_cmd_create_cq_ex)
PV_PRIV_INT(ibv_cmd_create_flow)
PV_PRIV_INT(ibv_cmd_create_flow_action_esp)
PV_PRIV_INT(ibv_cmd_create_qp)
PV_PRIV_INT(ibv_cmd_create_qp_ex)
PV_PRIV_INT(ibv_cmd_create_qp_ex2)
PV_PRIV_INT(ibv_cmd_create_rwq_ind_table)
PV_PRIV_INT(ibv_cmd_create_srq)
PV_PRIV_INT(ibv_cmd_create_srq_ex)
PV_PRIV_INT(ibv_cmd_create_wq)
PV_PRIV_INT(ibv_cmd_dealloc_mw)
PV_PRIV_INT(ibv_cmd_dealloc_pd)
PV_PRIV_INT(ibv_cmd_dereg_mr)
PV_PRIV_INT(ibv_cmd_destroy_ah)
PV_PRIV_INT(ibv_cmd_destroy_counters)
PV_PRIV_INT(ibv_cmd_destroy_cq)
PV_PRIV_INT(ibv_cmd_destroy_flow)
PV_PRIV_INT(ibv_cmd_destroy_flow_action)
PV_PRIV_INT(ibv_cmd_destroy_qp)
PV_PRIV_INT(ibv_cmd_destroy_rwq_ind_table)
PV_PRIV_INT(ibv_cmd_destroy_srq)
PV_PRIV_INT(ibv_cmd_destroy_wq)
PV_PRIV_INT(ibv_cmd_detach_mcast)
PV_PRIV_INT(ibv_cmd_free_dm)
PV_PRIV_INT(ibv_cmd_get_context)
PV_PRIV_INT(ibv_cmd_modify_cq)
PV_PRIV_INT(ibv_cmd_modify_flow_action_esp)
PV_PRIV_INT(ibv_cmd_modify_qp)
PV_PRIV_INT(ibv_cmd_modify_qp_ex)
PV_PRIV_INT(ibv_cmd_modify_srq)
PV_PRIV_INT(ibv_cmd_modify_wq)
PV_PRIV_INT(ibv_cmd_open_qp)
PV_PRIV_INT(ibv_cmd_open_xrcd)
PV_PRIV_INT(ibv_cmd_poll_cq)
PV_PRIV_INT(ibv_cmd_post_recv)
PV_PRIV_INT(ibv_cmd_post_send)
PV_PRIV_INT(ibv_cmd_post_srq_recv)
PV_PRIV_INT(ibv_cmd_query_context)
PV_PRIV_INT(ibv_cmd_query_device_any)
PV_PRIV_INT(ibv_cmd_query_mr)
PV_PRIV_INT(ibv_cmd_query_port)
PV_PRIV_INT(ibv_cmd_query_qp)
PV_PRIV_INT(ibv_cmd_query_srq)
PV_PRIV_INT(ibv_cmd_read_counters)
PV_PRIV_INT(ibv_cmd_reg_dm_mr)
PV_PRIV_INT(ibv_cmd_reg_dmabuf_mr)
PV_PRIV_INT(ibv_cmd_reg_mr)
PV_PRIV_INT(ibv_cmd_req_notify_cq)
PV_PRIV_INT(ibv_cmd_rereg_mr)
PV_PRIV_INT(ibv_cmd_resize_cq)
PV_PRIV_INT(ibv_read_ibdev_sysfs_file)
PV_PRIV_INT(verbs_init_cq)
PV_PRIV_PTR(verbs_open_device)
PV_PRIV_VOID(verbs_register_driver_34)
PV_PRIV_VOID(verbs_set_ops)
PV_PRIV_VOID(verbs_uninit_context)

/* --- public calls of the kernel ABI or of features prdma lacks --- */

PV_PRIV_VOID(ibv_copy_path_rec_from_kern)
PV_PRIV_VOID(ibv_copy_path_rec_to_kern)
PV_PRIV_VOID(ibv_copy_qp_attr_from_kern)
PV_PRIV_VOID(ibv_copy_ah_attr_from_kern)

int
ibv_resolve_eth_l2_from_gid(struct ibv_context *c, struct ibv_ah_attr *attr,
			    uint8_t eth_mac[6], uint16_t *vid)
{
	RTE_SET_USED(c);
	RTE_SET_USED(attr);
	RTE_SET_USED(eth_mac);
	RTE_SET_USED(vid);
	return -EOPNOTSUPP;
}

struct ibv_context *
ibv_import_device(int cmd_fd)
{
	RTE_SET_USED(cmd_fd);
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *c, uint32_t handle)
{
	RTE_SET_USED(c);
	RTE_SET_USED(handle);
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(handle);
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *c, uint32_t handle)
{
	RTE_SET_USED(c);
	RTE_SET_USED(handle);
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
	RTE_SET_USED(pd);
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
	RTE_SET_USED(mr);
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
	RTE_SET_USED(dm);
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(ece);
	return EOPNOTSUPP;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(ece);
	return EOPNOTSUPP;
}

struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
		  int fd, int access)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(offset);
	RTE_SET_USED(length);
	RTE_SET_USED(iova);
	RTE_SET_USED(fd);
	RTE_SET_USED(access);
	errno = EOPNOTSUPP;
	return NULL;
}

/* ------------------------------------------------------- sysfs files */

int
ibv_get_sysfs_path(char *buf, size_t size)
{
	if (buf == NULL || size == 0)
		return -1;
	snprintf(buf, size, "/sys");
	return 0;
}

/* Reads a file as libibverbs does (prdma devices have none in sysfs). */
int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t len;
	int fd;

	if (dir == NULL || file == NULL || buf == NULL || size == 0)
		return -1;
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	if ((size_t)len == size)
		len--;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (int)len;
}
