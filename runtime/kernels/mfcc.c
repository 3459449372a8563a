/* Mfcc: the custom op TFLite's BuiltinOpResolver registers by name (version
 * 1); litegpu's default resolver resolves it too (ops/ops.def's custom row
 * with a CPU range).
 *
 * Inputs: a FLOAT32 squared-magnitude spectrogram [channels, frames, bins]
 * (AudioSpectrogram's output) and an INT32 sample rate (one element, read in
 * Invoke). Output: FLOAT32 [channels, frames, dct_coefficient_count].
 *
 * Options (the node's custom_options, a FlexBuffers map read by
 * runtime/model/flexbuffers.c): upper_frequency_limit,
 * lower_frequency_limit, filterbank_channel_count, dct_coefficient_count.
 * TFLite reads all four as integers (a float option is truncated toward
 * zero; a missing key reads as 0), and so does litegpu. A malformed map
 * fails Prepare with the reader's message.
 *
 * The arithmetic is TFLite's (mfcc.cc, mfcc_mel_filterbank.cc,
 * mfcc_dct.cc), all in double, in the same order, so the results are the
 * same bits as LiteRT's where libm agrees:
 *  - mel(f) = 1127 * log1p(f / 700); filterbank_channel_count + 1 centers
 *    evenly spaced in mel above mel(lower); hz_per_bin = 0.5 * rate / (bins
 *    - 1); bins start = (int)(1.5 + lower / hz_per_bin) to end = (int)(upper
 *    / hz_per_bin) are used, each giving sqrt(power) * weight to the channel
 *    whose right slope holds it and the rest to the next channel;
 *  - each channel's sum, floored at 1e-12, goes through log;
 *  - output i = sum_j sqrt(2 / channels) * cos(i * (pi / channels) * (j +
 *    0.5)) * log_mel[j] (pi = 4 atan(1)), rounded to float.
 * When end >= bins (upper_frequency_limit above what the spectrogram
 * covers) TFLite's filterbank returns nothing and its DCT of nothing is 0:
 * every output is 0, here too.
 *
 * TFLite's Eval fails (its Mfcc object is left uninitialized) when
 * filterbank_channel_count < 1, dct_coefficient_count < 1 or above
 * filterbank_channel_count, lower_frequency_limit < 0, upper <= lower, or
 * bins < 2; litegpu rejects those in Prepare (TFLite accepts them when the
 * input has no frames; litegpu does not). A sample rate <= 0 fails Invoke,
 * as in TFLite, when there is a frame to compute.
 *
 * Prepare sizes every table and computes the DCT's cosines; Invoke builds
 * the filterbank for the sample rate (again only when it changes) and does
 * not allocate.
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

#define LG_MFCC_OP "Mfcc"

enum { kLgMfccSpectrogram = 0, kLgMfccRate = 1 };

typedef struct lg_mfcc_data {
  /* Options. */
  float upper;
  float lower;
  int channels; /* filterbank_channel_count */
  int coefficients;
  bool options_ok;
  char options_error[200];
  /* Set by Prepare. */
  int bins;        /* spectrogram bins (input_length) */
  int64_t frames;  /* audio channels * spectrogram frames */
  void* scratch;   /* the tables below, one block */
  double* cosines; /* coefficients * channels */
  double* centers; /* channels + 1 */
  double* weights; /* bins */
  double* working; /* channels */
  int* band;       /* bins: the channel of each bin's right slope */
  size_t scratch_bytes;
  /* The filterbank of the last sample rate (Invoke). */
  bool bank_ready;
  int32_t bank_rate;
  bool bank_empty; /* end >= bins: every output is 0 */
  int start, end;
} lg_mfcc_data;

/* ---- Options ------------------------------------------------------------ */

static void lg_mfcc_read_options(lg_mfcc_data* d, const char* buffer,
                                 size_t length) {
  char* err = d->options_error;
  const size_t n = sizeof(d->options_error);
  lg_flex_map map;
  if (!lg_flex_open_map((const uint8_t*)buffer, length, &map)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  int upper, lower;
  if (!lg_flex_map_int32(&map, "upper_frequency_limit", &upper, NULL, err, n) ||
      !lg_flex_map_int32(&map, "lower_frequency_limit", &lower, NULL, err, n) ||
      !lg_flex_map_int32(&map, "filterbank_channel_count", &d->channels, NULL,
                         err, n) ||
      !lg_flex_map_int32(&map, "dct_coefficient_count", &d->coefficients, NULL,
                         err, n)) {
    return;
  }
  d->upper = (float)upper;
  d->lower = (float)lower;
  d->options_ok = true;
}

static void* lg_mfcc_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  lg_mfcc_data* d = calloc(1, sizeof(lg_mfcc_data));
  if (d != NULL) lg_mfcc_read_options(d, buffer, length);
  return d;
}

static void lg_mfcc_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_mfcc_data* d = buffer;
  if (d == NULL) return;
  free(d->scratch);
  free(d);
}

/* ---- Prepare ------------------------------------------------------------ */

static TfLiteStatus lg_mfcc_alloc(TfLiteContext* context, lg_mfcc_data* d) {
  const size_t ch = (size_t)d->channels, bins = (size_t)d->bins;
  const size_t doubles = (size_t)d->coefficients * ch + (ch + 1) + bins + ch;
  const size_t bytes = doubles * sizeof(double) + bins * sizeof(int);
  if (d->scratch == NULL || d->scratch_bytes != bytes) {
    free(d->scratch);
    d->scratch = malloc(bytes);
    d->scratch_bytes = 0;
    if (d->scratch == NULL) {
      lg_kernel_log(context, LG_MFCC_OP,
                    "out of memory for the tables of %d filterbank channels, "
                    "%d coefficients and %d bins",
                    d->channels, d->coefficients, d->bins);
      return kTfLiteError;
    }
    d->scratch_bytes = bytes;
  }
  double* p = d->scratch;
  d->cosines = p;
  p += (size_t)d->coefficients * ch;
  d->centers = p;
  p += ch + 1;
  d->weights = p;
  p += bins;
  d->working = p;
  p += ch;
  d->band = (int*)p;
  /* mfcc_dct.cc's table. */
  const double fnorm = sqrt(2.0 / d->channels);
  const double pi = atan(1) * 4;
  const double arg = pi / d->channels;
  for (int i = 0; i < d->coefficients; ++i) {
    for (int j = 0; j < d->channels; ++j) {
      d->cosines[(size_t)i * ch + (size_t)j] = fnorm * cos(i * arg * (j + 0.5));
    }
  }
  d->bank_ready = false;
  return kTfLiteOk;
}

static TfLiteStatus lg_mfcc_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_MFCC_OP;
  lg_mfcc_data* d = node->user_data;
  if (d == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  if (!d->options_ok) {
    lg_kernel_log(context, op, "%s", d->options_error);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  const TfLiteTensor *spec, *rate;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgMfccSpectrogram, &spec));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kLgMfccRate, &rate));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "spectrogram", spec));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "sample_rate", rate));
  char shape[64];
  if (spec->dims->size != 3) {
    lg_kernel_log(context, op,
                  "spectrogram %s must have rank 3 ([channels, frames, bins])",
                  lg_kernel_format_shape(spec->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (lg_kernel_num_elements(rate) != 1) {
    lg_kernel_log(context, op, "sample_rate %s must have one element",
                  lg_kernel_format_shape(rate->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (spec->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 ||
      rate->type != kTfLiteInt32) {
    lg_kernel_log(context, op,
                  "spectrogram %s, sample_rate %s and output %s: TFLite's "
                  "kernel takes FLOAT32, INT32 and FLOAT32",
                  TfLiteTypeGetName(spec->type), TfLiteTypeGetName(rate->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (d->channels < 1 || d->coefficients < 1 || d->coefficients > d->channels) {
    lg_kernel_log(context, op,
                  "filterbank_channel_count %d must be >= 1 and "
                  "dct_coefficient_count %d in [1, filterbank_channel_count]",
                  d->channels, d->coefficients);
    return kTfLiteError;
  }
  if (!(d->lower >= 0.0f) || !(d->upper > d->lower)) {
    lg_kernel_log(context, op,
                  "lower_frequency_limit %g must be >= 0 and "
                  "upper_frequency_limit %g above it",
                  (double)d->lower, (double)d->upper);
    return kTfLiteError;
  }
  d->bins = spec->dims->data[2];
  if (d->bins < 2) {
    lg_kernel_log(context, op,
                  "spectrogram %s has %d bins: the filterbank needs 2 or "
                  "more",
                  lg_kernel_format_shape(spec->dims, shape, sizeof(shape)),
                  d->bins);
    return kTfLiteError;
  }
  d->frames = (int64_t)spec->dims->data[0] * spec->dims->data[1];
  if ((int64_t)d->coefficients * d->channels > INT32_MAX ||
      d->frames * d->coefficients > INT32_MAX) {
    lg_kernel_log(context, op,
                  "%d coefficients of %d filterbank channels for %lld frames "
                  "are too many",
                  d->coefficients, d->channels, (long long)d->frames);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_mfcc_alloc(context, d));
  TfLiteIntArray* out_shape = TfLiteIntArrayCreate(3);
  if (out_shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  out_shape->data[0] = spec->dims->data[0];
  out_shape->data[1] = spec->dims->data[1];
  out_shape->data[2] = d->coefficients;
  return context->ResizeTensor(context, output, out_shape);
}

/* ---- Invoke -------------------------------------------------------------- */

static double lg_mfcc_mel(double freq) { return 1127.0 * log1p(freq / 700.0); }

/* mfcc_mel_filterbank.cc's Initialize for `rate` (> 0). */
static void lg_mfcc_bank(lg_mfcc_data* d, int32_t rate) {
  const int ch = d->channels, bins = d->bins;
  const double lower = d->lower, upper = d->upper;
  const double mel_low = lg_mfcc_mel(lower);
  const double mel_hi = lg_mfcc_mel(upper);
  const double mel_spacing = (mel_hi - mel_low) / (double)(ch + 1);
  for (int i = 0; i < ch + 1; ++i) {
    d->centers[i] = mel_low + (mel_spacing * (i + 1));
  }
  const double hz_per_bin = 0.5 * (double)rate / (double)(bins - 1);
  const double end = upper / hz_per_bin;
  d->bank_ready = true;
  d->bank_rate = rate;
  /* TFLite's Compute gives nothing when bins <= end (its (int) conversion
   * of a larger end is out of int's range, and nothing as well). */
  d->bank_empty = !(end < (double)bins);
  if (d->bank_empty) return;
  d->start = (int)(1.5 + (lower / hz_per_bin));
  d->end = (int)end;
  int channel = 0;
  for (int i = 0; i < bins; ++i) {
    const double melf = lg_mfcc_mel(i * hz_per_bin);
    if (i < d->start || i > d->end) {
      d->band[i] = -2;
    } else {
      while (channel < ch && d->centers[channel] < melf) ++channel;
      d->band[i] = channel - 1;
    }
  }
  for (int i = 0; i < bins; ++i) {
    const int c = d->band[i];
    if (i < d->start || i > d->end) {
      d->weights[i] = 0.0;
    } else if (c >= 0) {
      d->weights[i] = (d->centers[c + 1] - lg_mfcc_mel(i * hz_per_bin)) /
                      (d->centers[c + 1] - d->centers[c]);
    } else {
      d->weights[i] = (d->centers[0] - lg_mfcc_mel(i * hz_per_bin)) /
                      (d->centers[0] - mel_low);
    }
  }
}

/* One frame: bins powers -> coefficients outputs. */
static void lg_mfcc_frame(lg_mfcc_data* d, const float* power, float* out) {
  const int ch = d->channels;
  if (d->bank_empty) {
    for (int i = 0; i < d->coefficients; ++i) out[i] = 0.0f;
    return;
  }
  double* w = d->working;
  for (int c = 0; c < ch; ++c) w[c] = 0.0;
  for (int i = d->start; i <= d->end; ++i) {
    const double spec = sqrt((double)power[i]);
    const double weighted = spec * d->weights[i];
    int c = d->band[i];
    if (c >= 0) w[c] += weighted;
    ++c;
    if (c < ch) w[c] += spec - weighted;
  }
  for (int c = 0; c < ch; ++c) {
    double v = w[c];
    if (v < 1e-12) v = 1e-12;
    w[c] = log(v);
  }
  for (int i = 0; i < d->coefficients; ++i) {
    const double* cosines = d->cosines + (size_t)i * (size_t)ch;
    double sum = 0.0;
    for (int j = 0; j < ch; ++j) sum += cosines[j] * w[j];
    out[i] = (float)sum;
  }
}

static TfLiteStatus lg_mfcc_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_mfcc_data* d = node->user_data;
  const TfLiteTensor* spec =
      &context->tensors[node->inputs->data[kLgMfccSpectrogram]];
  const TfLiteTensor* rate_t =
      &context->tensors[node->inputs->data[kLgMfccRate]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (d->frames == 0) return kTfLiteOk;
  if (spec->data.f == NULL || rate_t->data.i32 == NULL ||
      output->data.f == NULL) {
    lg_kernel_log(context, LG_MFCC_OP, "a tensor has no data");
    return kTfLiteError;
  }
  const int32_t rate = rate_t->data.i32[0];
  if (rate <= 0) {
    lg_kernel_log(context, LG_MFCC_OP, "sample_rate %d must be > 0", (int)rate);
    return kTfLiteError;
  }
  if (!d->bank_ready || d->bank_rate != rate) lg_mfcc_bank(d, rate);
  for (int64_t f = 0; f < d->frames; ++f) {
    lg_mfcc_frame(d, spec->data.f + f * d->bins,
                  output->data.f + f * d->coefficients);
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_MFCC(void) {
  static const TfLiteRegistration registration = {
      .init = lg_mfcc_init,
      .free = lg_mfcc_free,
      .prepare = lg_mfcc_prepare,
      .invoke = lg_mfcc_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MFCC_OP,
      .version = 1,
  };
  return &registration;
}
