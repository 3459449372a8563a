/* STABLEHLO_RNG_BIT_GENERATOR: random bits from an explicit generator state,
 * as TFLite's kernel draws them.
 *
 * Input 0 is the initial state (a 1-D UINT64 tensor); output 0 the state
 * after the draw (UINT64, the input's shape), output 1 the bits (INT32,
 * INT64, UINT32 or UINT64, a static shape), filled as consecutive 32-bit
 * words. The state is read as 32-bit words s[] (little-endian halves of
 * the 64-bit elements). StablehloRngBitGeneratorOptions.algorithm picks:
 *
 *  - PHILOX or DEFAULT (state of 2 or 3 elements): Philox4x32-10 with key
 *    {s0, s1} and counter {s2, s3, s4, s5} (3 elements) or {s2, s3, s0, s1}
 *    (2 elements); each block gives the next four words.
 *  - THREEFRY (state of 2 elements): Threefry2x32-20 with key {s0, s1} and
 *    counter {s2, s3}; each block gives the next two words.
 *
 * After each block only the low 64 bits of the counter move on (word 0, its
 * carry into word 1). The output state is the input state with words 0-3
 * replaced by the key and those two counter words.
 */
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/philox.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_RNG_OP "STABLEHLO_RNG_BIT_GENERATOR"
#define LG_RNG_OUTPUT_TYPES                                    \
  (LG_SHAPE_TYPE(kTfLiteInt32) | LG_SHAPE_TYPE(kTfLiteInt64) | \
   LG_SHAPE_TYPE(kTfLiteUInt32) | LG_SHAPE_TYPE(kTfLiteUInt64))

static TfLiteRngAlgorithm lg_rng_algorithm(const TfLiteNode* node) {
  const TfLiteStablehloRngBitGeneratorParams* params = node->builtin_data;
  return params != NULL ? params->algorithm : kTfLiteRngAlgorithmDefault;
}

static TfLiteStatus lg_rng_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_RNG_OP;
  const TfLiteTensor* state;
  TfLiteTensor *out_state, *output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 2));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &state));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &out_state));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 1, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "initial_state", state->type, LG_SHAPE_TYPE(kTfLiteUInt64)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output_state",
                                            out_state->type,
                                            LG_SHAPE_TYPE(kTfLiteUInt64)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_RNG_OUTPUT_TYPES));
  if (state->dims->size != 1) {
    lg_kernel_log(context, op, "initial_state must be 1-D, got rank %d",
                  state->dims->size);
    return kTfLiteError;
  }
  const int n = state->dims->data[0];
  const TfLiteRngAlgorithm algorithm = lg_rng_algorithm(node);
  switch (algorithm) {
    case kTfLiteRngAlgorithmThreefry:
      if (n != 2) {
        lg_kernel_log(context, op,
                      "THREEFRY takes a state of 2 elements, got %d", n);
        return kTfLiteError;
      }
      break;
    case kTfLiteRngAlgorithmPhilox:
    case kTfLiteRngAlgorithmDefault:
      if (n != 2 && n != 3) {
        lg_kernel_log(context, op,
                      "PHILOX takes a state of 2 or 3 elements, got %d", n);
        return kTfLiteError;
      }
      break;
    default:
      lg_kernel_log(context, op, "unknown RNG algorithm %d", (int)algorithm);
      return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_resize(context, op, out_state, state->dims->data, 1));
  int dims[LG_SHAPE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "output", output, LG_SHAPE_MAX_RANK));
  const int rank = lg_shape_dims(output, dims);
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_rng_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_RNG_OP;
  const TfLiteTensor* state = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* out_state = &context->tensors[node->outputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[1]];
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "initial_state", state));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "output_state", out_state));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int n = state->dims->data[0];
  uint32_t s[6] = {0};
  memcpy(s, state->data.raw_const, (size_t)n * sizeof(uint64_t));
  int64_t words = lg_kernel_num_elements(output);
  if (output->type == kTfLiteInt64 || output->type == kTfLiteUInt64) {
    words *= 2;
  }
  uint8_t* out = (uint8_t*)output->data.raw;
  const uint32_t key[2] = {s[0], s[1]};
  uint32_t ctr[4];
  memcpy(out_state->data.raw, state->data.raw_const,
         (size_t)n * sizeof(uint64_t));
  if (lg_rng_algorithm(node) == kTfLiteRngAlgorithmThreefry) {
    ctr[0] = s[2];
    ctr[1] = s[3];
    for (int64_t i = 0; i < words; i += 2) {
      uint32_t block[2];
      lg_threefry2x32_block(ctr, key, block);
      const int64_t take = words - i < 2 ? words - i : 2;
      memcpy(out + i * 4, block, (size_t)take * 4);
      if (++ctr[0] == 0) ++ctr[1];
    }
  } else {
    ctr[0] = s[2];
    ctr[1] = s[3];
    ctr[2] = n == 3 ? s[4] : s[0];
    ctr[3] = n == 3 ? s[5] : s[1];
    for (int64_t i = 0; i < words; i += 4) {
      uint32_t block[4];
      lg_philox_block(ctr, key, block);
      const int64_t take = words - i < 4 ? words - i : 4;
      memcpy(out + i * 4, block, (size_t)take * 4);
      if (++ctr[0] == 0) ++ctr[1];
    }
  }
  const uint32_t next[4] = {key[0], key[1], ctr[0], ctr[1]};
  memcpy(out_state->data.raw, next, sizeof(next));
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(STABLEHLO_RNG_BIT_GENERATOR, NULL, NULL, lg_rng_prepare,
                       lg_rng_invoke)
