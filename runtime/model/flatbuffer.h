/* Bounds-checked access to FlatBuffer data (the .tflite container).
 *
 * Every function here checks what it reads against the buffer before reading
 * it: offsets (4-aligned, non-zero, target inside), vtables (in bounds, even
 * size), scalars (in bounds, aligned to their size), strings (length in
 * bounds, NUL present) and vectors (4-aligned length, aligned elements, size
 * free of overflow and in bounds). It also enforces the limits of
 * FlatBuffers' own verifier: tables nest at most LG_FB_MAX_DEPTH deep and a
 * buffer holds at most LG_FB_MAX_TABLES tables. A failed check returns false
 * and leaves a message in lg_fb_verifier.error that names the problem and its
 * byte position; nothing outside [buf, buf + size) is ever read.
 *
 * Alignment is checked relative to the buffer start. Pointers handed out as
 * typed data (vector elements) are only aligned in memory when the buffer is,
 * so callers align the buffer (the model loader copies a misaligned one).
 * The host must be little-endian (checked at compile time in flatbuffer.c).
 *
 * Ownership: nothing here allocates; tables, vectors and strings point into
 * the caller's buffer, which must outlive them.
 * Thread safety: a verifier belongs to one thread; tables and vectors are
 * plain values that any thread may read.
 *
 * Use:
 *   lg_fb_verifier v;
 *   lg_fb_table root;
 *   uint32_t version;
 *   lg_fb_verifier_init(&v, data, size);
 *   if (!lg_fb_root(&v, &root) ||
 *       !lg_fb_table_u32(&v, &root, 0, 0, &version))
 *     report("%s", v.error);
 */
#ifndef LITEGPU_RUNTIME_MODEL_FLATBUFFER_H_
#define LITEGPU_RUNTIME_MODEL_FLATBUFFER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FlatBuffers' verifier limits (max_depth, max_tables, max_size). */
#define LG_FB_MAX_DEPTH 64
#define LG_FB_MAX_TABLES 1000000
#define LG_FB_MAX_BUFFER_SIZE ((size_t)0x7fffffff)

/* A verified table inside a buffer. pos == 0 means the table is absent. */
typedef struct lg_fb_table {
  const uint8_t* buf; /* the whole buffer */
  size_t size;
  size_t pos;    /* table start */
  size_t vtable; /* vtable start */
  uint16_t vtable_size;
  int depth; /* nesting depth: 1 for the root table */
} lg_fb_table;

/* A verified vector. When absent: present is false, count 0, pos 0. */
typedef struct lg_fb_vector {
  const uint8_t* buf;
  size_t size;
  size_t pos; /* first element */
  uint32_t count;
  size_t elem_size;
  int depth; /* depth of the table that holds the vector */
  bool present;
} lg_fb_vector;

/* Verification state: the (size-limited) buffer, the table count and the
 * message of the last failed check. */
typedef struct lg_fb_verifier {
  const uint8_t* buf;
  size_t size; /* truncated below LG_FB_MAX_BUFFER_SIZE */
  size_t num_tables;
  char error[200];
} lg_fb_verifier;

/* Starts verifying `size` bytes at `buf`. Sizes from LG_FB_MAX_BUFFER_SIZE
 * up are truncated as FlatBuffers does: nothing past it is reachable through
 * an offset. */
void lg_fb_verifier_init(lg_fb_verifier* v, const uint8_t* buf, size_t size);

/* Whether bytes 4..7 of the buffer are `identifier` (4 characters). */
bool lg_fb_buffer_has_identifier(const uint8_t* buf, size_t size,
                                 const char* identifier);

/* Verifies the root offset and the root table's header. */
bool lg_fb_root(lg_fb_verifier* v, lg_fb_table* root);

/* Verifies the header of a table starting at `pos` (soffset, vtable) at
 * nesting depth `depth`, counting it against LG_FB_MAX_TABLES. */
bool lg_fb_table_verify(lg_fb_verifier* v, size_t pos, int depth,
                        lg_fb_table* out);

/* The byte position of field `id` of `t`, or 0 when the field is absent
 * (outside the vtable or a zero entry). Nothing at that position is checked. */
size_t lg_fb_table_field(const lg_fb_table* t, uint16_t id);

/* Scalar fields: *out is `def` when the field is absent. False when the
 * field's bytes fall outside the buffer or are misaligned. */
bool lg_fb_table_bool(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                      bool def, bool* out);
bool lg_fb_table_u8(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                    uint8_t def, uint8_t* out);
bool lg_fb_table_i8(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                    int8_t def, int8_t* out);
bool lg_fb_table_i32(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     int32_t def, int32_t* out);
bool lg_fb_table_u32(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     uint32_t def, uint32_t* out);
bool lg_fb_table_u64(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     uint64_t def, uint64_t* out);
bool lg_fb_table_f32(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                     float def, float* out);

/* A sub-table field; out->pos is 0 when absent. */
bool lg_fb_table_table(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                       lg_fb_table* out);

/* A string field: *out is NULL (and *len 0) when absent. `len` may be NULL.
 * The string is NUL-terminated; it may also hold NULs inside. */
bool lg_fb_table_string(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                        const char** out, uint32_t* len);

/* A vector field of `elem_size`-byte elements (scalars: 1, 2, 4 or 8 bytes,
 * aligned to their size; offsets to tables or strings: 4). */
bool lg_fb_table_vector(lg_fb_verifier* v, const lg_fb_table* t, uint16_t id,
                        size_t elem_size, lg_fb_vector* out);

/* A union: the `type_id` field (ubyte, 0 = NONE) and the table in field
 * type_id + 1. *type is 0 and value->pos 0 when absent; a type without a
 * value is allowed (as in FlatBuffers) and gives value->pos 0. Every member
 * is verified as a table, whatever its type. */
bool lg_fb_table_union(lg_fb_verifier* v, const lg_fb_table* t,
                       uint16_t type_id, uint8_t* type, lg_fb_table* value);

/* Element `index` (< count) of a vector of tables. */
bool lg_fb_vector_table(lg_fb_verifier* v, const lg_fb_vector* vec,
                        uint32_t index, lg_fb_table* out);

/* Element `index` (< count) of a vector of strings. `len` may be NULL. */
bool lg_fb_vector_string(lg_fb_verifier* v, const lg_fb_vector* vec,
                         uint32_t index, const char** out, uint32_t* len);

/* The first element of a verified vector; NULL when absent. */
const void* lg_fb_vector_data(const lg_fb_vector* vec);

#endif /* LITEGPU_RUNTIME_MODEL_FLATBUFFER_H_ */
