#!/usr/bin/env bash
# The main job: set up, build the release preset, and compare the backends
# on a model with tools/benchmark_model --compare=cpu,cl,vk: one table with
# each backend's init (cold and warm kernel cache), first inference, steady
# latency, what the GPU delegate took, the bytes it copies per inference, the
# largest output difference from the CPU and the speed-up, alone and with
# the backends taking turns (paired). A backend that cannot run (no device)
# gets a row with its reason. The same comparison is drawn as a chart,
# build/demo/latency.svg (per-backend latency distributions and speed-ups;
# --plot=FILE.svg puts it elsewhere), whose path the demo prints last.
#
#   bash scripts/demo.sh [MODEL.tflite] [benchmark_model flags...]
#   bash scripts/demo.sh --help
#
# MODEL defaults to MediaPipe's short-range face detector from the model
# corpus (build/corpus/models/face_detection_short_range.tflite, fetched by
# scripts/setup.sh: a real third-party model with float16 weights that the
# GPU delegate runs whole). The run counts are modest so that the demo ends
# in well under a minute on a small machine (most of it is PoCL building
# the OpenCL kernels cold); flags given after MODEL come later on the
# command line and win (e.g. --num_runs=1000, --compare=cpu,cl,
# --report=json); flags alone run the default model. Setup and build
# messages go to stderr, so stdout holds only benchmark_model's report.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_ROOT=$(realpath -m "${LITEGPU_BUILD_ROOT:-build}")
CORPUS=${LITEGPU_CORPUS_DIR:-$ROOT/build/corpus}
DEFAULT_MODEL=$CORPUS/models/face_detection_short_range.tflite

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
  exit 0
fi
# A first argument that is a flag leaves the default model.
if (($# > 0)) && [[ $1 != -* ]]; then
  model=$(realpath -m -- "$1")
  shift
else
  model=$DEFAULT_MODEL
fi
bash scripts/setup.sh >&2 # fetches the corpus, the default model among it
if [[ ! -f $model ]]; then
  printf 'demo: model not found: %s\n' "$model" >&2
  exit 1
fi

bash scripts/build.sh release --target benchmark_model >&2

chart=$BUILD_ROOT/demo/latency.svg
for arg in "$@"; do
  [[ $arg == --plot=* ]] && chart=${arg#--plot=}
done
mkdir -p "$BUILD_ROOT/demo"
flags=(--graph="$model" "--compare=cpu,cl,vk" --warmup_runs=10
       --warmup_min_secs=0.1 --num_runs=100 --min_secs=0.5
       --plot="$BUILD_ROOT/demo/latency.svg")
printf '\ndemo: benchmark_model %s %s\n' "${flags[*]}" "$*" >&2
"$BUILD_ROOT/release/benchmark_model" "${flags[@]}" "$@"
printf '\ndemo: the latency chart (open it in a browser): %s\n' "$chart" >&2
