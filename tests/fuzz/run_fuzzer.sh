#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (libFuzzer + ASan + UBSan), makes
# their seed corpora and fuzzes each for a bounded time.
#
#   tests/fuzz/run_fuzzer.sh [SECONDS] [BUILD_DIR] [TARGET...]
#
# SECONDS (per target) defaults to 60; BUILD_DIR to build/fuzz in the
# checkout; the targets to all three: fuzz_model_loader (the .tflite
# reader), fuzz_interpreter (create, AllocateTensors, Invoke through the C
# API) and fuzz_service_wire (the service's control and burst decoders).
# Without named targets fuzz_service_wire, whose inputs are small and fast,
# gets SECONDS / 3 (at least 5); named, it gets SECONDS like the others.
# The normal test command runs them briefly (scripts/test.sh); a long
# session is the same command with more seconds, e.g.
#   tests/fuzz/run_fuzzer.sh 3600 build/fuzz fuzz_interpreter
# Exits non-zero when a fuzzer finds a crash; the crashing input is written
# to BUILD_DIR/fuzz_artifacts/ (copy it to tests/fuzz/regressions/ once
# fixed). Each target's corpus grows in BUILD_DIR/corpus_TARGET across runs.
# Extra libFuzzer flags may be given in LITEGPU_FUZZ_FLAGS (e.g.
# -use_value_profile=1).
set -euo pipefail

seconds=${1:-60}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${2:-$root/build/fuzz}
shift $(($# > 2 ? 2 : $#))
targets=("$@")
named=${#targets[@]}
if [[ $named -eq 0 ]]; then
  targets=(fuzz_model_loader fuzz_interpreter fuzz_service_wire)
fi

CC=${CC:-clang} cmake -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLITEGPU_BUILD_FUZZERS=ON -DLITEGPU_SANITIZE=ON -DLITEGPU_WERROR=ON \
  -DLITEGPU_BUILD_TESTS=OFF > /dev/null
build_targets=("${targets[@]}")
for target in "${targets[@]}"; do
  [[ $target == fuzz_service_wire ]] && build_targets+=(make_wire_seeds)
done
cmake --build "$build" --target "${build_targets[@]}" -j2

artifacts=$build/fuzz_artifacts
mkdir -p "$artifacts"
shared=${LITEGPU_SHARED_DIR:-$here/../shared}
status=0
for target in "${targets[@]}"; do
  corpus=$build/corpus_$target
  if [[ ! -d $corpus ]]; then
    if [[ $target == fuzz_service_wire ]]; then
      mkdir -p "$corpus"
      "$build/tests/fuzz/make_wire_seeds" "$corpus"
    elif [[ $target == fuzz_interpreter ]]; then
      # Models that run, control flow and quantized ones included.
      "$here/make_corpus.sh" "$corpus" "$shared/models" "$root/tests/models"
    else
      "$here/make_corpus.sh" "$corpus"
    fi
  fi
  # The saved regressions run first, then the corpus; new coverage is
  # written back into the corpus folder (the first one named). libFuzzer's
  # progress lines go to a log; the last lines (the final stats, or the
  # crash report) are printed.
  log=$build/$target.log
  rc=0
  # The interpreter's memory cap: one allocation above 1 GiB fails (the
  # runtime must report it, as it would on a device without the memory);
  # libFuzzer's own per-malloc limit is lifted so that the cap, not the
  # fuzzer, answers, while its RSS limit still catches real growth.
  asan=detect_leaks=1
  limits=()
  if [[ $target == fuzz_interpreter ]]; then
    asan=$asan:allocator_may_return_null=1:max_allocation_size_mb=1024
    limits=(-malloc_limit_mb=65536)
  fi
  target_seconds=$seconds
  if [[ $target == fuzz_service_wire && $named -eq 0 ]]; then
    target_seconds=$((seconds / 3 > 5 ? seconds / 3 : 5))
  fi
  regressions=("$here/regressions")
  [[ $target == fuzz_service_wire ]] && regressions=()
  # A unit that runs past 30 s is reported as a hang. A valid model may hold
  # one node too large to finish sooner in this build (cancellation stops an
  # Invoke between nodes only: an INT16 3x3 convolution of 2051x42x32, 755M
  # multiply-adds, took 13 s under the sanitizers), so the bound is three
  # times that; a kernel that never returns still trips it.
  
  ASAN_OPTIONS=${ASAN_OPTIONS:-$asan} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build/tests/fuzz/$target" \
    -max_len=400000 -max_total_time="$target_seconds" -timeout=30 \
    -rss_limit_mb=2048 "${limits[@]}" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" ${LITEGPU_FUZZ_FLAGS:-} "$corpus" \
    "${regressions[@]}" >"$log" 2>&1 ||
    rc=$?
  echo "== $target"
  if [[ $rc -ne 0 ]]; then
    tail -n 60 "$log"
    echo "$target failed (status $rc); inputs in $artifacts:" >&2
    ls -l "$artifacts" >&2
    status=$rc
  else
    grep -E '^(Done|stat::)' "$log" || tail -n 10 "$log"
  fi
done
exit "$status"
