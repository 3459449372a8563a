/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC 2011) as TensorFlow's PhiloxRandom lays it out, and the
 * conversions TensorFlow's random distributions apply to its words. TFLite's
 * RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL draw from it, so
 * these give the same numbers bit for bit.
 *
 * State: a 64-bit key (two words) and a 128-bit counter (four words, word 0
 * least significant). Seeding with (seed, seed2) puts seed in the key (low
 * word first) and seed2 in counter words 2 and 3; counter words 0 and 1
 * start at zero. Each draw encrypts the counter with ten rounds (the key
 * bumped by the Weyl constants between rounds), returns the four words and
 * increments the counter by one.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_PHILOX_H_
#define LITEGPU_RUNTIME_KERNELS_PHILOX_H_

#include <stdint.h>

typedef struct lg_philox {
  uint32_t key[2];
  uint32_t counter[4];
} lg_philox;

/* key = seed_lo (low word first); counter = {0, 0, seed_hi low, seed_hi
 * high}. */
void lg_philox_seed(lg_philox* g, uint64_t seed_lo, uint64_t seed_hi);

/* The ten-round block function on an explicit counter and key (the
 * published known-answer vectors are stated this way). */
void lg_philox_block(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]);

/* Four words from the current counter, then the counter moves on by one. */
void lg_philox_next(lg_philox* g, uint32_t out[4]);

/* Moves the counter on by `count` blocks (a 128-bit addition). */
void lg_philox_skip(lg_philox* g, uint64_t count);

/* [0, 1): the low 23 bits of x as the mantissa of a float in [1, 2), minus
 * one. */
float lg_philox_uint32_to_float(uint32_t x);

/* [0, 1): the low 20 bits of x0 and the 32 bits of x1 as the mantissa of a
 * double in [1, 2), minus one. */
double lg_philox_uint64_to_double(uint32_t x0, uint32_t x1);

/* Two standard normal floats from two words (Box-Muller): u1 from x0
 * (raised to 1e-7 when below), angle 2*pi*u(x1) rounded to float,
 * radius sqrtf(-2 logf(u1)), *f0 = sin * radius, *f1 = cos * radius. */
void lg_philox_box_muller(uint32_t x0, uint32_t x1, float* f0, float* f1);

/* Threefry2x32 with 20 rounds (the same paper; rotations 13 15 26 6 /
 * 17 29 16 24, a key schedule of key0, key1 and key0 ^ key1 ^ 0x1BD11BDA
 * injected every four rounds), which STABLEHLO_RNG_BIT_GENERATOR offers
 * besides Philox. */
void lg_threefry2x32_block(const uint32_t counter[2], const uint32_t key[2],
                           uint32_t out[2]);

#endif /* LITEGPU_RUNTIME_KERNELS_PHILOX_H_ */
