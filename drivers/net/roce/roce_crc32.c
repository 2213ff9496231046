/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * CRC-32 (IEEE 802.3, reflected, initial value and final XOR all ones): the
 * ICRC's checksum, over every byte of every frame in both directions.
 *
 * DPDK's rte_net_crc folds one 16-byte lane at a time, so each carry-less
 * multiply waits for the previous one: about 7 GB/s here, a fifth of a
 * copy of the same bytes. This one keeps many lanes in flight so that the
 * multiplies overlap: sixteen 16-byte lanes in eight 256-bit registers
 * where the CPU has VPCLMULQDQ (about 15 GB/s here), four lanes with
 * PCLMULQDQ alone (one for inputs under 64 bytes); then it folds the lanes into one, reduces that to the
 * CRC register (Barrett reduction) and finishes the tail with a table.
 * Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ"
 * describes the method.
 *
 * A fold keeps the running value congruent, mod P, to the bytes folded so
 * far. A fold over a distance of D bits multiplies a lane's low half by
 * x^(D+32) mod P and its high half by x^(D-32) mod P, both bit-reflected
 * to 32 bits and shifted left by one (the K_* pairs below). The test
 * roce-crc32 checks every path against a bit-at-a-time reference.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_net_crc.h>

#include "roce_wire.h"

#define CRC32_POLY_REFLECTED 0xedb88320u

static uint32_t crc_table[256];
/* Slicing by four: crc_t4[k][b] is b's table entry carried over k zero
 * bytes, so one step folds four bytes with four look-ups. */
static uint32_t crc_t4[4][256];
static int crc_fold;              /* the CPU has PCLMULQDQ */
static int crc_fold_wide;         /* ... and VPCLMULQDQ with AVX2 */

RTE_INIT(roce_crc32_init)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (CRC32_POLY_REFLECTED & (0u - (c & 1)));
		crc_table[i] = c;
	}
	for (i = 0; i < 256; i++) {
		crc_t4[0][i] = crc_table[i];
		for (j = 1; j < 4; j++)
			crc_t4[j][i] = (crc_t4[j - 1][i] >> 8) ^
				crc_table[crc_t4[j - 1][i] & 0xff];
	}
#ifdef RTE_ARCH_X86_64
	crc_fold = rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0 &&
		   rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) > 0;
	crc_fold_wide = crc_fold &&
			rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) > 0 &&
			rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0;
#endif
}

/* The register @crc carried over @len bytes (no initial or final XOR);
 * each byte also stored at @d unless @d is NULL. */
static __rte_always_inline uint32_t
crc_bytes_copy(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	uint32_t w;
	uint8_t b;

	/* The ICRC's tails are whole words (the pad rounds to four): a
	 * byte at a time costs three times as much. */
	while (len >= 4) {
		memcpy(&w, p, 4);
		if (d != NULL) {
			memcpy(d, p, 4);
			d += 4;
		}
		p += 4;
		len -= 4;
		crc ^= rte_le_to_cpu_32(w);
		crc = crc_t4[3][crc & 0xff] ^ crc_t4[2][(crc >> 8) & 0xff] ^
			crc_t4[1][(crc >> 16) & 0xff] ^ crc_t4[0][crc >> 24];
	}
	while (len-- != 0) {
		b = *p++;
		if (d != NULL)
			*d++ = b;
		crc = crc_table[(crc ^ b) & 0xff] ^ (crc >> 8);
	}
	return crc;
}

static inline uint32_t
crc_bytes(uint32_t crc, const uint8_t *p, uint32_t len)
{
	return crc_bytes_copy(crc, NULL, p, len);
}

#ifdef RTE_ARCH_X86_64
#include <immintrin.h>

/* Folding constants for a distance of 2048, 512 and 128 bits. */
#define K_2048_LO 0x11542778aull   /* x^2080 mod P */
#define K_2048_HI 0x1322d1430ull   /* x^2016 mod P */
#define K_512_LO  0x154442bd4ull   /* x^544 mod P */
#define K_512_HI  0x1c6e41596ull   /* x^480 mod P */
#define K_128_LO  0x1751997d0ull   /* x^160 mod P */
#define K_128_HI  0x0ccaa009eull   /* x^96 mod P */

/*
 * The fused copy: every 16 or 32 bytes loaded for the fold are stored at
 * the same offset from @d (when not NULL) while still in a register, so
 * the copy costs no second read of the source. Inlined with d == NULL the
 * stores vanish.
 */
__attribute__((target("pclmul,sse4.1")))
static __rte_always_inline __m128i
ld16(uint8_t *d, const uint8_t *p, uint32_t off)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(p + off));

	if (d != NULL)
		_mm_storeu_si128((__m128i *)(d + off), v);
	return v;
}

__attribute__((target("pclmul,sse4.1")))
static __rte_always_inline __m128i
fold(__m128i x, __m128i k, __m128i data)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi), data);
}

/*
 * The CRC register of the 16 folded bytes in @x: fold 128 bits to 64, 64
 * to 32, then a Barrett reduction (x^64 / P and P itself, reflected).
 */
#define K_64     0x163cd6124ull   /* x^64 mod P */
#define K_POLY   0x1db710641ull   /* P */
#define K_MU     0x1f7011641ull   /* x^64 / P */

__attribute__((target("pclmul,sse4.1")))
static __rte_always_inline uint32_t
fold_finish(__m128i x)
{
	const __m128i k128 = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	const __m128i k64 = _mm_set_epi64x(0, (long long)K_64);
	const __m128i pmu = _mm_set_epi64x((long long)K_MU, (long long)K_POLY);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i t;

	t = _mm_srli_si128(x, 8);
	x = _mm_xor_si128(_mm_clmulepi64_si128(x, k128, 0x10), t);
	t = _mm_srli_si128(x, 4);
	x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), k64, 0x00), t);
	t = x;
	x = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pmu, 0x10);
	x = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pmu, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

/* One lane, for the short frames (ACKs); @len >= 16. */
__attribute__((target("pclmul,sse4.1")))
static __rte_always_inline uint32_t
fold1_body(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	const __m128i k = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	__m128i x;

	x = _mm_xor_si128(ld16(d, p, 0), _mm_cvtsi32_si128((int)crc));
	p += 16;
	d = d != NULL ? d + 16 : NULL;
	len -= 16;
	while (len >= 16) {
		x = fold(x, k, ld16(d, p, 0));
		p += 16;
		d = d != NULL ? d + 16 : NULL;
		len -= 16;
	}
	return crc_bytes_copy(fold_finish(x), d, p, len);
}

/* Four lanes; @len >= 64. */
__attribute__((target("pclmul,sse4.1")))
static __rte_always_inline uint32_t
fold4_body(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	__m128i x0, x1, x2, x3, k;

	/* The register enters as the first four bytes' complement. */
	x0 = _mm_xor_si128(ld16(d, p, 0), _mm_cvtsi32_si128((int)crc));
	x1 = ld16(d, p, 16);
	x2 = ld16(d, p, 32);
	x3 = ld16(d, p, 48);
	p += 64;
	d = d != NULL ? d + 64 : NULL;
	len -= 64;
	k = _mm_set_epi64x((long long)K_512_HI, (long long)K_512_LO);
	while (len >= 64) {
		x0 = fold(x0, k, ld16(d, p, 0));
		x1 = fold(x1, k, ld16(d, p, 16));
		x2 = fold(x2, k, ld16(d, p, 32));
		x3 = fold(x3, k, ld16(d, p, 48));
		p += 64;
		d = d != NULL ? d + 64 : NULL;
		len -= 64;
	}
	k = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	x0 = fold(x0, k, x1);
	x0 = fold(x0, k, x2);
	x0 = fold(x0, k, x3);
	while (len >= 16) {
		x0 = fold(x0, k, ld16(d, p, 0));
		p += 16;
		d = d != NULL ? d + 16 : NULL;
		len -= 16;
	}
	return crc_bytes_copy(fold_finish(x0), d, p, len);
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t
crc_fold1(uint32_t crc, const uint8_t *p, uint32_t len)
{
	return fold1_body(crc, NULL, p, len);
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t
crc_fold1_copy(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	return fold1_body(crc, d, p, len);
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t
crc_fold4(uint32_t crc, const uint8_t *p, uint32_t len)
{
	return fold4_body(crc, NULL, p, len);
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t
crc_fold4_copy(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	return fold4_body(crc, d, p, len);
}

__attribute__((target("avx2")))
static __rte_always_inline __m256i
ld32(uint8_t *d, const uint8_t *p, uint32_t off)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(p + off));

	if (d != NULL)
		_mm256_storeu_si256((__m256i *)(d + off), v);
	return v;
}

/* Sixteen lanes in eight 256-bit registers; @len >= 256. */
__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1")))
static __rte_always_inline uint32_t
fold16_body(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	__m256i y[8], k16;
	__m128i x, k;
	unsigned int i;

	for (i = 0; i < 8; i++)
		y[i] = ld32(d, p, 32 * i);
	y[0] = _mm256_xor_si256(y[0], _mm256_castsi128_si256(_mm_cvtsi32_si128((int)crc)));
	p += 256;
	d = d != NULL ? d + 256 : NULL;
	len -= 256;
	k16 = _mm256_set_epi64x((long long)K_2048_HI, (long long)K_2048_LO,
				(long long)K_2048_HI, (long long)K_2048_LO);
	while (len >= 256) {
		for (i = 0; i < 8; i++) {
			__m256i lo = _mm256_clmulepi64_epi128(y[i], k16, 0x00);
			__m256i hi = _mm256_clmulepi64_epi128(y[i], k16, 0x11);

			y[i] = _mm256_xor_si256(_mm256_xor_si256(lo, hi), ld32(d, p, 32 * i));
		}
		p += 256;
		d = d != NULL ? d + 256 : NULL;
		len -= 256;
	}
	/* The sixteen lanes into one, in message order. */
	k = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	x = _mm256_castsi256_si128(y[0]);
	x = fold(x, k, _mm256_extracti128_si256(y[0], 1));
	for (i = 1; i < 8; i++) {
		x = fold(x, k, _mm256_castsi256_si128(y[i]));
		x = fold(x, k, _mm256_extracti128_si256(y[i], 1));
	}
	while (len >= 16) {
		x = fold(x, k, ld16(d, p, 0));
		p += 16;
		d = d != NULL ? d + 16 : NULL;
		len -= 16;
	}
	return crc_bytes_copy(fold_finish(x), d, p, len);
}

__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1")))
static uint32_t
crc_fold16(uint32_t crc, const uint8_t *p, uint32_t len)
{
	return fold16_body(crc, NULL, p, len);
}

__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1")))
static uint32_t
crc_fold16_copy(uint32_t crc, uint8_t *d, const uint8_t *p, uint32_t len)
{
	return fold16_body(crc, d, p, len);
}
#endif

unsigned int
roce_crc32_paths(unsigned int allow)
{
	static int have_fold = -1, have_wide = -1;

	/* What the CPU offers, remembered the first time. */
	if (have_fold < 0) {
		have_fold = crc_fold;
		have_wide = crc_fold_wide;
	}
	crc_fold = have_fold && (allow & ROCE_CRC32_FOLD4);
	crc_fold_wide = crc_fold && have_wide && (allow & ROCE_CRC32_FOLD16);
	return (crc_fold ? ROCE_CRC32_FOLD4 : 0) | (crc_fold_wide ? ROCE_CRC32_FOLD16 : 0);
}

uint32_t
roce_crc32_update(uint32_t crc, const uint8_t *p, uint32_t len)
{
#ifdef RTE_ARCH_X86_64
	if (likely(crc_fold_wide) && len >= 256)
		return crc_fold16(crc, p, len);
	if (likely(crc_fold) && len >= 64)
		return crc_fold4(crc, p, len);
	if (likely(crc_fold) && len >= 16)
		return crc_fold1(crc, p, len);
#endif
	/* rte_net_crc takes no running value: the table, on such CPUs. */
	return crc_bytes(crc, p, len);
}

uint32_t
roce_crc32_copy(uint32_t crc, void *dst, const void *src, uint32_t len)
{
	uint8_t *d = dst;
	const uint8_t *p = src;

#ifdef RTE_ARCH_X86_64
	if (likely(crc_fold_wide) && len >= 256)
		return crc_fold16_copy(crc, d, p, len);
	if (likely(crc_fold) && len >= 64)
		return crc_fold4_copy(crc, d, p, len);
	if (likely(crc_fold) && len >= 16)
		return crc_fold1_copy(crc, d, p, len);
#endif
	return crc_bytes_copy(crc, d, p, len);
}

uint32_t
roce_crc32(const uint8_t *p, uint32_t len)
{
	uint32_t crc = 0xffffffffu;

#ifdef RTE_ARCH_X86_64
	if (likely(crc_fold_wide) && len >= 256)
		return ~crc_fold16(crc, p, len);
	if (likely(crc_fold) && len >= 64)
		return ~crc_fold4(crc, p, len);
	if (likely(crc_fold) && len >= 16)
		return ~crc_fold1(crc, p, len);
#endif
	/* CPUs without PCLMULQDQ: DPDK's best. */
	if (len >= 16)
		return rte_net_crc_calc(p, len, RTE_NET_CRC32_ETH);
	return ~crc_bytes(crc, p, len);
}
