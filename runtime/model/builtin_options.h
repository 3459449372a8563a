/* Builtin operator options: one table of facts, read by the model reader and
 * written by the model writer.
 *
 * For each builtin operator that has options, a descriptor names the schema's
 * BuiltinOptions union member (its index), the TfLite*Params struct that the
 * runtime hands to kernels (builtin_op_data.h), and for each schema field its
 * id, its schema kind, its default and where it lives in the params struct.
 * The reader (lg_builtin_options_parse) and the writer (model_writer.c) both
 * walk these descriptors, so a field is described exactly once.
 */
#ifndef LITEGPU_RUNTIME_MODEL_BUILTIN_OPTIONS_H_
#define LITEGPU_RUNTIME_MODEL_BUILTIN_OPTIONS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/report.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/c/c_api_types.h"

/* How a schema field is stored and converted into the params struct. */
typedef enum lg_option_kind {
  LG_OPTION_BOOL,       /* schema bool (1 byte)      -> bool */
  LG_OPTION_INT32,      /* schema int (4 bytes)      -> int */
  LG_OPTION_FLOAT,      /* schema float (4 bytes)    -> float */
  LG_OPTION_PADDING,    /* schema Padding (byte)     -> TfLitePadding */
  LG_OPTION_ACTIVATION, /* ActivationFunctionType    -> TfLiteFusedActivation */
  LG_OPTION_TENSOR_TYPE, /* schema TensorType (byte)  -> TfLiteType */
  LG_OPTION_MIRROR_PAD,  /* MirrorPadMode (byte)      -> TfLiteMirrorPaddingMode
                          */
  LG_OPTION_FC_WEIGHTS_FORMAT, /* byte -> TfLiteFullyConnectedWeightsFormat */
  LG_OPTION_LSTM_KERNEL_TYPE,  /* byte -> TfLiteLSTMKernelType */
  LG_OPTION_COMBINER,          /* CombinerType (byte) -> TfLiteCombinerType */
  /* schema [int] -> int array[capacity] at `offset`, count at
   * `count_offset`; more elements than capacity is an error. */
  LG_OPTION_INT32_VECTOR,
  /* schema string -> const char* into the model ("" when absent); the
   * writer omits empty strings. */
  LG_OPTION_STRING,
  /* schema [float] -> const float* into the model at `offset` (NULL when
   * absent), element count at `count_offset` (TFLite's layout, e.g.
   * TfLiteBucketizeParams); kernels read the elements with memcpy. */
  LG_OPTION_FLOAT_VECTOR,
  /* schema long (8 bytes) -> int: its low 32 bits, as TFLite's parser
   * stores RandomOptions' seeds into TfLiteRandomParams' ints. */
  LG_OPTION_INT64,
  LG_OPTION_RNG_ALGORITHM, /* RngAlgorithm (byte) -> TfLiteRngAlgorithm */
  /* schema [long] -> int64_t array[capacity] at `offset`, no count member
   * (TFLite's StableHLO params: the op's rank says how many are used);
   * absent elements are the field's default (0, or 1 for the window
   * attributes of StablehloReduceWindowOptions, as LiteRT fills them), more
   * elements than capacity is an error. The writer writes all `capacity`
   * elements, defaults included. */
  LG_OPTION_INT64_ARRAY,
  /* schema [ubyte] -> const uint8_t* into the model at `offset` (NULL when
   * absent), byte count (size_t) at `count_offset`. */
  LG_OPTION_BYTES,
  /* schema [long] -> int64_t array[capacity] at `offset`, element count
   * (int) at `count_offset` (TFLite's StableHLO gather and scatter params);
   * more elements than capacity is an error. The writer writes the
   * `count` elements (none: the field is omitted). */
  LG_OPTION_INT64_VECTOR,
  /* schema long (8 bytes) -> int64_t, all 64 bits. */
  LG_OPTION_LONG,
  /* LSHProjectionType (byte) -> TfLiteLSHProjectionType */
  LG_OPTION_LSH_PROJECTION_TYPE,
} lg_option_kind;

typedef struct lg_option_field {
  uint16_t field_id; /* schema field id (vtable slot) */
  lg_option_kind kind;
  size_t offset; /* of the value in the params struct */
  /* Schema default, as the params value it converts to (e.g. 1 for dilation,
   * 1 (true) for pot_scale_int16, kTfLitePaddingSame for padding 0). */
  double default_value;
  size_t count_offset; /* the vector kinds with a count member */
  int capacity;        /* the int32 and int64 vector and array kinds */
  const char* name;    /* schema field name, for messages */
} lg_option_field;

typedef struct lg_builtin_options_desc {
  int32_t builtin_code; /* kTfLiteBuiltin... */
  /* BuiltinOptions union index, or BuiltinOptions2's when in_options_2 */
  uint8_t options_type;
  const char* options_name; /* e.g. "Conv2DOptions" */
  size_t params_size;       /* sizeof the TfLite*Params struct */
  const lg_option_field* fields;
  int num_fields;
  /* The table is the operator's builtin_options_2 (union BuiltinOptions2,
   * the StableHLO-era options, schema fields 11 and 12) rather than
   * builtin_options. */
  bool in_options_2;
} lg_builtin_options_desc;

/* The descriptor of `builtin_code`, or NULL when the op has no params
 * struct in litegpu. */
const lg_builtin_options_desc* lg_builtin_options_find(int32_t builtin_code);

/* Allocates (calloc) and fills the params struct of `op`, a node of builtin
 * `builtin_code`: schema defaults for absent fields (also when the whole
 * options table is absent). *params is NULL for ops without params. A table
 * of the wrong union type, an out-of-range enum value or a vector longer than
 * the struct holds is an error naming the op and the field. */
TfLiteStatus lg_builtin_options_parse(int32_t builtin_code,
                                      const lg_model_operator* op,
                                      const lg_reporter* reporter,
                                      void** params);

/* Fills `params` (params_size bytes) with the schema defaults of `desc`. */
void lg_builtin_options_set_defaults(const lg_builtin_options_desc* desc,
                                     void* params);

/* The schema name of a builtin op ("CONV_2D"), or "UNKNOWN". */
const char* lg_builtin_op_name(int32_t builtin_code);

#endif /* LITEGPU_RUNTIME_MODEL_BUILTIN_OPTIONS_H_ */
