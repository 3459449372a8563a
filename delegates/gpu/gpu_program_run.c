/* GPU program, device side: the lifetime memory plan and buffers
 * (lg_gpu_program_prepare), the dispatches' resolved arguments and
 * recording, and execution with its stats and dispatch profile
 * (gpu_program.h). Lowering: gpu_program.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "delegates/backend/gpu_error.h"
#include "delegates/gpu/gpu_program.h"
#include "delegates/gpu/gpu_program_internal.h"
#include "runtime/kernels/fp16.h"

/* ---- Memory plan -----------------------------------------------------------
 */

static int root_of(const lg_gpu_program* p, int v) {
  while (p->values[v].alias_of >= 0) v = p->values[v].alias_of;
  return v;
}

/* Merges every alias's lifetime (and boundary role) into its root. */
static void merge_aliases(lg_gpu_program* p) {
  for (int v = 0; v < p->num_values; ++v) {
    value* x = &p->values[v];
    if (x->boundary_input) x->first = -1;
    if (x->output) x->last = NO_DISPATCH;
  }
  for (int v = 0; v < p->num_values; ++v) {
    const value* x = &p->values[v];
    if (x->alias_of < 0) continue;
    value* r = &p->values[root_of(p, v)];
    if (x->first < r->first) r->first = x->first;
    if (x->last > r->last) r->last = x->last;
  }
}

static bool overlaps(const value* a, const value* b) {
  if (a->first > a->last || b->first > b->last) return false; /* unused */
  return !(a->last < b->first || b->last < a->first);
}

static int compare_by_bytes_desc(const void* x, const void* y, void* values) {
  const value* v = values;
  const size_t a = v[*(const int*)x].bytes, b = v[*(const int*)y].bytes;
  if (a != b) return a > b ? -1 : 1;
  return *(const int*)x - *(const int*)y;
}

/* Plain insertion sort with a context (qsort_r is not C11). */
static void sort_by_bytes(int* order, int n, value* values) {
  for (int i = 1; i < n; ++i) {
    const int key = order[i];
    int j = i - 1;
    while (j >= 0 && compare_by_bytes_desc(&order[j], &key, values) > 0) {
      order[j + 1] = order[j];
      --j;
    }
    order[j + 1] = key;
  }
}

static bool fits_buffer(const lg_gpu_program* p, int buffer, int v) {
  for (int u = 0; u < p->num_values; ++u) {
    if (p->values[u].buffer == buffer && overlaps(&p->values[u], &p->values[v]))
      return false;
  }
  return true;
}

static TfLiteStatus plan_memory(lg_gpu_program* p) {
  merge_aliases(p);
  int* order = malloc(sizeof(int) * (size_t)(p->num_values + 1));
  p->buffers = calloc((size_t)p->num_values + 1, sizeof(*p->buffers));
  if (order == NULL || p->buffers == NULL) {
    free(order);
    return lg_gpu_lower_fail(p, "out of host memory");
  }
  int n = 0;
  for (int v = 0; v < p->num_values; ++v) {
    if (p->values[v].kind != VALUE_CONSTANT && p->values[v].alias_of < 0) {
      order[n++] = v;
    }
  }
  sort_by_bytes(order, n, p->values);
  for (int i = 0; i < n; ++i) {
    const int v = order[i];
    int chosen = -1;
    for (int b = 0; b < p->num_buffers && chosen < 0; ++b) {
      if (fits_buffer(p, b, v)) chosen = b;
    }
    if (chosen < 0) chosen = p->num_buffers++;
    p->values[v].buffer = chosen;
    /* Largest first: the first value placed sets the size, but keep max in
     * case of equal-size ties. */
    if (p->values[v].bytes > p->buffers[chosen].bytes) {
      p->buffers[chosen].bytes = p->values[v].bytes;
    }
  }
  free(order);
  return kTfLiteOk;
}

/* Buffers are at least 16 bytes and a multiple of 16 so that a kernel's
 * float4 access of a tail never leaves the allocation. */
static size_t device_size(size_t bytes) {
  if (bytes < 16) return 16;
  return (bytes + 15) & ~(size_t)15;
}

/* x->staging, the host copy of a value's device bytes, allocated on first
 * use. */
static TfLiteStatus ensure_staging(value* x) {
  if (x->staging == NULL) x->staging = malloc(x->bytes > 0 ? x->bytes : 2);
  return x->staging != NULL ? kTfLiteOk : kTfLiteError;
}

/* The device form of `host` (a half or quantized value's host data) in
 * x->staging: float16 of float32 data, or dequantized INT8/UINT8. */
static TfLiteStatus fill_staging(value* x, const void* host) {
  if (ensure_staging(x) != kTfLiteOk) return kTfLiteError;
  if (x->quantized) {
    lg_gpu_quant_to_device(x, host, x->staging);
  } else {
    lg_fp32_to_fp16_array(host, x->staging, x->bytes / sizeof(uint16_t));
  }
  return kTfLiteOk;
}

/* Whether a value's device bytes differ from its host bytes. */
static bool converted(const value* x) { return x->half || x->quantized; }

/* A 64-bit hash of a constant's device bytes, so that a program lowered
 * again at new shapes knows which of its constants the old one uploaded.
 * Four independent lanes: one chain of multiplies ran at a word per
 * multiply latency, about 4 ms of a MobileNetV2 resize (14 MB). */
static uint64_t content_hash(const void* data, size_t bytes) {
  const unsigned char* b = data;
  uint64_t h[4] = {0xcbf29ce484222325u ^ bytes, 0x9e3779b97f4a7c15u,
                   0xc2b2ae3d27d4eb4fu, 0x165667b19e3779f9u};
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t word;
      memcpy(&word, b + i + 8 * lane, 8);
      h[lane] = (h[lane] ^ word) * 0x100000001b3u;
      h[lane] ^= h[lane] >> 29;
    }
  }
  uint64_t out = h[0];
  for (int lane = 1; lane < 4; ++lane) {
    out = (out ^ h[lane]) * 0x100000001b3u;
    out ^= out >> 29;
  }
  for (; i < bytes; ++i) out = (out ^ b[i]) * 0x100000001b3u;
  return out;
}

/* The donor's shared buffer b when it has the size this program's needs. */
static lg_gpu_buffer* donor_shared(const lg_gpu_program* p, int b) {
  const lg_gpu_program* d = p->donor;
  if (d == NULL || b >= d->num_buffers || d->buffers[b].buffer == NULL) {
    return NULL;
  }
  return device_size(d->buffers[b].bytes) == device_size(p->buffers[b].bytes)
             ? d->buffers[b].buffer
             : NULL;
}

/* The donor's constant holding the same device bytes as x, not yet lent. */
static int donor_constant(const lg_gpu_program* p, const value* x) {
  const lg_gpu_program* d = p->donor;
  for (int u = 0; d != NULL && u < d->num_values; ++u) {
    const value* y = &d->values[u];
    if (y->kind == VALUE_CONSTANT && y->own != NULL && !y->lent &&
        y->tensor == x->tensor && y->bytes == x->bytes && y->half == x->half &&
        y->content_hash == x->content_hash) {
      return u;
    }
  }
  return -1;
}

/* Constant x's device buffer: the donor's when it holds the same bytes,
 * else a new one with `data` uploaded. */
static TfLiteStatus place_constant(lg_gpu_program* p, value* x,
                                   const void* data, lg_gpu_error* error) {
  lg_gpu_backend* be = p->be;
  x->content_hash = content_hash(data, x->bytes);
  const int u = donor_constant(p, x);
  if (u >= 0) {
    p->donor->values[u].lent = true;
    x->donor_value = u;
    x->own = p->donor->values[u].own;
    return kTfLiteOk;
  }
  if (be->ops->buffer_create(be, device_size(x->bytes), &x->own, error) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  return x->bytes > 0
             ? lg_gpu_buffer_upload(be, x->own, 0, data, x->bytes, error)
             : kTfLiteOk;
}

static TfLiteStatus create_buffers(lg_gpu_program* p,
                                   const TfLiteContext* context) {
  lg_gpu_backend* be = p->be;
  lg_gpu_error error = {{0}};
  for (int b = 0; b < p->num_buffers; ++b) {
    p->buffers[b].buffer = donor_shared(p, b);
    p->buffers[b].from_donor = p->buffers[b].buffer != NULL;
    if (!p->buffers[b].from_donor &&
        be->ops->buffer_create(be, device_size(p->buffers[b].bytes),
                               &p->buffers[b].buffer, &error) != kTfLiteOk) {
      return lg_gpu_lower_fail(p, "%s", error.message);
    }
  }
  for (int v = 0; v < p->num_values; ++v) {
    value* x = &p->values[v];
    if (x->kind != VALUE_CONSTANT) continue;
    const void* data = x->host_copy != NULL
                           ? x->host_copy
                           : context->tensors[x->tensor].data.raw;
    if (x->half) {
      if (fill_staging(x, data) != kTfLiteOk) {
        return lg_gpu_lower_fail(p, "out of host memory");
      }
      data = x->staging;
    }
    if (place_constant(p, x, data, &error) != kTfLiteOk) {
      lg_gpu_error ignored = {{0}};
      be->ops->finish(be, &ignored); /* earlier uploads read host copies */
      return lg_gpu_lower_fail(p, "%s", error.message);
    }
  }
  /* Uploads may read the host copies until they finish. */
  if (be->ops->finish(be, &error) != kTfLiteOk) {
    return lg_gpu_lower_fail(p, "%s", error.message);
  }
  /* The dequantized weights lowering read (lg_gpu_constant_floats) are
   * on the device too, packed as their kernels want them. */
  for (int t = 0; p->dequantized != NULL && t < p->num_context_tensors; ++t) {
    free(p->dequantized[t]);
    p->dequantized[t] = NULL;
  }
  for (int v = 0; v < p->num_values; ++v) {
    value* x = &p->values[v];
    free(x->host_copy); /* on the device now */
    x->host_copy = NULL;
    if (x->kind == VALUE_CONSTANT) {
      free(x->staging);
      x->staging = NULL;
    }
  }
  return kTfLiteOk;
}

static lg_gpu_buffer* buffer_of(const lg_gpu_program* p, int v) {
  const value* r = &p->values[root_of(p, v)];
  if (r->bound != NULL) return r->bound;
  return r->kind == VALUE_CONSTANT ? r->own : p->buffers[r->buffer].buffer;
}

/* Whether value v's bytes live in an application's buffer. */
static bool is_bound(const lg_gpu_program* p, int v) {
  return p->values[root_of(p, v)].bound != NULL;
}

static void resolve_arguments(lg_gpu_program* p) {
  for (int d = 0; d < p->num_dispatches; ++d) {
    dispatch* x = &p->dispatches[d];
    for (int i = 0; i < x->num_args; ++i) {
      const lg_gpu_operand* a = &x->args[i];
      if (a->kind == LG_GPU_OPERAND_INT) {
        x->resolved[i] = LG_GPU_ARG_INT(a->value.i);
      } else if (a->kind == LG_GPU_OPERAND_FLOAT) {
        x->resolved[i] = LG_GPU_ARG_FLOAT(a->value.f);
      } else {
        x->resolved[i] = LG_GPU_ARG_BUFFER(buffer_of(p, operand_value(p, a)));
      }
    }
  }
}

static TfLiteStatus record_each_dispatch(lg_gpu_program* p,
                                         lg_gpu_error* error) {
  for (int d = 0; d < p->num_dispatches; ++d) {
    const dispatch* x = &p->dispatches[d];
    if (lg_gpu_dispatch(p->be, x->kernel, x->resolved, x->num_args, x->dims,
                        x->global, x->has_local ? x->local : NULL,
                        error) != kTfLiteOk) {
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* SUSTAINED_SPEED (a tuning in the kernel cache): each dispatch gets the
 * fastest of a few work-group sizes, the lowering's or the backend's own
 * among them, timed on the device (gpu_tune.h); a kernel built for one
 * size ("-DLG_WG=", gpu_lower.h) keeps it. */
static TfLiteStatus tune_dispatches(lg_gpu_program* p) {
  lg_gpu_tuning* tuning = p->kernels->tuning;
  lg_gpu_error error = {{0}};
  for (int d = 0; tuning != NULL && d < p->num_dispatches; ++d) {
    dispatch* x = &p->dispatches[d];
    if (strstr(x->kernel_key, "-DLG_WG=") != NULL) continue;
    if (lg_gpu_tune_dispatch(tuning, p->be, x->kernel, x->kernel_key,
                             x->resolved, x->num_args, x->dims, x->global,
                             x->local, &x->has_local, &error) != kTfLiteOk) {
      return lg_gpu_lower_fail(p, "%s", error.message);
    }
  }
  return kTfLiteOk;
}

/* While profiling with a backend that has timed recordings (Vulkan): the
 * dispatches recorded once more, with device timestamps around each, so
 * that a profiled run is submitted whole and never waits on the host (an
 * async run held by an input's semaphore returns at once). A device that
 * writes no timestamps, or any failure, leaves timed_recording NULL:
 * profiled runs then time each dispatch on the host. The backend must be
 * idle (recording_begin). */
static void record_timed(lg_gpu_program* p) {
  lg_gpu_backend* be = p->be;
  if (!p->profiling || p->timed_recording != NULL ||
      be->ops->recording_begin_timed == NULL || p->num_dispatches == 0) {
    return;
  }
  lg_gpu_error error = {{0}};
  if (be->ops->recording_begin_timed(be, p->num_dispatches, &error) !=
      kTfLiteOk) {
    return;
  }
  const TfLiteStatus recorded = record_each_dispatch(p, &error);
  lg_gpu_recording* rec = NULL;
  if (be->ops->recording_end(be, &rec, &error) == kTfLiteOk &&
      recorded != kTfLiteOk) {
    be->ops->recording_release(be, rec);
    rec = NULL;
  }
  p->timed_recording = rec;
}

/* After a run of the timed recording completed: each dispatch's device
 * time added to its total (a run whose times cannot be read is not
 * counted). */
static void add_device_times(lg_gpu_program* p) {
  if (!p->timed_run) return;
  p->timed_run = false;
  uint64_t* ns = malloc(sizeof(*ns) * (size_t)p->num_dispatches);
  lg_gpu_error error = {{0}};
  if (ns != NULL &&
      p->be->ops->recording_times(p->be, p->timed_recording, ns,
                                  p->num_dispatches, &error) == kTfLiteOk) {
    for (int d = 0; d < p->num_dispatches; ++d) {
      p->dispatches[d].total_ns += ns[d];
      p->dispatches[d].count++;
    }
  }
  free(ns);
}

/* With a backend that keeps recordings (Vulkan), the dispatch list is
 * recorded once here and every run replays it. */
static TfLiteStatus record_dispatches(lg_gpu_program* p) {
  lg_gpu_backend* be = p->be;
  if (be->ops->recording_begin == NULL || p->num_dispatches == 0) {
    return kTfLiteOk;
  }
  lg_gpu_error error = {{0}};
  if (be->ops->recording_begin(be, &error) != kTfLiteOk) {
    return lg_gpu_lower_fail(p, "%s", error.message);
  }
  const TfLiteStatus recorded = record_each_dispatch(p, &error);
  lg_gpu_error end_error = {{0}};
  const TfLiteStatus ended =
      be->ops->recording_end(be, &p->recording, &end_error);
  if (recorded != kTfLiteOk) return lg_gpu_lower_fail(p, "%s", error.message);
  if (ended != kTfLiteOk) return lg_gpu_lower_fail(p, "%s", end_error.message);
  record_timed(p);
  return kTfLiteOk;
}

/* After a prepare with a donor: what this program took from it is its own
 * now (kept) or goes back (not kept, before this program is destroyed). */
void lg_gpu_program_settle_donor(lg_gpu_program* p, bool keep) {
  lg_gpu_program* d = p->donor;
  if (d == NULL) return;
  for (int b = 0; b < p->num_buffers; ++b) {
    if (!p->buffers[b].from_donor) continue;
    if (keep) {
      d->buffers[b].buffer = NULL;
    } else {
      p->buffers[b].buffer = NULL;
    }
    p->buffers[b].from_donor = false;
  }
  for (int v = 0; v < p->num_values; ++v) {
    value* x = &p->values[v];
    if (x->donor_value < 0) continue;
    d->values[x->donor_value].lent = false;
    if (keep) {
      d->values[x->donor_value].own = NULL;
    } else {
      x->own = NULL;
    }
    x->donor_value = -1;
  }
  p->donor = NULL;
}

TfLiteStatus lg_gpu_program_prepare(lg_gpu_program* p, TfLiteContext* context) {
  /* At new shapes the delegate lowers a new program (lg_gpu_program_relower);
   * this one stays as it was planned. */
  if (p->prepared) return kTfLiteOk;
  for (int v = 0; v < p->num_values; ++v) {
    const value* x = &p->values[v];
    if (x->tensor >= 0 && context->tensors[x->tensor].bytes != host_bytes(x)) {
      return lg_gpu_lower_fail(p,
                               "tensor %d changed size after lowering (%zu "
                               "bytes, was %zu)",
                               x->tensor, context->tensors[x->tensor].bytes,
                               host_bytes(x));
    }
  }
  if (plan_memory(p) != kTfLiteOk || create_buffers(p, context) != kTfLiteOk) {
    return kTfLiteError;
  }
  resolve_arguments(p);
  if (tune_dispatches(p) != kTfLiteOk || record_dispatches(p) != kTfLiteOk) {
    return kTfLiteError;
  }
  p->prepared = true;
  return kTfLiteOk;
}

/* ---- Zero-copy binding ------------------------------------------------------
 */

/* The boundary value of `tensor` (an input or output of the partition),
 * or -1. */
static int boundary_value(const lg_gpu_program* p, int tensor) {
  if (tensor < 0 || tensor >= p->num_context_tensors) return -1;
  const int v = p->value_of_tensor[tensor];
  if (v < 0) return -1;
  const value* x = &p->values[v];
  return x->boundary_input || x->output ? v : -1;
}

bool lg_gpu_program_is_boundary(const lg_gpu_program* p, int tensor) {
  return boundary_value(p, tensor) >= 0;
}

/* Whether `buffer` can hold boundary value v's bytes in place; the reason
 * in p->error when not. */
static TfLiteStatus check_binding(lg_gpu_program* p, int v,
                                  const lg_gpu_buffer* buffer) {
  const value* x = &p->values[v];
  if (converted(x)) {
    return lg_gpu_lower_fail(
        p,
        "tensor %d is %s on the device, not float32 as on the host: bound "
        "buffers hold the host's bytes (bind only with precision loss off "
        "and float32 tensors)",
        x->tensor, x->half ? "float16" : "dequantized");
  }
  const size_t have = p->be->ops->buffer_bytes(buffer);
  if (have < x->bytes) {
    return lg_gpu_lower_fail(p,
                             "tensor %d needs a buffer of %zu bytes; the one "
                             "given has %zu",
                             x->tensor, x->bytes, have);
  }
  const int root = root_of(p, v);
  for (int u = 0; u < p->num_values; ++u) {
    const value* y = &p->values[u];
    if (u == v || !(y->boundary_input || y->output) || root_of(p, u) != root ||
        y->tensor == x->tensor) {
      continue;
    }
    return lg_gpu_lower_fail(p,
                             "tensor %d shares its device bytes with tensor "
                             "%d (a reshape between partition input and "
                             "output): it cannot be bound alone",
                             x->tensor, y->tensor);
  }
  return kTfLiteOk;
}

/* Points the dispatches at the current buffers again; a backend that keeps
 * recordings records them anew. */
static TfLiteStatus rebind_dispatches(lg_gpu_program* p) {
  if (!p->prepared) return kTfLiteOk;
  lg_gpu_error error = {{0}};
  if (p->recording != NULL) {
    /* The recording may still run on the device. */
    if (p->be->ops->finish(p->be, &error) != kTfLiteOk) {
      return lg_gpu_lower_fail(p, "%s", error.message);
    }
    p->be->ops->recording_release(p->be, p->recording);
    p->recording = NULL;
  }
  if (p->timed_recording != NULL) {
    p->be->ops->recording_release(p->be, p->timed_recording);
    p->timed_recording = NULL;
  }
  resolve_arguments(p);
  return record_dispatches(p);
}

TfLiteStatus lg_gpu_program_bind(lg_gpu_program* p, int tensor,
                                 lg_gpu_buffer* buffer) {
  const int v = boundary_value(p, tensor);
  if (v < 0) {
    return lg_gpu_lower_fail(p,
                             "tensor %d is not an input or output of the "
                             "partition",
                             tensor);
  }
  if (buffer != NULL && check_binding(p, v, buffer) != kTfLiteOk) {
    return kTfLiteError;
  }
  p->values[root_of(p, v)].bound = buffer;
  return rebind_dispatches(p);
}

/* ---- Execution
 * --------------------------------------------------------------- */

static TfLiteStatus upload_inputs(lg_gpu_program* p, TfLiteContext* context,
                                  lg_gpu_error* error) {
  for (int v = 0; v < p->num_values; ++v) {
    const value* x = &p->values[v];
    if (!x->boundary_input || x->bytes == 0 || is_bound(p, v)) continue;
    const TfLiteTensor* t = &context->tensors[x->tensor];
    if (t->data.raw == NULL) {
      snprintf(error->message, sizeof(error->message),
               "input tensor %d has no data", x->tensor);
      return kTfLiteError;
    }
    const void* data = t->data.raw;
    if (converted(x)) {
      if (fill_staging(&p->values[v], data) != kTfLiteOk) {
        snprintf(error->message, sizeof(error->message), "out of host memory");
        return kTfLiteError;
      }
      data = x->staging;
    }
    if (lg_gpu_buffer_upload(p->be, buffer_of(p, v), 0, data, x->bytes,
                             error) != kTfLiteOk) {
      return kTfLiteError;
    }
    p->bytes_uploaded += x->bytes;
  }
  return kTfLiteOk;
}

/* Where output `i` is copied to: its tensor, or the staging that
 * download_outputs widens (half) or quantizes into it. */
static void* output_target(lg_gpu_program* p, TfLiteContext* context, int i,
                           lg_gpu_error* error) {
  value* x = &p->values[p->output_values[i]];
  TfLiteTensor* t = &context->tensors[p->output_tensors[i]];
  if (t->data.raw == NULL) {
    snprintf(error->message, sizeof(error->message),
             "output tensor %d has no data", p->output_tensors[i]);
    return NULL;
  }
  if (!converted(x)) return t->data.raw;
  if (ensure_staging(x) != kTfLiteOk) {
    snprintf(error->message, sizeof(error->message), "out of host memory");
    return NULL;
  }
  return x->staging;
}

/* The copies of every output that is not bound into p->downloads, their
 * number in *count. */
static TfLiteStatus collect_downloads(lg_gpu_program* p, TfLiteContext* context,
                                      int* count, lg_gpu_error* error) {
  *count = 0;
  for (int i = 0; i < p->num_outputs; ++i) {
    value* x = &p->values[p->output_values[i]];
    if (x->bytes == 0 || is_bound(p, p->output_values[i])) continue;
    void* target = output_target(p, context, i, error);
    if (target == NULL) return kTfLiteError;
    p->downloads[(*count)++] = (lg_gpu_download){
        buffer_of(p, p->output_values[i]), 0, target, x->bytes};
  }
  return kTfLiteOk;
}

/* Once the downloads landed: the half-precision outputs widened and the
 * quantized ones quantized into their tensors. */
static void convert_outputs(lg_gpu_program* p, TfLiteContext* context) {
  for (int i = 0; i < p->num_outputs; ++i) {
    value* x = &p->values[p->output_values[i]];
    if (x->bytes == 0 || is_bound(p, p->output_values[i])) continue;
    TfLiteTensor* t = &context->tensors[p->output_tensors[i]];
    if (x->quantized) {
      lg_gpu_quant_from_device(x, x->staging, t->data.raw);
    } else if (x->half) {
      lg_fp16_to_fp32_array(x->staging, t->data.f, x->bytes / sizeof(uint16_t));
    }
    p->bytes_downloaded += x->bytes;
  }
}

/* After a failure: waits for recorded uploads that may still read the
 * caller's tensors, then keeps the first error. */
static TfLiteStatus run_failed(lg_gpu_program* p, const lg_gpu_error* error) {
  lg_gpu_error ignored = {{0}};
  p->be->ops->finish(p->be, &ignored);
  if (p->pending != NULL) p->be->ops->fence_release(p->be, p->pending);
  p->pending = NULL;
  p->in_flight = false;
  p->timed_run = false;
  return lg_gpu_lower_fail(p, "%s", error->message);
}

/* Profiling without a timed recording: each dispatch alone, timed from
 * enqueue to completion (the uploads finish first so the first dispatch
 * does not carry them). */
static TfLiteStatus run_timed(lg_gpu_program* p, lg_gpu_error* error) {
  lg_gpu_backend* be = p->be;
  if (be->ops->finish(be, error) != kTfLiteOk) return kTfLiteError;
  for (int d = 0; d < p->num_dispatches; ++d) {
    dispatch* x = &p->dispatches[d];
    const uint64_t start = lg_now_ns();
    if (lg_gpu_dispatch(be, x->kernel, x->resolved, x->num_args, x->dims,
                        x->global, x->has_local ? x->local : NULL,
                        error) != kTfLiteOk ||
        (be->ops->submit != NULL && be->ops->submit(be, error) != kTfLiteOk) ||
        be->ops->finish(be, error) != kTfLiteOk) {
      return kTfLiteError;
    }
    x->total_ns += lg_now_ns() - start;
    x->count++;
  }
  return kTfLiteOk;
}

/* Starts the outputs' copies: without waiting when the backend has
 * non-blocking downloads (p->pending gets the fence), else blocking. */
static TfLiteStatus start_downloads(lg_gpu_program* p, TfLiteContext* context,
                                    lg_gpu_error* error) {
  int count = 0;
  if (collect_downloads(p, context, &count, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (count == 0) return kTfLiteOk;
  if (p->be->ops->download_begin == NULL) {
    return lg_gpu_buffer_download_batch(p->be, p->downloads, count, error);
  }
  return lg_gpu_download_begin(p->be, p->downloads, count, &p->pending, error);
}

/* The uploads and the dispatches, submitted. */
static TfLiteStatus submit_work(lg_gpu_program* p, TfLiteContext* context,
                                lg_gpu_error* error) {
  lg_gpu_backend* be = p->be;
  p->bytes_uploaded = 0;
  p->bytes_downloaded = 0;
  if (upload_inputs(p, context, error) != kTfLiteOk) return kTfLiteError;
  p->timed_run = p->profiling && p->timed_recording != NULL;
  lg_gpu_recording* replay =
      p->timed_run ? p->timed_recording : (p->profiling ? NULL : p->recording);
  const TfLiteStatus ran = replay != NULL
                               ? be->ops->recording_run(be, replay, error)
                           : p->profiling ? run_timed(p, error)
                                          : record_each_dispatch(p, error);
  if (ran != kTfLiteOk) return kTfLiteError;
  if (be->ops->submit != NULL && be->ops->submit(be, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Uploads, dispatches and downloads in one ordered stream, submitted;
 * nothing blocks (with a backend that has non-blocking downloads). */
TfLiteStatus lg_gpu_program_enqueue(lg_gpu_program* p, TfLiteContext* context) {
  if (!p->prepared) return lg_gpu_lower_fail(p, "the program is not prepared");
  if (p->in_flight || p->runs_in_flight > 0) {
    return lg_gpu_lower_fail(p,
                             "a run is already in flight (complete it "
                             "before the next one)");
  }
  lg_gpu_error error = {{0}};
  p->in_flight = true;
  if (submit_work(p, context, &error) != kTfLiteOk ||
      start_downloads(p, context, &error) != kTfLiteOk) {
    return run_failed(p, &error);
  }
  return kTfLiteOk;
}

/* ---- Runs in flight together (the async kernel's) ------------------------
 */

/* One run's downloads: its fence, its copy list and, per output converted
 * on the host, the staging its device bytes land in and the tensor data
 * they are converted into (as they were at enqueue). */
struct lg_gpu_run {
  lg_gpu_fence* pending;
  lg_gpu_download* downloads;
  int count;
  void** staging; /* per program output; NULL when not converted */
  void** targets;
};

static void run_free(lg_gpu_program* p, lg_gpu_run* run) {
  if (run == NULL) return;
  if (run->pending != NULL) p->be->ops->fence_release(p->be, run->pending);
  for (int i = 0; run->staging != NULL && i < p->num_outputs; ++i) {
    free(run->staging[i]);
  }
  free(run->staging);
  free(run->targets);
  free(run->downloads);
  free(run);
  p->runs_in_flight--;
}

static lg_gpu_run* run_create(lg_gpu_program* p) {
  lg_gpu_run* run = calloc(1, sizeof(*run));
  if (run == NULL) return NULL;
  const size_t n = (size_t)(p->num_outputs > 0 ? p->num_outputs : 1);
  run->downloads = malloc(n * sizeof(*run->downloads));
  run->staging = calloc(n, sizeof(*run->staging));
  run->targets = calloc(n, sizeof(*run->targets));
  p->runs_in_flight++;
  if (run->downloads == NULL || run->staging == NULL || run->targets == NULL) {
    run_free(p, run);
    return NULL;
  }
  return run;
}

/* The run's copy list: every unbound output into its tensor's data, or
 * into a staging of the run's own when converted on the host. */
static TfLiteStatus collect_run_downloads(lg_gpu_program* p,
                                          TfLiteContext* context,
                                          lg_gpu_run* run,
                                          lg_gpu_error* error) {
  for (int i = 0; i < p->num_outputs; ++i) {
    const value* x = &p->values[p->output_values[i]];
    if (x->bytes == 0 || is_bound(p, p->output_values[i])) continue;
    void* target = context->tensors[p->output_tensors[i]].data.raw;
    if (target == NULL) {
      lg_gpu_error_set(error, "output tensor %d has no data",
                       p->output_tensors[i]);
      return kTfLiteError;
    }
    if (converted(x)) {
      run->targets[i] = target;
      run->staging[i] = malloc(x->bytes);
      if (run->staging[i] == NULL) {
        lg_gpu_error_set(error, "out of host memory");
        return kTfLiteError;
      }
      target = run->staging[i];
    }
    run->downloads[run->count++] = (lg_gpu_download){
        buffer_of(p, p->output_values[i]), 0, target, x->bytes};
  }
  return kTfLiteOk;
}

bool lg_gpu_program_overlaps_runs(const lg_gpu_program* p) {
  if (!p->be->ops->downloads_overlap || p->profiling) return false;
  for (int v = 0; v < p->num_values; ++v) {
    const value* x = &p->values[v];
    /* Such an input is converted into the value's one staging. */
    if (x->boundary_input && converted(x) && !is_bound(p, v)) return false;
  }
  return true;
}

TfLiteStatus lg_gpu_program_enqueue_run(lg_gpu_program* p,
                                        TfLiteContext* context,
                                        lg_gpu_run** out) {
  *out = NULL;
  if (!p->prepared) return lg_gpu_lower_fail(p, "the program is not prepared");
  if (p->in_flight ||
      (p->runs_in_flight > 0 && !lg_gpu_program_overlaps_runs(p))) {
    return lg_gpu_lower_fail(p,
                             "a run is already in flight (complete it "
                             "before the next one)");
  }
  if (p->be->ops->download_begin == NULL) {
    return lg_gpu_lower_fail(p, "the %s backend has no non-blocking downloads",
                             p->be->name);
  }
  lg_gpu_run* run = run_create(p);
  if (run == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  lg_gpu_error error = {{0}};
  /* The copy list first: a refusal there (an output without data) comes
   * before anything is submitted, so no wait for the device follows (a
   * run held by an input's semaphore would keep it waiting). */
  if (collect_run_downloads(p, context, run, &error) != kTfLiteOk ||
      submit_work(p, context, &error) != kTfLiteOk ||
      (run->count > 0 &&
       lg_gpu_download_begin(p->be, run->downloads, run->count, &run->pending,
                             &error) != kTfLiteOk)) {
    lg_gpu_error ignored = {{0}};
    lg_gpu_program_cancel_syncs(p); /* not submitted: never to be */
    p->be->ops->finish(p->be, &ignored);
    p->timed_run = false;
    run_free(p, run);
    return lg_gpu_lower_fail(p, "%s", error.message);
  }
  *out = run;
  return kTfLiteOk;
}

TfLiteStatus lg_gpu_program_complete_run(lg_gpu_program* p, lg_gpu_run* run) {
  lg_gpu_backend* be = p->be;
  lg_gpu_error error = {{0}};
  TfLiteStatus status = kTfLiteOk;
  if (run->pending != NULL) {
    status = be->ops->fence_wait(be, run->pending, &error);
  } else {
    status = be->ops->finish(be, &error); /* nothing downloaded */
  }
  if (status == kTfLiteOk) add_device_times(p);
  p->timed_run = false;
  for (int i = 0; status == kTfLiteOk && i < p->num_outputs; ++i) {
    const value* x = &p->values[p->output_values[i]];
    if (run->staging[i] == NULL) continue;
    if (x->quantized) {
      lg_gpu_quant_from_device(x, run->staging[i], run->targets[i]);
    } else {
      lg_fp16_to_fp32_array(run->staging[i], run->targets[i],
                            x->bytes / sizeof(uint16_t));
    }
  }
  for (int i = 0; i < run->count; ++i) {
    p->bytes_downloaded += run->downloads[i].bytes;
  }
  run_free(p, run);
  if (status != kTfLiteOk) return lg_gpu_lower_fail(p, "%s", error.message);
  return kTfLiteOk;
}

bool lg_gpu_program_run_done(const lg_gpu_program* p, const lg_gpu_run* run) {
  return run->pending != NULL && p->be->ops->fence_done != NULL &&
         p->be->ops->fence_done(p->be, run->pending);
}

void lg_gpu_program_release_run(lg_gpu_program* p, lg_gpu_run* run) {
  if (run == NULL) return;
  lg_gpu_error ignored = {{0}};
  p->be->ops->finish(p->be, &ignored); /* the device may still write */
  run_free(p, run);
}

TfLiteStatus lg_gpu_program_export_run_sync(lg_gpu_program* p,
                                            const lg_gpu_run* run,
                                            void** native) {
  lg_gpu_backend* be = p->be;
  lg_gpu_error error = {{0}};
  if (run->pending == NULL || be->ops->fence_export == NULL ||
      be->ops->fence_export(be, run->pending, native, &error) != kTfLiteOk) {
    return lg_gpu_lower_fail(
        p, "no output synchronization object: %s",
        error.message[0] ? error.message : "no download in flight");
  }
  return kTfLiteOk;
}

void lg_gpu_program_release_sync(lg_gpu_program* p, void* native) {
  if (native != NULL && p->be->ops->sync_release != NULL) {
    p->be->ops->sync_release(p->be, native);
  }
}

/* Waits once: on the downloads' fence, or for everything submitted when
 * nothing is downloaded (bound outputs). */
TfLiteStatus lg_gpu_program_complete(lg_gpu_program* p,
                                     TfLiteContext* context) {
  if (!p->in_flight) {
    return lg_gpu_lower_fail(p, "no run in flight to complete");
  }
  lg_gpu_backend* be = p->be;
  lg_gpu_error error = {{0}};
  const bool downloaded = p->pending != NULL;
  if (downloaded && be->ops->fence_wait(be, p->pending, &error) != kTfLiteOk) {
    return run_failed(p, &error);
  }
  if (p->pending != NULL) be->ops->fence_release(be, p->pending);
  p->pending = NULL;
  convert_outputs(p, context);
  if (p->bytes_downloaded == 0 && be->ops->finish(be, &error) != kTfLiteOk) {
    return run_failed(p, &error);
  }
  add_device_times(p);
  p->in_flight = false;
  return kTfLiteOk;
}

const char* lg_gpu_program_sync_type(const lg_gpu_program* p) {
  return p->be->ops->sync_wait_input != NULL ? p->be->ops->sync_type : NULL;
}

const char* lg_gpu_program_input_sync_type(const lg_gpu_program* p) {
  return p->be->ops->sync_wait_input != NULL ? p->be->ops->input_sync_type
                                             : NULL;
}

/* The value of boundary input `tensor`, or -1. */
static int input_value(const lg_gpu_program* p, int tensor) {
  for (int v = 0; v < p->num_values; ++v) {
    if (p->values[v].boundary_input && p->values[v].tensor == tensor) return v;
  }
  return -1;
}

TfLiteStatus lg_gpu_program_wait_for_input(lg_gpu_program* p, int tensor,
                                           const char* type, void* native) {
  lg_gpu_backend* be = p->be;
  if (be->ops->sync_wait_input == NULL) {
    return lg_gpu_lower_fail(p,
                             "the %s backend takes no synchronization "
                             "objects",
                             be->name);
  }
  const int v = input_value(p, tensor);
  const bool on_host = v >= 0 && converted(&p->values[v]);
  const bool bound = v >= 0 && is_bound(p, v);
  lg_gpu_error error = {{0}};
  if (be->ops->sync_wait_input(be, type, native, on_host, bound, &error) !=
      kTfLiteOk) {
    return lg_gpu_lower_fail(p, "input tensor %d's synchronization: %s", tensor,
                             error.message);
  }
  return kTfLiteOk;
}

bool lg_gpu_program_signals_outputs(const lg_gpu_program* p) {
  return (p->be->ops->fence_export != NULL &&
          p->be->ops->download_begin != NULL) ||
         p->be->ops->sync_signal_output != NULL;
}

bool lg_gpu_program_signals_before_run(const lg_gpu_program* p) {
  return p->be->ops->sync_signal_output != NULL;
}

TfLiteStatus lg_gpu_program_signal_output(lg_gpu_program* p, int tensor,
                                          void* native) {
  lg_gpu_backend* be = p->be;
  lg_gpu_error error = {{0}};
  if (be->ops->sync_signal_output == NULL ||
      be->ops->sync_signal_output(be, native, &error) != kTfLiteOk) {
    return lg_gpu_lower_fail(
        p, "output tensor %d's synchronization: %s", tensor,
        error.message[0] ? error.message : "the backend signals none");
  }
  return kTfLiteOk;
}

bool lg_gpu_program_fences_outputs(const lg_gpu_program* p) {
  return p->be->ops->sync_fence_output != NULL &&
         lg_gpu_program_input_sync_type(p) != NULL;
}

TfLiteStatus lg_gpu_program_fence_output(lg_gpu_program* p, int tensor,
                                         void* native, bool check_only) {
  lg_gpu_backend* be = p->be;
  lg_gpu_error error = {{0}};
  if (!lg_gpu_program_fences_outputs(p) ||
      be->ops->sync_fence_output(be, native, check_only, &error) != kTfLiteOk) {
    return lg_gpu_lower_fail(
        p, "output tensor %d's fence: %s", tensor,
        error.message[0] ? error.message : "the backend signals none");
  }
  return kTfLiteOk;
}

void lg_gpu_program_cancel_syncs(lg_gpu_program* p) {
  if (p->be->ops->sync_cancel != NULL) p->be->ops->sync_cancel(p->be);
}

const char* lg_gpu_program_output_sync_problem(const lg_gpu_program* p,
                                               int tensor) {
  if (!lg_gpu_program_signals_outputs(p)) {
    return "the backend's downloads are copied on the host; Wait delivers "
           "the output";
  }
  for (int i = 0; i < p->num_outputs; ++i) {
    if (p->output_tensors[i] != tensor) continue;
    const value* x = &p->values[p->output_values[i]];
    if (lg_gpu_program_signals_before_run(p)) {
      return is_bound(p, p->output_values[i])
                 ? NULL
                 : "it is copied out of a readback buffer on the host in "
                   "Wait (bind a device buffer to it for a semaphore or a "
                   "fence)";
    }
    if (is_bound(p, p->output_values[i])) {
      return "it is bound to a device buffer (no download to signal)";
    }
    if (converted(x)) {
      return "it is converted on the host after its download (float16 or "
             "quantized on the device); Wait delivers it";
    }
    if (x->bytes == 0) return "it is empty";
    return NULL;
  }
  return "it is not an output of the GPU partition";
}

/* Only the wait for the downloads blocks, since each blocking call costs
 * a driver wake-up. */
TfLiteStatus lg_gpu_program_run(lg_gpu_program* p, TfLiteContext* context) {
  if (lg_gpu_program_enqueue(p, context) != kTfLiteOk) return kTfLiteError;
  return lg_gpu_program_complete(p, context);
}

void lg_gpu_program_get_stats(const lg_gpu_program* p,
                              lg_gpu_program_stats* out) {
  memset(out, 0, sizeof(*out));
  out->nodes = p->nodes;
  out->fused_nodes = p->fused_nodes;
  out->dispatches = p->num_dispatches;
  for (int b = 0; b < p->num_buffers; ++b) {
    out->device_bytes += device_size(p->buffers[b].bytes);
  }
  for (int v = 0; v < p->num_values; ++v) {
    const value* x = &p->values[v];
    if (x->kind == VALUE_CONSTANT) out->device_bytes += device_size(x->bytes);
    if (x->alias_of < 0) out->unplanned_bytes += device_size(x->bytes);
  }
  out->bytes_uploaded = p->bytes_uploaded;
  out->bytes_downloaded = p->bytes_downloaded;
}

void lg_gpu_program_set_profiling(lg_gpu_program* p, bool on) {
  p->profiling = on;
  if (!on) return;
  /* A prepared program records its timed recording now, on an idle
   * device (none while its runs are in flight: those then profile on the
   * host). */
  lg_gpu_error ignored = {{0}};
  if (p->prepared && p->timed_recording == NULL && !p->in_flight &&
      p->runs_in_flight == 0 && p->be->ops->recording_begin_timed != NULL &&
      p->be->ops->finish(p->be, &ignored) == kTfLiteOk) {
    record_timed(p);
  }
  for (int d = 0; d < p->num_dispatches; ++d) {
    p->dispatches[d].total_ns = 0;
    p->dispatches[d].count = 0;
  }
}

bool lg_gpu_program_profiles_on_host(const lg_gpu_program* p) {
  return p->profiling && p->timed_recording == NULL;
}

int lg_gpu_program_profile(const lg_gpu_program* p,
                           litegpu_gpu_dispatch_profile* out, int capacity) {
  for (int d = 0; d < p->num_dispatches && d < capacity; ++d) {
    const dispatch* x = &p->dispatches[d];
    litegpu_gpu_dispatch_profile* e = &out[d];
    memset(e, 0, sizeof(*e));
    e->node_index = x->node_index;
    e->op_name = x->op_name;
    snprintf(e->kernel, sizeof(e->kernel), "%s", x->kernel_name);
    e->total_ns = x->total_ns;
    e->count = x->count;
  }
  return p->num_dispatches;
}
