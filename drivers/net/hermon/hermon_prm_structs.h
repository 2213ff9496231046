/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_PRM_STRUCTS_H
#define HERMON_PRM_STRUCTS_H

/*
 * Hermon (MT25408 / ConnectX-2 / ConnectX-3) structures in PRM notation:
 * F(name, width) is a field of @width bits, N(name, type) embeds another
 * structure; fields run from bit 0 (LSB of dword 0) upward, in order.
 * Included by hermon_prm.h only. Names follow the PRM so that the layout
 * test can compare each field against tests/data/reference/hermon-prm-layouts.json.
 * The last argument of HERMON_PRM_DECLARE is the size in bytes.
 */

#define HERMON_PRM_SRQ_CONTEXT(F, N) \
	F(srqn, 0x18) \
	F(log_srq_size, 0x04) \
	F(state, 0x04) \
	F(src_domain, 0x10) \
	F(reserved0, 0x08) \
	F(log_srq_stride, 0x03) \
	F(reserved1, 0x05) \
	F(cqn, 0x18) \
	F(page_offset, 0x06) \
	F(reserved2, 0x02) \
	F(reserved3, 0x20) \
	F(mtt_base_addr_h, 0x08) \
	F(reserved4, 0x10) \
	F(log2_page_size, 0x06) \
	F(reserved5, 0x02) \
	F(reserved6, 0x03) \
	F(mtt_base_addr_l, 0x1d) \
	F(pd, 0x18) \
	F(reserved7, 0x08) \
	F(wqe_cnt, 0x10) \
	F(lwm, 0x10) \
	F(srq_wqe_counter, 0x10) \
	F(reserved8, 0x10) \
	F(reserved9, 0x20) \
	F(db_record_addr_h, 0x20) \
	F(reserved10, 0x02) \
	F(db_record_addr_l, 0x1e)
HERMON_PRM_DECLARE(srq_context, HERMON_PRM_SRQ_CONTEXT, 0x30)

#define HERMON_PRM_COMPLETION_QUEUE_CONTEXT(F, N) \
	F(reserved0, 0x08) \
	F(st, 0x04) \
	F(reserved1, 0x05) \
	F(oi, 0x01) \
	F(cc, 0x01) \
	F(reserved2, 0x09) \
	F(status, 0x04) \
	F(reserved3, 0x20) \
	F(reserved4, 0x05) \
	F(page_offset, 0x07) \
	F(reserved5, 0x14) \
	F(usr_page, 0x18) \
	F(log_cq_size, 0x05) \
	F(reserved6, 0x03) \
	F(cq_max_count, 0x10) \
	F(cq_period, 0x10) \
	F(c_eqn, 0x09) \
	F(reserved7, 0x17) \
	F(mtt_base_addr_h, 0x08) \
	F(reserved8, 0x10) \
	F(log2_page_size, 0x06) \
	F(reserved9, 0x02) \
	F(reserved10, 0x03) \
	F(mtt_base_addr_l, 0x1d) \
	F(last_notified_indx, 0x18) \
	F(reserved11, 0x08) \
	F(solicit_producer_indx, 0x18) \
	F(reserved12, 0x08) \
	F(consumer_counter, 0x18) \
	F(reserved13, 0x08) \
	F(producer_counter, 0x18) \
	F(reserved14, 0x08) \
	F(reserved15, 0x20) \
	F(reserved16, 0x20) \
	F(db_record_addr_h, 0x20) \
	F(reserved17, 0x03) \
	F(db_record_addr_l, 0x1d)
HERMON_PRM_DECLARE(completion_queue_context, HERMON_PRM_COMPLETION_QUEUE_CONTEXT, 0x40)

#define HERMON_PRM_MPT(F, N) \
	F(reserved0, 0x08) \
	F(r_w, 0x01) \
	F(pa, 0x01) \
	F(lr, 0x01) \
	F(lw, 0x01) \
	F(rr, 0x01) \
	F(rw, 0x01) \
	F(atomic, 0x01) \
	F(eb, 0x01) \
	F(atc_req, 0x01) \
	F(atc_xlated, 0x01) \
	F(reserved1, 0x01) \
	F(no_snoop, 0x01) \
	F(reserved2, 0x08) \
	F(status, 0x04) \
	F(reserved3, 0x07) \
	F(bqp, 0x01) \
	F(qpn, 0x18) \
	F(mem_key, 0x20) \
	F(pd, 0x18) \
	F(en_rinv, 0x01) \
	F(ei, 0x01) \
	F(nce, 0x01) \
	F(fre, 0x01) \
	F(rae, 0x01) \
	F(w_dif, 0x01) \
	F(m_dif, 0x01) \
	F(reserved4, 0x01) \
	F(start_addr_h, 0x20) \
	F(start_addr_l, 0x20) \
	F(len_h, 0x20) \
	F(len_l, 0x20) \
	F(lkey, 0x20) \
	F(win_cnt, 0x18) \
	F(reserved5, 0x08) \
	F(mtt_rep, 0x04) \
	F(reserved6, 0x11) \
	F(block_mode, 0x01) \
	F(len64, 0x01) \
	F(fbo_en, 0x01) \
	F(reserved7, 0x08) \
	F(mtt_adr_h, 0x08) \
	F(reserved8, 0x18) \
	F(mtt_adr_l, 0x20) \
	F(mtt_size, 0x20) \
	F(entity_size, 0x15) \
	F(reserved9, 0x0b) \
	F(mtt_fbo, 0x15) \
	F(reserved10, 0x0b)
HERMON_PRM_DECLARE(mpt, HERMON_PRM_MPT, 0x40)

#define HERMON_PRM_QPCBASEADDR(F, N) \
	F(reserved0, 0x80) \
	F(qpc_base_addr_h, 0x20) \
	F(log_num_of_qp, 0x05) \
	F(qpc_base_addr_l, 0x1b) \
	F(reserved1, 0x40) \
	F(reserved2, 0x40) \
	F(srqc_base_addr_h, 0x20) \
	F(log_num_of_srq, 0x05) \
	F(srqc_base_addr_l, 0x1b) \
	F(cqc_base_addr_h, 0x20) \
	F(log_num_of_cq, 0x05) \
	F(cqc_base_addr_l, 0x1b) \
	F(reserved3, 0x40) \
	F(altc_base_addr_h, 0x20) \
	F(altc_base_addr_l, 0x20) \
	F(reserved4, 0x40) \
	F(auxc_base_addr_h, 0x20) \
	F(auxc_base_addr_l, 0x20) \
	F(reserved5, 0x40) \
	F(eqc_base_addr_h, 0x20) \
	F(log_num_of_eq, 0x05) \
	F(eqc_base_addr_l, 0x1b) \
	F(reserved6, 0x40) \
	F(rdmardc_base_addr_h, 0x20) \
	F(log_num_rd, 0x03) \
	F(reserved7, 0x02) \
	F(rdmardc_base_addr_l, 0x1b) \
	F(reserved8, 0x40)
HERMON_PRM_DECLARE(qpcbaseaddr, HERMON_PRM_QPCBASEADDR, 0x80)

#define HERMON_PRM_MULTICASTPARAM(F, N) \
	F(mc_base_addr_h, 0x20) \
	F(mc_base_addr_l, 0x20) \
	F(reserved0, 0x40) \
	F(log_mc_table_entry_sz, 0x05) \
	F(reserved1, 0x0b) \
	F(reserved2, 0x10) \
	F(log_mc_table_hash_sz, 0x05) \
	F(reserved3, 0x1b) \
	F(log_mc_table_sz, 0x05) \
	F(reserved4, 0x13) \
	F(mc_hash_fn, 0x03) \
	F(uc_group_steering, 0x01) \
	F(reserved5, 0x04) \
	F(reserved6, 0x20)
HERMON_PRM_DECLARE(multicastparam, HERMON_PRM_MULTICASTPARAM, 0x20)

#define HERMON_PRM_TPTPARAMS(F, N) \
	F(dmpt_base_adr_h, 0x20) \
	F(dmpt_base_adr_l, 0x20) \
	F(log_dmpt_sz, 0x06) \
	F(reserved0, 0x02) \
	F(pfto, 0x05) \
	F(reserved1, 0x13) \
	F(reserved2, 0x20) \
	F(mtt_base_addr_h, 0x20) \
	F(mtt_base_addr_l, 0x20) \
	F(cmpt_base_adr_h, 0x20) \
	F(cmpt_base_adr_l, 0x20)
HERMON_PRM_DECLARE(tptparams, HERMON_PRM_TPTPARAMS, 0x20)

#define HERMON_PRM_UAR_PARAMS(F, N) \
	F(reserved0, 0x40) \
	F(uar_page_sz, 0x08) \
	F(log_max_uars, 0x04) \
	F(reserved1, 0x14) \
	F(reserved2, 0xa0)
HERMON_PRM_DECLARE(uar_params, HERMON_PRM_UAR_PARAMS, 0x20)

#define HERMON_PRM_INIT_HCA(F, N) \
	F(reserved0, 0x18) \
	F(version, 0x08) \
	F(reserved1, 0x40) \
	F(reserved2, 0x10) \
	F(hca_core_clock, 0x10) \
	F(router_qp, 0x18) \
	F(reserved3, 0x05) \
	F(ipr2, 0x01) \
	F(ipr1, 0x01) \
	F(ibr, 0x01) \
	F(udp, 0x01) \
	F(he, 0x01) \
	F(reserved4, 0x01) \
	F(ce, 0x01) \
	F(reserved5, 0x1c) \
	F(reserved6, 0x40) \
	N(qpc_eec_cqc_eqc_rdb_parameters, qpcbaseaddr) \
	F(reserved7, 0x100) \
	N(multicast_parameters, multicastparam) \
	F(reserved8, 0x80) \
	N(tpt_parameters, tptparams) \
	F(reserved9, 0x80) \
	N(uar_parameters, uar_params) \
	F(reserved10, 0x600)
HERMON_PRM_DECLARE(init_hca, HERMON_PRM_INIT_HCA, 0x200)

#define HERMON_PRM_EQC(F, N) \
	F(reserved0, 0x08) \
	F(st, 0x04) \
	F(reserved1, 0x05) \
	F(oi, 0x01) \
	F(ec, 0x01) \
	F(reserved2, 0x09) \
	F(status, 0x04) \
	F(reserved3, 0x20) \
	F(reserved4, 0x05) \
	F(page_offset, 0x07) \
	F(reserved5, 0x14) \
	F(reserved6, 0x18) \
	F(log_eq_size, 0x05) \
	F(reserved7, 0x03) \
	F(eq_max_count, 0x10) \
	F(eq_period, 0x10) \
	F(intr, 0x0a) \
	F(reserved8, 0x16) \
	F(mtt_base_addr_h, 0x08) \
	F(reserved9, 0x10) \
	F(log2_page_size, 0x06) \
	F(reserved10, 0x02) \
	F(reserved11, 0x03) \
	F(mtt_base_addr_l, 0x1d) \
	F(reserved12, 0x40) \
	F(consumer_counter, 0x18) \
	F(reserved13, 0x08) \
	F(producer_counter, 0x18) \
	F(reserved14, 0x08) \
	F(reserved15, 0x80)
HERMON_PRM_DECLARE(eqc, HERMON_PRM_EQC, 0x40)

#define HERMON_PRM_ADDRESS_PATH(F, N) \
	F(pkey_index, 0x07) \
	F(reserved0, 0x16) \
	F(sv, 0x01) \
	F(cv, 0x01) \
	F(fl, 0x01) \
	F(rlid, 0x10) \
	F(my_lid_smac_idx, 0x07) \
	F(grh_ip, 0x01) \
	F(reserved1, 0x08) \
	F(hop_limit, 0x08) \
	F(max_stat_rate, 0x04) \
	F(reserved2, 0x04) \
	F(mgid_index, 0x07) \
	F(reserved3, 0x04) \
	F(ack_timeout, 0x05) \
	F(flow_label, 0x14) \
	F(tclass, 0x08) \
	F(reserved4, 0x04) \
	F(rgid_127_96, 0x20) \
	F(rgid_95_64, 0x20) \
	F(rgid_63_32, 0x20) \
	F(rgid_31_0, 0x20) \
	F(reserved5, 0x08) \
	F(sp, 0x01) \
	F(reserved6, 0x02) \
	F(fvl, 0x01) \
	F(fsip, 0x01) \
	F(fsm, 0x01) \
	F(reserved7, 0x0a) \
	F(sched_queue, 0x08) \
	F(dmac_47_32, 0x10) \
	F(vlan_index, 0x07) \
	F(reserved8, 0x01) \
	F(counter_index, 0x08) \
	F(dmac_31_0, 0x20)
HERMON_PRM_DECLARE(address_path, HERMON_PRM_ADDRESS_PATH, 0x2c)

#define HERMON_PRM_QUEUE_PAIR_EE_CONTEXT_ENTRY(F, N) \
	F(reserved0, 0x08) \
	F(reserved1, 0x01) \
	F(reserved2, 0x02) \
	F(pm_state, 0x02) \
	F(reserved3, 0x03) \
	F(st, 0x04) \
	F(reserved4, 0x08) \
	F(state, 0x04) \
	F(pd, 0x18) \
	F(reserved5, 0x08) \
	F(reserved6, 0x04) \
	F(rlky, 0x01) \
	F(reserved7, 0x03) \
	F(log_sq_stride, 0x03) \
	F(log_sq_size, 0x04) \
	F(reserved8, 0x01) \
	F(log_rq_stride, 0x03) \
	F(log_rq_size, 0x04) \
	F(reserved9, 0x01) \
	F(msg_max, 0x05) \
	F(mtu, 0x03) \
	F(usr_page, 0x18) \
	F(reserved10, 0x08) \
	F(local_qpn_een, 0x18) \
	F(reserved11, 0x08) \
	F(remote_qpn_een, 0x18) \
	F(reserved12, 0x08) \
	N(primary_address_path, address_path) \
	N(alternative_address_path, address_path) \
	F(reserved13, 0x03) \
	F(reserved14, 0x01) \
	F(reserved15, 0x01) \
	F(cur_retry_cnt, 0x03) \
	F(cur_rnr_retry, 0x03) \
	F(fre, 0x01) \
	F(reserved16, 0x01) \
	F(rnr_retry, 0x03) \
	F(retry_count, 0x03) \
	F(reserved17, 0x02) \
	F(sra_max, 0x03) \
	F(reserved18, 0x04) \
	F(ack_req_freq, 0x04) \
	F(reserved19, 0x20) \
	F(next_send_psn, 0x18) \
	F(reserved20, 0x08) \
	F(cqn_snd, 0x18) \
	F(reserved21, 0x08) \
	F(reserved22, 0x40) \
	F(last_acked_psn, 0x18) \
	F(reserved23, 0x08) \
	F(ssn, 0x18) \
	F(reserved24, 0x08) \
	F(reserved25, 0x04) \
	F(ric, 0x01) \
	F(reserved26, 0x01) \
	F(page_offset, 0x06) \
	F(reserved27, 0x01) \
	F(rae, 0x01) \
	F(rwe, 0x01) \
	F(rre, 0x01) \
	F(reserved28, 0x05) \
	F(rra_max, 0x03) \
	F(physical_function, 0x08) \
	F(next_rcv_psn, 0x18) \
	F(min_rnr_nak, 0x05) \
	F(reserved30, 0x03) \
	F(srcd, 0x10) \
	F(reserved31, 0x10) \
	F(cqn_rcv, 0x18) \
	F(reserved32, 0x08) \
	F(db_record_addr_h, 0x20) \
	F(reserved33, 0x02) \
	F(db_record_addr_l, 0x1e) \
	F(q_key, 0x20) \
	F(srqn, 0x18) \
	F(srq, 0x01) \
	F(reserved34, 0x07) \
	F(rmsn, 0x18) \
	F(reserved35, 0x08) \
	F(sq_wqe_counter, 0x10) \
	F(rq_wqe_counter, 0x10) \
	F(reserved36, 0x40) \
	F(rmc_parent_qpn, 0x18) \
	F(hs, 0x01) \
	F(is, 0x01) \
	F(reserved37, 0x01) \
	F(rme, 0x02) \
	F(reserved38, 0x02) \
	F(mkey_rmp, 0x01) \
	F(base_mkey, 0x18) \
	F(num_rmc_peers, 0x08) \
	F(mtt_base_addr_h, 0x08) \
	F(reserved39, 0x10) \
	F(log2_page_size, 0x06) \
	F(reserved40, 0x02) \
	F(reserved41, 0x03) \
	F(mtt_base_addr_l, 0x1d) \
	F(vft_lan, 0x0c) \
	F(vft_prio, 0x03) \
	F(reserved42, 0x01) \
	F(cs_ctl, 0x09) \
	F(reserved43, 0x06) \
	F(ve, 0x01) \
	F(exch_base, 0x10) \
	F(reserved44, 0x08) \
	F(exch_size, 0x04) \
	F(reserved45, 0x03) \
	F(fc, 0x01) \
	F(remote_id, 0x18) \
	F(reserved46, 0x08) \
	F(fcp_mtu, 0x0a) \
	F(reserved47, 0x06) \
	F(my_id_indx, 0x08) \
	F(vft_hop_count, 0x08) \
	F(reserved48, 0xc0)
HERMON_PRM_DECLARE(queue_pair_ee_context_entry, HERMON_PRM_QUEUE_PAIR_EE_CONTEXT_ENTRY, 0xf8)

#define HERMON_PRM_QP_EE_STATE_TRANSITIONS(F, N) \
	F(opt_param_mask, 0x20) \
	F(reserved0, 0x20) \
	N(qpc_eec_data, queue_pair_ee_context_entry) \
	F(reserved1, 0x800)
HERMON_PRM_DECLARE(qp_ee_state_transitions, HERMON_PRM_QP_EE_STATE_TRANSITIONS, 0x200)

#define HERMON_PRM_MTT(F, N) \
	F(ptag_h, 0x20) \
	F(p, 0x01) \
	F(reserved0, 0x02) \
	F(ptag_l, 0x1d)
HERMON_PRM_DECLARE(mtt, HERMON_PRM_MTT, 0x8)

#define HERMON_PRM_HCA_COMMAND_REGISTER(F, N) \
	F(in_param_h, 0x20) \
	F(in_param_l, 0x20) \
	F(input_modifier, 0x20) \
	F(out_param_h, 0x20) \
	F(out_param_l, 0x20) \
	F(reserved0, 0x10) \
	F(token, 0x10) \
	F(opcode, 0x0c) \
	F(opcode_modifier, 0x04) \
	F(reserved1, 0x05) \
	F(t, 0x01) \
	F(e, 0x01) \
	F(go, 0x01) \
	F(status, 0x08)
HERMON_PRM_DECLARE(hca_command_register, HERMON_PRM_HCA_COMMAND_REGISTER, 0x1c)

#define HERMON_PRM_COMPLETION_QUEUE_ENTRY(F, N) \
	F(qpn, 0x18) \
	F(reserved0, 0x02) \
	F(d2s, 0x01) \
	F(fcrc_sd, 0x01) \
	F(fl, 0x01) \
	F(vlan, 0x02) \
	F(dife, 0x01) \
	F(immediate_rssvalue_invalidatekey, 0x20) \
	F(srq_rqpn, 0x18) \
	F(ml_path_mac_index, 0x07) \
	F(g, 0x01) \
	F(slid_smac47_32, 0x10) \
	F(vid, 0x0c) \
	F(sl, 0x04) \
	F(smac31_0_rawether_ipoib_status, 0x20) \
	F(byte_cnt, 0x20) \
	F(checksum, 0x10) \
	F(wqe_counter, 0x10) \
	F(opcode, 0x05) \
	F(is, 0x01) \
	F(s_r, 0x01) \
	F(owner, 0x01) \
	F(reserved1, 0x10) \
	F(reserved2, 0x08)
HERMON_PRM_DECLARE(completion_queue_entry, HERMON_PRM_COMPLETION_QUEUE_ENTRY, 0x20)

#define HERMON_PRM_COMPLETION_WITH_ERROR(F, N) \
	F(qpn, 0x18) \
	F(reserved0, 0x08) \
	F(reserved1, 0xa0) \
	F(syndrome, 0x08) \
	F(vendor_error_syndrome, 0x08) \
	F(wqe_counter, 0x10) \
	F(opcode, 0x05) \
	F(reserved2, 0x01) \
	F(s_r, 0x01) \
	F(owner, 0x01) \
	F(reserved3, 0x18)
HERMON_PRM_DECLARE(completion_with_error, HERMON_PRM_COMPLETION_WITH_ERROR, 0x20)

#define HERMON_PRM_EVENT_QUEUE_ENTRY(F, N) \
	F(event_sub_type, 0x08) \
	F(reserved0, 0x08) \
	F(event_type, 0x08) \
	F(reserved1, 0x08) \
	F(event_data, 0xc0) \
	F(reserved2, 0x07) \
	F(owner, 0x01) \
	F(reserved3, 0x18)
HERMON_PRM_DECLARE(event_queue_entry, HERMON_PRM_EVENT_QUEUE_ENTRY, 0x20)

#define HERMON_PRM_WQE_SEGMENT_CTRL_SEND(F, N) \
	F(opcode, 0x05) \
	F(reserved0, 0x1a) \
	F(owner, 0x01) \
	F(ds, 0x06) \
	F(f, 0x01) \
	F(reserved1, 0x19) \
	F(fl, 0x01) \
	F(s, 0x01) \
	F(c, 0x02) \
	F(ip, 0x01) \
	F(tcp_udp, 0x01) \
	F(reserved2, 0x01) \
	F(so, 0x01) \
	F(src_remote_buf, 0x18) \
	F(immediate, 0x20)
HERMON_PRM_DECLARE(wqe_segment_ctrl_send, HERMON_PRM_WQE_SEGMENT_CTRL_SEND, 0x10)

#define HERMON_PRM_WQE_SEGMENT_CTRL_MLX(F, N) \
	F(opcode, 0x05) \
	F(reserved0, 0x1a) \
	F(owner, 0x01) \
	F(ds, 0x06) \
	F(reserved1, 0x1a) \
	F(fl, 0x01) \
	F(reserved2, 0x01) \
	F(c, 0x02) \
	F(icrc, 0x01) \
	F(reserved3, 0x03) \
	F(sl, 0x04) \
	F(max_statrate, 0x04) \
	F(slr, 0x01) \
	F(v15, 0x01) \
	F(reserved4, 0x0e) \
	F(reserved5, 0x10) \
	F(rlid, 0x10)
HERMON_PRM_DECLARE(wqe_segment_ctrl_mlx, HERMON_PRM_WQE_SEGMENT_CTRL_MLX, 0x10)

#define HERMON_PRM_WQE_SEGMENT_DATA_PTR(F, N) \
	F(byte_count, 0x1f) \
	F(always0, 0x01) \
	F(l_key, 0x20) \
	F(local_address_h, 0x20) \
	F(local_address_l, 0x20)
HERMON_PRM_DECLARE(wqe_segment_data_ptr, HERMON_PRM_WQE_SEGMENT_DATA_PTR, 0x10)

#define HERMON_PRM_WQE_SEGMENT_DATA_INLINE(F, N) \
	F(byte_count, 0x0a) \
	F(reserved0, 0x15) \
	F(always1, 0x01) \
	F(data, 0x18) \
	F(reserved1, 0x08) \
	F(reserved2, 0x40)
HERMON_PRM_DECLARE(wqe_segment_data_inline, HERMON_PRM_WQE_SEGMENT_DATA_INLINE, 0x10)

#define HERMON_PRM_WQE_SEGMENT_REMOTE_ADDRESS(F, N) \
	F(remote_virt_addr_h, 0x20) \
	F(remote_virt_addr_l, 0x20) \
	F(rkey, 0x20) \
	F(reserved0, 0x20)
HERMON_PRM_DECLARE(wqe_segment_remote_address, HERMON_PRM_WQE_SEGMENT_REMOTE_ADDRESS, 0x10)

#define HERMON_PRM_WQE_SEGMENT_ATOMIC(F, N) \
	F(swap_add_h, 0x20) \
	F(swap_add_l, 0x20) \
	F(compare_h, 0x20) \
	F(compare_l, 0x20)
HERMON_PRM_DECLARE(wqe_segment_atomic, HERMON_PRM_WQE_SEGMENT_ATOMIC, 0x10)

#define HERMON_PRM_UD_ADDRESS_VECTOR(F, N) \
	F(pd, 0x18) \
	F(port_number, 0x02) \
	F(reserved0, 0x05) \
	F(fl, 0x01) \
	F(rlid, 0x10) \
	F(my_lid_path_bits, 0x07) \
	F(g, 0x01) \
	F(reserved1, 0x08) \
	F(hop_limit, 0x08) \
	F(max_stat_rate, 0x04) \
	F(reserved2, 0x04) \
	F(mgid_index, 0x07) \
	F(reserved3, 0x09) \
	F(flow_label, 0x14) \
	F(tclass, 0x08) \
	F(sl, 0x04) \
	F(rgid_127_96, 0x20) \
	F(rgid_95_64, 0x20) \
	F(rgid_63_32, 0x20) \
	F(rgid_31_0, 0x20)
HERMON_PRM_DECLARE(ud_address_vector, HERMON_PRM_UD_ADDRESS_VECTOR, 0x20)

#define HERMON_PRM_WQE_SEGMENT_UD(F, N) \
	N(ud_address_vector, ud_address_vector) \
	F(destination_qp, 0x18) \
	F(reserved0, 0x08) \
	F(q_key, 0x20) \
	F(reserved1, 0x40)
HERMON_PRM_DECLARE(wqe_segment_ud, HERMON_PRM_WQE_SEGMENT_UD, 0x30)

#define HERMON_PRM_QP_DB_RECORD(F, N) \
	F(receive_wqe_counter, 0x10) \
	F(reserved0, 0x10)
HERMON_PRM_DECLARE(qp_db_record, HERMON_PRM_QP_DB_RECORD, 0x4)

#define HERMON_PRM_CQ_ARM_DB_RECORD(F, N) \
	F(counter, 0x20) \
	F(cmd, 0x03) \
	F(cmd_sn, 0x02) \
	F(res, 0x03) \
	F(cq_number, 0x18)
HERMON_PRM_DECLARE(cq_arm_db_record, HERMON_PRM_CQ_ARM_DB_RECORD, 0x8)

#define HERMON_PRM_CQ_CI_DB_RECORD(F, N) \
	F(counter, 0x20) \
	F(reserved0, 0x05) \
	F(res, 0x03) \
	F(cq_number, 0x18)
HERMON_PRM_DECLARE(cq_ci_db_record, HERMON_PRM_CQ_CI_DB_RECORD, 0x8)

#define HERMON_PRM_SEND_DOORBELL(F, N) \
	F(nopcode, 0x05) \
	F(f, 0x01) \
	F(reserved0, 0x02) \
	F(wqe_counter, 0x10) \
	F(wqe_cnt, 0x08) \
	F(nds, 0x06) \
	F(reserved1, 0x02) \
	F(qpn, 0x18)
HERMON_PRM_DECLARE(send_doorbell, HERMON_PRM_SEND_DOORBELL, 0x8)

#define HERMON_PRM_CQ_CMD_DOORBELL(F, N) \
	F(cqn, 0x18) \
	F(cmd, 0x03) \
	F(reserved0, 0x01) \
	F(cmd_sn, 0x02) \
	F(reserved1, 0x02) \
	F(cq_param, 0x20)
HERMON_PRM_DECLARE(cq_cmd_doorbell, HERMON_PRM_CQ_CMD_DOORBELL, 0x8)

#define HERMON_PRM_VIRTUAL_PHYSICAL_MAPPING(F, N) \
	F(va_h, 0x20) \
	F(reserved0, 0x0c) \
	F(va_l, 0x14) \
	F(pa_h, 0x20) \
	F(log2size, 0x06) \
	F(reserved1, 0x06) \
	F(pa_l, 0x14)
HERMON_PRM_DECLARE(virtual_physical_mapping, HERMON_PRM_VIRTUAL_PHYSICAL_MAPPING, 0x10)

#define HERMON_PRM_QUERY_FW(F, N) \
	F(fw_rev_major, 0x10) \
	F(fw_pages, 0x10) \
	F(fw_rev_minor, 0x10) \
	F(fw_rev_subminor, 0x10) \
	F(cmd_interface_rev, 0x10) \
	F(reserved0, 0x10) \
	F(log_max_outstanding_cmd, 0x08) \
	F(reserved1, 0x17) \
	F(dt, 0x01) \
	F(reserved2, 0x01) \
	F(ccq, 0x01) \
	F(reserved3, 0x06) \
	F(fw_seconds, 0x08) \
	F(fw_minutes, 0x08) \
	F(fw_hour, 0x08) \
	F(fw_day, 0x08) \
	F(fw_month, 0x08) \
	F(fw_year, 0x10) \
	F(reserved4, 0x40) \
	F(clr_int_base_offset_h, 0x20) \
	F(clr_int_base_offset_l, 0x20) \
	F(reserved5, 0x1e) \
	F(clr_int_bar, 0x02) \
	F(reserved6, 0x20) \
	F(error_buf_offset_h, 0x20) \
	F(error_buf_offset_l, 0x20) \
	F(error_buf_size, 0x20) \
	F(reserved7, 0x1e) \
	F(error_buf_bar, 0x02) \
	F(reserved8, 0x600)
HERMON_PRM_DECLARE(query_fw, HERMON_PRM_QUERY_FW, 0x100)

#define HERMON_PRM_QUERY_DEV_CAP(F, N) \
	F(reserved0, 0x80) \
	F(log_max_qp, 0x05) \
	F(reserved1, 0x03) \
	F(log2_rsvd_qps, 0x04) \
	F(reserved2, 0x04) \
	F(log_max_qp_sz, 0x08) \
	F(log_max_srq_sz, 0x08) \
	F(log_max_scqs, 0x04) \
	F(reserved3, 0x04) \
	F(num_rsvd_scqs, 0x06) \
	F(reserved4, 0x02) \
	F(log_max_srqs, 0x05) \
	F(reserved5, 0x07) \
	F(log2_rsvd_srqs, 0x04) \
	F(log_max_cq, 0x05) \
	F(reserved6, 0x03) \
	F(log2_rsvd_cqs, 0x04) \
	F(reserved7, 0x04) \
	F(log_max_cq_sz, 0x08) \
	F(num_rsvd_eqs, 0x08) \
	F(log_max_eq, 0x04) \
	F(reserved9, 0x04) \
	F(log2_rsvd_eqs, 0x04) \
	F(reserved10, 0x04) \
	F(log_max_d_mpts, 0x06) \
	F(reserved11, 0x02) \
	F(log_max_eq_sz, 0x08) \
	F(log_max_mtts, 0x06) \
	F(reserved12, 0x02) \
	F(log2_rsvd_mrws, 0x04) \
	F(reserved13, 0x04) \
	F(log_max_mrw_sz, 0x07) \
	F(reserved14, 0x05) \
	F(log2_rsvd_mtts, 0x04) \
	F(reserved15, 0x20) \
	F(log_max_ra_res_qp, 0x06) \
	F(reserved16, 0x0a) \
	F(log_max_ra_req_qp, 0x06) \
	F(reserved17, 0x0a) \
	F(log_max_ra_res_global, 0x06) \
	F(reserved18, 0x1a) \
	F(rsz_srq, 0x01) \
	F(reserved19, 0x1f) \
	F(num_ports, 0x04) \
	F(reserved47, 0x04) \
	F(pci_pf_num, 0x08) \
	F(local_ca_ack_delay, 0x05) \
	F(port_type, 0x04) \
	F(reserved20, 0x04) \
	F(w, 0x01) \
	F(j, 0x01) \
	F(reserved21, 0x01) \
	F(log_max_gid, 0x04) \
	F(reserved22, 0x04) \
	F(log_ethtype, 0x04) \
	F(reserved23, 0x04) \
	F(log_drain_size, 0x08) \
	F(log_max_msg, 0x05) \
	F(reserved24, 0x03) \
	F(log_max_pkey, 0x04) \
	F(reserved25, 0x0c) \
	F(stat_rate_support, 0x10) \
	F(reserved26, 0x08) \
	F(rss_udp, 0x01) \
	F(vep_uc_steering, 0x01) \
	F(vep_mc_steering, 0x01) \
	F(reserved27, 0x15) \
	F(rc, 0x01) \
	F(uc, 0x01) \
	F(ud, 0x01) \
	F(src, 0x01) \
	F(rcm, 0x01) \
	F(fcoib, 0x01) \
	F(srq, 0x01) \
	F(checksum, 0x01) \
	F(pkv, 0x01) \
	F(qkv, 0x01) \
	F(vmm, 0x01) \
	F(fcoe, 0x01) \
	F(dpdp, 0x01) \
	F(raw_ethertype, 0x01) \
	F(raw_ipv6, 0x01) \
	F(blh, 0x01) \
	F(mw, 0x01) \
	F(apm, 0x01) \
	F(atm, 0x01) \
	F(rm, 0x01) \
	F(avp, 0x01) \
	F(udm, 0x01) \
	F(reserved28, 0x02) \
	F(pg, 0x01) \
	F(r, 0x01) \
	F(reserved29, 0x06) \
	F(log_pg_sz, 0x08) \
	F(reserved30, 0x08) \
	F(uar_sz, 0x06) \
	F(reserved31, 0x06) \
	F(num_rsvd_uars, 0x04) \
	F(log_max_bf_pages, 0x06) \
	F(reserved32, 0x02) \
	F(log_max_bf_regs_per_page, 0x06) \
	F(reserved33, 0x02) \
	F(log_bf_reg_size, 0x05) \
	F(reserved34, 0x0a) \
	F(bf, 0x01) \
	F(max_desc_sz_sq, 0x10) \
	F(max_sg_sq, 0x08) \
	F(reserved35, 0x08) \
	F(max_desc_sz_rq, 0x10) \
	F(max_sg_rq, 0x08) \
	F(reserved36, 0x08) \
	F(reserved37, 0x01) \
	F(fexch_base_mpt_31_25, 0x07) \
	F(fcp_ud_base_23_8, 0x10) \
	F(fexch_base_qp_23_16, 0x08) \
	F(reserved38, 0x20) \
	F(log_max_mcg, 0x08) \
	F(num_rsvd_mcgs, 0x04) \
	F(reserved39, 0x04) \
	F(log_max_qp_mcg, 0x08) \
	F(reserved40, 0x08) \
	F(log_max_srcds, 0x04) \
	F(reserved41, 0x08) \
	F(num_rsvd_scrds, 0x04) \
	F(log_max_pd, 0x05) \
	F(reserved42, 0x07) \
	F(num_rsvd_pds, 0x04) \
	F(reserved43, 0xc0) \
	F(qpc_entry_sz, 0x10) \
	F(rdmardc_entry_sz, 0x10) \
	F(altc_entry_sz, 0x10) \
	F(aux_entry_sz, 0x10) \
	F(cqc_entry_sz, 0x10) \
	F(eqc_entry_sz, 0x10) \
	F(c_mpt_entry_sz, 0x10) \
	F(srq_entry_sz, 0x10) \
	F(d_mpt_entry_sz, 0x10) \
	F(mtt_entry_sz, 0x10) \
	F(bmme, 0x01) \
	F(win_type, 0x01) \
	F(mps, 0x01) \
	F(bl, 0x01) \
	F(zb, 0x01) \
	F(lif, 0x01) \
	F(reserved44, 0x1a) \
	F(resd_lkey, 0x20) \
	F(reserved45, 0x20) \
	F(max_icm_size_h, 0x20) \
	F(max_icm_size_l, 0x20) \
	F(reserved46, 0x2c0)
HERMON_PRM_DECLARE(query_dev_cap, HERMON_PRM_QUERY_DEV_CAP, 0x100)

#define HERMON_PRM_VSD(F, N) \
	F(vsd_dw0, 0x20) \
	F(vsd_dw1, 0x20) \
	F(vsd_dw2, 0x20) \
	F(vsd_dw3, 0x20) \
	F(vsd_dw4, 0x20) \
	F(vsd_dw5, 0x20) \
	F(vsd_dw6, 0x20) \
	F(vsd_dw7, 0x20) \
	F(vsd_dw8, 0x20) \
	F(vsd_dw9, 0x20) \
	F(vsd_dw10, 0x20) \
	F(vsd_dw11, 0x20) \
	F(vsd_dw12, 0x20) \
	F(vsd_dw13, 0x20) \
	F(vsd_dw14, 0x20) \
	F(vsd_dw15, 0x20) \
	F(vsd_dw16, 0x20) \
	F(vsd_dw17, 0x20) \
	F(vsd_dw18, 0x20) \
	F(vsd_dw19, 0x20) \
	F(vsd_dw20, 0x20) \
	F(vsd_dw21, 0x20) \
	F(vsd_dw22, 0x20) \
	F(vsd_dw23, 0x20) \
	F(vsd_dw24, 0x20) \
	F(vsd_dw25, 0x20) \
	F(vsd_dw26, 0x20) \
	F(vsd_dw27, 0x20) \
	F(vsd_dw28, 0x20) \
	F(vsd_dw29, 0x20) \
	F(vsd_dw30, 0x20) \
	F(vsd_dw31, 0x20) \
	F(vsd_dw32, 0x20) \
	F(vsd_dw33, 0x20) \
	F(vsd_dw34, 0x20) \
	F(vsd_dw35, 0x20) \
	F(vsd_dw36, 0x20) \
	F(vsd_dw37, 0x20) \
	F(vsd_dw38, 0x20) \
	F(vsd_dw39, 0x20) \
	F(vsd_dw40, 0x20) \
	F(vsd_dw41, 0x20) \
	F(vsd_dw42, 0x20) \
	F(vsd_dw43, 0x20) \
	F(vsd_dw44, 0x20) \
	F(vsd_dw45, 0x20) \
	F(vsd_dw46, 0x20) \
	F(vsd_dw47, 0x20) \
	F(vsd_dw48, 0x20) \
	F(vsd_dw49, 0x20) \
	F(vsd_dw50, 0x20) \
	F(vsd_dw51, 0x20) \
	F(vsd_dw52, 0x20) \
	F(vsd_dw53, 0x20) \
	F(vsd_dw54, 0x20) \
	F(vsd_dw55, 0x20)
HERMON_PRM_DECLARE(vsd, HERMON_PRM_VSD, 0xe0)

#define HERMON_PRM_QUERY_ADAPTER(F, N) \
	F(reserved0, 0x80) \
	F(reserved1, 0x18) \
	F(intapin, 0x08) \
	F(reserved2, 0x60) \
	N(vsd, vsd)
HERMON_PRM_DECLARE(query_adapter, HERMON_PRM_QUERY_ADAPTER, 0x100)

#define HERMON_PRM_RESIZE_CQ(F, N) \
	F(reserved0, 0x40) \
	F(reserved1, 0x06) \
	F(page_offset, 0x06) \
	F(reserved2, 0x14) \
	F(reserved3, 0x18) \
	F(log_cq_size, 0x05) \
	F(reserved4, 0x03) \
	F(reserved5, 0x20) \
	F(mtt_base_addr_h, 0x08) \
	F(reserved6, 0x10) \
	F(log2_page_size, 0x06) \
	F(reserved7, 0x02) \
	F(reserved8, 0x03) \
	F(mtt_base_addr_l, 0x1d) \
	F(reserved9, 0x20) \
	F(reserved10, 0x100)
HERMON_PRM_DECLARE(resize_cq, HERMON_PRM_RESIZE_CQ, 0x40)

#define HERMON_PRM_LOCAL_INVALIDATE_SEGMENT(F, N) \
	F(reserved0, 0x40) \
	F(mem_key, 0x18) \
	F(reserved1, 0x08) \
	F(reserved2, 0xa0)
HERMON_PRM_DECLARE(local_invalidate_segment, HERMON_PRM_LOCAL_INVALIDATE_SEGMENT, 0x20)

#define HERMON_PRM_FAST_REGISTRATION_SEGMENT(F, N) \
	F(reserved0, 0x1b) \
	F(lr, 0x01) \
	F(lw, 0x01) \
	F(rr, 0x01) \
	F(rw, 0x01) \
	F(a, 0x01) \
	F(pbl_ptr_63_32, 0x20) \
	F(mem_key, 0x20) \
	F(page_size, 0x05) \
	F(reserved1, 0x02) \
	F(zb, 0x01) \
	F(pbl_ptr_31_8, 0x18) \
	F(start_address_h, 0x20) \
	F(start_address_l, 0x20) \
	F(reg_len_h, 0x20) \
	F(reg_len_l, 0x20)
HERMON_PRM_DECLARE(fast_registration_segment, HERMON_PRM_FAST_REGISTRATION_SEGMENT, 0x20)

#define HERMON_PRM_COMPLETION_EVENT(F, N) \
	F(cqn, 0x18) \
	F(reserved0, 0x08) \
	F(reserved1, 0xa0)
HERMON_PRM_DECLARE(completion_event, HERMON_PRM_COMPLETION_EVENT, 0x18)

#define HERMON_PRM_COMPLETION_QUEUE_ERROR(F, N) \
	F(cqn, 0x18) \
	F(reserved0, 0x08) \
	F(reserved1, 0x20) \
	F(syndrome, 0x08) \
	F(reserved2, 0x18) \
	F(reserved3, 0x60)
HERMON_PRM_DECLARE(completion_queue_error, HERMON_PRM_COMPLETION_QUEUE_ERROR, 0x18)

#define HERMON_PRM_QP_EE_EVENT(F, N) \
	F(qpn_een, 0x18) \
	F(reserved0, 0x08) \
	F(reserved1, 0x20) \
	F(reserved2, 0x1c) \
	F(e_q, 0x01) \
	F(reserved3, 0x03) \
	F(reserved4, 0x60)
HERMON_PRM_DECLARE(qp_ee_event, HERMON_PRM_QP_EE_EVENT, 0x18)

#define HERMON_PRM_PORT_STATE_CHANGE(F, N) \
	F(reserved0, 0x40) \
	F(reserved1, 0x1c) \
	F(p, 0x02) \
	F(reserved2, 0x02) \
	F(reserved3, 0x60)
HERMON_PRM_DECLARE(port_state_change, HERMON_PRM_PORT_STATE_CHANGE, 0x18)

#define HERMON_PRM_MGMQP(F, N) \
	F(qpn_i, 0x18) \
	F(reserved0, 0x06) \
	F(blck_lb, 0x01) \
	F(qi, 0x01)
HERMON_PRM_DECLARE(mgmqp, HERMON_PRM_MGMQP, 0x4)

#define HERMON_PRM_MGM_ENTRY(F, N) \
	F(reserved0, 0x06) \
	F(next_gid_index, 0x1a) \
	F(reserved1, 0x60) \
	F(mgid_128_96, 0x20) \
	F(mgid_95_64, 0x20) \
	F(mgid_63_32, 0x20) \
	F(mgid_31_0, 0x20) \
	N(mgmqp_0, mgmqp) \
	N(mgmqp_1, mgmqp) \
	N(mgmqp_2, mgmqp) \
	N(mgmqp_3, mgmqp) \
	N(mgmqp_4, mgmqp) \
	N(mgmqp_5, mgmqp) \
	N(mgmqp_6, mgmqp) \
	N(mgmqp_7, mgmqp)
HERMON_PRM_DECLARE(mgm_entry, HERMON_PRM_MGM_ENTRY, 0x40)

#define HERMON_PRM_MCG_HDR(F, N) \
	F(reserved0, 0x06) \
	F(next_mcg, 0x1a) \
	F(members_count, 0x18) \
	F(member_remove, 0x01) \
	F(reserved1, 0x05) \
	F(protocol, 0x02) \
	F(reserved2, 0x20) \
	F(reserved3, 0x20) \
	F(gid3, 0x20) \
	F(gid2, 0x20) \
	F(gid1, 0x20) \
	F(gid0, 0x20)
HERMON_PRM_DECLARE(mcg_hdr, HERMON_PRM_MCG_HDR, 0x20)

#define HERMON_PRM_RD_SEND_DOORBELL(F, N) \
	F(reserved0, 0x08) \
	F(een, 0x18) \
	F(reserved1, 0x08) \
	F(qpn, 0x18) \
	N(send_doorbell, send_doorbell)
HERMON_PRM_DECLARE(rd_send_doorbell, HERMON_PRM_RD_SEND_DOORBELL, 0x10)

#define HERMON_PRM_UAR(F, N) \
	N(rd_send_doorbell, rd_send_doorbell) \
	N(send_doorbell, send_doorbell) \
	F(reserved0, 0x40) \
	N(cq_command_doorbell, cq_cmd_doorbell) \
	F(reserved1, 0x3ec0)
HERMON_PRM_DECLARE(uar, HERMON_PRM_UAR, 0x800)
/*
 * Not in the PRM digest's tables: the WRITE_MTT mailbox header (the MTT
 * byte address relative to INIT_HCA's mtt_base, then a reserved qword;
 * the entries follow as struct hermon_prm_mtt) and the EQ doorbell dword
 * (UAR page + 0x800 + 8 * (eqn % 4)).
 */
#define HERMON_PRM_WRITE_MTT_HDR(F, N) \
	F(mtt_addr_h, 0x20) \
	F(mtt_addr_l, 0x20) \
	F(reserved0, 0x40)
HERMON_PRM_DECLARE(write_mtt_hdr, HERMON_PRM_WRITE_MTT_HDR, 0x10)

#define HERMON_PRM_EQ_DOORBELL(F, N) \
	F(ci, 0x18) \
	F(reserved0, 0x07) \
	F(req_not, 0x01)
HERMON_PRM_DECLARE(eq_doorbell, HERMON_PRM_EQ_DOORBELL, 0x4)

/* Every structure, for descriptor tables: X(type, LIST). */
#define HERMON_PRM_ALL_TYPES(X) \
	X(srq_context, HERMON_PRM_SRQ_CONTEXT) \
	X(completion_queue_context, HERMON_PRM_COMPLETION_QUEUE_CONTEXT) \
	X(mpt, HERMON_PRM_MPT) \
	X(qpcbaseaddr, HERMON_PRM_QPCBASEADDR) \
	X(multicastparam, HERMON_PRM_MULTICASTPARAM) \
	X(tptparams, HERMON_PRM_TPTPARAMS) \
	X(uar_params, HERMON_PRM_UAR_PARAMS) \
	X(init_hca, HERMON_PRM_INIT_HCA) \
	X(eqc, HERMON_PRM_EQC) \
	X(address_path, HERMON_PRM_ADDRESS_PATH) \
	X(queue_pair_ee_context_entry, HERMON_PRM_QUEUE_PAIR_EE_CONTEXT_ENTRY) \
	X(qp_ee_state_transitions, HERMON_PRM_QP_EE_STATE_TRANSITIONS) \
	X(mtt, HERMON_PRM_MTT) \
	X(hca_command_register, HERMON_PRM_HCA_COMMAND_REGISTER) \
	X(completion_queue_entry, HERMON_PRM_COMPLETION_QUEUE_ENTRY) \
	X(completion_with_error, HERMON_PRM_COMPLETION_WITH_ERROR) \
	X(event_queue_entry, HERMON_PRM_EVENT_QUEUE_ENTRY) \
	X(wqe_segment_ctrl_send, HERMON_PRM_WQE_SEGMENT_CTRL_SEND) \
	X(wqe_segment_ctrl_mlx, HERMON_PRM_WQE_SEGMENT_CTRL_MLX) \
	X(wqe_segment_data_ptr, HERMON_PRM_WQE_SEGMENT_DATA_PTR) \
	X(wqe_segment_data_inline, HERMON_PRM_WQE_SEGMENT_DATA_INLINE) \
	X(wqe_segment_remote_address, HERMON_PRM_WQE_SEGMENT_REMOTE_ADDRESS) \
	X(wqe_segment_atomic, HERMON_PRM_WQE_SEGMENT_ATOMIC) \
	X(ud_address_vector, HERMON_PRM_UD_ADDRESS_VECTOR) \
	X(wqe_segment_ud, HERMON_PRM_WQE_SEGMENT_UD) \
	X(qp_db_record, HERMON_PRM_QP_DB_RECORD) \
	X(cq_arm_db_record, HERMON_PRM_CQ_ARM_DB_RECORD) \
	X(cq_ci_db_record, HERMON_PRM_CQ_CI_DB_RECORD) \
	X(send_doorbell, HERMON_PRM_SEND_DOORBELL) \
	X(cq_cmd_doorbell, HERMON_PRM_CQ_CMD_DOORBELL) \
	X(virtual_physical_mapping, HERMON_PRM_VIRTUAL_PHYSICAL_MAPPING) \
	X(query_fw, HERMON_PRM_QUERY_FW) \
	X(query_dev_cap, HERMON_PRM_QUERY_DEV_CAP) \
	X(vsd, HERMON_PRM_VSD) \
	X(query_adapter, HERMON_PRM_QUERY_ADAPTER) \
	X(resize_cq, HERMON_PRM_RESIZE_CQ) \
	X(local_invalidate_segment, HERMON_PRM_LOCAL_INVALIDATE_SEGMENT) \
	X(fast_registration_segment, HERMON_PRM_FAST_REGISTRATION_SEGMENT) \
	X(completion_event, HERMON_PRM_COMPLETION_EVENT) \
	X(completion_queue_error, HERMON_PRM_COMPLETION_QUEUE_ERROR) \
	X(qp_ee_event, HERMON_PRM_QP_EE_EVENT) \
	X(port_state_change, HERMON_PRM_PORT_STATE_CHANGE) \
	X(mgmqp, HERMON_PRM_MGMQP) \
	X(mgm_entry, HERMON_PRM_MGM_ENTRY) \
	X(mcg_hdr, HERMON_PRM_MCG_HDR) \
	X(rd_send_doorbell, HERMON_PRM_RD_SEND_DOORBELL) \
	X(uar, HERMON_PRM_UAR) \
	X(write_mtt_hdr, HERMON_PRM_WRITE_MTT_HDR) \
	X(eq_doorbell, HERMON_PRM_EQ_DOORBELL)

#endif /* HERMON_PRM_STRUCTS_H */
