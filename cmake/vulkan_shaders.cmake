# Compiles the Vulkan compute shaders to SPIR-V at build time and embeds
# them in the library, so no shader compiler is needed at run time; adding a
# shader is adding a file. Every shader is shaders/kernels/NAME.lgk, a
# kernel in the shared dialect (shaders/kernels/lg_kernel.h) that the
# OpenCL backend compiles from the same file: glslc compiles a generated
# wrapper, `#version 450`, `#include "lg_dialect_glsl.h"`,
# `#include "NAME.lgk"`.
#
# Used two ways:
#   * include()d from CMakeLists.txt, it defines
#       lg_vulkan_shaders(OUTPUT <file.c> SOURCES <a.lgk...>
#                         [INCLUDES <b.glsl...>] [INCLUDE_DIRS <dir...>])
#     Each shader is compiled four times from its one source: as written
#     (float32, NAME.spv), with -DLG_FP16 (float16 tensor data,
#     NAME.fp16.spv; shaders/vulkan/lg_types.glsl), and both again with
#     -DLG_TEXEL (LG_TENSOR_IN bindings as uniform texel buffers,
#     NAME.texel.spv, NAME.texel.fp16.spv). For each variant a
#     custom command runs `glslc -O` (warnings are errors) and then
#     `spirv-val` on the result; the .spv only appears when both pass, so a
#     bad shader fails the build (and is retried next build). A second
#     command writes <file.c>: the SPIR-V modules of every shader as
#     uint32 arrays plus a registry sorted by name (types in
#     delegates/vulkan/vulkan_shaders.h).
#   * run with `cmake -P` (script mode, as that second command does) with
#     -DLG_VK_OUTPUT=... -DLG_VK_SOURCES=a.lgk|b.lgk -DLG_VK_SPV_DIR=...
#     it writes the file.
#
# What the generator reads from each .lgk (the declarations of
# shaders/kernels/lg_kernel.h; a broken rule fails the build with the
# file's name):
#   * `LG_KERNEL(NAME, LG_ARGS)` or `LG_KERNEL_LOCAL(NAME, LG_ARGS, ...)`
#     with the file's name;
#   * the entries of `#define LG_ARGS(BUF, VAL)`, the arguments in order:
#     BUF(K, KIND, name) is buffer binding K, numbered 0.. in order
#     (TENSOR_IN 't'; the other tensors, INTS_* and WORDS_* 's'),
#     VAL(KIND, name) the next push constant (INT 'i', UINT 'u', FLOAT
#     'f');
#   * `LG_SPEC(N, NAME, default)` (N >= 3, unique), each inside
#     `#ifndef NAME` (the OpenCL default): the define -> specialization
#     constant table;
#   * `#define LG_WORD_<word> N` lines: words a define may use as its value
#     (cast.lgk: -DLG_SRC=float).
#
# Strips /* */ and // comments (keeps newlines' count irrelevant).
function(_lg_vk_strip_comments text out_var)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Parses the interface of one shared-dialect kernel (shaders/kernels/*.lgk,
# the declarations of lg_kernel.h); sets <prefix>_CONSTANTS
# ("NAME=ID;..."), <prefix>_VALUES ("WORD=N;..."), <prefix>_BUFFERS
# (count), <prefix>_KINDS (one letter per buffer) and <prefix>_PUSH
# ("ifu..." one letter per push constant).
function(_lg_vk_parse_lgk src prefix)
  file(READ "${src}" raw)
  get_filename_component(file "${src}" NAME)
  get_filename_component(name "${src}" NAME_WE)
  _lg_vk_strip_comments("${raw}" text)
  # Value words: `#define LG_WORD_<word> N` (the OpenCL side's LG_WORD).
  string(REGEX MATCHALL "#[ \t]*define[ \t]+LG_WORD_[A-Za-z_][A-Za-z0-9_]*[ \t]+-?[0-9]+"
         value_decls "${text}")
  set(values "")
  foreach(decl IN LISTS value_decls)
    string(REGEX MATCH "LG_WORD_([A-Za-z_][A-Za-z0-9_]*)[ \t]+(-?[0-9]+)" _ "${decl}")
    list(APPEND values "${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
  endforeach()

  if(NOT text MATCHES "LG_KERNEL(_LOCAL)?[ \t]*\\([ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*,[ \t]*LG_ARGS[ \t]*[,)]")
    message(FATAL_ERROR "${file}: no LG_KERNEL(${name}, LG_ARGS) or "
            "LG_KERNEL_LOCAL(${name}, LG_ARGS, ...)")
  endif()
  if(NOT CMAKE_MATCH_2 STREQUAL name)
    message(FATAL_ERROR "${file}: LG_KERNEL names ${CMAKE_MATCH_2}; it must "
            "name the file, ${name}")
  endif()

  # The arguments: the BUF(...) and VAL(...) entries of
  # `#define LG_ARGS(BUF, VAL)`, which comes right before the LG_KERNEL.
  string(FIND "${text}" "#define LG_ARGS(BUF, VAL)" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "${file}: no #define LG_ARGS(BUF, VAL) argument list")
  endif()
  string(SUBSTRING "${text}" ${start} -1 args)
  string(FIND "${args}" "LG_KERNEL" end)
  if(end EQUAL -1)
    message(FATAL_ERROR "${file}: LG_ARGS must come before LG_KERNEL")
  endif()
  string(SUBSTRING "${args}" 0 ${end} args)
  set(buf_re "BUF[ \t]*\\([ \t]*([0-9]+)[ \t]*,[ \t]*([A-Z_]+)[ \t]*,[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\)")
  set(val_re "VAL[ \t]*\\([ \t]*([A-Z_]+)[ \t]*,[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\)")
  string(REGEX MATCHALL "${buf_re}|${val_re}" arg_decls "${args}")
  string(REGEX MATCHALL "(BUF|VAL)[ \t]*\\(" all_args "${args}")
  list(LENGTH arg_decls n_args)
  list(LENGTH all_args n_all)
  if(NOT n_args EQUAL n_all OR n_args EQUAL 0)
    message(FATAL_ERROR "${file}: LG_ARGS entries must be "
            "BUF(binding, KIND, name) or VAL(KIND, name)")
  endif()
  set(kinds "")
  set(push "")
  set(n_buffers 0)
  foreach(decl IN LISTS arg_decls)
    if(decl MATCHES "^${buf_re}$")
      set(kind "${CMAKE_MATCH_2}")
      if(NOT CMAKE_MATCH_1 EQUAL n_buffers)
        message(FATAL_ERROR "${file}: buffer ${CMAKE_MATCH_3} has binding "
                "${CMAKE_MATCH_1}; bindings are numbered 0.. in order, "
                "expected ${n_buffers}")
      endif()
      if(kind STREQUAL "TENSOR_IN")
        string(APPEND kinds "t")
      elseif(kind MATCHES "^(TENSOR_RO|TENSOR_OUT|TENSOR_RW|INTS_IN|INTS_OUT|INTS_RW|WORDS_IN|WORDS_RW)$")
        string(APPEND kinds "s")
      else()
        message(FATAL_ERROR "${file}: unknown buffer kind ${kind}")
      endif()
      math(EXPR n_buffers "${n_buffers} + 1")
    else()
      string(REGEX MATCH "^${val_re}$" _ "${decl}")
      if(n_buffers EQUAL 0)
        message(FATAL_ERROR "${file}: the first argument must be BUF(0, ...)")
      endif()
      if(CMAKE_MATCH_1 MATCHES "^(INT|UINT|FLOAT)$")
        string(TOLOWER "${CMAKE_MATCH_1}" letter)
        string(SUBSTRING "${letter}" 0 1 letter)
        string(APPEND push "${letter}")
      else()
        message(FATAL_ERROR "${file}: unknown scalar kind ${CMAKE_MATCH_1}")
      endif()
    endif()
  endforeach()
  if(push STREQUAL "")
    message(FATAL_ERROR "${file}: a kernel needs at least one VAL argument "
            "(its push-constant block cannot be empty)")
  endif()
  if(n_buffers GREATER 8)
    message(FATAL_ERROR "${file}: at most 8 buffers (lg_dialect_cl.h)")
  endif()

  # Defines: LG_SPEC(N, NAME, default) inside #ifndef NAME.
  set(spec_re "LG_SPEC[ \t]*\\([ \t]*([0-9]+)[ \t]*,[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*,")
  string(REGEX MATCHALL "${spec_re}" spec_decls "${text}")
  string(REGEX MATCHALL "LG_SPEC" all_specs "${text}")
  list(LENGTH spec_decls n_specs)
  list(LENGTH all_specs n_all)
  if(NOT n_specs EQUAL n_all)
    message(FATAL_ERROR "${file}: a define is not of the form "
            "LG_SPEC(id, NAME, default)")
  endif()
  set(constants "")
  set(seen_ids "0;1;2")
  foreach(decl IN LISTS spec_decls)
    string(REGEX MATCH "${spec_re}" _ "${decl}")
    set(id "${CMAKE_MATCH_1}")
    set(const_name "${CMAKE_MATCH_2}")
    list(FIND seen_ids "${id}" dup)
    if(NOT dup EQUAL -1)
      message(FATAL_ERROR "${file}: LG_SPEC id ${id} (${const_name}) is used "
              "twice or collides with the work-group size ids 0..2")
    endif()
    if(NOT text MATCHES "#[ \t]*ifndef[ \t]+${const_name}[ \t]*\n[ \t]*LG_SPEC[ \t]*\\([ \t]*${id}[ \t]*,[ \t]*${const_name}[ \t]*,[^\n]*\n[ \t]*#[ \t]*endif")
      message(FATAL_ERROR "${file}: LG_SPEC(${id}, ${const_name}, ...) must "
              "stand alone inside #ifndef ${const_name} ... #endif")
    endif()
    list(APPEND seen_ids "${id}")
    list(APPEND constants "${const_name}=${id}")
  endforeach()

  set(${prefix}_CONSTANTS "${constants}" PARENT_SCOPE)
  set(${prefix}_VALUES "${values}" PARENT_SCOPE)
  set(${prefix}_BUFFERS "${n_buffers}" PARENT_SCOPE)
  set(${prefix}_KINDS "${kinds}" PARENT_SCOPE)
  set(${prefix}_PUSH "${push}" PARENT_SCOPE)
endfunction()

# Reads one .spv file; sets <code_var> to the C definition of the array
# `array` holding its words and <words_var> to their count.
function(_lg_vk_embed_spirv spv array code_var words_var)
  get_filename_component(file "${spv}" NAME)
  file(READ "${spv}" hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR words "${hex_len} / 8")
  math(EXPR rest "${hex_len} % 8")
  if(words LESS 5 OR NOT rest EQUAL 0 OR NOT hex MATCHES "^03022307")
    message(FATAL_ERROR "${file} is not a little-endian SPIR-V module")
  endif()
  # Bytes b0 b1 b2 b3 of each word -> 0xb3b2b1b0u, eight words a line.
  string(REGEX REPLACE "([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])"
         "0x\\4\\3\\2\\1u, " code "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f]+u, ){8})" "\\1\n    " code "${code}")
  set(${code_var} "static const uint32_t ${array}[${words}] = {\n    ${code}\n};\n"
      PARENT_SCOPE)
  set(${words_var} "${words}" PARENT_SCOPE)
endfunction()

# Writes the generated C file (script mode).
function(_lg_vk_generate output spv_dir sources)
  set(body "/* Generated by cmake/vulkan_shaders.cmake from shaders/kernels/; do not edit. */\n")
  string(APPEND body "#include \"delegates/vulkan/vulkan_shaders.h\"\n\n")
  set(entries "")
  # Sorted by name (the registry's order).
  set(keyed "")
  foreach(src IN LISTS sources)
    get_filename_component(name "${src}" NAME_WE)
    list(APPEND keyed "${name}|${src}")
  endforeach()
  list(SORT keyed)
  foreach(key IN LISTS keyed)
    string(REGEX REPLACE "^[^|]*\\|" "" src "${key}")
    get_filename_component(name "${src}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${name}" ident)
    _lg_vk_parse_lgk("${src}" meta)

    # The texel builds differ only where the shader has LG_TENSOR_IN
    # bindings; the others reuse the storage-buffer arrays.
    set(variants "" "_fp16")
    if(meta_KINDS MATCHES "t")
      list(APPEND variants "_texel" "_texel_fp16")
    else()
      set(words_texel "${words}")
      set(words_texel_fp16 "${words_fp16}")
    endif()
    foreach(variant IN LISTS variants)
      string(REPLACE "_" "." suffix "${variant}")
      set(spv "${spv_dir}/${name}${suffix}.spv")
      _lg_vk_embed_spirv("${spv}" "lg_vk_${ident}_code${variant}" code count)
      string(APPEND body "${code}")
      set(words${variant} "${count}")
    endforeach()
    if(meta_KINDS MATCHES "t")
      set(texel_code "lg_vk_${ident}_code_texel")
      set(texel_fp16_code "lg_vk_${ident}_code_texel_fp16")
    else()
      set(texel_code "lg_vk_${ident}_code")
      set(texel_fp16_code "lg_vk_${ident}_code_fp16")
      set(words_texel "${words}")
      set(words_texel_fp16 "${words_fp16}")
    endif()

    set(const_ptr "NULL")
    list(LENGTH meta_CONSTANTS n_const)
    if(n_const GREATER 0)
      set(rows "")
      foreach(pair IN LISTS meta_CONSTANTS)
        string(REGEX MATCH "^([^=]+)=(.*)$" _ "${pair}")
        string(APPEND rows "    {\"${CMAKE_MATCH_1}\", ${CMAKE_MATCH_2}u},\n")
      endforeach()
      string(APPEND body "static const lg_vk_spec_constant lg_vk_${ident}_constants[${n_const}] = {\n${rows}};\n")
      set(const_ptr "lg_vk_${ident}_constants")
    endif()

    set(value_ptr "NULL")
    list(LENGTH meta_VALUES n_values)
    if(n_values GREATER 0)
      set(rows "")
      foreach(pair IN LISTS meta_VALUES)
        string(REGEX MATCH "^([^=]+)=(.*)$" _ "${pair}")
        string(APPEND rows "    {\"${CMAKE_MATCH_1}\", ${CMAKE_MATCH_2}},\n")
      endforeach()
      string(APPEND body "static const lg_vk_named_value lg_vk_${ident}_values[${n_values}] = {\n${rows}};\n")
      set(value_ptr "lg_vk_${ident}_values")
    endif()
    string(APPEND body "\n")
    string(APPEND entries "    {\"${name}\", lg_vk_${ident}_code, ${words}, lg_vk_${ident}_code_fp16,\n"
                          "     ${words_fp16}, ${texel_code}, ${words_texel},\n"
                          "     ${texel_fp16_code}, ${words_texel_fp16},\n"
                          "     ${meta_BUFFERS}u, \"${meta_KINDS}\", \"${meta_PUSH}\",\n"
                          "     ${const_ptr}, ${n_const}, ${value_ptr}, ${n_values},\n"
                          "     \"shaders/kernels/${name}.lgk\"},\n")
  endforeach()
  list(LENGTH sources n)
  if(n EQUAL 0)
    string(APPEND body "const lg_vk_shader lg_vulkan_shaders[1] = {{0}};\n")
    string(APPEND body "const size_t lg_vulkan_shader_count = 0;\n")
  else()
    string(APPEND body "const lg_vk_shader lg_vulkan_shaders[${n}] = {\n${entries}};\n")
    string(APPEND body "const size_t lg_vulkan_shader_count = ${n};\n")
  endif()
  file(WRITE "${output}" "${body}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  string(REPLACE "|" ";" _lg_vk_sources "${LG_VK_SOURCES}")
  _lg_vk_generate("${LG_VK_OUTPUT}" "${LG_VK_SPV_DIR}" "${_lg_vk_sources}")
  return()
endif()

set(_LG_VK_SHADER_SCRIPT "${CMAKE_CURRENT_LIST_FILE}")

# glslc (shaderc) and spirv-val (SPIRV-Tools); Debian: glslc, spirv-tools.
find_program(LITEGPU_GLSLC NAMES glslc HINTS "${Vulkan_GLSLC_EXECUTABLE}"
             REQUIRED)
find_program(LITEGPU_SPIRV_VAL NAMES spirv-val REQUIRED)

function(lg_vulkan_shaders)
  cmake_parse_arguments(ARG "" "OUTPUT" "SOURCES;INCLUDES;INCLUDE_DIRS" ${ARGN})
  set(spv_dir "${PROJECT_BINARY_DIR}/generated/vulkan_spv")
  set(wrap_dir "${PROJECT_BINARY_DIR}/generated/vulkan_lgk")
  file(MAKE_DIRECTORY "${spv_dir}" "${wrap_dir}")
  set(include_flags "")
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    list(APPEND include_flags "-I${dir}")
  endforeach()
  set(spvs "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(name "${src}" NAME_WE)
    get_filename_component(ext "${src}" LAST_EXT)
    if(NOT ext STREQUAL ".lgk")
      message(FATAL_ERROR "${src}: a Vulkan shader is a shared-dialect kernel "
              "shaders/kernels/NAME.lgk")
    endif()
    get_filename_component(dir "${src}" DIRECTORY)
    # The kernel behind its GLSL prelude (written only when it changes, so
    # nothing rebuilds for nothing).
    set(input "${wrap_dir}/${name}.comp")
    set(wrapper "// Generated by cmake/vulkan_shaders.cmake (do not edit).\n"
                "#version 450\n"
                "#extension GL_GOOGLE_include_directive : require\n"
                "#include \"lg_dialect_glsl.h\"\n"
                "#include \"${name}.lgk\"\n")
    string(CONCAT wrapper ${wrapper})
    file(CONFIGURE OUTPUT "${input}" CONTENT "${wrapper}" @ONLY)
    # One source, four modules: float32 and float16 (-DLG_FP16), each with
    # LG_TENSOR_IN bindings as storage buffers and as texel buffers
    # (-DLG_TEXEL; the same code for a shader without such bindings, which
    # the generator then does not embed twice).
    foreach(variant IN ITEMS "" ".fp16" ".texel" ".texel.fp16")
      set(spv "${spv_dir}/${name}${variant}.spv")
      set(defines "")
      set(label "")
      if(variant MATCHES "texel")
        list(APPEND defines "-DLG_TEXEL")
        set(label " (texel reads)")
      endif()
      if(variant MATCHES "fp16")
        list(APPEND defines "-DLG_FP16")
        string(APPEND label " (float16)")
      endif()
      add_custom_command(
        OUTPUT "${spv}"
        COMMAND "${LITEGPU_GLSLC}" -O -Werror --target-env=vulkan1.1
                -fshader-stage=compute "-I${dir}" ${include_flags} ${defines}
                -o "${spv}.tmp" "${input}"
        COMMAND "${LITEGPU_SPIRV_VAL}" --target-env vulkan1.1 "${spv}.tmp"
        COMMAND ${CMAKE_COMMAND} -E rename "${spv}.tmp" "${spv}"
        DEPENDS "${src}" "${input}" ${ARG_INCLUDES}
        COMMENT "Compiling and validating Vulkan shader ${name}${ext}${label}"
        VERBATIM)
      list(APPEND spvs "${spv}")
    endforeach()
  endforeach()
  string(REPLACE ";" "|" joined "${ARG_SOURCES}")
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND ${CMAKE_COMMAND} "-DLG_VK_OUTPUT=${ARG_OUTPUT}"
            "-DLG_VK_SOURCES=${joined}" "-DLG_VK_SPV_DIR=${spv_dir}"
            -P "${_LG_VK_SHADER_SCRIPT}"
    DEPENDS ${spvs} ${ARG_SOURCES} "${_LG_VK_SHADER_SCRIPT}"
    COMMENT "Embedding Vulkan SPIR-V shaders"
    VERBATIM)
endfunction()
