/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * CM MAD codec. Every field is read and written at its body offset from the
 * IBTA tables (cm-perftest-facts.md §3), big-endian, with bit fields masked
 * within their byte; reserved bits are written as zero, so a decoded MAD
 * from a Linux peer encodes back to the same bytes.
 */

#include <errno.h>
#include <string.h>

#include "cm_mad.h"

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | get24(p + 1);
}

static inline uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	put24(p + 1, v);
}

static inline void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

const char *
cm_attr_str(uint16_t attr_id)
{
	static const char *const names[] = {
		"REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP",
		"SIDR_REQ", "SIDR_REP",
	};

	if (attr_id < CM_ATTR_REQ || attr_id > CM_ATTR_SIDR_REP)
		return "?";
	return names[attr_id - CM_ATTR_REQ];
}

uint64_t
cm_tid_make(uint32_t hi, uint32_t comm_id)
{
	uint32_t lo = (comm_id >> 24) | ((comm_id >> 8) & 0xff00u) |
		      ((comm_id << 8) & 0xff0000u) | (comm_id << 24);

	return (uint64_t)hi << 32 | lo;
}

void
cm_mad_hdr_init(struct cm_mad_hdr *hdr, uint16_t attr_id, uint64_t tid)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->base_version = CM_MAD_BASE_VERSION;
	hdr->mgmt_class = CM_MAD_MGMT_CLASS;
	hdr->class_version = CM_MAD_CLASS_VERSION;
	hdr->method = CM_MAD_METHOD_SEND;
	hdr->attr_id = attr_id;
	hdr->tid = tid;
}

/* ---- paths (REQ primary at body 52, alternate at body 96) ------------- */

/* The path's LIDs and GIDs are at @p; its flow/rate/TC/... tail at @t. */
static void
path_decode(const uint8_t *p, const uint8_t *t, struct cm_path *path)
{
	path->local_lid = get16(p);
	path->remote_lid = get16(p + 2);
	memcpy(path->local_gid, p + 4, 16);
	memcpy(path->remote_gid, p + 20, 16);
	path->flow_label = get32(t) >> 12;
	path->packet_rate = t[3] & 0x3f;
	path->traffic_class = t[4];
	path->hop_limit = t[5];
	path->sl = t[6] >> 4;
	path->subnet_local = (t[6] >> 3) & 1;
	path->local_ack_timeout = t[7] >> 3;
}

static void
path_encode(const struct cm_path *path, uint8_t *p, uint8_t *t)
{
	put16(p, path->local_lid);
	put16(p + 2, path->remote_lid);
	memcpy(p + 4, path->local_gid, 16);
	memcpy(p + 20, path->remote_gid, 16);
	put32(t, (path->flow_label & 0xfffff) << 12);
	t[3] |= path->packet_rate & 0x3f;
	t[4] = path->traffic_class;
	t[5] = path->hop_limit;
	t[6] = (uint8_t)((path->sl & 0xf) << 4 | (path->subnet_local & 1) << 3);
	t[7] = (uint8_t)((path->local_ack_timeout & 0x1f) << 3);
}

/* ---- bodies ----------------------------------------------------------- */

static void
req_decode(const uint8_t *b, struct cm_req *m)
{
	m->local_comm_id = get32(b);
	m->ece_vendor_id = get24(b + 5);
	m->service_id = get64(b + 8);
	m->local_ca_guid = get64(b + 16);
	m->local_qkey = get32(b + 28);
	m->local_qpn = get24(b + 32);
	m->responder_resources = b[35];
	m->local_eecn = get24(b + 36);
	m->initiator_depth = b[39];
	m->remote_eecn = get24(b + 40);
	m->remote_cm_response_timeout = b[43] >> 3;
	m->transport_type = (b[43] >> 1) & 3;
	m->e2e_flow_control = b[43] & 1;
	m->starting_psn = get24(b + 44);
	m->local_cm_response_timeout = b[47] >> 3;
	m->retry_count = b[47] & 7;
	m->pkey = get16(b + 48);
	m->path_mtu = b[50] >> 4;
	m->rdc_exists = (b[50] >> 3) & 1;
	m->rnr_retry_count = b[50] & 7;
	m->max_cm_retries = b[51] >> 4;
	m->srq = (b[51] >> 3) & 1;
	m->ext_transport_type = b[51] & 7;
	path_decode(b + 52, b + 88, &m->primary);
	path_decode(b + 96, b + 132, &m->alternate);
	memcpy(m->private_data, b + 140, CM_REQ_PDATA);
}

static void
req_encode(const struct cm_req *m, uint8_t *b)
{
	put32(b, m->local_comm_id);
	put24(b + 5, m->ece_vendor_id);
	put64(b + 8, m->service_id);
	put64(b + 16, m->local_ca_guid);
	put32(b + 28, m->local_qkey);
	put24(b + 32, m->local_qpn);
	b[35] = m->responder_resources;
	put24(b + 36, m->local_eecn);
	b[39] = m->initiator_depth;
	put24(b + 40, m->remote_eecn);
	b[43] = (uint8_t)((m->remote_cm_response_timeout & 0x1f) << 3 |
			  (m->transport_type & 3) << 1 | (m->e2e_flow_control & 1));
	put24(b + 44, m->starting_psn);
	b[47] = (uint8_t)((m->local_cm_response_timeout & 0x1f) << 3 |
			  (m->retry_count & 7));
	put16(b + 48, m->pkey);
	b[50] = (uint8_t)((m->path_mtu & 0xf) << 4 | (m->rdc_exists & 1) << 3 |
			  (m->rnr_retry_count & 7));
	b[51] = (uint8_t)((m->max_cm_retries & 0xf) << 4 | (m->srq & 1) << 3 |
			  (m->ext_transport_type & 7));
	path_encode(&m->primary, b + 52, b + 88);
	path_encode(&m->alternate, b + 96, b + 132);
	memcpy(b + 140, m->private_data, CM_REQ_PDATA);
}

static int
mra_decode(const uint8_t *b, struct cm_mra *m)
{
	m->local_comm_id = get32(b);
	m->remote_comm_id = get32(b + 4);
	m->msg_mraed = b[8] >> 6;
	m->service_timeout = b[9] >> 3;
	memcpy(m->private_data, b + 10, CM_MRA_PDATA);
	return m->msg_mraed > CM_MSG_OTHER ? -EBADMSG : 0;
}

static void
mra_encode(const struct cm_mra *m, uint8_t *b)
{
	put32(b, m->local_comm_id);
	put32(b + 4, m->remote_comm_id);
	b[8] = (uint8_t)((m->msg_mraed & 3) << 6);
	b[9] = (uint8_t)((m->service_timeout & 0x1f) << 3);
	memcpy(b + 10, m->private_data, CM_MRA_PDATA);
}

static int
rej_decode(const uint8_t *b, struct cm_rej *m)
{
	m->local_comm_id = get32(b);
	m->remote_comm_id = get32(b + 4);
	m->msg_rejected = b[8] >> 6;
	m->ari_length = b[9] >> 1;
	m->reason = get16(b + 10);
	memcpy(m->ari, b + 12, CM_REJ_ARI_LEN);
	memcpy(m->private_data, b + 84, CM_REJ_PDATA);
	if (m->msg_rejected > CM_MSG_OTHER || m->ari_length > CM_REJ_ARI_LEN)
		return -EBADMSG;
	return 0;
}

static void
rej_encode(const struct cm_rej *m, uint8_t *b)
{
	put32(b, m->local_comm_id);
	put32(b + 4, m->remote_comm_id);
	b[8] = (uint8_t)((m->msg_rejected & 3) << 6);
	b[9] = (uint8_t)((m->ari_length & 0x7f) << 1);
	put16(b + 10, m->reason);
	memcpy(b + 12, m->ari, CM_REJ_ARI_LEN);
	memcpy(b + 84, m->private_data, CM_REJ_PDATA);
}

static void
rep_decode(const uint8_t *b, struct cm_rep *m)
{
	m->local_comm_id = get32(b);
	m->remote_comm_id = get32(b + 4);
	m->local_qkey = get32(b + 8);
	m->local_qpn = get24(b + 12);
	m->local_eecn = get24(b + 16);
	m->starting_psn = get24(b + 20);
	m->ece_vendor_id = (uint32_t)b[15] << 16 | (uint32_t)b[19] << 8 | b[23];
	m->responder_resources = b[24];
	m->initiator_depth = b[25];
	m->target_ack_delay = b[26] >> 3;
	m->failover_accepted = (b[26] >> 1) & 3;
	m->e2e_flow_control = b[26] & 1;
	m->rnr_retry_count = b[27] >> 5;
	m->srq = (b[27] >> 4) & 1;
	m->local_ca_guid = get64(b + 28);
	memcpy(m->private_data, b + 36, CM_REP_PDATA);
}

static void
rep_encode(const struct cm_rep *m, uint8_t *b)
{
	put32(b, m->local_comm_id);
	put32(b + 4, m->remote_comm_id);
	put32(b + 8, m->local_qkey);
	put24(b + 12, m->local_qpn);
	b[15] = (uint8_t)(m->ece_vendor_id >> 16);
	put24(b + 16, m->local_eecn);
	b[19] = (uint8_t)(m->ece_vendor_id >> 8);
	put24(b + 20, m->starting_psn);
	b[23] = (uint8_t)m->ece_vendor_id;
	b[24] = m->responder_resources;
	b[25] = m->initiator_depth;
	b[26] = (uint8_t)((m->target_ack_delay & 0x1f) << 3 |
			  (m->failover_accepted & 3) << 1 | (m->e2e_flow_control & 1));
	b[27] = (uint8_t)((m->rnr_retry_count & 7) << 5 | (m->srq & 1) << 4);
	put64(b + 28, m->local_ca_guid);
	memcpy(b + 36, m->private_data, CM_REP_PDATA);
}

static void
rtu_decode(const uint8_t *b, struct cm_rtu *m)
{
	m->local_comm_id = get32(b);
	m->remote_comm_id = get32(b + 4);
	memcpy(m->private_data, b + 8, CM_RTU_PDATA);
}

static void
rtu_encode(const struct cm_rtu *m, uint8_t *b)
{
	put32(b, m->local_comm_id);
	put32(b + 4, m->remote_comm_id);
	memcpy(b + 8, m->private_data, CM_RTU_PDATA);
}

static void
dreq_decode(const uint8_t *b, struct cm_dreq *m)
{
	m->local_comm_id = get32(b);
	m->remote_comm_id = get32(b + 4);
	m->remote_qpn = get24(b + 8);
	memcpy(m->private_data, b + 12, CM_DREQ_PDATA);
}

static void
dreq_encode(const struct cm_dreq *m, uint8_t *b)
{
	put32(b, m->local_comm_id);
	put32(b + 4, m->remote_comm_id);
	put24(b + 8, m->remote_qpn);
	memcpy(b + 12, m->private_data, CM_DREQ_PDATA);
}

static void
sidr_req_decode(const uint8_t *b, struct cm_sidr_req *m)
{
	m->request_id = get32(b);
	m->pkey = get16(b + 4);
	m->service_id = get64(b + 8);
	memcpy(m->private_data, b + 16, CM_SIDR_REQ_PDATA);
}

static void
sidr_req_encode(const struct cm_sidr_req *m, uint8_t *b)
{
	put32(b, m->request_id);
	put16(b + 4, m->pkey);
	put64(b + 8, m->service_id);
	memcpy(b + 16, m->private_data, CM_SIDR_REQ_PDATA);
}

static int
sidr_rep_decode(const uint8_t *b, struct cm_sidr_rep *m)
{
	m->request_id = get32(b);
	m->status = b[4];
	m->info_length = b[5];
	m->ece_vendor_hi = get16(b + 6);
	m->qpn = get24(b + 8);
	m->ece_vendor_lo = b[11];
	m->service_id = get64(b + 12);
	m->qkey = get32(b + 20);
	memcpy(m->info, b + 24, CM_SIDR_INFO_LEN);
	memcpy(m->private_data, b + 96, CM_SIDR_REP_PDATA);
	return m->info_length > CM_SIDR_INFO_LEN ? -EBADMSG : 0;
}

static void
sidr_rep_encode(const struct cm_sidr_rep *m, uint8_t *b)
{
	put32(b, m->request_id);
	b[4] = m->status;
	b[5] = m->info_length;
	put16(b + 6, m->ece_vendor_hi);
	put24(b + 8, m->qpn);
	b[11] = m->ece_vendor_lo;
	put64(b + 12, m->service_id);
	put32(b + 20, m->qkey);
	memcpy(b + 24, m->info, CM_SIDR_INFO_LEN);
	memcpy(b + 96, m->private_data, CM_SIDR_REP_PDATA);
}

int
cm_mad_decode(const uint8_t *buf, size_t len, struct cm_msg *msg)
{
	const uint8_t *b = buf + CM_MAD_HDR_SIZE;
	struct cm_mad_hdr *h = &msg->hdr;

	if (buf == NULL || len < CM_MAD_SIZE)
		return -EMSGSIZE;
	h->base_version = buf[0];
	h->mgmt_class = buf[1];
	h->class_version = buf[2];
	h->method = buf[3];
	h->status = get16(buf + 4);
	h->class_specific = get16(buf + 6);
	h->tid = get64(buf + 8);
	h->attr_id = get16(buf + 16);
	h->reserved = get16(buf + 18);
	h->attr_mod = get32(buf + 20);
	if (h->mgmt_class != CM_MAD_MGMT_CLASS)
		return -EPROTO;
	if (h->base_version != CM_MAD_BASE_VERSION ||
	    h->class_version != CM_MAD_CLASS_VERSION)
		return -EPROTONOSUPPORT;
	if (h->method != CM_MAD_METHOD_SEND)
		return -EOPNOTSUPP;
	switch (h->attr_id) {
	case CM_ATTR_REQ:
		req_decode(b, &msg->req);
		return 0;
	case CM_ATTR_MRA:
		return mra_decode(b, &msg->mra);
	case CM_ATTR_REJ:
		return rej_decode(b, &msg->rej);
	case CM_ATTR_REP:
		rep_decode(b, &msg->rep);
		return 0;
	case CM_ATTR_RTU:
		rtu_decode(b, &msg->rtu);
		return 0;
	case CM_ATTR_DREQ:
		dreq_decode(b, &msg->dreq);
		return 0;
	case CM_ATTR_DREP:
		rtu_decode(b, &msg->drep);
		return 0;
	case CM_ATTR_SIDR_REQ:
		sidr_req_decode(b, &msg->sidr_req);
		return 0;
	case CM_ATTR_SIDR_REP:
		return sidr_rep_decode(b, &msg->sidr_rep);
	}
	return -ENOMSG;
}

int
cm_mad_encode(const struct cm_msg *msg, uint8_t buf[CM_MAD_SIZE])
{
	const struct cm_mad_hdr *h = &msg->hdr;
	uint8_t *b = buf + CM_MAD_HDR_SIZE;

	memset(buf, 0, CM_MAD_SIZE);
	buf[0] = h->base_version;
	buf[1] = h->mgmt_class;
	buf[2] = h->class_version;
	buf[3] = h->method;
	put16(buf + 4, h->status);
	put16(buf + 6, h->class_specific);
	put64(buf + 8, h->tid);
	put16(buf + 16, h->attr_id);
	put16(buf + 18, h->reserved);
	put32(buf + 20, h->attr_mod);
	switch (h->attr_id) {
	case CM_ATTR_REQ:
		req_encode(&msg->req, b);
		return 0;
	case CM_ATTR_MRA:
		mra_encode(&msg->mra, b);
		return 0;
	case CM_ATTR_REJ:
		rej_encode(&msg->rej, b);
		return 0;
	case CM_ATTR_REP:
		rep_encode(&msg->rep, b);
		return 0;
	case CM_ATTR_RTU:
		rtu_encode(&msg->rtu, b);
		return 0;
	case CM_ATTR_DREQ:
		dreq_encode(&msg->dreq, b);
		return 0;
	case CM_ATTR_DREP:
		rtu_encode(&msg->drep, b);
		return 0;
	case CM_ATTR_SIDR_REQ:
		sidr_req_encode(&msg->sidr_req, b);
		return 0;
	case CM_ATTR_SIDR_REP:
		sidr_rep_encode(&msg->sidr_rep, b);
		return 0;
	}
	return -EINVAL;
}

/* ---- librdmacm addressing header -------------------------------------- */

void
cm_cma_hdr_encode(const struct cm_cma_hdr *h, uint8_t buf[CM_CMA_HDR_SIZE])
{
	buf[0] = h->version;
	buf[1] = (uint8_t)(h->ip_version << 4);
	put16(buf + 2, h->src_port);
	memcpy(buf + 4, h->src_ip, 16);
	memcpy(buf + 20, h->dst_ip, 16);
}

int
cm_cma_hdr_decode(const uint8_t buf[CM_CMA_HDR_SIZE], struct cm_cma_hdr *h)
{
	h->version = buf[0];
	h->ip_version = buf[1] >> 4;
	h->src_port = get16(buf + 2);
	memcpy(h->src_ip, buf + 4, 16);
	memcpy(h->dst_ip, buf + 20, 16);
	if (h->version != CM_CMA_VERSION ||
	    (h->ip_version != 4 && h->ip_version != 6))
		return -EBADMSG;
	return 0;
}
