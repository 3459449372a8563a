/* Minimum runtime versions (see runtime_version.h).
 *
 * The table is TFLite's op_version_map, transcribed for the ops litegpu's
 * kernels cover (every version TFLite lists for them): TensorFlow
 * tensorflow/compiler/mlir/lite/tools/versioning/runtime_version.cc, LiteRT
 * tflite/converter/tools/versioning/runtime_version.cc (the newer, with the
 * 2.22/2.23 entries). Versions the op rules can produce that the table has
 * no entry for (the float8 variants of CONCATENATION 7, PAD/PADV2 6,
 * GATHER 8 and DEQUANTIZE 9) answer "", as in TFLite.
 *
 * Rows are sorted by (code, version), checked by a test, so a lookup is a
 * binary search.
 */
#include "versioning/runtime_version.h"

#include <stdbool.h>
#include <stdlib.h>

#include "tensorflow/lite/builtin_ops.h"

typedef struct lg_runtime_entry {
  int32_t code;
  int version;
  const char* runtime;
} lg_runtime_entry;

static const lg_runtime_entry kEntries[] = {
    {kTfLiteBuiltinAdd, 1, "1.5.0"},
    {kTfLiteBuiltinAdd, 2, "1.14.0"},
    {kTfLiteBuiltinAdd, 3, "2.4.0"},
    {kTfLiteBuiltinAdd, 4, "2.6.0"},
    {kTfLiteBuiltinAdd, 5, "2.13.0"},
    {kTfLiteBuiltinAdd, 6, "2.23.0"},
    {kTfLiteBuiltinAveragePool2d, 1, "1.5.0"},
    {kTfLiteBuiltinAveragePool2d, 2, "1.14.0"},
    {kTfLiteBuiltinAveragePool2d, 3, "2.3.0"},
    {kTfLiteBuiltinConcatenation, 1, "1.5.0"},
    {kTfLiteBuiltinConcatenation, 2, "1.14.0"},
    {kTfLiteBuiltinConcatenation, 3, "2.3.0"},
    {kTfLiteBuiltinConcatenation, 4, "2.14.0"},
    {kTfLiteBuiltinConcatenation, 5, "2.21.0"},
    {kTfLiteBuiltinConcatenation, 6, "2.23.0"},
    {kTfLiteBuiltinConv2d, 1, "1.5.0"},
    {kTfLiteBuiltinConv2d, 2, "1.14.0"},
    {kTfLiteBuiltinConv2d, 3, "1.14.0"},
    {kTfLiteBuiltinConv2d, 4, "2.3.0"},
    {kTfLiteBuiltinConv2d, 5, "2.4.0"},
    {kTfLiteBuiltinConv2d, 6, "2.9.0"},
    {kTfLiteBuiltinConv2d, 7, "2.11.0"},
    {kTfLiteBuiltinConv2d, 8, "2.15.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 1, "1.5.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 2, "1.12.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 3, "1.14.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 4, "2.2.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 5, "2.3.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 6, "2.3.0"},
    {kTfLiteBuiltinDepthwiseConv2d, 7, "2.11.0"},
    {kTfLiteBuiltinDepthToSpace, 1, "2.1.0"},
    {kTfLiteBuiltinDepthToSpace, 2, "2.5.0"},
    {kTfLiteBuiltinDequantize, 1, "1.13.1"},
    {kTfLiteBuiltinDequantize, 2, "1.14.0"},
    {kTfLiteBuiltinDequantize, 3, "1.15.0"},
    {kTfLiteBuiltinDequantize, 4, "2.2.0"},
    {kTfLiteBuiltinDequantize, 5, "2.7.0"},
    {kTfLiteBuiltinDequantize, 6, "2.18.0"},
    {kTfLiteBuiltinDequantize, 7, "2.21.0"},
    {kTfLiteBuiltinDequantize, 8, "2.22.0"},
    {kTfLiteBuiltinEmbeddingLookup, 1, "1.13.0"},
    {kTfLiteBuiltinEmbeddingLookup, 2, "1.14.0"},
    {kTfLiteBuiltinEmbeddingLookup, 3, "1.14.0"},
    {kTfLiteBuiltinEmbeddingLookup, 4, "2.18.0"},
    {kTfLiteBuiltinEmbeddingLookup, 5, "2.21.0"},
    {kTfLiteBuiltinFloor, 1, "1.9.0"},
    {kTfLiteBuiltinFullyConnected, 1, "1.5.0"},
    {kTfLiteBuiltinFullyConnected, 2, "1.10.0"},
    {kTfLiteBuiltinFullyConnected, 3, "1.14.0"},
    {kTfLiteBuiltinFullyConnected, 4, "1.14.0"},
    {kTfLiteBuiltinFullyConnected, 5, "2.0.0"},
    {kTfLiteBuiltinFullyConnected, 6, "2.1.0"},
    {kTfLiteBuiltinFullyConnected, 7, "2.3.0"},
    {kTfLiteBuiltinFullyConnected, 8, "2.3.0"},
    {kTfLiteBuiltinFullyConnected, 9, "2.3.0"},
    {kTfLiteBuiltinFullyConnected, 10, "2.11.0"},
    {kTfLiteBuiltinFullyConnected, 11, "2.15.0"},
    {kTfLiteBuiltinFullyConnected, 12, "2.17.0"},
    {kTfLiteBuiltinFullyConnected, 13, "2.18.0"},
    {kTfLiteBuiltinFullyConnected, 14, "2.21.0"},
    {kTfLiteBuiltinHashtableLookup, 1, "1.5.0"},
    {kTfLiteBuiltinL2Normalization, 1, "1.5.0"},
    {kTfLiteBuiltinL2Normalization, 2, "1.14.0"},
    {kTfLiteBuiltinL2Pool2d, 1, "1.5.0"},
    {kTfLiteBuiltinLocalResponseNormalization, 1, "1.5.0"},
    {kTfLiteBuiltinLogistic, 1, "1.14.0"},
    {kTfLiteBuiltinLogistic, 2, "1.14.0"},
    {kTfLiteBuiltinLogistic, 3, "2.3.0"},
    {kTfLiteBuiltinLshProjection, 1, "1.5.0"},
    {kTfLiteBuiltinLstm, 1, "1.7.0"},
    {kTfLiteBuiltinLstm, 2, "1.10.0"},
    {kTfLiteBuiltinLstm, 3, "1.14.0"},
    {kTfLiteBuiltinLstm, 4, "2.3.0"},
    {kTfLiteBuiltinMaxPool2d, 1, "1.5.0"},
    {kTfLiteBuiltinMaxPool2d, 2, "1.14.0"},
    {kTfLiteBuiltinMaxPool2d, 3, "2.3.0"},
    {kTfLiteBuiltinMul, 1, "1.5.0"},
    {kTfLiteBuiltinMul, 2, "1.14.0"},
    {kTfLiteBuiltinMul, 3, "1.15.0"},
    {kTfLiteBuiltinMul, 4, "2.3.0"},
    {kTfLiteBuiltinMul, 5, "2.6.0"},
    {kTfLiteBuiltinMul, 6, "2.11.0"},
    {kTfLiteBuiltinMul, 7, "2.13.0"},
    {kTfLiteBuiltinMul, 8, "2.23.0"},
    {kTfLiteBuiltinRelu, 1, "1.5.0"},
    {kTfLiteBuiltinRelu, 2, "2.1.0"},
    {kTfLiteBuiltinRelu, 3, "2.5.0"},
    {kTfLiteBuiltinReluN1To1, 1, "1.5.0"},
    {kTfLiteBuiltinRelu6, 1, "1.5.0"},
    {kTfLiteBuiltinRelu6, 2, "1.14.0"},
    {kTfLiteBuiltinRelu6, 3, "2.5.0"},
    {kTfLiteBuiltinReshape, 1, "1.5.0"},
    {kTfLiteBuiltinResizeBilinear, 1, "1.7.0"},
    {kTfLiteBuiltinResizeBilinear, 2, "1.14.0"},
    {kTfLiteBuiltinResizeBilinear, 3, "2.2.0"},
    {kTfLiteBuiltinResizeBilinear, 4, "2.5.0"},
    {kTfLiteBuiltinRnn, 1, "1.5.0"},
    {kTfLiteBuiltinRnn, 2, "1.14.0"},
    {kTfLiteBuiltinRnn, 3, "2.3.0"},
    {kTfLiteBuiltinSoftmax, 1, "1.5.0"},
    {kTfLiteBuiltinSoftmax, 2, "1.14.0"},
    {kTfLiteBuiltinSoftmax, 3, "2.3.0"},
    {kTfLiteBuiltinSoftmax, 4, "2.23.0"},
    {kTfLiteBuiltinSpaceToDepth, 1, "1.5.0"},
    {kTfLiteBuiltinSpaceToDepth, 2, "1.14.0"},
    {kTfLiteBuiltinSvdf, 1, "1.5.0"},
    {kTfLiteBuiltinSvdf, 2, "1.14.0"},
    {kTfLiteBuiltinSvdf, 3, "2.2.0"},
    {kTfLiteBuiltinSvdf, 4, "2.3.0"},
    {kTfLiteBuiltinTanh, 1, "1.14.0"},
    {kTfLiteBuiltinTanh, 2, "1.14.0"},
    {kTfLiteBuiltinTanh, 3, "2.3.0"},
    {kTfLiteBuiltinSkipGram, 1, "1.5.0"},
    {kTfLiteBuiltinEmbeddingLookupSparse, 1, "1.5.0"},
    {kTfLiteBuiltinPad, 1, "1.5.0"},
    {kTfLiteBuiltinPad, 2, "1.14.0"},
    {kTfLiteBuiltinPad, 3, "2.4.0"},
    {kTfLiteBuiltinPad, 4, "2.6.0"},
    {kTfLiteBuiltinPad, 5, "2.20.0"},
    {kTfLiteBuiltinUnidirectionalSequenceRnn, 1, "1.14.0"},
    {kTfLiteBuiltinUnidirectionalSequenceRnn, 2, "1.14.0"},
    {kTfLiteBuiltinUnidirectionalSequenceRnn, 3, "2.3.0"},
    {kTfLiteBuiltinGather, 1, "1.6.0"},
    {kTfLiteBuiltinGather, 2, "1.14.0"},
    {kTfLiteBuiltinGather, 3, "1.15.0"},
    {kTfLiteBuiltinGather, 4, "2.4.0"},
    {kTfLiteBuiltinGather, 5, "2.5.0"},
    {kTfLiteBuiltinGather, 6, "2.13.0"},
    {kTfLiteBuiltinGather, 7, "2.15.0"},
    {kTfLiteBuiltinBatchToSpaceNd, 1, "1.6.0"},
    {kTfLiteBuiltinBatchToSpaceNd, 2, "1.14.0"},
    {kTfLiteBuiltinBatchToSpaceNd, 3, "2.3.0"},
    {kTfLiteBuiltinBatchToSpaceNd, 4, "2.12.0"},
    {kTfLiteBuiltinSpaceToBatchNd, 1, "1.6.0"},
    {kTfLiteBuiltinSpaceToBatchNd, 2, "1.14.0"},
    {kTfLiteBuiltinSpaceToBatchNd, 3, "2.3.0"},
    {kTfLiteBuiltinSpaceToBatchNd, 4, "2.12.0"},
    {kTfLiteBuiltinTranspose, 1, "1.6.0"},
    {kTfLiteBuiltinTranspose, 2, "1.14.0"},
    {kTfLiteBuiltinTranspose, 3, "1.15.0"},
    {kTfLiteBuiltinTranspose, 4, "2.3.0"},
    {kTfLiteBuiltinTranspose, 5, "2.4.0"},
    {kTfLiteBuiltinTranspose, 6, "2.12.0"},
    {kTfLiteBuiltinTranspose, 7, "2.14.4"},
    {kTfLiteBuiltinTranspose, 8, "2.22.0"},
    {kTfLiteBuiltinTranspose, 9, "2.23.0"},
    {kTfLiteBuiltinMean, 1, "1.6.0"},
    {kTfLiteBuiltinMean, 2, "1.14.0"},
    {kTfLiteBuiltinMean, 3, "2.4.0"},
    {kTfLiteBuiltinSub, 1, "1.6.0"},
    {kTfLiteBuiltinSub, 2, "1.14.0"},
    {kTfLiteBuiltinSub, 3, "2.3.0"},
    {kTfLiteBuiltinSub, 4, "2.4.0"},
    {kTfLiteBuiltinSub, 5, "2.4.0"},
    {kTfLiteBuiltinDiv, 1, "1.6.0"},
    {kTfLiteBuiltinDiv, 2, "2.3.0"},
    {kTfLiteBuiltinSqueeze, 1, "1.6.0"},
    {kTfLiteBuiltinSqueeze, 2, "2.5.0"},
    {kTfLiteBuiltinUnidirectionalSequenceLstm, 1, "1.13.1"},
    {kTfLiteBuiltinUnidirectionalSequenceLstm, 2, "1.14.0"},
    {kTfLiteBuiltinUnidirectionalSequenceLstm, 3, "2.3.0"},
    {kTfLiteBuiltinUnidirectionalSequenceLstm, 4, "2.12.0"},
    {kTfLiteBuiltinStridedSlice, 1, "1.6.0"},
    {kTfLiteBuiltinStridedSlice, 2, "1.14.0"},
    {kTfLiteBuiltinStridedSlice, 3, "2.1.0"},
    {kTfLiteBuiltinStridedSlice, 4, "2.2.0"},
    {kTfLiteBuiltinStridedSlice, 5, "2.5.0"},
    {kTfLiteBuiltinStridedSlice, 6, "2.6.0"},
    {kTfLiteBuiltinStridedSlice, 7, "2.14.0"},
    {kTfLiteBuiltinStridedSlice, 8, "2.14.0"},
    {kTfLiteBuiltinBidirectionalSequenceRnn, 1, "1.14.0"},
    {kTfLiteBuiltinBidirectionalSequenceRnn, 2, "1.14.0"},
    {kTfLiteBuiltinBidirectionalSequenceRnn, 3, "2.3.0"},
    {kTfLiteBuiltinExp, 1, "1.7.0"},
    {kTfLiteBuiltinExp, 2, "2.12.0"},
    {kTfLiteBuiltinTopkV2, 1, "1.7.0"},
    {kTfLiteBuiltinTopkV2, 2, "1.14.0"},
    {kTfLiteBuiltinTopkV2, 3, "2.13.0"},
    {kTfLiteBuiltinSplit, 1, "1.5.0"},
    {kTfLiteBuiltinSplit, 2, "1.14.0"},
    {kTfLiteBuiltinSplit, 3, "1.14.0"},
    {kTfLiteBuiltinSplit, 4, "2.3.0"},
    {kTfLiteBuiltinLogSoftmax, 1, "1.14.0"},
    {kTfLiteBuiltinLogSoftmax, 2, "1.14.0"},
    {kTfLiteBuiltinBidirectionalSequenceLstm, 1, "1.14.0"},
    {kTfLiteBuiltinBidirectionalSequenceLstm, 2, "1.14.0"},
    {kTfLiteBuiltinBidirectionalSequenceLstm, 3, "1.14.0"},
    {kTfLiteBuiltinCast, 1, "1.5.0"},
    {kTfLiteBuiltinCast, 2, "2.7.0"},
    {kTfLiteBuiltinCast, 3, "2.8.0"},
    {kTfLiteBuiltinCast, 4, "2.9.0"},
    {kTfLiteBuiltinCast, 5, "2.12.0"},
    {kTfLiteBuiltinCast, 6, "2.15.0"},
    {kTfLiteBuiltinCast, 7, "2.17.0"},
    {kTfLiteBuiltinCast, 8, "2.21.0"},
    {kTfLiteBuiltinPrelu, 1, "1.8.0"},
    {kTfLiteBuiltinMaximum, 1, "1.14.0"},
    {kTfLiteBuiltinMaximum, 2, "1.14.0"},
    {kTfLiteBuiltinMaximum, 3, "2.3.0"},
    {kTfLiteBuiltinMaximum, 4, "2.3.0"},
    {kTfLiteBuiltinArgMax, 1, "1.9.0"},
    {kTfLiteBuiltinArgMax, 2, "1.14.0"},
    {kTfLiteBuiltinArgMax, 3, "2.9.0"},
    {kTfLiteBuiltinMinimum, 1, "1.14.0"},
    {kTfLiteBuiltinMinimum, 2, "1.14.0"},
    {kTfLiteBuiltinMinimum, 3, "2.3.0"},
    {kTfLiteBuiltinMinimum, 4, "2.3.0"},
    {kTfLiteBuiltinLess, 1, "1.14.0"},
    {kTfLiteBuiltinLess, 2, "1.14.0"},
    {kTfLiteBuiltinLess, 3, "2.13.0"},
    {kTfLiteBuiltinNeg, 1, "1.9.0"},
    {kTfLiteBuiltinPadv2, 1, "1.9.0"},
    {kTfLiteBuiltinPadv2, 2, "1.14.0"},
    {kTfLiteBuiltinPadv2, 3, "2.4.0"},
    {kTfLiteBuiltinPadv2, 4, "2.6.0"},
    {kTfLiteBuiltinPadv2, 5, "2.20.0"},
    {kTfLiteBuiltinGreater, 1, "1.14.0"},
    {kTfLiteBuiltinGreater, 2, "1.14.0"},
    {kTfLiteBuiltinGreaterEqual, 1, "1.14.0"},
    {kTfLiteBuiltinGreaterEqual, 2, "1.14.0"},
    {kTfLiteBuiltinGreaterEqual, 3, "2.13.0"},
    {kTfLiteBuiltinLessEqual, 1, "1.14.0"},
    {kTfLiteBuiltinLessEqual, 2, "1.14.0"},
    {kTfLiteBuiltinSelect, 1, "1.14.0"},
    {kTfLiteBuiltinSelect, 2, "1.14.0"},
    {kTfLiteBuiltinSelect, 3, "2.12.0"},
    {kTfLiteBuiltinSelect, 4, "2.12.0"},
    {kTfLiteBuiltinSlice, 1, "1.14.0"},
    {kTfLiteBuiltinSlice, 2, "1.14.0"},
    {kTfLiteBuiltinSlice, 3, "1.14.0"},
    {kTfLiteBuiltinSlice, 4, "2.4.0"},
    {kTfLiteBuiltinSlice, 5, "2.5.0"},
    {kTfLiteBuiltinSlice, 6, "2.14.0"},
    {kTfLiteBuiltinSlice, 7, "2.21.0"},
    {kTfLiteBuiltinSlice, 8, "2.23.0"},
    {kTfLiteBuiltinSin, 1, "1.9.0"},
    {kTfLiteBuiltinSin, 2, "2.23.0"},
    {kTfLiteBuiltinTransposeConv, 1, "1.9.0"},
    {kTfLiteBuiltinTransposeConv, 2, "2.2.0"},
    {kTfLiteBuiltinTransposeConv, 3, "2.3.0"},
    {kTfLiteBuiltinTransposeConv, 4, "2.13.0"},
    {kTfLiteBuiltinTransposeConv, 5, "2.15.0"},
    {kTfLiteBuiltinSparseToDense, 1, "1.9.0"},
    {kTfLiteBuiltinSparseToDense, 2, "1.14.0"},
    {kTfLiteBuiltinSparseToDense, 3, "1.15.0"},
    {kTfLiteBuiltinTile, 1, "1.10.1"},
    {kTfLiteBuiltinTile, 2, "2.2.0"},
    {kTfLiteBuiltinTile, 3, "2.8.0"},
    {kTfLiteBuiltinExpandDims, 1, "1.10.0"},
    {kTfLiteBuiltinEqual, 1, "1.14.0"},
    {kTfLiteBuiltinEqual, 2, "1.14.0"},
    {kTfLiteBuiltinEqual, 3, "2.3.0"},
    {kTfLiteBuiltinEqual, 4, "2.13.0"},
    {kTfLiteBuiltinEqual, 5, "2.21.0"},
    {kTfLiteBuiltinNotEqual, 1, "1.14.0"},
    {kTfLiteBuiltinNotEqual, 2, "1.14.0"},
    {kTfLiteBuiltinNotEqual, 3, "2.3.0"},
    {kTfLiteBuiltinNotEqual, 4, "2.21.0"},
    {kTfLiteBuiltinLog, 1, "1.14.0"},
    {kTfLiteBuiltinLog, 2, "2.15.0"},
    {kTfLiteBuiltinSum, 1, "1.10.0"},
    {kTfLiteBuiltinSum, 2, "1.15.0"},
    {kTfLiteBuiltinSqrt, 1, "1.10.0"},
    {kTfLiteBuiltinSqrt, 2, "2.21.0"},
    {kTfLiteBuiltinRsqrt, 1, "1.10.0"},
    {kTfLiteBuiltinRsqrt, 2, "2.5.0"},
    {kTfLiteBuiltinRsqrt, 3, "2.15.0"},
    {kTfLiteBuiltinShape, 1, "1.10.0"},
    {kTfLiteBuiltinPow, 1, "1.10.0"},
    {kTfLiteBuiltinArgMin, 1, "1.9.0"},
    {kTfLiteBuiltinArgMin, 2, "1.14.0"},
    {kTfLiteBuiltinArgMin, 3, "2.9.0"},
    {kTfLiteBuiltinFakeQuant, 1, "1.5.0"},
    {kTfLiteBuiltinFakeQuant, 2, "1.10.0"},
    {kTfLiteBuiltinReduceProd, 1, "1.11.0"},
    {kTfLiteBuiltinReduceProd, 2, "2.6.0"},
    {kTfLiteBuiltinReduceMax, 1, "1.11.0"},
    {kTfLiteBuiltinReduceMax, 2, "1.14.0"},
    {kTfLiteBuiltinReduceMax, 3, "2.5.0"},
    {kTfLiteBuiltinPack, 1, "1.11.0"},
    {kTfLiteBuiltinPack, 2, "1.14.0"},
    {kTfLiteBuiltinPack, 3, "2.3.0"},
    {kTfLiteBuiltinPack, 4, "2.13.0"},
    {kTfLiteBuiltinLogicalOr, 1, "1.11.0"},
    {kTfLiteBuiltinOneHot, 1, "1.11.0"},
    {kTfLiteBuiltinLogicalAnd, 1, "1.11.0"},
    {kTfLiteBuiltinLogicalNot, 1, "1.11.0"},
    {kTfLiteBuiltinUnpack, 1, "1.11.0"},
    {kTfLiteBuiltinUnpack, 2, "1.14.0"},
    {kTfLiteBuiltinUnpack, 3, "2.2.0"},
    {kTfLiteBuiltinUnpack, 4, "2.3.0"},
    {kTfLiteBuiltinUnpack, 5, "2.22.0"},
    {kTfLiteBuiltinReduceMin, 1, "1.11.0"},
    {kTfLiteBuiltinReduceMin, 2, "1.14.0"},
    {kTfLiteBuiltinReduceMin, 3, "2.5.0"},
    {kTfLiteBuiltinFloorDiv, 1, "1.14.0"},
    {kTfLiteBuiltinFloorDiv, 2, "1.14.0"},
    {kTfLiteBuiltinFloorDiv, 3, "2.13.0"},
    {kTfLiteBuiltinReduceAny, 1, "1.11.0"},
    {kTfLiteBuiltinSquare, 1, "1.12.0"},
    {kTfLiteBuiltinZerosLike, 1, "1.12.0"},
    {kTfLiteBuiltinFill, 1, "1.13.0"},
    {kTfLiteBuiltinFill, 2, "2.3.0"},
    {kTfLiteBuiltinFill, 3, "2.5.0"},
    {kTfLiteBuiltinFill, 4, "2.12.0"},
    {kTfLiteBuiltinFloorMod, 1, "1.13.0"},
    {kTfLiteBuiltinFloorMod, 2, "2.13.0"},
    {kTfLiteBuiltinRange, 1, "1.13.0"},
    {kTfLiteBuiltinRange, 2, "2.14.0"},
    {kTfLiteBuiltinResizeNearestNeighbor, 1, "1.13.1"},
    {kTfLiteBuiltinResizeNearestNeighbor, 2, "1.14.0"},
    {kTfLiteBuiltinResizeNearestNeighbor, 3, "2.3.0"},
    {kTfLiteBuiltinResizeNearestNeighbor, 4, "2.4.0"},
    {kTfLiteBuiltinLeakyRelu, 1, "1.13.1"},
    {kTfLiteBuiltinLeakyRelu, 2, "2.3.0"},
    {kTfLiteBuiltinSquaredDifference, 1, "1.13.1"},
    {kTfLiteBuiltinSquaredDifference, 2, "2.5.0"},
    {kTfLiteBuiltinMirrorPad, 1, "1.13.1"},
    {kTfLiteBuiltinMirrorPad, 2, "2.3.0"},
    {kTfLiteBuiltinMirrorPad, 3, "2.12.0"},
    {kTfLiteBuiltinAbs, 1, "1.13.0"},
    {kTfLiteBuiltinAbs, 2, "2.4.0"},
    {kTfLiteBuiltinAbs, 3, "2.5.0"},
    {kTfLiteBuiltinAbs, 4, "2.6.0"},
    {kTfLiteBuiltinAbs, 5, "2.12.0"},
    {kTfLiteBuiltinSplitV, 1, "1.13.1"},
    {kTfLiteBuiltinSplitV, 2, "2.3.0"},
    {kTfLiteBuiltinUnique, 1, "1.14.0"},
    {kTfLiteBuiltinCeil, 1, "1.14.0"},
    {kTfLiteBuiltinReverseV2, 1, "1.14.0"},
    {kTfLiteBuiltinReverseV2, 2, "2.2.0"},
    {kTfLiteBuiltinReverseV2, 3, "2.5.0"},
    {kTfLiteBuiltinAddN, 1, "1.14.0"},
    {kTfLiteBuiltinGatherNd, 1, "1.14.0"},
    {kTfLiteBuiltinGatherNd, 2, "2.3.0"},
    {kTfLiteBuiltinGatherNd, 3, "2.5.0"},
    {kTfLiteBuiltinGatherNd, 4, "2.13.0"},
    {kTfLiteBuiltinGatherNd, 5, "2.16.0"},
    {kTfLiteBuiltinCos, 1, "1.14.0"},
    {kTfLiteBuiltinCos, 2, "2.23.0"},
    {kTfLiteBuiltinWhere, 1, "1.14.0"},
    {kTfLiteBuiltinWhere, 2, "2.8.0"},
    {kTfLiteBuiltinRank, 1, "1.14.0"},
    {kTfLiteBuiltinElu, 1, "1.14.0"},
    {kTfLiteBuiltinReverseSequence, 1, "1.14.0"},
    {kTfLiteBuiltinMatrixDiag, 1, "1.14.0"},
    {kTfLiteBuiltinQuantize, 1, "1.14.0"},
    {kTfLiteBuiltinQuantize, 2, "1.15.0"},
    {kTfLiteBuiltinQuantize, 3, "2.7.0"},
    {kTfLiteBuiltinQuantize, 4, "2.21.0"},
    {kTfLiteBuiltinQuantize, 5, "2.21.0"},
    {kTfLiteBuiltinQuantize, 6, "2.21.0"},
    {kTfLiteBuiltinMatrixSetDiag, 1, "1.14.0"},
    {kTfLiteBuiltinRound, 1, "1.14.0"},
    {kTfLiteBuiltinHardSwish, 1, "1.15.0"},
    {kTfLiteBuiltinIf, 1, "1.15.0"},
    {kTfLiteBuiltinWhile, 1, "1.15.0"},
    {kTfLiteBuiltinNonMaxSuppressionV4, 1, "2.1.0"},
    {kTfLiteBuiltinNonMaxSuppressionV5, 1, "2.1.0"},
    {kTfLiteBuiltinScatterNd, 1, "2.1.0"},
    {kTfLiteBuiltinSelectV2, 1, "2.2.0"},
    {kTfLiteBuiltinSelectV2, 2, "2.12.0"},
    {kTfLiteBuiltinDensify, 1, "2.2.0"},
    {kTfLiteBuiltinSegmentSum, 1, "2.2.0"},
    {kTfLiteBuiltinBatchMatmul, 1, "2.3.0"},
    {kTfLiteBuiltinBatchMatmul, 2, "2.3.0"},
    {kTfLiteBuiltinBatchMatmul, 3, "2.4.0"},
    {kTfLiteBuiltinBatchMatmul, 4, "2.5.0"},
    {kTfLiteBuiltinCumsum, 1, "2.4.0"},
    {kTfLiteBuiltinCallOnce, 1, "2.5.0"},
    {kTfLiteBuiltinBroadcastTo, 2, "2.5.0"},
    {kTfLiteBuiltinBroadcastTo, 3, "2.5.0"},
    {kTfLiteBuiltinRfft2d, 1, "2.5.0"},
    {kTfLiteBuiltinConv3d, 1, "2.5.0"},
    {kTfLiteBuiltinImag, 1, "2.5.0"},
    {kTfLiteBuiltinReal, 1, "2.5.0"},
    {kTfLiteBuiltinComplexAbs, 1, "2.5.0"},
    {kTfLiteBuiltinHashtable, 1, "2.5.0"},
    {kTfLiteBuiltinHashtableFind, 1, "2.5.0"},
    {kTfLiteBuiltinHashtableImport, 1, "2.5.0"},
    {kTfLiteBuiltinHashtableSize, 1, "2.5.0"},
    {kTfLiteBuiltinReduceAll, 1, "2.6.0"},
    {kTfLiteBuiltinConv3dTranspose, 1, "2.6.0"},
    {kTfLiteBuiltinVarHandle, 1, "2.6.0"},
    {kTfLiteBuiltinReadVariable, 1, "2.6.0"},
    {kTfLiteBuiltinAssignVariable, 1, "2.6.0"},
    {kTfLiteBuiltinBroadcastArgs, 1, "2.6.0"},
    {kTfLiteBuiltinRandomStandardNormal, 1, "2.8.0"},
    {kTfLiteBuiltinBucketize, 1, "2.8.0"},
    {kTfLiteBuiltinRandomUniform, 1, "2.8.0"},
    {kTfLiteBuiltinMultinomial, 1, "2.8.0"},
    {kTfLiteBuiltinGelu, 1, "2.9.0"},
    {kTfLiteBuiltinGelu, 2, "2.9.0"},
    {kTfLiteBuiltinDynamicUpdateSlice, 1, "2.9.0"},
    {kTfLiteBuiltinDynamicUpdateSlice, 2, "2.17.0"},
    {kTfLiteBuiltinDynamicUpdateSlice, 3, "2.19.0"},
    {kTfLiteBuiltinDynamicUpdateSlice, 4, "2.20.0"},
    {kTfLiteBuiltinDynamicUpdateSlice, 5, "2.21.0"},
    {kTfLiteBuiltinDynamicUpdateSlice, 6, "2.22.0"},
    {kTfLiteBuiltinRelu0To1, 1, "2.10.0"},
    {kTfLiteBuiltinUnsortedSegmentProd, 1, "2.10.0"},
    {kTfLiteBuiltinUnsortedSegmentMax, 1, "2.10.0"},
    {kTfLiteBuiltinUnsortedSegmentSum, 1, "2.10.0"},
    {kTfLiteBuiltinAtan2, 1, "2.10.0"},
    {kTfLiteBuiltinUnsortedSegmentMin, 1, "2.11.0"},
    {kTfLiteBuiltinSign, 1, "2.11.0"},
    {kTfLiteBuiltinSign, 2, "2.12.0"},
    {kTfLiteBuiltinBitcast, 1, "2.13.0"},
    {kTfLiteBuiltinBitwiseXor, 1, "2.13.0"},
    {kTfLiteBuiltinRightShift, 1, "2.13.0"},
    {kTfLiteBuiltinStablehloAdd, 1, "2.16.0"},
    {kTfLiteBuiltinStablehloMultiply, 1, "2.16.0"},
    {kTfLiteBuiltinStablehloMaximum, 1, "2.16.0"},
    {kTfLiteBuiltinStablehloAnd, 1, "2.17.0"},
    {kTfLiteBuiltinStablehloMinimum, 1, "2.16.0"},
    {kTfLiteBuiltinStablehloScatter, 1, "2.15.0"},
    {kTfLiteBuiltinStablehloPad, 1, "2.16.0"},
    {kTfLiteBuiltinStablehloReduceWindow, 1, "2.16.0"},
    {kTfLiteBuiltinStablehloGather, 1, "2.16.0"},
    {kTfLiteBuiltinDilate, 1, "2.15.0"},
    {kTfLiteBuiltinStablehloRngBitGenerator, 1, "2.15.0"},
    {kTfLiteBuiltinReduceWindow, 1, "2.15.0"},
    {kTfLiteBuiltinStablehloComposite, 1, "2.17.0"},
    {kTfLiteBuiltinStablehloShiftLeft, 1, "2.17.0"},
    {kTfLiteBuiltinStablehloCase, 1, "2.17.0"},
};

#define LG_NUM_ENTRIES (sizeof(kEntries) / sizeof(kEntries[0]))

static int lg_entry_cmp(const void* key, const void* element) {
  const lg_runtime_entry* a = key;
  const lg_runtime_entry* b = element;
  if (a->code != b->code) return a->code < b->code ? -1 : 1;
  if (a->version != b->version) return a->version < b->version ? -1 : 1;
  return 0;
}

const char* lg_min_runtime_version(int32_t builtin_code, int version) {
  lg_runtime_entry key = {builtin_code, version, NULL};
  const lg_runtime_entry* e = bsearch(&key, kEntries, LG_NUM_ENTRIES,
                                      sizeof(kEntries[0]), lg_entry_cmp);
  return e != NULL ? e->runtime : "";
}

size_t lg_runtime_version_table_size(void) { return LG_NUM_ENTRIES; }

bool lg_runtime_version_table_entry(size_t index, int32_t* builtin_code,
                                    int* version,
                                    const char** runtime_version) {
  if (index >= LG_NUM_ENTRIES) return false;
  if (builtin_code != NULL) *builtin_code = kEntries[index].code;
  if (version != NULL) *version = kEntries[index].version;
  if (runtime_version != NULL) *runtime_version = kEntries[index].runtime;
  return true;
}

/* A cursor over the dot-separated parts of a version string. "" has no
 * parts; "1." has two ("1" and ""). */
typedef struct lg_parts {
  const char* p;
  bool done;
} lg_parts;

/* The next part: its value into *value, and whether it is a number (all
 * digits, not empty, short enough to be exact). False when none is left. */
static bool lg_next_part(lg_parts* c, unsigned long long* value,
                         bool* numeric) {
  if (c->done) return false;
  const char* p = c->p;
  int digits = 0;
  *value = 0;
  *numeric = true;
  for (; *p != '\0' && *p != '.'; ++p) {
    if (*p < '0' || *p > '9' || ++digits > 18) {
      *numeric = false;
    } else {
      *value = *value * 10 + (unsigned long long)(*p - '0');
    }
  }
  if (digits == 0) *numeric = false;
  if (*p == '.') {
    c->p = p + 1;
  } else {
    c->done = true;
  }
  return true;
}

int lg_compare_runtime_version(const char* a, const char* b) {
  lg_parts ca = {a != NULL ? a : "", a == NULL || *a == '\0'};
  lg_parts cb = {b != NULL ? b : "", b == NULL || *b == '\0'};
  for (;;) {
    unsigned long long va, vb;
    bool na, nb;
    bool has_a = lg_next_part(&ca, &va, &na);
    bool has_b = lg_next_part(&cb, &vb, &nb);
    if (!has_a || !has_b) return (int)has_a - (int)has_b;
    if (na && nb && va != vb) return va < vb ? -1 : 1;
  }
}

const char* lg_model_min_runtime_version(const lg_model* model) {
  const char* best = "";
  if (model == NULL) return best;
  for (int32_t s = 0; s < model->num_subgraphs; ++s) {
    const lg_model_subgraph* sg = &model->subgraphs[s];
    for (int32_t i = 0; i < sg->num_operators; ++i) {
      const lg_model_opcode* code =
          &model->opcodes[sg->operators[i].opcode_index];
      if (code->builtin_code == kTfLiteBuiltinCustom) continue;
      const char* v = lg_min_runtime_version(code->builtin_code, code->version);
      if (v[0] != '\0' && lg_compare_runtime_version(best, v) < 0) best = v;
    }
  }
  return best;
}
