/* The .tflite reader: verifies a whole model FlatBuffer and fills the plain
 * structs of model.h.
 *
 * Two passes. The first (lg_parse_*) walks every table the runtime reads,
 * through the bounds-checked primitives of flatbuffer.h, and copies what it
 * finds into arrays owned by the model. The second (lg_check_*) checks what
 * the structure alone cannot: index ranges, shapes, byte sizes and constant
 * data sizes. Every failure reports one message that says what is wrong and
 * where ("subgraph 0 tensor 3 ('x'), field 'shape': ..."), and frees all that
 * was built.
 */
#include "runtime/model/model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LG_SCHEMA_VERSION 3
#define LG_BUILTIN_CUSTOM 32
#define LG_MODEL_ALIGNMENT 16

/* Field ids (vtable slot = 4 + 2 * id) of the tables the reader uses. */
enum {
  MODEL_VERSION = 0,
  MODEL_OPERATOR_CODES = 1,
  MODEL_SUBGRAPHS = 2,
  MODEL_DESCRIPTION = 3,
  MODEL_BUFFERS = 4,
  MODEL_METADATA_BUFFER = 5,
  MODEL_METADATA = 6,
  MODEL_SIGNATURE_DEFS = 7
};
enum {
  OPCODE_DEPRECATED_BUILTIN_CODE = 0,
  OPCODE_CUSTOM_CODE = 1,
  OPCODE_VERSION = 2,
  OPCODE_BUILTIN_CODE = 3
};
enum {
  SUBGRAPH_TENSORS = 0,
  SUBGRAPH_INPUTS = 1,
  SUBGRAPH_OUTPUTS = 2,
  SUBGRAPH_OPERATORS = 3,
  SUBGRAPH_NAME = 4
};
enum {
  TENSOR_SHAPE = 0,
  TENSOR_TYPE = 1,
  TENSOR_BUFFER = 2,
  TENSOR_NAME = 3,
  TENSOR_QUANTIZATION = 4,
  TENSOR_IS_VARIABLE = 5,
  TENSOR_SPARSITY = 6,
  TENSOR_SHAPE_SIGNATURE = 7,
  TENSOR_HAS_RANK = 8
};
enum {
  QUANT_MIN = 0,
  QUANT_MAX = 1,
  QUANT_SCALE = 2,
  QUANT_ZERO_POINT = 3,
  QUANT_DETAILS_TYPE = 4,
  QUANT_QUANTIZED_DIMENSION = 6
};
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum {
  SPARSITY_TRAVERSAL_ORDER = 0,
  SPARSITY_BLOCK_MAP = 1,
  SPARSITY_DIM_METADATA = 2
};
/* DimensionMetadata: a union takes two slots (type, then value). */
enum {
  DIM_FORMAT = 0,
  DIM_DENSE_SIZE = 1,
  DIM_ARRAY_SEGMENTS_TYPE = 2,
  DIM_ARRAY_INDICES_TYPE = 4
};
enum { INDEX_VECTOR_VALUES = 0 };
enum {
  OP_OPCODE_INDEX = 0,
  OP_INPUTS = 1,
  OP_OUTPUTS = 2,
  OP_BUILTIN_OPTIONS_TYPE = 3,
  OP_CUSTOM_OPTIONS = 5,
  OP_INTERMEDIATES = 8,
  OP_LARGE_CUSTOM_OPTIONS_OFFSET = 9,
  OP_LARGE_CUSTOM_OPTIONS_SIZE = 10,
  OP_BUILTIN_OPTIONS_2_TYPE = 11
};
enum { METADATA_NAME = 0, METADATA_BUFFER = 1 };
enum {
  SIGNATURE_INPUTS = 0,
  SIGNATURE_OUTPUTS = 1,
  SIGNATURE_KEY = 2,
  SIGNATURE_SUBGRAPH_INDEX = 4
};
enum { TENSOR_MAP_NAME = 0, TENSOR_MAP_TENSOR_INDEX = 1 };

/* ---- Types ---------------------------------------------------------------*/

/* Schema TensorType (the index) -> runtime type, element size in bits (0 for
 * variable-size types) and schema name. */
typedef struct lg_type_info {
  TfLiteType type;
  uint8_t bits;
  const char* name;
} lg_type_info;

/* clang-format off */
static const lg_type_info lg_type_infos[] = {
    {kTfLiteFloat32, 32, "FLOAT32"},      {kTfLiteFloat16, 16, "FLOAT16"},
    {kTfLiteInt32, 32, "INT32"},          {kTfLiteUInt8, 8, "UINT8"},
    {kTfLiteInt64, 64, "INT64"},          {kTfLiteString, 0, "STRING"},
    {kTfLiteBool, 8, "BOOL"},             {kTfLiteInt16, 16, "INT16"},
    {kTfLiteComplex64, 64, "COMPLEX64"},  {kTfLiteInt8, 8, "INT8"},
    {kTfLiteFloat64, 64, "FLOAT64"},      {kTfLiteComplex128, 128, "COMPLEX128"},
    {kTfLiteUInt64, 64, "UINT64"},        {kTfLiteResource, 0, "RESOURCE"},
    {kTfLiteVariant, 0, "VARIANT"},       {kTfLiteUInt32, 32, "UINT32"},
    {kTfLiteUInt16, 16, "UINT16"},        {kTfLiteInt4, 4, "INT4"},
    {kTfLiteBFloat16, 16, "BFLOAT16"},    {kTfLiteInt2, 2, "INT2"},
    {kTfLiteUInt4, 4, "UINT4"},
    {kTfLiteFloat8E4M3FN, 8, "FLOAT8_E4M3FN"},
    {kTfLiteFloat8E5M2, 8, "FLOAT8_E5M2"},
};
/* clang-format on */

#define LG_NUM_SCHEMA_TYPES \
  ((int)(sizeof(lg_type_infos) / sizeof(lg_type_infos[0])))

TfLiteType lg_model_convert_tensor_type(int8_t schema_type) {
  if (schema_type < 0 || schema_type >= LG_NUM_SCHEMA_TYPES) {
    return kTfLiteNoType;
  }
  return lg_type_infos[schema_type].type;
}

int8_t lg_model_schema_tensor_type(TfLiteType type) {
  for (int i = 0; i < LG_NUM_SCHEMA_TYPES; ++i) {
    if (lg_type_infos[i].type == type) return (int8_t)i;
  }
  return -1;
}

/* ---- Storage -------------------------------------------------------------*/

/* Every parsed array is one calloc'ed block behind this header, chained on
 * model->allocations, so that destroy (and any failure) frees them all. */
typedef union lg_model_block {
  union lg_model_block* next;
  max_align_t align;
} lg_model_block;

static void lg_model_free_blocks(lg_model* model) {
  lg_model_block* block = model->allocations;
  while (block != NULL) {
    lg_model_block* next = block->next;
    free(block);
    block = next;
  }
  model->allocations = NULL;
}

void lg_model_destroy(lg_model* model) {
  if (model == NULL) return;
  lg_model_free_blocks(model);
  free(model->aligned_copy);
  if (model->mapping != NULL) munmap(model->mapping, model->mapping_size);
  free(model);
}

/* ---- Parser state and field readers ---------------------------------------*/

/* FlatBuffers lets many tables share one vector, so a small file can make
 * the reader (and the interpreter after it) walk a huge shape or index vector
 * once per tensor or operator. The elements of all scalar vectors the reader
 * hands out are therefore limited to this many per 4 bytes of model (plus a
 * floor for tiny files): real models share little, if at all. */
#define LG_ELEMENTS_PER_WORD 16
#define LG_ELEMENTS_FLOOR 65536

typedef struct lg_parser {
  lg_fb_verifier fb;
  const lg_reporter* reporter;
  lg_model* model;
  uint64_t elements_left; /* see LG_ELEMENTS_PER_WORD */
} lg_parser;

/* One table being parsed, with the words that locate it in messages. */
typedef struct lg_item {
  lg_parser* p;
  lg_fb_table t;
  char where[112];
} lg_item;

typedef bool (*lg_parse_fn)(lg_item* item, void* out);

static bool lg_item_error(const lg_item* it, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
static void lg_item_locate(lg_item* it, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets the words that locate `it` in messages (cut short if too long). */
static void lg_item_locate(lg_item* it, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(it->where, sizeof(it->where), format, args);
  va_end(args);
}

/* Reports a problem of `it` that is not a FlatBuffer layout error. */
static bool lg_item_error(const lg_item* it, const char* format, ...) {
  char message[256];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  lg_report(it->p->reporter, "%s: %s", it->where, message);
  return false;
}

/* Reports the layout error the verifier just recorded, in field `field`. */
static bool lg_item_fail(const lg_item* it, const char* field) {
  lg_report(it->p->reporter,
            "The model is not a valid Flatbuffer buffer: %s%sfield '%s': %s",
            it->where, it->where[0] != '\0' ? ", " : "", field,
            it->p->fb.error);
  return false;
}

static bool lg_alloc(lg_parser* p, size_t count, size_t elem, void** out) {
  lg_model_block* block = NULL;
  *out = NULL;
  if (count == 0) return true;
  if (count <= (SIZE_MAX - sizeof(*block)) / elem) {
    block = calloc(1, sizeof(*block) + count * elem);
  }
  if (block == NULL) {
    lg_report(p->reporter, "Out of memory: %zu elements of %zu bytes", count,
              elem);
    return false;
  }
  block->next = p->model->allocations;
  p->model->allocations = block;
  *out = block + 1;
  return true;
}

static bool lg_item_u32(lg_item* it, uint16_t id, const char* name,
                        uint32_t def, uint32_t* out) {
  return lg_fb_table_u32(&it->p->fb, &it->t, id, def, out) ||
         lg_item_fail(it, name);
}

static bool lg_item_i32(lg_item* it, uint16_t id, const char* name, int32_t def,
                        int32_t* out) {
  return lg_fb_table_i32(&it->p->fb, &it->t, id, def, out) ||
         lg_item_fail(it, name);
}

static bool lg_item_u64(lg_item* it, uint16_t id, const char* name,
                        uint64_t* out) {
  return lg_fb_table_u64(&it->p->fb, &it->t, id, 0, out) ||
         lg_item_fail(it, name);
}

static bool lg_item_i8(lg_item* it, uint16_t id, const char* name,
                       int8_t* out) {
  return lg_fb_table_i8(&it->p->fb, &it->t, id, 0, out) ||
         lg_item_fail(it, name);
}

static bool lg_item_bool(lg_item* it, uint16_t id, const char* name,
                         bool* out) {
  return lg_fb_table_bool(&it->p->fb, &it->t, id, false, out) ||
         lg_item_fail(it, name);
}

/* A string field; `absent` is what an absent field reads as. */
static bool lg_item_string(lg_item* it, uint16_t id, const char* name,
                           const char* absent, const char** out) {
  if (!lg_fb_table_string(&it->p->fb, &it->t, id, out, NULL)) {
    return lg_item_fail(it, name);
  }
  if (*out == NULL) *out = absent;
  return true;
}

static bool lg_item_vector(lg_item* it, uint16_t id, const char* name,
                           size_t elem_size, lg_fb_vector* out) {
  return lg_fb_table_vector(&it->p->fb, &it->t, id, elem_size, out) ||
         lg_item_fail(it, name);
}

/* A vector of scalars that the runtime walks: charged to elements_left. */
static bool lg_item_scalars(lg_item* it, uint16_t id, const char* name,
                            size_t elem_size, lg_fb_vector* out) {
  lg_parser* p = it->p;
  if (!lg_item_vector(it, id, name, elem_size, out)) return false;
  if (out->count > p->elements_left) {
    snprintf(p->fb.error, sizeof(p->fb.error),
             "the model's vectors hold more than %d elements per 4 bytes of "
             "model in all; are many tables sharing one large vector?",
             LG_ELEMENTS_PER_WORD);
    return lg_item_fail(it, name);
  }
  p->elements_left -= out->count;
  return true;
}

/* A vector of int32 (or float, elem 4) as a pointer and a count. */
static bool lg_item_array(lg_item* it, uint16_t id, const char* name,
                          size_t elem_size, const void** data, int32_t* count) {
  lg_fb_vector vec;
  if (!lg_item_scalars(it, id, name, elem_size, &vec)) return false;
  *data = vec.count > 0 ? lg_fb_vector_data(&vec) : NULL;
  *count = (int32_t)vec.count; /* < 2^31 / elem_size by verification */
  return true;
}

static bool lg_item_ints(lg_item* it, uint16_t id, const char* name,
                         const int32_t** data, int32_t* count) {
  const void* raw;
  if (!lg_item_array(it, id, name, sizeof(int32_t), &raw, count)) return false;
  *data = raw;
  return true;
}

static bool lg_item_floats(lg_item* it, uint16_t id, const char* name,
                           const float** data, int32_t* count) {
  const void* raw;
  if (!lg_item_array(it, id, name, sizeof(float), &raw, count)) return false;
  *data = raw;
  return true;
}

static bool lg_item_union(lg_item* it, uint16_t type_id, const char* name,
                          uint8_t* type, lg_fb_table* value) {
  return lg_fb_table_union(&it->p->fb, &it->t, type_id, type, value) ||
         lg_item_fail(it, name);
}

/* Parses the vector of tables in field `id` of `owner` into a new array of
 * `elem_size`-byte structs, calling `fn` on each element. Elements are
 * located as "<owner> <label> <index>". */
static bool lg_item_tables(lg_item* owner, uint16_t id, const char* name,
                           const char* label, size_t elem_size, lg_parse_fn fn,
                           void** array, int32_t* count) {
  lg_parser* p = owner->p;
  lg_fb_vector vec;
  if (!lg_item_vector(owner, id, name, sizeof(uint32_t), &vec)) return false;
  /* Each element is a table, so the table limit also bounds the allocation
   * a hostile count can cause. */
  if (vec.count > LG_FB_MAX_TABLES - p->fb.num_tables) {
    snprintf(p->fb.error, sizeof(p->fb.error),
             "a vector of %u tables would make more than %d tables", vec.count,
             LG_FB_MAX_TABLES);
    return lg_item_fail(owner, name);
  }
  if (!lg_alloc(p, vec.count, elem_size, array)) return false;
  *count = (int32_t)vec.count;
  for (uint32_t i = 0; i < vec.count; ++i) {
    lg_item item = {.p = p};
    if (!lg_fb_vector_table(&p->fb, &vec, i, &item.t)) {
      char element[64];
      snprintf(element, sizeof(element), "%.40s[%u]", name, i);
      return lg_item_fail(owner, element);
    }
    lg_item_locate(&item, "%s%s%s %u", owner->where,
                   owner->where[0] != '\0' ? " " : "", label, i);
    if (!fn(&item, (char*)*array + (size_t)i * elem_size)) return false;
  }
  return true;
}

/* ---- Tables --------------------------------------------------------------*/

static bool lg_parse_opcode(lg_item* it, void* out) {
  lg_model_opcode* opcode = out;
  int8_t deprecated;
  int32_t builtin;
  if (!lg_item_i8(it, OPCODE_DEPRECATED_BUILTIN_CODE, "deprecated_builtin_code",
                  &deprecated) ||
      !lg_item_i32(it, OPCODE_BUILTIN_CODE, "builtin_code", 0, &builtin) ||
      !lg_item_i32(it, OPCODE_VERSION, "version", 1, &opcode->version) ||
      !lg_item_string(it, OPCODE_CUSTOM_CODE, "custom_code", NULL,
                      &opcode->custom_code)) {
    return false;
  }
  /* Old files carry the op only in deprecated_builtin_code; new ones store
   * 127 there for codes from 127 up. The larger value is the op. */
  opcode->builtin_code = builtin > deprecated ? builtin : deprecated;
  if (opcode->builtin_code == LG_BUILTIN_CUSTOM &&
      opcode->custom_code == NULL) {
    return lg_item_error(
        it, "Operator with CUSTOM builtin_code has no custom_code.");
  }
  return true;
}

/* `offset` and `size` must lie inside the whole model (not the truncated
 * FlatBuffer part: these are how models over 2 GB keep their data). */
static bool lg_check_extent(const lg_item* it, const char* what,
                            uint64_t offset, uint64_t size) {
  uint64_t total = it->p->model->size;
  if (offset > total || size > total - offset) {
    return lg_item_error(it,
                         "%s offset %llu + size %llu runs past the end of "
                         "the model (%llu bytes)",
                         what, (unsigned long long)offset,
                         (unsigned long long)size, (unsigned long long)total);
  }
  return true;
}

static bool lg_parse_buffer(lg_item* it, void* out) {
  lg_model_buffer* buffer = out;
  lg_fb_vector data;
  uint64_t offset, size;
  if (!lg_item_vector(it, BUFFER_DATA, "data", 1, &data) ||
      !lg_item_u64(it, BUFFER_OFFSET, "offset", &offset) ||
      !lg_item_u64(it, BUFFER_SIZE, "size", &size)) {
    return false;
  }
  /* offset 1 is a writer's placeholder; real offsets are > 1. */
  if (offset > 1) {
    if (!lg_check_extent(it, "data", offset, size)) return false;
    buffer->data = size > 0 ? it->p->model->data + offset : NULL;
    buffer->size = size;
    return true;
  }
  buffer->data = data.count > 0 ? lg_fb_vector_data(&data) : NULL;
  buffer->size = data.count;
  return true;
}

static bool lg_parse_quantization(lg_item* it, lg_model_quantization* q) {
  lg_fb_vector zero_point;
  lg_fb_table details;
  if (!lg_item_floats(it, QUANT_MIN, "min", &q->min, &q->num_min) ||
      !lg_item_floats(it, QUANT_MAX, "max", &q->max, &q->num_max) ||
      !lg_item_floats(it, QUANT_SCALE, "scale", &q->scale, &q->num_scale) ||
      !lg_item_scalars(it, QUANT_ZERO_POINT, "zero_point", sizeof(int64_t),
                       &zero_point) ||
      !lg_item_union(it, QUANT_DETAILS_TYPE, "details", &q->details_type,
                     &details) ||
      !lg_item_i32(it, QUANT_QUANTIZED_DIMENSION, "quantized_dimension", 0,
                   &q->quantized_dimension)) {
    return false;
  }
  q->zero_point = zero_point.count > 0 ? lg_fb_vector_data(&zero_point) : NULL;
  q->num_zero_point = (int32_t)zero_point.count;
  return true;
}

/* A SparseIndexVector union (Int32Vector 1, Uint16Vector 2, Uint8Vector
 * 3) in field `type_id`; absent: an empty vector. */
static bool lg_parse_index_vector(lg_item* it, uint16_t type_id,
                                  const char* name, lg_sparse_index* out) {
  static const uint8_t kBytes[4] = {0, 4, 2, 1};
  uint8_t type;
  lg_item vec = {.p = it->p};
  memset(out, 0, sizeof(*out));
  if (!lg_item_union(it, type_id, name, &type, &vec.t)) return false;
  if (type == 0 || vec.t.pos == 0) return true;
  if (type > 3) {
    return lg_item_error(it, "%s has unknown index vector type %u", name,
                         (unsigned)type);
  }
  lg_fb_vector values;
  lg_item_locate(&vec, "%s %s", it->where, name);
  if (!lg_item_scalars(&vec, INDEX_VECTOR_VALUES, "values", kBytes[type],
                       &values)) {
    return false;
  }
  out->data = values.count > 0 ? lg_fb_vector_data(&values) : NULL;
  out->count = (int32_t)values.count;
  out->bytes = kBytes[type];
  return true;
}

static bool lg_parse_dim_metadata(lg_item* it, void* out) {
  lg_sparse_level* level = out;
  int8_t format;
  if (!lg_item_i8(it, DIM_FORMAT, "format", &format) ||
      !lg_item_i32(it, DIM_DENSE_SIZE, "dense_size", 0, &level->dense_size) ||
      !lg_parse_index_vector(it, DIM_ARRAY_SEGMENTS_TYPE, "array_segments",
                             &level->segments) ||
      !lg_parse_index_vector(it, DIM_ARRAY_INDICES_TYPE, "array_indices",
                             &level->indices)) {
    return false;
  }
  level->format = format;
  return true;
}

static bool lg_parse_sparsity(lg_item* it, lg_model_sparsity* s) {
  return lg_item_ints(it, SPARSITY_TRAVERSAL_ORDER, "traversal_order",
                      &s->traversal_order, &s->num_traversal_order) &&
         lg_item_ints(it, SPARSITY_BLOCK_MAP, "block_map", &s->block_map,
                      &s->num_block_map) &&
         lg_item_tables(it, SPARSITY_DIM_METADATA, "dim_metadata", "level",
                        sizeof(lg_sparse_level), lg_parse_dim_metadata,
                        (void**)&s->levels, &s->num_levels);
}

/* The sub-tables of a tensor: quantization and sparsity. */
static bool lg_parse_tensor_tables(lg_item* it, lg_model_tensor* tensor) {
  lg_item quant = {.p = it->p};
  lg_item sparsity = {.p = it->p};
  if (!lg_fb_table_table(&it->p->fb, &it->t, TENSOR_QUANTIZATION, &quant.t)) {
    return lg_item_fail(it, "quantization");
  }
  if (!lg_fb_table_table(&it->p->fb, &it->t, TENSOR_SPARSITY, &sparsity.t)) {
    return lg_item_fail(it, "sparsity");
  }
  tensor->has_sparsity = sparsity.t.pos != 0;
  if (tensor->has_sparsity) {
    lg_item_locate(&sparsity, "%s sparsity", it->where);
    if (!lg_parse_sparsity(&sparsity, &tensor->sparsity)) return false;
  }
  tensor->has_quantization = quant.t.pos != 0;
  if (!tensor->has_quantization) return true;
  lg_item_locate(&quant, "%s quantization", it->where);
  return lg_parse_quantization(&quant, &tensor->quantization);
}

static bool lg_parse_tensor(lg_item* it, void* out) {
  lg_model_tensor* tensor = out;
  lg_fb_vector signature;
  if (!lg_item_string(it, TENSOR_NAME, "name", "", &tensor->name)) {
    return false;
  }
  /* Name the tensor in every later message about it. */
  char where[sizeof(it->where)];
  memcpy(where, it->where, sizeof(where));
  lg_item_locate(it, "%s ('%.48s')", where, tensor->name);
  if (!lg_item_ints(it, TENSOR_SHAPE, "shape", &tensor->shape,
                    &tensor->num_dims) ||
      !lg_item_i8(it, TENSOR_TYPE, "type", &tensor->schema_type) ||
      !lg_item_u32(it, TENSOR_BUFFER, "buffer", 0, &tensor->buffer) ||
      !lg_item_bool(it, TENSOR_IS_VARIABLE, "is_variable",
                    &tensor->is_variable) ||
      !lg_item_scalars(it, TENSOR_SHAPE_SIGNATURE, "shape_signature",
                       sizeof(int32_t), &signature) ||
      !lg_item_bool(it, TENSOR_HAS_RANK, "has_rank", &tensor->has_rank) ||
      !lg_parse_tensor_tables(it, tensor)) {
    return false;
  }
  tensor->shape_signature =
      signature.count > 0 ? lg_fb_vector_data(&signature) : NULL;
  tensor->num_dims_signature =
      signature.present ? (int32_t)signature.count : -1;
  tensor->type = lg_model_convert_tensor_type(tensor->schema_type);
  if (tensor->type == kTfLiteNoType) {
    return lg_item_error(it, "unknown tensor type %d", tensor->schema_type);
  }
  return true;
}

/* custom_options, or the large_custom_options_offset/size pair that models
 * over 2 GB use instead (offset from the file start, used when > 1). */
static bool lg_parse_custom_options(lg_item* it, lg_model_operator* op) {
  lg_fb_vector custom;
  uint64_t offset, size;
  if (!lg_item_vector(it, OP_CUSTOM_OPTIONS, "custom_options", 1, &custom) ||
      !lg_item_u64(it, OP_LARGE_CUSTOM_OPTIONS_OFFSET,
                   "large_custom_options_offset", &offset) ||
      !lg_item_u64(it, OP_LARGE_CUSTOM_OPTIONS_SIZE,
                   "large_custom_options_size", &size)) {
    return false;
  }
  if (custom.present) {
    op->custom_options = lg_fb_vector_data(&custom);
    op->custom_options_size = custom.count;
    return true;
  }
  if (offset <= 1) return true;
  if (!lg_check_extent(it, "large custom options", offset, size)) {
    return false;
  }
  op->custom_options = it->p->model->data + offset;
  op->custom_options_size = (size_t)size;
  return true;
}

static bool lg_parse_operator(lg_item* it, void* out) {
  lg_model_operator* op = out;
  return lg_item_u32(it, OP_OPCODE_INDEX, "opcode_index", 0,
                     &op->opcode_index) &&
         lg_item_ints(it, OP_INPUTS, "inputs", &op->inputs, &op->num_inputs) &&
         lg_item_ints(it, OP_OUTPUTS, "outputs", &op->outputs,
                      &op->num_outputs) &&
         lg_item_ints(it, OP_INTERMEDIATES, "intermediates", &op->intermediates,
                      &op->num_intermediates) &&
         lg_item_union(it, OP_BUILTIN_OPTIONS_TYPE, "builtin_options",
                       &op->builtin_options_type, &op->builtin_options) &&
         lg_item_union(it, OP_BUILTIN_OPTIONS_2_TYPE, "builtin_options_2",
                       &op->builtin_options_2_type, &op->builtin_options_2) &&
         lg_parse_custom_options(it, op);
}

static bool lg_parse_subgraph(lg_item* it, void* out) {
  lg_model_subgraph* sg = out;
  void* tensors;
  void* operators;
  if (!lg_item_string(it, SUBGRAPH_NAME, "name", "", &sg->name) ||
      !lg_item_ints(it, SUBGRAPH_INPUTS, "inputs", &sg->inputs,
                    &sg->num_inputs) ||
      !lg_item_ints(it, SUBGRAPH_OUTPUTS, "outputs", &sg->outputs,
                    &sg->num_outputs) ||
      !lg_item_tables(it, SUBGRAPH_TENSORS, "tensors", "tensor",
                      sizeof(lg_model_tensor), lg_parse_tensor, &tensors,
                      &sg->num_tensors) ||
      !lg_item_tables(it, SUBGRAPH_OPERATORS, "operators", "operator",
                      sizeof(lg_model_operator), lg_parse_operator, &operators,
                      &sg->num_operators)) {
    return false;
  }
  sg->tensors = tensors;
  sg->operators = operators;
  return true;
}

static bool lg_parse_metadata(lg_item* it, void* out) {
  lg_model_metadata* metadata = out;
  return lg_item_string(it, METADATA_NAME, "name", "", &metadata->name) &&
         lg_item_u32(it, METADATA_BUFFER, "buffer", 0, &metadata->buffer);
}

static bool lg_parse_tensor_map(lg_item* it, void* out) {
  lg_model_tensor_map* map = out;
  return lg_item_string(it, TENSOR_MAP_NAME, "name", "", &map->name) &&
         lg_item_u32(it, TENSOR_MAP_TENSOR_INDEX, "tensor_index", 0,
                     &map->tensor_index);
}

static bool lg_parse_signature(lg_item* it, void* out) {
  lg_model_signature* sig = out;
  void* inputs;
  void* outputs;
  if (!lg_item_string(it, SIGNATURE_KEY, "signature_key", "", &sig->key) ||
      !lg_item_u32(it, SIGNATURE_SUBGRAPH_INDEX, "subgraph_index", 0,
                   &sig->subgraph_index) ||
      !lg_item_tables(it, SIGNATURE_INPUTS, "inputs", "input",
                      sizeof(lg_model_tensor_map), lg_parse_tensor_map, &inputs,
                      &sig->num_inputs) ||
      !lg_item_tables(it, SIGNATURE_OUTPUTS, "outputs", "output",
                      sizeof(lg_model_tensor_map), lg_parse_tensor_map,
                      &outputs, &sig->num_outputs)) {
    return false;
  }
  sig->inputs = inputs;
  sig->outputs = outputs;
  return true;
}

/* The version comes first: a file of another schema version is reported as
 * such rather than as whatever layout error its other fields cause. */
static bool lg_parse_version(lg_item* root) {
  lg_model* m = root->p->model;
  if (!lg_item_u32(root, MODEL_VERSION, "version", 0, &m->version)) {
    return false;
  }
  if (m->version != LG_SCHEMA_VERSION) {
    lg_report(root->p->reporter,
              "Model provided is schema version %u not equal to supported "
              "version %d.",
              m->version, LG_SCHEMA_VERSION);
    return false;
  }
  return true;
}

static bool lg_parse_model(lg_parser* p) {
  lg_model* m = p->model;
  lg_item root = {.p = p, .where = ""};
  void *opcodes, *buffers, *subgraphs, *metadata, *signatures;
  lg_fb_vector metadata_buffer;
  if (!lg_fb_root(&p->fb, &root.t)) {
    lg_report(p->reporter, "The model is not a valid Flatbuffer buffer: %s",
              p->fb.error);
    return false;
  }
  if (!lg_parse_version(&root) ||
      !lg_item_string(&root, MODEL_DESCRIPTION, "description", "",
                      &m->description) ||
      !lg_item_vector(&root, MODEL_METADATA_BUFFER, "metadata_buffer",
                      sizeof(int32_t), &metadata_buffer) ||
      !lg_item_tables(&root, MODEL_OPERATOR_CODES, "operator_codes",
                      "operator code", sizeof(lg_model_opcode), lg_parse_opcode,
                      &opcodes, &m->num_opcodes) ||
      !lg_item_tables(&root, MODEL_BUFFERS, "buffers", "buffer",
                      sizeof(lg_model_buffer), lg_parse_buffer, &buffers,
                      &m->num_buffers) ||
      !lg_item_tables(&root, MODEL_SUBGRAPHS, "subgraphs", "subgraph",
                      sizeof(lg_model_subgraph), lg_parse_subgraph, &subgraphs,
                      &m->num_subgraphs) ||
      !lg_item_tables(&root, MODEL_METADATA, "metadata", "metadata",
                      sizeof(lg_model_metadata), lg_parse_metadata, &metadata,
                      &m->num_metadata) ||
      !lg_item_tables(&root, MODEL_SIGNATURE_DEFS, "signature_defs",
                      "signature", sizeof(lg_model_signature),
                      lg_parse_signature, &signatures, &m->num_signatures)) {
    return false;
  }
  m->opcodes = opcodes;
  m->buffers = buffers;
  m->subgraphs = subgraphs;
  m->metadata = metadata;
  m->signatures = signatures;
  return true;
}

/* ---- Cross-checks --------------------------------------------------------*/

static bool lg_check_fail(lg_parser* p, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

static bool lg_check_fail(lg_parser* p, const char* format, ...) {
  va_list args;
  va_start(args, format);
  lg_reportv(p->reporter, format, args);
  va_end(args);
  return false;
}

/* Each index in `indices` must lie in [min, num_tensors). */
static bool lg_check_indices(lg_parser* p, const char* owner, const char* role,
                             const int32_t* indices, int32_t count, int32_t min,
                             int32_t num_tensors) {
  for (int32_t i = 0; i < count; ++i) {
    if (indices[i] < min || indices[i] >= num_tensors) {
      return lg_check_fail(p,
                           "%s: %s %d is tensor %d, but the subgraph has %d "
                           "tensors",
                           owner, role, i, indices[i], num_tensors);
    }
  }
  return true;
}

static bool lg_check_operator(lg_parser* p, const lg_model_subgraph* sg,
                              int32_t s, int32_t o) {
  const lg_model_operator* op = &sg->operators[o];
  char owner[64];
  snprintf(owner, sizeof(owner), "subgraph %d operator %d", s, o);
  if (op->opcode_index >= (uint32_t)p->model->num_opcodes) {
    return lg_check_fail(p,
                         "%s: opcode index %u is out of range, the model has "
                         "%d operator codes",
                         owner, op->opcode_index, p->model->num_opcodes);
  }
  /* -1 marks an omitted optional input. */
  return lg_check_indices(p, owner, "input", op->inputs, op->num_inputs, -1,
                          sg->num_tensors) &&
         lg_check_indices(p, owner, "output", op->outputs, op->num_outputs, 0,
                          sg->num_tensors) &&
         lg_check_indices(p, owner, "intermediate", op->intermediates,
                          op->num_intermediates, 0, sg->num_tensors);
}

/* The tensor's size in bytes from its shape and type, or false when it
 * overflows. Sub-byte types (INT4, UINT4, INT2) are packed, as TFLite stores
 * them. */
static bool model_tensor_data_bytes(const lg_model_tensor* t, unsigned bits,
                                    uint64_t* bytes) {
  /* Bounding the element count this way keeps count * bits + 7 in range. */
  const uint64_t max_count = UINT64_MAX / 8 / bits;
  uint64_t count = 1;
  for (int32_t d = 0; d < t->num_dims; ++d) {
    uint64_t dim = (uint64_t)t->shape[d];
    if (dim != 0 && count > max_count / dim) return false;
    count *= dim;
  }
  *bytes = (count * bits + 7) / 8;
  return *bytes <= SIZE_MAX;
}

void lg_model_sparse_layout(const lg_model_tensor* t, lg_sparse_layout* out) {
  const lg_model_sparsity* s = &t->sparsity;
  memset(out, 0, sizeof(*out));
  out->rank = t->num_dims;
  out->shape = t->shape;
  out->num_levels = s->num_traversal_order;
  out->traversal_order = s->traversal_order;
  out->num_blocks = s->num_block_map;
  out->block_map = s->block_map;
  for (int k = 0; k < s->num_levels && k < LG_SPARSE_MAX_LEVELS; ++k) {
    out->levels[k] = s->levels[k];
  }
}

/* A sparse tensor: constant, of whole-byte elements, with a layout that
 * places exactly its stored values inside its dense shape. A tensor
 * without stored values (every block zero) has an empty buffer; TFLite
 * densifies it to zeros. */
static bool lg_check_sparse_tensor(lg_parser* p, const lg_model_tensor* t,
                                   const lg_type_info* info,
                                   const char* owner) {
  const lg_model_buffer* buffer = &p->model->buffers[t->buffer];
  const lg_model_sparsity* s = &t->sparsity;
  const size_t elem = info->bits / 8;
  if (info->bits % 8 != 0 || buffer->size % elem != 0) {
    return lg_check_fail(p,
                         "%s: a sparse tensor must be a constant of whole-byte "
                         "elements (%s, %llu bytes of data)",
                         owner, info->name, (unsigned long long)buffer->size);
  }
  if (s->num_levels != s->num_traversal_order) {
    return lg_check_fail(p,
                         "%s: its sparsity has %d dim_metadata levels for %d "
                         "traversal_order entries",
                         owner, s->num_levels, s->num_traversal_order);
  }
  lg_sparse_layout layout;
  lg_model_sparse_layout(t, &layout);
  char why[192];
  if (!lg_sparse_check(&layout, buffer->size / elem, why, sizeof(why))) {
    return lg_check_fail(p, "%s: %s", owner, why);
  }
  return true;
}

static bool lg_check_tensor_data(lg_parser* p, const lg_model_tensor* t,
                                 const char* owner) {
  const lg_type_info* info = &lg_type_infos[t->schema_type];
  uint64_t bytes;
  if (info->bits == 0) return true; /* strings, resources, variants */
  if (!model_tensor_data_bytes(t, info->bits, &bytes)) {
    return lg_check_fail(p,
                         "%s: the byte size of its %s shape of %d dimensions "
                         "overflows",
                         owner, info->name, t->num_dims);
  }
  const lg_model_buffer* buffer = &p->model->buffers[t->buffer];
  /* Sparse tensors store only their non-zero blocks. */
  if (t->has_sparsity) return lg_check_sparse_tensor(p, t, info, owner);
  if (t->buffer == 0 || buffer->size == 0) return true;
  if (buffer->size != bytes) {
    return lg_check_fail(p,
                         "%s: constant buffer %u holds %llu bytes, but the %s "
                         "tensor's shape needs %llu bytes",
                         owner, t->buffer, (unsigned long long)buffer->size,
                         info->name, (unsigned long long)bytes);
  }
  return true;
}

static bool lg_check_tensor(lg_parser* p, const lg_model_tensor* t, int32_t s,
                            int32_t i) {
  char owner[128];
  snprintf(owner, sizeof(owner), "subgraph %d tensor %d ('%.48s')", s, i,
           t->name);
  if (t->buffer >= (uint32_t)p->model->num_buffers) {
    return lg_check_fail(p,
                         "%s: buffer index %u is out of range, the model has "
                         "%d buffers",
                         owner, t->buffer, p->model->num_buffers);
  }
  for (int32_t d = 0; d < t->num_dims; ++d) {
    if (t->shape[d] < 0) {
      return lg_check_fail(p,
                           "%s: dimension %d is %d, shape dimensions must "
                           "not be negative",
                           owner, d, t->shape[d]);
    }
  }
  return lg_check_tensor_data(p, t, owner);
}

static bool lg_check_subgraph(lg_parser* p, int32_t s) {
  const lg_model_subgraph* sg = &p->model->subgraphs[s];
  char owner[32];
  snprintf(owner, sizeof(owner), "subgraph %d", s);
  for (int32_t i = 0; i < sg->num_tensors; ++i) {
    if (!lg_check_tensor(p, &sg->tensors[i], s, i)) return false;
  }
  for (int32_t o = 0; o < sg->num_operators; ++o) {
    if (!lg_check_operator(p, sg, s, o)) return false;
  }
  return lg_check_indices(p, owner, "input", sg->inputs, sg->num_inputs, 0,
                          sg->num_tensors) &&
         lg_check_indices(p, owner, "output", sg->outputs, sg->num_outputs, 0,
                          sg->num_tensors);
}

static bool lg_check_tensor_maps(lg_parser* p, const lg_model_signature* sig,
                                 int32_t s, const char* role,
                                 const lg_model_tensor_map* maps,
                                 int32_t count) {
  int32_t num_tensors = p->model->subgraphs[sig->subgraph_index].num_tensors;
  for (int32_t i = 0; i < count; ++i) {
    if (maps[i].tensor_index >= (uint32_t)num_tensors) {
      return lg_check_fail(p,
                           "signature %d ('%.48s') %s %d ('%.48s'): tensor "
                           "index %u is out of range, subgraph %u has %d "
                           "tensors",
                           s, sig->key, role, i, maps[i].name,
                           maps[i].tensor_index, sig->subgraph_index,
                           num_tensors);
    }
  }
  return true;
}

static bool lg_check_signatures(lg_parser* p) {
  const lg_model* m = p->model;
  for (int32_t s = 0; s < m->num_signatures; ++s) {
    const lg_model_signature* sig = &m->signatures[s];
    if (sig->subgraph_index >= (uint32_t)m->num_subgraphs) {
      return lg_check_fail(p,
                           "signature %d ('%.48s'): subgraph index %u is out "
                           "of range, the model has %d subgraphs",
                           s, sig->key, sig->subgraph_index, m->num_subgraphs);
    }
    if (!lg_check_tensor_maps(p, sig, s, "input", sig->inputs,
                              sig->num_inputs) ||
        !lg_check_tensor_maps(p, sig, s, "output", sig->outputs,
                              sig->num_outputs)) {
      return false;
    }
  }
  return true;
}

static bool lg_check_model(lg_parser* p) {
  const lg_model* m = p->model;
  if (m->num_subgraphs < 1) {
    return lg_check_fail(p, "The model has no subgraphs.");
  }
  if (m->num_buffers > 0 && m->buffers[0].size != 0) {
    return lg_check_fail(
        p, "The 0th entry of the model buffer must be an empty buffer.");
  }
  for (int32_t s = 0; s < m->num_subgraphs; ++s) {
    if (!lg_check_subgraph(p, s)) return false;
  }
  for (int32_t i = 0; i < m->num_metadata; ++i) {
    if (m->metadata[i].buffer >= (uint32_t)m->num_buffers) {
      return lg_check_fail(p,
                           "metadata %d ('%.48s'): buffer index %u is out of "
                           "range, the model has %d buffers",
                           i, m->metadata[i].name, m->metadata[i].buffer,
                           m->num_buffers);
    }
  }
  return lg_check_signatures(p);
}

/* ---- Entry points --------------------------------------------------------*/

/* The checks TFLite makes before verifying: a buffer at all, room for the
 * root offset and identifier, and the "TFL3" identifier. */
static bool lg_check_header(const uint8_t* data, size_t size,
                            const lg_reporter* reporter) {
  if (data == NULL || size == 0) {
    lg_report(reporter,
              "The model is not a valid Flatbuffer buffer: the "
              "buffer is empty");
    return false;
  }
  if (size < 8) {
    lg_report(reporter,
              "The model is not a valid Flatbuffer buffer: %zu "
              "bytes is too small to hold the root offset and the file "
              "identifier",
              size);
    return false;
  }
  if (!lg_fb_buffer_has_identifier(data, size, "TFL3")) {
    /* Print unprintable bytes as '?': a NUL would cut the message short. */
    char id[4];
    for (int i = 0; i < 4; ++i) {
      id[i] =
          data[4 + i] >= 0x20 && data[4 + i] < 0x7f ? (char)data[4 + i] : '?';
    }
    lg_report(reporter,
              "Model provided has model identifier '%c%c%c%c', should be "
              "'TFL3'",
              id[0], id[1], id[2], id[3]);
    return false;
  }
  return true;
}

/* Points the model at `data`, or at a 16-byte aligned copy of it: typed
 * pointers into the buffer (shapes, constant data) need the alignment that
 * the file layout gives relative to its start. */
static bool lg_model_adopt(lg_model* m, const uint8_t* data, size_t size,
                           const lg_reporter* reporter) {
  if ((uintptr_t)data % LG_MODEL_ALIGNMENT == 0) {
    m->data = data;
    m->size = size;
    return true;
  }
  if (size > SIZE_MAX - LG_MODEL_ALIGNMENT) goto fail;
  size_t rounded =
      (size + LG_MODEL_ALIGNMENT - 1) & ~(size_t)(LG_MODEL_ALIGNMENT - 1);
  m->aligned_copy = aligned_alloc(LG_MODEL_ALIGNMENT, rounded);
  if (m->aligned_copy == NULL) goto fail;
  memcpy(m->aligned_copy, data, size);
  m->data = m->aligned_copy;
  m->size = size;
  return true;
fail:
  lg_report(reporter,
            "Out of memory: could not copy the %zu-byte model to an "
            "aligned buffer",
            size);
  return false;
}

TfLiteStatus lg_model_parse(const void* data, size_t size,
                            const lg_reporter* reporter, lg_model** out) {
  lg_parser parser = {.reporter = reporter};
  if (out == NULL) {
    lg_report(reporter, "lg_model_parse: out is NULL");
    return kTfLiteError;
  }
  *out = NULL;
  if (!lg_check_header(data, size, reporter)) return kTfLiteError;
  parser.model = calloc(1, sizeof(lg_model));
  if (parser.model == NULL) {
    lg_report(reporter, "Out of memory: could not allocate the model");
    goto fail;
  }
  if (!lg_model_adopt(parser.model, data, size, reporter)) goto fail;
  lg_fb_verifier_init(&parser.fb, parser.model->data, size);
  parser.elements_left =
      (uint64_t)LG_ELEMENTS_PER_WORD * (size / 4) + LG_ELEMENTS_FLOOR;
  if (!lg_parse_model(&parser) || !lg_check_model(&parser)) goto fail;
  *out = parser.model;
  return kTfLiteOk;
fail:
  lg_model_destroy(parser.model);
  return kTfLiteError;
}

/* Opens and maps `path`; NULL on failure (already reported). */
static void* lg_map_file(const char* path, const lg_reporter* reporter,
                         size_t* size) {
  void* map = NULL;
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    lg_report(reporter, "Could not open '%s': %s", path, strerror(errno));
    goto done;
  }
  if (fstat(fd, &st) != 0) {
    lg_report(reporter, "Could not stat '%s': %s", path, strerror(errno));
    goto done;
  }
  if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (uint64_t)st.st_size > SIZE_MAX) {
    lg_report(reporter, "Could not map '%s': %s", path,
              S_ISREG(st.st_mode) ? "the file is empty or too large"
                                  : "not a regular file");
    goto done;
  }
  *size = (size_t)st.st_size;
  map = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    lg_report(reporter, "Could not map '%s': %s", path, strerror(errno));
    map = NULL;
  }
done:
  if (fd >= 0) close(fd);
  return map;
}

TfLiteStatus lg_model_load_file(const char* path, const lg_reporter* reporter,
                                lg_model** out) {
  size_t size = 0;
  void* map = NULL;
  if (out == NULL || path == NULL) {
    lg_report(reporter, "lg_model_load_file: path or out is NULL");
    return kTfLiteError;
  }
  *out = NULL;
  map = lg_map_file(path, reporter, &size);
  if (map == NULL) goto fail;
  if (lg_model_parse(map, size, reporter, out) != kTfLiteOk) goto fail;
  /* The model owns the mapping from here on. */
  (*out)->mapping = map;
  (*out)->mapping_size = size;
  return kTfLiteOk;
fail:
  if (map != NULL) munmap(map, size);
  return kTfLiteError;
}

void lg_model_release_pages(const lg_model* model, const void* data,
                            size_t size) {
  if (model == NULL || model->mapping == NULL || data == NULL) return;
  const uintptr_t map_begin = (uintptr_t)model->mapping;
  const uintptr_t begin = (uintptr_t)data;
  if (begin < map_begin || begin - map_begin > model->mapping_size ||
      size > model->mapping_size - (begin - map_begin)) {
    return;
  }
  const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return;
  const uintptr_t page = (uintptr_t)page_size;
  /* Only whole pages: the partial ones at either end hold other bytes. */
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + size) / page * page;
  if (last <= first) return;
  /* Advice: where it fails the pages just stay resident. */
  (void)madvise((void*)first, last - first, MADV_DONTNEED);
}

bool lg_model_find_metadata(const lg_model* model, const char* name,
                            const uint8_t** data, size_t* size) {
  if (model == NULL || name == NULL) return false;
  for (int32_t i = 0; i < model->num_metadata; ++i) {
    const lg_model_metadata* entry = &model->metadata[i];
    if (strcmp(entry->name, name) != 0) continue;
    /* The buffer index was checked at parse time. */
    const lg_model_buffer* buffer = &model->buffers[entry->buffer];
    if (data != NULL) *data = buffer->data;
    if (size != NULL) *size = (size_t)buffer->size;
    return true;
  }
  return false;
}
