/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Sanitizer builds only (-Dsanitize_address_undefined=true, which the fuzz
 * build also sets): make the library's and the providers' rte_malloc
 * objects visible to AddressSanitizer.
 *
 * Debian's DPDK is built without ASan support, so its heap has no
 * redzones: an overflow of a QP, an out queue or a key table went unseen
 * (security review 3.2). libprdma.so is linked with
 * -Wl,--wrap=rte_malloc,... (meson.build), so every call the library
 * makes lands here. Each object is placed inside a larger rte_malloc
 * block with a poisoned redzone before and after it; on free the whole
 * block is poisoned and kept in a small quarantine before DPDK gets it
 * back, so a use after free is reported as well.
 *
 * Why inside rte_malloc rather than plain malloc: the memory stays DPDK
 * memory. An object sits inside a DPDK heap element, so rte_mem_virt2iova
 * and the memseg lookups (MR registration, the Hermon model's DMA, which
 * reads host memory by IOVA as a device does) keep working on it, the
 * alignment DPDK guarantees is kept, and nothing changes for --no-huge or
 * hugepage runs. The price is that only our own objects are covered:
 * rings, mempools and memzones that DPDK allocates inside its own code are
 * not (nor are memzones we reserve), and a write by uninstrumented DPDK
 * code into a redzone is not seen.
 *
 * A pointer not made here (DPDK's, or from a caller built without the
 * wrapper) is recognised by the missing header and handed to rte_free
 * unchanged. rte_realloc is not wrapped: the library does not use it.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#define ASAN_ALLOC_MAGIC 0x70726d6173616e31ull   /* live object */
#define ASAN_FREED_MAGIC 0x70726d6166726565ull   /* in the quarantine */
#define ASAN_RZ          64                      /* bytes on each side, at least */
#define ASAN_QUAR_NB     256                     /* freed blocks kept poisoned */
#define ASAN_QUAR_BYTES  (32u << 20)             /* and at most this many bytes */

/* Just before the object, inside the poisoned front redzone. */
struct asan_hdr {
	uint64_t magic;
	void *base;               /* the rte_malloc block */
	size_t size;              /* the object */
	size_t total;             /* the block */
};
_Static_assert(sizeof(struct asan_hdr) % sizeof(uint64_t) == 0, "header in words");

void *__real_rte_malloc(const char *type, size_t size, unsigned int align);
void *__real_rte_zmalloc(const char *type, size_t size, unsigned int align);
void *__real_rte_calloc(const char *type, size_t num, size_t size, unsigned int align);
void *__real_rte_malloc_socket(const char *type, size_t size, unsigned int align,
			       int socket);
void *__real_rte_zmalloc_socket(const char *type, size_t size, unsigned int align,
				int socket);
void *__real_rte_calloc_socket(const char *type, size_t num, size_t size,
			       unsigned int align, int socket);
void __real_rte_free(void *ptr);

void *__wrap_rte_malloc(const char *type, size_t size, unsigned int align);
void *__wrap_rte_zmalloc(const char *type, size_t size, unsigned int align);
void *__wrap_rte_calloc(const char *type, size_t num, size_t size, unsigned int align);
void *__wrap_rte_malloc_socket(const char *type, size_t size, unsigned int align,
			       int socket);
void *__wrap_rte_zmalloc_socket(const char *type, size_t size, unsigned int align,
				int socket);
void *__wrap_rte_calloc_socket(const char *type, size_t num, size_t size,
			       unsigned int align, int socket);
void __wrap_rte_free(void *ptr);
int __real_rte_malloc_get_socket_stats(int socket, struct rte_malloc_socket_stats *st);
int __wrap_rte_malloc_get_socket_stats(int socket, struct rte_malloc_socket_stats *st);

static struct {
	rte_spinlock_t lock;
	void *base[ASAN_QUAR_NB];
	size_t total[ASAN_QUAR_NB];
	uint32_t head;            /* next slot to fill */
	uint32_t nb;
	size_t bytes;
} quar = { .lock = RTE_SPINLOCK_INITIALIZER };

/*
 * The header lives in poisoned memory: read and written unchecked, word by
 * word through volatile (memcpy would be ASan's interceptor, which checks
 * whatever the caller's attributes say, and a plain loop may become one).
 */
#define HDR_WORDS (sizeof(struct asan_hdr) / sizeof(uint64_t))

__attribute__((no_sanitize_address)) static void
hdr_get(const void *ptr, struct asan_hdr *h)
{
	const volatile uint64_t *src = (const volatile uint64_t *)ptr - HDR_WORDS;
	uint64_t w[HDR_WORDS];
	unsigned int i;

	for (i = 0; i < HDR_WORDS; i++)
		w[i] = src[i];
	memcpy(h, w, sizeof(*h));
}

__attribute__((no_sanitize_address)) static void
hdr_set(void *ptr, const struct asan_hdr *h)
{
	volatile uint64_t *dst = (volatile uint64_t *)ptr - HDR_WORDS;
	uint64_t w[HDR_WORDS];
	unsigned int i;

	memcpy(w, h, sizeof(w));
	for (i = 0; i < HDR_WORDS; i++)
		dst[i] = w[i];
}

/*
 * PRDMA_ASAN_ALLOC=off in the environment passes every allocation straight
 * to DPDK: the death test uses it to show what ASan sees without this file.
 */
static int
asan_alloc_off(void)
{
	static int off = -1;
	const char *v;

	if (off < 0) {
		v = getenv("PRDMA_ASAN_ALLOC");
		off = v != NULL && strcmp(v, "off") == 0;
	}
	return off;
}

static void *
asan_alloc(const char *type, size_t size, unsigned int align, int socket, int zero)
{
	size_t front, total;
	struct asan_hdr h;
	uint8_t *base, *ptr;
	unsigned int a = align != 0 ? align : RTE_CACHE_LINE_SIZE;

	/* DPDK's answer for these (and everything when turned off) */
	if (size == 0 || !rte_is_power_of_2(a) || asan_alloc_off())
		return zero ? __real_rte_zmalloc_socket(type, size, align, socket) :
			__real_rte_malloc_socket(type, size, align, socket);
	front = RTE_ALIGN_CEIL(RTE_MAX((size_t)ASAN_RZ, sizeof(h)), (size_t)a);
	total = front + RTE_ALIGN_CEIL(size, 8) + ASAN_RZ;
	if (total < size)
		return NULL;
	base = zero ? __real_rte_zmalloc_socket(type, total, a, socket) :
		__real_rte_malloc_socket(type, total, a, socket);
	if (base == NULL)
		return NULL;
	ptr = base + front;
	h.magic = ASAN_ALLOC_MAGIC;
	h.base = base;
	h.size = size;
	h.total = total;
	hdr_set(ptr, &h);
	ASAN_POISON_MEMORY_REGION(base, front);
	ASAN_POISON_MEMORY_REGION(ptr + size, total - front - size);
	return ptr;
}

void *
__wrap_rte_malloc_socket(const char *type, size_t size, unsigned int align, int socket)
{
	return asan_alloc(type, size, align, socket, 0);
}

void *
__wrap_rte_zmalloc_socket(const char *type, size_t size, unsigned int align, int socket)
{
	return asan_alloc(type, size, align, socket, 1);
}

void *
__wrap_rte_calloc_socket(const char *type, size_t num, size_t size, unsigned int align,
			 int socket)
{
	if (size != 0 && num > SIZE_MAX / size)
		return NULL;
	return asan_alloc(type, num * size, align, socket, 1);
}

void *
__wrap_rte_malloc(const char *type, size_t size, unsigned int align)
{
	return asan_alloc(type, size, align, SOCKET_ID_ANY, 0);
}

void *
__wrap_rte_zmalloc(const char *type, size_t size, unsigned int align)
{
	return asan_alloc(type, size, align, SOCKET_ID_ANY, 1);
}

void *
__wrap_rte_calloc(const char *type, size_t num, size_t size, unsigned int align)
{
	return __wrap_rte_calloc_socket(type, num, size, align, SOCKET_ID_ANY);
}

/* Give a block back to DPDK: unpoisoned, since DPDK will reuse it for
 * objects of its own that our instrumented inline code may touch. */
static void
block_release(void *base, size_t total)
{
	ASAN_UNPOISON_MEMORY_REGION(base, total);
	memset(base, 0, total);   /* no stale header for a later foreign pointer */
	__real_rte_free(base);
}

void
__wrap_rte_free(void *ptr)
{
	void *rel_base[ASAN_QUAR_NB];
	size_t rel_total[ASAN_QUAR_NB];
	struct asan_hdr h;
	uint32_t n = 0, i, slot;

	if (ptr == NULL)
		return;
	hdr_get(ptr, &h);
	if (h.magic == ASAN_FREED_MAGIC) {
		/* a double free: touch the poisoned object so ASan reports it */
		(void)*(volatile uint8_t *)ptr;
		return;
	}
	if (h.magic != ASAN_ALLOC_MAGIC) {
		__real_rte_free(ptr);   /* not one of ours */
		return;
	}
	h.magic = ASAN_FREED_MAGIC;
	hdr_set(ptr, &h);
	ASAN_POISON_MEMORY_REGION(h.base, h.total);
	rte_spinlock_lock(&quar.lock);
	/* make room: the oldest blocks leave first */
	while (quar.nb != 0 &&
	       (quar.nb == ASAN_QUAR_NB || quar.bytes + h.total > ASAN_QUAR_BYTES)) {
		slot = (quar.head - quar.nb) % ASAN_QUAR_NB;
		rel_base[n] = quar.base[slot];
		rel_total[n++] = quar.total[slot];
		quar.bytes -= quar.total[slot];
		quar.nb--;
	}
	quar.base[quar.head % ASAN_QUAR_NB] = h.base;
	quar.total[quar.head % ASAN_QUAR_NB] = h.total;
	quar.head++;
	quar.nb++;
	quar.bytes += h.total;
	rte_spinlock_unlock(&quar.lock);
	for (i = 0; i < n; i++)
		block_release(rel_base[i], rel_total[i]);
}

/*
 * Heap statistics as if nothing were quarantined: the quarantine is emptied
 * first, so that leak checks counting rte_malloc allocations (the tests'
 * resource snapshots) see freed objects as freed. Wrapped in every
 * executable of the sanitizer builds (meson.build), not only in the library.
 */
int
__wrap_rte_malloc_get_socket_stats(int socket, struct rte_malloc_socket_stats *st)
{
	void *base;
	size_t total;
	uint32_t slot;

	for (;;) {
		rte_spinlock_lock(&quar.lock);
		if (quar.nb == 0) {
			rte_spinlock_unlock(&quar.lock);
			break;
		}
		slot = (quar.head - quar.nb) % ASAN_QUAR_NB;
		base = quar.base[slot];
		total = quar.total[slot];
		quar.bytes -= total;
		quar.nb--;
		rte_spinlock_unlock(&quar.lock);
		block_release(base, total);
	}
	return __real_rte_malloc_get_socket_stats(socket, st);
}
