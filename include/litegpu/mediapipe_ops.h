/* litegpu extension: MediaPipe's custom ops on the CPU.
 *
 * MediaPipe's models (selfie segmentation, hand detectors, face landmarks
 * with attention) use custom ops that MediaPipe registers with its own op
 * resolver; TFLite's BuiltinOpResolver has none of them, and neither has
 * litegpu's by default. This call registers litegpu's kernels for them on
 * the options, as MediaPipe's resolver would (litegpu's tools,
 * benchmark_model, litegpu_run and inspect, always do):
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
 * And the three landmark ops of face_landmark_with_attention, version 2 of
 * each (FlexBuffers custom options; CPU only: the GPU delegate leaves them
 * to these kernels):
 *   Landmarks2TransformMatrix  landmarks [1, N, 3] -> the [1, 4, 4] matrix
 *                              that maps an output_width x output_height
 *                              crop to the landmarks' frame: rotated by
 *                              the angle from left_rotation_idx to
 *                              right_rotation_idx (less
 *                              target_rotation_radians), centred and sized
 *                              on the subset_idxs landmarks' box, scaled by
 *                              scale_x, scale_y
 *   TransformTensorBilinear    a map [1, H, W, C] and that matrix ->
 *                              [1, output_height, output_width, C], sampled
 *                              bilinearly at pixel centres (0 outside)
 *   TransformLandmarks         landmarks [1, N, 2 or 3] and a matrix ->
 *                              (x, y) transformed, z kept
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
