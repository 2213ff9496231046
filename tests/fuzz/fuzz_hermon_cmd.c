/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fuzz the Hermon device model's firmware command interpreter through its
 * HCR, as a hostile driver would drive it.
 *
 * The PMD first brings a model up ("hermon:model,name=fzhm": QUERY_FW,
 * MAP_FA, RUN_FW, ICM, INIT_HCA, EQs, ports), so commands meet a running
 * firmware with live context tables. The harness then pauses the model,
 * writes each fuzzed command into the HCR with the go bit, steps the model
 * once and checks that go cleared and no mailbox overflowed. A device whose
 * firmware the input closed, hung or crashed is probed again.
 *
 * Input: byte 0 = number of commands (low 3 bits + 1); then per command
 * 24 bytes: opcode (2, low 12 bits), opcode modifier, flags (bit 0: input
 * parameter = the input mailbox, bit 1: output parameter = the output
 * mailbox), input modifier (4), input parameter (8), output parameter (8).
 * The bytes after the commands fill the input mailbox.
 */

#include <string.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include <prdma.h>
#include <prdma_provider.h>

#include "fz_common.h"
#include "hermon_model.h"
#include "hermon_regs.h"

#define FZ_MBOX    4096u
#define FZ_REC_LEN 24u

static int dev_id = -1;
static struct prdma_dev *dev;
static struct hermon_model *model;
static void *priv_ref;
static struct fz_area mbox_in, mbox_out;
static int ready;

static void
dev_up(void)
{
	dev_id = prdma_dev_probe("hermon:model,name=fzhm");
	FZ_CHECK(dev_id >= 0);
	dev = prdma_dev_open((uint16_t)dev_id);
	FZ_CHECK(dev != NULL);
	model = hermon_model_get("fzhm");
	FZ_CHECK(model != NULL);
	/* The PMD's calloc'd state hangs off the device in DPDK memory, which
	 * LeakSanitizer does not scan: a reference here keeps a live device
	 * from being reported as a leak between inputs. */
	priv_ref = dev->priv;
}

static void
dev_down(void)
{
	hermon_model_put(model);
	model = NULL;
	FZ_CHECK(prdma_dev_close(dev) == 0);
	FZ_CHECK(prdma_dev_remove((uint16_t)dev_id) == 0);
	dev = NULL;
	priv_ref = NULL;
	dev_id = -1;
}

static void
setup(void)
{
	fz_eal_init();
	fz_area_alloc(&mbox_in, FZ_MBOX);
	fz_area_alloc(&mbox_out, FZ_MBOX);
	dev_up();
	ready = 1;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void
hcr_put(uint8_t *bar0, unsigned int dw, uint32_t v)
{
	*(volatile uint32_t *)(bar0 + HERMON_HCR_OFFSET + 4 * dw) = rte_cpu_to_be_32(v);
}

static uint32_t
hcr_get(uint8_t *bar0, unsigned int dw)
{
	return rte_be_to_cpu_32(*(volatile uint32_t *)(bar0 + HERMON_HCR_OFFSET + 4 * dw));
}

/* One command; returns 0 when the model answered it (go cleared). */
static int
run_cmd(uint8_t *bar0, const uint8_t *r, uint32_t t_bit)
{
	uint16_t opcode = (uint16_t)((r[0] << 8 | r[1]) & 0xfff);
	uint8_t opmod = r[2], flags = r[3];
	uint64_t in = get64(r + 8), out = get64(r + 16);

	if (flags & RTE_BIT32(0))
		in = rte_malloc_virt2iova(mbox_in.base) + FZ_CANARY_LEN;
	if (flags & RTE_BIT32(1))
		out = rte_malloc_virt2iova(mbox_out.base) + FZ_CANARY_LEN;
	hcr_put(bar0, 0, (uint32_t)(in >> 32));
	hcr_put(bar0, 1, (uint32_t)in);
	hcr_put(bar0, 2, get32(r + 4));
	hcr_put(bar0, 3, (uint32_t)(out >> 32));
	hcr_put(bar0, 4, (uint32_t)out);
	hcr_put(bar0, 5, 0x1234u << 16);
	hcr_put(bar0, 6, HERMON_HCR_GO | t_bit | (uint32_t)opmod << 12 | opcode);
	hermon_model_step(model);
	return (hcr_get(bar0, 6) & HERMON_HCR_GO) != 0 ? -1 : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hermon_model_state st;
	unsigned int nb, i;
	size_t len, bar_len;
	uint8_t *bar0;
	uint32_t t_bit;
	int stuck = 0;

	if (!ready)
		setup();
	if (size < 1 + FZ_REC_LEN)
		return 0;
	nb = (data[0] & 7u) + 1;
	nb = RTE_MIN(nb, (unsigned int)((size - 1) / FZ_REC_LEN));
	len = size - 1 - (size_t)nb * FZ_REC_LEN;
	memset(mbox_in.data, 0, FZ_MBOX);
	memcpy(mbox_in.data, data + 1 + (size_t)nb * FZ_REC_LEN, RTE_MIN(len, (size_t)FZ_MBOX));
	bar0 = hermon_model_bar(model, 0, &bar_len);
	FZ_CHECK(bar0 != NULL && bar_len > HERMON_HCR_OFFSET + 28);
	hermon_model_pause(model);
	/* The driver's HCR protocol keeps the last command's toggle bit in the
	 * go word: each command here carries it, so the PMD finds it intact. */
	t_bit = hcr_get(bar0, 6) & HERMON_HCR_T;
	for (i = 0; i < nb && !stuck; i++) {
		memset(mbox_out.data, 0, FZ_MBOX);
		stuck = run_cmd(bar0, data + 1 + (size_t)i * FZ_REC_LEN, t_bit) != 0;
		FZ_CHECK(fz_area_canary_ok(&mbox_in) == 0);
		FZ_CHECK(fz_area_canary_ok(&mbox_out) == 0);
	}
	hermon_model_resume(model);
	FZ_CHECK(hermon_model_get_state(model, &st) == 0);
	if (stuck || !st.running || !st.hca_init || st.catastrophic || st.hung ||
	    st.ports_up == 0) {
		dev_down();
		dev_up();
	}
	return 0;
}
