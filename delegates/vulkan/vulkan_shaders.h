/* The Vulkan compute shaders embedded in the library as SPIR-V.
 *
 * cmake/vulkan_shaders.cmake compiles every kernel, a shared-dialect
 * shaders/kernels/NAME.lgk behind shaders/kernels/lg_dialect_glsl.h, with
 * glslc as written (float32 tensor data) and with -DLG_FP16 (float16 tensor
 * data, shaders/vulkan/lg_types.glsl), each also with -DLG_TEXEL (read-only
 * tensors as texel buffers), validates them with spirv-val and generates this
 * table at build time (build/generated/vulkan_shaders.c), sorted by name,
 * together with what the backend needs to know about each shader's interface:
 * its specialization constants by define name, the words a define may use as a
 * value, its buffer bindings and their kinds, and the kinds of its push
 * constants. The data is static and immutable; any thread may read it.
 *
 *   const lg_vk_shader* s = lg_vulkan_shader_find("binary");
 *   VkShaderModuleCreateInfo info = {.codeSize = s->words * 4,
 *                                    .pCode = s->code, ...};
 *   (s->code_fp16 and s->words_fp16 for the half-precision backend)
 */
#ifndef LITEGPU_DELEGATES_VULKAN_VULKAN_SHADERS_H_
#define LITEGPU_DELEGATES_VULKAN_VULKAN_SHADERS_H_

#include <stddef.h>
#include <stdint.h>

/* `layout(constant_id = id) const int name = ...;` in the shader
 * (LG_SPEC(id, name, ...) in a .lgk). */
typedef struct lg_vk_spec_constant {
  const char* name;
  uint32_t id;
} lg_vk_spec_constant;

/* A `// lg_value name = value` line: a word a define may use as a value. */
typedef struct lg_vk_named_value {
  const char* name;
  int32_t value;
} lg_vk_named_value;

typedef struct lg_vk_shader {
  const char* name;     /* file name without extension, e.g. "binary" */
  const uint32_t* code; /* SPIR-V words (float32 tensor data) */
  size_t words;
  const uint32_t* code_fp16; /* the same source built with -DLG_FP16 */
  size_t words_fp16;
  /* Built with -DLG_TEXEL (and -DLG_FP16): the 't' bindings are uniform
   * texel buffers. The same arrays as code/code_fp16 for a shader
   * without 't' bindings. */
  const uint32_t* code_texel;
  size_t words_texel;
  const uint32_t* code_texel_fp16;
  size_t words_texel_fp16;
  uint32_t buffer_count; /* buffer arguments: bindings 0..buffer_count-1 */
  /* One letter per binding: 's' a storage buffer, 't' a read-only tensor
   * (LG_TENSOR_IN in the shader; a storage buffer in the plain builds). */
  const char* kinds;
  const char* push; /* push constants in order: 'i' int, 'u' uint,
                       'f' float (4 bytes each) */
  const lg_vk_spec_constant* constants; /* ids >= 3 (0..2: work group) */
  size_t constant_count;
  const lg_vk_named_value* values;
  size_t value_count;
  /* The source file, for messages: "shaders/kernels/NAME.lgk". */
  const char* source;
} lg_vk_shader;

/* Generated. */
extern const lg_vk_shader lg_vulkan_shaders[];
extern const size_t lg_vulkan_shader_count;

/* The shader named `name`, or NULL. */
const lg_vk_shader* lg_vulkan_shader_find(const char* name);

#endif /* LITEGPU_DELEGATES_VULKAN_VULKAN_SHADERS_H_ */
