/* Builtin operator options: the descriptor table and the reader that walks
 * it; see builtin_options.h.
 *
 * Field ids, kinds and defaults follow the schema's option tables (field N
 * sits at vtable byte 4 + 2N). Schema enums are converted to the runtime's
 * numbering: Padding SAME=0/VALID=1 becomes kTfLitePaddingSame/Valid,
 * MirrorPadMode REFLECT=0/SYMMETRIC=1 becomes kTfLiteMirrorPaddingReflect/
 * Symmetric, TensorType goes through lg_model_convert_tensor_type (so the
 * schema default FLOAT32 reads as kTfLiteFloat32, as TFLite converts it).
 *
 * Decision: when an op has no options table (union type NONE, or a type
 * without a table), litegpu fills the schema defaults, as FlatBuffers would
 * for absent fields of a present table. TFLite instead leaves its params
 * struct zeroed in that case, which gives e.g. dilation factors of 0 and
 * pot_scale_int16 false; a file never relies on that, because writers
 * always emit the table for ops that have one, and the defaults are what an
 * empty table means.
 */
#include "runtime/model/builtin_options.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/flatbuffer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* Enum-typed params fields are written as int. */
_Static_assert(sizeof(TfLitePadding) == sizeof(int), "enum size");
_Static_assert(sizeof(TfLiteFusedActivation) == sizeof(int), "enum size");
_Static_assert(sizeof(TfLiteType) == sizeof(int), "enum size");
_Static_assert(sizeof(TfLiteRngAlgorithm) == sizeof(int), "enum size");
_Static_assert(sizeof(TfLiteReduceWindowFunction) == sizeof(int), "enum size");
_Static_assert(sizeof(TfLiteMirrorPaddingMode) == sizeof(int), "enum size");
_Static_assert(sizeof(TfLiteFullyConnectedWeightsFormat) == sizeof(int),
               "enum size");

/* ---- Descriptors ---------------------------------------------------------*/

#define LG_FIELD(id_, kind_, type_, member_, default_, name_)               \
  {                                                                         \
    .field_id = (id_), .kind = (kind_), .offset = offsetof(type_, member_), \
    .default_value = (default_), .name = (name_)                            \
  }
/* An int array member and its count member; capacity from the array. */
#define LG_VECTOR(id_, type_, member_, count_, name_)              \
  {                                                                \
    .field_id = (id_), .kind = LG_OPTION_INT32_VECTOR,             \
    .offset = offsetof(type_, member_),                            \
    .count_offset = offsetof(type_, count_),                       \
    .capacity = (int)(sizeof(((type_*)0)->member_) / sizeof(int)), \
    .name = (name_)                                                \
  }
/* A float vector: a pointer member into the model and its count member. */
#define LG_FLOAT_VECTOR(id_, type_, member_, count_, name_)  \
  {                                                          \
    .field_id = (id_), .kind = LG_OPTION_FLOAT_VECTOR,       \
    .offset = offsetof(type_, member_),                      \
    .count_offset = offsetof(type_, count_), .name = (name_) \
  }
/* An int64_t array member without a count (TFLite's StableHLO params). */
#define LG_INT64_ARRAY(id_, type_, member_, name_)                     \
  {                                                                    \
    .field_id = (id_), .kind = LG_OPTION_INT64_ARRAY,                  \
    .offset = offsetof(type_, member_),                                \
    .capacity = (int)(sizeof(((type_*)0)->member_) / sizeof(int64_t)), \
    .name = (name_)                                                    \
  }
/* The same whose absent elements are `fill_` (LiteRT's 1 for reduce-window
 * attributes). */
#define LG_INT64_ARRAY_FILL(id_, type_, member_, fill_, name_)         \
  {                                                                    \
    .field_id = (id_), .kind = LG_OPTION_INT64_ARRAY,                  \
    .offset = offsetof(type_, member_), .default_value = (fill_),      \
    .capacity = (int)(sizeof(((type_*)0)->member_) / sizeof(int64_t)), \
    .name = (name_)                                                    \
  }
/* An int64_t array member and its int count member (TFLite's StableHLO
 * gather and scatter params). */
#define LG_INT64_VECTOR(id_, type_, member_, count_, name_)            \
  {                                                                    \
    .field_id = (id_), .kind = LG_OPTION_INT64_VECTOR,                 \
    .offset = offsetof(type_, member_),                                \
    .count_offset = offsetof(type_, count_),                           \
    .capacity = (int)(sizeof(((type_*)0)->member_) / sizeof(int64_t)), \
    .name = (name_)                                                    \
  }
/* A byte vector: a pointer member into the model and its size_t count. */
#define LG_BYTES(id_, type_, member_, count_, name_)         \
  {                                                          \
    .field_id = (id_), .kind = LG_OPTION_BYTES,              \
    .offset = offsetof(type_, member_),                      \
    .count_offset = offsetof(type_, count_), .name = (name_) \
  }
#define LG_NUM(array) ((int)(sizeof(array) / sizeof((array)[0])))

#define PAD LG_OPTION_PADDING
#define ACT LG_OPTION_ACTIVATION
#define I32 LG_OPTION_INT32
#define F32 LG_OPTION_FLOAT
#define BOOL LG_OPTION_BOOL
#define I64 LG_OPTION_INT64
#define TYPE LG_OPTION_TENSOR_TYPE

static const lg_option_field lg_conv_fields[] = {
    LG_FIELD(0, PAD, TfLiteConvParams, padding, kTfLitePaddingSame, "padding"),
    LG_FIELD(1, I32, TfLiteConvParams, stride_width, 0, "stride_w"),
    LG_FIELD(2, I32, TfLiteConvParams, stride_height, 0, "stride_h"),
    LG_FIELD(3, ACT, TfLiteConvParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(4, I32, TfLiteConvParams, dilation_width_factor, 1,
             "dilation_w_factor"),
    LG_FIELD(5, I32, TfLiteConvParams, dilation_height_factor, 1,
             "dilation_h_factor"),
    LG_FIELD(6, TYPE, TfLiteConvParams, quantized_bias_type, kTfLiteFloat32,
             "quantized_bias_type"),
};

static const lg_option_field lg_depthwise_fields[] = {
    LG_FIELD(0, PAD, TfLiteDepthwiseConvParams, padding, kTfLitePaddingSame,
             "padding"),
    LG_FIELD(1, I32, TfLiteDepthwiseConvParams, stride_width, 0, "stride_w"),
    LG_FIELD(2, I32, TfLiteDepthwiseConvParams, stride_height, 0, "stride_h"),
    LG_FIELD(3, I32, TfLiteDepthwiseConvParams, depth_multiplier, 0,
             "depth_multiplier"),
    LG_FIELD(4, ACT, TfLiteDepthwiseConvParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(5, I32, TfLiteDepthwiseConvParams, dilation_width_factor, 1,
             "dilation_w_factor"),
    LG_FIELD(6, I32, TfLiteDepthwiseConvParams, dilation_height_factor, 1,
             "dilation_h_factor"),
};

static const lg_option_field lg_pool_fields[] = {
    LG_FIELD(0, PAD, TfLitePoolParams, padding, kTfLitePaddingSame, "padding"),
    LG_FIELD(1, I32, TfLitePoolParams, stride_width, 0, "stride_w"),
    LG_FIELD(2, I32, TfLitePoolParams, stride_height, 0, "stride_h"),
    LG_FIELD(3, I32, TfLitePoolParams, filter_width, 0, "filter_width"),
    LG_FIELD(4, I32, TfLitePoolParams, filter_height, 0, "filter_height"),
    LG_FIELD(5, ACT, TfLitePoolParams, activation, kTfLiteActNone,
             "fused_activation_function"),
};

static const lg_option_field lg_fully_connected_fields[] = {
    LG_FIELD(0, ACT, TfLiteFullyConnectedParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(1, LG_OPTION_FC_WEIGHTS_FORMAT, TfLiteFullyConnectedParams,
             weights_format, kTfLiteFullyConnectedWeightsFormatDefault,
             "weights_format"),
    LG_FIELD(2, BOOL, TfLiteFullyConnectedParams, keep_num_dims, 0,
             "keep_num_dims"),
    LG_FIELD(3, BOOL, TfLiteFullyConnectedParams, asymmetric_quantize_inputs, 0,
             "asymmetric_quantize_inputs"),
    LG_FIELD(4, TYPE, TfLiteFullyConnectedParams, quantized_bias_type,
             kTfLiteFloat32, "quantized_bias_type"),
};

static const lg_option_field lg_add_fields[] = {
    LG_FIELD(0, ACT, TfLiteAddParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(1, BOOL, TfLiteAddParams, pot_scale_int16, 1, "pot_scale_int16"),
};

static const lg_option_field lg_sub_fields[] = {
    LG_FIELD(0, ACT, TfLiteSubParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(1, BOOL, TfLiteSubParams, pot_scale_int16, 1, "pot_scale_int16"),
};

static const lg_option_field lg_mul_fields[] = {
    LG_FIELD(0, ACT, TfLiteMulParams, activation, kTfLiteActNone,
             "fused_activation_function"),
};

static const lg_option_field lg_div_fields[] = {
    LG_FIELD(0, ACT, TfLiteDivParams, activation, kTfLiteActNone,
             "fused_activation_function"),
};

static const lg_option_field lg_softmax_fields[] = {
    LG_FIELD(0, F32, TfLiteSoftmaxParams, beta, 0.0, "beta"),
};

static const lg_option_field lg_reshape_fields[] = {
    LG_VECTOR(0, TfLiteReshapeParams, shape, num_dimensions, "new_shape"),
};

static const lg_option_field lg_concatenation_fields[] = {
    LG_FIELD(0, I32, TfLiteConcatenationParams, axis, 0, "axis"),
    LG_FIELD(1, ACT, TfLiteConcatenationParams, activation, kTfLiteActNone,
             "fused_activation_function"),
};

static const lg_option_field lg_reducer_fields[] = {
    LG_FIELD(0, BOOL, TfLiteReducerParams, keep_dims, 0, "keep_dims"),
};

/* Ids 0 and 1 are the deprecated new_height/new_width. */
static const lg_option_field lg_resize_bilinear_fields[] = {
    LG_FIELD(2, BOOL, TfLiteResizeBilinearParams, align_corners, 0,
             "align_corners"),
    LG_FIELD(3, BOOL, TfLiteResizeBilinearParams, half_pixel_centers, 0,
             "half_pixel_centers"),
};

static const lg_option_field lg_resize_nearest_fields[] = {
    LG_FIELD(0, BOOL, TfLiteResizeNearestNeighborParams, align_corners, 0,
             "align_corners"),
    LG_FIELD(1, BOOL, TfLiteResizeNearestNeighborParams, half_pixel_centers, 0,
             "half_pixel_centers"),
};

static const lg_option_field lg_strided_slice_fields[] = {
    LG_FIELD(0, I32, TfLiteStridedSliceParams, begin_mask, 0, "begin_mask"),
    LG_FIELD(1, I32, TfLiteStridedSliceParams, end_mask, 0, "end_mask"),
    LG_FIELD(2, I32, TfLiteStridedSliceParams, ellipsis_mask, 0,
             "ellipsis_mask"),
    LG_FIELD(3, I32, TfLiteStridedSliceParams, new_axis_mask, 0,
             "new_axis_mask"),
    LG_FIELD(4, I32, TfLiteStridedSliceParams, shrink_axis_mask, 0,
             "shrink_axis_mask"),
    LG_FIELD(5, BOOL, TfLiteStridedSliceParams, offset, 0, "offset"),
};

static const lg_option_field lg_transpose_conv_fields[] = {
    LG_FIELD(0, PAD, TfLiteTransposeConvParams, padding, kTfLitePaddingSame,
             "padding"),
    LG_FIELD(1, I32, TfLiteTransposeConvParams, stride_width, 0, "stride_w"),
    LG_FIELD(2, I32, TfLiteTransposeConvParams, stride_height, 0, "stride_h"),
    LG_FIELD(3, ACT, TfLiteTransposeConvParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(4, TYPE, TfLiteTransposeConvParams, quantized_bias_type,
             kTfLiteFloat32, "quantized_bias_type"),
};

static const lg_option_field lg_batch_matmul_fields[] = {
    LG_FIELD(0, BOOL, TfLiteBatchMatMulParams, adj_x, 0, "adj_x"),
    LG_FIELD(1, BOOL, TfLiteBatchMatMulParams, adj_y, 0, "adj_y"),
    LG_FIELD(2, BOOL, TfLiteBatchMatMulParams, asymmetric_quantize_inputs, 0,
             "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_gather_fields[] = {
    LG_FIELD(0, I32, TfLiteGatherParams, axis, 0, "axis"),
    LG_FIELD(1, I32, TfLiteGatherParams, batch_dims, 0, "batch_dims"),
};

static const lg_option_field lg_split_fields[] = {
    LG_FIELD(0, I32, TfLiteSplitParams, num_splits, 0, "num_splits"),
};

static const lg_option_field lg_split_v_fields[] = {
    LG_FIELD(0, I32, TfLiteSplitVParams, num_splits, 0, "num_splits"),
};

static const lg_option_field lg_squeeze_fields[] = {
    LG_VECTOR(0, TfLiteSqueezeParams, squeeze_dims, num_squeeze_dims,
              "squeeze_dims"),
};

static const lg_option_field lg_pack_fields[] = {
    LG_FIELD(0, I32, TfLitePackParams, values_count, 0, "values_count"),
    LG_FIELD(1, I32, TfLitePackParams, axis, 0, "axis"),
};

static const lg_option_field lg_unpack_fields[] = {
    LG_FIELD(0, I32, TfLiteUnpackParams, num, 0, "num"),
    LG_FIELD(1, I32, TfLiteUnpackParams, axis, 0, "axis"),
};

static const lg_option_field lg_depth_to_space_fields[] = {
    LG_FIELD(0, I32, TfLiteDepthToSpaceParams, block_size, 0, "block_size"),
};

static const lg_option_field lg_space_to_depth_fields[] = {
    LG_FIELD(0, I32, TfLiteSpaceToDepthParams, block_size, 0, "block_size"),
};

static const lg_option_field lg_cast_fields[] = {
    LG_FIELD(0, TYPE, TfLiteCastParams, in_data_type, kTfLiteFloat32,
             "in_data_type"),
    LG_FIELD(1, TYPE, TfLiteCastParams, out_data_type, kTfLiteFloat32,
             "out_data_type"),
};

static const lg_option_field lg_leaky_relu_fields[] = {
    LG_FIELD(0, F32, TfLiteLeakyReluParams, alpha, 0.0, "alpha"),
};

static const lg_option_field lg_mirror_pad_fields[] = {
    LG_FIELD(0, LG_OPTION_MIRROR_PAD, TfLiteMirrorPaddingParams, mode,
             kTfLiteMirrorPaddingReflect, "mode"),
};

static const lg_option_field lg_arg_max_fields[] = {
    LG_FIELD(0, TYPE, TfLiteArgMaxParams, output_type, kTfLiteFloat32,
             "output_type"),
};

static const lg_option_field lg_arg_min_fields[] = {
    LG_FIELD(0, TYPE, TfLiteArgMinParams, output_type, kTfLiteFloat32,
             "output_type"),
};

static const lg_option_field lg_shape_fields[] = {
    LG_FIELD(0, TYPE, TfLiteShapeParams, out_type, kTfLiteFloat32, "out_type"),
};

static const lg_option_field lg_gelu_fields[] = {
    LG_FIELD(0, BOOL, TfLiteGeluParams, approximate, 0, "approximate"),
};

static const lg_option_field lg_if_fields[] = {
    LG_FIELD(0, I32, TfLiteIfParams, then_subgraph_index, 0,
             "then_subgraph_index"),
    LG_FIELD(1, I32, TfLiteIfParams, else_subgraph_index, 0,
             "else_subgraph_index"),
};

static const lg_option_field lg_while_fields[] = {
    LG_FIELD(0, I32, TfLiteWhileParams, cond_subgraph_index, 0,
             "cond_subgraph_index"),
    LG_FIELD(1, I32, TfLiteWhileParams, body_subgraph_index, 0,
             "body_subgraph_index"),
};

static const lg_option_field lg_call_once_fields[] = {
    LG_FIELD(0, I32, TfLiteCallOnceParams, init_subgraph_index, 0,
             "init_subgraph_index"),
};

static const lg_option_field lg_var_handle_fields[] = {
    LG_FIELD(0, LG_OPTION_STRING, TfLiteVarHandleParams, container, 0,
             "container"),
    LG_FIELD(1, LG_OPTION_STRING, TfLiteVarHandleParams, shared_name, 0,
             "shared_name"),
};

static const lg_option_field lg_random_fields[] = {
    LG_FIELD(0, I64, TfLiteRandomParams, seed, 0, "seed"),
    LG_FIELD(1, I64, TfLiteRandomParams, seed2, 0, "seed2"),
};

static const lg_option_field lg_rng_bit_generator_fields[] = {
    LG_FIELD(0, LG_OPTION_RNG_ALGORITHM, TfLiteStablehloRngBitGeneratorParams,
             algorithm, kTfLiteRngAlgorithmDefault, "algorithm"),
};

static const lg_option_field lg_stablehlo_pad_fields[] = {
    LG_INT64_ARRAY(0, TfLiteStablehloPadParams, edge_padding_low,
                   "edge_padding_low"),
    LG_INT64_ARRAY(1, TfLiteStablehloPadParams, edge_padding_high,
                   "edge_padding_high"),
    LG_INT64_ARRAY(2, TfLiteStablehloPadParams, interior_padding,
                   "interior_padding"),
};

/* ReduceWindowFunction is a schema int enum: read as an int, the kernel
 * checks its range. */
static const lg_option_field lg_reduce_window_fields[] = {
    LG_FIELD(0, I32, TfLiteReduceWindowParams, reduce_function,
             TfLiteReduceWindowFunctionUnsupported, "reduce_function"),
};

static const lg_option_field lg_stablehlo_gather_fields[] = {
    LG_INT64_VECTOR(0, TfLiteStablehloGatherParams, offset_dims,
                    num_offset_dims, "offset_dims"),
    LG_INT64_VECTOR(1, TfLiteStablehloGatherParams, collapsed_slice_dims,
                    num_collapsed_slice_dims, "collapsed_slice_dims"),
    LG_INT64_VECTOR(2, TfLiteStablehloGatherParams, start_index_map,
                    num_start_index_map, "start_index_map"),
    LG_FIELD(3, LG_OPTION_LONG, TfLiteStablehloGatherParams, index_vector_dim,
             0, "index_vector_dim"),
    LG_INT64_VECTOR(4, TfLiteStablehloGatherParams, slice_sizes,
                    num_slice_sizes, "slice_sizes"),
    LG_FIELD(5, BOOL, TfLiteStablehloGatherParams, indices_are_sorted, 0,
             "indices_are_sorted"),
};

static const lg_option_field lg_stablehlo_scatter_fields[] = {
    LG_FIELD(0, BOOL, TfLiteStablehloScatterParams, indices_are_sorted, 0,
             "indices_are_sorted"),
    LG_INT64_VECTOR(1, TfLiteStablehloScatterParams, update_window_dims,
                    num_update_window_dims, "update_window_dims"),
    LG_INT64_VECTOR(2, TfLiteStablehloScatterParams, inserted_window_dims,
                    num_inserted_window_dims, "inserted_window_dims"),
    LG_INT64_VECTOR(
        3, TfLiteStablehloScatterParams, scatter_dims_to_operand_dims,
        num_scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims"),
    LG_FIELD(4, LG_OPTION_LONG, TfLiteStablehloScatterParams, index_vector_dim,
             0, "index_vector_dim"),
    LG_FIELD(5, BOOL, TfLiteStablehloScatterParams, unique_indices, 0,
             "unique_indices"),
    LG_FIELD(6, I32, TfLiteStablehloScatterParams,
             update_computation_subgraph_index, 0,
             "update_computation_subgraph_index"),
};

/* LiteRT fills absent window attributes with 1 and absent padding with 0. */
static const lg_option_field lg_stablehlo_reduce_window_fields[] = {
    LG_INT64_ARRAY_FILL(0, TfLiteStablehloReduceWindowParams, window_dimensions,
                        1, "window_dimensions"),
    LG_INT64_ARRAY_FILL(1, TfLiteStablehloReduceWindowParams, window_strides, 1,
                        "window_strides"),
    LG_INT64_ARRAY_FILL(2, TfLiteStablehloReduceWindowParams, base_dilations, 1,
                        "base_dilations"),
    LG_INT64_ARRAY_FILL(3, TfLiteStablehloReduceWindowParams, window_dilations,
                        1, "window_dilations"),
    LG_INT64_ARRAY(4, TfLiteStablehloReduceWindowParams, padding, "padding"),
    LG_FIELD(5, I32, TfLiteStablehloReduceWindowParams, body_subgraph_index, 0,
             "body_subgraph_index"),
};

/* num_branches is TFLite's uint32_t, stored as the vector count (an int). */
_Static_assert(sizeof(((TfLiteStablehloCaseParams*)0)->num_branches) ==
                   sizeof(int),
               "the branch count is stored as an int");
static const lg_option_field lg_stablehlo_case_fields[] = {
    LG_VECTOR(0, TfLiteStablehloCaseParams, branch_subgraph_indices,
              num_branches, "branch_subgraph_indices"),
};

static const lg_option_field lg_skip_gram_fields[] = {
    LG_FIELD(0, I32, TfLiteSkipGramParams, ngram_size, 0, "ngram_size"),
    LG_FIELD(1, I32, TfLiteSkipGramParams, max_skip_size, 0, "max_skip_size"),
    LG_FIELD(2, BOOL, TfLiteSkipGramParams, include_all_ngrams, 0,
             "include_all_ngrams"),
};

_Static_assert(sizeof(TfLiteLSHProjectionType) == sizeof(int),
               "LSHProjectionType is stored as an int");
static const lg_option_field lg_lsh_projection_fields[] = {
    LG_FIELD(0, LG_OPTION_LSH_PROJECTION_TYPE, TfLiteLSHProjectionParams, type,
             kTfLiteLshProjectionUnknown, "type"),
};

/* composite_attributes_format (always FLEXBUFFERS) is not read. */
static const lg_option_field lg_composite_fields[] = {
    LG_FIELD(0, LG_OPTION_STRING, TfLiteStablehloCompositeParams, name, 0,
             "name"),
    LG_FIELD(1, I32, TfLiteStablehloCompositeParams, subgraph_index, 0,
             "decomposition_subgraph_index"),
    LG_BYTES(2, TfLiteStablehloCompositeParams, attributes, attributes_size,
             "composite_attributes"),
    LG_FIELD(4, I32, TfLiteStablehloCompositeParams, version, 0, "version"),
};

static const lg_option_field lg_cumsum_fields[] = {
    LG_FIELD(0, BOOL, TfLiteCumsumParams, exclusive, 0, "exclusive"),
    LG_FIELD(1, BOOL, TfLiteCumsumParams, reverse, 0, "reverse"),
};

static const lg_option_field lg_hashtable_fields[] = {
    LG_FIELD(0, I32, TfLiteHashtableParams, table_id, 0, "table_id"),
    LG_FIELD(1, TYPE, TfLiteHashtableParams, key_dtype, kTfLiteFloat32,
             "key_dtype"),
    LG_FIELD(2, TYPE, TfLiteHashtableParams, value_dtype, kTfLiteFloat32,
             "value_dtype"),
};

static const lg_option_field lg_one_hot_fields[] = {
    LG_FIELD(0, I32, TfLiteOneHotParams, axis, 0, "axis"),
};

static const lg_option_field lg_svdf_fields[] = {
    LG_FIELD(0, I32, TfLiteSVDFParams, rank, 0, "rank"),
    LG_FIELD(1, ACT, TfLiteSVDFParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(2, BOOL, TfLiteSVDFParams, asymmetric_quantize_inputs, 0,
             "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_rnn_fields[] = {
    LG_FIELD(0, ACT, TfLiteRNNParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(1, BOOL, TfLiteRNNParams, asymmetric_quantize_inputs, 0,
             "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_sequence_rnn_fields[] = {
    LG_FIELD(0, BOOL, TfLiteSequenceRNNParams, time_major, 0, "time_major"),
    LG_FIELD(1, ACT, TfLiteSequenceRNNParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(2, BOOL, TfLiteSequenceRNNParams, asymmetric_quantize_inputs, 0,
             "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_bidi_rnn_fields[] = {
    LG_FIELD(0, BOOL, TfLiteBidirectionalSequenceRNNParams, time_major, 0,
             "time_major"),
    LG_FIELD(1, ACT, TfLiteBidirectionalSequenceRNNParams, activation,
             kTfLiteActNone, "fused_activation_function"),
    LG_FIELD(2, BOOL, TfLiteBidirectionalSequenceRNNParams, merge_outputs, 0,
             "merge_outputs"),
    LG_FIELD(3, BOOL, TfLiteBidirectionalSequenceRNNParams,
             asymmetric_quantize_inputs, 0, "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_lstm_fields[] = {
    LG_FIELD(0, ACT, TfLiteLSTMParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(1, F32, TfLiteLSTMParams, cell_clip, 0, "cell_clip"),
    LG_FIELD(2, F32, TfLiteLSTMParams, proj_clip, 0, "proj_clip"),
    LG_FIELD(3, LG_OPTION_LSTM_KERNEL_TYPE, TfLiteLSTMParams, kernel_type,
             kTfLiteLSTMFullKernel, "kernel_type"),
    LG_FIELD(4, BOOL, TfLiteLSTMParams, asymmetric_quantize_inputs, 0,
             "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_uni_lstm_fields[] = {
    LG_FIELD(0, ACT, TfLiteUnidirectionalSequenceLSTMParams, activation,
             kTfLiteActNone, "fused_activation_function"),
    LG_FIELD(1, F32, TfLiteUnidirectionalSequenceLSTMParams, cell_clip, 0,
             "cell_clip"),
    LG_FIELD(2, F32, TfLiteUnidirectionalSequenceLSTMParams, proj_clip, 0,
             "proj_clip"),
    LG_FIELD(3, BOOL, TfLiteUnidirectionalSequenceLSTMParams, time_major, 0,
             "time_major"),
    LG_FIELD(4, BOOL, TfLiteUnidirectionalSequenceLSTMParams,
             asymmetric_quantize_inputs, 0, "asymmetric_quantize_inputs"),
    LG_FIELD(5, BOOL, TfLiteUnidirectionalSequenceLSTMParams,
             diagonal_recurrent_tensors, 0, "diagonal_recurrent_tensors"),
};

static const lg_option_field lg_bidi_lstm_fields[] = {
    LG_FIELD(0, ACT, TfLiteBidirectionalSequenceLSTMParams, activation,
             kTfLiteActNone, "fused_activation_function"),
    LG_FIELD(1, F32, TfLiteBidirectionalSequenceLSTMParams, cell_clip, 0,
             "cell_clip"),
    LG_FIELD(2, F32, TfLiteBidirectionalSequenceLSTMParams, proj_clip, 0,
             "proj_clip"),
    LG_FIELD(3, BOOL, TfLiteBidirectionalSequenceLSTMParams, merge_outputs, 0,
             "merge_outputs"),
    /* time_major defaults to true here (the schema's default). */
    LG_FIELD(4, BOOL, TfLiteBidirectionalSequenceLSTMParams, time_major, 1,
             "time_major"),
    LG_FIELD(5, BOOL, TfLiteBidirectionalSequenceLSTMParams,
             asymmetric_quantize_inputs, 0, "asymmetric_quantize_inputs"),
};

static const lg_option_field lg_embedding_lookup_sparse_fields[] = {
    LG_FIELD(0, LG_OPTION_COMBINER, TfLiteEmbeddingLookupSparseParams, combiner,
             kTfLiteCombinerTypeSum, "combiner"),
};

static const lg_option_field lg_sparse_to_dense_fields[] = {
    LG_FIELD(0, BOOL, TfLiteSparseToDenseParams, validate_indices, 0,
             "validate_indices"),
};

static const lg_option_field lg_unique_fields[] = {
    LG_FIELD(0, TYPE, TfLiteUniqueParams, index_out_type, kTfLiteInt32,
             "idx_out_type"),
};

static const lg_option_field lg_reverse_sequence_fields[] = {
    LG_FIELD(0, I32, TfLiteReverseSequenceParams, seq_dim, 0, "seq_dim"),
    LG_FIELD(1, I32, TfLiteReverseSequenceParams, batch_dim, 0, "batch_dim"),
};

static const lg_option_field lg_l2_norm_fields[] = {
    LG_FIELD(0, ACT, TfLiteL2NormParams, activation, kTfLiteActNone,
             "fused_activation_function"),
};

static const lg_option_field lg_local_response_norm_fields[] = {
    LG_FIELD(0, I32, TfLiteLocalResponseNormParams, radius, 0, "radius"),
    LG_FIELD(1, F32, TfLiteLocalResponseNormParams, bias, 0.0, "bias"),
    LG_FIELD(2, F32, TfLiteLocalResponseNormParams, alpha, 0.0, "alpha"),
    LG_FIELD(3, F32, TfLiteLocalResponseNormParams, beta, 0.0, "beta"),
};

static const lg_option_field lg_conv3d_fields[] = {
    LG_FIELD(0, PAD, TfLiteConv3DParams, padding, kTfLitePaddingSame,
             "padding"),
    LG_FIELD(1, I32, TfLiteConv3DParams, stride_depth, 0, "stride_d"),
    LG_FIELD(2, I32, TfLiteConv3DParams, stride_width, 0, "stride_w"),
    LG_FIELD(3, I32, TfLiteConv3DParams, stride_height, 0, "stride_h"),
    LG_FIELD(4, ACT, TfLiteConv3DParams, activation, kTfLiteActNone,
             "fused_activation_function"),
    LG_FIELD(5, I32, TfLiteConv3DParams, dilation_depth_factor, 1,
             "dilation_d_factor"),
    LG_FIELD(6, I32, TfLiteConv3DParams, dilation_width_factor, 1,
             "dilation_w_factor"),
    LG_FIELD(7, I32, TfLiteConv3DParams, dilation_height_factor, 1,
             "dilation_h_factor"),
};

static const lg_option_field lg_bucketize_fields[] = {
    LG_FLOAT_VECTOR(0, TfLiteBucketizeParams, boundaries, num_boundaries,
                    "boundaries"),
};

static const lg_option_field lg_fake_quant_fields[] = {
    LG_FIELD(0, F32, TfLiteFakeQuantParams, min, 0.0, "min"),
    LG_FIELD(1, F32, TfLiteFakeQuantParams, max, 0.0, "max"),
    LG_FIELD(2, I32, TfLiteFakeQuantParams, num_bits, 0, "num_bits"),
    LG_FIELD(3, BOOL, TfLiteFakeQuantParams, narrow_range, 0, "narrow_range"),
};

#undef PAD
#undef ACT
#undef I32
#undef I64
#undef F32
#undef BOOL
#undef TYPE

#define LG_DESC(code_, union_index_, options_name_, params_, fields_) \
  {                                                                   \
    .builtin_code = (code_), .options_type = (union_index_),          \
    .options_name = (options_name_), .params_size = sizeof(params_),  \
    .fields = (fields_), .num_fields = LG_NUM(fields_)                \
  }

/* The same for a table in builtin_options_2 (a BuiltinOptions2 index). */
#define LG_DESC2(code_, union_index_, options_name_, params_, fields_)       \
  {                                                                          \
    .builtin_code = (code_), .options_type = (union_index_),                 \
    .options_name = (options_name_), .params_size = sizeof(params_),         \
    .fields = (fields_), .num_fields = LG_NUM(fields_), .in_options_2 = true \
  }

/* builtin code, BuiltinOptions union index, options table, params struct. */
static const lg_builtin_options_desc lg_descs[] = {
    LG_DESC(kTfLiteBuiltinConv2d, 1, "Conv2DOptions", TfLiteConvParams,
            lg_conv_fields),
    LG_DESC(kTfLiteBuiltinDepthwiseConv2d, 2, "DepthwiseConv2DOptions",
            TfLiteDepthwiseConvParams, lg_depthwise_fields),
    LG_DESC(kTfLiteBuiltinAveragePool2d, 5, "Pool2DOptions", TfLitePoolParams,
            lg_pool_fields),
    LG_DESC(kTfLiteBuiltinMaxPool2d, 5, "Pool2DOptions", TfLitePoolParams,
            lg_pool_fields),
    LG_DESC(kTfLiteBuiltinL2Pool2d, 5, "Pool2DOptions", TfLitePoolParams,
            lg_pool_fields),
    LG_DESC(kTfLiteBuiltinFullyConnected, 8, "FullyConnectedOptions",
            TfLiteFullyConnectedParams, lg_fully_connected_fields),
    LG_DESC(kTfLiteBuiltinSoftmax, 9, "SoftmaxOptions", TfLiteSoftmaxParams,
            lg_softmax_fields),
    LG_DESC(kTfLiteBuiltinConcatenation, 10, "ConcatenationOptions",
            TfLiteConcatenationParams, lg_concatenation_fields),
    LG_DESC(kTfLiteBuiltinAdd, 11, "AddOptions", TfLiteAddParams,
            lg_add_fields),
    LG_DESC(kTfLiteBuiltinResizeBilinear, 15, "ResizeBilinearOptions",
            TfLiteResizeBilinearParams, lg_resize_bilinear_fields),
    LG_DESC(kTfLiteBuiltinReshape, 17, "ReshapeOptions", TfLiteReshapeParams,
            lg_reshape_fields),
    LG_DESC(kTfLiteBuiltinSpaceToDepth, 19, "SpaceToDepthOptions",
            TfLiteSpaceToDepthParams, lg_space_to_depth_fields),
    LG_DESC(kTfLiteBuiltinMul, 21, "MulOptions", TfLiteMulParams,
            lg_mul_fields),
    LG_DESC(kTfLiteBuiltinGather, 23, "GatherOptions", TfLiteGatherParams,
            lg_gather_fields),
    LG_DESC(kTfLiteBuiltinMean, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinSum, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinReduceMax, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinReduceMin, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinReduceProd, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinSub, 28, "SubOptions", TfLiteSubParams,
            lg_sub_fields),
    LG_DESC(kTfLiteBuiltinDiv, 29, "DivOptions", TfLiteDivParams,
            lg_div_fields),
    LG_DESC(kTfLiteBuiltinSqueeze, 30, "SqueezeOptions", TfLiteSqueezeParams,
            lg_squeeze_fields),
    LG_DESC(kTfLiteBuiltinStridedSlice, 32, "StridedSliceOptions",
            TfLiteStridedSliceParams, lg_strided_slice_fields),
    LG_DESC(kTfLiteBuiltinSplit, 35, "SplitOptions", TfLiteSplitParams,
            lg_split_fields),
    LG_DESC(kTfLiteBuiltinCast, 37, "CastOptions", TfLiteCastParams,
            lg_cast_fields),
    LG_DESC(kTfLiteBuiltinArgMax, 40, "ArgMaxOptions", TfLiteArgMaxParams,
            lg_arg_max_fields),
    LG_DESC(kTfLiteBuiltinTransposeConv, 49, "TransposeConvOptions",
            TfLiteTransposeConvParams, lg_transpose_conv_fields),
    LG_DESC(kTfLiteBuiltinShape, 55, "ShapeOptions", TfLiteShapeParams,
            lg_shape_fields),
    LG_DESC(kTfLiteBuiltinArgMin, 57, "ArgMinOptions", TfLiteArgMinParams,
            lg_arg_min_fields),
    LG_DESC(kTfLiteBuiltinPack, 59, "PackOptions", TfLitePackParams,
            lg_pack_fields),
    LG_DESC(kTfLiteBuiltinUnpack, 64, "UnpackOptions", TfLiteUnpackParams,
            lg_unpack_fields),
    LG_DESC(kTfLiteBuiltinResizeNearestNeighbor, 74,
            "ResizeNearestNeighborOptions", TfLiteResizeNearestNeighborParams,
            lg_resize_nearest_fields),
    LG_DESC(kTfLiteBuiltinLeakyRelu, 75, "LeakyReluOptions",
            TfLiteLeakyReluParams, lg_leaky_relu_fields),
    LG_DESC(kTfLiteBuiltinMirrorPad, 77, "MirrorPadOptions",
            TfLiteMirrorPaddingParams, lg_mirror_pad_fields),
    LG_DESC(kTfLiteBuiltinSplitV, 79, "SplitVOptions", TfLiteSplitVParams,
            lg_split_v_fields),
    LG_DESC(kTfLiteBuiltinDepthToSpace, 94, "DepthToSpaceOptions",
            TfLiteDepthToSpaceParams, lg_depth_to_space_fields),
    LG_DESC(kTfLiteBuiltinBatchMatmul, 101, "BatchMatMulOptions",
            TfLiteBatchMatMulParams, lg_batch_matmul_fields),
    LG_DESC(kTfLiteBuiltinGelu, 116, "GeluOptions", TfLiteGeluParams,
            lg_gelu_fields),
    LG_DESC(kTfLiteBuiltinIf, 92, "IfOptions", TfLiteIfParams, lg_if_fields),
    LG_DESC(kTfLiteBuiltinWhile, 93, "WhileOptions", TfLiteWhileParams,
            lg_while_fields),
    LG_DESC(kTfLiteBuiltinCallOnce, 103, "CallOnceOptions",
            TfLiteCallOnceParams, lg_call_once_fields),
    LG_DESC(kTfLiteBuiltinCumsum, 102, "CumsumOptions", TfLiteCumsumParams,
            lg_cumsum_fields),
    LG_DESC(kTfLiteBuiltinOneHot, 61, "OneHotOptions", TfLiteOneHotParams,
            lg_one_hot_fields),
    LG_DESC(kTfLiteBuiltinEmbeddingLookupSparse, 20,
            "EmbeddingLookupSparseOptions", TfLiteEmbeddingLookupSparseParams,
            lg_embedding_lookup_sparse_fields),
    LG_DESC(kTfLiteBuiltinSparseToDense, 50, "SparseToDenseOptions",
            TfLiteSparseToDenseParams, lg_sparse_to_dense_fields),
    LG_DESC(kTfLiteBuiltinUnique, 80, "UniqueOptions", TfLiteUniqueParams,
            lg_unique_fields),
    LG_DESC(kTfLiteBuiltinReverseSequence, 87, "ReverseSequenceOptions",
            TfLiteReverseSequenceParams, lg_reverse_sequence_fields),
    LG_DESC(kTfLiteBuiltinL2Normalization, 12, "L2NormOptions",
            TfLiteL2NormParams, lg_l2_norm_fields),
    LG_DESC(kTfLiteBuiltinLocalResponseNormalization, 13,
            "LocalResponseNormalizationOptions", TfLiteLocalResponseNormParams,
            lg_local_response_norm_fields),
    LG_DESC(kTfLiteBuiltinReduceAny, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinReduceAll, 27, "ReducerOptions", TfLiteReducerParams,
            lg_reducer_fields),
    LG_DESC(kTfLiteBuiltinConv3d, 106, "Conv3DOptions", TfLiteConv3DParams,
            lg_conv3d_fields),
    LG_DESC(kTfLiteBuiltinConv3dTranspose, 106, "Conv3DOptions",
            TfLiteConv3DParams, lg_conv3d_fields),
    LG_DESC(kTfLiteBuiltinBucketize, 115, "BucketizeOptions",
            TfLiteBucketizeParams, lg_bucketize_fields),
    LG_DESC(kTfLiteBuiltinFakeQuant, 58, "FakeQuantOptions",
            TfLiteFakeQuantParams, lg_fake_quant_fields),
    LG_DESC(kTfLiteBuiltinHashtable, 107, "HashtableOptions",
            TfLiteHashtableParams, lg_hashtable_fields),
    LG_DESC(kTfLiteBuiltinLshProjection, 4, "LSHProjectionOptions",
            TfLiteLSHProjectionParams, lg_lsh_projection_fields),
    LG_DESC(kTfLiteBuiltinSkipGram, 18, "SkipGramOptions", TfLiteSkipGramParams,
            lg_skip_gram_fields),
    LG_DESC(kTfLiteBuiltinSvdf, 6, "SVDFOptions", TfLiteSVDFParams,
            lg_svdf_fields),
    LG_DESC(kTfLiteBuiltinRnn, 7, "RNNOptions", TfLiteRNNParams, lg_rnn_fields),
    LG_DESC(kTfLiteBuiltinLstm, 14, "LSTMOptions", TfLiteLSTMParams,
            lg_lstm_fields),
    LG_DESC(kTfLiteBuiltinUnidirectionalSequenceRnn, 31, "SequenceRNNOptions",
            TfLiteSequenceRNNParams, lg_sequence_rnn_fields),
    LG_DESC(kTfLiteBuiltinBidirectionalSequenceLstm, 69,
            "BidirectionalSequenceLSTMOptions",
            TfLiteBidirectionalSequenceLSTMParams, lg_bidi_lstm_fields),
    LG_DESC(kTfLiteBuiltinBidirectionalSequenceRnn, 70,
            "BidirectionalSequenceRNNOptions",
            TfLiteBidirectionalSequenceRNNParams, lg_bidi_rnn_fields),
    LG_DESC(kTfLiteBuiltinUnidirectionalSequenceLstm, 71,
            "UnidirectionalSequenceLSTMOptions",
            TfLiteUnidirectionalSequenceLSTMParams, lg_uni_lstm_fields),
    LG_DESC(kTfLiteBuiltinVarHandle, 111, "VarHandleOptions",
            TfLiteVarHandleParams, lg_var_handle_fields),
    LG_DESC(kTfLiteBuiltinRandomUniform, 114, "RandomOptions",
            TfLiteRandomParams, lg_random_fields),
    LG_DESC(kTfLiteBuiltinRandomStandardNormal, 114, "RandomOptions",
            TfLiteRandomParams, lg_random_fields),
    LG_DESC2(kTfLiteBuiltinStablehloRngBitGenerator, 19,
             "StablehloRngBitGeneratorOptions",
             TfLiteStablehloRngBitGeneratorParams, lg_rng_bit_generator_fields),
    LG_DESC(kTfLiteBuiltinMultinomial, 114, "RandomOptions", TfLiteRandomParams,
            lg_random_fields),
    LG_DESC2(kTfLiteBuiltinStablehloPad, 10, "StablehloPadOptions",
             TfLiteStablehloPadParams, lg_stablehlo_pad_fields),
    LG_DESC2(kTfLiteBuiltinReduceWindow, 20, "ReduceWindowOptions",
             TfLiteReduceWindowParams, lg_reduce_window_fields),
    LG_DESC2(kTfLiteBuiltinStablehloScatter, 7, "StablehloScatterOptions",
             TfLiteStablehloScatterParams, lg_stablehlo_scatter_fields),
    LG_DESC2(kTfLiteBuiltinStablehloReduceWindow, 13,
             "StablehloReduceWindowOptions", TfLiteStablehloReduceWindowParams,
             lg_stablehlo_reduce_window_fields),
    LG_DESC2(kTfLiteBuiltinStablehloGather, 16, "StablehloGatherOptions",
             TfLiteStablehloGatherParams, lg_stablehlo_gather_fields),
    LG_DESC2(kTfLiteBuiltinStablehloComposite, 21, "StableHLOCompositeOptions",
             TfLiteStablehloCompositeParams, lg_composite_fields),
    LG_DESC2(kTfLiteBuiltinStablehloCase, 23, "StablehloCaseOptions",
             TfLiteStablehloCaseParams, lg_stablehlo_case_fields),
};

const lg_builtin_options_desc* lg_builtin_options_find(int32_t builtin_code) {
  for (int i = 0; i < LG_NUM(lg_descs); ++i) {
    if (lg_descs[i].builtin_code == builtin_code) return &lg_descs[i];
  }
  return NULL;
}

/* ---- Defaults ------------------------------------------------------------*/

static void lg_store_int(void* params, size_t offset, int value) {
  memcpy((char*)params + offset, &value, sizeof(value));
}

void lg_builtin_options_set_defaults(const lg_builtin_options_desc* desc,
                                     void* params) {
  memset(params, 0, desc->params_size);
  for (int i = 0; i < desc->num_fields; ++i) {
    const lg_option_field* f = &desc->fields[i];
    char* at = (char*)params + f->offset;
    if (f->kind == LG_OPTION_BOOL) {
      bool value = f->default_value != 0;
      memcpy(at, &value, sizeof(value));
    } else if (f->kind == LG_OPTION_FLOAT) {
      float value = (float)f->default_value;
      memcpy(at, &value, sizeof(value));
    } else if (f->kind == LG_OPTION_INT32_VECTOR ||
               f->kind == LG_OPTION_INT64_VECTOR) {
      lg_store_int(params, f->count_offset, 0); /* absent: no elements */
    } else if (f->kind == LG_OPTION_LONG) {
      int64_t value = (int64_t)f->default_value;
      memcpy(at, &value, sizeof(value));
    } else if (f->kind == LG_OPTION_BYTES) {
      const uint8_t* none = NULL;
      size_t zero = 0;
      memcpy(at, &none, sizeof(none));
      memcpy((char*)params + f->count_offset, &zero, sizeof(zero));
    } else if (f->kind == LG_OPTION_INT64_ARRAY) {
      /* absent: every element the default (0 but for
       * StablehloReduceWindowOptions' 1s, as LiteRT fills them) */
      const int64_t value = (int64_t)f->default_value;
      for (int k = 0; k < f->capacity; ++k) {
        memcpy(at + sizeof(int64_t) * (size_t)k, &value, sizeof(value));
      }
    } else if (f->kind == LG_OPTION_FLOAT_VECTOR) {
      const float* none = NULL;
      memcpy(at, &none, sizeof(none));
      lg_store_int(params, f->count_offset, 0);
    } else if (f->kind == LG_OPTION_STRING) {
      const char* empty = "";
      memcpy(at, &empty, sizeof(empty));
    } else {
      lg_store_int(params, f->offset, (int)f->default_value);
    }
  }
}

/* ---- Reading -------------------------------------------------------------*/

/* What one field is being read for: its op, descriptor and table. */
typedef struct lg_option_reader {
  int32_t builtin_code;
  const lg_builtin_options_desc* desc;
  const lg_fb_table* table;
  lg_fb_verifier fb;
  const lg_reporter* reporter;
} lg_option_reader;

static bool lg_option_layout_error(lg_option_reader* r,
                                   const lg_option_field* f) {
  lg_report(r->reporter, "%s: %s field '%s': %s",
            lg_builtin_op_name(r->builtin_code), r->desc->options_name, f->name,
            r->fb.error);
  return false;
}

static bool lg_option_value_error(lg_option_reader* r, const lg_option_field* f,
                                  int value, const char* kind) {
  lg_report(r->reporter,
            "%s: %s field '%s' has value %d, which is not a "
            "valid %s",
            lg_builtin_op_name(r->builtin_code), r->desc->options_name, f->name,
            value, kind);
  return false;
}

/* Converts a schema enum byte to the runtime enum value of `f->kind`; -1
 * when the byte is not a value of the schema enum. */
static int lg_option_convert_enum(lg_option_kind kind, int8_t raw) {
  switch (kind) {
    case LG_OPTION_PADDING:
      return raw == 0   ? kTfLitePaddingSame
             : raw == 1 ? kTfLitePaddingValid
                        : -1;
    case LG_OPTION_ACTIVATION:
      return raw >= 0 && raw <= kTfLiteActSignBit ? raw : -1;
    case LG_OPTION_TENSOR_TYPE: {
      TfLiteType type = lg_model_convert_tensor_type(raw);
      return type == kTfLiteNoType ? -1 : (int)type;
    }
    case LG_OPTION_MIRROR_PAD:
      return raw == 0   ? kTfLiteMirrorPaddingReflect
             : raw == 1 ? kTfLiteMirrorPaddingSymmetric
                        : -1;
    case LG_OPTION_FC_WEIGHTS_FORMAT:
      return raw == 0 || raw == 1 ? raw : -1;
    case LG_OPTION_LSTM_KERNEL_TYPE:
      return raw == 0   ? kTfLiteLSTMFullKernel
             : raw == 1 ? kTfLiteLSTMBasicKernel
                        : -1;
    case LG_OPTION_COMBINER: /* SUM 0, MEAN 1, SQRTN 2: the same numbers */
      return raw >= 0 && raw <= kTfLiteCombinerTypeSqrtn ? raw : -1;
    case LG_OPTION_LSH_PROJECTION_TYPE: /* UNKNOWN 0, SPARSE 1, DENSE 2 */
      return raw >= 0 && raw <= kTfLiteLshProjectionDense ? raw : -1;
    case LG_OPTION_RNG_ALGORITHM: /* DEFAULT 0, PHILOX 1, THREEFRY 2 */
      return raw == 0   ? kTfLiteRngAlgorithmDefault
             : raw == 1 ? kTfLiteRngAlgorithmPhilox
             : raw == 2 ? kTfLiteRngAlgorithmThreefry
                        : -1;
    default:
      return -1;
  }
}

static const char* lg_option_enum_name(lg_option_kind kind) {
  switch (kind) {
    case LG_OPTION_PADDING:
      return "Padding";
    case LG_OPTION_ACTIVATION:
      return "ActivationFunctionType";
    case LG_OPTION_TENSOR_TYPE:
      return "TensorType";
    case LG_OPTION_MIRROR_PAD:
      return "MirrorPadMode";
    case LG_OPTION_LSTM_KERNEL_TYPE:
      return "LSTMKernelType";
    case LG_OPTION_COMBINER:
      return "CombinerType";
    case LG_OPTION_RNG_ALGORITHM:
      return "RngAlgorithm";
    case LG_OPTION_LSH_PROJECTION_TYPE:
      return "LSHProjectionType";
    default:
      return "FullyConnectedOptionsWeightsFormat";
  }
}

static bool lg_option_read_vector(lg_option_reader* r, const lg_option_field* f,
                                  void* params) {
  lg_fb_vector vec;
  if (!lg_fb_table_vector(&r->fb, r->table, f->field_id, sizeof(int32_t),
                          &vec)) {
    return lg_option_layout_error(r, f);
  }
  if (vec.count > (uint32_t)f->capacity) {
    lg_report(r->reporter,
              "%s: %s field '%s' has %u elements, more than the "
              "%d the params struct holds",
              lg_builtin_op_name(r->builtin_code), r->desc->options_name,
              f->name, vec.count, f->capacity);
    return false;
  }
  /* Copy bytes: params arrays are int, the file holds int32. */
  const uint8_t* src = lg_fb_vector_data(&vec);
  for (uint32_t i = 0; i < vec.count; ++i) {
    int32_t value;
    memcpy(&value, src + 4 * (size_t)i, sizeof(value));
    lg_store_int(params, f->offset + i * sizeof(int), value);
  }
  lg_store_int(params, f->count_offset, (int)vec.count);
  return true;
}

/* Reads one present field into the params struct. */
static bool lg_option_read_field(lg_option_reader* r, const lg_option_field* f,
                                 void* params) {
  lg_fb_verifier* fb = &r->fb;
  char* at = (char*)params + f->offset;
  switch (f->kind) {
    case LG_OPTION_BOOL: {
      bool value;
      if (!lg_fb_table_bool(fb, r->table, f->field_id, false, &value)) break;
      memcpy(at, &value, sizeof(value));
      return true;
    }
    case LG_OPTION_INT32: {
      int32_t value;
      if (!lg_fb_table_i32(fb, r->table, f->field_id, 0, &value)) break;
      lg_store_int(params, f->offset, value);
      return true;
    }
    case LG_OPTION_INT64: {
      uint64_t bits;
      if (!lg_fb_table_u64(fb, r->table, f->field_id, 0, &bits)) break;
      /* The low 32 bits, two's complement (TFLite's int64 -> int). */
      lg_store_int(params, f->offset, (int)(int32_t)(uint32_t)bits);
      return true;
    }
    case LG_OPTION_FLOAT: {
      float value;
      if (!lg_fb_table_f32(fb, r->table, f->field_id, 0.0f, &value)) break;
      memcpy(at, &value, sizeof(value));
      return true;
    }
    case LG_OPTION_INT32_VECTOR:
      return lg_option_read_vector(r, f, params);
    case LG_OPTION_BYTES: {
      lg_fb_vector vec;
      if (!lg_fb_table_vector(fb, r->table, f->field_id, 1, &vec)) break;
      const uint8_t* data = vec.count > 0 ? lg_fb_vector_data(&vec) : NULL;
      const size_t count = data != NULL ? (size_t)vec.count : 0;
      memcpy(at, &data, sizeof(data));
      memcpy((char*)params + f->count_offset, &count, sizeof(count));
      return true;
    }
    case LG_OPTION_LONG: {
      uint64_t bits;
      if (!lg_fb_table_u64(fb, r->table, f->field_id, 0, &bits)) break;
      int64_t value = (int64_t)bits;
      memcpy(at, &value, sizeof(value));
      return true;
    }
    case LG_OPTION_INT64_VECTOR:
    case LG_OPTION_INT64_ARRAY: {
      lg_fb_vector vec;
      if (!lg_fb_table_vector(fb, r->table, f->field_id, sizeof(int64_t),
                              &vec)) {
        break;
      }
      if (vec.count > (uint32_t)f->capacity) {
        lg_report(r->reporter,
                  "%s: %s field '%s' has %u elements, more than the "
                  "%d the params struct holds",
                  lg_builtin_op_name(r->builtin_code), r->desc->options_name,
                  f->name, vec.count, f->capacity);
        return false;
      }
      if (vec.count > 0) {
        memcpy(at, lg_fb_vector_data(&vec), sizeof(int64_t) * vec.count);
      }
      if (f->kind == LG_OPTION_INT64_VECTOR) {
        lg_store_int(params, f->count_offset, (int)vec.count);
      }
      return true;
    }
    case LG_OPTION_FLOAT_VECTOR: {
      lg_fb_vector vec;
      if (!lg_fb_table_vector(fb, r->table, f->field_id, sizeof(float), &vec)) {
        break;
      }
      if (vec.count > (uint32_t)INT32_MAX) break;
      const float* data = lg_fb_vector_data(&vec);
      memcpy(at, &data, sizeof(data));
      lg_store_int(params, f->count_offset, data != NULL ? (int)vec.count : 0);
      return true;
    }
    case LG_OPTION_STRING: {
      const char* value = NULL;
      if (!lg_fb_table_string(fb, r->table, f->field_id, &value, NULL)) break;
      if (value == NULL) value = "";
      memcpy(at, &value, sizeof(value));
      return true;
    }
    default: {
      int8_t raw;
      if (!lg_fb_table_i8(fb, r->table, f->field_id, 0, &raw)) break;
      int value = lg_option_convert_enum(f->kind, raw);
      if (value < 0) {
        return lg_option_value_error(r, f, raw, lg_option_enum_name(f->kind));
      }
      lg_store_int(params, f->offset, value);
      return true;
    }
  }
  return lg_option_layout_error(r, f);
}

/* Overwrites the defaults in `params` with the fields present in `op`'s
 * options table. */
static bool lg_options_read(int32_t builtin_code,
                            const lg_builtin_options_desc* desc,
                            const lg_model_operator* op,
                            const lg_reporter* reporter, void* params) {
  const lg_fb_table* table =
      desc->in_options_2 ? &op->builtin_options_2 : &op->builtin_options;
  const uint8_t type = desc->in_options_2 ? op->builtin_options_2_type
                                          : op->builtin_options_type;
  if (type == 0) return true; /* no options: defaults */
  if (type != desc->options_type) {
    lg_report(reporter,
              "%s: %s are of union type %u, expected "
              "%s (union type %u)",
              lg_builtin_op_name(builtin_code),
              desc->in_options_2 ? "builtin_options_2" : "builtin options",
              type, desc->options_name, desc->options_type);
    return false;
  }
  if (table->pos == 0) return true; /* a type without a table: defaults */
  lg_option_reader r = {.builtin_code = builtin_code,
                        .desc = desc,
                        .table = table,
                        .reporter = reporter};
  lg_fb_verifier_init(&r.fb, table->buf, table->size);
  for (int i = 0; i < desc->num_fields; ++i) {
    const lg_option_field* f = &desc->fields[i];
    if (lg_fb_table_field(table, f->field_id) == 0) continue;
    if (!lg_option_read_field(&r, f, params)) return false;
  }
  return true;
}

TfLiteStatus lg_builtin_options_parse(int32_t builtin_code,
                                      const lg_model_operator* op,
                                      const lg_reporter* reporter,
                                      void** params) {
  void* out = NULL;
  if (params == NULL) {
    lg_report(reporter, "lg_builtin_options_parse: params is NULL");
    return kTfLiteError;
  }
  *params = NULL;
  const lg_builtin_options_desc* desc = lg_builtin_options_find(builtin_code);
  if (desc == NULL) return kTfLiteOk;
  out = calloc(1, desc->params_size);
  if (out == NULL) {
    lg_report(reporter, "Out of memory: %s params",
              lg_builtin_op_name(builtin_code));
    goto fail;
  }
  lg_builtin_options_set_defaults(desc, out);
  /* A NULL op has no options table: the defaults stand. */
  if (op != NULL && !lg_options_read(builtin_code, desc, op, reporter, out)) {
    goto fail;
  }
  *params = out;
  return kTfLiteOk;
fail:
  free(out);
  return kTfLiteError;
}

/* ---- Names ---------------------------------------------------------------*/

/* The schema's BuiltinOperator names, indexed by code. */
/* clang-format off */
static const char* const lg_op_names[] = {
    /*   0 */ "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D",
    /*   4 */ "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
    /*   7 */ "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED",
    /*  10 */ "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
    /*  13 */ "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION",
    /*  16 */ "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6",
    /*  22 */ "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH",
    /*  27 */ "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
    /*  32 */ "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    /*  35 */ "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND",
    /*  38 */ "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
    /*  44 */ "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE",
    /*  46 */ "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT",
    /*  50 */ "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST",
    /*  54 */ "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2",
    /*  61 */ "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
    /*  66 */ "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS",
    /*  71 */ "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE",
    /*  78 */ "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX",
    /*  83 */ "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT",
    /*  88 */ "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE",
    /*  93 */ "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
    /*  97 */ "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
    /* 100 */ "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2",
    /* 106 */ "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
    /* 112 */ "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG",
    /* 116 */ "ROUND", "HARD_SWISH", "IF", "WHILE", "NON_MAX_SUPPRESSION_V4",
    /* 121 */ "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY",
    /* 125 */ "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES",
    /* 128 */ "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D",
    /* 133 */ "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND",
    /* 138 */ "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL",
    /* 141 */ "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
    /* 144 */ "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL",
    /* 147 */ "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU",
    /* 151 */ "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD",
    /* 154 */ "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
    /* 157 */ "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR",
    /* 161 */ "RIGHT_SHIFT", "STABLEHLO_LOGISTIC", "STABLEHLO_ADD",
    /* 164 */ "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM",
    /* 167 */ "STABLEHLO_RESHAPE", "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE",
    /* 170 */ "STABLEHLO_BROADCAST_IN_DIM", "STABLEHLO_CONVOLUTION",
    /* 172 */ "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE",
    /* 175 */ "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE",
    /* 178 */ "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR", "STABLEHLO_LOG",
    /* 181 */ "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR",
    /* 184 */ "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT",
    /* 187 */ "STABLEHLO_SELECT", "STABLEHLO_SUBTRACT", "STABLEHLO_TANH",
    /* 190 */ "STABLEHLO_SCATTER", "STABLEHLO_COMPARE", "STABLEHLO_CONVERT",
    /* 193 */ "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    /* 195 */ "STABLEHLO_PAD", "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL",
    /* 198 */ "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT", "STABLEHLO_WHILE",
    /* 201 */ "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE",
    /* 204 */ "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW",
    /* 206 */ "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT", "STABLEHLO_CBRT",
    /* 209 */ "STABLEHLO_CASE",
};
/* clang-format on */

const char* lg_builtin_op_name(int32_t builtin_code) {
  if (builtin_code < 0 || builtin_code >= LG_NUM(lg_op_names)) {
    return "UNKNOWN";
  }
  return lg_op_names[builtin_code];
}
