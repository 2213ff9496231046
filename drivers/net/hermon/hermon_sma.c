/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The PMD's subnet management agent path (F7). ConnectX-3 firmware holds
 * the SMA, but it sees an SMP only when the host hands it one with
 * MAD_IFC: the host owns QP0 (Linux ib_mad opens QP0 on every IB port and
 * mlx4_ib's process_mad forwards SMPs to mlx4_MAD_IFC; iPXE's SMA does
 * the same from its own QP0). Without this path no subnet manager can
 * bring an IB port to ACTIVE.
 *
 * Per IB port the PMD owns a QP0 (an MLX QP of the CONF_SPECIAL_QP block,
 * hermon_sqp.c) with its own PD, CQ and receive buffers, created at probe
 * after the ports are up (Linux ib_mad_port_open). A control thread of
 * the device ("hermon-sma") polls its CQ; each SMP request received
 * (class 0x01 LID routed or 0x81 directed route, method Get, Set or
 * TrapRepress: Linux mlx4_ib ib_process_mad's filter) goes to MAD_IFC
 * with the keys checked and the packet's extended info (Linux passes
 * in_wc), and the firmware's response goes back on QP0 to the request's
 * SLID with its SL. SMInfo is not the SMA's (no SM runs here): a Get or
 * Set of it gets "unsupported", as Linux ib_mad answers what no agent
 * takes. The SMA's own traps (QP0 receives from SLID 0) go on to the
 * master SM. What an accepted SubnSet changes is snooped (Linux
 * smp_snoop): the SM's address, the GID 0 and P_Key caches, and the
 * port events. Directed-route SMPs get the end-node checks and fix-ups of
 * IBA 14.2.2.2 (Linux drivers/infiniband/core/smi.c) on the way in and
 * on the way out; those failing them are dropped and counted.
 *
 * The agent is control path: it takes a mutex and sleeps, never on the
 * application's data path. An application that creates its own QP0 on a
 * port (PRDMA_QP_CREATE_SMI, e.g. a subnet manager) takes that port over:
 * the agent stops there and starts again when the application's QP0 is
 * destroyed, so the application then sees every SMP, requests to its own
 * port included.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "hermon_agent_res.h"
#include "hermon_barrier.h"
#include "hermon_logs.h"
#include "hermon_mad.h"
#include "hermon_obj.h"
#include "hermon_sqp_wire.h"

#define SMA_NRECV 16
#define SMA_NSEND 16
#define SMA_SLOT (HERMON_GRH_LEN + HERMON_MAD_SIZE)
#define SMA_POLL_NS (1000 * 1000)          /* 1 ms between idle polls */

#define SMA_DR_MAX_HOPS 63                 /* IBA 14.2.1.2: 64-byte paths */

struct hermon_sma {
	struct hermon_dev *hd;
	uint8_t port;
	struct hermon_agent_res res;       /* QP0, its CQ, MR and slots */
	struct hermon_ah ah;
	uint16_t sm_lid;                   /* the master SM (snooped PortInfo) */
	uint8_t sm_sl;
	uint32_t send_k;
	uint32_t sends_out;
	bool broken;                       /* the QP left RTS: rebuild it */
	struct hermon_sma_stats st;
};

/* The PortInfo fields the snoop compares (Linux smp_snoop's prev_lid). */
struct sma_pi {
	uint64_t prefix;
	uint16_t lid, sm_lid;
	uint8_t sm_sl;
};

static void pi_fields(const uint8_t *d, struct sma_pi *pi);
static void sm_addr(struct hermon_sma *a, const struct sma_pi *pi);
static void refresh_pkeys(struct hermon_sma *a);

static void
agent_free(struct hermon_sma *a)
{
	hermon_agent_res_free(&a->res);
	rte_free(a);
}

/* QP0 of the port: the PMD's own (hermon_sqp.c claims it for the port). */
static const struct hermon_agent_res_attr sma_res = {
	.name = "hermon_sma_buf",
	.nrecv = SMA_NRECV,
	.nsend = SMA_NSEND,
	.rslot = SMA_SLOT,
	.sslot = HERMON_MAD_SIZE,
	.qp_type = PRDMA_QPT_UD,
	.create_flags = PRDMA_QP_CREATE_SMI,
	.init_mask = PRDMA_QP_QKEY,
	.sma_owned = true,
};

/* The agent of @port: its objects, QP0 in RTS with every receive posted. */
static struct hermon_sma *
agent_new(struct hermon_dev *hd, uint8_t port)
{
	uint8_t pi[HERMON_SMP_DATA_LEN];
	struct hermon_sma *a;
	struct sma_pi f;

	a = rte_zmalloc_socket("hermon_sma", sizeof(*a), 64, hd->pdev->socket_id);
	if (a == NULL)
		return NULL;
	a->hd = hd;
	a->port = port;
	if (hermon_agent_res_new(hd, port, &sma_res, &a->res) < 0)
		goto err;
	a->ah.pub.dev = hd->pdev;
	a->ah.pub.pd = &a->res.pd.pub;
	a->ah.pub.attr.port_num = port;
	/* what an SM set before the agent ran: the SM's address, P_Keys */
	if (hermon_mad_subn(hd, port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, port,
			    NULL, pi) == 0) {
		pi_fields(pi, &f);
		sm_addr(a, &f);
	}
	refresh_pkeys(a);
	return a;
err:
	HERMON_LOG(ERR, "%s: port %u: no SMP agent: %s", hd->pdev->name, port,
		   rte_strerror(rte_errno));
	agent_free(a);
	return NULL;
}

/*
 * A directed-route SMP request received at an end node (IBA 14.2.2.2,
 * C14-9; Linux smi_handle_dr_smp_recv and, since a CA forwards nothing,
 * the send-side fix-up smi_handle_dr_smp_send applies before the SMA sees
 * it). false: drop it.
 */
static bool
dr_recv(uint8_t *mad, uint8_t port)
{
	uint8_t hop_ptr = mad[HERMON_MAD_HOP_PTR], hop_cnt = mad[HERMON_MAD_HOP_CNT];

	/* a returning SMP is for an SM: there is none behind the agent */
	if (hermon_mad_get16(mad + HERMON_MAD_STATUS) & HERMON_MAD_STATUS_D)
		return false;
	if (hop_cnt > SMA_DR_MAX_HOPS)
		return false;
	/* C14-9:1: the sender should have advanced the hop pointer */
	if (hop_cnt != 0 && hop_ptr == 0)
		return false;
	/* C14-9:2: an intermediate hop; only a switch forwards */
	if (hop_ptr != 0 && hop_ptr < hop_cnt)
		return false;
	/* C14-9:3: the end of the directed part; nothing LID routed may
	 * follow at an end node (DrDLID permissive). The port it came in on
	 * goes in the return path, and the hop pointer past the path */
	if (hop_ptr == hop_cnt) {
		if (hermon_mad_get16(mad + HERMON_SMP_DR_DLID) != HERMON_LID_PERMISSIVE)
			return false;
		if (hop_cnt != 0)
			mad[HERMON_SMP_RET_PATH + hop_ptr] = port;
		mad[HERMON_MAD_HOP_PTR] = (uint8_t)(hop_ptr + 1);
		return true;
	}
	/* C14-9:4: the LID-routed part ended here; C14-9:5 anything else */
	return hop_ptr == hop_cnt + 1;
}

/*
 * The response going back from an end node (C14-13; Linux
 * smi_handle_dr_smp_send with D set). false: drop it.
 */
static bool
dr_send(uint8_t *mad, uint8_t port)
{
	uint8_t hop_ptr = mad[HERMON_MAD_HOP_PTR], hop_cnt = mad[HERMON_MAD_HOP_CNT];

	/* C14-13:1: leave through the port the request came in on */
	if (hop_cnt != 0 && hop_ptr == hop_cnt + 1) {
		mad[HERMON_MAD_HOP_PTR] = --hop_ptr;
		return mad[HERMON_SMP_RET_PATH + hop_ptr] == port;
	}
	/* C14-13:2: an intermediate hop; not an end node's */
	if (hop_ptr >= 2 && hop_ptr <= hop_cnt)
		return false;
	/* C14-13:3: the end of the directed part, toward a DR SM */
	if (hop_ptr == 1) {
		mad[HERMON_MAD_HOP_PTR] = 0;
		return hermon_mad_get16(mad + HERMON_SMP_DR_SLID) == HERMON_LID_PERMISSIVE;
	}
	/* C14-13:4: hop pointer 0 goes straight to the SM; C14-13:5 */
	return hop_ptr == 0;
}

static void
send_resp(struct hermon_sma *a, const uint8_t *resp, uint16_t dlid, uint8_t sl)
{
	uint8_t *p = hermon_agent_send_slot(&a->res, a->send_k);
	struct prdma_sge sge = { .addr = (uintptr_t)p, .length = HERMON_MAD_SIZE,
				 .lkey = a->res.mr.pub.lkey };
	struct prdma_send_wr wr = {
		.wr_id = a->send_k, .sg_list = &sge, .num_sge = 1, .opcode = PRDMA_WR_SEND,
		.send_flags = PRDMA_SEND_SIGNALED,
	};
	const struct prdma_send_wr *bad;

	if (dlid == 0 || a->sends_out >= SMA_NSEND) {
		a->st.dropped++;
		return;
	}
	memcpy(p, resp, HERMON_MAD_SIZE);
	/* the header is built into the WQE now: the AH is free again after */
	a->ah.pub.attr.dlid = dlid;
	a->ah.pub.attr.sl = sl;
	wr.wr.ud.ah = &a->ah.pub;
	wr.wr.ud.remote_qpn = 0;
	wr.wr.ud.remote_qkey = 0;
	if (hermon_post_send(&a->res.qp.pub, &wr, &bad) != 0) {
		a->st.dropped++;
		return;
	}
	a->send_k++;
	a->sends_out++;
	a->st.answered++;
}

static void
pi_fields(const uint8_t *d, struct sma_pi *pi)
{
	pi->prefix = hermon_mad_get64(d + HERMON_PI_GID_PREFIX);
	pi->lid = hermon_mad_get16(d + HERMON_PI_LID);
	pi->sm_lid = hermon_mad_get16(d + HERMON_PI_SM_LID);
	pi->sm_sl = d[HERMON_PI_MTU_SMSL] & 0xf;
}

static void
raise_port(struct hermon_sma *a, enum prdma_event_type type)
{
	struct prdma_async_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.element.port_num = a->port;
	a->st.events++;
	prdma_dev_raise_event(a->hd->pdev, &ev);
}

/* Re-read the port's GID 0 (the GRH source of IB QP1) and P_Key block 0. */
static void
refresh_gid(struct hermon_sma *a)
{
	struct hermon_port *p = &a->hd->port[a->port - 1];
	uint8_t g[16];

	if (hermon_mad_ib_gid(a->hd, a->port, 0, g) == 0) {
		memcpy(p->gid, g, 16);
		p->gid_set = true;
	}
}

static void
refresh_pkeys(struct hermon_sma *a)
{
	struct hermon_port *p = &a->hd->port[a->port - 1];
	uint8_t d[HERMON_SMP_DATA_LEN];
	unsigned int i;

	if (hermon_mad_subn(a->hd, a->port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PKEY_TABLE,
			    0, NULL, d) < 0)
		return;
	for (i = 0; i < HERMON_PKEYS_PER_BLOCK; i++)
		p->pkey[i] = hermon_mad_get16(d + 2 * i);
	p->pkey_set = true;
}

/* The SM's address, as Linux update_sm_ah keeps it for forward_trap. */
static void
sm_addr(struct hermon_sma *a, const struct sma_pi *pi)
{
	a->sm_lid = pi->sm_lid;
	a->sm_sl = pi->sm_sl;
}

/*
 * A SubnSet the SMA accepted changed what the PMD keeps of the port: the
 * caches follow and the application hears of it (Linux mlx4_ib smp_snoop,
 * and the events its port management change handler raises).
 */
static void
snoop(struct hermon_sma *a, const uint8_t *req, const struct sma_pi *prev)
{
	uint16_t attr = hermon_mad_get16(req + HERMON_MAD_ATTR_ID);
	const uint8_t *d = req + HERMON_SMP_DATA;
	struct sma_pi now;

	switch (attr) {
	case HERMON_SMP_ATTR_PORT_INFO:
		pi_fields(d, &now);
		sm_addr(a, &now);
		if (now.sm_lid != prev->sm_lid || now.sm_sl != prev->sm_sl)
			raise_port(a, PRDMA_EVENT_SM_CHANGE);
		if (now.lid != prev->lid)
			raise_port(a, PRDMA_EVENT_LID_CHANGE);
		if (now.prefix != prev->prefix) {
			refresh_gid(a);
			raise_port(a, PRDMA_EVENT_GID_CHANGE);
		}
		if (d[HERMON_PI_CLIENT_REREG] & 0x80)
			raise_port(a, PRDMA_EVENT_CLIENT_REREGISTER);
		break;
	case HERMON_SMP_ATTR_PKEY_TABLE:
		refresh_pkeys(a);
		raise_port(a, PRDMA_EVENT_PKEY_CHANGE);
		break;
	case HERMON_SMP_ATTR_GUID_INFO:
		refresh_gid(a);
		raise_port(a, PRDMA_EVENT_GID_CHANGE);
		break;
	default:
		break;
	}
}

/* The response to an SMP nobody here serves (Linux ib_mad
 * generate_unmatched_resp): GetResp, "unsupported method/attribute". */
static void
unmatched(uint8_t *out, const uint8_t *in)
{
	memcpy(out, in, HERMON_MAD_SIZE);
	out[HERMON_MAD_METHOD] = HERMON_MAD_METHOD_GET_RESP;
	hermon_mad_put16(out + HERMON_MAD_STATUS, HERMON_MAD_STATUS_BAD_ATTR);
}

/*
 * One SMP received in @slot (GRH area, then the MAD) with its completion
 * @wc from @slid: to the SMA through MAD_IFC with the packet's extended
 * info, the answer back.
 */
static void
handle_smp(struct hermon_sma *a, const uint8_t *slot, const struct prdma_wc *wc,
	   uint16_t slid)
{
	uint8_t in[HERMON_MAD_IFC_MBOX_EXT], out[HERMON_MAD_SIZE], *x = in + HERMON_MAD_SIZE;
	const uint8_t *rx = slot + HERMON_GRH_LEN;
	uint8_t cls = rx[HERMON_MAD_MGMT_CLASS], method = rx[HERMON_MAD_METHOD];
	bool dr = cls == HERMON_MGMT_CLASS_SUBN_DR, set_pi = false;
	uint16_t attr = hermon_mad_get16(rx + HERMON_MAD_ATTR_ID);
	struct sma_pi prev = { 0 };
	uint8_t d[HERMON_SMP_DATA_LEN];

	if (rx[HERMON_MAD_BASE_VERSION] != 1 || (cls != HERMON_MGMT_CLASS_SUBN_LID && !dr)) {
		a->st.dropped++;
		return;
	}
	/* a trap from SLID 0 is the firmware's own: to the master SM, by
	 * the address snooped from PortInfo (Linux forward_trap) */
	if (method == HERMON_MAD_METHOD_TRAP && slid == 0) {
		if (a->sm_lid == 0) {
			a->st.dropped++;
			return;
		}
		a->st.traps++;
		send_resp(a, rx, a->sm_lid, a->sm_sl);
		return;
	}
	if (method != HERMON_MAD_METHOD_GET && method != HERMON_MAD_METHOD_SET &&
	    method != HERMON_MAD_METHOD_TRAP_REPRESS) {
		a->st.dropped++;
		return;
	}
	memcpy(in, rx, HERMON_MAD_SIZE);
	if (dr && !dr_recv(in, a->port)) {
		a->st.dr_dropped++;
		return;
	}
	if (attr == HERMON_SMP_ATTR_SM_INFO) {
		/* no SM runs here: the SMA is not asked (Linux process_mad
		 * leaves SMInfo alone) and, with no agent to take it, ib_mad
		 * answers a Get or Set "unsupported" */
		if (method == HERMON_MAD_METHOD_TRAP_REPRESS) {
			a->st.dropped++;
			return;
		}
		unmatched(out, in);
		a->st.sminfo++;
		goto answer;
	}
	/* the extended info of the received packet (Linux mlx4_MAD_IFC with
	 * in_wc): the firmware checks the keys and names the requester in
	 * the traps a failed check raises */
	memset(x, 0, HERMON_MAD_IFC_MBOX_EXT - HERMON_MAD_SIZE);
	hermon_mad_put32(x + HERMON_MAD_EXT_MY_QPN, 0);
	hermon_mad_put32(x + HERMON_MAD_EXT_RQPN, wc->src_qp);
	x[HERMON_MAD_EXT_SL] = (uint8_t)(wc->sl << 4);
	x[HERMON_MAD_EXT_G_PATH] = (wc->wc_flags & PRDMA_WC_GRH) ? 0x80 : 0;
	hermon_mad_put16(x + HERMON_MAD_EXT_PKEY, wc->pkey_index);
	if (wc->wc_flags & PRDMA_WC_GRH)
		memcpy(x + HERMON_MAD_EXT_GRH, slot, HERMON_GRH_LEN);
	/* what the snoop compares against (Linux reads the port first) */
	if (method == HERMON_MAD_METHOD_SET && attr == HERMON_SMP_ATTR_PORT_INFO &&
	    hermon_mad_subn(a->hd, a->port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO,
			    a->port, NULL, d) == 0) {
		pi_fields(d, &prev);
		set_pi = true;
	}
	if (hermon_cmd_mad_ifc_wc(&a->hd->cmd, a->port, slid, 0, in, out) < 0) {
		a->st.dropped++;
		return;
	}
	if (method == HERMON_MAD_METHOD_SET &&
	    (hermon_mad_get16(out + HERMON_MAD_STATUS) & ~HERMON_MAD_STATUS_D) == 0 &&
	    (set_pi || attr != HERMON_SMP_ATTR_PORT_INFO))
		snoop(a, in, &prev);
	if (method == HERMON_MAD_METHOD_TRAP_REPRESS)
		return;
answer:
	if (dr) {
		/* the response travels back (Linux process_mad sets D) */
		hermon_mad_put16(out + HERMON_MAD_STATUS,
				 (uint16_t)(hermon_mad_get16(out + HERMON_MAD_STATUS) |
					    HERMON_MAD_STATUS_D));
		if (!dr_send(out, a->port)) {
			a->st.dr_dropped++;
			return;
		}
	}
	/* to where it came from (Linux agent_send_response: AH from the wc) */
	send_resp(a, out, slid, wc->sl);
}

/* Drain the agent's CQ; the number of completions taken. */
static unsigned int
agent_step(struct hermon_sma *a)
{
	unsigned int n = 0;

	for (;;) {
		const struct hermon_cq *cq = &a->res.cq;
		const uint8_t *e = cq->buf + ((size_t)(cq->ci & cq->mask) << 5);
		uint16_t slid;
		struct prdma_wc wc;

		if (((e[31] >> 7) ^ (cq->ci >> cq->log)) & 1)
			break;
		hermon_barrier_cqe_owner_before_data();
		/* the SLID is the CQE's, which prdma_wc does not carry */
		slid = (uint16_t)HERMON_GET((const struct hermon_prm_completion_queue_entry *)e,
					    completion_queue_entry, slid_smac47_32);
		if (hermon_poll_cq(&a->res.cq.pub, 1, &wc) != 1)
			break;
		n++;
		if (wc.opcode != PRDMA_WC_RECV) {
			if (a->sends_out > 0)
				a->sends_out--;
			if (wc.status != PRDMA_WC_SUCCESS)
				a->broken = true;
			continue;
		}
		if (wc.status != PRDMA_WC_SUCCESS) {
			a->broken = true;
			continue;
		}
		a->st.received++;
		if (wc.byte_len >= SMA_SLOT && wc.wr_id < SMA_NRECV)
			handle_smp(a, hermon_agent_recv_slot(&a->res, (uint32_t)wc.wr_id), &wc,
				   slid);
		else
			a->st.dropped++;
		if (hermon_agent_post_recv(&a->res, (uint32_t)wc.wr_id) < 0)
			a->broken = true;
	}
	return n;
}

static bool
port_wants_agent(const struct hermon_dev *hd, uint8_t port)
{
	return hd->sqp_base != 0 && port <= hd->caps.num_ports &&
		hd->port[port - 1].type == HERMON_PORT_TYPE_IB && hd->port[port - 1].up;
}

/* Start @port's agent if its QP0 is free; sma_lock held. */
static void
agent_start_locked(struct hermon_dev *hd, uint8_t port)
{
	bool free_slot;

	if (hd->sma_closing || hd->sma[port - 1] != NULL || !port_wants_agent(hd, port))
		return;
	pthread_mutex_lock(&hd->ev_lock);
	free_slot = hd->smi[port - 1] == NULL;
	pthread_mutex_unlock(&hd->ev_lock);
	if (free_slot)
		hd->sma[port - 1] = agent_new(hd, port);
}

static void
agent_stop_locked(struct hermon_dev *hd, uint8_t port)
{
	if (hd->sma[port - 1] != NULL) {
		agent_free(hd->sma[port - 1]);
		hd->sma[port - 1] = NULL;
	}
}

static uint32_t
sma_thread(void *arg)
{
	struct hermon_dev *hd = arg;

	while (!hd->sma_quit) {
		struct timespec ts = { 0, SMA_POLL_NS };
		unsigned int n = 0;
		uint8_t p;

		pthread_mutex_lock(&hd->sma_lock);
		for (p = 1; p <= HERMON_MAX_PORTS; p++) {
			struct hermon_sma *a = hd->sma[p - 1];

			if (a == NULL || hd->fatal)
				continue;
			n += agent_step(a);
			if (a->broken) {
				HERMON_LOG(WARNING, "%s: port %u: SMP agent's QP0 failed, "
					   "restarting it", hd->pdev->name, p);
				agent_stop_locked(hd, p);
				agent_start_locked(hd, p);
			}
		}
		pthread_mutex_unlock(&hd->sma_lock);
		if (n == 0)
			nanosleep(&ts, NULL);
	}
	return 0;
}

static void *
sma_thread_fn(void *arg)
{
	(void)sma_thread(arg);
	return NULL;
}

int
hermon_sma_start(struct hermon_dev *hd)
{
	char name[RTE_MAX_THREAD_NAME_LEN];
	bool any = false;
	uint8_t p;
	int ret;

	pthread_mutex_lock(&hd->sma_lock);
	for (p = 1; p <= HERMON_MAX_PORTS; p++) {
		agent_start_locked(hd, p);
		any |= hd->sma[p - 1] != NULL;
	}
	pthread_mutex_unlock(&hd->sma_lock);
	if (!any && !port_wants_agent(hd, 1) && !port_wants_agent(hd, 2))
		return 0;
	hd->sma_quit = false;
	snprintf(name, sizeof(name), "hermon-sma");
	ret = rte_ctrl_thread_create(&hd->sma_thread, name, NULL, sma_thread_fn, hd);
	if (ret != 0) {
		HERMON_LOG(ERR, "%s: no SMP agent thread: %s", hd->pdev->name, strerror(ret));
		hermon_sma_stop(hd);
		rte_errno = ret;
		return -ret;
	}
	hd->sma_thread_on = true;
	return 0;
}

void
hermon_sma_stop(struct hermon_dev *hd)
{
	uint8_t p;

	hd->sma_closing = true;
	if (hd->sma_thread_on) {
		hd->sma_quit = true;
		pthread_join(hd->sma_thread, NULL);
		hd->sma_thread_on = false;
	}
	pthread_mutex_lock(&hd->sma_lock);
	for (p = 1; p <= HERMON_MAX_PORTS; p++)
		agent_stop_locked(hd, p);
	pthread_mutex_unlock(&hd->sma_lock);
}

void
hermon_sma_yield(struct hermon_dev *hd, uint8_t port)
{
	if (port < 1 || port > HERMON_MAX_PORTS)
		return;
	pthread_mutex_lock(&hd->sma_lock);
	agent_stop_locked(hd, port);
	pthread_mutex_unlock(&hd->sma_lock);
}

void
hermon_sma_resume(struct hermon_dev *hd, uint8_t port)
{
	if (port < 1 || port > HERMON_MAX_PORTS)
		return;
	pthread_mutex_lock(&hd->sma_lock);
	agent_start_locked(hd, port);
	pthread_mutex_unlock(&hd->sma_lock);
}

int
hermon_sma_get_stats(struct hermon_dev *hd, uint8_t port, struct hermon_sma_stats *st)
{
	int ret = 0;

	if (port < 1 || port > HERMON_MAX_PORTS) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	pthread_mutex_lock(&hd->sma_lock);
	if (hd->sma[port - 1] != NULL)
		*st = hd->sma[port - 1]->st;
	else
		ret = -ENOENT;
	pthread_mutex_unlock(&hd->sma_lock);
	if (ret < 0)
		rte_errno = ENOENT;
	return ret;
}
