/* TFLite's GPU delegate C API (tensorflow/lite/delegates/gpu/delegate.h):
 * create and delete; the options struct and its defaults are in
 * delegate_options.h, which this header includes, as TFLite's does.
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
#include "tensorflow/lite/delegates/gpu/delegate_options.h"

#ifdef __cplusplus
extern "C" {
#endif

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
