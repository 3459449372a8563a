#!/usr/bin/env bash
# Compiles every OpenCL program a conformance run builds with clang, in the
# three precisions the kernels support, so the half-arithmetic variant
# (-DLG_FP16 -DLG_HALF_MATH, only built on devices with cl_khr_fp16) is
# checked on machines whose driver lacks the extension (PoCL).
#
#   tests/check_opencl_programs.sh CONFORMANCE CLANG [MODEL-RUN ARGS...]
#
# Runs CONFORMANCE (litegpu_conformance) on the OpenCL backend over every
# case, and once more with MODEL-RUN ARGS (--model=..., --model-dir=...)
# when given, recording with --record-opencl-programs; then runs
# `CLANG -x cl -cl-std=CL1.2 -fsyntax-only` with cl_khr_fp16 enabled on each
# recorded source: as built, with -DLG_FP16, and with -DLG_FP16
# -DLG_HALF_MATH. Any diagnostic fails. Exit 0 when all compile cleanly.
set -euo pipefail
conformance=$1 clang=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

record() {
  local dir=$work/$1
  shift
  mkdir -p "$dir"
  "$conformance" --delegate=gpu --backend=cl --record-opencl-programs="$dir" \
    "$@" >"$dir.log" 2>&1 || {
    tail -20 "$dir.log"
    echo "check_opencl_programs: the conformance run failed"
    exit 1
  }
}
record cases
if (($# > 0)); then record models "$@"; fi

checked=0 failed=0
for source in "$work"/*/*.cl; do
  # The recorded options without the precision defines the modes add.
  options=$(sed -e 's/-DLG_HALF_MATH//g' -e 's/-DLG_FP16//g' "${source%.cl}.opts")
  for mode in "" "-DLG_FP16" "-DLG_FP16 -DLG_HALF_MATH"; do
    # shellcheck disable=SC2086  # options and mode are word lists
    if ! out=$("$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header \
      -target spir64 -Xclang -cl-ext=+cl_khr_fp16 -fsyntax-only -Wall \
      $options $mode "$source" 2>&1) || [[ -n $out ]]; then
      echo "== ${source#"$work"/} [$options $mode]"
      echo "$out" | head -20
      failed=$((failed + 1))
    fi
    checked=$((checked + 1))
  done
done
echo "check_opencl_programs: $checked compilations, $failed failed"
((checked > 0 && failed == 0))
