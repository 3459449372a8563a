/* litegpu extension: MediaPipe's three custom ops on the CPU.
 *
 * MediaPipe's models (selfie segmentation, hand detectors) use custom ops
 * that MediaPipe registers with its own op resolver; TFLite's
 * BuiltinOpResolver has none of them, and neither has litegpu's by
 * default. This call registers litegpu's kernels for them on the options,
 * as MediaPipe's resolver would (litegpu's tools, benchmark_model,
 * litegpu_run and inspect, always do):
 *   Convolution2DTransposeBias  input, weights [O, kh, kw, I], bias [O]:
 *                               a transposed convolution plus bias, with
 *                               MediaPipe's output size (custom options: a
 *                               TfLiteTransposeConvParams, 12 bytes)
 *   MaxPoolingWithArgmax2D      MAX_POOL_2D that also outputs each
 *                               maximum's position in its window as a
 *                               float (y * filter_w + x + 0.1)
 *   MaxUnpooling2D              values and those positions back into an
 *                               output [N, H * filter_h, W * filter_w, C],
 *                               zeros elsewhere (custom options of both: a
 *                               TfLitePoolParams, 24 bytes)
 * Version 1 of each. The GPU delegate claims the same three ops whether
 * they are registered or not (an unresolved custom op is a placeholder a
 * delegate may take).
 *
 *   TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
 *   litegpu_add_mediapipe_ops(o);
 */
#ifndef LITEGPU_MEDIAPIPE_OPS_H_
#define LITEGPU_MEDIAPIPE_OPS_H_

#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* kTfLiteError when options is NULL. */
TFL_CAPI_EXPORT TfLiteStatus
litegpu_add_mediapipe_ops(TfLiteInterpreterOptions* options);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_MEDIAPIPE_OPS_H_ */
