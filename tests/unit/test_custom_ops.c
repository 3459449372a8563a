/* Custom operators through the opaque API (TfLiteOperator, c_api_opaque.h),
 * end to end: models built in memory with the model writer, loaded with
 * TfLiteModelCreate and run by the interpreter. The operator object and the
 * accessors on a hand-built context are in test_custom_ops_opaque.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/operator.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"

/* ---- Error capture ------------------------------------------------------ */

typedef struct capture {
  char text[16384];
  size_t len;
  int count;
} capture;

static void capture_reporter(void* user_data, const char* format,
                             va_list args) {
  capture* c = user_data;
  c->count++;
  if (c->len + 1 >= sizeof(c->text)) return;
  int n = vsnprintf(c->text + c->len, sizeof(c->text) - c->len, format, args);
  if (n < 0) return;
  c->len += (size_t)n;
  if (c->len >= sizeof(c->text) - 1) c->len = sizeof(c->text) - 2;
  c->text[c->len++] = '\n';
  c->text[c->len] = '\0';
}

/* First failed in-callback check: callbacks run inside the interpreter, so
 * they record failures instead of asserting (a longjmp out would leak). */
static int g_check_failed_line;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond) && g_check_failed_line == 0) {                                 \
      g_check_failed_line = __LINE__;                                          \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* ---- Model building ----------------------------------------------------- */

typedef struct model_bytes {
  void* data;
  size_t size;
} model_bytes;

static model_bytes finish(lg_model_writer* w) {
  model_bytes m = {NULL, 0};
  const char* err = lg_model_writer_error(w);
  if (err != NULL) fail_msg("model writer: %s", err);
  assert_int_equal(lg_model_writer_finish(w, &m.data, &m.size), kTfLiteOk);
  lg_model_writer_destroy(w);
  return m;
}

static int32_t add_float_tensor(lg_model_writer* w, const char* name,
                                const int32_t* shape, int num_dims) {
  lg_writer_tensor t = {.name = name,
                        .type = kTfLiteFloat32,
                        .shape = shape,
                        .num_dims = num_dims};
  int32_t index = lg_model_writer_add_tensor(w, &t);
  assert_true(index >= 0);
  return index;
}

/* y = atan(x + 1): ADD with a broadcast constant [1], then custom "Atan". */
static model_bytes build_atan_model(int atan_version) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t shape5[] = {5};
  const int32_t shape1[] = {1};
  const float one = 1.0f;
  int32_t x = add_float_tensor(w, "x", shape5, 1);
  int32_t offset = lg_model_writer_add_const_tensor(w, "offset", kTfLiteFloat32,
                                                    shape1, 1, &one, 4);
  int32_t sum = add_float_tensor(w, "sum", shape5, 1);
  int32_t y = add_float_tensor(w, "y", shape5, 1);
  const int32_t add_in[] = {x, offset};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, add_in, 2,
                                           &sum, 1, NULL) >= 0);
  assert_true(lg_model_writer_add_custom_operator(w, "Atan", atan_version, &sum,
                                                  1, &y, 1, NULL, 0) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  return finish(w);
}

/* x -> custom `name` -> h -> custom `name` -> y; outputs h and y. The first
 * node gets `options` as its custom options, the second none. */
static model_bytes build_chain_model(const char* name, const int32_t* shape,
                                     int num_dims, const void* options,
                                     size_t options_size) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  int32_t x = add_float_tensor(w, "x", shape, num_dims);
  int32_t h = add_float_tensor(w, "h", shape, num_dims);
  int32_t y = add_float_tensor(w, "y", shape, num_dims);
  assert_true(lg_model_writer_add_custom_operator(w, name, 1, &x, 1, &h, 1,
                                                  options, options_size) >= 0);
  assert_true(lg_model_writer_add_custom_operator(w, name, 1, &h, 1, &y, 1,
                                                  NULL, 0) >= 0);
  const int32_t outs[] = {h, y};
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, outs, 2);
  return finish(w);
}

/* x -> custom `name` -> y, one node, shapes [n]. */
static model_bytes build_single_op_model(const char* name, int n) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t shape[] = {n};
  int32_t x = add_float_tensor(w, "x", shape, 1);
  int32_t y = add_float_tensor(w, "y", shape, 1);
  assert_true(lg_model_writer_add_custom_operator(w, name, 1, &x, 1, &y, 1,
                                                  NULL, 0) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  return finish(w);
}

/* An interpreter over `m` with `ops` registered and errors captured; NULL
 * when creation fails. *model_out receives the model (delete it after). */
static TfLiteInterpreter* create_interpreter(const model_bytes* m,
                                             TfLiteOperator* const* ops,
                                             int num_ops, capture* errors,
                                             TfLiteModel** model_out) {
  TfLiteModel* model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(model);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  assert_non_null(options);
  TfLiteInterpreterOptionsSetErrorReporter(options, capture_reporter, errors);
  for (int i = 0; i < num_ops; ++i) {
    TfLiteInterpreterOptionsAddOperator(options, ops[i]);
  }
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  TfLiteInterpreterOptionsDelete(options);
  *model_out = model;
  return interpreter;
}

static size_t element_count(const TfLiteOpaqueTensor* t) {
  size_t count = 1;
  for (int i = 0; i < TfLiteOpaqueTensorNumDims(t); ++i) {
    count *= (size_t)TfLiteOpaqueTensorDim(t, i);
  }
  return count;
}

/* A copy of `t`'s shape, for ResizeTensor (which takes ownership). */
static TfLiteIntArray* shape_of(const TfLiteOpaqueTensor* t) {
  const int num_dims = TfLiteOpaqueTensorNumDimensions(t);
  TfLiteIntArray* shape = TfLiteIntArrayCreate(num_dims);
  for (int i = 0; shape != NULL && i < num_dims; ++i) {
    shape->data[i] = TfLiteOpaqueTensorDim(t, i);
  }
  return shape;
}

/* ---- 1. Atan, written as in TFLite's custom-op guide --------------------- */

static TfLiteStatus AtanPrepare(TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueNodeNumInputs(node), 1);
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueNodeNumOutputs(node), 1);
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  int num_dims = TfLiteOpaqueTensorNumDimensions(input);
  TfLiteIntArray* output_size = TfLiteIntArrayCreate(num_dims);
  for (int i = 0; i < num_dims; ++i) {
    output_size->data[i] = TfLiteOpaqueTensorDim(input, i);
  }
  return TfLiteOpaqueContextResizeTensor(context, output, output_size);
}

static TfLiteStatus AtanInvoke(TfLiteOpaqueContext* context,
                               TfLiteOpaqueNode* node) {
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  const float* input_data = (const float*)TfLiteOpaqueTensorData(input);
  float* output_data = (float*)TfLiteOpaqueTensorData(output);
  size_t count = 1;
  int num_dims = TfLiteOpaqueTensorNumDimensions(input);
  for (int i = 0; i < num_dims; ++i) count *= TfLiteOpaqueTensorDim(input, i);
  for (size_t i = 0; i < count; ++i) output_data[i] = atanf(input_data[i]);
  return kTfLiteOk;
}

static TfLiteOperator* create_atan_operator(int version) {
  TfLiteOperator* op =
      TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Atan", version);
  assert_non_null(op);
  TfLiteOperatorSetPrepare(op, AtanPrepare);
  TfLiteOperatorSetInvoke(op, AtanInvoke);
  return op;
}

/* Runs the Atan model on the input and checks LiteRT's outputs
 * (taken from the issue text, not recomputed here). */
static void run_atan_model(TfLiteInterpreter* interpreter) {
  static const float kInput[5] = {-8.0f, 0.5f, 2.0f, 2.2f, 201.0f};
  static const float kExpected[5] = {-1.4288993f, 0.98279375f, 1.2490457f,
                                     1.2679114f, 1.5658458f};
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(interpreter, 0);
  assert_non_null(in);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, kInput, sizeof(kInput)),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
  assert_non_null(out);
  assert_int_equal(TfLiteTensorNumDims(out), 1);
  assert_int_equal(TfLiteTensorDim(out, 0), 5);
  float got[5];
  assert_int_equal(TfLiteTensorCopyToBuffer(out, got, sizeof(got)), kTfLiteOk);
  for (int i = 0; i < 5; ++i) {
    if (fabsf(got[i] - kExpected[i]) > 1e-6f) {
      fail_msg("output[%d] = %.9g, expected %.9g", i, got[i], kExpected[i]);
    }
  }
}

/* As in TFLite: the interpreter is created around a placeholder (a
 * delegate may claim the node); AllocateTensors reports the op and fails
 * with kTfLiteUnresolvedOps, and Invoke is refused. */
static void expect_unresolved_at_allocate(TfLiteInterpreter* interpreter,
                                          const capture* errors) {
  assert_non_null(interpreter);
  assert_int_equal(errors->text[0], '\0');
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter),
                   kTfLiteUnresolvedOps);
  assert_non_null(strstr(errors->text,
                         "Encountered unresolved custom op: Atan.\nSee "
                         "instructions: https://www.tensorflow.org/lite/guide/"
                         "ops_custom "));
  if (strstr(errors->text, "Node number 1 (Atan) failed to prepare.") == NULL) {
    fail_msg("reported: %s", errors->text);
  }
  /* The message starts with it (it is the first or a later report). */
  const char* hit = strstr(errors->text, "Encountered unresolved custom op");
  assert_true(hit == errors->text || hit[-1] == '\n');
  assert_int_not_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
}

static void test_atan_unresolved_without_registration(void** state) {
  (void)state;
  model_bytes m = build_atan_model(1);
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, NULL, 0, &errors, &model);
  expect_unresolved_at_allocate(interpreter, &errors);
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  free(m.data);
}

static void test_atan_with_registration(void** state) {
  (void)state;
  model_bytes m = build_atan_model(1);
  TfLiteOperator* atan_op = create_atan_operator(1);
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, &atan_op, 1, &errors, &model);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  TfLiteModelDelete(model); /* the interpreter keeps its own reference */
  run_atan_model(interpreter);
  run_atan_model(interpreter); /* a second run gives the same */
  TfLiteInterpreterDelete(interpreter);
  TfLiteOperatorDelete(atan_op);
  free(m.data);
}

/* ---- 2. Stateful operator: running sum in a persistent temporary -------- */

typedef struct call_counts {
  int init, free, prepare, invoke;
} call_counts;

typedef struct acc_data {
  int state_index; /* the tensor added in Init */
  bool reset;      /* zero the state on the next Invoke (after a Prepare) */
} acc_data;

static void* AccInit(void* user_data, TfLiteOpaqueContext* context,
                     const char* buffer, size_t length) {
  call_counts* counts = user_data;
  counts->init++;
  acc_data* data = calloc(1, sizeof(*data));
  if (data == NULL) return NULL;
  data->state_index = -1;
  TfLiteOpaqueTensorBuilder* builder = TfLiteOpaqueTensorBuilderCreate();
  TfLiteOpaqueTensorBuilderSetType(builder, kTfLiteFloat32);
  TfLiteOpaqueTensorBuilderSetAllocationType(builder, kTfLiteArenaRwPersistent);
  CHECK(TfLiteOpaqueContextAddTensor(context, builder, &data->state_index) ==
        kTfLiteOk);
  TfLiteOpaqueTensorBuilderDelete(builder);
  return data;
}

static void AccFree(void* user_data, TfLiteOpaqueContext* context,
                    void* buffer) {
  call_counts* counts = user_data;
  counts->free++;
  free(buffer);
}

static TfLiteStatus AccPrepare(void* user_data, TfLiteOpaqueContext* context,
                               TfLiteOpaqueNode* node) {
  call_counts* counts = user_data;
  counts->prepare++;
  acc_data* data = TfLiteOpaqueNodeGetUserData(node);
  TF_LITE_OPAQUE_ENSURE(context, data != NULL && data->state_index >= 0);
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueNodeNumInputs(node), 1);
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueNodeNumOutputs(node), 1);
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueNodeSetTemporaries(node, &data->state_index, 1));
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  TfLiteOpaqueTensor* sum =
      TfLiteOpaqueContextGetOpaqueTensor(context, data->state_index);
  TF_LITE_OPAQUE_ENSURE(context, input != NULL && output != NULL);
  TF_LITE_OPAQUE_ENSURE(context, sum != NULL);
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueTensorGetAllocationType(sum),
                           kTfLiteArenaRwPersistent);
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueContextResizeTensor(context, sum, shape_of(input)));
  data->reset = true;
  return TfLiteOpaqueContextResizeTensor(context, output, shape_of(input));
}

static TfLiteStatus AccInvoke(void* user_data, TfLiteOpaqueContext* context,
                              TfLiteOpaqueNode* node) {
  call_counts* counts = user_data;
  counts->invoke++;
  acc_data* data = TfLiteOpaqueNodeGetUserData(node);
  const int* temporaries = NULL;
  int num_temporaries = 0;
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueNodeTemporaries(node, &temporaries, &num_temporaries));
  TF_LITE_OPAQUE_ENSURE_EQ(context, num_temporaries, 1);
  TF_LITE_OPAQUE_ENSURE_EQ(context, temporaries[0], data->state_index);
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  TfLiteOpaqueTensor* sum =
      TfLiteOpaqueContextGetOpaqueTensor(context, temporaries[0]);
  const float* in = TfLiteOpaqueTensorData(input);
  float* out = TfLiteOpaqueTensorData(output);
  float* acc = TfLiteOpaqueTensorData(sum);
  TF_LITE_OPAQUE_ENSURE(context, in != NULL && out != NULL && acc != NULL);
  const size_t count = element_count(input);
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueTensorByteSize(sum),
                           count * sizeof(float));
  if (data->reset) {
    memset(acc, 0, count * sizeof(float));
    data->reset = false;
  }
  for (size_t i = 0; i < count; ++i) {
    acc[i] += in[i];
    out[i] = acc[i];
  }
  return kTfLiteOk;
}

static TfLiteOperator* create_acc_operator(call_counts* counts) {
  TfLiteOperator* op = TfLiteOperatorCreateWithData(kTfLiteBuiltinCustom,
                                                    "Accumulate", 1, counts);
  assert_non_null(op);
  assert_ptr_equal(TfLiteOperatorGetUserData(op), counts);
  assert_int_equal(TfLiteOperatorSetInitWithData(op, AccInit), kTfLiteOk);
  assert_int_equal(TfLiteOperatorSetFreeWithData(op, AccFree), kTfLiteOk);
  assert_int_equal(TfLiteOperatorSetPrepareWithData(op, AccPrepare), kTfLiteOk);
  assert_int_equal(TfLiteOperatorSetInvokeWithData(op, AccInvoke), kTfLiteOk);
  return op;
}

/* Feeds `x` (n values) and checks h == k*x and y == k(k+1)/2*x for the k-th
 * invoke since the last Prepare (h sums x; y sums h). */
static void invoke_and_check_acc(TfLiteInterpreter* interpreter, const float* x,
                                 int n, int k) {
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(interpreter, 0);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, x, sizeof(float) * n),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  float h[8], y[8];
  assert_int_equal(
      TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 0),
                               h, sizeof(float) * n),
      kTfLiteOk);
  assert_int_equal(
      TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 1),
                               y, sizeof(float) * n),
      kTfLiteOk);
  for (int i = 0; i < n; ++i) {
    const float want_h = (float)k * x[i];
    const float want_y = (float)(k * (k + 1) / 2) * x[i];
    if (h[i] != want_h || y[i] != want_y) {
      fail_msg("invoke %d, index %d: h=%g (want %g) y=%g (want %g)", k, i, h[i],
               want_h, y[i], want_y);
    }
  }
}

static void test_stateful_operator(void** state) {
  (void)state;
  g_check_failed_line = 0;
  const int32_t shape[] = {3};
  model_bytes m = build_chain_model("Accumulate", shape, 1, NULL, 0);
  call_counts counts = {0};
  TfLiteOperator* acc_op = create_acc_operator(&counts);
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, &acc_op, 1, &errors, &model);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  assert_int_equal(counts.init, 2); /* once per node */
  assert_int_equal(counts.free, 0);

  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);
  assert_int_equal(counts.prepare, 2);
  const float x3[] = {1.0f, -2.0f, 0.5f};
  for (int k = 1; k <= 3; ++k) invoke_and_check_acc(interpreter, x3, 3, k);
  assert_int_equal(counts.invoke, 6);
  assert_int_equal(counts.prepare, 2); /* Invoke does not re-prepare */

  /* A resize prepares again; the kernel restarts its sums. */
  const int dims[] = {4};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(interpreter, 0, dims, 1),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);
  assert_int_equal(counts.prepare, 4);
  const float x4[] = {3.0f, 0.25f, -1.0f, 8.0f};
  for (int k = 1; k <= 2; ++k) invoke_and_check_acc(interpreter, x4, 4, k);
  assert_int_equal(counts.invoke, 10);
  assert_int_equal(counts.init, 2);
  assert_int_equal(g_check_failed_line, 0);

  TfLiteInterpreterDelete(interpreter);
  assert_int_equal(counts.free, 2); /* once per Init */
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(acc_op);
  free(m.data);
}

/* ---- 3. Custom options -------------------------------------------------- */

/* The first node's options: a little-endian float scale, then a tag. */
static const uint8_t kScaleOptions[] = {0x00, 0x00, 0x20, 0x40, /* 2.5f */
                                        'a',  'b',  'c'};

typedef struct scale_probe {
  int inits;
  size_t init_lengths[2];
  bool init_bytes_match[2];
  int prepares;
  bool initial_data_match[2];
} scale_probe;

/* Per node: the scale from its options (1 without options). */
static void* ScaleInit(void* user_data, TfLiteOpaqueContext* context,
                       const char* buffer, size_t length) {
  scale_probe* probe = user_data;
  float* scale = malloc(sizeof(*scale));
  if (scale == NULL) return NULL;
  *scale = 1.0f;
  if (probe->inits < 2) {
    probe->init_lengths[probe->inits] = length;
    probe->init_bytes_match[probe->inits] =
        length == sizeof(kScaleOptions) && buffer != NULL &&
        memcmp(buffer, kScaleOptions, length) == 0;
  }
  probe->inits++;
  if (length >= sizeof(float)) memcpy(scale, buffer, sizeof(float));
  return scale;
}

static void ScaleFree(TfLiteOpaqueContext* context, void* buffer) {
  free(buffer);
}

static TfLiteStatus ScalePrepare(void* user_data, TfLiteOpaqueContext* context,
                                 TfLiteOpaqueNode* node) {
  scale_probe* probe = user_data;
  const void* init_data = NULL;
  int size = -1;
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueNodeGetCustomInitialData(node, &init_data, &size));
  const float* scale = TfLiteOpaqueNodeGetUserData(node);
  const bool first = *scale != 1.0f;
  if (probe->prepares < 2) {
    probe->initial_data_match[probe->prepares] =
        first ? size == (int)sizeof(kScaleOptions) && init_data != NULL &&
                    memcmp(init_data, kScaleOptions, (size_t)size) == 0
              : size == 0;
  }
  probe->prepares++;
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  return TfLiteOpaqueContextResizeTensor(context, output, shape_of(input));
}

static TfLiteStatus ScaleInvoke(TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  const float* scale = TfLiteOpaqueNodeGetUserData(node);
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  const float* in = TfLiteOpaqueTensorData(input);
  float* out = TfLiteOpaqueTensorData(output);
  for (size_t i = 0; i < element_count(input); ++i) out[i] = in[i] * *scale;
  return kTfLiteOk;
}

static void test_custom_options_reach_init(void** state) {
  (void)state;
  const int32_t shape[] = {2};
  model_bytes m = build_chain_model("Scale", shape, 1, kScaleOptions,
                                    sizeof(kScaleOptions));
  scale_probe probe = {0};
  TfLiteOperator* op =
      TfLiteOperatorCreateWithData(kTfLiteBuiltinCustom, "Scale", 1, &probe);
  assert_non_null(op);
  /* Plain and WithData callbacks mix on one operator. */
  TfLiteOperatorSetInitWithData(op, ScaleInit);
  TfLiteOperatorSetFree(op, ScaleFree);
  TfLiteOperatorSetPrepareWithData(op, ScalePrepare);
  TfLiteOperatorSetInvoke(op, ScaleInvoke);
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, &op, 1, &errors, &model);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  assert_int_equal(probe.inits, 2);
  assert_int_equal(probe.init_lengths[0], sizeof(kScaleOptions));
  assert_true(probe.init_bytes_match[0]);
  assert_int_equal(probe.init_lengths[1], 0);
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);
  assert_int_equal(probe.prepares, 2);
  assert_true(probe.initial_data_match[0]);
  assert_true(probe.initial_data_match[1]);
  const float x[] = {2.0f, -4.0f};
  TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), x,
                             sizeof(x));
  assert_int_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  float y[2];
  assert_int_equal(
      TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 1),
                               y, sizeof(y)),
      kTfLiteOk);
  assert_true(y[0] == 5.0f && y[1] == -10.0f);
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(op);
  free(m.data);
}

/* ---- 4. Async kernel without Invoke -------------------------------------- */

static struct TfLiteAsyncKernel* AsyncKernel(TfLiteOpaqueContext* context,
                                             TfLiteOpaqueNode* node) {
  return NULL;
}

static void test_async_only_operator_rejected(void** state) {
  (void)state;
  model_bytes m = build_single_op_model("AsyncOnly", 4);
  TfLiteOperator* op =
      TfLiteOperatorCreate(kTfLiteBuiltinCustom, "AsyncOnly", 1);
  assert_non_null(op);
  TfLiteOperatorSetAsyncKernel(op, AsyncKernel);
  assert_true(lg_operator_has_async_kernel_only(op));
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, &op, 1, &errors, &model);
  assert_null(interpreter);
  /* The message names the operator and says why. */
  assert_non_null(strstr(errors.text, "AsyncOnly"));
  assert_true(strstr(errors.text, "async") != NULL ||
              strstr(errors.text, "Async") != NULL);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(op);
  free(m.data);
}

/* ---- 5. Version mismatch ------------------------------------------------ */

static void test_wrong_version_is_unresolved(void** state) {
  (void)state;
  model_bytes m = build_atan_model(1);
  TfLiteOperator* atan_v2 = create_atan_operator(2);
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, &atan_v2, 1, &errors, &model);
  expect_unresolved_at_allocate(interpreter, &errors);
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(atan_v2);
  free(m.data);
}

/* ---- 6. Accessor edge cases inside an interpreter ------------------------ */

static const char kMetaBytes[] = {'m', 'e', 't', 'a', 0, 1, 2};

typedef struct probe_state {
  int added_index;
  int prepares;
  int invokes;
} probe_state;

/* Init: AddTensor with quantization (the tensor gets a copy) and with a
 * forbidden allocation type. */
static void* ProbeInit(void* user_data, TfLiteOpaqueContext* context,
                       const char* buffer, size_t length) {
  probe_state* p = user_data;
  TfLiteAffineQuantization* q = calloc(1, sizeof(*q));
  q->scale = TfLiteFloatArrayCreate(1);
  q->scale->data[0] = 0.5f;
  q->zero_point = TfLiteIntArrayCreate(1);
  q->zero_point->data[0] = -3;
  TfLiteQuantization quantization = {kTfLiteAffineQuantization, q};
  TfLiteQuantizationParams params = {0.5f, -3};
  TfLiteOpaqueTensorBuilder* b = TfLiteOpaqueTensorBuilderCreate();
  CHECK(TfLiteOpaqueTensorBuilderSetType(b, kTfLiteInt8) == b);
  CHECK(TfLiteOpaqueTensorBuilderSetQuantization(b, quantization) == b);
  CHECK(TfLiteOpaqueTensorBuilderSetQuantizationParams(b, params) == b);
  const size_t before = TfLiteOpaqueContextGetNumTensors(context);
  CHECK(TfLiteOpaqueContextAddTensor(context, b, &p->added_index) == kTfLiteOk);
  CHECK(p->added_index == (int)before);
  CHECK(TfLiteOpaqueContextGetNumTensors(context) == before + 1);
  const TfLiteOpaqueTensor* t =
      TfLiteOpaqueContextGetOpaqueTensor(context, p->added_index);
  CHECK(t != NULL);
  CHECK(TfLiteOpaqueTensorType(t) == kTfLiteInt8);
  CHECK(TfLiteOpaqueTensorNumDims(t) == 0);
  CHECK(TfLiteOpaqueTensorGetAllocationType(t) == kTfLiteDynamic);
  TfLiteQuantization tq = TfLiteOpaqueTensorGetQuantization(t);
  CHECK(tq.type == kTfLiteAffineQuantization && tq.params != NULL);
  if (tq.params != NULL) {
    const TfLiteAffineQuantization* tq_affine = tq.params;
    CHECK(tq_affine->scale->data[0] == 0.5f);
    CHECK(tq_affine->zero_point->data[0] == -3);
  }
  CHECK(TfLiteOpaqueTensorGetQuantizationParams(t).zero_point == -3);
  int bad_index = -7;
  TfLiteOpaqueTensorBuilderSetAllocationType(b, kTfLiteMmapRo);
  CHECK(TfLiteOpaqueContextAddTensor(context, b, &bad_index) == kTfLiteError);
  CHECK(bad_index == -7);
  CHECK(TfLiteOpaqueContextGetNumTensors(context) == before + 1);
  TfLiteOpaqueTensorBuilderDelete(b);
  return NULL;
}

static TfLiteStatus ProbePrepare(void* user_data, TfLiteOpaqueContext* context,
                                 TfLiteOpaqueNode* node) {
  probe_state* p = user_data;
  p->prepares++;
  /* Node accessors: input 1 is omitted (-1). */
  CHECK(TfLiteOpaqueNodeNumberOfInputs(node) == 2);
  CHECK(TfLiteOpaqueNodeNumInputs(node) == 2);
  CHECK(TfLiteOpaqueNodeNumberOfOutputs(node) == 1);
  const TfLiteOpaqueTensor* x = TfLiteOpaqueNodeGetInput(context, node, 0);
  CHECK(x != NULL);
  CHECK(TfLiteOpaqueNodeGetInput(context, node, 1) == NULL);
  CHECK(TfLiteOpaqueNodeGetInput(context, node, 2) == NULL);
  CHECK(TfLiteOpaqueNodeGetInput(context, node, -1) == NULL);
  CHECK(TfLiteOpaqueNodeGetOutput(context, node, 1) == NULL);
  CHECK(TfLiteOpaqueNodeGetOutput(context, node, -1) == NULL);
  CHECK(TfLiteOpaqueNodeGetBuiltinData(node) == NULL);
  const int* list = NULL;
  int n = -1;
  CHECK(TfLiteOpaqueNodeInputs(node, &list, &n) == kTfLiteOk);
  CHECK(n == 2 && list != NULL && list[1] == kTfLiteOptionalTensor);
  CHECK(TfLiteOpaqueNodeInputs(node, NULL, &n) == kTfLiteError);
  /* Tensor accessors. */
  CHECK(strcmp(TfLiteOpaqueTensorName(x), "x") == 0);
  CHECK(TfLiteOpaqueTensorNumDims(x) == 2);
  CHECK(TfLiteOpaqueTensorDim(x, 1) == 3);
  CHECK(TfLiteOpaqueTensorDim(x, 2) == -1);
  CHECK(TfLiteOpaqueTensorDim(x, -1) == -1);
  CHECK(TfLiteOpaqueTensorIsVariable(x) == 0);
  int32_t sig = 0;
  CHECK(TfLiteOpaqueTensorGetNumDimsSignature(x, &sig) == kTfLiteOk);
  CHECK(sig == 2);
  CHECK(TfLiteOpaqueTensorGetDimSignature(x, 0, &sig) == kTfLiteOk);
  CHECK(sig == -1); /* from the model's shape_signature */
  CHECK(TfLiteOpaqueTensorGetDimSignature(x, 1, &sig) == kTfLiteOk);
  CHECK(sig == 3);
  CHECK(TfLiteOpaqueTensorGetDimSignature(x, 2, &sig) == kTfLiteError);
  /* Context accessors. */
  const size_t num_tensors = TfLiteOpaqueContextGetNumTensors(context);
  CHECK(num_tensors == 4); /* x, y, z and the tensor added in Init */
  CHECK(TfLiteOpaqueContextGetOpaqueTensor(context, -1) == NULL);
  CHECK(TfLiteOpaqueContextGetOpaqueTensor(context, (int)num_tensors) == NULL);
  CHECK(TfLiteOpaqueContextGetOpaqueTensor(context, 0) == x);
  CHECK(TfLiteOpaqueContextGetNumNodes(context) == 2);
  CHECK(strcmp(TfLiteOpaqueContextGetName(context), "probe_graph") == 0);
  CHECK(TfLiteOpaqueContextGetInputs(context, &list, &n) == kTfLiteOk);
  CHECK(n == 1 && list[0] == 0);
  CHECK(TfLiteOpaqueContextGetOutputs(context, &list, &n) == kTfLiteOk);
  CHECK(n == 1 && list[0] == 2);
  const char* meta = NULL;
  size_t bytes = 0;
  CHECK(TfLiteOpaqueContextGetMetadata(context, "min_runtime_version", &meta,
                                       &bytes) == kTfLiteOk);
  CHECK(bytes == 16 && meta != NULL && strcmp(meta, "1.14.0") == 0);
  CHECK(TfLiteOpaqueContextGetMetadata(context, "probe_meta", &meta, &bytes) ==
        kTfLiteOk);
  CHECK(bytes == sizeof(kMetaBytes) &&
        memcmp(meta, kMetaBytes, sizeof(kMetaBytes)) == 0);
  CHECK(TfLiteOpaqueContextGetMetadata(context, "absent", &meta, &bytes) ==
        kTfLiteError);
  TfLiteOpaqueContextReportError(context, "probe says %d %s", 42, "hello");
  TfLiteOpaqueTensor* y = TfLiteOpaqueNodeGetOutput(context, node, 0);
  return TfLiteOpaqueContextResizeTensor(context, y, shape_of(x));
}

static TfLiteStatus ProbeInvoke(void* user_data, TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  probe_state* p = user_data;
  p->invokes++;
  const TfLiteOpaqueTensor* x = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* y = TfLiteOpaqueNodeGetOutput(context, node, 0);
  float buffer[3];
  CHECK(TfLiteOpaqueTensorByteSize(x) == sizeof(buffer));
  CHECK(TfLiteOpaqueTensorCopyToBuffer(x, buffer, sizeof(buffer) - 1) ==
        kTfLiteError);
  CHECK(TfLiteOpaqueTensorCopyFromBuffer(y, buffer, sizeof(buffer) + 4) ==
        kTfLiteError);
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueTensorCopyToBuffer(x, buffer, sizeof(buffer)));
  for (int i = 0; i < 3; ++i) buffer[i] *= -1.0f;
  return TfLiteOpaqueTensorCopyFromBuffer(y, buffer, sizeof(buffer));
}

/* Line of the failing TF_LITE_OPAQUE_ENSURE below. */
static int g_ensure_line;

static TfLiteStatus FailingPrepare(TfLiteOpaqueContext* context,
                                   TfLiteOpaqueNode* node) {
  g_ensure_line = __LINE__ + 1;
  TF_LITE_OPAQUE_ENSURE(context, TfLiteOpaqueNodeNumInputs(node) == 7);
  return kTfLiteOk;
}

static TfLiteStatus NoopInvoke(TfLiteOpaqueContext* context,
                               TfLiteOpaqueNode* node) {
  return kTfLiteOk;
}

/* x[1,3] (signature [-1,3]) -> Probe(x, -1) -> y -> `second` -> z. */
static model_bytes build_probe_model(const char* second) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t shape[] = {1, 3};
  const int32_t signature[] = {-1, 3};
  lg_writer_tensor t = {.name = "x",
                        .type = kTfLiteFloat32,
                        .shape = shape,
                        .num_dims = 2,
                        .shape_signature = signature};
  int32_t x = lg_model_writer_add_tensor(w, &t);
  int32_t y = add_float_tensor(w, "y", shape, 2);
  int32_t z = add_float_tensor(w, "z", shape, 2);
  const int32_t probe_in[] = {x, -1};
  assert_true(lg_model_writer_add_custom_operator(w, "Probe", 1, probe_in, 2,
                                                  &y, 1, NULL, 0) >= 0);
  assert_true(lg_model_writer_add_custom_operator(w, second, 1, &y, 1, &z, 1,
                                                  NULL, 0) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &z, 1);
  lg_model_writer_set_subgraph_name(w, "probe_graph");
  lg_model_writer_set_min_runtime_version(w, "1.14.0");
  lg_model_writer_add_metadata(w, "probe_meta", kMetaBytes, sizeof(kMetaBytes));
  return finish(w);
}

static TfLiteOperator* create_probe_operator(probe_state* p) {
  TfLiteOperator* op =
      TfLiteOperatorCreateWithData(kTfLiteBuiltinCustom, "Probe", 1, p);
  assert_non_null(op);
  TfLiteOperatorSetInitWithData(op, ProbeInit);
  TfLiteOperatorSetPrepareWithData(op, ProbePrepare);
  TfLiteOperatorSetInvokeWithData(op, ProbeInvoke);
  return op;
}

static void test_accessors_in_interpreter(void** state) {
  (void)state;
  g_check_failed_line = 0;
  model_bytes m = build_probe_model("Atan");
  probe_state p = {.added_index = -1};
  TfLiteOperator* ops[2] = {create_probe_operator(&p), create_atan_operator(1)};
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, ops, 2, &errors, &model);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  assert_int_equal(g_check_failed_line, 0);
  assert_int_equal(p.added_index, 3);
  assert_non_null(strstr(errors.text, "Invalid allocation type"));
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);
  assert_int_equal(g_check_failed_line, 0);
  assert_non_null(strstr(errors.text, "probe says 42 hello"));
  const float x[] = {1.0f, -2.0f, 3.0f};
  TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), x,
                             sizeof(x));
  assert_int_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  assert_int_equal(g_check_failed_line, 0);
  float z[3];
  TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 0), z,
                           sizeof(z));
  for (int i = 0; i < 3; ++i) assert_true(fabsf(z[i] - atanf(-x[i])) < 1e-6f);
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(ops[0]);
  TfLiteOperatorDelete(ops[1]);
  free(m.data);
}

static void test_opaque_ensure_message(void** state) {
  (void)state;
  g_check_failed_line = 0;
  model_bytes m = build_probe_model("Failing");
  probe_state p = {.added_index = -1};
  TfLiteOperator* failing =
      TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Failing", 1);
  TfLiteOperatorSetPrepare(failing, FailingPrepare);
  TfLiteOperatorSetInvoke(failing, NoopInvoke);
  TfLiteOperator* ops[2] = {create_probe_operator(&p), failing};
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, ops, 2, &errors, &model);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  assert_int_not_equal(TfLiteInterpreterAllocateTensors(interpreter),
                       kTfLiteOk);
  char expected[512];
  snprintf(expected, sizeof(expected),
           "%s:%d: TfLiteOpaqueNodeNumInputs(node) == 7 was not true.",
           __FILE__, g_ensure_line);
  if (strstr(errors.text, expected) == NULL) {
    fail_msg("expected \"%s\" in:\n%s", expected, errors.text);
  }
  /* Not ready: Invoke fails instead of running half-prepared nodes. */
  assert_int_not_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(ops[0]);
  TfLiteOperatorDelete(ops[1]);
  free(m.data);
}

/* ---- 7. The former names ------------------------------------------------ */

static void test_registration_external_alias(void** state) {
  (void)state;
  model_bytes m = build_atan_model(1);
  TfLiteRegistrationExternal* reg =
      TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Atan", 1);
  assert_non_null(reg);
  TfLiteOperatorSetPrepare(reg, AtanPrepare);
  TfLiteOperatorSetInvoke(reg, AtanInvoke);
  TfLiteModel* model = TfLiteModelCreate(m.data, m.size);
  assert_non_null(model);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  capture errors = {0};
  TfLiteInterpreterOptionsSetErrorReporter(options, capture_reporter, &errors);
  TfLiteInterpreterOptionsAddRegistrationExternal(options, reg);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  run_atan_model(interpreter);
  TfLiteInterpreterDelete(interpreter);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(reg);
  free(m.data);
}

/* ---- 8. A TfLiteOperator overriding a builtin --------------------------- */

typedef struct sub_probe {
  bool init_got_params; /* Init saw the parsed TfLiteAddParams, length 0 */
  bool prepare_got_params;
  int invokes;
} sub_probe;

/* Registered as ADD, computes a - b: proves the user's kernel ran. */
static void* SubInit(void* user_data, TfLiteOpaqueContext* context,
                     const char* buffer, size_t length) {
  sub_probe* p = user_data;
  p->init_got_params = buffer != NULL && length == 0;
  return NULL;
}

static TfLiteStatus SubPrepare(void* user_data, TfLiteOpaqueContext* context,
                               TfLiteOpaqueNode* node) {
  sub_probe* p = user_data;
  const TfLiteAddParams* params = TfLiteOpaqueNodeGetBuiltinData(node);
  p->prepare_got_params =
      params != NULL && params->activation == kTfLiteActNone;
  const TfLiteOpaqueTensor* a = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  return TfLiteOpaqueContextResizeTensor(context, out, shape_of(a));
}

static TfLiteStatus SubInvoke(void* user_data, TfLiteOpaqueContext* context,
                              TfLiteOpaqueNode* node) {
  sub_probe* p = user_data;
  p->invokes++;
  const TfLiteOpaqueTensor* a = TfLiteOpaqueNodeGetInput(context, node, 0);
  const TfLiteOpaqueTensor* b = TfLiteOpaqueNodeGetInput(context, node, 1);
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  TF_LITE_OPAQUE_ENSURE_EQ(context, element_count(b), 1);
  const float* av = TfLiteOpaqueTensorData(a);
  const float* bv = TfLiteOpaqueTensorData(b);
  float* ov = TfLiteOpaqueTensorData(out);
  for (size_t i = 0; i < element_count(a); ++i) ov[i] = av[i] - bv[0];
  return kTfLiteOk;
}

static void test_operator_overrides_builtin(void** state) {
  (void)state;
  model_bytes m = build_atan_model(1);
  sub_probe p = {0};
  TfLiteOperator* sub =
      TfLiteOperatorCreateWithData(kTfLiteBuiltinAdd, NULL, 1, &p);
  assert_non_null(sub);
  TfLiteOperatorSetInitWithData(sub, SubInit);
  TfLiteOperatorSetPrepareWithData(sub, SubPrepare);
  TfLiteOperatorSetInvokeWithData(sub, SubInvoke);
  TfLiteOperator* ops[2] = {sub, create_atan_operator(1)};
  capture errors = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreter* interpreter =
      create_interpreter(&m, ops, 2, &errors, &model);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  assert_true(p.init_got_params);
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);
  assert_true(p.prepare_got_params);
  const float x[5] = {-8.0f, 0.5f, 2.0f, 2.2f, 201.0f};
  TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), x,
                             sizeof(x));
  assert_int_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  assert_int_equal(p.invokes, 1);
  float y[5];
  TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 0), y,
                           sizeof(y));
  for (int i = 0; i < 5; ++i) {
    assert_true(fabsf(y[i] - atanf(x[i] - 1.0f)) <= 1e-6f);
  }
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  TfLiteOperatorDelete(ops[0]);
  TfLiteOperatorDelete(ops[1]);
  free(m.data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_atan_unresolved_without_registration),
      cmocka_unit_test(test_atan_with_registration),
      cmocka_unit_test(test_stateful_operator),
      cmocka_unit_test(test_custom_options_reach_init),
      cmocka_unit_test(test_async_only_operator_rejected),
      cmocka_unit_test(test_wrong_version_is_unresolved),
      cmocka_unit_test(test_accessors_in_interpreter),
      cmocka_unit_test(test_opaque_ensure_message),
      cmocka_unit_test(test_registration_external_alias),
      cmocka_unit_test(test_operator_overrides_builtin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
