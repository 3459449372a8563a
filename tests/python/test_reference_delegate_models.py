"""The reference delegate on every model of the test corpus: outputs bit for
bit identical to CPU-only runs (both on one thread, same kernels), and where
the CPU cannot run a model, the delegated interpreter fails the same way.

The corpus: the float models in tests/shared/models, the converted models in
tests/models, and the models tools/make_test_model writes.
"""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR", REPO / "build" / "release"))
SHARED = Path(os.environ.get("LITEGPU_SHARED_DIR", REPO / "tests" / "shared"))

WRITTEN = ["add_const", "fc_relu", "two_subgraphs", "external_buffers"]


def corpus():
    models = [SHARED / "models" / "tflite-micro" / "hello_world_float.tflite"]
    models += sorted((REPO / "tests" / "models").glob("*.tflite"))
    return models


@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


def seeded_inputs(interp):
    rng = np.random.default_rng(11)
    arrays = []
    for i in range(interp.input_count):
        t = interp.input(i)
        if np.issubdtype(t.dtype, np.floating):
            arrays.append(rng.uniform(-1, 1, t.shape).astype(t.dtype))
        else:
            arrays.append(rng.integers(0, 4, t.shape).astype(t.dtype))
    return arrays


def run(lib, path, delegate):
    # Fallback on: a graph with dynamic tensors refuses this static-shape
    # delegate (TFLite's rule) and then runs without it.
    with lg.Model.from_file(lib, str(path)) as model:
        delegates = [delegate] if delegate else []
        with lg.Interpreter(lib, model, num_threads=1, delegates=delegates,
                            delegate_fallback=True) as interp:
            interp.allocate_tensors()
            for i, value in enumerate(seeded_inputs(interp)):
                interp.set_input(i, value)
            interp.invoke()
            return [interp.get_output(i) for i in range(interp.output_count)]


def compare(lib, path):
    delegate = lib.litegpu_reference_delegate_create(None)
    assert delegate
    try:
        try:
            cpu = run(lib, path, None)
        except lg.LiteGpuError as cpu_error:
            with pytest.raises(lg.LiteGpuError):
                run(lib, path, delegate)
            return str(cpu_error)
        delegated = run(lib, path, delegate)
        if "all_ops_dynamic" not in path.name:
            assert lib.litegpu_reference_delegate_num_partitions(delegate) >= 1
        assert len(cpu) == len(delegated)
        for a, b in zip(cpu, delegated):
            assert a.shape == b.shape and a.dtype == b.dtype
            assert a.tobytes() == b.tobytes(), f"{path.name}: outputs differ"
        return None
    finally:
        lib.litegpu_reference_delegate_delete(delegate)


@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.name)
def test_corpus_model(lib, path):
    compare(lib, path)


@pytest.mark.parametrize("name", WRITTEN)
def test_written_model(lib, tmp_path, name):
    out = tmp_path / f"{name}.tflite"
    proc = subprocess.run([str(BUILD_DIR / "make_test_model"), name, str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert compare(lib, out) is None, "litegpu must run its own test models"
