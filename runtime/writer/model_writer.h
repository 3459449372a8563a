/* The model writer: builds .tflite files (FlatBuffers, identifier "TFL3",
 * schema version 3) from C. Tests, tools and the demo use it; the files it
 * writes load and run in LiteRT itself.
 *
 * The writer collects a model piece by piece and serializes it only in
 * lg_model_writer_finish / lg_model_writer_write_file, so pieces may be added
 * in any order as long as every index an item refers to already exists:
 * add buffers before the tensors that use them, tensors before the operators,
 * subgraph inputs/outputs and signatures that name them.
 *
 *   lg_model_writer* w = lg_model_writer_create(NULL);
 *   int32_t shape[] = {1, 5};
 *   lg_writer_tensor x = {.name = "x", .type = kTfLiteFloat32,
 *                         .shape = shape, .num_dims = 2};
 *   int32_t in = lg_model_writer_add_tensor(w, &x);
 *   int32_t c = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32,
 *                                                shape, 2, values, 20);
 *   x.name = "y";
 *   int32_t out = lg_model_writer_add_tensor(w, &x);
 *   int32_t ins[] = {in, c};
 *   lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, ins, 2, &out, 1,
 *                                NULL);
 *   lg_model_writer_set_inputs(w, &in, 1);
 *   lg_model_writer_set_outputs(w, &out, 1);
 *   TfLiteStatus s = lg_model_writer_write_file(w, "add.tflite");
 *   lg_model_writer_destroy(w);
 *
 * Errors: a failing call (bad index, unknown type, out of memory, ...)
 * reports a message naming the problem through the reporter and returns -1 or
 * kTfLiteError. The writer remembers the first failure (see
 * lg_model_writer_error) and finish/write_file then fail, so a builder may
 * check only the final status.
 *
 * Ownership: every add_* call copies what it is given, except
 * lg_model_writer_add_buffer_ref, which borrows the data until the writer is
 * destroyed. Thread safety: a writer is used by one thread at a time.
 *
 * Layout written (see model_writer.c for the details): schema defaults are
 * omitted as FlatBuffers writers do; buffer data is 16-byte aligned; with
 * external buffers (lg_model_writer_set_external_buffers) constant data
 * follows the FlatBuffer, each piece 16-byte aligned, and Buffer.offset
 * counts from the start of the file, as TFLite writes models over 2 GB.
 */
#ifndef LITEGPU_RUNTIME_WRITER_MODEL_WRITER_H_
#define LITEGPU_RUNTIME_WRITER_MODEL_WRITER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/report.h"
#include "tensorflow/lite/c/c_api_types.h"

typedef struct lg_model_writer lg_model_writer;

/* Quantization parameters of a tensor. Arrays may be NULL when their count is
 * 0. A non-empty scale needs a zero_point of the same length; more than one
 * scale is per-channel along quantized_dimension. */
typedef struct lg_writer_quantization {
  const float* scale;
  int num_scale;
  const int64_t* zero_point;
  int num_zero_point;
  int32_t quantized_dimension;
  const float* min; /* optional calibration range */
  int num_min;
  const float* max;
  int num_max;
} lg_writer_quantization;

/* One level of a sparse tensor's layout (the schema's DimensionMetadata):
 * DENSE with its dense_size, or SPARSE_CSR with its segments and indices
 * (written as Int32Vector). */
typedef struct lg_writer_sparse_level {
  bool csr;
  int32_t dense_size;
  const int32_t* segments;
  int num_segments;
  const int32_t* indices;
  int num_indices;
} lg_writer_sparse_level;

/* A sparse tensor's layout (the schema's SparsityParameters), written as
 * given: the reader checks it against the shape and the stored values. */
typedef struct lg_writer_sparsity {
  const int32_t* traversal_order;
  int num_traversal_order;
  const int32_t* block_map;
  int num_block_map;
  const lg_writer_sparse_level* levels;
  int num_levels;
} lg_writer_sparsity;

typedef struct lg_writer_tensor {
  const char* name; /* NULL writes "" */
  TfLiteType type;
  const int32_t* shape; /* num_dims entries, each >= 0 */
  int num_dims;
  /* NULL: absent. Otherwise num_dims entries, -1 for an unknown dimension. */
  const int32_t* shape_signature;
  int32_t buffer; /* 0 = no constant data */
  bool is_variable;
  bool has_rank;
  const lg_writer_quantization* quantization; /* NULL: none */
  const lg_writer_sparsity* sparsity;         /* NULL: dense */
} lg_writer_tensor;

/* One named signature input or output. */
typedef struct lg_writer_tensor_map {
  const char* name;
  int32_t tensor; /* index in the signature's subgraph */
} lg_writer_tensor_map;

/* A new writer holding subgraph 0 (current) and the empty buffer 0.
 * `reporter` is copied; NULL reports to stderr. NULL when out of memory. */
lg_model_writer* lg_model_writer_create(const lg_reporter* reporter);

/* NULL is a no-op. */
void lg_model_writer_destroy(lg_model_writer* w);

/* Replaces the reporter (copied; NULL reports to stderr). */
void lg_model_writer_set_reporter(lg_model_writer* w,
                                  const lg_reporter* reporter);

/* The first error's message, or NULL while every call succeeded. */
const char* lg_model_writer_error(const lg_model_writer* w);

/* Adds a constant buffer (copied) and returns its index (>= 1), or -1. */
int32_t lg_model_writer_add_buffer(lg_model_writer* w, const void* data,
                                   size_t size);

/* Like add_buffer, but borrows `data`, which must stay valid and unchanged
 * until the writer is destroyed: large weights are then copied only once,
 * into the output. */
int32_t lg_model_writer_add_buffer_ref(lg_model_writer* w, const void* data,
                                       size_t size);

/* Adds a tensor to the current subgraph; returns its index there, or -1. */
int32_t lg_model_writer_add_tensor(lg_model_writer* w,
                                   const lg_writer_tensor* tensor);

/* A buffer holding a copy of `data` plus a tensor using it. For types of a
 * fixed element size, `bytes` must equal the element count times that size.
 * Returns the tensor index, or -1. */
int32_t lg_model_writer_add_const_tensor(lg_model_writer* w, const char* name,
                                         TfLiteType type, const int32_t* shape,
                                         int num_dims, const void* data,
                                         size_t bytes);

/* Appends a builtin operator (kTfLiteBuiltin*) to the current subgraph and
 * returns its index there, or -1. `params` is the op's TfLite*Params struct
 * (builtin_op_data.h) or NULL for the schema defaults; it is written into the
 * op's BuiltinOptions table, fields equal to their schema default omitted.
 * Enum fields set to their "unknown" value (kTfLitePaddingUnknown,
 * kTfLiteMirrorPaddingUnknown, kTfLiteActSigmoid, ...) have no schema value
 * and are errors, except a TfLiteType of kTfLiteNoType, which means "the
 * schema default". Inputs may be -1 (an omitted optional input). Operator
 * codes are shared by (code, version). */
int32_t lg_model_writer_add_operator(lg_model_writer* w, int32_t builtin_code,
                                     int version, const int32_t* inputs,
                                     int num_inputs, const int32_t* outputs,
                                     int num_outputs, const void* params);

/* The version argument of lg_model_writer_add_operator that asks the writer
 * to compute the version (auto versions must be on). */
#define LG_MODEL_WRITER_VERSION_AUTO 0

/* Auto versions (off by default), as TensorFlow's converter stamps them:
 *   - lg_model_writer_add_operator accepts LG_MODEL_WRITER_VERSION_AUTO and
 *     writes the version lg_op_version (versioning/op_version.h) computes
 *     from the operator's tensors, as added so far, and its params (NULL:
 *     the schema defaults). An op without version rules is an error.
 *   - finish/write_file write the model's minimum runtime version
 *     (versioning/runtime_version.h, the latest over every builtin
 *     operator's (code, version)) into "min_runtime_version", unless
 *     lg_model_writer_set_min_runtime_version was called. */
void lg_model_writer_set_auto_versions(lg_model_writer* w, bool enable);

/* Appends a CUSTOM operator named `custom_name` whose custom_options are a
 * copy of `options` (NULL/0: none). Returns its index, or -1. */
int32_t lg_model_writer_add_custom_operator(
    lg_model_writer* w, const char* custom_name, int version,
    const int32_t* inputs, int num_inputs, const int32_t* outputs,
    int num_outputs, const void* options, size_t options_size);

/* The current subgraph's input and output tensors (replacing earlier ones). */
TfLiteStatus lg_model_writer_set_inputs(lg_model_writer* w,
                                        const int32_t* tensors, int count);
TfLiteStatus lg_model_writer_set_outputs(lg_model_writer* w,
                                         const int32_t* tensors, int count);

/* Adds a subgraph (name may be NULL), makes it current, returns its index. */
int32_t lg_model_writer_add_subgraph(lg_model_writer* w, const char* name);

/* Makes an existing subgraph current. */
TfLiteStatus lg_model_writer_select_subgraph(lg_model_writer* w, int32_t index);

/* Names the current subgraph (NULL removes the name). */
TfLiteStatus lg_model_writer_set_subgraph_name(lg_model_writer* w,
                                               const char* name);

/* Adds a SignatureDef `key` over `subgraph`; returns its index, or -1. */
int32_t lg_model_writer_add_signature(lg_model_writer* w, const char* key,
                                      int32_t subgraph,
                                      const lg_writer_tensor_map* inputs,
                                      int num_inputs,
                                      const lg_writer_tensor_map* outputs,
                                      int num_outputs);

/* Adds a Metadata entry `name` whose buffer holds a copy of `data`. Names are
 * unique; "min_runtime_version" and "buffer_location" are reserved for the
 * setters below. Returns the metadata index, or -1. */
int32_t lg_model_writer_add_metadata(lg_model_writer* w, const char* name,
                                     const void* data, size_t size);

/* Writes the "min_runtime_version" metadata as TFLite does: a 16-byte buffer,
 * zero-filled, holding the version string without its terminator. Versions
 * of 16 characters or more are rejected. A second call replaces the value. */
TfLiteStatus lg_model_writer_set_min_runtime_version(lg_model_writer* w,
                                                     const char* version);

/* The Model.description string (NULL removes it). */
TfLiteStatus lg_model_writer_set_description(lg_model_writer* w,
                                             const char* description);

/* Stores constant buffers (those from add_buffer, add_buffer_ref and
 * add_const_tensor that are not empty) after the FlatBuffer, through
 * Buffer.offset/size, and adds the "buffer_location" metadata, as TFLite
 * does for models over 2 GB. The writer switches this on by itself when the
 * FlatBuffer would otherwise exceed 2 GB. Metadata buffers stay inline. */
void lg_model_writer_set_external_buffers(lg_model_writer* w, bool enable);

/* Serializes the model into a malloc'd block, 16-byte aligned, that the
 * caller frees. The writer stays usable; finishing again gives the same
 * bytes. */
TfLiteStatus lg_model_writer_finish(lg_model_writer* w, void** data,
                                    size_t* size);

/* Serializes the model into the file `path` (replaced). External buffers are
 * written straight from their source, with no intermediate copy. On failure
 * the file is removed. */
TfLiteStatus lg_model_writer_write_file(lg_model_writer* w, const char* path);

#endif /* LITEGPU_RUNTIME_WRITER_MODEL_WRITER_H_ */
