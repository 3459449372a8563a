#!/usr/bin/env bash
# The checks that need a real GPU, in one run: what the GPU delegate does on
# a machine's own OpenCL and Vulkan drivers (CI has neither; PoCL and
# lavapipe run on the CPU).
#
#   bash scripts/gpu_check.sh BIN_DIR [CORPUS_DIR] [SECONDS_PER_STEP]
#
# BIN_DIR holds litegpu_conformance and benchmark_model of a release build
# (build/release/tests and build/release; copy both into one folder);
# CORPUS_DIR the corpus
# models (build/corpus/models, tools/corpus/fetch.py). Steps, each capped at
# SECONDS_PER_STEP (default 90) and reported with its exit status:
#   1. the devices: nvidia-smi, the OpenCL and Vulkan loaders and ICDs (an
#      NVIDIA OpenCL library with no ICD file gets one in /etc/OpenCL);
#   2. the conformance cases on OpenCL and on Vulkan, float32, and with
#      precision loss allowed (real float16 where the device has it: the
#      first run of the half-arithmetic OpenCL kernels is on a device with
#      cl_khr_fp16);
#   3. the kept graph cases and random graphs (150 per precision) on both
#      backends, compared with the CPU and with each other;
#   4. the converted networks (tests/models) and their quantized versions
#      (tests/models/quantized) on both backends, judged as ctest judges
#      them;
#   5. benchmark_model --compare=cpu,cl,vk on MobileNetV2 (float and int8)
#      and nine corpus
#      models: this GPU's timings against 8 CPU threads and each backend's
#      largest difference from the CPU (the corpus's bounds are
#      tests/python/test_corpus.py's, which needs LiteRT: figures here).
#   6. the delegate's features beyond TFLite's on this GPU (bench_gpu_chain,
#      bench_gpu_resize, bench_async and benchmark_model, copied into BIN_DIR
#      like the rest): two models chained through bound device buffers
#      against host copies; MobileNetV2's input resized (batch, spatial)
#      against cold init; two inferences in flight against back-to-back
#      Invokes; FAST_SINGLE_ANSWER against SUSTAINED_SPEED (init and Invoke);
#   7. the GPU unit tests found in BIN_DIR (test_gpu_delegate, test_gpu_conv,
#      test_gpu_reduce, test_gpu_shape, test_gpu_threads, test_gpu_prepare,
#      test_gpu_zero_copy, test_async_signature_runner,
#      test_opencl_backend; copy them from build/release/tests, with
#      libcmocka.so.0 where the machine lacks it): they take the machine's
#      default OpenCL device and its Vulkan device. (The Vulkan backend's own
#      tests need the Khronos validation layer, which GPU machines seldom
#      have.)
# Environment: GPU_CHECK_BACKENDS (step 2's backends, default "cl vk"),
# GPU_CHECK_GRAPHS (random graphs per precision, default 150).
# Exit status: the number of steps that failed.
set -uo pipefail

BIN=${1:?usage: gpu_check.sh BIN_DIR [CORPUS_DIR] [SECONDS_PER_STEP]}
CORPUS=${2:-}
STEP_SECONDS=${3:-90}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONF=$BIN/litegpu_conformance
BENCH=$BIN/benchmark_model
failed=0

# Runs function $2 in a shell of its own, stopped after STEP_SECONDS.
step() {
  local name=$1 fn=$2
  printf '\n==== %s\n' "$name"
  local t0=$SECONDS
  timeout "$STEP_SECONDS" bash -c "$fn"
  local rc=$?
  printf -- '---- %s: exit %d after %ds\n' "$name" "$rc" $((SECONDS - t0))
  ((rc == 0)) || failed=$((failed + 1))
}

# The summary lines of a conformance run, and its failures.
conformance() {
  "$CONF" "$@" 2>&1 | grep -E "FAIL|^total:|^graphs:|comparing|delegate gpu|^add_same_4d "
  return "${PIPESTATUS[0]}"
}

devices() {
  nvidia-smi -L 2>&1 || true
  ldconfig -p | grep -E "libOpenCL|libvulkan|libnvidia-opencl" || true
  ls /etc/OpenCL/vendors /usr/share/vulkan/icd.d \
    /usr/local/nvidia/share/vulkan/icd.d 2>&1 || true
  local cl_lib
  cl_lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
  if [[ -z $cl_lib ]]; then
    cl_lib=$(find / -xdev -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
  fi
  if [[ -n $cl_lib && ! -e /etc/OpenCL/vendors/nvidia.icd ]]; then
    mkdir -p /etc/OpenCL/vendors && echo "$cl_lib" >/etc/OpenCL/vendors/nvidia.icd
    echo "registered $cl_lib as an OpenCL ICD"
  fi
}

cases() {
  local rc=0
  for backend in ${GPU_CHECK_BACKENDS:-cl vk}; do
    conformance --delegate=gpu --backend=$backend || rc=1
    conformance --delegate=gpu --backend=$backend --fp16 || rc=1
  done
  return $rc
}

graphs() {
  local rc=0
  for precision in "" --fp16; do
    conformance --delegate=gpu --compare-backends $precision \
      --graph-dir="$ROOT/tests/conformance/graphs" \
      --random-graphs="${GPU_CHECK_GRAPHS:-150}" \
      --seed=7 --min-claimed=0.85 || rc=1
  done
  return $rc
}

models() {
  local args=() rc=0
  for m in mobilenet_v2 kws_cnn mobilenet_v3_small tiny_transformer \
    small_unet; do
    args+=("--model=$ROOT/tests/models/$m.tflite")
  done
  # Their quantized versions (ENABLE_QUANT: within two quantization steps
  # of the CPU; dynamic range within the fp16 bound; 16x8 refused).
  for m in kws_cnn_int8 kws_cnn_int8_float_io kws_cnn_dynamic kws_cnn_16x8 \
    mobilenet_v2_int8 mobilenet_v3_small_int8 small_unet_int8 \
    small_unet_int8_float_io small_unet_dynamic tiny_transformer_int8 \
    tiny_transformer_int8_float_io tiny_transformer_dynamic; do
    args+=("--model=$ROOT/tests/models/quantized/$m.tflite")
  done
  for precision in "" --fp16; do
    "$CONF" --delegate=gpu --compare-backends $precision "${args[@]}" 2>&1 |
      grep -E "\(model\)|^total:|comparing"
    ((PIPESTATUS[0] == 0)) || rc=1
  done
  return $rc
}

benchmarks() {
  local list=("$ROOT/tests/models/mobilenet_v2.tflite"
    "$ROOT/tests/models/quantized/mobilenet_v2_int8.tflite") rc=0
  if [[ -n $CORPUS ]]; then
    for m in face_detection_short_range face_landmark hand_landmark_full \
      iris_landmark palm_detection_full pose_landmark_full \
      face_detection_full_range_sparse pose_detection selfie_segmentation; do
      # A corpus model left out of CORPUS_DIR (to fit a transfer) is named.
      if [[ -f $CORPUS/$m.tflite ]]; then
        list+=("$CORPUS/$m.tflite")
      else
        echo "-- $m: not in $CORPUS, skipped"
      fi
    done
  fi
  for m in "${list[@]}"; do
    echo "-- $(basename "$m")"
    "$BENCH" --graph="$m" --compare=cpu,cl,vk --num_threads=8 \
      --num_runs=30 --warmup_runs=5 2>&1 |
      grep -E "^(backend|cpu|cl|vk) |  (cl|vk):|failed"
    ((PIPESTATUS[0] == 0)) || rc=1
  done
  return $rc
}

features() {
  local rc=0 mnv2=$ROOT/tests/models/mobilenet_v2.tflite backend shape pref
  "$BIN/bench_gpu_chain" --n=262144 --runs=200 || rc=1
  for backend in cl vk; do
    for shape in 2,224,224,3 1,160,160,3; do
      "$BIN/bench_gpu_resize" "$mnv2" --shape=$shape --backend=$backend || rc=1
    done
    "$BIN/bench_async" --graph="$mnv2" --use_gpu --gpu_backend=$backend \
      --num_runs=30 --in_flight=2 --repeats=3 || rc=1
    "$BIN/bench_async" --graph="$mnv2" --use_gpu --gpu_backend=$backend \
      --num_runs=30 --in_flight=2 --repeats=3 --host_work_us=2000 || rc=1
    for pref in false true; do
      echo "-- $backend, SUSTAINED_SPEED $pref"
      "$BENCH" --graph="$mnv2" --use_gpu --gpu_backend=$backend \
        --gpu_inference_for_sustained_speed=$pref --num_runs=50 \
        --warmup_runs=5 2>&1 | grep -E "^Inference timings|failed"
      ((PIPESTATUS[0] == 0)) || rc=1
    done
  done
  return $rc
}

unit_tests() {
  local rc=0 ran=0
  for t in test_gpu_delegate test_gpu_conv test_gpu_reduce test_gpu_shape \
    test_gpu_threads test_gpu_prepare test_gpu_zero_copy \
    test_async_signature_runner test_opencl_backend; do
    [[ -x $BIN/$t ]] || continue
    ran=$((ran + 1))
    LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
      CMOCKA_MESSAGE_OUTPUT=stdout "$BIN/$t" 2>&1 |
      grep -E "PASSED|FAILED|ERROR|error:"
    ((PIPESTATUS[0] == 0)) || rc=1
  done
  echo "$ran unit test program(s) ran"
  return $rc
}

export BIN CORPUS ROOT CONF BENCH GPU_CHECK_BACKENDS GPU_CHECK_GRAPHS
export -f conformance devices cases graphs models benchmarks features unit_tests
step devices devices
step "conformance cases" cases
step "graphs" graphs
step "models" models
step "benchmarks" benchmarks
step "features" features
step "unit tests" unit_tests
printf '\ngpu_check: %d step(s) failed\n' "$failed"
exit "$failed"
