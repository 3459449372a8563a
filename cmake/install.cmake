# Install rules: headers, libraries, pkg-config file, CMake package config,
# and a CPack package of the same tree.
#
# `cmake --install build/release --prefix PREFIX` lays out:
#   PREFIX/include/tensorflow/lite/...          TFLite-compatible C headers
#   PREFIX/include/litegpu/...                  litegpu extensions
#   PREFIX/LIBDIR/liblitegpu.so*                shared library
#   PREFIX/LIBDIR/liblitegpu.a                  static library
#   PREFIX/LIBDIR/liblitegpu_core.a             static library without the
#                                               kernel table (selective builds)
#   PREFIX/bin/selective_registration           writes a selective table
#   PREFIX/LIBDIR/pkgconfig/litegpu.pc          pkg-config file
#   PREFIX/LIBDIR/cmake/litegpu/                find_package(litegpu) files
# LIBDIR is GNUInstallDirs' choice: lib, or lib/<multiarch> under /usr.
#
# Consumers get the imported targets litegpu::litegpu (shared),
# litegpu::litegpu_static, and for selective registration (the function
# litegpu_add_selective_library, cmake/selective_registration.cmake)
# litegpu::litegpu_core and litegpu::selective_registration; a project that
# adds litegpu as a subdirectory gets the same names as aliases.
include(CMakePackageConfigHelpers)

set(LITEGPU_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/litegpu)
set(LITEGPU_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(NOT TARGET litegpu::litegpu)
  add_library(litegpu::litegpu ALIAS litegpu)
  add_library(litegpu::litegpu_static ALIAS litegpu_static)
  add_library(litegpu::litegpu_core ALIAS litegpu_core)
  add_executable(litegpu::selective_registration ALIAS selective_registration)
endif()

# ---- Headers and libraries -------------------------------------------------
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS litegpu litegpu_static litegpu_core selective_registration
        EXPORT litegpuTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ---- pkg-config ------------------------------------------------------------
# The prefix is written relative to the .pc file's own folder (${pcfiledir}),
# so the file stays right whatever `cmake --install --prefix` or DESTDIR puts
# the tree under. Absolute LIBDIR/INCLUDEDIR settings are written as given.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR
   IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(LITEGPU_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(LITEGPU_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(LITEGPU_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _litegpu_pc_up "/${LITEGPU_INSTALL_PKGCONFIGDIR}" "/")
  string(REGEX REPLACE "/$" "" _litegpu_pc_up "${_litegpu_pc_up}")
  set(LITEGPU_PC_PREFIX "\${pcfiledir}/${_litegpu_pc_up}")
  set(LITEGPU_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(LITEGPU_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/litegpu.pc.in
               ${PROJECT_BINARY_DIR}/litegpu.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/litegpu.pc
        DESTINATION ${LITEGPU_INSTALL_PKGCONFIGDIR})

# ---- CMake package ---------------------------------------------------------
# The config file only pulls in the dependency the targets name (Threads) and
# the exported targets; the targets file finds its own prefix.
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/litegpuConfig.cmake
     CONTENT [=[
# litegpu @PROJECT_VERSION@ CMake package.
#
#   find_package(litegpu REQUIRED)
#   target_link_libraries(app PRIVATE litegpu::litegpu)         # shared
#   target_link_libraries(app PRIVATE litegpu::litegpu_static)  # static
#
#   # static, with only the kernels these models need:
#   litegpu_add_selective_library(app_ops MODELS a.tflite b.tflite)
#   target_link_libraries(app PRIVATE app_ops)
include(CMakeFindDependencyMacro)
find_dependency(Threads)
include("${CMAKE_CURRENT_LIST_DIR}/litegpuTargets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/selective_registration.cmake")
]=] @ONLY)

# 0.x releases may break the API between minor versions; from 1.0 on the
# major version carries compatibility.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_litegpu_compat SameMinorVersion)
else()
  set(_litegpu_compat SameMajorVersion)
endif()
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/litegpuConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_litegpu_compat})

install(EXPORT litegpuTargets NAMESPACE litegpu::
        DESTINATION ${LITEGPU_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_BINARY_DIR}/litegpuConfig.cmake
              ${PROJECT_BINARY_DIR}/litegpuConfigVersion.cmake
              ${PROJECT_BINARY_DIR}/selective_registration.cmake
        DESTINATION ${LITEGPU_INSTALL_CMAKEDIR})

# The build tree works as a package too: -Dlitegpu_DIR=build/release.
configure_file(${PROJECT_SOURCE_DIR}/cmake/selective_registration.cmake
               ${PROJECT_BINARY_DIR}/selective_registration.cmake COPYONLY)
export(EXPORT litegpuTargets NAMESPACE litegpu::
       FILE ${PROJECT_BINARY_DIR}/litegpuTargets.cmake)

# ---- CPack -----------------------------------------------------------------
# `cpack --config build/release/CPackConfig.cmake` makes a .tar.gz of the
# installed tree; add `-G DEB` for a Debian package.
set(CPACK_PACKAGE_NAME litegpu)
set(CPACK_PACKAGE_VENDOR litegpu)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "C11 runtime for TensorFlow Lite models with GPU delegates")
set(CPACK_GENERATOR TGZ)
set(CPACK_PACKAGE_FILE_NAME
    "litegpu-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "litegpu maintainers")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
