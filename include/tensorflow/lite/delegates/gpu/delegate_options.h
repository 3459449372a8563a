/* TFLite's GPU delegate options (tensorflow/lite/delegates/gpu/
 * delegate_options.h): the struct with TFLite's fields in TFLite's order,
 * the enums its fields take, and TfLiteGpuDelegateOptionsV2Default.
 * delegate.h includes this header; code that only fills options may
 * include it alone.
 *
 * How litegpu honours the fields:
 *   is_precision_loss_allowed, inference_priority1..3  float16 when the
 *       device has it and precision loss is allowed (-1: the first
 *       priority that is not AUTO decides, MAX_PRECISION forbidding it);
 *   inference_preference  SUSTAINED_SPEED: Prepare times a few work-group
 *       sizes on the device for each dispatch that leaves the size open
 *       and keeps the fastest (kept in serialization_dir with the
 *       programs when serialization is on, so a later delegate skips the
 *       timing; litegpu_gpu_delegate_stats counts both);
 *       FAST_SINGLE_ANSWER and BALANCED: the backend's own sizes, no
 *       timing;
 *   experimental_flags  ENABLE_QUANT: quantized tensors (per-tensor
 *       INT8/UINT8) are claimed and computed on their float grid; CL_ONLY:
 * OpenCL only (never Vulkan); GL_ONLY: refused, litegpu has no OpenGL ES
 * backend (creation fails saying so); ENABLE_SERIALIZATION: see
 * serialization_dir; max_delegated_partitions  the N largest partitions (<= 0
 * is 1); serialization_dir, model_token  compiled programs (OpenCL binaries,
 *       Vulkan pipeline caches) are kept in serialization_dir only when
 *       ENABLE_SERIALIZATION is set and both strings are non-empty, as in
 *       TFLite; entries are keyed by model_token (with the device, the
 *       driver and the program), so two models never share or overwrite
 *       each other's entries.
 */
#ifndef TENSORFLOW_LITE_DELEGATES_GPU_DELEGATE_OPTIONS_H_
#define TENSORFLOW_LITE_DELEGATES_GPU_DELEGATE_OPTIONS_H_

#include <stdint.h>

#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TFLITE_GPU_INFERENCE_PREFERENCE_FAST_SINGLE_ANSWER = 0,
  TFLITE_GPU_INFERENCE_PREFERENCE_SUSTAINED_SPEED = 1,
  TFLITE_GPU_INFERENCE_PREFERENCE_BALANCED = 2,
} TfLiteGpuInferenceUsage;

typedef enum {
  TFLITE_GPU_INFERENCE_PRIORITY_AUTO = 0,
  TFLITE_GPU_INFERENCE_PRIORITY_MAX_PRECISION = 1,
  TFLITE_GPU_INFERENCE_PRIORITY_MIN_LATENCY = 2,
  TFLITE_GPU_INFERENCE_PRIORITY_MIN_MEMORY_USAGE = 3,
} TfLiteGpuInferencePriority;

enum TfLiteGpuExperimentalFlags {
  TFLITE_GPU_EXPERIMENTAL_FLAGS_NONE = 0,
  TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT = 1 << 0,
  TFLITE_GPU_EXPERIMENTAL_FLAGS_CL_ONLY = 1 << 1,
  TFLITE_GPU_EXPERIMENTAL_FLAGS_GL_ONLY = 1 << 2,
  TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_SERIALIZATION = 1 << 3,
};

typedef struct {
  /* -1: decide from the priorities; 0: max precision; 1: allow loss. */
  int32_t is_precision_loss_allowed;
  int32_t inference_preference; /* TfLiteGpuInferenceUsage */
  int32_t inference_priority1;  /* TfLiteGpuInferencePriority */
  int32_t inference_priority2;
  int32_t inference_priority3;
  int64_t experimental_flags;       /* TfLiteGpuExperimentalFlags bits */
  int32_t max_delegated_partitions; /* <= 0 is taken as 1 */
  const char* serialization_dir;
  const char* model_token;
} TfLiteGpuDelegateOptionsV2;

/* is_precision_loss_allowed -1, FAST_SINGLE_ANSWER, priorities
 * MAX_PRECISION/AUTO/AUTO, ENABLE_QUANT, 1 partition, no serialization. */
TFL_CAPI_EXPORT TfLiteGpuDelegateOptionsV2
TfLiteGpuDelegateOptionsV2Default(void);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_DELEGATES_GPU_DELEGATE_OPTIONS_H_ */
