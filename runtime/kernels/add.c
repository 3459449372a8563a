/* ADD: output = activation(input1 + input2), float32 and int32, with
 * numpy-style broadcasting up to LG_ADD_MAX_RANK dims.
 *
 * Prepare turns the two input shapes into a small loop plan: dims of output
 * size 1 are dropped and neighbouring dims with the same broadcast pattern
 * (which input, if any, repeats along them) are merged. Equal shapes become
 * one flat loop, a scalar side becomes one loop with a repeated operand, and
 * a trailing-dims broadcast ([N,C] + [C]) becomes two loops; everything else
 * walks the merged dims with per-input strides (0 along a broadcast dim).
 * Invoke only runs the plan. Quantized, int16, int64 and float16 inputs (ADD
 * versions 2..6) are rejected in Prepare with the type's name.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_ADD_OP "ADD"
/* TFLite's ADD broadcasts up to 6-D; 5-D is the documented contract. */
#define LG_ADD_MAX_RANK 6

enum {
  kInputTensor1 = 0,
  kInputTensor2 = 1,
  kOutputTensor = 0,
};

typedef struct lg_add_data {
  bool prepared;
  /* The merged loop nest, outermost first; rank >= 1 once prepared. */
  int rank;
  int dims[LG_ADD_MAX_RANK];
  ptrdiff_t stride1[LG_ADD_MAX_RANK]; /* 0 along dims input 1 repeats */
  ptrdiff_t stride2[LG_ADD_MAX_RANK];
  /* Element counts the plan was built for, checked again in Invoke. */
  int64_t elements1;
  int64_t elements2;
  int64_t elements_out;
  float min_f, max_f;
  int32_t min_i, max_i;
} lg_add_data;

static void* lg_add_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_add_data));
}

static void lg_add_free(TfLiteContext* context, void* buffer) {
  (void)context;
  free(buffer);
}

/* Dim i of `shape` once left-padded with 1s to `rank`. */
static int lg_add_dim(const TfLiteIntArray* shape, int rank, int i) {
  const int j = i - (rank - shape->size);
  return j < 0 ? 1 : shape->data[j];
}

/* Builds the merged loop plan for out = broadcast(a, b). */
static void lg_add_plan(lg_add_data* data, const TfLiteIntArray* a,
                        const TfLiteIntArray* b, const TfLiteIntArray* out) {
  bool repeat1[LG_ADD_MAX_RANK], repeat2[LG_ADD_MAX_RANK];
  int n = 0;
  for (int i = 0; i < out->size; ++i) {
    const int d = out->data[i];
    if (d == 1) continue; /* adds nothing to the loop nest */
    /* d != 1 here, so a dim of 1 means that input repeats along it. A zero
     * dim leaves no elements and the plan is never run. */
    const bool r1 = lg_add_dim(a, out->size, i) == 1;
    const bool r2 = lg_add_dim(b, out->size, i) == 1;
    if (n > 0 && repeat1[n - 1] == r1 && repeat2[n - 1] == r2) {
      data->dims[n - 1] *= d;
    } else {
      data->dims[n] = d;
      repeat1[n] = r1;
      repeat2[n] = r2;
      ++n;
    }
  }
  if (n == 0) { /* a single element */
    data->dims[0] = 1;
    repeat1[0] = repeat2[0] = false;
    n = 1;
  }
  ptrdiff_t s1 = 1, s2 = 1;
  for (int k = n - 1; k >= 0; --k) {
    data->stride1[k] = repeat1[k] ? 0 : s1;
    data->stride2[k] = repeat2[k] ? 0 : s2;
    if (!repeat1[k]) s1 *= data->dims[k];
    if (!repeat2[k]) s2 *= data->dims[k];
  }
  data->rank = n;
}

static TfLiteStatus lg_add_check_types(TfLiteContext* context,
                                       const TfLiteTensor* input1,
                                       const TfLiteTensor* input2,
                                       const TfLiteTensor* output) {
  if (input1->type != input2->type) {
    lg_kernel_log(context, LG_ADD_OP, "input types %s and %s differ",
                  TfLiteTypeGetName(input1->type),
                  TfLiteTypeGetName(input2->type));
    return kTfLiteError;
  }
  if (input1->type != kTfLiteFloat32 && input1->type != kTfLiteInt32) {
    lg_kernel_log(context, LG_ADD_OP,
                  "input type %s is not supported (expected FLOAT32 or INT32)",
                  TfLiteTypeGetName(input1->type));
    return kTfLiteError;
  }
  if (output->type != input1->type) {
    lg_kernel_log(context, LG_ADD_OP,
                  "output type %s differs from input "
                  "type %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(input1->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_add_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_add_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_ADD_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_ADD_OP, 2, 2, 1));
  const TfLiteTensor* input1;
  const TfLiteTensor* input2;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_ADD_OP, kInputTensor1, &input1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_ADD_OP, kInputTensor2, &input2));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_ADD_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_add_check_types(context, input1, input2, output));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_ADD_OP, "input 0", input1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_ADD_OP, "input 1", input2));

  const TfLiteAddParams* params = node->builtin_data;
  const TfLiteFusedActivation activation =
      params != NULL ? params->activation : kTfLiteActNone;
  if (input1->type == kTfLiteFloat32) {
    TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
        context, LG_ADD_OP, activation, &data->min_f, &data->max_f));
  } else {
    TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_int32(
        context, LG_ADD_OP, activation, &data->min_i, &data->max_i));
  }

  TfLiteIntArray* shape = NULL;
  TF_LITE_ENSURE_STATUS(lg_kernel_broadcast_shape(
      context, LG_ADD_OP, input1->dims, input2->dims, LG_ADD_MAX_RANK, &shape));
  const int64_t elements_out = lg_kernel_num_elements_dims(shape);
  if (elements_out > INT32_MAX) {
    lg_kernel_log(context, LG_ADD_OP,
                  "the broadcast output has %lld elements, above %d",
                  (long long)elements_out, INT32_MAX);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  lg_add_plan(data, input1->dims, input2->dims, shape);
  data->elements1 = lg_kernel_num_elements(input1);
  data->elements2 = lg_kernel_num_elements(input2);
  data->elements_out = elements_out;
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* One innermost row: out[i] = clamp(x[i*sx] + y[i*sy]) with sx, sy in {0, 1}
 * (never both 0 unless n == 1). Each case is its own loop so that the
 * compiler vectorizes it. */
static void lg_add_row_f32(const float* x, ptrdiff_t sx, const float* y,
                           ptrdiff_t sy, float* out, int n, float lo,
                           float hi) {
  if (sx == 1 && sy == 1) {
    for (int i = 0; i < n; ++i)
      out[i] = lg_kernel_clamp_float(x[i] + y[i], lo, hi);
  } else if (sy == 1) {
    const float xv = x[0];
    for (int i = 0; i < n; ++i)
      out[i] = lg_kernel_clamp_float(xv + y[i], lo, hi);
  } else if (sx == 1) {
    const float yv = y[0];
    for (int i = 0; i < n; ++i)
      out[i] = lg_kernel_clamp_float(x[i] + yv, lo, hi);
  } else {
    for (int i = 0; i < n; ++i)
      out[i] = lg_kernel_clamp_float(x[0] + y[0], lo, hi);
  }
}

/* Wrapping int32 addition (TFLite's int32 ADD wraps too; C's signed overflow
 * is undefined, so add as unsigned). */
static inline int32_t lg_add_i32_one(int32_t x, int32_t y, int32_t lo,
                                     int32_t hi) {
  const int32_t sum = (int32_t)((uint32_t)x + (uint32_t)y);
  return sum < lo ? lo : (sum > hi ? hi : sum);
}

static void lg_add_row_i32(const int32_t* x, ptrdiff_t sx, const int32_t* y,
                           ptrdiff_t sy, int32_t* out, int n, int32_t lo,
                           int32_t hi) {
  if (sx == 1 && sy == 1) {
    for (int i = 0; i < n; ++i) out[i] = lg_add_i32_one(x[i], y[i], lo, hi);
  } else if (sy == 1) {
    const int32_t xv = x[0];
    for (int i = 0; i < n; ++i) out[i] = lg_add_i32_one(xv, y[i], lo, hi);
  } else if (sx == 1) {
    const int32_t yv = y[0];
    for (int i = 0; i < n; ++i) out[i] = lg_add_i32_one(x[i], yv, lo, hi);
  } else {
    for (int i = 0; i < n; ++i) out[i] = lg_add_i32_one(x[0], y[0], lo, hi);
  }
}

/* Walks the outer dims of the plan like an odometer and hands each
 * innermost row to the typed row function. */
static void lg_add_run(const lg_add_data* data, TfLiteType type,
                       const void* in1, const void* in2, void* out) {
  const int last = data->rank - 1;
  const int inner = data->dims[last];
  const int64_t rows = data->elements_out / inner;
  int index[LG_ADD_MAX_RANK] = {0};
  ptrdiff_t off1 = 0, off2 = 0, off_out = 0;
  for (int64_t row = 0; row < rows; ++row) {
    if (type == kTfLiteFloat32) {
      lg_add_row_f32((const float*)in1 + off1, data->stride1[last],
                     (const float*)in2 + off2, data->stride2[last],
                     (float*)out + off_out, inner, data->min_f, data->max_f);
    } else {
      lg_add_row_i32((const int32_t*)in1 + off1, data->stride1[last],
                     (const int32_t*)in2 + off2, data->stride2[last],
                     (int32_t*)out + off_out, inner, data->min_i, data->max_i);
    }
    off_out += inner;
    for (int k = last - 1; k >= 0; --k) {
      off1 += data->stride1[k];
      off2 += data->stride2[k];
      if (++index[k] < data->dims[k]) break;
      off1 -= data->stride1[k] * data->dims[k];
      off2 -= data->stride2[k] * data->dims[k];
      index[k] = 0;
    }
  }
}

static TfLiteStatus lg_add_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_add_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_ADD_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input1;
  const TfLiteTensor* input2;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_ADD_OP, kInputTensor1, &input1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_ADD_OP, kInputTensor2, &input2));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_ADD_OP, kOutputTensor, &output));
  /* The plan indexes by these counts; a shape changed without a new
   * Prepare would read or write out of bounds. */
  if (lg_kernel_num_elements(input1) != data->elements1 ||
      lg_kernel_num_elements(input2) != data->elements2 ||
      lg_kernel_num_elements(output) != data->elements_out) {
    lg_kernel_log(context, LG_ADD_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->elements_out == 0) return kTfLiteOk;
  if (input1->data.data == NULL || input2->data.data == NULL ||
      output->data.data == NULL) {
    lg_kernel_log(context, LG_ADD_OP, "a tensor has no data");
    return kTfLiteError;
  }
  lg_add_run(data, input1->type, input1->data.data, input2->data.data,
             output->data.data);
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_ADD(void) {
  static const TfLiteRegistration registration = {
      .init = lg_add_init,
      .free = lg_add_free,
      .prepare = lg_add_prepare,
      .invoke = lg_add_invoke,
      .builtin_code = kTfLiteBuiltinAdd,
      .version = 1,
  };
  return &registration;
}
