/* conf_builder: the model writer behind the cases (conformance.h).
 *
 * Every tensor is float32 unless a call names another type; constants get
 * seeded values from the builder's own generator, so a case's model is the
 * same bytes on every run. Outputs are written with the shapes the runner
 * learnt from the CPU kernels (first pass: [1], which Prepare resizes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/fp16.h"
#include "tests/conformance/conformance.h"

size_t conf_shape_elements(conf_shape shape) {
  size_t n = 1;
  for (int i = 0; i < shape.rank; ++i) n *= (size_t)shape.d[i];
  return n;
}

float conf_random(uint32_t* state) {
  /* xorshift32: state never 0. */
  uint32_t x = *state ? *state : 0x9e3779b9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return (float)(x >> 8) / 16777216.0f;
}

int conf_builder_init(conf_builder* b, int32_t case_op, uint32_t seed,
                      const conf_shape* out_shapes, int num_out_shapes) {
  memset(b, 0, sizeof(*b));
  b->writer = lg_model_writer_create(NULL);
  if (b->writer == NULL) return -1;
  lg_model_writer_set_auto_versions(b->writer, true);
  b->seed = seed ? seed : 1;
  b->case_op = case_op;
  b->case_node = -1;
  b->out_shapes = out_shapes;
  b->num_out_shapes = num_out_shapes;
  return 0;
}

TfLiteStatus conf_builder_finish(conf_builder* b, void** data, size_t* size) {
  int32_t inputs[CONF_MAX_IO];
  for (int i = 0; i < b->num_inputs; ++i) inputs[i] = b->inputs[i].tensor;
  lg_model_writer_set_inputs(b->writer, inputs, b->num_inputs);
  lg_model_writer_set_outputs(b->writer, b->outputs, b->num_outputs);
  TfLiteStatus status = lg_model_writer_finish(b->writer, data, size);
  conf_builder_discard(b);
  return status;
}

void conf_builder_discard(conf_builder* b) {
  lg_model_writer_destroy(b->writer);
  b->writer = NULL;
}

/* "t<k>" for the k-th tensor the builder adds (names are for reading). */
static const char* next_name(conf_builder* b, char* name, size_t size) {
  snprintf(name, size, "t%d", b->num_tensors++);
  return name;
}

/* A tensor of `shape` (buffer 0: no data), a variable one when asked. */
static int32_t add_tensor_of(conf_builder* b, TfLiteType type, conf_shape shape,
                             int32_t buffer, bool is_variable) {
  char name[32];
  lg_writer_tensor t = {.name = next_name(b, name, sizeof(name)),
                        .type = type,
                        .shape = shape.d,
                        .num_dims = shape.rank,
                        .buffer = buffer,
                        .is_variable = is_variable};
  return lg_model_writer_add_tensor(b->writer, &t);
}

static int32_t add_tensor(conf_builder* b, TfLiteType type, conf_shape shape,
                          int32_t buffer) {
  return add_tensor_of(b, type, shape, buffer, false);
}

int32_t conf_input_typed(conf_builder* b, TfLiteType type, conf_shape shape,
                         float lo, float hi) {
  if (b->num_inputs >= CONF_MAX_IO) return -1;
  const int32_t t = add_tensor(b, type, shape, 0);
  if (t < 0) return -1;
  b->inputs[b->num_inputs++] =
      (conf_input_spec){.tensor = t, .type = type, .lo = lo, .hi = hi};
  return t;
}

int32_t conf_input(conf_builder* b, conf_shape shape, float lo, float hi) {
  return conf_input_typed(b, kTfLiteFloat32, shape, lo, hi);
}

int32_t conf_const_f32(conf_builder* b, conf_shape shape, const float* values) {
  char name[32];
  return lg_model_writer_add_const_tensor(
      b->writer, next_name(b, name, sizeof(name)), kTfLiteFloat32, shape.d,
      shape.rank, values, conf_shape_elements(shape) * sizeof(float));
}

int32_t conf_weights(conf_builder* b, conf_shape shape, float lo, float hi) {
  const size_t n = conf_shape_elements(shape);
  float* v = malloc((n ? n : 1) * sizeof(float));
  if (v == NULL) return -1;
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * conf_random(&b->seed);
  const int32_t t = conf_const_f32(b, shape, v);
  free(v);
  return t;
}

int32_t conf_weights_f16(conf_builder* b, conf_shape shape, float lo,
                         float hi) {
  const size_t n = conf_shape_elements(shape);
  uint16_t* v = malloc((n ? n : 1) * sizeof(uint16_t));
  if (v == NULL) return -1;
  for (size_t i = 0; i < n; ++i) {
    v[i] = lg_fp32_to_fp16(lo + (hi - lo) * conf_random(&b->seed));
  }
  char name[32];
  const int32_t t = lg_model_writer_add_const_tensor(
      b->writer, next_name(b, name, sizeof(name)), kTfLiteFloat16, shape.d,
      shape.rank, v, n * sizeof(uint16_t));
  free(v);
  return t;
}

int32_t conf_weights_int8(conf_builder* b, conf_shape shape, float scale) {
  const size_t n = conf_shape_elements(shape);
  int8_t* v = malloc(n ? n : 1);
  if (v == NULL) return -1;
  for (size_t i = 0; i < n; ++i) {
    v[i] = (int8_t)(-127 + (int)(255.0f * conf_random(&b->seed)));
  }
  const int32_t buffer = lg_model_writer_add_buffer(b->writer, v, n);
  free(v);
  if (buffer < 0) return -1;
  const int64_t zero_point = 0;
  const lg_writer_quantization q = {.scale = &scale,
                                    .num_scale = 1,
                                    .zero_point = &zero_point,
                                    .num_zero_point = 1};
  char name[32];
  const lg_writer_tensor t = {.name = next_name(b, name, sizeof(name)),
                              .type = kTfLiteInt8,
                              .shape = shape.d,
                              .num_dims = shape.rank,
                              .buffer = buffer,
                              .quantization = &q};
  return lg_model_writer_add_tensor(b->writer, &t);
}

int32_t conf_const_i32(conf_builder* b, conf_shape shape,
                       const int32_t* values) {
  char name[32];
  return lg_model_writer_add_const_tensor(
      b->writer, next_name(b, name, sizeof(name)), kTfLiteInt32, shape.d,
      shape.rank, values, conf_shape_elements(shape) * sizeof(int32_t));
}

int32_t conf_const_i32_vec(conf_builder* b, int count, const int32_t* values) {
  conf_shape s = {.rank = 1, .d = {count}};
  return conf_const_i32(b, s, values);
}

int32_t conf_variable(conf_builder* b, conf_shape shape) {
  return add_tensor_of(b, kTfLiteFloat32, shape, 0, true);
}

int32_t conf_intermediate(conf_builder* b, TfLiteType type, conf_shape shape) {
  return add_tensor(b, type, shape, 0);
}

int32_t conf_sparse_weights(conf_builder* b, TfLiteType type, int rows,
                            int cols, float lo, float hi) {
  const size_t n = (size_t)rows * (size_t)cols;
  const size_t elem = type == kTfLiteFloat16 ? 2 : 4;
  int32_t* segments = malloc(sizeof(int32_t) * ((size_t)rows + 1));
  int32_t* indices = malloc(sizeof(int32_t) * (n + 1));
  unsigned char* values = malloc(elem * (n + 1));
  int32_t t = -1;
  if (segments != NULL && indices != NULL && values != NULL) {
    int32_t kept = 0;
    segments[0] = 0;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        if (conf_random(&b->seed) >= 1.0f / 3.0f) continue;
        const float v = lo + (hi - lo) * conf_random(&b->seed);
        const uint16_t h = lg_fp32_to_fp16(v);
        memcpy(values + (size_t)kept * elem, elem == 2 ? (const void*)&h : &v,
               elem);
        indices[kept++] = c;
      }
      segments[r + 1] = kept;
    }
    const int32_t order[2] = {0, 1};
    const lg_writer_sparse_level levels[2] = {
        {.csr = false, .dense_size = rows},
        {.csr = true,
         .segments = segments,
         .num_segments = rows + 1,
         .indices = indices,
         .num_indices = kept}};
    const lg_writer_sparsity sparsity = {.traversal_order = order,
                                         .num_traversal_order = 2,
                                         .levels = levels,
                                         .num_levels = 2};
    const int32_t buffer =
        lg_model_writer_add_buffer(b->writer, values, (size_t)kept * elem);
    const int32_t shape[2] = {rows, cols};
    char name[32];
    const lg_writer_tensor tensor = {.name = next_name(b, name, sizeof(name)),
                                     .type = type,
                                     .shape = shape,
                                     .num_dims = 2,
                                     .buffer = buffer,
                                     .sparsity = &sparsity};
    if (buffer >= 0) t = lg_model_writer_add_tensor(b->writer, &tensor);
  }
  free(segments);
  free(indices);
  free(values);
  return t;
}

int32_t conf_intermediate_quant(conf_builder* b, TfLiteType type,
                                conf_shape shape, float scale,
                                int64_t zero_point) {
  char name[32];
  const lg_writer_quantization q = {.scale = &scale,
                                    .num_scale = 1,
                                    .zero_point = &zero_point,
                                    .num_zero_point = 1};
  lg_writer_tensor t = {.name = next_name(b, name, sizeof(name)),
                        .type = type,
                        .shape = shape.d,
                        .num_dims = shape.rank,
                        .quantization = &q};
  return lg_model_writer_add_tensor(b->writer, &t);
}

int32_t conf_output_typed(conf_builder* b, TfLiteType type) {
  if (b->num_outputs >= CONF_MAX_IO) return -1;
  conf_shape shape = CONF_SHAPE(1);
  if (b->out_shapes != NULL && b->num_outputs < b->num_out_shapes) {
    shape = b->out_shapes[b->num_outputs];
  }
  const int32_t t = add_tensor(b, type, shape, 0);
  if (t < 0) return -1;
  b->outputs[b->num_outputs++] = t;
  return t;
}

int32_t conf_output(conf_builder* b) {
  return conf_output_typed(b, kTfLiteFloat32);
}

int conf_op(conf_builder* b, int32_t code, int version, const int32_t* inputs,
            int num_inputs, const int32_t* outputs, int num_outputs,
            const void* params) {
  for (int i = 0; i < num_inputs; ++i) {
    if (inputs[i] < -1) return -1; /* an earlier call failed */
  }
  for (int i = 0; i < num_outputs; ++i) {
    if (outputs[i] < 0) return -1;
  }
  const int32_t index =
      lg_model_writer_add_operator(b->writer, code, version, inputs, num_inputs,
                                   outputs, num_outputs, params);
  if (index < 0) return -1;
  if (code == b->case_op && b->case_node < 0) b->case_node = index;
  b->num_ops++;
  return index;
}

int conf_custom_op(conf_builder* b, const char* name, const int32_t* inputs,
                   int num_inputs, const int32_t* outputs, int num_outputs,
                   const void* options, size_t options_size) {
  for (int i = 0; i < num_inputs; ++i) {
    if (inputs[i] < -1) return -1;
  }
  for (int i = 0; i < num_outputs; ++i) {
    if (outputs[i] < 0) return -1;
  }
  const int32_t index = lg_model_writer_add_custom_operator(
      b->writer, name, 1, inputs, num_inputs, outputs, num_outputs, options,
      options_size);
  if (index < 0) return -1;
  if (b->case_op == kTfLiteBuiltinCustom && b->case_node < 0) {
    b->case_node = index;
  }
  b->num_ops++;
  return index;
}

int conf_op1(conf_builder* b, int32_t code, const int32_t* inputs,
             int num_inputs, const void* params) {
  const int32_t out = conf_output(b);
  return conf_op(b, code, 0, inputs, num_inputs, &out, 1, params);
}

/* ---- Case lists ---------------------------------------------------------- */

conf_case* conf_case_add(conf_case_list* list, int32_t op, conf_build_fn build,
                         const void* args, TfLiteFusedActivation act,
                         double tol, const char* format, ...) {
  if (list->count == list->capacity) {
    const int capacity = list->capacity ? 2 * list->capacity : 256;
    conf_case* items = realloc(list->items, (size_t)capacity * sizeof(*items));
    if (items == NULL) {
      fprintf(stderr, "litegpu_conformance: out of memory\n");
      exit(2);
    }
    list->items = items;
    list->capacity = capacity;
  }
  conf_case* c = &list->items[list->count++];
  memset(c, 0, sizeof(*c));
  va_list args_list;
  va_start(args_list, format);
  vsnprintf(c->name, sizeof(c->name), format, args_list);
  va_end(args_list);
  c->op = op;
  c->build = build;
  c->args = args;
  c->act = act;
  c->tol = tol;
  return c;
}

const char* conf_act_name(TfLiteFusedActivation act) {
  switch (act) {
    case kTfLiteActNone:
      return "none";
    case kTfLiteActRelu:
      return "relu";
    case kTfLiteActReluN1To1:
      return "relu_n1_to_1";
    case kTfLiteActRelu6:
      return "relu6";
    case kTfLiteActTanh:
      return "tanh";
    case kTfLiteActSignBit:
      return "sign_bit";
    case kTfLiteActSigmoid:
      return "sigmoid";
  }
  return "?";
}
