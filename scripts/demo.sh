#!/usr/bin/env bash
# The main job: set up, build the release preset, and run a model through
# litegpu's C API with tools/litegpu_run, which prints the outputs and timing.
#
#   bash scripts/demo.sh [MODEL.tflite [litegpu_run options...]]
#
# MODEL defaults to ../shared/models/tflite-micro/hello_world_float.tflite
# (a small float model whose output approximates sin(x)).
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
bash scripts/build.sh release --target litegpu_run

printf '\ndemo: litegpu_run %s %s\n' "$model" "$*"
exec "$BUILD_ROOT/release/litegpu_run" "$model" "$@"
