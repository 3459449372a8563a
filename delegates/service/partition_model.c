/* A delegated partition as a standalone .tflite (partition_model.h). */
#include "delegates/service/partition_model.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"

#define MAX_RANK 16

typedef struct builder {
  TfLiteContext* context;
  lg_model_writer* writer;
  int* map;       /* main tensor index -> model tensor index, or -1 */
  bool* produced; /* written by a node of the partition */
  char report[256];
} builder;

static void on_report(void* user_data, const char* format, va_list args) {
  builder* b = user_data;
  if (b->report[0] == '\0')
    vsnprintf(b->report, sizeof(b->report), format, args);
}

static bool is_constant(const builder* b, int index) {
  const TfLiteTensor* t = &b->context->tensors[index];
  return !b->produced[index] && t->data.raw != NULL &&
         (t->allocation_type == kTfLiteMmapRo ||
          t->allocation_type == kTfLitePersistentRo);
}

static int builder_init(builder* b, TfLiteContext* context) {
  memset(b, 0, sizeof(*b));
  b->context = context;
  const size_t n = context->tensors_size ? context->tensors_size : 1;
  b->map = malloc(n * sizeof(int));
  b->produced = calloc(n, sizeof(bool));
  const lg_reporter reporter = {on_report, b};
  b->writer = lg_model_writer_create(&reporter);
  if (b->map == NULL || b->produced == NULL || b->writer == NULL) return -1;
  for (size_t i = 0; i < n; ++i) b->map[i] = -1;
  return 0;
}

static void builder_free(builder* b) {
  lg_model_writer_destroy(b->writer);
  free(b->map);
  free(b->produced);
}

/* Adds main tensor `index` once; its model index, or -1 (reported). */
static int32_t add_tensor(builder* b, int index) {
  if (b->map[index] >= 0) return b->map[index];
  const TfLiteTensor* t = &b->context->tensors[index];
  const int rank = t->dims ? t->dims->size : 0;
  if (rank > MAX_RANK) {
    snprintf(b->report, sizeof(b->report), "tensor %d has rank %d", index,
             rank);
    return -1;
  }
  int32_t shape[MAX_RANK];
  for (int i = 0; i < rank; ++i) shape[i] = t->dims->data[i];
  lg_writer_tensor wt = {
      .name = t->name, .type = t->type, .shape = shape, .num_dims = rank};
  lg_writer_quantization q;
  int64_t* zero_points = NULL;
  const TfLiteAffineQuantization* a = t->quantization.params;
  if (t->quantization.type == kTfLiteAffineQuantization && a != NULL &&
      a->scale != NULL && a->zero_point != NULL) {
    zero_points = malloc(sizeof(int64_t) * (size_t)(a->zero_point->size + 1));
    if (zero_points == NULL) return -1;
    for (int i = 0; i < a->zero_point->size; ++i) {
      zero_points[i] = a->zero_point->data[i];
    }
    /* Converters give 1-D biases the dimension of their conv's weights
     * (3 for a depthwise bias): the runtime reads such a tensor along its
     * one axis, and so does the copy. */
    const int32_t axis =
        a->quantized_dimension < rank ? a->quantized_dimension : 0;
    q = (lg_writer_quantization){.scale = a->scale->data,
                                 .num_scale = a->scale->size,
                                 .zero_point = zero_points,
                                 .num_zero_point = a->zero_point->size,
                                 .quantized_dimension = axis};
    wt.quantization = &q;
  }
  if (is_constant(b, index) && t->bytes > 0) {
    wt.buffer =
        lg_model_writer_add_buffer_ref(b->writer, t->data.raw, t->bytes);
  }
  const int32_t id =
      wt.buffer < 0 ? -1 : lg_model_writer_add_tensor(b->writer, &wt);
  free(zero_points);
  b->map[index] = id;
  return id;
}

static int32_t* map_list(builder* b, const TfLiteIntArray* list) {
  const int n = list ? list->size : 0;
  int32_t* out = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (out == NULL) return NULL;
  for (int i = 0; i < n; ++i) {
    const int t = list->data[i];
    out[i] = t < 0 ? -1 : add_tensor(b, t);
    if (t >= 0 && out[i] < 0) {
      free(out);
      return NULL;
    }
  }
  return out;
}

static int add_node(builder* b, const TfLiteNode* node,
                    const TfLiteRegistration* reg) {
  int32_t* ins = map_list(b, node->inputs);
  int32_t* outs = map_list(b, node->outputs);
  int32_t id = -1;
  if (ins != NULL && outs != NULL) {
    const int ni = node->inputs ? node->inputs->size : 0;
    const int no = node->outputs ? node->outputs->size : 0;
    if (reg->builtin_code == kTfLiteBuiltinCustom) {
      id = lg_model_writer_add_custom_operator(
          b->writer, reg->custom_name ? reg->custom_name : "", reg->version,
          ins, ni, outs, no, node->custom_initial_data,
          (size_t)node->custom_initial_data_size);
    } else {
      id = lg_model_writer_add_operator(b->writer, reg->builtin_code,
                                        reg->version, ins, ni, outs, no,
                                        node->builtin_data);
    }
  }
  free(ins);
  free(outs);
  return id < 0 ? -1 : 0;
}

static void mark_produced(builder* b, const TfLiteNode* node) {
  for (int k = 0; node->outputs && k < node->outputs->size; ++k) {
    if (node->outputs->data[k] >= 0) b->produced[node->outputs->data[k]] = true;
  }
}

static void reason_of(const builder* b, char* error, size_t size,
                      const char* what) {
  const char* why = lg_model_writer_error(b->writer);
  snprintf(error, size, "%s: %s", what,
           b->report[0] ? b->report : (why ? why : "out of memory"));
}

/* The model's inputs (non-constant partition inputs) and outputs. */
static int set_io(builder* b, const TfLiteDelegateParams* params,
                  lg_partition_model* out) {
  const TfLiteIntArray* in = params->input_tensors;
  const TfLiteIntArray* o = params->output_tensors;
  out->inputs = malloc(sizeof(int) * (size_t)(in->size + 1));
  out->outputs = malloc(sizeof(int) * (size_t)(o->size + 1));
  int32_t* ids = malloc(sizeof(int32_t) * (size_t)(in->size + o->size + 1));
  if (out->inputs == NULL || out->outputs == NULL || ids == NULL) {
    free(ids);
    return -1;
  }
  for (int k = 0; k < in->size; ++k) {
    const int t = in->data[k];
    if (t < 0 || is_constant(b, t)) continue;
    ids[out->num_inputs] = add_tensor(b, t);
    out->inputs[out->num_inputs++] = t;
  }
  int rc = lg_model_writer_set_inputs(b->writer, ids, out->num_inputs);
  for (int k = 0; k < o->size; ++k) {
    ids[k] = add_tensor(b, o->data[k]);
    out->outputs[k] = o->data[k];
  }
  out->num_outputs = o->size;
  if (rc == kTfLiteOk) {
    rc = lg_model_writer_set_outputs(b->writer, ids, out->num_outputs);
  }
  free(ids);
  return rc == kTfLiteOk ? 0 : -1;
}

int lg_partition_model_write(TfLiteContext* context,
                             const TfLiteDelegateParams* params,
                             lg_partition_model* out, char* error,
                             size_t error_size) {
  memset(out, 0, sizeof(*out));
  builder b;
  int rc = builder_init(&b, context);
  const TfLiteIntArray* nodes = params->nodes_to_replace;
  TfLiteNode** node = calloc((size_t)nodes->size + 1, sizeof(*node));
  TfLiteRegistration** reg = calloc((size_t)nodes->size + 1, sizeof(*reg));
  if (node == NULL || reg == NULL) rc = -1;
  for (int i = 0; rc == 0 && i < nodes->size; ++i) {
    if (context->GetNodeAndRegistration(context, nodes->data[i], &node[i],
                                        &reg[i]) != kTfLiteOk) {
      snprintf(b.report, sizeof(b.report), "node %d cannot be read",
               nodes->data[i]);
      rc = -1;
    } else {
      mark_produced(&b, node[i]);
    }
  }
  for (int i = 0; rc == 0 && i < nodes->size; ++i) {
    rc = add_node(&b, node[i], reg[i]);
  }
  if (rc == 0) rc = set_io(&b, params, out);
  if (rc == 0 &&
      lg_model_writer_finish(b.writer, &out->data, &out->size) != kTfLiteOk) {
    rc = -1;
  }
  if (rc != 0) {
    reason_of(&b, error, error_size, "cannot write the partition");
    lg_partition_model_free(out);
  }
  free(node);
  free(reg);
  builder_free(&b);
  return rc;
}

void lg_partition_model_free(lg_partition_model* m) {
  free(m->data);
  free(m->inputs);
  free(m->outputs);
  memset(m, 0, sizeof(*m));
}

static bool tensor_travels(const TfLiteTensor* t, char* reason, size_t size) {
  const char* why = NULL;
  if (t->type == kTfLiteString || t->type == kTfLiteResource ||
      t->type == kTfLiteVariant) {
    why = "string, resource and variant tensors stay with the interpreter";
  } else if (t->is_variable) {
    why = "variable tensors keep their state in the interpreter";
  } else if (t->sparsity != NULL) {
    why = "sparse tensors are not sent to the service";
  } else if (t->allocation_type == kTfLiteDynamic) {
    why = "dynamic tensors are not sent to the service";
  } else if (t->dims == NULL || t->dims->size > 8) {
    why = "tensors above rank 8 are not sent to the service";
  }
  if (why != NULL) snprintf(reason, size, "%s.", why);
  return why == NULL;
}

static bool tensors_travel(TfLiteContext* context, const TfLiteIntArray* list,
                           char* reason, size_t size) {
  for (int k = 0; list != NULL && k < list->size; ++k) {
    const int t = list->data[k];
    if (t < 0) continue;
    if (!tensor_travels(&context->tensors[t], reason, size)) return false;
  }
  return true;
}

bool lg_partition_model_supports(TfLiteContext* context, const TfLiteNode* node,
                                 const TfLiteRegistration* registration,
                                 char* reason, size_t reason_size) {
  if (node->intermediates != NULL && node->intermediates->size > 0) {
    snprintf(reason, reason_size,
             "ops with intermediate tensors are not sent to the service.");
    return false;
  }
  if (!tensors_travel(context, node->inputs, reason, reason_size) ||
      !tensors_travel(context, node->outputs, reason, reason_size)) {
    return false;
  }
  /* A trial: the writer takes the node's tensors and params. */
  builder b;
  bool ok = builder_init(&b, context) == 0;
  if (ok) {
    mark_produced(&b, node);
    ok = add_node(&b, node, registration) == 0 &&
         lg_model_writer_error(b.writer) == NULL;
    if (!ok) reason_of(&b, reason, reason_size, "the model writer refuses it");
  } else {
    snprintf(reason, reason_size, "out of memory.");
  }
  builder_free(&b);
  return ok;
}
