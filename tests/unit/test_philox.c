/* The Philox4x32-10 generator behind RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL
 * and MULTINOMIAL (runtime/kernels/philox.h): the published known-answer
 * vectors of Random123 (Salmon et al., SC 2011, kat_vectors: philox4x32
 * with 10 rounds, threefry2x32 with 20), the seed layout, the 128-bit counter's
 * carries, and the word-to-number conversions on values derived by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/philox.h"

static void check_block(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                        uint32_t k0, uint32_t k1, uint32_t r0, uint32_t r1,
                        uint32_t r2, uint32_t r3) {
  const uint32_t counter[4] = {c0, c1, c2, c3};
  const uint32_t key[2] = {k0, k1};
  uint32_t out[4];
  lg_philox_block(counter, key, out);
  assert_int_equal(out[0], r0);
  assert_int_equal(out[1], r1);
  assert_int_equal(out[2], r2);
  assert_int_equal(out[3], r3);
}

static void test_known_answers(void** state) {
  (void)state;
  check_block(0, 0, 0, 0, 0, 0, 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
              0x9b00dbd8u);
  check_block(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
              0xffffffffu, 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
  /* Digits of pi as counter and key. */
  check_block(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u,
              0x299f31d0u, 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

static void check_threefry(uint32_t c0, uint32_t c1, uint32_t k0, uint32_t k1,
                           uint32_t r0, uint32_t r1) {
  const uint32_t counter[2] = {c0, c1};
  const uint32_t key[2] = {k0, k1};
  uint32_t out[2];
  lg_threefry2x32_block(counter, key, out);
  assert_int_equal(out[0], r0);
  assert_int_equal(out[1], r1);
}

/* Random123's threefry2x32 vectors with 20 rounds. */
static void test_threefry_known_answers(void** state) {
  (void)state;
  check_threefry(0, 0, 0, 0, 0x6b200159u, 0x99ba4efeu);
  check_threefry(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                 0x1cb996fcu, 0xbb002be7u);
  check_threefry(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u,
                 0xc4923a9cu, 0x483df7a0u);
}

static void test_seed_layout_and_next(void** state) {
  (void)state;
  lg_philox g;
  lg_philox_seed(&g, 0x1122334455667788ull, 0x99aabbccddeeff00ull);
  assert_int_equal(g.key[0], 0x55667788u);
  assert_int_equal(g.key[1], 0x11223344u);
  assert_int_equal(g.counter[0], 0);
  assert_int_equal(g.counter[1], 0);
  assert_int_equal(g.counter[2], 0xddeeff00u);
  assert_int_equal(g.counter[3], 0x99aabbccu);
  /* Seeds 0/0 draw the all-zero known answer, then the counter is 1. */
  lg_philox_seed(&g, 0, 0);
  uint32_t out[4];
  lg_philox_next(&g, out);
  assert_int_equal(out[0], 0x6627e8d5u);
  assert_int_equal(out[3], 0x9b00dbd8u);
  assert_int_equal(g.counter[0], 1);
  assert_int_equal(g.key[0], 0); /* the key never changes */
  /* The second draw is the block of counter 1. */
  const uint32_t one[4] = {1, 0, 0, 0};
  const uint32_t zero_key[2] = {0, 0};
  uint32_t want[4];
  lg_philox_block(one, zero_key, want);
  lg_philox_next(&g, out);
  assert_memory_equal(out, want, sizeof(out));
}

static void test_skip_carries(void** state) {
  (void)state;
  lg_philox g;
  lg_philox_seed(&g, 0, 0);
  g.counter[0] = 0xffffffffu;
  g.counter[1] = 0xffffffffu;
  g.counter[2] = 0xffffffffu;
  g.counter[3] = 7;
  lg_philox_skip(&g, 1);
  assert_int_equal(g.counter[0], 0);
  assert_int_equal(g.counter[1], 0);
  assert_int_equal(g.counter[2], 0);
  assert_int_equal(g.counter[3], 8);
  /* 2^32 + 3 from {5, 9, ...}: {8, 10, ...}. */
  g.counter[0] = 5;
  g.counter[1] = 9;
  lg_philox_skip(&g, 0x100000003ull);
  assert_int_equal(g.counter[0], 8);
  assert_int_equal(g.counter[1], 10);
  assert_int_equal(g.counter[2], 0);
  /* Word 0 wraps and carries into the high half of the count. */
  g.counter[0] = 0xfffffffeu;
  g.counter[1] = 0xfffffffeu;
  lg_philox_skip(&g, 0x0000000100000003ull);
  assert_int_equal(g.counter[0], 1);
  assert_int_equal(g.counter[1], 0);
  assert_int_equal(g.counter[2], 1);
  assert_int_equal(g.counter[3], 8);
}

static void test_conversions(void** state) {
  (void)state;
  assert_true(lg_philox_uint32_to_float(0) == 0.0f);
  /* Only the low 23 bits count. */
  assert_true(lg_philox_uint32_to_float(0xff800000u) == 0.0f);
  assert_true(lg_philox_uint32_to_float(0x00400000u) == 0.5f);
  assert_true(lg_philox_uint32_to_float(0x007fffffu) ==
              1.0f - 1.0f / 8388608.0f);
  assert_true(lg_philox_uint64_to_double(0, 0) == 0.0);
  assert_true(lg_philox_uint64_to_double(0xfff00000u, 0) == 0.0);
  assert_true(lg_philox_uint64_to_double(0x00080000u, 0) == 0.5);
  assert_true(lg_philox_uint64_to_double(0, 1) == ldexp(1.0, -52));
  assert_true(lg_philox_uint64_to_double(0xfffffu, 0xffffffffu) ==
              1.0 - ldexp(1.0, -52));
}

static void test_box_muller(void** state) {
  (void)state;
  float f0, f1;
  /* u1 = 0 is raised to 1e-7; angle 0: (0, sqrt(-2 ln 1e-7)) = (0,
   * 5.677692). */
  lg_philox_box_muller(0, 0, &f0, &f1);
  assert_true(f0 == 0.0f);
  assert_true(fabs(f1 - 5.677692) < 1e-5);
  /* u1 = 0.5, angle pi: radius sqrt(2 ln 2) = 1.177410; (~0, -1.177410). */
  lg_philox_box_muller(0x00400000u, 0x00400000u, &f0, &f1);
  assert_true(fabs(f0) < 1e-6);
  assert_true(fabs(f1 + 1.177410) < 1e-5);
  /* u1 = 0.75, angle pi/2: (sqrt(-2 ln 0.75), ~0) = (0.758528, ~0). */
  lg_philox_box_muller(0x00600000u, 0x00200000u, &f0, &f1);
  assert_true(fabs(f0 - 0.758528) < 1e-5);
  assert_true(fabs(f1) < 1e-6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_answers),
      cmocka_unit_test(test_threefry_known_answers),
      cmocka_unit_test(test_seed_layout_and_next),
      cmocka_unit_test(test_skip_carries),
      cmocka_unit_test(test_conversions),
      cmocka_unit_test(test_box_muller),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
