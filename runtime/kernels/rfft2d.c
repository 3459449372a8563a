/* RFFT2D: the 2-D discrete Fourier transform of the innermost two
 * dimensions of a FLOAT32 tensor, X[k1][k2] = sum x[n1][n2] *
 * exp(-2 pi i (k1 n1 / H + k2 n2 / W)), for k2 in [0, W/2] (the rest
 * follows by symmetry), as tf.signal.rfft2d and TFLite's kernel.
 *
 * fft_length (an INT32 [2] tensor) gives H and W, powers of two as TFLite
 * requires; each slice is cropped or zero-padded to [H, W]. The output is
 * COMPLEX64 [..., H, W/2 + 1]: dynamic unless fft_length is constant.
 *
 * The transform runs in double, as TFLite's: a radix-2 FFT of each row
 * (keeping bins 0..W/2), then of each of those columns, in a temporary of
 * H * (W/2 + 1) + max(H, W) complex doubles; the results round to float.
 * The summation order differs from TFLite's (Ooura's fft2d), so results
 * agree to double rounding before the final rounding to float.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

#define LG_RFFT2D_OP "RFFT2D"
/* The largest fft_length entry accepted (2^24: far beyond any model). */
#define LG_RFFT2D_MAX_LENGTH (1 << 24)

typedef struct lg_rfft2d_data {
  int temporaries[1];
} lg_rfft2d_data;

static void* lg_rfft2d_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_rfft2d_data* data = malloc(sizeof(*data));
  if (data != NULL) data->temporaries[0] = -1;
  return data;
}

/* Reads and checks fft_length: *h, *w. */
static TfLiteStatus lg_rfft2d_lengths(TfLiteContext* context,
                                      const TfLiteTensor* fft_length, int* h,
                                      int* w) {
  const char* op = LG_RFFT2D_OP;
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "fft_length", fft_length));
  const int32_t* v = fft_length->data.i32;
  for (int i = 0; i < 2; ++i) {
    if (v[i] <= 0 || v[i] > LG_RFFT2D_MAX_LENGTH || (v[i] & (v[i] - 1)) != 0) {
      lg_kernel_log(context, op,
                    "fft_length[%d] = %d is not a power of two in [1, 2^24]", i,
                    (int)v[i]);
      return kTfLiteError;
    }
  }
  *h = v[0];
  *w = v[1];
  return kTfLiteOk;
}

/* Complex doubles of the temporary. */
static size_t lg_rfft2d_scratch(int h, int w) {
  return (size_t)h * (size_t)(w / 2 + 1) + (size_t)(h > w ? h : w);
}

/* Shapes the output and sizes the temporary (4 floats per complex
 * double). */
static TfLiteStatus lg_rfft2d_resize(TfLiteContext* context, TfLiteNode* node,
                                     bool in_invoke) {
  const char* op = LG_RFFT2D_OP;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* fft_length = &context->tensors[node->inputs->data[1]];
  int h, w;
  TF_LITE_ENSURE_STATUS(lg_rfft2d_lengths(context, fft_length, &h, &w));
  int dims[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(input, dims);
  dims[rank - 2] = h;
  dims[rank - 1] = w / 2 + 1;
  const int64_t slices = lg_shape_product(dims, 0, rank - 2);
  if ((double)slices * h * (w / 2 + 1) >= 2147483647.0) {
    lg_kernel_log(context, op, "output of 2^31 or more elements");
    return kTfLiteError;
  }
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, dims, rank));
  const size_t floats = 4 * lg_rfft2d_scratch(h, w);
  if (in_invoke) {
    TfLiteTensor* temp = &context->tensors[node->temporaries->data[0]];
    const int n = (int)floats;
    return lg_shape_resize(context, op, temp, &n, 1);
  }
  lg_rfft2d_data* data = node->user_data;
  return lg_nn_set_temporaries(context, node, op, data->temporaries, &floats,
                               1);
}

static TfLiteStatus lg_rfft2d_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_RFFT2D_OP;
  const TfLiteTensor *input, *fft_length;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &fft_length));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (node->user_data == NULL) {
    lg_kernel_log(context, op, "no per-node data (out of memory in Init)");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "fft_length",
                                            fft_length->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_SHAPE_TYPE(kTfLiteComplex64)));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  if (input->dims->size < 2) {
    lg_kernel_log(context, op, "input must have rank 2 or more, got %d",
                  input->dims->size);
    return kTfLiteError;
  }
  if (fft_length->dims->size != 1 || fft_length->dims->data[0] != 2) {
    lg_kernel_log(context, op, "fft_length must be a [2] tensor");
    return kTfLiteError;
  }
  if (lg_kernel_is_constant(fft_length)) {
    return lg_rfft2d_resize(context, node, false);
  }
  lg_rfft2d_data* data = node->user_data;
  const size_t one = 4;
  TF_LITE_ENSURE_STATUS(
      lg_nn_set_temporaries(context, node, op, data->temporaries, &one, 1));
  lg_kernel_set_dynamic(&context->tensors[node->temporaries->data[0]]);
  lg_kernel_set_dynamic(&context->tensors[node->outputs->data[0]]);
  return kTfLiteOk;
}

/* In-place radix-2 FFT of n complex doubles (re, im interleaved), forward
 * (exp(-2 pi i k m / n)). */
static void lg_fft(double* x, int n) {
  for (int i = 1, j = 0; i < n; ++i) { /* bit reversal */
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const double re = x[2 * i], im = x[2 * i + 1];
      x[2 * i] = x[2 * j];
      x[2 * i + 1] = x[2 * j + 1];
      x[2 * j] = re;
      x[2 * j + 1] = im;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    const int half = len / 2;
    for (int k = 0; k < half; ++k) {
      const double angle = -2.0 * 3.14159265358979323846 * k / len;
      const double wr = cos(angle), wi = sin(angle);
      for (int s = 0; s < n; s += len) {
        double* a = &x[2 * (s + k)];
        double* b = &x[2 * (s + k + half)];
        const double tr = b[0] * wr - b[1] * wi;
        const double ti = b[0] * wi + b[1] * wr;
        b[0] = a[0] - tr;
        b[1] = a[1] - ti;
        a[0] += tr;
        a[1] += ti;
      }
    }
  }
}

static TfLiteStatus lg_rfft2d_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_RFFT2D_OP;
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_rfft2d_resize(context, node, true));
  }
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* fft_length = &context->tensors[node->inputs->data[1]];
  int h, w;
  TF_LITE_ENSURE_STATUS(lg_rfft2d_lengths(context, fft_length, &h, &w));
  const int rank = input->dims->size;
  const int in_h = input->dims->data[rank - 2];
  const int in_w = input->dims->data[rank - 1];
  const int64_t slices = lg_shape_product(input->dims->data, 0, rank - 2);
  const int bins = w / 2 + 1;
  if (lg_kernel_num_elements(output) != slices * h * bins) {
    lg_kernel_log(context, op, "output is not shaped for fft_length");
    return kTfLiteError;
  }
  if (lg_kernel_num_elements(output) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  double* grid = (double*)lg_nn_temporary(context, node, op, 0,
                                          4 * lg_rfft2d_scratch(h, w));
  if (grid == NULL) return kTfLiteError;
  double* line = grid + 2 * (size_t)h * (size_t)bins;
  const int copy_h = in_h < h ? in_h : h;
  const int copy_w = in_w < w ? in_w : w;
  float* out = (float*)output->data.raw;
  for (int64_t s = 0; s < slices; ++s) {
    const float* in = input->data.f + s * (int64_t)in_h * in_w;
    for (int r = 0; r < h; ++r) {
      memset(line, 0, sizeof(double) * 2 * (size_t)w);
      if (r < copy_h) {
        for (int c = 0; c < copy_w; ++c) {
          line[2 * c] = in[(int64_t)r * in_w + c];
        }
      }
      lg_fft(line, w);
      memcpy(grid + 2 * (size_t)r * bins, line, sizeof(double) * 2 * bins);
    }
    for (int k = 0; k < bins; ++k) {
      for (int r = 0; r < h; ++r) {
        line[2 * r] = grid[2 * ((size_t)r * bins + k)];
        line[2 * r + 1] = grid[2 * ((size_t)r * bins + k) + 1];
      }
      lg_fft(line, h);
      for (int r = 0; r < h; ++r) {
        float* o = out + 2 * (((size_t)s * h + r) * bins + k);
        o[0] = (float)line[2 * r];
        o[1] = (float)line[2 * r + 1];
      }
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(RFFT2D, lg_rfft2d_init, lg_kernel_free_data,
                       lg_rfft2d_prepare, lg_rfft2d_invoke)
