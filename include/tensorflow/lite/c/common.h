/* litegpu: TFLite-compatible kernel and delegate structures.
 *
 * TfLiteTensor, TfLiteNode, TfLiteContext, TfLiteRegistration and
 * TfLiteDelegate with TFLite's field order, so kernels and delegates written
 * against TFLite's common.h build against litegpu. Fields are only ever
 * appended.
 *
 * Ownership: arrays created with TfLiteIntArrayCreate/TfLiteFloatArrayCreate
 * are freed with the matching Free function. Structures handed to kernels and
 * delegates (tensors, nodes, the context) belong to the interpreter and live
 * until it is deleted or the graph is modified. Thread safety: one interpreter
 * must not be used from two threads at once.
 */
#ifndef TENSORFLOW_LITE_C_COMMON_H_
#define TENSORFLOW_LITE_C_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Small arrays ------------------------------------------------------ */

/* A counted array of ints, allocated in one block with its elements. */
typedef struct TfLiteIntArray {
  int size;
  int data[];
} TfLiteIntArray;

/* Bytes needed for an int array of `size` elements. */
TFL_CAPI_EXPORT size_t TfLiteIntArrayGetSizeInBytes(int size);
/* A new array of `size` uninitialised elements; NULL on failure. */
TFL_CAPI_EXPORT TfLiteIntArray* TfLiteIntArrayCreate(int size);
/* 1 when both arrays have the same size and elements (NULL equals NULL). */
TFL_CAPI_EXPORT int TfLiteIntArrayEqual(const TfLiteIntArray* a,
                                        const TfLiteIntArray* b);
/* 1 when `a` holds exactly the `b_size` elements of `b_data`. */
TFL_CAPI_EXPORT int TfLiteIntArrayEqualsArray(const TfLiteIntArray* a,
                                              int b_size, const int b_data[]);
/* A new copy of `src`, or NULL when src is NULL or memory runs out. */
TFL_CAPI_EXPORT TfLiteIntArray* TfLiteIntArrayCopy(const TfLiteIntArray* src);
/* Frees an array from TfLiteIntArrayCreate/Copy; NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteIntArrayFree(TfLiteIntArray* a);

typedef struct TfLiteFloatArray {
  int size;
  float data[];
} TfLiteFloatArray;

TFL_CAPI_EXPORT int TfLiteFloatArrayGetSizeInBytes(int size);
TFL_CAPI_EXPORT TfLiteFloatArray* TfLiteFloatArrayCreate(int size);
TFL_CAPI_EXPORT TfLiteFloatArray* TfLiteFloatArrayCopy(
    const TfLiteFloatArray* src);
TFL_CAPI_EXPORT void TfLiteFloatArrayFree(TfLiteFloatArray* a);

/* ---- Error macros ------------------------------------------------------ */

#define TF_LITE_KERNEL_LOG(context, ...)            \
  do {                                              \
    (context)->ReportError((context), __VA_ARGS__); \
  } while (0)

#define TF_LITE_MAYBE_KERNEL_LOG(context, ...)        \
  do {                                                \
    if ((context) != NULL) {                          \
      (context)->ReportError((context), __VA_ARGS__); \
    }                                                 \
  } while (0)

#define TF_LITE_ENSURE_MSG(context, value, msg)        \
  do {                                                 \
    if (!(value)) {                                    \
      TF_LITE_KERNEL_LOG((context), __FILE__ " " msg); \
      return kTfLiteError;                             \
    }                                                  \
  } while (0)

/* Note TFLite's wording: no colon after the line number. */
#define TF_LITE_ENSURE(context, a)                                      \
  do {                                                                  \
    if (!(a)) {                                                         \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s was not true.", __FILE__, \
                         __LINE__, #a);                                 \
      return kTfLiteError;                                              \
    }                                                                   \
  } while (0)

#define TF_LITE_ENSURE_STATUS(a) \
  do {                           \
    const TfLiteStatus s_ = (a); \
    if (s_ != kTfLiteOk) {       \
      return s_;                 \
    }                            \
  } while (0)

#define TF_LITE_ENSURE_EQ(context, a, b)                                   \
  do {                                                                     \
    if ((a) != (b)) {                                                      \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s != %s (%d != %d)", __FILE__, \
                         __LINE__, #a, #b, (int)(a), (int)(b));            \
      return kTfLiteError;                                                 \
    }                                                                      \
  } while (0)

#define TF_LITE_ENSURE_TYPES_EQ(context, a, b)                             \
  do {                                                                     \
    if ((a) != (b)) {                                                      \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s != %s (%s != %s)", __FILE__, \
                         __LINE__, #a, #b, TfLiteTypeGetName(a),           \
                         TfLiteTypeGetName(b));                            \
      return kTfLiteError;                                                 \
    }                                                                      \
  } while (0)

#define TF_LITE_ENSURE_NEAR(context, a, b, epsilon)                    \
  do {                                                                 \
    double delta_ = ((a) > (b)) ? ((a) - (b)) : ((b) - (a));           \
    if (delta_ > (epsilon)) {                                          \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s not near %s (%f != %f)", \
                         __FILE__, __LINE__, #a, #b, (double)(a),      \
                         (double)(b));                                 \
      return kTfLiteError;                                             \
    }                                                                  \
  } while (0)

#define TF_LITE_ENSURE_OK(context, status) \
  do {                                     \
    const TfLiteStatus s_ = (status);      \
    if (s_ != kTfLiteOk) {                 \
      (void)(context);                     \
      return s_;                           \
    }                                      \
  } while (0)

/* ---- Element types ----------------------------------------------------- */

typedef struct TfLiteComplex64 {
  float re, im;
} TfLiteComplex64;

typedef struct TfLiteComplex128 {
  double re, im;
} TfLiteComplex128;

/* IEEE half precision, stored as its bits. */
typedef struct TfLiteFloat16 {
  uint16_t data;
} TfLiteFloat16;

typedef struct TfLiteBFloat16 {
  uint16_t data;
} TfLiteBFloat16;

/* The name of a type, e.g. "FLOAT32"; "Unknown type" for others. */
TFL_CAPI_EXPORT const char* TfLiteTypeGetName(TfLiteType type);

/* ---- Quantization ------------------------------------------------------ */

typedef enum TfLiteQuantizationType {
  kTfLiteNoQuantization = 0,
  kTfLiteAffineQuantization = 1,
  kTfLiteBlockwiseQuantization = 2,
  kTfLiteMultiAxisQuantization = 3,
} TfLiteQuantizationType;

/* `params` points to a TfLiteAffineQuantization for affine quantization. */
typedef struct TfLiteQuantization {
  TfLiteQuantizationType type;
  void* params;
} TfLiteQuantization;

/* Per-tensor (one scale) or per-channel (scale per index along
 * quantized_dimension) affine quantization. */
typedef struct TfLiteAffineQuantization {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;

/* Frees the params of `quantization` and resets it to no quantization. */
TFL_CAPI_EXPORT void TfLiteQuantizationFree(TfLiteQuantization* quantization);

/* ---- Sparsity (DENSIFY executes it; other kernels refuse it) ---------- */

typedef enum TfLiteDimensionType {
  kTfLiteDimDense = 0,
  kTfLiteDimSparseCSR,
} TfLiteDimensionType;

typedef struct TfLiteDimensionMetadata {
  TfLiteDimensionType format;
  int dense_size;
  TfLiteIntArray* array_segments;
  TfLiteIntArray* array_indices;
} TfLiteDimensionMetadata;

typedef struct TfLiteSparsity {
  TfLiteIntArray* traversal_order;
  TfLiteIntArray* block_map;
  TfLiteDimensionMetadata* dim_metadata;
  int dim_metadata_size;
} TfLiteSparsity;

/* Frees `sparsity` (a heap TfLiteSparsity and its arrays); NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteSparsityFree(TfLiteSparsity* sparsity);

/* ---- Tensors ----------------------------------------------------------- */

typedef union TfLitePtrUnion {
  int32_t* i32;
  uint32_t* u32;
  int64_t* i64;
  uint64_t* u64;
  float* f;
  TfLiteFloat16* f16;
  double* f64;
  char* raw;
  const char* raw_const;
  uint8_t* uint8;
  bool* b;
  int16_t* i16;
  uint16_t* ui16;
  TfLiteComplex64* c64;
  TfLiteComplex128* c128;
  int8_t* int8;
  void* data;
} TfLitePtrUnion;

/* Where a tensor's memory comes from. */
typedef enum TfLiteAllocationType {
  kTfLiteMemNone = 0,
  kTfLiteMmapRo,
  kTfLiteArenaRw,
  kTfLiteArenaRwPersistent,
  kTfLiteDynamic,
  kTfLitePersistentRo,
  kTfLiteCustom,
  kTfLiteVariantObject,
  kTfLiteNonCpu,
} TfLiteAllocationType;

typedef int TfLiteBufferHandle;
enum {
  kTfLiteNullBufferHandle = -1,
};

/* The index of an omitted optional input. */
enum {
  kTfLiteOptionalTensor = -1,
};

struct TfLiteDelegate;

typedef struct TfLiteTensor {
  TfLiteType type;
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  TfLiteQuantizationParams params;
  TfLiteAllocationType allocation_type;
  size_t bytes;
  const void* allocation;
  const char* name;
  struct TfLiteDelegate* delegate;
  TfLiteBufferHandle buffer_handle;
  bool data_is_stale;
  bool is_variable;
  TfLiteQuantization quantization;
  TfLiteSparsity* sparsity;
  const TfLiteIntArray* dims_signature;
} TfLiteTensor;

/* The micro runtime's reduced tensor; declared for the context's layout. */
typedef struct TfLiteEvalTensor {
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  TfLiteType type;
} TfLiteEvalTensor;

/* The size in bytes of one element of `type` into *bytes; kTfLiteError for
 * types without a fixed element size (string, resource, variant, sub-byte). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteGetSizeOfType(TfLiteType type,
                                                 size_t* bytes);

/* ---- Nodes ------------------------------------------------------------- */

typedef struct TfLiteNode {
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  TfLiteIntArray* temporaries;
  void* user_data;
  void* builtin_data;
  const void* custom_initial_data;
  int custom_initial_data_size;
  struct TfLiteDelegate* delegate;
  bool might_have_side_effect;
} TfLiteNode;

/* ---- Context ----------------------------------------------------------- */

typedef enum TfLiteExternalContextType {
  kTfLiteEigenContext = 0,
  kTfLiteGemmLowpContext = 1,
  kTfLiteEdgeTpuContext = 2,
  kTfLiteCpuBackendContext = 3,
  kTfLiteLiteRtBufferContext = 4,
  kTfLiteMaxExternalContexts = 5
} TfLiteExternalContextType;

struct TfLiteContext;
struct TfLiteDelegateParams;

typedef struct TfLiteExternalContext {
  TfLiteExternalContextType type;
  TfLiteStatus (*Refresh)(struct TfLiteContext* context);
} TfLiteExternalContext;

typedef struct TfLiteOperator TfLiteOperator;
typedef TfLiteOperator TfLiteRegistrationExternal;
struct TfLiteAsyncKernel;
struct TfLiteRegistration;

typedef struct TfLiteContext {
  size_t tensors_size;
  /* The node indices in execution order (delegate Prepare only). */
  TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext* context,
                                   TfLiteIntArray** execution_plan);
  TfLiteTensor* tensors;
  void* impl_;
  /* Takes ownership of new_size, also on failure. */
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor* tensor,
                               TfLiteIntArray* new_size);
  void (*ReportError)(struct TfLiteContext*, const char* msg, ...);
  TfLiteStatus (*AddTensors)(struct TfLiteContext*, int tensors_to_add,
                             int* first_new_tensor_index);
  TfLiteStatus (*GetNodeAndRegistration)(
      struct TfLiteContext*, int node_index, TfLiteNode** node,
      struct TfLiteRegistration** registration);
  TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(
      struct TfLiteContext*, struct TfLiteRegistration registration,
      const TfLiteIntArray* nodes_to_replace, struct TfLiteDelegate* delegate);
  int recommended_num_threads;
  TfLiteExternalContext* (*GetExternalContext)(struct TfLiteContext*,
                                               TfLiteExternalContextType);
  void (*SetExternalContext)(struct TfLiteContext*, TfLiteExternalContextType,
                             TfLiteExternalContext*);
  bool allow_fp32_relax_to_fp16;
  void* profiler;
  /* The next four belong to the micro runtime; litegpu leaves them NULL. */
  void* (*AllocatePersistentBuffer)(struct TfLiteContext* ctx, size_t bytes);
  TfLiteStatus (*AllocateBufferForEval)(struct TfLiteContext* ctx, size_t bytes,
                                        void** ptr);
  TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext* ctx,
                                              size_t bytes, int* buffer_idx);
  void* (*GetScratchBuffer)(struct TfLiteContext* ctx, int buffer_idx);
  TfLiteStatus (*ResizeTensorExplicit)(struct TfLiteContext* ctx,
                                       TfLiteTensor* tensor, int dims,
                                       const int* shape);
  TfLiteStatus (*PreviewDelegatePartitioning)(
      struct TfLiteContext* context, const TfLiteIntArray* nodes_to_replace,
      struct TfLiteDelegateParams** partition_params_array,
      int* num_partitions);
  TfLiteTensor* (*GetTensor)(const struct TfLiteContext* context,
                             int tensor_idx);
  /* Micro runtime only; NULL in litegpu. */
  TfLiteEvalTensor* (*GetEvalTensor)(const struct TfLiteContext* context,
                                     int tensor_idx);
  TfLiteStatus (*GetModelMetadata)(const struct TfLiteContext* context,
                                   const char* name, const char** ptr,
                                   size_t* bytes);
  /* The context of subgraph `subgraph_index` of the same interpreter, made
   * ready for the delegate-only functions (GetExecutionPlan,
   * GetNodeAndRegistration, PreviewDelegatePartitioning) until released.
   * Like those, usable only inside a delegate's Prepare. */
  TfLiteStatus (*AcquireSubgraphContext)(
      struct TfLiteContext* context, int subgraph_index,
      struct TfLiteContext** acquired_context);
  TfLiteStatus (*ReleaseSubgraphContext)(struct TfLiteContext* context,
                                         int subgraph_index);
} TfLiteContext;

/* ---- Registrations ----------------------------------------------------- */

typedef struct TfLiteRegistration {
  /* For a builtin, `buffer` is the parsed params struct and length 0; for a
   * custom op, the custom options bytes. Returns the node's user_data. */
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const TfLiteContext* context,
                                  const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  TfLiteOperator* registration_external;
  struct TfLiteAsyncKernel* (*async_kernel)(TfLiteContext* context,
                                            TfLiteNode* node);
  uint64_t inplace_operator;
} TfLiteRegistration;

/* ---- Delegates --------------------------------------------------------- */

typedef enum TfLiteDelegateFlags {
  kTfLiteDelegateFlagsNone = 0,
  kTfLiteDelegateFlagsAllowDynamicTensors = 1,
  kTfLiteDelegateFlagsRequirePropagatedShapes = 2,
  kTfLiteDelegateFlagsPerOperatorProfiling = 4,
  kTfLiteDelegateFlagsHintFullyDelegatedToSingleDelegate = 8,
} TfLiteDelegateFlags;

/* A delegate written against the stable ABI (c_api_opaque.h): the callbacks
 * of TfLiteDelegate in opaque form, each given `data`. Make the delegate
 * with TfLiteOpaqueDelegateCreate, which copies the builder. Prepare runs
 * with the opaque context of each subgraph and claims nodes with
 * TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels; `flags` replaces
 * TfLiteDelegate's flags. */
typedef struct TfLiteOpaqueDelegateBuilder {
  void* data;
  TfLiteStatus (*Prepare)(TfLiteOpaqueContext* context,
                          TfLiteOpaqueDelegate* delegate, void* data);
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteOpaqueContext* context,
                                       TfLiteOpaqueDelegate* delegate,
                                       void* data,
                                       TfLiteBufferHandle buffer_handle,
                                       TfLiteOpaqueTensor* tensor);
  TfLiteStatus (*CopyToBufferHandle)(TfLiteOpaqueContext* context,
                                     TfLiteOpaqueDelegate* delegate, void* data,
                                     TfLiteBufferHandle buffer_handle,
                                     TfLiteOpaqueTensor* tensor);
  void (*FreeBufferHandle)(TfLiteOpaqueContext* context,
                           TfLiteOpaqueDelegate* delegate, void* data,
                           TfLiteBufferHandle* buffer_handle);
  int64_t flags;
} TfLiteOpaqueDelegateBuilder;

typedef struct TfLiteDelegate {
  void* data_;
  TfLiteStatus (*Prepare)(TfLiteContext* context,
                          struct TfLiteDelegate* delegate);
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext* context,
                                       struct TfLiteDelegate* delegate,
                                       TfLiteBufferHandle buffer_handle,
                                       TfLiteTensor* tensor);
  TfLiteStatus (*CopyToBufferHandle)(TfLiteContext* context,
                                     struct TfLiteDelegate* delegate,
                                     TfLiteBufferHandle buffer_handle,
                                     TfLiteTensor* tensor);
  void (*FreeBufferHandle)(TfLiteContext* context,
                           struct TfLiteDelegate* delegate,
                           TfLiteBufferHandle* handle);
  int64_t flags;
  /* Set (with Prepare NULL) for an opaque delegate; then the builder's
   * callbacks and flags are used instead of the ones above. */
  TfLiteOpaqueDelegateBuilder* opaque_delegate_builder;
} TfLiteDelegate;

/* A delegate with every field zero (flags kTfLiteDelegateFlagsNone). */
TFL_CAPI_EXPORT TfLiteDelegate TfLiteDelegateCreate(void);

/* The builtin_data of a delegate kernel node: what it replaces. */
typedef struct TfLiteDelegateParams {
  struct TfLiteDelegate* delegate;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteDelegateParams;

/* The builtin_data of an opaque delegate's kernel node, and the buffer its
 * operator's Init receives (length 0): what it replaces, with the delegate
 * and its builder's data. */
typedef struct TfLiteOpaqueDelegateParams {
  TfLiteOpaqueDelegate* delegate;
  void* delegate_data;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteOpaqueDelegateParams;

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_C_COMMON_H_ */
