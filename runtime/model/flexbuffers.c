/* The FlexBuffers map reader (flexbuffers.h). Positions are byte offsets
 * into the buffer; every read first checks pos + width <= size. */
#include "runtime/model/flexbuffers.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool lg_flex_fail(lg_flex_map* map, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

static bool lg_flex_fail(lg_flex_map* map, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(map->error, sizeof(map->error), format, args);
  va_end(args);
  return false;
}

static bool lg_flex_width_ok(size_t width) {
  return width == 1 || width == 2 || width == 4 || width == 8;
}

/* Whether [pos, pos + width) lies in the buffer. */
static bool lg_flex_in(const lg_flex_map* map, size_t pos, size_t width) {
  return pos <= map->size && width <= map->size - pos;
}

/* The little-endian unsigned value of width bytes at pos (checked). */
static uint64_t lg_flex_read_u(const lg_flex_map* map, size_t pos,
                               size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= (uint64_t)map->buf[pos + i] << (8 * i);
  }
  return v;
}

static int64_t lg_flex_read_i(const lg_flex_map* map, size_t pos,
                              size_t width) {
  const uint64_t u = lg_flex_read_u(map, pos, width);
  if (width == 8) return (int64_t)u;
  const uint64_t sign = (uint64_t)1 << (8 * width - 1);
  /* Sign-extend without relying on implementation-defined conversion. */
  return (u & sign) ? -(int64_t)((sign << 1) - u) : (int64_t)u;
}

/* The position an offset field at `pos` (width bytes) points to: pos minus
 * the offset, which must not pass the buffer's start. */
static bool lg_flex_follow(lg_flex_map* map, size_t pos, size_t width,
                           size_t* target, const char* what) {
  if (!lg_flex_in(map, pos, width)) {
    return lg_flex_fail(map,
                        "FlexBuffers: the %s offset at byte %zu is past "
                        "the end of the %zu-byte buffer",
                        what, pos, map->size);
  }
  const uint64_t off = lg_flex_read_u(map, pos, width);
  if (off > pos) {
    return lg_flex_fail(map,
                        "FlexBuffers: the %s offset %llu at byte %zu "
                        "points before the buffer",
                        what, (unsigned long long)off, pos);
  }
  *target = pos - (size_t)off;
  return true;
}

bool lg_flex_open_map(const uint8_t* buf, size_t size, lg_flex_map* map) {
  memset(map, 0, sizeof(*map));
  map->buf = buf;
  map->size = buf == NULL ? 0 : size;
  if (map->size < 3) {
    return lg_flex_fail(map,
                        "FlexBuffers: %zu bytes is too short for a "
                        "root (at least 3)",
                        map->size);
  }
  const size_t root_width = buf[size - 1];
  const unsigned packed = buf[size - 2];
  if (!lg_flex_width_ok(root_width)) {
    return lg_flex_fail(map,
                        "FlexBuffers: root byte width %zu is not 1, 2, "
                        "4 or 8",
                        root_width);
  }
  if ((packed >> 2) != LG_FLEX_MAP) {
    return lg_flex_fail(map, "FlexBuffers: the root has type %u, not a map",
                        packed >> 2);
  }
  if (root_width > size - 2) {
    return lg_flex_fail(map,
                        "FlexBuffers: the %zu-byte root does not fit "
                        "the %zu-byte buffer",
                        root_width, size);
  }
  size_t data = 0;
  if (!lg_flex_follow(map, size - 2 - root_width, root_width, &data, "root")) {
    return false;
  }
  const size_t w = (size_t)1 << (packed & 3);
  if (data < 3 * w) {
    return lg_flex_fail(map,
                        "FlexBuffers: the map at byte %zu has no room "
                        "for its header",
                        data);
  }
  const uint64_t length = lg_flex_read_u(map, data - w, w);
  /* The values and their type bytes: length * (w + 1) bytes from data. */
  if (!lg_flex_in(map, data, 0) || length > (map->size - data) / (w + 1)) {
    return lg_flex_fail(map,
                        "FlexBuffers: the map at byte %zu claims %llu "
                        "entries, past the end of the %zu-byte buffer",
                        data, (unsigned long long)length, map->size);
  }
  const size_t key_width = (size_t)lg_flex_read_u(map, data - 2 * w, w);
  if (!lg_flex_width_ok(key_width)) {
    return lg_flex_fail(map,
                        "FlexBuffers: the map's keys byte width %zu is "
                        "not 1, 2, 4 or 8",
                        key_width);
  }
  size_t keys = 0;
  if (!lg_flex_follow(map, data - 3 * w, w, &keys, "keys vector")) {
    return false;
  }
  if (keys < key_width ||
      (uint64_t)lg_flex_read_u(map, keys - key_width, key_width) != length) {
    return lg_flex_fail(map,
                        "FlexBuffers: the map's keys vector at byte %zu "
                        "does not hold its %llu keys",
                        keys, (unsigned long long)length);
  }
  if (!lg_flex_in(map, keys, 0) || length > (map->size - keys) / key_width) {
    return lg_flex_fail(map,
                        "FlexBuffers: the map's %llu keys run past the "
                        "end of the buffer",
                        (unsigned long long)length);
  }
  map->data = data;
  map->width = w;
  map->length = (size_t)length;
  map->keys = keys;
  map->key_width = key_width;
  return true;
}

/* Compares key i with `key`: 0 when equal, 1 when different, -1 (with
 * map->error) when the key string is malformed. */
static int lg_flex_key_differs(lg_flex_map* map, size_t i, const char* key) {
  size_t pos = 0;
  if (!lg_flex_follow(map, map->keys + i * map->key_width, map->key_width, &pos,
                      "key")) {
    return -1;
  }
  const size_t n = strlen(key);
  for (size_t k = 0;; ++k) {
    if (pos + k >= map->size) {
      lg_flex_fail(map,
                   "FlexBuffers: key %zu at byte %zu has no NUL before "
                   "the end of the buffer",
                   i, pos);
      return -1;
    }
    const uint8_t c = map->buf[pos + k];
    if (c == 0) return k == n ? 0 : 1;
    if (k >= n || c != (uint8_t)key[k]) {
      /* Still check that the key ends inside the buffer. */
      while (pos + k < map->size && map->buf[pos + k] != 0) ++k;
      if (pos + k >= map->size) {
        lg_flex_fail(map,
                     "FlexBuffers: key %zu at byte %zu has no NUL "
                     "before the end of the buffer",
                     i, pos);
        return -1;
      }
      return 1;
    }
  }
}

/* The entry index of `key` (map->length when absent). False (with
 * map->error) when a key is malformed. */
static bool lg_flex_find(lg_flex_map* map, const char* key, size_t* index) {
  *index = map->length;
  for (size_t i = 0; i < map->length; ++i) {
    const int d = lg_flex_key_differs(map, i, key);
    if (d < 0) return false;
    if (d == 0) {
      *index = i;
      break;
    }
  }
  return true;
}

bool lg_flex_map_number(lg_flex_map* map, const char* key,
                        lg_flex_number* out) {
  memset(out, 0, sizeof(*out));
  out->type = LG_FLEX_NULL;
  size_t index = 0;
  if (!lg_flex_find(map, key, &index)) return false;
  if (index == map->length) return true; /* absent */
  out->found = true;
  const unsigned packed =
      map->buf[map->data + map->length * map->width + index];
  int type = (int)(packed >> 2);
  size_t pos = map->data + index * map->width;
  size_t width = map->width;
  if (type == LG_FLEX_INDIRECT_INT || type == LG_FLEX_INDIRECT_UINT ||
      type == LG_FLEX_INDIRECT_FLOAT) {
    if (!lg_flex_follow(map, pos, width, &pos, "value")) return false;
    width = (size_t)1 << (packed & 3);
    if (!lg_flex_in(map, pos, width)) {
      return lg_flex_fail(map,
                          "FlexBuffers: the value of '%s' at byte %zu "
                          "is past the end of the buffer",
                          key, pos);
    }
    type = type == LG_FLEX_INDIRECT_INT
               ? LG_FLEX_INT
               : (type == LG_FLEX_INDIRECT_UINT ? LG_FLEX_UINT : LG_FLEX_FLOAT);
  }
  out->type = type;
  switch (type) {
    case LG_FLEX_NULL:
      return true;
    case LG_FLEX_INT:
      out->i = lg_flex_read_i(map, pos, width);
      out->d = (double)out->i;
      return true;
    case LG_FLEX_UINT:
    case LG_FLEX_BOOL: {
      const uint64_t u = lg_flex_read_u(map, pos, width);
      if (u > (uint64_t)INT64_MAX) {
        return lg_flex_fail(map,
                            "FlexBuffers: '%s' = %llu does not fit "
                            "int64",
                            key, (unsigned long long)u);
      }
      out->i = (int64_t)u;
      out->d = (double)u;
      return true;
    }
    case LG_FLEX_FLOAT: {
      if (width == 4) {
        float f;
        const uint32_t bits = (uint32_t)lg_flex_read_u(map, pos, 4);
        memcpy(&f, &bits, sizeof(f));
        out->d = f;
      } else if (width == 8) {
        const uint64_t bits = lg_flex_read_u(map, pos, 8);
        memcpy(&out->d, &bits, sizeof(out->d));
      } else {
        return lg_flex_fail(map,
                            "FlexBuffers: '%s' is a %zu-byte float (4 "
                            "or 8 expected)",
                            key, width);
      }
      if (isnan(out->d) || out->d >= 9223372036854775808.0 ||
          out->d < -9223372036854775808.0) {
        out->i = 0; /* no integer value; callers reading floats ignore it */
      } else {
        out->i = (int64_t)out->d;
      }
      return true;
    }
    default:
      return lg_flex_fail(map, "FlexBuffers: '%s' has type %d, not a number",
                          key, type);
  }
}

bool lg_flex_map_int32(lg_flex_map* map, const char* key, int* out,
                       bool* present, char* error, size_t error_size) {
  lg_flex_number n;
  if (!lg_flex_map_number(map, key, &n)) {
    snprintf(error, error_size, "custom options: %s", map->error);
    return false;
  }
  if (n.type == LG_FLEX_FLOAT && !(n.d > -2147483649.0 && n.d < 2147483648.0)) {
    snprintf(error, error_size, "option %s = %g is out of int32 range", key,
             n.d);
    return false;
  }
  if (n.i < INT32_MIN || n.i > INT32_MAX) {
    snprintf(error, error_size, "option %s = %lld is out of int32 range", key,
             (long long)n.i);
    return false;
  }
  *out = (int)n.i;
  if (present != NULL) *present = n.found && n.type != LG_FLEX_NULL;
  return true;
}

bool lg_flex_map_int32_vector(lg_flex_map* map, const char* key, int32_t* out,
                              size_t capacity, size_t* count, bool* found) {
  *count = 0;
  *found = false;
  size_t index = 0;
  if (!lg_flex_find(map, key, &index)) return false;
  if (index == map->length) return true; /* absent */
  *found = true;
  const unsigned packed =
      map->buf[map->data + map->length * map->width + index];
  const int type = (int)(packed >> 2);
  if (type != LG_FLEX_VECTOR && type != LG_FLEX_VECTOR_INT &&
      type != LG_FLEX_VECTOR_UINT) {
    return lg_flex_fail(map,
                        "FlexBuffers: '%s' has type %d, not a vector of "
                        "integers",
                        key, type);
  }
  size_t data = 0;
  if (!lg_flex_follow(map, map->data + index * map->width, map->width, &data,
                      "vector")) {
    return false;
  }
  const size_t w = (size_t)1 << (packed & 3);
  if (data < w) {
    return lg_flex_fail(map,
                        "FlexBuffers: the vector '%s' at byte %zu has no "
                        "room for its length",
                        key, data);
  }
  const uint64_t length = lg_flex_read_u(map, data - w, w);
  /* The elements, and for an untyped vector one type byte each after
   * them. */
  const size_t per = type == LG_FLEX_VECTOR ? w + 1 : w;
  if (!lg_flex_in(map, data, 0) || length > (map->size - data) / per) {
    return lg_flex_fail(map,
                        "FlexBuffers: the vector '%s' at byte %zu claims "
                        "%llu elements, past the end of the %zu-byte buffer",
                        key, data, (unsigned long long)length, map->size);
  }
  for (size_t i = 0; i < (size_t)length; ++i) {
    int element = type == LG_FLEX_VECTOR_INT ? LG_FLEX_INT : LG_FLEX_UINT;
    if (type == LG_FLEX_VECTOR) {
      element = (int)(map->buf[data + (size_t)length * w + i] >> 2);
      if (element != LG_FLEX_INT && element != LG_FLEX_UINT) {
        return lg_flex_fail(map,
                            "FlexBuffers: element %zu of '%s' has type %d, "
                            "not an integer",
                            i, key, element);
      }
    }
    const size_t pos = data + i * w;
    int64_t v = 0;
    if (element == LG_FLEX_INT) {
      v = lg_flex_read_i(map, pos, w);
    } else {
      const uint64_t u = lg_flex_read_u(map, pos, w);
      v = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    if (v < INT32_MIN || v > INT32_MAX) {
      return lg_flex_fail(map,
                          "FlexBuffers: element %zu of '%s' is out of int32 "
                          "range",
                          i, key);
    }
    if (i < capacity) out[i] = (int32_t)v;
  }
  *count = (size_t)length;
  return true;
}
