/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (the pair TensorFlow's converter
 * wraps around a dilated convolution), for 4-D [N, H, W, C] and 3-D
 * [N, H, C] inputs (a 3-D input is a 4-D one with W = 1, as TFLite treats
 * it) of any element type the data-movement kernels take.
 *
 * SPACE_TO_BATCH_ND pads H and W (paddings [[top, bottom], [left, right]])
 * and moves each block_h x block_w phase of the padded grid into its own
 * batch: output batch (sh * block_w + sw) * N + n holds input rows
 * h * block_h + sh - top and columns w * block_w + sw - left. Padding
 * reads the output's zero point for quantized types, else 0.
 * BATCH_TO_SPACE_ND is the inverse, then crops ([[top, bottom], [left,
 * right]]) the result.
 *
 * When block_shape and paddings/crops are constants the output shape is set
 * in Prepare; otherwise the output is dynamic and shaped in Invoke.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

/* The layout of one call: the input as 4-D, the block and the pads (or
 * crops), and the output dims. */
typedef struct lg_sb_plan {
  int in[4];  /* N, H, W, C */
  int out[4]; /* N, H, W, C */
  int block[2];
  int pad[4]; /* top, bottom, left, right (crops for BATCH_TO_SPACE_ND) */
  int rank;   /* 3 or 4: the output has the input's rank */
} lg_sb_plan;

/* Reads block_shape (input 1) and paddings or crops (input 2) into the
 * plan, checking counts and signs. */
static TfLiteStatus lg_sb_read(TfLiteContext* context, const char* op,
                               const char* pads_name, const TfLiteTensor* input,
                               const TfLiteTensor* block,
                               const TfLiteTensor* pads, lg_sb_plan* p) {
  const int rank = input->dims->size;
  const int spatial = rank - 2;
  int64_t b[2], q[4];
  int nb = 0, nq = 0;
  TF_LITE_ENSURE_STATUS(
      lg_shape_read_ints(context, op, "block_shape", block, 2, b, &nb));
  TF_LITE_ENSURE_STATUS(
      lg_shape_read_ints(context, op, pads_name, pads, 4, q, &nq));
  if (nb != spatial || nq != 2 * spatial) {
    lg_kernel_log(context, op,
                  "a %d-D input needs block_shape of %d values and %s of "
                  "[%d, 2]; got %d and %d values",
                  rank, spatial, pads_name, spatial, nb, nq);
    return kTfLiteError;
  }
  p->rank = rank;
  p->in[0] = input->dims->data[0];
  p->in[1] = input->dims->data[1];
  p->in[2] = rank == 4 ? input->dims->data[2] : 1;
  p->in[3] = input->dims->data[rank - 1];
  p->block[1] = 1;
  p->pad[2] = p->pad[3] = 0;
  for (int i = 0; i < spatial; ++i) {
    if (b[i] < 1 || b[i] > 65535) {
      lg_kernel_log(context, op, "block_shape[%d] = %lld is not in [1, 65535]",
                    i, (long long)b[i]);
      return kTfLiteError;
    }
    p->block[i] = (int)b[i];
  }
  for (int i = 0; i < 2 * spatial; ++i) {
    if (q[i] < 0 || q[i] > INT_MAX / 2) {
      lg_kernel_log(context, op, "%s value %lld at %d is negative or too large",
                    pads_name, (long long)q[i], i);
      return kTfLiteError;
    }
    p->pad[i] = (int)q[i];
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_sb_output_dims(TfLiteContext* context, const char* op,
                                      bool to_batch, lg_sb_plan* p) {
  const int64_t blocks = (int64_t)p->block[0] * p->block[1];
  p->out[3] = p->in[3];
  if (to_batch) {
    for (int i = 0; i < 2; ++i) {
      const int64_t padded =
          (int64_t)p->in[1 + i] + p->pad[2 * i] + p->pad[2 * i + 1];
      if (padded % p->block[i] != 0) {
        lg_kernel_log(context, op,
                      "padded spatial dim %d (%lld) is not a multiple of "
                      "block_shape[%d] = %d",
                      i, (long long)padded, i, p->block[i]);
        return kTfLiteError;
      }
      p->out[1 + i] = (int)(padded / p->block[i]);
    }
    if ((int64_t)p->in[0] * blocks > INT_MAX) {
      lg_kernel_log(context, op, "the output batch is too large");
      return kTfLiteError;
    }
    p->out[0] = (int)(p->in[0] * blocks);
    return kTfLiteOk;
  }
  if (p->in[0] % blocks != 0) {
    lg_kernel_log(context, op,
                  "input batch %d is not a multiple of the block size %lld",
                  p->in[0], (long long)blocks);
    return kTfLiteError;
  }
  p->out[0] = (int)(p->in[0] / blocks);
  for (int i = 0; i < 2; ++i) {
    const int64_t full = (int64_t)p->in[1 + i] * p->block[i];
    const int64_t cropped = full - p->pad[2 * i] - p->pad[2 * i + 1];
    if (cropped < 0 || full > INT_MAX) {
      lg_kernel_log(context, op,
                    "crops of spatial dim %d (%d + %d) exceed its size %lld", i,
                    p->pad[2 * i], p->pad[2 * i + 1], (long long)full);
      return kTfLiteError;
    }
    p->out[1 + i] = (int)cropped;
  }
  return kTfLiteOk;
}

/* Reads the plan; with `resize`, shapes the output after it. */
static TfLiteStatus lg_sb_shape(TfLiteContext* context, const char* op,
                                bool to_batch, TfLiteNode* node, lg_sb_plan* p,
                                bool resize) {
  const TfLiteTensor *input, *block, *pads;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &block));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &pads));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_sb_read(context, op, to_batch ? "paddings" : "crops",
                                   input, block, pads, p));
  TF_LITE_ENSURE_STATUS(lg_sb_output_dims(context, op, to_batch, p));
  if (!resize) return kTfLiteOk;
  const int dims4[4] = {p->out[0], p->out[1], p->out[2], p->out[3]};
  const int dims3[3] = {p->out[0], p->out[1], p->out[3]};
  return lg_shape_resize(context, op, output, p->rank == 4 ? dims4 : dims3,
                         p->rank);
}

static TfLiteStatus lg_sb_prepare(TfLiteContext* context, TfLiteNode* node,
                                  const char* op, bool to_batch) {
  const TfLiteTensor *input, *block, *pads;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &block));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &pads));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPES_MOVE));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size != 3 && input->dims->size != 4) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, op, "input must be 3-D or 4-D, got %s",
                  lg_kernel_format_shape(input->dims, shape, sizeof shape));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "block_shape",
                                            block->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op,
                                            to_batch ? "paddings" : "crops",
                                            pads->type, LG_SHAPE_TYPES_INDEX));
  if (!lg_kernel_is_constant(block) || !lg_kernel_is_constant(pads)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  lg_sb_plan plan;
  return lg_sb_shape(context, op, to_batch, node, &plan, true);
}

/* The value padding writes: the output's zero point when quantized. */
static void lg_sb_pad_value(const TfLiteTensor* output, size_t elem,
                            uint8_t value[8]) {
  memset(value, 0, 8);
  const int32_t zp = output->params.zero_point;
  if (output->type == kTfLiteInt8 || output->type == kTfLiteUInt8) {
    value[0] = (uint8_t)zp;
  } else if (output->type == kTfLiteInt16) {
    const int16_t v = (int16_t)zp;
    memcpy(value, &v, sizeof v);
  }
  (void)elem;
}

static void lg_space_to_batch_run(const lg_sb_plan* p, size_t elem,
                                  const uint8_t* pad, const char* in,
                                  char* out) {
  const int N = p->in[0], H = p->in[1], W = p->in[2], C = p->in[3];
  const size_t row = (size_t)C * elem;
  for (int ob = 0; ob < p->out[0]; ++ob) {
    const int n = ob % N, shift = ob / N;
    const int sh = shift / p->block[1], sw = shift % p->block[1];
    for (int oh = 0; oh < p->out[1]; ++oh) {
      const int ih = oh * p->block[0] + sh - p->pad[0];
      for (int ow = 0; ow < p->out[2]; ++ow) {
        const int iw = ow * p->block[1] + sw - p->pad[2];
        char* dst =
            out + ((((size_t)ob * p->out[1] + oh) * p->out[2]) + ow) * row;
        if (ih < 0 || ih >= H || iw < 0 || iw >= W) {
          lg_shape_fill(dst, C, pad, elem);
        } else {
          memcpy(dst, in + ((((size_t)n * H + ih) * W) + iw) * row, row);
        }
      }
    }
  }
}

static void lg_batch_to_space_run(const lg_sb_plan* p, size_t elem,
                                  const char* in, char* out) {
  const int H = p->in[1], W = p->in[2], C = p->in[3];
  const int No = p->out[0], Ho = p->out[1], Wo = p->out[2];
  const size_t row = (size_t)C * elem;
  for (int ib = 0; ib < p->in[0]; ++ib) {
    const int ob = ib % No, shift = ib / No;
    const int sh = shift / p->block[1], sw = shift % p->block[1];
    for (int ih = 0; ih < H; ++ih) {
      const int oh = ih * p->block[0] + sh - p->pad[0];
      if (oh < 0 || oh >= Ho) continue;
      for (int iw = 0; iw < W; ++iw) {
        const int ow = iw * p->block[1] + sw - p->pad[2];
        if (ow < 0 || ow >= Wo) continue;
        memcpy(out + ((((size_t)ob * Ho + oh) * Wo) + ow) * row,
               in + ((((size_t)ib * H + ih) * W) + iw) * row, row);
      }
    }
  }
}

static TfLiteStatus lg_sb_invoke(TfLiteContext* context, TfLiteNode* node,
                                 const char* op, bool to_batch) {
  lg_sb_plan plan;
  /* Reading the small index tensors again costs little and keeps one
   * path for constant and run-time shapes. */
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE_STATUS(lg_sb_shape(context, op, to_batch, node, &plan,
                                    output->allocation_type == kTfLiteDynamic));
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  if (lg_kernel_num_elements(output) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (lg_kernel_num_elements(input) > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  }
  size_t elem = 0;
  TfLiteGetSizeOfType(input->type, &elem);
  if (to_batch) {
    uint8_t pad[8];
    lg_sb_pad_value(output, elem, pad);
    lg_space_to_batch_run(&plan, elem, pad, input->data.raw_const,
                          output->data.raw);
  } else {
    lg_batch_to_space_run(&plan, elem, input->data.raw_const, output->data.raw);
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_space_to_batch_prepare(TfLiteContext* context,
                                              TfLiteNode* node) {
  return lg_sb_prepare(context, node, "SPACE_TO_BATCH_ND", true);
}

static TfLiteStatus lg_space_to_batch_invoke(TfLiteContext* context,
                                             TfLiteNode* node) {
  return lg_sb_invoke(context, node, "SPACE_TO_BATCH_ND", true);
}

static TfLiteStatus lg_batch_to_space_prepare(TfLiteContext* context,
                                              TfLiteNode* node) {
  return lg_sb_prepare(context, node, "BATCH_TO_SPACE_ND", false);
}

static TfLiteStatus lg_batch_to_space_invoke(TfLiteContext* context,
                                             TfLiteNode* node) {
  return lg_sb_invoke(context, node, "BATCH_TO_SPACE_ND", false);
}

LG_KERNEL_REGISTRATION(SPACE_TO_BATCH_ND, NULL, NULL, lg_space_to_batch_prepare,
                       lg_space_to_batch_invoke)
LG_KERNEL_REGISTRATION(BATCH_TO_SPACE_ND, NULL, NULL, lg_batch_to_space_prepare,
                       lg_batch_to_space_invoke)
