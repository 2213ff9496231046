/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fixtures: the two devices (probed once, opened per group) and the
 * per-test record of created objects.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "conf.h"

struct conf_dev conf_devs[2];

static struct conf_ctx test_ctx;

static const char *
env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : def;
}

static int
dev_up(struct conf_dev *d, const char *label)
{
	size_t plen;
	int ret;

	if (d->id < 0) {
		plen = strcspn(d->devargs, ":");
		if (plen >= sizeof(d->provider))
			plen = sizeof(d->provider) - 1;
		memcpy(d->provider, d->devargs, plen);
		d->provider[plen] = '\0';
		ret = prdma_dev_probe(d->devargs);
		if (ret < 0) {
			print_error("device %s: prdma_dev_probe(\"%s\") failed: %d (%s); "
				    "is provider \"%s\" built into libprdma?\n", label,
				    d->devargs, ret, rte_strerror(-ret), d->provider);
			return -1;
		}
		d->id = ret;
	}
	d->dev = prdma_dev_open((uint16_t)d->id);
	if (d->dev == NULL) {
		print_error("device %s: prdma_dev_open(%d) failed: %s\n", label, d->id,
			    rte_strerror(rte_errno));
		return -1;
	}
	d->pd = prdma_pd_alloc(d->dev);
	if (d->pd == NULL) {
		print_error("device %s: prdma_pd_alloc failed: %s\n", label,
			    rte_strerror(rte_errno));
		return -1;
	}
	ret = prdma_dev_query(d->dev, &d->attr);
	if (ret < 0) {
		print_error("device %s: prdma_dev_query failed: %d\n", label, ret);
		return -1;
	}
	ret = prdma_port_query(d->dev, 1, &d->port);
	if (ret < 0) {
		print_error("device %s: prdma_port_query(1) failed: %d\n", label, ret);
		return -1;
	}
	ret = prdma_gid_query(d->dev, 1, 0, &d->gid);
	if (ret < 0) {
		print_error("device %s: prdma_gid_query(1, 0) failed: %d\n", label, ret);
		return -1;
	}
	return 0;
}

static void
dev_down(struct conf_dev *d, const char *label)
{
	int ret;

	if (d->pd != NULL) {
		ret = prdma_pd_free(d->pd);
		if (ret < 0)
			print_error("device %s: prdma_pd_free: %d (objects left behind)\n",
				    label, ret);
		else
			d->pd = NULL;
	}
	if (d->dev != NULL) {
		ret = prdma_dev_close(d->dev);
		if (ret < 0)
			print_error("device %s: prdma_dev_close: %d\n", label, ret);
		d->dev = NULL;
	}
}

int
conf_group_setup(void **state)
{
	static int init;

	RTE_SET_USED(state);
	if (!init) {
		if (t_eal_init() < 0) {
			print_error("EAL did not start (PRDMA_TEST_EAL_ARGS)\n");
			return -1;
		}
		conf_devs[0].devargs = env_or("PRDMA_CONF_DEVARGS_A", CONF_DEVARGS_A_DEFAULT);
		conf_devs[1].devargs = env_or("PRDMA_CONF_DEVARGS_B", CONF_DEVARGS_B_DEFAULT);
		conf_devs[0].id = -1;
		conf_devs[1].id = -1;
		init = 1;
	}
	if (dev_up(CONF_A, "A") < 0 || dev_up(CONF_B, "B") < 0) {
		dev_down(CONF_B, "B");
		dev_down(CONF_A, "A");
		return -1;
	}
	return 0;
}

int
conf_group_teardown(void **state)
{
	RTE_SET_USED(state);
	dev_down(CONF_B, "B");
	dev_down(CONF_A, "A");
	return 0;
}

uint8_t
conf_path_mtu(void)
{
	return RTE_MIN(CONF_A->port.active_mtu, CONF_B->port.active_mtu);
}

uint32_t
conf_mtu_bytes(void)
{
	return prdma_mtu_bytes(conf_path_mtu());
}

void
conf_track(struct conf_ctx *ctx, enum conf_obj_kind kind, void *ptr)
{
	if (ctx->n == CONF_MAX_OBJ)
		fail_msg("test creates more than %d objects", CONF_MAX_OBJ);
	ctx->obj[ctx->n].kind = kind;
	ctx->obj[ctx->n].ptr = ptr;
	ctx->n++;
}

void
conf_forget(struct conf_ctx *ctx, void *ptr)
{
	unsigned int i;

	for (i = 0; i < ctx->n; i++)
		if (ctx->obj[i].ptr == ptr)
			ctx->obj[i].ptr = NULL;
}

int
conf_test_setup(void **state)
{
	memset(&test_ctx, 0, sizeof(test_ctx));
	*state = &test_ctx;
	return 0;
}

static int
obj_release(struct conf_obj *o)
{
	switch (o->kind) {
	case CONF_OBJ_MEM:
		rte_free(o->ptr);
		return 0;
	case CONF_OBJ_PD:
		return prdma_pd_free(o->ptr);
	case CONF_OBJ_CQ:
		return prdma_cq_destroy(o->ptr);
	case CONF_OBJ_MR:
		return prdma_mr_dereg(o->ptr);
	case CONF_OBJ_MW:
		return prdma_mw_dealloc(o->ptr);
	case CONF_OBJ_SRQ:
		return prdma_srq_destroy(o->ptr);
	case CONF_OBJ_AH:
		return prdma_ah_destroy(o->ptr);
	case CONF_OBJ_QP:
		return prdma_qp_destroy(o->ptr);
	case CONF_OBJ_TMPL:
		return prdma_wr_template_destroy(o->ptr);
	}
	return -EINVAL;
}

int
conf_test_teardown(void **state)
{
	static const char *const names[] = {
		"memory", "PD", "CQ", "MR", "MW", "SRQ", "AH", "QP", "template",
	};
	struct conf_ctx *ctx = *state;
	int ret, failed = 0;

	while (ctx->n > 0) {
		struct conf_obj *o = &ctx->obj[--ctx->n];

		if (o->ptr == NULL)
			continue;
		ret = obj_release(o);
		if (ret < 0) {
			print_error("teardown: releasing a %s failed: %d (%s)\n",
				    names[o->kind], ret, rte_strerror(-ret));
			failed = 1;
		}
	}
	return failed ? -1 : 0;
}
