/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_CM_TEST_H
#define PRDMA_CM_TEST_H

/*
 * TEST HOOK — not installed, not for applications.
 *
 * Lets tests lose or duplicate CM MADs at the CM's send path, so resends,
 * MRAs, duplicate handling and timeouts can be exercised on any provider
 * (the soft provider's own fault injection works on the wire instead).
 * With no filter set the send path is unchanged.
 */

#include <stdint.h>

struct prdma_dev;

enum prdma_cm_test_tx_action {
	PRDMA_CM_TEST_TX_SEND = 0,         /* send as usual */
	PRDMA_CM_TEST_TX_DROP,             /* count it as sent, post nothing */
	PRDMA_CM_TEST_TX_DUP,              /* post it twice */
	/* Post it now and keep a copy for prdma_cm_test_tx_release(): a
	 * duplicate that arrives late (one copy kept; a new one replaces it). */
	PRDMA_CM_TEST_TX_HOLD,
};

/* Called with the CM lock held for each MAD about to be posted. */
typedef enum prdma_cm_test_tx_action (*prdma_cm_test_tx_filter_t)(
	struct prdma_dev *dev, uint16_t attr_id, void *arg);

/* Install (or, with NULL, remove) the filter. */
void prdma_cm_test_set_tx_filter(prdma_cm_test_tx_filter_t fn, void *arg);

/*
 * Post the copy kept by PRDMA_CM_TEST_TX_HOLD to where it went first (the
 * filter, if one is set, sees it again). 0 on success; -ENOENT when no
 * copy is kept or its port's CM is gone.
 */
int prdma_cm_test_tx_release(void);

#endif /* PRDMA_CM_TEST_H */
