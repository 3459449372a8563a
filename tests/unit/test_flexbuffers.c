/* The FlexBuffers map reader (runtime/model/flexbuffers.c) on hand-built
 * buffers (layout worked out byte by byte below), on a buffer written by
 * the flatbuffers Python package (the bytes TFLite_Detection_PostProcess
 * tests give it), and on damaged ones: every truncation, every single-byte
 * change and the malformed headers each check names. Damaged buffers are
 * exact-size heap copies, so a read past the end shows under ASan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/flexbuffers.h"

/* {"a": 5 (INT, inline), "b": 2.5 (INDIRECT_FLOAT, 4 bytes)}, map and keys
 * of byte width 1:
 *   0  'a' 0 'b' 0           the key strings
 *   4  00 00 20 40           2.5f
 *   8  02                    keys vector length
 *   9  09 08                 key offsets: 9 - 9 = 0, 10 - 8 = 2
 *   11 02 01 02              map header: keys at 11 - 2 = 9, width 1, len 2
 *   14 05 0b                 a = 5, b's offset: 15 - 11 = 4
 *   16 04 22                 types: INT w1, INDIRECT_FLOAT w4
 *   18 04 24 01              root: map at 18 - 4 = 14, MAP w1, width 1 */
static const uint8_t kSmall[] = {'a',  0,    'b',  0,    0x00, 0x00, 0x20,
                                 0x40, 0x02, 0x09, 0x08, 0x02, 0x01, 0x02,
                                 0x05, 0x0b, 0x04, 0x22, 0x04, 0x24, 0x01};

/* flexbuffers.Dumps({'max_detections': 10, 'nms_iou_threshold': 0.6,
 * 'use_regular_nms': True, 'num_classes': -3, 'big': 300}): values of
 * width 8 (a double, a bool, a negative int). */
static const uint8_t kPython[] = {
    0x6d, 0x61, 0x78, 0x5f, 0x64, 0x65, 0x74, 0x65, 0x63, 0x74, 0x69, 0x6f,
    0x6e, 0x73, 0x00, 0x6e, 0x6d, 0x73, 0x5f, 0x69, 0x6f, 0x75, 0x5f, 0x74,
    0x68, 0x72, 0x65, 0x73, 0x68, 0x6f, 0x6c, 0x64, 0x00, 0x75, 0x73, 0x65,
    0x5f, 0x72, 0x65, 0x67, 0x75, 0x6c, 0x61, 0x72, 0x5f, 0x6e, 0x6d, 0x73,
    0x00, 0x6e, 0x75, 0x6d, 0x5f, 0x63, 0x6c, 0x61, 0x73, 0x73, 0x65, 0x73,
    0x00, 0x62, 0x69, 0x67, 0x00, 0x05, 0x05, 0x43, 0x35, 0x14, 0x25, 0x00,
    0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x2c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0xe3, 0x3f,
    0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x07, 0x07, 0x0f, 0x07, 0x6b, 0x2d, 0x27, 0x01};

/* flatbuffers' Python Builder: {'t': TypedVectorFromElements([1, -2, 300])
 * (VECTOR_INT, 2-byte elements), 'u': VectorFromElements([4, 5]) (an
 * untyped VECTOR of INTs), 'm': [4, 1.5] (untyped, an INT and a FLOAT),
 * 'f': 1.5} (the vectors MediaPipe's Landmarks2TransformMatrix options
 * hold). */
static const uint8_t kVectors[] = {
    0x74, 0x00, 0x03, 0x00, 0x01, 0x00, 0xfe, 0xff, 0x2c, 0x01, 0x75, 0x00,
    0x02, 0x04, 0x05, 0x04, 0x04, 0x6d, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x3f, 0x06, 0x0e, 0x66, 0x00,
    0x04, 0x03, 0x15, 0x27, 0x1e, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x3f,
    0x24, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x37, 0x00, 0x00, 0x00,
    0x0e, 0x2a, 0x2d, 0x28, 0x14, 0x26, 0x01};

static void test_small_map(void** state) {
  (void)state;
  lg_flex_map m;
  assert_true(lg_flex_open_map(kSmall, sizeof(kSmall), &m));
  assert_int_equal(m.length, 2);
  lg_flex_number n;
  assert_true(lg_flex_map_number(&m, "a", &n));
  assert_true(n.found);
  assert_int_equal(n.type, LG_FLEX_INT);
  assert_int_equal(n.i, 5);
  assert_true(lg_flex_map_number(&m, "b", &n));
  assert_true(n.found);
  assert_int_equal(n.type, LG_FLEX_FLOAT);
  assert_true(n.d == 2.5);
  assert_int_equal(n.i, 2);
  assert_true(lg_flex_map_number(&m, "c", &n));
  assert_false(n.found);
  assert_int_equal(n.i, 0);
  assert_true(lg_flex_map_number(&m, "", &n));
  assert_false(n.found);
  assert_true(lg_flex_map_number(&m, "ab", &n));
  assert_false(n.found);
}

static void test_python_map(void** state) {
  (void)state;
  lg_flex_map m;
  assert_true(lg_flex_open_map(kPython, sizeof(kPython), &m));
  assert_int_equal(m.length, 5);
  assert_int_equal(m.width, 8);
  lg_flex_number n;
  assert_true(lg_flex_map_number(&m, "max_detections", &n));
  assert_true(n.found && n.type == LG_FLEX_INT && n.i == 10);
  assert_true(lg_flex_map_number(&m, "nms_iou_threshold", &n));
  assert_true(n.found && n.type == LG_FLEX_FLOAT && n.d == 0.6);
  assert_true(lg_flex_map_number(&m, "use_regular_nms", &n));
  assert_true(n.found && n.type == LG_FLEX_BOOL && n.i == 1);
  assert_true(lg_flex_map_number(&m, "num_classes", &n));
  assert_true(n.found && n.type == LG_FLEX_INT && n.i == -3);
  assert_true(lg_flex_map_number(&m, "big", &n));
  assert_true(n.found && n.i == 300);
  assert_true(lg_flex_map_number(&m, "max_detection", &n));
  assert_false(n.found);
}

static uint8_t* copy_of(const uint8_t* src, size_t size) {
  uint8_t* p = malloc(size > 0 ? size : 1);
  assert_non_null(p);
  if (size > 0) memcpy(p, src, size);
  return p;
}

static void test_int_vectors(void** state) {
  (void)state;
  lg_flex_map m;
  assert_true(lg_flex_open_map(kVectors, sizeof(kVectors), &m));
  int32_t v[4] = {9, 9, 9, 9};
  size_t count = 0;
  bool found = false;
  assert_true(lg_flex_map_int32_vector(&m, "t", v, 4, &count, &found));
  assert_true(found);
  assert_int_equal(count, 3);
  assert_int_equal(v[0], 1);
  assert_int_equal(v[1], -2);
  assert_int_equal(v[2], 300);
  assert_int_equal(v[3], 9);
  /* Counting only, then a capacity smaller than the vector. */
  assert_true(lg_flex_map_int32_vector(&m, "t", NULL, 0, &count, &found));
  assert_int_equal(count, 3);
  v[0] = v[1] = 9;
  assert_true(lg_flex_map_int32_vector(&m, "u", v, 1, &count, &found));
  assert_int_equal(count, 2);
  assert_int_equal(v[0], 4);
  assert_int_equal(v[1], 9);
  assert_true(lg_flex_map_int32_vector(&m, "absent", v, 4, &count, &found));
  assert_false(found);
  assert_int_equal(count, 0);
  assert_false(lg_flex_map_int32_vector(&m, "m", v, 4, &count, &found));
  assert_non_null(strstr(m.error,
                         "element 1 of 'm' has type 3, not an "
                         "integer"));
  assert_false(lg_flex_map_int32_vector(&m, "f", v, 4, &count, &found));
  assert_non_null(strstr(m.error,
                         "'f' has type 3, not a vector of "
                         "integers"));
}

/* Every byte of the vectors' buffer set to a few values, and every
 * truncation: reading the vectors never leaves the buffer (ASan) and a
 * failure always has a message. */
static void test_damaged_vectors(void** state) {
  (void)state;
  static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x2c, 0x2f};
  static const char* const keys[] = {"t", "u", "m", "f"};
  const size_t size = sizeof(kVectors);
  for (size_t pos = 0; pos <= size; ++pos) {
    for (size_t v = 0; v < sizeof(values) + 1; ++v) {
      /* pos == size: the suffixes of every length instead of a change. */
      const size_t len = pos == size ? v * size / sizeof(values) : size;
      uint8_t* p = copy_of(kVectors + size - len, len);
      if (pos < size && v < sizeof(values)) p[pos] = values[v];
      lg_flex_map m;
      if (lg_flex_open_map(p, len, &m)) {
        for (size_t k = 0; k < 4; ++k) {
          int32_t out[8];
          size_t count = 0;
          bool found = false;
          if (!lg_flex_map_int32_vector(&m, keys[k], out, 8, &count, &found)) {
            assert_true(strncmp(m.error, "FlexBuffers: ", 13) == 0);
          }
        }
      }
      free(p);
    }
  }
}

/* Opens (and, when it opens, reads every key of) buf[0..size). */
static bool read_all(const uint8_t* buf, size_t size) {
  static const char* const keys[] = {"a",
                                     "b",
                                     "max_detections",
                                     "nms_iou_threshold",
                                     "use_regular_nms",
                                     "num_classes",
                                     "big"};
  lg_flex_map m;
  if (!lg_flex_open_map(buf, size, &m)) {
    assert_true(strncmp(m.error, "FlexBuffers: ", 13) == 0);
    return false;
  }
  bool ok = true;
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); ++k) {
    lg_flex_number n;
    if (!lg_flex_map_number(&m, keys[k], &n)) {
      assert_true(strncmp(m.error, "FlexBuffers: ", 13) == 0);
      ok = false;
    }
  }
  return ok;
}

/* Every prefix and suffix of both buffers: none is read past its end. A
 * prefix always loses the root, so it fails. */
static void test_truncations(void** state) {
  (void)state;
  const struct {
    const uint8_t* data;
    size_t size;
  } bufs[] = {{kSmall, sizeof(kSmall)}, {kPython, sizeof(kPython)}};
  for (size_t b = 0; b < 2; ++b) {
    for (size_t len = 0; len < bufs[b].size; ++len) {
      uint8_t* head = copy_of(bufs[b].data, len);
      uint8_t* tail = copy_of(bufs[b].data + bufs[b].size - len, len);
      lg_flex_map m;
      if (len < 3) assert_false(lg_flex_open_map(head, len, &m));
      (void)read_all(head, len);
      (void)read_all(tail, len);
      free(head);
      free(tail);
    }
  }
}

/* Every byte of both buffers set to a few values: reading never leaves the
 * buffer (ASan) and a failure always has a message. */
static void test_byte_changes(void** state) {
  (void)state;
  static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x24, 0x03};
  const struct {
    const uint8_t* data;
    size_t size;
  } bufs[] = {{kSmall, sizeof(kSmall)}, {kPython, sizeof(kPython)}};
  for (size_t b = 0; b < 2; ++b) {
    for (size_t pos = 0; pos < bufs[b].size; ++pos) {
      for (size_t v = 0; v < sizeof(values); ++v) {
        uint8_t* p = copy_of(bufs[b].data, bufs[b].size);
        p[pos] = values[v];
        (void)read_all(p, bufs[b].size);
        free(p);
      }
    }
  }
}

static void expect_open_error(const uint8_t* src, size_t size,
                              const char* want) {
  uint8_t* p = copy_of(src, size);
  lg_flex_map m;
  assert_false(lg_flex_open_map(p, size, &m));
  if (strstr(m.error, want) == NULL) {
    fail_msg("error '%s' lacks '%s'", m.error, want);
  }
  free(p);
}

static void test_malformed_headers(void** state) {
  (void)state;
  uint8_t b[sizeof(kSmall)];
  expect_open_error(kSmall, 0, "0 bytes is too short");
  lg_flex_map m;
  assert_false(lg_flex_open_map(NULL, 5, &m)); /* NULL reads as empty */
  assert_non_null(strstr(m.error, "0 bytes is too short"));
  memcpy(b, kSmall, sizeof(b));
  b[20] = 3; /* root width */
  expect_open_error(b, sizeof(b), "root byte width 3 is not 1, 2, 4 or 8");
  memcpy(b, kSmall, sizeof(b));
  b[19] = (LG_FLEX_VECTOR << 2); /* root type */
  expect_open_error(b, sizeof(b), "the root has type 10, not a map");
  memcpy(b, kSmall, sizeof(b));
  b[20] = 8; /* an 8-byte root in a 21-byte buffer starts at byte 11 */
  b[19] = (LG_FLEX_MAP << 2);
  expect_open_error(b, sizeof(b), "points before the buffer");
  memcpy(b, kSmall, sizeof(b));
  b[18] = 200; /* root offset */
  expect_open_error(b, sizeof(b), "root offset 200 at byte 18 points before");
  memcpy(b, kSmall, sizeof(b));
  b[13] = 200; /* map length */
  expect_open_error(b, sizeof(b), "claims 200 entries");
  memcpy(b, kSmall, sizeof(b));
  b[12] = 3; /* keys width */
  expect_open_error(b, sizeof(b), "keys byte width 3");
  memcpy(b, kSmall, sizeof(b));
  b[8] = 3; /* keys vector length differs from the map's */
  expect_open_error(b, sizeof(b), "does not hold its 2 keys");
  memcpy(b, kSmall, sizeof(b));
  b[18] = 17; /* the map at byte 1: no room for its header */
  expect_open_error(b, sizeof(b), "has no room for its header");
}

static void expect_read_error(const uint8_t* src, size_t size, const char* key,
                              const char* want) {
  uint8_t* p = copy_of(src, size);
  lg_flex_map m;
  assert_true(lg_flex_open_map(p, size, &m));
  lg_flex_number n;
  assert_false(lg_flex_map_number(&m, key, &n));
  if (strstr(m.error, want) == NULL) {
    fail_msg("error '%s' lacks '%s'", m.error, want);
  }
  free(p);
}

static void test_malformed_values(void** state) {
  (void)state;
  uint8_t b[sizeof(kSmall)];
  memcpy(b, kSmall, sizeof(b));
  b[17] = (LG_FLEX_STRING << 2); /* b as a string */
  expect_read_error(b, sizeof(b), "b", "'b' has type 5, not a number");
  memcpy(b, kSmall, sizeof(b));
  b[15] = 30; /* b's offset past the start */
  expect_read_error(b, sizeof(b), "b", "value offset 30 at byte 15");
  memcpy(b, kSmall, sizeof(b));
  b[17] = (LG_FLEX_INDIRECT_FLOAT << 2) | 1; /* a 2-byte float */
  expect_read_error(b, sizeof(b), "b", "'b' is a 2-byte float");
  memcpy(b, kSmall, sizeof(b));
  b[17] = (LG_FLEX_INDIRECT_FLOAT << 2) | 3; /* an 8-byte float */
  b[15] = 1; /* at byte 14: 8 bytes run to 22, past the 21-byte buffer */
  expect_read_error(b, sizeof(b), "b", "past the end of the buffer");
  memcpy(b, kSmall, sizeof(b));
  b[9] = 20; /* key 0's offset past the start */
  expect_read_error(b, sizeof(b), "a", "key offset 20 at byte 9");
  memcpy(b, kSmall, sizeof(b));
  b[10] = 247; /* key 1's offset past the start, found after key 0 */
  expect_read_error(b, sizeof(b), "zzz", "key offset 247 at byte 10");
}

/* A key that runs to the end of the buffer without its NUL. */
static void test_unterminated_key(void** state) {
  (void)state;
  /* Key "a" loses its NUL (byte 1), and every later zero byte (3, and the
   * float's 4 and 5) is set too: the key's string runs to the end. */
  uint8_t b[sizeof(kSmall)];
  memcpy(b, kSmall, sizeof(b));
  b[1] = 'X';
  b[3] = 'Y';
  b[4] = 1;
  b[5] = 1; /* the float's zero bytes */
  lg_flex_map m;
  uint8_t* p = copy_of(b, sizeof(b));
  assert_true(lg_flex_open_map(p, sizeof(b), &m));
  lg_flex_number n;
  assert_false(lg_flex_map_number(&m, "a", &n));
  assert_non_null(strstr(m.error, "has no NUL before the end"));
  free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_map),
      cmocka_unit_test(test_python_map),
      cmocka_unit_test(test_int_vectors),
      cmocka_unit_test(test_damaged_vectors),
      cmocka_unit_test(test_truncations),
      cmocka_unit_test(test_byte_changes),
      cmocka_unit_test(test_malformed_headers),
      cmocka_unit_test(test_malformed_values),
      cmocka_unit_test(test_unterminated_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
