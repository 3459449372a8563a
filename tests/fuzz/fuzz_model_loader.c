/* libFuzzer target for the .tflite reader.
 *
 * Parses the input; on success reads every operator's builtin options, looks
 * up metadata and touches every byte the model points at (shapes, indices,
 * quantization vectors, constant buffers, custom options), so that ASan
 * catches any pointer or length the reader got wrong. Messages are
 * formatted (which checks their arguments) but not printed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void lg_fuzz_report(void* user_data, const char* format, va_list args) {
  char message[512];
  vsnprintf(message, sizeof(message), format, args);
  (void)user_data;
}

/* Sums `size` bytes so that every one of them is read. */
static unsigned lg_fuzz_touch(const void* data, size_t size) {
  const volatile uint8_t* bytes = data;
  unsigned sum = 0;
  for (size_t i = 0; i < size; ++i) sum += bytes[i];
  return sum;
}

static unsigned lg_fuzz_touch_tensor(const lg_model_tensor* t) {
  const lg_model_quantization* q = &t->quantization;
  unsigned sum = (unsigned)strlen(t->name);
  sum += lg_fuzz_touch(t->shape, sizeof(int32_t) * (size_t)t->num_dims);
  if (t->num_dims_signature > 0) {
    sum += lg_fuzz_touch(t->shape_signature,
                         sizeof(int32_t) * (size_t)t->num_dims_signature);
  }
  sum += lg_fuzz_touch(q->min, sizeof(float) * (size_t)q->num_min);
  sum += lg_fuzz_touch(q->max, sizeof(float) * (size_t)q->num_max);
  sum += lg_fuzz_touch(q->scale, sizeof(float) * (size_t)q->num_scale);
  sum +=
      lg_fuzz_touch(q->zero_point, sizeof(int64_t) * (size_t)q->num_zero_point);
  return sum;
}

static unsigned lg_fuzz_touch_operator(const lg_model* model,
                                       const lg_model_operator* op,
                                       const lg_reporter* reporter) {
  unsigned sum = 0;
  void* params = NULL;
  int32_t code = model->opcodes[op->opcode_index].builtin_code;
  sum += lg_fuzz_touch(op->inputs, sizeof(int32_t) * (size_t)op->num_inputs);
  sum += lg_fuzz_touch(op->outputs, sizeof(int32_t) * (size_t)op->num_outputs);
  sum += lg_fuzz_touch(op->intermediates,
                       sizeof(int32_t) * (size_t)op->num_intermediates);
  sum += lg_fuzz_touch(op->custom_options, op->custom_options_size);
  sum += (unsigned)strlen(lg_builtin_op_name(code));
  if (lg_builtin_options_parse(code, op, reporter, &params) == kTfLiteOk) {
    const lg_builtin_options_desc* desc = lg_builtin_options_find(code);
    if (params != NULL) sum += lg_fuzz_touch(params, desc->params_size);
  }
  free(params);
  return sum;
}

static unsigned lg_fuzz_touch_model(const lg_model* model,
                                    const lg_reporter* reporter) {
  unsigned sum = (unsigned)strlen(model->description);
  for (int32_t b = 0; b < model->num_buffers; ++b) {
    sum +=
        lg_fuzz_touch(model->buffers[b].data, (size_t)model->buffers[b].size);
  }
  for (int32_t s = 0; s < model->num_subgraphs; ++s) {
    const lg_model_subgraph* sg = &model->subgraphs[s];
    for (int32_t t = 0; t < sg->num_tensors; ++t) {
      sum += lg_fuzz_touch_tensor(&sg->tensors[t]);
    }
    for (int32_t o = 0; o < sg->num_operators; ++o) {
      sum += lg_fuzz_touch_operator(model, &sg->operators[o], reporter);
    }
  }
  for (int32_t i = 0; i < model->num_opcodes; ++i) {
    const char* custom = model->opcodes[i].custom_code;
    if (custom != NULL) sum += (unsigned)strlen(custom);
  }
  return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lg_reporter reporter = {lg_fuzz_report, NULL};
  lg_model* model = NULL;
  if (lg_model_parse(data, size, &reporter, &model) != kTfLiteOk) return 0;
  volatile unsigned sum = lg_fuzz_touch_model(model, &reporter);
  const uint8_t* meta = NULL;
  size_t meta_size = 0;
  if (lg_model_find_metadata(model, "min_runtime_version", &meta, &meta_size)) {
    sum += lg_fuzz_touch(meta, meta_size);
  }
  for (int32_t i = 0; i < model->num_metadata; ++i) {
    lg_model_find_metadata(model, model->metadata[i].name, &meta, &meta_size);
  }
  (void)sum;
  lg_model_destroy(model);
  return 0;
}
