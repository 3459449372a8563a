/* op_versions: for a .tflite model, each operator's recorded version next to
 * the version litegpu's rules compute for it (lg_op_version), and the model's
 * recorded min_runtime_version next to the computed one, as JSON on stdout.
 *
 *   op_versions MODEL.tflite
 *
 * {"model":"m.tflite",
 *  "min_runtime_version":{"recorded":"1.14.0","computed":"1.14.0"},
 *  "opcodes":[{"index":0,"op":"ADD","code":0,"recorded":1,
 *              "computed_max":1,"operators":2}, ...],
 *  "operators":[{"subgraph":0,"index":0,"op":"ADD","opcode":0,
 *                "recorded":1,"computed":1}, ...]}
 *
 * Operators share an opcode per (op, version), and TensorFlow's converter
 * only ever raises an opcode's version, so the version it records for an
 * opcode is the largest its operators need: "computed_max". "computed" is 0
 * for ops litegpu has no rules for (and CUSTOM ops). Exit status 1 when the
 * model does not load or an operator's options cannot be read.
 *
 * The Python test tests/python/test_versioning_litert.py compares these
 * against the models TensorFlow converted (tests/models/).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tools/tool_help.h"
#include "versioning/op_version.h"
#include "versioning/runtime_version.h"

/* Writes `s` as a JSON string. */
static void print_json_string(const char* s) {
  putchar('"');
  for (const unsigned char* p = (const unsigned char*)s; *p != '\0'; ++p) {
    if (*p == '"' || *p == '\\') {
      printf("\\%c", *p);
    } else if (*p < 0x20) {
      printf("\\u%04x", *p);
    } else {
      putchar(*p);
    }
  }
  putchar('"');
}

/* The recorded minimum runtime version: up to the first NUL of the
 * metadata buffer (at most 63 bytes), as TFLite reads it. */
static void recorded_min_runtime(const lg_model* m, char* out, size_t size) {
  const uint8_t* data = NULL;
  size_t bytes = 0;
  size_t n = 0;
  if (lg_model_find_metadata(m, "min_runtime_version", &data, &bytes)) {
    while (n < bytes && n + 1 < size && data[n] != 0) {
      out[n] = (char)data[n];
      ++n;
    }
  }
  out[n] = '\0';
}

static const char* opcode_name(const lg_model_opcode* code) {
  if (code->builtin_code == kTfLiteBuiltinCustom) {
    return code->custom_code != NULL ? code->custom_code : "CUSTOM";
  }
  return lg_builtin_op_name(code->builtin_code);
}

/* Computes every operator's version into versions[] (subgraph by subgraph,
 * in order). false when an operator's options cannot be read. */
static bool compute_versions(const lg_model* m, int* versions) {
  int n = 0;
  for (int32_t s = 0; s < m->num_subgraphs; ++s) {
    for (int32_t i = 0; i < m->subgraphs[s].num_operators; ++i) {
      lg_op_signature sig;
      TfLiteStatus status = lg_op_signature_from_model(m, s, i, NULL, &sig);
      versions[n++] = status == kTfLiteOk ? lg_op_version(&sig) : -1;
      lg_op_signature_release(&sig);
      if (status != kTfLiteOk) return false;
    }
  }
  return true;
}

static void print_opcodes(const lg_model* m, const int* versions) {
  printf("\"opcodes\":[");
  for (int32_t c = 0; c < m->num_opcodes; ++c) {
    int max = 0, users = 0, n = 0;
    for (int32_t s = 0; s < m->num_subgraphs; ++s) {
      const lg_model_subgraph* sg = &m->subgraphs[s];
      for (int32_t i = 0; i < sg->num_operators; ++i, ++n) {
        if (sg->operators[i].opcode_index != (uint32_t)c) continue;
        ++users;
        if (versions[n] > max) max = versions[n];
      }
    }
    printf("%s{\"index\":%d,\"op\":", c > 0 ? "," : "", (int)c);
    print_json_string(opcode_name(&m->opcodes[c]));
    printf(",\"code\":%d,\"recorded\":%d,\"computed_max\":%d,\"operators\":%d}",
           (int)m->opcodes[c].builtin_code, (int)m->opcodes[c].version, max,
           users);
  }
  printf("]");
}

static void print_operators(const lg_model* m, const int* versions) {
  printf("\"operators\":[");
  int n = 0;
  for (int32_t s = 0; s < m->num_subgraphs; ++s) {
    const lg_model_subgraph* sg = &m->subgraphs[s];
    for (int32_t i = 0; i < sg->num_operators; ++i, ++n) {
      uint32_t c = sg->operators[i].opcode_index;
      printf("%s{\"subgraph\":%d,\"index\":%d,\"op\":", n > 0 ? "," : "",
             (int)s, (int)i);
      print_json_string(opcode_name(&m->opcodes[c]));
      printf(",\"opcode\":%u,\"recorded\":%d,\"computed\":%d}", c,
             (int)m->opcodes[c].version, versions[n]);
    }
  }
  printf("]");
}

static int count_operators(const lg_model* m) {
  int n = 0;
  for (int32_t s = 0; s < m->num_subgraphs; ++s) {
    n += m->subgraphs[s].num_operators;
  }
  return n;
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    printf(
        "usage: op_versions MODEL.tflite\n"
        "Prints, as JSON, each operator's recorded version next to the one\n"
        "TFLite's rules compute for it, and the model's recorded\n"
        "min_runtime_version next to the computed one. Exit status 1 when\n"
        "the model does not load, 2 on a bad argument.\n");
    return 0;
  }
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: op_versions MODEL.tflite (or --help)\n");
    return 2;
  }
  lg_model* m = NULL;
  if (lg_model_load_file(argv[1], NULL, &m) != kTfLiteOk) return 1;
  int count = count_operators(m);
  int* versions = calloc((size_t)count + 1, sizeof(int));
  if (versions == NULL || !compute_versions(m, versions)) {
    fprintf(stderr, "%s: cannot compute the operators' versions\n", argv[1]);
    free(versions);
    lg_model_destroy(m);
    return 1;
  }
  char recorded[64];
  recorded_min_runtime(m, recorded, sizeof(recorded));
  printf("{\"model\":");
  print_json_string(argv[1]);
  printf(",\"min_runtime_version\":{\"recorded\":");
  print_json_string(recorded);
  printf(",\"computed\":");
  print_json_string(lg_model_min_runtime_version(m));
  printf("},");
  print_opcodes(m, versions);
  printf(",");
  print_operators(m, versions);
  printf("}\n");
  free(versions);
  lg_model_destroy(m);
  return 0;
}
