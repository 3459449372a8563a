/* A TfLiteContext and TfLiteNode over hand-built tensors, to run one kernel
 * registration through init / prepare / invoke / free without a model. */
#include "tests/support/kernel_runner.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output bytes start as this pattern, so values a kernel never wrote show. */
#define LG_RUNNER_FILL 0xA5

/* A guard byte's expected value depends on its position, so that a kernel
 * copying a guard byte to another place is still caught. */
static unsigned char lg_runner_guard_byte(size_t i) {
  return (unsigned char)(0xC3u ^ (unsigned)(i * 29u));
}

static lg_kernel_runner* lg_runner_from_context(TfLiteContext* context) {
  return (lg_kernel_runner*)context; /* context is the first member */
}

static void lg_runner_report_va(lg_kernel_runner* runner, const char* format,
                                va_list args) {
  runner->error_count++;
  const size_t room = sizeof(runner->errors) - runner->error_length;
  if (room <= 1) return;
  int n = vsnprintf(runner->errors + runner->error_length, room, format, args);
  if (n < 0) return;
  size_t written = (size_t)n < room - 1 ? (size_t)n : room - 1;
  runner->error_length += written;
  if (runner->error_length + 1 < sizeof(runner->errors)) {
    runner->errors[runner->error_length++] = '\n';
    runner->errors[runner->error_length] = '\0';
  }
}

static void lg_runner_report(lg_kernel_runner* runner, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
static void lg_runner_report(lg_kernel_runner* runner, const char* format,
                             ...) {
  va_list args;
  va_start(args, format);
  lg_runner_report_va(runner, format, args);
  va_end(args);
}

static void lg_runner_context_report(TfLiteContext* context, const char* format,
                                     ...) {
  va_list args;
  va_start(args, format);
  lg_runner_report_va(lg_runner_from_context(context), format, args);
  va_end(args);
}

static int lg_runner_tensor_index(const lg_kernel_runner* runner,
                                  const TfLiteTensor* tensor) {
  if (tensor < runner->tensors ||
      tensor >= runner->tensors + runner->num_tensors) {
    return -1;
  }
  return (int)(tensor - runner->tensors);
}

/* dims' byte size for `type`; false for a type without a fixed size or an
 * unset shape. */
static bool lg_runner_byte_size(TfLiteType type, const TfLiteIntArray* dims,
                                size_t* bytes) {
  size_t size;
  if (dims == NULL || TfLiteGetSizeOfType(type, &size) != kTfLiteOk) {
    return false;
  }
  for (int i = 0; i < dims->size; ++i) {
    if (dims->data[i] < 0) return false;
    if (dims->data[i] != 0 && size > SIZE_MAX / (size_t)dims->data[i]) {
      return false;
    }
    size *= (size_t)dims->data[i];
  }
  *bytes = size;
  return true;
}

static TfLiteStatus lg_runner_allocate_one(lg_kernel_runner* runner, int i);

static TfLiteStatus lg_runner_resize(TfLiteContext* context,
                                     TfLiteTensor* tensor,
                                     TfLiteIntArray* new_size) {
  lg_kernel_runner* runner = lg_runner_from_context(context);
  if (lg_runner_tensor_index(runner, tensor) < 0 || new_size == NULL) {
    lg_runner_report(runner,
                     "kernel runner: ResizeTensor on a tensor that "
                     "is not the context's, or NULL dims");
    TfLiteIntArrayFree(new_size);
    return kTfLiteError;
  }
  TfLiteIntArrayFree(tensor->dims);
  tensor->dims = new_size;
  size_t bytes = 0;
  if (lg_runner_byte_size(tensor->type, new_size, &bytes)) {
    tensor->bytes = bytes;
  }
  /* A dynamic tensor gets memory for its new shape at once, as the
   * interpreter gives it (kernels resize dynamic outputs in Invoke). */
  const int index = lg_runner_tensor_index(runner, tensor);
  if (tensor->allocation_type == kTfLiteDynamic &&
      runner->runner_allocates[index]) {
    return lg_runner_allocate_one(runner, index);
  }
  return kTfLiteOk;
}

static TfLiteTensor* lg_runner_get_tensor(const TfLiteContext* context,
                                          int index) {
  if (index < 0 || (size_t)index >= context->tensors_size) return NULL;
  return &context->tensors[index];
}

static TfLiteStatus lg_runner_add_tensors(TfLiteContext* context, int count,
                                          int* first_new_index) {
  lg_kernel_runner* runner = lg_runner_from_context(context);
  if (count < 0 || runner->num_tensors + count > LG_KERNEL_RUNNER_MAX_TENSORS) {
    lg_runner_report(runner, "kernel runner: AddTensors(%d) exceeds %d tensors",
                     count, LG_KERNEL_RUNNER_MAX_TENSORS);
    return kTfLiteError;
  }
  if (first_new_index != NULL) *first_new_index = runner->num_tensors;
  for (int i = 0; i < count; ++i) {
    const int index = runner->num_tensors++;
    memset(&runner->tensors[index], 0, sizeof(TfLiteTensor));
    runner->tensors[index].buffer_handle = kTfLiteNullBufferHandle;
    runner->runner_allocates[index] = true;
  }
  context->tensors_size = (size_t)runner->num_tensors;
  return kTfLiteOk;
}

static TfLiteStatus lg_runner_forbidden(lg_kernel_runner* runner) {
  lg_runner_report(runner,
                   "The function is forbidden if not calling in delegate.");
  return kTfLiteError;
}

static TfLiteStatus lg_runner_get_plan(TfLiteContext* context,
                                       TfLiteIntArray** plan) {
  (void)plan;
  return lg_runner_forbidden(lg_runner_from_context(context));
}

static TfLiteStatus lg_runner_get_node(TfLiteContext* context, int index,
                                       TfLiteNode** node,
                                       TfLiteRegistration** registration) {
  (void)index;
  (void)node;
  (void)registration;
  return lg_runner_forbidden(lg_runner_from_context(context));
}

static TfLiteStatus lg_runner_replace(TfLiteContext* context,
                                      TfLiteRegistration registration,
                                      const TfLiteIntArray* nodes,
                                      TfLiteDelegate* delegate) {
  (void)registration;
  (void)nodes;
  (void)delegate;
  return lg_runner_forbidden(lg_runner_from_context(context));
}

static TfLiteIntArray* lg_runner_int_array(const int* values, int count) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(count > 0 ? count : 0);
  if (a != NULL) {
    for (int i = 0; i < count; ++i) a->data[i] = values[i];
  }
  return a;
}

void lg_kernel_runner_init(lg_kernel_runner* runner,
                           const TfLiteRegistration* registration,
                           void* builtin_data) {
  memset(runner, 0, sizeof(*runner));
  runner->registration = registration;
  TfLiteContext* c = &runner->context;
  c->tensors = runner->tensors;
  c->tensors_size = 0;
  c->impl_ = NULL;
  c->ResizeTensor = lg_runner_resize;
  c->ReportError = lg_runner_context_report;
  c->AddTensors = lg_runner_add_tensors;
  c->GetTensor = lg_runner_get_tensor;
  c->GetExecutionPlan = lg_runner_get_plan;
  c->GetNodeAndRegistration = lg_runner_get_node;
  c->ReplaceNodeSubsetsWithDelegateKernels = lg_runner_replace;
  c->recommended_num_threads = 1;
  runner->node.inputs = lg_runner_int_array(NULL, 0);
  runner->node.outputs = lg_runner_int_array(NULL, 0);
  runner->node.intermediates = lg_runner_int_array(NULL, 0);
  runner->node.temporaries = lg_runner_int_array(NULL, 0);
  runner->node.builtin_data = builtin_data;
}

void lg_kernel_runner_release(lg_kernel_runner* runner) {
  if (runner->initialized && runner->registration->free != NULL) {
    runner->registration->free(&runner->context, runner->node.user_data);
  }
  runner->initialized = false;
  for (int i = 0; i < runner->num_tensors; ++i) {
    TfLiteIntArrayFree(runner->tensors[i].dims);
    runner->tensors[i].dims = NULL;
    free(runner->owned_data[i]);
    runner->owned_data[i] = NULL;
  }
  TfLiteIntArrayFree(runner->node.inputs);
  TfLiteIntArrayFree(runner->node.outputs);
  TfLiteIntArrayFree(runner->node.intermediates);
  TfLiteIntArrayFree(runner->node.temporaries);
  runner->node.inputs = runner->node.outputs = NULL;
  runner->node.intermediates = runner->node.temporaries = NULL;
  lg_thread_pool_destroy(runner->env.thread_pool);
  runner->env.thread_pool = NULL;
  runner->num_tensors = 0;
}

int lg_kernel_runner_add_tensor(lg_kernel_runner* runner, TfLiteType type,
                                const int* dims, int rank, void* data) {
  if (runner->num_tensors >= LG_KERNEL_RUNNER_MAX_TENSORS || rank < 0) {
    return -1;
  }
  TfLiteIntArray* shape = lg_runner_int_array(dims, rank);
  if (shape == NULL) return -1;
  const int index = runner->num_tensors++;
  TfLiteTensor* t = &runner->tensors[index];
  memset(t, 0, sizeof(*t));
  t->type = type;
  t->dims = shape;
  t->data.data = data;
  t->buffer_handle = kTfLiteNullBufferHandle;
  t->allocation_type = data != NULL ? kTfLiteMmapRo : kTfLiteArenaRw;
  size_t bytes = 0;
  if (lg_runner_byte_size(type, shape, &bytes)) t->bytes = bytes;
  runner->runner_allocates[index] = data == NULL;
  runner->context.tensors_size = (size_t)runner->num_tensors;
  return index;
}

TfLiteTensor* lg_kernel_runner_tensor(lg_kernel_runner* runner, int index) {
  if (index < 0 || index >= runner->num_tensors) return NULL;
  return &runner->tensors[index];
}

void lg_kernel_runner_set_inputs(lg_kernel_runner* runner, const int* indices,
                                 int count) {
  TfLiteIntArrayFree(runner->node.inputs);
  runner->node.inputs = lg_runner_int_array(indices, count);
}

void lg_kernel_runner_set_outputs(lg_kernel_runner* runner, const int* indices,
                                  int count) {
  TfLiteIntArrayFree(runner->node.outputs);
  runner->node.outputs = lg_runner_int_array(indices, count);
}

TfLiteStatus lg_kernel_runner_set_threads(lg_kernel_runner* runner,
                                          int num_threads) {
  lg_thread_pool* pool = lg_thread_pool_create(num_threads);
  if (pool == NULL) return kTfLiteError;
  lg_thread_pool_destroy(runner->env.thread_pool);
  runner->env.thread_pool = pool;
  runner->context.impl_ = &runner->env;
  runner->context.recommended_num_threads = num_threads;
  return kTfLiteOk;
}

/* Gives every runner-allocated tensor fresh memory for its current shape,
 * filled with LG_RUNNER_FILL and followed by guard bytes. */
static TfLiteStatus lg_runner_allocate(lg_kernel_runner* runner) {
  for (int i = 0; i < runner->num_tensors; ++i) {
    if (!runner->runner_allocates[i]) continue;
    TF_LITE_ENSURE_STATUS(lg_runner_allocate_one(runner, i));
  }
  return kTfLiteOk;
}

/* Gives runner-allocated tensor i fresh memory for its current shape (see
 * lg_runner_allocate). */
static TfLiteStatus lg_runner_allocate_one(lg_kernel_runner* runner, int i) {
  TfLiteTensor* t = &runner->tensors[i];
  free(runner->owned_data[i]);
  runner->owned_data[i] = NULL;
  t->data.data = NULL;
  size_t bytes;
  if (!lg_runner_byte_size(t->type, t->dims, &bytes) ||
      bytes > SIZE_MAX - LG_KERNEL_RUNNER_GUARD_BYTES) {
    lg_runner_report(runner,
                     "kernel runner: tensor %d has no byte size "
                     "after prepare",
                     i);
    return kTfLiteError;
  }
  unsigned char* block = malloc(bytes + LG_KERNEL_RUNNER_GUARD_BYTES);
  if (block == NULL) {
    lg_runner_report(runner, "kernel runner: out of memory for tensor %d", i);
    return kTfLiteError;
  }
  memset(block, LG_RUNNER_FILL, bytes);
  for (size_t g = 0; g < LG_KERNEL_RUNNER_GUARD_BYTES; ++g) {
    block[bytes + g] = lg_runner_guard_byte(g);
  }
  runner->owned_data[i] = block;
  runner->owned_bytes[i] = bytes;
  t->data.data = block;
  t->bytes = bytes;
  return kTfLiteOk;
}

static TfLiteStatus lg_runner_check_guards(lg_kernel_runner* runner) {
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < runner->num_tensors; ++i) {
    const unsigned char* block = runner->owned_data[i];
    if (block == NULL) continue;
    const size_t bytes = runner->owned_bytes[i];
    for (size_t g = 0; g < LG_KERNEL_RUNNER_GUARD_BYTES; ++g) {
      if (block[bytes + g] != lg_runner_guard_byte(g)) {
        lg_runner_report(runner,
                         "kernel runner: guard byte %zu after tensor %d "
                         "(%zu bytes) was overwritten",
                         g, i, bytes);
        status = kTfLiteError;
        break;
      }
    }
  }
  return status;
}

TfLiteStatus lg_kernel_runner_prepare(lg_kernel_runner* runner) {
  runner->prepared = false;
  if (runner->node.inputs == NULL || runner->node.outputs == NULL ||
      runner->node.intermediates == NULL || runner->node.temporaries == NULL) {
    lg_runner_report(runner, "kernel runner: out of memory for node arrays");
    return kTfLiteError;
  }
  const TfLiteRegistration* reg = runner->registration;
  if (!runner->initialized) {
    runner->node.user_data =
        reg->init == NULL ? NULL
        : runner->node.custom_initial_data != NULL
            ? reg->init(&runner->context,
                        (const char*)runner->node.custom_initial_data,
                        (size_t)runner->node.custom_initial_data_size)
            : reg->init(&runner->context,
                        (const char*)runner->node.builtin_data, 0);
    runner->initialized = true;
  }
  if (reg->prepare != NULL) {
    TF_LITE_ENSURE_STATUS(reg->prepare(&runner->context, &runner->node));
  }
  TF_LITE_ENSURE_STATUS(lg_runner_allocate(runner));
  runner->prepared = true;
  return kTfLiteOk;
}

TfLiteStatus lg_kernel_runner_invoke(lg_kernel_runner* runner) {
  if (!runner->prepared) {
    lg_runner_report(runner,
                     "kernel runner: invoke without a successful "
                     "prepare");
    return kTfLiteError;
  }
  const TfLiteRegistration* reg = runner->registration;
  TfLiteStatus status = kTfLiteOk;
  if (reg->invoke != NULL)
    status = reg->invoke(&runner->context, &runner->node);
  const TfLiteStatus guards = lg_runner_check_guards(runner);
  return status != kTfLiteOk ? status : guards;
}

TfLiteStatus lg_kernel_runner_run(lg_kernel_runner* runner) {
  TF_LITE_ENSURE_STATUS(lg_kernel_runner_prepare(runner));
  return lg_kernel_runner_invoke(runner);
}

const char* lg_kernel_runner_errors(const lg_kernel_runner* runner) {
  return runner->errors;
}

void lg_kernel_runner_clear_errors(lg_kernel_runner* runner) {
  runner->errors[0] = '\0';
  runner->error_length = 0;
  runner->error_count = 0;
}
