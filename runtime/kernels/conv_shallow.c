/* CONV_2D over a shallow input (LG_CONV_SHALLOW_MAX_CHANNELS channels or
 * fewer: a first layer's RGB image), straight from the image.
 *
 * A window holds only filter_h * filter_w * in_c values (27 for a 3x3 RGB
 * window), so the GEMM's packing of every patch cost as much as the
 * multiply-adds it served (MobileNetV3's first 3x3 stride-2 convolution of
 * 224x224x3 into 16 channels: 738 us). Here the output channels are the
 * vector lanes: for each window value (tap) the value is broadcast and
 * multiplied by the tap's vector of output-channel weights, packed in
 * Prepare as [tap][channel] with the channels padded to whole vectors.
 * Eight output pixels go together (one weight load for eight independent
 * multiply-adds), consecutive in the output's flat order, so a group runs
 * on into the next row (a 5-wide output fills its groups; it used to waste
 * 3 of 8 slots per row). A group whose windows all lie inside the image
 * reads its taps at fixed offsets from each window's corner; otherwise
 * each window is copied out with zeros for the padding. Where those copies
 * would outweigh a zero-padded copy of the whole image (see
 * lg_conv_shallow_scratch_floats), the image is copied once into the
 * scratch and every window lies inside it. Each output sums its taps in (kh,
 * kw, c) order from zero, as TFLite's reference does, then adds the bias and
 * clamps.
 *
 * Taken with one group, a constant filter, more than LG_CONV_NARROW_MAX
 * output channels and a vector ISA. Groups of pixels are split over the
 * thread pool. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"

#if LG_GEMM_HAVE_X86
#include <immintrin.h>
#endif

/* Pixels summed together. */
#define LG_SHALLOW_GROUP 8
/* Groups of output pixels a task finishes before it runs the epilogue on
 * them: 64 pixels of 16 channels stay in the first-level cache. */
#define LG_SHALLOW_EPILOGUE_GROUPS 8
/* The most taps (filter_h * filter_w * in_c) a window may have. */
#define LG_SHALLOW_MAX_TAPS 256
/* Multiply-adds below which one thread does all the work. */
#define LG_SHALLOW_MIN_PARALLEL_MACS LG_GEMM_MIN_PARALLEL_MACS

static int lg_shallow_lanes(int isa) {
  return isa == LG_GEMM_ISA_AVX512 ? 16 : 8;
}

/* Output channels padded to whole vectors of the ISA. */
static int lg_shallow_padded_c(const lg_conv_geometry* g, int isa) {
  const int lanes = lg_shallow_lanes(isa);
  return (g->out_c + lanes - 1) / lanes * lanes;
}

bool lg_conv_shallow_applies(const lg_conv_geometry* g, int groups, int isa,
                             bool constant_filter) {
  return LG_GEMM_HAVE_X86 && groups == 1 && constant_filter &&
         isa != LG_GEMM_ISA_SCALAR && g->filter_c == g->in_c &&
         g->in_c <= LG_CONV_SHALLOW_MAX_CHANNELS &&
         g->out_c > LG_CONV_NARROW_MAX &&
         g->filter_h * g->filter_w * g->in_c <= LG_SHALLOW_MAX_TAPS;
}

size_t lg_conv_shallow_packed_floats(const lg_conv_geometry* g, int isa) {
  return (size_t)g->filter_h * g->filter_w * g->in_c *
         lg_shallow_padded_c(g, isa);
}

void lg_conv_shallow_pack(const lg_conv_geometry* g, int isa,
                          const float* filter, float* packed) {
  const int taps = g->filter_h * g->filter_w * g->in_c;
  const int padded = lg_shallow_padded_c(g, isa);
  for (int t = 0; t < taps; ++t) {
    for (int o = 0; o < padded; ++o) {
      packed[(size_t)t * padded + o] =
          o < g->out_c ? filter[(size_t)o * taps + t] : 0.0f;
    }
  }
}

/* Rows (or columns) of the padded image that `out` output rows' windows
 * cover, from the first window's first row to the last window's last. */
static int lg_shallow_span(int out, int stride, int filter, int dilation) {
  return (out - 1) * stride + (filter - 1) * dilation + 1;
}

/* Whether output row (or column) o's window lies inside the input along
 * that dimension. */
static bool lg_shallow_inside_1d(int o, int stride, int pad, int filter,
                                 int dilation, int in) {
  const int first = o * stride - pad;
  return first >= 0 && first + (filter - 1) * dilation < in;
}

/* Groups of LG_SHALLOW_GROUP consecutive output pixels of one image that
 * hold a window reaching past the input (each such group copies out all
 * its windows). */
static int64_t lg_shallow_edge_groups(const lg_conv_geometry* g) {
  int64_t groups = 0;
  bool edge = false;
  int in_group = 0;
  for (int y = 0; y < g->out_h; ++y) {
    const bool row_inside = lg_shallow_inside_1d(
        y, g->stride_h, g->pad_top, g->filter_h, g->dilation_h, g->in_h);
    for (int x = 0; x < g->out_w; ++x) {
      edge = edge || !row_inside ||
             !lg_shallow_inside_1d(x, g->stride_w, g->pad_left, g->filter_w,
                                   g->dilation_w, g->in_w);
      if (++in_group == LG_SHALLOW_GROUP) {
        groups += edge;
        edge = false;
        in_group = 0;
      }
    }
  }
  return groups + edge;
}

size_t lg_conv_shallow_scratch_floats(const lg_conv_geometry* g) {
  const int64_t span_h =
      lg_shallow_span(g->out_h, g->stride_h, g->filter_h, g->dilation_h);
  const int64_t span_w =
      lg_shallow_span(g->out_w, g->stride_w, g->filter_w, g->dilation_w);
  const int64_t per_image = span_h * span_w * g->in_c;
  /* A group of pixels with a window in the padding copies out all its
   * windows, a tap at a time with a bounds check each; a padded copy of
   * the image is a few memcpy calls per row, several times cheaper per
   * float. Take the copy where it moves less than 4x the patches' floats
   * (measured on first layers: kws_cnn's 49x10x1, 10x4 window: 19 -> 6 us;
   * face_detection_short_range's 128x128x3, 5x5 stride 2: 360 -> 195 us;
   * hand_recrop's 256x256x3, 3x3 stride 2, edges only at the bottom and
   * right: no clear gain, so left to the patches). */
  const int64_t patch_floats = lg_shallow_edge_groups(g) * LG_SHALLOW_GROUP *
                               g->filter_h * g->filter_w * g->in_c;
  if (patch_floats == 0 || per_image >= 4 * patch_floats) return 0;
  return (size_t)(per_image * g->batch);
}

#if LG_GEMM_HAVE_X86

/* Writes the input into padded (lg_conv_shallow_scratch_floats floats) as
 * batch images of span_h x span_w pixels, zeros where a window reaches past
 * the input: every window then lies inside. */
static void lg_shallow_pad(const lg_conv_geometry* g, const float* input,
                           float* padded) {
  const int span_h =
      lg_shallow_span(g->out_h, g->stride_h, g->filter_h, g->dilation_h);
  const int span_w =
      lg_shallow_span(g->out_w, g->stride_w, g->filter_w, g->dilation_w);
  const int c = g->in_c;
  /* Input columns [x0, x1) land at padded columns [x0 + pad_left, ...). */
  int x0 = -g->pad_left > 0 ? -g->pad_left : 0;
  int x1 = span_w - g->pad_left < g->in_w ? span_w - g->pad_left : g->in_w;
  if (x1 < x0) x1 = x0;
  for (int n = 0; n < g->batch; ++n) {
    const float* image = input + (size_t)n * g->in_h * g->in_w * c;
    for (int py = 0; py < span_h; ++py) {
      float* row = padded + ((size_t)n * span_h + py) * span_w * c;
      const int iy = py - g->pad_top;
      if (iy < 0 || iy >= g->in_h || x1 == x0) {
        memset(row, 0, sizeof(float) * span_w * c);
        continue;
      }
      const int left = x0 + g->pad_left, right = x1 + g->pad_left;
      memset(row, 0, sizeof(float) * left * c);
      memcpy(row + (size_t)left * c, image + ((size_t)iy * g->in_w + x0) * c,
             sizeof(float) * (x1 - x0) * c);
      memset(row + (size_t)right * c, 0, sizeof(float) * (span_w - right) * c);
    }
  }
}

/* The pixels' window corners (np of them) and the taps' offsets from a
 * corner. */
typedef struct lg_shallow_pixels {
  const float* corner[LG_SHALLOW_GROUP];
  const ptrdiff_t* off;
  int np;
} lg_shallow_pixels;

/* `nv` (1 or 2) vectors of channels from c for the np pixels. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_shallow_block_avx512(const int nv, const lg_shallow_pixels* px, int taps,
                        const float* w, int padded, const float* bias,
                        int out_c, int c, __m512 lo, __m512 hi, float* out) {
  __m512 acc[LG_SHALLOW_GROUP][2];
#pragma GCC unroll 8
  for (int p = 0; p < LG_SHALLOW_GROUP; ++p) {
#pragma GCC unroll 2
    for (int v = 0; v < nv; ++v) acc[p][v] = _mm512_setzero_ps();
  }
  for (int t = 0; t < taps; ++t) {
    __m512 wv[2];
#pragma GCC unroll 2
    for (int v = 0; v < nv; ++v) {
      wv[v] = _mm512_loadu_ps(w + (size_t)t * padded + c + 16 * v);
    }
    const ptrdiff_t off = px->off[t];
#pragma GCC unroll 8
    for (int p = 0; p < LG_SHALLOW_GROUP; ++p) {
      const __m512 x = _mm512_set1_ps(px->corner[p][off]);
#pragma GCC unroll 2
      for (int v = 0; v < nv; ++v) {
        acc[p][v] = _mm512_fmadd_ps(x, wv[v], acc[p][v]);
      }
    }
  }
  for (int v = 0; v < nv; ++v) {
    const int left = out_c - c - 16 * v;
    const __mmask16 m =
        left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
    const __m512 b = bias != NULL ? _mm512_maskz_loadu_ps(m, bias + c + 16 * v)
                                  : _mm512_setzero_ps();
    for (int p = 0; p < px->np; ++p) {
      const __m512 r =
          _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(acc[p][v], b)));
      _mm512_mask_storeu_ps(out + (size_t)p * out_c + c + 16 * v, m, r);
    }
  }
}

__attribute__((target("avx512f"))) static void lg_shallow_pixels_avx512(
    const lg_conv_geometry* g, const lg_shallow_pixels* px, int taps,
    const float* w, int padded, const float* bias, float* out) {
  const __m512 lo = _mm512_set1_ps(g->act_min);
  const __m512 hi = _mm512_set1_ps(g->act_max);
  for (int c = 0; c < g->out_c; c += 32) {
    if (g->out_c - c > 16) {
      lg_shallow_block_avx512(2, px, taps, w, padded, bias, g->out_c, c, lo, hi,
                              out);
    } else {
      lg_shallow_block_avx512(1, px, taps, w, padded, bias, g->out_c, c, lo, hi,
                              out);
    }
  }
}

/* AVX2: 16 registers hold 8 pixels x one vector of 8 channels. */
__attribute__((target("avx2,fma"))) static void lg_shallow_pixels_avx2(
    const lg_conv_geometry* g, const lg_shallow_pixels* px, int taps,
    const float* w, int padded, const float* bias, float* out) {
  const __m256 lo = _mm256_set1_ps(g->act_min);
  const __m256 hi = _mm256_set1_ps(g->act_max);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int c = 0; c < g->out_c; c += 8) {
    __m256 acc[LG_SHALLOW_GROUP];
#pragma GCC unroll 8
    for (int p = 0; p < LG_SHALLOW_GROUP; ++p) acc[p] = _mm256_setzero_ps();
    for (int t = 0; t < taps; ++t) {
      const __m256 wv = _mm256_loadu_ps(w + (size_t)t * padded + c);
      const ptrdiff_t off = px->off[t];
#pragma GCC unroll 8
      for (int p = 0; p < LG_SHALLOW_GROUP; ++p) {
        acc[p] =
            _mm256_fmadd_ps(_mm256_set1_ps(px->corner[p][off]), wv, acc[p]);
      }
    }
    const __m256i m =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(g->out_c - c), lanes);
    const __m256 b =
        bias != NULL ? _mm256_maskload_ps(bias + c, m) : _mm256_setzero_ps();
    for (int p = 0; p < px->np; ++p) {
      const __m256 r =
          _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(acc[p], b)));
      _mm256_maskstore_ps(out + (size_t)p * g->out_c + c, m, r);
    }
  }
}

/* The image windows are read from: the input itself, or a copy of it with
 * the padding written out as zeros (lg_shallow_pad). */
typedef struct lg_shallow_source {
  const float* data;
  int h, w;              /* rows and columns per image */
  int pad_top, pad_left; /* where output window (0, 0) starts: -pad */
} lg_shallow_source;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_shallow_job {
  const lg_conv_geometry* g;
  int isa;
  lg_shallow_source src;
  const float* packed;
  const float* bias;
  float* output;
  int64_t pixels; /* batch * out_h * out_w */
  int num_tasks;
  const lg_kernel_epilogue* epilogue; /* NULL: none */
} lg_shallow_job;

/* Whether output pixel (y, x)'s window lies inside the source image. */
static bool lg_shallow_inside(const lg_conv_geometry* g,
                              const lg_shallow_source* src, int y, int x) {
  return lg_shallow_inside_1d(y, g->stride_h, src->pad_top, g->filter_h,
                              g->dilation_h, src->h) &&
         lg_shallow_inside_1d(x, g->stride_w, src->pad_left, g->filter_w,
                              g->dilation_w, src->w);
}

/* Copies output pixel (y, x)'s window into patch as [kh][kw][c], zeros
 * where it lies outside the source image. A window row that lies inside
 * the image with undilated columns is filter_w * c consecutive floats
 * there, copied as one run. */
static void lg_shallow_patch(const lg_conv_geometry* g,
                             const lg_shallow_source* src, const float* image,
                             int y, int x, float* patch) {
  const int c = g->in_c;
  const int run = g->filter_w * c;
  const int ix0 = x * g->stride_w - src->pad_left;
  const bool columns_inside =
      g->dilation_w == 1 && ix0 >= 0 && ix0 + g->filter_w <= src->w;
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - src->pad_top + kh * g->dilation_h;
    float* row = patch + (size_t)kh * run;
    if (iy < 0 || iy >= src->h) {
      memset(row, 0, sizeof(float) * run);
      continue;
    }
    const float* from = image + ((size_t)iy * src->w) * c;
    if (columns_inside) {
      memcpy(row, from + (size_t)ix0 * c, sizeof(float) * run);
      continue;
    }
    for (int kw = 0; kw < g->filter_w; ++kw) {
      const int ix = ix0 + kw * g->dilation_w;
      float* d = row + (size_t)kw * c;
      /* At most LG_CONV_SHALLOW_MAX_CHANNELS floats: plain loops. */
      if (ix < 0 || ix >= src->w) {
        for (int i = 0; i < c; ++i) d[i] = 0.0f;
      } else {
        for (int i = 0; i < c; ++i) d[i] = from[(size_t)ix * c + i];
      }
    }
  }
}

/* An output pixel's image, row and column. */
typedef struct lg_shallow_cursor {
  int n, y, x;
} lg_shallow_cursor;

/* Moves c to the next pixel in the output's flat order. */
static void lg_shallow_step(const lg_conv_geometry* g, lg_shallow_cursor* c) {
  if (++c->x < g->out_w) return;
  c->x = 0;
  if (++c->y < g->out_h) return;
  c->y = 0;
  ++c->n;
}

/* Points px at the windows of px->np output pixels from *at (consecutive in
 * the output's flat order, so a group may run on into the next row), and
 * moves *at past them: straight into the source when every window lies
 * inside it, else into copies in `patches`. */
static void lg_shallow_group(const lg_shallow_job* job, lg_shallow_cursor* at,
                             const ptrdiff_t* inner_off,
                             const ptrdiff_t* patch_off,
                             float patches[][LG_SHALLOW_MAX_TAPS],
                             lg_shallow_pixels* px) {
  const lg_conv_geometry* g = job->g;
  const lg_shallow_source* src = &job->src;
  const int last = px->np - 1;
  if (at->x + last < g->out_w && lg_shallow_inside(g, src, at->y, at->x) &&
      lg_shallow_inside(g, src, at->y, at->x + last)) {
    /* One row, its first and last windows inside: so are those between,
     * at a fixed step (most groups of a large image). */
    const float* first =
        src->data +
        (((ptrdiff_t)at->n * src->h + at->y * g->stride_h - src->pad_top) *
             src->w +
         at->x * g->stride_w - src->pad_left) *
            g->in_c;
    const ptrdiff_t step = (ptrdiff_t)g->stride_w * g->in_c;
    for (int p = 0; p < LG_SHALLOW_GROUP; ++p) {
      px->corner[p] = first + (p < last ? p : last) * step;
    }
    px->off = inner_off;
    at->x += last;
    lg_shallow_step(g, at);
    return;
  }
  lg_shallow_cursor pixel[LG_SHALLOW_GROUP];
  bool inside = true;
  for (int p = 0; p < px->np; ++p) {
    pixel[p] = *at;
    inside = inside && lg_shallow_inside(g, src, at->y, at->x);
    lg_shallow_step(g, at);
  }
  /* Pixels past the range's end repeat its last one (not stored). */
  for (int p = px->np; p < LG_SHALLOW_GROUP; ++p) pixel[p] = pixel[px->np - 1];
  px->off = inside ? inner_off : patch_off;
  for (int p = 0; p < LG_SHALLOW_GROUP; ++p) {
    const lg_shallow_cursor* c = &pixel[p];
    const float* image = src->data + (size_t)c->n * src->h * src->w * g->in_c;
    if (inside) {
      px->corner[p] =
          image + ((ptrdiff_t)(c->y * g->stride_h - src->pad_top) * src->w +
                   (c->x * g->stride_w - src->pad_left)) *
                      g->in_c;
    } else if (p < px->np) {
      lg_shallow_patch(g, src, image, c->y, c->x, patches[p]);
      px->corner[p] = patches[p];
    } else {
      px->corner[p] = patches[px->np - 1];
    }
  }
}

static void lg_shallow_task(void* ctx, int index) {
  const lg_shallow_job* job = ctx;
  const lg_conv_geometry* g = job->g;
  /* Tasks take whole groups of pixels. */
  const int64_t groups =
      (job->pixels + LG_SHALLOW_GROUP - 1) / LG_SHALLOW_GROUP;
  const int64_t q0 = groups * index / job->num_tasks * LG_SHALLOW_GROUP;
  int64_t q1 = groups * (index + 1) / job->num_tasks * LG_SHALLOW_GROUP;
  if (q1 > job->pixels) q1 = job->pixels;
  const int taps = g->filter_h * g->filter_w * g->in_c;
  const int padded = lg_shallow_padded_c(g, job->isa);
  /* Tap offsets from an inside window's corner, and from a patch's. */
  ptrdiff_t inner_off[LG_SHALLOW_MAX_TAPS], patch_off[LG_SHALLOW_MAX_TAPS];
  for (int kh = 0, t = 0; kh < g->filter_h; ++kh) {
    for (int kw = 0; kw < g->filter_w; ++kw) {
      for (int c = 0; c < g->in_c; ++c, ++t) {
        inner_off[t] = ((ptrdiff_t)kh * g->dilation_h * job->src.w +
                        (ptrdiff_t)kw * g->dilation_w) *
                           g->in_c +
                       c;
        patch_off[t] = t;
      }
    }
  }
  float patches[LG_SHALLOW_GROUP][LG_SHALLOW_MAX_TAPS];
  if (q0 >= q1) return;
  const int64_t per_image = (int64_t)g->out_h * g->out_w;
  lg_shallow_cursor at = {.n = (int)(q0 / per_image),
                          .y = (int)(q0 % per_image / g->out_w),
                          .x = (int)(q0 % per_image % g->out_w)};
  int64_t finished = q0; /* pixels before this one went through the epilogue */
  for (int64_t q = q0; q < q1; q += LG_SHALLOW_GROUP) {
    lg_shallow_pixels px = {.np = q1 - q < LG_SHALLOW_GROUP ? (int)(q1 - q)
                                                            : LG_SHALLOW_GROUP};
    lg_shallow_group(job, &at, inner_off, patch_off, patches, &px);
    float* o = job->output + (size_t)q * g->out_c;
    if (job->isa == LG_GEMM_ISA_AVX512) {
      lg_shallow_pixels_avx512(g, &px, taps, job->packed, padded, job->bias, o);
    } else {
      lg_shallow_pixels_avx2(g, &px, taps, job->packed, padded, job->bias, o);
    }
    const int64_t done = q + px.np;
    if (job->epilogue != NULL &&
        (done == q1 ||
         done - finished >= LG_SHALLOW_EPILOGUE_GROUPS * LG_SHALLOW_GROUP)) {
      lg_kernel_epilogue_run(job->epilogue, finished, done - finished, 0,
                             g->out_c);
      finished = done;
    }
  }
}

#endif /* LG_GEMM_HAVE_X86 */

void lg_conv_shallow_run(const lg_conv_geometry* g, int isa, const float* input,
                         const float* packed, const float* bias, float* output,
                         float* scratch, const lg_kernel_epilogue* epilogue,
                         lg_thread_pool* pool) {
#if LG_GEMM_HAVE_X86
  lg_shallow_job job = {.g = g,
                        .isa = isa,
                        .src = {.data = input,
                                .h = g->in_h,
                                .w = g->in_w,
                                .pad_top = g->pad_top,
                                .pad_left = g->pad_left},
                        .packed = packed,
                        .bias = bias,
                        .output = output,
                        .pixels = (int64_t)g->batch * g->out_h * g->out_w,
                        .num_tasks = 1,
                        .epilogue = epilogue};
  if (scratch != NULL) {
    lg_shallow_pad(g, input, scratch);
    job.src = (lg_shallow_source){
        .data = scratch,
        .h = lg_shallow_span(g->out_h, g->stride_h, g->filter_h, g->dilation_h),
        .w =
            lg_shallow_span(g->out_w, g->stride_w, g->filter_w, g->dilation_w)};
  }
  const double macs =
      (double)job.pixels * g->out_c * g->filter_h * g->filter_w * g->in_c;
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && macs >= LG_SHALLOW_MIN_PARALLEL_MACS) {
    const int64_t groups =
        (job.pixels + LG_SHALLOW_GROUP - 1) / LG_SHALLOW_GROUP;
    job.num_tasks = lg_thread_pool_tasks(pool, groups);
  }
  lg_thread_pool_run(pool, lg_shallow_task, &job, job.num_tasks);
#else
  (void)g;
  (void)isa;
  (void)input;
  (void)packed;
  (void)bias;
  (void)output;
  (void)scratch;
  (void)epilogue;
  (void)pool;
#endif
}
