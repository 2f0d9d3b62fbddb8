/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets: a reader of the fuzzer's bytes that
 * never runs past them (missing bytes read as zero), and invariant checks
 * that abort, so that libFuzzer reports a broken promise like a crash.
 */
#ifndef ORDO_FUZZ_H
#define ORDO_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fin {
	const uint8_t *p;
	size_t n;
};

#define FZ_CHECK(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
			__FILE__, __LINE__, #c);			\
		abort();						\
	}								\
} while (0)

static inline uint64_t fin_take(struct fin *f, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		if (f->n) {
			v |= (uint64_t)*f->p++ << (8 * i);
			f->n--;
		}
	return v;
}

#define fin_u8(f)	((uint8_t)fin_take(f, 1))
#define fin_u16(f)	((uint16_t)fin_take(f, 2))
#define fin_u32(f)	((uint32_t)fin_take(f, 4))
#define fin_u64(f)	fin_take(f, 8)

/* Up to @want bytes of the input; *@got says how many. */
static inline const uint8_t *fin_bytes(struct fin *f, size_t want, size_t *got)
{
	const uint8_t *p = f->p;

	*got = want < f->n ? want : f->n;
	f->p += *got;
	f->n -= *got;
	return p;
}

/* A malloc'd copy of exactly @len bytes: ASan sees any overrun. */
static inline uint8_t *fz_copy(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	if (len)
		memcpy(p, src, len);
	return p;
}

/* A value size the store accepts: 8 to 1024, multiples of 8 or not. */
static inline uint32_t fz_value_size(uint8_t b)
{
	return 8 + (b * 4 + (b & 3)) % 1017;
}

#endif /* ORDO_FUZZ_H */
