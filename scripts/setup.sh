#!/usr/bin/env bash
# Installs everything litegpu needs on Debian 12 (bookworm): the toolchain,
# cmocka, OpenCL (ICD loader + PoCL), Vulkan (loader + lavapipe + layers,
# glslc) and a Python virtual environment with LiteRT for the model tests.
#
# Idempotent: when everything is present it touches no network and finishes
# in well under a second. Safe to run as often as you like; scripts/test.sh
# and scripts/demo.sh run it first.
#
#   bash scripts/setup.sh
#
# Then it fetches the real-model corpus (tests/corpus/corpus.json: the
# .tflite files of a pinned PyPI wheel, checked by sha256) into
# build/corpus with tools/corpus/fetch.py.
#
# Environment:
#   LITEGPU_VENV        where the virtual environment lives (default
#                       build/venv)
#   LITEGPU_CORPUS_DIR  where the corpus goes (default build/corpus)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

VENV=${LITEGPU_VENV:-$ROOT/build/venv}
CORPUS=${LITEGPU_CORPUS_DIR:-$ROOT/build/corpus}
REQUIREMENTS=$ROOT/tests/python/requirements.txt
STAMP=$VENV/.litegpu-requirements.sha256

# Used only when no ai-edge-litert wheel fits this Python: the older
# tflite-runtime package offers the same Interpreter API. It was built against
# NumPy 1.x, so NumPy is held below 2 here.
LITEGPU_FALLBACK_REQUIREMENTS=(tflite-runtime==2.14.0 numpy==1.26.4
                               pytest==9.2.0)

APT_PACKAGES=(
  build-essential cmake pkg-config libcmocka-dev
  # clang for the fuzzers; libFuzzer's runtime is in libclang-rt-14-dev,
  # which clang itself does not pull in on bookworm.
  clang libclang-rt-14-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  glslc spirv-tools
  python3 python3-venv
)

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# ---- System packages -------------------------------------------------------

missing_packages() {
  local pkg status
  for pkg in "${APT_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || printf '%s\n' "$pkg"
  done
}

install_packages() {
  local -a missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]} == 0)); then
    log "system packages: all ${#APT_PACKAGES[@]} present"
    return
  fi
  command -v apt-get >/dev/null || die "apt-get not found; this script targets Debian 12"
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || die "need root (or sudo) to install: ${missing[*]}"
    sudo=(sudo)
  fi
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 "${missing[@]}" >/dev/null
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) || die "still missing after apt-get install: ${missing[*]}"
}

# libFuzzer must be linkable for the fuzz targets (clang -fsanitize=fuzzer).
check_libfuzzer() {
  local resource lib
  resource=$(clang -print-resource-dir 2>/dev/null) || die "clang does not run"
  lib=$resource/lib/linux/libclang_rt.fuzzer-$(uname -m).a
  [[ -f $lib ]] || die "libFuzzer runtime not found at $lib (libclang-rt-14-dev)"
}

# ---- Python virtual environment ---------------------------------------------

venv_works() {
  [[ -x $VENV/bin/python ]] &&
    "$VENV/bin/python" -c 'import sys, pip' >/dev/null 2>&1
}

create_venv() {
  local py
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  # The first python3 on PATH (pyenv's, if any); Debian's if that fails.
  for py in python3 /usr/bin/python3; do
    command -v "$py" >/dev/null || continue
    log "creating virtual environment ${VENV#"$ROOT"/} with $py ($("$py" --version 2>&1 || true))"
    if "$py" -m venv "$VENV" >/dev/null 2>&1 && venv_works; then
      return
    fi
    log "$py -m venv failed; trying the next interpreter"
    rm -rf "$VENV"
  done
  die "could not create a virtual environment at $VENV"
}

pip_install() {
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
    "$VENV/bin/python" -m pip install -q "$@"
}

install_python_packages() {
  local want have
  want=$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)
  have=$(cat "$STAMP" 2>/dev/null || true)
  if [[ $want == "$have" ]] &&
     "$VENV/bin/python" -c 'import numpy, pytest' >/dev/null 2>&1; then
    log "python venv: up to date (${VENV#"$ROOT"/})"
    return
  fi
  rm -f "$STAMP"
  log "installing python packages from ${REQUIREMENTS#"$ROOT"/}"
  if ! pip_install -r "$REQUIREMENTS"; then
    log "ai-edge-litert does not install here; falling back to ${LITEGPU_FALLBACK_REQUIREMENTS[*]}"
    pip_install "${LITEGPU_FALLBACK_REQUIREMENTS[@]}" ||
      die "pip could not install the python packages"
  fi
  "$VENV/bin/python" -c 'import numpy, pytest' ||
    die "numpy/pytest do not import in $VENV"
  "$VENV/bin/python" -c 'import ai_edge_litert.interpreter' 2>/dev/null ||
    "$VENV/bin/python" -c 'import tflite_runtime.interpreter' ||
    die "neither ai_edge_litert nor tflite_runtime imports in $VENV"
  printf '%s\n' "$want" >"$STAMP"
}

fetch_corpus() {
  "$VENV/bin/python" "$ROOT/tools/corpus/fetch.py" --dest "$CORPUS" ||
    die "the model corpus could not be fetched (tools/corpus/fetch.py)"
}

install_packages
check_libfuzzer
venv_works || create_venv
install_python_packages
fetch_corpus
