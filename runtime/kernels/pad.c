/* PAD, PADV2 and MIRROR_PAD: the input surrounded by padding.
 *
 * paddings is an INT32 or INT64 [rank, 2] tensor of (before, after) counts,
 * all >= 0. PAD and PADV2 fill the border with constant_values (input 2:
 * one element of the input's type, for int8, uint8 and int16 with the
 * output's scale and zero point, as LiteRT requires) when given, else with
 * 0, which for int8 and uint8 means the output's zero point. Invoke writes
 * the output once, row by row (the dims from the innermost padded one
 * inward): a row is border, or border + one input row + border; rows are
 * split over the thread pool.
 *
 * MIRROR_PAD mirrors the input at each edge: REFLECT leaves the edge
 * element out (padding at most dim - 1), SYMMETRIC repeats it (at most dim).
 * Invoke walks the output rows, maps each row to its input row, and copies
 * the row's middle with memcpy and its ends element by element.
 *
 * Non-constant paddings make the output dynamic.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_PAD_OP "PAD"
#define LG_PADV2_OP "PADV2"
#define LG_MIRROR_PAD_OP "MIRROR_PAD"

enum {
  kInputTensor = 0,
  kPaddingsTensor = 1,
  kConstantValuesTensor = 2,
  kOutputTensor = 0,
};

typedef struct lg_pad_data {
  bool prepared;
  bool dynamic; /* the plan is built in Invoke */
  int rank;
  int in_dims[LG_SHAPE_MAX_RANK];
  int out_dims[LG_SHAPE_MAX_RANK];
  int before[LG_SHAPE_MAX_RANK];
  int64_t in_elements;
  int64_t out_elements;
} lg_pad_data;

static void* lg_pad_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_pad_data));
}

/* Largest padding allowed on each side of a dim of size `dim`. An empty dim
 * takes no padding in either mirror mode. */
static int64_t lg_pad_limit(int mirror_mode, int dim) {
  if (mirror_mode == kTfLiteMirrorPaddingReflect) return dim > 0 ? dim - 1 : 0;
  if (mirror_mode == kTfLiteMirrorPaddingSymmetric) return dim;
  return (int64_t)INT_MAX - dim;
}

/* Reads paddings, checks them and fills the dims of `data`. mirror_mode is
 * 0 for PAD / PADV2. */
static TfLiteStatus lg_pad_read(TfLiteContext* context, const char* op,
                                lg_pad_data* data, const TfLiteTensor* input,
                                const TfLiteTensor* paddings, int mirror_mode) {
  const int rank = input->dims->size;
  char shape[LG_SHAPE_TEXT];
  if (paddings->dims == NULL || paddings->dims->size != 2 ||
      paddings->dims->data[0] != rank || paddings->dims->data[1] != 2) {
    lg_kernel_log(context, op,
                  "paddings shape %s is not [%d,2] (input rank %d)",
                  lg_kernel_format_shape(paddings->dims, shape, sizeof(shape)),
                  rank, rank);
    return kTfLiteError;
  }
  int64_t values[2 * LG_SHAPE_MAX_RANK];
  int count = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, op, "paddings", paddings,
                                           2 * LG_SHAPE_MAX_RANK, values,
                                           &count));
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    const int dim = input->dims->data[d];
    const int64_t lo = values[2 * d], hi = values[2 * d + 1];
    const int64_t limit = lg_pad_limit(mirror_mode, dim);
    if (lo < 0 || hi < 0) {
      lg_kernel_log(context, op,
                    "paddings (%lld, %lld) of dim %d are negative; they must "
                    "be >= 0",
                    (long long)lo, (long long)hi, d);
      return kTfLiteError;
    }
    if (lo > limit || hi > limit) {
      lg_kernel_log(context, op,
                    "paddings (%lld, %lld) of dim %d (size %d) exceed %lld%s",
                    (long long)lo, (long long)hi, d, dim, (long long)limit,
                    mirror_mode == kTfLiteMirrorPaddingReflect
                        ? " (REFLECT pads at most dim - 1)"
                    : mirror_mode == kTfLiteMirrorPaddingSymmetric
                        ? " (SYMMETRIC pads at most dim)"
                        : "");
      return kTfLiteError;
    }
    if ((int64_t)dim + lo + hi > INT_MAX) {
      lg_kernel_log(context, op,
                    "dim %d (size %d) padded by (%lld, %lld) exceeds %d", d,
                    dim, (long long)lo, (long long)hi, INT_MAX);
      return kTfLiteError;
    }
    data->in_dims[d] = dim;
    data->before[d] = (int)lo;
    data->out_dims[d] = (int)(dim + lo + hi);
    /* Many large dims overflowed the product (found by the interpreter
     * fuzzer): it saturates just above INT_MAX. */
    elements =
        lg_shape_mul_capped(elements, data->out_dims[d], (int64_t)INT_MAX + 1);
  }
  if (elements > INT_MAX) {
    lg_kernel_log(context, op, "the padded output has more than %d elements",
                  INT_MAX);
    return kTfLiteError;
  }
  data->rank = rank;
  data->in_elements = lg_kernel_num_elements(input);
  data->out_elements = elements;
  return kTfLiteOk;
}

/* Builds the plan from the current inputs and resizes the output. */
static TfLiteStatus lg_pad_build(TfLiteContext* context, TfLiteNode* node,
                                 const char* op, int mirror_mode,
                                 lg_pad_data* data) {
  const TfLiteTensor* input;
  const TfLiteTensor* paddings;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kPaddingsTensor, &paddings));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(
      lg_pad_read(context, op, data, input, paddings, mirror_mode));
  return lg_shape_resize(context, op, output, data->out_dims, data->rank);
}

/* Checks the optional constant_values input of PAD / PADV2. */
static TfLiteStatus lg_pad_check_value(TfLiteContext* context, const char* op,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* value,
                                       const TfLiteTensor* output) {
  if (value == NULL) return kTfLiteOk;
  if (value->type != input->type) {
    lg_kernel_log(
        context, op, "constant_values type %s differs from input type %s",
        TfLiteTypeGetName(value->type), TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if ((value->type == kTfLiteInt8 || value->type == kTfLiteUInt8 ||
       value->type == kTfLiteInt16) &&
      (value->params.scale != output->params.scale ||
       value->params.zero_point != output->params.zero_point)) {
    lg_kernel_log(context, op,
                  "constant_values quantization (scale %g, zero point %d) "
                  "differs from the output's (scale %g, zero point %d)",
                  (double)value->params.scale, (int)value->params.zero_point,
                  (double)output->params.scale, (int)output->params.zero_point);
    return kTfLiteError;
  }
  if (value->dims == NULL || lg_kernel_num_elements(value) != 1) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, op, "constant_values must hold 1 element, shape %s",
                  lg_kernel_format_shape(value->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_pad_prepare_op(TfLiteContext* context, TfLiteNode* node,
                                      const char* op, int mirror_mode) {
  lg_pad_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  data->dynamic = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, op, 2, mirror_mode ? 2 : 3, 1));
  const TfLiteTensor *input, *paddings, *value = NULL;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kPaddingsTensor, &paddings));
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(
      context, node, op, kConstantValuesTensor, &value));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPES_MOVE));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "paddings", paddings->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_pad_check_value(context, op, input, value, output));
  if (lg_kernel_is_constant(paddings)) {
    TF_LITE_ENSURE_STATUS(lg_pad_build(context, node, op, mirror_mode, data));
  } else {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* The start of every Invoke: plan (when dynamic), tensors, sizes. */
static TfLiteStatus lg_pad_invoke_begin(TfLiteContext* context,
                                        TfLiteNode* node, const char* op,
                                        int mirror_mode,
                                        const TfLiteTensor** input,
                                        TfLiteTensor** output) {
  lg_pad_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_pad_build(context, node, op, mirror_mode, data));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, output));
  if (lg_kernel_num_elements(*input) != data->in_elements ||
      lg_kernel_num_elements(*output) != data->out_elements) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", *input));
  return lg_shape_check_data(context, op, "output", *output);
}

/* ---- PAD / PADV2 --------------------------------------------------------*/

/* The border value's bytes: constant_values, the zero point, or zeros. */
static TfLiteStatus lg_pad_value(TfLiteContext* context, TfLiteNode* node,
                                 const char* op, const TfLiteTensor* output,
                                 size_t size, unsigned char* bytes) {
  const TfLiteTensor* value = NULL;
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(
      context, node, op, kConstantValuesTensor, &value));
  memset(bytes, 0, size);
  if (value != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_data(context, op, "constant_values", value));
    memcpy(bytes, value->data.raw, size);
  } else if (output->type == kTfLiteInt8) {
    const int8_t zp = (int8_t)output->params.zero_point;
    memcpy(bytes, &zp, 1);
  } else if (output->type == kTfLiteUInt8) {
    const uint8_t zp = (uint8_t)output->params.zero_point;
    memcpy(bytes, &zp, 1);
  }
  return kTfLiteOk;
}

/* PAD / PADV2 row by row: the dims from the innermost padded one inward
 * form one output row, which is either all border (its outer coordinates
 * lie in the padding) or border, one contiguous input row, border. Every
 * output byte is written once, and rows are split over the thread pool. */
typedef struct lg_pad_rows_job {
  const lg_pad_data* data;
  const char* input;
  char* output;
  const unsigned char* value;
  size_t elem_size;
  int split;           /* the innermost padded dim; rows index dims < split */
  size_t row_bytes;    /* output bytes of one row */
  size_t before_bytes; /* border before the input row */
  size_t in_row_bytes; /* input bytes of one row */
  int64_t rows;
  int num_tasks;
} lg_pad_rows_job;

/* Output bytes below which one thread pads the whole tensor. */
#define LG_PAD_MIN_PARALLEL_BYTES (1 << 18)

static void lg_pad_fill_bytes(char* dst, size_t bytes, const unsigned char* v,
                              size_t elem_size) {
  if (bytes > 0) lg_shape_fill(dst, (int64_t)(bytes / elem_size), v, elem_size);
}

static void lg_pad_rows_task(void* ctx, int index) {
  const lg_pad_rows_job* job = ctx;
  const lg_pad_data* d = job->data;
  const int64_t r0 = job->rows * index / job->num_tasks;
  const int64_t r1 = job->rows * (index + 1) / job->num_tasks;
  /* The output coordinates of row r0 along dims < split, then stepped like
   * an odometer (no division per row). */
  int coord[LG_SHAPE_MAX_RANK] = {0};
  int64_t rest = r0;
  for (int k = job->split - 1; k >= 0; --k) {
    coord[k] = (int)(rest % d->out_dims[k]);
    rest /= d->out_dims[k];
  }
  const size_t after = job->row_bytes - job->before_bytes - job->in_row_bytes;
  for (int64_t r = r0; r < r1; ++r) {
    char* out = job->output + (size_t)r * job->row_bytes;
    /* The row's input row, or none when a coordinate is in the padding. */
    int64_t in_row = 0;
    bool inside = true;
    for (int k = 0; k < job->split && inside; ++k) {
      const int i = coord[k] - d->before[k];
      inside = i >= 0 && i < d->in_dims[k];
      in_row = in_row * d->in_dims[k] + i;
    }
    if (!inside) {
      lg_pad_fill_bytes(out, job->row_bytes, job->value, job->elem_size);
    } else {
      lg_pad_fill_bytes(out, job->before_bytes, job->value, job->elem_size);
      memcpy(out + job->before_bytes,
             job->input + (size_t)in_row * job->in_row_bytes,
             job->in_row_bytes);
      lg_pad_fill_bytes(out + job->before_bytes + job->in_row_bytes, after,
                        job->value, job->elem_size);
    }
    for (int k = job->split - 1; k >= 0; --k) {
      if (++coord[k] < d->out_dims[k]) break;
      coord[k] = 0;
    }
  }
}

static void lg_pad_run_rows(TfLiteContext* context, const lg_pad_data* d,
                            const void* input, void* output,
                            const unsigned char* value, size_t elem_size) {
  int split = 0; /* an input with no padding at all is one row */
  for (int k = 0; k < d->rank; ++k) {
    if (d->in_dims[k] != d->out_dims[k]) split = k;
  }
  size_t inner = elem_size; /* bytes of one element of dim split */
  for (int k = split + 1; k < d->rank; ++k) inner *= (size_t)d->out_dims[k];
  lg_pad_rows_job job = {
      .data = d,
      .input = input,
      .output = output,
      .value = value,
      .elem_size = elem_size,
      .split = split,
      .row_bytes = inner * (size_t)(d->rank > 0 ? d->out_dims[split] : 1),
      .before_bytes = inner * (size_t)(d->rank > 0 ? d->before[split] : 0),
      .in_row_bytes = inner * (size_t)(d->rank > 0 ? d->in_dims[split] : 1),
      .num_tasks = 1,
  };
  job.rows = (int64_t)((size_t)d->out_elements * elem_size / job.row_bytes);
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && job.rows > 1 &&
      (size_t)d->out_elements * elem_size >= LG_PAD_MIN_PARALLEL_BYTES) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run(pool, lg_pad_rows_task, &job, job.num_tasks);
}

static TfLiteStatus lg_pad_invoke_op(TfLiteContext* context, TfLiteNode* node,
                                     const char* op) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_pad_invoke_begin(context, node, op, 0, &input, &output));
  const lg_pad_data* data = node->user_data;
  if (data->out_elements == 0) return kTfLiteOk;
  size_t size = 0;
  TfLiteGetSizeOfType(output->type, &size);
  unsigned char value[16];
  TF_LITE_ENSURE_STATUS(lg_pad_value(context, node, op, output, size, value));
  if (data->in_elements == 0) {
    lg_shape_fill(output->data.raw, data->out_elements, value, size);
    return kTfLiteOk;
  }
  lg_pad_run_rows(context, data, input->data.raw, output->data.raw, value,
                  size);
  return kTfLiteOk;
}

static TfLiteStatus lg_pad_prepare(TfLiteContext* context, TfLiteNode* node) {
  return lg_pad_prepare_op(context, node, LG_PAD_OP, 0);
}

static TfLiteStatus lg_pad_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_pad_invoke_op(context, node, LG_PAD_OP);
}

static TfLiteStatus lg_padv2_prepare(TfLiteContext* context, TfLiteNode* node) {
  return lg_pad_prepare_op(context, node, LG_PADV2_OP, 0);
}

static TfLiteStatus lg_padv2_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_pad_invoke_op(context, node, LG_PADV2_OP);
}

/* ---- MIRROR_PAD ---------------------------------------------------------*/

static int lg_mirror_mode(const TfLiteNode* node) {
  const TfLiteMirrorPaddingParams* params = node->builtin_data;
  return params != NULL ? (int)params->mode : (int)kTfLiteMirrorPaddingUnknown;
}

/* The input index that output index o of a dim maps to. */
static int lg_mirror_index(int o, int before, int n, bool reflect) {
  const int i = o - before;
  if (i < 0) return reflect ? -i : -i - 1;
  if (i >= n) return reflect ? 2 * n - 2 - i : 2 * n - 1 - i;
  return i;
}

/* One output row along the last dim from the input row `src`. */
static void lg_mirror_row(const char* src, char* dst, int before, int n,
                          int out_n, bool reflect, size_t size) {
  for (int o = 0; o < before; ++o) {
    memcpy(dst + (size_t)o * size,
           src + (size_t)lg_mirror_index(o, before, n, reflect) * size, size);
  }
  memcpy(dst + (size_t)before * size, src, (size_t)n * size);
  for (int o = before + n; o < out_n; ++o) {
    memcpy(dst + (size_t)o * size,
           src + (size_t)lg_mirror_index(o, before, n, reflect) * size, size);
  }
}

static void lg_mirror_run(const lg_pad_data* data, bool reflect, size_t size,
                          const char* in, char* out) {
  const int rank = data->rank;
  if (rank == 0) {
    memcpy(out, in, size);
    return;
  }
  const int last = rank - 1;
  ptrdiff_t in_stride[LG_SHAPE_MAX_RANK];
  ptrdiff_t s = 1;
  for (int d = last; d >= 0; --d) {
    in_stride[d] = s;
    s *= data->in_dims[d];
  }
  const int out_n = data->out_dims[last];
  const int64_t rows = data->out_elements / out_n;
  int index[LG_SHAPE_MAX_RANK] = {0};
  for (int64_t row = 0; row < rows; ++row) {
    ptrdiff_t offset = 0;
    for (int d = 0; d < last; ++d) {
      offset += lg_mirror_index(index[d], data->before[d], data->in_dims[d],
                                reflect) *
                in_stride[d];
    }
    lg_mirror_row(in + offset * (ptrdiff_t)size,
                  out + (size_t)row * (size_t)out_n * size, data->before[last],
                  data->in_dims[last], out_n, reflect, size);
    for (int d = last - 1; d >= 0; --d) {
      if (++index[d] < data->out_dims[d]) break;
      index[d] = 0;
    }
  }
}

static TfLiteStatus lg_mirror_pad_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  const int mode = lg_mirror_mode(node);
  if (mode != kTfLiteMirrorPaddingReflect &&
      mode != kTfLiteMirrorPaddingSymmetric) {
    lg_kernel_log(context, LG_MIRROR_PAD_OP,
                  "mode %d is not supported (expected REFLECT or SYMMETRIC)",
                  mode);
    return kTfLiteError;
  }
  return lg_pad_prepare_op(context, node, LG_MIRROR_PAD_OP, mode);
}

static TfLiteStatus lg_mirror_pad_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  const int mode = lg_mirror_mode(node);
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_pad_invoke_begin(context, node, LG_MIRROR_PAD_OP,
                                            mode, &input, &output));
  const lg_pad_data* data = node->user_data;
  if (data->out_elements == 0) return kTfLiteOk;
  size_t size = 0;
  TfLiteGetSizeOfType(output->type, &size);
  lg_mirror_run(data, mode == kTfLiteMirrorPaddingReflect, size,
                input->data.raw, output->data.raw);
  return kTfLiteOk;
}

/* ---- Registrations ------------------------------------------------------*/

LG_KERNEL_REGISTRATION(PAD, lg_pad_init, lg_kernel_free_data, lg_pad_prepare,
                       lg_pad_invoke)

LG_KERNEL_REGISTRATION(PADV2, lg_pad_init, lg_kernel_free_data,
                       lg_padv2_prepare, lg_padv2_invoke)

LG_KERNEL_REGISTRATION(MIRROR_PAD, lg_pad_init, lg_kernel_free_data,
                       lg_mirror_pad_prepare, lg_mirror_pad_invoke)
