/* The tools' --help: every tool prints its usage on stdout and exits 0
 * when its first argument is --help or -h (and the usage on stderr, exit
 * 2, on a bad command line). */
#ifndef LITEGPU_TOOLS_TOOL_HELP_H_
#define LITEGPU_TOOLS_TOOL_HELP_H_

#include <stdbool.h>
#include <string.h>

/* The --help line of --custom_op_library=PATH (tools/custom_op_library.h),
 * the same in litegpu_run and inspect; benchmark_model's comes from its flag
 * table. */
#define LG_TOOL_HELP_CUSTOM_OP_LIBRARY                                        \
  "  --custom_op_library=PATH  load a custom-op library (a shared object\n"   \
  "                    exporting litegpu_register_custom_ops) and register\n" \
  "                    its ops on every interpreter; repeatable\n"

static inline bool lg_tool_help_asked(int argc, char** argv) {
  return argc > 1 &&
         (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
}

#endif /* LITEGPU_TOOLS_TOOL_HELP_H_ */
