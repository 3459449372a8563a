#!/usr/bin/env bash
# Builds a seed corpus for the fuzz targets.
#
#   tests/fuzz/make_corpus.sh OUT_DIR [MODELS_DIR...]
#
# Copies every .tflite of at most 400 kB (the fuzzers' -max_len) under each
# MODELS_DIR (default: tests/shared/models, or $LITEGPU_SHARED_DIR/models)
# and tests/fuzz/seeds (sparse tensors, made by
# tests/python/test_densify.py's builder; NON_MAX_SUPPRESSION_V5 and
# TFLite_Detection_PostProcess with its FlexBuffers options, written by
# tests/python/ops/test_ops_detect.py; MediaPipe's three landmark ops with
# theirs, written by tests/python/test_mediapipe_ops.py) into OUT_DIR, plus
# damaged copies of each: two truncations and two copies with a few bytes
# overwritten. The damage is seeded, so the corpus is the same on every run.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUT_DIR [MODELS_DIR...]" >&2
  exit 2
fi
out=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=${LITEGPU_SHARED_DIR:-$here/../shared}
if [[ $# -eq 0 ]]; then
  set -- "$shared/models"
fi
for models in "$@"; do
  if [[ ! -d $models ]]; then
    echo "$0: no models folder at $models" >&2
    exit 1
  fi
done
mkdir -p "$out"

RANDOM=20240521  # seeds bash's generator: the same damage on every run

# A random number in [0, $1) from two 15-bit draws.
rand_below() {
  echo $(( (RANDOM * 32768 + RANDOM) % $1 ))
}

# Overwrites $2 random bytes of file $1 with random values.
flip_bytes() {
  local file=$1 count=$2 size pos byte
  size=$(stat -c %s "$file")
  for ((i = 0; i < count; ++i)); do
    pos=$(rand_below "$size")
    byte=$(printf '%02x' $((RANDOM % 256)))
    printf "\\x$byte" | dd of="$file" bs=1 seek="$pos" conv=notrunc \
      status=none
  done
}

n=0
while IFS= read -r -d '' model; do
  name=$(realpath --relative-to="$here/../.." "$model" | tr '/' '_')
  name=${name%.tflite}
  size=$(stat -c %s "$model")
  cat "$model" > "$out/$name.tflite"
  head -c $((size / 2)) "$model" > "$out/$name.trunc_half"
  head -c "$(rand_below "$size")" "$model" > "$out/$name.trunc_rand"
  for k in 1 2; do
    cat "$model" > "$out/$name.flip$k"
    flip_bytes "$out/$name.flip$k" $((k * 4))
  done
  n=$((n + 1))
done < <(find "$@" "$here/seeds" -name '*.tflite' -type f -size -401k \
  -print0 | sort -z)

echo "corpus: $n models, $(find "$out" -type f | wc -l) files in $out"
