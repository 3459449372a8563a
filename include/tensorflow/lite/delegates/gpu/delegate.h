/* TFLite's GPU delegate C API (tensorflow/lite/delegates/gpu/delegate.h and
 * delegate_options.h): the options struct with TFLite's fields in TFLite's
 * order, their defaults, and create/delete.
 *
 * litegpu runs this delegate on OpenCL when a device has it, else on Vulkan
 * (LITEGPU_GPU_BACKEND_AUTO; include/litegpu/gpu_delegate.h has the backend
 * choice). When neither can be used (no driver, or not even the API's
 * loader library: liblitegpu opens both at run time), TfLiteGpuDelegateV2Create
 * returns NULL after printing both reasons to stderr; callers must check for
 * NULL (TFLite's own Create never returns NULL on Android).
 *
 *   TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
 *   o.max_delegated_partitions = 4;
 *   TfLiteDelegate* d = TfLiteGpuDelegateV2Create(&o);
 *   if (d) TfLiteInterpreterOptionsAddDelegate(options, d);
 *   ... after the interpreter is deleted: TfLiteGpuDelegateV2Delete(d);
 */
#ifndef TENSORFLOW_LITE_DELEGATES_GPU_DELEGATE_H_
#define TENSORFLOW_LITE_DELEGATES_GPU_DELEGATE_H_

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

/* NULL options: the defaults. Returns NULL (with a message on stderr) when
 * neither an OpenCL nor a Vulkan device can be used. */
TFL_CAPI_EXPORT TfLiteDelegate* TfLiteGpuDelegateV2Create(
    const TfLiteGpuDelegateOptionsV2* options);

/* NULL is a no-op. Delete the interpreter first. */
TFL_CAPI_EXPORT void TfLiteGpuDelegateV2Delete(TfLiteDelegate* delegate);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_DELEGATES_GPU_DELEGATE_H_ */
