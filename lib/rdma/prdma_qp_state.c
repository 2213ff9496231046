/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The QP state machine of the InfiniBand specification (chapter 10.3):
 * which transitions exist and, per QP type, which attributes each one
 * requires and which it allows. Written once here so every provider
 * enforces the same rules.
 */

#include "prdma_private.h"

#define T_UD 0
#define T_UC 1
#define T_RC 2
#define T_NB 3

struct qp_transition {
	uint8_t valid;
	uint32_t req[T_NB];
	uint32_t opt[T_NB];
};

#define S(x) PRDMA_QPS_##x
#define A(x) PRDMA_QP_##x

static const struct qp_transition qp_table[PRDMA_QPS_MAX][PRDMA_QPS_MAX] = {
	[S(RESET)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
		[S(INIT)] = {
			.valid = 1,
			.req = {
				[T_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),
				[T_UC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
				[T_RC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
			},
		},
	},
	[S(INIT)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
		[S(INIT)] = {
			.valid = 1,
			.opt = {
				[T_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),
				[T_UC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
				[T_RC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
			},
		},
		[S(RTR)] = {
			.valid = 1,
			.req = {
				[T_UC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
				[T_RC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
					 A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
			},
			.opt = {
				[T_UD] = A(PKEY_INDEX) | A(QKEY),
				[T_UC] = A(ACCESS_FLAGS) | A(PKEY_INDEX),
				[T_RC] = A(ACCESS_FLAGS) | A(PKEY_INDEX),
			},
		},
	},
	[S(RTR)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
		[S(RTS)] = {
			.valid = 1,
			.req = {
				[T_UD] = A(SQ_PSN),
				[T_UC] = A(SQ_PSN),
				[T_RC] = A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
					 A(SQ_PSN) | A(MAX_QP_RD_ATOMIC),
			},
			.opt = {
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER),
			},
		},
	},
	[S(RTS)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
		[S(RTS)] = {
			.valid = 1,
			.opt = {
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER),
			},
		},
		[S(SQD)] = {
			.valid = 1,
			.opt = {
				[T_UD] = A(EN_SQD_ASYNC_NOTIFY),
				[T_UC] = A(EN_SQD_ASYNC_NOTIFY),
				[T_RC] = A(EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[S(SQD)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
		[S(RTS)] = {
			.valid = 1,
			.opt = {
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER),
			},
		},
		[S(SQD)] = {
			.valid = 1,
			.opt = {
				[T_UD] = A(PKEY_INDEX) | A(QKEY),
				[T_UC] = A(AV) | A(ACCESS_FLAGS) | A(PKEY_INDEX),
				[T_RC] = A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) |
					 A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC) |
					 A(MAX_DEST_RD_ATOMIC) | A(ACCESS_FLAGS) |
					 A(PKEY_INDEX) | A(MIN_RNR_TIMER),
			},
		},
	},
	[S(SQE)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
		[S(RTS)] = {
			.valid = 1,
			.opt = {
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
			},
		},
	},
	[S(ERR)] = {
		[S(RESET)] = { .valid = 1 },
		[S(ERR)] = { .valid = 1 },
	},
};

#define QP_ATTR_ALL (A(STATE) | A(CUR_STATE) | A(EN_SQD_ASYNC_NOTIFY) | \
	A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(PORT) | A(QKEY) | A(AV) | \
	A(PATH_MTU) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(RQ_PSN) | \
	A(MAX_QP_RD_ATOMIC) | A(MIN_RNR_TIMER) | A(SQ_PSN) | \
	A(MAX_DEST_RD_ATOMIC) | A(DEST_QPN))

static int
type_index(enum prdma_qp_type type)
{
	switch (type) {
	case PRDMA_QPT_UD: return T_UD;
	case PRDMA_QPT_UC: return T_UC;
	case PRDMA_QPT_RC: return T_RC;
	}
	return -1;
}

int
prdma_qp_modify_is_ok(enum prdma_qp_type type, enum prdma_qp_state cur,
		      enum prdma_qp_state next, uint32_t attr_mask)
{
	const struct qp_transition *t;
	int ti = type_index(type);
	uint32_t other;

	if (ti < 0 || (unsigned int)cur >= PRDMA_QPS_MAX ||
	    (unsigned int)next >= PRDMA_QPS_MAX || (attr_mask & ~QP_ATTR_ALL) != 0)
		return -EINVAL;
	/* SQE exists only for unreliable transports (RC goes to ERR). */
	if (type == PRDMA_QPT_RC && (cur == PRDMA_QPS_SQE || next == PRDMA_QPS_SQE))
		return -EINVAL;
	t = &qp_table[cur][next];
	if (!t->valid)
		return -EINVAL;
	if ((attr_mask & t->req[ti]) != t->req[ti])
		return -EINVAL;
	other = attr_mask & ~(t->req[ti] | t->opt[ti] | A(STATE));
	if (other != 0)
		return -EINVAL;
	return 0;
}
