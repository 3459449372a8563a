/* litegpu: constants of TFLite's asynchronous API. */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_CONSTANTS_H_
#define TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_CONSTANTS_H_

#include "tensorflow/lite/c/c_api_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "no_sync_obj": the synchronization type of a tensor without a sync
 * object. An input of this type is ready when InvokeAsync is called; an
 * output is ready when Wait returns. The only type litegpu supports. */
TFL_CAPI_EXPORT extern const char kTfLiteSyncTypeNoSyncObj[];

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_CONSTANTS_H_ */
