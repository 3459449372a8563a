/* model_builder: writes a .tflite model described by a spec file (the
 * language is described in runtime/writer/model_spec.h). The op test harness
 * (tests/python/op_harness.py) builds every op case through it.
 *
 *   model_builder SPEC OUT.tflite        SPEC "-" reads standard input
 *
 * Errors: every problem is reported as "SPEC:LINE: message" on stderr (SPEC
 * is "<stdin>" for standard input) and the exit status is 1; nothing is
 * written then (a write that fails removes its file).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tools/tool_help.h"

/* The directory part of `path` ("." when none); NULL when out of memory. */
static char* lg_dir_of(const char* path) {
  const char* slash = strrchr(path, '/');
  if (slash == NULL) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

static int lg_run(const char* spec_path, const char* out_path) {
  const bool from_stdin = strcmp(spec_path, "-") == 0;
  FILE* in = from_stdin ? stdin : fopen(spec_path, "r");
  if (in == NULL) {
    fprintf(stderr, "model_builder: cannot open %s: %s\n", spec_path,
            strerror(errno));
    return 1;
  }
  char* base_dir = NULL;
  if (!from_stdin && (base_dir = lg_dir_of(spec_path)) == NULL) {
    fprintf(stderr, "model_builder: out of memory\n");
    fclose(in);
    return 1;
  }
  lg_model_writer* w = lg_model_spec_read(
      in, from_stdin ? "<stdin>" : spec_path, base_dir, NULL);
  if (!from_stdin) fclose(in);
  free(base_dir);
  if (w == NULL) return 1;
  int status = 0;
  if (lg_model_writer_write_file(w, out_path) != kTfLiteOk) {
    fprintf(stderr, "model_builder: cannot write %s: %s\n", out_path,
            lg_model_writer_error(w) ? lg_model_writer_error(w) : "error");
    status = 1;
  }
  lg_model_writer_destroy(w);
  return status;
}

static const char kUsage[] =
    "usage: model_builder SPEC OUT.tflite   (SPEC \"-\" reads stdin; the "
    "spec language is described in runtime/writer/model_spec.h)\n";

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(kUsage, stdout);
    return 0;
  }
  if (argc != 3) {
    fputs(kUsage, stderr);
    return 1;
  }
  return lg_run(argv[1], argv[2]);
}
