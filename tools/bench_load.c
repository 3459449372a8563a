/* bench_load: how model loading scales with the size of the weights.
 *
 *   bench_load [--runs=N] MODEL...
 *
 * For each model, side by side in one process: the median time of
 * TfLiteModelCreateFromFile (map + verify + parse), of TfLiteInterpreterCreate
 * and of AllocateTensors, over N runs (default 50), with the file size. When
 * weights are mapped rather than copied, load time follows the number of
 * tensors and operators, not the bytes of constant data. The last column is
 * the median load time relative to the first model's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "tensorflow/lite/c/c_api.h"
#include "tools/tool_help.h"

static double now_us(void) { return (double)lg_now_ns() / 1e3; }

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), compare_doubles);
  return v[n / 2];
}

typedef struct timings {
  double load, create, allocate;
} timings;

static int measure(const char* path, int runs, timings* out) {
  double* load = calloc((size_t)runs, sizeof(double));
  double* create = calloc((size_t)runs, sizeof(double));
  double* alloc = calloc((size_t)runs, sizeof(double));
  int rc = -1;
  if (load == NULL || create == NULL || alloc == NULL) goto done;
  for (int r = 0; r < runs; ++r) {
    double t0 = now_us();
    TfLiteModel* model = TfLiteModelCreateFromFile(path);
    double t1 = now_us();
    if (model == NULL) goto done;
    TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, NULL);
    double t2 = now_us();
    TfLiteStatus s = ip ? TfLiteInterpreterAllocateTensors(ip) : kTfLiteError;
    double t3 = now_us();
    TfLiteInterpreterDelete(ip);
    TfLiteModelDelete(model);
    if (s != kTfLiteOk) goto done;
    load[r] = t1 - t0;
    create[r] = t2 - t1;
    alloc[r] = t3 - t2;
  }
  out->load = median(load, runs);
  out->create = median(create, runs);
  out->allocate = median(alloc, runs);
  rc = 0;
done:
  free(load);
  free(create);
  free(alloc);
  return rc;
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    printf("usage: bench_load [--runs=N] MODEL...\n");
    return 0;
  }
  int runs = 50;
  int first_model = 1;
  if (argc > 1 && strncmp(argv[1], "--runs=", 7) == 0) {
    runs = atoi(argv[1] + 7);
    first_model = 2;
  }
  if (runs < 1 || first_model >= argc) {
    fprintf(stderr, "usage: bench_load [--runs=N] MODEL...\n");
    return 2;
  }
  printf("%-44s %14s %12s %12s %12s %9s\n", "model", "file bytes", "load us",
         "create us", "alloc us", "load/1st");
  double base = 0;
  for (int i = first_model; i < argc; ++i) {
    struct stat st;
    timings t;
    if (stat(argv[i], &st) != 0 || measure(argv[i], runs, &t) != 0) {
      fprintf(stderr, "bench_load: cannot load %s\n", argv[i]);
      return 1;
    }
    if (i == first_model) base = t.load;
    printf("%-44s %14lld %12.1f %12.1f %12.1f %9.2f\n", argv[i],
           (long long)st.st_size, t.load, t.create, t.allocate,
           base > 0 ? t.load / base : 0.0);
  }
  return 0;
}
