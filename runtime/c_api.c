/* The TFLite-compatible C API (c_api.h, c_api_experimental.h): argument
 * checks, messages, and calls into the model reader and the subgraph. */
#include "tensorflow/lite/c/c_api.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "litegpu/interpreter_info.h"
#include "litegpu/profiling.h"
#include "runtime/delegate.h"
#include "runtime/interpreter.h"
#include "runtime/operator.h"
#include "runtime/resource_variables.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/c/c_api_experimental.h"

/* The TFLite release whose C API this library follows. */
#define LG_TFLITE_API_VERSION "2.17.0"
#define LG_SCHEMA_VERSION 3

const char* TfLiteVersion(void) { return LG_TFLITE_API_VERSION; }

/* TFLite versions its extension APIs with its own version string. */
const char* TfLiteExtensionApisVersion(void) { return LG_TFLITE_API_VERSION; }

int TfLiteSchemaVersion(void) { return LG_SCHEMA_VERSION; }

/* Reports a misuse of the API to stderr (there is no reporter to use). */
static void api_error(const char* format, ...)
    __attribute__((format(printf, 1, 2)));
static void api_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  lg_reportv(NULL, format, args);
  va_end(args);
}

/* ---- Model -----------------------------------------------------------------
 */

static TfLiteModel* wrap_model(lg_model* parsed) {
  if (parsed == NULL) return NULL;
  TfLiteModel* model = malloc(sizeof(*model));
  if (model == NULL) {
    lg_model_destroy(parsed);
    return NULL;
  }
  model->model = parsed;
  atomic_init(&model->refcount, 1);
  return model;
}

TfLiteModel* TfLiteModelCreateWithErrorReporter(
    const void* model_data, size_t model_size,
    TfLiteErrorReporterCallback reporter, void* user_data) {
  lg_reporter rep = {reporter, user_data};
  if (model_data == NULL) {
    lg_report(&rep, "TfLiteModelCreate: model_data is NULL");
    return NULL;
  }
  lg_model* parsed = NULL;
  if (lg_model_parse(model_data, model_size, &rep, &parsed) != kTfLiteOk) {
    return NULL;
  }
  return wrap_model(parsed);
}

TfLiteModel* TfLiteModelCreate(const void* model_data, size_t model_size) {
  return TfLiteModelCreateWithErrorReporter(model_data, model_size, NULL, NULL);
}

TfLiteModel* TfLiteModelCreateFromFileWithErrorReporter(
    const char* model_path, TfLiteErrorReporterCallback reporter,
    void* user_data) {
  lg_reporter rep = {reporter, user_data};
  if (model_path == NULL) {
    lg_report(&rep, "TfLiteModelCreateFromFile: model_path is NULL");
    return NULL;
  }
  lg_model* parsed = NULL;
  if (lg_model_load_file(model_path, &rep, &parsed) != kTfLiteOk) return NULL;
  return wrap_model(parsed);
}

TfLiteModel* TfLiteModelCreateFromFile(const char* model_path) {
  return TfLiteModelCreateFromFileWithErrorReporter(model_path, NULL, NULL);
}

static void model_release(TfLiteModel* model) {
  if (model == NULL) return;
  if (atomic_fetch_sub(&model->refcount, 1) == 1) {
    lg_model_destroy(model->model);
    free(model);
  }
}

void TfLiteModelDelete(TfLiteModel* model) { model_release(model); }

/* ---- Delegate lists ---- */

static TfLiteStatus delegate_list_add(lg_delegate_list* list,
                                      TfLiteDelegate* delegate) {
  if (list->count == list->capacity) {
    int capacity = list->capacity ? list->capacity * 2 : 4;
    TfLiteDelegate** items =
        realloc(list->items, sizeof(*items) * (size_t)capacity);
    if (items == NULL) return kTfLiteError;
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = delegate;
  return kTfLiteOk;
}

static TfLiteStatus delegate_list_copy(lg_delegate_list* dst,
                                       const lg_delegate_list* src) {
  for (int i = 0; i < src->count; ++i) {
    TF_LITE_ENSURE_STATUS(delegate_list_add(dst, src->items[i]));
  }
  return kTfLiteOk;
}

/* ---- Options ---------------------------------------------------------------
 */

TfLiteInterpreterOptions* TfLiteInterpreterOptionsCreate(void) {
  TfLiteInterpreterOptions* options = calloc(1, sizeof(*options));
  if (options == NULL) return NULL;
  options->num_threads = -1;
  lg_op_resolver_init(&options->resolver);
  return options;
}

TfLiteInterpreterOptions* TfLiteInterpreterOptionsCopy(
    const TfLiteInterpreterOptions* from) {
  if (from == NULL) {
    api_error("TfLiteInterpreterOptionsCopy: options is NULL");
    return NULL;
  }
  TfLiteInterpreterOptions* copy = TfLiteInterpreterOptionsCreate();
  if (copy == NULL) return NULL;
  copy->num_threads = from->num_threads;
  copy->reporter = from->reporter;
  copy->enable_delegate_fallback = from->enable_delegate_fallback;
  copy->enable_cancellation = from->enable_cancellation;
  if (lg_op_resolver_copy(&copy->resolver, &from->resolver) != kTfLiteOk ||
      delegate_list_copy(&copy->delegates, &from->delegates) != kTfLiteOk) {
    TfLiteInterpreterOptionsDelete(copy);
    return NULL;
  }
  return copy;
}

void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions* options) {
  if (options == NULL) return;
  lg_op_resolver_release(&options->resolver);
  free(options->delegates.items);
  free(options);
}

void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions* options,
                                           int32_t num_threads) {
  if (options == NULL) {
    api_error("TfLiteInterpreterOptionsSetNumThreads: options is NULL");
    return;
  }
  if (num_threads == 0 || num_threads < -1) {
    lg_report(&options->reporter,
              "num_threads should be -1 or positive, got %d; keeping %d",
              (int)num_threads, (int)options->num_threads);
    return;
  }
  options->num_threads = num_threads;
}

void TfLiteInterpreterOptionsSetErrorReporter(
    TfLiteInterpreterOptions* options, TfLiteErrorReporterCallback reporter,
    void* user_data) {
  if (options == NULL) {
    api_error("TfLiteInterpreterOptionsSetErrorReporter: options is NULL");
    return;
  }
  options->reporter.fn = reporter;
  options->reporter.user_data = user_data;
}

void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions* options,
                                         TfLiteOpaqueDelegate* delegate) {
  if (options == NULL || delegate == NULL) {
    api_error("TfLiteInterpreterOptionsAddDelegate: %s is NULL",
              options == NULL ? "options" : "delegate");
    return;
  }
  if (delegate_list_add(&options->delegates, delegate) != kTfLiteOk) {
    lg_report(&options->reporter,
              "TfLiteInterpreterOptionsAddDelegate: out of memory");
  }
}

void TfLiteInterpreterOptionsSetEnableDelegateFallback(
    TfLiteInterpreterOptions* options, bool enable) {
  if (options == NULL) {
    api_error(
        "TfLiteInterpreterOptionsSetEnableDelegateFallback: options is "
        "NULL");
    return;
  }
  options->enable_delegate_fallback = enable;
}

void TfLiteInterpreterOptionsEnableCancellation(
    TfLiteInterpreterOptions* options, bool enable) {
  if (options == NULL) {
    api_error("TfLiteInterpreterOptionsEnableCancellation: options is NULL");
    return;
  }
  options->enable_cancellation = enable;
}

void TfLiteInterpreterOptionsAddOperator(TfLiteInterpreterOptions* options,
                                         TfLiteOperator* registration) {
  if (options == NULL || registration == NULL) {
    api_error("TfLiteInterpreterOptionsAddOperator: %s is NULL",
              options == NULL ? "options" : "registration");
    return;
  }
  TfLiteRegistration r = lg_operator_registration(registration);
  if (lg_op_resolver_add(&options->resolver, r.builtin_code, r.custom_name, &r,
                         r.version, r.version) != kTfLiteOk) {
    lg_report(&options->reporter,
              "TfLiteInterpreterOptionsAddOperator: cannot register %s "
              "version %d",
              r.custom_name ? r.custom_name : "builtin", r.version);
  }
}

void TfLiteInterpreterOptionsAddRegistrationExternal(
    TfLiteInterpreterOptions* options, TfLiteOperator* registration) {
  TfLiteInterpreterOptionsAddOperator(options, registration);
}

static void add_op(TfLiteInterpreterOptions* options, int32_t code,
                   const char* name, const TfLiteRegistration* registration,
                   int32_t min_version, int32_t max_version) {
  if (options == NULL || registration == NULL) {
    api_error("TfLiteInterpreterOptionsAdd%sOp: %s is NULL",
              name ? "Custom" : "Builtin",
              options == NULL ? "options" : "registration");
    return;
  }
  if (lg_op_resolver_add(&options->resolver, code, name, registration,
                         min_version, max_version) != kTfLiteOk) {
    lg_report(&options->reporter,
              "Cannot register %s versions %d to %d: a name is required for "
              "custom ops and versions must satisfy 1 <= min <= max",
              name ? name : "builtin op", (int)min_version, (int)max_version);
  }
}

void TfLiteInterpreterOptionsAddBuiltinOp(
    TfLiteInterpreterOptions* options, TfLiteBuiltinOperator op,
    const TfLiteRegistration* registration, int32_t min_version,
    int32_t max_version) {
  add_op(options, (int32_t)op, NULL, registration, min_version, max_version);
}

void TfLiteInterpreterOptionsAddCustomOp(TfLiteInterpreterOptions* options,
                                         const char* name,
                                         const TfLiteRegistration* registration,
                                         int32_t min_version,
                                         int32_t max_version) {
  if (name == NULL) {
    api_error("TfLiteInterpreterOptionsAddCustomOp: name is NULL");
    return;
  }
  add_op(options, kTfLiteBuiltinCustom, name, registration, min_version,
         max_version);
}

/* Sets every resolver callback at once (TFLite's setters each replace all
 * of them); any non-NULL callback makes them the only resolver. */
static void set_resolver_callbacks(TfLiteInterpreterOptions* options,
                                   const lg_resolver_callbacks* callbacks,
                                   const char* function) {
  if (options == NULL) {
    api_error("%s: options is NULL", function);
    return;
  }
  options->resolver.callbacks = *callbacks;
}

void TfLiteInterpreterOptionsSetOpResolver(
    TfLiteInterpreterOptions* options,
    const TfLiteRegistration* (*find_builtin_op)(void* user_data,
                                                 TfLiteBuiltinOperator op,
                                                 int version),
    const TfLiteRegistration* (*find_custom_op)(void* user_data,
                                                const char* custom_op,
                                                int version),
    void* op_resolver_user_data) {
  lg_resolver_callbacks cb = {.find_builtin_op = find_builtin_op,
                              .find_custom_op = find_custom_op,
                              .user_data = op_resolver_user_data};
  set_resolver_callbacks(options, &cb, "TfLiteInterpreterOptionsSetOpResolver");
}

void TfLiteInterpreterOptionsSetOpResolverExternal(
    TfLiteInterpreterOptions* options,
    const TfLiteOperator* (*find_builtin_op)(void* user_data, int op,
                                             int version),
    const TfLiteOperator* (*find_custom_op)(void* user_data,
                                            const char* custom_op, int version),
    void* op_resolver_user_data) {
  lg_resolver_callbacks cb = {.find_builtin_op_external = find_builtin_op,
                              .find_custom_op_external = find_custom_op,
                              .user_data = op_resolver_user_data};
  set_resolver_callbacks(options, &cb,
                         "TfLiteInterpreterOptionsSetOpResolverExternal");
}

void TfLiteInterpreterOptionsSetOpResolverExternalWithFallback(
    TfLiteInterpreterOptions* options,
    const TfLiteOperator* (*find_builtin_op_external)(void* user_data, int op,
                                                      int version),
    const TfLiteOperator* (*find_custom_op_external)(void* user_data,
                                                     const char* custom_op,
                                                     int version),
    const TfLiteRegistration* (*find_builtin_op)(void* user_data,
                                                 TfLiteBuiltinOperator op,
                                                 int version),
    const TfLiteRegistration* (*find_custom_op)(void* user_data,
                                                const char* custom_op,
                                                int version),
    void* op_resolver_user_data) {
  lg_resolver_callbacks cb = {
      .find_builtin_op_external = find_builtin_op_external,
      .find_custom_op_external = find_custom_op_external,
      .find_builtin_op = find_builtin_op,
      .find_custom_op = find_custom_op,
      .user_data = op_resolver_user_data};
  set_resolver_callbacks(
      options, &cb,
      "TfLiteInterpreterOptionsSetOpResolverExternalWithFallback");
}

/* ---- Interpreter -----------------------------------------------------------
 */

static int32_t resolve_num_threads(int32_t requested) {
  if (requested > 0) return requested;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 ? (int32_t)cpus : 1;
}

static void remove_all_delegates(TfLiteInterpreter* ip) {
  for (int i = 0; i < ip->num_subgraphs; ++i) {
    lg_subgraph_remove_delegates(&ip->subgraphs[i]);
  }
}

/* Applies `delegate` to every subgraph, as TFLite does. Subgraph 0 comes
 * last, so that what a delegate keeps of its last Prepare (the GPU and
 * reference delegates' per-node decisions and partitions) describes the
 * main graph. A failure after the first subgraph removes every delegate
 * from every subgraph, so the interpreter is left whole. */
static TfLiteStatus apply_delegate_everywhere(TfLiteInterpreter* ip,
                                              TfLiteDelegate* delegate) {
  for (int k = 0; k < ip->num_subgraphs; ++k) {
    const int i = (k + 1) % ip->num_subgraphs; /* 1, 2, ..., then 0 */
    const TfLiteStatus status =
        lg_subgraph_apply_delegate(&ip->subgraphs[i], delegate);
    if (status == kTfLiteOk) continue;
    if (k > 0) {
      lg_report(&ip->reporter,
                "The delegate could not be applied to subgraph %d; every "
                "delegate is removed.",
                i);
      remove_all_delegates(ip);
    }
    return status;
  }
  return kTfLiteOk;
}

static bool any_delegates(const TfLiteInterpreter* ip) {
  for (int i = 0; i < ip->num_subgraphs; ++i) {
    if (lg_subgraph_has_delegates(&ip->subgraphs[i])) return true;
  }
  return false;
}

/* Applies the options' delegates in order. A failure fails creation, as in
 * TFLite, unless fallback is on: then the failed delegate (already undone)
 * is skipped with a warning. */
static TfLiteStatus apply_delegates(TfLiteInterpreter* ip) {
  for (int i = 0; i < ip->delegates.count; ++i) {
    TfLiteStatus status = apply_delegate_everywhere(ip, ip->delegates.items[i]);
    if (status == kTfLiteOk) continue;
    if (!ip->enable_delegate_fallback) return status;
    lg_report(&ip->reporter,
              "Delegate %d could not be applied; with delegate fallback "
              "enabled, the graph runs without it.",
              i);
  }
  /* A custom op that no registration resolved and no delegate claimed:
   * preparing it reports it in TFLite's words, and creation fails (as
   * TFLite's static-shape delegates fail on it). */
  if (ip->delegates.count > 0 &&
      lg_subgraph_has_unresolved(&ip->subgraphs[0])) {
    return lg_subgraph_allocate_tensors(&ip->subgraphs[0]);
  }
  return kTfLiteOk;
}

/* Every subgraph of the model; each builds (and reports) on its own, so a
 * model with unresolved ops in two subgraphs names them all. */
static TfLiteStatus build_subgraphs(TfLiteInterpreter* ip) {
  const int count = ip->model->model->num_subgraphs;
  ip->subgraphs = calloc((size_t)(count > 0 ? count : 1), sizeof(lg_subgraph));
  if (ip->subgraphs == NULL) return kTfLiteError;
  ip->num_subgraphs = count;
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < count; ++i) {
    TfLiteStatus s = lg_subgraph_build(&ip->subgraphs[i], ip, i);
    if (s != kTfLiteOk && status == kTfLiteOk) status = s;
    if (s == kTfLiteError) break; /* out of memory or a malformed node */
  }
  return status;
}

static TfLiteInterpreter* create_interpreter(
    const TfLiteModel* model, const TfLiteInterpreterOptions* options,
    bool use_builtin_kernels) {
  lg_reporter reporter = options ? options->reporter : (lg_reporter){0};
  if (model == NULL) {
    lg_report(&reporter, "TfLiteInterpreterCreate: model is NULL");
    return NULL;
  }
  TfLiteInterpreter* ip = calloc(1, sizeof(*ip));
  if (ip == NULL) return NULL;
  if (pthread_mutex_init(&ip->async_execution, NULL) != 0) {
    free(ip);
    return NULL;
  }
  ip->reporter = reporter;
  lg_op_resolver_init(&ip->resolver);
  TfLiteModel* shared = (TfLiteModel*)model;
  atomic_fetch_add(&shared->refcount, 1);
  ip->model = shared;
  if (options != NULL &&
      lg_op_resolver_copy(&ip->resolver, &options->resolver) != kTfLiteOk) {
    goto fail;
  }
  ip->resolver.use_builtin_kernels = use_builtin_kernels;
  ip->num_threads = resolve_num_threads(options ? options->num_threads : -1);
  ip->thread_pool = lg_thread_pool_create(ip->num_threads);
  if (ip->thread_pool == NULL || build_subgraphs(ip) != kTfLiteOk) goto fail;
  if (options != NULL) {
    ip->cancellation_enabled = options->enable_cancellation;
    ip->enable_delegate_fallback = options->enable_delegate_fallback;
    if (delegate_list_copy(&ip->delegates, &options->delegates) != kTfLiteOk ||
        apply_delegates(ip) != kTfLiteOk) {
      goto fail;
    }
  }
  return ip;
fail:
  TfLiteInterpreterDelete(ip);
  return NULL;
}

TfLiteInterpreter* TfLiteInterpreterCreate(
    const TfLiteModel* model,
    const TfLiteInterpreterOptions* optional_options) {
  return create_interpreter(model, optional_options, true);
}

TfLiteInterpreter* TfLiteInterpreterCreateWithSelectedOps(
    const TfLiteModel* model, const TfLiteInterpreterOptions* options) {
  return create_interpreter(model, options, false);
}

TfLiteStatus TfLiteInterpreterModifyGraphWithDelegate(
    const TfLiteInterpreter* interpreter, TfLiteDelegate* delegate) {
  if (interpreter == NULL) return kTfLiteError;
  TfLiteInterpreter* ip = (TfLiteInterpreter*)interpreter;
  return apply_delegate_everywhere(ip, delegate);
}

void TfLiteInterpreterDelete(TfLiteInterpreter* interpreter) {
  if (interpreter == NULL) return;
  for (int i = 0; i < interpreter->num_subgraphs; ++i) {
    lg_subgraph_release(&interpreter->subgraphs[i]);
  }
  free(interpreter->subgraphs);
  /* After the subgraphs: a delegate kernel's Free is its operator's. */
  lg_interpreter_free_operators(interpreter);
  lg_resources_release(&interpreter->resources);
  lg_thread_pool_destroy(interpreter->thread_pool);
  lg_op_resolver_release(&interpreter->resolver);
  free(interpreter->delegates.items);
  model_release(interpreter->model);
  pthread_mutex_destroy(&interpreter->async_execution);
  free(interpreter);
}

static lg_subgraph* primary(const TfLiteInterpreter* interpreter) {
  return &interpreter->subgraphs[0];
}

#define CHECK_INTERPRETER(ip, fn, ret)          \
  do {                                          \
    if ((ip) == NULL) {                         \
      api_error("%s: interpreter is NULL", fn); \
      return ret;                               \
    }                                           \
  } while (0)

int32_t TfLiteInterpreterGetInputTensorCount(
    const TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetInputTensorCount", 0);
  return primary(interpreter)->num_inputs;
}

const int* TfLiteInterpreterInputTensorIndices(
    const TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterInputTensorIndices", NULL);
  return primary(interpreter)->inputs;
}

int32_t TfLiteInterpreterGetOutputTensorCount(
    const TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetOutputTensorCount", 0);
  return primary(interpreter)->num_outputs;
}

const int* TfLiteInterpreterOutputTensorIndices(
    const TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterOutputTensorIndices", NULL);
  return primary(interpreter)->outputs;
}

static int32_t io_index(const TfLiteInterpreter* ip, const int* list, int count,
                        int32_t index, const char* fn) {
  if (index < 0 || index >= count) {
    lg_report(&ip->reporter, "%s: index %d out of range [0, %d)", fn,
              (int)index, count);
    return -1;
  }
  return list[index];
}

int32_t TfLiteInterpreterGetInputTensorIndex(
    const TfLiteInterpreter* interpreter, int32_t input_index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetInputTensorIndex", -1);
  const lg_subgraph* s = primary(interpreter);
  return io_index(interpreter, s->inputs, s->num_inputs, input_index,
                  "TfLiteInterpreterGetInputTensorIndex");
}

int32_t TfLiteInterpreterGetOutputTensorIndex(
    const TfLiteInterpreter* interpreter, int32_t output_index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetOutputTensorIndex", -1);
  const lg_subgraph* s = primary(interpreter);
  return io_index(interpreter, s->outputs, s->num_outputs, output_index,
                  "TfLiteInterpreterGetOutputTensorIndex");
}

int32_t TfLiteInterpreterGetVariableTensorCount(
    const TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetVariableTensorCount", 0);
  return primary(interpreter)->num_variables;
}

TfLiteTensor* TfLiteInterpreterGetVariableTensor(
    const TfLiteInterpreter* interpreter, int32_t variable_index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetVariableTensor", NULL);
  const lg_subgraph* s = primary(interpreter);
  const int32_t index =
      io_index(interpreter, s->variables, s->num_variables, variable_index,
               "TfLiteInterpreterGetVariableTensor");
  return index < 0 ? NULL : &s->context.tensors[index];
}

TfLiteStatus TfLiteInterpreterEnsureTensorDataIsReadable(
    TfLiteInterpreter* interpreter, int tensor_index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterEnsureTensorDataIsReadable",
                    kTfLiteError);
  lg_subgraph* s = primary(interpreter);
  if (tensor_index < 0 || (size_t)tensor_index >= s->context.tensors_size) {
    lg_report(&interpreter->reporter,
              "TfLiteInterpreterEnsureTensorDataIsReadable: index %d out of "
              "range [0, %zu)",
              tensor_index, s->context.tensors_size);
    return kTfLiteError;
  }
  return lg_subgraph_ensure_readable(s, tensor_index, NULL);
}

void TfLiteSetAllowBufferHandleOutput(const TfLiteInterpreter* interpreter,
                                      bool allow_buffer_handle_output) {
  if (interpreter == NULL) {
    api_error("TfLiteSetAllowBufferHandleOutput: interpreter is NULL");
    return;
  }
  /* TFLite's signature takes a const interpreter; the flag is its state. */
  ((TfLiteInterpreter*)interpreter)->allow_buffer_handle_output =
      allow_buffer_handle_output;
}

/* The index of `tensor` in the main graph, or -1 (reported) when it is not
 * one of its tensors. */
static int main_tensor_index(TfLiteInterpreter* ip, const TfLiteTensor* tensor,
                             const char* fn) {
  const lg_subgraph* s = primary(ip);
  const uintptr_t first = (uintptr_t)s->context.tensors;
  const uintptr_t at = (uintptr_t)tensor;
  if (tensor == NULL || at < first ||
      at >= first + s->context.tensors_size * sizeof(TfLiteTensor) ||
      (at - first) % sizeof(TfLiteTensor) != 0) {
    lg_report(&ip->reporter, "%s: the tensor is not one of the main graph's",
              fn);
    return -1;
  }
  return (int)((at - first) / sizeof(TfLiteTensor));
}

TfLiteStatus TfLiteInterpreterSetBufferHandle(TfLiteInterpreter* interpreter,
                                              TfLiteTensor* tensor,
                                              TfLiteBufferHandle buffer_handle,
                                              TfLiteOpaqueDelegate* delegate) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterSetBufferHandle",
                    kTfLiteError);
  const int index = main_tensor_index(interpreter, tensor,
                                      "TfLiteInterpreterSetBufferHandle");
  if (index < 0) return kTfLiteError;
  return lg_subgraph_set_buffer_handle(primary(interpreter), index,
                                       buffer_handle, delegate);
}

TfLiteStatus TfLiteInterpreterGetBufferHandle(TfLiteInterpreter* interpreter,
                                              int tensor_index,
                                              TfLiteBufferHandle* buffer_handle,
                                              TfLiteOpaqueDelegate** delegate) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetBufferHandle",
                    kTfLiteError);
  const lg_subgraph* s = primary(interpreter);
  if (tensor_index < 0 || (size_t)tensor_index >= s->context.tensors_size ||
      buffer_handle == NULL || delegate == NULL) {
    lg_report(&interpreter->reporter, "TfLiteInterpreterGetBufferHandle: %s",
              buffer_handle == NULL || delegate == NULL
                  ? "NULL output pointer"
                  : "tensor index out of range");
    return kTfLiteError;
  }
  const TfLiteTensor* t = &s->context.tensors[tensor_index];
  *buffer_handle = t->buffer_handle;
  *delegate = t->delegate;
  return kTfLiteOk;
}

static TfLiteTensor* io_tensor(const TfLiteInterpreter* ip, const int* list,
                               int count, int32_t index, const char* fn) {
  const int32_t tensor = io_index(ip, list, count, index, fn);
  return tensor < 0 ? NULL : &primary(ip)->context.tensors[tensor];
}

TfLiteTensor* TfLiteInterpreterGetInputTensor(
    const TfLiteInterpreter* interpreter, int32_t input_index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetInputTensor", NULL);
  const lg_subgraph* s = primary(interpreter);
  return io_tensor(interpreter, s->inputs, s->num_inputs, input_index,
                   "TfLiteInterpreterGetInputTensor");
}

const TfLiteTensor* TfLiteInterpreterGetOutputTensor(
    const TfLiteInterpreter* interpreter, int32_t output_index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetOutputTensor", NULL);
  const lg_subgraph* s = primary(interpreter);
  return io_tensor(interpreter, s->outputs, s->num_outputs, output_index,
                   "TfLiteInterpreterGetOutputTensor");
}

TfLiteTensor* TfLiteInterpreterGetTensor(const TfLiteInterpreter* interpreter,
                                         int index) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterGetTensor", NULL);
  const lg_subgraph* s = primary(interpreter);
  if (index < 0 || (size_t)index >= s->context.tensors_size) {
    lg_report(&interpreter->reporter,
              "TfLiteInterpreterGetTensor: index %d out of range [0, %zu)",
              index, s->context.tensors_size);
    return NULL;
  }
  return &s->context.tensors[index];
}

TfLiteStatus TfLiteInterpreterResizeInputTensor(TfLiteInterpreter* interpreter,
                                                int32_t input_index,
                                                const int* input_dims,
                                                int32_t input_dims_size) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterResizeInputTensor",
                    kTfLiteError);
  if (!lg_interpreter_async_idle(interpreter,
                                 "TfLiteInterpreterResizeInputTensor")) {
    return kTfLiteError;
  }
  return lg_subgraph_resize_input(primary(interpreter), input_index, input_dims,
                                  input_dims_size);
}

TfLiteStatus TfLiteInterpreterResizeInputTensorStrict(
    TfLiteInterpreter* interpreter, int32_t input_index, const int* input_dims,
    int32_t input_dims_size) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterResizeInputTensorStrict",
                    kTfLiteError);
  if (!lg_interpreter_async_idle(interpreter,
                                 "TfLiteInterpreterResizeInputTensorStrict")) {
    return kTfLiteError;
  }
  return lg_subgraph_resize_input_strict(primary(interpreter), input_index,
                                         input_dims, input_dims_size);
}

TfLiteStatus TfLiteInterpreterCancel(const TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterCancel", kTfLiteError);
  if (!interpreter->cancellation_enabled) {
    lg_report(&interpreter->reporter,
              "TfLiteInterpreterCancel: cancellation is not enabled (see "
              "TfLiteInterpreterOptionsEnableCancellation)");
    return kTfLiteError;
  }
  TfLiteInterpreter* ip = (TfLiteInterpreter*)interpreter;
  atomic_store(&ip->cancel_requested, true);
  return kTfLiteOk;
}

/* The value a reset variable holds: 0, or the zero point of a quantized
 * tensor (in its storage type). */
TfLiteStatus TfLiteInterpreterResetVariableTensors(
    TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterResetVariableTensors",
                    kTfLiteError);
  for (int g = 0; g < interpreter->num_subgraphs; ++g) {
    lg_subgraph* s = &interpreter->subgraphs[g];
    for (size_t i = 0; i < s->context.tensors_size; ++i) {
      TfLiteTensor* t = &s->context.tensors[i];
      if (!t->is_variable) continue;
      /* A subgraph no node has run yet starts from its initial values. */
      if (t->data.raw == NULL && g > 0) continue;
      if (t->data.raw == NULL) {
        lg_report(&interpreter->reporter,
                  "TfLiteInterpreterResetVariableTensors: variable tensor %zu "
                  "(%s) of subgraph %d has no memory yet; call "
                  "TfLiteInterpreterAllocateTensors first",
                  i, t->name ? t->name : "", g);
        return kTfLiteError;
      }
      lg_variable_tensor_reset(t);
    }
  }
  return kTfLiteOk;
}

TfLiteStatus TfLiteInterpreterAllocateTensors(TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterAllocateTensors",
                    kTfLiteError);
  if (!lg_interpreter_async_idle(interpreter,
                                 "TfLiteInterpreterAllocateTensors")) {
    return kTfLiteError;
  }
  return lg_subgraph_allocate_tensors(primary(interpreter));
}

/* TFLite's delegate fallback at Invoke: keep the inputs, drop every
 * delegate, put the inputs back and run on the CPU. */
static TfLiteStatus invoke_without_delegates(TfLiteInterpreter* ip) {
  lg_subgraph* s = primary(ip);
  lg_report(&ip->reporter,
            "Invoke() failed in the presence of delegation. Retrying "
            "without.");
  void** saved = calloc((size_t)(s->num_inputs + 1), sizeof(void*));
  TfLiteStatus status = saved != NULL ? kTfLiteOk : kTfLiteError;
  for (int i = 0; i < s->num_inputs && status == kTfLiteOk; ++i) {
    /* An input bound to a delegate's buffer has its data there. */
    status = lg_subgraph_ensure_readable(s, s->inputs[i], NULL);
    const TfLiteTensor* t = &s->context.tensors[s->inputs[i]];
    if (status != kTfLiteOk) break;
    saved[i] = malloc(t->bytes ? t->bytes : 1);
    if (saved[i] == NULL) status = kTfLiteError;
    if (status == kTfLiteOk && t->data.raw != NULL) {
      memcpy(saved[i], t->data.raw, t->bytes);
    }
  }
  if (status == kTfLiteOk) {
    remove_all_delegates(ip);
    status = lg_subgraph_allocate_tensors(s);
  }
  for (int i = 0; i < s->num_inputs && status == kTfLiteOk; ++i) {
    TfLiteTensor* t = &s->context.tensors[s->inputs[i]];
    if (t->data.raw != NULL) memcpy(t->data.raw, saved[i], t->bytes);
  }
  for (int i = 0; saved != NULL && i < s->num_inputs; ++i) free(saved[i]);
  free(saved);
  if (status == kTfLiteOk) status = lg_subgraph_invoke(s);
  /* Valid outputs, but the delegates are gone: say so. */
  return status == kTfLiteOk ? kTfLiteDelegateError : status;
}

TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter* interpreter) {
  CHECK_INTERPRETER(interpreter, "TfLiteInterpreterInvoke", kTfLiteError);
  if (!lg_interpreter_async_idle(interpreter, "TfLiteInterpreterInvoke")) {
    return kTfLiteError;
  }
  lg_subgraph* s = primary(interpreter);
  /* A Cancel before this Invoke began does not cancel it (TFLite). */
  atomic_store(&interpreter->cancel_requested, false);
  TfLiteStatus status = lg_subgraph_invoke(s);
  if (status != kTfLiteOk && interpreter->enable_delegate_fallback &&
      any_delegates(interpreter) && s->state == LG_STATE_INVOKABLE) {
    return invoke_without_delegates(interpreter);
  }
  return status;
}

/* ---- Tensors ----------------------------------------------------------------
 */

#define CHECK_TENSOR(t, fn, ret)           \
  do {                                     \
    if ((t) == NULL) {                     \
      api_error("%s: tensor is NULL", fn); \
      return ret;                          \
    }                                      \
  } while (0)

TfLiteType TfLiteTensorType(const TfLiteTensor* tensor) {
  CHECK_TENSOR(tensor, "TfLiteTensorType", kTfLiteNoType);
  return tensor->type;
}

int32_t TfLiteTensorNumDims(const TfLiteTensor* tensor) {
  CHECK_TENSOR(tensor, "TfLiteTensorNumDims", -1);
  return tensor->dims == NULL ? -1 : tensor->dims->size;
}

int32_t TfLiteTensorDim(const TfLiteTensor* tensor, int32_t dim_index) {
  CHECK_TENSOR(tensor, "TfLiteTensorDim", -1);
  if (tensor->dims == NULL || dim_index < 0 ||
      dim_index >= tensor->dims->size) {
    api_error("TfLiteTensorDim: dimension %d out of range for tensor %s",
              (int)dim_index, tensor->name ? tensor->name : "");
    return -1;
  }
  return tensor->dims->data[dim_index];
}

size_t TfLiteTensorByteSize(const TfLiteTensor* tensor) {
  CHECK_TENSOR(tensor, "TfLiteTensorByteSize", 0);
  return tensor->bytes;
}

void* TfLiteTensorData(const TfLiteTensor* tensor) {
  CHECK_TENSOR(tensor, "TfLiteTensorData", NULL);
  return tensor->data.data;
}

const char* TfLiteTensorName(const TfLiteTensor* tensor) {
  CHECK_TENSOR(tensor, "TfLiteTensorName", NULL);
  return tensor->name;
}

TfLiteQuantizationParams TfLiteTensorQuantizationParams(
    const TfLiteTensor* tensor) {
  TfLiteQuantizationParams none = {0.0f, 0};
  CHECK_TENSOR(tensor, "TfLiteTensorQuantizationParams", none);
  return tensor->params;
}

TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor* tensor,
                                        const void* input_data,
                                        size_t input_data_size) {
  CHECK_TENSOR(tensor, "TfLiteTensorCopyFromBuffer", kTfLiteError);
  if (input_data == NULL && input_data_size > 0) {
    api_error("TfLiteTensorCopyFromBuffer: input_data is NULL");
    return kTfLiteError;
  }
  if (input_data_size != tensor->bytes) {
    api_error("TfLiteTensorCopyFromBuffer: tensor %s holds %zu bytes, got %zu",
              tensor->name ? tensor->name : "", tensor->bytes, input_data_size);
    return kTfLiteError;
  }
  if (tensor->data.raw == NULL && tensor->bytes > 0) {
    api_error(
        "TfLiteTensorCopyFromBuffer: tensor %s is not allocated; call "
        "TfLiteInterpreterAllocateTensors first",
        tensor->name ? tensor->name : "");
    return kTfLiteError;
  }
  if (tensor->allocation_type == kTfLiteMmapRo ||
      tensor->allocation_type == kTfLitePersistentRo) {
    api_error("TfLiteTensorCopyFromBuffer: tensor %s is constant",
              tensor->name ? tensor->name : "");
    return kTfLiteError;
  }
  if (input_data_size > 0)
    memcpy(tensor->data.raw, input_data, input_data_size);
  return kTfLiteOk;
}

TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor* tensor,
                                      void* output_data,
                                      size_t output_data_size) {
  CHECK_TENSOR(tensor, "TfLiteTensorCopyToBuffer", kTfLiteError);
  if (output_data == NULL && output_data_size > 0) {
    api_error("TfLiteTensorCopyToBuffer: output_data is NULL");
    return kTfLiteError;
  }
  if (output_data_size != tensor->bytes) {
    api_error("TfLiteTensorCopyToBuffer: tensor %s holds %zu bytes, got %zu",
              tensor->name ? tensor->name : "", tensor->bytes,
              output_data_size);
    return kTfLiteError;
  }
  if (tensor->data.raw == NULL && tensor->bytes > 0) {
    api_error("TfLiteTensorCopyToBuffer: tensor %s has no data yet",
              tensor->name ? tensor->name : "");
    return kTfLiteError;
  }
  if (output_data_size > 0) {
    memcpy(output_data, tensor->data.raw_const, output_data_size);
  }
  return kTfLiteOk;
}

/* ---- litegpu extensions
 * ------------------------------------------------------ */

TfLiteStatus litegpu_interpreter_memory_info(
    const TfLiteInterpreter* interpreter, litegpu_memory_info* info) {
  CHECK_INTERPRETER(interpreter, "litegpu_interpreter_memory_info",
                    kTfLiteError);
  if (info == NULL) return kTfLiteError;
  const lg_subgraph* s = primary(interpreter);
  if (s->state != LG_STATE_INVOKABLE) {
    lg_report(&interpreter->reporter,
              "litegpu_interpreter_memory_info: call "
              "TfLiteInterpreterAllocateTensors first");
    return kTfLiteError;
  }
  memset(info, 0, sizeof(*info));
  info->arena_bytes = s->arena.planned;
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    const TfLiteTensor* t = &s->context.tensors[i];
    info->heap_bytes += s->tensor_info[i].heap_size;
    if (t->allocation_type == kTfLiteMmapRo) {
      info->constant_bytes += t->bytes;
    } else if (t->allocation_type == kTfLiteArenaRw &&
               s->tensor_info[i].heap == NULL && t->data.raw != NULL) {
      info->non_constant_tensor_bytes += t->bytes;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus litegpu_interpreter_enable_op_profiling(
    TfLiteInterpreter* interpreter, bool enable) {
  CHECK_INTERPRETER(interpreter, "litegpu_interpreter_enable_op_profiling",
                    kTfLiteError);
  lg_subgraph* s = primary(interpreter);
  s->profiling = enable;
  for (int i = 0; i < s->num_nodes; ++i) {
    s->nodes[i].profile_ns = 0;
    s->nodes[i].profile_count = 0;
  }
  return kTfLiteOk;
}

int litegpu_interpreter_op_profile(const TfLiteInterpreter* interpreter,
                                   litegpu_op_profile* profiles, int capacity) {
  CHECK_INTERPRETER(interpreter, "litegpu_interpreter_op_profile", -1);
  const lg_subgraph* s = primary(interpreter);
  const int n = s->execution_plan->size;
  for (int p = 0; p < n && p < capacity && profiles != NULL; ++p) {
    const lg_node* node = &s->nodes[s->execution_plan->data[p]];
    profiles[p] = (litegpu_op_profile){node->op_index, lg_node_op_name(node),
                                       node->registration.version,
                                       node->profile_ns, node->profile_count};
  }
  return n;
}
