/* Quantized graphs on the GPU, as TFLite's GPU delegate runs them with
 * TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT (gpu_lower.h, "Quantized
 * tensors"): which tensors the device holds as floats, dequantization of
 * constants, the fake quantization after nodes, and the host-side
 * conversions at the partition boundary (gpu_program_run.c).
 *
 * TFLite's rules, kept here: only INT8 and UINT8 activations (no INT16);
 * a partition input is dequantized as (q - zero_point) * scale, an output
 * quantized as round(v / scale) + zero_point (half away from zero) clamped
 * to the type; QUANTIZE and DEQUANTIZE of a runtime tensor become fake
 * quantization onto the output's (QUANTIZE) or the input's (DEQUANTIZE)
 * grid; a node's quantized output read by another node of the partition is
 * fake-quantized after the node; in half precision the grid's scale is at
 * least 2^-14 (0.000062, float16's smallest normal). Ties on the grid go
 * up (TFLite GPU's rounding, and the CPU's fixed-point requantization's),
 * except in a QUANTIZE of float data, where they go away from zero as on
 * the CPU (shaders/kernels/fake_quant.lgk).
 * Not TFLite GPU's: in float32, the fake quantization after a quantized
 * convolution (or UINT8 FULLY_CONNECTED, or in a requantizing QUANTIZE:
 * lg_gpu_lower_requantize) rounds twice as the CPU's
 * requantization of its integer accumulator does (requant_shifts), which one
 * rounding misses by a step within 2^-(r+1) of a half step; across
 * person_detect's 28 layers that grew to 8 steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/gpu_program_internal.h"
#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/builtin_ops.h"

/* TFLite GPU's floor for the fake-quantization scale in half precision. */
#define HALF_MIN_QUANT_SCALE 0.000062f

/* The stored range of the types the GPU dequantizes: INT8, UINT8 and
 * INT32 (biases); false for others (INT16 stays on the CPU). */
static bool quant_range(TfLiteType type, int32_t* qmin, int32_t* qmax) {
  return type != kTfLiteInt16 && lg_quant_type_range(type, qmin, qmax);
}

static bool valid_scale(float s) { return isfinite(s) && s > 0.0f; }

static const TfLiteAffineQuantization* affine_of(const TfLiteTensor* t) {
  if (t->quantization.type != kTfLiteAffineQuantization) return NULL;
  const TfLiteAffineQuantization* a = t->quantization.params;
  if (a == NULL || a->scale == NULL || a->scale->size < 1) return NULL;
  return a;
}

/* Channel c's zero point: one shared by all channels or one each; 0
 * without any. */
static int64_t zero_point_of(const TfLiteAffineQuantization* a, int c) {
  if (a->zero_point == NULL || a->zero_point->size < 1) return 0;
  return a->zero_point->data[a->zero_point->size == 1 ? 0 : c];
}

bool lg_gpu_quantized_activation(const TfLiteTensor* t, lg_gpu_quant* q) {
  int32_t qmin, qmax;
  if (t == NULL || lg_kernel_is_constant(t) ||
      (t->type != kTfLiteInt8 && t->type != kTfLiteUInt8) ||
      !quant_range(t->type, &qmin, &qmax)) {
    return false;
  }
  const TfLiteAffineQuantization* a = affine_of(t);
  if (a == NULL || a->scale->size != 1) return false;
  const float scale = a->scale->data[0];
  const int64_t zero_point = zero_point_of(a, 0);
  if (!valid_scale(scale) || zero_point < qmin || zero_point > qmax) {
    return false;
  }
  if (q != NULL) {
    q->scale = scale;
    q->zero_point = (int32_t)zero_point;
    q->qmin = qmin;
    q->qmax = qmax;
    q->lo = (float)((int64_t)qmin - zero_point) * scale;
    q->hi = (float)((int64_t)qmax - zero_point) * scale;
  }
  return true;
}

/* The axis of per-channel scales: quantized_dimension, except that a 1-D
 * tensor's channels can only run along its one axis (tflite-micro's
 * person_detect marks its biases 3; the CPU kernels read biases by index
 * and never look); -1 when out of range. */
static int quantized_axis(const TfLiteTensor* t,
                          const TfLiteAffineQuantization* a) {
  if (t->dims == NULL) return -1;
  if (t->dims->size == 1) return 0;
  const int d = a->quantized_dimension;
  return d >= 0 && d < t->dims->size ? d : -1;
}

bool lg_gpu_dequantizable_constant(const TfLiteTensor* t) {
  int32_t qmin, qmax;
  if (t == NULL || !lg_kernel_is_constant(t) || t->data.raw == NULL ||
      !quant_range(t->type, &qmin, &qmax)) {
    return false;
  }
  const TfLiteAffineQuantization* a = affine_of(t);
  if (a == NULL) return false;
  const int n = a->scale->size;
  if (n > 1 && (t->dims == NULL || quantized_axis(t, a) < 0 ||
                t->dims->data[quantized_axis(t, a)] != n)) {
    return false;
  }
  if (a->zero_point != NULL && a->zero_point->size != n &&
      a->zero_point->size != 1) {
    return false;
  }
  for (int i = 0; i < n; ++i) {
    if (!valid_scale(a->scale->data[i])) return false;
    const int64_t zp = zero_point_of(a, i);
    if (zp < qmin || zp > qmax) return false;
  }
  return true;
}

bool lg_gpu_is_constant_floats(const TfLiteTensor* t) {
  if (t == NULL || !lg_kernel_is_constant(t)) return false;
  if (t->type == kTfLiteFloat32) return t->data.raw != NULL;
  return lg_gpu_dequantizable_constant(t);
}

bool lg_gpu_float_tensor(const TfLiteTensor* t) {
  if (t == NULL) return false;
  if (t->type == kTfLiteFloat32) return true;
  return lg_gpu_quantized_activation(t, NULL) ||
         lg_gpu_dequantizable_constant(t);
}

/* Element i, in channel c, of a dequantizable constant as a float: the
 * product in double, rounded once (as the CPU's DEQUANTIZE). */
static float dequantized_at(const TfLiteTensor* t,
                            const TfLiteAffineQuantization* a, size_t i,
                            int c) {
  int64_t q;
  switch (t->type) {
    case kTfLiteInt8:
      q = ((const int8_t*)t->data.raw)[i];
      break;
    case kTfLiteUInt8:
      q = ((const uint8_t*)t->data.raw)[i];
      break;
    default:
      q = t->data.i32[i];
  }
  return (float)((double)(q - zero_point_of(a, c)) * a->scale->data[c]);
}

/* The dequantized values of a dequantizable constant (malloc'd), or NULL
 * when out of memory. Slice c of the quantized dimension uses scale[c] and
 * zero_point[c]. */
static float* dequantize_constant(const TfLiteTensor* t) {
  const TfLiteAffineQuantization* a = t->quantization.params;
  const size_t n = lg_gpu_elements(t);
  float* out = malloc((n > 0 ? n : 1) * sizeof(float));
  if (out == NULL) return NULL;
  const int channels = a->scale->size;
  size_t inner = 1;
  if (channels > 1) {
    for (int d = quantized_axis(t, a) + 1; d < t->dims->size; ++d) {
      inner *= (size_t)t->dims->data[d];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const int c = channels > 1 ? (int)((i / inner) % (size_t)channels) : 0;
    out[i] = dequantized_at(t, a, i, c);
  }
  return out;
}

const float* lg_gpu_constant_floats(lg_gpu_program* p, const TfLiteTensor* t) {
  if (!lg_gpu_is_constant_floats(t)) return NULL;
  if (t->type == kTfLiteFloat32) return t->data.f;
  const TfLiteContext* context = p->lowering;
  if (context == NULL || t < context->tensors ||
      t >= context->tensors + p->num_context_tensors) {
    return NULL;
  }
  const int index = (int)(t - context->tensors);
  if (p->dequantized == NULL) {
    p->dequantized =
        calloc((size_t)p->num_context_tensors + 1, sizeof(*p->dequantized));
    if (p->dequantized == NULL) return NULL;
  }
  if (p->dequantized[index] == NULL) {
    p->dequantized[index] = dequantize_constant(t);
  }
  return p->dequantized[index];
}

bool lg_gpu_constant_scalar(const TfLiteTensor* t, float* v) {
  if (!lg_gpu_is_constant_floats(t) || lg_gpu_elements(t) < 1) return false;
  if (t->type == kTfLiteFloat32) {
    *v = t->data.f[0];
    return true;
  }
  *v = dequantized_at(t, t->quantization.params, 0, 0);
  return true;
}

float* lg_gpu_quant_dequantized_copy(const TfLiteTensor* t) {
  return lg_gpu_dequantizable_constant(t) ? dequantize_constant(t) : NULL;
}

/* The largest right shift the requantizing fake quantization emulates:
 * its nudge 2^-(r+1) stays at least two float steps of t + 0.5 (|t| <
 * 2^8: steps of 2^-16 at most). A larger shift's double rounding differs
 * from one rounding within 2^-15 of a step, below the float compute's
 * error. */
#define MAX_REQUANT_SHIFT 14

/* The right shift of TFLite's multiplier/shift for the rescale `real`
 * (0 for factors of 1/2 or more, and above MAX_REQUANT_SHIFT). */
static int32_t requant_shift(double real) {
  int32_t multiplier;
  int shift;
  lg_quantize_multiplier(real, &multiplier, &shift);
  return shift < 0 && -shift <= MAX_REQUANT_SHIFT ? -shift : 0;
}

/* The fake quantization of tensor `in` into `out` on grid q; with
 * `shifts` (one right shift per channel, `channels` of them, innermost)
 * rounding as the CPU's requantization (shaders/kernels/fake_quant.lgk). */
static TfLiteStatus fake_quant_dispatch(lg_gpu_program* p, int in, int out,
                                        const lg_gpu_quant* q, bool ties_away,
                                        const int32_t* shifts, int channels) {
  const TfLiteContext* context = p->lowering;
  if (context == NULL) {
    return lg_gpu_lower_fail(p, "fake quantization outside lowering");
  }
  /* Copied first: q may point into the program's values, which adding the
   * constant below can move. */
  const lg_gpu_quant grid = *q;
  float scale = grid.scale;
  if (p->be->fp16_storage && scale < HALF_MIN_QUANT_SCALE) {
    scale = HALF_MIN_QUANT_SCALE;
  }
  /* Per channel the bits of the float 2^-(r+1), 0 for r = 0
   * (shaders/kernels/fake_quant.lgk); without shifts the kernel binds but
   * never reads the buffer. */
  const int count = shifts != NULL ? channels : 1;
  float* nudges = malloc(sizeof(float) * (size_t)count);
  if (nudges == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  for (int c = 0; c < count; ++c) {
    const int r = shifts != NULL ? shifts[c] : 0;
    nudges[c] = r > 0 ? ldexpf(1.0f, -(r + 1)) : 0.0f;
  }
  const int nudge_id =
      lg_gpu_lower_constant(p, nudges, sizeof(float) * (size_t)count);
  free(nudges);
  if (nudge_id < 0) return kTfLiteError;
  const int n = (int)lg_gpu_elements(&context->tensors[out]);
  const lg_gpu_operand args[] = {LG_GPU_TENSOR(in),
                                 LG_GPU_TENSOR(out),
                                 LG_GPU_INT(n),
                                 LG_GPU_FLOAT(grid.lo),
                                 LG_GPU_FLOAT(grid.hi),
                                 LG_GPU_FLOAT(scale),
                                 LG_GPU_CONSTANT(nudge_id),
                                 LG_GPU_INT(shifts != NULL ? channels : 1)};
  /* Requantizing several channels: [channels, pixels] (fake_quant.lgk). */
  const bool by_channel = shifts != NULL && channels > 1;
  const size_t global[2] = {by_channel ? (size_t)channels : (size_t)n,
                            by_channel ? (size_t)n / (size_t)channels : 1};
  char defines[64];
  snprintf(defines, sizeof(defines), "%s%s%s",
           in == out ? "-DLG_IN_PLACE=1" : "",
           ties_away ? " -DLG_TIES_AWAY=1" : "",
           shifts != NULL ? " -DLG_REQUANT=1" : "");
  /* Groups of about 64 items over [channels, pixels] (the backend's
   * default follows dimension 0: 8 channels gave PoCL groups of 8), where
   * the device allows 64. */
  const size_t across = channels > 1 && channels < 64 ? (size_t)channels : 64;
  const size_t local[2] = {across, 64 / across};
  const size_t limit = lg_gpu_lower_max_work_group(p);
  const bool grouped = by_channel && (limit == 0 || limit >= 64);
  return lg_gpu_lower_dispatch(p, "fake_quant", defines, args, 8,
                               by_channel ? 2 : 1, global,
                               grouped ? local : NULL);
}

TfLiteStatus lg_gpu_lower_fake_quant(lg_gpu_program* p, int in, int out,
                                     const lg_gpu_quant* q, bool ties_away) {
  return fake_quant_dispatch(p, in, out, q, ties_away, NULL, 0);
}

TfLiteStatus lg_gpu_lower_requantize(lg_gpu_program* p, int in, int out,
                                     const lg_gpu_quant* from,
                                     const lg_gpu_quant* to) {
  if (p->be->fp16_storage)
    return lg_gpu_lower_fake_quant(p, in, out, to, false);
  const int32_t shift = requant_shift((double)from->scale / (double)to->scale);
  return fake_quant_dispatch(p, in, out, to, false, &shift, 1);
}

/* Whether a node of the partition reads tensor `t`; in a trial lowering
 * (no partition yet) assumed, so the kernel's presence is checked. */
static bool read_in_partition(const lg_gpu_program* p, int t) {
  if (p->partition_nodes == NULL) return true;
  for (int k = 0; k < p->partition_nodes->size; ++k) {
    const TfLiteNode* node = NULL;
    const TfLiteRegistration* reg = NULL;
    partition_node_at(p, k, &node, &reg);
    for (int i = 0; i < node->inputs->size; ++i) {
      if (node->inputs->data[i] == t) return true;
    }
  }
  return false;
}

static bool same_grid(const lg_gpu_quant* a, const lg_gpu_quant* b) {
  return a->scale == b->scale && a->zero_point == b->zero_point &&
         a->qmin == b->qmin;
}

/* The right shifts of the CPU's requantization of node's accumulators
 * (CONV_2D and DEPTHWISE_CONV_2D on a quantized input with quantized
 * constant weights, and UINT8 FULLY_CONNECTED; INT8 FULLY_CONNECTED
 * rescales in double and rounds once, as TFLite's reference kernel): per
 * output channel, TFLite's multiplier and shift of input scale x filter
 * scale / output scale (in double, as the CPU kernels compute them), a
 * right shift only for factors below 1 and 0 above MAX_REQUANT_SHIFT.
 * Malloc'd, *channels of them; NULL for other nodes, in half precision
 * (float16 values carry more error than the double rounding's) and when
 * out of memory (then one rounding). */
static int32_t* requant_shifts(const lg_gpu_program* p,
                               const TfLiteContext* context,
                               const TfLiteNode* node,
                               const TfLiteRegistration* reg, const value* x,
                               int* channels) {
  const int op = reg->builtin_code;
  if (p->be->fp16_storage ||
      (op != kTfLiteBuiltinConv2d && op != kTfLiteBuiltinDepthwiseConv2d &&
       op != kTfLiteBuiltinFullyConnected) ||
      node->inputs->size < 2 || node->outputs->size != 1) {
    return NULL;
  }
  lg_gpu_quant in_q;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* filter = lg_gpu_node_tensor(context, node->inputs, 1);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if (!lg_gpu_quantized_activation(in, &in_q) ||
      (op == kTfLiteBuiltinFullyConnected && in->type != kTfLiteUInt8) ||
      !lg_gpu_dequantizable_constant(filter) || filter->type == kTfLiteInt32 ||
      out->dims == NULL || out->dims->size < 1) {
    return NULL;
  }
  const TfLiteAffineQuantization* a = filter->quantization.params;
  const int oc = out->dims->data[out->dims->size - 1];
  if (oc < 1 || (a->scale->size != 1 && a->scale->size != oc)) return NULL;
  int32_t* shifts = malloc(sizeof(int32_t) * (size_t)oc);
  if (shifts == NULL) return NULL;
  for (int c = 0; c < oc; ++c) {
    shifts[c] =
        requant_shift((double)in_q.scale *
                      (double)a->scale->data[a->scale->size == 1 ? 0 : c] /
                      (double)x->quant.scale);
  }
  *channels = oc;
  return shifts;
}

TfLiteStatus lg_gpu_quant_after_node(lg_gpu_program* p, TfLiteContext* context,
                                     const TfLiteNode* node,
                                     const TfLiteRegistration* reg) {
  /* QUANTIZE and DEQUANTIZE are fake quantizations themselves. */
  if (reg->builtin_code == kTfLiteBuiltinQuantize ||
      reg->builtin_code == kTfLiteBuiltinDequantize) {
    return kTfLiteOk;
  }
  for (int i = 0; i < node->outputs->size; ++i) {
    const int t = node->outputs->data[i];
    const int v =
        t >= 0 && t < p->num_context_tensors ? p->value_of_tensor[t] : -1;
    if (v < 0) continue;
    const value* x = &p->values[v];
    if (!x->quantized || x->kind != VALUE_TENSOR) continue;
    if (x->alias_of >= 0) {
      /* A RESHAPE-like alias shares its input's bytes: already on the
       * input's grid, which TFLite requires to be the output's. */
      const value* root = &p->values[x->alias_of];
      if (!root->quantized || !same_grid(&root->quant, &x->quant)) {
        return lg_gpu_lower_fail(
            p,
            "tensor %d renames a tensor of another quantization (scale or "
            "zero point differ)",
            t);
      }
      continue;
    }
    /* A requantized accumulator is snapped also where only the host reads
     * it: the host's single rounding would undo the emulation. */
    int channels = 0;
    int32_t* shifts = requant_shifts(p, context, node, reg, x, &channels);
    if (shifts == NULL && !read_in_partition(p, t)) continue;
    const TfLiteStatus status =
        fake_quant_dispatch(p, t, t, &x->quant, false, shifts, channels);
    free(shifts);
    if (status != kTfLiteOk) return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- The partition boundary ------------------------------------------ */

#define CHUNK 256

void lg_gpu_quant_to_device(const value* x, const void* host, void* device) {
  const size_t n = x->bytes / (x->half ? sizeof(uint16_t) : sizeof(float));
  const float scale = x->quant.scale;
  const int32_t zp = x->quant.zero_point;
  float chunk[CHUNK];
  for (size_t start = 0; start < n; start += CHUNK) {
    const size_t count = n - start < CHUNK ? n - start : CHUNK;
    float* dst = x->half ? chunk : (float*)device + start;
    for (size_t i = 0; i < count; ++i) {
      const int32_t q = x->quant.qmin < 0
                            ? (int32_t)((const int8_t*)host)[start + i]
                            : (int32_t)((const uint8_t*)host)[start + i];
      dst[i] = (float)(q - zp) * scale;
    }
    if (x->half) {
      lg_fp32_to_fp16_array(chunk, (uint16_t*)device + start, count);
    }
  }
}

void lg_gpu_quant_from_device(const value* x, const void* device, void* host) {
  const size_t n = x->bytes / (x->half ? sizeof(uint16_t) : sizeof(float));
  const float scale = x->quant.scale;
  const float zp = (float)x->quant.zero_point;
  const float qmin = (float)x->quant.qmin, qmax = (float)x->quant.qmax;
  float chunk[CHUNK];
  for (size_t start = 0; start < n; start += CHUNK) {
    const size_t count = n - start < CHUNK ? n - start : CHUNK;
    const float* src = (const float*)device + start;
    if (x->half) {
      lg_fp16_to_fp32_array((const uint16_t*)device + start, chunk, count);
      src = chunk;
    }
    for (size_t i = 0; i < count; ++i) {
      float q = roundf(src[i] / scale) + zp;
      if (!(q >= qmin)) q = qmin; /* NaN too */
      if (q > qmax) q = qmax;
      if (x->quant.qmin < 0) {
        ((int8_t*)host)[start + i] = (int8_t)q;
      } else {
        ((uint8_t*)host)[start + i] = (uint8_t)q;
      }
    }
  }
}
