/* lg_fingerprint64 (runtime/kernels/fingerprint.c), farmhash's Fingerprint64,
 * against values TensorFlow 2's tf.fingerprint(method="farmhash64")
 * computes (read little-endian) for the bytes (i * 37 + 11) mod 256 of
 * lengths 0 to 139 (the venv-tf under /work/main/build; tf.fingerprint calls
 * farmhash's Fingerprint64, as LiteRT's LSH_PROJECTION does). The lengths
 * cover each branch of the function: 0, 1-3, 4-7, 8-16, 17-32, 33-64 and
 * the loop over 64-byte blocks (one, two and three blocks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/kernels/fingerprint.h"

static void test_fingerprint_tensorflow_values(void** state) {
  (void)state;
  static const struct {
    size_t length;
    uint64_t fingerprint;
  } kCases[] = {
      {0, 0x9ae16a3b2f90404full},   {1, 0x4271b80e2915c76aull},
      {3, 0x373a2b2a12e0c581ull},   {4, 0xcc1e778137ae6d69ull},
      {7, 0x960838fbc6d9c975ull},   {8, 0x7d507025ed4eecfdull},
      {16, 0xd836480326a974d6ull},  {17, 0x5cded6cb65c9dac6ull},
      {31, 0x52a467e87c92d522ull},  {32, 0xa03300e1b2be6da7ull},
      {33, 0x839154ca67815696ull},  {63, 0x7cf64a4bd1b2b67eull},
      {64, 0x000f03eac52d3535ull},  {65, 0xfb360c5023f60db6ull},
      {100, 0x094bb5559bbb1375ull}, {128, 0x33ef435f17af1739ull},
      {139, 0x9569d9b32775a7f1ull},
  };
  uint8_t bytes[160];
  for (size_t i = 0; i < sizeof(bytes); ++i) {
    bytes[i] = (uint8_t)((i * 37 + 11) % 256);
  }
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    const uint64_t got = lg_fingerprint64(bytes, kCases[k].length);
    if (got != kCases[k].fingerprint) {
      fail_msg("length %zu: 0x%016llx, expected 0x%016llx", kCases[k].length,
               (unsigned long long)got,
               (unsigned long long)kCases[k].fingerprint);
    }
  }
}

/* Only the bytes in [data, data + length) count: an unaligned start and
 * different bytes after the end give the same fingerprint. */
static void test_fingerprint_reads_only_its_bytes(void** state) {
  (void)state;
  uint8_t a[200], b[201];
  for (size_t i = 0; i < sizeof(a); ++i) a[i] = (uint8_t)(i * 7 + 3);
  for (size_t n = 0; n <= 150; ++n) {
    for (size_t i = 0; i < sizeof(b); ++i) b[i] = (uint8_t)~i;
    for (size_t i = 0; i < n; ++i) b[i + 1] = a[i];
    assert_true(lg_fingerprint64(a, n) == lg_fingerprint64(b + 1, n));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fingerprint_tensorflow_values),
      cmocka_unit_test(test_fingerprint_reads_only_its_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
