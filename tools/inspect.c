/* inspect: what a .tflite model holds and how litegpu would run it.
 *
 *   inspect MODEL [--json] [--delegate=reference|gpu|all]
 *                 [--gpu_backend=cl|vk] [--max_delegated_partitions=N]
 *                 [--min_nodes_per_partition=N] [--custom_op_library=PATH ...]
 *
 * Prints the operators with their versions, the tensors with shapes, types
 * and sizes, the model's recorded minimum runtime version, the CPU memory
 * plan (arena against the sum of non-constant tensors), and a partition
 * preview of a delegate: the reference delegate (default; each partition's
 * nodes and every rejected node with its reason) or, with --delegate=gpu,
 * the GPU delegate on this machine's device (--gpu_backend: OpenCL or
 * Vulkan; default the delegate's own choice), with every partition limit
 * off unless given: its partitions, the nodes it claims and every node it
 * leaves to the CPU with TFLite's reason (a machine without a device: the
 * reason, exit status unchanged). --delegate=all previews both. --json prints
 * the same as one JSON object. Each --custom_op_library is loaded before the
 * model and registers its ops on every interpreter inspect creates
 * (tools/custom_op_library.h).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "litegpu/gpu_delegate.h"
#include "litegpu/interpreter_info.h"
#include "litegpu/mediapipe_ops.h"
#include "litegpu/reference_delegate.h"
#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tools/custom_op_library.h"
#include "tools/tool_help.h"
#include "versioning/runtime_version.h"

typedef struct inspect_options {
  const char* path;
  bool json;
  int max_partitions;
  int min_nodes;
  bool reference_preview; /* --delegate=reference (default) or all */
  bool gpu_preview;       /* --delegate=gpu or all */
  int gpu_backend;        /* litegpu_gpu_backend */
  bool help;
  int num_subgraphs;                /* of the model, set after loading it */
  lg_custom_op_libraries libraries; /* --custom_op_library */
} inspect_options;

/* ---- Output helpers: text, or JSON with a comma state ------------------ */

static void json_string(const char* s) {
  putchar('"');
  for (; s != NULL && *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      printf("\\%c", c);
    } else if (c < 0x20) {
      printf("\\u%04x", c);
    } else {
      putchar(c);
    }
  }
  putchar('"');
}

static void json_ints(const int32_t* v, int n) {
  putchar('[');
  for (int i = 0; i < n; ++i) printf(i ? ",%d" : "%d", v[i]);
  putchar(']');
}

static void text_ints(const int32_t* v, int n) {
  putchar('[');
  for (int i = 0; i < n; ++i) printf(i ? ",%d" : "%d", v[i]);
  putchar(']');
}

static const char* op_name(const lg_model* m, const lg_model_operator* op) {
  const lg_model_opcode* code = &m->opcodes[op->opcode_index];
  if (code->builtin_code == kTfLiteBuiltinCustom && code->custom_code) {
    return code->custom_code;
  }
  return lg_builtin_op_name(code->builtin_code);
}

/* The recorded minimum runtime version: up to the first NUL of the
 * metadata buffer, as TFLite reads it. */
static void min_runtime_version(const lg_model* m, char* out, size_t size) {
  const uint8_t* data = NULL;
  size_t bytes = 0;
  out[0] = '\0';
  if (!lg_model_find_metadata(m, "min_runtime_version", &data, &bytes)) return;
  size_t n = 0;
  while (n < bytes && n + 1 < size && data[n] != 0) {
    out[n] = (char)data[n];
    ++n;
  }
  out[n] = '\0';
}

/* ---- Sections
 * ---------------------------------------------------------------- */

static void print_operators(const lg_model* m, int index, bool json) {
  const lg_model_subgraph* g = &m->subgraphs[index];
  if (json) printf("\"operators\":[");
  if (!json) printf("operators (%d):\n", g->num_operators);
  for (int i = 0; i < g->num_operators; ++i) {
    const lg_model_operator* op = &g->operators[i];
    const int version = m->opcodes[op->opcode_index].version;
    if (json) {
      printf(i ? ",{\"index\":%d,\"op\":" : "{\"index\":%d,\"op\":", i);
      json_string(op_name(m, op));
      printf(",\"version\":%d,\"inputs\":", version);
      json_ints(op->inputs, op->num_inputs);
      printf(",\"outputs\":");
      json_ints(op->outputs, op->num_outputs);
      putchar('}');
    } else {
      printf("  #%-3d %-24s v%-2d in ", i, op_name(m, op), version);
      text_ints(op->inputs, op->num_inputs);
      printf(" out ");
      text_ints(op->outputs, op->num_outputs);
      putchar('\n');
    }
  }
  if (json) printf("],");
}

static size_t tensor_bytes(const lg_model* m, const lg_model_tensor* t) {
  const lg_model_buffer* b = &m->buffers[t->buffer];
  if (b->data != NULL) return (size_t)b->size;
  size_t bytes = 0;
  if (TfLiteGetSizeOfType(t->type, &bytes) != kTfLiteOk) return 0;
  for (int d = 0; d < t->num_dims; ++d) bytes *= (size_t)t->shape[d];
  return bytes;
}

static void print_tensors(const lg_model* m, int index, bool json) {
  const lg_model_subgraph* g = &m->subgraphs[index];
  if (json) printf("\"tensors\":[");
  if (!json) printf("tensors (%d):\n", g->num_tensors);
  for (int i = 0; i < g->num_tensors; ++i) {
    const lg_model_tensor* t = &g->tensors[i];
    const bool constant = m->buffers[t->buffer].data != NULL;
    const char* kind = constant ? "constant" : t->is_variable ? "variable" : "";
    if (json) {
      printf(i ? ",{\"index\":%d,\"name\":" : "{\"index\":%d,\"name\":", i);
      json_string(t->name);
      printf(",\"type\":\"%s\",\"shape\":", TfLiteTypeGetName(t->type));
      json_ints(t->shape, t->num_dims);
      printf(",\"bytes\":%zu,\"kind\":\"%s\"}", tensor_bytes(m, t), kind);
    } else {
      printf("  #%-3d %-40s %-8s ", i, t->name, TfLiteTypeGetName(t->type));
      text_ints(t->shape, t->num_dims);
      printf(" %zu bytes %s\n", tensor_bytes(m, t), kind);
    }
  }
  if (json) printf("],");
}

/* Every subgraph after the main one: its name, inputs, outputs, operators
 * and tensors (JSON: "graphs", each with the main graph's keys). */
static void print_other_subgraphs(const lg_model* m, bool json) {
  if (json) printf("\"graphs\":[");
  for (int i = 1; i < m->num_subgraphs; ++i) {
    const lg_model_subgraph* g = &m->subgraphs[i];
    if (json) {
      printf(i > 1 ? ",{\"index\":%d,\"name\":" : "{\"index\":%d,\"name\":", i);
      json_string(g->name);
      printf(",\"inputs\":");
      json_ints(g->inputs, g->num_inputs);
      printf(",\"outputs\":");
      json_ints(g->outputs, g->num_outputs);
      putchar(',');
    } else {
      printf("subgraph %d '%s': inputs ", i, g->name);
      text_ints(g->inputs, g->num_inputs);
      printf(" outputs ");
      text_ints(g->outputs, g->num_outputs);
      putchar('\n');
    }
    print_operators(m, i, json);
    print_tensors(m, i, json);
    if (json) printf("\"end\":true}");
  }
  if (json) printf("],");
}

static void print_tensor_map(const lg_model_tensor_map* map, int count,
                             bool json) {
  for (int i = 0; i < count; ++i) {
    if (json) {
      printf(i ? ",{\"name\":" : "{\"name\":");
      json_string(map[i].name);
      printf(",\"tensor\":%u}", map[i].tensor_index);
    } else {
      printf("%s%s=#%u", i ? ", " : "", map[i].name, map[i].tensor_index);
    }
  }
}

/* The model's SignatureDefs: key, subgraph, named inputs and outputs. */
static void print_signatures(const lg_model* m, bool json) {
  if (json) printf("\"signatures\":[");
  if (!json) printf("signatures (%d):\n", m->num_signatures);
  for (int i = 0; i < m->num_signatures; ++i) {
    const lg_model_signature* sig = &m->signatures[i];
    if (json) {
      printf(i ? ",{\"key\":" : "{\"key\":");
      json_string(sig->key);
      printf(",\"subgraph\":%u,\"inputs\":[", sig->subgraph_index);
      print_tensor_map(sig->inputs, sig->num_inputs, true);
      printf("],\"outputs\":[");
      print_tensor_map(sig->outputs, sig->num_outputs, true);
      printf("]}");
    } else {
      printf("  '%s' on subgraph %u: inputs ", sig->key, sig->subgraph_index);
      print_tensor_map(sig->inputs, sig->num_inputs, false);
      printf("; outputs ");
      print_tensor_map(sig->outputs, sig->num_outputs, false);
      putchar('\n');
    }
  }
  if (json) printf("],");
}

/* NULL after a message when a custom-op library fails to register (main
 * checked them all once already). */
static TfLiteInterpreter* create(TfLiteModel* model, TfLiteDelegate* d,
                                 const lg_custom_op_libraries* libraries) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, true);
  litegpu_add_mediapipe_ops(o); /* MediaPipe's custom ops have kernels */
  char why[1024];
  if (!lg_custom_op_libraries_register(libraries, o, why, sizeof(why))) {
    fprintf(stderr, "inspect: %s\n", why);
    TfLiteInterpreterOptionsDelete(o);
    return NULL;
  }
  if (d != NULL) TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  return ip;
}

/* False when the CPU interpreter cannot allocate the model. */
static bool print_memory(TfLiteModel* model, const inspect_options* o) {
  const bool json = o->json;
  TfLiteInterpreter* ip = create(model, NULL, &o->libraries);
  litegpu_memory_info info;
  const bool ok = ip != NULL &&
                  TfLiteInterpreterAllocateTensors(ip) == kTfLiteOk &&
                  litegpu_interpreter_memory_info(ip, &info) == kTfLiteOk;
  if (json) {
    if (ok) {
      printf(
          "\"memory\":{\"arena_bytes\":%zu,\"non_constant_tensor_bytes\":"
          "%zu,\"heap_bytes\":%zu,\"constant_bytes\":%zu},",
          info.arena_bytes, info.non_constant_tensor_bytes, info.heap_bytes,
          info.constant_bytes);
    } else {
      printf("\"memory\":null,");
    }
  } else if (ok) {
    printf(
        "memory: arena %zu bytes for %zu bytes of non-constant tensors; "
        "heap %zu bytes; constants %zu bytes (mapped)\n",
        info.arena_bytes, info.non_constant_tensor_bytes, info.heap_bytes,
        info.constant_bytes);
  } else {
    printf(
        "memory: the CPU interpreter cannot allocate this model (see the "
        "messages above)\n");
  }
  TfLiteInterpreterDelete(ip);
  return ok;
}

static void print_partitions(TfLiteDelegate* d, bool json) {
  const int count = litegpu_reference_delegate_num_partitions(d);
  if (json) printf("\"partitions\":[");
  for (int p = 0; p < count; ++p) {
    const int n = litegpu_reference_delegate_partition_nodes(d, p, NULL, 0);
    int* nodes = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    litegpu_reference_delegate_partition_nodes(d, p, nodes, n);
    if (json) {
      if (p) putchar(',');
      json_ints(nodes, n);
    } else {
      printf("  partition %d (%d nodes): ", p, n);
      text_ints(nodes, n);
      putchar('\n');
    }
    free(nodes);
  }
  if (json) printf("],");
}

static void print_rejections(TfLiteDelegate* d, bool json) {
  const int n = litegpu_reference_delegate_decisions(d, NULL, 0);
  litegpu_delegate_decision* dec =
      calloc((size_t)(n > 0 ? n : 1), sizeof(*dec));
  litegpu_reference_delegate_decisions(d, dec, n);
  if (json) printf("\"rejected\":[");
  bool first = true;
  for (int i = 0; i < n; ++i) {
    if (dec[i].claimed) continue;
    if (json) {
      printf(first ? "{\"node\":%d,\"op\":" : ",{\"node\":%d,\"op\":",
             dec[i].node_index);
      json_string(dec[i].op_name);
      printf(",\"version\":%d,\"reason\":", dec[i].version);
      json_string(dec[i].reason);
      putchar('}');
    } else {
      printf("  rejected #%d %s v%d: %s\n", dec[i].node_index, dec[i].op_name,
             dec[i].version, dec[i].reason);
    }
    first = false;
  }
  if (json) printf("]");
  free(dec);
}

/* The GPU delegate's decisions on the main graph: the claimed nodes, and
 * the others with their operator, version and reason. */
static void print_gpu_decisions(const TfLiteDelegate* d, const lg_model* m,
                                bool json) {
  const lg_model_subgraph* g = &m->subgraphs[0];
  const int bound = litegpu_gpu_delegate_num_nodes(d);
  printf(json ? "\"claimed\":[" : "  claimed: [");
  int claimed = 0;
  for (int node = 0; node < bound; ++node) {
    const char* why = litegpu_gpu_delegate_node_reason(d, node);
    if (why != NULL && why[0] == '\0') printf(claimed++ ? ",%d" : "%d", node);
  }
  printf(json ? "],\"rejected\":[" : "]\n");
  bool first = true;
  for (int node = 0; node < bound && node < g->num_operators; ++node) {
    const char* why = litegpu_gpu_delegate_node_reason(d, node);
    if (why == NULL || why[0] == '\0') continue; /* fused away, or claimed */
    const lg_model_operator* op = &g->operators[node];
    const int version = m->opcodes[op->opcode_index].version;
    if (json) {
      printf(first ? "{\"node\":%d,\"op\":" : ",{\"node\":%d,\"op\":", node);
      json_string(op_name(m, op));
      printf(",\"version\":%d,\"reason\":", version);
      json_string(why);
      putchar('}');
    } else {
      printf("  rejected #%d %s v%d: %s\n", node, op_name(m, op), version, why);
    }
    first = false;
  }
  if (json) putchar(']');
}

/* What the GPU delegate would take of the model on this machine. */
static void print_gpu_delegate(TfLiteModel* model, const lg_model* m,
                               const inspect_options* o) {
  litegpu_gpu_delegate_options go = litegpu_gpu_delegate_options_default();
  go.backend = (litegpu_gpu_backend)o->gpu_backend;
  /* A preview shows everything the delegate could take: TFLite's default
   * of one partition only when asked for. */
  go.tflite.max_delegated_partitions =
      o->max_partitions > 0 ? o->max_partitions : INT32_MAX;
  go.min_nodes_per_partition = o->min_nodes;
  char why[1024] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&go, why, sizeof(why));
  if (d == NULL) {
    if (o->json) {
      printf("{\"name\":\"gpu\",\"applied\":false,\"reason\":");
      json_string(why);
      putchar('}');
    } else {
      printf("delegate gpu: not available: %s\n", why);
    }
    return;
  }
  TfLiteInterpreter* ip = create(model, d, &o->libraries);
  litegpu_gpu_delegate_stats st;
  memset(&st, 0, sizeof(st));
  litegpu_gpu_delegate_get_stats(d, &st);
  const bool applied = litegpu_gpu_delegate_num_nodes(d) > 0;
  const int partitions = litegpu_gpu_delegate_num_partitions(d);
  if (o->json) {
    printf("{\"name\":\"gpu\",\"applied\":%s,\"backend\":",
           applied ? "true" : "false");
    json_string(st.backend);
    printf(",\"device\":");
    json_string(st.device_name);
    printf(",\"fp16\":%s,\"partitions\":%d,", st.fp16 ? "true" : "false",
           partitions);
  } else {
    printf("delegate gpu (%s on '%s', %s precision): %d partition(s)%s\n",
           st.backend ? st.backend : "?", st.device_name,
           st.fp16 ? "half" : "full", partitions,
           applied ? "" : " (not applied: the graph cannot be prepared)");
  }
  print_gpu_decisions(d, m, o->json);
  if (o->json) putchar('}');
  TfLiteInterpreterDelete(ip);
  TfLiteGpuDelegateV2Delete(d);
}

static void print_delegates(TfLiteModel* model, const inspect_options* o) {
  if (!o->reference_preview) return;
  litegpu_reference_delegate_options ro =
      litegpu_reference_delegate_options_default();
  ro.max_delegated_partitions = o->max_partitions;
  ro.min_nodes_per_partition = o->min_nodes;
  TfLiteDelegate* d = litegpu_reference_delegate_create(&ro);
  TfLiteInterpreter* ip = create(model, d, &o->libraries);
  /* The delegate's Prepare ran when it decided about the nodes; it does not
   * when the graph cannot even be prepared on the CPU first. */
  const bool applied = litegpu_reference_delegate_decisions(d, NULL, 0) > 0;
  if (o->json) {
    printf("{\"name\":\"reference\",\"applied\":%s,",
           applied ? "true" : "false");
  } else {
    printf("delegate reference: %d partition(s)%s\n",
           litegpu_reference_delegate_num_partitions(d),
           applied ? "" : " (not applied: the graph cannot be prepared)");
    /* The delegate is applied to every subgraph, the main graph last; it
     * keeps the decisions of the last. */
    if (applied && o->num_subgraphs > 1) {
      printf(
          "  (the partitions and decisions below are the main graph's; "
          "the delegate was also applied to the other %d subgraph(s))\n",
          o->num_subgraphs - 1);
    }
  }
  print_partitions(d, o->json);
  print_rejections(d, o->json);
  if (o->json) putchar('}');
  TfLiteInterpreterDelete(ip);
  litegpu_reference_delegate_delete(d);
}

/* Messages from the runtime go to stderr, so stdout stays clean JSON. */
static void to_stderr(void* user, const char* format, va_list args) {
  (void)user;
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

static int parse(int argc, char** argv, inspect_options* o) {
  memset(o, 0, sizeof(*o));
  o->reference_preview = true;
  o->gpu_backend = LITEGPU_GPU_BACKEND_AUTO;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      o->help = true;
      return 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      o->json = true;
    } else if (strncmp(argv[i], "--delegate=", 11) == 0) {
      const char* v = argv[i] + 11;
      o->reference_preview =
          strcmp(v, "reference") == 0 || strcmp(v, "all") == 0;
      o->gpu_preview = strcmp(v, "gpu") == 0 || strcmp(v, "all") == 0;
      if (!o->reference_preview && !o->gpu_preview) {
        fprintf(stderr, "inspect: bad value in '%s': reference, gpu or all\n",
                argv[i]);
        return -1;
      }
    } else if (strncmp(argv[i], "--gpu_backend=", 14) == 0) {
      const char* v = argv[i] + 14;
      if (strcmp(v, "cl") == 0) {
        o->gpu_backend = LITEGPU_GPU_BACKEND_OPENCL;
      } else if (strcmp(v, "vk") == 0) {
        o->gpu_backend = LITEGPU_GPU_BACKEND_VULKAN;
      } else {
        fprintf(stderr, "inspect: bad value in '%s': cl or vk\n", argv[i]);
        return -1;
      }
    } else if (strncmp(argv[i], "--max_delegated_partitions=", 27) == 0) {
      o->max_partitions = atoi(argv[i] + 27);
    } else if (strncmp(argv[i], "--min_nodes_per_partition=", 26) == 0) {
      o->min_nodes = atoi(argv[i] + 26);
    } else if (strncmp(argv[i], "--custom_op_library=", 20) == 0) {
      char why[256];
      if (!lg_custom_op_libraries_add(&o->libraries, argv[i] + 20, why,
                                      sizeof(why))) {
        fprintf(stderr, "inspect: %s\n", why);
        return -1;
      }
    } else if (argv[i][0] != '-' && o->path == NULL) {
      o->path = argv[i];
    } else {
      fprintf(stderr, "inspect: unknown argument '%s'\n", argv[i]);
      return -1;
    }
  }
  return o->path ? 0 : -1;
}

static void usage(FILE* out) {
  fprintf(out,
          "usage: inspect MODEL [--json] [--delegate=reference|gpu|all] "
          "[--gpu_backend=cl|vk] [--max_delegated_partitions=N] "
          "[--min_nodes_per_partition=N] [--custom_op_library=PATH ...]\n");
}

int main(int argc, char** argv) {
  inspect_options o;
  if (parse(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  if (o.help) {
    usage(stdout);
    printf(
        "Prints a model's operators (with their versions) and tensors, those\n"
        "of every other subgraph, its signatures, the CPU interpreter's\n"
        "memory plan and the partitions a delegate would make: the\n"
        "reference delegate, or with --delegate=gpu the GPU delegate on\n"
        "this machine's device (--gpu_backend=cl|vk; every partition, each\n"
        "node it leaves to the CPU with the reason), --delegate=all both;\n"
        "--json prints one JSON object.\n");
    fputs(LG_TOOL_HELP_CUSTOM_OP_LIBRARY, stdout);
    printf(
        "Exit status 1 when the model does not load or cannot be allocated,\n"
        "2 on a bad argument (a custom-op library that cannot be opened,\n"
        "lacks litegpu_register_custom_ops or fails in it too).\n");
    return 0;
  }
  char why[1024];
  if (!lg_custom_op_libraries_load(&o.libraries, why, sizeof(why))) {
    fprintf(stderr, "inspect: %s\n", why);
    lg_custom_op_libraries_close(&o.libraries);
    return 2;
  }
  lg_reporter rep = {to_stderr, NULL};
  lg_model* m = NULL;
  if (lg_model_load_file(o.path, &rep, &m) != kTfLiteOk) {
    lg_custom_op_libraries_close(&o.libraries);
    return 1;
  }
  TfLiteModel* model =
      TfLiteModelCreateFromFileWithErrorReporter(o.path, to_stderr, NULL);
  char version[64];
  min_runtime_version(m, version, sizeof(version));
  if (o.json) {
    printf("{\"model\":");
    json_string(o.path);
    printf(",\"bytes\":%zu,\"schema_version\":%u,\"min_runtime_version\":",
           m->size, m->version);
    json_string(version);
    printf(",\"computed_min_runtime_version\":");
    json_string(lg_model_min_runtime_version(m));
    printf(",\"subgraphs\":%d,", m->num_subgraphs);
  } else {
    printf("model: %s (%zu bytes), schema version %u, %d subgraph(s)\n", o.path,
           m->size, m->version, m->num_subgraphs);
    printf("min_runtime_version: recorded %s, computed from the ops %s\n",
           version[0] ? version : "(absent)",
           lg_model_min_runtime_version(m)[0] ? lg_model_min_runtime_version(m)
                                              : "(unknown)");
  }
  print_operators(m, 0, o.json);
  print_tensors(m, 0, o.json);
  print_other_subgraphs(m, o.json);
  print_signatures(m, o.json);
  const bool allocated = print_memory(model, &o);
  o.num_subgraphs = m->num_subgraphs;
  if (o.json) printf("\"delegates\":[");
  print_delegates(model, &o);
  if (o.gpu_preview) {
    if (o.json && o.reference_preview) putchar(',');
    print_gpu_delegate(model, m, &o);
  }
  if (o.json) printf("]");
  if (o.json) printf("}\n");
  TfLiteModelDelete(model);
  lg_model_destroy(m);
  lg_custom_op_libraries_close(&o.libraries);
  if (!allocated) {
    fprintf(stderr, "inspect: the CPU interpreter cannot allocate '%s'\n",
            o.path);
  }
  return allocated ? 0 : 1;
}
