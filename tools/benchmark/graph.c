/* benchmark_model: the graph that runs, either the interpreter's own inputs
 * and outputs (subgraph 0) or one SignatureDef through its runner
 * (--signature_to_run_for; the rules are at the top of
 * tools/benchmark_model.c). Every other file reaches inputs, outputs,
 * resizing, AllocateTensors and Invoke through here. */
#include <stdlib.h>
#include <string.h>

#include "tools/benchmark/benchmark.h"

lg_bench_graph lg_bench_graph_of(TfLiteInterpreter* ip) {
  lg_bench_graph g = {.ip = ip, .runner = NULL, .key = NULL, .primary = true};
  return g;
}

/* Lists the model's signature keys on stderr. */
static void print_signature_keys(TfLiteInterpreter* ip) {
  const int32_t count = TfLiteInterpreterGetSignatureCount(ip);
  if (count <= 0) {
    fprintf(stderr, "benchmark_model: the model has no signatures\n");
    return;
  }
  fprintf(stderr, "benchmark_model: the model's signature keys:");
  for (int32_t i = 0; i < count; ++i) {
    const char* key = TfLiteInterpreterGetSignatureKey(ip, i);
    fprintf(stderr, "%s '%s'", i ? "," : "", key ? key : "");
  }
  fputc('\n', stderr);
}

static bool has_signature(TfLiteInterpreter* ip, const char* key) {
  const int32_t count = TfLiteInterpreterGetSignatureCount(ip);
  for (int32_t i = 0; i < count; ++i) {
    const char* k = TfLiteInterpreterGetSignatureKey(ip, i);
    if (k != NULL && strcmp(k, key) == 0) return true;
  }
  return false;
}

/* Whether a tensor is one of the interpreter's own inputs (or outputs):
 * those are tensors of subgraph 0. */
static bool is_interpreter_io(TfLiteInterpreter* ip, const TfLiteTensor* t,
                              bool input) {
  const int count = input ? TfLiteInterpreterGetInputTensorCount(ip)
                          : TfLiteInterpreterGetOutputTensorCount(ip);
  for (int i = 0; t != NULL && i < count; ++i) {
    const TfLiteTensor* own = input ? TfLiteInterpreterGetInputTensor(ip, i)
                                    : TfLiteInterpreterGetOutputTensor(ip, i);
    if (own == t) return true;
  }
  return false;
}

/* The C API does not say which subgraph a signature runs. A signature's
 * inputs are its subgraph's inputs, so a signature whose input tensors are
 * the interpreter's own input tensors runs subgraph 0 (without inputs: its
 * outputs among the interpreter's outputs). A signature with neither
 * counts as another subgraph: the interpreter-wide reports are then left
 * out rather than risked wrong. */
static bool runs_subgraph_0(const lg_bench_graph* g) {
  const int inputs = lg_bench_graph_input_count(g);
  const int outputs = lg_bench_graph_output_count(g);
  if (inputs > 0) {
    for (int i = 0; i < inputs; ++i) {
      if (!is_interpreter_io(g->ip, lg_bench_graph_input(g, i), true)) {
        return false;
      }
    }
    return true;
  }
  for (int i = 0; i < outputs; ++i) {
    if (!is_interpreter_io(g->ip, lg_bench_graph_output(g, i), false)) {
      return false;
    }
  }
  return outputs > 0;
}

bool lg_bench_graph_open_signature(lg_bench_graph* g, TfLiteInterpreter* ip,
                                   const char* key) {
  *g = lg_bench_graph_of(ip);
  /* Checked first, so that the library does not report the key too. */
  if (!has_signature(ip, key)) {
    fprintf(stderr,
            "benchmark_model: --signature_to_run_for=%s: the model has no "
            "signature '%s'\n",
            key, key);
    print_signature_keys(ip);
    return false;
  }
  g->runner = TfLiteInterpreterGetSignatureRunner(ip, key);
  if (g->runner == NULL) {
    fprintf(stderr,
            "benchmark_model: --signature_to_run_for=%s: cannot create the "
            "signature's runner\n",
            key);
    return false;
  }
  g->key = key;
  g->primary = runs_subgraph_0(g);
  return true;
}

void lg_bench_graph_close(lg_bench_graph* g) {
  TfLiteSignatureRunnerDelete(g->runner);
  g->runner = NULL;
}

int lg_bench_graph_input_count(const lg_bench_graph* g) {
  return g->runner ? (int)TfLiteSignatureRunnerGetInputCount(g->runner)
                   : TfLiteInterpreterGetInputTensorCount(g->ip);
}

int lg_bench_graph_output_count(const lg_bench_graph* g) {
  return g->runner ? (int)TfLiteSignatureRunnerGetOutputCount(g->runner)
                   : TfLiteInterpreterGetOutputTensorCount(g->ip);
}

const char* lg_bench_graph_input_name(const lg_bench_graph* g, int i) {
  if (g->runner == NULL) {
    return lg_bench_tensor_name(TfLiteInterpreterGetInputTensor(g->ip, i));
  }
  const char* name = TfLiteSignatureRunnerGetInputName(g->runner, i);
  return name ? name : "";
}

const char* lg_bench_graph_output_name(const lg_bench_graph* g, int i) {
  if (g->runner == NULL) {
    return lg_bench_tensor_name(TfLiteInterpreterGetOutputTensor(g->ip, i));
  }
  const char* name = TfLiteSignatureRunnerGetOutputName(g->runner, i);
  return name ? name : "";
}

TfLiteTensor* lg_bench_graph_input(const lg_bench_graph* g, int i) {
  if (g->runner == NULL) return TfLiteInterpreterGetInputTensor(g->ip, i);
  return TfLiteSignatureRunnerGetInputTensor(
      g->runner, TfLiteSignatureRunnerGetInputName(g->runner, i));
}

const TfLiteTensor* lg_bench_graph_output(const lg_bench_graph* g, int i) {
  if (g->runner == NULL) return TfLiteInterpreterGetOutputTensor(g->ip, i);
  return TfLiteSignatureRunnerGetOutputTensor(
      g->runner, TfLiteSignatureRunnerGetOutputName(g->runner, i));
}

TfLiteStatus lg_bench_graph_resize(lg_bench_graph* g, int i,
                                   const int32_t* dims, int num_dims) {
  if (g->runner == NULL) {
    return TfLiteInterpreterResizeInputTensor(g->ip, i, dims, num_dims);
  }
  return TfLiteSignatureRunnerResizeInputTensor(
      g->runner, TfLiteSignatureRunnerGetInputName(g->runner, i), dims,
      num_dims);
}

TfLiteStatus lg_bench_graph_allocate(lg_bench_graph* g) {
  return g->runner ? TfLiteSignatureRunnerAllocateTensors(g->runner)
                   : TfLiteInterpreterAllocateTensors(g->ip);
}

TfLiteStatus lg_bench_graph_invoke(lg_bench_graph* g) {
  return g->runner ? TfLiteSignatureRunnerInvoke(g->runner)
                   : TfLiteInterpreterInvoke(g->ip);
}
