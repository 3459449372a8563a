/* A delegated partition as a standalone .tflite (docs/service.md): what
 * the service delegate sends the service to prepare.
 *
 * The nodes are written with the model writer (runtime/writer) in plan
 * order, with their builtin params or custom options, versions and
 * tensors (type, shape, affine quantization, name). Tensors the nodes
 * read that nothing in the partition produces and that hold constant data
 * (kTfLiteMmapRo, kTfLitePersistentRo: weights, folded DEQUANTIZE outputs)
 * become buffers; the other such tensors become the model's inputs, in the
 * order given; the partition's outputs become its outputs.
 *
 * lg_partition_model_supports says whether one node can be written and run
 * this way (the service delegate's node check): no string, resource or
 * variant tensors, no variable or sparse tensors, no intermediates, no
 * dynamic tensors, and the writer accepts its params.
 *
 *   lg_partition_model pm;
 *   if (lg_partition_model_write(context, params, &pm, err, n) == 0) {
 *     ... send pm.data / pm.size, feed pm.inputs, read pm.outputs ...
 *     lg_partition_model_free(&pm);
 *   }
 *
 * Must run while node lookups are allowed (a delegate's Prepare or a
 * delegate kernel's Init). Thread safety: none needed beyond the context's.
 */
#ifndef LITEGPU_DELEGATES_SERVICE_PARTITION_MODEL_H_
#define LITEGPU_DELEGATES_SERVICE_PARTITION_MODEL_H_

#include <stdbool.h>
#include <stddef.h>

#include "tensorflow/lite/c/common.h"

typedef struct lg_partition_model {
  void* data; /* the .tflite, malloc'd */
  size_t size;
  int num_inputs; /* main-graph tensor indices of the model's inputs */
  int* inputs;
  int num_outputs;
  int* outputs;
} lg_partition_model;

/* Writes the partition `params` describes. 0, or -1 with the reason. */
int lg_partition_model_write(TfLiteContext* context,
                             const TfLiteDelegateParams* params,
                             lg_partition_model* out, char* error,
                             size_t error_size);

void lg_partition_model_free(lg_partition_model* model);

/* Whether the node can travel in a partition model; false with the
 * reason (without the op name). */
bool lg_partition_model_supports(TfLiteContext* context, const TfLiteNode* node,
                                 const TfLiteRegistration* registration,
                                 char* reason, size_t reason_size);

#endif /* LITEGPU_DELEGATES_SERVICE_PARTITION_MODEL_H_ */
