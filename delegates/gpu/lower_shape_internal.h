/* Internal to the shape family's GPU lowerings (lower_shape.c, with the
 * plan machinery in lower_shape_plan.c): remap jobs for
 * shaders/kernels/remap.lgk and the tensor helpers the op builders share.
 * LSTM's BASIC kernel type (lower_conv_matmul.c) builds its concatenation
 * as a plan too.
 *
 * A builder describes each data movement as an lg_gpu_remap_job and hands
 * it to lg_gpu_shape_plan_add, which simplifies it, checks that every
 * offset it reaches lies inside its tensors, and appends its table (the
 * layout remap.lgk reads) and its dispatch to the plan:
 *
 *   lg_gpu_shape_plan plan;
 *   lg_gpu_shape_plan_init(&plan, context, reason, sizeof(reason));
 *   lg_gpu_remap_job job;
 *   lg_gpu_shape_job_init(&job, in, out, out_dims, rank);  // dense output
 *   for each dim k: job.dim[k].src_stride = ...;           // the source
 *   ok = lg_gpu_shape_plan_add(&plan, &job);  // false: reason written
 *   ... plan.table / plan.calls ...
 *   lg_gpu_shape_plan_free(&plan);
 *
 * Failing helpers write the reason (without the op name) into the plan's
 * reason buffer and return false. Ownership: the plan owns its table and
 * calls until lg_gpu_shape_plan_free. Not thread safe (one lowering at a
 * time, as the program).
 */
#ifndef LITEGPU_DELEGATES_GPU_LOWER_SHAPE_INTERNAL_H_
#define LITEGPU_DELEGATES_GPU_LOWER_SHAPE_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/gpu/gpu_lower.h"
#include "tensorflow/lite/c/common.h"

/* remap.lgk's table: a header, then LG_REMAP_DIMS dims of LG_REMAP_FIELDS
 * ints. */
#define LG_REMAP_DIMS 6
#define LG_REMAP_HEADER 3
#define LG_REMAP_FIELDS 7
#define LG_REMAP_INTS (LG_REMAP_HEADER + LG_REMAP_DIMS * LG_REMAP_FIELDS)
/* Elements of the innermost dim one work item moves (remap.lgk's LG_CHUNK):
 * global[0] is ceil(size / LG_REMAP_CHUNK). */
#define LG_REMAP_CHUNK 8
/* Dims a builder may describe before merging (6-D views of rank-4 data,
 * tensors up to rank 8). */
#define LG_GPU_SHAPE_DIMS 8

typedef enum lg_gpu_remap_mode {
  LG_REMAP_PLAIN = 0,
  LG_REMAP_CONSTANT = 1,
  LG_REMAP_REFLECT = 2,
  LG_REMAP_SYMMETRIC = 3,
  LG_REMAP_MODULO = 4,
} lg_gpu_remap_mode;

typedef struct lg_gpu_remap_dim {
  int64_t size;        /* iteration extent */
  int64_t src_stride;  /* source elements per unit of the coordinate */
  int64_t dst_stride;  /* destination elements per iteration step */
  int64_t start, step; /* source coordinate = start + i * step */
  int64_t src_dim;     /* the source dim's extent (modes only) */
  lg_gpu_remap_mode mode;
} lg_gpu_remap_dim;

typedef struct lg_gpu_remap_job {
  int src, dst; /* context tensor indices */
  int rank;
  lg_gpu_remap_dim dim[LG_GPU_SHAPE_DIMS]; /* outermost first */
  int64_t src_base, dst_base;
} lg_gpu_remap_job;

/* One dispatch of remap.lgk. */
typedef struct lg_gpu_remap_call {
  int src, dst;
  int offset; /* of its table in lg_gpu_shape_plan.table */
  size_t global[3];
  bool modes;
} lg_gpu_remap_call;

typedef struct lg_gpu_shape_plan {
  const TfLiteContext* context;
  char* reason;
  size_t reason_size;
  int32_t* table;
  int table_len, table_cap;
  lg_gpu_remap_call* calls;
  int num_calls, calls_cap;
  float value; /* LG_REMAP_CONSTANT's element */
  bool clamp;  /* a fused activation: clamp to [lo, hi] */
  float lo, hi;
} lg_gpu_shape_plan;

/* Writes the reason (printf format) and returns false. */
bool lg_gpu_shape_fail(lg_gpu_shape_plan* plan, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* An empty plan over `context` that writes failures into reason[size]. */
void lg_gpu_shape_plan_init(lg_gpu_shape_plan* plan,
                            const TfLiteContext* context, char* reason,
                            size_t size);
void lg_gpu_shape_plan_free(lg_gpu_shape_plan* plan);

/* Simplifies `job` (plain starts and steps folded into the base and
 * strides, plain dims of 1 dropped, plain neighbours that walk both
 * tensors as one dim merged), checks it (float32 tensors of at most
 * INT_MAX elements, at most LG_REMAP_DIMS dims left, every reachable
 * source and destination offset inside its tensor) and appends its table
 * and dispatch. An empty job adds nothing. */
bool lg_gpu_shape_plan_add(lg_gpu_shape_plan* plan,
                           const lg_gpu_remap_job* job);

/* Records the plan's dispatches of remap.lgk (its table a device constant)
 * into program p. kTfLiteError after recording the failure. */
TfLiteStatus lg_gpu_lower_shape_plan(lg_gpu_program* p,
                                     const lg_gpu_shape_plan* plan);

/* A job from tensor src to tensor dst over dims[0..rank), its destination
 * dense (row-major) over exactly those dims; every dim plain, start 0,
 * step 1, source stride 0 until the builder sets it. */
void lg_gpu_shape_job_init(lg_gpu_remap_job* job, int src, int dst,
                           const int64_t* dims, int rank);

/* ---- Tensor helpers ------------------------------------------------------ */

/* The node's input / output `i`, or NULL when absent (-1 or past the end). */
const TfLiteTensor* lg_gpu_shape_input(const TfLiteContext* context,
                                       const TfLiteNode* node, int i);
const TfLiteTensor* lg_gpu_shape_output(const TfLiteContext* context,
                                        const TfLiteNode* node, int i);

/* A constant of the model (its data is fixed when lowering). */
bool lg_gpu_shape_is_constant(const TfLiteTensor* t);

/* The tensor's dims (at most LG_GPU_SHAPE_DIMS); *rank is -1 above that. */
void lg_gpu_shape_dims(const TfLiteTensor* t, int64_t* dims, int* rank);

/* Row-major element strides of dims[0..rank). */
void lg_gpu_shape_strides(const int64_t* dims, int rank, int64_t* strides);

/* The product of dims[begin..end) (1 when empty). */
int64_t lg_gpu_shape_product(const int64_t* dims, int begin, int end);

bool lg_gpu_shape_same_dims(const int64_t* a, const int64_t* b, int rank);

/* Input `slot` and output 0: their dims and ranks; fails when either is
 * missing or above LG_GPU_SHAPE_DIMS. */
bool lg_gpu_shape_io(lg_gpu_shape_plan* plan, const TfLiteNode* node, int slot,
                     int64_t* in_dims, int* in_rank, int64_t* out_dims,
                     int* out_rank);

/* Reads constant INT32 or INT64 tensor `t` (named `what` in reasons) of
 * exactly `want` elements (-1: any count up to `cap`) into values; *count
 * (may be NULL) gets the count. Fails when it is missing or not constant. */
bool lg_gpu_shape_read_ints(lg_gpu_shape_plan* plan, const TfLiteTensor* t,
                            const char* what, int want, int cap,
                            int64_t* values, int* count);

#endif /* LITEGPU_DELEGATES_GPU_LOWER_SHAPE_INTERNAL_H_ */
