/* litegpu's names for TFLite's asynchronous API
 * (tensorflow/lite/core/async/c/async_signature_runner.h). */
#ifndef LITEGPU_ASYNC_H_
#define LITEGPU_ASYNC_H_

/* The buffer type (kTfLiteBufferAttrKeyResourceTypeName) of host memory:
 * the TfLiteBackendBuffer's pointer is the address of the bytes. TFLite
 * defines no host type of its own; its Android type names
 * ("ahardware_buffer_blob") are not supported. */
#define LITEGPU_BUFFER_TYPE_HOST_MEMORY "host_memory"

#endif /* LITEGPU_ASYNC_H_ */
