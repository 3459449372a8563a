/* farmhashna's Hash64 (see fingerprint.h). Every multiplication and addition
 * wraps modulo 2^64; words are read little-endian. */
#include "runtime/kernels/fingerprint.h"

#include <string.h>

static const uint64_t kFp0 = 0xc3a5c85c97cb3127ull;
static const uint64_t kFp1 = 0xb492b66fbe98f273ull;
static const uint64_t kFp2 = 0x9ae16a3b2f90404full;

static uint64_t lg_fp_load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

static uint64_t lg_fp_load32(const uint8_t* p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
         (uint64_t)p[3] << 24;
}

static uint64_t lg_fp_rotr(uint64_t v, int shift) {
  return shift == 0 ? v : (v >> shift) | (v << (64 - shift));
}

static uint64_t lg_fp_shift_mix(uint64_t v) { return v ^ (v >> 47); }

/* Mixes two words into one with multiplier `mul`. */
static uint64_t lg_fp_mix16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

static uint64_t lg_fp_0_to_16(const uint8_t* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kFp2 + len * 2;
    const uint64_t a = lg_fp_load64(s) + kFp2;
    const uint64_t b = lg_fp_load64(s + len - 8);
    const uint64_t c = lg_fp_rotr(b, 37) * mul + a;
    const uint64_t d = (lg_fp_rotr(a, 25) + b) * mul;
    return lg_fp_mix16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kFp2 + len * 2;
    const uint64_t a = lg_fp_load32(s);
    return lg_fp_mix16(len + (a << 3), lg_fp_load32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
    const uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
    return lg_fp_shift_mix((uint64_t)y * kFp2 ^ (uint64_t)z * kFp0) * kFp2;
  }
  return kFp2;
}

static uint64_t lg_fp_17_to_32(const uint8_t* s, size_t len) {
  const uint64_t mul = kFp2 + len * 2;
  const uint64_t a = lg_fp_load64(s) * kFp1;
  const uint64_t b = lg_fp_load64(s + 8);
  const uint64_t c = lg_fp_load64(s + len - 8) * mul;
  const uint64_t d = lg_fp_load64(s + len - 16) * kFp2;
  return lg_fp_mix16(lg_fp_rotr(a + b, 43) + lg_fp_rotr(c, 30) + d,
                     a + lg_fp_rotr(b + kFp2, 18) + c, mul);
}

static uint64_t lg_fp_33_to_64(const uint8_t* s, size_t len) {
  const uint64_t mul = kFp2 + len * 2;
  const uint64_t a = lg_fp_load64(s) * kFp2;
  const uint64_t b = lg_fp_load64(s + 8);
  const uint64_t c = lg_fp_load64(s + len - 8) * mul;
  const uint64_t d = lg_fp_load64(s + len - 16) * kFp2;
  const uint64_t y = lg_fp_rotr(a + b, 43) + lg_fp_rotr(c, 30) + d;
  const uint64_t z = lg_fp_mix16(y, a + lg_fp_rotr(b + kFp2, 18) + c, mul);
  const uint64_t e = lg_fp_load64(s + 16) * mul;
  const uint64_t f = lg_fp_load64(s + 24);
  const uint64_t g = (y + lg_fp_load64(s + len - 32)) * mul;
  const uint64_t h = (z + lg_fp_load64(s + len - 24)) * mul;
  return lg_fp_mix16(lg_fp_rotr(e + f, 43) + lg_fp_rotr(g, 30) + h,
                     e + lg_fp_rotr(f + a, 18) + g, mul);
}

/* The two-word state of 32 bytes at s, seeded with (a, b). */
static void lg_fp_weak32(const uint8_t* s, uint64_t a, uint64_t b,
                         uint64_t out[2]) {
  const uint64_t w = lg_fp_load64(s), x = lg_fp_load64(s + 8);
  const uint64_t y = lg_fp_load64(s + 16), z = lg_fp_load64(s + 24);
  a += w;
  b = lg_fp_rotr(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += lg_fp_rotr(a, 44);
  out[0] = a + z;
  out[1] = b + c;
}

uint64_t lg_fingerprint64(const void* data, size_t len) {
  const uint8_t* s = data;
  if (len <= 16) return lg_fp_0_to_16(s, len);
  if (len <= 32) return lg_fp_17_to_32(s, len);
  if (len <= 64) return lg_fp_33_to_64(s, len);
  const uint64_t seed = 81;
  uint64_t x = seed;
  uint64_t y = seed * kFp1 + 113;
  uint64_t z = lg_fp_shift_mix(y * kFp2 + 113) * kFp2;
  uint64_t v[2] = {0, 0}, w[2] = {0, 0};
  x = x * kFp2 + lg_fp_load64(s);
  /* 64-byte blocks up to `end`; the last 1 to 64 bytes end at s + len. */
  const uint8_t* end = s + ((len - 1) / 64) * 64;
  const uint8_t* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = lg_fp_rotr(x + y + v[0] + lg_fp_load64(s + 8), 37) * kFp1;
    y = lg_fp_rotr(y + v[1] + lg_fp_load64(s + 48), 42) * kFp1;
    x ^= w[1];
    y += v[0] + lg_fp_load64(s + 40);
    z = lg_fp_rotr(z + w[0], 33) * kFp1;
    lg_fp_weak32(s, v[1] * kFp1, x + w[0], v);
    lg_fp_weak32(s + 32, z + w[1], y + lg_fp_load64(s + 16), w);
    const uint64_t t = z;
    z = x;
    x = t;
    s += 64;
  } while (s != end);
  const uint64_t mul = kFp1 + ((z & 0xff) << 1);
  s = last64;
  w[0] += (len - 1) & 63;
  v[0] += w[0];
  w[0] += v[0];
  x = lg_fp_rotr(x + y + v[0] + lg_fp_load64(s + 8), 37) * mul;
  y = lg_fp_rotr(y + v[1] + lg_fp_load64(s + 48), 42) * mul;
  x ^= w[1] * 9;
  y += v[0] * 9 + lg_fp_load64(s + 40);
  z = lg_fp_rotr(z + w[0], 33) * mul;
  lg_fp_weak32(s, v[1] * mul, x + w[0], v);
  lg_fp_weak32(s + 32, z + w[1], y + lg_fp_load64(s + 16), w);
  const uint64_t t = z;
  z = x;
  x = t;
  return lg_fp_mix16(
      lg_fp_mix16(v[0], w[0], mul) + lg_fp_shift_mix(y) * kFp0 + z,
      lg_fp_mix16(v[1], w[1], mul) + x, mul);
}
