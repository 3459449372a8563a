#!/usr/bin/env bash
# Configures and builds one preset of litegpu.
#
#   bash scripts/build.sh [PRESET] [-DVAR=VALUE ...] [--target NAME ...]
#
# Presets:
#   release  build/release  optimized (-O2), warnings are errors
#   asan     build/asan     Debug with AddressSanitizer + UBSan, warnings are
#                           errors
#
# -D options are passed to CMake's configure step (after the preset's own, so
# they win); --target limits the build to the named targets. Builds with
# -j$(nproc); set LITEGPU_JOBS to use fewer. LITEGPU_BUILD_ROOT moves the
# build folders (default: build/; a relative path is taken from the checkout).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_ROOT=$(realpath -m "${LITEGPU_BUILD_ROOT:-build}")

preset=${1:-release}
(($# > 0)) && shift

case $preset in
  release)
    dir=$BUILD_ROOT/release
    config=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
            -DLITEGPU_WERROR=ON -DLITEGPU_SANITIZE=OFF)
    ;;
  asan)
    dir=$BUILD_ROOT/asan
    config=(-DCMAKE_BUILD_TYPE=Debug -DLITEGPU_SANITIZE=ON -DLITEGPU_WERROR=ON)
    ;;
  *)
    printf 'build: unknown preset "%s" (release, asan)\n' "$preset" >&2
    exit 2
    ;;
esac

targets=()
while (($# > 0)); do
  case $1 in
    -D*) config+=("$1") ;;
    --target)
      (($# >= 2)) || { echo "build: --target needs a name" >&2; exit 2; }
      targets+=(--target "$2")
      shift
      ;;
    *) printf 'build: unknown argument "%s"\n' "$1" >&2; exit 2 ;;
  esac
  shift
done

jobs=${LITEGPU_JOBS:-$(nproc)}
printf 'build: %s in %s (-j%s)\n' "$preset" "${dir#"$ROOT"/}" "$jobs"
mkdir -p "$dir"
# The configure log is shown only when configuring fails.
cmake -S "$ROOT" -B "$dir" "${config[@]}" >"$dir/configure.log" 2>&1 || {
  cat "$dir/configure.log" >&2
  printf 'build: configuring %s failed\n' "$preset" >&2
  exit 1
}
cmake --build "$dir" -j "$jobs" "${targets[@]}"
