/* make_test_model: writes small named .tflite test models with the model
 * writer (runtime/writer/model_writer.h).
 *
 *   make_test_model NAME OUT.tflite [SIZE]
 *
 * The constants below are repeated in tests/python/test_writer_litert.py,
 * which runs each model in LiteRT and checks its outputs; change both
 * together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tools/tool_help.h"

#define LG_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* add_const: y = x + c, x float32[1,5]. */
static const float kAddConst[5] = {0.5f, -1.0f, 2.0f, 3.25f, -4.0f};
/* fc_relu: y = relu(x W^T + b), x [2,3], W [4,3], b [4]. */
static const float kFcWeights[12] = {1.0f, 2.0f,  3.0f, -1.0f, -2.0f, -3.0f,
                                     0.5f, -0.5f, 1.0f, 2.0f,  0.0f,  -1.0f};
static const float kFcBias[4] = {0.5f, -1.0f, 0.0f, 0.25f};
/* two_subgraphs: subgraph 0 adds kTwoAdd, subgraph 1 squares. */
static const float kTwoAdd[4] = {1.0f, 2.0f, 3.0f, 4.0f};
/* quant_dequant: int8 with scale 0.5 and zero point -3. */
static const float kQuantScale = 0.5f;
static const int64_t kQuantZeroPoint = -3;

typedef struct lg_tool_model {
  lg_model_writer* w;
  float* big; /* big_weights: the weights, borrowed by the writer */
  char summary[256];
} lg_tool_model;

static int32_t add_f32(lg_model_writer* w, const char* name,
                       const int32_t* shape, int num_dims) {
  lg_writer_tensor t = {.name = name,
                        .type = kTfLiteFloat32,
                        .shape = shape,
                        .num_dims = num_dims};
  return lg_model_writer_add_tensor(w, &t);
}

static void set_io(lg_model_writer* w, int32_t in, int32_t out) {
  lg_model_writer_set_inputs(w, &in, 1);
  lg_model_writer_set_outputs(w, &out, 1);
}

/* y = x + c in the current subgraph; returns nothing, errors stick. */
static void build_add(lg_model_writer* w, const char* in_name,
                      const char* out_name, const float* c,
                      const int32_t* shape, int num_dims, size_t bytes) {
  int32_t x = add_f32(w, in_name, shape, num_dims);
  int32_t k = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, shape,
                                               num_dims, c, bytes);
  int32_t y = add_f32(w, out_name, shape, num_dims);
  int32_t inputs[] = {x, k};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, inputs, 2, &y, 1, NULL);
  set_io(w, x, y);
}

static void build_add_const(lg_tool_model* m) {
  static const int32_t shape[] = {1, 5};
  static const char note[] = "add_const";
  lg_model_writer* w = m->w;
  build_add(w, "x", "y", kAddConst, shape, 2, sizeof(kAddConst));
  lg_writer_tensor_map in = {"x", 0}, out = {"y", 2};
  lg_model_writer_add_signature(w, "serving_default", 0, &in, 1, &out, 1);
  lg_model_writer_set_subgraph_name(w, "main");
  lg_model_writer_set_description(w, "litegpu add_const test model");
  lg_model_writer_set_min_runtime_version(w, "1.5.0");
  lg_model_writer_add_metadata(w, "litegpu_note", note, sizeof(note) - 1);
  snprintf(m->summary, sizeof(m->summary),
           "ADD(x[1,5], c[1,5]) -> y[1,5], signature serving_default");
}

static void build_external_buffers(lg_tool_model* m) {
  build_add_const(m);
  lg_model_writer_set_external_buffers(m->w, true);
  snprintf(m->summary, sizeof(m->summary),
           "ADD(x[1,5], c[1,5]) -> y[1,5], constants after the FlatBuffer");
}

static void build_fc_relu(lg_tool_model* m) {
  static const int32_t in_shape[] = {2, 3}, w_shape[] = {4, 3};
  static const int32_t b_shape[] = {4}, out_shape[] = {2, 4};
  lg_model_writer* w = m->w;
  int32_t x = add_f32(w, "x", in_shape, 2);
  int32_t wt = lg_model_writer_add_const_tensor(
      w, "weights", kTfLiteFloat32, w_shape, 2, kFcWeights, sizeof(kFcWeights));
  int32_t b = lg_model_writer_add_const_tensor(
      w, "bias", kTfLiteFloat32, b_shape, 1, kFcBias, sizeof(kFcBias));
  int32_t y = add_f32(w, "y", out_shape, 2);
  TfLiteFullyConnectedParams params = {.activation = kTfLiteActRelu};
  int32_t inputs[] = {x, wt, b};
  lg_model_writer_add_operator(w, kTfLiteBuiltinFullyConnected, 1, inputs, 3,
                               &y, 1, &params);
  set_io(w, x, y);
  snprintf(m->summary, sizeof(m->summary),
           "FULLY_CONNECTED(x[2,3], W[4,3], b[4], RELU) -> y[2,4]");
}

static void build_add_atan(lg_tool_model* m) {
  static const int32_t shape[] = {5}, one_shape[] = {1};
  static const float one = 1.0f;
  lg_model_writer* w = m->w;
  int32_t x = add_f32(w, "x", shape, 1);
  int32_t c = lg_model_writer_add_const_tensor(w, "offset", kTfLiteFloat32,
                                               one_shape, 1, &one, sizeof(one));
  int32_t t = add_f32(w, "x_plus_offset", shape, 1);
  int32_t y = add_f32(w, "y", shape, 1);
  int32_t add_in[] = {x, c};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, add_in, 2, &t, 1, NULL);
  lg_model_writer_add_custom_operator(w, "Atan", 1, &t, 1, &y, 1, NULL, 0);
  set_io(w, x, y);
  snprintf(m->summary, sizeof(m->summary),
           "ADD(x[5], 1.0[1]) -> t[5], Atan(t) -> y[5] (custom op)");
}

/* Splits `floats` weights into [units, in] with `in` dividing the count. */
static int32_t big_inner_size(size_t floats) {
  static const int32_t candidates[] = {1000, 256, 100, 64, 16, 10, 4, 2};
  for (int i = 0; i < LG_COUNT(candidates); ++i) {
    if (floats % (size_t)candidates[i] == 0) return candidates[i];
  }
  return 1;
}

static int build_big_weights(lg_tool_model* m, const char* size_arg) {
  char* end = NULL;
  unsigned long long size = size_arg ? strtoull(size_arg, &end, 10) : 0;
  if (size_arg == NULL || *end != '\0' || size < 4 || size % 4 != 0 ||
      size / 4 > 0x7FFFFFFFull) {
    fprintf(stderr, "big_weights needs SIZE: a multiple of 4 bytes\n");
    return 1;
  }
  size_t floats = (size_t)size / 4;
  int32_t in = big_inner_size(floats);
  int32_t units = (int32_t)(floats / (size_t)in);
  m->big = malloc((size_t)size);
  if (m->big == NULL) return 1;
  /* Multiples of 1/8, so that every sum in the test is exact. */
  for (size_t k = 0; k < floats; ++k) m->big[k] = (float)(k % 17) * 0.125f - 1;
  lg_model_writer* w = m->w;
  int32_t x_shape[] = {1, in}, w_shape[] = {units, in}, y_shape[] = {1, units};
  int32_t x = add_f32(w, "x", x_shape, 2);
  int32_t buffer = lg_model_writer_add_buffer_ref(w, m->big, (size_t)size);
  lg_writer_tensor wt = {.name = "weights",
                         .type = kTfLiteFloat32,
                         .shape = w_shape,
                         .num_dims = 2,
                         .buffer = buffer};
  int32_t inputs[] = {x, lg_model_writer_add_tensor(w, &wt), -1};
  int32_t y = add_f32(w, "y", y_shape, 2);
  lg_model_writer_add_operator(w, kTfLiteBuiltinFullyConnected, 1, inputs, 3,
                               &y, 1, NULL);
  set_io(w, x, y);
  snprintf(m->summary, sizeof(m->summary),
           "FULLY_CONNECTED(x[1,%d], W[%d,%d], no bias) -> y[1,%d], %llu "
           "bytes of weights",
           in, units, in, units, size);
  return 0;
}

static void build_two_subgraphs(lg_tool_model* m) {
  static const int32_t shape[] = {1, 4};
  lg_model_writer* w = m->w;
  lg_model_writer_set_subgraph_name(w, "main");
  build_add(w, "x", "y", kTwoAdd, shape, 2, sizeof(kTwoAdd));
  int32_t sg = lg_model_writer_add_subgraph(w, "square");
  int32_t a = add_f32(w, "a", shape, 2);
  int32_t z = add_f32(w, "z", shape, 2);
  int32_t inputs[] = {a, a};
  TfLiteMulParams params = {.activation = kTfLiteActNone};
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, inputs, 2, &z, 1,
                               &params);
  set_io(w, a, z);
  lg_writer_tensor_map add_in = {"x", 0}, add_out = {"y", 2};
  lg_writer_tensor_map sq_in = {"a", a}, sq_out = {"z", z};
  lg_model_writer_add_signature(w, "add", 0, &add_in, 1, &add_out, 1);
  lg_model_writer_add_signature(w, "square", sg, &sq_in, 1, &sq_out, 1);
  snprintf(m->summary, sizeof(m->summary),
           "subgraph 0 'main': ADD(x[1,4], c) -> y; subgraph 1 'square': "
           "MUL(a, a) -> z; signatures add, square");
}

static void build_quant_dequant(lg_tool_model* m) {
  static const int32_t shape[] = {1, 4};
  lg_model_writer* w = m->w;
  lg_writer_quantization q = {.scale = &kQuantScale,
                              .num_scale = 1,
                              .zero_point = &kQuantZeroPoint,
                              .num_zero_point = 1};
  int32_t x = add_f32(w, "x", shape, 2);
  lg_writer_tensor qt = {.name = "q",
                         .type = kTfLiteInt8,
                         .shape = shape,
                         .num_dims = 2,
                         .quantization = &q};
  int32_t qi = lg_model_writer_add_tensor(w, &qt);
  int32_t y = add_f32(w, "y", shape, 2);
  lg_model_writer_add_operator(w, kTfLiteBuiltinQuantize, 1, &x, 1, &qi, 1,
                               NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinDequantize, 1, &qi, 1, &y, 1,
                               NULL);
  set_io(w, x, y);
  snprintf(m->summary, sizeof(m->summary),
           "QUANTIZE(x[1,4]) -> q int8 (scale 0.5, zero point -3), "
           "DEQUANTIZE(q) -> y[1,4]");
}

static int build(lg_tool_model* m, const char* name, const char* size_arg) {
  if (strcmp(name, "add_const") == 0)
    build_add_const(m);
  else if (strcmp(name, "external_buffers") == 0)
    build_external_buffers(m);
  else if (strcmp(name, "fc_relu") == 0)
    build_fc_relu(m);
  else if (strcmp(name, "add_atan") == 0)
    build_add_atan(m);
  else if (strcmp(name, "big_weights") == 0)
    return build_big_weights(m, size_arg);
  else if (strcmp(name, "two_subgraphs") == 0)
    build_two_subgraphs(m);
  else if (strcmp(name, "quant_dequant") == 0)
    build_quant_dequant(m);
  else {
    fprintf(stderr, "unknown model '%s'\n", name);
    return 1;
  }
  return 0;
}

static long file_size(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  fclose(f);
  return size;
}

static void usage(FILE* out) {
  fprintf(out,
          "usage: make_test_model NAME OUT.tflite [SIZE]\n"
          "NAME: add_const, fc_relu, add_atan, big_weights (SIZE bytes of "
          "weights), two_subgraphs, external_buffers, quant_dequant\n");
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (argc < 3 || argc > 4) {
    usage(stderr);
    return 2;
  }
  lg_tool_model m = {.w = lg_model_writer_create(NULL)};
  int rc = 1;
  if (m.w == NULL) goto done;
  if (build(&m, argv[1], argc == 4 ? argv[3] : NULL) != 0) goto done;
  if (lg_model_writer_write_file(m.w, argv[2]) != kTfLiteOk) goto done;
  printf("wrote %s to %s (%ld bytes): %s\n", argv[1], argv[2],
         file_size(argv[2]), m.summary);
  rc = 0;
done:
  lg_model_writer_destroy(m.w);
  free(m.big);
  return rc;
}
