/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * pcap= writes a valid capture: a libpcap file header, then records whose
 * every frame parses as RoCEv2 with an ICRC that recomputes correctly.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ip.h>

#include "roce.h"
#include "t_roce.h"

struct file_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	int32_t zone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct rec_hdr {
	uint32_t sec;
	uint32_t usec;
	uint32_t incl;
	uint32_t orig;
};

/* Check @path; returns the number of frames, each verified. */
static unsigned int
check_pcap(const char *path, unsigned int *ops_seen)
{
	static uint8_t frame[70000];
	struct file_hdr fh;
	struct rec_hdr rh;
	struct roce_pkt pkt;
	unsigned int n = 0;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(&fh, sizeof(fh), 1, f), 1);
	assert_int_equal(fh.magic, 0xa1b2c3d4u);
	assert_int_equal(fh.major, 2);
	assert_int_equal(fh.minor, 4);
	assert_int_equal(fh.linktype, 1);
	while (fread(&rh, sizeof(rh), 1, f) == 1) {
		assert_true(rh.incl <= fh.snaplen && rh.incl <= sizeof(frame));
		assert_int_equal(rh.incl, rh.orig);
		assert_true(rh.incl >= 60);
		assert_int_equal(fread(frame, 1, rh.incl, f), rh.incl);
		if (roce_pkt_parse(frame, rh.incl, &pkt) != ROCE_RX_OK)
			fail_msg("frame %u: not a valid RoCEv2 frame", n);
		/* And independently of the parser: the ICRC at the end of the
		 * UDP payload is the CRC of the masked packet, LSB first. */
		{
			uint32_t udp_len = (uint32_t)frame[14 + 24] << 8 | frame[14 + 25];
			uint32_t end = 14 + 20 + udp_len, crc;

			crc = roce_icrc(frame + 14, end - 4 - 14, 0);
			assert_int_equal(frame[end - 4], crc & 0xff);
			assert_int_equal(frame[end - 3], (crc >> 8) & 0xff);
			assert_int_equal(frame[end - 2], (crc >> 16) & 0xff);
			assert_int_equal(frame[end - 1], crc >> 24);
		}
		/* The IPv4 header checksum (built from the path's partial
		 * sum): a correct header sums to all ones. */
		assert_int_equal(rte_raw_cksum(frame + 14, 20), 0xffff);
		ops_seen[pkt.bth.opcode & 0x1f] = 1;
		n++;
	}
	fclose(f);
	return n;
}

/* @extra: more devargs of both sides (the transmit path). */
static void
pcap_valid(const char *extra)
{
	char p0[64], p1[64], a0[192], a1[192];
	unsigned int seen[32] = { 0 };
	struct t_side s[2];
	struct prdma_wc wc;
	uint64_t v = 1;

	snprintf(p0, sizeof(p0), "/tmp/roce_test_%d_0.pcap", (int)getpid());
	snprintf(p1, sizeof(p1), "/tmp/roce_test_%d_1.pcap", (int)getpid());
	snprintf(a0, sizeof(a0), "roce:ring=pc1,side=0,pcap=%s%s", p0, extra);
	snprintf(a1, sizeof(a1), "roce:ring=pc1,side=1,pcap=%s%s", p1, extra);
	t_pair_open(s, a0, a1);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	/* Odd lengths exercise the pad bytes. */
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 2501,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 0, 3001,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 2), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_post_recv(&s[1], 0, 100, 3), 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, 0, 13, 0, 0, 3), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
	memcpy(s[1].buf + 512, &v, 8);
	{
		const struct prdma_send_wr *bad;
		struct prdma_send_wr wr;
		struct prdma_sge sge = { (uintptr_t)s[0].buf, 8, s[0].mr->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PRDMA_WR_ATOMIC_FETCH_AND_ADD;
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = (uintptr_t)s[1].buf + 512;
		wr.wr.atomic.rkey = s[1].mr->rkey;
		wr.wr.atomic.compare_add = 1;
		assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	}
	t_pair_close(s);
	/* Side 0 saw everything both ways. */
	assert_true(check_pcap(p0, seen) >= 3 + 1 + 1 + 3 + 1 + 1 + 1 + 1);
	assert_true(seen[ROCE_OP_WRITE_FIRST] && seen[ROCE_OP_WRITE_LAST]);
	assert_true(seen[ROCE_OP_READ_REQ] && seen[ROCE_OP_READ_RESP_FIRST] &&
		    seen[ROCE_OP_READ_RESP_LAST]);
	assert_true(seen[ROCE_OP_SEND_ONLY] && seen[ROCE_OP_ACK]);
	assert_true(seen[ROCE_OP_FETCH_ADD] && seen[ROCE_OP_ATOMIC_ACK]);
	memset(seen, 0, sizeof(seen));
	assert_true(check_pcap(p1, seen) >= 10);
	unlink(p0);
	unlink(p1);
}

static void
test_pcap_valid(void **state)
{
	(void)state;
	pcap_valid("");
}

/* Every payload zero-copy (chained frames): captured whole, ICRC right. */
static void
test_pcap_valid_zc(void **state)
{
	(void)state;
	pcap_valid(",zc=1,zc_min=1");
}

/* Every payload copied into its frame. */
static void
test_pcap_valid_copy(void **state)
{
	(void)state;
	pcap_valid(",zc=0");
}

static void
test_pcap_bad_path(void **state)
{
	(void)state;
	assert_int_equal(t_eal_init(), 0);
	assert_true(prdma_dev_probe("roce:ring=pc2,side=0,pcap=/nonexistent/dir/x.pcap") < 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcap_valid),
		cmocka_unit_test(test_pcap_valid_zc),
		cmocka_unit_test(test_pcap_valid_copy),
		cmocka_unit_test(test_pcap_bad_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
