/* The parsed form of a .tflite model.
 *
 * lg_model_parse() verifies a whole .tflite FlatBuffer once (every offset,
 * length, alignment, vtable, string, vector and index range) and fills these
 * plain structs. Strings, shapes, index vectors and constant data point into
 * the model buffer (zero copy); the arrays of structs are owned by the
 * lg_model. After a successful parse every index in these structs is in
 * range, so the rest of the runtime reads them without further checks.
 *
 * Lifetime: the lg_model borrows `data` unless it was created by
 * lg_model_load_file (which maps the file and owns the mapping).
 * Thread safety: an lg_model is immutable once parsed.
 */
#ifndef LITEGPU_RUNTIME_MODEL_MODEL_H_
#define LITEGPU_RUNTIME_MODEL_MODEL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/report.h"
#include "base/sparse_layout.h"
#include "runtime/model/flatbuffer.h"
#include "tensorflow/lite/c/c_api_types.h"

/* The schema's per-tensor quantization parameters (vectors may be empty). */
typedef struct lg_model_quantization {
  const float* min;
  int32_t num_min;
  const float* max;
  int32_t num_max;
  const float* scale;
  int32_t num_scale;
  const int64_t* zero_point;
  int32_t num_zero_point;
  int32_t quantized_dimension;
  uint8_t details_type; /* 0 = none; other kinds are not executed */
} lg_model_quantization;

/* The schema's SparsityParameters: traversal order, block map and one
 * level per traversal position (base/sparse_layout.h), index vectors
 * pointing into the model. Verified against the tensor's shape and buffer
 * at load. */
typedef struct lg_model_sparsity {
  const int32_t* traversal_order;
  int32_t num_traversal_order;
  const int32_t* block_map;
  int32_t num_block_map;
  lg_sparse_level* levels;
  int32_t num_levels;
} lg_model_sparsity;

typedef struct lg_model_tensor {
  const int32_t* shape; /* NULL when num_dims is 0 */
  int32_t num_dims;
  const int32_t* shape_signature; /* NULL when absent */
  int32_t num_dims_signature;     /* -1 when absent */
  int8_t schema_type;             /* the schema's TensorType */
  TfLiteType type;                /* the runtime's TfLiteType */
  uint32_t buffer;                /* 0 = no constant data */
  const char* name;               /* "" when absent */
  bool has_quantization;
  lg_model_quantization quantization;
  bool is_variable;
  bool has_sparsity; /* DENSIFY turns them dense; other kernels refuse */
  lg_model_sparsity sparsity;
  bool has_rank;
} lg_model_tensor;

typedef struct lg_model_operator {
  uint32_t opcode_index;
  const int32_t* inputs; /* -1 = omitted optional input */
  int32_t num_inputs;
  const int32_t* outputs;
  int32_t num_outputs;
  const int32_t* intermediates;
  int32_t num_intermediates;
  uint8_t builtin_options_type; /* BuiltinOptions union index, 0 = none */
  lg_fb_table builtin_options;  /* absent when builtin_options_type is 0 */
  uint8_t builtin_options_2_type;
  lg_fb_table builtin_options_2;
  const uint8_t* custom_options; /* NULL when absent */
  size_t custom_options_size;
} lg_model_operator;

typedef struct lg_model_subgraph {
  lg_model_tensor* tensors;
  int32_t num_tensors;
  const int32_t* inputs;
  int32_t num_inputs;
  const int32_t* outputs;
  int32_t num_outputs;
  lg_model_operator* operators; /* in execution order */
  int32_t num_operators;
  const char* name; /* "" when absent */
} lg_model_subgraph;

typedef struct lg_model_opcode {
  int32_t builtin_code;    /* max(builtin_code, deprecated_builtin_code) */
  const char* custom_code; /* NULL when absent */
  int32_t version;         /* schema default 1 */
} lg_model_opcode;

typedef struct lg_model_buffer {
  const uint8_t* data; /* NULL when empty; from `data` or offset/size */
  uint64_t size;
} lg_model_buffer;

typedef struct lg_model_metadata {
  const char* name;
  uint32_t buffer;
} lg_model_metadata;

typedef struct lg_model_tensor_map {
  const char* name;
  uint32_t tensor_index;
} lg_model_tensor_map;

typedef struct lg_model_signature {
  lg_model_tensor_map* inputs;
  int32_t num_inputs;
  lg_model_tensor_map* outputs;
  int32_t num_outputs;
  const char* key; /* "" when absent */
  uint32_t subgraph_index;
} lg_model_signature;

typedef struct lg_model {
  const uint8_t* data; /* the whole model buffer */
  size_t size;
  uint32_t version; /* schema version, 3 */
  lg_model_opcode* opcodes;
  int32_t num_opcodes;
  lg_model_subgraph* subgraphs; /* subgraph 0 is the main graph */
  int32_t num_subgraphs;
  lg_model_buffer* buffers; /* buffer 0 is the empty sentinel */
  int32_t num_buffers;
  lg_model_metadata* metadata;
  int32_t num_metadata;
  lg_model_signature* signatures;
  int32_t num_signatures;
  const char* description; /* "" when absent */

  /* Storage owned by the model (private to model.c). */
  void* mapping; /* mmap'ed file, or NULL */
  size_t mapping_size;
  void* aligned_copy; /* copy of a misaligned caller buffer, or NULL */
  void* allocations;  /* the parsed arrays */
} lg_model;

/* Verifies and parses `size` bytes at `data`. The buffer must outlive the
 * model. A buffer not aligned to 16 bytes is copied first. On failure reports
 * a message naming the problem through `reporter` and returns kTfLiteError. */
TfLiteStatus lg_model_parse(const void* data, size_t size,
                            const lg_reporter* reporter, lg_model** out);

/* Maps `path` read-only and parses it; the model owns the mapping. */
TfLiteStatus lg_model_load_file(const char* path, const lg_reporter* reporter,
                                lg_model** out);

/* NULL is a no-op. */
void lg_model_destroy(lg_model* model);

/* Drops the resident pages of the model's file mapping that lie wholly
 * inside [data, data + size) (MADV_DONTNEED): the mapping is read-only and
 * private, so reading them again faults them back in from the file, and
 * the bytes every reader sees never change. Does nothing where the model
 * does not own a mapping (a caller's buffer, or its aligned copy: neither
 * is the model's to drop) or the range is not inside it. */
void lg_model_release_pages(const lg_model* model, const void* data,
                            size_t size);

/* The metadata entry `name`: its buffer's bytes, or false when absent. */
bool lg_model_find_metadata(const lg_model* model, const char* name,
                            const uint8_t** data, size_t* size);

/* The runtime type of a schema TensorType; kTfLiteNoType when unknown. */
TfLiteType lg_model_convert_tensor_type(int8_t schema_type);

/* The schema TensorType of a runtime type; -1 when it has none. */
int8_t lg_model_schema_tensor_type(TfLiteType type);

/* The sparse layout of a tensor with has_sparsity (valid after a
 * successful parse, which checked it). */
void lg_model_sparse_layout(const lg_model_tensor* t, lg_sparse_layout* out);

#endif /* LITEGPU_RUNTIME_MODEL_MODEL_H_ */
