/* The shape family's plan machinery (lower_shape_internal.h): tensor
 * helpers, and the simplification, bounds check and table layout of remap
 * jobs for shaders/kernels/remap.lgk. */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/lower_shape_internal.h"

/* The node's tables stay within the 64 KiB of __constant memory every
 * OpenCL 1.2 device offers (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE). */
#define LG_REMAP_MAX_TABLE (64 * 1024 / 4)

bool lg_gpu_shape_fail(lg_gpu_shape_plan* plan, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(plan->reason, plan->reason_size, format, args);
  va_end(args);
  return false;
}

void lg_gpu_shape_plan_init(lg_gpu_shape_plan* plan,
                            const TfLiteContext* context, char* reason,
                            size_t size) {
  memset(plan, 0, sizeof(*plan));
  plan->context = context;
  plan->reason = reason;
  plan->reason_size = size;
}

void lg_gpu_shape_plan_free(lg_gpu_shape_plan* plan) {
  free(plan->table);
  free(plan->calls);
}

/* ---- Tensors ------------------------------------------------------------- */

const TfLiteTensor* lg_gpu_shape_input(const TfLiteContext* context,
                                       const TfLiteNode* node, int i) {
  if (i < 0 || i >= node->inputs->size || node->inputs->data[i] < 0) {
    return NULL;
  }
  return &context->tensors[node->inputs->data[i]];
}

const TfLiteTensor* lg_gpu_shape_output(const TfLiteContext* context,
                                        const TfLiteNode* node, int i) {
  if (i < 0 || i >= node->outputs->size || node->outputs->data[i] < 0) {
    return NULL;
  }
  return &context->tensors[node->outputs->data[i]];
}

bool lg_gpu_shape_is_constant(const TfLiteTensor* t) {
  return t->allocation_type == kTfLiteMmapRo ||
         t->allocation_type == kTfLitePersistentRo;
}

/* The tensor's dims as int64 (at most LG_GPU_SHAPE_DIMS); *rank -1 when above.
 */
void lg_gpu_shape_dims(const TfLiteTensor* t, int64_t* dims, int* rank) {
  const int r = t->dims != NULL ? t->dims->size : 0;
  *rank = r <= LG_GPU_SHAPE_DIMS ? r : -1;
  for (int k = 0; k < r && k < LG_GPU_SHAPE_DIMS; ++k)
    dims[k] = t->dims->data[k];
}

void lg_gpu_shape_strides(const int64_t* dims, int rank, int64_t* strides) {
  int64_t s = 1;
  for (int k = rank - 1; k >= 0; --k) {
    strides[k] = s;
    s *= dims[k];
  }
}

int64_t lg_gpu_shape_product(const int64_t* dims, int begin, int end) {
  int64_t p = 1;
  for (int k = begin; k < end; ++k) p *= dims[k];
  return p;
}

/* Input `slot` and output 0 of a one-in one-out data movement: dims of
 * both, ranks, and a check that neither is missing or too large. */
bool lg_gpu_shape_io(lg_gpu_shape_plan* plan, const TfLiteNode* node, int slot,
                     int64_t* in_dims, int* in_rank, int64_t* out_dims,
                     int* out_rank) {
  const TfLiteTensor* in = lg_gpu_shape_input(plan->context, node, slot);
  const TfLiteTensor* out = lg_gpu_shape_output(plan->context, node, 0);
  if (in == NULL || out == NULL) {
    return lg_gpu_shape_fail(plan, "the input or output tensor is missing.");
  }
  lg_gpu_shape_dims(in, in_dims, in_rank);
  lg_gpu_shape_dims(out, out_dims, out_rank);
  if (*in_rank < 0 || *out_rank < 0) {
    return lg_gpu_shape_fail(
        plan, "tensors of rank above %d are not supported.", LG_GPU_SHAPE_DIMS);
  }
  return true;
}

/* Reads a constant INT32 or INT64 tensor of `want` elements (-1: any count
 * up to `cap`) into values. */
bool lg_gpu_shape_read_ints(lg_gpu_shape_plan* plan, const TfLiteTensor* t,
                            const char* what, int want, int cap,
                            int64_t* values, int* count) {
  if (t == NULL) {
    return lg_gpu_shape_fail(plan, "the %s tensor is missing.", what);
  }
  if (!lg_gpu_shape_is_constant(t) || t->data.raw == NULL) {
    return lg_gpu_shape_fail(plan, "%s must be a constant tensor.", what);
  }
  if (t->type != kTfLiteInt32 && t->type != kTfLiteInt64) {
    return lg_gpu_shape_fail(plan, "%s must be int32 or int64, not %s.", what,
                             TfLiteTypeGetName(t->type));
  }
  const size_t n = lg_gpu_elements(t);
  if (n > (size_t)cap || (want >= 0 && n != (size_t)want)) {
    return lg_gpu_shape_fail(plan, "%s has %zu elements, expected %d.", what, n,
                             want >= 0 ? want : cap);
  }
  for (size_t i = 0; i < n; ++i) {
    values[i] = t->type == kTfLiteInt32 ? (int64_t)t->data.i32[i]
                                        : (int64_t)t->data.i64[i];
  }
  if (count != NULL) *count = (int)n;
  return true;
}

bool lg_gpu_shape_same_dims(const int64_t* a, const int64_t* b, int rank) {
  for (int k = 0; k < rank; ++k) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

/* ---- Remap jobs ---------------------------------------------------------- */

/* A job over dims[0..rank) whose destination is dense over exactly those
 * dims; every dim plain with source stride 0 until the builder sets it. */
void lg_gpu_shape_job_init(lg_gpu_remap_job* job, int src, int dst,
                           const int64_t* dims, int rank) {
  memset(job, 0, sizeof(*job));
  job->src = src;
  job->dst = dst;
  job->rank = rank;
  int64_t s = 1;
  for (int k = rank - 1; k >= 0; --k) {
    job->dim[k] = (lg_gpu_remap_dim){.size = dims[k],
                                     .dst_stride = s,
                                     .step = 1,
                                     .src_dim = dims[k],
                                     .mode = LG_REMAP_PLAIN};
    s *= dims[k];
  }
}

/* Widens [*lo, *hi] by an extent that may be negative. */
static void span(int64_t* lo, int64_t* hi, int64_t extent) {
  if (extent < 0) {
    *lo += extent;
  } else {
    *hi += extent;
  }
}

/* Folds plain dims' starts and steps into the base and strides, drops
 * plain dims of 1 and merges plain neighbours that walk both tensors as
 * one dim. Returns the new rank (dims into out[]); 0 when the job is
 * empty sets *empty. */
static int job_simplify(const lg_gpu_remap_job* job, lg_gpu_remap_dim* out,
                        int64_t* src_base, bool* empty) {
  int n = 0;
  *src_base = job->src_base;
  *empty = false;
  for (int k = 0; k < job->rank; ++k) {
    lg_gpu_remap_dim x = job->dim[k];
    if (x.size <= 0) {
      *empty = true;
      return 0;
    }
    if (x.mode == LG_REMAP_PLAIN) {
      *src_base += x.start * x.src_stride;
      x.src_stride *= x.step;
      x.start = 0;
      x.step = 1;
      x.src_dim = x.size;
      if (x.size == 1) continue;
      lg_gpu_remap_dim* prev = n > 0 ? &out[n - 1] : NULL;
      if (prev != NULL && prev->mode == LG_REMAP_PLAIN &&
          prev->src_stride == x.src_stride * x.size &&
          prev->dst_stride == x.dst_stride * x.size) {
        x.size *= prev->size;
        x.src_dim = x.size;
        *prev = x;
        continue;
      }
    }
    out[n++] = x;
  }
  return n;
}

static bool fits_int(int64_t v) { return v >= INT_MIN && v <= INT_MAX; }

/* Checks that every offset the simplified dims d[0..n) reach from the
 * bases lies inside the tensors: a plain dim reaches (size - 1) steps, a
 * moded one any coordinate of its source dim (the kernel clamps into it).
 * *modes tells whether any dim is moded. */
static bool check_bounds(lg_gpu_shape_plan* plan, const lg_gpu_remap_dim* d,
                         int n, int64_t src_base, int64_t dst_base,
                         int64_t src_n, int64_t dst_n, bool* modes) {
  int64_t slo = src_base, shi = src_base, dlo = dst_base, dhi = dst_base;
  bool reads = true;
  *modes = false;
  for (int k = 0; k < n; ++k) {
    span(&dlo, &dhi, (d[k].size - 1) * d[k].dst_stride);
    if (d[k].mode == LG_REMAP_PLAIN) {
      span(&slo, &shi, (d[k].size - 1) * d[k].src_stride);
      continue;
    }
    *modes = true;
    if (d[k].src_dim <= 0) {
      if (d[k].mode != LG_REMAP_CONSTANT) {
        return lg_gpu_shape_fail(plan, "cannot mirror or tile an empty dim.");
      }
      reads = false; /* every element is the constant */
      continue;
    }
    span(&slo, &shi, (d[k].src_dim - 1) * d[k].src_stride);
  }
  if (reads && (slo < 0 || shi >= src_n)) {
    return lg_gpu_shape_fail(plan,
                             "the copy would read offsets %lld..%lld of %lld.",
                             (long long)slo, (long long)shi, (long long)src_n);
  }
  if (dlo < 0 || dhi >= dst_n) {
    return lg_gpu_shape_fail(plan,
                             "the copy would write offsets %lld..%lld of %lld.",
                             (long long)dlo, (long long)dhi, (long long)dst_n);
  }
  return true;
}

/* Room for one more table and call. */
static bool reserve(lg_gpu_shape_plan* plan) {
  if (plan->table_len + LG_REMAP_INTS > LG_REMAP_MAX_TABLE) {
    return lg_gpu_shape_fail(plan, "more than %d copies in one node.",
                             LG_REMAP_MAX_TABLE / LG_REMAP_INTS);
  }
  if (plan->table_len + LG_REMAP_INTS > plan->table_cap) {
    const int cap = plan->table_cap ? plan->table_cap * 2 : 4 * LG_REMAP_INTS;
    int32_t* grown = realloc(plan->table, sizeof(int32_t) * (size_t)cap);
    if (grown == NULL) return lg_gpu_shape_fail(plan, "out of host memory.");
    plan->table = grown;
    plan->table_cap = cap;
  }
  if (plan->num_calls == plan->calls_cap) {
    const int cap = plan->calls_cap ? plan->calls_cap * 2 : 4;
    lg_gpu_remap_call* grown =
        realloc(plan->calls, sizeof(lg_gpu_remap_call) * (size_t)cap);
    if (grown == NULL) return lg_gpu_shape_fail(plan, "out of host memory.");
    plan->calls = grown;
    plan->calls_cap = cap;
  }
  return true;
}

/* Writes the table of dims d[0..n), right-aligned into LG_REMAP_DIMS
 * (unused outer dims have size 1), at the end of the plan's table, and
 * its call. */
static bool append(lg_gpu_shape_plan* plan, const lg_gpu_remap_job* job,
                   const lg_gpu_remap_dim* d, int n, int64_t src_base,
                   bool modes) {
  const lg_gpu_remap_dim unit = {.size = 1, .step = 1, .src_dim = 1};
  int32_t* t = plan->table + plan->table_len;
  int64_t z = 1;
  for (int k = 0; k < LG_REMAP_DIMS; ++k) {
    const lg_gpu_remap_dim* x =
        k < LG_REMAP_DIMS - n ? &unit : &d[k - (LG_REMAP_DIMS - n)];
    const int64_t f[LG_REMAP_FIELDS] = {x->size,  x->src_stride, x->dst_stride,
                                        x->start, x->step,       x->src_dim,
                                        x->mode};
    for (int i = 0; i < LG_REMAP_FIELDS; ++i) {
      if (!fits_int(f[i])) {
        return lg_gpu_shape_fail(plan, "an index is above int32.");
      }
      t[LG_REMAP_HEADER + k * LG_REMAP_FIELDS + i] = (int32_t)f[i];
    }
    if (k < 4) z *= x->size;
  }
  if (!fits_int(src_base) || !fits_int(job->dst_base) || !fits_int(z)) {
    return lg_gpu_shape_fail(plan, "an index is above int32.");
  }
  t[0] = (int32_t)src_base;
  t[1] = (int32_t)job->dst_base;
  t[2] = (int32_t)z;
  const size_t inner = (size_t)t[LG_REMAP_HEADER + 5 * LG_REMAP_FIELDS];
  plan->calls[plan->num_calls++] = (lg_gpu_remap_call){
      .src = job->src,
      .dst = job->dst,
      .offset = plan->table_len,
      .global = {(inner + LG_REMAP_CHUNK - 1) / LG_REMAP_CHUNK,
                 (size_t)t[LG_REMAP_HEADER + 4 * LG_REMAP_FIELDS], (size_t)z},
      .modes = modes};
  plan->table_len += LG_REMAP_INTS;
  return true;
}

/* Simplifies, checks and appends a job (nothing for an empty one). */
bool lg_gpu_shape_plan_add(lg_gpu_shape_plan* plan,
                           const lg_gpu_remap_job* job) {
  const TfLiteTensor* src = &plan->context->tensors[job->src];
  const TfLiteTensor* dst = &plan->context->tensors[job->dst];
  if (!lg_gpu_float_tensor(src) || !lg_gpu_float_tensor(dst)) {
    return lg_gpu_shape_fail(
        plan, "only float32 (and quantized) data is moved on the GPU.");
  }
  const int64_t src_n = (int64_t)lg_gpu_elements(src);
  const int64_t dst_n = (int64_t)lg_gpu_elements(dst);
  if (src_n > INT_MAX || dst_n > INT_MAX) {
    return lg_gpu_shape_fail(
        plan, "tensors above %d elements are not supported.", INT_MAX);
  }
  lg_gpu_remap_dim d[LG_GPU_SHAPE_DIMS];
  int64_t src_base;
  bool empty, modes;
  const int n = job_simplify(job, d, &src_base, &empty);
  if (empty) return true;
  if (n > LG_REMAP_DIMS) {
    return lg_gpu_shape_fail(plan, "the copy needs %d dims, above %d.", n,
                             LG_REMAP_DIMS);
  }
  return check_bounds(plan, d, n, src_base, job->dst_base, src_n, dst_n,
                      &modes) &&
         reserve(plan) && append(plan, job, d, n, src_base, modes);
}
