/* Philox4x32-10 and TensorFlow's word-to-number conversions; see philox.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sincosf */
#endif
#include "runtime/kernels/philox.h"

#include <math.h>
#include <string.h>

/* The round multipliers and the key's Weyl increments of Philox4x32. */
#define LG_PHILOX_M0 0xD2511F53u
#define LG_PHILOX_M1 0xCD9E8D57u
#define LG_PHILOX_W0 0x9E3779B9u
#define LG_PHILOX_W1 0xBB67AE85u
#define LG_PHILOX_ROUNDS 10

void lg_philox_seed(lg_philox* g, uint64_t seed_lo, uint64_t seed_hi) {
  g->key[0] = (uint32_t)seed_lo;
  g->key[1] = (uint32_t)(seed_lo >> 32);
  g->counter[0] = 0;
  g->counter[1] = 0;
  g->counter[2] = (uint32_t)seed_hi;
  g->counter[3] = (uint32_t)(seed_hi >> 32);
}

void lg_philox_block(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]) {
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < LG_PHILOX_ROUNDS; ++round) {
    const uint64_t p0 = (uint64_t)LG_PHILOX_M0 * c[0];
    const uint64_t p1 = (uint64_t)LG_PHILOX_M1 * c[2];
    const uint32_t next0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
    const uint32_t next2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[0] = next0;
    c[1] = (uint32_t)p1;
    c[2] = next2;
    c[3] = (uint32_t)p0;
    k0 += LG_PHILOX_W0;
    k1 += LG_PHILOX_W1;
  }
  memcpy(out, c, sizeof(c));
}

void lg_philox_skip(lg_philox* g, uint64_t count) {
  const uint32_t lo = (uint32_t)count;
  uint32_t hi = (uint32_t)(count >> 32);
  g->counter[0] += lo;
  if (g->counter[0] < lo) ++hi; /* carry out of word 0 */
  g->counter[1] += hi;
  if (g->counter[1] < hi && ++g->counter[2] == 0) ++g->counter[3];
}

void lg_philox_next(lg_philox* g, uint32_t out[4]) {
  lg_philox_block(g->counter, g->key, out);
  lg_philox_skip(g, 1);
}

float lg_philox_uint32_to_float(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

double lg_philox_uint64_to_double(uint32_t x0, uint32_t x1) {
  const uint64_t bits =
      ((uint64_t)1023 << 52) | ((uint64_t)(x0 & 0xfffffu) << 32) | x1;
  double d;
  memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

void lg_philox_box_muller(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = lg_philox_uint32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  /* 2 * pi in double times the float, rounded once to float. */
  const float angle = (float)(2.0 * 3.14159265358979323846 *
                              (double)lg_philox_uint32_to_float(x1));
  const float radius = sqrtf(-2.0f * logf(u1));
  float s, c;
  sincosf(angle, &s, &c);
  *f0 = s * radius;
  *f1 = c * radius;
}

static uint32_t lg_rotl32(uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}

void lg_threefry2x32_block(const uint32_t counter[2], const uint32_t key[2],
                           uint32_t out[2]) {
  static const int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  uint32_t x0 = counter[0] + ks[0];
  uint32_t x1 = counter[1] + ks[1];
  /* Five groups of four rounds; after group g (1-based) the key words
   * ks[g % 3] and ks[(g + 1) % 3] + g are added. */
  for (int g = 1; g <= 5; ++g) {
    const int* rot = kRotations[(g - 1) % 2];
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = lg_rotl32(x1, rot[r]) ^ x0;
    }
    x0 += ks[g % 3];
    x1 += ks[(g + 1) % 3] + (uint32_t)g;
  }
  out[0] = x0;
  out[1] = x1;
}
