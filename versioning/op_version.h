/* Op versions from op signatures.
 *
 * The version a builtin operator needs follows from what it computes: the
 * types of its tensors, some of their shapes, whether the weights are
 * constant, sparse or per-channel quantized, and a few of its parameters
 * (e.g. DEPTHWISE_CONV_2D with a dilation factor other than 1 needs version
 * 2). lg_op_version applies TFLite's rules (GetBuiltinOperatorVersion,
 * tensorflow/lite/tools/versioning/op_version.cc and its LiteRT successor
 * tflite/converter/tools/versioning/op_version.cc) to an lg_op_signature,
 * for every op litegpu's kernels cover. The model writer uses it to stamp
 * versions (lg_model_writer_add_operator with version 0 and auto versions on),
 * tools/op_versions compares it with what TensorFlow's converter recorded.
 *
 *   lg_op_signature sig;
 *   if (lg_op_signature_from_node(context, node, kTfLiteBuiltinConv2d, &sig)
 *       == kTfLiteOk) {
 *     int needed = lg_op_version(&sig);       // 0: no rules for this op
 *     lg_op_signature_release(&sig);
 *   }
 *
 * A signature borrows: tensor dims and quantization scales point into the
 * tensors it was built from, and `params` points at the node's builtin_data,
 * except that a signature built from an lg_model owns its parsed params
 * (freed by lg_op_signature_release). It is valid while its source lives.
 * Every function here is thread safe (no shared state).
 */
#ifndef LITEGPU_VERSIONING_OP_VERSION_H_
#define LITEGPU_VERSIONING_OP_VERSION_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/report.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/c/common.h"

/* Tensors a signature describes per side; the rules read at most the first
 * four inputs and two outputs. num_inputs/num_outputs keep the true counts. */
#define LG_OP_SIGNATURE_MAX_TENSORS 8

/* What the version rules need to know of one input or output tensor. */
typedef struct lg_op_tensor_spec {
  TfLiteType type;     /* kTfLiteNoType for an omitted optional tensor */
  const int32_t* dims; /* num_dims entries (borrowed); NULL when 0 */
  int num_dims;
  bool is_const;         /* holds constant data in the model */
  bool is_shape_dynamic; /* its shape signature has an unknown (-1) dim */
  /* Quantization parameters are present (in a model: a quantization
   * table, even an empty one, as TensorFlow's converter writes for float
   * tensors; in an interpreter: a quantization type other than none). */
  bool has_quantization;
  const float* scales; /* num_scales entries (borrowed); NULL when 0 */
  int num_scales;
  int32_t quantized_dimension;
  bool is_sparse; /* carries sparsity parameters */
} lg_op_tensor_spec;

typedef struct lg_op_signature {
  int32_t builtin_code; /* kTfLiteBuiltin... */
  lg_op_tensor_spec inputs[LG_OP_SIGNATURE_MAX_TENSORS];
  int num_inputs; /* may exceed LG_OP_SIGNATURE_MAX_TENSORS */
  lg_op_tensor_spec outputs[LG_OP_SIGNATURE_MAX_TENSORS];
  int num_outputs;
  /* The op's TfLite*Params struct (builtin_op_data.h), or NULL for the
   * schema defaults (every rule treats NULL as "all fields default"). */
  const void* params;
  void* owned_params; /* freed by lg_op_signature_release */
} lg_op_signature;

/* The version the op of `sig` needs: TFLite's rules, checked top-down, the
 * first match wins, 1 when none matches. 0 when litegpu has no rules for
 * the op (an op outside its kernel list, CUSTOM, or a code out of range).
 * A tensor past the described ones reads as kTfLiteNoType with no dims
 * (where TFLite's rules would throw on a missing tensor). */
int lg_op_version(const lg_op_signature* sig);

/* Whether lg_op_version has rules for `builtin_code`. */
bool lg_op_version_has_rules(int32_t builtin_code);

/* Describes node `node` of an interpreter (its tensors in `context`) as an
 * op of `builtin_code`. Constant means kTfLiteMmapRo or kTfLitePersistentRo.
 * kTfLiteError for a tensor index out of the context's range. */
TfLiteStatus lg_op_signature_from_node(const TfLiteContext* context,
                                       const TfLiteNode* node,
                                       int32_t builtin_code,
                                       lg_op_signature* sig);

/* Describes operator `op_index` of subgraph `subgraph` of a parsed model:
 * its opcode's builtin code, its tensors, and its builtin options parsed
 * into a params struct that the signature owns (schema defaults for absent
 * fields, as litegpu's reader gives kernels). Errors (index out of range,
 * bad options) are reported through `reporter`. Release the signature
 * afterwards, also on failure. */
TfLiteStatus lg_op_signature_from_model(const lg_model* model, int32_t subgraph,
                                        int32_t op_index,
                                        const lg_reporter* reporter,
                                        lg_op_signature* sig);

/* Frees what the signature owns and zeroes it. NULL is a no-op. */
void lg_op_signature_release(lg_op_signature* sig);

#endif /* LITEGPU_VERSIONING_OP_VERSION_H_ */
