/* CONV_2D with few output channels (LG_CONV_NARROW_MAX or fewer, one group):
 * a dot product per output pixel and channel instead of the GEMM.
 *
 * The GEMM's micro-tile is 16 or 32 output channels wide; a convolution
 * that writes one channel (a segmentation head, a depth map) used one lane
 * in 32 and spent nearly all its time packing image patches for it
 * (MediaPipe's pose landmark model: a 3x3 convolution of 8 channels into 1
 * over 256x256 took 6.5 ms, a fifth of the model). Here each output pixel
 * reads its window in place: with dilation_w 1 a window row inside the
 * input is one contiguous run of (valid columns x in_c) floats, and so is
 * the filter's row (OHWI), so the row is a dot product over vectors (the
 * last one masked), summed for each output channel into its own vector;
 * the pixel's value is the vector's lane sum plus the bias, clamped. Taps in
 * the padding are left out (their inputs are zero). Dilated windows take
 * one run per tap. The summation order differs from the GEMM's (lane-wise
 * partial sums), as XNNPACK's does from TFLite's reference; results stay
 * within the float tolerance the kernel tests hold every path to.
 * Interior pixels (windows inside the input horizontally) share their
 * row's runs, shifted, and go LG_NARROW_GROUP at a time: each weight vector
 * is loaded once for the group and the group's sums are independent
 * (6.5 ms became 3.1 ms per pixel, 0.74 ms in groups of four).
 *
 * Output rows (batch x out_h) are split over the thread pool. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"

#if LG_GEMM_HAVE_X86
#include <immintrin.h>
#endif

/* Multiply-adds below which one thread does all the work. */
#define LG_CONV_NARROW_MIN_PARALLEL_MACS (1 << 18)

bool lg_conv_narrow_applies(const lg_conv_geometry* g, int groups, int isa) {
  return groups == 1 && g->out_c <= LG_CONV_NARROW_MAX &&
         g->filter_c == g->in_c && isa != LG_GEMM_ISA_SCALAR &&
         LG_GEMM_HAVE_X86;
}

#if LG_GEMM_HAVE_X86

/* One run of a window row: columns [kw0, kw1) of row kh. */
typedef struct lg_narrow_run {
  const float* in; /* first input float of the run */
  ptrdiff_t w_off; /* its filter offset within an output channel's OHWI */
  int len;         /* floats */
} lg_narrow_run;

/* The runs of output pixel (y, x) of image `image`; at most filter_h runs
 * without dilation, filter_h * filter_w with it. */
static int lg_narrow_runs(const lg_conv_geometry* g, const float* image, int y,
                          int x, lg_narrow_run* runs) {
  const int ix0 = x * g->stride_w - g->pad_left;
  int count = 0;
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    const float* row = image + (ptrdiff_t)iy * g->in_w * g->in_c;
    if (g->dilation_w == 1) {
      const int kw0 = ix0 < 0 ? -ix0 : 0;
      const int kw1 = g->in_w - ix0 < g->filter_w ? g->in_w - ix0 : g->filter_w;
      if (kw1 <= kw0) continue;
      runs[count].in = row + (ptrdiff_t)(ix0 + kw0) * g->in_c;
      runs[count].w_off = ((ptrdiff_t)kh * g->filter_w + kw0) * g->in_c;
      runs[count].len = (kw1 - kw0) * g->in_c;
      ++count;
      continue;
    }
    for (int kw = 0; kw < g->filter_w; ++kw) {
      const int ix = ix0 + kw * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      runs[count].in = row + (ptrdiff_t)ix * g->in_c;
      runs[count].w_off = ((ptrdiff_t)kh * g->filter_w + kw) * g->in_c;
      runs[count].len = g->in_c;
      ++count;
    }
  }
  return count;
}

/* `np` pixels (1 or LG_NARROW_GROUP) times `nc` output channels (1 to
 * LG_CONV_NARROW_MAX), constants after inlining. Pixel p reads each run at
 * runs[r].in + shift + p * step and writes out + p * out_c; the weights of
 * each vector are loaded once for the np pixels, whose sums are
 * independent (so the multiply-adds of one pixel do not wait on each
 * other's latency alone). */
#define LG_NARROW_GROUP 4

static inline __attribute__((always_inline, target("avx512f"))) void
lg_narrow_group_avx512(const int np, const int nc, const lg_narrow_run* runs,
                       int count, ptrdiff_t shift, ptrdiff_t step,
                       const float* filter, ptrdiff_t oc_stride,
                       const float* bias, float lo, float hi, float* out,
                       int out_c) {
  __m512 acc[LG_NARROW_GROUP][LG_CONV_NARROW_MAX];
#pragma GCC unroll 4
  for (int p = 0; p < np; ++p) {
#pragma GCC unroll 4
    for (int o = 0; o < nc; ++o) acc[p][o] = _mm512_setzero_ps();
  }
  for (int r = 0; r < count; ++r) {
    const float* x = runs[r].in + shift;
    const float* w = filter + runs[r].w_off;
    const int len = runs[r].len;
    for (int i = 0; i < len; i += 16) {
      const int left = len - i;
      const __mmask16 m =
          left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
      __m512 wv[LG_CONV_NARROW_MAX];
#pragma GCC unroll 4
      for (int o = 0; o < nc; ++o) {
        wv[o] = _mm512_maskz_loadu_ps(m, w + o * oc_stride + i);
      }
#pragma GCC unroll 4
      for (int p = 0; p < np; ++p) {
        const __m512 xv = _mm512_maskz_loadu_ps(m, x + p * step + i);
#pragma GCC unroll 4
        for (int o = 0; o < nc; ++o) {
          acc[p][o] = _mm512_fmadd_ps(xv, wv[o], acc[p][o]);
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int p = 0; p < np; ++p) {
#pragma GCC unroll 4
    for (int o = 0; o < nc; ++o) {
      const float v =
          _mm512_reduce_add_ps(acc[p][o]) + (bias != NULL ? bias[o] : 0.0f);
      out[p * out_c + o] = lg_kernel_clamp_float(v, lo, hi);
    }
  }
}

static inline __attribute__((always_inline, target("avx2,fma"))) float
lg_narrow_sum8(__m256 v) {
  const __m128 s =
      _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 d = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(d, _mm_movehdup_ps(d)));
}

/* AVX2 has 16 vector registers: groups of pixels only up to 2 channels. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
lg_narrow_group_avx2(const int np, const int nc, const lg_narrow_run* runs,
                     int count, ptrdiff_t shift, ptrdiff_t step,
                     const float* filter, ptrdiff_t oc_stride,
                     const float* bias, float lo, float hi, float* out,
                     int out_c) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256 acc[LG_NARROW_GROUP][LG_CONV_NARROW_MAX];
#pragma GCC unroll 4
  for (int p = 0; p < np; ++p) {
#pragma GCC unroll 4
    for (int o = 0; o < nc; ++o) acc[p][o] = _mm256_setzero_ps();
  }
  for (int r = 0; r < count; ++r) {
    const float* x = runs[r].in + shift;
    const float* w = filter + runs[r].w_off;
    const int len = runs[r].len;
    for (int i = 0; i < len; i += 8) {
      const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(len - i), lanes);
      __m256 wv[LG_CONV_NARROW_MAX];
#pragma GCC unroll 4
      for (int o = 0; o < nc; ++o) {
        wv[o] = _mm256_maskload_ps(w + o * oc_stride + i, m);
      }
#pragma GCC unroll 4
      for (int p = 0; p < np; ++p) {
        const __m256 xv = _mm256_maskload_ps(x + p * step + i, m);
#pragma GCC unroll 4
        for (int o = 0; o < nc; ++o) {
          acc[p][o] = _mm256_fmadd_ps(xv, wv[o], acc[p][o]);
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int p = 0; p < np; ++p) {
#pragma GCC unroll 4
    for (int o = 0; o < nc; ++o) {
      const float v =
          lg_narrow_sum8(acc[p][o]) + (bias != NULL ? bias[o] : 0.0f);
      out[p * out_c + o] = lg_kernel_clamp_float(v, lo, hi);
    }
  }
}

/* One pixel, or LG_NARROW_GROUP interior pixels, of `nc` channels. */
#define LG_NARROW_CALL(GROUP, NP, NC)                                          \
  GROUP(NP, NC, runs, count, shift, step, filter, oc_stride, bias, g->act_min, \
        g->act_max, out, g->out_c)

#define LG_NARROW_DISPATCH(GROUP, NP) \
  switch (g->out_c) {                 \
    case 1:                           \
      LG_NARROW_CALL(GROUP, NP, 1);   \
      break;                          \
    case 2:                           \
      LG_NARROW_CALL(GROUP, NP, 2);   \
      break;                          \
    case 3:                           \
      LG_NARROW_CALL(GROUP, NP, 3);   \
      break;                          \
    default:                          \
      LG_NARROW_CALL(GROUP, NP, 4);   \
      break;                          \
  }

/* Output rows [row0, row1) of batch * out_h: edge pixels one at a time
 * with their own runs, interior pixels in groups sharing the runs of the
 * row's first interior pixel. `max_group_c`: the most channels GROUP takes
 * in groups of pixels. */
#define LG_NARROW_ROWS(NAME, TARGET, GROUP, MAX_GROUP_C)                       \
  __attribute__((target(TARGET))) static void NAME(                            \
      const lg_conv_geometry* g, const float* input, const float* filter,      \
      const float* bias, float* output, int row0, int row1,                    \
      lg_narrow_run* runs) {                                                   \
    const ptrdiff_t oc_stride =                                                \
        (ptrdiff_t)g->filter_h * g->filter_w * g->in_c;                        \
    const ptrdiff_t step = (ptrdiff_t)g->stride_w * g->in_c;                   \
    int x_lo, x_hi;                                                            \
    lg_conv_interior_columns(g, &x_lo, &x_hi);                                 \
    if (g->out_c > (MAX_GROUP_C)) x_hi = x_lo;                                 \
    for (int row = row0; row < row1; ++row) {                                  \
      const int n = row / g->out_h, y = row % g->out_h;                        \
      const float* image = input + (ptrdiff_t)n * g->in_h * g->in_w * g->in_c; \
      float* const row_out = output + (ptrdiff_t)row * g->out_w * g->out_c;    \
      int x = 0;                                                               \
      while (x < g->out_w) {                                                   \
        float* out = row_out + (ptrdiff_t)x * g->out_c;                        \
        if (x >= x_lo && x + LG_NARROW_GROUP <= x_hi) {                        \
          int count = lg_narrow_runs(g, image, y, x_lo, runs);                 \
          for (; x + LG_NARROW_GROUP <= x_hi; x += LG_NARROW_GROUP) {          \
            const ptrdiff_t shift = (ptrdiff_t)(x - x_lo) * step;              \
            out = row_out + (ptrdiff_t)x * g->out_c;                           \
            LG_NARROW_DISPATCH(GROUP, LG_NARROW_GROUP)                         \
          }                                                                    \
          (void)count;                                                         \
          continue;                                                            \
        }                                                                      \
        const int count = lg_narrow_runs(g, image, y, x, runs);                \
        const ptrdiff_t shift = 0;                                             \
        LG_NARROW_DISPATCH(GROUP, 1)                                           \
        ++x;                                                                   \
      }                                                                        \
    }                                                                          \
  }

LG_NARROW_ROWS(lg_narrow_rows_avx512, "avx512f", lg_narrow_group_avx512, 4)
LG_NARROW_ROWS(lg_narrow_rows_avx2, "avx2,fma", lg_narrow_group_avx2, 2)

typedef struct lg_narrow_job {
  const lg_conv_geometry* g;
  const float* input;
  const float* filter;
  const float* bias;
  float* output;
  lg_gemm_isa isa;
  float* runs_scratch; /* per slot (thread): filter_h * filter_w runs */
  int rows;
  int num_tasks;
} lg_narrow_job;

static void lg_narrow_task(void* ctx, int index, int slot) {
  const lg_narrow_job* job = ctx;
  const int row0 = (int)((int64_t)job->rows * index / job->num_tasks);
  const int row1 = (int)((int64_t)job->rows * (index + 1) / job->num_tasks);
  lg_narrow_run* runs = (lg_narrow_run*)job->runs_scratch +
                        (size_t)slot * job->g->filter_h * job->g->filter_w;
  if (job->isa == LG_GEMM_ISA_AVX512) {
    lg_narrow_rows_avx512(job->g, job->input, job->filter, job->bias,
                          job->output, row0, row1, runs);
  } else {
    lg_narrow_rows_avx2(job->g, job->input, job->filter, job->bias, job->output,
                        row0, row1, runs);
  }
}

#endif /* LG_GEMM_HAVE_X86 */

size_t lg_conv_narrow_scratch_floats(const lg_conv_geometry* g, int tasks) {
#if LG_GEMM_HAVE_X86
  const size_t bytes = sizeof(lg_narrow_run) * (size_t)g->filter_h *
                       (size_t)g->filter_w * (size_t)(tasks > 0 ? tasks : 1);
  return (bytes + sizeof(float) - 1) / sizeof(float);
#else
  (void)g;
  (void)tasks;
  return 0;
#endif
}

void lg_conv_narrow_run(const lg_conv_geometry* g, int isa, const float* input,
                        const float* filter, const float* bias, float* output,
                        float* scratch, size_t scratch_floats,
                        lg_thread_pool* pool) {
#if LG_GEMM_HAVE_X86
  lg_narrow_job job = {.g = g,
                       .input = input,
                       .filter = filter,
                       .bias = bias,
                       .output = output,
                       .isa = (lg_gemm_isa)isa,
                       .runs_scratch = scratch,
                       .rows = g->batch * g->out_h,
                       .num_tasks = 1};
  const int64_t macs = (int64_t)job.rows * g->out_w * g->out_c * g->filter_h *
                       g->filter_w * g->in_c;
  /* The scratch has a slot per thread, or threading is off. */
  const size_t per_slot = lg_conv_narrow_scratch_floats(g, 1);
  const size_t threads = (size_t)lg_thread_pool_size(pool);
  if (macs >= LG_CONV_NARROW_MIN_PARALLEL_MACS &&
      (per_slot == 0 || threads <= scratch_floats / per_slot)) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run_slots(pool, lg_narrow_task, &job, job.num_tasks);
#else
  (void)g;
  (void)isa;
  (void)input;
  (void)filter;
  (void)bias;
  (void)output;
  (void)scratch;
  (void)scratch_floats;
  (void)pool;
#endif
}
