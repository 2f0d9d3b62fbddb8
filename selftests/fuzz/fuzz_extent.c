// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a long value's extent as a client meets it
 * (libshim/extent.c, libshim/read.c): the slot's length word and extent
 * reference from a key block a server published, checked by
 * shim_extent_locate() before any READ, then the bytes READ there checked
 * by ordo_extent_validate(), the core's own code.  What a caller relies
 * on: an extent located lies inside one chunk, inside the pool's bound,
 * and is as long as its units say; a value accepted is longer than
 * value_size, at most the store's bound, takes exactly those units and
 * lies inside the bytes READ (which are their own allocation: ASan sees
 * any overrun).  With bit 0 of fix the harness seals the header (key,
 * stamp, length and check as the reference wants; a malicious server
 * can), so the checks behind the hash are reached.
 *
 * Input: [vs u8][chunk u8][max_chunks u16][lens u16][ref u64][key u64]
 *	[fix u8][len u32][extent bytes...]
 */
#include "fuzz.h"
#include "shim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	struct ordo_geo geo;
	u32 vs = fz_value_size(fin_u8(&f));
	u64 chunk = ORDO_CHUNK_SIZE_MIN << (fin_u8(&f) % 6);
	u32 max_chunks = fin_u16(&f) + 1;
	u16 lens = fin_u16(&f);
	u64 ref = fin_u64(&f), key = fin_u64(&f), off;
	u32 fix = fin_u8(&f), hlen = fin_u32(&f), bytes, units, len = 0;
	const uint8_t *src;
	uint8_t *buf;
	size_t got;
	int ret;

	if (ordo_geo_init(&geo, 16, vs))
		return 0;
	if (shim_extent_locate(&geo, chunk, max_chunks, lens, ref, &off,
			       &bytes))
		return 0;
	units = lens & ORDO_LEN_UNITS_MASK;
	FZ_CHECK(bytes == units * ORDO_EXTENT_UNIT);
	FZ_CHECK(off % ORDO_EXTENT_UNIT == 0);
	FZ_CHECK(off % chunk + bytes <= chunk);
	FZ_CHECK(off / chunk < max_chunks);
	FZ_CHECK(bytes > ORDO_EXTENT_HDR_SIZE + vs);
	FZ_CHECK(bytes < ORDO_EXTENT_HDR_SIZE + ordo_value_len_max(chunk) +
			 ORDO_EXTENT_UNIT);

	/* The READ: what the input has of it, zeros after. */
	src = fin_bytes(&f, bytes, &got);
	buf = calloc(1, bytes);
	if (!buf)
		abort();
	memcpy(buf, src, got);
	if (fix & 1) {
		struct ordo_extent_hdr *h = (void *)buf;

		hlen %= bytes - ORDO_EXTENT_HDR_SIZE + 1;
		h->key = htole64(key);
		h->len = htole32(hlen);
		h->stamp = htole32(ordo_extent_ref_stamp(ref));
		h->check = htole64(ordo_xxh64(buf + 8, 16 + hlen, 0));
	}
	/* A short READ too (fix bit 1): the copy must not be overrun. */
	if (fix & 2) {
		uint8_t *s = fz_copy(buf, bytes / 2);

		ret = ordo_extent_validate(s, bytes / 2, key, ref, units, vs,
					   chunk, &len);
		FZ_CHECK(ret != 0);
		free(s);
	}
	ret = ordo_extent_validate(buf, bytes, key, ref, units, vs, chunk,
				   &len);
	if (!ret) {
		FZ_CHECK(len > vs);
		FZ_CHECK(len <= ordo_value_len_max(chunk));
		FZ_CHECK(ordo_extent_units(len) == units);
		FZ_CHECK(ORDO_EXTENT_HDR_SIZE + len <= bytes);
	}
	free(buf);
	return 0;
}
