/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-perf's perftest key messages, byte for byte: the 108-byte GID
 * format against the keys of the Soft-RoCE captures (tests/data/pcaps, TCP
 * 18515), the 59-byte format against cm-perftest-facts.md §5.2 (the same
 * first 50 characters, then the srqn and a NUL), and malformed messages.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "perf.h"

/* write_lat.pcap frame 16 (client) and read_lat.pcap frame 19 (server). */
static const char cap_write_lat_16[PERF_KEY_MSG_LEN] =
	"0000:0001:000011:784ce8:0000026f:000055b3503b1000:"
	"00:00:00:00:00:00:00:00:00:00:ff:ff:0a:63:00:03:00000000:";
static const char cap_read_lat_19[PERF_KEY_MSG_LEN] =
	"0000:0080:000011:f1d164:00000280:0000563bf4655000:"
	"00:00:00:00:00:00:00:00:00:00:ff:ff:0a:63:00:02:00000000:";
/* The same keys as a peer without a GID index sends them. */
static const char nogid_write_lat_16[PERF_KEY_MSG_LEN_NOGID] =
	"0000:0001:000011:784ce8:0000026f:000055b3503b1000:00000000";
static const char nogid_read_lat_19[PERF_KEY_MSG_LEN_NOGID] =
	"0000:0080:000011:f1d164:00000280:0000563bf4655000:00000000";

static void
check_write_lat_16(const struct perf_key *k, int with_gid)
{
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
					 10, 99, 0, 3 };
	static const uint8_t zero[16];

	assert_int_equal(k->lid, 0);
	assert_int_equal(k->out_reads, 1);
	assert_int_equal(k->qpn, 0x11);
	assert_int_equal(k->psn, 0x784ce8);
	assert_int_equal(k->rkey, 0x26f);
	assert_true(k->vaddr == 0x000055b3503b1000ull);
	assert_memory_equal(k->gid.raw, with_gid ? gid : zero, 16);
	assert_int_equal(k->srqn, 0);
}

static void
gid_format_matches_capture(void **state)
{
	const char *caps[] = { cap_write_lat_16, cap_read_lat_19 };
	char out[PERF_KEY_MSG_LEN];
	struct perf_key k;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(caps); i++) {
		assert_int_equal(perf_key_msg_len(caps[i]), PERF_KEY_MSG_LEN);
		assert_int_equal(perf_key_decode(caps[i], PERF_KEY_MSG_LEN, &k), 0);
		if (i == 0)
			check_write_lat_16(&k, 1);
		assert_int_equal(perf_key_encode(&k, out, PERF_KEY_MSG_LEN), PERF_KEY_MSG_LEN);
		assert_memory_equal(out, caps[i], PERF_KEY_MSG_LEN);
	}
}

static void
nogid_format_matches_facts(void **state)
{
	const char *caps[] = { cap_write_lat_16, cap_read_lat_19 };
	const char *nogid[] = { nogid_write_lat_16, nogid_read_lat_19 };
	char out[PERF_KEY_MSG_LEN_NOGID];
	struct perf_key k;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(nogid); i++) {
		assert_int_equal(nogid[i][PERF_KEY_MSG_LEN_NOGID - 1], '\0');
		assert_memory_equal(nogid[i], caps[i], 50);
		assert_int_equal(perf_key_msg_len(nogid[i]), PERF_KEY_MSG_LEN_NOGID);
		assert_int_equal(perf_key_decode(nogid[i], PERF_KEY_MSG_LEN_NOGID, &k), 0);
		if (i == 0)
			check_write_lat_16(&k, 0);
		/* A key with a GID loses it, and only it, in the short format. */
		assert_int_equal(perf_key_decode(caps[i], PERF_KEY_MSG_LEN, &k), 0);
		assert_int_equal(perf_key_encode(&k, out, sizeof(out)), PERF_KEY_MSG_LEN_NOGID);
		assert_memory_equal(out, nogid[i], PERF_KEY_MSG_LEN_NOGID);
	}
}

static void
fields_keep_their_width(void **state)
{
	struct perf_key k, d;
	char out[PERF_KEY_MSG_LEN];

	(void)state;
	memset(&k, 0, sizeof(k));
	k.lid = 0xffff;
	k.out_reads = 0x80;
	k.qpn = 0xfffffff1;          /* 24 bits go out */
	k.psn = 0x1;
	k.rkey = 0xdeadbeef;
	k.vaddr = 0x123456789abcdef0ull;
	memset(k.gid.raw, 0xab, 16);
	k.srqn = 7;
	assert_int_equal(perf_key_encode(&k, out, PERF_KEY_MSG_LEN), PERF_KEY_MSG_LEN);
	assert_int_equal(perf_key_decode(out, PERF_KEY_MSG_LEN, &d), 0);
	assert_int_equal(d.qpn, 0xfffff1);
	assert_true(d.vaddr == k.vaddr && d.rkey == k.rkey && d.srqn == 7);
	assert_memory_equal(d.gid.raw, k.gid.raw, 16);
	assert_int_equal(perf_key_encode(&k, out, PERF_KEY_MSG_LEN_NOGID),
			 PERF_KEY_MSG_LEN_NOGID);
	assert_int_equal(strlen(out), PERF_KEY_MSG_LEN_NOGID - 1);
	assert_int_equal(perf_key_decode(out, PERF_KEY_MSG_LEN_NOGID, &d), 0);
	assert_true(d.lid == 0xffff && d.psn == 1 && d.srqn == 7);
	/* Only the two perftest lengths exist. */
	assert_int_equal(perf_key_encode(&k, out, 100), -EINVAL);
}

static void
malformed_keys_are_refused(void **state)
{
	char m[PERF_KEY_MSG_LEN];
	struct perf_key k;

	(void)state;
	/* A length of the other format. */
	assert_int_equal(perf_key_decode(cap_write_lat_16, PERF_KEY_MSG_LEN_NOGID, &k), -EINVAL);
	assert_int_equal(perf_key_decode(nogid_write_lat_16, 58, &k), -EINVAL);
	/* Not NUL-terminated. */
	memcpy(m, cap_write_lat_16, sizeof(m));
	m[PERF_KEY_MSG_LEN - 1] = 'x';
	assert_int_equal(perf_key_decode(m, PERF_KEY_MSG_LEN, &k), -EINVAL);
	/* A field one digit short (perftest would read the srqn elsewhere). */
	memcpy(m, cap_write_lat_16, sizeof(m));
	memmove(m + 51, m + 52, PERF_KEY_MSG_LEN - 52);
	assert_int_equal(perf_key_decode(m, PERF_KEY_MSG_LEN, &k), -EINVAL);
	/* Not hex. */
	memcpy(m, nogid_write_lat_16, PERF_KEY_MSG_LEN_NOGID);
	m[12] = 'g';
	assert_int_equal(perf_key_decode(m, PERF_KEY_MSG_LEN_NOGID, &k), -EINVAL);
	/* Byte 58 neither the short format's NUL nor a GID separator. */
	memset(m, 'z', sizeof(m));
	assert_int_equal(perf_key_msg_len(m), -EINVAL);
	/* The 56-byte -R message is not an ASCII key. */
	memset(m, 0, sizeof(m));
	assert_int_equal(perf_key_decode(m, PERF_KEY_BIN_LEN, &k), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gid_format_matches_capture),
		cmocka_unit_test(nogid_format_matches_facts),
		cmocka_unit_test(fields_keep_their_width),
		cmocka_unit_test(malformed_keys_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
