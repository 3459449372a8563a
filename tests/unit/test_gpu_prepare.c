#define _POSIX_C_SOURCE 200809L
/* What the GPU delegate's partition kernels do in Prepare beyond the first
 * plan, on OpenCL (PoCL here) and Vulkan (lavapipe here):
 *
 * Resizes: the partition is lowered again in place (no new delegate).
 * Batch 1 -> 2 -> 1 and a spatial resize against a CPU-only interpreter at
 * the same shapes, no kernel compiled again for a batch-only change, and a
 * shape a node does not run at (an empty batch) failing AllocateTensors
 * with the reason, after which the old shape runs again. A 1x1 conv
 * resized keeps a built pixel blocking where it wastes little, and builds
 * one where it would waste much.
 *
 * SUSTAINED_SPEED: work-group sizes timed per dispatch; the outputs equal
 * the CPU's, every stored choice is a size the device allows, and a second
 * delegate on the same serialization_dir reads the choices instead of
 * timing (litegpu_gpu_delegate_stats' kernels_tuned, tunings_from_cache).
 *
 * Needs both devices: without one the tests fail (never skip).
 *
 * Bound: |gpu - cpu| <= 1e-4 * max(1, |cpu|) per element: float32 on the
 * device, but the convolutions sum up to 27 products of magnitude <= 16 in
 * another order than the CPU, so partial sums near 100 (ulp 8e-6) may
 * cancel to results near 1. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "delegates/backend/cache_file.h"
#include "delegates/backend/gpu_backend.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tests/support/cache_dir_util.h"
#include "tests/support/spec_model.h"

static void fill(float* v, size_t n, uint32_t seed) {
  for (size_t k = 0; k < n; ++k) {
    seed = seed * 1664525u + 1013904223u;
    v[k] = (float)(seed >> 8) / 16777216.0f * 8 - 4;
  }
}

static int32_t tensor(lg_model_writer* w, const char* name,
                      const int32_t* shape, int rank) {
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = rank};
  return lg_model_writer_add_tensor(w, &t);
}

static int32_t constant(lg_model_writer* w, const char* name,
                        const int32_t* shape, int rank, int count,
                        uint32_t seed) {
  float* v = malloc(sizeof(float) * (size_t)count);
  fill(v, (size_t)count, seed);
  const int32_t t = lg_model_writer_add_const_tensor(
      w, name, kTfLiteFloat32, shape, rank, v, sizeof(float) * count);
  free(v);
  return t;
}

/* The model `w` holds, with input x and output y. */
static TfLiteModel* finish(lg_model_writer* w, int32_t x, int32_t y,
                           void** data) {
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  TfLiteModel* model = lg_test_model_from_writer(w, data);
  assert_non_null(model);
  return model;
}

/* x [1,8,8,3] -> CONV_2D 3x3 SAME + RELU -> DEPTHWISE 3x3 SAME -> ADD of a
 * per-channel constant -> y [1,8,8,5]. */
static TfLiteModel* build_model(void** data) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t xs[4] = {1, 8, 8, 3}, ys[4] = {1, 8, 8, 5};
  const int32_t cw[4] = {5, 3, 3, 3}, dw[4] = {1, 3, 3, 5}, cb[1] = {5};
  const int32_t x = tensor(w, "x", xs, 4);
  const int32_t conv_w = constant(w, "conv_w", cw, 4, 135, 11);
  const int32_t conv_b = constant(w, "conv_b", cb, 1, 5, 12);
  const int32_t dw_w = constant(w, "dw_w", dw, 4, 45, 13);
  const int32_t dw_b = constant(w, "dw_b", cb, 1, 5, 14);
  const int32_t shift = constant(w, "shift", cb, 1, 5, 15);
  const int32_t c = tensor(w, "c", ys, 4), d = tensor(w, "d", ys, 4);
  const int32_t y = tensor(w, "y", ys, 4);
  TfLiteConvParams cp = {.padding = kTfLitePaddingSame,
                         .stride_width = 1,
                         .stride_height = 1,
                         .activation = kTfLiteActRelu,
                         .dilation_width_factor = 1,
                         .dilation_height_factor = 1};
  TfLiteDepthwiseConvParams dp = {.padding = kTfLitePaddingSame,
                                  .stride_width = 1,
                                  .stride_height = 1,
                                  .depth_multiplier = 1,
                                  .dilation_width_factor = 1,
                                  .dilation_height_factor = 1};
  TfLiteAddParams ap = {.activation = kTfLiteActNone};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1,
                                           (int32_t[]){x, conv_w, conv_b}, 3,
                                           &c, 1, &cp) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinDepthwiseConv2d, 1,
                                           (int32_t[]){c, dw_w, dw_b}, 3, &d, 1,
                                           &dp) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1,
                                           (int32_t[]){d, shift}, 2, &y, 1,
                                           &ap) >= 0);
  return finish(w, x, y, data);
}

/* x [1,4,4,2] -> MEAN over axes 1 and 2 (kept) -> y [1,1,1,2]. */
static TfLiteModel* build_mean_model(void** data) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t xs[4] = {1, 4, 4, 2}, ys[4] = {1, 1, 1, 2}, as[1] = {2};
  const int32_t axes_values[2] = {1, 2};
  const int32_t x = tensor(w, "x", xs, 4), y = tensor(w, "y", ys, 4);
  const int32_t axes = lg_model_writer_add_const_tensor(
      w, "axes", kTfLiteInt32, as, 1, axes_values, sizeof(axes_values));
  TfLiteReducerParams rp = {.keep_dims = true};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinMean, 1,
                                           (int32_t[]){x, axes}, 2, &y, 1,
                                           &rp) >= 0);
  return finish(w, x, y, data);
}

static TfLiteInterpreter* make_interpreter(TfLiteModel* model,
                                           TfLiteDelegate* delegate,
                                           lg_test_capture* c) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report, c);
  if (delegate != NULL) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip == NULL) fail_msg("creating the interpreter failed:\n%s", c->text);
  return ip;
}

/* Resizes input 0 to `dims`, allocates, fills and runs; the output into
 * *out (malloc'd, *count floats). */
static TfLiteStatus run_at(TfLiteInterpreter* ip, const int* dims, float** out,
                           size_t* count) {
  *out = NULL;
  *count = 0;
  TF_LITE_ENSURE_STATUS(TfLiteInterpreterResizeInputTensor(ip, 0, dims, 4));
  TF_LITE_ENSURE_STATUS(TfLiteInterpreterAllocateTensors(ip));
  TfLiteTensor* x = TfLiteInterpreterGetInputTensor(ip, 0);
  fill(TfLiteTensorData(x), TfLiteTensorByteSize(x) / sizeof(float),
       (uint32_t)(dims[0] * 1000 + dims[1] * 10 + dims[2]));
  TF_LITE_ENSURE_STATUS(TfLiteInterpreterInvoke(ip));
  const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
  *count = TfLiteTensorByteSize(y) / sizeof(float);
  *out = malloc(TfLiteTensorByteSize(y) + 1);
  memcpy(*out, TfLiteTensorData(y), TfLiteTensorByteSize(y));
  return kTfLiteOk;
}

/* The delegated interpreter at `dims` against the CPU one. */
static void expect_cpu_outputs(TfLiteInterpreter* gpu, lg_test_capture* gc,
                               TfLiteInterpreter* cpu, const int* dims) {
  float *want = NULL, *got = NULL;
  size_t nw = 0, ng = 0;
  assert_int_equal(run_at(cpu, dims, &want, &nw), kTfLiteOk);
  if (run_at(gpu, dims, &got, &ng) != kTfLiteOk) {
    fail_msg("delegated run at [%d,%d,%d,%d] failed:\n%s", dims[0], dims[1],
             dims[2], dims[3], gc->text);
  }
  assert_int_equal(ng, nw);
  for (size_t i = 0; i < nw; ++i) {
    const float bound = 1e-4f * fmaxf(1.0f, fabsf(want[i]));
    if (!(fabsf(want[i] - got[i]) <= bound)) {
      fail_msg("[%d,%d,%d,%d] element %zu: cpu %.9g gpu %.9g", dims[0], dims[1],
               dims[2], dims[3], i, (double)want[i], (double)got[i]);
    }
  }
  free(want);
  free(got);
}

static TfLiteDelegate* make_delegate(litegpu_gpu_backend backend) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  char error[512] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, error, sizeof(error));
  if (d == NULL) fail_msg("no GPU delegate: %s", error);
  return d;
}

static litegpu_gpu_delegate_stats stats_of(const TfLiteDelegate* d) {
  litegpu_gpu_delegate_stats st;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
  assert_int_equal(st.partitions, 1);
  assert_int_equal(st.nodes_delegated, 3);
  return st;
}

static int programs_compiled(const TfLiteDelegate* d) {
  const litegpu_gpu_delegate_stats st = stats_of(d);
  /* FAST_SINGLE_ANSWER, the default, times nothing. */
  assert_int_equal(st.kernels_tuned, 0);
  assert_int_equal(st.tunings_from_cache, 0);
  return (int)st.programs_compiled;
}

/* A model with a delegated interpreter and a CPU-only one, each with its
 * error capture. */
typedef struct pair {
  void* data;
  TfLiteModel* model;
  TfLiteDelegate* d;
  lg_test_capture gc, cc;
  TfLiteInterpreter *gpu, *cpu;
} pair;

static pair* pair_open(TfLiteModel* (*build)(void**),
                       litegpu_gpu_backend backend) {
  pair* q = calloc(1, sizeof(*q));
  assert_non_null(q);
  q->model = build(&q->data);
  q->d = make_delegate(backend);
  q->gpu = make_interpreter(q->model, q->d, &q->gc);
  q->cpu = make_interpreter(q->model, NULL, &q->cc);
  return q;
}

/* The delegated interpreter at `dims` against the CPU one. */
static void expect_pair_equal(pair* q, const int* dims) {
  expect_cpu_outputs(q->gpu, &q->gc, q->cpu, dims);
}

static void pair_close(pair* q) {
  TfLiteInterpreterDelete(q->gpu);
  TfLiteInterpreterDelete(q->cpu);
  TfLiteGpuDelegateV2Delete(q->d);
  TfLiteModelDelete(q->model);
  free(q->data);
  free(q);
}

static void resize_batch_and_space(litegpu_gpu_backend backend) {
  pair* q = pair_open(build_model, backend);
  const int one[4] = {1, 8, 8, 3}, two[4] = {2, 8, 8, 3};
  const int spatial[4] = {1, 5, 7, 3};
  expect_pair_equal(q, one);
  const int compiled = programs_compiled(q->d);
  assert_true(compiled > 0);
  expect_pair_equal(q, two);
  /* The batch is an argument of every kernel here, not a define. */
  assert_int_equal(programs_compiled(q->d), compiled);
  expect_pair_equal(q, one);
  assert_int_equal(programs_compiled(q->d), compiled);
  expect_pair_equal(q, spatial);
  expect_pair_equal(q, two);
  pair_close(q);
}

static void test_resize_opencl(void** state) {
  (void)state;
  resize_batch_and_space(LITEGPU_GPU_BACKEND_OPENCL);
}

static void test_resize_vulkan(void** state) {
  (void)state;
  resize_batch_and_space(LITEGPU_GPU_BACKEND_VULKAN);
}

/* x [1,8,7,4] -> CONV_2D 1x1 to 32 channels -> y [1,8,7,32]. */
static TfLiteModel* build_pointwise_model(void** data) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t xs[4] = {1, 8, 7, 4}, ys[4] = {1, 8, 7, 32};
  const int32_t fs[4] = {32, 1, 1, 4}, bs[1] = {32};
  const int32_t x = tensor(w, "x", xs, 4), y = tensor(w, "y", ys, 4);
  const int32_t f = constant(w, "f", fs, 4, 128, 21);
  const int32_t b = constant(w, "b", bs, 1, 32, 22);
  TfLiteConvParams cp = {.padding = kTfLitePaddingValid,
                         .stride_width = 1,
                         .stride_height = 1,
                         .activation = kTfLiteActNone,
                         .dilation_width_factor = 1,
                         .dilation_height_factor = 1};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1,
                                           (int32_t[]){x, f, b}, 3, &y, 1,
                                           &cp) >= 0);
  return finish(w, x, y, data);
}

static int64_t compiled_so_far(const TfLiteDelegate* d) {
  litegpu_gpu_delegate_stats st;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
  return (int64_t)st.programs_compiled;
}

/* The 1x1 conv's pixel blocking follows the pixel count (blocks of 8 for
 * 56 pixels, 7 for 49, 6 for 9). Relowered at 49 pixels it keeps the
 * built blocks of 8 (7 idle slots, within 49 / 6): nothing compiles. At 9
 * pixels blocks of 8 would leave 7 of 16 slots idle: blocks of 6 are
 * built. Every shape against the CPU. */
static void pointwise_resizes(litegpu_gpu_backend backend) {
  pair* q = pair_open(build_pointwise_model, backend);
  const int first[4] = {1, 8, 7, 4}, square[4] = {1, 7, 7, 4};
  const int tiny[4] = {1, 3, 3, 4};
  expect_pair_equal(q, first);
  const int64_t compiled = compiled_so_far(q->d);
  assert_true(compiled > 0);
  expect_pair_equal(q, square);
  assert_int_equal(compiled_so_far(q->d), compiled);
  expect_pair_equal(q, tiny);
  assert_int_equal(compiled_so_far(q->d), compiled + 1);
  expect_pair_equal(q, first);
  assert_int_equal(compiled_so_far(q->d), compiled + 1);
  pair_close(q);
}

static void test_pointwise_resizes_opencl(void** state) {
  (void)state;
  pointwise_resizes(LITEGPU_GPU_BACKEND_OPENCL);
}

static void test_pointwise_resizes_vulkan(void** state) {
  (void)state;
  pointwise_resizes(LITEGPU_GPU_BACKEND_VULKAN);
}

/* An empty batch: MEAN's GPU lowering leaves empty tensors to the CPU, so
 * the partition does not run at that shape. AllocateTensors fails with the
 * reason; the program for the old shape stays, and resizing back runs. */
static void test_shape_the_partition_refuses(void** state) {
  (void)state;
  pair* q = pair_open(build_mean_model, LITEGPU_GPU_BACKEND_OPENCL);
  const int one[4] = {1, 4, 4, 2}, empty[4] = {0, 4, 4, 2};
  expect_pair_equal(q, one);
  assert_int_equal(litegpu_gpu_delegate_num_partitions(q->d), 1);
  q->gc.length = 0;
  q->gc.text[0] = '\0';
  assert_int_equal(TfLiteInterpreterResizeInputTensor(q->gpu, 0, empty, 4),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterAllocateTensors(q->gpu), kTfLiteError);
  if (strstr(q->gc.text,
             "TfLiteGpuDelegate Prepare: the partition does not run on the "
             "GPU at the new input shapes: node 0 (MEAN): empty tensors "
             "stay on the CPU.") == NULL) {
    fail_msg("unexpected report:\n%s", q->gc.text);
  }
  assert_int_equal(TfLiteInterpreterInvoke(q->gpu), kTfLiteError);
  expect_pair_equal(q, one);
  pair_close(q);
}

/* ---- SUSTAINED_SPEED ----------------------------------------------------
 */

static TfLiteDelegate* make_tuning_delegate(litegpu_gpu_backend backend,
                                            const char* dir) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  o.tflite.inference_preference =
      TFLITE_GPU_INFERENCE_PREFERENCE_SUSTAINED_SPEED;
  o.tflite.experimental_flags |=
      TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_SERIALIZATION;
  o.tflite.serialization_dir = dir;
  o.tflite.model_token = "test_gpu_prepare";
  char error[512] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, error, sizeof(error));
  if (d == NULL) fail_msg("no GPU delegate: %s", error);
  return d;
}

/* The device's limits, from a backend of its own. */
static lg_gpu_device_info device_info(litegpu_gpu_backend backend) {
  int count = 0;
  const lg_gpu_backend_entry* rows = lg_gpu_backends(&count);
  for (int i = 0; i < count; ++i) {
    if (rows[i].option != (int)backend) continue;
    const lg_gpu_backend_options bo = {0};
    lg_gpu_backend* be = NULL;
    lg_gpu_error error = {{0}};
    if (rows[i].create(&bo, &be, &error) != kTfLiteOk) {
      fail_msg("%s", error.message);
    }
    const lg_gpu_device_info info = be->device;
    lg_gpu_backend_destroy(be);
    return info;
  }
  fail_msg("no such backend");
  lg_gpu_device_info none;
  memset(&none, 0, sizeof(none));
  return none;
}

/* Checks every tuning entry in `dir` (cache_file.h's layout, a payload of
 * three little-endian u32: the local size, zeros for the backend's own)
 * against the device's limits; returns how many there are. */
static int check_tuning_entries(const char* dir,
                                const lg_gpu_device_info* device) {
  DIR* folder = opendir(dir);
  assert_non_null(folder);
  int entries = 0;
  for (struct dirent* e = readdir(folder); e != NULL; e = readdir(folder)) {
    if (strncmp(e->d_name, "litegpu-tune-", 13) != 0) continue;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    FILE* f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char bytes[4096];
    const size_t n = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    assert_true(n >= LG_CACHE_FILE_HEADER_BYTES + 12);
    const unsigned char* payload = bytes + n - 12;
    size_t local[3], items = 1;
    for (int d = 0; d < 3; ++d) {
      const unsigned char* b = payload + 4 * d;
      local[d] = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 |
                 (size_t)b[3] << 24;
      items *= local[d] == 0 ? 1 : local[d];
    }
    if (local[0] != 0) {
      for (int d = 0; d < 3; ++d) {
        assert_true(local[d] >= 1);
        assert_true(local[d] <= device->max_work_item_sizes[d]);
      }
      assert_true(items <= device->max_work_group_size);
      if (device->simd_width > 0)
        assert_int_equal(items % device->simd_width, 0);
    }
    ++entries;
  }
  closedir(folder);
  return entries;
}

static void tune_and_reload(litegpu_gpu_backend backend) {
  char root[512], dir[600];
  assert_int_equal(lg_test_temp_root_create(root, sizeof(root), "tuning"), 0);
  lg_test_make_dir(dir, sizeof(dir), root, "cache");
  void* data = NULL;
  TfLiteModel* model = build_model(&data);
  lg_test_capture cc = {{0}, 0};
  TfLiteInterpreter* cpu = make_interpreter(model, NULL, &cc);
  const int one[4] = {1, 8, 8, 3};
  int tuned = 0;
  for (int round = 0; round < 2; ++round) {
    TfLiteDelegate* d = make_tuning_delegate(backend, dir);
    lg_test_capture gc = {{0}, 0};
    TfLiteInterpreter* gpu = make_interpreter(model, d, &gc);
    expect_cpu_outputs(gpu, &gc, cpu, one);
    const litegpu_gpu_delegate_stats st = stats_of(d);
    if (round == 0) {
      /* No kernel of this graph is built for one work-group size. */
      assert_int_equal(st.kernels_tuned, st.dispatches_per_invoke);
      assert_int_equal(st.tunings_from_cache, 0);
      tuned = st.kernels_tuned;
    } else {
      assert_int_equal(st.kernels_tuned, 0);
      assert_int_equal(st.tunings_from_cache, tuned);
    }
    TfLiteInterpreterDelete(gpu);
    TfLiteGpuDelegateV2Delete(d);
  }
  const lg_gpu_device_info device = device_info(backend);
  assert_int_equal(check_tuning_entries(dir, &device), tuned);
  TfLiteInterpreterDelete(cpu);
  TfLiteModelDelete(model);
  free(data);
  lg_test_temp_root_remove(root);
}

static void test_sustained_speed_opencl(void** state) {
  (void)state;
  tune_and_reload(LITEGPU_GPU_BACKEND_OPENCL);
}

static void test_sustained_speed_vulkan(void** state) {
  (void)state;
  tune_and_reload(LITEGPU_GPU_BACKEND_VULKAN);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resize_opencl),
      cmocka_unit_test(test_resize_vulkan),
      cmocka_unit_test(test_pointwise_resizes_opencl),
      cmocka_unit_test(test_pointwise_resizes_vulkan),
      cmocka_unit_test(test_shape_the_partition_refuses),
      cmocka_unit_test(test_sustained_speed_opencl),
      cmocka_unit_test(test_sustained_speed_vulkan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
