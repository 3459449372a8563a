/* The OpenCL kernel sources embedded in the library.
 *
 * cmake/embed_sources.cmake generates the table at build time from every
 * shared-dialect kernel shaders/kernels/NAME.lgk (one source for OpenCL and
 * Vulkan, shaders/kernels/lg_kernel.h) and the preamble files: one entry
 * per file, named
 * NAME, sorted by name; each source is kept as an array of lines (newlines
 * kept) that clCreateProgramWithSource takes as is. The data is static and
 * immutable; any thread may read it.
 *
 * LG_OPENCL_PREAMBLE_COUNT entries are not kernels but the preamble
 * (lg_opencl_preamble), which the program builder puts in front of every
 * kernel's lines, in this order: shaders/opencl/lg_types.cl (the macros for
 * float tensor data in float32 or half storage), lg_op_codes.h (generated
 * from ops/ops.def), then shaders/kernels/lg_dialect_cl.h and lg_kernel.h (the
 * shared dialect's OpenCL macros and helpers).
 *
 *   const lg_embedded_source* src = lg_opencl_kernel_find("add");
 *   if (src != NULL) clCreateProgramWithSource(ctx, (cl_uint)src->line_count,
 *                                              src->lines, NULL, &err);
 */
#ifndef LITEGPU_DELEGATES_OPENCL_OPENCL_SOURCES_H_
#define LITEGPU_DELEGATES_OPENCL_OPENCL_SOURCES_H_

#include <stddef.h>

typedef struct lg_embedded_source {
  const char* name;         /* file name without extension, e.g. "add" */
  const char* const* lines; /* the file's text, one line per element */
  size_t line_count;
} lg_embedded_source;

/* Generated (build/generated/opencl_sources.c). */
extern const lg_embedded_source lg_opencl_sources[];
extern const size_t lg_opencl_source_count;

/* The name of the first preamble source (shaders/opencl/lg_types.cl). */
#define LG_OPENCL_PREAMBLE "lg_types"

/* The names of the preamble sources, in the order they are put in front of
 * a kernel: "lg_types", "lg_op_codes" (the op codes written from the op
 * manifest at build time), "lg_dialect_cl", "lg_kernel". */
#define LG_OPENCL_PREAMBLE_COUNT 4
extern const char* const lg_opencl_preamble[LG_OPENCL_PREAMBLE_COUNT];

/* The source named `name` (kernel or preamble), or NULL. */
const lg_embedded_source* lg_opencl_source_find(const char* name);

/* The kernel source named `name`: NULL for the preamble sources and unknown
 * names. */
const lg_embedded_source* lg_opencl_kernel_find(const char* name);

#endif /* LITEGPU_DELEGATES_OPENCL_OPENCL_SOURCES_H_ */
