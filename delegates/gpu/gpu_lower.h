/* Lowering a claimed partition into a GPU program (backend-neutral).
 *
 * Each op the GPU runs has an lg_gpu_lowering, named by its row of the op
 * manifest (ops/ops.def): its builtin code, a check of this
 * implementation's own limits (lg_gpu_limits_<lowering>, beyond TFLite's
 * rules in op_support.c), and a lower function (lg_gpu_lower_<lowering>)
 * that turns one node into dispatches of kernels from the backend's
 * embedded sources (shaders/opencl/NAME.cl for OpenCL), or into an alias
 * when the node only renames bytes (RESHAPE).
 *
 * Layout: a tensor on the device has exactly the bytes it has on the host,
 * dense and row-major (NHWC for 4-D). Partition boundaries are therefore
 * plain copies, shape ops are aliases or index remaps, and kernels read
 * channels as float4/float8 vectors (vload4/vload8) where the innermost
 * dimension allows; the repacking that a kernel wants for vector loads is
 * done once, on the weights (constants), never on activations. Channel
 * padding to 4 (TFLite's PHWC4) was weighed and not chosen: it would put a
 * conversion on every partition boundary and every reshape-like op.
 *
 * Shapes: the interpreter prepares the CPU graph before a delegate's
 * Prepare and marks the graph immutable after, so every tensor's dims and
 * bytes in the context are final when a node is lowered.
 *
 * Precision: when the backend runs in half precision (fp16_storage),
 * every float32 tensor and every lg_gpu_lower_constant_floats constant is
 * float16 on the device; the program converts partition inputs, outputs
 * and constant tensors on the host. Kernels see LG_FP16 defined.
 *
 * Memory: the program gives each non-constant tensor a lifetime (first and
 * last dispatch using it; partition inputs live from the start, partition
 * outputs to the end) and places tensors in shared device buffers, largest
 * first, reusing a buffer whose other tensors' lifetimes do not overlap.
 * Constants get their own buffers, uploaded once.
 *
 *   static TfLiteStatus lower_relu(lg_gpu_program* p, TfLiteContext* ctx,
 *                                  const TfLiteNode* node,
 *                                  const TfLiteRegistration* reg) {
 *     const int n =
 * (int)lg_gpu_elements(&ctx->tensors[node->outputs->data[0]]); const
 * lg_gpu_operand args[] = {LG_GPU_TENSOR(node->inputs->data[0]),
 *                                    LG_GPU_TENSOR(node->outputs->data[0]),
 *                                    LG_GPU_INT(n)};
 *     const size_t global[1] = {(size_t)n};
 *     return lg_gpu_lower_dispatch(p, "unary", "-DLG_OP=2", args, 3, 1,
 *                                  global, NULL);
 *   }
 *
 * Errors: a lower function returns kTfLiteError after lg_gpu_lower_fail
 * (or a failing lg_gpu_lower_* call) recorded the reason; the delegate
 * reports it and the partition stays on the CPU.
 */
#ifndef LITEGPU_DELEGATES_GPU_GPU_LOWER_H_
#define LITEGPU_DELEGATES_GPU_GPU_LOWER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/op_manifest.h"
#include "partition/delegate_kit.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

typedef struct lg_gpu_program lg_gpu_program;

typedef enum lg_gpu_operand_kind {
  LG_GPU_OPERAND_TENSOR = 0,   /* a context tensor (buffer) */
  LG_GPU_OPERAND_CONSTANT = 1, /* data given to lg_gpu_lower_constant */
  LG_GPU_OPERAND_SCRATCH = 2,  /* a buffer from lg_gpu_lower_scratch */
  LG_GPU_OPERAND_INT = 3,
  LG_GPU_OPERAND_FLOAT = 4,
} lg_gpu_operand_kind;

/* One kernel argument as the lowering sees it. */
typedef struct lg_gpu_operand {
  lg_gpu_operand_kind kind;
  union {
    int id; /* tensor index, constant id or scratch id */
    int32_t i;
    float f;
  } value;
} lg_gpu_operand;

#define LG_GPU_TENSOR(t) \
  ((lg_gpu_operand){.kind = LG_GPU_OPERAND_TENSOR, .value.id = (t)})
#define LG_GPU_CONSTANT(c) \
  ((lg_gpu_operand){.kind = LG_GPU_OPERAND_CONSTANT, .value.id = (c)})
#define LG_GPU_SCRATCH(s) \
  ((lg_gpu_operand){.kind = LG_GPU_OPERAND_SCRATCH, .value.id = (s)})
#define LG_GPU_INT(x) \
  ((lg_gpu_operand){.kind = LG_GPU_OPERAND_INT, .value.i = (int32_t)(x)})
#define LG_GPU_FLOAT(x) \
  ((lg_gpu_operand){.kind = LG_GPU_OPERAND_FLOAT, .value.f = (float)(x)})

#define LG_GPU_MAX_ARGS 24

/* Records one dispatch of kernel `kernel` built with `defines` (NULL: none)
 * over global[0..dims) work items; `local` NULL lets the backend choose.
 * A `local` size is a performance choice that SUSTAINED_SPEED's tuning may
 * replace (gpu_tune.h), unless the defines say "-DLG_WG=": a kernel whose
 * work-group memory or global size depends on its size says so.
 * A `local` size above what the built kernel allows on the device fails
 * the lowering (the partition stays on the CPU) instead of every Invoke.
 * A dispatch with an empty global range is dropped (nothing to compute).
 * Tensor operands become live for this dispatch. */
TfLiteStatus lg_gpu_lower_dispatch(lg_gpu_program* p, const char* kernel,
                                   const char* defines,
                                   const lg_gpu_operand* args, int num_args,
                                   int dims, const size_t* global,
                                   const size_t* local);

/* Copies `bytes` of host data into a device constant uploaded at Prepare,
 * as is (index tables, coordinate tables: data whose type the kernel fixes;
 * tensor-like float data goes through lg_gpu_lower_constant_floats).
 * Returns its id, or -1 after recording the failure. */
int lg_gpu_lower_constant(lg_gpu_program* p, const void* data, size_t bytes);

/* A device constant of `count` floats that kernels read as tensor data
 * (weights, biases): stored as float16 when the backend runs in half
 * precision, like every float32 tensor. Returns its id, or -1. */
int lg_gpu_lower_constant_floats(lg_gpu_program* p, const float* data,
                                 size_t count);

/* lg_gpu_lower_constant_floats for `count` malloc'd floats the program
 * takes (freed on failure too): packed weights skip a copy, which a resize
 * (lg_gpu_program_relower) pays again for every constant. */
int lg_gpu_lower_constant_floats_taken(lg_gpu_program* p, float* data,
                                       size_t count);

/* A temporary device buffer of `bytes` living only through the dispatches
 * of the node being lowered. Returns its id, or -1 after recording. */
int lg_gpu_lower_scratch(lg_gpu_program* p, size_t bytes);

/* A scratch buffer of `count` floats of tensor data that kernels read and
 * write as tensors (float16 when the backend runs in half precision).
 * Returns its id, or -1. */
int lg_gpu_lower_scratch_floats(lg_gpu_program* p, size_t count);

/* Makes tensor `out` share tensor `in`'s device bytes (same byte size, e.g.
 * RESHAPE); no dispatch. */
TfLiteStatus lg_gpu_lower_alias(lg_gpu_program* p, int out, int in);

/* Fusion of a following ADD: when tensor `t` (an output of the node being
 * lowered) is read by exactly one node, an ADD of the same partition whose
 * other operand has t's shape and already holds its value where t is
 * produced (a constant, a partition input or an earlier node's output: the
 * fused ADD runs at t's producer), and t is not a partition output, that
 * ADD is absorbed: this returns true with the ADD's other operand in
 * *addend, its output in *out and its fused activation in *activation,
 * and the lowering computes out = activation(value of t + addend) itself;
 * t is then never written. False (nothing absorbed) otherwise, and always
 * during claim-time trial lowerings. */
bool lg_gpu_lower_fuse_add(lg_gpu_program* p, int t, int* addend, int* out,
                           TfLiteFusedActivation* activation);

/* Declares that the node being lowered writes new contents into variable
 * tensor `tensor` (an LSTM's state: an input of the node, kTfLiteArenaRw-
 * Persistent, is_variable), with dispatches that run after every read of
 * its old contents. The variable is uploaded before each run like any
 * partition input and downloaded into the CPU's tensor after it, so the
 * state carries across Invokes (and ResetVariableTensors on the CPU
 * applies). kTfLiteError (recorded) for a tensor that is not a variable
 * input of the partition. */
TfLiteStatus lg_gpu_lower_update_variable(lg_gpu_program* p, int tensor);

/* Records why lowering failed (printf format); returns kTfLiteError. */
TfLiteStatus lg_gpu_lower_fail(lg_gpu_program* p, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The work-group size limit of the device (for kernels that need a fixed
 * local size, such as reductions). */
size_t lg_gpu_lower_max_work_group(const lg_gpu_program* p);

/* The device's lockstep width (lg_gpu_device_info.simd_width; 0 when
 * unknown): work groups narrower than this along dimension 0 leave lanes
 * idle. */
size_t lg_gpu_lower_simd_width(const lg_gpu_program* p);

/* True while the program is lowered again at new shapes
 * (lg_gpu_program_relower) and kernel `kernel` with `defines` is already
 * built: a lowering whose blocking follows the shapes may then prefer a
 * blocking whose kernel needs no build (see lower_conv.c's pointwise). */
bool lg_gpu_lower_kernel_reusable(const lg_gpu_program* p, const char* kernel,
                                  const char* defines);

/* True when a kernel invocation running `iterations` loop iterations (all
 * its loops together, an upper bound) stays within the device's limit
 * (lg_gpu_device_info.max_loop_iterations; always true without one). */
bool lg_gpu_lower_loops_fit(const lg_gpu_program* p, int64_t iterations);

/* kTfLiteOk when lg_gpu_lower_loops_fit; otherwise fails the lowering with
 * a reason that names `what` (the loops, e.g. "the 5x5x896 window") and the
 * limit, so the node stays on the CPU. */
TfLiteStatus lg_gpu_lower_check_loops(lg_gpu_program* p, int64_t iterations,
                                      const char* what);

/* ---- Helpers for lowerings ------------------------------------------------
 */

/* The parameter list of lg_kit_check_fn, as lowerings' limit checks take
 * it: bool lg_gpu_limits_x(LG_GPU_CHECK_ARGS). */
#define LG_GPU_CHECK_ARGS                         \
  TfLiteContext *context, const TfLiteNode *node, \
      const TfLiteRegistration *registration, char *reason, size_t size

/* The context tensor at position `i` of a node's `list` (inputs or
 * outputs); the position must exist. */
static inline const TfLiteTensor* lg_gpu_node_tensor(
    const TfLiteContext* context, const TfLiteIntArray* list, int i) {
  return &context->tensors[list->data[i]];
}

/* The tensor's rank, -1 when it has no shape. */
static inline int lg_gpu_rank(const TfLiteTensor* t) {
  return t->dims != NULL ? t->dims->size : -1;
}

/* TFLite's padding before the first element of a pooling window (the
 * smaller half of the total), for an output of `out` along a dim of `in`. */
static inline int lg_gpu_pool_padding(int in, int filter, int stride, int out) {
  const int64_t total = ((int64_t)out - 1) * stride + filter - in;
  return total > 0 ? (int)(total / 2) : 0;
}

/* The limits every lowering of one input and one output shares: input 0
 * and output 0 have shapes, are non-empty and small enough for the
 * kernels' 32-bit indexing. Writes the reason and returns false if not. */
bool lg_gpu_lower_check_sizes(const TfLiteContext* context,
                              const TfLiteNode* node, char* reason,
                              size_t size);

/* The work-group size of kernels that need a fixed one: the largest power
 * of two within the device's limit and 128 (so it also fits kernels whose
 * own limit is below the device's). */
size_t lg_gpu_lower_group_size(const lg_gpu_program* p);

/* Number of elements of a tensor (0 when a dim is 0). */
size_t lg_gpu_elements(const TfLiteTensor* t);

/* The tensor's dims right-aligned into 4 (N, H, W, C), leading 1s;
 * false when its rank is above 4. */
bool lg_gpu_shape4(const TfLiteTensor* t, int32_t out[4]);

/* Turns tensor `t`, an output of the node being lowered, into a device
 * constant holding `bytes` of `data` (computed on the host at lowering,
 * e.g. DEQUANTIZE of constant weights); no dispatch. */
TfLiteStatus lg_gpu_lower_constant_tensor(lg_gpu_program* p, int t,
                                          const void* data, size_t bytes);

/* A fused activation as kernels apply it: clamp to [*lo, *hi] (NaN passes,
 * as on the CPU), then tanh when *define is "-DLG_ACT_TANH" (else "").
 * false for activations the GPU does not run (SIGN_BIT). */
bool lg_gpu_activation(TfLiteFusedActivation act, float* lo, float* hi,
                       const char** define);

/* ---- Quantized tensors (TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT) ------
 * As TFLite's GPU delegate runs a quantized graph (gpu_quant.c): an INT8 or
 * UINT8 activation with per-tensor affine quantization is float on the
 * device (float16 in half precision), dequantized on the host when it
 * enters a partition and quantized on the host when it leaves;
 * quantized constants (weights, INT32 biases, per tensor or per channel)
 * are dequantized once at lowering; after every node whose output TFLite
 * quantizes and another node of the partition reads, a fake-quantization
 * dispatch (shaders/kernels/fake_quant.lgk) snaps the floats to the
 * output's quantization grid, so the graph follows the integer one; after a
 * quantized convolution or UINT8 FULLY_CONNECTED (float32) it rounds
 * twice, as the CPU's multiplier/shift requantization. */

/* A per-tensor quantization as the GPU applies it: the grid's real-valued
 * ends lo = (qmin - zero_point) * scale and hi = (qmax - zero_point) *
 * scale. */
typedef struct lg_gpu_quant {
  float scale;
  int32_t zero_point;
  int32_t qmin, qmax;
  float lo, hi;
} lg_gpu_quant;

/* True (filling *q when q is not NULL) for a non-constant INT8 or UINT8
 * tensor with one finite positive scale and a zero point in its type's
 * range. */
bool lg_gpu_quantized_activation(const TfLiteTensor* t, lg_gpu_quant* q);

/* True for a constant INT8, UINT8 or INT32 tensor with affine quantization,
 * per tensor or per channel (one finite positive scale per slice of its
 * quantized dimension; zero points in range), which the GPU dequantizes
 * at lowering. */
bool lg_gpu_dequantizable_constant(const TfLiteTensor* t);

/* True when the device holds the tensor as float data: float32, a
 * quantized activation or a dequantizable constant. */
bool lg_gpu_float_tensor(const TfLiteTensor* t);

/* True for a constant tensor whose floats lg_gpu_constant_floats gives:
 * float32, or a dequantizable constant. */
bool lg_gpu_is_constant_floats(const TfLiteTensor* t);

/* A constant tensor's float data (kTfLiteMmapRo or kTfLitePersistentRo):
 * float32 data as is, a dequantizable constant's values dequantized once
 * per program (the program owns the copy, until Prepare has uploaded the
 * constants); NULL for anything else or when out of memory. Only during
 * lowering. */
const float* lg_gpu_constant_floats(lg_gpu_program* p, const TfLiteTensor* t);

/* The first value of a constant float32 or dequantizable tensor into *v;
 * false for anything else. */
bool lg_gpu_constant_scalar(const TfLiteTensor* t, float* v);

/* Records a fake-quantization dispatch onto `q`'s grid from tensor `in` to
 * tensor `out` (the same index: in place); ties go up, or away from zero
 * with `ties_away` (a QUANTIZE of float data, as the CPU rounds it). */
TfLiteStatus lg_gpu_lower_fake_quant(lg_gpu_program* p, int in, int out,
                                     const lg_gpu_quant* q, bool ties_away);

/* The fake quantization onto grid `to` of tensor `in`, on grid `from`,
 * into `out`, rounding as the CPU's requantizing QUANTIZE (TFLite's
 * multiplier/shift of from's scale / to's scale: twice) in float32, once
 * in half precision. */
TfLiteStatus lg_gpu_lower_requantize(lg_gpu_program* p, int in, int out,
                                     const lg_gpu_quant* from,
                                     const lg_gpu_quant* to);

/* ---- Per-op lowering table ------------------------------------------------
 */

typedef TfLiteStatus (*lg_gpu_lower_fn)(lg_gpu_program* p,
                                        TfLiteContext* context,
                                        const TfLiteNode* node,
                                        const TfLiteRegistration* reg);

typedef struct lg_gpu_lowering {
  int32_t builtin_code;
  /* This implementation's limits beyond op_support.c (NULL: none); the
   * reason it writes is shown after "GPU delegate: ". */
  lg_kit_check_fn check;
  lg_gpu_lower_fn lower;
  const char* custom_name; /* for kTfLiteBuiltinCustom, else NULL */
} lg_gpu_lowering;

/* lg_gpu_limits_<lowering> and lg_gpu_lower_<lowering> of every GPU row
 * of the op manifest (ops/ops.def); lower_<family>.c defines them, and
 * gpu_lower_registry.c derives the table from the manifest. */
#define LG_GPU_LOWERING_DECLARE(NAME, code, custom, family, cpu, cpu_min,  \
                                cpu_max, gpu, max, support, lowering, ...) \
  LG_GPU_LOWERING_DECLARE_##gpu(lowering)
#define LG_GPU_LOWERING_DECLARE_GPU(lowering)                            \
  bool lg_gpu_limits_##lowering(TfLiteContext* context,                  \
                                const TfLiteNode* node,                  \
                                const TfLiteRegistration* registration,  \
                                char* reason, size_t reason_size);       \
  TfLiteStatus lg_gpu_lower_##lowering(                                  \
      lg_gpu_program* p, TfLiteContext* context, const TfLiteNode* node, \
      const TfLiteRegistration* reg);
#define LG_GPU_LOWERING_DECLARE_NO_GPU(lowering)
#define LG_MANIFEST_EACH LG_GPU_LOWERING_DECLARE
#include "ops/op_manifest_each.h"
#undef LG_GPU_LOWERING_DECLARE
#undef LG_GPU_LOWERING_DECLARE_GPU
#undef LG_GPU_LOWERING_DECLARE_NO_GPU

/* The lowering of a builtin code (a custom op: kTfLiteBuiltinCustom and
 * its name) across every family, or NULL. */
const lg_gpu_lowering* lg_gpu_lowering_find(int32_t builtin_code,
                                            const char* custom_name);

#endif /* LITEGPU_DELEGATES_GPU_GPU_LOWER_H_ */
