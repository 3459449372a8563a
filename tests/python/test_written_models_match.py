"""Models written by litegpu's model writer give the same outputs in litegpu
and in LiteRT.

tools/make_test_model writes each model; LiteRT (ai-edge-litert) and litegpu
(through its C API, see python/litegpu/capi.py) run it on the same seeded inputs,
and the outputs must agree within 1e-5 relative + 1e-6 absolute. The
expected values come from LiteRT, never from litegpu.
"""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg

try:
    from ai_edge_litert.interpreter import Interpreter
except ImportError:  # setup.sh may install tflite-runtime instead
    from tflite_runtime.interpreter import Interpreter

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR", REPO / "build" / "release"))

# Models whose every op litegpu has a kernel for today.
RUNNABLE = [
    ("add_const", []),
    ("fc_relu", []),
    ("big_weights", ["4000000"]),
    ("two_subgraphs", []),
    ("external_buffers", []),
]


def write_model(tmp_path, name, extra):
    tool = BUILD_DIR / "make_test_model"
    assert tool.is_file(), f"{tool} is missing: build the project first"
    out = tmp_path / f"{name}.tflite"
    proc = subprocess.run([str(tool), name, str(out), *extra],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def litert_outputs(path, inputs):
    interp = Interpreter(model_path=str(path))
    interp.allocate_tensors()
    for detail, value in zip(interp.get_input_details(), inputs):
        interp.set_tensor(detail["index"], value)
    interp.invoke()
    return [interp.get_tensor(d["index"]) for d in interp.get_output_details()]


def litegpu_outputs(lib, path, inputs, num_threads):
    with lg.Model.from_file(lib, str(path)) as model, \
            lg.Interpreter(lib, model, num_threads=num_threads) as interp:
        interp.allocate_tensors()
        for i, value in enumerate(inputs):
            interp.set_input(i, value)
        interp.invoke()
        return [interp.get_output(i) for i in range(interp.output_count)]


def input_arrays(path, rng):
    """Multiples of 1/8 in [-3, 3]: with the writer's weights (also multiples
    of 1/8) every partial sum is exact in float32, so the summation order of
    a kernel cannot change the result and any difference is a real error."""
    interp = Interpreter(model_path=str(path))
    return [(rng.integers(-24, 25, size=d["shape"]) / 8).astype(d["dtype"])
            for d in interp.get_input_details()]


@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


@pytest.mark.parametrize("name,extra", RUNNABLE, ids=[m[0] for m in RUNNABLE])
@pytest.mark.parametrize("num_threads", [1, 2])
def test_same_outputs_as_litert(lib, tmp_path, name, extra, num_threads):
    path = write_model(tmp_path, name, extra)
    rng = np.random.default_rng(2024)
    for trial in range(5):
        inputs = input_arrays(path, rng)
        expected = litert_outputs(path, inputs)
        actual = litegpu_outputs(lib, path, inputs, num_threads)
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name} trial {trial}")


def test_atan_model_is_unresolved_in_both(lib, tmp_path):
    path = write_model(tmp_path, "add_atan", [])
    with pytest.raises(Exception, match="Encountered unresolved custom op: Atan"):
        interp = Interpreter(model_path=str(path))
        interp.allocate_tensors()
    # Both create the interpreter around a placeholder (a delegate could
    # claim the op) and refuse it at AllocateTensors.
    with lg.Model.from_file(lib, str(path)) as model, \
            lg.Interpreter(lib, model) as interp:
        with pytest.raises(lg.LiteGpuError,
                           match=r"Encountered unresolved custom op: Atan\."):
            interp.allocate_tensors()
