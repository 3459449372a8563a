/* litegpu's single-precision GEMM: C = clamp(A * B + bias) for the nn
 * kernels (CONV_2D, FULLY_CONNECTED, BATCH_MATMUL, TRANSPOSE_CONV).
 *
 * A is m x k, B is k x n, C is m x n row-major with row stride ldc; bias
 * (optional) holds n values added to every row; [min, max] clamps every
 * output (-inf/+inf for none; NaN passes through the clamp). A and B are
 * read through strides (so transposed operands cost nothing extra) or
 * through a packing callback (CONV_2D packs image patches straight from its
 * input, an implicit im2col; TRANSPOSE_CONV reads its OHWI weights in the
 * order its column buffer wants).
 *
 * Structure (Goto / BLIS style). For each task's output tile:
 *   for jc in n by NC                    B block: KC x NC, sized for L2
 *     for pc in k by KC
 *       pack B[pc:+KC, jc:+NC] into NR-wide panels (or use the prepacked B)
 *       for ic in m by MC
 *         pack A[ic:+MC, pc:+KC] into MR-tall panels
 *         for ir in MC by MR             one A panel (MR x KC) stays in L1
 *           for jr in NC by NR           B panels stream from L2
 *             micro-kernel: MR x NR accumulators in registers, KC rank-1
 *             updates, then C = acc + bias (first K block) or C += acc,
 *             clamped on the last K block
 * A panel: a[p * MR + r]; B panel: b[p * NR + c], columns past n zeroed.
 * A row-major A (strides, col_stride 1, no callback) is not packed when a
 * task's tile spans at most 4 B panels: packing costs as much as the few
 * micro-kernel calls that would reuse it, so the "direct" micro-kernels
 * broadcast A straight from its rows (a 1x1 convolution's input).
 * A row-major B panel narrower than NR (BATCH_MATMUL's runtime 16-wide
 * attention operands, packed on every Invoke) is copied and zero-padded in
 * inline moves, not a memcpy and a memset call per row.
 * Edge tiles use the same kernels with fewer rows (an unrolled variant per
 * row count) and masked column stores, so no output is ever written past
 * its tile; the AVX-512 kernel skips a panel's second 16 columns when the
 * tile has at most 16 (a 16-wide BATCH_MATMUL operand, an edge panel).
 *
 * Instruction sets: one binary holds the scalar C kernel and, on x86-64,
 * AVX2+FMA and AVX-512F kernels compiled with function-level target
 * attributes; lg_gemm_isa_default() picks the best one the CPU (and OS)
 * supports once, with __builtin_cpu_supports. The environment variable
 * LITEGPU_GEMM_ISA=scalar|avx2|avx512 caps the choice (for testing the
 * slower paths through whole models). Blocking per ISA (floats):
 *   scalar  MR 4,  NR 8,  KC 256, MC 128, NC 512
 *   avx2    MR 6,  NR 16, KC 256, MC 120, NC 768
 *   avx512  MR 12, NR 32, KC 256, MC 144, NC 768
 * (see lg_gemm_blocking in gemm.c for the reasoning).
 *
 * Memory: the GEMM never allocates. Callers size a scratch buffer with
 * lg_gemm_scratch_floats in Prepare (packing space per task) and, for
 * constant B, prepack it once with lg_gemm_pack_b into
 * lg_gemm_packed_b_floats floats. Scratch and packed B are per call site;
 * tasks of one lg_gemm_run never share scratch. All functions are thread
 * safe except lg_gemm_isa_set_default (tests and benchmarks only).
 *
 * Example (C[3x4] = A[3x5] * B[5x4], row-major, no bias, no clamp):
 *   lg_gemm g = {.isa = lg_gemm_isa_default(), .m = 3, .n = 4, .k = 5,
 *                .a = {.data = a, .row_stride = 5, .col_stride = 1},
 *                .b = {.data = b, .row_stride = 4, .col_stride = 1},
 *                .c = c, .ldc = 4, .min = -INFINITY, .max = INFINITY};
 *   size_t floats = lg_gemm_scratch_floats(&g, 1);   // in Prepare
 *   lg_gemm_run(&g, pool, scratch, floats);          // in Invoke
 */
#ifndef LITEGPU_RUNTIME_KERNELS_GEMM_H_
#define LITEGPU_RUNTIME_KERNELS_GEMM_H_

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/thread_pool.h"

typedef enum lg_gemm_isa {
  LG_GEMM_ISA_SCALAR = 0,
  LG_GEMM_ISA_AVX2 = 1,   /* AVX2 + FMA */
  LG_GEMM_ISA_AVX512 = 2, /* AVX-512F */
  LG_GEMM_ISA_COUNT = 3,
} lg_gemm_isa;

/* "scalar", "avx2" or "avx512" ("unknown" otherwise). */
const char* lg_gemm_isa_name(lg_gemm_isa isa);
/* Whether this build has the ISA's kernel and this CPU runs it. */
bool lg_gemm_isa_supported(lg_gemm_isa isa);
/* The ISA kernels use: the best supported one (capped by LITEGPU_GEMM_ISA),
 * chosen on first use. */
lg_gemm_isa lg_gemm_isa_default(void);
/* Overrides the default for the whole process (tests, benchmarks). Not
 * thread safe against running kernels; an unsupported ISA is ignored.
 * Returns the default in force afterwards. */
lg_gemm_isa lg_gemm_isa_set_default(lg_gemm_isa isa);

/* Register and cache blocking of an ISA's kernel. */
typedef struct lg_gemm_blocking {
  int mr, nr; /* micro-tile: rows of A, columns of B */
  int kc;     /* depth of a packed block */
  int mc;     /* rows of a packed A block (a multiple of mr) */
  int nc;     /* columns of a packed B block (a multiple of nr) */
} lg_gemm_blocking;
const lg_gemm_blocking* lg_gemm_blocking_of(lg_gemm_isa isa);

/* Packs rows [i0, i0 + rows) x depth [p0, p0 + depth) of A into dst as
 * dst[p * ld + r] (rows <= ld; rows past `rows` are not read). */
typedef void (*lg_gemm_pack_a_fn)(const void* ctx, int i0, int rows, int p0,
                                  int depth, float* dst, int ld);
/* Packs depth [p0, p0 + depth) x columns [j0, j0 + cols) of B into dst as
 * dst[p * ld + c]; the callee need not touch columns [cols, ld) (the GEMM
 * zeroes them). */
typedef void (*lg_gemm_pack_b_fn)(const void* ctx, int p0, int depth, int j0,
                                  int cols, float* dst, int ld);

typedef struct lg_gemm_a {
  const float* data; /* A[i][p] = data[i * row_stride + p * col_stride] */
  ptrdiff_t row_stride;
  ptrdiff_t col_stride;
  lg_gemm_pack_a_fn pack; /* when set, used instead of data and strides */
  const void* pack_ctx;
} lg_gemm_a;

typedef struct lg_gemm_b {
  const float* data; /* B[p][j] = data[p * row_stride + j * col_stride] */
  ptrdiff_t row_stride;
  ptrdiff_t col_stride;
  lg_gemm_pack_b_fn pack; /* when set, used instead of data and strides */
  const void* pack_ctx;
  /* lg_gemm_pack_b's output for the same isa, k and n; when set, the GEMM
   * reads it and ignores everything above. */
  const float* packed;
} lg_gemm_b;

typedef struct lg_gemm {
  lg_gemm_isa isa; /* must be supported */
  int m, n, k;     /* >= 0; k == 0 gives C = clamp(bias) */
  lg_gemm_a a;
  lg_gemm_b b;
  float* c; /* C[i][j] = c[i * ldc + j] */
  ptrdiff_t ldc;
  const float* bias; /* n values, or NULL */
  float min, max;
  /* C += A * B (then the clamp) instead of C = A * B + bias: a sum split
   * over several GEMMs (CONV_2D's window rows). bias must be NULL. */
  bool accumulate;
} lg_gemm;

/* Floats lg_gemm_pack_b writes for a k x n B under `isa`. */
size_t lg_gemm_packed_b_floats(lg_gemm_isa isa, int k, int n);
/* Packs all of B (b->packed is ignored) for later calls with b.packed. */
void lg_gemm_pack_b(lg_gemm_isa isa, int k, int n, const lg_gemm_b* b,
                    float* dst);

/* Scratch floats for running `g` (its isa, sizes and whether B is
 * prepacked) with up to `tasks` tasks at once. */
size_t lg_gemm_scratch_floats(const lg_gemm* g, int tasks);

/* Computes the output tile rows [m0, m1) x columns [n0, n1) on the calling
 * thread. m0 must be a multiple of the ISA's mr and n0 of its nr (or equal
 * m / n); `scratch` holds lg_gemm_scratch_floats(g, 1) floats. */
void lg_gemm_compute(const lg_gemm* g, int m0, int m1, int n0, int n1,
                     float* scratch);

/* Computes all of C, split into output tiles run on the pool: with a
 * prepacked B and scratch for every pool thread, a few tiles per thread
 * (claimed dynamically, so a descheduled thread delays one tile); else up
 * to min(pool threads, scratch tasks) tiles. Below
 * LG_GEMM_MIN_PARALLEL_MACS, or with one thread, it is lg_gemm_compute of
 * the whole C on the calling thread. scratch_floats is the size of
 * `scratch` (from lg_gemm_scratch_floats(g, tasks)). */
void lg_gemm_run(const lg_gemm* g, lg_thread_pool* pool, float* scratch,
                 size_t scratch_floats);

/* Below this many multiply-adds lg_gemm_run (and the kernels that split
 * work by batch) use one task. Pool workers spin briefly between runs, so
 * back-to-back layers hand work over without a wake-up; a cold wake-up still
 * costs tens of microseconds on this project's VMs. 512K multiply-adds (a
 * few microseconds of GEMM) was the best of 128K/512K/8M on MobileNetV2 at
 * 2 threads (benchmark_model p50: 3.9 / 4.0 / 5.7 ms).
 *
 * Measured again after the pool stopped waiting for late workers (2-vCPU
 * AVX-512 VM shared with other jobs, load 1-7): a 2-task run whose tasks
 * busy-wait a fixed time, 20,000 back-to-back runs with 5 us between them,
 * shows the worker starting its task 0.4-0.5 us after the run begins
 * (p10-p50) when it holds a core, but it held one in only 15-85% of runs
 * depending on load, and a worker preempted inside its task holds the run
 * for 50-70 us (p90). A 1x1 convolution's GEMM (m x 64 x 64, m 16..8192,
 * 1 vs 2 threads alternating, 301-3001 repeats, median) was no faster at 2
 * threads at any size (load 4-7). On kws_cnn (1x1 layers of 512,000
 * multiply-adds, just under this cutoff), lowering it to 128K and
 * LG_DW_MIN_PARALLEL_MACS to 64K made 2 threads slower: benchmark_model
 * p50 over alternating rounds 41.5-41.8 vs 43.1-43.4 us (4 rounds, load
 * ~3), then 41.6 vs 61.6 and 71.9 vs 66.1 us as the load rose; before the
 * first layer's speed-up 53.7-54.3 vs 55.6-70.2 us (6 rounds). So the cutoff
 * stays: splitting pays only where the worker's half clearly outweighs
 * the hand-off and the risk of a preempted worker, and on an
 * oversubscribed machine small layers' halves do not. */
#define LG_GEMM_MIN_PARALLEL_MACS (1 << 19)

/* Bytes of B from which a GEMM is split over threads whatever its
 * multiply-adds: with a few rows of A (a 1x1 layer on a 1x1 image, a
 * FULLY_CONNECTED on one row) each weight is read once, so the time is the
 * stream of B from memory, and two cores stream two halves faster than one
 * streams both (MobileNetV3's 432 -> 1024 classifier layer, 1.7 MB of
 * weights and 442K multiply-adds: 70 us on one thread). */
#define LG_GEMM_MIN_PARALLEL_B_BYTES (1 << 18)

/* A row-major A (no packing callback, col_stride 1) is read in place, not
 * packed, by a tile at most this many B panels wide: packing pays when each
 * A panel meets many B panels, while the direct micro-kernels take one
 * float of each row per depth step, as from a packed panel. */
#define LG_GEMM_DIRECT_MAX_PANELS 4

/* The largest mr and nr of any ISA. */
#define LG_GEMM_MAX_MR 12
#define LG_GEMM_MAX_NR 32

/* A helper for A-packing callbacks: writes `count` rows of `depth` floats
 * (rows[r][p]; a NULL row reads as zeros) transposed into dst[p * ld + r].
 * count <= ld. */
void lg_gemm_pack_rows(const float* const* rows, int count, int depth,
                       float* dst, int ld);

/* Copies n floats (not overlapping) in inline 4-float moves: for the short
 * rows of small operands (a 16-wide B row, an attention head's row), where
 * a memcpy call per row costs more than the copy itself. */
#if defined(__GNUC__)
/* An empty statement that keeps GCC from folding a copy or fill loop back
 * into a memcpy or memset call. */
#define LG_GEMM_NO_MEMCPY_IDIOM() __asm__("" ::: "memory")
#else
#define LG_GEMM_NO_MEMCPY_IDIOM() ((void)0)
#endif
static inline void lg_gemm_copy_floats(float* dst, const float* src, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    memcpy(dst + i, src + i, 4 * sizeof(float));
    LG_GEMM_NO_MEMCPY_IDIOM();
  }
  for (; i < n; ++i) {
    dst[i] = src[i];
    LG_GEMM_NO_MEMCPY_IDIOM();
  }
}

/* Zeroes n floats the same way (GCC would make a loop of stores a memset
 * call). */
static inline void lg_gemm_zero_floats(float* dst, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    memset(dst + i, 0, 4 * sizeof(float));
    LG_GEMM_NO_MEMCPY_IDIOM();
  }
  for (; i < n; ++i) {
    dst[i] = 0.0f;
    LG_GEMM_NO_MEMCPY_IDIOM();
  }
}

/* ---- Internal: the micro-kernels, for gemm.c and the tests -------------- */

/* Flags of a micro-kernel call. */
enum {
  LG_GEMM_ACCUMULATE = 1, /* C += acc; otherwise C = acc + bias */
  LG_GEMM_CLAMP = 2,      /* clamp to [lo, hi] after the update */
};

/* C[r][c] (r < rows, c < cols) updated with the MR x NR product of a
 * packed A panel and B panel of depth kc. rows <= MR, cols <= NR. bias (when
 * not NULL) has `cols` values. */
typedef void (*lg_gemm_kernel_fn)(int rows, int cols, int kc, const float* a,
                                  const float* b, float* c, ptrdiff_t ldc,
                                  const float* bias, unsigned flags, float lo,
                                  float hi);

/* The same with A read in place: row r of the tile starts at a + r * lda
 * and its depth steps are adjacent (a row-major A, not packed). */
typedef void (*lg_gemm_direct_kernel_fn)(int rows, int cols, int kc,
                                         const float* a, ptrdiff_t lda,
                                         const float* b, float* c,
                                         ptrdiff_t ldc, const float* bias,
                                         unsigned flags, float lo, float hi);

void lg_gemm_kernel_scalar(int rows, int cols, int kc, const float* a,
                           const float* b, float* c, ptrdiff_t ldc,
                           const float* bias, unsigned flags, float lo,
                           float hi);
void lg_gemm_kernel_scalar_direct(int rows, int cols, int kc, const float* a,
                                  ptrdiff_t lda, const float* b, float* c,
                                  ptrdiff_t ldc, const float* bias,
                                  unsigned flags, float lo, float hi);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LG_GEMM_HAVE_X86 1
void lg_gemm_kernel_avx2(int rows, int cols, int kc, const float* a,
                         const float* b, float* c, ptrdiff_t ldc,
                         const float* bias, unsigned flags, float lo, float hi);
void lg_gemm_kernel_avx2_direct(int rows, int cols, int kc, const float* a,
                                ptrdiff_t lda, const float* b, float* c,
                                ptrdiff_t ldc, const float* bias,
                                unsigned flags, float lo, float hi);
void lg_gemm_kernel_avx512(int rows, int cols, int kc, const float* a,
                           const float* b, float* c, ptrdiff_t ldc,
                           const float* bias, unsigned flags, float lo,
                           float hi);
void lg_gemm_kernel_avx512_direct(int rows, int cols, int kc, const float* a,
                                  ptrdiff_t lda, const float* b, float* c,
                                  ptrdiff_t ldc, const float* bias,
                                  unsigned flags, float lo, float hi);
#else
#define LG_GEMM_HAVE_X86 0
#endif

#endif /* LITEGPU_RUNTIME_KERNELS_GEMM_H_ */
