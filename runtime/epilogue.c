/* Epilogue fusion (see epilogue.h).
 *
 * MediaPipe's models end most convolutions with conv -> ADD(residual) ->
 * PRELU, conv -> PRELU or conv -> LOGISTIC; each op is one more pass over
 * memory and one more node's overhead. PRELU and ADD cannot be folded into
 * a TFLite fused activation (fuse_activations.c), so this rewrite is
 * litegpu's own: it is decided at AllocateTensors, after delegates have
 * claimed their nodes (they see the plain graph), among the nodes still
 * running litegpu's float kernels.
 *
 * The chain's nodes stay in the plan and are prepared as usual (so shape
 * errors are still theirs); at Invoke the producer's output is turned into
 * the chain's output in blocks of whole rows of channels, each block
 * through every step while it is in cache, and the absorbed nodes are
 * skipped. The steps call the same row functions as the ADD, PRELU,
 * LOGISTIC and HARD_SWISH kernels, in the same order, so the result is the
 * unfused graph's bit for bit. A producer whose kernel offered to
 * (lg_kernel_offer_epilogue) takes the chain over at Invoke and runs it in
 * its own tasks through lg_kernel_epilogue_run, on the same row functions.
 *
 * The chain runs at the producer's plan position, earlier than the nodes it
 * absorbs, so the ADD's residual must be written before the producer runs
 * (or be a constant or graph input), PRELU's alpha must be constant, and
 * the memory planner places the absorbed nodes' tensors at a step right
 * after the producer's (execute.c). The skipped intermediate (the ADD's
 * output before a PRELU) gets no memory. */
#include "runtime/epilogue.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/delegate.h"
#include "runtime/fuse_activations.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/logistic_f32.h"
#include "runtime/kernels/simd_f32.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* Floats a block carries through the chain's steps: a few rows that stay in
 * the first-level cache. */
#define LG_EPILOGUE_BLOCK_FLOATS 4096
/* Elements below which splitting over threads costs more than it saves. */
#define LG_EPILOGUE_MIN_PARALLEL 16384

/* ---- Deciding the chains ------------------------------------------------ */

typedef struct lg_epilogue_graph {
  lg_subgraph* s;
  const int* uses;
  const int* producer; /* plan position writing each tensor, or -1 */
  const int* consumer; /* plan position of a node reading it, or -1 */
} lg_epilogue_graph;

static lg_node* plan_node(const lg_epilogue_graph* g, int position) {
  return &g->s->nodes[g->s->execution_plan->data[position]];
}

/* A float activation tensor the arena holds (not constant, variable or
 * dynamic). */
static bool is_float_arena(const lg_subgraph* s, int t) {
  if (t < 0 || (size_t)t >= s->context.tensors_size) return false;
  const TfLiteTensor* tensor = &s->context.tensors[t];
  return tensor->type == kTfLiteFloat32 &&
         tensor->allocation_type == kTfLiteArenaRw && !tensor->is_variable;
}

static bool same_shape(const TfLiteTensor* a, const TfLiteTensor* b) {
  return a->dims != NULL && b->dims != NULL &&
         TfLiteIntArrayEqual(a->dims, b->dims);
}

/* The node at `position` with `inputs` inputs and one float output, running
 * litegpu's kernel for `code`, prepared statically; or NULL. */
static lg_node* chain_node(const lg_epilogue_graph* g, int position,
                           int32_t code, int inputs) {
  if (position < 0 || position >= g->s->first_unprepared) return NULL;
  lg_node* node = plan_node(g, position);
  const TfLiteNode* n = &node->node;
  if (node->registration.builtin_code != code || node->in_epilogue ||
      !lg_node_runs_builtin_kernel(node) || n->inputs == NULL ||
      n->inputs->size != inputs || n->outputs == NULL ||
      n->outputs->size != 1 || !is_float_arena(g->s, n->outputs->data[0])) {
    return NULL;
  }
  return node;
}

/* The single reader of intermediate `t`, or -1 when t has other readers or
 * is a subgraph output (those count as uses). */
static int sole_consumer(const lg_epilogue_graph* g, int t) {
  return g->uses[t] == 1 ? g->consumer[t] : -1;
}

/* Absorbs an ADD of `*tail` and a same-shape residual written before the
 * producer at `start`; returns whether it did. */
static bool absorb_add(const lg_epilogue_graph* g, int start, int* tail,
                       int* tail_at, lg_epilogue* e) {
  const int at = sole_consumer(g, *tail);
  lg_node* add = chain_node(g, at, kTfLiteBuiltinAdd, 2);
  if (add == NULL || add->node.builtin_data == NULL) return false;
  const TfLiteIntArray* in = add->node.inputs;
  const bool first = in->data[1] == *tail;
  const int residual = first ? in->data[0] : in->data[1];
  if ((first ? in->data[1] : in->data[0]) != *tail || residual == *tail ||
      residual < 0 || (size_t)residual >= g->s->context.tensors_size) {
    return false;
  }
  const TfLiteTensor* r = &g->s->context.tensors[residual];
  const TfLiteTensor* x = &g->s->context.tensors[*tail];
  if (r->type != kTfLiteFloat32 || r->is_variable || !same_shape(r, x) ||
      g->producer[residual] >= start) {
    return false;
  }
  const TfLiteAddParams* params = add->node.builtin_data;
  if (lg_kernel_activation_range_float(&g->s->context, "ADD",
                                       params->activation, &e->add_min,
                                       &e->add_max) != kTfLiteOk) {
    return false;
  }
  e->residual = residual;
  e->residual_first = first;
  *tail = add->node.outputs->data[0];
  *tail_at = at;
  return true;
}

/* Whether PRELU's alpha is a constant with one value, or one per channel
 * and 1 along every other dimension. */
static bool alpha_fits(const lg_subgraph* s, int alpha, int channels) {
  if (alpha < 0 || (size_t)alpha >= s->context.tensors_size) return false;
  const TfLiteTensor* a = &s->context.tensors[alpha];
  /* PersistentRo: a constant DEQUANTIZE's output (float16 weights), set
   * in its Prepare. */
  const bool constant = a->allocation_type == kTfLiteMmapRo ||
                        a->allocation_type == kTfLitePersistentRo;
  if (a->type != kTfLiteFloat32 || !constant || a->data.raw == NULL ||
      a->dims == NULL) {
    return false;
  }
  const int elements = (int)(a->bytes / sizeof(float));
  for (int d = 0; d + 1 < a->dims->size; ++d) {
    if (a->dims->data[d] != 1) return false;
  }
  return elements == 1 || elements == channels;
}

/* Absorbs the PRELU, LOGISTIC or HARD_SWISH reading `*tail`; returns
 * whether it did. */
static bool absorb_activation(const lg_epilogue_graph* g, int* tail,
                              int* tail_at, lg_epilogue* e) {
  const int at = sole_consumer(g, *tail);
  if (at < 0) return false;
  const int32_t code = plan_node(g, at)->registration.builtin_code;
  lg_node* node = NULL;
  if (code == kTfLiteBuiltinPrelu) {
    node = chain_node(g, at, code, 2);
    if (node == NULL || node->node.inputs->data[0] != *tail ||
        !alpha_fits(g->s, node->node.inputs->data[1], e->channels)) {
      return false;
    }
    e->activation = LG_EPILOGUE_PRELU;
    e->alpha = node->node.inputs->data[1];
  } else if (code == kTfLiteBuiltinLogistic ||
             code == kTfLiteBuiltinHardSwish) {
    node = chain_node(g, at, code, 1);
    if (node == NULL || node->node.inputs->data[0] != *tail) return false;
    e->activation = code == kTfLiteBuiltinLogistic ? LG_EPILOGUE_LOGISTIC
                                                   : LG_EPILOGUE_HARD_SWISH;
  } else {
    return false;
  }
  const int out = node->node.outputs->data[0];
  if (!same_shape(&g->s->context.tensors[out], &g->s->context.tensors[*tail]))
    return false;
  *tail = out;
  *tail_at = at;
  return true;
}

static void mark_absorbed(const lg_epilogue_graph* g, int start, int end,
                          const lg_epilogue* e) {
  /* Walks the chain again from its input: each link is the sole reader. */
  int t = e->input;
  for (int at = sole_consumer(g, t); at >= 0 && at <= end;
       at = sole_consumer(g, t)) {
    lg_node* node = plan_node(g, at);
    node->in_epilogue = true;
    node->epilogue_at = start;
    t = node->node.outputs->data[0];
    if (t == e->output) break;
  }
}

/* Plans the chain after the producer at `start`, when there is one. */
static void plan_chain(const lg_epilogue_graph* g, int start) {
  lg_node* producer = plan_node(g, start);
  const int32_t code = producer->registration.builtin_code;
  if (code != kTfLiteBuiltinConv2d && code != kTfLiteBuiltinDepthwiseConv2d &&
      code != kTfLiteBuiltinFullyConnected) {
    return;
  }
  const TfLiteNode* n = &producer->node;
  if (start >= g->s->first_unprepared ||
      !lg_node_runs_builtin_kernel(producer) || n->outputs == NULL ||
      n->outputs->size != 1 || !is_float_arena(g->s, n->outputs->data[0])) {
    return;
  }
  const TfLiteTensor* out = &g->s->context.tensors[n->outputs->data[0]];
  if (out->dims == NULL || out->dims->size < 1) return;
  lg_epilogue e = {.input = n->outputs->data[0],
                   .residual = -1,
                   .alpha = -1,
                   .channels = out->dims->data[out->dims->size - 1]};
  if (e.channels <= 0) return;
  int tail = e.input, tail_at = start;
  const bool added = absorb_add(g, start, &tail, &tail_at, &e);
  const bool activated = absorb_activation(g, &tail, &tail_at, &e);
  if (!added && !activated) return;
  e.output = tail;
  e.active = true;
  e.in_kernel = producer->offers_epilogue;
  producer->epilogue = e;
  mark_absorbed(g, start, tail_at, &e);
}

static bool fusion_enabled(void) {
  const char* value = getenv("LITEGPU_EPILOGUE_FUSION");
  return value == NULL || strcmp(value, "0") != 0;
}

/* consumer[t]: the plan position of a node reading tensor t, or -1. */
static void index_consumers(const lg_subgraph* s, int* consumer) {
  for (size_t t = 0; t < s->context.tensors_size; ++t) consumer[t] = -1;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    const TfLiteIntArray* in = s->nodes[s->execution_plan->data[p]].node.inputs;
    for (int i = 0; in != NULL && i < in->size; ++i) {
      int t = in->data[i];
      if (t >= 0 && (size_t)t < s->context.tensors_size) consumer[t] = p;
    }
  }
}

TfLiteStatus lg_subgraph_plan_epilogues(lg_subgraph* s) {
  for (int i = 0; i < s->num_nodes; ++i) {
    s->nodes[i].epilogue.active = false;
    s->nodes[i].in_epilogue = false;
  }
  if (!fusion_enabled() || s->execution_plan == NULL ||
      s->execution_plan->size < 2) {
    return kTfLiteOk;
  }
  const size_t n = s->context.tensors_size > 0 ? s->context.tensors_size : 1;
  int* uses = lg_subgraph_count_reads(s);
  int* producer = malloc(sizeof(int) * n);
  int* consumer = malloc(sizeof(int) * n);
  if (uses == NULL || producer == NULL || consumer == NULL) {
    free(uses);
    free(producer);
    free(consumer);
    return kTfLiteError;
  }
  lg_subgraph_index_producers(s, producer);
  index_consumers(s, consumer);
  const lg_epilogue_graph g = {s, uses, producer, consumer};
  for (int p = 0; p < s->first_unprepared; ++p) plan_chain(&g, p);
  free(uses);
  free(producer);
  free(consumer);
  return kTfLiteOk;
}

/* ---- Running a chain ---------------------------------------------------- */

typedef struct lg_epilogue_job {
  lg_kernel_epilogue tensors;
  int64_t rows; /* of e->channels floats */
  int64_t rows_per_block;
  int tasks;
} lg_epilogue_job;

/* n floats from `at` through every step, as the kernels compute them: ADD's
 * clamp(x + y), then the activation in place. `alpha` is PRELU's alpha
 * from the first of those floats' channel; with `rows` > 1 the floats are
 * that many whole rows of channels. */
static void run_span(const lg_kernel_epilogue* t, int64_t at, int64_t rows,
                     int64_t n, const float* alpha) {
  const lg_epilogue* e = t->e;
  const float* x = t->input + at;
  float* out = t->output + at;
  if (t->residual != NULL) {
    const float* r = t->residual + at;
    lg_f32_binary_row(LG_F32_ADD, e->residual_first ? r : x, 1,
                      e->residual_first ? x : r, 1, out, n, e->add_min,
                      e->add_max);
    x = out;
  }
  switch (e->activation) {
    case LG_EPILOGUE_PRELU:
      if (t->alpha_count == 1) {
        lg_f32_prelu_row(x, t->alpha, 0, out, n);
      } else {
        lg_f32_prelu_rows(x, alpha, out, rows, n / rows);
      }
      break;
    case LG_EPILOGUE_LOGISTIC:
      lg_f32_logistic_row(x, out, n);
      break;
    case LG_EPILOGUE_HARD_SWISH:
      lg_f32_hard_swish_row(x, out, n);
      break;
    case LG_EPILOGUE_NONE:
      break;
  }
}

/* Rows [row, row + count) through every step. */
static void run_block(const lg_kernel_epilogue* t, int64_t row, int64_t count) {
  const int channels = t->e->channels;
  run_span(t, row * channels, count, count * channels, t->alpha);
}

static void run_task(void* ctx, int task) {
  const lg_epilogue_job* job = ctx;
  const int64_t begin = job->rows * task / job->tasks;
  const int64_t end = job->rows * (task + 1) / job->tasks;
  for (int64_t row = begin; row < end; row += job->rows_per_block) {
    const int64_t left = end - row;
    run_block(&job->tensors, row,
              left < job->rows_per_block ? left : job->rows_per_block);
  }
}

static lg_kernel_epilogue tensors_of(const TfLiteContext* context,
                                     const lg_epilogue* e) {
  const TfLiteTensor* alpha =
      e->alpha >= 0 ? &context->tensors[e->alpha] : NULL;
  return (lg_kernel_epilogue){
      .e = e,
      .input = context->tensors[e->input].data.f,
      .residual =
          e->residual >= 0 ? context->tensors[e->residual].data.f : NULL,
      .alpha = alpha != NULL ? alpha->data.f : NULL,
      .alpha_count =
          alpha != NULL ? (int64_t)(alpha->bytes / sizeof(float)) : 0,
      .output = context->tensors[e->output].data.f};
}

void lg_epilogue_run(TfLiteContext* context, const lg_epilogue* e) {
  const TfLiteTensor* in = &context->tensors[e->input];
  const int64_t elements = (int64_t)(in->bytes / sizeof(float));
  lg_epilogue_job job = {
      .tensors = tensors_of(context, e),
      .rows = elements / e->channels,
      .rows_per_block = LG_EPILOGUE_BLOCK_FLOATS / e->channels,
      .tasks = 1};
  if (job.rows_per_block < 1) job.rows_per_block = 1;
  if (job.rows == 0) return;
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  if (elements >= LG_EPILOGUE_MIN_PARALLEL) {
    int threads = lg_thread_pool_size(pool);
    job.tasks = (int64_t)threads < job.rows ? threads : (int)job.rows;
  }
  if (job.tasks <= 1) {
    run_task(&job, 0);
  } else {
    lg_thread_pool_run(pool, run_task, &job, job.tasks);
  }
}

/* ---- Chains run by their producer's kernel ------------------------------- */

static bool overlaps(const TfLiteTensor* a, const TfLiteTensor* b) {
  if (a->data.raw == NULL || b->data.raw == NULL) return false;
  const uintptr_t a0 = (uintptr_t)a->data.raw, b0 = (uintptr_t)b->data.raw;
  return a0 < b0 + b->bytes && b0 < a0 + a->bytes;
}

/* Whether `t` shares memory with a tensor of `list`. */
static bool overlaps_any(const lg_subgraph* s, const TfLiteTensor* t,
                         const TfLiteIntArray* list) {
  for (int i = 0; list != NULL && i < list->size; ++i) {
    const int index = list->data[i];
    if (index >= 0 && (size_t)index < s->context.tensors_size &&
        overlaps(t, &s->context.tensors[index])) {
      return true;
    }
  }
  return false;
}

const lg_kernel_epilogue* lg_kernel_take_epilogue(TfLiteContext* context,
                                                  const TfLiteNode* node) {
  lg_subgraph* s = context != NULL && context->impl_ != NULL
                       ? ((lg_kernel_env*)context->impl_)->interpreter_subgraph
                       : NULL;
  lg_node* running = s != NULL ? s->epilogue_node : NULL;
  if (running == NULL || &running->node != node || s->epilogue_taken) {
    return NULL;
  }
  const lg_epilogue* e = &running->epilogue;
  /* Planning keeps them apart (execute.c); a tensor placed elsewhere (a
   * delegate's buffer, a custom allocation) is checked here. */
  const TfLiteTensor* out = &s->context.tensors[e->output];
  if (overlaps_any(s, out, node->inputs) ||
      overlaps_any(s, out, node->temporaries)) {
    return NULL;
  }
  if (e->residual >= 0 &&
      lg_subgraph_ensure_readable(s, e->residual, NULL) != kTfLiteOk) {
    return NULL; /* the interpreter's own pass reports it */
  }
  s->epilogue_tensors = tensors_of(&s->context, e);
  s->epilogue_taken = true;
  return &s->epilogue_tensors;
}

void lg_kernel_epilogue_run(const lg_kernel_epilogue* t, int64_t first,
                            int64_t count, int c0, int c1) {
  const int channels = t->e->channels;
  if (c0 == 0 && c1 == channels) {
    for (int64_t row = first; row < first + count;) {
      const int64_t most = LG_EPILOGUE_BLOCK_FLOATS / channels;
      const int64_t left = first + count - row;
      const int64_t rows = left < most ? left : most > 0 ? most : 1;
      run_block(t, row, rows);
      row += rows;
    }
    return;
  }
  const float* alpha =
      t->alpha != NULL && t->alpha_count > 1 ? t->alpha + c0 : t->alpha;
  for (int64_t row = first; row < first + count; ++row) {
    run_span(t, row * channels + c0, 1, c1 - c0, alpha);
  }
}
