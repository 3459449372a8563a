/* The GPU delegate (include/tensorflow/lite/delegates/gpu/delegate.h and
 * include/litegpu/gpu_delegate.h), first slice: elementwise float32 ops on
 * the OpenCL backend.
 *
 * Prepare runs the delegate kit with an allow-list built from the GPU op
 * table (op_support.h): only the ops this file lowers, each checked by the
 * table's TFLite rules and then by this slice's own limits (float32 tensors,
 * same-shape or trailing-dims/scalar broadcast, fused NONE/RELU/RELU_N1_TO_1/
 * RELU6). Every other op gets the kit's "Operation is not supported.".
 *
 * A partition becomes a gpu_program: one kernel per node
 * (shaders/opencl/binary.cl or unary.cl, the op selected by -DLG_OP) and one
 * device buffer per tensor the partition touches. Buffers are not yet reused
 * by lifetime: a buffer per tensor. Constants are uploaded when their buffer
 * is created; partition inputs are uploaded and partition outputs downloaded
 * on every Invoke.
 *
 * Errors: Init and Prepare report "TfLiteGpuDelegate Init: ..." /
 * "TfLiteGpuDelegate Prepare: ..." and fail, so the runtime restores the CPU
 * graph; Invoke reports "TfLiteGpuDelegate Invoke: ..." and fails, so the
 * runtime's delegate fallback can rerun on the CPU. No path writes a wrong
 * output. */
#include "litegpu/gpu_delegate.h"

#include <float.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_backend.h"
#include "delegates/gpu/op_support.h"
#include "delegates/opencl/opencl_backend.h"
#include "partition/delegate_kit.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

#define LG_GPU_KERNEL_NAME "TfLiteGpuDelegateV2"

/* ---- The ops of this slice ------------------------------------------------ */

typedef enum op_family { FAMILY_BINARY, FAMILY_UNARY } op_family;

typedef struct slice_op {
  int32_t code;
  op_family family;
  int lg_op; /* LG_OP in the kernel source */
} slice_op;

static const slice_op kSliceOps[] = {
    {kTfLiteBuiltinAdd, FAMILY_BINARY, 0},
    {kTfLiteBuiltinSub, FAMILY_BINARY, 1},
    {kTfLiteBuiltinMul, FAMILY_BINARY, 2},
    {kTfLiteBuiltinDiv, FAMILY_BINARY, 3},
    {kTfLiteBuiltinMaximum, FAMILY_BINARY, 4},
    {kTfLiteBuiltinMinimum, FAMILY_BINARY, 5},
    {kTfLiteBuiltinSquaredDifference, FAMILY_BINARY, 6},
    {kTfLiteBuiltinLogistic, FAMILY_UNARY, 0},
    {kTfLiteBuiltinTanh, FAMILY_UNARY, 1},
    {kTfLiteBuiltinRelu, FAMILY_UNARY, 2},
    {kTfLiteBuiltinRelu6, FAMILY_UNARY, 3},
    {kTfLiteBuiltinReluN1To1, FAMILY_UNARY, 4},
    {kTfLiteBuiltinExp, FAMILY_UNARY, 5},
    {kTfLiteBuiltinNeg, FAMILY_UNARY, 6},
    {kTfLiteBuiltinAbs, FAMILY_UNARY, 7},
    {kTfLiteBuiltinSqrt, FAMILY_UNARY, 8},
    {kTfLiteBuiltinSquare, FAMILY_UNARY, 9},
};
#define NUM_SLICE_OPS ((int)(sizeof(kSliceOps) / sizeof(kSliceOps[0])))

static const slice_op* slice_find(int32_t code) {
  for (int i = 0; i < NUM_SLICE_OPS; ++i) {
    if (kSliceOps[i].code == code) return &kSliceOps[i];
  }
  return NULL;
}

static size_t elements_of(const TfLiteIntArray* dims) {
  size_t n = 1;
  for (int i = 0; dims != NULL && i < dims->size; ++i) {
    n *= (size_t)(dims->data[i] < 0 ? 0 : dims->data[i]);
  }
  return n;
}

/* Whether `small` broadcasts over `big` the way binary.cl addresses it:
 * one element, or its dims (after leading 1s) equal big's trailing dims;
 * never of higher rank than big. */
static bool broadcasts_over(const TfLiteIntArray* small,
                            const TfLiteIntArray* big) {
  if (small->size > big->size) return false;
  if (elements_of(small) == 1) return true;
  int first = 0;
  while (first < small->size && small->data[first] == 1) ++first;
  const int count = small->size - first;
  for (int i = 0; i < count; ++i) {
    if (small->data[first + i] != big->data[big->size - count + i]) {
      return false;
    }
  }
  return true;
}

static bool same_dims(const TfLiteIntArray* a, const TfLiteIntArray* b) {
  if (a->size != b->size) return false;
  for (int i = 0; i < a->size; ++i) {
    if (a->data[i] != b->data[i]) return false;
  }
  return true;
}

/* The output dims of a binary node (the operand broadcast over), or NULL
 * when the shapes are outside this slice's rules. */
static const TfLiteIntArray* binary_out_dims(const TfLiteIntArray* a,
                                             const TfLiteIntArray* b) {
  if (same_dims(a, b)) return a;
  const size_t na = elements_of(a), nb = elements_of(b);
  if ((na > nb || (na == nb && a->size > b->size)) && broadcasts_over(b, a)) {
    return a;
  }
  if (broadcasts_over(a, b)) return b;
  return NULL;
}

static bool slice_check(TfLiteContext* context, const TfLiteNode* node,
                        const TfLiteRegistration* registration, char* reason,
                        size_t reason_size) {
  const int32_t code = registration->builtin_code;
  const lg_kit_op* table = lg_gpu_op_find(code);
  const slice_op* op = slice_find(code);
  if (table == NULL || op == NULL) {
    snprintf(reason, reason_size, "Operation is not supported.");
    return false;
  }
  if (table->check != NULL &&
      !table->check(context, node, registration, reason, reason_size)) {
    return false;
  }
  const int want_inputs = op->family == FAMILY_BINARY ? 2 : 1;
  if (node->inputs->size != want_inputs || node->outputs->size != 1) {
    snprintf(reason, reason_size,
             "GPU delegate (this version): expects %d input(s) and 1 output.",
             want_inputs);
    return false;
  }
  for (int i = 0; i < want_inputs; ++i) {
    const int t = node->inputs->data[i];
    if (t < 0 || context->tensors[t].type != kTfLiteFloat32 ||
        context->tensors[t].dims == NULL) {
      snprintf(reason, reason_size,
               "GPU delegate (this version): only float32 inputs run on the "
               "GPU.");
      return false;
    }
  }
  if (context->tensors[node->outputs->data[0]].type != kTfLiteFloat32) {
    snprintf(reason, reason_size,
             "GPU delegate (this version): only float32 outputs run on the "
             "GPU.");
    return false;
  }
  if (op->family == FAMILY_UNARY) return true;
  const TfLiteIntArray* a = context->tensors[node->inputs->data[0]].dims;
  const TfLiteIntArray* b = context->tensors[node->inputs->data[1]].dims;
  if (binary_out_dims(a, b) == NULL) {
    snprintf(reason, reason_size,
             "GPU delegate (this version): broadcast is only supported when "
             "one operand is a scalar or has the other's trailing dims.");
    return false;
  }
  TfLiteFusedActivation act = kTfLiteActNone;
  if (node->builtin_data != NULL) {
    switch (code) {
      case kTfLiteBuiltinAdd:
        act = ((const TfLiteAddParams*)node->builtin_data)->activation;
        break;
      case kTfLiteBuiltinSub:
        act = ((const TfLiteSubParams*)node->builtin_data)->activation;
        break;
      case kTfLiteBuiltinMul:
        act = ((const TfLiteMulParams*)node->builtin_data)->activation;
        break;
      case kTfLiteBuiltinDiv:
        act = ((const TfLiteDivParams*)node->builtin_data)->activation;
        break;
      default:
        break;
    }
  }
  if (act != kTfLiteActNone && act != kTfLiteActRelu &&
      act != kTfLiteActReluN1To1 && act != kTfLiteActRelu6) {
    snprintf(reason, reason_size,
             "GPU delegate (this version): fused activation %d is not "
             "supported.",
             (int)act);
    return false;
  }
  return true;
}

/* ---- The delegate ----------------------------------------------------------
 */

typedef struct gpu_delegate {
  TfLiteDelegate base; /* first: the TfLiteDelegate* converts back */
  litegpu_gpu_delegate_options options;
  lg_gpu_backend* backend;
  lg_kit_op ops[NUM_SLICE_OPS];
  lg_delegate_kit kit;
  /* Built kernels by [family][LG_OP], shared by every partition (one
   * thread at a time), released with the delegate. */
  lg_gpu_kernel* kernels[2][16];
} gpu_delegate;

static gpu_delegate* from_base(const TfLiteDelegate* d) {
  return (gpu_delegate*)d;
}

/* ---- Partition program ----------------------------------------------------
 */

typedef struct gpu_tensor {
  int index;           /* in the context */
  bool constant;       /* uploaded when the buffer is created */
  bool boundary_input; /* produced outside the partition: uploaded */
  bool output;         /* a partition output: downloaded */
  lg_gpu_buffer* buffer;
  size_t bytes; /* of the buffer */
} gpu_tensor;

typedef struct gpu_node {
  const slice_op* op;
  lg_gpu_kernel* kernel;
  int inputs[2]; /* slots in gpu_program.tensors */
  int output;
  float lo, hi; /* fused activation range */
} gpu_node;

typedef struct gpu_program {
  gpu_delegate* delegate;
  gpu_tensor* tensors;
  int num_tensors;
  gpu_node* nodes;
  int num_nodes;
} gpu_program;

static int slot_of(gpu_program* p, int tensor_index) {
  for (int i = 0; i < p->num_tensors; ++i) {
    if (p->tensors[i].index == tensor_index) return i;
  }
  p->tensors[p->num_tensors] = (gpu_tensor){.index = tensor_index};
  return p->num_tensors++;
}

static void program_destroy(gpu_program* p) {
  if (p == NULL) return;
  lg_gpu_backend* be = p->delegate->backend;
  for (int i = 0; i < p->num_tensors; ++i) {
    be->ops->buffer_release(be, p->tensors[i].buffer);
  }
  free(p->nodes);
  free(p->tensors);
  free(p);
}

static void activation_range(TfLiteFusedActivation act, float* lo,
                             float* hi) {
  *lo = -FLT_MAX;
  *hi = FLT_MAX;
  if (act == kTfLiteActRelu) {
    *lo = 0.0f;
  } else if (act == kTfLiteActReluN1To1) {
    *lo = -1.0f;
    *hi = 1.0f;
  } else if (act == kTfLiteActRelu6) {
    *lo = 0.0f;
    *hi = 6.0f;
  }
}

static TfLiteFusedActivation activation_of(int32_t code, const void* data) {
  if (data == NULL) return kTfLiteActNone;
  switch (code) {
    case kTfLiteBuiltinAdd:
      return ((const TfLiteAddParams*)data)->activation;
    case kTfLiteBuiltinSub:
      return ((const TfLiteSubParams*)data)->activation;
    case kTfLiteBuiltinMul:
      return ((const TfLiteMulParams*)data)->activation;
    case kTfLiteBuiltinDiv:
      return ((const TfLiteDivParams*)data)->activation;
    default:
      return kTfLiteActNone;
  }
}

static void* kernel_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)length;
  const TfLiteDelegateParams* params = (const TfLiteDelegateParams*)buffer;
  gpu_delegate* gd = from_base(params->delegate);
  lg_gpu_backend* be = gd->backend;
  const int num_nodes = params->nodes_to_replace->size;
  gpu_program* p = calloc(1, sizeof(*p));
  if (p == NULL) {
    context->ReportError(context, "TfLiteGpuDelegate Init: out of memory");
    return NULL;
  }
  p->delegate = gd;
  p->nodes = calloc((size_t)num_nodes, sizeof(*p->nodes));
  p->tensors = calloc((size_t)num_nodes * 3 + 1, sizeof(*p->tensors));
  if (p->nodes == NULL || p->tensors == NULL) {
    program_destroy(p);
    context->ReportError(context, "TfLiteGpuDelegate Init: out of memory");
    return NULL;
  }
  for (int k = 0; k < num_nodes; ++k) {
    TfLiteNode* node = NULL;
    TfLiteRegistration* reg = NULL;
    if (context->GetNodeAndRegistration(context,
                                        params->nodes_to_replace->data[k],
                                        &node, &reg) != kTfLiteOk) {
      program_destroy(p);
      context->ReportError(context,
                           "TfLiteGpuDelegate Init: node %d is unknown",
                           params->nodes_to_replace->data[k]);
      return NULL;
    }
    gpu_node* gn = &p->nodes[p->num_nodes++];
    gn->op = slice_find(reg->builtin_code);
    if (gn->op == NULL) {
      program_destroy(p);
      context->ReportError(context,
                           "TfLiteGpuDelegate Init: builtin %d is not lowered",
                           (int)reg->builtin_code);
      return NULL;
    }
    const int n_in = gn->op->family == FAMILY_BINARY ? 2 : 1;
    for (int i = 0; i < n_in; ++i) {
      gn->inputs[i] = slot_of(p, node->inputs->data[i]);
    }
    gn->output = slot_of(p, node->outputs->data[0]);
    activation_range(activation_of(reg->builtin_code, node->builtin_data),
                     &gn->lo, &gn->hi);
    lg_gpu_kernel** cached = &gd->kernels[gn->op->family][gn->op->lg_op];
    if (*cached == NULL) {
      char defines[32];
      snprintf(defines, sizeof(defines), "-DLG_OP=%d", gn->op->lg_op);
      lg_gpu_error error = {{0}};
      if (be->ops->kernel_create(
              be, gn->op->family == FAMILY_BINARY ? "binary" : "unary",
              defines, cached, &error) != kTfLiteOk) {
        *cached = NULL;
        context->ReportError(context, "TfLiteGpuDelegate Init: %s",
                             error.message);
        program_destroy(p);
        return NULL;
      }
    }
    gn->kernel = *cached;
  }
  /* Classify the tensors: produced inside, constant, partition output. */
  for (int s = 0; s < p->num_tensors; ++s) {
    gpu_tensor* t = &p->tensors[s];
    const TfLiteTensor* ct = &context->tensors[t->index];
    t->constant = ct->allocation_type == kTfLiteMmapRo;
    bool produced = false;
    for (int k = 0; k < p->num_nodes; ++k) {
      if (p->nodes[k].output == s) produced = true;
    }
    t->boundary_input = !produced && !t->constant;
    for (int i = 0; i < params->output_tensors->size; ++i) {
      if (params->output_tensors->data[i] == t->index) t->output = true;
    }
  }
  return p;
}

static void kernel_free(TfLiteContext* context, void* data) {
  (void)context;
  program_destroy(data);
}

static TfLiteStatus resize_like(TfLiteContext* context, int tensor_index,
                                const TfLiteIntArray* dims) {
  TfLiteTensor* t = &context->tensors[tensor_index];
  if (t->dims != NULL && same_dims(t->dims, dims)) return kTfLiteOk;
  TfLiteIntArray* copy = TfLiteIntArrayCopy(dims);
  if (copy == NULL) return kTfLiteError;
  return context->ResizeTensor(context, t, copy);
}

static TfLiteStatus kernel_prepare(TfLiteContext* context, TfLiteNode* node) {
  gpu_program* p = node->user_data;
  if (p == NULL) {
    context->ReportError(context,
                         "TfLiteGpuDelegate Prepare: the partition has no "
                         "program (Init failed)");
    return kTfLiteError;
  }
  lg_gpu_backend* be = p->delegate->backend;
  /* Output shapes, in node order (a node's inputs are ready before it). */
  for (int k = 0; k < p->num_nodes; ++k) {
    const gpu_node* gn = &p->nodes[k];
    const TfLiteIntArray* a = context->tensors[p->tensors[gn->inputs[0]].index].dims;
    const TfLiteIntArray* out = a;
    if (gn->op->family == FAMILY_BINARY) {
      const TfLiteIntArray* b =
          context->tensors[p->tensors[gn->inputs[1]].index].dims;
      out = binary_out_dims(a, b);
      if (out == NULL) {
        context->ReportError(context,
                             "TfLiteGpuDelegate Prepare: the operands' shapes "
                             "do not broadcast on the GPU (one must be a "
                             "scalar or the other's trailing dims)");
        return kTfLiteError;
      }
    }
    if (resize_like(context, p->tensors[gn->output].index, out) != kTfLiteOk) {
      context->ReportError(context,
                           "TfLiteGpuDelegate Prepare: cannot resize an "
                           "output");
      return kTfLiteError;
    }
  }
  /* Buffers: (re)created when the size changed; constants uploaded once. */
  for (int s = 0; s < p->num_tensors; ++s) {
    gpu_tensor* t = &p->tensors[s];
    const TfLiteTensor* ct = &context->tensors[t->index];
    size_t bytes = elements_of(ct->dims) * sizeof(float);
    if (bytes == 0) bytes = sizeof(float); /* empty tensors: a valid buffer */
    if (t->buffer != NULL && t->bytes == bytes) continue;
    be->ops->buffer_release(be, t->buffer);
    t->buffer = NULL;
    t->bytes = 0;
    lg_gpu_error error = {{0}};
    if (be->ops->buffer_create(be, bytes, &t->buffer, &error) != kTfLiteOk) {
      context->ReportError(context, "TfLiteGpuDelegate Prepare: %s",
                           error.message);
      return kTfLiteError;
    }
    t->bytes = bytes;
    if (t->constant && ct->data.raw != NULL && ct->bytes > 0) {
      if (be->ops->buffer_upload(be, t->buffer, 0, ct->data.raw, ct->bytes,
                                 &error) != kTfLiteOk) {
        context->ReportError(context, "TfLiteGpuDelegate Prepare: %s",
                             error.message);
        return kTfLiteError;
      }
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus invoke_error(TfLiteContext* context,
                                 const lg_gpu_error* error) {
  context->ReportError(context, "TfLiteGpuDelegate Invoke: %s",
                       error->message);
  return kTfLiteError;
}

static TfLiteStatus kernel_invoke(TfLiteContext* context, TfLiteNode* node) {
  gpu_program* p = node->user_data;
  if (p == NULL) {
    context->ReportError(context,
                         "TfLiteGpuDelegate Invoke: the partition has no "
                         "program");
    return kTfLiteError;
  }
  lg_gpu_backend* be = p->delegate->backend;
  lg_gpu_error error = {{0}};
  for (int s = 0; s < p->num_tensors; ++s) {
    const gpu_tensor* t = &p->tensors[s];
    const TfLiteTensor* ct = &context->tensors[t->index];
    if (!t->boundary_input || ct->bytes == 0) continue;
    if (ct->data.raw == NULL || ct->bytes > t->bytes) {
      lg_gpu_error e = {{0}};
      snprintf(e.message, sizeof(e.message),
               "input tensor %d has no data or outgrew its buffer", t->index);
      return invoke_error(context, &e);
    }
    if (be->ops->buffer_upload(be, t->buffer, 0, ct->data.raw, ct->bytes,
                               &error) != kTfLiteOk) {
      return invoke_error(context, &error);
    }
  }
  for (int k = 0; k < p->num_nodes; ++k) {
    const gpu_node* gn = &p->nodes[k];
    const gpu_tensor* out = &p->tensors[gn->output];
    const int n = (int)elements_of(context->tensors[out->index].dims);
    if (n == 0) continue;
    const gpu_tensor* a = &p->tensors[gn->inputs[0]];
    size_t global = (size_t)n;
    if (gn->op->family == FAMILY_BINARY) {
      const gpu_tensor* b = &p->tensors[gn->inputs[1]];
      const lg_gpu_arg args[8] = {
          LG_GPU_ARG_BUFFER(a->buffer),
          LG_GPU_ARG_BUFFER(b->buffer),
          LG_GPU_ARG_BUFFER(out->buffer),
          LG_GPU_ARG_INT(n),
          LG_GPU_ARG_INT(
              (int32_t)elements_of(context->tensors[a->index].dims)),
          LG_GPU_ARG_INT(
              (int32_t)elements_of(context->tensors[b->index].dims)),
          LG_GPU_ARG_FLOAT(gn->lo),
          LG_GPU_ARG_FLOAT(gn->hi)};
      if (be->ops->dispatch(be, gn->kernel, args, 8, 1, &global, NULL,
                            &error) != kTfLiteOk) {
        return invoke_error(context, &error);
      }
    } else {
      const lg_gpu_arg args[3] = {LG_GPU_ARG_BUFFER(a->buffer),
                                  LG_GPU_ARG_BUFFER(out->buffer),
                                  LG_GPU_ARG_INT(n)};
      if (be->ops->dispatch(be, gn->kernel, args, 3, 1, &global, NULL,
                            &error) != kTfLiteOk) {
        return invoke_error(context, &error);
      }
    }
  }
  if (be->ops->submit != NULL && be->ops->submit(be, &error) != kTfLiteOk) {
    return invoke_error(context, &error);
  }
  for (int s = 0; s < p->num_tensors; ++s) {
    const gpu_tensor* t = &p->tensors[s];
    TfLiteTensor* ct = &context->tensors[t->index];
    if (!t->output || ct->bytes == 0) continue;
    if (ct->data.raw == NULL || ct->bytes > t->bytes) {
      lg_gpu_error e = {{0}};
      snprintf(e.message, sizeof(e.message),
               "output tensor %d has no data or outgrew its buffer", t->index);
      return invoke_error(context, &e);
    }
    if (be->ops->buffer_download(be, t->buffer, 0, ct->data.raw, ct->bytes,
                                 &error) != kTfLiteOk) {
      return invoke_error(context, &error);
    }
  }
  return kTfLiteOk;
}

/* ---- Delegate Prepare, create, delete --------------------------------------
 */

static TfLiteStatus delegate_prepare(TfLiteContext* context,
                                     TfLiteDelegate* delegate) {
  gpu_delegate* gd = from_base(delegate);
  return lg_delegate_kit_prepare(&gd->kit, context, delegate);
}

TfLiteGpuDelegateOptionsV2 TfLiteGpuDelegateOptionsV2Default(void) {
  TfLiteGpuDelegateOptionsV2 o;
  memset(&o, 0, sizeof(o));
  o.is_precision_loss_allowed = -1;
  o.inference_preference = TFLITE_GPU_INFERENCE_PREFERENCE_FAST_SINGLE_ANSWER;
  o.inference_priority1 = TFLITE_GPU_INFERENCE_PRIORITY_MAX_PRECISION;
  o.inference_priority2 = TFLITE_GPU_INFERENCE_PRIORITY_AUTO;
  o.inference_priority3 = TFLITE_GPU_INFERENCE_PRIORITY_AUTO;
  o.experimental_flags = TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT;
  o.max_delegated_partitions = 1;
  o.serialization_dir = NULL;
  o.model_token = NULL;
  return o;
}

litegpu_gpu_delegate_options litegpu_gpu_delegate_options_default(void) {
  litegpu_gpu_delegate_options o;
  memset(&o, 0, sizeof(o));
  o.tflite = TfLiteGpuDelegateOptionsV2Default();
  o.backend = LITEGPU_GPU_BACKEND_AUTO;
  o.device_index = 0;
  return o;
}

static TfLiteDelegate* create_failed(char* error, size_t error_size,
                                     const char* message) {
  if (error != NULL && error_size > 0) {
    snprintf(error, error_size, "%s", message);
  } else {
    fprintf(stderr, "%s\n", message);
  }
  return NULL;
}

TfLiteDelegate* litegpu_gpu_delegate_create(
    const litegpu_gpu_delegate_options* options, char* error,
    size_t error_size) {
  const litegpu_gpu_delegate_options o =
      options ? *options : litegpu_gpu_delegate_options_default();
  if (o.backend == LITEGPU_GPU_BACKEND_VULKAN) {
    return create_failed(error, error_size,
                         "GPU delegate: the Vulkan backend is not implemented "
                         "yet (use LITEGPU_GPU_BACKEND_OPENCL or AUTO)");
  }
  if (o.backend != LITEGPU_GPU_BACKEND_AUTO &&
      o.backend != LITEGPU_GPU_BACKEND_OPENCL) {
    return create_failed(error, error_size,
                         "GPU delegate: unknown backend in the options");
  }
  gpu_delegate* gd = calloc(1, sizeof(*gd));
  if (gd == NULL) {
    return create_failed(error, error_size, "GPU delegate: out of memory");
  }
  gd->options = o;
  /* Not kept: the caller's strings need not outlive the call. */
  gd->options.tflite.serialization_dir = NULL;
  gd->options.tflite.model_token = NULL;
  const lg_gpu_backend_options bo = {
      .device_index = o.device_index, .allow_fp16 = false, .cache_dir = NULL};
  lg_gpu_error be_error = {{0}};
  if (lg_opencl_backend_create(&bo, &gd->backend, &be_error) != kTfLiteOk) {
    char message[LG_GPU_ERROR_SIZE + 64];
    snprintf(message, sizeof(message), "GPU delegate: no usable OpenCL device: %s",
             be_error.message);
    free(gd);
    return create_failed(error, error_size, message);
  }
  int count = 0;
  for (int i = 0; i < NUM_SLICE_OPS; ++i) {
    const lg_kit_op* table = lg_gpu_op_find(kSliceOps[i].code);
    if (table == NULL) continue;
    gd->ops[count++] =
        (lg_kit_op){kSliceOps[i].code, NULL, table->max_version, slice_check};
  }
  gd->base = TfLiteDelegateCreate();
  gd->base.data_ = gd;
  gd->base.Prepare = delegate_prepare;
  gd->base.flags = kTfLiteDelegateFlagsNone;
  gd->kit.name = LG_GPU_KERNEL_NAME;
  gd->kit.ops = gd->ops;
  gd->kit.num_ops = count;
  gd->kit.max_delegated_partitions = o.tflite.max_delegated_partitions <= 0
                                         ? 1
                                         : o.tflite.max_delegated_partitions;
  gd->kit.min_nodes_per_partition = 0;
  gd->kit.kernel.init = kernel_init;
  gd->kit.kernel.free = kernel_free;
  gd->kit.kernel.prepare = kernel_prepare;
  gd->kit.kernel.invoke = kernel_invoke;
  gd->kit.kernel.version = 1;
  return &gd->base;
}

TfLiteDelegate* TfLiteGpuDelegateV2Create(
    const TfLiteGpuDelegateOptionsV2* options) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  if (options != NULL) o.tflite = *options;
  return litegpu_gpu_delegate_create(&o, NULL, 0);
}

void TfLiteGpuDelegateV2Delete(TfLiteDelegate* delegate) {
  if (delegate == NULL) return;
  gpu_delegate* gd = from_base(delegate);
  lg_delegate_kit_release(&gd->kit);
  for (int f = 0; f < 2; ++f) {
    for (int k = 0; k < 16; ++k) {
      gd->backend->ops->kernel_release(gd->backend, gd->kernels[f][k]);
    }
  }
  lg_gpu_backend_destroy(gd->backend);
  free(gd);
}

int litegpu_gpu_delegate_num_partitions(const TfLiteDelegate* delegate) {
  return delegate == NULL ? -1 : from_base(delegate)->kit.num_partitions;
}

const char* litegpu_gpu_delegate_node_reason(const TfLiteDelegate* delegate,
                                             int node_index) {
  if (delegate == NULL) return NULL;
  const lg_delegate_kit* kit = &from_base(delegate)->kit;
  for (int i = 0; i < kit->num_decisions; ++i) {
    if (kit->decisions[i].node_index == node_index) {
      return kit->decisions[i].reason;
    }
  }
  return NULL;
}
