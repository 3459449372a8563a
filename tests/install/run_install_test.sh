#!/usr/bin/env bash
# Install test: installs the release build into a temporary prefix and builds
# tests/install/consumer.c against the installed tree only, two ways:
#   1. CMake find_package(litegpu), shared, static, and selective
#      (litegpu_add_selective_library with MODEL's kernels only, through the
#      installed selective_registration tool and liblitegpu_core.a),
#   2. plain `cc $(pkg-config --cflags --libs litegpu)`.
# Each binary runs hello_world_float.tflite with x = 1.0 and must print y
# within 0.05 of sin(1.0) = 0.841 (the model approximates sin), on the CPU
# and (shared library builds) through TFLite's GPU delegate. It also checks
# that every installed public header compiles on its own, as C and as C++,
# and that the shared library exports every function those headers declare.
# The selective consumer must hold fewer kernels than the static one and
# refuse a model needing another op (REFUSED_MODEL) with TFLite's message.
#
#   bash tests/install/run_install_test.sh [MODEL]
#
# Needs a release build (bash scripts/build.sh release). LITEGPU_BUILD_ROOT
# moves the build folders as in scripts/build.sh. Exits non-zero with a
# message naming the step that failed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=$(realpath -m "${LITEGPU_BUILD_ROOT:-build}")/release
MODEL=$(realpath -m "${1:-$ROOT/tests/shared/models/tflite-micro/hello_world_float.tflite}")
EXPECTED=0.841471  # sin(1.0)
TOLERANCE=0.05
# Needs CONV_2D, which hello_world does not.
REFUSED_MODEL=$ROOT/tests/shared/models/tflite-micro/person_detect.tflite

step() { printf 'install test: %s\n' "$*"; }
fail() { printf 'install test: FAIL: %s\n' "$*" >&2; exit 1; }

# Runs a command quietly; on failure shows its output and fails with $1.
quiet() {
  local what=$1
  shift
  "$@" >"$WORK/step.log" 2>&1 || { cat "$WORK/step.log" >&2; fail "$what"; }
}

[[ -f $BUILD/CMakeCache.txt ]] ||
  fail "no release build in $BUILD (run: bash scripts/build.sh release)"
[[ -f $MODEL ]] || fail "model not found: $MODEL"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/litegpu-install-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix

# ---- Install and look at the tree ------------------------------------------
step "installing $BUILD into a temporary prefix"
quiet "cmake --install failed" cmake --install "$BUILD" --prefix "$PREFIX"

pc=$(find "$PREFIX" -name litegpu.pc -path '*/pkgconfig/*' | head -n 1)
[[ -n $pc ]] || fail "litegpu.pc was not installed"
LIBDIR=$(dirname "$(dirname "$pc")")
for f in "$PREFIX/include/tensorflow/lite/c/c_api.h" \
         "$LIBDIR/liblitegpu.so" "$LIBDIR/liblitegpu.a" \
         "$LIBDIR/liblitegpu_core.a" "$PREFIX/bin/selective_registration" \
         "$LIBDIR/cmake/litegpu/selective_registration.cmake" \
         "$LIBDIR/cmake/litegpu/litegpuConfig.cmake" \
         "$LIBDIR/cmake/litegpu/litegpuConfigVersion.cmake"; do
  [[ -e $f ]] || fail "not installed: ${f#"$PREFIX"/}"
done

step "compiling each installed header on its own (C11 and C++17)"
while IFS= read -r header; do
  rel=${header#"$PREFIX/include/"}
  printf '#include "%s"\n' "$rel" >"$WORK/header.c"
  quiet "$rel does not compile on its own as C11" \
    cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$PREFIX/include" \
    "$WORK/header.c"
  quiet "$rel does not compile on its own as C++17" \
    c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$PREFIX/include" \
    -x c++ "$WORK/header.c"
done < <(find "$PREFIX/include" -name '*.h' | sort)

step "checking that liblitegpu.so exports every function the headers declare"
# gcc's -aux-info lists each prototype a translation unit sees, with the file
# that declares it; the public ones must be in the dynamic symbol table (the
# library builds with hidden visibility: a declaration without
# TFL_CAPI_EXPORT links against the static library only).
find "$PREFIX/include" -name '*.h' | sort |
  sed "s|^$PREFIX/include/\(.*\)|#include \"\1\"|" >"$WORK/all_headers.c"
quiet "the installed headers do not compile together" \
  gcc -std=c11 -fsyntax-only -I"$PREFIX/include" -aux-info "$WORK/aux.txt" \
  "$WORK/all_headers.c"
# Each line: /* FILE:LINE:NC */ extern TYPE NAME (PARAMETERS); the name is
# the word before the first parenthesis.
grep -F "/* $PREFIX/include/" "$WORK/aux.txt" | grep -v ' static ' |
  sed -E 's|^/\* [^ ]* \*/ ||; s/^([^(]*[ *])?([A-Za-z_][A-Za-z0-9_]*) \(.*$/\2/' |
  sort -u \
  >"$WORK/declared.txt"
[[ $(wc -l <"$WORK/declared.txt") -gt 50 ]] ||
  fail "found only $(wc -l <"$WORK/declared.txt") declared functions"
nm -D --defined-only "$LIBDIR/liblitegpu.so" | awk '{print $3}' | sort -u \
  >"$WORK/exported.txt"
missing=$(comm -23 "$WORK/declared.txt" "$WORK/exported.txt" | tr '\n' ' ')
[[ -z $missing ]] ||
  fail "declared in the installed headers but not exported by liblitegpu.so: $missing"
step "$(wc -l <"$WORK/declared.txt") declared functions, all exported"

step "checking that liblitegpu.so does not link the OpenCL or Vulkan loader"
# They are opened at run time, so the library loads on machines without them.
needed=$(readelf -d "$LIBDIR/liblitegpu.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ -n $needed ]] || fail "readelf lists no NEEDED libraries"
if grep -qiE 'opencl|vulkan' <<<"$needed"; then
  fail "liblitegpu.so links $(grep -iE 'opencl|vulkan' <<<"$needed" | tr '\n' ' ')"
fi

# Checks that a consumer binary prints y close to sin(1.0); `mode` is cpu or
# gpu (TFLite's GPU delegate).
check_output() {
  local name=$1 mode=$2 out y
  shift 2
  out=$("$@" "$MODEL" 1.0 "$mode" 2>&1) || { printf '%s\n' "$out" >&2; fail "$name exited with an error"; }
  y=$(printf '%s\n' "$out" | sed -n 's/^y = //p' | head -n 1)
  [[ -n $y ]] || { printf '%s\n' "$out" >&2; fail "$name printed no 'y = ' line"; }
  awk -v y="$y" -v e="$EXPECTED" -v t="$TOLERANCE" \
    'BEGIN { d = y - e; if (d < 0) d = -d; exit !(d <= t) }' ||
    fail "$name: y = $y, expected $EXPECTED +- $TOLERANCE"
  step "$name: y = $y (sin(1.0) = $EXPECTED)"
}

# ---- 1. CMake find_package --------------------------------------------------
step "building the consumer with CMake find_package(litegpu)"
quiet "configuring tests/install with find_package(litegpu) failed" \
  cmake -S "$ROOT/tests/install" -B "$WORK/cmake" \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DLITEGPU_SELECTIVE_MODELS="$MODEL"
found=$(sed -n 's/^litegpu_DIR:PATH=//p' "$WORK/cmake/CMakeCache.txt")
[[ $found == "$PREFIX"/* ]] ||
  fail "find_package(litegpu) found $found, not the installed tree"
quiet "building the CMake consumer failed" cmake --build "$WORK/cmake"
check_output "cmake consumer (litegpu::litegpu)" cpu \
  "$WORK/cmake/consumer_shared"
check_output "cmake consumer (litegpu::litegpu, GPU delegate)" gpu \
  "$WORK/cmake/consumer_shared"
check_output "cmake consumer (litegpu::litegpu_static)" cpu \
  "$WORK/cmake/consumer_static"
check_output "cmake consumer (litegpu_add_selective_library)" cpu \
  "$WORK/cmake/consumer_selective"
# The selective program holds the model's kernels only: fewer lg_register_
# getters than the static one, and none of an op the model does not use.
kernels_in() { nm "$1" | grep -c ' lg_register_' || true; }
full_kernels=$(kernels_in "$WORK/cmake/consumer_static")
selective_kernels=$(kernels_in "$WORK/cmake/consumer_selective")
((selective_kernels > 0 && selective_kernels < full_kernels)) ||
  fail "consumer_selective holds $selective_kernels kernel getters, consumer_static $full_kernels"
if ! grep -q 'CONV_2D' "$WORK/cmake/consumer_kernels_kernel_table.c" &&
  nm "$WORK/cmake/consumer_selective" | grep -q ' lg_register_CONV_2D$'; then
  fail "consumer_selective links CONV_2D's kernel, which its table does not name"
fi
step "consumer_selective: $selective_kernels kernel getters (consumer_static: $full_kernels); text $(size -A "$WORK/cmake/consumer_selective" | awk '$1 == ".text" {print $2}') vs $(size -A "$WORK/cmake/consumer_static" | awk '$1 == ".text" {print $2}') bytes"
if out=$("$WORK/cmake/consumer_selective" "$REFUSED_MODEL" 1.0 cpu 2>&1); then
  fail "consumer_selective ran a model needing other ops: $out"
fi
grep -q "Didn't find op for builtin opcode 'CONV_2D' version '2'" <<<"$out" ||
  fail "consumer_selective did not refuse CONV_2D with TFLite's message: $out"
grep -q "TfLiteInterpreterCreate failed" <<<"$out" ||
  fail "consumer_selective did not report the failed creation: $out"
step "consumer_selective refuses a model needing CONV_2D with TFLite's message"
# A machine with neither loader (the test hooks point at no file): the CPU
# runs, and the GPU delegate reports both reasons instead of crashing.
LITEGPU_OPENCL_TEST_LIBRARY=/nonexistent/libOpenCL.so.1 \
  LITEGPU_VULKAN_TEST_LIBRARY=/nonexistent/libvulkan.so.1 \
  check_output "cmake consumer (no OpenCL or Vulkan loader)" cpu \
  "$WORK/cmake/consumer_shared"
if out=$(LITEGPU_OPENCL_TEST_LIBRARY=/nonexistent/libOpenCL.so.1 \
  LITEGPU_VULKAN_TEST_LIBRARY=/nonexistent/libvulkan.so.1 \
  "$WORK/cmake/consumer_shared" "$MODEL" 1.0 gpu 2>&1); then
  fail "the GPU consumer ran without any loader: $out"
fi
grep -q "cannot load the OpenCL ICD loader" <<<"$out" ||
  fail "no OpenCL loader reason in: $out"
grep -q "TfLiteGpuDelegateV2Create failed" <<<"$out" ||
  fail "the consumer did not report the failed creation: $out"
step "without loaders: the GPU delegate refuses with the reason"

# ---- 2. pkg-config ------------------------------------------------------------
step "building the consumer with cc \$(pkg-config --cflags --libs litegpu)"
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
flags=$(pkg-config --cflags --libs litegpu) || fail "pkg-config does not know litegpu"
# shellcheck disable=SC2086  # the flags are meant to split into words
quiet "building the pkg-config consumer failed" \
  cc -std=c11 -Wall -Wextra -Werror "$ROOT/tests/install/consumer.c" \
  $flags -o "$WORK/consumer_pkgconfig"
LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  check_output "pkg-config consumer" cpu "$WORK/consumer_pkgconfig"
LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  check_output "pkg-config consumer (GPU delegate)" gpu \
  "$WORK/consumer_pkgconfig"

step "PASS"
