/* GPU program, lowering side: the kernel cache, the program's state and
 * values, lowering of nodes into dispatches, and the helpers lowerings share
 * (gpu_program.h, gpu_lower.h). Memory plan and execution:
 * gpu_program_run.c. */
#include "delegates/gpu/gpu_program.h"

#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_program_internal.h"
#include "runtime/model/builtin_options.h"
#include "tensorflow/lite/builtin_ops.h"

/* ---- Kernel cache ---------------------------------------------------------
 */

typedef struct lg_gpu_kernel_entry {
  char* key; /* name '\n' defines */
  lg_gpu_kernel* kernel;
} lg_gpu_kernel_entry;

void lg_gpu_kernel_cache_release(lg_gpu_kernel_cache* cache,
                                 lg_gpu_backend* be) {
  for (int i = 0; i < cache->count; ++i) {
    be->ops->kernel_release(be, cache->entries[i].kernel);
    free(cache->entries[i].key);
  }
  free(cache->entries);
  cache->entries = NULL;
  cache->count = cache->capacity = 0;
}

/* The cache key of a kernel: name '\n' defines (malloc'd; NULL when out
 * of memory). */
static char* kernel_key(const char* name, const char* defines) {
  const char* d = defines != NULL ? defines : "";
  const size_t key_size = strlen(name) + strlen(d) + 2;
  char* key = malloc(key_size);
  if (key != NULL) snprintf(key, key_size, "%s\n%s", name, d);
  return key;
}

/* The entry holding `key`, or -1. */
static int kernel_cache_find(const lg_gpu_kernel_cache* cache,
                             const char* key) {
  for (int i = 0; i < cache->count; ++i) {
    if (strcmp(cache->entries[i].key, key) == 0) return i;
  }
  return -1;
}

static TfLiteStatus kernel_cache_get(lg_gpu_kernel_cache* cache,
                                     lg_gpu_backend* be, const char* name,
                                     const char* defines, lg_gpu_kernel** out,
                                     const char** out_key,
                                     lg_gpu_error* error) {
  char* key = kernel_key(name, defines);
  if (key == NULL) {
    snprintf(error->message, sizeof(error->message), "out of host memory");
    return kTfLiteError;
  }
  const int found = kernel_cache_find(cache, key);
  if (found >= 0) {
    free(key);
    *out = cache->entries[found].kernel;
    *out_key = cache->entries[found].key;
    return kTfLiteOk;
  }
  if (cache->count == cache->capacity) {
    const int capacity = cache->capacity ? cache->capacity * 2 : 16;
    lg_gpu_kernel_entry* grown =
        realloc(cache->entries, (size_t)capacity * sizeof(*grown));
    if (grown == NULL) {
      free(key);
      snprintf(error->message, sizeof(error->message), "out of host memory");
      return kTfLiteError;
    }
    cache->entries = grown;
    cache->capacity = capacity;
  }
  lg_gpu_kernel* kernel = NULL;
  if (be->ops->kernel_create(be, name, defines, &kernel, error) != kTfLiteOk) {
    free(key);
    return kTfLiteError;
  }
  cache->entries[cache->count++] = (lg_gpu_kernel_entry){key, kernel};
  *out = kernel;
  *out_key = key;
  return kTfLiteOk;
}

/* ---- Program state --------------------------------------------------------
 */

TfLiteStatus lg_gpu_lower_fail(lg_gpu_program* p, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(p->error, sizeof(p->error), format, args);
  va_end(args);
  return kTfLiteError;
}

const char* lg_gpu_program_error(const lg_gpu_program* p) { return p->error; }

bool lg_gpu_lower_kernel_reusable(const lg_gpu_program* p, const char* kernel,
                                  const char* defines) {
  if (!p->relowering || p->kernels == NULL) return false;
  char* key = kernel_key(kernel, defines);
  const bool built = key != NULL && kernel_cache_find(p->kernels, key) >= 0;
  free(key);
  return built;
}

size_t lg_gpu_lower_max_work_group(const lg_gpu_program* p) {
  return p->be->device.max_work_group_size;
}

size_t lg_gpu_lower_simd_width(const lg_gpu_program* p) {
  return p->be->device.simd_width;
}

bool lg_gpu_lower_loops_fit(const lg_gpu_program* p, int64_t iterations) {
  const uint32_t limit = p->be->device.max_loop_iterations;
  return limit == 0 || iterations <= (int64_t)limit;
}

TfLiteStatus lg_gpu_lower_check_loops(lg_gpu_program* p, int64_t iterations,
                                      const char* what) {
  if (lg_gpu_lower_loops_fit(p, iterations)) return kTfLiteOk;
  return lg_gpu_lower_fail(
      p,
      "%s needs %lld loop iterations per invocation, over the device's limit "
      "of %u (the driver ends longer loops early)",
      what, (long long)iterations, p->be->device.max_loop_iterations);
}

lg_gpu_program* lg_gpu_program_create(lg_gpu_backend* be,
                                      lg_gpu_kernel_cache* kernels,
                                      const TfLiteContext* context) {
  lg_gpu_program* p = calloc(1, sizeof(*p));
  if (p == NULL) return NULL;
  p->be = be;
  p->lowering_node = -1;
  p->kernels = kernels;
  p->num_context_tensors = (int)context->tensors_size;
  p->value_of_tensor =
      malloc(sizeof(int) * (size_t)(p->num_context_tensors + 1));
  if (p->value_of_tensor == NULL) {
    free(p);
    return NULL;
  }
  for (int i = 0; i < p->num_context_tensors; ++i) p->value_of_tensor[i] = -1;
  return p;
}

void lg_gpu_program_destroy(lg_gpu_program* p) {
  if (p == NULL) return;
  if (p->in_flight) {
    /* Never completed: the device may still read or write the buffers. */
    lg_gpu_error ignored = {{0}};
    p->be->ops->finish(p->be, &ignored);
    if (p->pending != NULL) p->be->ops->fence_release(p->be, p->pending);
  }
  if (p->recording != NULL) p->be->ops->recording_release(p->be, p->recording);
  if (p->timed_recording != NULL) {
    p->be->ops->recording_release(p->be, p->timed_recording);
  }
  for (int i = 0; i < p->num_values; ++i) {
    p->be->ops->buffer_release(p->be, p->values[i].own);
    free(p->values[i].host_copy);
    free(p->values[i].staging);
    TfLiteIntArrayFree(p->values[i].dims);
  }
  for (int i = 0; i < p->num_buffers; ++i) {
    p->be->ops->buffer_release(p->be, p->buffers[i].buffer);
  }
  free(p->buffers);
  free(p->values);
  free(p->value_of_tensor);
  free(p->dispatches);
  free(p->output_values);
  free(p->output_tensors);
  free(p->downloads);
  for (int i = 0; p->dequantized != NULL && i < p->num_context_tensors; ++i) {
    free(p->dequantized[i]);
  }
  free(p->dequantized);
  TfLiteIntArrayFree(p->partition_nodes);
  TfLiteIntArrayFree(p->partition_outputs);
  free(p->partition_node_copies);
  free(p->partition_regs);
  free(p->absorbed);
  free(p);
}

/* The context of the node being lowered (lowerings receive it too; the
 * program keeps it only for the duration of lower_node). */
static const TfLiteContext* lowering_context(const lg_gpu_program* p) {
  return p->lowering;
}

/* ---- Values ----------------------------------------------------------------
 */

static int add_value(lg_gpu_program* p, value v) {
  if (p->num_values == p->values_capacity) {
    const int capacity = p->values_capacity ? p->values_capacity * 2 : 32;
    value* grown = realloc(p->values, (size_t)capacity * sizeof(*grown));
    if (grown == NULL) {
      lg_gpu_lower_fail(p, "out of host memory");
      return -1;
    }
    p->values = grown;
    p->values_capacity = capacity;
  }
  v.first = NO_DISPATCH;
  v.last = -1;
  v.buffer = -1;
  v.donor_value = -1;
  p->values[p->num_values] = v;
  return p->num_values++;
}

static bool is_constant_tensor(const TfLiteTensor* t) {
  return t->allocation_type == kTfLiteMmapRo ||
         t->allocation_type == kTfLitePersistentRo;
}

/* The value of a context tensor, created on first use. */
static int tensor_value(lg_gpu_program* p, const TfLiteContext* context,
                        int tensor) {
  if (tensor < 0 || tensor >= p->num_context_tensors) {
    lg_gpu_lower_fail(p, "tensor index %d is out of range", tensor);
    return -1;
  }
  if (p->value_of_tensor[tensor] >= 0) return p->value_of_tensor[tensor];
  const TfLiteTensor* t = &context->tensors[tensor];
  value v = {.tensor = tensor, .alias_of = -1, .host_size = t->bytes};
  v.kind = is_constant_tensor(t) ? VALUE_CONSTANT : VALUE_TENSOR;
  if (v.kind == VALUE_CONSTANT && t->data.raw == NULL && t->bytes > 0) {
    lg_gpu_lower_fail(p, "constant tensor %d has no data", tensor);
    return -1;
  }
  /* Quantized data is float on the device: activations are converted at
   * the boundary, constants dequantized now (gpu_quant.c). */
  v.quantized = lg_gpu_quantized_activation(t, &v.quant);
  const bool dequantized =
      v.kind == VALUE_CONSTANT && lg_gpu_dequantizable_constant(t);
  if (dequantized) {
    v.host_copy = lg_gpu_quant_dequantized_copy(t);
    if (v.host_copy == NULL) {
      lg_gpu_lower_fail(p, "out of host memory");
      return -1;
    }
  }
  const bool as_float = t->type == kTfLiteFloat32 || v.quantized || dequantized;
  v.half = p->be->fp16_storage && as_float;
  v.bytes = as_float ? lg_gpu_elements(t) *
                           (v.half ? sizeof(uint16_t) : sizeof(float))
                     : t->bytes;
  v.dims = t->dims != NULL ? TfLiteIntArrayCopy(t->dims) : NULL;
  const int id = t->dims == NULL || v.dims != NULL ? add_value(p, v) : -1;
  if (id >= 0) p->value_of_tensor[tensor] = id;
  if (id < 0) {
    free(v.host_copy);
    TfLiteIntArrayFree(v.dims);
    if (p->error[0] == '\0') lg_gpu_lower_fail(p, "out of host memory");
  }
  return id;
}

/* A constant holding `copy` (malloc'd, `bytes`), which it owns from here
 * on, also on failure. */
static int add_constant(lg_gpu_program* p, void* copy, size_t bytes) {
  if (copy == NULL) {
    lg_gpu_lower_fail(p, "out of host memory for a %zu-byte constant", bytes);
    return -1;
  }
  const int id = add_value(p, (value){.kind = VALUE_CONSTANT,
                                      .tensor = -1,
                                      .alias_of = -1,
                                      .bytes = bytes,
                                      .host_size = bytes,
                                      .host_copy = copy});
  if (id < 0) free(copy);
  return id;
}

int lg_gpu_lower_constant(lg_gpu_program* p, const void* data, size_t bytes) {
  void* copy = malloc(bytes > 0 ? bytes : 1);
  if (copy != NULL && bytes > 0) memcpy(copy, data, bytes);
  return add_constant(p, copy, bytes);
}

/* Constant `id` of `count` floats as tensor data (float16 on a half
 * precision backend). */
static int as_tensor_floats(lg_gpu_program* p, int id, size_t count) {
  if (id >= 0 && p->be->fp16_storage) {
    p->values[id].half = true;
    p->values[id].bytes = count * sizeof(uint16_t);
  }
  return id;
}

int lg_gpu_lower_constant_floats(lg_gpu_program* p, const float* data,
                                 size_t count) {
  return as_tensor_floats(
      p, lg_gpu_lower_constant(p, data, count * sizeof(float)), count);
}

int lg_gpu_lower_constant_floats_taken(lg_gpu_program* p, float* data,
                                       size_t count) {
  return as_tensor_floats(p, add_constant(p, data, count * sizeof(float)),
                          count);
}

int lg_gpu_lower_scratch(lg_gpu_program* p, size_t bytes) {
  return add_value(p, (value){.kind = VALUE_SCRATCH,
                              .tensor = -1,
                              .alias_of = -1,
                              .bytes = bytes,
                              .host_size = bytes,
                              .produced = true});
}

int lg_gpu_lower_scratch_floats(lg_gpu_program* p, size_t count) {
  return lg_gpu_lower_scratch(
      p, count * (p->be->fp16_storage ? sizeof(uint16_t) : sizeof(float)));
}

TfLiteStatus lg_gpu_lower_constant_tensor(lg_gpu_program* p, int t,
                                          const void* data, size_t bytes) {
  const TfLiteContext* context = lowering_context(p);
  if (context == NULL) return lg_gpu_lower_fail(p, "constant outside lowering");
  const int v = tensor_value(p, context, t);
  if (v < 0) return kTfLiteError;
  value* x = &p->values[v];
  if (x->kind != VALUE_TENSOR || host_bytes(x) != bytes ||
      x->host_copy != NULL) {
    return lg_gpu_lower_fail(p, "tensor %d cannot become a %zu-byte constant",
                             t, bytes);
  }
  x->host_copy = malloc(bytes > 0 ? bytes : 1);
  if (x->host_copy == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  if (bytes > 0) memcpy(x->host_copy, data, bytes);
  x->kind = VALUE_CONSTANT;
  return kTfLiteOk;
}

/* ---- Lowering ------------------------------------------------------------ */

TfLiteStatus lg_gpu_lower_alias(lg_gpu_program* p, int out, int in) {
  const TfLiteContext* context = lowering_context(p);
  if (context == NULL) return lg_gpu_lower_fail(p, "alias outside lowering");
  const int vin = tensor_value(p, context, in);
  const int vout = tensor_value(p, context, out);
  if (vin < 0 || vout < 0) return kTfLiteError;
  if (vin == vout) return kTfLiteOk;
  if (p->values[vout].bytes != p->values[vin].bytes) {
    return lg_gpu_lower_fail(p,
                             "alias of tensor %d (%zu bytes) onto tensor %d "
                             "(%zu bytes): sizes differ",
                             out, p->values[vout].bytes, in,
                             p->values[vin].bytes);
  }
  if (p->values[vout].alias_of >= 0 || p->values[vout].kind != VALUE_TENSOR) {
    return lg_gpu_lower_fail(p, "tensor %d cannot alias another", out);
  }
  p->values[vout].alias_of = vin;
  p->values[vout].produced = true;
  return kTfLiteOk;
}

static void touch(value* v, int dispatch_index) {
  if (dispatch_index < v->first) v->first = dispatch_index;
  if (dispatch_index > v->last) v->last = dispatch_index;
}

static TfLiteStatus check_operand(lg_gpu_program* p, const lg_gpu_operand* arg,
                                  int index) {
  if (arg->kind == LG_GPU_OPERAND_INT || arg->kind == LG_GPU_OPERAND_FLOAT) {
    return kTfLiteOk;
  }
  if (arg->kind == LG_GPU_OPERAND_TENSOR) {
    const TfLiteContext* context = lowering_context(p);
    return tensor_value(p, context, arg->value.id) < 0 ? kTfLiteError
                                                       : kTfLiteOk;
  }
  const int id = arg->value.id;
  const value_kind want =
      arg->kind == LG_GPU_OPERAND_CONSTANT ? VALUE_CONSTANT : VALUE_SCRATCH;
  if (id < 0 || id >= p->num_values || p->values[id].kind != want ||
      p->values[id].tensor >= 0) {
    return lg_gpu_lower_fail(p, "dispatch argument %d: unknown %s id %d", index,
                             want == VALUE_CONSTANT ? "constant" : "scratch",
                             id);
  }
  return kTfLiteOk;
}

static dispatch* new_dispatch(lg_gpu_program* p) {
  if (p->num_dispatches == p->dispatches_capacity) {
    const int capacity =
        p->dispatches_capacity ? p->dispatches_capacity * 2 : 16;
    dispatch* grown = realloc(p->dispatches, (size_t)capacity * sizeof(*grown));
    if (grown == NULL) return NULL;
    p->dispatches = grown;
    p->dispatches_capacity = capacity;
  }
  dispatch* d = &p->dispatches[p->num_dispatches];
  memset(d, 0, sizeof(*d));
  return d;
}

TfLiteStatus lg_gpu_lower_dispatch(lg_gpu_program* p, const char* kernel,
                                   const char* defines,
                                   const lg_gpu_operand* args, int num_args,
                                   int dims, const size_t* global,
                                   const size_t* local) {
  if (num_args < 0 || num_args > LG_GPU_MAX_ARGS || dims < 1 || dims > 3) {
    return lg_gpu_lower_fail(p, "dispatch of %s: %d args, %d dims", kernel,
                             num_args, dims);
  }
  for (int i = 0; i < dims; ++i) {
    if (global[i] == 0) return kTfLiteOk; /* nothing to compute */
  }
  for (int i = 0; i < num_args; ++i) {
    if (check_operand(p, &args[i], i) != kTfLiteOk) return kTfLiteError;
  }
  if (p->dry_run) {
    if (!p->be->ops->has_kernel(p->be, kernel)) {
      return lg_gpu_lower_fail(p, "the %s backend has no kernel '%s'",
                               p->be->name, kernel);
    }
    return kTfLiteOk;
  }
  dispatch* d = new_dispatch(p);
  if (d == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  lg_gpu_error error = {{0}};
  if (kernel_cache_get(p->kernels, p->be, kernel, defines, &d->kernel,
                       &d->kernel_key, &error) != kTfLiteOk) {
    return lg_gpu_lower_fail(p, "%s", error.message);
  }
  if (local != NULL) {
    size_t items = 1;
    for (int i = 0; i < dims; ++i) items *= local[i];
    const size_t limit =
        p->be->ops->kernel_max_work_group_size(p->be, d->kernel);
    if (items > limit) {
      return lg_gpu_lower_fail(p,
                               "kernel %s needs work groups of %zu items; the "
                               "device allows %zu for it",
                               kernel, items, limit);
    }
  }
  memcpy(d->args, args, sizeof(*args) * (size_t)num_args);
  d->num_args = num_args;
  d->dims = dims;
  for (int i = 0; i < dims; ++i) {
    d->global[i] = global[i];
    if (local != NULL) d->local[i] = local[i];
  }
  d->has_local = local != NULL;
  d->node_index = p->lowering_node;
  d->op_name = p->lowering_op;
  snprintf(d->kernel_name, sizeof(d->kernel_name), "%s", kernel);
  const int index = p->num_dispatches++;
  for (int i = 0; i < num_args; ++i) {
    const int v = operand_value(p, &args[i]);
    if (v >= 0) touch(&p->values[v], index);
  }
  return kTfLiteOk;
}

static TfLiteStatus lower(lg_gpu_program* p, TfLiteContext* context,
                          const TfLiteNode* node,
                          const TfLiteRegistration* reg) {
  const lg_gpu_lowering* lowering =
      lg_gpu_lowering_find(reg->builtin_code, reg->custom_name);
  if (lowering == NULL) {
    return lg_gpu_lower_fail(p, "builtin %d has no GPU lowering",
                             (int)reg->builtin_code);
  }
  for (int i = 0; i < node->outputs->size; ++i) {
    const int v = tensor_value(p, context, node->outputs->data[i]);
    if (v < 0) return kTfLiteError;
    p->values[v].produced = true;
  }
  p->lowering = context;
  p->lowering_op = lg_builtin_op_name(reg->builtin_code);
  TfLiteStatus status = lowering->lower(p, context, node, reg);
  if (status == kTfLiteOk) {
    status = lg_gpu_quant_after_node(p, context, node, reg);
  }
  p->lowering = NULL;
  if (status != kTfLiteOk && p->error[0] == '\0') {
    lg_gpu_lower_fail(p, "lowering failed");
  }
  ++p->nodes;
  return status;
}

/* The partition's arrays, with room for its node copies. */
static TfLiteStatus alloc_partition(lg_gpu_program* p,
                                    const TfLiteIntArray* nodes,
                                    const TfLiteIntArray* outputs) {
  const size_t n = (size_t)nodes->size + 1;
  p->partition_nodes = TfLiteIntArrayCopy(nodes);
  p->partition_outputs = TfLiteIntArrayCopy(outputs);
  p->absorbed = calloc(n, sizeof(bool));
  p->partition_node_copies = calloc(n, sizeof(TfLiteNode));
  p->partition_regs = calloc(n, sizeof(TfLiteRegistration));
  if (p->partition_nodes == NULL || p->partition_outputs == NULL ||
      p->absorbed == NULL || p->partition_node_copies == NULL ||
      p->partition_regs == NULL) {
    return lg_gpu_lower_fail(p, "out of host memory");
  }
  return kTfLiteOk;
}

TfLiteStatus lg_gpu_program_set_partition(lg_gpu_program* p,
                                          TfLiteContext* context,
                                          const TfLiteIntArray* nodes,
                                          const TfLiteIntArray* outputs) {
  TF_LITE_ENSURE_STATUS(alloc_partition(p, nodes, outputs));
  for (int k = 0; k < nodes->size; ++k) {
    TfLiteNode* node = NULL;
    TfLiteRegistration* reg = NULL;
    if (context->GetNodeAndRegistration(context, nodes->data[k], &node, &reg) !=
        kTfLiteOk) {
      return lg_gpu_lower_fail(p, "node %d is unknown", nodes->data[k]);
    }
    /* The node's arrays and options belong to the graph and outlive the
     * program; its temporaries are replaced when the CPU kernel prepares
     * again, and no lowering reads them. */
    p->partition_node_copies[k] = *node;
    p->partition_node_copies[k].temporaries = NULL;
    p->partition_regs[k] = *reg;
  }
  return kTfLiteOk;
}

static bool int_array_has(const TfLiteIntArray* a, int x) {
  for (int i = 0; a != NULL && i < a->size; ++i) {
    if (a->data[i] == x) return true;
  }
  return false;
}

static bool same_shape(const TfLiteTensor* a, const TfLiteTensor* b) {
  if (a->dims == NULL || b->dims == NULL || a->dims->size != b->dims->size) {
    return false;
  }
  for (int i = 0; i < a->dims->size; ++i) {
    if (a->dims->data[i] != b->dims->data[i]) return false;
  }
  return true;
}

/* The partition slot of the only node reading tensor `t`, or -1 when no
 * node or several nodes (or one node twice) read it. */
static int only_reader(const lg_gpu_program* p, int t) {
  int reader = -1;
  for (int k = 0; k < p->partition_nodes->size; ++k) {
    const TfLiteNode* node = NULL;
    const TfLiteRegistration* reg = NULL;
    partition_node_at(p, k, &node, &reg);
    for (int i = 0; i < node->inputs->size; ++i) {
      if (node->inputs->data[i] != t) continue;
      if (reader >= 0) return -1;
      reader = k;
    }
  }
  return reader;
}

/* Whether tensor `t` holds its value before the node being lowered runs:
 * a constant, a partition input, or the output of a node lowered earlier
 * (nodes are lowered in execution order). A fused ADD runs at its
 * producer's position, so an addend that a later node writes would be read
 * before it exists. */
static bool ready_before_current_node(const lg_gpu_program* p, int t) {
  const int v = p->value_of_tensor[t];
  if (v >= 0 && (p->values[v].kind == VALUE_CONSTANT || p->values[v].produced))
    return true;
  for (int k = 0; k < p->partition_nodes->size; ++k) {
    const TfLiteNode* node = NULL;
    const TfLiteRegistration* reg = NULL;
    partition_node_at(p, k, &node, &reg);
    if (int_array_has(node->outputs, t)) return false;
  }
  return true;
}

bool lg_gpu_lower_fuse_add(lg_gpu_program* p, int t, int* addend, int* out,
                           TfLiteFusedActivation* activation) {
  TfLiteContext* context = (TfLiteContext*)lowering_context(p);
  if (p->dry_run || p->partition_nodes == NULL || context == NULL ||
      int_array_has(p->partition_outputs, t)) {
    return false;
  }
  const int k = only_reader(p, t);
  if (k < 0 || p->absorbed[k]) return false;
  const TfLiteNode* add = NULL;
  const TfLiteRegistration* reg = NULL;
  partition_node_at(p, k, &add, &reg);
  if (reg->builtin_code != kTfLiteBuiltinAdd || add->inputs->size != 2 ||
      add->outputs->size != 1) {
    return false;
  }
  const int other =
      add->inputs->data[0] == t ? add->inputs->data[1] : add->inputs->data[0];
  const TfLiteTensor* a = &context->tensors[t];
  const TfLiteTensor* b = &context->tensors[other];
  const TfLiteTensor* y = &context->tensors[add->outputs->data[0]];
  /* A quantized sum is fake-quantized before the ADD reads it (TFLite
   * GPU's order), which a fused ADD would skip. */
  if (other < 0 || b->type != kTfLiteFloat32 || a->type != kTfLiteFloat32 ||
      y->type != kTfLiteFloat32 || !same_shape(a, b) || !same_shape(a, y) ||
      !ready_before_current_node(p, other)) {
    return false;
  }
  const TfLiteAddParams* params = add->builtin_data;
  *activation = params != NULL ? params->activation : kTfLiteActNone;
  float lo, hi;
  const char* define;
  if (!lg_gpu_activation(*activation, &lo, &hi, &define)) return false;
  if (tensor_value(p, context, other) < 0 ||
      tensor_value(p, context, add->outputs->data[0]) < 0) {
    return false;
  }
  p->values[p->value_of_tensor[add->outputs->data[0]]].produced = true;
  p->absorbed[k] = true;
  *addend = other;
  *out = add->outputs->data[0];
  return true;
}

/* The partition slot of a node, or -1. */
static int partition_slot(const lg_gpu_program* p, int node_index) {
  for (int k = 0; p->partition_nodes != NULL && k < p->partition_nodes->size;
       ++k) {
    if (p->partition_nodes->data[k] == node_index) return k;
  }
  return -1;
}

/* Lowers partition slot k (nothing for an absorbed node). */
static TfLiteStatus lower_slot(lg_gpu_program* p, TfLiteContext* context,
                               int k) {
  if (p->absorbed[k]) {
    ++p->nodes;
    ++p->fused_nodes;
    return kTfLiteOk;
  }
  const TfLiteNode* node = NULL;
  const TfLiteRegistration* reg = NULL;
  partition_node_at(p, k, &node, &reg);
  p->lowering_node = p->partition_nodes->data[k];
  return lower(p, context, node, reg);
}

TfLiteStatus lg_gpu_program_lower_node(lg_gpu_program* p,
                                       TfLiteContext* context, int node_index) {
  const int k = partition_slot(p, node_index);
  if (k >= 0) return lower_slot(p, context, k);
  TfLiteNode* node = NULL;
  TfLiteRegistration* reg = NULL;
  if (context->GetNodeAndRegistration(context, node_index, &node, &reg) !=
      kTfLiteOk) {
    return lg_gpu_lower_fail(p, "node %d is unknown", node_index);
  }
  p->lowering_node = node_index;
  return lower(p, context, node, reg);
}

bool lg_gpu_program_shapes_changed(const lg_gpu_program* p,
                                   const TfLiteContext* context) {
  for (int v = 0; v < p->num_values; ++v) {
    const value* x = &p->values[v];
    if (x->tensor < 0 || x->dims == NULL) continue;
    const TfLiteIntArray* now = context->tensors[x->tensor].dims;
    if (now == NULL || !TfLiteIntArrayEqual(x->dims, now)) return true;
  }
  return false;
}

/* The lowering's own check of slot k at the current shapes: the rules
 * that depend on shape (empty tensors, sizes, loop limits). */
static TfLiteStatus check_slot(lg_gpu_program* p, TfLiteContext* context,
                               int k) {
  const TfLiteNode* node = NULL;
  const TfLiteRegistration* reg = NULL;
  partition_node_at(p, k, &node, &reg);
  const lg_gpu_lowering* lowering =
      lg_gpu_lowering_find(reg->builtin_code, reg->custom_name);
  char detail[PROGRAM_ERROR_SIZE / 2];
  detail[0] = '\0';
  if (lowering == NULL ||
      !lowering->check(context, node, reg, detail, sizeof(detail))) {
    return lg_gpu_lower_fail(p, "node %d (%s): %s", p->partition_nodes->data[k],
                             lg_builtin_op_name(reg->builtin_code),
                             lowering == NULL ? "no GPU lowering" : detail);
  }
  return kTfLiteOk;
}

/* Lowers every node of old's partition into p at the current shapes. */
static TfLiteStatus lower_again(lg_gpu_program* p, const lg_gpu_program* old,
                                TfLiteContext* context) {
  TF_LITE_ENSURE_STATUS(
      alloc_partition(p, old->partition_nodes, old->partition_outputs));
  const size_t n = (size_t)old->partition_nodes->size;
  memcpy(p->partition_node_copies, old->partition_node_copies,
         n * sizeof(TfLiteNode));
  memcpy(p->partition_regs, old->partition_regs,
         n * sizeof(TfLiteRegistration));
  for (int k = 0; k < (int)n; ++k) {
    TF_LITE_ENSURE_STATUS(check_slot(p, context, k));
    TF_LITE_ENSURE_STATUS(lower_slot(p, context, k));
  }
  TF_LITE_ENSURE_STATUS(
      lg_gpu_program_set_boundary(p, NULL, old->partition_outputs));
  return lg_gpu_program_build_kernels(p);
}

TfLiteStatus lg_gpu_program_relower(lg_gpu_program* old, TfLiteContext* context,
                                    lg_gpu_rebind_fn rebind, void* user,
                                    lg_gpu_program** out) {
  *out = NULL;
  if (old->partition_nodes == NULL) {
    return lg_gpu_lower_fail(old, "the program has no partition to lower");
  }
  lg_gpu_program* p = lg_gpu_program_create(old->be, old->kernels, context);
  if (p == NULL) return lg_gpu_lower_fail(old, "out of host memory");
  p->relowering = true;
  TfLiteStatus status = lower_again(p, old, context);
  if (status == kTfLiteOk) {
    p->donor = old;
    status = lg_gpu_program_prepare(p, context);
    /* Before settling: a failed binding gives old its buffers back. */
    if (status == kTfLiteOk && rebind != NULL) status = rebind(user, p);
    lg_gpu_program_settle_donor(p, status == kTfLiteOk);
  }
  if (status != kTfLiteOk) {
    lg_gpu_lower_fail(old, "%s", p->error);
    lg_gpu_program_destroy(p);
    return kTfLiteError;
  }
  lg_gpu_program_set_profiling(p, old->profiling);
  *out = p;
  return kTfLiteOk;
}

bool lg_gpu_program_can_lower(lg_gpu_backend* be, TfLiteContext* context,
                              const TfLiteNode* node,
                              const TfLiteRegistration* reg, char* reason,
                              size_t size) {
  lg_gpu_program* p = lg_gpu_program_create(be, NULL, context);
  if (p == NULL) {
    snprintf(reason, size, "out of host memory");
    return false;
  }
  p->dry_run = true;
  const bool ok = lower(p, context, node, reg) == kTfLiteOk;
  if (!ok) snprintf(reason, size, "%s", p->error);
  lg_gpu_program_destroy(p);
  return ok;
}

TfLiteStatus lg_gpu_lower_update_variable(lg_gpu_program* p, int tensor) {
  const TfLiteContext* context = lowering_context(p);
  const int v = tensor_value(p, context, tensor);
  if (v < 0) return kTfLiteError;
  if (!context->tensors[tensor].is_variable || p->values[v].produced) {
    return lg_gpu_lower_fail(p, "tensor %d is not a variable input", tensor);
  }
  p->values[v].updated_variable = true;
  return kTfLiteOk;
}

static int updated_variables(const lg_gpu_program* p) {
  int n = 0;
  for (int v = 0; v < p->num_values; ++v) n += p->values[v].updated_variable;
  return n;
}

/* Records value `v` (context tensor `t`) as downloaded after each run. */
static void add_output(lg_gpu_program* p, int v, int t) {
  p->values[v].output = true;
  p->output_values[p->num_outputs] = v;
  p->output_tensors[p->num_outputs++] = t;
}

TfLiteStatus lg_gpu_program_set_boundary(lg_gpu_program* p,
                                         const TfLiteIntArray* inputs,
                                         const TfLiteIntArray* outputs) {
  (void)inputs; /* inputs are the values no node produces */
  const size_t count = (size_t)(outputs->size + updated_variables(p) + 1);
  p->output_values = malloc(sizeof(int) * count);
  p->output_tensors = malloc(sizeof(int) * count);
  p->downloads = malloc(sizeof(lg_gpu_download) * count);
  if (p->output_values == NULL || p->output_tensors == NULL ||
      p->downloads == NULL) {
    return lg_gpu_lower_fail(p, "out of host memory");
  }
  for (int i = 0; i < outputs->size; ++i) {
    const int t = outputs->data[i];
    const int v =
        t >= 0 && t < p->num_context_tensors ? p->value_of_tensor[t] : -1;
    if (v < 0) {
      return lg_gpu_lower_fail(p, "partition output %d is not produced", t);
    }
    add_output(p, v, t);
  }
  /* The CPU's copy of a variable the partition updated is brought up to
   * date after every run (and uploaded again before the next), so the
   * interpreter's variable tensors stay the state, as on the CPU. */
  for (int v = 0; v < p->num_values; ++v) {
    value* x = &p->values[v];
    x->boundary_input = x->kind == VALUE_TENSOR && !x->produced;
    if (x->updated_variable && !x->output) add_output(p, v, x->tensor);
  }
  return kTfLiteOk;
}

/* ---- Helpers for lowerings ------------------------------------------------
 */

size_t lg_gpu_elements(const TfLiteTensor* t) {
  size_t n = 1;
  for (int i = 0; t->dims != NULL && i < t->dims->size; ++i) {
    n *= (size_t)(t->dims->data[i] < 0 ? 0 : t->dims->data[i]);
  }
  return n;
}

bool lg_gpu_lower_check_sizes(const TfLiteContext* context,
                              const TfLiteNode* node, char* reason,
                              size_t size) {
  if (node->inputs->size < 1 || node->outputs->size != 1) {
    snprintf(reason, size, "expects an input and 1 output.");
    return false;
  }
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if (in->dims == NULL || out->dims == NULL) {
    snprintf(reason, size, "tensors without a shape are not supported.");
    return false;
  }
  const size_t n_in = lg_gpu_elements(in), n_out = lg_gpu_elements(out);
  if (n_in == 0 || n_out == 0) {
    snprintf(reason, size, "empty tensors stay on the CPU.");
    return false;
  }
  if (n_in > INT32_MAX || n_out > INT32_MAX) {
    snprintf(reason, size, "tensors above %d elements are not supported.",
             INT32_MAX);
    return false;
  }
  return true;
}

size_t lg_gpu_lower_group_size(const lg_gpu_program* p) {
  size_t limit = lg_gpu_lower_max_work_group(p);
  if (limit > 128) limit = 128;
  size_t n = 1;
  while (n * 2 <= limit) n *= 2;
  return n;
}

bool lg_gpu_shape4(const TfLiteTensor* t, int32_t out[4]) {
  const int rank = t->dims != NULL ? t->dims->size : 0;
  if (rank > 4) return false;
  for (int i = 0; i < 4; ++i) out[i] = 1;
  for (int i = 0; i < rank; ++i) out[4 - rank + i] = t->dims->data[i];
  return true;
}

bool lg_gpu_activation(TfLiteFusedActivation act, float* lo, float* hi,
                       const char** define) {
  *lo = -FLT_MAX;
  *hi = FLT_MAX;
  *define = "";
  switch (act) {
    case kTfLiteActNone:
      return true;
    case kTfLiteActRelu:
      *lo = 0.0f;
      return true;
    case kTfLiteActReluN1To1:
      *lo = -1.0f;
      *hi = 1.0f;
      return true;
    case kTfLiteActRelu6:
      *lo = 0.0f;
      *hi = 6.0f;
      return true;
    case kTfLiteActTanh:
      *define = "-DLG_ACT_TANH";
      return true;
    default:
      return false;
  }
}

TfLiteStatus lg_gpu_program_build_kernels(lg_gpu_program* p) {
  lg_gpu_backend* be = p->be;
  if (be->ops->kernels_prepare == NULL || p->num_dispatches == 0) {
    return kTfLiteOk;
  }
  lg_gpu_kernel_use* uses = malloc(sizeof(*uses) * (size_t)p->num_dispatches);
  if (uses == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  for (int d = 0; d < p->num_dispatches; ++d) {
    const dispatch* x = &p->dispatches[d];
    uses[d] =
        (lg_gpu_kernel_use){x->kernel, x->dims, x->has_local ? x->local : NULL};
  }
  lg_gpu_error error = {{0}};
  const TfLiteStatus status =
      be->ops->kernels_prepare(be, uses, p->num_dispatches, &error);
  free(uses);
  return status == kTfLiteOk ? kTfLiteOk
                             : lg_gpu_lower_fail(p, "%s", error.message);
}
