#!/usr/bin/env bash
# Builds fuzz_model_loader with clang (libFuzzer + ASan + UBSan), makes the
# seed corpus and fuzzes for a bounded time.
#
#   tests/fuzz/run_fuzzer.sh [SECONDS] [BUILD_DIR]
#
# SECONDS defaults to 60; BUILD_DIR to build/fuzz in the checkout. Exits
# non-zero when the fuzzer finds a crash; the crashing input is written to
# BUILD_DIR/fuzz_artifacts/ (copy it to tests/fuzz/regressions/ once fixed).
# The corpus grows in BUILD_DIR/fuzz_corpus across runs. Extra libFuzzer
# flags may be given in LITEGPU_FUZZ_FLAGS (e.g. -use_value_profile=1).
set -euo pipefail

seconds=${1:-60}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${2:-$root/build/fuzz}

CC=${CC:-clang} cmake -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLITEGPU_BUILD_FUZZERS=ON -DLITEGPU_SANITIZE=ON -DLITEGPU_WERROR=ON \
  -DLITEGPU_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target fuzz_model_loader -j2

corpus=$build/fuzz_corpus
artifacts=$build/fuzz_artifacts
if [[ ! -d $corpus ]]; then
  "$here/make_corpus.sh" "$corpus"
fi
mkdir -p "$artifacts"

# The saved regressions run first, then the corpus; new coverage is written
# back into the corpus folder (the first one named).
# libFuzzer's progress lines go to a log; the last lines (the final stats, or
# the crash report) are printed.
status=0
log=$build/fuzz.log
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$build/tests/fuzz/fuzz_model_loader" \
  -max_len=400000 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" \
  ${LITEGPU_FUZZ_FLAGS:-} "$corpus" "$here/regressions" >"$log" 2>&1 ||
  status=$?
if [[ $status -ne 0 ]]; then
  tail -n 60 "$log"
else
  grep -E '^(Done|stat::)' "$log" || tail -n 10 "$log"
fi

if [[ $status -ne 0 ]]; then
  echo "fuzz_model_loader failed (status $status); inputs in $artifacts:" >&2
  ls -l "$artifacts" >&2
fi
exit "$status"
