/* The kernel test kit (include/litegpu/kernel_test.h): a one-node model
 * written with the model writer, run by a litegpu interpreter.
 *
 * Tensors are kept as the caller described them until the first invoke,
 * which writes the model: each input is a model input (its values copied
 * in after AllocateTensors) or a constant tensor; the outputs are the
 * model's outputs. Messages from the kit, the writer, the interpreter and
 * the kernel all go to one buffer.
 */
#include "litegpu/kernel_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/core/c/operator.h"

#define KIT_MAX_TENSORS 16
#define KIT_ERROR_SIZE 4096

/* A copy of one tensor's description and input values. */
typedef struct kit_tensor {
  litegpu_kernel_test_tensor desc; /* dims and data point into the copies */
  int32_t* dims;
  void* data;
  size_t bytes;
} kit_tensor;

struct litegpu_kernel_test {
  const TfLiteOperator* op; /* NULL: litegpu's builtin kernel */
  int32_t builtin_code;
  int version;
  const char* custom_name;
  const void* params; /* builtin params (borrowed) */
  void* custom_options;
  size_t custom_options_size;
  int threads;
  kit_tensor inputs[KIT_MAX_TENSORS];
  int num_inputs;
  kit_tensor outputs[KIT_MAX_TENSORS];
  int num_outputs;
  void* model_data;
  TfLiteModel* model;
  TfLiteInterpreterOptions* options;
  TfLiteInterpreter* interpreter;
  bool built, ready, invoked; /* ready: the first invoke's build worked */
  size_t error_length;
  char error[KIT_ERROR_SIZE];
};

static void kit_vreport(litegpu_kernel_test* t, const char* format,
                        va_list args) {
  if (t->error_length + 2 >= sizeof(t->error)) return;
  int n = vsnprintf(t->error + t->error_length,
                    sizeof(t->error) - t->error_length - 1, format, args);
  if (n < 0) return;
  t->error_length += (size_t)n;
  if (t->error_length > sizeof(t->error) - 2) {
    t->error_length = sizeof(t->error) - 2;
  }
  t->error[t->error_length++] = '\n';
  t->error[t->error_length] = '\0';
}

__attribute__((format(printf, 2, 3))) static void kit_report(
    litegpu_kernel_test* t, const char* format, ...) {
  va_list args;
  va_start(args, format);
  kit_vreport(t, format, args);
  va_end(args);
}

/* The interpreter's and the writer's reporter. */
static void kit_reporter(void* user_data, const char* format, va_list args) {
  kit_vreport(user_data, format, args);
}

static litegpu_kernel_test* kit_new(void) {
  litegpu_kernel_test* t = calloc(1, sizeof(*t));
  if (t != NULL) t->threads = 1;
  return t;
}

litegpu_kernel_test* litegpu_kernel_test_create_operator(
    const TfLiteOperator* op, const void* options, size_t options_size) {
  if (op == NULL) return NULL;
  litegpu_kernel_test* t = kit_new();
  if (t == NULL) return NULL;
  t->op = op;
  t->builtin_code = TfLiteOperatorGetBuiltInCode(op);
  t->version = TfLiteOperatorGetVersion(op);
  if (t->builtin_code != kTfLiteBuiltinCustom) {
    t->params = options;
    return t;
  }
  t->custom_name = TfLiteOperatorGetCustomName(op);
  if (options != NULL && options_size > 0) {
    t->custom_options = malloc(options_size);
    if (t->custom_options == NULL) {
      free(t);
      return NULL;
    }
    memcpy(t->custom_options, options, options_size);
    t->custom_options_size = options_size;
  }
  return t;
}

litegpu_kernel_test* litegpu_kernel_test_create_builtin(int32_t builtin_code,
                                                        int version,
                                                        const void* params) {
  litegpu_kernel_test* t = kit_new();
  if (t == NULL) return NULL;
  t->builtin_code = builtin_code;
  t->version = version;
  t->params = params;
  return t;
}

/* Checks and copies a tensor description; false after reporting why. */
static bool copy_tensor(litegpu_kernel_test* t, const char* kind,
                        const litegpu_kernel_test_tensor* in, bool input,
                        kit_tensor* out) {
  if (in->num_dims < 0 || (in->num_dims > 0 && in->dims == NULL)) {
    kit_report(t, "kernel test: %s: dims is NULL or num_dims negative", kind);
    return false;
  }
  if (input && in->data == NULL && in->bytes > 0) {
    kit_report(t, "kernel test: %s: data is NULL with %zu bytes", kind,
               in->bytes);
    return false;
  }
  if (input && in->type == kTfLiteString && !in->constant) {
    kit_report(t,
               "kernel test: %s: a STRING input must be constant (its "
               "buffer is written into the model)",
               kind);
    return false;
  }
  memset(out, 0, sizeof(*out));
  out->desc = *in;
  out->dims = malloc(sizeof(int32_t) * (size_t)(in->num_dims + 1));
  if (out->dims == NULL) return false;
  if (in->num_dims > 0) {
    memcpy(out->dims, in->dims, sizeof(int32_t) * (size_t)in->num_dims);
  }
  out->desc.dims = out->dims;
  if (input && in->bytes > 0) {
    out->data = malloc(in->bytes);
    if (out->data == NULL) {
      free(out->dims);
      return false;
    }
    memcpy(out->data, in->data, in->bytes);
  }
  out->bytes = input ? in->bytes : 0;
  out->desc.data = out->data;
  out->desc.bytes = out->bytes;
  return true;
}

static int add_tensor(litegpu_kernel_test* t,
                      const litegpu_kernel_test_tensor* tensor, bool input) {
  const char* kind = input ? "input" : "output";
  if (t == NULL) return -1;
  if (tensor == NULL) {
    kit_report(t, "kernel test: the %s is NULL", kind);
    return -1;
  }
  if (t->built) {
    kit_report(t, "kernel test: an %s cannot be added after the first invoke",
               kind);
    return -1;
  }
  kit_tensor* list = input ? t->inputs : t->outputs;
  int* count = input ? &t->num_inputs : &t->num_outputs;
  if (*count == KIT_MAX_TENSORS) {
    kit_report(t, "kernel test: more than %d %ss", KIT_MAX_TENSORS, kind);
    return -1;
  }
  if (!copy_tensor(t, kind, tensor, input, &list[*count])) return -1;
  return (*count)++;
}

int litegpu_kernel_test_add_input(litegpu_kernel_test* test,
                                  const litegpu_kernel_test_tensor* tensor) {
  return add_tensor(test, tensor, true);
}

int litegpu_kernel_test_add_output(litegpu_kernel_test* test,
                                   const litegpu_kernel_test_tensor* tensor) {
  return add_tensor(test, tensor, false);
}

TfLiteStatus litegpu_kernel_test_set_input(litegpu_kernel_test* test, int input,
                                           const void* data, size_t bytes) {
  if (test == NULL) return kTfLiteError;
  if (input < 0 || input >= test->num_inputs ||
      test->inputs[input].desc.constant) {
    kit_report(test, "kernel test: %d is not a non-constant input", input);
    return kTfLiteError;
  }
  kit_tensor* in = &test->inputs[input];
  if (bytes != in->bytes || (data == NULL && bytes > 0)) {
    kit_report(test,
               "kernel test: input %d takes %zu bytes of values, not %zu%s",
               input, in->bytes, bytes, data == NULL ? " (data is NULL)" : "");
    return kTfLiteError;
  }
  if (bytes > 0) memcpy(in->data, data, bytes);
  return kTfLiteOk;
}

TfLiteStatus litegpu_kernel_test_set_num_threads(litegpu_kernel_test* test,
                                                 int threads) {
  if (test == NULL) return kTfLiteError;
  if (test->built || threads == 0 || threads < -1) {
    kit_report(test,
               "kernel test: set the threads (>= 1, or -1 for the default) "
               "before the first invoke");
    return kTfLiteError;
  }
  test->threads = threads;
  return kTfLiteOk;
}

/* ---- The model ----------------------------------------------------------- */

static int32_t write_tensor(lg_model_writer* w, const kit_tensor* k,
                            const char* name) {
  const litegpu_kernel_test_tensor* d = &k->desc;
  const float scale = d->scale;
  const int64_t zero_point = d->zero_point;
  const lg_writer_quantization q = {.scale = &scale,
                                    .num_scale = 1,
                                    .zero_point = &zero_point,
                                    .num_zero_point = 1};
  int32_t buffer = 0;
  if (d->constant) {
    buffer = lg_model_writer_add_buffer(w, k->data, k->bytes);
    if (buffer < 0) return -1;
  }
  const lg_writer_tensor tensor = {
      .name = name,
      .type = d->type,
      .shape = k->dims,
      .num_dims = d->num_dims,
      .buffer = buffer,
      .quantization = d->scale > 0.0f ? &q : NULL,
  };
  return lg_model_writer_add_tensor(w, &tensor);
}

/* The tensors, the node and the graph's inputs and outputs. */
static bool write_graph(litegpu_kernel_test* t, lg_model_writer* w) {
  int32_t ins[KIT_MAX_TENSORS], outs[KIT_MAX_TENSORS];
  int32_t graph_inputs[KIT_MAX_TENSORS];
  int num_graph_inputs = 0;
  char name[32];
  for (int i = 0; i < t->num_inputs; ++i) {
    snprintf(name, sizeof(name), "input%d", i);
    ins[i] = write_tensor(w, &t->inputs[i], name);
    if (ins[i] < 0) return false;
    if (!t->inputs[i].desc.constant) graph_inputs[num_graph_inputs++] = ins[i];
  }
  for (int i = 0; i < t->num_outputs; ++i) {
    snprintf(name, sizeof(name), "output%d", i);
    outs[i] = write_tensor(w, &t->outputs[i], name);
    if (outs[i] < 0) return false;
  }
  int32_t node = t->builtin_code == kTfLiteBuiltinCustom
                     ? lg_model_writer_add_custom_operator(
                           w, t->custom_name ? t->custom_name : "", t->version,
                           ins, t->num_inputs, outs, t->num_outputs,
                           t->custom_options, t->custom_options_size)
                     : lg_model_writer_add_operator(
                           w, t->builtin_code, t->version, ins, t->num_inputs,
                           outs, t->num_outputs, t->params);
  return node >= 0 &&
         lg_model_writer_set_inputs(w, graph_inputs, num_graph_inputs) ==
             kTfLiteOk &&
         lg_model_writer_set_outputs(w, outs, t->num_outputs) == kTfLiteOk;
}

static bool write_model(litegpu_kernel_test* t, size_t* size) {
  const lg_reporter reporter = {kit_reporter, t};
  lg_model_writer* w = lg_model_writer_create(&reporter);
  if (w == NULL) return false;
  bool ok = write_graph(t, w) &&
            lg_model_writer_finish(w, &t->model_data, size) == kTfLiteOk;
  lg_model_writer_destroy(w);
  return ok;
}

/* Model, options (with the operator), interpreter, AllocateTensors. */
static bool build(litegpu_kernel_test* t) {
  t->built = true;
  if (t->num_outputs == 0) {
    kit_report(t, "kernel test: the operator has no output");
    return false;
  }
  size_t size = 0;
  if (!write_model(t, &size)) return false;
  t->model =
      TfLiteModelCreateWithErrorReporter(t->model_data, size, kit_reporter, t);
  t->options = TfLiteInterpreterOptionsCreate();
  if (t->model == NULL || t->options == NULL) return false;
  TfLiteInterpreterOptionsSetNumThreads(t->options, t->threads);
  TfLiteInterpreterOptionsSetErrorReporter(t->options, kit_reporter, t);
  if (t->op != NULL) {
    /* The options keep what they need of the operator; its callbacks and
     * user data stay the caller's. */
    TfLiteInterpreterOptionsAddOperator(t->options, (TfLiteOperator*)t->op);
  }
  t->interpreter = TfLiteInterpreterCreate(t->model, t->options);
  if (t->interpreter == NULL) return false;
  return TfLiteInterpreterAllocateTensors(t->interpreter) == kTfLiteOk;
}

/* The non-constant inputs' values, in the order added. */
static bool copy_inputs(litegpu_kernel_test* t) {
  int graph_input = 0;
  for (int i = 0; i < t->num_inputs; ++i) {
    const kit_tensor* in = &t->inputs[i];
    if (in->desc.constant) continue;
    TfLiteTensor* tensor =
        TfLiteInterpreterGetInputTensor(t->interpreter, graph_input++);
    if (TfLiteTensorByteSize(tensor) != in->bytes) {
      kit_report(t,
                 "kernel test: input %d holds %zu bytes, %zu were given (the "
                 "element count times the type's size)",
                 i, TfLiteTensorByteSize(tensor), in->bytes);
      return false;
    }
    if (in->bytes > 0 &&
        TfLiteTensorCopyFromBuffer(tensor, in->data, in->bytes) != kTfLiteOk) {
      return false;
    }
  }
  return true;
}

TfLiteStatus litegpu_kernel_test_invoke(litegpu_kernel_test* test) {
  if (test == NULL) return kTfLiteError;
  test->error_length = 0;
  test->error[0] = '\0';
  test->invoked = false;
  if (!test->built) {
    test->ready = build(test);
    if (!test->ready) goto failed;
  } else if (!test->ready) {
    kit_report(test,
               "kernel test: the first invoke failed to build the model or "
               "the interpreter; make a new kit");
    goto failed;
  }
  if (!copy_inputs(test)) goto failed;
  if (TfLiteInterpreterInvoke(test->interpreter) != kTfLiteOk) goto failed;
  test->invoked = true;
  return kTfLiteOk;
failed:
  if (test->error_length == 0) kit_report(test, "kernel test: out of memory");
  return kTfLiteError;
}

const TfLiteTensor* litegpu_kernel_test_output(const litegpu_kernel_test* test,
                                               int output) {
  if (test == NULL || !test->invoked || output < 0 ||
      output >= test->num_outputs) {
    return NULL;
  }
  return TfLiteInterpreterGetOutputTensor(test->interpreter, output);
}

const char* litegpu_kernel_test_error(const litegpu_kernel_test* test) {
  return test == NULL ? "kernel test: NULL kit" : test->error;
}

void litegpu_kernel_test_delete(litegpu_kernel_test* test) {
  if (test == NULL) return;
  TfLiteInterpreterDelete(test->interpreter);
  TfLiteInterpreterOptionsDelete(test->options);
  TfLiteModelDelete(test->model);
  free(test->model_data);
  for (int i = 0; i < test->num_inputs; ++i) {
    free(test->inputs[i].dims);
    free(test->inputs[i].data);
  }
  for (int i = 0; i < test->num_outputs; ++i) free(test->outputs[i].dims);
  free(test->custom_options);
  free(test);
}
