/* --record-opencl-programs=DIR: every distinct OpenCL program the run
 * builds (kernel name + build options), written as DIR/NNN.cl (the source
 * exactly as given to the driver) and DIR/NNN.opts (the options), so a
 * compiler other than the device's can check them: tests/
 * check_opencl_programs.sh compiles each with clang in float32, half
 * storage and half arithmetic (which PoCL, lacking cl_khr_fp16, cannot). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/opencl/opencl_internal.h"
#include "tests/conformance/conformance.h"

#define MAX_PROGRAMS 1024

typedef struct recorder {
  char dir[512];
  char* seen[MAX_PROGRAMS]; /* "name\noptions" */
  int count;
  bool failed;
} recorder;

static recorder g_recorder;

static bool write_text(const char* path, const char* const* parts,
                       size_t count) {
  FILE* f = fopen(path, "w");
  if (f == NULL) return false;
  bool ok = true;
  for (size_t i = 0; i < count && ok; ++i) ok = fputs(parts[i], f) >= 0;
  return fclose(f) == 0 && ok;
}

static void record(const char* name, const char* options,
                   const char* const* lines, size_t line_count, void* user) {
  recorder* r = user;
  char key[1024];
  snprintf(key, sizeof(key), "%s\n%s", name, options != NULL ? options : "");
  for (int i = 0; i < r->count; ++i) {
    if (strcmp(r->seen[i], key) == 0) return;
  }
  if (r->count == MAX_PROGRAMS || (r->seen[r->count] = strdup(key)) == NULL) {
    r->failed = true;
    return;
  }
  char path[600];
  snprintf(path, sizeof(path), "%s/%03d.cl", r->dir, r->count);
  const bool source_ok = write_text(path, lines, line_count);
  snprintf(path, sizeof(path), "%s/%03d.opts", r->dir, r->count);
  const char* opts[2] = {options != NULL ? options : "", "\n"};
  if (!source_ok || !write_text(path, opts, 2)) r->failed = true;
  r->count++;
}

void conf_record_opencl_programs(const char* dir) {
  snprintf(g_recorder.dir, sizeof(g_recorder.dir), "%s", dir);
  lg_opencl_observe_programs(record, &g_recorder);
}

int conf_recorded_opencl_programs(void) {
  return g_recorder.failed ? -1 : g_recorder.count;
}

void conf_record_opencl_programs_end(void) {
  lg_opencl_observe_programs(NULL, NULL);
  for (int i = 0; i < g_recorder.count; ++i) free(g_recorder.seen[i]);
  memset(&g_recorder, 0, sizeof(g_recorder));
}
