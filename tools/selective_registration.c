/* selective_registration: reads models and writes the C source of a kernel
 * table that holds only the CPU kernels they need (selective registration,
 * docs/selective_registration.md).
 *
 *   selective_registration [--output=FILE.c] MODEL.tflite [MODEL.tflite ...]
 *
 * The table replaces the full one (runtime/kernels/register.c) in a static
 * link against liblitegpu_core.a: it defines lg_builtin_kernels and
 * lg_custom_kernels (row types in include/litegpu/kernel_table.h) and names
 * one lg_register_<NAME> per op, so the linker leaves every other kernel
 * out. CMake's litegpu_add_selective_library runs this tool at build time.
 *
 * What goes in: every operator of every subgraph of every model. A builtin
 * op gets one row whose range is the lowest to the highest version the
 * models use (a comment says which model uses which version). A custom op
 * litegpu runs on the CPU (a custom row of the op manifest with a CPU
 * range) gets a row by name; any other custom op is listed in a comment as
 * one the application registers itself, as TFLite leaves unresolved custom
 * ops to the application. A builtin op litegpu has no CPU kernel for, at
 * the version a model records, is refused: exit status 1, a message per
 * op, and no file written.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_manifest.h"
#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tools/tool_help.h"

/* The enum constant of each builtin row ("kTfLiteBuiltinAdd"), so that the
 * generated rows read like register.c's. */
typedef struct code_name {
  int32_t code;
  const char* constant;
} code_name;

#define LG_OP(NAME, Code, family, cpu, gpu) \
  {kTfLiteBuiltin##Code, "kTfLiteBuiltin" #Code},
#define LG_CUSTOM_OP(NAME, custom, family, cpu, gpu)
static const code_name kCodeNames[] = {
#include "ops/ops.def"
};
#undef LG_OP
#undef LG_CUSTOM_OP

static const char* code_constant(int32_t code) {
  for (size_t i = 0; i < sizeof(kCodeNames) / sizeof(kCodeNames[0]); ++i) {
    if (kCodeNames[i].code == code) return kCodeNames[i].constant;
  }
  return NULL;
}

/* One (op, model, version) the models use, with its operator count. */
typedef struct use {
  int32_t code;
  const char* custom; /* custom ops only; points into the loaded model */
  int model;
  int version;
  int operators;
} use;

typedef struct uses {
  use* items;
  size_t count;
  size_t capacity;
} uses;

static bool same_op(const use* a, int32_t code, const char* custom) {
  if (a->code != code) return false;
  if (code != kTfLiteBuiltinCustom) return true;
  return a->custom != NULL && custom != NULL && strcmp(a->custom, custom) == 0;
}

static bool add_use(uses* u, int32_t code, const char* custom, int model,
                    int version) {
  for (size_t i = 0; i < u->count; ++i) {
    use* x = &u->items[i];
    if (same_op(x, code, custom) && x->model == model &&
        x->version == version) {
      x->operators++;
      return true;
    }
  }
  if (u->count == u->capacity) {
    size_t cap = u->capacity == 0 ? 32 : u->capacity * 2;
    use* items = realloc(u->items, cap * sizeof(use));
    if (items == NULL) return false;
    u->items = items;
    u->capacity = cap;
  }
  u->items[u->count++] = (use){code, custom, model, version, 1};
  return true;
}

/* Builtins by code, then custom ops by name, then model and version. */
static int compare_uses(const void* pa, const void* pb) {
  const use* a = pa;
  const use* b = pb;
  if (a->code != b->code) return a->code < b->code ? -1 : 1;
  if (a->code == kTfLiteBuiltinCustom) {
    int c = strcmp(a->custom, b->custom);
    if (c != 0) return c;
  }
  if (a->model != b->model) return a->model < b->model ? -1 : 1;
  return (a->version > b->version) - (a->version < b->version);
}

/* The file name of a path, for comments. */
static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* Writes `s` into a C comment: characters other than letters, digits and
 * "_-./+:@" become '?', so that no name ends the comment. */
static void write_safe(FILE* f, const char* s) {
  for (const unsigned char* p = (const unsigned char*)s; *p != '\0'; ++p) {
    bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                 (*p >= '0' && *p <= '9') || strchr("_-./+:@", *p) != NULL;
    fputc(plain ? *p : '?', f);
  }
}

/* Whether litegpu's CPU kernel of the op runs `version`. */
static bool cpu_runs(const lg_op_info* info, int version) {
  return info != NULL && info->cpu_min_version > 0 &&
         version >= info->cpu_min_version && version <= info->cpu_max_version;
}

/* Reports every builtin op no CPU kernel runs; false when there is one. */
static bool check_builtins(const uses* u, char** paths) {
  bool ok = true;
  for (size_t i = 0; i < u->count; ++i) {
    const use* x = &u->items[i];
    if (x->code == kTfLiteBuiltinCustom) continue;
    const lg_op_info* info = lg_op_find(x->code, NULL);
    const char* name = lg_builtin_op_name(x->code);
    if (info == NULL || info->cpu_min_version == 0 ||
        code_constant(x->code) == NULL) {
      fprintf(stderr,
              "selective_registration: %s: litegpu has no CPU kernel for %s "
              "(builtin code %d, version %d)\n",
              paths[x->model], name, (int)x->code, x->version);
      ok = false;
    } else if (!cpu_runs(info, x->version)) {
      fprintf(stderr,
              "selective_registration: %s: %s version %d is not supported: "
              "litegpu's CPU kernel runs versions %d to %d\n",
              paths[x->model], name, x->version, info->cpu_min_version,
              info->cpu_max_version);
      ok = false;
    }
  }
  return ok;
}

/* Reads every operator of every subgraph of `path` into `u`. */
static bool read_model(const char* path, int index, lg_model** out, uses* u) {
  if (lg_model_load_file(path, NULL, out) != kTfLiteOk) {
    fprintf(stderr, "selective_registration: cannot read %s\n", path);
    return false;
  }
  const lg_model* m = *out;
  for (int s = 0; s < m->num_subgraphs; ++s) {
    const lg_model_subgraph* g = &m->subgraphs[s];
    for (int o = 0; o < g->num_operators; ++o) {
      uint32_t oc = g->operators[o].opcode_index;
      if (oc >= (uint32_t)m->num_opcodes) {
        fprintf(stderr,
                "selective_registration: %s: subgraph %d operator %d names "
                "operator code %u of %d\n",
                path, s, o, oc, (int)m->num_opcodes);
        return false;
      }
      const lg_model_opcode* opc = &m->opcodes[oc];
      if (opc->builtin_code == kTfLiteBuiltinCustom &&
          opc->custom_code == NULL) {
        fprintf(stderr,
                "selective_registration: %s: subgraph %d operator %d is a "
                "CUSTOM op without a custom_code\n",
                path, s, o);
        return false;
      }
      if (!add_use(u, opc->builtin_code, opc->custom_code, index,
                   opc->version)) {
        fprintf(stderr, "selective_registration: out of memory\n");
        return false;
      }
    }
  }
  return true;
}

/* One op's uses: items[first..end). */
typedef struct op_span {
  size_t first;
  size_t end;
} op_span;

static op_span next_op(const uses* u, size_t first) {
  op_span s = {first, first + 1};
  while (s.end < u->count && same_op(&u->items[first], u->items[s.end].code,
                                     u->items[s.end].custom)) {
    s.end++;
  }
  return s;
}

/* " model v1 (3 operators), model v2 (1 operator)" for a span; only the
 * uses the CPU kernel runs (`running`) or only those it does not. */
static void write_uses(FILE* f, const uses* u, op_span s, char** paths,
                       const lg_op_info* info, bool running) {
  bool first = true;
  for (size_t i = s.first; i < s.end; ++i) {
    const use* x = &u->items[i];
    if (x->code == kTfLiteBuiltinCustom &&
        cpu_runs(info, x->version) != running) {
      continue;
    }
    fprintf(f, "%s", first ? " " : ", ");
    write_safe(f, base_name(paths[x->model]));
    fprintf(f, " v%d (%d operator%s)", x->version, x->operators,
            x->operators == 1 ? "" : "s");
    first = false;
  }
}

/* The lowest and highest version of a span the CPU kernel runs. */
static void span_range(const uses* u, op_span s, const lg_op_info* info,
                       int* lo, int* hi) {
  *lo = 0;
  *hi = 0;
  for (size_t i = s.first; i < s.end; ++i) {
    int v = u->items[i].version;
    if (!cpu_runs(info, v)) continue;
    if (*lo == 0 || v < *lo) *lo = v;
    if (v > *hi) *hi = v;
  }
}

static void write_table(FILE* f, const uses* u, char** paths, int n_models) {
  fprintf(f,
          "/* Selective kernel table written by selective_registration "
          "(litegpu);\n"
          " * do not edit. It replaces the full table (runtime/kernels/"
          "register.c)\n"
          " * in a static link against liblitegpu_core.a: the default "
          "resolver finds\n"
          " * only these kernels, for the versions shown.\n"
          " *\n"
          " * Models:\n");
  for (int m = 0; m < n_models; ++m) {
    fprintf(f, " *   ");
    write_safe(f, paths[m]);
    fprintf(f, "\n");
  }
  fprintf(f, " *\n * Builtin ops (versions; the models that use them):\n");
  bool any_builtin = false;
  for (size_t i = 0; i < u->count;) {
    op_span s = next_op(u, i);
    i = s.end;
    const use* x = &u->items[s.first];
    if (x->code == kTfLiteBuiltinCustom) continue;
    const lg_op_info* info = lg_op_find(x->code, NULL);
    int lo, hi;
    span_range(u, s, info, &lo, &hi);
    any_builtin = true;
    fprintf(f, " *   %s %d..%d:", lg_builtin_op_name(x->code), lo, hi);
    write_uses(f, u, s, paths, info, true);
    fprintf(f, "\n");
  }
  if (!any_builtin) fprintf(f, " *   (none)\n");
  bool any_custom = false, any_app = false;
  for (size_t i = 0; i < u->count;) {
    op_span s = next_op(u, i);
    i = s.end;
    const use* x = &u->items[s.first];
    if (x->code != kTfLiteBuiltinCustom) continue;
    const lg_op_info* info = lg_op_find(x->code, x->custom);
    int lo, hi;
    span_range(u, s, info, &lo, &hi);
    if (hi > 0) {
      if (!any_custom) fprintf(f, " *\n * Custom ops litegpu runs:\n");
      any_custom = true;
      fprintf(f, " *   %s %d..%d:", info->custom_name, lo, hi);
      write_uses(f, u, s, paths, info, true);
      fprintf(f, "\n");
    }
  }
  for (size_t i = 0; i < u->count;) {
    op_span s = next_op(u, i);
    i = s.end;
    const use* x = &u->items[s.first];
    if (x->code != kTfLiteBuiltinCustom) continue;
    const lg_op_info* info = lg_op_find(x->code, x->custom);
    bool app = false;
    for (size_t k = s.first; k < s.end; ++k) {
      if (!cpu_runs(info, u->items[k].version)) app = true;
    }
    if (!app) continue;
    if (!any_app) {
      fprintf(f,
              " *\n * Custom ops litegpu has no kernel for, to be registered "
              "by the\n * application (TfLiteInterpreterOptionsAddCustomOp or"
              "\n * TfLiteInterpreterOptionsAddOperator); unregistered, they "
              "fail at\n * Invoke as in TFLite:\n");
    }
    any_app = true;
    fprintf(f, " *   ");
    write_safe(f, x->custom);
    fprintf(f, ":");
    write_uses(f, u, s, paths, info, false);
    fprintf(f, "\n");
  }
  fprintf(f,
          " */\n"
          "#include <stddef.h>\n"
          "\n"
          "#include \"litegpu/kernel_table.h\"\n"
          "#include \"tensorflow/lite/builtin_ops.h\"\n"
          "\n"
          "const lg_builtin_kernel* lg_builtin_kernels(size_t* count);\n"
          "const lg_custom_kernel* lg_custom_kernels(size_t* count);\n"
          "\n");
  /* One declaration per kernel getter. */
  for (size_t i = 0; i < u->count;) {
    op_span s = next_op(u, i);
    i = s.end;
    const use* x = &u->items[s.first];
    const lg_op_info* info =
        lg_op_find(x->code, x->code == kTfLiteBuiltinCustom ? x->custom : NULL);
    int lo, hi;
    span_range(u, s, info, &lo, &hi);
    if (hi == 0) continue;
    fprintf(f, "const TfLiteRegistration* lg_register_%s(void);\n", info->name);
  }
  /* A trailing placeholder row keeps each array non-empty; the count
   * leaves it out. */
  fprintf(f, "\nstatic const lg_builtin_kernel kKernels[] = {\n");
  for (size_t i = 0; i < u->count;) {
    op_span s = next_op(u, i);
    i = s.end;
    const use* x = &u->items[s.first];
    if (x->code == kTfLiteBuiltinCustom) continue;
    const lg_op_info* info = lg_op_find(x->code, NULL);
    int lo, hi;
    span_range(u, s, info, &lo, &hi);
    fprintf(f, "    {%s, %d, %d, lg_register_%s},\n", code_constant(x->code),
            lo, hi, info->name);
  }
  fprintf(f,
          "    {-1, 0, 0, NULL},\n"
          "};\n"
          "\n"
          "static const lg_custom_kernel kCustomKernels[] = {\n");
  for (size_t i = 0; i < u->count;) {
    op_span s = next_op(u, i);
    i = s.end;
    const use* x = &u->items[s.first];
    if (x->code != kTfLiteBuiltinCustom) continue;
    const lg_op_info* info = lg_op_find(x->code, x->custom);
    int lo, hi;
    span_range(u, s, info, &lo, &hi);
    if (hi == 0) continue;
    fprintf(f, "    {\"%s\", %d, %d, lg_register_%s},\n", info->custom_name, lo,
            hi, info->name);
  }
  fprintf(f,
          "    {NULL, 0, 0, NULL},\n"
          "};\n"
          "\n"
          "const lg_builtin_kernel* lg_builtin_kernels(size_t* count) {\n"
          "  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;\n"
          "  return kKernels;\n"
          "}\n"
          "\n"
          "const lg_custom_kernel* lg_custom_kernels(size_t* count) {\n"
          "  *count = sizeof(kCustomKernels) / sizeof(kCustomKernels[0]) - "
          "1;\n"
          "  return kCustomKernels;\n"
          "}\n");
}

static const char kUsage[] =
    "usage: selective_registration [--output=FILE.c] MODEL.tflite "
    "[MODEL.tflite ...]\n";

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    printf(
        "%s"
        "Writes the C source of a kernel table holding only the CPU kernels\n"
        "the models need: each builtin op with the range of versions their\n"
        "operators record (all subgraphs), the custom ops litegpu runs, and\n"
        "in a comment the custom ops the application must register. Linked\n"
        "with liblitegpu_core.a instead of the full table, the static\n"
        "program holds only those kernels (CMake:\n"
        "litegpu_add_selective_library(NAME MODELS ...)).\n"
        "  --output=FILE.c  write there (default: stdout)\n"
        "Exit status 1 when a model does not load or needs a builtin op (or\n"
        "a version of one) litegpu has no CPU kernel for, naming each; 2 on\n"
        "a bad command line.\n",
        kUsage);
    return 0;
  }
  const char* output = NULL;
  int first = 1;
  for (; first < argc && strncmp(argv[first], "--", 2) == 0; ++first) {
    if (strncmp(argv[first], "--output=", 9) == 0 && argv[first][9] != '\0') {
      output = argv[first] + 9;
    } else {
      fprintf(stderr, "selective_registration: unknown argument %s\n%s",
              argv[first], kUsage);
      return 2;
    }
  }
  int n_models = argc - first;
  if (n_models < 1) {
    fprintf(stderr, "selective_registration: no model given\n%s", kUsage);
    return 2;
  }
  char** paths = argv + first;
  lg_model** models = calloc((size_t)n_models, sizeof(lg_model*));
  uses u = {NULL, 0, 0};
  int rc = 1;
  if (models == NULL) goto done;
  for (int m = 0; m < n_models; ++m) {
    if (!read_model(paths[m], m, &models[m], &u)) goto done;
  }
  if (u.count > 0) qsort(u.items, u.count, sizeof(use), compare_uses);
  if (!check_builtins(&u, paths)) goto done;
  FILE* f = output != NULL ? fopen(output, "w") : stdout;
  if (f == NULL) {
    fprintf(stderr, "selective_registration: cannot write %s\n", output);
    goto done;
  }
  write_table(f, &u, paths, n_models);
  rc = 0;
  if (ferror(f)) rc = 1;
  if (output != NULL && fclose(f) != 0) rc = 1;
  if (rc != 0) {
    fprintf(stderr, "selective_registration: cannot write %s\n",
            output != NULL ? output : "stdout");
    if (output != NULL) remove(output);
  }
done:
  for (int m = 0; models != NULL && m < n_models; ++m) {
    lg_model_destroy(models[m]);
  }
  free(models);
  free(u.items);
  return rc;
}
