#!/usr/bin/env bash
# The main job: set up, build the release preset, and compare the backends
# on a model with tools/benchmark_model --compare=cpu,cl,vk: one table with
# each backend's init (cold and warm kernel cache), first inference, steady
# latency, what the GPU delegate took, the bytes it copies per inference, the
# largest output difference from the CPU and the speed-up, alone and with
# the backends taking turns (paired). A backend that cannot run (no device)
# gets a row with its reason.
#
#   bash scripts/demo.sh [MODEL.tflite [benchmark_model flags...]]
#
# MODEL defaults to ../shared/models/tflite-micro/hello_world_float.tflite
# (a small float model whose output approximates sin(x)). The run counts are
# modest so that the demo ends in seconds on a small machine; flags given
# after MODEL come later on the command line and win (e.g. --num_runs=1000,
# --compare=cpu,cl, --report=json).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_ROOT=$(realpath -m "${LITEGPU_BUILD_ROOT:-build}")
DEFAULT_MODEL=$ROOT/../shared/models/tflite-micro/hello_world_float.tflite

model=$(realpath -m "${1:-$DEFAULT_MODEL}")
(($# > 0)) && shift
if [[ ! -f $model ]]; then
  printf 'demo: model not found: %s\n' "$model" >&2
  [[ $model == "$(realpath -m "$DEFAULT_MODEL")" ]] &&
    printf 'demo: the shared/ folder is expected beside the checkout\n' >&2
  exit 1
fi

bash scripts/setup.sh
bash scripts/build.sh release --target benchmark_model

flags=(--graph="$model" "--compare=cpu,cl,vk" --warmup_runs=10
       --warmup_min_secs=0.1 --num_runs=100 --min_secs=0.5)
printf '\ndemo: benchmark_model %s %s\n' "${flags[*]}" "$*"
exec "$BUILD_ROOT/release/benchmark_model" "${flags[@]}" "$@"
