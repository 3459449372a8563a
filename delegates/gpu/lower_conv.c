/* GPU lowerings of the conv family: CONV_2D and DEPTHWISE_CONV_2D (float32,
 * constant filter and bias).
 *
 * Filters are repacked once here into the layout the kernels read with
 * vector loads, zero padded to whole output-channel blocks:
 *   CONV_2D            [oc_pad / B][kh][kw][ic][B], B = the kernel's block of
 *                      output channels, so each tap is one run of vectors;
 *   DEPTHWISE_CONV_2D  [kh * kw][c_pad], c_pad a multiple of the vector width;
 * biases become [oc_pad] constants (zeros without a bias).
 * Kernels:
 *   conv_1x1       1x1 filter, stride 1 (no padding): a GEMM over pixels;
 *   conv_general   any other window: taps outside the input read a zero
 *                  constant, so the channel loop carries no bounds checks;
 *   depthwise_conv vectorized over channels (a scalar variant when the
 *                  channels do not allow vectors).
 * Each work item computes a block of pixels times a block of channels (see
 * the .cl files); block shapes, work order and work-group sizes below were
 * chosen by measuring MobileNetV2's layers on PoCL (tools/bench_gpu_conv.c).
 * Grouped convolutions, non-constant filters or biases and windows the
 * depthwise kernel does not unroll are refused in the checks and stay on
 * the CPU. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

enum {
  kInputTensor = 0,
  kFilterTensor = 1,
  kBiasTensor = 2,
  kOutputTensor = 0,
};

/* What both ops share, read from the node and its (final) tensor dims. */
typedef struct conv_geo {
  int32_t in[4];  /* N, H, W, C */
  int32_t out[4]; /* N, H, W, C */
  int kh, kw, filter_c;
  int stride_h, stride_w, dil_h, dil_w;
  int pad_top, pad_left;
  TfLitePadding padding;
  TfLiteFusedActivation activation;
} conv_geo;

static const TfLiteTensor* input_of(const TfLiteContext* context,
                                    const TfLiteNode* node, int i) {
  if (i >= node->inputs->size || node->inputs->data[i] < 0) return NULL;
  return &context->tensors[node->inputs->data[i]];
}

static const TfLiteTensor* output_of(const TfLiteContext* context,
                                     const TfLiteNode* node) {
  return &context->tensors[node->outputs->data[kOutputTensor]];
}

/* TFLite's padding before the first element along one dim (SAME: half of
 * the total, the odd element after; VALID: none). */
static int pad_before(TfLitePadding padding, int in, int filter, int stride,
                      int dilation, int out) {
  if (padding != kTfLitePaddingSame) return 0;
  const int64_t effective = (int64_t)(filter - 1) * dilation + 1;
  const int64_t total = ((int64_t)out - 1) * stride + effective - in;
  return total > 0 ? (int)(total / 2) : 0;
}

/* Fills the window fields from params (conv when `depthwise` is false). */
static void read_params(const TfLiteNode* node, bool depthwise, conv_geo* g) {
  if (depthwise) {
    const TfLiteDepthwiseConvParams* p = node->builtin_data;
    g->stride_h = p->stride_height;
    g->stride_w = p->stride_width;
    g->dil_h = p->dilation_height_factor;
    g->dil_w = p->dilation_width_factor;
    g->padding = p->padding;
    g->activation = p->activation;
  } else {
    const TfLiteConvParams* p = node->builtin_data;
    g->stride_h = p->stride_height;
    g->stride_w = p->stride_width;
    g->dil_h = p->dilation_height_factor;
    g->dil_w = p->dilation_width_factor;
    g->padding = p->padding;
    g->activation = p->activation;
  }
}

/* Checks the node's tensors (4-D, constant float32 filter, optional
 * constant bias of out_c values, sizes that index with int) and fills the
 * shapes; false with the reason otherwise. */
static bool read_tensors(const TfLiteContext* context, const TfLiteNode* node,
                         conv_geo* g, char* reason, size_t size) {
  const TfLiteTensor* in = input_of(context, node, kInputTensor);
  const TfLiteTensor* filter = input_of(context, node, kFilterTensor);
  const TfLiteTensor* bias = input_of(context, node, kBiasTensor);
  const TfLiteTensor* out = output_of(context, node);
  if (in == NULL || filter == NULL || in->dims == NULL ||
      filter->dims == NULL || out->dims == NULL || in->dims->size != 4 ||
      filter->dims->size != 4 || out->dims->size != 4) {
    snprintf(reason, size, "input, filter and output must be 4-D.");
    return false;
  }
  if (!lg_gpu_is_constant_floats(filter)) {
    snprintf(reason, size,
             "the filter must be a constant float32 or quantized tensor.");
    return false;
  }
  lg_gpu_shape4(in, g->in);
  lg_gpu_shape4(out, g->out);
  g->kh = filter->dims->data[1];
  g->kw = filter->dims->data[2];
  g->filter_c = filter->dims->data[3];
  if (bias != NULL && (!lg_gpu_is_constant_floats(bias) ||
                       (int64_t)lg_gpu_elements(bias) != g->out[3])) {
    snprintf(reason, size,
             "the bias must be a constant float32 or quantized tensor of %d "
             "values.",
             (int)g->out[3]);
    return false;
  }
  if (g->out[0] != g->in[0] || lg_gpu_elements(in) > INT_MAX / 2 ||
      lg_gpu_elements(out) > INT_MAX / 2 ||
      lg_gpu_elements(filter) > INT_MAX / 4) {
    snprintf(reason, size, "the tensors are too large or inconsistent.");
    return false;
  }
  return true;
}

/* Reads and checks what both ops need; false with the reason on anything
 * this implementation does not run. */
static bool read_geo(const TfLiteContext* context, const TfLiteNode* node,
                     bool depthwise, conv_geo* g, char* reason, size_t size) {
  memset(g, 0, sizeof(*g));
  if (node->inputs->size < 2 || node->inputs->size > 3 ||
      node->outputs->size != 1 || node->builtin_data == NULL) {
    snprintf(reason, size, "expects 2 or 3 inputs, 1 output and params.");
    return false;
  }
  if (!read_tensors(context, node, g, reason, size)) return false;
  read_params(node, depthwise, g);
  float lo, hi;
  const char* act;
  if (!lg_gpu_activation(g->activation, &lo, &hi, &act)) {
    snprintf(reason, size, "the fused activation %d is not supported.",
             (int)g->activation);
    return false;
  }
  if ((g->padding != kTfLitePaddingSame && g->padding != kTfLitePaddingValid) ||
      g->stride_h < 1 || g->stride_w < 1 || g->dil_h < 1 || g->dil_w < 1 ||
      g->kh < 1 || g->kw < 1) {
    snprintf(reason, size,
             "padding must be SAME or VALID and strides, dilations and the "
             "window at least 1.");
    return false;
  }
  g->pad_top =
      pad_before(g->padding, g->in[1], g->kh, g->stride_h, g->dil_h, g->out[1]);
  g->pad_left =
      pad_before(g->padding, g->in[2], g->kw, g->stride_w, g->dil_w, g->out[2]);
  return true;
}

/* The bias as [padded] floats (zeros past out_c or without a bias); NULL
 * when out of memory. */
static float* padded_bias(lg_gpu_program* p, const TfLiteContext* context,
                          const TfLiteNode* node, int out_c, int padded) {
  const TfLiteTensor* bias = input_of(context, node, kBiasTensor);
  const float* values = bias != NULL ? lg_gpu_constant_floats(p, bias) : NULL;
  if (bias != NULL && values == NULL) return NULL;
  float* b = calloc((size_t)padded + 16, sizeof(float));
  if (b != NULL && values != NULL) {
    memcpy(b, values, sizeof(float) * (size_t)out_c);
  }
  return b;
}

/* Uploads `floats` values as a float constant (tensor-like data: weights,
 * biases, zero runs); takes `data` (malloc'd). -1 after recording a
 * failure. */
static int upload(lg_gpu_program* p, float* data, size_t floats) {
  if (data == NULL) {
    lg_gpu_lower_fail(p, "out of host memory");
    return -1;
  }
  return lg_gpu_lower_constant_floats_taken(p, data, floats);
}

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* ---- CONV_2D ---------------------------------------------------------- */

/* How a conv work item is shaped: LG_PIX pixels (1x1) or columns (other
 * windows) times LG_NV vectors of LG_W output channels; oc_fast puts the
 * channel blocks on dimension 0 (consecutive work items share pixels). */
typedef struct conv_block {
  int w, nv, pix;
  bool oc_fast;
  const int* pix_candidates; /* the set `pix` was chosen from, best first */
  int num_pix_candidates;
} conv_block;

/* The candidate in `pix` (best first) that wastes the fewest work-item
 * slots on `count` pixels; ties keep the earlier. */
static int best_pix(int64_t count, const int* pix, int n) {
  int best = pix[0];
  int64_t best_waste = INT64_MAX;
  for (int i = 0; i < n; ++i) {
    const int64_t waste = (count + pix[i] - 1) / pix[i] * pix[i] - count;
    if (waste < best_waste) {
      best = pix[i];
      best_waste = waste;
    }
  }
  return best;
}

/* Weights up to this size go channel-block first (see choose_conv_block);
 * larger ones (MobileNetV2's last 1x1, 1.6 MB) would be streamed from L3
 * once per pixel block that way. */
#define LG_CONV_OC_FAST_BYTES (1024 * 1024)

/* Vectors of 16 floats (one AVX-512 register on PoCL; a wasted half vector
 * costs less than 8-wide arithmetic), two per work item when the count is
 * even, three when it divides by 3, one for a single vector. Pixels per work
 * item keep 14-21 accumulators and divide `count` (pixels, or output
 * columns) where they can (7 divides every MobileNetV2 size). Weights that
 * stay in L2 go channel-block first: consecutive work items then share the
 * input pixels and write each output row at once (the measured best for
 * the 1x1 layers), unless there are fewer channel blocks than the device
 * has lanes (`simd`, 0 when unknown): lanes past dimension 0's count would
 * sit idle (lavapipe runs a group's dimension 0 as 8-wide vectors; a
 * 3-block dimension 0 used 3 lanes of 8). `k` is the window depth
 * (kh * kw * ic). */
static conv_block choose_conv_block(int out_c, int64_t count, int64_t k,
                                    size_t simd) {
  static const int kPix1[] = {16, 14, 12, 15, 13};
  static const int kPix2[] = {8, 7, 6};
  static const int kPix3[] = {7, 6, 5};
  const int vectors = (out_c + 15) / 16;
  conv_block b = {16, 2, 8, false, kPix2, 3};
  if (vectors == 1) {
    b.nv = 1;
    b.pix_candidates = kPix1;
    b.num_pix_candidates = 5;
  } else if (vectors % 2 != 0 && vectors % 3 == 0) {
    b.nv = 3;
    b.pix_candidates = kPix3;
  }
  b.pix = best_pix(count, b.pix_candidates, b.num_pix_candidates);
  const int64_t weight_bytes = k * (int64_t)round_up(out_c, 16 * b.nv) * 4;
  const int channel_blocks = (vectors + b.nv - 1) / b.nv;
  b.oc_fast = channel_blocks > 1 && (size_t)channel_blocks >= simd &&
              weight_bytes <= LG_CONV_OC_FAST_BYTES;
  return b;
}

/* Work-group size. PoCL hands work-groups to its threads by guided
 * self-scheduling, so the backend's default groups (up to 256 items) leave
 * as few as 2 groups on small layers and one thread idles; groups of 16
 * items along dimension 0 (1 along the others) measured 5-20% faster on
 * MobileNetV2. Always 16, also where dimension 0 is shorter (the backend
 * rounds the global size up and the kernels check their index): drivers
 * build a kernel once per work-group size, PoCL at its first enqueue and
 * Vulkan at pipeline creation, and sizes that followed dimension 0 made
 * MobileNetV2's 16 OpenCL programs 29 builds (first inference on PoCL
 * 10.5-10.9 -> 6.0 s, Vulkan init 114-115 -> 95-101 ms, steady state
 * unchanged; 2 alternating runs). Clamped to the device's limit. */
#define LG_CONV_GROUP_ITEMS 16

static size_t group_items(const lg_gpu_program* p) {
  const size_t limit = lg_gpu_lower_max_work_group(p);
  return limit > 0 && limit < LG_CONV_GROUP_ITEMS ? limit : LG_CONV_GROUP_ITEMS;
}

bool lg_gpu_limits_conv(LG_GPU_CHECK_ARGS) {
  (void)registration;
  conv_geo g;
  if (!read_geo(context, node, false, &g, reason, size)) return false;
  if (g.filter_c != g.in[3]) {
    snprintf(reason, size,
             "grouped convolution (filter has %d input channels, the input "
             "%d) is not supported.",
             g.filter_c, (int)g.in[3]);
    return false;
  }
  return true;
}

/* [oc_pad / block][k][block] from the [oc][k] filter, zero padded. */
static float* pack_conv_filter(const float* filter, int oc, int64_t k,
                               int block) {
  const int padded = round_up(oc, block);
  float* w = calloc((size_t)padded * (size_t)k + 16, sizeof(float));
  if (w == NULL) return NULL;
  for (int o = 0; o < oc; ++o) {
    const int ob = o / block, j = o % block;
    const float* src = filter + (size_t)o * (size_t)k;
    float* dst = w + (size_t)ob * (size_t)k * block + j;
    for (int64_t i = 0; i < k; ++i) dst[(size_t)i * block] = src[i];
  }
  return w;
}

/* The constants of a conv node: packed filter, padded bias, and (general
 * path) the zero run. */
typedef struct conv_constants {
  int w, b, zeros;
} conv_constants;

static TfLiteStatus upload_conv_constants(
    lg_gpu_program* p, const TfLiteContext* context, const TfLiteNode* node,
    const conv_geo* g, const conv_block* blk, bool zeros, conv_constants* out) {
  const int oc = g->out[3], block = blk->w * blk->nv;
  const int padded = round_up(oc, block);
  const int64_t k = (int64_t)g->kh * g->kw * g->in[3];
  const float* filter =
      lg_gpu_constant_floats(p, input_of(context, node, kFilterTensor));
  if (filter == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  out->w = upload(p, pack_conv_filter(filter, oc, k, block),
                  (size_t)padded * (size_t)k + 16);
  if (out->w < 0) return kTfLiteError;
  out->b =
      upload(p, padded_bias(p, context, node, oc, padded), (size_t)padded + 16);
  if (out->b < 0) return kTfLiteError;
  out->zeros = -1;
  if (zeros) {
    out->zeros = upload(p, calloc((size_t)g->in[3] + 16, sizeof(float)),
                        (size_t)g->in[3] + 16);
    if (out->zeros < 0) return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Where lanes are known (Vulkan) and too few pixel (or column) blocks
 * would fill them but there are enough 4-channel quads: one quad per work
 * item, quads first. MobileNetV2's 1x1 layers from node 50 on (7 blocks of
 * 7 pixels), on lavapipe: 9.5-11.3 -> 8.4-9.1 ms together, 3 alternating
 * runs; kws_cnn's first conv (5 output columns, 1 block): see
 * lower_general. */
static void fill_lanes(conv_block* b, int out_c, int64_t count, size_t simd) {
  const int64_t blocks = (count + b->pix - 1) / b->pix;
  if (simd > 0 && blocks < (int64_t)simd && (out_c + 3) / 4 >= (int)simd) {
    b->w = 4;
    b->nv = 1;
    b->oc_fast = true;
  }
}

/* A conv work item loops over its window once per quad of output channels
 * (`per_quad` iterations each). Where the device ends a shader's loops
 * early (lg_gpu_device_info.max_loop_iterations: lavapipe) and the block's
 * quads would not fit, the item takes one quad; a window that does not fit
 * even so leaves the node to the CPU. `window` names it in the reason. */
static TfLiteStatus fit_loops(lg_gpu_program* p, conv_block* b,
                              int64_t per_quad, const char* window) {
  if (!lg_gpu_lower_loops_fit(p, (int64_t)b->w * b->nv / 4 * per_quad)) {
    b->w = 4;
    b->nv = 1;
  }
  char what[96];
  snprintf(what, sizeof(what), "CONV_2D over a %s window", window);
  return lg_gpu_lower_check_loops(p, per_quad, what);
}

/* conv_1x1's defines for blocking `b`. */
static void pointwise_defines(char* defines, size_t size, const conv_block* b,
                              int oc, bool residual, const char* act) {
  snprintf(defines, size, "-DLG_W=%d -DLG_NV=%d -DLG_PIX=%d%s%s%s %s", b->w,
           b->nv, b->pix, b->oc_fast ? " -DLG_OC_FAST" : "",
           oc % b->w == 0 ? " -DLG_ALIGNED" : "",
           residual ? " -DLG_RESIDUAL" : "", act);
}

/* Pixel blocking is the only part of conv_1x1's defines that follows the
 * pixel count, so a resize (lg_gpu_program_relower) would build a new
 * variant wherever best_pix now picks another candidate: MobileNetV2
 * 224 -> 192 built 5 kernels on PoCL and 4 on lavapipe, 30% of cold init.
 * While relowering, a candidate whose kernel is already built is taken
 * instead when it leaves at most 1/6 of `count` more slots idle: at 192 the
 * 6x6 layers take blocks of 7 (42 slots for 36 pixels) rather than build
 * blocks of 6, on a few of the smallest layers, where a build costs as much
 * as hundreds of runs. Resizing back finds the first blocking built. */
#define LG_CONV_REUSE_WASTE_DIVISOR 6

static void reuse_built_pix(const lg_gpu_program* p, conv_block* b,
                            int64_t count, int oc, bool residual,
                            const char* act) {
  char defines[144];
  pointwise_defines(defines, sizeof(defines), b, oc, residual, act);
  if (lg_gpu_lower_kernel_reusable(p, "conv_1x1", defines)) return;
  const int best = b->pix;
  const int64_t allowed = (count + best - 1) / best * best - count +
                          count / LG_CONV_REUSE_WASTE_DIVISOR;
  int64_t least = INT64_MAX;
  for (int i = 0; i < b->num_pix_candidates; ++i) {
    const int pix = b->pix_candidates[i];
    const int64_t waste = (count + pix - 1) / pix * pix - count;
    if (pix == best || waste > allowed || waste >= least) continue;
    conv_block trial = *b;
    trial.pix = pix;
    pointwise_defines(defines, sizeof(defines), &trial, oc, residual, act);
    if (lg_gpu_lower_kernel_reusable(p, "conv_1x1", defines)) {
      least = waste;
      b->pix = pix;
    }
  }
}

/* 1x1, stride 1: conv_1x1 over [pixel blocks, channel blocks] (swapped
 * when channel-block first). */
static TfLiteStatus lower_pointwise(lg_gpu_program* p, TfLiteContext* context,
                                    const TfLiteNode* node, const conv_geo* g) {
  const int oc = g->out[3], ic = g->in[3];
  const int64_t pixels = (int64_t)g->out[0] * g->out[1] * g->out[2];
  const size_t simd = lg_gpu_lower_simd_width(p);
  conv_block blk = choose_conv_block(oc, pixels, ic, simd);
  fill_lanes(&blk, oc, pixels, simd);
  /* Input channels 4 at a time where rows start on a quad. */
  char window[32];
  snprintf(window, sizeof(window), "1x1x%d", ic);
  if (fit_loops(p, &blk, (ic % 4 == 0 ? ic / 4 : ic) + 1, window) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  conv_constants c;
  if (upload_conv_constants(p, context, node, g, &blk, false, &c) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  /* A residual ADD after a conv without activation joins this kernel
   * (MobileNetV2's projections): one dispatch and one tensor fewer. */
  TfLiteFusedActivation activation = g->activation;
  int out = node->outputs->data[kOutputTensor];
  int addend = -1;
  if (activation == kTfLiteActNone) {
    lg_gpu_lower_fuse_add(p, out, &addend, &out, &activation);
  }
  float lo, hi;
  const char* act;
  lg_gpu_activation(activation, &lo, &hi, &act);
  reuse_built_pix(p, &blk, pixels, oc, addend >= 0, act);
  char defines[144];
  pointwise_defines(defines, sizeof(defines), &blk, oc, addend >= 0, act);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[kInputTensor]),
      LG_GPU_CONSTANT(c.w),
      LG_GPU_CONSTANT(c.b),
      LG_GPU_TENSOR(out),
      LG_GPU_INT(pixels),
      LG_GPU_INT(ic),
      LG_GPU_INT(oc),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
      /* Not read without LG_RESIDUAL: the bias stands in. */
      addend >= 0 ? LG_GPU_TENSOR(addend) : LG_GPU_CONSTANT(c.b),
  };
  const size_t pixel_blocks = (size_t)((pixels + blk.pix - 1) / blk.pix);
  const size_t oc_blocks =
      (size_t)(round_up(oc, blk.w * blk.nv) / (blk.w * blk.nv));
  size_t global[2] = {pixel_blocks, oc_blocks};
  if (blk.oc_fast) {
    global[0] = oc_blocks;
    global[1] = pixel_blocks;
  }
  const size_t local[2] = {group_items(p), 1};
  return lg_gpu_lower_dispatch(p, "conv_1x1", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 2, global,
                               local);
}

/* Any other window: conv_general over [column blocks, rows, batch x
 * channel blocks], or [channel blocks, rows, batch x column blocks] where
 * fill_lanes says so (kws_cnn's first conv on lavapipe: 25x5 outputs, one
 * column block per row used 1 of 8 lanes). Channel blocks first otherwise
 * is measured for 1x1 windows only, so it is not taken here. */
static TfLiteStatus lower_general(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node, const conv_geo* g) {
  const int oc = g->out[3], ic = g->in[3];
  const size_t simd = lg_gpu_lower_simd_width(p);
  conv_block blk =
      choose_conv_block(oc, g->out[2], (int64_t)g->kh * g->kw * ic, simd);
  blk.oc_fast = false;
  fill_lanes(&blk, oc, g->out[2], simd);
  char window[48];
  snprintf(window, sizeof(window), "%dx%dx%d", g->kh, g->kw, ic);
  const int64_t per_quad = (int64_t)g->kh * (g->kw * ((int64_t)ic + 1) + 1) + 1;
  if (fit_loops(p, &blk, per_quad, window) != kTfLiteOk) return kTfLiteError;
  conv_constants c;
  if (upload_conv_constants(p, context, node, g, &blk, true, &c) != kTfLiteOk) {
    return kTfLiteError;
  }
  float lo, hi;
  const char* act;
  lg_gpu_activation(g->activation, &lo, &hi, &act);
  /* Small first layers: fix the channels, window, stride and dilation so the
   * loops unroll and tap addresses become constants. */
  char fixed[96] = "";
  if (ic <= 4 && g->kh * g->kw * ic <= 32) {
    snprintf(fixed, sizeof(fixed),
             " -DLG_IC=%d -DLG_KH=%d -DLG_KW=%d -DLG_SW=%d -DLG_DW=%d", ic,
             g->kh, g->kw, g->stride_w, g->dil_w);
  }
  char defines[192];
  snprintf(defines, sizeof(defines),
           "-DLG_W=%d -DLG_NV=%d -DLG_PIX=%d%s%s%s %s", blk.w, blk.nv, blk.pix,
           blk.oc_fast ? " -DLG_OC_FAST" : "", fixed,
           oc % blk.w == 0 ? " -DLG_ALIGNED" : "", act);
  const int oc_blocks = round_up(oc, blk.w * blk.nv) / (blk.w * blk.nv);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[kInputTensor]),
      LG_GPU_CONSTANT(c.w),
      LG_GPU_CONSTANT(c.b),
      LG_GPU_CONSTANT(c.zeros),
      LG_GPU_TENSOR(node->outputs->data[kOutputTensor]),
      LG_GPU_INT(g->out[0]),
      LG_GPU_INT(g->in[1]),
      LG_GPU_INT(g->in[2]),
      LG_GPU_INT(ic),
      LG_GPU_INT(g->out[1]),
      LG_GPU_INT(g->out[2]),
      LG_GPU_INT(oc),
      LG_GPU_INT(g->stride_h),
      LG_GPU_INT(g->stride_w),
      LG_GPU_INT(g->dil_h),
      LG_GPU_INT(g->dil_w),
      LG_GPU_INT(g->pad_top),
      LG_GPU_INT(g->pad_left),
      LG_GPU_INT(g->kh),
      LG_GPU_INT(g->kw),
      LG_GPU_INT(oc_blocks),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
  };
  const size_t column_blocks = (size_t)((g->out[2] + blk.pix - 1) / blk.pix);
  size_t global[3] = {column_blocks, (size_t)g->out[1],
                      (size_t)g->out[0] * (size_t)oc_blocks};
  if (blk.oc_fast) {
    global[0] = (size_t)oc_blocks;
    global[2] = (size_t)g->out[0] * column_blocks;
  }
  const size_t local[3] = {group_items(p), 1, 1};
  return lg_gpu_lower_dispatch(p, "conv_general", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               local);
}

TfLiteStatus lg_gpu_lower_conv(lg_gpu_program* p, TfLiteContext* context,
                               const TfLiteNode* node,
                               const TfLiteRegistration* reg) {
  (void)reg;
  conv_geo g;
  char reason[256];
  if (!read_geo(context, node, false, &g, reason, sizeof(reason))) {
    return lg_gpu_lower_fail(p, "CONV_2D: %s", reason);
  }
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.stride_h == 1 &&
                         g.stride_w == 1 && g.out[1] == g.in[1] &&
                         g.out[2] == g.in[2];
  return pointwise ? lower_pointwise(p, context, node, &g)
                   : lower_general(p, context, node, &g);
}

/* ---- DEPTHWISE_CONV_2D ------------------------------------------------ */

/* Depthwise work items: 4 output columns per step (4 accumulators, the
 * window's columns and 9 weight vectors fit the 32 vector registers), up to
 * 32 columns of one row per work item. */
#define LG_DW_PIX 4
#define LG_DW_CHUNK 32

bool lg_gpu_limits_depthwise(LG_GPU_CHECK_ARGS) {
  (void)registration;
  conv_geo g;
  if (!read_geo(context, node, true, &g, reason, size)) return false;
  const TfLiteTensor* filter = input_of(context, node, kFilterTensor);
  if (filter->dims->data[0] != 1 || g.filter_c != g.out[3] || g.in[3] < 1 ||
      g.out[3] % g.in[3] != 0) {
    snprintf(reason, size,
             "the filter must be [1, h, w, out_c] with out_c a multiple of "
             "the %d input channels.",
             (int)g.in[3]);
    return false;
  }
  /* The kernel unrolls the window and keeps its weights and the columns of
   * a step in registers. */
  const int span = (LG_DW_PIX - 1) * g.stride_w + (g.kw - 1) * g.dil_w + 1;
  if (g.kh > 8 || g.kw > 8 || span > 32) {
    snprintf(reason, size,
             "windows above 8x8, or a step spanning more than 32 input "
             "columns (stride %d, dilation %d), are not supported.",
             g.stride_w, g.dil_w);
    return false;
  }
  return true;
}

/* The widest vector over channels: mult 1 with a width dividing the
 * channels, or one input channel broadcast; else scalar. */
static int depthwise_widest(int in_c, int out_c, bool* broadcast) {
  *broadcast = in_c == 1 && out_c > 1;
  if (*broadcast) return out_c >= 16 ? 16 : (out_c >= 8 ? 8 : 4);
  if (in_c != out_c) return 1;
  if (out_c % 16 == 0) return 16;
  if (out_c % 8 == 0) return 8;
  if (out_c % 4 == 0) return 4;
  return 1;
}

/* The vector width: the widest on devices that do not report lockstep
 * lanes (OpenCL: PoCL runs a 16-wide vector per work item best); at most 4
 * where they do (`simd` > 0, Vulkan), one 4-channel slice per invocation as
 * GPU kernels usually have it: dimension 0 (the channel vectors) then
 * fills the lanes (32 channels at width 16 used 2 of lavapipe's 8), and
 * neighbouring lanes read neighbouring 16-byte runs. MobileNetV2's 17
 * depthwise layers on lavapipe: 47 ms at width 4, 60 at 8, 68 at 16. */
static int depthwise_width(int in_c, int out_c, size_t simd, bool* broadcast) {
  const int cv = depthwise_widest(in_c, out_c, broadcast);
  return simd > 0 && cv > 4 ? 4 : cv;
}

/* Uploads the [kh * kw][c_pad] weights and the padded bias; ids in
 * w_b[2]. */
static TfLiteStatus upload_depthwise_constants(lg_gpu_program* p,
                                               const TfLiteContext* context,
                                               const TfLiteNode* node,
                                               const conv_geo* g, int c_pad,
                                               int w_b[2]) {
  const int out_c = g->out[3], taps = g->kh * g->kw;
  const float* filter =
      lg_gpu_constant_floats(p, input_of(context, node, kFilterTensor));
  if (filter == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  float* w = calloc((size_t)taps * (size_t)c_pad + 16, sizeof(float));
  for (int t = 0; w != NULL && t < taps; ++t) {
    memcpy(w + (size_t)t * c_pad, filter + (size_t)t * out_c,
           sizeof(float) * (size_t)out_c);
  }
  w_b[0] = upload(p, w, (size_t)taps * (size_t)c_pad + 16);
  if (w_b[0] < 0) return kTfLiteError;
  w_b[1] = upload(p, padded_bias(p, context, node, out_c, c_pad),
                  (size_t)c_pad + 16);
  return w_b[1] < 0 ? kTfLiteError : kTfLiteOk;
}

/* Output columns per step: LG_DW_PIX, or 8 where lanes are known
 * (Vulkan) and the step's input span stays within 32 columns: the Vulkan
 * shader loads a step's span once per filter row for all its taps, so a
 * longer step loads fewer columns per output (MobileNetV2's depthwise
 * layers on lavapipe: 19-20 ms at 4, 16.5-17 ms at 8). */
static int depthwise_pix(const conv_geo* g, size_t simd) {
  const int span8 = 7 * g->stride_w + (g->kw - 1) * g->dil_w + 1;
  return simd > 0 && span8 <= 32 ? 8 : LG_DW_PIX;
}

/* depthwise_conv over [channel vectors, column chunks, batch x rows]. */
TfLiteStatus lg_gpu_lower_depthwise(lg_gpu_program* p, TfLiteContext* context,
                                    const TfLiteNode* node,
                                    const TfLiteRegistration* reg) {
  (void)reg;
  conv_geo g;
  char reason[256];
  if (!read_geo(context, node, true, &g, reason, sizeof(reason))) {
    return lg_gpu_lower_fail(p, "DEPTHWISE_CONV_2D: %s", reason);
  }
  const int in_c = g.in[3], out_c = g.out[3];
  bool broadcast = false;
  const size_t simd = lg_gpu_lower_simd_width(p);
  const int cv = depthwise_width(in_c, out_c, simd, &broadcast);
  const int pix = depthwise_pix(&g, simd);
  const int c_pad = round_up(out_c, cv);
  const int chunk =
      round_up(LG_DW_CHUNK < g.out[2] ? LG_DW_CHUNK : g.out[2], pix);
  /* Every loop of the kernel counted, also those the compiler unrolls. */
  const int64_t span =
      (int64_t)(pix - 1) * g.stride_w + (int64_t)(g.kw - 1) * g.dil_w + 1;
  const int64_t per_block =
      2 * pix + 1 + (int64_t)g.kh * (span + (int64_t)g.kw * (pix + 1) + 1);
  const int64_t quads = cv >= 4 ? cv / 4 : 1;
  char what[80];
  snprintf(what, sizeof(what), "DEPTHWISE_CONV_2D over a %dx%d window", g.kh,
           g.kw);
  if (lg_gpu_lower_check_loops(
          p, g.kh + quads * ((chunk / pix) * per_block + 1) + 1, what) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  int ids[2] = {-1, -1};
  if (upload_depthwise_constants(p, context, node, &g, c_pad, ids) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  float lo, hi;
  const char* act;
  lg_gpu_activation(g.activation, &lo, &hi, &act);
  char defines[192];
  snprintf(defines, sizeof(defines),
           "-DLG_CV=%d -DLG_PIX=%d -DLG_KH=%d -DLG_KW=%d -DLG_SH=%d "
           "-DLG_SW=%d -DLG_DH=%d -DLG_DW=%d%s%s %s",
           cv, pix, g.kh, g.kw, g.stride_h, g.stride_w, g.dil_h, g.dil_w,
           broadcast ? " -DLG_DW_BCAST" : "",
           out_c % cv == 0 ? " -DLG_ALIGNED" : "", act);
  const int rows = g.out[0] * g.out[1];
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[kInputTensor]),
      LG_GPU_CONSTANT(ids[0]),
      LG_GPU_CONSTANT(ids[1]),
      LG_GPU_TENSOR(node->outputs->data[kOutputTensor]),
      LG_GPU_INT(rows),
      LG_GPU_INT(g.in[1]),
      LG_GPU_INT(g.in[2]),
      LG_GPU_INT(in_c),
      LG_GPU_INT(g.out[1]),
      LG_GPU_INT(g.out[2]),
      LG_GPU_INT(out_c),
      LG_GPU_INT(c_pad),
      LG_GPU_INT(out_c / in_c),
      LG_GPU_INT(g.pad_top),
      LG_GPU_INT(g.pad_left),
      LG_GPU_INT(chunk),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
  };
  const size_t global[3] = {(size_t)(c_pad / cv),
                            (size_t)((g.out[2] + chunk - 1) / chunk),
                            (size_t)rows};
  const size_t local[3] = {group_items(p), 1, 1};
  return lg_gpu_lower_dispatch(p, "depthwise_conv", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               local);
}
