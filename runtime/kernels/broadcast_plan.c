/* The broadcast loop plan shared by the elementwise kernels. */
#include "runtime/kernels/broadcast_plan.h"

#include <stdbool.h>
#include <string.h>

/* Dim i of `shape` once left-padded with 1s to `rank`. */
static int lg_broadcast_dim(const TfLiteIntArray* shape, int rank, int i) {
  const int j = i - (rank - shape->size);
  return j < 0 ? 1 : shape->data[j];
}

/* Fills the strides of the merged dims from the repeat flags: an input
 * advances through its own elements along the dims it does not repeat. */
static void lg_broadcast_strides(lg_broadcast_plan* plan,
                                 bool repeat[][LG_BROADCAST_MAX_RANK]) {
  for (int j = 0; j < plan->num_inputs; ++j) {
    ptrdiff_t s = 1;
    for (int k = plan->rank - 1; k >= 0; --k) {
      plan->strides[j][k] = repeat[j][k] ? 0 : s;
      if (!repeat[j][k]) s *= plan->dims[k];
    }
  }
}

void lg_broadcast_plan_build(lg_broadcast_plan* plan, int num_inputs,
                             const TfLiteIntArray* const* inputs,
                             const TfLiteIntArray* output,
                             const size_t* input_sizes, size_t output_size) {
  memset(plan, 0, sizeof(*plan));
  plan->num_inputs = num_inputs;
  for (int j = 0; j < num_inputs; ++j) plan->input_size[j] = input_sizes[j];
  plan->output_size = output_size;
  plan->rank = 1;
  plan->dims[0] = 1;
  plan->elements = 1;
  for (int i = 0; i < output->size; ++i) {
    if (output->data[i] <= 0) {
      /* Nothing to walk; the callers never run an empty plan, and the
       * product of the other dims might not even fit an int. */
      plan->dims[0] = 0;
      plan->elements = 0;
      return;
    }
    plan->elements *= output->data[i];
  }
  bool repeat[LG_BROADCAST_MAX_INPUTS][LG_BROADCAST_MAX_RANK] = {{false}};
  int n = 0;
  for (int i = 0; i < output->size; ++i) {
    const int d = output->data[i];
    if (d == 1) continue; /* adds nothing to the loop nest */
    /* d != 1, so an input dim of 1 means that input repeats along it. */
    bool same = n > 0;
    bool r[LG_BROADCAST_MAX_INPUTS];
    for (int j = 0; j < num_inputs; ++j) {
      r[j] = lg_broadcast_dim(inputs[j], output->size, i) == 1;
      if (same && repeat[j][n - 1] != r[j]) same = false;
    }
    if (same) {
      plan->dims[n - 1] *= d; /* fits: the product is at most elements */
      continue;
    }
    plan->dims[n] = d;
    for (int j = 0; j < num_inputs; ++j) repeat[j][n] = r[j];
    ++n;
  }
  if (n > 0) plan->rank = n; /* else a single element: rank 1, dim 1 */
  lg_broadcast_strides(plan, repeat);
}

void lg_broadcast_plan_walk(const lg_broadcast_plan* plan, int64_t begin,
                            int64_t end, const void* const* inputs,
                            void* output, lg_broadcast_row_fn fn, void* ctx) {
  if (begin >= end) return;
  const int last = plan->rank - 1;
  const int inner = plan->dims[last];
  const int nin = plan->num_inputs;
  /* The odometer over the outer dims, started at `begin`. */
  int odometer[LG_BROADCAST_MAX_RANK] = {0};
  int64_t rest = begin / inner;
  int col = (int)(begin % inner);
  for (int k = last - 1; k >= 0; --k) {
    odometer[k] = (int)(rest % plan->dims[k]);
    rest /= plan->dims[k];
  }
  /* Each input's element offset at the start of the current row. */
  ptrdiff_t row[LG_BROADCAST_MAX_INPUTS] = {0};
  ptrdiff_t inner_strides[LG_BROADCAST_MAX_INPUTS] = {0};
  for (int j = 0; j < nin; ++j) {
    for (int k = 0; k < last; ++k) row[j] += odometer[k] * plan->strides[j][k];
    inner_strides[j] = plan->strides[j][last];
  }
  const void* ptrs[LG_BROADCAST_MAX_INPUTS] = {NULL};
  int64_t pos = begin;
  for (;;) {
    const int64_t left = end - pos;
    const int n = left < inner - col ? (int)left : inner - col;
    for (int j = 0; j < nin; ++j) {
      const ptrdiff_t off = row[j] + (ptrdiff_t)col * inner_strides[j];
      ptrs[j] = (const char*)inputs[j] + off * (ptrdiff_t)plan->input_size[j];
    }
    fn(ctx, ptrs, inner_strides,
       (char*)output + pos * (int64_t)plan->output_size, n);
    pos += n;
    if (pos >= end) break;
    col = 0; /* the row was finished, since end lies beyond it */
    for (int k = last - 1; k >= 0; --k) {
      for (int j = 0; j < nin; ++j) row[j] += plan->strides[j][k];
      if (++odometer[k] < plan->dims[k]) break;
      for (int j = 0; j < nin; ++j) {
        row[j] -= plan->strides[j][k] * plan->dims[k];
      }
      odometer[k] = 0;
    }
  }
}
