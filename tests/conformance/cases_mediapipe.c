/* MediaPipe's custom ops (runtime/kernels/mediapipe_ops.h), which TFLite's
 * GPU delegate also runs: Convolution2DTransposeBias (kernels 2 to 4,
 * strides 1 and 2, SAME with even and odd sizes, VALID, batch 2, 17
 * channels), MaxPoolingWithArgmax2D (2x2 and 3x3 windows, SAME and VALID,
 * a fused RELU6), MaxUnpooling2D (random positions in and out of the
 * window, overlapping windows where the last input wins) and the two
 * pooling ops chained as a model uses them.
 *
 * Options are the raw structs MediaPipe writes: three int32 for the
 * transposed convolution (padding, stride_w, stride_h), six for the
 * pooling ops (padding, stride_w, stride_h, filter_w, filter_h,
 * activation). The CPU reference is litegpu's kernel for each op. */
#include <string.h>

#include "runtime/kernels/mediapipe_ops.h"
#include "tests/conformance/conformance.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct mp_case {
  const char* label;
  conf_shape input;
  int padding, stride, kernel, out_c; /* out_c: transposed conv only */
  int activation;
} mp_case;

static const mp_case kTransposeConv[] = {
    {"k2_s2_same_c3", {4, {1, 4, 4, 3}}, kTfLitePaddingSame, 2, 2, 5, 0},
    {"k3_s2_same_odd_c8", {4, {1, 5, 5, 8}}, kTfLitePaddingSame, 2, 3, 6, 0},
    {"k4_s2_valid_c5", {4, {1, 4, 6, 5}}, kTfLitePaddingValid, 2, 4, 3, 0},
    {"k2_s2_batch2_c16", {4, {2, 3, 3, 16}}, kTfLitePaddingSame, 2, 2, 8, 0},
    {"k3_s1_same_c17", {4, {1, 8, 8, 17}}, kTfLitePaddingSame, 1, 3, 17, 0},
};

static int build_transpose_conv_bias(conf_builder* b, const conf_case* c) {
  const mp_case* m = c->args;
  int32_t in[3];
  in[0] = conf_input(b, m->input, -1, 1);
  in[1] =
      conf_weights(b, CONF_SHAPE(m->out_c, m->kernel, m->kernel, m->input.d[3]),
                   -0.5f, 0.5f);
  in[2] = conf_weights(b, CONF_SHAPE(m->out_c), -1, 1);
  const int32_t options[3] = {m->padding, m->stride, m->stride};
  const int32_t out = conf_output(b);
  return conf_custom_op(b, "Convolution2DTransposeBias", in, 3, &out, 1,
                        options, sizeof(options)) < 0
             ? -1
             : 0;
}

static const mp_case kPool[] = {
    {"2x2_s2_valid_c3", {4, {1, 8, 8, 3}}, kTfLitePaddingValid, 2, 2, 0, 0},
    {"3x3_s2_same_c5", {4, {1, 7, 7, 5}}, kTfLitePaddingSame, 2, 3, 0, 0},
    {"2x2_s1_same_batch2_c4",
     {4, {2, 6, 6, 4}},
     kTfLitePaddingSame,
     1,
     2,
     0,
     0},
    {"3x3_s2_same_relu6_c7",
     {4, {1, 9, 9, 7}},
     kTfLitePaddingSame,
     2,
     3,
     0,
     kTfLiteActRelu6},
};

static void pool_options(const mp_case* m, int32_t options[6]) {
  options[0] = m->padding;
  options[1] = m->stride;
  options[2] = m->stride;
  options[3] = m->kernel;
  options[4] = m->kernel;
  options[5] = m->activation;
}

/* Inputs in [-8, 8] so that RELU6 clamps. */
static int build_pool_argmax(conf_builder* b, const conf_case* c) {
  const mp_case* m = c->args;
  const int32_t in = conf_input(b, m->input, -8, 8);
  int32_t options[6];
  pool_options(m, options);
  int32_t out[2];
  out[0] = conf_output(b);
  out[1] = conf_output(b);
  return conf_custom_op(b, "MaxPoolingWithArgmax2D", &in, 1, out, 2, options,
                        sizeof(options)) < 0
             ? -1
             : 0;
}

/* Positions drawn from [-1.5, window + 1.5): some outside the window
 * (ignored), and with stride 1 overlapping windows (the last input
 * wins). */
static int build_max_unpool(conf_builder* b, const conf_case* c) {
  const mp_case* m = c->args;
  int32_t in[2];
  in[0] = conf_input(b, m->input, -1, 1);
  in[1] = conf_input(b, m->input, -1.5f, (float)(m->kernel * m->kernel) + 1.5f);
  int32_t options[6];
  pool_options(m, options);
  const int32_t out = conf_output(b);
  return conf_custom_op(b, "MaxUnpooling2D", in, 2, &out, 1, options,
                        sizeof(options)) < 0
             ? -1
             : 0;
}

/* MaxPoolingWithArgmax2D then MaxUnpooling2D of its two outputs: the
 * maxima back in place, zeros elsewhere. */
static int build_pool_unpool(conf_builder* b, const conf_case* c) {
  const mp_case* m = c->args;
  const int32_t in = conf_input(b, m->input, -4, 4);
  int32_t options[6];
  pool_options(m, options);
  const conf_shape pooled = CONF_SHAPE(m->input.d[0], m->input.d[1] / 2,
                                       m->input.d[2] / 2, m->input.d[3]);
  int32_t mid[2];
  mid[0] = conf_intermediate(b, kTfLiteFloat32, pooled);
  mid[1] = conf_intermediate(b, kTfLiteFloat32, pooled);
  if (conf_custom_op(b, "MaxPoolingWithArgmax2D", &in, 1, mid, 2, options,
                     sizeof(options)) < 0) {
    return -1;
  }
  const int32_t out = conf_output(b);
  return conf_custom_op(b, "MaxUnpooling2D", mid, 2, &out, 1, options,
                        sizeof(options)) < 0
             ? -1
             : 0;
}

static const mp_case kUnpool[] = {
    {"2x2_s2_c3", {4, {1, 4, 4, 3}}, kTfLitePaddingValid, 2, 2, 0, 0},
    {"3x3_s2_same_c5", {4, {1, 3, 3, 5}}, kTfLitePaddingSame, 2, 3, 0, 0},
    {"2x2_s1_overlap_batch2_c4",
     {4, {2, 5, 5, 4}},
     kTfLitePaddingSame,
     1,
     2,
     0,
     0},
};

static const mp_case kPoolUnpool = {
    "2x2_s2_c6", {4, {1, 8, 8, 6}}, kTfLitePaddingValid, 2, 2, 0, 0};

void conf_add_mediapipe_cases(conf_case_list* list) {
  for (size_t i = 0; i < COUNT(kTransposeConv); ++i) {
    conf_case_add(list, kTfLiteBuiltinCustom, build_transpose_conv_bias,
                  &kTransposeConv[i], kTfLiteActNone, 0,
                  "transpose_conv_bias_%s", kTransposeConv[i].label)
        ->custom_name = LG_MEDIAPIPE_TRANSPOSE_CONV_BIAS;
  }
  for (size_t i = 0; i < COUNT(kPool); ++i) {
    conf_case_add(list, kTfLiteBuiltinCustom, build_pool_argmax, &kPool[i],
                  kTfLiteActNone, 0, "max_pool_argmax_%s", kPool[i].label)
        ->custom_name = LG_MEDIAPIPE_MAX_POOL_ARGMAX;
  }
  for (size_t i = 0; i < COUNT(kUnpool); ++i) {
    conf_case_add(list, kTfLiteBuiltinCustom, build_max_unpool, &kUnpool[i],
                  kTfLiteActNone, 0, "max_unpool_%s", kUnpool[i].label)
        ->custom_name = LG_MEDIAPIPE_MAX_UNPOOL;
  }
  conf_case_add(list, kTfLiteBuiltinCustom, build_pool_unpool, &kPoolUnpool,
                kTfLiteActNone, 0, "max_pool_argmax_then_unpool_%s",
                kPoolUnpool.label);
}
