/* bench_gemm: GFLOP/s of litegpu's SGEMM for each instruction set this
 * machine runs, at 1 and 2 threads, on square shapes and on the shapes
 * convolutions and fully connected layers produce.
 *
 * Usage: bench_gemm [--min_seconds S] [--threads N] [--isa NAME]
 *                   [--shape MxNxK] [--unpacked]
 * By default B is prepacked (as the kernels do for constant weights);
 * --unpacked packs it on every call (as BATCH_MATMUL does). Each figure is
 * the best of 3 timed rounds of at least S seconds (default 0.3).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "tools/tool_help.h"

typedef struct bench_shape {
  const char* name;
  int m, n, k;
} bench_shape;

static const bench_shape kShapes[] = {
    {"square 256", 256, 256, 256},
    {"square 512", 512, 512, 512},
    {"square 1024", 1024, 1024, 1024},
    {"square 2048", 2048, 2048, 2048},
    /* CONV_2D as GEMM: m = output pixels, n = output channels, k = KH*KW*IC */
    {"conv 112x112 3x3x3->32", 12544, 32, 27},
    {"conv 56x56 3x3x64->64", 3136, 64, 576},
    {"conv 56x56 1x1x64->256", 3136, 256, 64},
    {"conv 28x28 3x3x128->128", 784, 128, 1152},
    {"conv 14x14 1x1x256->1024", 196, 1024, 256},
    {"conv 7x7 3x3x512->512", 49, 512, 4608},
    /* FULLY_CONNECTED: m = batch */
    {"fc 1x1024->1000", 1, 1000, 1024},
    {"fc 64x1024->1024", 64, 1024, 1024},
};

static float* bench_alloc(size_t floats) {
  float* p = aligned_alloc(64, ((floats * sizeof(float)) + 63) / 64 * 64 + 64);
  if (p == NULL) {
    fprintf(stderr, "bench_gemm: out of memory (%zu floats)\n", floats);
    exit(1);
  }
  return p;
}

static void fill(float* p, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = (float)((int)(seed >> 9) % 2001 - 1000) / 1000.0f;
  }
}

/* GFLOP/s of shape s under isa with `threads` threads. */
static double bench_one(const bench_shape* s, lg_gemm_isa isa, int threads,
                        int packed_b, double min_seconds) {
  float* a = bench_alloc((size_t)s->m * s->k);
  float* b = bench_alloc((size_t)s->k * s->n);
  float* c = bench_alloc((size_t)s->m * s->n);
  float* bias = bench_alloc((size_t)s->n);
  fill(a, (size_t)s->m * s->k, 1);
  fill(b, (size_t)s->k * s->n, 2);
  fill(bias, (size_t)s->n, 3);
  lg_gemm g = {
      .isa = isa,
      .m = s->m,
      .n = s->n,
      .k = s->k,
      .a = {.data = a, .row_stride = s->k, .col_stride = 1},
      .b = {.data = b, .row_stride = s->n, .col_stride = 1},
      .c = c,
      .ldc = s->n,
      .bias = bias,
      .min = 0.0f,
      .max = INFINITY,
  };
  float* packed = NULL;
  if (packed_b) {
    packed = bench_alloc(lg_gemm_packed_b_floats(isa, s->k, s->n));
    lg_gemm_pack_b(isa, s->k, s->n, &g.b, packed);
    g.b.packed = packed;
  }
  const size_t scratch_floats = lg_gemm_scratch_floats(&g, threads);
  float* scratch = bench_alloc(scratch_floats);
  lg_thread_pool* pool = lg_thread_pool_create(threads);
  if (pool == NULL) {
    fprintf(stderr, "bench_gemm: cannot start %d threads\n", threads);
    exit(1);
  }
  lg_gemm_run(&g, pool, scratch, scratch_floats); /* warm up */
  double best = 0.0;
  for (int round = 0; round < 3; ++round) {
    long iterations = 0;
    const double start = lg_now_seconds();
    double elapsed = 0.0;
    do {
      lg_gemm_run(&g, pool, scratch, scratch_floats);
      ++iterations;
      elapsed = lg_now_seconds() - start;
    } while (elapsed < min_seconds);
    const double gflops =
        2.0 * s->m * s->n * s->k * (double)iterations / elapsed * 1e-9;
    if (gflops > best) best = gflops;
  }
  lg_thread_pool_destroy(pool);
  free(a);
  free(b);
  free(c);
  free(bias);
  free(packed);
  free(scratch);
  return best;
}

static const char kUsage[] =
    "usage: bench_gemm [--min_seconds S] [--threads N] [--isa NAME] "
    "[--shape MxNxK] [--unpacked]\n";

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(kUsage, stdout);
    return 0;
  }
  double min_seconds = 0.3;
  int only_threads = 0, packed_b = 1, only_isa = -1;
  bench_shape custom = {"custom", 0, 0, 0};
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--min_seconds") == 0 && i + 1 < argc) {
      min_seconds = atof(argv[++i]);
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      only_threads = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--unpacked") == 0) {
      packed_b = 0;
    } else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
      const char* name = argv[++i];
      for (int k = 0; k < LG_GEMM_ISA_COUNT; ++k) {
        if (strcmp(name, lg_gemm_isa_name((lg_gemm_isa)k)) == 0) only_isa = k;
      }
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
      if (sscanf(argv[++i], "%dx%dx%d", &custom.m, &custom.n, &custom.k) != 3) {
        fprintf(stderr, "bench_gemm: --shape wants MxNxK\n");
        return 2;
      }
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  const bench_shape* shapes = kShapes;
  int num_shapes = (int)(sizeof(kShapes) / sizeof(kShapes[0]));
  if (custom.m > 0 && custom.n > 0 && custom.k > 0) {
    shapes = &custom;
    num_shapes = 1;
  }
  printf("litegpu sgemm, B %s; GFLOP/s (best of 3 rounds of %.2f s)\n",
         packed_b ? "prepacked" : "packed per call", min_seconds);
  printf("%-26s %6s %6s %6s", "shape", "M", "N", "K");
  for (int isa = LG_GEMM_ISA_COUNT - 1; isa >= 0; --isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    if (only_isa >= 0 && isa != only_isa) continue;
    for (int t = 1; t <= 2; ++t) {
      if (only_threads > 0 && t != only_threads) continue;
      char head[32];
      snprintf(head, sizeof(head), "%s/%dT", lg_gemm_isa_name(isa), t);
      printf(" %11s", head);
    }
  }
  printf("\n");
  for (int s = 0; s < num_shapes; ++s) {
    printf("%-26s %6d %6d %6d", shapes[s].name, shapes[s].m, shapes[s].n,
           shapes[s].k);
    fflush(stdout);
    for (int isa = LG_GEMM_ISA_COUNT - 1; isa >= 0; --isa) {
      if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
      if (only_isa >= 0 && isa != only_isa) continue;
      for (int t = 1; t <= 2; ++t) {
        if (only_threads > 0 && t != only_threads) continue;
        printf(" %11.1f", bench_one(&shapes[s], (lg_gemm_isa)isa, t, packed_b,
                                    min_seconds));
        fflush(stdout);
      }
    }
    printf("\n");
  }
  return 0;
}
