/* A small, bounds-checked reader of FlexBuffers maps: the format of the
 * custom_options TFLite's custom ops (TFLite_Detection_PostProcess) carry.
 *
 * Written from the FlexBuffers format description (flatbuffers'
 * "FlexBuffers" internals page): the root is at the end of the buffer (its
 * last byte is the root's byte width, the byte before it the root's packed
 * type, the root value before that); a packed type holds the type in its
 * upper 6 bits and log2 of the child's byte width in the lower 2; offsets
 * are unsigned and point back from the position that holds them. A map is
 * a vector of values preceded by three fields of its byte width: the offset
 * of its sorted keys vector, that vector's byte width and the map's length;
 * each value's packed type follows the values, one byte each. Keys are
 * offsets to NUL-terminated strings.
 *
 * Every read is checked against the buffer; a malformed buffer gives false
 * and a message (in map->error) that names the problem, never a read
 * outside [buf, buf + size).
 *
 *   lg_flex_map m;
 *   if (!lg_flex_open_map(options, size, &m)) fail(m.error);
 *   lg_flex_number n;
 *   if (!lg_flex_map_number(&m, "max_detections", &n)) fail(m.error);
 *   if (n.found) use(n.i);
 */
#ifndef LITEGPU_RUNTIME_MODEL_FLEXBUFFERS_H_
#define LITEGPU_RUNTIME_MODEL_FLEXBUFFERS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FlexBuffers value types (the upper 6 bits of a packed type). */
enum {
  LG_FLEX_NULL = 0,
  LG_FLEX_INT = 1,
  LG_FLEX_UINT = 2,
  LG_FLEX_FLOAT = 3,
  LG_FLEX_KEY = 4,
  LG_FLEX_STRING = 5,
  LG_FLEX_INDIRECT_INT = 6,
  LG_FLEX_INDIRECT_UINT = 7,
  LG_FLEX_INDIRECT_FLOAT = 8,
  LG_FLEX_MAP = 9,
  LG_FLEX_VECTOR = 10,
  LG_FLEX_VECTOR_INT = 11,
  LG_FLEX_VECTOR_UINT = 12,
  LG_FLEX_BOOL = 26,
};

typedef struct lg_flex_map {
  const uint8_t* buf;
  size_t size;
  size_t data;      /* position of value 0 */
  size_t width;     /* byte width of the values */
  size_t length;    /* number of entries */
  size_t keys;      /* position of key 0's offset field */
  size_t key_width; /* byte width of the keys vector */
  char error[160];  /* why the last call failed */
} lg_flex_map;

/* A number read from a map: found is false for an absent key (the other
 * fields are then 0, as TFLite's reader gives 0 for a missing key). i is
 * the value as an integer (a float truncated toward zero), d as a double;
 * a null value reads as 0. */
typedef struct lg_flex_number {
  bool found;
  int type; /* LG_FLEX_INT, _UINT, _FLOAT, _BOOL or _NULL (indirect ones
             * report their direct type) */
  int64_t i;
  double d;
} lg_flex_number;

/* Opens the root of buf[0..size) as a map. False (with map->error) when
 * the buffer is too short, a byte width is not 1, 2, 4 or 8, the root is
 * not a map, or the map or its keys lie outside the buffer. */
bool lg_flex_open_map(const uint8_t* buf, size_t size, lg_flex_map* map);

/* Looks `key` up and reads its value as a number (INT, UINT, FLOAT, BOOL,
 * NULL or their indirect forms). False (with map->error) for a malformed
 * entry, a value of another type (string, vector, map...), a 1- or 2-byte
 * float, or a UINT / BOOL above INT64_MAX. A float outside int64's range
 * (or NaN) has i = 0. */
bool lg_flex_map_number(lg_flex_map* map, const char* key, lg_flex_number* out);

/* An option that must fit int32: lg_flex_map_number, then a range check.
 * False with a message in error ("custom options: ..." for a malformed
 * entry, "option KEY = V is out of int32 range") ; *present (when not NULL)
 * says whether the key was there with a non-null value. */
bool lg_flex_map_int32(lg_flex_map* map, const char* key, int* out,
                       bool* present, char* error, size_t error_size);

/* Looks `key` up and reads its value as int32 values: a typed vector of
 * INT or UINT (VECTOR_INT, VECTOR_UINT) or an untyped VECTOR whose
 * elements are inline INT or UINT. The first `capacity` values go to out
 * (out may be NULL when capacity is 0: a call that only counts); *count is
 * the vector's length and *found whether the key is there (an absent key
 * gives true, count 0, found false). False (with map->error) for a value
 * of another type, a malformed vector, an element of another type or one
 * outside int32. */
bool lg_flex_map_int32_vector(lg_flex_map* map, const char* key, int32_t* out,
                              size_t capacity, size_t* count, bool* found);

#endif /* LITEGPU_RUNTIME_MODEL_FLEXBUFFERS_H_ */
