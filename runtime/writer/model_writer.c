/* The model writer (see model_writer.h).
 *
 * Two halves: the add_* calls validate and copy what they are given into
 * plain structs (small pieces in an arena freed at destroy), and the emitter
 * turns those structs into FlatBuffer bytes when the model is finished.
 *
 * Layout strategy: front to back, parent before children. Each object is
 * appended at the current end: a table is written as its vtable immediately
 * followed by the table (so the soffset is the vtable size, positive), with
 * its offset fields zeroed; then its children are written, depth first, and
 * each offset field is patched with child - field. Children always follow
 * their parent, so every uoffset points forward as FlatBuffers requires.
 * Scalars are aligned to their size from the start of the buffer; vectors
 * are padded so that their elements are aligned (16 for Buffer.data, its
 * force_align); tables are aligned to their largest field. Vtables are not
 * shared: that would save a few bytes per table at the cost of a lookup.
 *
 * The emitter runs twice over the same structs: a measuring pass that only
 * advances the position, then the real pass into a block of exactly that
 * size. The layout depends only on positions, so both passes agree, the
 * output is allocated once and each constant buffer is copied once, straight
 * from its source into the output (or, for external buffers written to a
 * file, not copied at all). Knowing the FlatBuffer's size before writing it
 * also lets external buffer offsets be written directly, with no patching.
 *
 * The model's buffers vector is written right after the Model table, before
 * the operator codes, subgraphs and metadata, so constant data never ends
 * the file: kernels that read a few bytes past a weight (XNNPACK does) stay
 * inside the mapping. External buffers are followed by 16 zero bytes for the
 * same reason, as TFLite's exporter does.
 */
#include "runtime/writer/model_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"
#include "versioning/op_version.h"
#include "versioning/runtime_version.h"

enum {
  LG_SCHEMA_VERSION = 3,
  LG_DATA_ALIGN = 16,           /* Buffer.data force_align; external pieces */
  LG_DEPRECATED_CODE_MAX = 127, /* deprecated_builtin_code is a byte */
  LG_TABLE_MAX_FIELDS = 32,
  LG_TABLE_MAX_ID = 63,
  LG_MIN_RUNTIME_BYTES = 16,
  LG_ARENA_CHUNK = 64 * 1024,
  LG_ERROR_SIZE = 256,
  LG_TAIL_PADDING = 16, /* zeros after external buffers, for over-reads */
};

/* Option int vectors are copied from the params' int arrays as [int]. */
_Static_assert(sizeof(int) == sizeof(int32_t), "int is the schema's int");

/* FlatBuffers' limit: offsets are 32-bit and must be positive as int32. */
#define LG_FLATBUFFER_MAX ((size_t)0x7FFFFFFF)

static const char kMinRuntimeVersionName[] = "min_runtime_version";
static const char kBufferLocationName[] = "buffer_location";
static const char kBufferLocationValue[] = "outside flatbuffers";

/* ---- Stored model ------------------------------------------------------ */

typedef struct lg_wblock {
  struct lg_wblock* next;
  size_t used;
  size_t cap;
  max_align_t data[];
} lg_wblock;

typedef struct lg_wbuffer {
  const uint8_t* data;
  size_t size;
  bool constant; /* tensor data: may be stored after the FlatBuffer */
} lg_wbuffer;

typedef struct lg_wtensor {
  const char* name;
  int8_t schema_type;
  const int32_t* shape;
  int32_t num_dims;
  const int32_t* shape_signature; /* NULL when absent */
  uint32_t buffer;
  bool is_variable;
  bool has_rank;
  const lg_writer_quantization* quantization; /* arena copy, or NULL */
  const lg_writer_sparsity* sparsity;         /* arena copy, or NULL */
} lg_wtensor;

/* One non-default field of an options table, already in schema form. */
typedef struct lg_wopt {
  uint16_t id;
  uint8_t size;         /* inline bytes; 0 for an int vector */
  uint64_t bits;        /* little-endian scalar value */
  const int32_t* vec;   /* INT32_VECTOR; a FLOAT_VECTOR as its bits */
  const int64_t* vec64; /* INT64_ARRAY (then vec is NULL) */
  const char* str;      /* STRING (then vec and vec64 are NULL) */
  const uint8_t* bytes; /* BYTES, bytes_len of them */
  size_t bytes_len;
  int32_t vec_len;
} lg_wopt;

typedef struct lg_wop {
  uint32_t opcode;
  const int32_t* inputs;
  int32_t num_inputs;
  const int32_t* outputs;
  int32_t num_outputs;
  uint8_t options_type; /* BuiltinOptions union index, 0 = no table */
  bool options_2;       /* the table goes to builtin_options_2 */
  const lg_wopt* options;
  int32_t num_options;
  const uint8_t* custom;
  size_t custom_size;
} lg_wop;

typedef struct lg_wsubgraph {
  const char* name;
  lg_wtensor* tensors;
  int32_t num_tensors, cap_tensors;
  lg_wop* ops;
  int32_t num_ops, cap_ops;
  const int32_t* inputs;
  int32_t num_inputs;
  const int32_t* outputs;
  int32_t num_outputs;
} lg_wsubgraph;

typedef struct lg_wopcode {
  int32_t code;
  const char* custom; /* NULL for builtins */
  int32_t version;
} lg_wopcode;

typedef struct lg_wmetadata {
  const char* name;
  uint32_t buffer;
} lg_wmetadata;

typedef struct lg_wsignature {
  const char* key;
  uint32_t subgraph;
  const lg_writer_tensor_map* inputs; /* arena copies */
  int32_t num_inputs;
  const lg_writer_tensor_map* outputs;
  int32_t num_outputs;
} lg_wsignature;

struct lg_model_writer {
  lg_reporter reporter;
  bool failed;
  char error[LG_ERROR_SIZE];
  lg_wblock* blocks;
  lg_wbuffer* buffers;
  int32_t num_buffers, cap_buffers;
  lg_wsubgraph* subgraphs;
  int32_t num_subgraphs, cap_subgraphs;
  int32_t current;
  lg_wopcode* opcodes;
  int32_t num_opcodes, cap_opcodes;
  lg_wmetadata* metadata;
  int32_t num_metadata, cap_metadata;
  lg_wsignature* signatures;
  int32_t num_signatures, cap_signatures;
  const char* description;
  bool external;
  bool auto_versions;        /* see lg_model_writer_set_auto_versions */
  bool min_runtime_explicit; /* set_min_runtime_version was called */
};

/* ---- Errors and memory ------------------------------------------------- */

static void lg_fail(lg_model_writer* w, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

/* Reports a failure and remembers the first one, which makes finish fail. */
static void lg_fail(lg_model_writer* w, const char* format, ...) {
  char msg[LG_ERROR_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(msg, sizeof(msg), format, args);
  va_end(args);
  lg_report(&w->reporter, "model writer: %s", msg);
  if (!w->failed) {
    w->failed = true;
    memcpy(w->error, msg, sizeof(msg));
  }
}

static size_t lg_align_up(size_t value, size_t align) {
  return (value + align - 1) / align * align;
}

/* Arena allocation: everything lives until lg_model_writer_destroy. Large
 * requests get a block of their own, linked behind the current one so the
 * current block's free space stays in use. */
static void* lg_alloc(lg_model_writer* w, size_t size) {
  if (size > SIZE_MAX / 2) goto fail;
  size = lg_align_up(size == 0 ? 1 : size, sizeof(max_align_t));
  lg_wblock* head = w->blocks;
  if (head != NULL && head->cap - head->used >= size) {
    void* p = (char*)head->data + head->used;
    head->used += size;
    return p;
  }
  size_t cap = size > LG_ARENA_CHUNK / 4 ? size : LG_ARENA_CHUNK;
  lg_wblock* block = malloc(sizeof(*block) + cap);
  if (block == NULL) goto fail;
  block->cap = cap;
  block->used = size;
  if (cap == size && head != NULL) {
    block->next = head->next;
    head->next = block;
  } else {
    block->next = head;
    w->blocks = block;
  }
  return block->data;
fail:
  lg_fail(w, "out of memory (%zu bytes)", size);
  return NULL;
}

/* A copy of `size` bytes; never NULL unless out of memory (an empty copy
 * points at a static object that is never read). */
static const void* lg_copy(lg_model_writer* w, const void* src, size_t size) {
  static const max_align_t empty;
  if (size == 0) return &empty;
  void* p = lg_alloc(w, size);
  if (p != NULL) memcpy(p, src, size);
  return p;
}

static const char* lg_strdup(lg_model_writer* w, const char* s) {
  return lg_copy(w, s, strlen(s) + 1);
}

/* `items` with room for element `count`; NULL (items kept) when out of
 * memory. Arrays of structs grow by doubling; the caller stores the result. */
static void* lg_reserve(lg_model_writer* w, void* items, int32_t* cap,
                        int32_t count, size_t elem) {
  if (count < *cap) return items;
  if (*cap > INT32_MAX / 4) goto fail;
  int32_t next = *cap > 0 ? *cap * 2 : 8;
  void* grown = realloc(items, (size_t)next * elem);
  if (grown == NULL) goto fail;
  *cap = next;
  return grown;
fail:
  lg_fail(w, "out of memory (%d items)", count + 1);
  return NULL;
}

static lg_wsubgraph* lg_current(lg_model_writer* w) {
  return &w->subgraphs[w->current];
}

/* ---- Creation ---------------------------------------------------------- */

static int32_t lg_push_buffer(lg_model_writer* w, const void* data, size_t size,
                              bool constant) {
  lg_wbuffer* b =
      lg_reserve(w, w->buffers, &w->cap_buffers, w->num_buffers, sizeof(*b));
  if (b == NULL) return -1;
  w->buffers = b;
  b[w->num_buffers] = (lg_wbuffer){data, size, constant};
  return w->num_buffers++;
}

lg_model_writer* lg_model_writer_create(const lg_reporter* reporter) {
  lg_model_writer* w = calloc(1, sizeof(*w));
  if (w == NULL) {
    lg_report(reporter, "model writer: out of memory");
    return NULL;
  }
  if (reporter != NULL) w->reporter = *reporter;
  /* Buffer 0 is the schema's empty sentinel; subgraph 0 the main graph. */
  if (lg_push_buffer(w, NULL, 0, false) < 0) goto fail;
  if (lg_model_writer_add_subgraph(w, NULL) < 0) goto fail;
  return w;
fail:
  lg_model_writer_destroy(w);
  return NULL;
}

void lg_model_writer_set_reporter(lg_model_writer* w,
                                  const lg_reporter* reporter) {
  w->reporter = reporter != NULL ? *reporter : (lg_reporter){NULL, NULL};
}

void lg_model_writer_destroy(lg_model_writer* w) {
  if (w == NULL) return;
  for (int32_t i = 0; i < w->num_subgraphs; ++i) {
    free(w->subgraphs[i].tensors);
    free(w->subgraphs[i].ops);
  }
  free(w->subgraphs);
  free(w->buffers);
  free(w->opcodes);
  free(w->metadata);
  free(w->signatures);
  while (w->blocks != NULL) {
    lg_wblock* next = w->blocks->next;
    free(w->blocks);
    w->blocks = next;
  }
  free(w);
}

const char* lg_model_writer_error(const lg_model_writer* w) {
  return w != NULL && w->failed ? w->error : NULL;
}

/* ---- Buffers and tensors ----------------------------------------------- */

static int32_t lg_add_buffer(lg_model_writer* w, const void* data, size_t size,
                             bool copy) {
  if (w == NULL) return -1;
  if (data == NULL && size > 0) {
    lg_fail(w, "add_buffer: NULL data for %zu bytes", size);
    return -1;
  }
  const void* stored = copy ? lg_copy(w, data, size) : data;
  if (stored == NULL && size > 0) return -1;
  return lg_push_buffer(w, stored, size, true);
}

int32_t lg_model_writer_add_buffer(lg_model_writer* w, const void* data,
                                   size_t size) {
  return lg_add_buffer(w, data, size, true);
}

int32_t lg_model_writer_add_buffer_ref(lg_model_writer* w, const void* data,
                                       size_t size) {
  return lg_add_buffer(w, data, size, false);
}

static const char* lg_name_or(const char* name) {
  return name != NULL ? name : "(unnamed)";
}

static TfLiteStatus lg_check_shape(lg_model_writer* w,
                                   const lg_writer_tensor* t) {
  const char* name = lg_name_or(t->name);
  if (t->num_dims < 0 || (t->num_dims > 0 && t->shape == NULL)) {
    lg_fail(w, "tensor '%s': bad shape (%d dims)", name, t->num_dims);
    return kTfLiteError;
  }
  for (int i = 0; i < t->num_dims; ++i) {
    if (t->shape[i] < 0) {
      lg_fail(w, "tensor '%s': dimension %d is %d", name, i, t->shape[i]);
      return kTfLiteError;
    }
    if (t->shape_signature != NULL && t->shape_signature[i] < -1) {
      lg_fail(w, "tensor '%s': shape_signature[%d] is %d", name, i,
              t->shape_signature[i]);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_check_quantization(lg_model_writer* w,
                                          const lg_writer_tensor* t) {
  const lg_writer_quantization* q = t->quantization;
  const char* name = lg_name_or(t->name);
  if (q->num_scale < 0 || q->num_zero_point < 0 || q->num_min < 0 ||
      q->num_max < 0 || (q->num_scale > 0 && q->scale == NULL) ||
      (q->num_zero_point > 0 && q->zero_point == NULL) ||
      (q->num_min > 0 && q->min == NULL) ||
      (q->num_max > 0 && q->max == NULL)) {
    lg_fail(w, "tensor '%s': bad quantization arrays", name);
    return kTfLiteError;
  }
  /* TFLite rejects a scale without a zero point of the same length. */
  if (q->num_scale > 0 && q->num_zero_point != q->num_scale) {
    lg_fail(w, "tensor '%s': %d scales but %d zero points", name, q->num_scale,
            q->num_zero_point);
    return kTfLiteError;
  }
  int32_t dim = q->quantized_dimension;
  if (dim < 0 || (q->num_scale > 1 && dim >= t->num_dims)) {
    lg_fail(w, "tensor '%s': quantized_dimension %d out of range", name, dim);
    return kTfLiteError;
  }
  if (q->num_scale > 1 && t->shape[dim] != q->num_scale) {
    lg_fail(w, "tensor '%s': %d scales for dimension %d of size %d", name,
            q->num_scale, dim, t->shape[dim]);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_check_sparsity(lg_model_writer* w,
                                      const lg_writer_tensor* t) {
  const lg_writer_sparsity* s = t->sparsity;
  bool ok = s->num_traversal_order >= 0 && s->num_block_map >= 0 &&
            s->num_levels >= 0 &&
            (s->num_traversal_order == 0 || s->traversal_order != NULL) &&
            (s->num_block_map == 0 || s->block_map != NULL) &&
            (s->num_levels == 0 || s->levels != NULL);
  for (int k = 0; ok && k < s->num_levels; ++k) {
    const lg_writer_sparse_level* l = &s->levels[k];
    ok = l->num_segments >= 0 && l->num_indices >= 0 &&
         (l->num_segments == 0 || l->segments != NULL) &&
         (l->num_indices == 0 || l->indices != NULL);
  }
  if (!ok) {
    lg_fail(w, "tensor '%s': bad sparsity arrays", lg_name_or(t->name));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_check_tensor(lg_model_writer* w,
                                    const lg_writer_tensor* t) {
  if (t == NULL) {
    lg_fail(w, "add_tensor: NULL tensor");
    return kTfLiteError;
  }
  if (t->type == kTfLiteNoType || lg_model_schema_tensor_type(t->type) < 0) {
    lg_fail(w, "tensor '%s': invalid type %d", lg_name_or(t->name),
            (int)t->type);
    return kTfLiteError;
  }
  if (t->buffer < 0 || t->buffer >= w->num_buffers) {
    lg_fail(w, "tensor '%s': bad buffer index %d (the model has %d)",
            lg_name_or(t->name), t->buffer, w->num_buffers);
    return kTfLiteError;
  }
  if (lg_check_shape(w, t) != kTfLiteOk) return kTfLiteError;
  if (t->sparsity != NULL && lg_check_sparsity(w, t) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (t->quantization != NULL) return lg_check_quantization(w, t);
  return kTfLiteOk;
}

static const lg_writer_quantization* lg_copy_quantization(
    lg_model_writer* w, const lg_writer_quantization* q) {
  lg_writer_quantization* c = lg_alloc(w, sizeof(*c));
  if (c == NULL) return NULL;
  *c = *q;
  c->scale = lg_copy(w, q->scale, sizeof(float) * (size_t)q->num_scale);
  c->zero_point =
      lg_copy(w, q->zero_point, sizeof(int64_t) * (size_t)q->num_zero_point);
  c->min = lg_copy(w, q->min, sizeof(float) * (size_t)q->num_min);
  c->max = lg_copy(w, q->max, sizeof(float) * (size_t)q->num_max);
  bool ok = c->scale && c->zero_point && c->min && c->max;
  return ok ? c : NULL;
}

static const lg_writer_sparsity* lg_copy_sparsity(lg_model_writer* w,
                                                  const lg_writer_sparsity* s) {
  lg_writer_sparsity* c = lg_alloc(w, sizeof(*c));
  lg_writer_sparse_level* levels =
      lg_alloc(w, sizeof(*levels) * (size_t)(s->num_levels + 1));
  if (c == NULL || levels == NULL) return NULL;
  *c = *s;
  c->traversal_order = lg_copy(
      w, s->traversal_order, sizeof(int32_t) * (size_t)s->num_traversal_order);
  c->block_map =
      lg_copy(w, s->block_map, sizeof(int32_t) * (size_t)s->num_block_map);
  c->levels = levels;
  bool ok = c->traversal_order != NULL && c->block_map != NULL;
  for (int k = 0; ok && k < s->num_levels; ++k) {
    levels[k] = s->levels[k];
    levels[k].segments =
        lg_copy(w, s->levels[k].segments,
                sizeof(int32_t) * (size_t)s->levels[k].num_segments);
    levels[k].indices =
        lg_copy(w, s->levels[k].indices,
                sizeof(int32_t) * (size_t)s->levels[k].num_indices);
    ok = levels[k].segments != NULL && levels[k].indices != NULL;
  }
  return ok ? c : NULL;
}

static TfLiteStatus lg_copy_tensor(lg_model_writer* w,
                                   const lg_writer_tensor* t, lg_wtensor* c) {
  size_t dims_bytes = sizeof(int32_t) * (size_t)t->num_dims;
  *c = (lg_wtensor){
      .schema_type = lg_model_schema_tensor_type(t->type),
      .num_dims = t->num_dims,
      .buffer = (uint32_t)t->buffer,
      .is_variable = t->is_variable,
      .has_rank = t->has_rank,
  };
  c->name = lg_strdup(w, t->name != NULL ? t->name : "");
  c->shape = lg_copy(w, t->shape, dims_bytes);
  if (c->name == NULL || c->shape == NULL) return kTfLiteError;
  if (t->shape_signature != NULL) {
    c->shape_signature = lg_copy(w, t->shape_signature, dims_bytes);
    if (c->shape_signature == NULL) return kTfLiteError;
  }
  if (t->quantization != NULL) {
    c->quantization = lg_copy_quantization(w, t->quantization);
    if (c->quantization == NULL) return kTfLiteError;
  }
  if (t->sparsity != NULL) {
    c->sparsity = lg_copy_sparsity(w, t->sparsity);
    if (c->sparsity == NULL) return kTfLiteError;
  }
  return kTfLiteOk;
}

int32_t lg_model_writer_add_tensor(lg_model_writer* w,
                                   const lg_writer_tensor* tensor) {
  if (w == NULL) return -1;
  lg_wtensor copy;
  if (lg_check_tensor(w, tensor) != kTfLiteOk) return -1;
  if (lg_copy_tensor(w, tensor, &copy) != kTfLiteOk) return -1;
  lg_wsubgraph* sg = lg_current(w);
  lg_wtensor* tensors = lg_reserve(w, sg->tensors, &sg->cap_tensors,
                                   sg->num_tensors, sizeof(*tensors));
  if (tensors == NULL) return -1;
  sg->tensors = tensors;
  tensors[sg->num_tensors] = copy;
  return sg->num_tensors++;
}

/* For fixed-size element types, `bytes` must match the shape. */
static TfLiteStatus lg_check_const_size(lg_model_writer* w, const char* name,
                                        TfLiteType type, const int32_t* shape,
                                        int num_dims, size_t bytes) {
  size_t elem = 0;
  if (TfLiteGetSizeOfType(type, &elem) != kTfLiteOk) return kTfLiteOk;
  size_t count = 1;
  for (int i = 0; i < num_dims && shape != NULL; ++i) {
    if (shape[i] < 0) return kTfLiteOk; /* add_tensor reports it */
    if (shape[i] > 0 && count > SIZE_MAX / (size_t)shape[i] / elem) {
      count = SIZE_MAX / elem;
      break;
    }
    count *= (size_t)shape[i];
  }
  if (count * elem == bytes) return kTfLiteOk;
  lg_fail(w, "tensor '%s': %zu bytes of data, but its shape holds %zu",
          lg_name_or(name), bytes, count * elem);
  return kTfLiteError;
}

int32_t lg_model_writer_add_const_tensor(lg_model_writer* w, const char* name,
                                         TfLiteType type, const int32_t* shape,
                                         int num_dims, const void* data,
                                         size_t bytes) {
  if (w == NULL) return -1;
  if (lg_check_const_size(w, name, type, shape, num_dims, bytes) != kTfLiteOk) {
    return -1;
  }
  int32_t buffer = lg_model_writer_add_buffer(w, data, bytes);
  if (buffer < 0) return -1;
  lg_writer_tensor t = {.name = name,
                        .type = type,
                        .shape = shape,
                        .num_dims = num_dims,
                        .buffer = buffer};
  return lg_model_writer_add_tensor(w, &t);
}

/* ---- Builtin options --------------------------------------------------- */

/* A params field as a number (bools and enums included). */
static double lg_option_read(const lg_option_field* f, const uint8_t* params) {
  if (f->kind == LG_OPTION_BOOL) {
    uint8_t b; /* read as a byte: any non-zero value means true */
    memcpy(&b, params + f->offset, sizeof(b));
    return b != 0;
  }
  if (f->kind == LG_OPTION_FLOAT) {
    float v;
    memcpy(&v, params + f->offset, sizeof(v));
    return v;
  }
  int v;
  memcpy(&v, params + f->offset, sizeof(v));
  return v;
}

/* The schema encoding of params value `v` for a field of `kind`: its bits
 * and inline size. False when the value has no schema equivalent. */
static bool lg_option_encode(lg_option_kind kind, double v, uint64_t* bits,
                             uint8_t* size) {
  int i = (int)v;
  *size = 1;
  switch (kind) {
    case LG_OPTION_BOOL:
      *bits = v != 0;
      return true;
    case LG_OPTION_INT32:
      *size = 4;
      *bits = (uint32_t)i;
      return true;
    case LG_OPTION_FLOAT: {
      float f = (float)v;
      uint32_t u;
      memcpy(&u, &f, sizeof(u));
      *size = 4;
      *bits = u;
      return true;
    }
    case LG_OPTION_PADDING: /* runtime Same=1/Valid=2, schema SAME=0/VALID=1 */
    case LG_OPTION_MIRROR_PAD:
      *bits = (uint64_t)(i - 1);
      return i == 1 || i == 2;
    case LG_OPTION_ACTIVATION: /* same numbers; Sigmoid has none */
      *bits = (uint64_t)i;
      return i >= kTfLiteActNone && i <= kTfLiteActSignBit;
    case LG_OPTION_FC_WEIGHTS_FORMAT:
      *bits = (uint64_t)i;
      return i == kTfLiteFullyConnectedWeightsFormatDefault ||
             i == kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8;
    case LG_OPTION_LSTM_KERNEL_TYPE: /* same numbers */
      *bits = (uint64_t)i;
      return i == kTfLiteLSTMFullKernel || i == kTfLiteLSTMBasicKernel;
    case LG_OPTION_COMBINER: /* same numbers */
      *bits = (uint64_t)i;
      return i >= kTfLiteCombinerTypeSum && i <= kTfLiteCombinerTypeSqrtn;
    case LG_OPTION_LSH_PROJECTION_TYPE: /* same numbers */
      *bits = (uint64_t)i;
      return i >= kTfLiteLshProjectionUnknown && i <= kTfLiteLshProjectionDense;
    case LG_OPTION_RNG_ALGORITHM: /* runtime Default=1.., schema DEFAULT=0.. */
      *bits = (uint64_t)(i - 1);
      return i >= kTfLiteRngAlgorithmDefault &&
             i <= kTfLiteRngAlgorithmThreefry;
    case LG_OPTION_TENSOR_TYPE: {
      int8_t s = lg_model_schema_tensor_type((TfLiteType)i);
      *bits = (uint8_t)s;
      return s >= 0;
    }
    default:
      return false;
  }
}

/* True when `v` encodes like the field's schema default (FlatBuffers writers
 * omit such fields). kTfLiteNoType stands for the default type. */
static bool lg_option_is_default(const lg_option_field* f, double v) {
  if (f->kind == LG_OPTION_FLOAT) return (float)v == (float)f->default_value;
  if (f->kind == LG_OPTION_TENSOR_TYPE && (int)v == kTfLiteNoType) return true;
  uint64_t bits, default_bits;
  uint8_t size;
  if (!lg_option_encode(f->kind, f->default_value, &default_bits, &size)) {
    return false;
  }
  return lg_option_encode(f->kind, v, &bits, &size) && bits == default_bits;
}

static TfLiteStatus lg_option_vector(lg_model_writer* w, const char* op,
                                     const lg_option_field* f,
                                     const uint8_t* params, lg_wopt* out) {
  int count;
  memcpy(&count, params + f->count_offset, sizeof(count));
  if (count < 0 || count > f->capacity) {
    lg_fail(w, "add_operator(%s): %s has %d entries (at most %d)", op, f->name,
            count, f->capacity);
    return kTfLiteError;
  }
  out->vec = lg_copy(w, params + f->offset, sizeof(int32_t) * (size_t)count);
  out->vec_len = count;
  return out->vec != NULL ? kTfLiteOk : kTfLiteError;
}

/* Converts one field; out->id stays 0xFFFF when the field is omitted. */
static TfLiteStatus lg_option_field_convert(lg_model_writer* w, const char* op,
                                            const lg_option_field* f,
                                            const uint8_t* params,
                                            lg_wopt* out) {
  out->id = 0xFFFF;
  if (f->field_id > LG_TABLE_MAX_ID) {
    lg_fail(w, "add_operator(%s): field %s has id %d", op, f->name,
            f->field_id);
    return kTfLiteError;
  }
  if (f->kind == LG_OPTION_INT32_VECTOR) {
    if (lg_option_vector(w, op, f, params, out) != kTfLiteOk) {
      return kTfLiteError;
    }
    if (out->vec_len > 0) out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_INT64_ARRAY) {
    /* Every element, zeros included: the params hold no count, and
     * LiteRT's StableHLO readers want all of an op's arrays present with
     * one length (its kernels read the first rank elements). */
    if (f->capacity <= 0) {
      lg_fail(w, "add_operator(%s): %s holds %d elements", op, f->name,
              f->capacity);
      return kTfLiteError;
    }
    out->vec64 =
        lg_copy(w, params + f->offset, sizeof(int64_t) * (size_t)f->capacity);
    if (out->vec64 == NULL) return kTfLiteError;
    out->vec_len = f->capacity;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_INT64_VECTOR) {
    int count;
    memcpy(&count, params + f->count_offset, sizeof(count));
    if (count < 0 || count > f->capacity) {
      lg_fail(w, "add_operator(%s): %s has %d entries (at most %d)", op,
              f->name, count, f->capacity);
      return kTfLiteError;
    }
    if (count == 0) return kTfLiteOk;
    out->vec64 =
        lg_copy(w, params + f->offset, sizeof(int64_t) * (size_t)count);
    if (out->vec64 == NULL) return kTfLiteError;
    out->vec_len = count;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_LONG) {
    int64_t value;
    memcpy(&value, params + f->offset, sizeof(value));
    if (value == (int64_t)f->default_value) return kTfLiteOk;
    out->bits = (uint64_t)value;
    out->size = 8;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_FLOAT_VECTOR) {
    /* Written as the vector of their bits: one 4-byte element each. */
    const float* data;
    int count;
    memcpy(&data, params + f->offset, sizeof(data));
    memcpy(&count, params + f->count_offset, sizeof(count));
    if (count < 0 || (count > 0 && data == NULL)) {
      lg_fail(w, "add_operator(%s): %s has %d entries and %s", op, f->name,
              count, data == NULL ? "no data" : "a negative count");
      return kTfLiteError;
    }
    if (count == 0) return kTfLiteOk;
    out->vec = lg_copy(w, data, sizeof(float) * (size_t)count);
    if (out->vec == NULL) return kTfLiteError;
    out->vec_len = count;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_BYTES) {
    const uint8_t* data;
    size_t count;
    memcpy(&data, params + f->offset, sizeof(data));
    memcpy(&count, params + f->count_offset, sizeof(count));
    if (count == 0) return kTfLiteOk;
    if (data == NULL || count > INT32_MAX) {
      lg_fail(w, "add_operator(%s): %s has %zu bytes and %s", op, f->name,
              count, data == NULL ? "no data" : "too many");
      return kTfLiteError;
    }
    out->bytes = lg_copy(w, data, count);
    if (out->bytes == NULL) return kTfLiteError;
    out->bytes_len = count;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_STRING) {
    const char* text;
    memcpy(&text, params + f->offset, sizeof(text));
    if (text == NULL || text[0] == '\0') return kTfLiteOk; /* the default */
    out->str = lg_strdup(w, text);
    if (out->str == NULL) return kTfLiteError;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  if (f->kind == LG_OPTION_INT64) {
    /* The params' int, sign-extended to the schema's long. */
    int value;
    memcpy(&value, params + f->offset, sizeof(value));
    if (value == (int)f->default_value) return kTfLiteOk;
    out->bits = (uint64_t)(int64_t)value;
    out->size = 8;
    out->id = f->field_id;
    return kTfLiteOk;
  }
  double v = lg_option_read(f, params);
  if (lg_option_is_default(f, v)) return kTfLiteOk;
  if (!lg_option_encode(f->kind, v, &out->bits, &out->size)) {
    lg_fail(w, "add_operator(%s): %s = %d has no schema value", op, f->name,
            (int)v);
    return kTfLiteError;
  }
  out->id = f->field_id;
  return kTfLiteOk;
}

/* Fills op->options from `params` (NULL: every field at its default). */
static TfLiteStatus lg_convert_options(lg_model_writer* w, int32_t code,
                                       const void* params, lg_wop* op) {
  const char* name = lg_builtin_op_name(code);
  const lg_builtin_options_desc* d = lg_builtin_options_find(code);
  if (d == NULL) {
    if (params == NULL) return kTfLiteOk;
    lg_fail(w, "add_operator(%s): the op takes no params", name);
    return kTfLiteError;
  }
  op->options_type = d->options_type;
  op->options_2 = d->in_options_2;
  if (params == NULL || d->num_fields == 0) return kTfLiteOk;
  if (d->num_fields > LG_TABLE_MAX_FIELDS) {
    lg_fail(w, "add_operator(%s): %d option fields", name, d->num_fields);
    return kTfLiteError;
  }
  lg_wopt* opts = lg_alloc(w, sizeof(*opts) * (size_t)d->num_fields);
  if (opts == NULL) return kTfLiteError;
  for (int i = 0; i < d->num_fields; ++i) {
    lg_wopt* o = &opts[op->num_options];
    *o = (lg_wopt){0};
    if (lg_option_field_convert(w, name, &d->fields[i], params, o) !=
        kTfLiteOk) {
      return kTfLiteError;
    }
    if (o->id != 0xFFFF) op->num_options++;
  }
  op->options = opts;
  return kTfLiteOk;
}

/* ---- Operators ----------------------------------------------------------- */

static int32_t lg_find_opcode(lg_model_writer* w, int32_t code,
                              const char* custom, int32_t version) {
  for (int32_t i = 0; i < w->num_opcodes; ++i) {
    const lg_wopcode* c = &w->opcodes[i];
    bool same_custom =
        (c->custom == NULL && custom == NULL) ||
        (c->custom != NULL && custom != NULL && strcmp(c->custom, custom) == 0);
    if (c->code == code && c->version == version && same_custom) return i;
  }
  lg_wopcode* codes = lg_reserve(w, w->opcodes, &w->cap_opcodes, w->num_opcodes,
                                 sizeof(*codes));
  if (codes == NULL) return -1;
  w->opcodes = codes;
  const char* stored = custom != NULL ? lg_strdup(w, custom) : NULL;
  if (custom != NULL && stored == NULL) return -1;
  codes[w->num_opcodes] = (lg_wopcode){code, stored, version};
  return w->num_opcodes++;
}

/* Checks tensor indices of the current subgraph; -1 allowed for inputs. */
static TfLiteStatus lg_check_indices(lg_model_writer* w, const char* what,
                                     const int32_t* indices, int count,
                                     bool optional) {
  int32_t num_tensors = lg_current(w)->num_tensors;
  if (count < 0 || (count > 0 && indices == NULL)) {
    lg_fail(w, "%s: bad tensor list (%d entries)", what, count);
    return kTfLiteError;
  }
  for (int i = 0; i < count; ++i) {
    int32_t t = indices[i];
    if ((t < 0 || t >= num_tensors) && !(optional && t == -1)) {
      lg_fail(w,
              "%s: bad tensor index %d at position %d (subgraph %d has %d "
              "tensors)",
              what, t, i, w->current, num_tensors);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static int32_t lg_append_operator(lg_model_writer* w, const char* what,
                                  int32_t code, const char* custom, int version,
                                  const int32_t* inputs, int num_inputs,
                                  const int32_t* outputs, int num_outputs,
                                  lg_wop* op) {
  if (version < 1) {
    lg_fail(w, "%s: version %d (versions start at 1)", what, version);
    return -1;
  }
  if (lg_check_indices(w, what, inputs, num_inputs, true) != kTfLiteOk ||
      lg_check_indices(w, what, outputs, num_outputs, false) != kTfLiteOk) {
    return -1;
  }
  op->inputs = lg_copy(w, inputs, sizeof(int32_t) * (size_t)num_inputs);
  op->outputs = lg_copy(w, outputs, sizeof(int32_t) * (size_t)num_outputs);
  int32_t opcode = lg_find_opcode(w, code, custom, version);
  if (op->inputs == NULL || op->outputs == NULL || opcode < 0) return -1;
  op->opcode = (uint32_t)opcode;
  op->num_inputs = num_inputs;
  op->num_outputs = num_outputs;
  lg_wsubgraph* sg = lg_current(w);
  lg_wop* ops = lg_reserve(w, sg->ops, &sg->cap_ops, sg->num_ops, sizeof(*ops));
  if (ops == NULL) return -1;
  sg->ops = ops;
  ops[sg->num_ops] = *op;
  return sg->num_ops++;
}

/* ---- Auto versions ------------------------------------------------------- */

void lg_model_writer_set_auto_versions(lg_model_writer* w, bool enable) {
  if (w != NULL) w->auto_versions = enable;
}

/* Describes tensor `index` of the current subgraph (-1: omitted) as the
 * version rules see it; dims and scales stay owned by the writer. */
static void lg_auto_spec(const lg_model_writer* w, int32_t index,
                         lg_op_tensor_spec* spec) {
  *spec = (lg_op_tensor_spec){.type = kTfLiteNoType};
  if (index < 0) return;
  const lg_wtensor* t = &w->subgraphs[w->current].tensors[index];
  spec->type = lg_model_convert_tensor_type(t->schema_type);
  spec->dims = t->num_dims > 0 ? t->shape : NULL;
  spec->num_dims = t->num_dims;
  spec->is_const = t->buffer != 0 && w->buffers[t->buffer].size > 0;
  for (int32_t i = 0; t->shape_signature != NULL && i < t->num_dims; ++i) {
    if (t->shape_signature[i] == -1) spec->is_shape_dynamic = true;
  }
  const lg_writer_quantization* q = t->quantization;
  if (q != NULL) {
    spec->has_quantization = true;
    spec->scales = q->num_scale > 0 ? q->scale : NULL;
    spec->num_scales = q->num_scale;
    spec->quantized_dimension = q->quantized_dimension;
  }
}

/* The params as a reader of the written model sees them (malloc'd): the
 * defaults for NULL, and tensor-type fields left at kTfLiteNoType ("the
 * schema default") replaced by that default's type. NULL: out of memory. */
static void* lg_auto_params(const lg_builtin_options_desc* d,
                            const void* params) {
  uint8_t* copy = calloc(1, d->params_size);
  if (copy == NULL) return NULL;
  if (params == NULL) {
    lg_builtin_options_set_defaults(d, copy);
    return copy;
  }
  memcpy(copy, params, d->params_size);
  for (int i = 0; i < d->num_fields; ++i) {
    const lg_option_field* f = &d->fields[i];
    int value;
    if (f->kind != LG_OPTION_TENSOR_TYPE) continue;
    memcpy(&value, copy + f->offset, sizeof(value));
    if (value != kTfLiteNoType) continue;
    value = (int)f->default_value;
    memcpy(copy + f->offset, &value, sizeof(value));
  }
  return copy;
}

/* The version lg_op_version computes for a builtin operator about to be
 * added, or -1 (failure recorded). */
static int lg_auto_version(lg_model_writer* w, const char* what, int32_t code,
                           const int32_t* inputs, int num_inputs,
                           const int32_t* outputs, int num_outputs,
                           const void* params) {
  if (!lg_op_version_has_rules(code)) {
    lg_fail(w, "%s: no version rules for this op; pass its version", what);
    return -1;
  }
  if (lg_check_indices(w, what, inputs, num_inputs, true) != kTfLiteOk ||
      lg_check_indices(w, what, outputs, num_outputs, false) != kTfLiteOk) {
    return -1;
  }
  lg_op_signature sig = {.builtin_code = code,
                         .num_inputs = num_inputs,
                         .num_outputs = num_outputs};
  for (int i = 0; i < num_inputs && i < LG_OP_SIGNATURE_MAX_TENSORS; ++i) {
    lg_auto_spec(w, inputs[i], &sig.inputs[i]);
  }
  for (int i = 0; i < num_outputs && i < LG_OP_SIGNATURE_MAX_TENSORS; ++i) {
    lg_auto_spec(w, outputs[i], &sig.outputs[i]);
  }
  const lg_builtin_options_desc* d = lg_builtin_options_find(code);
  void* p = d != NULL ? lg_auto_params(d, params) : NULL;
  if (d != NULL && p == NULL) {
    lg_fail(w, "%s: out of memory", what);
    return -1;
  }
  sig.params = p;
  int version = lg_op_version(&sig);
  free(p);
  return version;
}

int32_t lg_model_writer_add_operator(lg_model_writer* w, int32_t builtin_code,
                                     int version, const int32_t* inputs,
                                     int num_inputs, const int32_t* outputs,
                                     int num_outputs, const void* params) {
  if (w == NULL) return -1;
  char what[64];
  snprintf(what, sizeof(what), "add_operator(%s)",
           lg_builtin_op_name(builtin_code));
  if (builtin_code < 0 || builtin_code == kTfLiteBuiltinCustom ||
      builtin_code == kTfLiteBuiltinPlaceholderForGreaterOpCodes) {
    lg_fail(w, "%s: invalid builtin code %d", what, builtin_code);
    return -1;
  }
  lg_wop op = {0};
  if (lg_convert_options(w, builtin_code, params, &op) != kTfLiteOk) return -1;
  if (version == LG_MODEL_WRITER_VERSION_AUTO && w->auto_versions) {
    version = lg_auto_version(w, what, builtin_code, inputs, num_inputs,
                              outputs, num_outputs, params);
    if (version < 1) return -1;
  }
  return lg_append_operator(w, what, builtin_code, NULL, version, inputs,
                            num_inputs, outputs, num_outputs, &op);
}

int32_t lg_model_writer_add_custom_operator(
    lg_model_writer* w, const char* custom_name, int version,
    const int32_t* inputs, int num_inputs, const int32_t* outputs,
    int num_outputs, const void* options, size_t options_size) {
  if (w == NULL) return -1;
  if (custom_name == NULL || custom_name[0] == '\0' ||
      (options == NULL && options_size > 0)) {
    lg_fail(w, "add_custom_operator: needs a name (and options data)");
    return -1;
  }
  char what[96];
  snprintf(what, sizeof(what), "add_custom_operator(%.60s)", custom_name);
  lg_wop op = {.custom_size = options_size};
  op.custom = lg_copy(w, options, options_size);
  if (op.custom == NULL) return -1;
  return lg_append_operator(w, what, kTfLiteBuiltinCustom, custom_name, version,
                            inputs, num_inputs, outputs, num_outputs, &op);
}

/* ---- Subgraphs ----------------------------------------------------------- */

static TfLiteStatus lg_set_io(lg_model_writer* w, const char* what,
                              const int32_t* tensors, int count,
                              const int32_t** dst, int32_t* dst_count) {
  if (w == NULL) return kTfLiteError;
  if (lg_check_indices(w, what, tensors, count, false) != kTfLiteOk) {
    return kTfLiteError;
  }
  const int32_t* copy = lg_copy(w, tensors, sizeof(int32_t) * (size_t)count);
  if (copy == NULL) return kTfLiteError;
  *dst = copy;
  *dst_count = count;
  return kTfLiteOk;
}

TfLiteStatus lg_model_writer_set_inputs(lg_model_writer* w,
                                        const int32_t* tensors, int count) {
  if (w == NULL) return kTfLiteError;
  lg_wsubgraph* sg = lg_current(w);
  return lg_set_io(w, "set_inputs", tensors, count, &sg->inputs,
                   &sg->num_inputs);
}

TfLiteStatus lg_model_writer_set_outputs(lg_model_writer* w,
                                         const int32_t* tensors, int count) {
  if (w == NULL) return kTfLiteError;
  lg_wsubgraph* sg = lg_current(w);
  return lg_set_io(w, "set_outputs", tensors, count, &sg->outputs,
                   &sg->num_outputs);
}

int32_t lg_model_writer_add_subgraph(lg_model_writer* w, const char* name) {
  if (w == NULL) return -1;
  const char* stored = name != NULL ? lg_strdup(w, name) : NULL;
  if (name != NULL && stored == NULL) return -1;
  lg_wsubgraph* sgs = lg_reserve(w, w->subgraphs, &w->cap_subgraphs,
                                 w->num_subgraphs, sizeof(*sgs));
  if (sgs == NULL) return -1;
  w->subgraphs = sgs;
  sgs[w->num_subgraphs] = (lg_wsubgraph){.name = stored};
  w->current = w->num_subgraphs;
  return w->num_subgraphs++;
}

TfLiteStatus lg_model_writer_select_subgraph(lg_model_writer* w,
                                             int32_t index) {
  if (w == NULL) return kTfLiteError;
  if (index < 0 || index >= w->num_subgraphs) {
    lg_fail(w, "select_subgraph: bad subgraph index %d (the model has %d)",
            index, w->num_subgraphs);
    return kTfLiteError;
  }
  w->current = index;
  return kTfLiteOk;
}

TfLiteStatus lg_model_writer_set_subgraph_name(lg_model_writer* w,
                                               const char* name) {
  if (w == NULL) return kTfLiteError;
  const char* stored = name != NULL ? lg_strdup(w, name) : NULL;
  if (name != NULL && stored == NULL) return kTfLiteError;
  lg_current(w)->name = stored;
  return kTfLiteOk;
}

/* ---- Signatures, metadata, description ---------------------------------- */

static const lg_writer_tensor_map* lg_copy_maps(
    lg_model_writer* w, const char* key, const lg_wsubgraph* sg,
    const lg_writer_tensor_map* maps, int count) {
  if (count < 0 || (count > 0 && maps == NULL)) {
    lg_fail(w, "signature '%s': bad tensor map list", key);
    return NULL;
  }
  lg_writer_tensor_map* c = lg_alloc(w, sizeof(*c) * (size_t)count);
  for (int i = 0; c != NULL && i < count; ++i) {
    if (maps[i].name == NULL || maps[i].tensor < 0 ||
        maps[i].tensor >= sg->num_tensors) {
      lg_fail(w, "signature '%s': entry '%s' has bad tensor index %d", key,
              lg_name_or(maps[i].name), maps[i].tensor);
      return NULL;
    }
    c[i].tensor = maps[i].tensor;
    c[i].name = lg_strdup(w, maps[i].name);
    if (c[i].name == NULL) return NULL;
  }
  return c;
}

static TfLiteStatus lg_check_signature(lg_model_writer* w, const char* key,
                                       int32_t subgraph) {
  if (key == NULL) {
    lg_fail(w, "add_signature: NULL key");
    return kTfLiteError;
  }
  for (int32_t i = 0; i < w->num_signatures; ++i) {
    if (strcmp(w->signatures[i].key, key) == 0) {
      lg_fail(w, "add_signature: duplicate key '%s'", key);
      return kTfLiteError;
    }
  }
  if (subgraph < 0 || subgraph >= w->num_subgraphs) {
    lg_fail(w, "signature '%s': bad subgraph index %d (the model has %d)", key,
            subgraph, w->num_subgraphs);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

int32_t lg_model_writer_add_signature(lg_model_writer* w, const char* key,
                                      int32_t subgraph,
                                      const lg_writer_tensor_map* inputs,
                                      int num_inputs,
                                      const lg_writer_tensor_map* outputs,
                                      int num_outputs) {
  if (w == NULL) return -1;
  if (lg_check_signature(w, key, subgraph) != kTfLiteOk) return -1;
  const lg_wsubgraph* sg = &w->subgraphs[subgraph];
  lg_wsignature s = {.subgraph = (uint32_t)subgraph,
                     .num_inputs = num_inputs,
                     .num_outputs = num_outputs};
  s.key = lg_strdup(w, key);
  s.inputs = lg_copy_maps(w, key, sg, inputs, num_inputs);
  s.outputs = s.inputs ? lg_copy_maps(w, key, sg, outputs, num_outputs) : NULL;
  if (s.key == NULL || s.inputs == NULL || s.outputs == NULL) return -1;
  lg_wsignature* sigs = lg_reserve(w, w->signatures, &w->cap_signatures,
                                   w->num_signatures, sizeof(*sigs));
  if (sigs == NULL) return -1;
  w->signatures = sigs;
  sigs[w->num_signatures] = s;
  return w->num_signatures++;
}

static int32_t lg_find_metadata(const lg_model_writer* w, const char* name) {
  for (int32_t i = 0; i < w->num_metadata; ++i) {
    if (strcmp(w->metadata[i].name, name) == 0) return i;
  }
  return -1;
}

/* Adds a metadata entry and its (inline) buffer, without name checks. */
static int32_t lg_push_metadata(lg_model_writer* w, const char* name,
                                const void* data, size_t size) {
  const char* stored_name = lg_strdup(w, name);
  const void* stored = lg_copy(w, data, size);
  if (stored_name == NULL || stored == NULL) return -1;
  lg_wmetadata* md = lg_reserve(w, w->metadata, &w->cap_metadata,
                                w->num_metadata, sizeof(*md));
  if (md == NULL) return -1;
  w->metadata = md;
  int32_t buffer = lg_push_buffer(w, stored, size, false);
  if (buffer < 0) return -1;
  md[w->num_metadata] = (lg_wmetadata){stored_name, (uint32_t)buffer};
  return w->num_metadata++;
}

int32_t lg_model_writer_add_metadata(lg_model_writer* w, const char* name,
                                     const void* data, size_t size) {
  if (w == NULL) return -1;
  if (name == NULL || (data == NULL && size > 0)) {
    lg_fail(w, "add_metadata: needs a name (and data)");
    return -1;
  }
  if (strcmp(name, kMinRuntimeVersionName) == 0 ||
      strcmp(name, kBufferLocationName) == 0) {
    lg_fail(w, "add_metadata: '%s' is written by the writer itself", name);
    return -1;
  }
  if (lg_find_metadata(w, name) >= 0) {
    lg_fail(w, "add_metadata: duplicate name '%s'", name);
    return -1;
  }
  return lg_push_metadata(w, name, data, size);
}

/* Stores the "min_runtime_version" metadata (adds or replaces it). */
static TfLiteStatus lg_store_min_runtime_version(lg_model_writer* w,
                                                 const char* version) {
  if (version == NULL || strlen(version) >= LG_MIN_RUNTIME_BYTES) {
    lg_fail(w, "min_runtime_version '%s' does not fit in %d bytes",
            version != NULL ? version : "(null)", LG_MIN_RUNTIME_BYTES - 1);
    return kTfLiteError;
  }
  /* TFLite's layout: 16 bytes, zero-filled, no terminator needed. */
  uint8_t bytes[LG_MIN_RUNTIME_BYTES] = {0};
  memcpy(bytes, version, strlen(version));
  int32_t existing = lg_find_metadata(w, kMinRuntimeVersionName);
  if (existing < 0) {
    int32_t added =
        lg_push_metadata(w, kMinRuntimeVersionName, bytes, sizeof(bytes));
    return added >= 0 ? kTfLiteOk : kTfLiteError;
  }
  const void* stored = lg_copy(w, bytes, sizeof(bytes));
  if (stored == NULL) return kTfLiteError;
  w->buffers[w->metadata[existing].buffer].data = stored;
  return kTfLiteOk;
}

TfLiteStatus lg_model_writer_set_min_runtime_version(lg_model_writer* w,
                                                     const char* version) {
  if (w == NULL) return kTfLiteError;
  TfLiteStatus status = lg_store_min_runtime_version(w, version);
  if (status == kTfLiteOk) w->min_runtime_explicit = true;
  return status;
}

/* The latest minimum runtime version over every builtin operator, or NULL
 * when some builtin (code, version) has no table entry: the minimum would
 * then be a guess (TFLite skips such pairs, which can understate it), so
 * auto versions leave the metadata absent. CUSTOM ops are skipped: their
 * versions are not TFLite's. */
static const char* lg_writer_min_runtime(const lg_model_writer* w) {
  const char* best = "";
  for (int32_t s = 0; s < w->num_subgraphs; ++s) {
    const lg_wsubgraph* sg = &w->subgraphs[s];
    for (int32_t i = 0; i < sg->num_ops; ++i) {
      const lg_wopcode* c = &w->opcodes[sg->ops[i].opcode];
      if (c->custom != NULL) continue;
      const char* v = lg_min_runtime_version(c->code, c->version);
      if (v[0] == '\0') return NULL;
      if (lg_compare_runtime_version(best, v) < 0) best = v;
    }
  }
  return best;
}

/* With auto versions, writes the model's minimum runtime version before the
 * model is serialized, unless the caller set one. When it is unknown (or
 * there is no builtin op), a value stamped by an earlier finish is reset to
 * 16 zero bytes: TFLite's empty placeholder, which reads as "". */
static void lg_stamp_min_runtime_version(lg_model_writer* w) {
  if (!w->auto_versions || w->min_runtime_explicit || w->failed) return;
  const char* v = lg_writer_min_runtime(w);
  if (v != NULL && v[0] != '\0') {
    lg_store_min_runtime_version(w, v);
  } else if (lg_find_metadata(w, kMinRuntimeVersionName) >= 0) {
    lg_store_min_runtime_version(w, "");
  }
}

TfLiteStatus lg_model_writer_set_description(lg_model_writer* w,
                                             const char* description) {
  if (w == NULL) return kTfLiteError;
  const char* stored = description ? lg_strdup(w, description) : NULL;
  if (description != NULL && stored == NULL) return kTfLiteError;
  w->description = stored;
  return kTfLiteOk;
}

void lg_model_writer_set_external_buffers(lg_model_writer* w, bool enable) {
  if (w != NULL) w->external = enable;
}

/* ---- FlatBuffer emitter -------------------------------------------------- */

typedef struct lg_out {
  uint8_t* buf; /* NULL in the measuring pass: only `pos` advances */
  size_t pos;
} lg_out;

static void out_zeros(lg_out* o, size_t n) {
  if (o->buf != NULL) memset(o->buf + o->pos, 0, n);
  o->pos += n;
}

static void out_raw(lg_out* o, const void* src, size_t n) {
  if (o->buf != NULL && n > 0) memcpy(o->buf + o->pos, src, n);
  o->pos += n;
}

/* Stores `n` bytes of `v` little-endian at `at` (already emitted). */
static void out_set(lg_out* o, size_t at, uint64_t v, size_t n) {
  if (o->buf == NULL) return;
  for (size_t i = 0; i < n; ++i) o->buf[at + i] = (uint8_t)(v >> (8 * i));
}

static void out_le(lg_out* o, uint64_t v, size_t n) {
  out_set(o, o->pos, v, n);
  o->pos += n;
}

/* Pads with zeros until pos + extra is a multiple of align. */
static void out_pad(lg_out* o, size_t align, size_t extra) {
  out_zeros(o, lg_align_up(o->pos + extra, align) - extra - o->pos);
}

/* Points the uoffset at `slot` to `target`, which lies after it. */
static void out_link(lg_out* o, size_t slot, size_t target) {
  out_set(o, slot, (uint32_t)(target - slot), 4);
}

/* A vector's length field, placed so that its elements start aligned. */
static size_t out_vector(lg_out* o, size_t count, size_t align) {
  out_pad(o, align < 4 ? 4 : align, 4);
  size_t at = o->pos;
  out_le(o, count, 4);
  return at;
}

static size_t out_i32_vector(lg_out* o, const int32_t* v, int32_t n) {
  size_t at = out_vector(o, (size_t)n, 4);
  for (int32_t i = 0; i < n; ++i) out_le(o, (uint32_t)v[i], 4);
  return at;
}

static size_t out_f32_vector(lg_out* o, const float* v, int32_t n) {
  size_t at = out_vector(o, (size_t)n, 4);
  for (int32_t i = 0; i < n; ++i) {
    uint32_t u;
    memcpy(&u, &v[i], sizeof(u));
    out_le(o, u, 4);
  }
  return at;
}

static size_t out_i64_vector(lg_out* o, const int64_t* v, int32_t n) {
  size_t at = out_vector(o, (size_t)n, 8);
  for (int32_t i = 0; i < n; ++i) out_le(o, (uint64_t)v[i], 8);
  return at;
}

static size_t out_bytes_vector(lg_out* o, const void* data, size_t n,
                               size_t align) {
  size_t at = out_vector(o, n, align);
  out_raw(o, data, n);
  return at;
}

static size_t out_string(lg_out* o, const char* s) {
  size_t n = strlen(s);
  size_t at = out_vector(o, n, 4);
  out_raw(o, s, n);
  out_zeros(o, 1); /* FlatBuffers strings end with a NUL */
  return at;
}

/* ---- Tables -------------------------------------------------------------- */

typedef struct lg_wfield {
  uint16_t id;
  uint8_t size;   /* inline bytes: 1, 4 or 8 */
  bool is_offset; /* uoffset to a child, linked after tb_end */
  uint64_t bits;
  size_t at; /* absolute position, set by tb_end */
} lg_wfield;

typedef struct lg_wtable {
  lg_wfield f[LG_TABLE_MAX_FIELDS];
  int n;
} lg_wtable;

static int tb_add(lg_wtable* t, uint16_t id, uint8_t size, bool is_offset,
                  uint64_t bits) {
  t->f[t->n] = (lg_wfield){id, size, is_offset, bits, 0};
  return t->n++;
}

/* A scalar field, omitted when equal to its schema default. */
static void tb_scalar(lg_wtable* t, uint16_t id, uint8_t size, uint64_t bits,
                      uint64_t default_bits) {
  if (bits != default_bits) tb_add(t, id, size, false, bits);
}

/* An offset field; returns the handle for tb_link. */
static int tb_offset(lg_wtable* t, uint16_t id) {
  return tb_add(t, id, 4, true, 0);
}

static void tb_link(lg_out* o, const lg_wtable* t, int field, size_t child) {
  out_link(o, t->f[field].at, child);
}

/* Inline offsets: fields largest first, each aligned to its size, after the
 * 4-byte soffset. Returns the inline size; sets *align and *max_id. */
static size_t tb_place(lg_wtable* t, size_t* align, int* max_id) {
  size_t rel = 4;
  *align = 4;
  *max_id = -1;
  for (uint8_t size = 8; size >= 1; size /= 2) {
    for (int i = 0; i < t->n; ++i) {
      lg_wfield* f = &t->f[i];
      if (f->size != size) continue;
      rel = lg_align_up(rel, size);
      f->at = rel;
      rel += size;
      if (size > *align) *align = size;
      if (f->id > *max_id) *max_id = f->id;
    }
  }
  return rel;
}

/* Writes the vtable and the table; returns the table's position. */
static size_t tb_end(lg_out* o, lg_wtable* t) {
  size_t align;
  int max_id;
  size_t inline_size = tb_place(t, &align, &max_id);
  uint16_t entries[LG_TABLE_MAX_ID + 1] = {0};
  for (int i = 0; i < t->n; ++i) entries[t->f[i].id] = (uint16_t)t->f[i].at;
  size_t vt_size = 4 + 2 * (size_t)(max_id + 1);
  size_t table = lg_align_up(o->pos + vt_size, align);
  out_zeros(o, table - vt_size - o->pos);
  out_le(o, vt_size, 2);
  out_le(o, inline_size, 2);
  for (int id = 0; id <= max_id; ++id) out_le(o, entries[id], 2);
  out_le(o, vt_size, 4); /* soffset: vtable = table - vt_size */
  out_zeros(o, inline_size - 4);
  for (int i = 0; i < t->n; ++i) {
    lg_wfield* f = &t->f[i];
    f->at += table;
    if (!f->is_offset) out_set(o, f->at, f->bits, f->size);
  }
  return table;
}

/* ---- Model serialization ------------------------------------------------- */

typedef struct lg_emit {
  lg_out o;
  const lg_model_writer* w;
  bool external;           /* constant buffers after the FlatBuffer */
  const uint64_t* offsets; /* per buffer; NULL while measuring */
} lg_emit;

typedef size_t (*lg_emit_fn)(lg_emit* e, const void* items, int32_t index);

/* A vector of tables, each written by `fn` after the vector. */
static size_t emit_tables(lg_emit* e, const void* items, int32_t count,
                          lg_emit_fn fn) {
  size_t at = out_vector(&e->o, (size_t)count, 4);
  out_zeros(&e->o, 4 * (size_t)count);
  for (int32_t i = 0; i < count; ++i) {
    out_link(&e->o, at + 4 + 4 * (size_t)i, fn(e, items, i));
  }
  return at;
}

static bool lg_is_external(const lg_model_writer* w, bool external, int32_t i) {
  return external && w->buffers[i].constant && w->buffers[i].size > 0;
}

static size_t emit_buffer(lg_emit* e, const void* items, int32_t i) {
  const lg_model_writer* w = items;
  lg_wbuffer b = {(const uint8_t*)kBufferLocationValue,
                  sizeof(kBufferLocationValue) - 1, false};
  if (i < w->num_buffers) b = w->buffers[i];
  lg_wtable t = {0};
  int data = -1;
  if (i < w->num_buffers && lg_is_external(w, e->external, i)) {
    /* Always present, so both passes lay the table out alike. */
    tb_add(&t, 1, 8, false, e->offsets != NULL ? e->offsets[i] : 2);
    tb_add(&t, 2, 8, false, b.size);
  } else if (b.size > 0) {
    data = tb_offset(&t, 0);
  }
  size_t at = tb_end(&e->o, &t);
  if (data >= 0) {
    tb_link(&e->o, &t, data,
            out_bytes_vector(&e->o, b.data, b.size, LG_DATA_ALIGN));
  }
  return at;
}

static size_t emit_opcode(lg_emit* e, const void* items, int32_t i) {
  const lg_wopcode* c = (const lg_wopcode*)items + i;
  int32_t deprecated =
      c->code < LG_DEPRECATED_CODE_MAX ? c->code : LG_DEPRECATED_CODE_MAX;
  lg_wtable t = {0};
  tb_scalar(&t, 0, 1, (uint8_t)deprecated, 0);
  int custom = c->custom != NULL ? tb_offset(&t, 1) : -1;
  tb_scalar(&t, 2, 4, (uint32_t)c->version, 1);
  tb_scalar(&t, 3, 4, (uint32_t)c->code, 0);
  size_t at = tb_end(&e->o, &t);
  if (custom >= 0) tb_link(&e->o, &t, custom, out_string(&e->o, c->custom));
  return at;
}

static size_t emit_quantization(lg_emit* e, const lg_writer_quantization* q) {
  lg_wtable t = {0};
  int min = q->num_min > 0 ? tb_offset(&t, 0) : -1;
  int max = q->num_max > 0 ? tb_offset(&t, 1) : -1;
  int scale = q->num_scale > 0 ? tb_offset(&t, 2) : -1;
  int zero = q->num_zero_point > 0 ? tb_offset(&t, 3) : -1;
  tb_scalar(&t, 6, 4, (uint32_t)q->quantized_dimension, 0);
  size_t at = tb_end(&e->o, &t);
  lg_out* o = &e->o;
  if (min >= 0) tb_link(o, &t, min, out_f32_vector(o, q->min, q->num_min));
  if (max >= 0) tb_link(o, &t, max, out_f32_vector(o, q->max, q->num_max));
  if (scale >= 0) {
    tb_link(o, &t, scale, out_f32_vector(o, q->scale, q->num_scale));
  }
  if (zero >= 0) {
    tb_link(o, &t, zero, out_i64_vector(o, q->zero_point, q->num_zero_point));
  }
  return at;
}

/* An Int32Vector table (a SparseIndexVector member). */
static size_t emit_index_vector(lg_emit* e, const int32_t* values, int n) {
  lg_wtable t = {0};
  int field = tb_offset(&t, 0);
  size_t at = tb_end(&e->o, &t);
  tb_link(&e->o, &t, field, out_i32_vector(&e->o, values, n));
  return at;
}

/* DimensionMetadata: format 0, dense_size 1, array_segments (type 2, value
 * 3), array_indices (type 4, value 5); Int32Vector is union member 1. */
static size_t emit_sparse_level(lg_emit* e, const void* items, int32_t i) {
  const lg_writer_sparse_level* l = (const lg_writer_sparse_level*)items + i;
  lg_wtable t = {0};
  int segments = -1, indices = -1;
  tb_scalar(&t, 0, 1, l->csr ? 1 : 0, 0);
  tb_scalar(&t, 1, 4, (uint32_t)l->dense_size, 0);
  if (l->csr) {
    tb_scalar(&t, 2, 1, 1, 0);
    segments = tb_offset(&t, 3);
    tb_scalar(&t, 4, 1, 1, 0);
    indices = tb_offset(&t, 5);
  }
  size_t at = tb_end(&e->o, &t);
  if (segments >= 0) {
    tb_link(&e->o, &t, segments,
            emit_index_vector(e, l->segments, l->num_segments));
    tb_link(&e->o, &t, indices,
            emit_index_vector(e, l->indices, l->num_indices));
  }
  return at;
}

/* SparsityParameters: traversal_order 0, block_map 1, dim_metadata 2. */
static size_t emit_sparsity(lg_emit* e, const lg_writer_sparsity* s) {
  lg_wtable t = {0};
  int order = tb_offset(&t, 0);
  int map = s->num_block_map > 0 ? tb_offset(&t, 1) : -1;
  int levels = tb_offset(&t, 2);
  size_t at = tb_end(&e->o, &t);
  lg_out* o = &e->o;
  tb_link(o, &t, order,
          out_i32_vector(o, s->traversal_order, s->num_traversal_order));
  if (map >= 0) {
    tb_link(o, &t, map, out_i32_vector(o, s->block_map, s->num_block_map));
  }
  tb_link(o, &t, levels,
          emit_tables(e, s->levels, s->num_levels, emit_sparse_level));
  return at;
}

static size_t emit_tensor(lg_emit* e, const void* items, int32_t i) {
  const lg_wtensor* x = (const lg_wtensor*)items + i;
  lg_wtable t = {0};
  int shape = tb_offset(&t, 0);
  tb_scalar(&t, 1, 1, (uint8_t)x->schema_type, 0);
  tb_scalar(&t, 2, 4, x->buffer, 0);
  int name = tb_offset(&t, 3);
  int quant = x->quantization != NULL ? tb_offset(&t, 4) : -1;
  tb_scalar(&t, 5, 1, x->is_variable, 0);
  int sparsity = x->sparsity != NULL ? tb_offset(&t, 6) : -1;
  int signature = x->shape_signature != NULL ? tb_offset(&t, 7) : -1;
  tb_scalar(&t, 8, 1, x->has_rank, 0);
  size_t at = tb_end(&e->o, &t);
  lg_out* o = &e->o;
  tb_link(o, &t, shape, out_i32_vector(o, x->shape, x->num_dims));
  tb_link(o, &t, name, out_string(o, x->name));
  if (quant >= 0) tb_link(o, &t, quant, emit_quantization(e, x->quantization));
  if (sparsity >= 0) {
    tb_link(o, &t, sparsity, emit_sparsity(e, x->sparsity));
  }
  if (signature >= 0) {
    tb_link(o, &t, signature,
            out_i32_vector(o, x->shape_signature, x->num_dims));
  }
  return at;
}

static size_t emit_options(lg_emit* e, const lg_wop* op) {
  lg_wtable t = {0};
  int vectors[LG_TABLE_MAX_FIELDS];
  for (int32_t i = 0; i < op->num_options; ++i) {
    const lg_wopt* f = &op->options[i];
    vectors[i] = f->size == 0 ? tb_offset(&t, f->id) : -1;
    if (f->size != 0) tb_add(&t, f->id, f->size, false, f->bits);
  }
  size_t at = tb_end(&e->o, &t);
  for (int32_t i = 0; i < op->num_options; ++i) {
    if (vectors[i] < 0) continue;
    const lg_wopt* f = &op->options[i];
    tb_link(&e->o, &t, vectors[i],
            f->bytes != NULL
                ? out_bytes_vector(&e->o, f->bytes, f->bytes_len, 1)
            : f->str != NULL   ? out_string(&e->o, f->str)
            : f->vec64 != NULL ? out_i64_vector(&e->o, f->vec64, f->vec_len)
                               : out_i32_vector(&e->o, f->vec, f->vec_len));
  }
  return at;
}

static size_t emit_operator(lg_emit* e, const void* items, int32_t i) {
  const lg_wop* op = (const lg_wop*)items + i;
  lg_wtable t = {0};
  tb_scalar(&t, 0, 4, op->opcode, 0);
  int inputs = tb_offset(&t, 1);
  int outputs = tb_offset(&t, 2);
  /* builtin_options_type / builtin_options are fields 3 / 4,
   * builtin_options_2_type / builtin_options_2 fields 11 / 12. */
  const uint16_t type_id = op->options_2 ? 11 : 3;
  tb_scalar(&t, type_id, 1, op->options_type, 0);
  int options =
      op->options_type != 0 ? tb_offset(&t, (uint16_t)(type_id + 1)) : -1;
  int custom = op->custom_size > 0 ? tb_offset(&t, 5) : -1;
  size_t at = tb_end(&e->o, &t);
  lg_out* o = &e->o;
  tb_link(o, &t, inputs, out_i32_vector(o, op->inputs, op->num_inputs));
  tb_link(o, &t, outputs, out_i32_vector(o, op->outputs, op->num_outputs));
  if (options >= 0) tb_link(o, &t, options, emit_options(e, op));
  if (custom >= 0) {
    tb_link(o, &t, custom,
            out_bytes_vector(o, op->custom, op->custom_size, LG_DATA_ALIGN));
  }
  return at;
}

static size_t emit_subgraph(lg_emit* e, const void* items, int32_t i) {
  const lg_wsubgraph* sg = (const lg_wsubgraph*)items + i;
  lg_wtable t = {0};
  int tensors = tb_offset(&t, 0);
  int inputs = tb_offset(&t, 1);
  int outputs = tb_offset(&t, 2);
  int operators = tb_offset(&t, 3);
  int name = sg->name != NULL ? tb_offset(&t, 4) : -1;
  size_t at = tb_end(&e->o, &t);
  lg_out* o = &e->o;
  tb_link(o, &t, tensors,
          emit_tables(e, sg->tensors, sg->num_tensors, emit_tensor));
  tb_link(o, &t, inputs, out_i32_vector(o, sg->inputs, sg->num_inputs));
  tb_link(o, &t, outputs, out_i32_vector(o, sg->outputs, sg->num_outputs));
  tb_link(o, &t, operators,
          emit_tables(e, sg->ops, sg->num_ops, emit_operator));
  if (name >= 0) tb_link(o, &t, name, out_string(o, sg->name));
  return at;
}

static size_t emit_metadata(lg_emit* e, const void* items, int32_t i) {
  const lg_model_writer* w = items;
  /* The entry past the stored ones is the writer's "buffer_location". */
  lg_wmetadata m = {kBufferLocationName, (uint32_t)w->num_buffers};
  if (i < w->num_metadata) m = w->metadata[i];
  lg_wtable t = {0};
  int name = tb_offset(&t, 0);
  tb_scalar(&t, 1, 4, m.buffer, 0);
  size_t at = tb_end(&e->o, &t);
  tb_link(&e->o, &t, name, out_string(&e->o, m.name));
  return at;
}

static size_t emit_tensor_map(lg_emit* e, const void* items, int32_t i) {
  const lg_writer_tensor_map* m = (const lg_writer_tensor_map*)items + i;
  lg_wtable t = {0};
  int name = tb_offset(&t, 0);
  tb_scalar(&t, 1, 4, (uint32_t)m->tensor, 0);
  size_t at = tb_end(&e->o, &t);
  tb_link(&e->o, &t, name, out_string(&e->o, m->name));
  return at;
}

static size_t emit_signature(lg_emit* e, const void* items, int32_t i) {
  const lg_wsignature* s = (const lg_wsignature*)items + i;
  lg_wtable t = {0};
  int inputs = tb_offset(&t, 0);
  int outputs = tb_offset(&t, 1);
  int key = tb_offset(&t, 2);
  tb_scalar(&t, 4, 4, s->subgraph, 0); /* id 3 is deprecated_tag */
  size_t at = tb_end(&e->o, &t);
  tb_link(&e->o, &t, inputs,
          emit_tables(e, s->inputs, s->num_inputs, emit_tensor_map));
  tb_link(&e->o, &t, outputs,
          emit_tables(e, s->outputs, s->num_outputs, emit_tensor_map));
  tb_link(&e->o, &t, key, out_string(&e->o, s->key));
  return at;
}

static size_t emit_model(lg_emit* e) {
  const lg_model_writer* w = e->w;
  int32_t extra = e->external ? 1 : 0; /* the "buffer_location" entry */
  int32_t num_metadata = w->num_metadata + extra;
  lg_wtable t = {0};
  tb_scalar(&t, 0, 4, LG_SCHEMA_VERSION, 0);
  int codes = tb_offset(&t, 1);
  int subgraphs = tb_offset(&t, 2);
  int description = w->description != NULL ? tb_offset(&t, 3) : -1;
  int buffers = tb_offset(&t, 4);
  int metadata = num_metadata > 0 ? tb_offset(&t, 6) : -1;
  int signatures = w->num_signatures > 0 ? tb_offset(&t, 7) : -1;
  size_t at = tb_end(&e->o, &t);
  lg_out* o = &e->o;
  /* Buffers first, so that constant data never ends the file. */
  tb_link(o, &t, buffers,
          emit_tables(e, w, w->num_buffers + extra, emit_buffer));
  tb_link(o, &t, codes,
          emit_tables(e, w->opcodes, w->num_opcodes, emit_opcode));
  tb_link(o, &t, subgraphs,
          emit_tables(e, w->subgraphs, w->num_subgraphs, emit_subgraph));
  if (metadata >= 0) {
    tb_link(o, &t, metadata, emit_tables(e, w, num_metadata, emit_metadata));
  }
  if (signatures >= 0) {
    tb_link(o, &t, signatures,
            emit_tables(e, w->signatures, w->num_signatures, emit_signature));
  }
  if (description >= 0) {
    tb_link(o, &t, description, out_string(o, w->description));
  }
  return at;
}

/* The whole FlatBuffer: root offset, identifier, Model. Returns its size. */
static size_t emit_flatbuffer(const lg_model_writer* w, bool external,
                              const uint64_t* offsets, uint8_t* buf) {
  lg_emit e = {{buf, 0}, w, external, offsets};
  out_le(&e.o, 0, 4);
  out_raw(&e.o, "TFL3", 4);
  out_link(&e.o, 0, emit_model(&e));
  return e.o.pos;
}

/* ---- Finishing ----------------------------------------------------------- */

typedef struct lg_plan {
  bool external;
  size_t fb_size;    /* bytes of the FlatBuffer */
  uint64_t* offsets; /* per buffer: file offset when external, else 0 */
  size_t total;      /* bytes of the whole file */
} lg_plan;

/* External pieces follow the FlatBuffer, each 16-byte aligned. */
static TfLiteStatus lg_place_external(lg_model_writer* w, lg_plan* p) {
  p->offsets = calloc((size_t)w->num_buffers, sizeof(uint64_t));
  if (p->offsets == NULL) {
    lg_report(&w->reporter, "model writer: out of memory (buffer offsets)");
    return kTfLiteError;
  }
  size_t pos = p->fb_size;
  bool any = false;
  for (int32_t i = 0; i < w->num_buffers; ++i) {
    if (!lg_is_external(w, p->external, i)) continue;
    pos = lg_align_up(pos, LG_DATA_ALIGN);
    if (w->buffers[i].size > SIZE_MAX / 2 - pos) {
      lg_report(&w->reporter, "model writer: the model is too large");
      return kTfLiteError;
    }
    p->offsets[i] = pos;
    pos += w->buffers[i].size;
    any = true;
  }
  p->total = any ? lg_align_up(pos, LG_DATA_ALIGN) + LG_TAIL_PADDING : pos;
  return kTfLiteOk;
}

/* Measures the FlatBuffer and places external buffers. Like TFLite's
 * exporter, falls back to external buffers when the FlatBuffer would
 * exceed 2 GB. */
static TfLiteStatus lg_plan_model(lg_model_writer* w, lg_plan* p) {
  *p = (lg_plan){.external = w->external};
  lg_stamp_min_runtime_version(w);
  if (w->failed) {
    lg_report(&w->reporter, "model writer: not writing the model after: %s",
              w->error);
    return kTfLiteError;
  }
  p->fb_size = emit_flatbuffer(w, p->external, NULL, NULL);
  if (p->fb_size > LG_FLATBUFFER_MAX && !p->external) {
    p->external = true;
    p->fb_size = emit_flatbuffer(w, p->external, NULL, NULL);
  }
  if (p->fb_size > LG_FLATBUFFER_MAX) {
    lg_report(&w->reporter,
              "model writer: the FlatBuffer needs %zu bytes, over the 2 GB "
              "limit",
              p->fb_size);
    return kTfLiteError;
  }
  return lg_place_external(w, p);
}

/* The real pass; it must match the measuring pass byte for byte. */
static TfLiteStatus lg_emit_planned(lg_model_writer* w, const lg_plan* p,
                                    uint8_t* buf) {
  size_t size = emit_flatbuffer(w, p->external, p->offsets, buf);
  if (size == p->fb_size) return kTfLiteOk;
  lg_report(&w->reporter,
            "model writer: internal error: layout changed (%zu != %zu bytes)",
            size, p->fb_size);
  return kTfLiteError;
}

static void lg_copy_external(const lg_model_writer* w, const lg_plan* p,
                             uint8_t* buf) {
  size_t pos = p->fb_size;
  for (int32_t i = 0; i < w->num_buffers; ++i) {
    if (!lg_is_external(w, p->external, i)) continue;
    memset(buf + pos, 0, p->offsets[i] - pos);
    memcpy(buf + p->offsets[i], w->buffers[i].data, w->buffers[i].size);
    pos = p->offsets[i] + w->buffers[i].size;
  }
  memset(buf + pos, 0, p->total - pos);
}

TfLiteStatus lg_model_writer_finish(lg_model_writer* w, void** data,
                                    size_t* size) {
  lg_plan plan = {0};
  uint8_t* buf = NULL;
  if (w == NULL || data == NULL || size == NULL) return kTfLiteError;
  if (lg_plan_model(w, &plan) != kTfLiteOk) goto fail;
  /* 16-byte aligned so that readers can use the buffer data in place. */
  buf = aligned_alloc(LG_DATA_ALIGN, lg_align_up(plan.total, LG_DATA_ALIGN));
  if (buf == NULL) {
    lg_report(&w->reporter, "model writer: out of memory (%zu bytes)",
              plan.total);
    goto fail;
  }
  if (lg_emit_planned(w, &plan, buf) != kTfLiteOk) goto fail;
  lg_copy_external(w, &plan, buf);
  free(plan.offsets);
  *data = buf;
  *size = plan.total;
  return kTfLiteOk;
fail:
  free(buf);
  free(plan.offsets);
  return kTfLiteError;
}

static bool lg_write_zeros(FILE* f, size_t n) {
  static const uint8_t zeros[64];
  while (n > 0) {
    size_t chunk = n < sizeof(zeros) ? n : sizeof(zeros);
    if (fwrite(zeros, 1, chunk, f) != chunk) return false;
    n -= chunk;
  }
  return true;
}

/* Writes external buffers straight from their source. */
static bool lg_write_external(const lg_model_writer* w, const lg_plan* p,
                              FILE* f) {
  size_t pos = p->fb_size;
  for (int32_t i = 0; i < w->num_buffers; ++i) {
    if (!lg_is_external(w, p->external, i)) continue;
    const lg_wbuffer* b = &w->buffers[i];
    if (!lg_write_zeros(f, p->offsets[i] - pos)) return false;
    if (fwrite(b->data, 1, b->size, f) != b->size) return false;
    pos = p->offsets[i] + b->size;
  }
  return lg_write_zeros(f, p->total - pos);
}

/* Saves the emitted FlatBuffer `fb` and the external buffers to `path`. An
 * I/O error is reported but not recorded: the model itself is fine, and
 * writing it elsewhere may succeed. */
static TfLiteStatus lg_save(const lg_model_writer* w, const lg_plan* p,
                            const uint8_t* fb, const char* path) {
  FILE* f = fopen(path, "wb");
  bool ok = f != NULL && fwrite(fb, 1, p->fb_size, f) == p->fb_size &&
            lg_write_external(w, p, f);
  int err = errno;
  if (f != NULL && fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok) return kTfLiteOk;
  lg_report(&w->reporter, "model writer: cannot write '%s': %s", path,
            strerror(err));
  if (f != NULL) remove(path);
  return kTfLiteError;
}

TfLiteStatus lg_model_writer_write_file(lg_model_writer* w, const char* path) {
  lg_plan plan = {0};
  uint8_t* buf = NULL;
  TfLiteStatus status = kTfLiteError;
  if (w == NULL || path == NULL) return kTfLiteError;
  if (lg_plan_model(w, &plan) != kTfLiteOk) goto fail;
  buf = malloc(plan.fb_size);
  if (buf == NULL) {
    lg_report(&w->reporter, "model writer: out of memory (%zu bytes)",
              plan.fb_size);
    goto fail;
  }
  if (lg_emit_planned(w, &plan, buf) != kTfLiteOk) goto fail;
  status = lg_save(w, &plan, buf, path);
fail:
  free(buf);
  free(plan.offsets);
  return status;
}
