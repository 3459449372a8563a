/* AudioSpectrogram: the custom op TFLite's BuiltinOpResolver registers by
 * name (version 1); litegpu's default resolver resolves it too (ops/ops.def's
 * custom row with a CPU range).
 *
 * Input: FLOAT32 [samples, channels] (rank 2). Output: FLOAT32 [channels,
 * frames, bins] with bins = fft_length / 2 + 1, fft_length the smallest
 * power of two >= window_size, and frames = 1 + (samples - window_size) /
 * stride (0 when samples < window_size).
 *
 * Options (the node's custom_options, a FlexBuffers map read by
 * runtime/model/flexbuffers.c): window_size and stride (integers; TFLite
 * needs window_size >= 2 and stride >= 1), magnitude_squared (a bool; a
 * missing key reads as false, as in TFLite). A malformed map fails Prepare
 * with the reader's message.
 *
 * Each frame is as TFLite's Spectrogram computes it: the window's samples
 * (as doubles) times the periodic Hann window 0.5 - 0.5 * cos(2 pi i /
 * window_size) (pi = 4 atan(1), double), zero-padded to fft_length, a
 * forward real DFT in double, and per bin re^2 + im^2 in double rounded to
 * float; without magnitude_squared the output is sqrtf of that float.
 * The DFT is litegpu's own radix-2 FFT (TFLite's uses Ooura's rdft): the
 * rounding of the two differs by a few double ulps of the frame's
 * magnitude, which the float results mostly hide (see
 * tests/python/ops/test_ops_audio.py for the bound the tests use).
 *
 * Channels are independent: LiteRT's kernel initializes its Spectrogram
 * again for each channel, so every channel is framed from its own first
 * sample.
 *
 * Prepare sizes the window, FFT buffers and tables; Invoke does not
 * allocate.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/model/flexbuffers.h"
#include "tensorflow/lite/c/common.h"

#define LG_AS_OP "AudioSpectrogram"
/* The largest window: its FFT length, 2^30, still fits an int. */
#define LG_AS_MAX_WINDOW (1 << 30)

typedef struct lg_as_data {
  /* Options. */
  int window_size;
  int stride;
  bool magnitude_squared;
  bool options_ok;
  char options_error[200];
  /* Set by Prepare. */
  int fft_length;
  int bins;
  int64_t samples;
  int64_t channels;
  int64_t frames;
  /* Scratch for window_size / fft_length (sized_window, sized_fft). */
  int sized_window;
  int sized_fft;
  void* scratch;
  double* window;  /* window_size: the periodic Hann window */
  double* re;      /* fft_length */
  double* im;      /* fft_length */
  double* cos_tab; /* fft_length / 2: cos(2 pi k / fft_length) */
  double* sin_tab; /* fft_length / 2: sin(2 pi k / fft_length) */
  int* bitrev;     /* fft_length: bit-reversed indices */
} lg_as_data;

/* ---- Options ------------------------------------------------------------ */

static void lg_as_read_options(lg_as_data* d, const char* buffer,
                               size_t length) {
  char* err = d->options_error;
  const size_t n = sizeof(d->options_error);
  lg_flex_map map;
  if (!lg_flex_open_map((const uint8_t*)buffer, length, &map)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  if (!lg_flex_map_int32(&map, "window_size", &d->window_size, NULL, err, n) ||
      !lg_flex_map_int32(&map, "stride", &d->stride, NULL, err, n)) {
    return;
  }
  lg_flex_number squared;
  if (!lg_flex_map_number(&map, "magnitude_squared", &squared)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  d->magnitude_squared = squared.i != 0;
  d->options_ok = true;
}

static void* lg_as_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  lg_as_data* d = calloc(1, sizeof(lg_as_data));
  if (d != NULL) lg_as_read_options(d, buffer, length);
  return d;
}

static void lg_as_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_as_data* d = buffer;
  if (d == NULL) return;
  free(d->scratch);
  free(d);
}

/* ---- Prepare ------------------------------------------------------------ */

static int lg_as_fft_length(int window_size) {
  int n = 1;
  while (n < window_size) n *= 2;
  return n;
}

/* Sizes and fills the window and FFT tables for the options' window. */
static TfLiteStatus lg_as_alloc(TfLiteContext* context, lg_as_data* d) {
  const int w = d->window_size, n = d->fft_length;
  if (d->scratch != NULL && d->sized_window == w && d->sized_fft == n) {
    return kTfLiteOk;
  }
  free(d->scratch);
  d->scratch = NULL;
  d->sized_window = 0;
  d->sized_fft = 0;
  const size_t doubles = (size_t)w + 3 * (size_t)n;
  const size_t bytes = doubles * sizeof(double) + (size_t)n * sizeof(int);
  char* p = malloc(bytes);
  if (p == NULL) {
    lg_kernel_log(context, LG_AS_OP,
                  "out of memory for a %d-sample window and a %d-point FFT", w,
                  n);
    return kTfLiteError;
  }
  d->scratch = p;
  d->window = (double*)p;
  d->re = d->window + w;
  d->im = d->re + n;
  d->cos_tab = d->im + n;
  d->sin_tab = d->cos_tab + n / 2;
  d->bitrev = (int*)(p + doubles * sizeof(double));
  const double pi = atan(1.0) * 4.0;
  for (int i = 0; i < w; ++i) {
    d->window[i] = 0.5 - 0.5 * cos((2.0 * pi * i) / w);
  }
  for (int k = 0; k < n / 2; ++k) {
    if (4 * k == n) { /* a quarter turn, exactly */
      d->cos_tab[k] = 0.0;
      d->sin_tab[k] = 1.0;
    } else {
      const double angle = 2.0 * pi * k / n;
      d->cos_tab[k] = cos(angle);
      d->sin_tab[k] = sin(angle);
    }
  }
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  for (int i = 0; i < n; ++i) {
    int r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
    d->bitrev[i] = r;
  }
  d->sized_window = w;
  d->sized_fft = n;
  return kTfLiteOk;
}

static TfLiteStatus lg_as_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_AS_OP;
  lg_as_data* d = node->user_data;
  if (d == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  if (!d->options_ok) {
    lg_kernel_log(context, op, "%s", d->options_error);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  char shape[64];
  if (input->dims->size != 2) {
    lg_kernel_log(context, op,
                  "input %s must have rank 2 ([samples, channels])",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (input->type != kTfLiteFloat32 || output->type != kTfLiteFloat32) {
    lg_kernel_log(context, op,
                  "input %s and output %s: TFLite's kernel takes FLOAT32 "
                  "only",
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (d->window_size < 2 || d->window_size > LG_AS_MAX_WINDOW) {
    lg_kernel_log(context, op, "window_size %d is not in [2, %d]",
                  d->window_size, LG_AS_MAX_WINDOW);
    return kTfLiteError;
  }
  if (d->stride < 1) {
    lg_kernel_log(context, op, "stride %d must be >= 1", d->stride);
    return kTfLiteError;
  }
  d->fft_length = lg_as_fft_length(d->window_size);
  d->bins = d->fft_length / 2 + 1;
  d->samples = input->dims->data[0];
  d->channels = input->dims->data[1];
  d->frames = d->samples < d->window_size
                  ? 0
                  : 1 + (d->samples - d->window_size) / d->stride;
  if (d->channels * d->frames * (int64_t)d->bins > INT32_MAX) {
    lg_kernel_log(context, op,
                  "the output [%lld, %lld, %d] has too many elements",
                  (long long)d->channels, (long long)d->frames, d->bins);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_as_alloc(context, d));
  TfLiteIntArray* out_shape = TfLiteIntArrayCreate(3);
  if (out_shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  out_shape->data[0] = (int)d->channels;
  out_shape->data[1] = (int)d->frames;
  out_shape->data[2] = d->bins;
  return context->ResizeTensor(context, output, out_shape);
}

/* ---- Invoke -------------------------------------------------------------- */

/* The DFT of re[0..n) (real; im is filled here), in place, radix 2. */
static void lg_as_fft(lg_as_data* d) {
  const int n = d->fft_length;
  double* re = d->re;
  double* im = d->im;
  for (int i = 0; i < n; ++i) {
    const int j = d->bitrev[i];
    if (j > i) {
      const double t = re[i];
      re[i] = re[j];
      re[j] = t;
    }
    im[i] = 0.0;
  }
  for (int len = 2; len <= n; len *= 2) {
    const int half = len / 2, step = n / len;
    for (int start = 0; start < n; start += len) {
      for (int k = 0; k < half; ++k) {
        /* e^(-2 pi i k / len) */
        const double wr = d->cos_tab[k * step];
        const double wi = -d->sin_tab[k * step];
        const int a = start + k, b = a + half;
        const double tr = wr * re[b] - wi * im[b];
        const double ti = wr * im[b] + wi * re[b];
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

static TfLiteStatus lg_as_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_as_data* d = node->user_data;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int64_t total = d->channels * d->frames * (int64_t)d->bins;
  if (total == 0) return kTfLiteOk;
  if (input->data.f == NULL || output->data.f == NULL) {
    lg_kernel_log(context, LG_AS_OP, "a tensor has no data");
    return kTfLiteError;
  }
  const float* x = input->data.f;
  const int64_t chans = d->channels;
  const int w = d->window_size, n = d->fft_length, bins = d->bins;
  for (int64_t c = 0; c < chans; ++c) {
    float* out = output->data.f + c * d->frames * bins;
    for (int64_t k = 0; k < d->frames; ++k) {
      const int64_t start = k * d->stride;
      for (int i = 0; i < w; ++i) {
        d->re[i] = (double)x[(start + i) * chans + c] * d->window[i];
      }
      for (int i = w; i < n; ++i) d->re[i] = 0.0;
      lg_as_fft(d);
      for (int b = 0; b < bins; ++b) {
        const double re = d->re[b], im = d->im[b];
        const float power = (float)(re * re + im * im);
        out[b] = d->magnitude_squared ? power : sqrtf(power);
      }
      out += bins;
    }
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_AUDIO_SPECTROGRAM(void) {
  static const TfLiteRegistration registration = {
      .init = lg_as_init,
      .free = lg_as_free,
      .prepare = lg_as_prepare,
      .invoke = lg_as_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_AS_OP,
      .version = 1,
  };
  return &registration;
}
