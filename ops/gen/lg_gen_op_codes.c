/* Writes lg_op_codes.h, the op codes GPU kernels select with LG_OP, from
 * the op manifest (ops/ops.def), for C, OpenCL C and GLSL alike: only
 * #define lines, which all three preprocessors read.
 *
 *   lg_gen_op_codes OUT.h
 *
 * Built and run by CMake for the build machine (CMakeLists.txt); the
 * header it writes is embedded in front of every OpenCL kernel and on the
 * glslc include path. Exit status 1 when OUT.h cannot be written. */
#include <stdio.h>

#include "ops/op_manifest.h"

#define LG_GEN_ROW(NAME, code, custom, family, cpu, cpu_min, cpu_max, gpu, \
                   gpu_max, support, lowering, opcode)                     \
  if ((opcode) >= 0) {                                                     \
    fprintf(out, "#define LG_OPCODE_%s %d /* %s */\n", #NAME, (opcode),    \
            #lowering);                                                    \
  }

static void write_rows(FILE* out) {
#define LG_MANIFEST_EACH LG_GEN_ROW
#include "ops/op_manifest_each.h"
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: lg_gen_op_codes OUT.h\n");
    return 1;
  }
  FILE* out = fopen(argv[1], "w");
  if (out == NULL) {
    perror(argv[1]);
    return 1;
  }
  fprintf(out,
          "/* Generated from ops/ops.def by ops/gen/lg_gen_op_codes.c: the\n"
          " * op codes the GPU kernels select with LG_OP (one code space per\n"
          " * lowering, named in each line). Do not edit. */\n"
          "#ifndef LG_OP_CODES_H_\n#define LG_OP_CODES_H_\n");
  write_rows(out);
  fprintf(out, "#define LG_OPCODE_GELU_APPROXIMATE %d /* unary */\n",
          LG_OPCODE_GELU_APPROXIMATE);
  fprintf(out, "#endif\n");
  return fclose(out) == 0 ? 0 : 1;
}
