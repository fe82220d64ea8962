/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeded random numbers and hashes.
 *
 * Every random choice in ofan (spraying, shuffles, random starts, EVs)
 * comes from an ofan_rng owned by an instance and seeded from the config,
 * so a run is reproducible.  The generator is xoshiro256**; seeding goes
 * through splitmix64 so that (seed, stream) pairs give independent
 * sequences (e.g. stream = switch id or lcore id).  Header only, no EAL.
 */
#ifndef OFAN_RNG_H
#define OFAN_RNG_H

#include <stdint.h>

struct ofan_rng {
	uint64_t s[4];
};

static inline uint64_t
ofan_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seed r from (seed, stream); different streams give unrelated sequences. */
static inline void
ofan_rng_seed(struct ofan_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = ofan_splitmix64(&x);
}

static inline uint64_t
ofan_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits. */
static inline uint64_t
ofan_rng_next(struct ofan_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = ofan_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ofan_rng_rotl(s[3], 45);
	return result;
}

/* Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, tiny bias). */
static inline uint32_t
ofan_rng_below(struct ofan_rng *r, uint32_t n)
{
	return (uint32_t)(((ofan_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform double in [0, 1). */
static inline double
ofan_rng_unit(struct ofan_rng *r)
{
	return (double)(ofan_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Fisher-Yates shuffle of n 16-bit values. */
static inline void
ofan_rng_shuffle_u16(struct ofan_rng *r, uint16_t *v, uint32_t n)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = ofan_rng_below(r, i);
		uint16_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* 32-bit finaliser (murmur3 fmix32). */
static inline uint32_t
ofan_hash_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/*
 * Seeded hash of an IPv4 5-tuple (addresses and ports in host order).  The
 * seed is per switch so that switches at different tiers do not make
 * correlated ECMP choices (hash polarisation).
 */
static inline uint32_t
ofan_hash_5tuple(uint32_t seed, uint32_t src_ip, uint32_t dst_ip,
		 uint16_t src_port, uint16_t dst_port, uint8_t proto)
{
	uint32_t h = seed ^ 0x6b43a9b5u;

	h = ofan_hash_mix32(h ^ src_ip);
	h = ofan_hash_mix32(h ^ dst_ip);
	h = ofan_hash_mix32(h ^ ((uint32_t)src_port << 16 | dst_port));
	h = ofan_hash_mix32(h ^ proto);
	return h;
}

#endif /* OFAN_RNG_H */
