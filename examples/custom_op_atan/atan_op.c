/* The Atan custom op: y = atan(x) elementwise on float32 tensors, written
 * against TFLite's C API headers only (see atan_op.h and
 * docs/custom_ops.md, whose snippets are taken from this file).
 *
 * Built as a custom-op library (CMake target litegpu_example_atan, a MODULE
 * linked against no litegpu library):
 *
 *   benchmark_model --graph=atan.tflite \
 *       --custom_op_library=build/release/liblitegpu_example_atan.so
 *
 * tests/unit/test_custom_op_atan.c compiles this file too.
 */
#include "examples/custom_op_atan/atan_op.h"

#include <math.h>
#include <stddef.h>

#include "litegpu/custom_op_library.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/c/common.h"

/* ---- The kernel --------------------------------------------------------- */

/* One float32 input, one output of the input's shape. */
static TfLiteStatus AtanPrepare(TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueNodeNumInputs(node), 1);
  TF_LITE_OPAQUE_ENSURE_EQ(context, TfLiteOpaqueNodeNumOutputs(node), 1);
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  TF_LITE_OPAQUE_ENSURE(context, input != NULL && output != NULL);
  TF_LITE_OPAQUE_ENSURE_TYPES_EQ(context, TfLiteOpaqueTensorType(input),
                                 kTfLiteFloat32);
  TF_LITE_OPAQUE_ENSURE_TYPES_EQ(context, TfLiteOpaqueTensorType(output),
                                 kTfLiteFloat32);

  const int num_dims = TfLiteOpaqueTensorNumDimensions(input);
  TF_LITE_OPAQUE_ENSURE(context, num_dims >= 0);
  TfLiteIntArray* output_size = TfLiteIntArrayCreate(num_dims);
  if (output_size == NULL) return kTfLiteError;
  for (int i = 0; i < num_dims; ++i) {
    output_size->data[i] = TfLiteOpaqueTensorDim(input, i);
  }
  /* The context takes output_size over, also when resizing fails. */
  return TfLiteOpaqueContextResizeTensor(context, output, output_size);
}

static TfLiteStatus AtanEval(TfLiteOpaqueContext* context,
                             TfLiteOpaqueNode* node) {
  const TfLiteOpaqueTensor* input = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* output = TfLiteOpaqueNodeGetOutput(context, node, 0);
  const float* x = (const float*)TfLiteOpaqueTensorData(input);
  float* y = (float*)TfLiteOpaqueTensorData(output);
  const size_t count = TfLiteOpaqueTensorByteSize(input) / sizeof(float);
  TF_LITE_OPAQUE_ENSURE(context, count == 0 || (x != NULL && y != NULL));
  for (size_t i = 0; i < count; ++i) y[i] = atanf(x[i]);
  return kTfLiteOk;
}

/* ---- Registration, TfLiteOperator spelling (current TFLite) ------------- */

TfLiteOperator* AtanOperator(void) {
  static TfLiteOperator* atan_op = NULL; /* made once, never deleted */
  if (atan_op == NULL) {
    atan_op = TfLiteOperatorCreate(kTfLiteBuiltinCustom, ATAN_OP_NAME,
                                   /*version=*/1);
    if (atan_op == NULL) return NULL;
    TfLiteOperatorSetPrepare(atan_op, AtanPrepare);
    TfLiteOperatorSetInvoke(atan_op, AtanEval);
  }
  return atan_op;
}

/* ---- Registration, TfLiteRegistrationExternal spelling (2.13 to 2.15) --- */

TfLiteRegistrationExternal* AtanOpRegistrationExternal(void) {
  static TfLiteRegistrationExternal* atan_op = NULL;
  if (atan_op == NULL) {
    atan_op = TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom,
                                               ATAN_OP_NAME, /*version=*/1);
    if (atan_op == NULL) return NULL;
    TfLiteRegistrationExternalSetPrepare(atan_op, AtanPrepare);
    TfLiteRegistrationExternalSetInvoke(atan_op, AtanEval);
  }
  return atan_op;
}

/* A TfLiteRegistration with only registration_external set: the runtime
 * calls the external operator's callbacks. */
const TfLiteRegistration* AtanOpRegistration(void) {
  static TfLiteRegistration registration;
  if (registration.registration_external == NULL) {
    registration.registration_external = AtanOpRegistrationExternal();
  }
  return &registration;
}

/* ---- The custom-op library's entry point -------------------------------- */

/* Called by the tools (--custom_op_library) on the options of every
 * interpreter they create. */
TfLiteStatus litegpu_register_custom_ops(TfLiteInterpreterOptions* options) {
  TfLiteOperator* atan_op = AtanOperator();
  if (atan_op == NULL) return kTfLiteError;
  TfLiteInterpreterOptionsAddOperator(options, atan_op);
  return kTfLiteOk;
}
