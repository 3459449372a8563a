/* Helpers shared by litegpu's builtin kernels.
 *
 * Every helper that can fail reports through context->ReportError with the
 * op's name first ("ADD: input 1 is absent") and returns kTfLiteError; none
 * allocates except lg_kernel_broadcast_shape (whose result the caller hands to
 * context->ResizeTensor, which takes ownership). All are safe to call from
 * Prepare and Invoke.
 *
 * Tensor slots are named per kernel file (enum { kInputTensor = 0, ... }), as
 * in TFLite; this header does not define them, so two kernels never disagree
 * about a shared name.
 *
 * Example (a Prepare):
 *   const TfLiteTensor* input;
 *   TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, "ADD", 2, 2, 1));
 *   TF_LITE_ENSURE_STATUS(
 *       lg_kernel_input(context, node, "ADD", kInputTensor1, &input));
 */
#ifndef LITEGPU_RUNTIME_KERNELS_KERNEL_UTIL_H_
#define LITEGPU_RUNTIME_KERNELS_KERNEL_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/op_manifest.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* The highest rank lg_kernel_broadcast_shape accepts as max_rank. */
#define LG_KERNEL_MAX_RANK 8

/* Reports "OP: <formatted message>" through context->ReportError. Messages
 * longer than 512 bytes are cut. */
void lg_kernel_log(TfLiteContext* context, const char* op, const char* format,
                   ...) __attribute__((format(printf, 3, 4)));

/* Checks the node has min_inputs..max_inputs inputs and exactly num_outputs
 * outputs. */
TfLiteStatus lg_kernel_check_io(TfLiteContext* context, const TfLiteNode* node,
                                const char* op, int min_inputs, int max_inputs,
                                int num_outputs);

/* The tensor at input `slot` into *tensor. An error when the slot is past the
 * node's inputs, the slot holds kTfLiteOptionalTensor, or the tensor index is
 * out of the context's range. */
TfLiteStatus lg_kernel_input(TfLiteContext* context, const TfLiteNode* node,
                             const char* op, int slot,
                             const TfLiteTensor** tensor);
/* As lg_kernel_input for output `slot`. */
TfLiteStatus lg_kernel_output(TfLiteContext* context, const TfLiteNode* node,
                              const char* op, int slot, TfLiteTensor** tensor);
/* An optional input: *tensor is NULL (and the status Ok) when the slot is
 * past the node's inputs or holds kTfLiteOptionalTensor; an index out of the
 * context's range is still an error. */
TfLiteStatus lg_kernel_optional_input(TfLiteContext* context,
                                      const TfLiteNode* node, const char* op,
                                      int slot, const TfLiteTensor** tensor);

/* The number of elements of `dims` (1 for a scalar, 0 for NULL dims or any
 * zero dim). Negative dims count as zero. */
int64_t lg_kernel_num_elements_dims(const TfLiteIntArray* dims);
static inline int64_t lg_kernel_num_elements(const TfLiteTensor* tensor) {
  return tensor == NULL ? 0 : lg_kernel_num_elements_dims(tensor->dims);
}

/* Writes the shape as "[2,3]" ("[]" for a scalar, "[?]" for NULL) into buf,
 * cutting it to fit `size` bytes. Returns buf. */
const char* lg_kernel_format_shape(const TfLiteIntArray* dims, char* buf,
                                   size_t size);

/* Checks the tensor has a shape whose dims are all >= 0 and whose element
 * count fits an int. `what` names it in the message ("input 1"). */
TfLiteStatus lg_kernel_check_shape(TfLiteContext* context, const char* op,
                                   const char* what,
                                   const TfLiteTensor* tensor);

/* The numpy-style broadcast of shapes a and b (aligned at the last dim; each
 * pair equal or one of them 1, and then the other wins, so 1 against 0 gives
 * 0) into *out, a new array the caller owns. Errors: a rank above max_rank
 * (at most LG_KERNEL_MAX_RANK) and incompatible shapes, e.g.
 * "ADD: input shapes [2,3] and [4] are not broadcastable". */
TfLiteStatus lg_kernel_broadcast_shape(TfLiteContext* context, const char* op,
                                       const TfLiteIntArray* a,
                                       const TfLiteIntArray* b, int max_rank,
                                       TfLiteIntArray** out);

/* The clamp range of a fused activation for float kernels: NONE gives
 * [-inf, +inf] (so Inf and NaN pass through), RELU [0, +inf], RELU_N1_TO_1
 * [-1, 1], RELU6 [0, 6]. TANH, SIGN_BIT and SIGMOID are not fused
 * activations TFLite's float kernels accept; they and unknown values are
 * reported as errors naming the activation. */
TfLiteStatus lg_kernel_activation_range_float(TfLiteContext* context,
                                              const char* op,
                                              TfLiteFusedActivation activation,
                                              float* min, float* max);
/* The same for int32 kernels: NONE gives [INT32_MIN, INT32_MAX]. */
TfLiteStatus lg_kernel_activation_range_int32(TfLiteContext* context,
                                              const char* op,
                                              TfLiteFusedActivation activation,
                                              int32_t* min, int32_t* max);

/* The fused activation in the builtin params of ADD, SUB, MUL or DIV
 * (TfLite{Add,Sub,Mul,Div}Params); NONE for any other op or without params.
 * The CPU kernels, the GPU support checks and the GPU lowering read it
 * here. */
TfLiteFusedActivation lg_kernel_binary_activation(int32_t builtin_code,
                                                  const void* builtin_data);

/* "NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT", "SIGMOID", or
 * "UNKNOWN". */
const char* lg_kernel_activation_name(TfLiteFusedActivation activation);

/* Clamps x to [min, max]; NaN stays NaN (both comparisons are false). */
static inline float lg_kernel_clamp_float(float x, float min, float max) {
  return x < min ? min : (x > max ? max : x);
}

/* Clamps x to [min, max] (saturating integer arithmetic). */
static inline int32_t lg_kernel_clamp_int(int32_t x, int32_t min, int32_t max) {
  return x < min ? min : (x > max ? max : x);
}

/* Whether the tensor's data is fixed for the interpreter's lifetime (a
 * constant of the model), so that Prepare may read it. */
static inline bool lg_kernel_is_constant(const TfLiteTensor* tensor) {
  return tensor->allocation_type == kTfLiteMmapRo ||
         tensor->allocation_type == kTfLitePersistentRo;
}

/* Makes `output` dynamic: its shape is set in Invoke, where ResizeTensor
 * gives it memory (TFLite's contract for outputs whose shape depends on
 * input values). Memory it had from an earlier plan is dropped (its owner
 * keeps it). */
static inline void lg_kernel_set_dynamic(TfLiteTensor* output) {
  if (output->allocation_type != kTfLiteDynamic) {
    output->allocation_type = kTfLiteDynamic;
    output->data.raw = NULL;
  }
}

/* ---- Registration ---------------------------------------------------------
 * Every builtin kernel is registered one of two ways; kernels.h declares
 * lg_register_<NAME> from the op manifest (ops/ops.def).
 *
 *   LG_KERNEL_REGISTRATION(TILE, lg_tile_init, lg_kernel_free_data,
 *                          lg_tile_prepare, lg_tile_invoke)
 *
 * A family kernel serving several ops (one Prepare and Invoke told apart
 * by per-node data, one malloc'd block) defines
 * <family>_init_variant(variant, name), <family>_prepare and
 * <family>_invoke, and registers each op with the value its Init records:
 *
 *   LG_KERNEL_FAMILY_REGISTRATION(MEAN, lg_reduce, LG_REDUCE_MEAN)
 */

/* The Free of kernels whose per-node data is one malloc'd block (NULL is
 * fine). */
void lg_kernel_free_data(TfLiteContext* context, void* data);

/* Defines const TfLiteRegistration* lg_register_<NAME>(void): builtin
 * LG_BUILTIN_<NAME>, version 1 (the resolver's range is the manifest's),
 * with the given callbacks (init and free may be NULL). */
#define LG_KERNEL_REGISTRATION(NAME, init_fn, free_fn, prepare_fn, invoke_fn) \
  const TfLiteRegistration* lg_register_##NAME(void) {                        \
    static const TfLiteRegistration registration = {                          \
        .init = (init_fn),                                                    \
        .free = (free_fn),                                                    \
        .prepare = (prepare_fn),                                              \
        .invoke = (invoke_fn),                                                \
        .builtin_code = LG_BUILTIN_##NAME,                                    \
        .version = 1,                                                         \
    };                                                                        \
    return &registration;                                                     \
  }

/* Defines the Init of NAME, which returns family##_init_variant(variant,
 * "NAME"), and lg_register_<NAME> with the family's Prepare and Invoke and
 * lg_kernel_free_data. */
#define LG_KERNEL_FAMILY_REGISTRATION(NAME, family, variant)              \
  static void* family##_init_##NAME(TfLiteContext* context,               \
                                    const char* buffer, size_t length) {  \
    (void)context;                                                        \
    (void)buffer;                                                         \
    (void)length;                                                         \
    return family##_init_variant((variant), #NAME);                       \
  }                                                                       \
  LG_KERNEL_REGISTRATION(NAME, family##_init_##NAME, lg_kernel_free_data, \
                         family##_prepare, family##_invoke)

#endif /* LITEGPU_RUNTIME_KERNELS_KERNEL_UTIL_H_ */
