/* The harness shared by the cross-backend kernel suites
 * (test_gpu_kernels_cross.c, test_gpu_kernels_cross_conv.c): one OpenCL
 * and one Vulkan backend (validation layer on) for the whole cmocka group,
 * a kernel call described once and run on both (run_cross: same defines,
 * arguments, global/local sizes and inputs; outputs compared element by
 * element within 1e-5 * max(1, |cl|), guard words after each output), the
 * largest differences per kernel and the test that prints them
 * (test_report, registered last in each suite). Compiled into each of
 * those suites (tests/CMakeLists.txt); not a library.
 *
 * Ownership: random_floats' arrays belong to the caller (free); run_cross
 * creates and releases its own device objects. g_be is created by
 * setup_backends and destroyed by teardown_backends. Thread safety: none;
 * cmocka runs one test at a time.
 *
 * Use (inside a test of a group run with setup_backends /
 * teardown_backends):
 *   float* in = random_floats(n, 1.0f, 42);
 *   xarg args[] = {XBUF(in, n * sizeof(float)), XOUT(n * sizeof(float)),
 *                  XINT(n)};
 *   const xcall call = make_call("copy", NULL, "copy n", n, 0, 0);
 *   run_cross(&call, args, NARGS(args));
 *   free(in);
 */
#ifndef LITEGPU_TESTS_UNIT_GPU_CROSS_TEST_SUPPORT_H_
#define LITEGPU_TESTS_UNIT_GPU_CROSS_TEST_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"

/* ---- Backends ----------------------------------------------------------- */

enum { kCl = 0, kVk = 1, kBackends = 2 };

/* The two backends, by kCl / kVk (valid between setup and teardown). */
extern lg_gpu_backend* g_be[kBackends];

/* cmocka group setup: creates both backends (fails the group without
 * either device). */
int setup_backends(void** state);
/* cmocka group teardown: destroys both, fails on validation errors or
 * leaked objects. */
int teardown_backends(void** state);

/* ---- Seeded inputs ------------------------------------------------------ */

/* n floats uniform in [-scale, scale), from `seed`; the caller frees. */
float* random_floats(size_t n, float scale, uint32_t seed);

/* ---- One kernel on both backends ---------------------------------------- */

/* One argument: a buffer (`data` uploaded, or an output when `data` is
 * NULL), an int or a float. */
typedef struct xarg {
  lg_gpu_arg_kind kind;
  int32_t i;
  float f;
  const void* data;
  size_t bytes;
  float* result[kBackends]; /* outputs: where each download goes (or NULL) */
} xarg;

#define XBUF(p, n) \
  ((xarg){.kind = LG_GPU_ARG_KIND_BUFFER, .data = (p), .bytes = (n)})
#define XOUT(n) ((xarg){.kind = LG_GPU_ARG_KIND_BUFFER, .bytes = (n)})
#define XINT(x) ((xarg){.kind = LG_GPU_ARG_KIND_INT, .i = (int32_t)(x)})
#define XFLOAT(x) ((xarg){.kind = LG_GPU_ARG_KIND_FLOAT, .f = (float)(x)})

/* The dispatch: kernel, defines, global and (optional) local sizes. */
typedef struct xcall {
  const char* kernel;
  const char* defines;
  const char* label;
  int dims;
  size_t global[3];
  size_t local[3]; /* all 0: the backend chooses */
} xcall;

#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A call over global {g0, g1, g2} (dims 3, or fewer when the later
 * sizes are 0), the local size left to the backend. */
xcall make_call(const char* kernel, const char* defines, const char* label,
                size_t g0, size_t g1, size_t g2);

/* Runs the call on both backends and compares every output; an output
 * argument with result[b] set gets backend b's values. */
void run_cross(const xcall* call, xarg* args, int n);

/* Checks both backends' results against hand-derived values. */
void expect_values(const char* label, float* const got[kBackends],
                   const float* want, size_t count, float tolerance);

/* Output argument `a` returns both backends' values into got[b]. */
void capture(xarg* a, float* got[kBackends]);

/* ---- Sizes as the lowerings compute them -------------------------------- */

int ceil_div(int x, int y);
int round_up(int x, int m);
/* The lowerings' blocks: 8 or 4 rows/columns once there are that many. */
int block_of(int count);
/* TFLite's padding before (total padding / 2, none when negative). */
int pool_pad(int in, int filter, int stride, int out);

/* ---- Report ------------------------------------------------------------- */

/* Prints the largest differences seen per kernel in this suite; register
 * it last. Fails when no output was compared. */
void test_report(void** state);

#endif /* LITEGPU_TESTS_UNIT_GPU_CROSS_TEST_SUPPORT_H_ */
