/* The kernel test kit: run one operator on given input tensors and read its
 * outputs, without writing a model file. It is how an operator is tested
 * against a reference (TFLite's custom-operator guide: "test your operator
 * against a reference implementation"): set up the op and its tensors,
 * invoke, compare the outputs with the values the reference gives.
 *
 * The kit runs the operator the way a model would: it writes a one-node
 * model in memory (the operator's inputs, in the order added, as the
 * model's inputs or as constant tensors; its outputs as the model's
 * outputs), creates a litegpu interpreter on it with the operator
 * registered, allocates, copies the input values in and invokes. So the
 * kernel's Init, Prepare (with its output resizes) and Invoke run through
 * the same interpreter, context and opaque API as in a real model, and
 * what it reports through the context lands in litegpu_kernel_test_error.
 *
 *   litegpu_kernel_test* t =
 *       litegpu_kernel_test_create_operator(AtanOperator(), NULL, 0);
 *   const int32_t dims[] = {1, 3};
 *   const float x[] = {-1.0f, 0.0f, 1.0f};
 *   litegpu_kernel_test_tensor in = {.type = kTfLiteFloat32, .dims = dims,
 *                                    .num_dims = 2, .data = x,
 *                                    .bytes = sizeof(x)};
 *   litegpu_kernel_test_tensor out = {.type = kTfLiteFloat32, .dims = dims,
 *                                     .num_dims = 2};
 *   litegpu_kernel_test_add_input(t, &in);
 *   litegpu_kernel_test_add_output(t, &out);
 *   if (litegpu_kernel_test_invoke(t) != kTfLiteOk)
 *     puts(litegpu_kernel_test_error(t));
 *   const float* y = (const float*)TfLiteTensorData(
 *       litegpu_kernel_test_output(t, 0));
 *   litegpu_kernel_test_delete(t);
 *
 * The first invoke builds the model and the interpreter; inputs and outputs
 * cannot be added after it. Later invokes run again on the values set with
 * litegpu_kernel_test_set_input. Errors (a bad argument, a kernel whose
 * Prepare or Invoke fails) return kTfLiteError, -1 or NULL with the reason
 * in litegpu_kernel_test_error. Not thread safe: one kit per thread.
 */
#ifndef LITEGPU_KERNEL_TEST_H_
#define LITEGPU_KERNEL_TEST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct litegpu_kernel_test litegpu_kernel_test;

/* One tensor of the operator. */
typedef struct litegpu_kernel_test_tensor {
  TfLiteType type;
  const int32_t* dims; /* num_dims sizes; an output's are what the model
                          declares (Prepare may resize it) */
  int num_dims;
  /* Inputs: the values (bytes = element count x element size; for
   * kTfLiteString, TFLite's string buffer layout), copied by the kit.
   * Ignored for outputs. */
  const void* data;
  size_t bytes;
  /* Inputs: written into the model as a constant tensor (weights, a
   * shape), as a converter writes them, instead of a model input. */
  bool constant;
  /* Per-tensor quantization: scale > 0 sets scale and zero point. */
  float scale;
  int32_t zero_point;
} litegpu_kernel_test_tensor;

/* An operator made with TfLiteOperatorCreate (or its former name,
 * TfLiteRegistrationExternalCreate): a custom op (builtin code
 * kTfLiteBuiltinCustom) gets `options`/`options_size` as its custom options
 * (NULL/0: none); an operator registered for a builtin code gets `options`
 * as that builtin's TfLite*Params struct (builtin_op_data.h; NULL: the
 * schema defaults; options_size is not read). The node carries the
 * operator's version. The operator must outlive the kit. NULL only when
 * `op` is NULL or memory runs out. */
TFL_CAPI_EXPORT litegpu_kernel_test* litegpu_kernel_test_create_operator(
    const TfLiteOperator* op, const void* options, size_t options_size);

/* litegpu's own kernel for a builtin at `version`, with `params` its
 * TfLite*Params struct (NULL: the schema defaults): to test an operator
 * against the builtin it replaces, or to see how litegpu computes one. NULL
 * only when memory runs out. */
TFL_CAPI_EXPORT litegpu_kernel_test* litegpu_kernel_test_create_builtin(
    int32_t builtin_code, int version, const void* params);

/* Adds the next input (or output); returns its position among the inputs
 * (outputs), or -1 with the reason. */
TFL_CAPI_EXPORT int litegpu_kernel_test_add_input(
    litegpu_kernel_test* test, const litegpu_kernel_test_tensor* tensor);
TFL_CAPI_EXPORT int litegpu_kernel_test_add_output(
    litegpu_kernel_test* test, const litegpu_kernel_test_tensor* tensor);

/* Replaces a non-constant input's values before the next invoke (`bytes`
 * must equal the input's size). */
TFL_CAPI_EXPORT TfLiteStatus litegpu_kernel_test_set_input(
    litegpu_kernel_test* test, int input, const void* data, size_t bytes);

/* Interpreter threads for the kernel (default 1); before the first
 * invoke. */
TFL_CAPI_EXPORT TfLiteStatus
litegpu_kernel_test_set_num_threads(litegpu_kernel_test* test, int threads);

/* Builds the model and interpreter on the first call, copies the inputs in
 * and invokes. */
TFL_CAPI_EXPORT TfLiteStatus
litegpu_kernel_test_invoke(litegpu_kernel_test* test);

/* Output `output` after a successful invoke (its shape as Prepare left it,
 * read with TfLiteTensorNumDims / TfLiteTensorDim / TfLiteTensorData);
 * NULL before one or for a bad index. Valid until the next invoke or the
 * kit's deletion. */
TFL_CAPI_EXPORT const TfLiteTensor* litegpu_kernel_test_output(
    const litegpu_kernel_test* test, int output);

/* Every message since the last successful invoke began (the kit's own and
 * those the interpreter and the kernel reported), one per line; "" when
 * none. */
TFL_CAPI_EXPORT const char* litegpu_kernel_test_error(
    const litegpu_kernel_test* test);

/* NULL is a no-op. */
TFL_CAPI_EXPORT void litegpu_kernel_test_delete(litegpu_kernel_test* test);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_KERNEL_TEST_H_ */
