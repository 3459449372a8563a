/* Shared pieces of the nn kernel family (CONV_2D, DEPTHWISE_CONV_2D,
 * TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL): TFLite's output-size and
 * padding formulas, kernel temporaries, prepacked weights, and the plain
 * reference implementations that the tests compare the fast paths with.
 *
 * The reference functions are straightforward loops in TFLite's order of
 * accumulation (float sums, bias added last, then the clamp); they
 * allocate nothing and are thread safe. Everything else here runs in
 * Prepare.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_NN_H_
#define LITEGPU_RUNTIME_KERNELS_NN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/thread_pool.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

struct lg_kernel_epilogue; /* kernel_context.h */

/* The geometry of a 2-D convolution over NHWC tensors, as the nn kernels
 * compute it in Prepare.
 *   CONV_2D:           filter [out_c, filter_h, filter_w, filter_c], groups =
 *                      in_c / filter_c, out_c a multiple of groups.
 *   DEPTHWISE_CONV_2D: filter [1, filter_h, filter_w, out_c], out_c = in_c *
 *                      depth multiplier; filter_c is unused.
 *   TRANSPOSE_CONV:    weights [out_c, filter_h, filter_w, in_c]; `in` and
 *                      `out` are the op's own input and output; dilation
 *                      is 1 and filter_c unused. */
typedef struct lg_conv_geometry {
  int batch;
  int in_h, in_w, in_c;
  int out_h, out_w, out_c;
  int filter_h, filter_w, filter_c;
  int stride_h, stride_w;
  int dilation_h, dilation_w;
  int pad_top, pad_left; /* the bottom / right padding follows from sizes */
  float act_min, act_max;
} lg_conv_geometry;

/* TFLite's output size along one dim: SAME gives ceil(in / stride), VALID
 * (in + stride - dilated_filter) / stride (C division, so it can be 0 or
 * negative for a filter larger than the input); 0 for an unknown padding
 * or a stride below 1. */
int lg_nn_out_size(TfLitePadding padding, int in, int filter, int stride,
                   int dilation);
/* The padding before the first element along one dim: half (rounded down)
 * of max(0, (out - 1) * stride + dilated_filter - in); the odd element goes
 * after. */
int lg_nn_pad_before(int in, int filter, int stride, int dilation, int out);

/* Sets g's out_h, out_w, pad_top and pad_left from its input, filter,
 * strides and dilations: with the explicit padding the interpreter folded
 * into `node` (lg_kernel_folded_padding; VALID over the padded extent),
 * else with `padding`. */
void lg_nn_window_padding(const TfLiteContext* context, const TfLiteNode* node,
                          TfLitePadding padding, lg_conv_geometry* g);

/* The output columns [*x_lo, *x_hi) of a convolution-like geometry whose
 * window lies inside the input along x: x * stride_w - pad_left >= 0 and
 * x * stride_w - pad_left + (filter_w - 1) * dilation_w < in_w; both within
 * [0, out_w] and x_hi >= x_lo. The kernels' fast paths take these columns
 * without edge checks. */
void lg_conv_interior_columns(const lg_conv_geometry* g, int* x_lo, int* x_hi);

/* "SAME", "VALID" or "UNKNOWN". */
const char* lg_nn_padding_name(TfLitePadding padding);

/* Checks padding, strides and dilations of a convolution: padding SAME or
 * VALID, every factor >= 1. Messages name the schema field ("CONV_2D:
 * stride_w must be at least 1, got 0"). */
TfLiteStatus lg_nn_check_window(TfLiteContext* context, const char* op,
                                TfLitePadding padding, int stride_w,
                                int stride_h, int dilation_w, int dilation_h);

/* CONV_3D and CONV_3D_TRANSPOSE's shared checks: an optional float bias of
 * `channels` elements, the window's strides and dilations (depth too),
 * and the fused activation's float clamp range into *act_min / *act_max. */
TfLiteStatus lg_nn_check_conv3d(TfLiteContext* context, const char* op,
                                const TfLiteConv3DParams* params,
                                const TfLiteTensor* bias, int channels,
                                float* act_min, float* act_max);

/* Checks `tensor` has exactly `rank` dims (and a valid shape); `what` names
 * it: "CONV_2D: filter must be 4-D, got [3,3]". */
TfLiteStatus lg_nn_check_rank(TfLiteContext* context, const char* op,
                              const char* what, const TfLiteTensor* tensor,
                              int rank);

/* Checks a float32 op's tensor type: "CONV_2D: input type INT8 is not
 * supported (expected FLOAT32)". */
TfLiteStatus lg_nn_check_float(TfLiteContext* context, const char* op,
                               const char* what, const TfLiteTensor* tensor);

/* Whether the tensor's contents are fixed for the interpreter's lifetime
 * (a model constant), so weights can be packed once in Prepare. */
bool lg_nn_is_constant(const TfLiteTensor* tensor);

/* INT4 weights (TFLite's packed INT4: two values a byte, the low nibble
 * first, each sign-extended) run as INT8 ones, unpacked once in Prepare.
 * When *weights is INT4 and `accepted` (the kernel takes INT4 with its
 * input type), the values go to *unpacked (malloc'ed; the caller frees it)
 * and *weights becomes `view`: a copy of the tensor retyped as INT8 over
 * them. The weights must then be a model constant holding ceil(n / 2)
 * bytes, with zero points 0 (TFLite's rule). Otherwise a previous
 * *unpacked is freed and *weights is left for the kernel's type checks. */
TfLiteStatus lg_nn_prepare_int4(TfLiteContext* context, const char* op,
                                bool accepted, const TfLiteTensor** weights,
                                int8_t** unpacked, TfLiteTensor* view);

/* The tensors of a convolution-like node (input 0, filter 1, optional bias 2,
 * output 0) as Invoke sees them. */
typedef struct lg_nn_io {
  const TfLiteTensor* input;
  const TfLiteTensor* filter;
  const TfLiteTensor* bias; /* NULL without a bias */
  TfLiteTensor* output;
} lg_nn_io;

/* Fetches them in Invoke and checks them against what Prepare saw: prepared,
 * the same element counts, data present. *empty is true (and nothing else is
 * checked) when the output has no elements, so there is nothing to do.
 * `filter_copied`: Prepare copied the filter into the kernel's own layout
 * and released it (lg_kernel_release_input), so its data may be gone. */
TfLiteStatus lg_nn_invoke_io(TfLiteContext* context, const TfLiteNode* node,
                             const char* op, bool prepared, bool filter_copied,
                             bool has_bias, int64_t input_elements,
                             int64_t output_elements, lg_nn_io* io,
                             bool* empty);

/* Makes the node's temporaries exactly ids[0..count): an id of -1 gets a new
 * tensor from context->AddTensors (written back, so that later Prepares
 * reuse it); each becomes a 1-D float32 arena tensor of floats[i] elements.
 * Note that AddTensors may move context->tensors: fetch tensor pointers
 * after this call. */
TfLiteStatus lg_nn_set_temporaries(TfLiteContext* context, TfLiteNode* node,
                                   const char* op, int* ids,
                                   const size_t* floats, int count);
/* Temporary `slot` of the node as float data, or NULL (with a message) when
 * it is missing or smaller than `floats`. */
float* lg_nn_temporary(TfLiteContext* context, const TfLiteNode* node,
                       const char* op, int slot, size_t floats);

/* A kernel-owned, 64-byte aligned buffer (prepacked weights), allocated in
 * Prepare and freed in Free. */
typedef struct lg_nn_buffer {
  float* data;
  size_t floats; /* capacity */
} lg_nn_buffer;
/* Makes room for `floats` floats (keeping a larger block). */
TfLiteStatus lg_nn_buffer_reserve(TfLiteContext* context, const char* op,
                                  lg_nn_buffer* buffer, size_t floats);
void lg_nn_buffer_free(lg_nn_buffer* buffer);

/* ---- Dynamic-range (hybrid) kernels (hybrid.c) -------------------------- */

/* A hybrid node's weight scales and its per-Invoke scratch: the quantized
 * input and each batch element's scale and zero point. */
typedef struct lg_hybrid {
  float* scales;           /* [out_c] weight scales */
  bool per_channel_layout; /* the weights carry one scale per channel */
  bool per_channel;        /* and they differ */
  bool asymmetric;         /* FULLY_CONNECTED's asymmetric_quantize_inputs */
  int8_t* quantized;       /* [input elements] */
  float* input_scales;     /* [batch] */
  int32_t* zero_points;    /* [batch] */
  /* FULLY_CONNECTED's fast path (AVX2, constant weights): the weights as
   * int16 rows of k_pad and their sums, one int16 input row, its sums. */
  int16_t* packed;
  int32_t* row_sums;
  int16_t* row16;
  int32_t* dots;
  int k_pad;
} lg_hybrid;

/* TFLite's on-the-fly input quantizations (hybrid.c describes them). */
void lg_hybrid_quantize_symmetric(const float* x, int64_t n, int8_t* q,
                                  float* scale);
void lg_hybrid_quantize_asymmetric(const float* x, int64_t n, int8_t* q,
                                   float* scale, int32_t* zero_point);

/* Reads the INT8 weights' quantization (per tensor, or per channel along
 * channel_axis with out_c scales; zero points 0) and sizes the scratch
 * for `batch` elements of input_elements in all. */
TfLiteStatus lg_hybrid_prepare(TfLiteContext* context, const char* op,
                               const TfLiteTensor* weights, int out_c,
                               int channel_axis, bool asymmetric,
                               int64_t input_elements, int batch, lg_hybrid* h);
void lg_hybrid_free(lg_hybrid* h);

/* Packs constant [units, depth] INT8 weights for the hybrid
 * FULLY_CONNECTED fast path on AVX2 CPUs (a no-op otherwise). */
TfLiteStatus lg_hybrid_pack_fc(TfLiteContext* context, const char* op,
                               lg_hybrid* h, const TfLiteTensor* weights,
                               int units, int depth);

/* Hybrid FULLY_CONNECTED on [batch, depth] input and [units, depth]
 * weights; bias may be NULL; the activation clamps to [act_min, act_max]. */
void lg_fc_hybrid_run(const lg_hybrid* h, int batch, int depth, int units,
                      const float* input, const int8_t* weights,
                      const float* bias, float act_min, float act_max,
                      float* output);

/* Hybrid TRANSPOSE_CONV (TFLite's HybridTransposeConv: asymmetric input
 * quantization, float terms summed in TFLite's input order) with OHWI
 * weights; the clamp is g's. */
void lg_transpose_conv_hybrid_run(const lg_hybrid* h, const lg_conv_geometry* g,
                                  const float* input, const int8_t* weights,
                                  const float* bias, float* output);

/* Hybrid CONV_2D on NHWC input with an OHWI filter; the clamp is g's. */
void lg_conv_hybrid_run(const lg_hybrid* h, const lg_conv_geometry* g,
                        int groups, const float* input, const int8_t* filter,
                        const float* bias, float* output);

/* ---- Quantized convolution (conv_quant.c) ------------------------------ */

/* What a quantized convolution needs beyond its geometry: the activation
 * type (INT8, INT16 for 16x8, or UINT8 with UINT8 filters), whether the bias
 * (and so TFLite's accumulator and rescale) is 64-bit, TFLite's offsets,
 * per-output-channel fixed-point multipliers and the activation's range. */
typedef struct lg_conv_quant {
  TfLiteType type;
  bool wide_bias; /* INT64 bias: int64 accumulators and rescale */
  int32_t input_offset, output_offset;
  int32_t filter_offset; /* -filter zero point: UINT8 only, else 0 */
  int32_t act_min, act_max;
  int32_t* multipliers; /* [out_c] */
  int* shifts;          /* [out_c] */
  bool simd;    /* INT8 / UINT8 on a CPU with AVX2: vector loops (INT8: and
                 * requantization) */
  bool simd512; /* and AVX-512 (F, BW, VL): 16 lanes at a time */
  /* INT8 CONV_2D's fast path (lg_conv_quant_pack): the constant filter as
   * int16 rows of k_pad, and per-task scratch (an input row and the sums
   * of one output pixel). NULL: the reference loops. */
  int16_t* packed;
  int k_pad;
  int16_t* rows; /* per slot: rows_stride elements (conv: 2 rows of k_pad) */
  int32_t* sums; /* per slot: sums_stride elements (2 x out_c) */
  size_t rows_stride, sums_stride;
  int slots; /* scratch slots, one per pool thread (indexed by the slot
              * lg_thread_pool_run_slots passes), each on cache lines of its
              * own */
  /* On CPUs with AVX-512 VNNI instead: the filter in the VNNI kernel's
   * blocks (quant_simd.h), its per-channel sums, and unsigned rows
   * (input + 128) of 4 * k4 bytes. */
  bool vnni;
  int k4, blocks;
  int8_t* packed8;
  int32_t* weight_sums; /* [out_c] */
  uint8_t* rows8;       /* [slots][4][4 * k4], slots rows8_stride apart */
  size_t rows8_stride;  /* bytes, whole cache lines */
  /* Windows of several taps: the kernel reads each tap in place from the
   * whole input flipped to unsigned bytes once per Invoke (flipped,
   * [batch][in_h][in_w][flip_c]), taps in the padding from pad8 (a row,
   * in_w * flip_c bytes, of the zero point + 128), through per-task pointer
   * lists [slots][5][filter_h * filter_w] (4 pixels' taps, then the output
   * row's tap bases). */
  bool taps_in_place;
  int flip_c; /* bytes per pixel in flipped and pad8: in_c rounded up to 4
               * (the padding bytes meet zero weights) */
  uint8_t* flipped;
  uint8_t* pad8;
  const uint8_t** tap_rows; /* slots tap_stride pointers apart */
  size_t tap_stride;
  /* The constant bias plus (input_offset - 128) * weight_sums: the
   * kernel's starting sums [16 * blocks]. */
  int32_t* fused_bias;
  /* INT8 DEPTHWISE_CONV_2D's fast path (lg_depthwise_quant_pack; NULL
   * dw_weights: the reference loops): the filter as pairs of taps
   * interleaved per channel, the bias with input_offset * (the channel's
   * weight sum) folded in, a row of input zero points the taps in the
   * padding read, and the vector width (LG_GEMM_ISA_AVX2 or _AVX512). */
  int16_t* dw_weights; /* [pairs][out_c][2] */
  /* The rescale in the AVX-512 kernels' form (quant_simd.h), with the VNNI
   * convolution or the AVX-512 depthwise path: [(out_c + 15) / 16]. */
  struct lg_requant16* rq;
  /* The AVX-512 depthwise path's 32-channel blocks (quant_simd.h's
   * lg_dw_int8_params): weights, bias and rescale in its permuted order. */
  int dw_blocks32;
  int16_t* dw_weights32;
  int32_t* dw_bias32;
  struct lg_requant16* rq32;
  int32_t* dw_bias; /* [out_c] */
  int8_t* dw_pad;   /* [in_w * in_c]: a row of input zero points */
  int dw_pairs;
  int dw_isa;
} lg_conv_quant;

/* Reads and checks the quantization of the input, filter and output (the
 * filter per tensor, or per channel along `filter_axis` with out_c scales,
 * zero points 0; INT16 input and output zero points 0) and fills `q` (its
 * arrays are replaced). */
TfLiteStatus lg_conv_quant_prepare(TfLiteContext* context, const char* op,
                                   const TfLiteTensor* input,
                                   const TfLiteTensor* filter,
                                   const TfLiteTensor* bias,
                                   const TfLiteTensor* output,
                                   TfLiteFusedActivation activation, int out_c,
                                   int filter_axis, lg_conv_quant* q);
void lg_conv_quant_free(lg_conv_quant* q);

/* INT8 input with INT8 filter and output and an INT32 bias (or none),
 * UINT8 input with UINT8 filter and output and an INT32 bias (or none), or
 * INT16 input with INT8 filter, INT16 output and an INT64 or INT32 bias (or
 * none); an error naming the four types otherwise. */
TfLiteStatus lg_conv_quant_check_types(TfLiteContext* context, const char* op,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* filter,
                                       const TfLiteTensor* bias,
                                       const TfLiteTensor* output);

/* Prepares INT8 / UINT8 CONV_2D's fast path when it applies (one group, a
 * constant filter, a CPU with AVX2: int16 rows; AVX-512 VNNI for INT8 with
 * a constant bias or none): packs the filter and reserves scratch for `threads`
 * tasks. Otherwise leaves the reference loops in place. */
TfLiteStatus lg_conv_quant_pack(TfLiteContext* context, const char* op,
                                lg_conv_quant* q, const lg_conv_geometry* g,
                                int groups, const TfLiteTensor* filter,
                                const TfLiteTensor* bias, int threads);

/* CONV_2D on quantized NHWC data with an OHWI filter and `groups` groups,
 * as TFLite's reference ConvPerChannel (bit for bit also on the fast
 * path, split over `pool`'s threads); bias may be NULL. */
void lg_conv_quant_run(const lg_conv_geometry* g, int groups,
                       const lg_conv_quant* q, const void* input,
                       const void* filter, const void* bias, void* output,
                       lg_thread_pool* pool);

/* Prepares INT8 DEPTHWISE_CONV_2D's fast path when it applies
 * (multiplier 1, a window of at most LG_DW_QUANT_MAX_TAPS taps, a constant
 * filter and a constant bias or none, a CPU with AVX2; AVX-512 BW: 32
 * channels at a time, with VNNI's vpdpwssd where the CPU has it): packs the
 * filter and folds the input offset into the bias. Otherwise leaves the
 * reference loops in place. */
#define LG_DW_QUANT_MAX_TAPS 64
TfLiteStatus lg_depthwise_quant_pack(TfLiteContext* context, const char* op,
                                     lg_conv_quant* q,
                                     const lg_conv_geometry* g,
                                     const TfLiteTensor* filter,
                                     const TfLiteTensor* bias);

/* DEPTHWISE_CONV_2D with a [1, h, w, out_c] filter (multiplier
 * out_c / in_c), as TFLite's reference DepthwiseConvPerChannel. */
void lg_depthwise_quant_run(const lg_conv_geometry* g, const lg_conv_quant* q,
                            const void* input, const void* filter,
                            const void* bias, void* output,
                            lg_thread_pool* pool);

/* Prepares INT8 TRANSPOSE_CONV's fast path (AVX2, constant weights): the
 * weights packed per filter tap (int16 rows, or with AVX-512 VNNI and a
 * depth that is a multiple of 4 the VNNI kernel's layout), scratch for
 * `threads` tasks. Otherwise leaves the reference loops. */
TfLiteStatus lg_transpose_conv_quant_pack(TfLiteContext* context,
                                          const char* op, lg_conv_quant* q,
                                          const lg_conv_geometry* g,
                                          const TfLiteTensor* weights,
                                          int threads);

/* TRANSPOSE_CONV with OHWI weights (g's in/out sizes and padding are the
 * transpose's), as TFLite's reference integer TransposeConv; output rows
 * split over the pool (each output pixel is computed the same way on any
 * thread count). */
void lg_transpose_conv_quant_run(const lg_conv_geometry* g,
                                 const lg_conv_quant* q, const void* input,
                                 const int8_t* filter, const void* bias,
                                 void* output, lg_thread_pool* pool);

/* ---- CONV_2D with few output channels (conv_narrow.c) -------------------- */

/* The most output channels the narrow path takes. */
#define LG_CONV_NARROW_MAX 4

/* Whether CONV_2D of geometry g (float32) takes the narrow path: one group,
 * at most LG_CONV_NARROW_MAX output channels, and a vector ISA (isa is the
 * GEMM's: lg_gemm_isa values; the scalar one never takes it). */
bool lg_conv_narrow_applies(const lg_conv_geometry* g, int groups, int isa);
/* Scratch floats lg_conv_narrow_run needs on a pool of `tasks` threads (one
 * slot per thread). */
size_t lg_conv_narrow_scratch_floats(const lg_conv_geometry* g, int tasks);
/* The convolution (OHWI filter, optional bias) into output, split over the
 * pool's threads as far as the scratch allows. Only where
 * lg_conv_narrow_applies. */
void lg_conv_narrow_run(const lg_conv_geometry* g, int isa, const float* input,
                        const float* filter, const float* bias, float* output,
                        float* scratch, size_t scratch_floats,
                        lg_thread_pool* pool);

/* ---- CONV_2D over a shallow input (conv_shallow.c) ----------------------- */

/* The most input channels the shallow path takes. */
#define LG_CONV_SHALLOW_MAX_CHANNELS 4

/* Whether CONV_2D of geometry g (float32) takes the shallow path: one
 * group, a constant filter, at most LG_CONV_SHALLOW_MAX_CHANNELS input and
 * more than LG_CONV_NARROW_MAX output channels, a window of at most 256
 * values, and a vector ISA. */
bool lg_conv_shallow_applies(const lg_conv_geometry* g, int groups, int isa,
                             bool constant_filter);
/* Floats of the filter packed as [tap][output channel], and the packing
 * (Prepare). */
size_t lg_conv_shallow_packed_floats(const lg_conv_geometry* g, int isa);
void lg_conv_shallow_pack(const lg_conv_geometry* g, int isa,
                          const float* filter, float* packed);
/* Floats of scratch lg_conv_shallow_run needs: a zero-padded copy of the
 * input where that copies less than padding each edge window on its own;
 * 0 for none. */
size_t lg_conv_shallow_scratch_floats(const lg_conv_geometry* g);
/* The convolution into output, split over the pool's threads, each task
 * running `epilogue` (NULL: none; kernel_context.h) on its pixels while
 * they are in cache. Only where lg_conv_shallow_applies; scratch holds
 * lg_conv_shallow_scratch_floats floats, and is NULL when that is 0 (the
 * caller keeps the size from Prepare: it walks every output pixel). */
void lg_conv_shallow_run(const lg_conv_geometry* g, int isa, const float* input,
                         const float* packed, const float* bias, float* output,
                         float* scratch,
                         const struct lg_kernel_epilogue* epilogue,
                         lg_thread_pool* pool);

/* ---- CONV_2D as a GEMM per window row (conv_rows.c) ---------------------- */

/* Whether CONV_2D of geometry g (float32) takes the window-row path: one
 * group, dilation_w 1, a constant filter, more than LG_CONV_NARROW_MAX and
 * at most LG_GEMM_DIRECT_MAX_PANELS B panels of output channels, a vector
 * ISA, window rows of 16 floats or more, and not a 1x1 stride-1 window. */
bool lg_conv_rows_applies(const lg_conv_geometry* g, int groups, int isa,
                          bool constant_filter);
/* Floats of the filter packed per window row, and the packing (Prepare). */
size_t lg_conv_rows_packed_floats(const lg_conv_geometry* g, int isa);
void lg_conv_rows_pack(const lg_conv_geometry* g, int isa, const float* filter,
                       float* packed);
/* Scratch floats lg_conv_rows_run needs on a pool of `tasks` threads (one
 * slot per thread; the padded input copy included). */
size_t lg_conv_rows_scratch_floats(const lg_conv_geometry* g, int isa,
                                   int tasks);
/* The convolution into output, split over the pool's threads as far as the
 * scratch allows. Only where lg_conv_rows_applies. */
void lg_conv_rows_run(const lg_conv_geometry* g, int isa, const float* input,
                      const float* packed, const float* bias, float* output,
                      float* scratch, size_t scratch_floats,
                      lg_thread_pool* pool);

/* ---- Reference implementations ----------------------------------------- */

/* CONV_2D: output [batch, out_h, out_w, out_c]; bias may be NULL. */
void lg_conv_reference(const lg_conv_geometry* g, const float* input,
                       const float* filter, const float* bias, float* output);
/* DEPTHWISE_CONV_2D: output channel o reads input channel o / (out_c /
 * in_c). */
void lg_depthwise_conv_reference(const lg_conv_geometry* g, const float* input,
                                 const float* filter, const float* bias,
                                 float* output);
/* TRANSPOSE_CONV: every input pixel scatters input . weights into the
 * output window at (y * stride - pad_top, x * stride - pad_left). */
void lg_transpose_conv_reference(const lg_conv_geometry* g, const float* input,
                                 const float* weights, const float* bias,
                                 float* output);
/* FULLY_CONNECTED: output[b][o] = clamp(sum_i input[b][i] w[o][i] + bias). */
void lg_fully_connected_reference(int batch, int in_depth, int out_depth,
                                  const float* input, const float* weights,
                                  const float* bias, float act_min,
                                  float act_max, float* output);

/* BATCH_MATMUL's shapes: both operands extended to `rank` (2..5) dims with
 * leading 1s; the batch dims broadcast. */
#define LG_BATCH_MATMUL_MAX_RANK 5
typedef struct lg_batch_matmul_geometry {
  int rank;
  int lhs[LG_BATCH_MATMUL_MAX_RANK];
  int rhs[LG_BATCH_MATMUL_MAX_RANK];
  int out[LG_BATCH_MATMUL_MAX_RANK];
  bool adj_x, adj_y;
} lg_batch_matmul_geometry;
void lg_batch_matmul_reference(const lg_batch_matmul_geometry* g,
                               const float* lhs, const float* rhs,
                               float* output);

#endif /* LITEGPU_RUNTIME_KERNELS_NN_H_ */
