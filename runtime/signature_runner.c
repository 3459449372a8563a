/* SignatureDefs through TFLite's C API (c_api.h): the signature runner, and
 * the interpreter's signature list. A runner is a view of its signature's
 * subgraph; the names map into that subgraph's tensors. */
#include <stdlib.h>
#include <string.h>

#include "runtime/interpreter.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"

struct TfLiteSignatureRunner {
  TfLiteInterpreter* interpreter;
  const lg_model_signature* signature;
  lg_subgraph* subgraph;
};

static const lg_model* model_of(const TfLiteInterpreter* ip) {
  return ip->model->model;
}

int32_t TfLiteInterpreterGetSignatureCount(
    const TfLiteInterpreter* interpreter) {
  if (interpreter == NULL) return 0;
  return model_of(interpreter)->num_signatures;
}

const char* TfLiteInterpreterGetSignatureKey(
    const TfLiteInterpreter* interpreter, int32_t signature_index) {
  if (interpreter == NULL) return NULL;
  const lg_model* m = model_of(interpreter);
  if (signature_index < 0 || signature_index >= m->num_signatures) {
    lg_report(&interpreter->reporter,
              "TfLiteInterpreterGetSignatureKey: index %d out of range [0, %d)",
              (int)signature_index, (int)m->num_signatures);
    return NULL;
  }
  return m->signatures[signature_index].key;
}

TfLiteSignatureRunner* TfLiteInterpreterGetSignatureRunner(
    const TfLiteInterpreter* interpreter, const char* signature_key) {
  if (interpreter == NULL || signature_key == NULL) return NULL;
  const lg_model* m = model_of(interpreter);
  for (int32_t i = 0; i < m->num_signatures; ++i) {
    const lg_model_signature* sig = &m->signatures[i];
    if (strcmp(sig->key, signature_key) != 0) continue;
    TfLiteSignatureRunner* runner = calloc(1, sizeof(*runner));
    if (runner == NULL) return NULL;
    runner->interpreter = (TfLiteInterpreter*)interpreter;
    runner->signature = sig;
    runner->subgraph = &interpreter->subgraphs[sig->subgraph_index];
    return runner;
  }
  lg_report(&interpreter->reporter,
            "TfLiteInterpreterGetSignatureRunner: the model has no signature "
            "'%s'",
            signature_key);
  return NULL;
}

void TfLiteSignatureRunnerDelete(TfLiteSignatureRunner* signature_runner) {
  free(signature_runner);
}

size_t TfLiteSignatureRunnerGetInputCount(
    const TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == NULL) return 0;
  return (size_t)signature_runner->signature->num_inputs;
}

size_t TfLiteSignatureRunnerGetOutputCount(
    const TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == NULL) return 0;
  return (size_t)signature_runner->signature->num_outputs;
}

static const char* map_name(const TfLiteSignatureRunner* runner,
                            const lg_model_tensor_map* map, int32_t count,
                            int32_t index, const char* fn) {
  if (runner == NULL) return NULL;
  if (index < 0 || index >= count) {
    lg_report(&runner->interpreter->reporter,
              "%s: index %d out of range [0, %d)", fn, (int)index, (int)count);
    return NULL;
  }
  return map[index].name;
}

const char* TfLiteSignatureRunnerGetInputName(
    const TfLiteSignatureRunner* signature_runner, int32_t input_index) {
  const lg_model_signature* sig =
      signature_runner ? signature_runner->signature : NULL;
  return map_name(signature_runner, sig ? sig->inputs : NULL,
                  sig ? sig->num_inputs : 0, input_index,
                  "TfLiteSignatureRunnerGetInputName");
}

const char* TfLiteSignatureRunnerGetOutputName(
    const TfLiteSignatureRunner* signature_runner, int32_t output_index) {
  const lg_model_signature* sig =
      signature_runner ? signature_runner->signature : NULL;
  return map_name(signature_runner, sig ? sig->outputs : NULL,
                  sig ? sig->num_outputs : 0, output_index,
                  "TfLiteSignatureRunnerGetOutputName");
}

/* The tensor index that `name` maps to, or -1 (reported). */
static int find_tensor(const TfLiteSignatureRunner* runner,
                       const lg_model_tensor_map* map, int32_t count,
                       const char* name, const char* what) {
  for (int32_t i = 0; name != NULL && i < count; ++i) {
    if (strcmp(map[i].name, name) == 0) return (int)map[i].tensor_index;
  }
  lg_report(&runner->interpreter->reporter,
            "Signature '%s' has no %s named '%s'", runner->signature->key, what,
            name ? name : "(null)");
  return -1;
}

TfLiteTensor* TfLiteSignatureRunnerGetInputTensor(
    TfLiteSignatureRunner* signature_runner, const char* input_name) {
  if (signature_runner == NULL) return NULL;
  const lg_model_signature* sig = signature_runner->signature;
  const int index = find_tensor(signature_runner, sig->inputs, sig->num_inputs,
                                input_name, "input");
  return index < 0 ? NULL : &signature_runner->subgraph->context.tensors[index];
}

const TfLiteTensor* TfLiteSignatureRunnerGetOutputTensor(
    const TfLiteSignatureRunner* signature_runner, const char* output_name) {
  if (signature_runner == NULL) return NULL;
  const lg_model_signature* sig = signature_runner->signature;
  const int index = find_tensor(signature_runner, sig->outputs,
                                sig->num_outputs, output_name, "output");
  return index < 0 ? NULL : &signature_runner->subgraph->context.tensors[index];
}

TfLiteStatus TfLiteSignatureRunnerResizeInputTensor(
    TfLiteSignatureRunner* signature_runner, const char* input_name,
    const int* input_dims, int32_t input_dims_size) {
  if (signature_runner == NULL) return kTfLiteError;
  const lg_model_signature* sig = signature_runner->signature;
  const int index = find_tensor(signature_runner, sig->inputs, sig->num_inputs,
                                input_name, "input");
  if (index < 0 ||
      !lg_interpreter_async_idle(signature_runner->interpreter,
                                 "TfLiteSignatureRunnerResizeInputTensor")) {
    return kTfLiteError;
  }
  lg_subgraph* s = signature_runner->subgraph;
  for (int i = 0; i < s->num_inputs; ++i) {
    if (s->inputs[i] == index) {
      return lg_subgraph_resize_input_strict(s, i, input_dims, input_dims_size);
    }
  }
  lg_report(&signature_runner->interpreter->reporter,
            "Signature '%s': input '%s' (tensor %d) is not an input of "
            "subgraph %d",
            sig->key, input_name, index, s->index);
  return kTfLiteError;
}

TfLiteStatus TfLiteSignatureRunnerAllocateTensors(
    TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == NULL ||
      !lg_interpreter_async_idle(signature_runner->interpreter,
                                 "TfLiteSignatureRunnerAllocateTensors")) {
    return kTfLiteError;
  }
  return lg_subgraph_allocate_tensors(signature_runner->subgraph);
}

TfLiteStatus TfLiteSignatureRunnerCancel(
    TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == NULL) return kTfLiteError;
  /* One flag per interpreter: it stops whichever of its graphs runs. */
  return TfLiteInterpreterCancel(signature_runner->interpreter);
}

TfLiteStatus TfLiteSignatureRunnerInvoke(
    TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == NULL ||
      !lg_interpreter_async_idle(signature_runner->interpreter,
                                 "TfLiteSignatureRunnerInvoke")) {
    return kTfLiteError;
  }
  lg_subgraph* s = signature_runner->subgraph;
  /* A Cancel before this Invoke began does not cancel it (TFLite). */
  atomic_store(&signature_runner->interpreter->cancel_requested, false);
  /* Outputs a delegate keeps on its device are read back by the subgraph's
   * Invoke for the subgraph's outputs; a signature output is one of them. */
  return lg_subgraph_invoke(s);
}
