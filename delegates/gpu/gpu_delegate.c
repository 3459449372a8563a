/* The GPU delegate (include/tensorflow/lite/delegates/gpu/delegate.h and
 * include/litegpu/gpu_delegate.h) on a backend of the registry
 * (gpu_backends.c: OpenCL, Vulkan).
 *
 * Prepare runs the delegate kit with the GPU op table (op_support.h: the
 * op manifest's GPU rows, TFLite's kMaxVersion and rules) and a node check
 * whose user data is the backend; a node is claimed when the table's
 * check passes, its tensors hold floats on the device (float32, or INT8/UINT8
 * quantized per tensor with ENABLE_QUANT: gpu_quant.c; int32 where the op
 * takes indices), its lowering's own check passes and a trial lowering
 * succeeds.
 * Every other op gets the kit's "Operation is not supported.".
 *
 * Each partition becomes an lg_gpu_program (gpu_program.h): lowered at the
 * kernel's Init, memory planned and constants uploaded at Prepare, run at
 * Invoke. Kernels are built once per (name, defines) and shared by every
 * partition of the delegate; with serialization_dir set, the backend caches
 * compiled programs there. Device buffers bound to partition inputs and
 * outputs, the buffer handles and a device shared by several delegates
 * (share_device_with): gpu_binding.c. With SUSTAINED_SPEED, Prepare also
 * times work-group sizes per dispatch (gpu_tune.h), cached beside the
 * programs. A resized input lowers the partition again in its kernel's
 * Prepare (reshape_partition).
 *
 * Errors: Init and Prepare report "TfLiteGpuDelegate Init: ..." /
 * "TfLiteGpuDelegate Prepare: ..." and fail, so the runtime restores the CPU
 * graph; Invoke reports "TfLiteGpuDelegate Invoke: ..." and fails, so the
 * runtime's delegate fallback can rerun on the CPU. No path writes a wrong
 * output. */
#include "litegpu/gpu_delegate.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/gpu/gpu_delegate_internal.h"
#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/gpu_program.h"
#include "delegates/gpu/op_support.h"
#include "partition/delegate_kit.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/core/async/c/async_kernel.h"

#define LG_GPU_KERNEL_NAME "TfLiteGpuDelegateV2"

/* ---- Which nodes the delegate claims ----------------------------------------
 */

/* The ops whose kernels read or write bool tensors (compare.lgk,
 * select_v2.lgk). */
static bool takes_bool(int32_t code) {
  switch (code) {
    case kTfLiteBuiltinLess:
    case kTfLiteBuiltinLessEqual:
    case kTfLiteBuiltinGreater:
    case kTfLiteBuiltinGreaterEqual:
    case kTfLiteBuiltinEqual:
    case kTfLiteBuiltinNotEqual:
    case kTfLiteBuiltinLogicalAnd:
    case kTfLiteBuiltinSelect:
    case kTfLiteBuiltinSelectV2:
      return true;
    default:
      return false;
  }
}

/* Tensors the kernels read and write hold floats on the device: float32,
 * and with ENABLE_QUANT (TFLite's allow_quant_ops) INT8/UINT8 tensors
 * quantized per tensor (gpu_lower.h, "Quantized tensors"). Other types
 * pass only as constant inputs (weights the lowerings dequantize, axes,
 * shapes, paddings), GATHER's and ONE_HOT's runtime int32 indices, bool
 * tensors of the ops that compute them (takes_bool), and for CAST, whose
 * lowering checks its own. */
static bool tensor_types_supported(const TfLiteContext* context,
                                   const TfLiteNode* node, int32_t code,
                                   bool allow_quant, char* reason,
                                   size_t size) {
  if (code == kTfLiteBuiltinCast) return true;
  const TfLiteIntArray* lists[2] = {node->inputs, node->outputs};
  for (int l = 0; l < 2; ++l) {
    for (int i = 0; lists[l] != NULL && i < lists[l]->size; ++i) {
      const int t = lists[l]->data[i];
      if (t < 0) continue;
      const TfLiteTensor* tensor = &context->tensors[t];
      if (tensor->type == kTfLiteFloat32) continue;
      const bool input = l == 0;
      const bool constant = tensor->allocation_type == kTfLiteMmapRo ||
                            tensor->allocation_type == kTfLitePersistentRo;
      const bool indices = ((code == kTfLiteBuiltinGather && i == 1) ||
                            (code == kTfLiteBuiltinOneHot && i == 0)) &&
                           tensor->type == kTfLiteInt32;
      /* Bool tensors: one byte per element on the device, as on the CPU
       * (the support table's filter says which ops take them where). */
      if (tensor->type == kTfLiteBool && takes_bool(code)) continue;
      /* A constant output is one the CPU computed in Prepare (DENSIFY,
       * DEQUANTIZE of weights): the lowering leaves it alone. */
      if (constant || (input && indices)) continue;
      if (lg_gpu_quantized_activation(tensor, NULL)) {
        if (allow_quant) continue;
        snprintf(reason, size,
                 "GPU delegate: quantized tensors run on the GPU only with "
                 "TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT.");
        return false;
      }
      if (tensor->type == kTfLiteInt8 || tensor->type == kTfLiteUInt8) {
        snprintf(reason, size,
                 "GPU delegate: tensor %d (%s): only per-tensor affine "
                 "quantization with a positive scale runs on the GPU.",
                 t, TfLiteTypeGetName(tensor->type));
        return false;
      }
      snprintf(reason, size,
               "GPU delegate: only float32 tensors (int32 indices, bool "
               "comparisons, quantized INT8/UINT8 with ENABLE_QUANT) run on "
               "the GPU.");
      return false;
    }
  }
  return true;
}

/* The kit's node check (after the op table's own check passed): tensor
 * types, this implementation's limits, and a trial lowering on the
 * delegate's backend (`user_data`). */
static bool gpu_node_check(void* user_data, TfLiteContext* context,
                           const TfLiteNode* node,
                           const TfLiteRegistration* registration, char* reason,
                           size_t reason_size) {
  const gpu_delegate* gd = user_data;
  const lg_gpu_lowering* lowering = lg_gpu_lowering_find(
      registration->builtin_code, registration->custom_name);
  if (lowering == NULL) {
    snprintf(reason, reason_size, "Operation is not supported.");
    return false;
  }
  const bool allow_quant = (gd->options.tflite.experimental_flags &
                            TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT) != 0;
  if (!tensor_types_supported(context, node, registration->builtin_code,
                              allow_quant, reason, reason_size)) {
    return false;
  }
  char detail[LG_KIT_REASON_SIZE];
  detail[0] = '\0';
  if (!lowering->check(context, node, registration, detail, sizeof(detail))) {
    snprintf(reason, reason_size, "GPU delegate: %s", detail);
    return false;
  }
  /* A trial lowering: the backend has every kernel the node needs and the
   * lowering succeeds, so a claimed partition always builds. */
  if (!lg_gpu_program_can_lower(gd->backend, context, node, registration,
                                detail, sizeof(detail))) {
    snprintf(reason, reason_size, "GPU delegate: %s", detail);
    return false;
  }
  return true;
}

/* ---- The delegate ----------------------------------------------------------
 */

static gpu_delegate* from_base(const TfLiteDelegate* d) {
  return lg_gpu_delegate_from(d);
}

static bool track_partition(gpu_delegate* gd, gpu_partition* part) {
  if (gd->num_parts == gd->parts_capacity) {
    const int capacity = gd->parts_capacity ? gd->parts_capacity * 2 : 4;
    gpu_partition** grown =
        realloc(gd->parts, (size_t)capacity * sizeof(*grown));
    if (grown == NULL) return false;
    gd->parts = grown;
    gd->parts_capacity = capacity;
  }
  gd->parts[gd->num_parts++] = part;
  lg_gpu_program_set_profiling(part->program, gd->profiling);
  return true;
}

static void untrack_partition(gpu_delegate* gd, const gpu_partition* part) {
  for (int i = 0; i < gd->num_parts; ++i) {
    if (gd->parts[i] == part) {
      /* Keeps the order: stats and profiles list partitions in it. */
      memmove(&gd->parts[i], &gd->parts[i + 1],
              (size_t)(gd->num_parts - i - 1) * sizeof(gd->parts[0]));
      --gd->num_parts;
      return;
    }
  }
}

/* ---- The partition kernel ---------------------------------------------------
 */

typedef gpu_partition partition;

static void partition_destroy(partition* part) {
  if (part == NULL) return;
  lg_gpu_bindings_forget(part->delegate, part);
  untrack_partition(part->delegate, part);
  lg_gpu_async_kernel_destroy(part); /* its runs use the program */
  lg_gpu_program_destroy(part->program);
  TfLiteIntArrayFree(part->written_outside);
  free(part);
}

static TfLiteAsyncKernel* kernel_async_kernel(TfLiteContext* context,
                                              TfLiteNode* node) {
  (void)context;
  const partition* part = node->user_data;
  return part != NULL ? part->async_kernel : NULL;
}

static void* kernel_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)length;
  const TfLiteDelegateParams* params = (const TfLiteDelegateParams*)buffer;
  gpu_delegate* gd = from_base(params->delegate);
  partition* part = calloc(1, sizeof(*part));
  if (part != NULL) {
    part->delegate = gd;
    part->context = context;
    part->program = lg_gpu_program_create(gd->backend, &gd->kernels, context);
    part->written_outside = lg_gpu_written_outside(context, params);
  }
  if (part == NULL || part->program == NULL || part->written_outside == NULL ||
      !track_partition(gd, part)) {
    if (part != NULL) {
      lg_gpu_program_destroy(part->program);
      TfLiteIntArrayFree(part->written_outside);
    }
    free(part);
    context->ReportError(context, "TfLiteGpuDelegate Init: out of memory");
    return NULL;
  }
  lg_gpu_async_kernel_create(part); /* NULL kernel: the runner's worker */
  if (lg_gpu_program_set_partition(part->program, context,
                                   params->nodes_to_replace,
                                   params->output_tensors) != kTfLiteOk) {
    context->ReportError(context, "TfLiteGpuDelegate Init: %s",
                         lg_gpu_program_error(part->program));
    partition_destroy(part);
    return NULL;
  }
  for (int k = 0; k < params->nodes_to_replace->size; ++k) {
    if (lg_gpu_program_lower_node(part->program, context,
                                  params->nodes_to_replace->data[k]) !=
        kTfLiteOk) {
      context->ReportError(context, "TfLiteGpuDelegate Init: %s",
                           lg_gpu_program_error(part->program));
      partition_destroy(part);
      return NULL;
    }
  }
  if (lg_gpu_program_set_boundary(part->program, params->input_tensors,
                                  params->output_tensors) != kTfLiteOk ||
      lg_gpu_program_build_kernels(part->program) != kTfLiteOk) {
    context->ReportError(context, "TfLiteGpuDelegate Init: %s",
                         lg_gpu_program_error(part->program));
    partition_destroy(part);
    return NULL;
  }
  return part;
}

static void kernel_free(TfLiteContext* context, void* data) {
  (void)context;
  partition_destroy(data);
}

/* What reshape_partition's rebind_partition works on. */
typedef struct rebinding {
  const partition* part;
  int tensor; /* the binding that failed, else -1 */
} rebinding;

/* Binds the device buffers bound to the partition's tensors to its program
 * lowered at new shapes (an lg_gpu_rebind_fn); a buffer that does not fit
 * them (too small) fails, and the tensor it is bound to is recorded. */
static TfLiteStatus rebind_partition(void* user, lg_gpu_program* fresh) {
  rebinding* r = user;
  const gpu_delegate* gd = r->part->delegate;
  for (int h = 0; h < gd->num_bindings; ++h) {
    const gpu_binding* b = &gd->bindings[h];
    if (b->part != r->part || b->buffer == NULL) continue;
    if (lg_gpu_program_bind(fresh, b->tensor, b->buffer) != kTfLiteOk) {
      r->tensor = b->tensor;
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* Inputs were resized and the CPU kernels' Prepare propagated the shapes
 * (kTfLiteDelegateFlagsRequirePropagatedShapes): the partition is lowered
 * again in place. A partition that does not run at the new shapes, or a
 * bound buffer that does not fit them, fails Prepare, so AllocateTensors
 * fails with the reason, and keeps its program for the shapes it was built
 * at (resizing back makes it ready again). */
static TfLiteStatus reshape_partition(TfLiteContext* context, partition* part) {
  lg_gpu_program* fresh = NULL;
  rebinding r = {part, -1};
  if (lg_gpu_program_relower(part->program, context, rebind_partition, &r,
                             &fresh) == kTfLiteOk) {
    lg_gpu_program_destroy(part->program);
    part->program = fresh;
    return kTfLiteOk;
  }
  const char* why = lg_gpu_program_error(part->program);
  if (r.tensor < 0) {
    context->ReportError(context,
                         "TfLiteGpuDelegate Prepare: the partition does not "
                         "run on the GPU at the new input shapes: %s",
                         why);
  } else {
    const char* name = context->tensors[r.tensor].name;
    context->ReportError(context,
                         "TfLiteGpuDelegate Prepare: the buffer bound to "
                         "tensor '%s' cannot stay bound at the new input "
                         "shapes: %s (bind a larger one before resizing)",
                         name != NULL ? name : "(unnamed)", why);
  }
  return kTfLiteError;
}

static TfLiteStatus kernel_prepare(TfLiteContext* context, TfLiteNode* node) {
  partition* part = node->user_data;
  if (part == NULL) {
    context->ReportError(context,
                         "TfLiteGpuDelegate Prepare: the partition has no "
                         "program (Init failed)");
    return kTfLiteError;
  }
  if (lg_gpu_program_prepare(part->program, context) != kTfLiteOk) {
    context->ReportError(context, "TfLiteGpuDelegate Prepare: %s",
                         lg_gpu_program_error(part->program));
    return kTfLiteError;
  }
  return lg_gpu_program_shapes_changed(part->program, context)
             ? reshape_partition(context, part)
             : kTfLiteOk;
}

static TfLiteStatus kernel_invoke(TfLiteContext* context, TfLiteNode* node) {
  partition* part = node->user_data;
  if (part == NULL) {
    context->ReportError(context,
                         "TfLiteGpuDelegate Invoke: the partition has no "
                         "program");
    return kTfLiteError;
  }
  if (lg_gpu_program_run(part->program, context) != kTfLiteOk) {
    context->ReportError(context, "TfLiteGpuDelegate Invoke: %s",
                         lg_gpu_program_error(part->program));
    return kTfLiteError;
  }
  lg_gpu_bindings_ran(part->delegate, part);
  return kTfLiteOk;
}

/* ---- Delegate Prepare, create, delete --------------------------------------
 */

/* The runtime prepared the graph first (RequirePropagatedShapes); the
 * programs are planned for static shapes, so a graph whose shapes depend
 * on data is refused as TFLite refuses a static-shape delegate. */
static TfLiteStatus delegate_prepare(TfLiteContext* context,
                                     TfLiteDelegate* delegate) {
  gpu_delegate* gd = from_base(delegate);
  for (size_t i = 0; i < context->tensors_size; ++i) {
    if (context->tensors[i].allocation_type == kTfLiteDynamic) {
      context->ReportError(
          context,
          "Attempting to use a delegate that only supports static-sized "
          "tensors with a graph that has dynamic-sized tensors (tensor#%zu "
          "is a dynamic-sized tensor).",
          i);
      return kTfLiteApplicationError;
    }
  }
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

/* TFLite's rule: is_precision_loss_allowed 1 or 0 decides; -1 leaves it to
 * the priorities, where loss is allowed when the first one that is not
 * AUTO asks for MIN_LATENCY or MIN_MEMORY_USAGE rather than MAX_PRECISION. */
static bool precision_loss_allowed(const TfLiteGpuDelegateOptionsV2* o) {
  if (o->is_precision_loss_allowed != -1) {
    return o->is_precision_loss_allowed != 0;
  }
  const int32_t priorities[3] = {o->inference_priority1, o->inference_priority2,
                                 o->inference_priority3};
  for (int i = 0; i < 3; ++i) {
    if (priorities[i] == TFLITE_GPU_INFERENCE_PRIORITY_AUTO) continue;
    return priorities[i] != TFLITE_GPU_INFERENCE_PRIORITY_MAX_PRECISION;
  }
  return false;
}

/* TFLite's rule: programs are serialized only with ENABLE_SERIALIZATION,
 * a serialization_dir and a model_token. */
static bool serializing(const TfLiteGpuDelegateOptionsV2* o) {
  return (o->experimental_flags &
          TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_SERIALIZATION) != 0 &&
         o->serialization_dir != NULL && o->serialization_dir[0] != '\0' &&
         o->model_token != NULL && o->model_token[0] != '\0';
}

/* The backend the options ask for: that registry row, or for AUTO the
 * first row that has a device (gpu_backends.c). A failure names each
 * backend tried and its reason. */
static TfLiteStatus create_backend(const litegpu_gpu_delegate_options* o,
                                   lg_gpu_backend** out, char* message,
                                   size_t size) {
  /* The backend runs in half precision when this allows it and the device
   * and its kernels support it (lg_gpu_backend.fp16_storage). */
  const lg_gpu_backend_options bo = {
      .device_index = o->device_index,
      .allow_fp16 = precision_loss_allowed(&o->tflite),
      .cache_dir = serializing(&o->tflite) ? o->tflite.serialization_dir : NULL,
      .cache_namespace = o->tflite.model_token};
  int count = 0;
  const lg_gpu_backend_entry* backends = lg_gpu_backends(&count);
  size_t used = (size_t)snprintf(message, size, "GPU delegate: ");
  int tried = 0;
  for (int i = 0; i < count; ++i) {
    if (o->backend != LITEGPU_GPU_BACKEND_AUTO &&
        o->backend != (litegpu_gpu_backend)backends[i].option) {
      continue;
    }
    lg_gpu_error error = {{0}};
    if (backends[i].create(&bo, out, &error) == kTfLiteOk) return kTfLiteOk;
    /* One backend asked for: "...: reason"; AUTO: "... (reason) and ...". */
    const bool automatic = o->backend == LITEGPU_GPU_BACKEND_AUTO;
    if (used < size) {
      used += (size_t)snprintf(
          message + used, size - used, "%sno usable %s device%s%s%s",
          tried == 0 ? "" : " and ", backends[i].name, automatic ? " (" : ": ",
          error.message, automatic ? ")" : "");
    }
    ++tried;
  }
  if (tried == 0) snprintf(message, size, "GPU delegate: no such backend");
  return kTfLiteError;
}

void lg_gpu_device_ref_release(lg_gpu_device_ref* device) {
  if (device == NULL || --device->refs > 0) return;
  lg_gpu_backend_destroy(device->backend);
  free(device);
}

/* The delegate's device: a new backend, or with share_device_with a
 * reference to that delegate's (whose options then stand). */
static TfLiteStatus open_device(const litegpu_gpu_delegate_options* o,
                                lg_gpu_device_ref** out, char* message,
                                size_t size) {
  const TfLiteDelegate* other = o->share_device_with;
  if (other != NULL) {
    if (other->Prepare != delegate_prepare) {
      snprintf(message, size,
               "GPU delegate: share_device_with is not a litegpu GPU "
               "delegate");
      return kTfLiteError;
    }
    lg_gpu_device_ref* shared = from_base(other)->device;
    const char* wanted = o->backend == LITEGPU_GPU_BACKEND_OPENCL   ? "OpenCL"
                         : o->backend == LITEGPU_GPU_BACKEND_VULKAN ? "Vulkan"
                                                                    : NULL;
    if (wanted != NULL && strcmp(wanted, shared->backend->name) != 0) {
      snprintf(message, size,
               "GPU delegate: share_device_with runs on %s; the options ask "
               "for %s",
               shared->backend->name, wanted);
      return kTfLiteError;
    }
    shared->refs++;
    *out = shared;
    return kTfLiteOk;
  }
  lg_gpu_device_ref* device = calloc(1, sizeof(*device));
  if (device == NULL) {
    snprintf(message, size, "GPU delegate: out of memory");
    return kTfLiteError;
  }
  if (create_backend(o, &device->backend, message, size) != kTfLiteOk) {
    free(device);
    return kTfLiteError;
  }
  device->refs = 1;
  *out = device;
  return kTfLiteOk;
}

TfLiteDelegate* litegpu_gpu_delegate_create(
    const litegpu_gpu_delegate_options* options, char* error,
    size_t error_size) {
  litegpu_gpu_delegate_options o =
      options ? *options : litegpu_gpu_delegate_options_default();
  if (o.backend != LITEGPU_GPU_BACKEND_AUTO &&
      o.backend != LITEGPU_GPU_BACKEND_OPENCL &&
      o.backend != LITEGPU_GPU_BACKEND_VULKAN) {
    return create_failed(error, error_size,
                         "GPU delegate: unknown backend in the options");
  }
  const int64_t flags = o.tflite.experimental_flags;
  if (flags & TFLITE_GPU_EXPERIMENTAL_FLAGS_GL_ONLY) {
    return create_failed(
        error, error_size,
        "GPU delegate: TFLITE_GPU_EXPERIMENTAL_FLAGS_GL_ONLY asks for "
        "OpenGL ES, which litegpu does not have (it runs OpenCL or "
        "Vulkan): drop the flag, or set CL_ONLY for OpenCL");
  }
  if (flags & TFLITE_GPU_EXPERIMENTAL_FLAGS_CL_ONLY) {
    if (o.backend == LITEGPU_GPU_BACKEND_VULKAN) {
      return create_failed(
          error, error_size,
          "GPU delegate: TFLITE_GPU_EXPERIMENTAL_FLAGS_CL_ONLY and the "
          "Vulkan backend exclude each other");
    }
    o.backend = LITEGPU_GPU_BACKEND_OPENCL; /* no Vulkan fallback */
  }
  gpu_delegate* gd = calloc(1, sizeof(*gd));
  if (gd == NULL) {
    return create_failed(error, error_size, "GPU delegate: out of memory");
  }
  gd->options = o;
  /* Not kept: the caller's strings need not outlive the call. */
  gd->options.tflite.serialization_dir = NULL;
  gd->options.tflite.model_token = NULL;
  gd->options.share_device_with = NULL;
  char message[2 * LG_GPU_ERROR_SIZE + 128];
  if (open_device(&o, &gd->device, message, sizeof(message)) != kTfLiteOk) {
    free(gd);
    return create_failed(error, error_size, message);
  }
  gd->backend = gd->device->backend;
  /* SUSTAINED_SPEED spends Prepare time timing work-group sizes
   * (gpu_tune.h), kept in serialization_dir when the programs are. */
  if (o.tflite.inference_preference ==
      TFLITE_GPU_INFERENCE_PREFERENCE_SUSTAINED_SPEED) {
    gd->tuning = lg_gpu_tuning_create(
        serializing(&o.tflite) ? o.tflite.serialization_dir : NULL,
        o.tflite.model_token);
    if (gd->tuning == NULL) {
      lg_gpu_device_ref_release(gd->device);
      free(gd);
      return create_failed(error, error_size, "GPU delegate: out of memory");
    }
    gd->kernels.tuning = gd->tuning;
  }
  gd->base = TfLiteDelegateCreate();
  gd->base.data_ = gd;
  gd->base.Prepare = delegate_prepare;
  /* Resizable: the runtime propagates new input shapes through the
   * replaced nodes' CPU Prepare before the partition kernels' Prepare,
   * which lowers them again (reshape_partition). */
  gd->base.flags = kTfLiteDelegateFlagsAllowDynamicTensors |
                   kTfLiteDelegateFlagsRequirePropagatedShapes;
  gd->kit.name = LG_GPU_KERNEL_NAME;
  gd->kit.report_name = "GPU delegate";
  gd->kit.report_target = "GPU";
  gd->kit.ops = lg_gpu_op_table(&gd->kit.num_ops);
  gd->kit.node_check = gpu_node_check;
  gd->kit.user_data = gd;
  gd->kit.max_delegated_partitions = o.tflite.max_delegated_partitions <= 0
                                         ? 1
                                         : o.tflite.max_delegated_partitions;
  gd->kit.min_nodes_per_partition = o.min_nodes_per_partition;
  gd->kit.kernel.init = kernel_init;
  gd->kit.kernel.free = kernel_free;
  gd->kit.kernel.prepare = kernel_prepare;
  gd->kit.kernel.invoke = kernel_invoke;
  gd->kit.kernel.async_kernel = kernel_async_kernel;
  gd->kit.kernel.version = 1;
  lg_gpu_bindings_install(gd);
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
  lg_gpu_bindings_release(gd);
  lg_gpu_kernel_cache_release(&gd->kernels, gd->backend);
  lg_gpu_tuning_destroy(gd->tuning);
  free(gd->parts);
  lg_gpu_device_ref_release(gd->device);
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

int litegpu_gpu_delegate_num_nodes(const TfLiteDelegate* delegate) {
  if (delegate == NULL) return -1;
  const lg_delegate_kit* kit = &from_base(delegate)->kit;
  int bound = 0;
  for (int i = 0; i < kit->num_decisions; ++i) {
    if (kit->decisions[i].node_index >= bound) {
      bound = kit->decisions[i].node_index + 1;
    }
  }
  return bound;
}

TfLiteStatus litegpu_gpu_delegate_get_stats(const TfLiteDelegate* delegate,
                                            litegpu_gpu_delegate_stats* out) {
  if (delegate == NULL || out == NULL) return kTfLiteError;
  const gpu_delegate* gd = from_base(delegate);
  memset(out, 0, sizeof(*out));
  out->backend = gd->backend->name;
  snprintf(out->device_name, sizeof(out->device_name), "%s",
           gd->backend->device.name);
  out->partitions = gd->kit.num_partitions;
  for (int i = 0; i < gd->num_parts; ++i) {
    lg_gpu_program_stats ps;
    lg_gpu_program_get_stats(gd->parts[i]->program, &ps);
    out->nodes_delegated += ps.nodes;
    out->dispatches_per_invoke += ps.dispatches;
    out->device_bytes += ps.device_bytes;
    out->bytes_uploaded += ps.bytes_uploaded;
    out->bytes_downloaded += ps.bytes_downloaded;
  }
  if (gd->backend->ops->cache_stats != NULL) {
    lg_gpu_cache_stats cache = {0, 0, 0};
    gd->backend->ops->cache_stats(gd->backend, &cache);
    out->programs_compiled = cache.programs_compiled;
    out->programs_from_cache = cache.programs_from_cache;
    out->cache_files_loaded = cache.cache_files_loaded;
  }
  out->fp16 = gd->backend->fp16_storage ? 1 : 0;
  out->bytes_copied_by_handles = gd->bytes_copied_by_handles;
  lg_gpu_tuning_counts(gd->tuning, &out->kernels_tuned,
                       &out->tunings_from_cache);
  return kTfLiteOk;
}

TfLiteStatus litegpu_gpu_delegate_enable_profiling(TfLiteDelegate* delegate,
                                                   bool enable) {
  if (delegate == NULL) return kTfLiteError;
  gpu_delegate* gd = from_base(delegate);
  gd->profiling = enable;
  for (int i = 0; i < gd->num_parts; ++i) {
    lg_gpu_program_set_profiling(gd->parts[i]->program, enable);
  }
  return kTfLiteOk;
}

int litegpu_gpu_delegate_dispatch_profile(
    const TfLiteDelegate* delegate, litegpu_gpu_dispatch_profile* profiles,
    int capacity) {
  if (delegate == NULL) return -1;
  const gpu_delegate* gd = from_base(delegate);
  int total = 0;
  for (int i = 0; i < gd->num_parts; ++i) {
    const int room =
        profiles != NULL && capacity > total ? capacity - total : 0;
    const int n = lg_gpu_program_profile(
        gd->parts[i]->program, room > 0 ? profiles + total : NULL, room);
    for (int k = 0; k < n && k < room; ++k) profiles[total + k].partition = i;
    total += n;
  }
  return total;
}
