/* Constants a kernel copied at Prepare are given back (runtime/execute.c,
 * kernel_context.h): the file pages under a packed float32 filter, and a
 * float16 filter's DEQUANTIZE output once its convolution packed it. These
 * tests check that it happens and that nothing reads the worse for it: two
 * interpreters on one model, a model from memory against one from a file,
 * ResizeInputTensor after the release, and a delegate applied after it
 * (which must read the folded filter).
 *
 * The graph: x [1, H, W, 64] into two 1x1 convolutions with the same
 * weights and bias, one with a float32 filter, one with a float16 filter
 * through DEQUANTIZE. Weights, bias and inputs are multiples of 1/4 and
 * 1/2, so every sum is exact and the expected outputs come from a plain
 * loop here. */
#define _DEFAULT_SOURCE /* mkstemp, pread */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "litegpu/reference_delegate.h"
#include "runtime/kernels/fp16.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"

#define CH 64 /* 64 x 64 floats: 16 KiB, several whole pages */

typedef struct test_model {
  char path[64];
  void* bytes; /* the same model in memory */
  size_t size;
  int filter32;  /* tensor indices */
  int filter16;  /* the float16 constant */
  int dequant16; /* its DEQUANTIZE output */
} test_model;

static float weight(int o, int i) {
  return (float)((o * 7 + i * 3) % 11 - 5) * 0.25f;
}

static float bias_value(int o) { return (float)(o % 5 - 2) * 0.5f; }

static float input_value(int p, int i) {
  return (float)((p * 5 + i) % 9 - 4) * 0.5f;
}

static int32_t add_activation(lg_model_writer* w, const char* name) {
  const int32_t shape[4] = {1, 2, 2, CH};
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = 4};
  return lg_model_writer_add_tensor(w, &t);
}

static void build_model(test_model* m) {
  float w32[CH * CH];
  uint16_t w16[CH * CH];
  float bias[CH];
  for (int o = 0; o < CH; ++o) {
    bias[o] = bias_value(o);
    for (int i = 0; i < CH; ++i) {
      w32[o * CH + i] = weight(o, i);
      w16[o * CH + i] = lg_fp32_to_fp16(weight(o, i));
    }
  }
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t fshape[4] = {CH, 1, 1, CH};
  const int32_t bshape[1] = {CH};
  const int32_t x = add_activation(w, "x");
  m->filter32 = lg_model_writer_add_const_tensor(w, "w32", kTfLiteFloat32,
                                                 fshape, 4, w32, sizeof(w32));
  m->filter16 = lg_model_writer_add_const_tensor(w, "w16", kTfLiteFloat16,
                                                 fshape, 4, w16, sizeof(w16));
  const int32_t b = lg_model_writer_add_const_tensor(
      w, "b", kTfLiteFloat32, bshape, 1, bias, sizeof(bias));
  lg_writer_tensor dq = {.name = "w16_f32",
                         .type = kTfLiteFloat32,
                         .shape = fshape,
                         .num_dims = 4};
  m->dequant16 = lg_model_writer_add_tensor(w, &dq);
  const int32_t y32 = add_activation(w, "y32");
  const int32_t y16 = add_activation(w, "y16");
  const TfLiteConvParams conv = {.padding = kTfLitePaddingValid,
                                 .stride_width = 1,
                                 .stride_height = 1,
                                 .dilation_width_factor = 1,
                                 .dilation_height_factor = 1};
  const int32_t in32[3] = {x, m->filter32, b};
  const int32_t in_dq[1] = {m->filter16};
  const int32_t out_dq[1] = {m->dequant16};
  const int32_t in16[3] = {x, m->dequant16, b};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1, in32, 3,
                                           &y32, 1, &conv) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinDequantize, 3,
                                           in_dq, 1, out_dq, 1, NULL) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1, in16, 3,
                                           &y16, 1, &conv) >= 0);
  const int32_t outputs[2] = {y32, y16};
  assert_int_equal(lg_model_writer_set_inputs(w, &x, 1), kTfLiteOk);
  assert_int_equal(lg_model_writer_set_outputs(w, outputs, 2), kTfLiteOk);
  assert_int_equal(lg_model_writer_finish(w, &m->bytes, &m->size), kTfLiteOk);
  snprintf(m->path, sizeof(m->path), "/tmp/lg_released_XXXXXX");
  const int fd = mkstemp(m->path);
  assert_true(fd >= 0);
  assert_true(write(fd, m->bytes, m->size) == (ssize_t)m->size);
  close(fd);
  lg_model_writer_destroy(w);
}

static int setup(void** state) {
  test_model* m = calloc(1, sizeof(*m));
  if (m == NULL) return -1;
  build_model(m);
  *state = m;
  return 0;
}

static int teardown(void** state) {
  test_model* m = *state;
  unlink(m->path);
  free(m->bytes);
  free(m);
  return 0;
}

static TfLiteInterpreter* make_interpreter(const TfLiteModel* model) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  assert_non_null(o);
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  return ip;
}

/* An allocated interpreter on the model file, which *model receives. */
static TfLiteInterpreter* open_file_model(const test_model* m,
                                          TfLiteModel** model) {
  *model = TfLiteModelCreateFromFile(m->path);
  assert_non_null(*model);
  return make_interpreter(*model);
}

/* Fills x, runs, and checks both outputs against the plain loop. */
static void run_and_check(TfLiteInterpreter* ip) {
  TfLiteTensor* x = TfLiteInterpreterGetInputTensor(ip, 0);
  assert_non_null(x);
  const int pixels = (int)(TfLiteTensorByteSize(x) / sizeof(float) / CH);
  float* in = (float*)TfLiteTensorData(x);
  assert_non_null(in);
  for (int p = 0; p < pixels; ++p) {
    for (int i = 0; i < CH; ++i) in[p * CH + i] = input_value(p, i);
  }
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  for (int k = 0; k < 2; ++k) {
    const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, k);
    assert_int_equal(TfLiteTensorByteSize(y), (size_t)pixels * CH * 4);
    const float* out = (const float*)TfLiteTensorData(y);
    for (int p = 0; p < pixels; ++p) {
      for (int o = 0; o < CH; ++o) {
        double sum = bias_value(o);
        for (int i = 0; i < CH; ++i) sum += input_value(p, i) * weight(o, i);
        assert_float_equal(out[p * CH + o], (float)sum, 0.0);
      }
    }
  }
}

/* The whole pages of [data, data + bytes): [*first, *end). */
static void whole_pages(const void* data, size_t bytes, uintptr_t* first,
                        uintptr_t* end) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  *first = ((uintptr_t)data + page - 1) / page;
  *end = ((uintptr_t)data + bytes) / page;
  assert_true(*end > *first);
}

static int count_whole_pages(const void* data, size_t bytes) {
  uintptr_t first = 0, end = 0;
  whole_pages(data, bytes, &first, &end);
  return (int)(end - first);
}

/* How many of the whole pages of [data, data + bytes) this process has
 * mapped in (/proc/self/pagemap's "present" bit). */
static int resident_pages(const void* data, size_t bytes) {
  uintptr_t first = 0, end = 0;
  whole_pages(data, bytes, &first, &end);
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  assert_true(fd >= 0);
  int present = 0;
  for (uintptr_t p = first; p < end; ++p) {
    uint64_t entry = 0;
    assert_true(pread(fd, &entry, sizeof(entry), (off_t)(p * 8)) ==
                (ssize_t)sizeof(entry));
    present += (int)(entry >> 63);
  }
  close(fd);
  return present;
}

static const void* tensor_data(const TfLiteInterpreter* ip, int index) {
  return TfLiteTensorData(TfLiteInterpreterGetTensor(ip, index));
}

static void test_file_model_gives_back_packed_filters(void** state) {
  const test_model* m = *state;
  TfLiteModel* model = NULL;
  TfLiteInterpreter* ip = open_file_model(m, &model);
  const TfLiteTensor* w32 = TfLiteInterpreterGetTensor(ip, m->filter32);
  /* Packing read the filter; its pages went back to the file after. */
  assert_int_equal(resident_pages(w32->data.raw, w32->bytes), 0);
  /* The float32 copy of the float16 filter was freed once packed. */
  assert_null(tensor_data(ip, m->dequant16));
  run_and_check(ip);
  /* Still readable, from the file. */
  assert_float_equal(((const float*)w32->data.raw)[CH + 2], weight(1, 2), 0.0);
  TfLiteInterpreterDelete(ip);
  TfLiteModelDelete(model);
}

static void test_two_interpreters_on_one_model(void** state) {
  const test_model* m = *state;
  TfLiteModel* model = NULL;
  TfLiteInterpreter* first = open_file_model(m, &model);
  /* The second packs from pages the first gave back. */
  TfLiteInterpreter* second = make_interpreter(model);
  run_and_check(second);
  run_and_check(first);
  TfLiteInterpreterDelete(first);
  run_and_check(second);
  TfLiteInterpreterDelete(second);
  TfLiteModelDelete(model);
}

static void test_model_from_memory_is_left_alone(void** state) {
  const test_model* m = *state;
  void* copy = malloc(m->size);
  assert_non_null(copy);
  memcpy(copy, m->bytes, m->size);
  TfLiteModel* model = TfLiteModelCreate(m->bytes, m->size);
  assert_non_null(model);
  TfLiteInterpreter* ip = make_interpreter(model);
  const TfLiteTensor* w32 = TfLiteInterpreterGetTensor(ip, m->filter32);
  /* The caller's buffer: no page of it is dropped. */
  assert_int_equal(resident_pages(w32->data.raw, w32->bytes),
                   count_whole_pages(w32->data.raw, w32->bytes));
  run_and_check(ip);
  assert_memory_equal(m->bytes, copy, m->size);
  TfLiteInterpreterDelete(ip);
  TfLiteModelDelete(model);
  free(copy);
}

static void test_resize_after_release(void** state) {
  const test_model* m = *state;
  TfLiteModel* model = NULL;
  TfLiteInterpreter* ip = open_file_model(m, &model);
  run_and_check(ip);
  const int dims[4] = {1, 3, 5, CH};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, dims, 4),
                   kTfLiteOk);
  /* Prepare packs again: from the file pages and a fresh float32 copy. */
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  run_and_check(ip);
  TfLiteInterpreterDelete(ip);
  TfLiteModelDelete(model);
}

static void test_delegate_applied_after_release(void** state) {
  const test_model* m = *state;
  TfLiteModel* model = NULL;
  TfLiteInterpreter* ip = open_file_model(m, &model);
  run_and_check(ip);
  assert_null(tensor_data(ip, m->dequant16));
  /* The delegate takes the convolutions, not DEQUANTIZE: it reads the
   * float32 filter, which the interpreter computes again for it. */
  const int32_t conv_only[1] = {kTfLiteBuiltinConv2d};
  litegpu_reference_delegate_options o =
      litegpu_reference_delegate_options_default();
  o.supported_ops = conv_only;
  o.num_supported_ops = 1;
  TfLiteDelegate* delegate = litegpu_reference_delegate_create(&o);
  assert_non_null(delegate);
  assert_int_equal(TfLiteInterpreterModifyGraphWithDelegate(ip, delegate),
                   kTfLiteOk);
  assert_non_null(tensor_data(ip, m->dequant16));
  run_and_check(ip);
  TfLiteInterpreterDelete(ip);
  litegpu_reference_delegate_delete(delegate);
  TfLiteModelDelete(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_file_model_gives_back_packed_filters),
      cmocka_unit_test(test_two_interpreters_on_one_model),
      cmocka_unit_test(test_model_from_memory_is_left_alone),
      cmocka_unit_test(test_resize_after_release),
      cmocka_unit_test(test_delegate_applied_after_release),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
