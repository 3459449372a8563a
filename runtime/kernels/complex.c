/* REAL, IMAG and COMPLEX_ABS: the real part, the imaginary part and the
 * magnitude of each element of a COMPLEX64 (to FLOAT32) or COMPLEX128 (to
 * FLOAT64) tensor, shaped as the input (TFLite's complex_support.cc). A
 * complex element is two floats of its precision, real part first; the
 * magnitude is hypotf / hypot (what std::abs of a std::complex computes
 * through cabs with glibc).
 */
#include <math.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

typedef enum lg_complex_part {
  LG_COMPLEX_REAL,
  LG_COMPLEX_IMAG,
  LG_COMPLEX_ABS,
} lg_complex_part;

static TfLiteStatus lg_complex_prepare(TfLiteContext* context, TfLiteNode* node,
                                       const char* op) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "input", input->type,
      LG_SHAPE_TYPE(kTfLiteComplex64) | LG_SHAPE_TYPE(kTfLiteComplex128)));
  const TfLiteType want =
      input->type == kTfLiteComplex64 ? kTfLiteFloat32 : kTfLiteFloat64;
  if (output->type != want) {
    lg_kernel_log(context, op, "output type %s must be %s for a %s input",
                  TfLiteTypeGetName(output->type), TfLiteTypeGetName(want),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  int dims[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(input, dims);
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_complex_invoke(TfLiteContext* context, TfLiteNode* node,
                                      const char* op, lg_complex_part part) {
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int64_t n = lg_kernel_num_elements(input);
  if (input->type == kTfLiteComplex64) {
    const float* in = (const float*)input->data.raw_const;
    float* out = output->data.f;
    for (int64_t i = 0; i < n; ++i) {
      const float re = in[2 * i], im = in[2 * i + 1];
      out[i] = part == LG_COMPLEX_REAL   ? re
               : part == LG_COMPLEX_IMAG ? im
                                         : hypotf(re, im);
    }
  } else {
    const double* in = (const double*)input->data.raw_const;
    double* out = output->data.f64;
    for (int64_t i = 0; i < n; ++i) {
      const double re = in[2 * i], im = in[2 * i + 1];
      out[i] = part == LG_COMPLEX_REAL   ? re
               : part == LG_COMPLEX_IMAG ? im
                                         : hypot(re, im);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_real_prepare(TfLiteContext* context, TfLiteNode* node) {
  return lg_complex_prepare(context, node, "REAL");
}
static TfLiteStatus lg_real_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_complex_invoke(context, node, "REAL", LG_COMPLEX_REAL);
}
static TfLiteStatus lg_imag_prepare(TfLiteContext* context, TfLiteNode* node) {
  return lg_complex_prepare(context, node, "IMAG");
}
static TfLiteStatus lg_imag_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_complex_invoke(context, node, "IMAG", LG_COMPLEX_IMAG);
}
static TfLiteStatus lg_complex_abs_prepare(TfLiteContext* context,
                                           TfLiteNode* node) {
  return lg_complex_prepare(context, node, "COMPLEX_ABS");
}
static TfLiteStatus lg_complex_abs_invoke(TfLiteContext* context,
                                          TfLiteNode* node) {
  return lg_complex_invoke(context, node, "COMPLEX_ABS", LG_COMPLEX_ABS);
}

LG_KERNEL_REGISTRATION(REAL, NULL, NULL, lg_real_prepare, lg_real_invoke)
LG_KERNEL_REGISTRATION(IMAG, NULL, NULL, lg_imag_prepare, lg_imag_invoke)
LG_KERNEL_REGISTRATION(COMPLEX_ABS, NULL, NULL, lg_complex_abs_prepare,
                       lg_complex_abs_invoke)
