/* MediaPipe's custom ops (include/litegpu/mediapipe_ops.h): their names,
 * the parameter structs their custom options hold, and the CPU kernels.
 * The GPU delegate reads the options through the same functions. */
#ifndef LITEGPU_RUNTIME_KERNELS_MEDIAPIPE_OPS_H_
#define LITEGPU_RUNTIME_KERNELS_MEDIAPIPE_OPS_H_

#include <stdbool.h>

#include "runtime/kernels/nn.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_MEDIAPIPE_TRANSPOSE_CONV_BIAS "Convolution2DTransposeBias"
#define LG_MEDIAPIPE_MAX_POOL_ARGMAX "MaxPoolingWithArgmax2D"
#define LG_MEDIAPIPE_MAX_UNPOOL "MaxUnpooling2D"
#define LG_MEDIAPIPE_LANDMARKS_TO_MATRIX "Landmarks2TransformMatrix"
#define LG_MEDIAPIPE_TRANSFORM_TENSOR_BILINEAR "TransformTensorBilinear"
#define LG_MEDIAPIPE_TRANSFORM_LANDMARKS "TransformLandmarks"

/* The custom options are the raw bytes of TFLite's params structs (as
 * MediaPipe writes them): padding, stride_w, stride_h for the transposed
 * convolution; padding, stride_w, stride_h, filter_w, filter_h, activation
 * for the two pooling ops (little-endian int32 each). False when the
 * options are shorter, the padding is neither SAME nor VALID, or a stride
 * or filter size is below 1. */
bool lg_mediapipe_transpose_conv_params(const TfLiteNode* node,
                                        TfLiteTransposeConvParams* params);
bool lg_mediapipe_pool_params(const TfLiteNode* node, TfLitePoolParams* params);

/* MediaPipe's output size of the transposed convolution along one dim:
 * stride * (in - 1) + filter - pad_total, with pad_total =
 * max(0, filter - (in - 1) % stride - 1) for SAME and 0 for VALID; the
 * padding before the first element is pad_total / 2. */
int lg_mediapipe_transpose_conv_out(TfLitePadding padding, int in, int filter,
                                    int stride);

/* Convolution2DTransposeBias's geometry from its options and tensors
 * (input, weights [O, kh, kw, I], bias [O], all FLOAT32 4-D but the bias),
 * with MediaPipe's output size and padding; reports and fails otherwise. */
TfLiteStatus lg_mediapipe_transpose_conv_geometry(TfLiteContext* context,
                                                  const TfLiteNode* node,
                                                  lg_conv_geometry* g);

/* The kernels: the transposed convolution lives in transpose_conv.c. */
const TfLiteRegistration* lg_register_mediapipe_transpose_conv_bias(void);
const TfLiteRegistration* lg_register_mediapipe_max_pool_argmax(void);
const TfLiteRegistration* lg_register_mediapipe_max_unpool(void);
/* The landmark ops, version 2 (mediapipe_landmarks.c; CPU only). */
const TfLiteRegistration* lg_register_mediapipe_landmarks_to_matrix(void);
const TfLiteRegistration* lg_register_mediapipe_transform_tensor_bilinear(void);
const TfLiteRegistration* lg_register_mediapipe_transform_landmarks(void);

#endif /* LITEGPU_RUNTIME_KERNELS_MEDIAPIPE_OPS_H_ */
