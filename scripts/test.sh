#!/usr/bin/env bash
# Runs every test of litegpu:
#   1. scripts/setup.sh (system packages, Python venv),
#   2. the release and asan builds, and ctest in each,
#   3. the pytest model tests (tests/python) against the release build, and
#      the per-op suites and quantized models again against the asan build
#      under ASan+UBSan,
#   4. the loader, interpreter and service-wire fuzzers for a bounded time each
#      (tests/fuzz/run_fuzzer.sh),
#   5. the install test (tests/install/run_install_test.sh).
# Every step runs even when an earlier one failed; the exit status is non-zero
# when anything failed. The last line is the summary, "N passed, N failed",
# counting each ctest test per build, each pytest test, the fuzz run and the
# install test; a build that fails counts as one failure.
#
#   bash scripts/test.sh
#
# Environment: LITEGPU_FUZZ_SECONDS (per fuzz target, default 30),
# LITEGPU_BUILD_ROOT (see
# scripts/build.sh). Logs are kept in <build root>/test-logs/.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
BUILD_ROOT=$(realpath -m "${LITEGPU_BUILD_ROOT:-build}")
export LITEGPU_BUILD_ROOT=$BUILD_ROOT
LOGS=$BUILD_ROOT/test-logs
VENV_PYTHON=${LITEGPU_VENV:-$ROOT/build/venv}/bin/python
FUZZ_SECONDS=${LITEGPU_FUZZ_SECONDS:-30}

passed=0
failed=0
skipped=0
failures=()
start_all=$SECONDS

banner() { printf '\n==== %s\n' "$*"; }
note_failure() { failures+=("$1"); }

# Runs "$@" with its output shown and kept in $LOGS/$1.log; returns its status.
run_logged() {
  local name=$1
  shift
  local t0=$SECONDS rc
  "$@" 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  printf -- '---- %s: exit %d after %ds\n' "$name" "$rc" $((SECONDS - t0))
  return "$rc"
}

# Adds ctest's totals from a log: "NN% tests passed, F tests failed out of T".
count_ctest() {
  local log=$1 line total bad
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  [[ -n $line ]] || return 1
  bad=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  passed=$((passed + total - bad))
  failed=$((failed + bad))
}

# Prints how many "<N> <word>" pytest's closing line reports (0 if none).
pytest_count() {
  local n
  n=$(grep -oE "[0-9]+ $2" <<<"$1" | head -n 1 | cut -d' ' -f1)
  printf '%d\n' "${n:-0}"
}

# Adds pytest's totals from its closing line, e.g.
# "3 failed, 40 passed, 2 skipped, 1 error in 1.20s".
count_pytest() {
  local line
  line=$(grep -E '[0-9]+ (passed|failed|errors?|skipped).* in [0-9.]+s' "$1" | tail -n 1)
  [[ -n $line ]] || return 1
  passed=$((passed + $(pytest_count "$line" passed)))
  failed=$((failed + $(pytest_count "$line" failed) + $(pytest_count "$line" 'errors?')))
  skipped=$((skipped + $(pytest_count "$line" skipped)))
}

# ---- 1. Setup ---------------------------------------------------------------
banner "setup"
if ! bash scripts/setup.sh; then
  echo "test: setup failed; the steps below may fail for that reason"
  note_failure setup
  failed=$((failed + 1))
fi
mkdir -p "$LOGS"

# ---- 2. Builds and ctest ----------------------------------------------------
for preset in release asan; do
  banner "build $preset"
  if ! run_logged "build-$preset" bash scripts/build.sh "$preset"; then
    note_failure "build $preset"
    failed=$((failed + 1))
    continue
  fi
  banner "ctest $preset"
  # The asan build is slower; give each test more time there.
  timeout=120
  [[ $preset == asan ]] && timeout=300
  run_logged "ctest-$preset" ctest --test-dir "$BUILD_ROOT/$preset" \
    --output-on-failure --no-tests=error -j "$(nproc)" --timeout "$timeout"
  rc=$?
  if ! count_ctest "$LOGS/ctest-$preset.log"; then
    # No summary: ctest found no tests or could not run.
    failed=$((failed + 1))
    note_failure "ctest $preset (no summary)"
  elif ((rc != 0)); then
    note_failure "ctest $preset"
  fi
done

# ---- 3. pytest ---------------------------------------------------------------
banner "pytest tests/python"
if [[ -x $VENV_PYTHON ]]; then
  LITEGPU_BUILD_DIR=$BUILD_ROOT/release run_logged pytest \
    "$VENV_PYTHON" -m pytest tests/python -q -rfEs -p no:cacheprovider
  rc=$?
  if ((rc == 5)); then
    echo "test: tests/python has no tests yet"
  else
    failed_before=$failed
    count_pytest "$LOGS/pytest.log" || true
    if ((rc != 0)); then
      note_failure pytest
      # A failure pytest did not count (a crash, a usage error) still fails.
      ((failed > failed_before)) || failed=$((failed + 1))
    fi
  fi
else
  echo "test: no virtual environment at $VENV_PYTHON"
  note_failure pytest
  failed=$((failed + 1))
fi

# ---- 3b. pytest under ASan+UBSan ---------------------------------------------
# The per-op suites and the quantized models once more against the asan
# build: the kernels they drive (every quantized one among them) run only
# from Python, so this is their sanitizer run. Python loads the library,
# so the sanitizer runtimes are preloaded; leaks are not checked (Python
# and LiteRT keep memory to exit by design).
banner "pytest asan (tests/python/ops, quantized models, bad quantization, control flow, PAD folding, recurrent models, reshape aliasing)"
asan_rt=$(cc -print-file-name=libasan.so)
ubsan_rt=$(cc -print-file-name=libubsan.so)
if [[ -x $VENV_PYTHON && -f $asan_rt && -f $ubsan_rt &&
      -f $BUILD_ROOT/asan/liblitegpu.so ]]; then
  LD_PRELOAD="$asan_rt:$ubsan_rt" ASAN_OPTIONS=detect_leaks=0 \
    LITEGPU_BUILD_DIR=$BUILD_ROOT/asan run_logged pytest-asan \
    "$VENV_PYTHON" -m pytest tests/python/ops \
    tests/python/test_quantized_models.py \
    tests/python/test_quantized_converted.py \
    tests/python/test_seanet_goldens.py \
    tests/python/test_bad_quantization.py \
    tests/python/test_control_flow.py tests/python/test_fold_pads.py \
    tests/python/test_recurrent_models.py tests/python/test_reshape_alias.py \
    -q -rfEs -p no:cacheprovider
  rc=$?
  failed_before=$failed
  count_pytest "$LOGS/pytest-asan.log" || true
  if ((rc != 0)); then
    note_failure "pytest asan"
    ((failed > failed_before)) || failed=$((failed + 1))
  fi
else
  echo "test: no asan library, sanitizer runtimes or virtual environment"
  note_failure "pytest asan"
  failed=$((failed + 1))
fi

# ---- 4. Fuzzer ----------------------------------------------------------------
if [[ -f tests/fuzz/run_fuzzer.sh ]]; then
  banner "fuzz (${FUZZ_SECONDS}s per target)"
  if run_logged fuzz bash tests/fuzz/run_fuzzer.sh "$FUZZ_SECONDS" "$BUILD_ROOT/fuzz"; then
    passed=$((passed + 1))
  else
    note_failure fuzz
    failed=$((failed + 1))
  fi
fi

# ---- 5. Install test ------------------------------------------------------------
banner "install test"
if run_logged install bash tests/install/run_install_test.sh; then
  passed=$((passed + 1))
else
  note_failure "install test"
  failed=$((failed + 1))
fi

# ---- Summary ------------------------------------------------------------------
banner "summary ($((SECONDS - start_all))s, logs in ${LOGS#"$ROOT"/})"
if ((${#failures[@]})); then
  printf 'failed: %s\n' "${failures[@]}"
fi
if ((skipped)); then
  printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
else
  printf '%d passed, %d failed\n' "$passed" "$failed"
fi
((failed == 0 && ${#failures[@]} == 0))
