/* Reading the op manifest (ops/ops.def) from C.
 *
 * Two ways:
 *   - at run time, lg_op_manifest() and lg_op_find() give one lg_op_info
 *     per row (name, code, family, CPU range, GPU columns);
 *   - at compile time, a file expands the rows into its own table: it
 *     defines LG_MANIFEST_EACH as the name of a macro taking every column
 *     of a row and includes "ops/op_manifest_each.h":
 *
 *       #define MY_ROW(NAME, code, custom, family, cpu, cpu_min, cpu_max, \
 *                      gpu, gpu_max, support, lowering, opcode)          \
 *         MY_ROW_##gpu(code, custom, gpu_max)
 *       #define MY_ROW_GPU(code, custom, gpu_max) {code, custom, gpu_max},
 *       #define MY_ROW_NO_GPU(code, custom, gpu_max)
 *       static const my_entry kTable[] = {
 *       #define LG_MANIFEST_EACH MY_ROW
 *       #include "ops/op_manifest_each.h"
 *       };
 *
 *     The columns: NAME (the schema name, a bare word), code (the builtin
 *     code, kTfLiteBuiltinCustom for custom ops), custom (the custom name,
 *     or NULL), family (a bare word), cpu (the word CPU or NO_CPU: paste it
 *     to keep or drop rows), cpu_min and cpu_max (0 without a CPU kernel),
 *     gpu (GPU or NO_GPU), gpu_max (TFLite's GPU kMaxVersion,
 *     LG_OP_ANY_VERSION for ANY; 0 without GPU), support and lowering (bare
 *     words naming gpu_check_<support>, lg_gpu_lower_<lowering> and
 *     lg_gpu_limits_<lowering>; `none` without GPU) and opcode (-1: none).
 *
 * The table is static and read-only; any thread may read it.
 */
#ifndef LITEGPU_OPS_OP_MANIFEST_H_
#define LITEGPU_OPS_OP_MANIFEST_H_

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/lite/builtin_ops.h"

/* The GPU kMaxVersion of the ops TFLite's GPU delegate takes at every
 * version (ANY in the manifest). */
#define LG_OP_ANY_VERSION INT_MAX

/* The LG_OP code of GELU's tanh approximation in the unary GPU kernel (the
 * manifest row's code is the exact form). */
#define LG_OPCODE_GELU_APPROXIMATE 17

typedef struct lg_op_info {
  const char* name;        /* schema name, e.g. "HARD_SWISH" */
  int32_t builtin_code;    /* kTfLiteBuiltinCustom for custom ops */
  const char* custom_name; /* custom ops only, else NULL */
  const char* family;      /* e.g. "unary" */
  int cpu_min_version;     /* 0: no builtin CPU kernel */
  int cpu_max_version;
  int gpu_max_version; /* 0: the GPU does not run it */
  int gpu_opcode;      /* LG_OP of its GPU kernel, -1: none */
} lg_op_info;

/* Whether (code, custom_name) names the op (op_code, op_custom_name): the
 * same builtin code and, for kTfLiteBuiltinCustom, the same name (a custom
 * op without a name names nothing). Every op table lookup matches this way. */
bool lg_op_same(int32_t op_code, const char* op_custom_name, int32_t code,
                const char* custom_name);

/* The op code (LG_OP) the GPU kernel of a builtin selects: its row's
 * gpu_opcode, or -1 for an op without a row or without a code. */
int lg_op_gpu_opcode(int32_t builtin_code);

/* Every row, in manifest order; *count (may be NULL) gets the number. */
const lg_op_info* lg_op_manifest(int* count);

/* The row of a builtin code (a custom op: kTfLiteBuiltinCustom and its
 * name), or NULL. */
const lg_op_info* lg_op_find(int32_t builtin_code, const char* custom_name);

/* ---- Compile-time expansion (see above) ---------------------------------- */

#define LG_MANIFEST_CPU_CPU(min, max) CPU, min, max
#define LG_MANIFEST_CPU_NO_CPU NO_CPU, 0, 0
#define LG_MANIFEST_GPU_GPU(max, support, lowering, opcode) \
  GPU, max, support, lowering, opcode
#define LG_MANIFEST_GPU_NO_GPU NO_GPU, 0, none, none, -1
#define LG_MANIFEST_CALL_(M, ...) M(__VA_ARGS__)
/* Calls M with every column of one row, the CPU(...) and GPU(...) columns
 * unpacked. */
#define LG_MANIFEST_ROW(M, NAME, code, custom, family, cpu, gpu)          \
  LG_MANIFEST_CALL_(M, NAME, code, custom, family, LG_MANIFEST_CPU_##cpu, \
                    LG_MANIFEST_GPU_##gpu)

/* LG_BUILTIN_<NAME>: the builtin code of each row by its schema name
 * (kTfLiteBuiltinCustom for custom ops), e.g. LG_BUILTIN_HARD_SWISH. */
#define LG_MANIFEST_BUILTIN_ENUM(NAME, code, ...) LG_BUILTIN_##NAME = (code),
enum {
#define LG_MANIFEST_EACH LG_MANIFEST_BUILTIN_ENUM
#include "ops/op_manifest_each.h"
};
#undef LG_MANIFEST_BUILTIN_ENUM

#endif /* LITEGPU_OPS_OP_MANIFEST_H_ */
