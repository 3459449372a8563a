/* Bounds-checked FlatBuffer primitives; see flatbuffer.h.
 *
 * Layout facts used here (FlatBuffers internals): a uoffset is a uint32 that
 * points forward from its own position; a table starts with an int32 soffset
 * and its vtable lies at table - soffset; a vtable is uint16 entries [vtable
 * size in bytes, inline size, field 0, field 1, ...] where 0 means absent;
 * strings and vectors start with a uint32 count. Every range check is written
 * as `len <= size && pos <= size - len` so that nothing overflows.
 */
#include "runtime/model/flatbuffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* FlatBuffers stores scalars little-endian; reading them with memcpy is only
 * right on a little-endian host. */
#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__)
#error "litegpu needs a compiler that defines __BYTE_ORDER__"
#endif
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the FlatBuffer reader needs a little-endian host");

static bool lg_fb_fail(lg_fb_verifier* v, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

/* Records the message of a failed check; always returns false so callers can
 * `return lg_fb_fail(...)`. */
static bool lg_fb_fail(lg_fb_verifier* v, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(v->error, sizeof(v->error), format, args);
  va_end(args);
  return false;
}

static bool lg_fb_in_bounds(size_t size, size_t pos, size_t len) {
  return len <= size && pos <= size - len;
}

static uint16_t lg_fb_read_u16(const uint8_t* buf, size_t pos) {
  uint16_t value;
  memcpy(&value, buf + pos, sizeof(value));
  return value;
}

static uint32_t lg_fb_read_u32(const uint8_t* buf, size_t pos) {
  uint32_t value;
  memcpy(&value, buf + pos, sizeof(value));
  return value;
}

void lg_fb_verifier_init(lg_fb_verifier* v, const uint8_t* buf, size_t size) {
  v->buf = buf;
  /* FlatBuffers' verifier requires size < max_size; TFLite truncates the
   * buffer to max_size - 1 before verifying, and so do we. */
  v->size = size < LG_FB_MAX_BUFFER_SIZE ? size : LG_FB_MAX_BUFFER_SIZE - 1;
  v->num_tables = 0;
  v->error[0] = '\0';
}

bool lg_fb_buffer_has_identifier(const uint8_t* buf, size_t size,
                                 const char* identifier) {
  return buf != NULL && size >= 8 && memcmp(buf + 4, identifier, 4) == 0;
}

/* Checks the uoffset stored at `pos` and returns its target in *target. */
static bool lg_fb_follow(lg_fb_verifier* v, size_t pos, size_t* target) {
  if (pos % 4 != 0) {
    return lg_fb_fail(v, "offset at byte %zu is not 4-byte aligned", pos);
  }
  if (!lg_fb_in_bounds(v->size, pos, 4)) {
    return lg_fb_fail(v,
                      "offset at byte %zu lies outside the buffer (%zu "
                      "bytes)",
                      pos, v->size);
  }
  uint32_t value = lg_fb_read_u32(v->buf, pos);
  if (value == 0) {
    return lg_fb_fail(v, "offset at byte %zu is zero", pos);
  }
  if (value > (uint32_t)INT32_MAX) {
    return lg_fb_fail(v, "offset at byte %zu is negative as int32 (%u)", pos,
                      value);
  }
  if (!lg_fb_in_bounds(v->size, pos, (size_t)value + 1)) {
    return lg_fb_fail(v,
                      "offset %u at byte %zu points outside the buffer "
                      "(%zu bytes)",
                      value, pos, v->size);
  }
  *target = pos + value;
  return true;
}

bool lg_fb_root(lg_fb_verifier* v, lg_fb_table* root) {
  size_t pos;
  memset(root, 0, sizeof(*root));
  if (v->buf == NULL || v->size < 12) {
    return lg_fb_fail(v,
                      "buffer of %zu bytes is smaller than the 12-byte "
                      "minimum",
                      v->buf == NULL ? 0 : v->size);
  }
  if (!lg_fb_follow(v, 0, &pos)) {
    char inner[sizeof(v->error)];
    memcpy(inner, v->error, sizeof(inner));
    return lg_fb_fail(v, "root %s", inner);
  }
  return lg_fb_table_verify(v, pos, 1, root);
}

/* FlatBuffers' VerifyComplexity: bounded nesting and table count stop
 * malicious buffers from making verification unbounded. */
static bool lg_fb_count_table(lg_fb_verifier* v, size_t pos, int depth) {
  if (depth > LG_FB_MAX_DEPTH) {
    return lg_fb_fail(v, "table at byte %zu is nested %d deep, more than %d",
                      pos, depth, LG_FB_MAX_DEPTH);
  }
  if (v->num_tables >= LG_FB_MAX_TABLES) {
    return lg_fb_fail(v, "buffer holds more than %d tables", LG_FB_MAX_TABLES);
  }
  v->num_tables++;
  return true;
}

bool lg_fb_table_verify(lg_fb_verifier* v, size_t pos, int depth,
                        lg_fb_table* out) {
  memset(out, 0, sizeof(*out));
  if (pos % 4 != 0 || !lg_fb_in_bounds(v->size, pos, 4)) {
    return lg_fb_fail(v,
                      "table at byte %zu is misaligned or outside the "
                      "buffer (%zu bytes)",
                      pos, v->size);
  }
  if (!lg_fb_count_table(v, pos, depth)) return false;
  int32_t soffset;
  memcpy(&soffset, v->buf + pos, sizeof(soffset));
  /* vtable = table - soffset, computed wide so that no value wraps. */
  int64_t vtable = (int64_t)pos - (int64_t)soffset;
  if (vtable < 0 || !lg_fb_in_bounds(v->size, (size_t)vtable, 2)) {
    return lg_fb_fail(v,
                      "table at byte %zu: vtable at byte %lld lies outside "
                      "the buffer (%zu bytes)",
                      pos, (long long)vtable, v->size);
  }
  if (vtable % 2 != 0) {
    return lg_fb_fail(v,
                      "table at byte %zu: vtable at byte %lld is not "
                      "2-byte aligned",
                      pos, (long long)vtable);
  }
  uint16_t vtable_size = lg_fb_read_u16(v->buf, (size_t)vtable);
  if (vtable_size % 2 != 0) {
    return lg_fb_fail(v, "table at byte %zu: vtable size %u is odd", pos,
                      vtable_size);
  }
  if (!lg_fb_in_bounds(v->size, (size_t)vtable, vtable_size)) {
    return lg_fb_fail(v,
                      "table at byte %zu: vtable of %u bytes at byte %lld "
                      "runs past the end of the buffer (%zu bytes)",
                      pos, vtable_size, (long long)vtable, v->size);
  }
  *out = (lg_fb_table){.buf = v->buf,
                       .size = v->size,
                       .pos = pos,
                       .vtable = (size_t)vtable,
                       .vtable_size = vtable_size,
                       .depth = depth};
  return true;
}

size_t lg_fb_table_field(const lg_fb_table* t, uint16_t id) {
  if (t == NULL || t->pos == 0) return 0;
  size_t entry = 4 + 2 * (size_t)id;
  /* The vtable was verified in bounds, so any entry below its size is. */
  if (entry + 2 > t->vtable_size) return 0;
  uint16_t offset = lg_fb_read_u16(t->buf, t->vtable + entry);
  return offset == 0 ? 0 : t->pos + offset;
}

/* Copies the `width`-byte scalar of field `id` into `out`, or leaves `out`
 * alone when the field is absent. */
static bool lg_fb_scalar(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                         size_t width, void* out) {
  size_t pos = lg_fb_table_field(t, id);
  if (pos == 0) return true;
  if (!lg_fb_in_bounds(t->size, pos, width)) {
    return lg_fb_fail(v,
                      "field %u of the table at byte %zu: %zu-byte value "
                      "at byte %zu lies outside the buffer (%zu bytes)",
                      id, t->pos, width, pos, t->size);
  }
  if (pos % width != 0) {
    return lg_fb_fail(v,
                      "field %u of the table at byte %zu: %zu-byte value "
                      "at byte %zu is misaligned",
                      id, t->pos, width, pos);
  }
  memcpy(out, t->buf + pos, width);
  return true;
}

bool lg_fb_table_bool(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                      bool def, bool* out) {
  uint8_t raw = def ? 1 : 0;
  if (!lg_fb_scalar(v, t, id, 1, &raw)) return false;
  *out = raw != 0;
  return true;
}

bool lg_fb_table_u8(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                    uint8_t def, uint8_t* out) {
  *out = def;
  return lg_fb_scalar(v, t, id, sizeof(*out), out);
}

bool lg_fb_table_i8(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                    int8_t def, int8_t* out) {
  *out = def;
  return lg_fb_scalar(v, t, id, sizeof(*out), out);
}

bool lg_fb_table_i32(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     int32_t def, int32_t* out) {
  *out = def;
  return lg_fb_scalar(v, t, id, sizeof(*out), out);
}

bool lg_fb_table_u32(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     uint32_t def, uint32_t* out) {
  *out = def;
  return lg_fb_scalar(v, t, id, sizeof(*out), out);
}

bool lg_fb_table_u64(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     uint64_t def, uint64_t* out) {
  *out = def;
  return lg_fb_scalar(v, t, id, sizeof(*out), out);
}

bool lg_fb_table_f32(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     float def, float* out) {
  *out = def;
  return lg_fb_scalar(v, t, id, sizeof(*out), out);
}

/* Follows the offset in field `id`; *target is 0 when the field is absent. */
static bool lg_fb_field_target(lg_fb_verifier* v, const lg_fb_table* t,
                               uint16_t id, size_t* target) {
  *target = 0;
  size_t pos = lg_fb_table_field(t, id);
  if (pos == 0) return true;
  if (!lg_fb_follow(v, pos, target)) {
    char inner[sizeof(v->error)];
    memcpy(inner, v->error, sizeof(inner));
    return lg_fb_fail(v, "field %u of the table at byte %zu: %s", id, t->pos,
                      inner);
  }
  return true;
}

bool lg_fb_table_table(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                       lg_fb_table* out) {
  size_t target;
  memset(out, 0, sizeof(*out));
  if (!lg_fb_field_target(v, t, id, &target)) return false;
  if (target == 0) return true;
  return lg_fb_table_verify(v, target, t->depth + 1, out);
}

/* Verifies the count and extent of a vector (or string) whose count field is
 * at `pos`: FlatBuffers' VerifyVectorOrString. */
static bool lg_fb_vector_at(lg_fb_verifier* v, size_t pos, size_t elem_size,
                            uint32_t* count) {
  if (pos % 4 != 0 || !lg_fb_in_bounds(v->size, pos, 4)) {
    return lg_fb_fail(v,
                      "vector at byte %zu: length field is misaligned or "
                      "outside the buffer (%zu bytes)",
                      pos, v->size);
  }
  *count = lg_fb_read_u32(v->buf, pos);
  if (*count >= LG_FB_MAX_BUFFER_SIZE / elem_size) {
    return lg_fb_fail(v,
                      "vector at byte %zu: %u elements of %zu bytes "
                      "overflow the %zu-byte size limit",
                      pos, *count, elem_size, LG_FB_MAX_BUFFER_SIZE);
  }
  size_t bytes = 4 + (size_t)*count * elem_size;
  if (!lg_fb_in_bounds(v->size, pos, bytes)) {
    return lg_fb_fail(v,
                      "vector at byte %zu: %u elements of %zu bytes run "
                      "past the end of the buffer (%zu bytes)",
                      pos, *count, elem_size, v->size);
  }
  /* Elements follow the 4-byte count; 8-byte scalars need the count at 4
   * modulo 8. FlatBuffers leaves this unchecked but writers always align. */
  if (elem_size == 8 && (pos + 4) % 8 != 0) {
    return lg_fb_fail(v,
                      "vector at byte %zu: 8-byte elements are not 8-byte "
                      "aligned",
                      pos);
  }
  return true;
}

/* Verifies the string whose length field is at `pos`. */
static bool lg_fb_string_at(lg_fb_verifier* v, size_t pos, const char** out,
                            uint32_t* len) {
  uint32_t count = 0;
  if (!lg_fb_vector_at(v, pos, 1, &count)) {
    char inner[sizeof(v->error)];
    memcpy(inner, v->error, sizeof(inner));
    return lg_fb_fail(v, "string: %s", inner);
  }
  size_t end = pos + 4 + count;
  if (!lg_fb_in_bounds(v->size, end, 1) || v->buf[end] != '\0') {
    return lg_fb_fail(v,
                      "string at byte %zu (length %u) has no NUL "
                      "terminator",
                      pos, count);
  }
  *out = (const char*)(v->buf + pos + 4);
  if (len != NULL) *len = count;
  return true;
}

bool lg_fb_table_string(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                        const char** out, uint32_t* len) {
  size_t target;
  *out = NULL;
  if (len != NULL) *len = 0;
  if (!lg_fb_field_target(v, t, id, &target)) return false;
  if (target == 0) return true;
  return lg_fb_string_at(v, target, out, len);
}

bool lg_fb_table_vector(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                        size_t elem_size, lg_fb_vector* out) {
  size_t target;
  uint32_t count = 0;
  memset(out, 0, sizeof(*out));
  out->buf = t->buf;
  out->size = t->size;
  out->elem_size = elem_size;
  out->depth = t->depth;
  if (elem_size == 0 || elem_size > 8) {
    return lg_fb_fail(v, "vector element size %zu is not supported", elem_size);
  }
  if (!lg_fb_field_target(v, t, id, &target)) return false;
  if (target == 0) return true;
  if (!lg_fb_vector_at(v, target, elem_size, &count)) return false;
  out->pos = target + 4;
  out->count = count;
  out->present = true;
  return true;
}

bool lg_fb_table_union(lg_fb_verifier* v, const lg_fb_table* t,
                       uint16_t type_id, uint8_t* type, lg_fb_table* value) {
  memset(value, 0, sizeof(*value));
  if (!lg_fb_table_u8(v, t, type_id, 0, type)) return false;
  /* NONE carries no value, so FlatBuffers does not look at the offset. */
  if (*type == 0) return true;
  return lg_fb_table_table(v, t, (uint16_t)(type_id + 1), value);
}

/* Follows the offset stored in element `index` of an offset vector. */
static bool lg_fb_vector_target(lg_fb_verifier* v, const lg_fb_vector* vec,
                                uint32_t index, size_t* target) {
  if (!vec->present || index >= vec->count || vec->elem_size != 4) {
    return lg_fb_fail(v,
                      "element %u of a vector of %u offsets does not "
                      "exist",
                      index, vec->count);
  }
  return lg_fb_follow(v, vec->pos + 4 * (size_t)index, target);
}

bool lg_fb_vector_table(lg_fb_verifier* v, const lg_fb_vector* vec,
                        uint32_t index, lg_fb_table* out) {
  size_t target;
  memset(out, 0, sizeof(*out));
  if (!lg_fb_vector_target(v, vec, index, &target)) return false;
  return lg_fb_table_verify(v, target, vec->depth + 1, out);
}

bool lg_fb_vector_string(lg_fb_verifier* v, const lg_fb_vector* vec,
                         uint32_t index, const char** out, uint32_t* len) {
  size_t target;
  *out = NULL;
  if (len != NULL) *len = 0;
  if (!lg_fb_vector_target(v, vec, index, &target)) return false;
  return lg_fb_string_at(v, target, out, len);
}

const void* lg_fb_vector_data(const lg_fb_vector* vec) {
  return vec->present ? vec->buf + vec->pos : NULL;
}
