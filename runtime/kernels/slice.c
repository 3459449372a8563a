/* SLICE and STRIDED_SLICE: a (strided) box of the input.
 *
 * SLICE (inputs: input, begin, size) takes size[d] elements from begin[d]
 * along each dim; size -1 means "to the end". STRIDED_SLICE (inputs: input,
 * begin, end, strides) follows TFLite's rules:
 *   - begin/end index from the back when negative and are clamped to the
 *     dim ([0, dim] for a positive stride, [-1, dim-1] for a negative one);
 *   - begin_mask / end_mask bit i ignores begin[i] / end[i] (the whole
 *     range in the stride's direction);
 *   - ellipsis_mask (one bit) stands for as many full dims as the other
 *     entries leave, new_axis_mask inserts a dim of 1 (ignored on the
 *     ellipsis entry), shrink_axis_mask takes the single element at begin[i]
 *     and drops the dim (that index must lie inside the dim);
 *   - offset (version 8) reads end[i] relative to begin[i];
 *   - the entries after the last spec entry take whole dims.
 * Both turn into one lg_shape_copy: per output dim a count and an input
 * stride (the dim's stride times the slice stride), plus a start offset.
 * Non-constant begin/size/end/strides make the output dynamic.
 *
 * STRING inputs (SLICE version 3, STRIDED_SLICE version 5, as TFLite) give
 * a dynamic STRING output written in Invoke by the interpreter's string
 * writer, each output string found through the copy plan as it was before
 * lg_shape_copy_finish reordered it.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "runtime/kernels/strided_slice_entry.h"
#include "runtime/string_tensor.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_SLICE_OP "SLICE"
#define LG_STRIDED_SLICE_OP "STRIDED_SLICE"

enum {
  kInputTensor = 0,
  kBeginTensor = 1,
  kSizeTensor = 2,    /* SLICE */
  kEndTensor = 2,     /* STRIDED_SLICE */
  kStridesTensor = 3, /* STRIDED_SLICE */
  kOutputTensor = 0,
};

typedef struct lg_slice_data {
  bool prepared;
  bool dynamic; /* the plan is built in Invoke */
  lg_shape_copy copy;
  lg_shape_copy order; /* the copy before finish (STRING inputs) */
  int64_t in_elements;
  int64_t out_elements;
} lg_slice_data;

/* One dim of the slice in the input's (effective) dims. */
typedef struct lg_slice_dim {
  int64_t start;    /* first index */
  int64_t step;     /* slice stride (1 for SLICE) */
  int64_t count;    /* elements taken */
  ptrdiff_t stride; /* the input's element stride of this dim (0 for a new
                       axis) */
  bool keep;        /* appears in the output shape (false: shrunk) */
} lg_slice_dim;

static void* lg_slice_init(TfLiteContext* context, const char* buffer,
                           size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_slice_data));
}

/* Turns the slice dims into the copy plan and resizes the output. */
static TfLiteStatus lg_slice_plan(TfLiteContext* context, const char* op,
                                  lg_slice_data* data, const TfLiteTensor* in,
                                  TfLiteTensor* output, const lg_slice_dim* d,
                                  int n) {
  int dims[LG_SHAPE_MAX_RANK];
  int rank = 0;
  int64_t elements = 1;
  size_t size = 0;
  TfLiteGetSizeOfType(in->type, &size);
  lg_shape_copy_init(&data->copy, size);
  for (int k = 0; k < n; ++k) {
    elements *= d[k].count;
    if (!d[k].keep) continue;
    if (rank == LG_SHAPE_MAX_RANK) {
      lg_kernel_log(context, op, "the output rank is above the supported %d",
                    LG_SHAPE_MAX_RANK);
      return kTfLiteError;
    }
    dims[rank++] = (int)d[k].count;
  }
  /* Output strides: row-major over the counts (shrunk dims count 1). */
  ptrdiff_t out_stride[LG_SHAPE_COPY_MAX_RANK];
  ptrdiff_t s = 1;
  for (int k = n - 1; k >= 0; --k) {
    out_stride[k] = s;
    s *= (ptrdiff_t)d[k].count;
  }
  for (int k = 0; k < n; ++k) {
    data->copy.src_offset += (ptrdiff_t)d[k].start * d[k].stride;
    lg_shape_copy_add_dim(&data->copy, (int)d[k].count,
                          d[k].stride * (ptrdiff_t)d[k].step, out_stride[k]);
  }
  data->order = data->copy;
  lg_shape_copy_finish(&data->copy);
  data->in_elements = lg_kernel_num_elements(in);
  data->out_elements = elements;
  return lg_shape_resize(context, op, output, dims, rank);
}

/* The input's element strides, row-major. */
static void lg_slice_strides(const TfLiteTensor* in, ptrdiff_t* stride) {
  ptrdiff_t s = 1;
  for (int k = in->dims->size - 1; k >= 0; --k) {
    stride[k] = s;
    s *= in->dims->data[k];
  }
}

/* Reads a 1-D index tensor of exactly `count` elements. */
static TfLiteStatus lg_slice_read(TfLiteContext* context, const char* op,
                                  const char* what, const TfLiteTensor* t,
                                  int count, int64_t* values) {
  int n = 0;
  if (t->dims == NULL || t->dims->size != 1 || t->dims->data[0] != count) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, op, "%s must be 1-D with %d elements, got %s", what,
                  count, lg_kernel_format_shape(t->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return lg_shape_read_ints(context, op, what, t, count, values, &n);
}

/* The common Prepare start: node data, counts, input and output types. */
static TfLiteStatus lg_slice_begin(TfLiteContext* context, TfLiteNode* node,
                                   const char* op, int num_inputs,
                                   const char* const* names,
                                   lg_slice_data** data,
                                   const TfLiteTensor** input,
                                   TfLiteTensor** output) {
  *data = node->user_data;
  if (*data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  (*data)->prepared = false;
  (*data)->dynamic = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, op, num_inputs, num_inputs, 1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", (*input)->type,
                          LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteString)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, *input, *output));
  if ((*output)->type == kTfLiteString) lg_kernel_set_dynamic(*output);
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", *input, LG_SHAPE_MAX_RANK));
  for (int i = 1; i < num_inputs; ++i) {
    const TfLiteTensor* index;
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, i, &index));
    TF_LITE_ENSURE_STATUS(lg_shape_check_type(
        context, op, names[i - 1], index->type, LG_SHAPE_TYPES_INDEX));
  }
  return kTfLiteOk;
}

/* Whether inputs 1.. are all constant. */
static bool lg_slice_constant_inputs(TfLiteContext* context, TfLiteNode* node,
                                     const char* op) {
  for (int i = 1; i < node->inputs->size; ++i) {
    const TfLiteTensor* t;
    if (lg_kernel_input(context, node, op, i, &t) != kTfLiteOk ||
        !lg_kernel_is_constant(t)) {
      return false;
    }
  }
  return true;
}

/* STRING: which input string output string k is. */
static int64_t lg_slice_string_at(const void* ctx, int64_t k) {
  return lg_shape_copy_source(&((const lg_slice_data*)ctx)->order, k);
}

static TfLiteStatus lg_slice_invoke_op(
    TfLiteContext* context, TfLiteNode* node, const char* op,
    TfLiteStatus (*build)(TfLiteContext*, TfLiteNode*, lg_slice_data*)) {
  lg_slice_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  if (data->dynamic) TF_LITE_ENSURE_STATUS(build(context, node, data));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->in_elements ||
      lg_kernel_num_elements(output) != data->out_elements) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (input->type == kTfLiteString) {
    TF_LITE_ENSURE_STATUS(lg_string_check_input(context, op, "input", input));
    return lg_string_write_mapped(context, op, output, input,
                                  output->dims->data, output->dims->size,
                                  lg_slice_string_at, data);
  }
  if (data->out_elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  lg_shape_copy_run(&data->copy, input->data.raw, output->data.raw);
  return kTfLiteOk;
}

/* ---- SLICE --------------------------------------------------------------*/

static TfLiteStatus lg_slice_build(TfLiteContext* context, TfLiteNode* node,
                                   lg_slice_data* data) {
  const TfLiteTensor *input, *begin, *size;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SLICE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SLICE_OP, kBeginTensor, &begin));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SLICE_OP, kSizeTensor, &size));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_SLICE_OP, kOutputTensor, &output));
  const int rank = input->dims->size;
  int64_t b[LG_SHAPE_MAX_RANK], s[LG_SHAPE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_slice_read(context, LG_SLICE_OP, "begin", begin, rank, b));
  TF_LITE_ENSURE_STATUS(
      lg_slice_read(context, LG_SLICE_OP, "size", size, rank, s));
  ptrdiff_t stride[LG_SHAPE_MAX_RANK];
  lg_slice_strides(input, stride);
  lg_slice_dim d[LG_SHAPE_MAX_RANK];
  char shape[LG_SHAPE_TEXT];
  for (int k = 0; k < rank; ++k) {
    const int dim = input->dims->data[k];
    const int64_t count = s[k] == -1 ? dim - b[k] : s[k];
    if (b[k] < 0 || b[k] > dim || count < 0 || b[k] + count > dim) {
      lg_kernel_log(context, LG_SLICE_OP,
                    "begin %lld and size %lld of dim %d are out of range for "
                    "input %s",
                    (long long)b[k], (long long)s[k], k,
                    lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
      return kTfLiteError;
    }
    d[k] = (lg_slice_dim){.start = b[k],
                          .step = 1,
                          .count = count,
                          .stride = stride[k],
                          .keep = true};
  }
  return lg_slice_plan(context, LG_SLICE_OP, data, input, output, d, rank);
}

static TfLiteStatus lg_slice_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_slice_data* data;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  static const char* const names[] = {"begin", "size"};
  TF_LITE_ENSURE_STATUS(lg_slice_begin(context, node, LG_SLICE_OP, 3, names,
                                       &data, &input, &output));
  if (lg_slice_constant_inputs(context, node, LG_SLICE_OP)) {
    TF_LITE_ENSURE_STATUS(lg_slice_build(context, node, data));
  } else {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_slice_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_slice_invoke_op(context, node, LG_SLICE_OP, lg_slice_build);
}

/* ---- STRIDED_SLICE ------------------------------------------------------*/

/* The spec entries as read from the inputs and options. */
typedef struct lg_strided_spec {
  int n; /* entries in begin / end / strides */
  int64_t begin[LG_SHAPE_MAX_RANK];
  int64_t end[LG_SHAPE_MAX_RANK];
  int64_t strides[LG_SHAPE_MAX_RANK];
  TfLiteStridedSliceParams params;
} lg_strided_spec;

/* Regular entry j against an input dim of size `dim`
 * (lg_strided_slice_entry). An entry that would read outside the dim sets
 * *bad to j; the caller fails only when the output has elements. */
static void lg_strided_dim(const lg_strided_spec* spec, int j, int dim,
                           lg_slice_dim* out, int* bad) {
  lg_strided_entry e;
  lg_strided_slice_entry(&spec->params, j, spec->begin[j], spec->end[j],
                         spec->strides[j], dim, &e);
  out->start = e.start;
  out->step = e.step;
  out->count = e.count;
  out->keep = e.keep;
  if (e.bad) *bad = j;
}

/* Checks the masks; *ellipsis is the ellipsis entry (or -1), *new_axes the
 * count of new-axis entries (outside the ellipsis), *regular the count of
 * entries that index an input dim. */
static TfLiteStatus lg_strided_check_spec(TfLiteContext* context,
                                          const lg_strided_spec* spec,
                                          int* ellipsis, int* new_axes,
                                          int* regular) {
  const unsigned used = (1u << spec->n) - 1u;
  const unsigned e = (unsigned)spec->params.ellipsis_mask & used;
  if ((e & (e - 1)) != 0) {
    lg_kernel_log(context, LG_STRIDED_SLICE_OP,
                  "ellipsis_mask 0x%x has more than one bit set",
                  (unsigned)spec->params.ellipsis_mask);
    return kTfLiteError;
  }
  *ellipsis = -1;
  *new_axes = *regular = 0;
  for (int j = 0; j < spec->n; ++j) {
    if ((e >> j) & 1) {
      *ellipsis = j;
    } else if ((spec->params.new_axis_mask >> j) & 1) {
      ++*new_axes;
    } else {
      ++*regular;
    }
    if (spec->strides[j] == 0) {
      lg_kernel_log(context, LG_STRIDED_SLICE_OP,
                    "strides[%d] is 0 (strides must be non-zero)", j);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* Expands the spec into one slice dim per effective dim (the input dims
 * plus the new axes), the way LiteRT does: the ellipsis stands for
 * rank - regular whole dims but always at least one, entries after the last
 * effective dim are ignored, and dims after the last entry are whole. */
static TfLiteStatus lg_strided_expand(TfLiteContext* context,
                                      const lg_strided_spec* spec,
                                      const TfLiteTensor* in, lg_slice_dim* d,
                                      int* n, int* bad) {
  const int rank = in->dims->size;
  int ellipsis, new_axes, regular;
  TF_LITE_ENSURE_STATUS(
      lg_strided_check_spec(context, spec, &ellipsis, &new_axes, &regular));
  const int eff = rank + new_axes;
  int covered = 0;
  if (ellipsis >= 0) {
    covered = rank - regular < eff - ellipsis ? rank - regular : eff - ellipsis;
    if (covered < 1) covered = 1;
  }
  ptrdiff_t stride[LG_SHAPE_MAX_RANK];
  lg_slice_strides(in, stride);
  int k = 0; /* next input dim */
  for (int i = 0; i < eff; ++i) {
    const bool in_ellipsis =
        ellipsis >= 0 && i >= ellipsis && i < ellipsis + covered;
    const int j =
        ellipsis >= 0 && i >= ellipsis + covered ? i - covered + 1 : i;
    if (!in_ellipsis && j < spec->n &&
        ((spec->params.new_axis_mask >> j) & 1)) {
      d[i] = (lg_slice_dim){.step = 1, .count = 1, .keep = true};
      continue;
    }
    if (k >= rank) {
      lg_kernel_log(context, LG_STRIDED_SLICE_OP,
                    "the slice entries index more dims than the input's %d",
                    rank);
      return kTfLiteError;
    }
    if (in_ellipsis || j >= spec->n) {
      d[i] =
          (lg_slice_dim){.step = 1, .count = in->dims->data[k], .keep = true};
    } else {
      lg_strided_dim(spec, j, in->dims->data[k], &d[i], bad);
    }
    d[i].stride = stride[k++];
  }
  *n = eff;
  return kTfLiteOk;
}

static TfLiteStatus lg_strided_build(TfLiteContext* context, TfLiteNode* node,
                                     lg_slice_data* data) {
  const char* op = LG_STRIDED_SLICE_OP;
  const TfLiteTensor *input, *begin, *end, *strides;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kBeginTensor, &begin));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kEndTensor, &end));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kStridesTensor, &strides));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  lg_strided_spec spec;
  memset(&spec, 0, sizeof(spec));
  if (node->builtin_data != NULL) {
    spec.params = *(const TfLiteStridedSliceParams*)node->builtin_data;
  }
  spec.n =
      begin->dims != NULL && begin->dims->size == 1 ? begin->dims->data[0] : -1;
  if (spec.n < 0 || spec.n > LG_SHAPE_MAX_RANK) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, op,
                  "begin must be 1-D with at most %d elements, "
                  "got %s",
                  LG_SHAPE_MAX_RANK,
                  lg_kernel_format_shape(begin->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_slice_read(context, op, "begin", begin, spec.n, spec.begin));
  TF_LITE_ENSURE_STATUS(
      lg_slice_read(context, op, "end", end, spec.n, spec.end));
  TF_LITE_ENSURE_STATUS(
      lg_slice_read(context, op, "strides", strides, spec.n, spec.strides));
  lg_slice_dim d[LG_SHAPE_COPY_MAX_RANK];
  int n = 0;
  int bad = -1;
  TF_LITE_ENSURE_STATUS(lg_strided_expand(context, &spec, input, d, &n, &bad));
  int64_t elements = 1;
  for (int k = 0; k < n; ++k) elements *= d[k].count;
  if (bad >= 0 && elements > 0) {
    lg_kernel_log(
        context, op,
        "entry %d (begin %lld, end %lld, stride %lld%s) reads "
        "outside its input dim",
        bad, (long long)spec.begin[bad], (long long)spec.end[bad],
        (long long)spec.strides[bad],
        ((spec.params.shrink_axis_mask >> bad) & 1) ? ", shrunk" : ", offset");
    return kTfLiteError;
  }
  return lg_slice_plan(context, op, data, input, output, d, n);
}

static TfLiteStatus lg_strided_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  lg_slice_data* data;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  static const char* const names[] = {"begin", "end", "strides"};
  TF_LITE_ENSURE_STATUS(lg_slice_begin(context, node, LG_STRIDED_SLICE_OP, 4,
                                       names, &data, &input, &output));
  if (lg_slice_constant_inputs(context, node, LG_STRIDED_SLICE_OP)) {
    TF_LITE_ENSURE_STATUS(lg_strided_build(context, node, data));
  } else {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_strided_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  return lg_slice_invoke_op(context, node, LG_STRIDED_SLICE_OP,
                            lg_strided_build);
}

LG_KERNEL_REGISTRATION(SLICE, lg_slice_init, lg_kernel_free_data,
                       lg_slice_prepare, lg_slice_invoke)

LG_KERNEL_REGISTRATION(STRIDED_SLICE, lg_slice_init, lg_kernel_free_data,
                       lg_strided_prepare, lg_strided_invoke)
