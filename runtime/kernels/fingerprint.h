/* Farmhash's Fingerprint64 (farmhashna::Hash64), the 64-bit fingerprint
 * TFLite's LSH_PROJECTION hashes its keys with (TensorFlow's
 * tf.fingerprint(method="farmhash64") gives the same values, little-endian).
 * Written from farmhash's published definition; tests/unit/test_fingerprint.c
 * checks it against values TensorFlow computes.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_FINGERPRINT_H_
#define LITEGPU_RUNTIME_KERNELS_FINGERPRINT_H_

#include <stddef.h>
#include <stdint.h>

/* The fingerprint of data[0..length). */
uint64_t lg_fingerprint64(const void* data, size_t length);

#endif /* LITEGPU_RUNTIME_KERNELS_FINGERPRINT_H_ */
