/* The SGEMM (runtime/kernels/gemm.h) on every instruction set this machine
 * runs: seeded shapes below, at, above and at multiples of each ISA's
 * micro-tile and cache blocks (and primes), against a double-precision
 * reference; transposed operands, prepacked B, packing callbacks, bias,
 * clamp, threads, output tiles; the micro-kernels on their own; NaN and
 * Inf; k == 0 and empty products; guard values around every output. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Written around and between outputs; a GEMM must never touch it. */
#define GUARD_VALUE (-12345.5f)
#define GUARD_ROWS 2

/* ---- Helpers ------------------------------------------------------------ */

static uint32_t rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* Uniform in [-1, 1). */
static float rng_float(uint32_t* state) {
  return (float)((double)(rng_next(state) >> 8) / (double)(1u << 23) - 1.0);
}

static float* alloc_floats(size_t n) {
  float* p = malloc(sizeof(float) * (n > 0 ? n : 1));
  assert_non_null(p);
  return p;
}

/* A GEMM problem with its own operands, output (with guard columns and
 * rows) and double-precision expectation. */
typedef struct problem {
  int m, n, k;
  bool trans_a, trans_b; /* A stored k x m, B stored n x k */
  bool bias, clamp;
  float* a;
  float* b;
  float* bias_data;
  float* c;
  ptrdiff_t ldc;
  double* want;
  double* tolerance;
} problem;

static void problem_init(problem* p, int m, int n, int k, bool trans_a,
                         bool trans_b, bool bias, bool clamp, uint32_t seed) {
  memset(p, 0, sizeof(*p));
  p->m = m;
  p->n = n;
  p->k = k;
  p->trans_a = trans_a;
  p->trans_b = trans_b;
  p->bias = bias;
  p->clamp = clamp;
  p->a = alloc_floats((size_t)m * k);
  p->b = alloc_floats((size_t)k * n);
  p->bias_data = alloc_floats((size_t)n);
  p->ldc = n + 3;
  p->c = alloc_floats((size_t)(m + GUARD_ROWS) * p->ldc);
  p->want = malloc(sizeof(double) * (size_t)(m * n > 0 ? m * n : 1));
  p->tolerance = malloc(sizeof(double) * (size_t)(m * n > 0 ? m * n : 1));
  assert_true(p->want != NULL && p->tolerance != NULL);
  for (int i = 0; i < m * k; ++i) p->a[i] = rng_float(&seed);
  for (int i = 0; i < k * n; ++i) p->b[i] = rng_float(&seed);
  for (int i = 0; i < n; ++i) p->bias_data[i] = rng_float(&seed);
  for (int i = 0; i < (m + GUARD_ROWS) * p->ldc; ++i) p->c[i] = GUARD_VALUE;
  /* The reference: sums in double, bound = 1e-6 + 2 k eps sum |terms|. */
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = bias ? p->bias_data[j] : 0.0, magnitude = fabs(sum);
      for (int q = 0; q < k; ++q) {
        const double av = trans_a ? p->a[q * m + i] : p->a[i * k + q];
        const double bv = trans_b ? p->b[j * k + q] : p->b[q * n + j];
        sum += av * bv;
        magnitude += fabs(av * bv);
      }
      if (clamp) sum = sum < 0.0 ? 0.0 : (sum > 6.0 ? 6.0 : sum);
      p->want[i * n + j] = sum;
      p->tolerance[i * n + j] = 1e-6 + 2.0 * (k + 1) * FLT_EPSILON * magnitude;
    }
  }
}

static void problem_release(problem* p) {
  free(p->a);
  free(p->b);
  free(p->bias_data);
  free(p->c);
  free(p->want);
  free(p->tolerance);
}

static lg_gemm problem_gemm(const problem* p, lg_gemm_isa isa) {
  lg_gemm g = {
      .isa = isa,
      .m = p->m,
      .n = p->n,
      .k = p->k,
      .a = {.data = p->a,
            .row_stride = p->trans_a ? 1 : p->k,
            .col_stride = p->trans_a ? p->m : 1},
      .b = {.data = p->b,
            .row_stride = p->trans_b ? 1 : p->n,
            .col_stride = p->trans_b ? p->k : 1},
      .c = p->c,
      .ldc = p->ldc,
      .bias = p->bias ? p->bias_data : NULL,
      .min = p->clamp ? 0.0f : -INFINITY,
      .max = p->clamp ? 6.0f : INFINITY,
  };
  return g;
}

/* Checks every output and every guard; names the first failure. */
static void problem_check(const problem* p, const char* what) {
  for (int i = 0; i < p->m + GUARD_ROWS; ++i) {
    for (int j = 0; j < p->ldc; ++j) {
      const float got = p->c[i * p->ldc + j];
      if (i >= p->m || j >= p->n) {
        if (got != GUARD_VALUE) {
          fail_msg("%s m=%d n=%d k=%d: guard [%d,%d] overwritten with %g", what,
                   p->m, p->n, p->k, i, j, (double)got);
        }
        continue;
      }
      const double want = p->want[i * p->n + j];
      if (!(fabs(got - want) <= p->tolerance[i * p->n + j])) {
        fail_msg("%s m=%d n=%d k=%d: C[%d,%d] = %.9g, want %.9g (tol %.3g)",
                 what, p->m, p->n, p->k, i, j, (double)got, want,
                 p->tolerance[i * p->n + j]);
      }
    }
  }
}

/* Runs the problem on `isa` with `threads` threads, B prepacked or not. */
static void run_problem(problem* p, lg_gemm_isa isa, int threads,
                        bool prepack) {
  lg_gemm g = problem_gemm(p, isa);
  float* packed = NULL;
  if (prepack) {
    packed = alloc_floats(lg_gemm_packed_b_floats(isa, p->k, p->n));
    lg_gemm_pack_b(isa, p->k, p->n, &g.b, packed);
    g.b.packed = packed;
    g.b.data = NULL; /* must not be read */
  }
  const size_t floats = lg_gemm_scratch_floats(&g, threads);
  float* scratch = alloc_floats(floats);
  lg_thread_pool* pool = lg_thread_pool_create(threads);
  assert_non_null(pool);
  lg_gemm_run(&g, pool, scratch, floats);
  lg_thread_pool_destroy(pool);
  free(scratch);
  free(packed);
  char what[96];
  snprintf(what, sizeof(what), "%s threads=%d prepack=%d ta=%d tb=%d",
           lg_gemm_isa_name(isa), threads, prepack, p->trans_a, p->trans_b);
  problem_check(p, what);
}

static void check_shape(lg_gemm_isa isa, int m, int n, int k, uint32_t seed) {
  /* Every operand layout and option, spread over the seeds. */
  const bool ta = (seed & 1) != 0, tb = (seed & 2) != 0;
  const bool bias = (seed & 4) == 0, clamp = (seed & 8) != 0;
  problem p;
  problem_init(&p, m, n, k, ta, tb, bias, clamp, seed);
  run_problem(&p, isa, 1, (seed & 16) != 0);
  problem_release(&p);
}

/* ---- Tests -------------------------------------------------------------- */

static void test_isa_dispatch(void** state) {
  (void)state;
  assert_true(lg_gemm_isa_supported(LG_GEMM_ISA_SCALAR));
  assert_true(lg_gemm_isa_supported(lg_gemm_isa_default()));
  assert_false(lg_gemm_isa_supported(LG_GEMM_ISA_COUNT));
  assert_string_equal(lg_gemm_isa_name(LG_GEMM_ISA_SCALAR), "scalar");
  assert_string_equal(lg_gemm_isa_name(LG_GEMM_ISA_AVX2), "avx2");
  assert_string_equal(lg_gemm_isa_name(LG_GEMM_ISA_AVX512), "avx512");
  assert_string_equal(lg_gemm_isa_name(LG_GEMM_ISA_COUNT), "unknown");
  /* Setting the default sticks for a supported ISA and returns it. */
  const lg_gemm_isa before = lg_gemm_isa_default();
  assert_int_equal(lg_gemm_isa_set_default(LG_GEMM_ISA_SCALAR),
                   LG_GEMM_ISA_SCALAR);
  assert_int_equal(lg_gemm_isa_default(), LG_GEMM_ISA_SCALAR);
  assert_int_equal(lg_gemm_isa_set_default(before), before);
  /* Blocking invariants the driver relies on. */
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    const lg_gemm_blocking* b = lg_gemm_blocking_of((lg_gemm_isa)isa);
    assert_true(b->mr >= 1 && b->mr <= LG_GEMM_MAX_MR);
    assert_int_equal(b->mc % b->mr, 0);
    assert_int_equal(b->nc % b->nr, 0);
    assert_true(b->kc >= 1);
  }
#if defined(__x86_64__)
  printf("gemm: default ISA %s; avx2 %s, avx512 %s\n",
         lg_gemm_isa_name(lg_gemm_isa_default()),
         lg_gemm_isa_supported(LG_GEMM_ISA_AVX2) ? "yes" : "no",
         lg_gemm_isa_supported(LG_GEMM_ISA_AVX512) ? "yes" : "no");
#endif
}

static void test_hand_values(void** state) {
  (void)state;
  /* [1 2 3; 4 5 6] * [1 0; 0 1; 1 1] = [1+3 2+3; 4+6 5+6] = [4 5; 10 11];
   * bias (0.5, -20) gives [4.5 -15; 10.5 -9]; clamp to [0, 6] gives
   * [4.5 0; 6 0]. */
  const float a[] = {1, 2, 3, 4, 5, 6};
  const float b[] = {1, 0, 0, 1, 1, 1};
  const float bias[] = {0.5f, -20.0f};
  const float want[] = {4.5f, 0.0f, 6.0f, 0.0f};
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    float c[4 + 2];
    for (int i = 0; i < 6; ++i) c[i] = GUARD_VALUE;
    lg_gemm g = {.isa = (lg_gemm_isa)isa,
                 .m = 2,
                 .n = 2,
                 .k = 3,
                 .a = {.data = a, .row_stride = 3, .col_stride = 1},
                 .b = {.data = b, .row_stride = 2, .col_stride = 1},
                 .c = c,
                 .ldc = 2,
                 .bias = bias,
                 .min = 0.0f,
                 .max = 6.0f};
    float scratch[4096];
    assert_true(lg_gemm_scratch_floats(&g, 1) <= 4096);
    lg_gemm_run(&g, NULL, scratch, 4096);
    for (int i = 0; i < 4; ++i) {
      if (c[i] != want[i]) {
        fail_msg("%s: C[%d] = %g, want %g", lg_gemm_isa_name(isa), i,
                 (double)c[i], (double)want[i]);
      }
    }
    assert_true(c[4] == GUARD_VALUE && c[5] == GUARD_VALUE);
  }
}

/* accumulate: C += A * B with no bias, then the clamp; with k == 0 only the
 * clamp. C starts at [1 -1; 2 100]; adding [4 5; 10 11] (test_hand_values'
 * product) gives [5 4; 12 111], clamped to [0, 6]: [5 4; 6 6]. Reading A in
 * place (row-major) and packing it (a column-major A) must agree. */
static void test_accumulate(void** state) {
  (void)state;
  const float a[] = {1, 2, 3, 4, 5, 6};
  const float a_columns[] = {1, 4, 2, 5, 3, 6};
  const float b[] = {1, 0, 0, 1, 1, 1};
  const float want[] = {5.0f, 4.0f, 6.0f, 6.0f};
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (int layout = 0; layout < 2; ++layout) {
      float c[4] = {1.0f, -1.0f, 2.0f, 100.0f};
      lg_gemm g = {.isa = (lg_gemm_isa)isa,
                   .m = 2,
                   .n = 2,
                   .k = 3,
                   .a = {.data = layout == 0 ? a : a_columns,
                         .row_stride = layout == 0 ? 3 : 1,
                         .col_stride = layout == 0 ? 1 : 2},
                   .b = {.data = b, .row_stride = 2, .col_stride = 1},
                   .c = c,
                   .ldc = 2,
                   .min = 0.0f,
                   .max = 6.0f,
                   .accumulate = true};
      float scratch[4096];
      assert_true(lg_gemm_scratch_floats(&g, 1) <= 4096);
      lg_gemm_run(&g, NULL, scratch, 4096);
      for (int i = 0; i < 4; ++i) {
        if (c[i] != want[i]) {
          fail_msg("%s, layout %d: C[%d] = %g, want %g", lg_gemm_isa_name(isa),
                   layout, i, (double)c[i], (double)want[i]);
        }
      }
    }
    float c[2] = {-3.0f, 9.0f};
    lg_gemm g = {.isa = (lg_gemm_isa)isa,
                 .m = 1,
                 .n = 2,
                 .k = 0,
                 .c = c,
                 .ldc = 2,
                 .min = 0.0f,
                 .max = 6.0f,
                 .accumulate = true};
    float scratch[64];
    lg_gemm_run(&g, NULL, scratch, 64);
    assert_true(c[0] == 0.0f && c[1] == 6.0f);
  }
}

static void test_tile_edges(void** state) {
  (void)state;
  /* Sizes around each ISA's micro-tile and blocks, and primes. */
  uint32_t seed = 7u;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    const lg_gemm_blocking* bl = lg_gemm_blocking_of((lg_gemm_isa)isa);
    const int ms[] = {1,          2,          3,  bl->mr - 1, bl->mr,
                      bl->mr + 1, 2 * bl->mr, 13, 17,         bl->mc + 1};
    const int ns[] = {1, 3, 5, bl->nr - 1, bl->nr, bl->nr + 1, 2 * bl->nr + 3,
                      7, 33};
    const int ks[] = {1, 2, 5, 13, bl->kc - 1, bl->kc, bl->kc + 1};
    for (int a = 0; a < ARRAY_SIZE(ms); ++a) {
      for (int b = 0; b < ARRAY_SIZE(ns); ++b) {
        const int k = ks[(a + b) % ARRAY_SIZE(ks)];
        check_shape((lg_gemm_isa)isa, ms[a], ns[b], k, seed++);
      }
    }
    /* Depth across several KC blocks and width across an NC block. */
    check_shape((lg_gemm_isa)isa, 5, 7, 2 * bl->kc + 3, seed++);
    check_shape((lg_gemm_isa)isa, 3, bl->nc + bl->nr + 1, 7, seed++);
    check_shape((lg_gemm_isa)isa, 127, 127, 127, seed++);
  }
}

static void test_all_layouts(void** state) {
  (void)state;
  /* Every combination of transposes, bias, clamp and prepacking on one
   * ragged shape per ISA. */
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (uint32_t combo = 0; combo < 32; ++combo) {
      check_shape((lg_gemm_isa)isa, 19, 37, 41, 1000u + combo);
    }
  }
}

static void test_threads(void** state) {
  (void)state;
  /* Row splits (equal row shares ending inside a micro-panel: 300 and 196
   * rows), column splits (m below one micro-tile), a GEMV split only for
   * its bytes of B (1 x 300 x 300: LG_GEMM_MIN_PARALLEL_B_BYTES) and too
   * little work to split (below both cutoffs), on 2 and 3 threads, with B
   * prepacked and not. */
  const int shapes[][3] = {{300, 100, 300}, {196, 64, 384},  {1, 300, 300},
                           {1, 4100, 2100}, {5, 1700, 1000}, {64, 64, 64},
                           {2, 3, 4}};
  uint32_t seed = 99u;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (int s = 0; s < ARRAY_SIZE(shapes); ++s) {
      for (int threads = 2; threads <= 3; ++threads) {
        problem p;
        problem_init(&p, shapes[s][0], shapes[s][1], shapes[s][2], s % 2 == 1,
                     s % 3 == 1, true, s % 2 == 0, seed++);
        run_problem(&p, (lg_gemm_isa)isa, threads, threads == 3);
        problem_release(&p);
      }
    }
  }
}

/* A-packing callback over a row-major matrix (ctx = the problem). */
static void pack_a_callback(const void* ctx, int i0, int rows, int p0,
                            int depth, float* dst, int ld) {
  const problem* p = ctx;
  assert_true(rows >= 1 && rows <= ld && depth >= 1);
  for (int r = 0; r < rows; ++r) {
    for (int q = 0; q < depth; ++q) {
      dst[(size_t)q * ld + r] = p->a[(size_t)(i0 + r) * p->k + p0 + q];
    }
  }
}

/* B-packing callback over a row-major matrix; leaves the padding alone. */
static void pack_b_callback(const void* ctx, int p0, int depth, int j0,
                            int cols, float* dst, int ld) {
  const problem* p = ctx;
  assert_true(cols >= 1 && cols <= ld && depth >= 1);
  for (int q = 0; q < depth; ++q) {
    for (int j = 0; j < cols; ++j) {
      dst[(size_t)q * ld + j] = p->b[(size_t)(p0 + q) * p->n + j0 + j];
    }
    /* Garbage the GEMM must overwrite with zeros. */
    for (int j = cols; j < ld; ++j) dst[(size_t)q * ld + j] = NAN;
  }
}

static void test_pack_callbacks(void** state) {
  (void)state;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (int prepack = 0; prepack <= 1; ++prepack) {
      problem p;
      problem_init(&p, 29, 45, 300, false, false, true, false, 5u + isa);
      lg_gemm g = problem_gemm(&p, (lg_gemm_isa)isa);
      g.a = (lg_gemm_a){.pack = pack_a_callback, .pack_ctx = &p};
      g.b = (lg_gemm_b){.pack = pack_b_callback, .pack_ctx = &p};
      float* packed = NULL;
      if (prepack) {
        packed = alloc_floats(lg_gemm_packed_b_floats(g.isa, p.k, p.n));
        lg_gemm_pack_b(g.isa, p.k, p.n, &g.b, packed);
        g.b = (lg_gemm_b){.packed = packed};
      }
      const size_t floats = lg_gemm_scratch_floats(&g, 1);
      float* scratch = alloc_floats(floats);
      lg_gemm_run(&g, NULL, scratch, floats);
      problem_check(&p, prepack ? "callbacks, prepacked" : "callbacks");
      free(scratch);
      free(packed);
      problem_release(&p);
    }
  }
}

static void test_compute_tiles(void** state) {
  (void)state;
  /* lg_gemm_compute over a grid of tiles (starting on micro-tile
   * boundaries) covers C exactly once. */
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    const lg_gemm_blocking* bl = lg_gemm_blocking_of((lg_gemm_isa)isa);
    problem p;
    problem_init(&p, 3 * bl->mr + 2, 2 * bl->nr + 5, 31, false, true, true,
                 false, 77u);
    lg_gemm g = problem_gemm(&p, (lg_gemm_isa)isa);
    const size_t floats = lg_gemm_scratch_floats(&g, 1);
    float* scratch = alloc_floats(floats);
    const int rows[] = {0, bl->mr, 3 * bl->mr, p.m};
    const int cols[] = {0, 2 * bl->nr, p.n};
    for (int r = 0; r + 1 < ARRAY_SIZE(rows); ++r) {
      for (int c = 0; c + 1 < ARRAY_SIZE(cols); ++c) {
        lg_gemm_compute(&g, rows[r], rows[r + 1], cols[c], cols[c + 1],
                        scratch);
      }
    }
    problem_check(&p, "tiles");
    free(scratch);
    problem_release(&p);
  }
}

static void test_empty_and_zero_depth(void** state) {
  (void)state;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    /* k == 0: C = clamp(bias): bias (-1, 3, 9) clamped to [0, 6]. */
    const float bias[] = {-1.0f, 3.0f, 9.0f};
    float c[2 * 3 + 1];
    for (int i = 0; i < 7; ++i) c[i] = GUARD_VALUE;
    lg_gemm g = {.isa = (lg_gemm_isa)isa,
                 .m = 2,
                 .n = 3,
                 .k = 0,
                 .c = c,
                 .ldc = 3,
                 .bias = bias,
                 .min = 0.0f,
                 .max = 6.0f};
    float scratch[64];
    lg_gemm_run(&g, NULL, scratch, 64);
    const float want[] = {0, 3, 6, 0, 3, 6};
    for (int i = 0; i < 6; ++i) assert_true(c[i] == want[i]);
    assert_true(c[6] == GUARD_VALUE);
    /* k == 0 without bias: zeros. */
    g.bias = NULL;
    g.min = -INFINITY;
    g.max = INFINITY;
    lg_gemm_run(&g, NULL, scratch, 64);
    for (int i = 0; i < 6; ++i) assert_true(c[i] == 0.0f);
    /* m == 0 or n == 0: nothing is written. */
    for (int i = 0; i < 7; ++i) c[i] = GUARD_VALUE;
    g.k = 4;
    g.m = 0;
    lg_gemm_run(&g, NULL, scratch, 64);
    g.m = 2;
    g.n = 0;
    lg_gemm_run(&g, NULL, scratch, 64);
    for (int i = 0; i < 7; ++i) assert_true(c[i] == GUARD_VALUE);
  }
}

static void test_nan_inf(void** state) {
  (void)state;
  /* A = [NaN 1; inf 0; inf -inf; 1 1], B = [1 2; 1 0] (k = 2, n = 2):
   * row 0: NaN everywhere; row 1: inf*1 + 0*1 = inf, inf*2 + 0*0 = inf;
   * row 2: inf*1 + -inf*1 = NaN, inf*2 + -inf*0 = NaN (inf*0);
   * row 3: 2, 2. With the clamp to [0, 6]: NaN stays NaN, inf -> 6. */
  const float a[] = {NAN, 1, INFINITY, 0, INFINITY, -INFINITY, 1, 1};
  const float b[] = {1, 2, 1, 0};
  const float want[] = {NAN, NAN, INFINITY, INFINITY, NAN, NAN, 2, 2};
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (int clamp = 0; clamp <= 1; ++clamp) {
      float c[8];
      lg_gemm g = {.isa = (lg_gemm_isa)isa,
                   .m = 4,
                   .n = 2,
                   .k = 2,
                   .a = {.data = a, .row_stride = 2, .col_stride = 1},
                   .b = {.data = b, .row_stride = 2, .col_stride = 1},
                   .c = c,
                   .ldc = 2,
                   .min = clamp ? 0.0f : -INFINITY,
                   .max = clamp ? 6.0f : INFINITY};
      float scratch[4096];
      lg_gemm_run(&g, NULL, scratch, 4096);
      for (int i = 0; i < 8; ++i) {
        const float w = clamp && isinf(want[i]) ? 6.0f : want[i];
        const bool same = (isnan(w) && isnan(c[i])) || c[i] == w;
        if (!same) {
          fail_msg("%s clamp=%d: C[%d] = %g, want %g", lg_gemm_isa_name(isa),
                   clamp, i, (double)c[i], (double)w);
        }
      }
    }
  }
}

/* One micro-kernel call against a plain loop: every row and column count,
 * both update modes, with and without bias and clamp. */
static void check_kernel(lg_gemm_kernel_fn kernel, const lg_gemm_blocking* bl,
                         const char* name) {
  enum { kDepth = 9, kLdc = 40 };
  uint32_t seed = 3u;
  float a[LG_GEMM_MAX_MR * kDepth], b[64 * kDepth], bias[64];
  for (int i = 0; i < bl->mr * kDepth; ++i) a[i] = rng_float(&seed);
  for (int i = 0; i < bl->nr * kDepth; ++i) b[i] = rng_float(&seed);
  for (int i = 0; i < bl->nr; ++i) bias[i] = rng_float(&seed);
  for (int rows = 1; rows <= bl->mr; ++rows) {
    for (int cols = 1; cols <= bl->nr; ++cols) {
      for (unsigned flags = 0; flags < 4; ++flags) {
        float c[(LG_GEMM_MAX_MR + 1) * kLdc];
        for (int i = 0; i < (LG_GEMM_MAX_MR + 1) * kLdc; ++i) {
          c[i] = (float)(i % 7) - 3.0f;
        }
        float before[(LG_GEMM_MAX_MR + 1) * kLdc];
        memcpy(before, c, sizeof(c));
        const bool with_bias = (cols % 2) == 1;
        kernel(rows, cols, kDepth, a, b, c, kLdc, with_bias ? bias : NULL,
               flags, -0.5f, 0.75f);
        for (int r = 0; r <= LG_GEMM_MAX_MR; ++r) {
          for (int j = 0; j < kLdc; ++j) {
            double want = before[r * kLdc + j];
            if (r < rows && j < cols) {
              double acc = 0.0;
              for (int p = 0; p < kDepth; ++p) {
                acc += (double)a[p * bl->mr + r] * b[p * bl->nr + j];
              }
              if (flags & LG_GEMM_ACCUMULATE) {
                want = before[r * kLdc + j] + acc;
              } else {
                want = acc + (with_bias ? bias[j] : 0.0);
              }
              if (flags & LG_GEMM_CLAMP) {
                want = want < -0.5 ? -0.5 : (want > 0.75 ? 0.75 : want);
              }
            }
            if (!(fabs(c[r * kLdc + j] - want) <= 1e-5)) {
              fail_msg("%s rows=%d cols=%d flags=%u: C[%d,%d] = %g, want %g",
                       name, rows, cols, flags, r, j, (double)c[r * kLdc + j],
                       want);
            }
          }
        }
      }
    }
  }
}

static void test_micro_kernels(void** state) {
  (void)state;
  check_kernel(lg_gemm_kernel_scalar, lg_gemm_blocking_of(LG_GEMM_ISA_SCALAR),
               "scalar");
#if LG_GEMM_HAVE_X86
  if (lg_gemm_isa_supported(LG_GEMM_ISA_AVX2)) {
    check_kernel(lg_gemm_kernel_avx2, lg_gemm_blocking_of(LG_GEMM_ISA_AVX2),
                 "avx2");
  }
  if (lg_gemm_isa_supported(LG_GEMM_ISA_AVX512)) {
    check_kernel(lg_gemm_kernel_avx512, lg_gemm_blocking_of(LG_GEMM_ISA_AVX512),
                 "avx512");
  }
#endif
}

/* A direct (in-place A) micro-kernel against sums in double: A row-major
 * with a row stride above the depth, the gap filled with NaN, so a read
 * past a row's depth steps would show. */
static void check_direct_kernel(lg_gemm_direct_kernel_fn kernel,
                                const lg_gemm_blocking* bl, const char* name) {
  enum { kDepth = 9, kLda = 12, kLdc = 40 };
  uint32_t seed = 5u;
  float a[LG_GEMM_MAX_MR * kLda], b[64 * kDepth], bias[64];
  for (int i = 0; i < LG_GEMM_MAX_MR * kLda; ++i) {
    a[i] = i % kLda < kDepth ? rng_float(&seed) : NAN;
  }
  for (int i = 0; i < bl->nr * kDepth; ++i) b[i] = rng_float(&seed);
  for (int i = 0; i < bl->nr; ++i) bias[i] = rng_float(&seed);
  for (int rows = 1; rows <= bl->mr; ++rows) {
    for (int cols = 1; cols <= bl->nr; ++cols) {
      for (unsigned flags = 0; flags < 4; ++flags) {
        float c[(LG_GEMM_MAX_MR + 1) * kLdc],
            before[(LG_GEMM_MAX_MR + 1) * kLdc];
        for (int i = 0; i < (LG_GEMM_MAX_MR + 1) * kLdc; ++i) {
          c[i] = before[i] = (float)(i % 5) - 2.0f;
        }
        const bool with_bias = (cols % 2) == 0;
        kernel(rows, cols, kDepth, a, kLda, b, c, kLdc, with_bias ? bias : NULL,
               flags, -0.5f, 0.75f);
        for (int r = 0; r <= LG_GEMM_MAX_MR; ++r) {
          for (int j = 0; j < kLdc; ++j) {
            double want = before[r * kLdc + j];
            if (r < rows && j < cols) {
              double acc = 0.0;
              for (int p = 0; p < kDepth; ++p) {
                acc += (double)a[r * kLda + p] * b[p * bl->nr + j];
              }
              want = (flags & LG_GEMM_ACCUMULATE)
                         ? before[r * kLdc + j] + acc
                         : acc + (with_bias ? bias[j] : 0.0);
              if (flags & LG_GEMM_CLAMP) {
                want = want < -0.5 ? -0.5 : (want > 0.75 ? 0.75 : want);
              }
            }
            if (!(fabs(c[r * kLdc + j] - want) <= 1e-5)) {
              fail_msg(
                  "%s direct rows=%d cols=%d flags=%u: C[%d,%d] = %g, "
                  "want %g",
                  name, rows, cols, flags, r, j, (double)c[r * kLdc + j], want);
            }
          }
        }
      }
    }
  }
}

static void test_direct_kernels(void** state) {
  (void)state;
  check_direct_kernel(lg_gemm_kernel_scalar_direct,
                      lg_gemm_blocking_of(LG_GEMM_ISA_SCALAR), "scalar");
#if LG_GEMM_HAVE_X86
  if (lg_gemm_isa_supported(LG_GEMM_ISA_AVX2)) {
    check_direct_kernel(lg_gemm_kernel_avx2_direct,
                        lg_gemm_blocking_of(LG_GEMM_ISA_AVX2), "avx2");
  }
  if (lg_gemm_isa_supported(LG_GEMM_ISA_AVX512)) {
    check_direct_kernel(lg_gemm_kernel_avx512_direct,
                        lg_gemm_blocking_of(LG_GEMM_ISA_AVX512), "avx512");
  }
#endif
}

/* Checks C = A * B (no bias, no clamp) against sums in double. */
static void check_product(const char* what, const float* a, int lda,
                          const float* b, const float* c, int m, int n, int k) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = 0.0, mag = 0.0;
      for (int p = 0; p < k; ++p) {
        const double t = (double)a[i * lda + p] * b[p * n + j];
        want += t;
        mag += fabs(t);
      }
      const double tol = 1e-6 + 2.0 * (k + 1) * FLT_EPSILON * mag;
      if (!(fabs(c[i * n + j] - want) <= tol)) {
        fail_msg("%s: C[%d,%d] = %g, want %g", what, i, j, (double)c[i * n + j],
                 want);
      }
    }
  }
}

/* A row-major A with a row stride above k (a grouped 1x1 convolution's
 * input): read in place by tiles up to 4 B panels wide, packed above;
 * depth across KC blocks; whole C and split into tiles at (mr, nr) as the
 * tasks of a split run compute it. */
static void test_a_in_place(void** state) {
  (void)state;
  uint32_t seed = 4242u;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    const lg_gemm_blocking* bl = lg_gemm_blocking_of((lg_gemm_isa)isa);
    const int ns[] = {1, 4 * bl->nr - 1, 4 * bl->nr, 4 * bl->nr + 1};
    const int ks[] = {3, bl->kc + 5};
    for (int t = 0; t < 2 * ARRAY_SIZE(ns) * ARRAY_SIZE(ks); ++t) {
      const int n = ns[t / 2 % ARRAY_SIZE(ns)];
      const int k = ks[t / 2 / ARRAY_SIZE(ns)];
      const bool split = t % 2 == 1;
      const int m = 2 * bl->mr + 5, lda = k + 3;
      float* a = alloc_floats((size_t)m * lda);
      float* b = alloc_floats((size_t)k * n);
      float* c = alloc_floats((size_t)m * n);
      for (int i = 0; i < m * lda; ++i) a[i] = rng_float(&seed);
      for (int i = 0; i < k * n; ++i) b[i] = rng_float(&seed);
      lg_gemm g = {.isa = (lg_gemm_isa)isa,
                   .m = m,
                   .n = n,
                   .k = k,
                   .a = {.data = a, .row_stride = lda, .col_stride = 1},
                   .b = {.data = b, .row_stride = n, .col_stride = 1},
                   .c = c,
                   .ldc = n,
                   .min = -INFINITY,
                   .max = INFINITY};
      float* scratch = alloc_floats(lg_gemm_scratch_floats(&g, 1));
      if (split) {
        const int nc = n > bl->nr ? bl->nr : n;
        lg_gemm_compute(&g, 0, bl->mr, 0, nc, scratch);
        lg_gemm_compute(&g, 0, bl->mr, nc, n, scratch);
        lg_gemm_compute(&g, bl->mr, m, 0, nc, scratch);
        lg_gemm_compute(&g, bl->mr, m, nc, n, scratch);
      } else {
        lg_gemm_compute(&g, 0, m, 0, n, scratch);
      }
      char what[96];
      snprintf(what, sizeof(what), "%s m=%d n=%d k=%d lda=%d split=%d",
               lg_gemm_isa_name((lg_gemm_isa)isa), m, n, k, lda, split);
      check_product(what, a, lda, b, c, m, n, k);
      free(scratch);
      free(a);
      free(b);
      free(c);
    }
  }
}

static void test_pack_rows(void** state) {
  (void)state;
  /* Rows of length 11 (two 4 x 4 blocks and a tail) and counts 1..12, a NULL
   * row reading as zeros: dst[p * ld + r] = rows[r][p]. */
  float data[12][11];
  for (int r = 0; r < 12; ++r) {
    for (int p = 0; p < 11; ++p) data[r][p] = (float)(100 * r + p);
  }
  for (int count = 1; count <= 12; ++count) {
    const float* rows[12];
    for (int r = 0; r < count; ++r) rows[r] = r == 2 ? NULL : data[r];
    float dst[11 * 13];
    for (int i = 0; i < 11 * 13; ++i) dst[i] = GUARD_VALUE;
    lg_gemm_pack_rows(rows, count, 11, dst, 13);
    for (int p = 0; p < 11; ++p) {
      for (int r = 0; r < 13; ++r) {
        const float want =
            r >= count ? GUARD_VALUE : (r == 2 ? 0.0f : data[r][p]);
        if (dst[p * 13 + r] != want) {
          fail_msg("count %d: dst[%d][%d] = %g, want %g", count, p, r,
                   (double)dst[p * 13 + r], (double)want);
        }
      }
    }
  }
}

static void test_copy_and_zero_floats(void** state) {
  (void)state;
  /* Lengths 0..9 (none, a tail only, whole 4-float moves and both) write
   * exactly n floats and nothing past them. */
  float src[9], dst[10];
  for (int i = 0; i < 9; ++i) src[i] = (float)(i + 1);
  for (int n = 0; n <= 9; ++n) {
    for (int i = 0; i < 10; ++i) dst[i] = GUARD_VALUE;
    lg_gemm_copy_floats(dst, src, n);
    for (int i = 0; i < 10; ++i) {
      assert_true(dst[i] == (i < n ? (float)(i + 1) : GUARD_VALUE));
    }
    lg_gemm_zero_floats(dst, n);
    for (int i = 0; i < 10; ++i) {
      assert_true(dst[i] == (i < n ? 0.0f : GUARD_VALUE));
    }
  }
}

static void test_pack_b_narrow(void** state) {
  (void)state;
  /* A row-major B narrower than one panel (and one a panel and a bit
   * wide): each packed row holds B's row then zeros up to nr, whatever the
   * buffer held before (NaN here). */
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    const int nr = lg_gemm_blocking_of((lg_gemm_isa)isa)->nr;
    const int widths[] = {1, 3, 4, 5, nr - 3, nr - 1, nr + 5};
    for (int w = 0; w < ARRAY_SIZE(widths); ++w) {
      const int k = 7, n = widths[w];
      float* b = alloc_floats((size_t)k * n);
      for (int i = 0; i < k * n; ++i) b[i] = (float)(i + 1);
      const size_t floats = lg_gemm_packed_b_floats((lg_gemm_isa)isa, k, n);
      float* packed = alloc_floats(floats);
      for (size_t i = 0; i < floats; ++i) packed[i] = NAN;
      const lg_gemm_b operand = {.data = b, .row_stride = n, .col_stride = 1};
      lg_gemm_pack_b((lg_gemm_isa)isa, k, n, &operand, packed);
      for (int j0 = 0; j0 < n; j0 += nr) {
        const float* panel = packed + (size_t)j0 * k;
        for (int p = 0; p < k; ++p) {
          for (int c = 0; c < nr; ++c) {
            const float want = j0 + c < n ? b[p * n + j0 + c] : 0.0f;
            if (!(panel[p * nr + c] == want)) {
              fail_msg("%s n=%d: panel %d row %d col %d = %g, want %g",
                       lg_gemm_isa_name((lg_gemm_isa)isa), n, j0 / nr, p, c,
                       (double)panel[p * nr + c], (double)want);
            }
          }
        }
      }
      free(b);
      free(packed);
    }
  }
}

static void test_random_shapes(void** state) {
  (void)state;
  /* Seeded random sizes up to 150 on every ISA, every layout. */
  uint32_t seed = 2025u;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (int t = 0; t < 24; ++t) {
      const int m = 1 + (int)(rng_next(&seed) % 150);
      const int n = 1 + (int)(rng_next(&seed) % 150);
      const int k = 1 + (int)(rng_next(&seed) % 150);
      check_shape((lg_gemm_isa)isa, m, n, k, rng_next(&seed));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_dispatch),
      cmocka_unit_test(test_hand_values),
      cmocka_unit_test(test_accumulate),
      cmocka_unit_test(test_micro_kernels),
      cmocka_unit_test(test_direct_kernels),
      cmocka_unit_test(test_a_in_place),
      cmocka_unit_test(test_pack_rows),
      cmocka_unit_test(test_copy_and_zero_floats),
      cmocka_unit_test(test_pack_b_narrow),
      cmocka_unit_test(test_tile_edges),
      cmocka_unit_test(test_all_layouts),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_pack_callbacks),
      cmocka_unit_test(test_compute_tiles),
      cmocka_unit_test(test_empty_and_zero_depth),
      cmocka_unit_test(test_nan_inf),
      cmocka_unit_test(test_random_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
