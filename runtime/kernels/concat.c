/* CONCATENATION and PACK: the inputs laid side by side along one axis.
 *
 * CONCATENATION joins inputs of equal rank whose dims agree except along
 * `axis` (negative counts from the end); for FLOAT32 the fused activation
 * (NONE, RELU, RELU_N1_TO_1, RELU6) clamps the result. PACK stacks
 * values_count inputs of one shape along a new dim inserted at `axis`, in
 * [-rank-1, rank].
 * LiteRT refuses any fused activation on CONCATENATION; litegpu applies it
 * as its other float kernels do (lg_kernel_activation_range_float).
 *
 * Both copy the same way: the output is `outer` blocks (the product of the
 * dims before the axis), each holding every input's slice of that block in
 * input order, so Invoke is one memcpy per input per block. Quantized int8
 * and int16 inputs, and PACK's uint8 ones, must share the output's scale and
 * zero point (TFLite assumes so). UINT8 CONCATENATION inputs may differ:
 * TFLite's legacy ConcatenationWithScaling requantizes those, in float:
 *   out = clamp(round(q * s + b) + out_zp, 0, 255),
 *   s = in_scale * (1 / out_scale), b = -in_zp * s
 * (round half away from zero); inputs with the output's parameters are
 * copied.
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_CONCAT_OP "CONCATENATION"
#define LG_PACK_OP "PACK"
/* LiteRT's PACK takes no bool. */
#define LG_PACK_TYPES (LG_SHAPE_TYPES_MOVE & ~LG_SHAPE_TYPE(kTfLiteBool))

enum { kOutputTensor = 0 };

typedef struct lg_concat_data {
  bool prepared;
  int64_t outer;    /* blocks: product of the output dims before the axis */
  int64_t elements; /* output elements */
  bool clamp;       /* FLOAT32 with a fused activation */
  float min, max;
  bool rescale; /* UINT8 CONCATENATION: inputs may need requantizing */
} lg_concat_data;

static void* lg_concat_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_concat_data));
}

/* Whether int8, uint8 and int16 tensors a and b carry the same
 * quantization (TfLiteQuantizationParams; both unset counts as equal). */
static bool lg_concat_same_quant(const TfLiteTensor* a, const TfLiteTensor* b) {
  if (a->type != kTfLiteInt8 && a->type != kTfLiteUInt8 &&
      a->type != kTfLiteInt16) {
    return true;
  }
  return a->params.scale == b->params.scale &&
         a->params.zero_point == b->params.zero_point;
}

/* Checks input `i` against input 0 and the output: present, same type,
 * same quantization (unless `rescale`: UINT8 CONCATENATION). */
static TfLiteStatus lg_concat_check_input(TfLiteContext* context,
                                          TfLiteNode* node, const char* op,
                                          int i, bool rescale,
                                          const TfLiteTensor* first,
                                          const TfLiteTensor* output,
                                          const TfLiteTensor** input) {
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, i, input));
  char what[32];
  snprintf(what, sizeof(what), "input %d", i);
  if ((*input)->type != first->type) {
    lg_kernel_log(context, op, "input %d type %s differs from input 0 type %s",
                  i, TfLiteTypeGetName((*input)->type),
                  TfLiteTypeGetName(first->type));
    return kTfLiteError;
  }
  if (!rescale && !lg_concat_same_quant(*input, output)) {
    lg_kernel_log(context, op,
                  "input %d quantization (scale %g, zero point %d) differs "
                  "from the output's (scale %g, zero point %d); requantizing "
                  "is not supported",
                  i, (double)(*input)->params.scale,
                  (int)(*input)->params.zero_point,
                  (double)output->params.scale, (int)output->params.zero_point);
    return kTfLiteError;
  }
  return lg_shape_check_rank(context, op, what, *input, LG_SHAPE_MAX_RANK);
}

/* The start of both Prepares: node data, at least one input, input 0 and
 * output types. */
static TfLiteStatus lg_concat_begin(TfLiteContext* context, TfLiteNode* node,
                                    const char* op, uint32_t types,
                                    lg_concat_data** data,
                                    const TfLiteTensor** first,
                                    TfLiteTensor** output) {
  *data = node->user_data;
  if (*data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  (*data)->prepared = false;
  (*data)->clamp = false;
  (*data)->rescale = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, INT_MAX, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, first));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", (*first)->type, types));
  return lg_shape_check_same_type(context, op, *first, *output);
}

/* Checks the output size and resizes to dims[0..rank). */
static TfLiteStatus lg_concat_finish(TfLiteContext* context, const char* op,
                                     lg_concat_data* data, TfLiteTensor* output,
                                     const int* dims, int rank, int axis) {
  const int64_t elements = lg_shape_product(dims, 0, rank);
  if (elements > INT_MAX) {
    lg_kernel_log(context, op, "the output has %lld elements, above %d",
                  (long long)elements, INT_MAX);
    return kTfLiteError;
  }
  data->outer = lg_shape_product(dims, 0, axis);
  data->elements = elements;
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, dims, rank));
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- CONCATENATION ------------------------------------------------------*/

/* Reads the fused activation into data (FLOAT32 only). */
static TfLiteStatus lg_concat_activation(TfLiteContext* context,
                                         lg_concat_data* data, TfLiteType type,
                                         TfLiteFusedActivation activation) {
  if (activation == kTfLiteActNone) return kTfLiteOk;
  if (type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_CONCAT_OP,
                  "fused activation %s is only supported for FLOAT32, got %s",
                  lg_kernel_activation_name(activation),
                  TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
      context, LG_CONCAT_OP, activation, &data->min, &data->max));
  data->clamp = true;
  return kTfLiteOk;
}

/* UINT8 CONCATENATION: requantizing an input (one whose quantization
 * differs from the output's) needs a positive finite output scale; with
 * none to requantize (unquantized uint8 data included) the inputs are
 * copied and data->rescale is cleared. */
static TfLiteStatus lg_concat_check_rescale(TfLiteContext* context,
                                            TfLiteNode* node,
                                            lg_concat_data* data,
                                            const TfLiteTensor* output) {
  if (!data->rescale) return kTfLiteOk;
  data->rescale = false;
  for (int i = 0; i < node->inputs->size; ++i) {
    const TfLiteTensor* input;
    TF_LITE_ENSURE_STATUS(
        lg_kernel_input(context, node, LG_CONCAT_OP, i, &input));
    if (lg_concat_same_quant(input, output)) continue;
    if (!(output->params.scale > 0.0f && output->params.scale < INFINITY)) {
      lg_kernel_log(context, LG_CONCAT_OP,
                    "input %d needs requantizing to the UINT8 output, whose "
                    "scale %g is not a positive finite number",
                    i, (double)output->params.scale);
      return kTfLiteError;
    }
    data->rescale = true;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_concat_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_concat_data* data;
  const TfLiteTensor* first;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_concat_begin(context, node, LG_CONCAT_OP,
                                        LG_SHAPE_TYPES_MOVE, &data, &first,
                                        &output));
  const TfLiteConcatenationParams* params = node->builtin_data;
  const int value = params != NULL ? params->axis : 0;
  TF_LITE_ENSURE_STATUS(lg_concat_activation(
      context, data, first->type,
      params != NULL ? params->activation : kTfLiteActNone));
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, LG_CONCAT_OP, "input 0",
                                            first, LG_SHAPE_MAX_RANK));
  data->rescale = first->type == kTfLiteUInt8;
  int dims[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(first, dims);
  const int axis = value < 0 ? value + rank : value;
  if (axis < 0 || axis >= rank) {
    lg_kernel_log(context, LG_CONCAT_OP,
                  "axis %d is out of range for inputs of rank %d", value, rank);
    return kTfLiteError;
  }
  int64_t total = dims[axis];
  char a[LG_SHAPE_TEXT], b[LG_SHAPE_TEXT];
  for (int i = 1; i < node->inputs->size; ++i) {
    const TfLiteTensor* input;
    TF_LITE_ENSURE_STATUS(lg_concat_check_input(
        context, node, LG_CONCAT_OP, i, data->rescale, first, output, &input));
    bool match = input->dims->size == rank;
    for (int k = 0; match && k < rank; ++k) {
      match = k == axis || input->dims->data[k] == dims[k];
    }
    if (!match) {
      lg_kernel_log(context, LG_CONCAT_OP,
                    "input %d shape %s does not match input 0 shape %s "
                    "outside axis %d",
                    i, lg_kernel_format_shape(input->dims, a, sizeof(a)),
                    lg_kernel_format_shape(first->dims, b, sizeof(b)), axis);
      return kTfLiteError;
    }
    total += input->dims->data[axis];
  }
  if (!data->rescale && !lg_concat_same_quant(first, output)) {
    lg_kernel_log(context, LG_CONCAT_OP,
                  "input 0 quantization differs from the output's; "
                  "requantizing is not supported");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_concat_check_rescale(context, node, data, output));
  if (total > INT_MAX) {
    lg_kernel_log(context, LG_CONCAT_OP,
                  "the output axis size %lld is too large", (long long)total);
    return kTfLiteError;
  }
  dims[axis] = (int)total;
  return lg_concat_finish(context, LG_CONCAT_OP, data, output, dims, rank,
                          axis);
}

/* ---- PACK ---------------------------------------------------------------*/

static TfLiteStatus lg_pack_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_concat_data* data;
  const TfLiteTensor* first;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_concat_begin(context, node, LG_PACK_OP,
                                        LG_PACK_TYPES, &data, &first, &output));
  const TfLitePackParams* params = node->builtin_data;
  const int count = node->inputs->size;
  if (params == NULL || params->values_count != count) {
    lg_kernel_log(context, LG_PACK_OP,
                  "values_count %d differs from the %d inputs",
                  params != NULL ? params->values_count : 0, count);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, LG_PACK_OP, "input 0",
                                            first, LG_SHAPE_MAX_RANK - 1));
  if (!lg_concat_same_quant(first, output)) {
    lg_kernel_log(context, LG_PACK_OP,
                  "input 0 quantization differs from the output's; "
                  "requantizing is not supported");
    return kTfLiteError;
  }
  const int rank = first->dims->size;
  const int axis = params->axis < 0 ? params->axis + rank + 1 : params->axis;
  if (axis < 0 || axis > rank) {
    lg_kernel_log(context, LG_PACK_OP,
                  "axis %d is out of range [%d, %d] for inputs of rank %d",
                  params->axis, -rank - 1, rank, rank);
    return kTfLiteError;
  }
  char a[LG_SHAPE_TEXT], b[LG_SHAPE_TEXT];
  for (int i = 1; i < count; ++i) {
    const TfLiteTensor* input;
    TF_LITE_ENSURE_STATUS(lg_concat_check_input(context, node, LG_PACK_OP, i,
                                                false, first, output, &input));
    if (!TfLiteIntArrayEqual(input->dims, first->dims)) {
      lg_kernel_log(context, LG_PACK_OP,
                    "input %d shape %s differs from input 0 shape %s", i,
                    lg_kernel_format_shape(input->dims, a, sizeof(a)),
                    lg_kernel_format_shape(first->dims, b, sizeof(b)));
      return kTfLiteError;
    }
  }
  int dims[LG_SHAPE_MAX_RANK];
  for (int k = 0, j = 0; k <= rank; ++k) {
    dims[k] = k == axis ? count : first->dims->data[j++];
  }
  return lg_concat_finish(context, LG_PACK_OP, data, output, dims, rank + 1,
                          axis);
}

/* ---- Invoke (both ops) --------------------------------------------------*/

/* UINT8 CONCATENATION: n values of `input` into `out`, requantized to the
 * output's parameters (TFLite's ConcatenationWithScaling, in float). */
static void lg_concat_rescale_u8(const TfLiteTensor* input,
                                 const TfLiteTensor* output, const uint8_t* in,
                                 size_t n, uint8_t* out) {
  const float inverse_output_scale = 1.0f / output->params.scale;
  const float scale = input->params.scale * inverse_output_scale;
  const float bias = (float)-input->params.zero_point * scale;
  const int32_t out_zp = output->params.zero_point;
  for (size_t j = 0; j < n; ++j) {
    const int32_t v = (int32_t)roundf((float)in[j] * scale + bias) + out_zp;
    out[j] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
  }
}

/* Inputs up to this many have their slices listed before copying. */
#define LG_CONCAT_LISTED_INPUTS 16
/* Output bytes from which the listed copy splits its blocks over threads:
 * each thread then copies the pixels it (likely) wrote in the layers
 * before, from its own core's cache (small_unet's 64x64x(32+16) channel
 * concatenation: 48.1 us at 2 threads copying on one, 30.0 split; its
 * 256 KB one, whose inputs one thread wrote, was slower split). */
#define LG_CONCAT_MIN_PARALLEL_BYTES (1 << 19)

/* The listed inputs' slices, shared read-only by the copy's tasks. */
typedef struct lg_concat_job {
  const TfLiteTensor* inputs[LG_CONCAT_LISTED_INPUTS];
  size_t chunks[LG_CONCAT_LISTED_INPUTS];
  bool rescale[LG_CONCAT_LISTED_INPUTS];
  int count;
  size_t block; /* output bytes per outer block: the chunks' sum */
  int64_t outer;
  const TfLiteTensor* output;
  int tasks;
} lg_concat_job;

/* Outer blocks [outer * task / tasks, outer * (task + 1) / tasks). */
static void lg_concat_task(void* ctx, int task) {
  const lg_concat_job* job = ctx;
  const int64_t o0 = job->outer * task / job->tasks;
  const int64_t o1 = job->outer * (task + 1) / job->tasks;
  char* out = job->output->data.raw + (size_t)o0 * job->block;
  for (int64_t o = o0; o < o1; ++o) {
    for (int i = 0; i < job->count; ++i) {
      const size_t chunk = job->chunks[i];
      if (chunk == 0) continue;
      const char* src = job->inputs[i]->data.raw + (size_t)o * chunk;
      if (job->rescale[i]) {
        lg_concat_rescale_u8(job->inputs[i], job->output, (const uint8_t*)src,
                             chunk, (uint8_t*)out);
      } else {
        memcpy(out, src, chunk);
      }
      out += chunk;
    }
  }
}

/* Copies every input's slice of each of the `outer` blocks into the output,
 * after checking the element counts still add up. */
static TfLiteStatus lg_concat_copy(TfLiteContext* context, TfLiteNode* node,
                                   const char* op, const lg_concat_data* data,
                                   TfLiteTensor* output) {
  int64_t sum = 0;
  for (int i = 0; i < node->inputs->size; ++i) {
    const TfLiteTensor* input;
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, i, &input));
    const int64_t n = lg_kernel_num_elements(input);
    if (data->outer > 0 && n % data->outer != 0) sum = -1;
    if (sum >= 0) sum += n;
  }
  if (sum != data->elements || lg_kernel_num_elements(output) != sum) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t size = 0;
  TfLiteGetSizeOfType(output->type, &size);
  char* out = output->data.raw;
  size_t offset = 0;
  if (node->inputs->size <= LG_CONCAT_LISTED_INPUTS) {
    /* Each input's tensor, slice size and rescale looked up once, not once
     * per outer block (a channel concatenation has one block per pixel). */
    lg_concat_job job = {.count = node->inputs->size,
                         .outer = data->outer,
                         .output = output,
                         .tasks = 1};
    for (int i = 0; i < node->inputs->size; ++i) {
      TF_LITE_ENSURE_STATUS(
          lg_kernel_input(context, node, op, i, &job.inputs[i]));
      job.chunks[i] =
          (size_t)(lg_kernel_num_elements(job.inputs[i]) / data->outer) * size;
      if (job.chunks[i] != 0) {
        TF_LITE_ENSURE_STATUS(
            lg_shape_check_data(context, op, "input", job.inputs[i]));
      }
      job.rescale[i] =
          data->rescale && !lg_concat_same_quant(job.inputs[i], output);
      job.block += job.chunks[i];
    }
    lg_thread_pool* pool = lg_kernel_thread_pool(context);
    if ((size_t)data->elements * size >= LG_CONCAT_MIN_PARALLEL_BYTES) {
      job.tasks = lg_thread_pool_tasks(pool, data->outer);
    }
    lg_thread_pool_run(pool, lg_concat_task, &job, job.tasks);
    return kTfLiteOk;
  }
  for (int64_t o = 0; o < data->outer; ++o) {
    for (int i = 0; i < node->inputs->size; ++i) {
      const TfLiteTensor* input;
      TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, i, &input));
      const size_t chunk =
          (size_t)(lg_kernel_num_elements(input) / data->outer) * size;
      if (chunk == 0) continue;
      TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
      if (data->rescale && !lg_concat_same_quant(input, output)) {
        lg_concat_rescale_u8(
            input, output, (const uint8_t*)input->data.raw + (size_t)o * chunk,
            chunk, (uint8_t*)out + offset);
      } else {
        memcpy(out + offset, input->data.raw + (size_t)o * chunk, chunk);
      }
      offset += chunk;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_concat_invoke_op(TfLiteContext* context,
                                        TfLiteNode* node, const char* op) {
  const lg_concat_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_concat_copy(context, node, op, data, output));
  if (data->clamp) {
    float* out = output->data.f;
    for (int64_t i = 0; i < data->elements; ++i) {
      out[i] = lg_kernel_clamp_float(out[i], data->min, data->max);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_concat_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_concat_invoke_op(context, node, LG_CONCAT_OP);
}

static TfLiteStatus lg_pack_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_concat_invoke_op(context, node, LG_PACK_OP);
}

LG_KERNEL_REGISTRATION(CONCATENATION, lg_concat_init, lg_kernel_free_data,
                       lg_concat_prepare, lg_concat_invoke)

LG_KERNEL_REGISTRATION(PACK, lg_concat_init, lg_kernel_free_data,
                       lg_pack_prepare, lg_pack_invoke)
