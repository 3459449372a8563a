/* The GEMM driver: instruction-set choice, packing, cache blocking, task
 * split over the thread pool, and the scalar micro-kernel. The SIMD
 * micro-kernels live in gemm_avx2.c and gemm_avx512.c. */
#include "runtime/kernels/gemm.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Buffers in scratch start on 64-byte boundaries (16 floats). */
#define LG_GEMM_ALIGN_FLOATS 16

typedef struct lg_gemm_isa_info {
  const char* name;
  lg_gemm_blocking blocking;
  lg_gemm_kernel_fn kernel; /* NULL: not in this build */
  lg_gemm_direct_kernel_fn direct_kernel;
} lg_gemm_isa_info;

/* Blocking. The micro-tile fills the register file: AVX-512 keeps 12 x 32
 * accumulators in 24 of its 32 zmm registers (2 B vectors, A values come
 * as embedded broadcasts), AVX2 keeps 6 x 16 in 12 of its 16 ymm
 * registers, the scalar kernel 4 x 8. KC = 256 keeps one A panel (MR x KC:
 * 12 KB for AVX-512) plus the B panel being read (32 KB) within a 48 KB L1;
 * a B block (KC x NC: 768 KB) and an A block (MC x KC: 144 KB) stay in a
 * 2 MB L2. Sizes chosen by measurement with tools/bench_gemm on a
 * Sapphire Rapids core; every value is a multiple of the micro-tile. */
static const lg_gemm_isa_info kIsaInfo[LG_GEMM_ISA_COUNT] = {
    [LG_GEMM_ISA_SCALAR] = {"scalar",
                            {4, 8, 256, 128, 512},
                            lg_gemm_kernel_scalar,
                            lg_gemm_kernel_scalar_direct},
#if LG_GEMM_HAVE_X86
    [LG_GEMM_ISA_AVX2] = {"avx2",
                          {6, 16, 256, 120, 768},
                          lg_gemm_kernel_avx2,
                          lg_gemm_kernel_avx2_direct},
    [LG_GEMM_ISA_AVX512] = {"avx512",
                            {12, 32, 256, 144, 768},
                            lg_gemm_kernel_avx512,
                            lg_gemm_kernel_avx512_direct},
#else
    [LG_GEMM_ISA_AVX2] = {"avx2", {6, 16, 256, 120, 768}, NULL, NULL},
    [LG_GEMM_ISA_AVX512] = {"avx512", {12, 32, 256, 144, 768}, NULL, NULL},
#endif
};

/* ---- Instruction-set choice --------------------------------------------- */

/* -1 until detected. */
static atomic_int g_hardware_isa = -1;
static atomic_int g_default_isa = -1;

static lg_gemm_isa lg_gemm_detect(void) {
  lg_gemm_isa best = LG_GEMM_ISA_SCALAR;
#if LG_GEMM_HAVE_X86
  __builtin_cpu_init();
  /* libgcc's and compiler-rt's checks include the OS's XSAVE support for
   * the wider registers. */
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    best = LG_GEMM_ISA_AVX2;
  }
  if (__builtin_cpu_supports("avx512f")) best = LG_GEMM_ISA_AVX512;
#endif
  return best;
}

static lg_gemm_isa lg_gemm_hardware_isa(void) {
  int isa = atomic_load_explicit(&g_hardware_isa, memory_order_relaxed);
  if (isa < 0) {
    /* Racing first calls compute the same value. */
    isa = (int)lg_gemm_detect();
    atomic_store_explicit(&g_hardware_isa, isa, memory_order_relaxed);
  }
  return (lg_gemm_isa)isa;
}

const char* lg_gemm_isa_name(lg_gemm_isa isa) {
  if ((int)isa < 0 || isa >= LG_GEMM_ISA_COUNT) return "unknown";
  return kIsaInfo[isa].name;
}

bool lg_gemm_isa_supported(lg_gemm_isa isa) {
  if ((int)isa < 0 || isa >= LG_GEMM_ISA_COUNT) return false;
  return kIsaInfo[isa].kernel != NULL && isa <= lg_gemm_hardware_isa();
}

/* The hardware's best ISA, capped by LITEGPU_GEMM_ISA when it names one. */
static lg_gemm_isa lg_gemm_choose(void) {
  lg_gemm_isa isa = lg_gemm_hardware_isa();
  const char* cap = getenv("LITEGPU_GEMM_ISA");
  if (cap != NULL) {
    for (int i = 0; i < LG_GEMM_ISA_COUNT; ++i) {
      if (strcmp(cap, kIsaInfo[i].name) == 0 && (lg_gemm_isa)i < isa) {
        isa = (lg_gemm_isa)i;
      }
    }
  }
  return isa;
}

lg_gemm_isa lg_gemm_isa_default(void) {
  int isa = atomic_load_explicit(&g_default_isa, memory_order_relaxed);
  if (isa < 0) {
    isa = (int)lg_gemm_choose();
    atomic_store_explicit(&g_default_isa, isa, memory_order_relaxed);
  }
  return (lg_gemm_isa)isa;
}

lg_gemm_isa lg_gemm_isa_set_default(lg_gemm_isa isa) {
  if (lg_gemm_isa_supported(isa)) {
    atomic_store_explicit(&g_default_isa, (int)isa, memory_order_relaxed);
  }
  return lg_gemm_isa_default();
}

const lg_gemm_blocking* lg_gemm_blocking_of(lg_gemm_isa isa) {
  if ((int)isa < 0 || isa >= LG_GEMM_ISA_COUNT) isa = LG_GEMM_ISA_SCALAR;
  return &kIsaInfo[isa].blocking;
}

/* ---- Sizes ----------------------------------------------------------------
 */

static int lg_gemm_min(int a, int b) { return a < b ? a : b; }

static int lg_gemm_round_up(int x, int multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

static float* lg_gemm_align(float* p) {
  const uintptr_t bytes = LG_GEMM_ALIGN_FLOATS * sizeof(float);
  return (float*)(((uintptr_t)p + bytes - 1) & ~(uintptr_t)(bytes - 1));
}

/* Floats of the packed A block and (when B is not prepacked) B block. */
static size_t lg_gemm_a_block_floats(const lg_gemm* g) {
  const lg_gemm_blocking* bl = lg_gemm_blocking_of(g->isa);
  const int rows = lg_gemm_min(bl->mc, lg_gemm_round_up(g->m, bl->mr));
  return (size_t)rows * (size_t)lg_gemm_min(bl->kc, g->k);
}

static size_t lg_gemm_b_block_floats(const lg_gemm* g) {
  if (g->b.packed != NULL) return 0;
  const lg_gemm_blocking* bl = lg_gemm_blocking_of(g->isa);
  const int cols = lg_gemm_min(bl->nc, lg_gemm_round_up(g->n, bl->nr));
  return (size_t)cols * (size_t)lg_gemm_min(bl->kc, g->k);
}

static size_t lg_gemm_slot_floats(const lg_gemm* g) {
  return lg_gemm_a_block_floats(g) + lg_gemm_b_block_floats(g) +
         2 * LG_GEMM_ALIGN_FLOATS;
}

size_t lg_gemm_scratch_floats(const lg_gemm* g, int tasks) {
  if (tasks < 1) tasks = 1;
  return lg_gemm_slot_floats(g) * (size_t)tasks;
}

size_t lg_gemm_packed_b_floats(lg_gemm_isa isa, int k, int n) {
  const lg_gemm_blocking* bl = lg_gemm_blocking_of(isa);
  return (size_t)lg_gemm_round_up(n, bl->nr) * (size_t)k;
}

/* ---- Packing ------------------------------------------------------------ */

/* Four rows (any may be NULL: zeros) transposed into dst[p * ld + r]. */
static void lg_gemm_pack_rows4(const float* const* rows, int depth, float* dst,
                               int ld) {
  int p = 0;
#if defined(__SSE2__)
  /* 4 x 4 blocks: four loads, an in-register transpose, four stores. */
  for (; p + 4 <= depth; p += 4) {
    __m128 v[4];
    for (int r = 0; r < 4; ++r) {
      v[r] = rows[r] != NULL ? _mm_loadu_ps(rows[r] + p) : _mm_setzero_ps();
    }
    const __m128 t0 = _mm_unpacklo_ps(v[0], v[1]);
    const __m128 t1 = _mm_unpackhi_ps(v[0], v[1]);
    const __m128 t2 = _mm_unpacklo_ps(v[2], v[3]);
    const __m128 t3 = _mm_unpackhi_ps(v[2], v[3]);
    float* d = dst + (size_t)p * ld;
    _mm_storeu_ps(d, _mm_movelh_ps(t0, t2));
    _mm_storeu_ps(d + ld, _mm_movehl_ps(t2, t0));
    _mm_storeu_ps(d + 2 * ld, _mm_movelh_ps(t1, t3));
    _mm_storeu_ps(d + 3 * ld, _mm_movehl_ps(t3, t1));
  }
#endif
  for (; p < depth; ++p) {
    for (int r = 0; r < 4; ++r) {
      dst[(size_t)p * ld + r] = rows[r] != NULL ? rows[r][p] : 0.0f;
    }
  }
}

void lg_gemm_pack_rows(const float* const* rows, int count, int depth,
                       float* dst, int ld) {
  int r = 0;
  for (; r + 4 <= count; r += 4) {
    lg_gemm_pack_rows4(rows + r, depth, dst + r, ld);
  }
  for (; r < count; ++r) {
    const float* src = rows[r];
    for (int p = 0; p < depth; ++p) {
      dst[(size_t)p * ld + r] = src != NULL ? src[p] : 0.0f;
    }
  }
}

static void lg_gemm_pack_a_strided(const lg_gemm_a* a, int i0, int rows, int p0,
                                   int depth, float* dst, int ld) {
  if (a->col_stride == 1) {
    /* Rows are contiguous: transpose them in 4 x 4 blocks. */
    const float* ptrs[LG_GEMM_MAX_MR];
    for (int r = 0; r < rows; ++r) {
      ptrs[r] = a->data + (ptrdiff_t)(i0 + r) * a->row_stride + p0;
    }
    lg_gemm_pack_rows(ptrs, rows, depth, dst, ld);
    return;
  }
  for (int p = 0; p < depth; ++p) {
    const float* src = a->data + (ptrdiff_t)(p0 + p) * a->col_stride +
                       (ptrdiff_t)i0 * a->row_stride;
    float* d = dst + (size_t)p * ld;
    for (int r = 0; r < rows; ++r) d[r] = src[(ptrdiff_t)r * a->row_stride];
  }
}

static void lg_gemm_pack_b_strided(const lg_gemm_b* b, int p0, int depth,
                                   int j0, int cols, float* dst, int ld) {
  if (b->col_stride == 1) {
    /* Panel rows are at most LG_GEMM_MAX_NR floats: copied inline. */
    for (int p = 0; p < depth; ++p) {
      lg_gemm_copy_floats(dst + (size_t)p * ld,
                          b->data + (ptrdiff_t)(p0 + p) * b->row_stride + j0,
                          cols);
    }
    return;
  }
  if (b->row_stride == 1 && cols <= LG_GEMM_MAX_NR) {
    /* A transposed B: its columns are contiguous rows in memory. */
    const float* ptrs[LG_GEMM_MAX_NR];
    for (int c = 0; c < cols; ++c) {
      ptrs[c] = b->data + (ptrdiff_t)(j0 + c) * b->col_stride + p0;
    }
    lg_gemm_pack_rows(ptrs, cols, depth, dst, ld);
    return;
  }
  for (int c = 0; c < cols; ++c) {
    const float* src = b->data + (ptrdiff_t)(j0 + c) * b->col_stride +
                       (ptrdiff_t)p0 * b->row_stride;
    for (int p = 0; p < depth; ++p) {
      dst[(size_t)p * ld + c] = src[(ptrdiff_t)p * b->row_stride];
    }
  }
}

/* A row-major B panel narrower than nr (B[p][c] = src[p * stride + c]):
 * rows and their zero tails in inline moves. A runtime B of BATCH_MATMUL
 * is packed on every Invoke, and a memcpy plus a memset call per short
 * row cost more than the stores. */
static void lg_gemm_pack_b_padded_rows(const float* src, ptrdiff_t stride,
                                       int depth, int cols, float* dst,
                                       int nr) {
  for (int p = 0; p < depth; ++p) {
    float* row = dst + (size_t)p * nr;
    lg_gemm_copy_floats(row, src + (ptrdiff_t)p * stride, cols);
    lg_gemm_zero_floats(row + cols, nr - cols);
  }
}

/* One B panel: depth x cols into dst with row length nr, zero-padded. */
static void lg_gemm_pack_b_panel(const lg_gemm_b* b, int p0, int depth, int j0,
                                 int cols, float* dst, int nr) {
  if (b->pack == NULL && b->col_stride == 1 && cols < nr) {
    lg_gemm_pack_b_padded_rows(b->data + (ptrdiff_t)p0 * b->row_stride + j0,
                               b->row_stride, depth, cols, dst, nr);
    return;
  }
  if (b->pack != NULL) {
    b->pack(b->pack_ctx, p0, depth, j0, cols, dst, nr);
  } else {
    lg_gemm_pack_b_strided(b, p0, depth, j0, cols, dst, nr);
  }
  if (cols < nr) {
    for (int p = 0; p < depth; ++p) {
      memset(dst + (size_t)p * nr + cols, 0,
             sizeof(float) * (size_t)(nr - cols));
    }
  }
}

/* Packs B[p0:+depth, j0:+cols] as consecutive NR-wide panels. */
static void lg_gemm_pack_b_block(const lg_gemm_b* b, const lg_gemm_blocking* bl,
                                 int p0, int depth, int j0, int cols,
                                 float* dst) {
  for (int j = 0; j < cols; j += bl->nr) {
    lg_gemm_pack_b_panel(b, p0, depth, j0 + j, lg_gemm_min(bl->nr, cols - j),
                         dst + (size_t)j * depth, bl->nr);
  }
}

void lg_gemm_pack_b(lg_gemm_isa isa, int k, int n, const lg_gemm_b* b,
                    float* dst) {
  const lg_gemm_blocking* bl = lg_gemm_blocking_of(isa);
  const size_t padded = (size_t)lg_gemm_round_up(n, bl->nr);
  /* Block pc starts after pc full-depth blocks of `padded` columns. */
  for (int pc = 0; pc < k; pc += bl->kc) {
    const int kc = lg_gemm_min(bl->kc, k - pc);
    lg_gemm_pack_b_block(b, bl, pc, kc, 0, n, dst + (size_t)pc * padded);
  }
}

static void lg_gemm_pack_a_block(const lg_gemm_a* a, const lg_gemm_blocking* bl,
                                 int i0, int rows, int p0, int depth,
                                 float* dst) {
  for (int i = 0; i < rows; i += bl->mr) {
    const int mr = lg_gemm_min(bl->mr, rows - i);
    float* panel = dst + (size_t)i * depth;
    if (a->pack != NULL) {
      a->pack(a->pack_ctx, i0 + i, mr, p0, depth, panel, bl->mr);
    } else {
      lg_gemm_pack_a_strided(a, i0 + i, mr, p0, depth, panel, bl->mr);
    }
  }
}

/* ---- One task ----------------------------------------------------------- */

/* k == 0: every output is clamp(bias) (or clamp(0)); clamp(C) when
 * accumulating. */
static void lg_gemm_fill_bias(const lg_gemm* g, int m0, int m1, int n0,
                              int n1) {
  for (int i = m0; i < m1; ++i) {
    float* row = g->c + (ptrdiff_t)i * g->ldc;
    for (int j = n0; j < n1; ++j) {
      const float v =
          g->accumulate ? row[j] : (g->bias != NULL ? g->bias[j] : 0.0f);
      row[j] = v < g->min ? g->min : (v > g->max ? g->max : v);
    }
  }
}

/* The micro-kernel loops over one packed A block and one packed B block. */
static void lg_gemm_macro(const lg_gemm* g, const lg_gemm_isa_info* info,
                          const float* ablock, int i0, int rows,
                          const float* bblock, int j0, int cols, int kc,
                          unsigned flags) {
  const lg_gemm_blocking* bl = &info->blocking;
  for (int i = 0; i < rows; i += bl->mr) {
    const int mr = lg_gemm_min(bl->mr, rows - i);
    const float* apanel = ablock + (size_t)i * kc;
    float* crow = g->c + (ptrdiff_t)(i0 + i) * g->ldc + j0;
    for (int j = 0; j < cols; j += bl->nr) {
      const int nr = lg_gemm_min(bl->nr, cols - j);
      const float* bias = g->bias != NULL ? g->bias + j0 + j : NULL;
      info->kernel(mr, nr, kc, apanel, bblock + (size_t)j * kc, crow + j,
                   g->ldc, bias, flags, g->min, g->max);
    }
  }
}

/* The same over A read in place (rows [i0, i0 + rows), depth from p0). */
static void lg_gemm_macro_direct(const lg_gemm* g, const lg_gemm_isa_info* info,
                                 int i0, int rows, int p0, const float* bblock,
                                 int j0, int cols, int kc, unsigned flags) {
  const lg_gemm_blocking* bl = &info->blocking;
  for (int i = 0; i < rows; i += bl->mr) {
    const int mr = lg_gemm_min(bl->mr, rows - i);
    const float* arow = g->a.data + (ptrdiff_t)(i0 + i) * g->a.row_stride + p0;
    float* crow = g->c + (ptrdiff_t)(i0 + i) * g->ldc + j0;
    for (int j = 0; j < cols; j += bl->nr) {
      const int nr = lg_gemm_min(bl->nr, cols - j);
      const float* bias = g->bias != NULL ? g->bias + j0 + j : NULL;
      info->direct_kernel(mr, nr, kc, arow, g->a.row_stride,
                          bblock + (size_t)j * kc, crow + j, g->ldc, bias,
                          flags, g->min, g->max);
    }
  }
}

/* Whether the tile reads A in place instead of packing it (see
 * LG_GEMM_DIRECT_MAX_PANELS in gemm.h). */
static bool lg_gemm_reads_a_in_place(const lg_gemm* g,
                                     const lg_gemm_isa_info* info, int cols) {
  return g->a.pack == NULL && g->a.col_stride == 1 &&
         info->direct_kernel != NULL &&
         cols <= LG_GEMM_DIRECT_MAX_PANELS * info->blocking.nr;
}

void lg_gemm_compute(const lg_gemm* g, int m0, int m1, int n0, int n1,
                     float* scratch) {
  if (m0 >= m1 || n0 >= n1) return;
  if (g->k == 0) {
    lg_gemm_fill_bias(g, m0, m1, n0, n1);
    return;
  }
  const lg_gemm_isa_info* info = &kIsaInfo[g->isa];
  const lg_gemm_blocking* bl = &info->blocking;
  float* abuf = lg_gemm_align(scratch);
  float* bbuf = lg_gemm_align(abuf + lg_gemm_a_block_floats(g));
  const size_t padded = (size_t)lg_gemm_round_up(g->n, bl->nr);
  const bool in_place = lg_gemm_reads_a_in_place(g, info, n1 - n0);
  for (int jc = n0; jc < n1; jc += bl->nc) {
    const int nc = lg_gemm_min(bl->nc, n1 - jc);
    for (int pc = 0; pc < g->k; pc += bl->kc) {
      const int kc = lg_gemm_min(bl->kc, g->k - pc);
      const float* bblock;
      if (g->b.packed != NULL) {
        /* jc is a multiple of nr: its panel starts jc * kc into block pc. */
        bblock = g->b.packed + (size_t)pc * padded + (size_t)jc * kc;
      } else {
        lg_gemm_pack_b_block(&g->b, bl, pc, kc, jc, nc, bbuf);
        bblock = bbuf;
      }
      unsigned flags = pc > 0 || g->accumulate ? LG_GEMM_ACCUMULATE : 0;
      if (pc + kc == g->k) flags |= LG_GEMM_CLAMP;
      for (int ic = m0; ic < m1; ic += bl->mc) {
        const int mc = lg_gemm_min(bl->mc, m1 - ic);
        if (in_place) {
          lg_gemm_macro_direct(g, info, ic, mc, pc, bblock, jc, nc, kc, flags);
          continue;
        }
        lg_gemm_pack_a_block(&g->a, bl, ic, mc, pc, kc, abuf);
        lg_gemm_macro(g, info, abuf, ic, mc, bblock, jc, nc, kc, flags);
      }
    }
  }
}

/* ---- Tasks over the thread pool ----------------------------------------- */

typedef struct lg_gemm_job {
  const lg_gemm* g;
  float* scratch;
  size_t slot_floats;
  int row_tasks, col_tasks;
  int col_panels;
  /* Scratch slot per pool thread (the slot the pool passes), or, when the
   * scratch has fewer slots than the pool has threads, one per task. */
  bool slot_per_thread;
} lg_gemm_job;

static void lg_gemm_task(void* ctx, int index, int slot) {
  const lg_gemm_job* job = ctx;
  const lg_gemm* g = job->g;
  const lg_gemm_blocking* bl = lg_gemm_blocking_of(g->isa);
  const int ti = index / job->col_tasks, tj = index % job->col_tasks;
  /* Equal shares of the rows (a share may end in a partial micro-panel:
   * the rows are pixels, and equal pixel ranges are what the layers before
   * and after give each thread) and of whole column micro-panels. */
  const int m0 = (int)((int64_t)g->m * ti / job->row_tasks);
  const int m1 = (int)((int64_t)g->m * (ti + 1) / job->row_tasks);
  const int c0 = (int)((int64_t)job->col_panels * tj / job->col_tasks);
  const int c1 = (int)((int64_t)job->col_panels * (tj + 1) / job->col_tasks);
  lg_gemm_compute(
      g, m0, m1, c0 * bl->nr, lg_gemm_min(g->n, c1 * bl->nr),
      job->scratch +
          job->slot_floats * (size_t)(job->slot_per_thread ? slot : index));
}

/* Multiply-adds that reading one byte of B, the weights, from the shared
 * cache costs as much time as, and how many times that a byte of A costs.
 * A task that splits the columns reads all of A, the activations, half of
 * which the other core wrote and still holds; one that splits the rows
 * reads all of B. Between layers on 2 threads (Sapphire Rapids) a 14x14 1x1
 * convolution of 384 into 64 channels, its input written by the depthwise
 * layer before it, took 45 us split by columns and 32 split by rows, for
 * the same multiply-adds. Weighting A's bytes 1, 2, 4 and 8 times B's, 8
 * was fastest on MobileNetV2, hand_landmark_lite, MediaPipe's face and palm
 * detectors and pose_detection at 2 threads (0.97-0.99x the time of 4); always
 * splitting the rows was no better. */
#define LG_GEMM_MACS_PER_BYTE 16
#define LG_GEMM_A_BYTE_WEIGHT 8

/* The busiest task's estimated cost, in multiply-adds, when a grid of
 * row_tasks x col_tasks splits the product: its micro-tiles (a partial
 * micro-panel of rows costs its rows plus two, for the loads it shares with
 * a full one) and the bytes of A and B it reads. */
static int64_t lg_gemm_grid_cost(const lg_gemm* g, const lg_gemm_blocking* bl,
                                 int row_tasks, int col_tasks, int col_panels) {
  const int rows = (g->m + row_tasks - 1) / row_tasks;
  const int partial = rows % bl->mr;
  const int64_t row_cost =
      (int64_t)(rows - partial) + (partial ? partial + 2 : 0);
  const int64_t cols =
      (int64_t)((col_panels + col_tasks - 1) / col_tasks) * bl->nr;
  const int64_t k = g->k > 0 ? g->k : 1;
  const int64_t bytes = (int64_t)sizeof(float) * k *
                        ((int64_t)LG_GEMM_A_BYTE_WEIGHT * rows + cols);
  return row_cost * cols * k + LG_GEMM_MACS_PER_BYTE * bytes;
}

/* Splits `tasks` into the row x column grid of tiles of the least
 * lg_gemm_grid_cost. */
static void lg_gemm_grid(const lg_gemm* g, const lg_gemm_blocking* bl,
                         int tasks, int col_panels, int* row_tasks,
                         int* col_tasks) {
  int64_t best = INT64_MAX;
  *row_tasks = *col_tasks = 1;
  for (int tm = 1; tm <= tasks; ++tm) {
    if (tasks % tm != 0) continue;
    const int rows = lg_gemm_min(tm, g->m);
    const int cols = lg_gemm_min(tasks / tm, col_panels);
    const int64_t cost = lg_gemm_grid_cost(g, bl, rows, cols, col_panels);
    if (cost < best) {
      best = cost;
      *row_tasks = rows;
      *col_tasks = cols;
    }
  }
}

void lg_gemm_run(const lg_gemm* g, lg_thread_pool* pool, float* scratch,
                 size_t scratch_floats) {
  if (g->m <= 0 || g->n <= 0) return;
  const double macs = (double)g->m * g->n * (g->k > 0 ? g->k : 1);
  const double b_bytes = (double)g->n * g->k * sizeof(float);
  if ((macs < LG_GEMM_MIN_PARALLEL_MACS &&
       b_bytes < LG_GEMM_MIN_PARALLEL_B_BYTES) ||
      lg_thread_pool_size(pool) <= 1) {
    /* One task: straight to the tile loop, without the task setup (small
     * layers run this once per Invoke each, a transformer's dozens). */
    lg_gemm_compute(g, 0, g->m, 0, g->n, scratch);
    return;
  }
  const lg_gemm_blocking* bl = lg_gemm_blocking_of(g->isa);
  lg_gemm_job job = {
      .g = g,
      .scratch = scratch,
      .slot_floats = lg_gemm_slot_floats(g),
      .row_tasks = 1,
      .col_tasks = 1,
      .col_panels = (g->n + bl->nr - 1) / bl->nr,
  };
  int tasks = lg_thread_pool_size(pool);
  const int slots = (int)(scratch_floats / job.slot_floats);
  if (slots < tasks) {
    tasks = slots;
  } else if (g->b.packed != NULL) {
    /* A few tasks per thread, claimed dynamically, each with its thread's
     * scratch. (Tasks that pack B themselves stay one per thread: each
     * repacks the B columns it covers.) */
    job.slot_per_thread = true;
    tasks = lg_thread_pool_tasks(pool, INT32_MAX);
  }
  if (tasks > 1) {
    lg_gemm_grid(g, bl, tasks, job.col_panels, &job.row_tasks, &job.col_tasks);
  }
  const int count = job.row_tasks * job.col_tasks;
  if (count == 1 || pool == NULL) {
    job.row_tasks = job.col_tasks = 1;
    lg_gemm_task(&job, 0, 0);
    return;
  }
  lg_thread_pool_run_slots(pool, lg_gemm_task, &job, count);
}

/* ---- The scalar micro-kernel ------------------------------------------- */

#define LG_SCALAR_MR 4
#define LG_SCALAR_NR 8

/* The scalar tile; A[r][p] = a[r * ars + p * acs] (packed: 1 and MR). */
static inline void lg_gemm_scalar_tile(int rows, int cols, int kc,
                                       const float* a, ptrdiff_t ars,
                                       ptrdiff_t acs, const float* b, float* c,
                                       ptrdiff_t ldc, const float* bias,
                                       unsigned flags, float lo, float hi) {
  float acc[LG_SCALAR_MR][LG_SCALAR_NR];
  memset(acc, 0, sizeof(acc));
  if (rows == LG_SCALAR_MR) {
    /* Fixed trip counts, so the compiler keeps acc in vector registers. */
    for (int p = 0; p < kc; ++p) {
      const float* ap = a + (ptrdiff_t)p * acs;
      const float* bp = b + (size_t)p * LG_SCALAR_NR;
      for (int r = 0; r < LG_SCALAR_MR; ++r) {
        for (int j = 0; j < LG_SCALAR_NR; ++j) {
          acc[r][j] += ap[r * ars] * bp[j];
        }
      }
    }
  } else {
    for (int p = 0; p < kc; ++p) {
      const float* bp = b + (size_t)p * LG_SCALAR_NR;
      for (int r = 0; r < rows; ++r) {
        const float av = a[(ptrdiff_t)p * acs + r * ars];
        for (int j = 0; j < LG_SCALAR_NR; ++j) acc[r][j] += av * bp[j];
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
    float* crow = c + (ptrdiff_t)r * ldc;
    for (int j = 0; j < cols; ++j) {
      float v;
      if (flags & LG_GEMM_ACCUMULATE) {
        v = crow[j] + acc[r][j];
      } else {
        v = bias != NULL ? acc[r][j] + bias[j] : acc[r][j];
      }
      if (flags & LG_GEMM_CLAMP) v = v < lo ? lo : (v > hi ? hi : v);
      crow[j] = v;
    }
  }
}

void lg_gemm_kernel_scalar(int rows, int cols, int kc, const float* a,
                           const float* b, float* c, ptrdiff_t ldc,
                           const float* bias, unsigned flags, float lo,
                           float hi) {
  lg_gemm_scalar_tile(rows, cols, kc, a, 1, LG_SCALAR_MR, b, c, ldc, bias,
                      flags, lo, hi);
}

void lg_gemm_kernel_scalar_direct(int rows, int cols, int kc, const float* a,
                                  ptrdiff_t lda, const float* b, float* c,
                                  ptrdiff_t ldc, const float* bias,
                                  unsigned flags, float lo, float hi) {
  lg_gemm_scalar_tile(rows, cols, kc, a, lda, 1, b, c, ldc, bias, flags, lo,
                      hi);
}
