# Selective registration (docs/selective_registration.md):
#
#   litegpu_add_selective_library(NAME MODELS a.tflite [b.tflite ...])
#   target_link_libraries(app PRIVATE NAME)
#
# builds the static library NAME: litegpu whose default resolver holds only
# the CPU kernels the models need, at the versions they record. At build
# time the tool selective_registration reads the models (rerun when one
# changes) and writes NAME_kernel_table.c, a kernel table naming only
# those kernels; NAME is that table, linked before liblitegpu_core.a (the
# library without the full table), so the static linker leaves every other
# kernel out. A model needing an op litegpu has no CPU kernel for fails the
# build, naming the op; at run time a model needing an op outside the table
# is refused with TFLite's "Didn't find op for builtin opcode ..." message.
#
# Relative model paths are taken from the calling CMakeLists.txt's folder.
# Works in litegpu's own tree (add_subdirectory) and through
# find_package(litegpu), which runs the installed tool.
function(litegpu_add_selective_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "MODELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "litegpu_add_selective_library: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_MODELS)
    message(FATAL_ERROR "litegpu_add_selective_library(${name}): no MODELS")
  endif()
  set(models)
  foreach(model IN LISTS arg_MODELS)
    get_filename_component(model "${model}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND models "${model}")
  endforeach()

  # The tool and the core library: litegpu's own targets in its tree, the
  # imported ones of the installed package otherwise.
  if(TARGET selective_registration AND TARGET litegpu_core)
    set(tool selective_registration)
    set(core litegpu_core)
  else()
    set(tool litegpu::selective_registration)
    set(core litegpu::litegpu_core)
  endif()

  set(table "${CMAKE_CURRENT_BINARY_DIR}/${name}_kernel_table.c")
  add_custom_command(OUTPUT "${table}"
    COMMAND "$<TARGET_FILE:${tool}>" "--output=${table}" ${models}
    DEPENDS ${models} ${tool}
    COMMENT "Writing the kernel table of ${name} from its models"
    VERBATIM)
  add_library(${name} STATIC "${table}")
  target_link_libraries(${name} PUBLIC ${core})
  # Nothing in a program refers to the table before liblitegpu_core.a does,
  # which comes after it on the link line: an undefined reference from the
  # start makes the linker take the table's object out of this archive.
  target_link_options(${name} INTERFACE
    "LINKER:--undefined=lg_builtin_kernels")
endfunction()
