/* CONV_2D as one GEMM per window row, reading the input in place.
 *
 * For output row y and window row kh, the window of output pixel x covers
 * filter_w * in_c consecutive floats of input row y * stride_h - pad_top +
 * kh * dilation_h (when dilation_w is 1), and pixel x + 1's starts stride_w
 * * in_c floats further. So the row's patches for that kh are a row-major
 * matrix with row stride stride_w * in_c that the GEMM can read where it
 * lies: output row y is the sum over the valid kh of
 *   A_kh (out_w x filter_w * in_c) * B_kh (filter_w * in_c x out_c),
 * B_kh being the filter's row kh (OHWI), packed once in Prepare. The GEMM's
 * direct micro-kernels broadcast A from its rows, so nothing is copied per
 * patch: the im2col path spent about a third of a small-output convolution
 * packing patches that met only one or two B panels (a 3x3 convolution of
 * 48 channels into 16 over 64x64: 2.1 ms, 35% of it in the transposes).
 *
 * Horizontal padding: when the windows reach past the input's left or right
 * edge, the input is first copied into a buffer whose rows carry pad_left
 * zero pixels before and enough after (one copy of the input per Invoke,
 * against filter_h * filter_w copies for im2col). Window rows in the
 * vertical padding are skipped. The first valid kh writes bias + A * B, the
 * others accumulate, and only the last one applies the activation's clamp;
 * the sums thus run kh by kh (a different order from the im2col path's,
 * within the float tolerance every path is held to).
 *
 * Taken where the GEMM reads A in place for the whole output width
 * (out_c within LG_GEMM_DIRECT_MAX_PANELS B panels), with one group,
 * dilation_w 1, a constant filter, a window other than a 1x1 stride-1 one
 * (which reads the input directly already), window rows of at least
 * LG_CONV_ROWS_MIN_DEPTH floats and more than LG_CONV_NARROW_MAX output
 * channels. Output rows are split over the
 * thread pool. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"

/* Multiply-adds below which one thread does all the work. */
#define LG_CONV_ROWS_MIN_PARALLEL_MACS LG_GEMM_MIN_PARALLEL_MACS
/* Window rows shallower than this (a first layer's 3 channels) stay with
 * the gather path, whose single GEMM spans the whole window. */
#define LG_CONV_ROWS_MIN_DEPTH 16
/* The scratch's blocks start on cache lines. */
#define LG_CONV_ROWS_ALIGN_FLOATS 16

/* Input columns of the padded copy: every window inside it. */
static int lg_conv_rows_padded_w(const lg_conv_geometry* g) {
  const int reach = (g->out_w - 1) * g->stride_w + g->filter_w;
  const int width = g->in_w + g->pad_left;
  return reach > width ? reach : width;
}

/* Whether the input must be copied with zero columns around it. */
static bool lg_conv_rows_needs_padding(const lg_conv_geometry* g) {
  return g->pad_left > 0 || lg_conv_rows_padded_w(g) > g->in_w;
}

static size_t lg_conv_rows_round(size_t floats) {
  return (floats + LG_CONV_ROWS_ALIGN_FLOATS - 1) / LG_CONV_ROWS_ALIGN_FLOATS *
         LG_CONV_ROWS_ALIGN_FLOATS;
}

/* The GEMM of window row kh over one output row, without its pointers. */
static lg_gemm lg_conv_rows_gemm(const lg_conv_geometry* g, int isa) {
  lg_gemm gemm = {
      .isa = (lg_gemm_isa)isa,
      .m = g->out_w,
      .n = g->out_c,
      .k = g->filter_w * g->in_c,
      .a = {.row_stride = (ptrdiff_t)g->stride_w * g->in_c, .col_stride = 1},
      .ldc = g->out_c,
  };
  return gemm;
}

bool lg_conv_rows_applies(const lg_conv_geometry* g, int groups, int isa,
                          bool constant_filter) {
  if (groups != 1 || !constant_filter || g->dilation_w != 1 ||
      g->filter_c != g->in_c || g->out_c <= LG_CONV_NARROW_MAX ||
      g->filter_w * g->in_c < LG_CONV_ROWS_MIN_DEPTH) {
    return false;
  }
  if (g->filter_h == 1 && g->filter_w == 1 && g->stride_h == 1 &&
      g->stride_w == 1) {
    return false; /* the GEMM reads the input as A already */
  }
  const lg_gemm_blocking* bl = lg_gemm_blocking_of((lg_gemm_isa)isa);
  return isa != LG_GEMM_ISA_SCALAR &&
         g->out_c <= LG_GEMM_DIRECT_MAX_PANELS * bl->nr;
}

size_t lg_conv_rows_packed_floats(const lg_conv_geometry* g, int isa) {
  return (size_t)g->filter_h * lg_gemm_packed_b_floats((lg_gemm_isa)isa,
                                                       g->filter_w * g->in_c,
                                                       g->out_c);
}

void lg_conv_rows_pack(const lg_conv_geometry* g, int isa, const float* filter,
                       float* packed) {
  const int k = g->filter_w * g->in_c;
  const size_t per_row = lg_gemm_packed_b_floats((lg_gemm_isa)isa, k, g->out_c);
  for (int kh = 0; kh < g->filter_h; ++kh) {
    /* B_kh[p][j] = filter[j][kh][p] of the OHWI filter. */
    const lg_gemm_b b = {
        .data = filter + (size_t)kh * k,
        .row_stride = 1,
        .col_stride = (ptrdiff_t)g->filter_h * k,
    };
    lg_gemm_pack_b((lg_gemm_isa)isa, k, g->out_c, &b, packed + per_row * kh);
  }
}

size_t lg_conv_rows_scratch_floats(const lg_conv_geometry* g, int isa,
                                   int tasks) {
  if (tasks < 1) tasks = 1;
  size_t floats = 0;
  if (lg_conv_rows_needs_padding(g)) {
    floats += lg_conv_rows_round((size_t)g->batch * g->in_h *
                                 lg_conv_rows_padded_w(g) * g->in_c);
  }
  lg_gemm gemm = lg_conv_rows_gemm(g, isa);
  static const float kPackedMarker = 0.0f;
  gemm.b.packed = &kPackedMarker;
  return floats +
         lg_conv_rows_round(lg_gemm_scratch_floats(&gemm, 1)) * (size_t)tasks +
         LG_CONV_ROWS_ALIGN_FLOATS;
}

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_conv_rows_job {
  const lg_conv_geometry* g;
  int isa;
  const float* image; /* the input or its padded copy */
  int image_w;        /* its columns */
  int x_shift;        /* columns of padding image holds before the input */
  const float* packed;
  const float* bias;
  float* output;
  float* task_scratch; /* one slot per pool thread */
  size_t task_floats;  /* floats of a slot */
  int rows;            /* batch * out_h */
  int num_tasks;
} lg_conv_rows_job;

/* Output row `row` of batch * out_h. */
static void lg_conv_rows_one(const lg_conv_rows_job* job, int row,
                             float* scratch) {
  const lg_conv_geometry* g = job->g;
  const int n = row / g->out_h, y = row % g->out_h;
  lg_gemm gemm = lg_conv_rows_gemm(g, job->isa);
  gemm.c = job->output + (size_t)row * g->out_w * g->out_c;
  const size_t per_row = lg_gemm_packed_b_floats(gemm.isa, gemm.k, gemm.n);
  int first = -1, last = -1;
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    if (first < 0) first = kh;
    last = kh;
  }
  if (first < 0) { /* every window row in the padding */
    gemm.k = 0;
    gemm.bias = job->bias;
    gemm.min = g->act_min;
    gemm.max = g->act_max;
    lg_gemm_compute(&gemm, 0, gemm.m, 0, gemm.n, scratch);
    return;
  }
  for (int kh = first; kh <= last; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    /* Pixel 0's window starts at input column -pad_left, which is column
     * x_shift - pad_left of the image. */
    gemm.a.data = job->image + (((size_t)n * g->in_h + iy) * job->image_w +
                                (size_t)(job->x_shift - g->pad_left)) *
                                   g->in_c;
    gemm.b.packed = job->packed + per_row * kh;
    gemm.accumulate = kh != first;
    gemm.bias = kh == first ? job->bias : NULL;
    gemm.min = kh == last ? g->act_min : -INFINITY;
    gemm.max = kh == last ? g->act_max : INFINITY;
    lg_gemm_compute(&gemm, 0, gemm.m, 0, gemm.n, scratch);
  }
}

static void lg_conv_rows_task(void* ctx, int index, int slot) {
  const lg_conv_rows_job* job = ctx;
  const int row0 = (int)((int64_t)job->rows * index / job->num_tasks);
  const int row1 = (int)((int64_t)job->rows * (index + 1) / job->num_tasks);
  float* scratch = job->task_scratch + job->task_floats * (size_t)slot;
  for (int row = row0; row < row1; ++row) lg_conv_rows_one(job, row, scratch);
}

/* Copies the input into `dst`, each row with pad_left zero pixels before
 * it and zeros after it up to padded_w pixels. */
static void lg_conv_rows_pad(const lg_conv_geometry* g, const float* input,
                             float* dst) {
  const int padded_w = lg_conv_rows_padded_w(g);
  const size_t c = (size_t)g->in_c;
  const size_t before = (size_t)g->pad_left * c;
  const size_t row = (size_t)g->in_w * c;
  const size_t after = (size_t)padded_w * c - before - row;
  for (int r = 0; r < g->batch * g->in_h; ++r) {
    float* d = dst + (size_t)r * padded_w * c;
    memset(d, 0, before * sizeof(float));
    memcpy(d + before, input + (size_t)r * row, row * sizeof(float));
    memset(d + before + row, 0, after * sizeof(float));
  }
}

void lg_conv_rows_run(const lg_conv_geometry* g, int isa, const float* input,
                      const float* packed, const float* bias, float* output,
                      float* scratch, size_t scratch_floats,
                      lg_thread_pool* pool) {
  float* base = (float*)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
  size_t left = scratch_floats - (size_t)(base - scratch);
  lg_conv_rows_job job = {.g = g,
                          .isa = isa,
                          .image = input,
                          .image_w = g->in_w,
                          .x_shift = 0,
                          .packed = packed,
                          .bias = bias,
                          .output = output,
                          .rows = g->batch * g->out_h,
                          .num_tasks = 1};
  if (lg_conv_rows_needs_padding(g)) {
    const size_t floats = lg_conv_rows_round(
        (size_t)g->batch * g->in_h * lg_conv_rows_padded_w(g) * g->in_c);
    lg_conv_rows_pad(g, input, base);
    job.image = base;
    job.image_w = lg_conv_rows_padded_w(g);
    job.x_shift = g->pad_left;
    base += floats;
    left -= floats;
  }
  lg_gemm gemm = lg_conv_rows_gemm(g, isa);
  gemm.b.packed = packed;
  job.task_floats = lg_conv_rows_round(lg_gemm_scratch_floats(&gemm, 1));
  job.task_scratch = base;
  /* The scratch has a slot per thread, or threading is off. */
  const double macs = (double)job.rows * g->out_w * g->out_c * g->filter_h *
                      g->filter_w * g->in_c;
  if ((size_t)lg_thread_pool_size(pool) <= left / job.task_floats &&
      macs >= LG_CONV_ROWS_MIN_PARALLEL_MACS) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run_slots(pool, lg_conv_rows_task, &job, job.num_tasks);
}
