"""hello_world_float.tflite (three FULLY_CONNECTED layers, y ~ sin x) in
litegpu against LiteRT, both LiteRT's default kernels (XNNPACK) and its
reference kernels (BUILTIN_REF).

Inputs: 1,000 points spread over [0, 2*pi] plus the edge values 0, 2*pi, -1
and 100. Run one at a time at the model's own shape [1, 1], and as one batch
after resizing the input to [1004, 1] (single- and multi-threaded).
Tolerance: 1e-5 relative + 1e-6 absolute.

The model comes from LITEGPU_SHARED_DIR (default: tests/shared) under
models/tflite-micro/; the library from LITEGPU_BUILD_DIR
(see litegpu.capi).
"""

import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402

try:
    from ai_edge_litert import interpreter as litert
except ImportError:  # the fallback package setup.sh may install instead
    litert = pytest.importorskip("tflite_runtime.interpreter")

RTOL = 1e-5
ATOL = 1e-6


def shared_dir():
    env = os.environ.get("LITEGPU_SHARED_DIR")
    if env:
        return Path(env)
    return lg.REPO_ROOT / "tests" / "shared"


MODEL_PATH = (shared_dir() / "models" / "tflite-micro"
              / "hello_world_float.tflite")


def inputs():
    spread = np.linspace(0.0, 2.0 * math.pi, 1000, dtype=np.float64)
    edges = np.array([0.0, 2.0 * math.pi, -1.0, 100.0])
    return np.concatenate([spread, edges]).astype(np.float32)


@pytest.fixture(scope="module")
def model_path():
    assert MODEL_PATH.is_file(), f"{MODEL_PATH} is missing"
    return MODEL_PATH


@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


def litert_resolvers():
    """LiteRT's default resolver and its reference kernels."""
    resolvers = [("default", None)]
    op_resolver_type = getattr(litert, "OpResolverType", None)
    if op_resolver_type is not None:
        resolvers.append(("builtin_ref", op_resolver_type.BUILTIN_REF))
    return resolvers


def run_litert(model_path, xs, resolver, batched):
    kwargs = {"model_path": str(model_path)}
    if resolver is not None:
        kwargs["experimental_op_resolver_type"] = resolver
    interp = litert.Interpreter(**kwargs)
    index = interp.get_input_details()[0]["index"]
    out_index = interp.get_output_details()[0]["index"]
    if batched:
        interp.resize_tensor_input(index, [len(xs), 1])
        interp.allocate_tensors()
        interp.set_tensor(index, xs.reshape(-1, 1))
        interp.invoke()
        return interp.get_tensor(out_index).reshape(-1).copy()
    interp.allocate_tensors()
    ys = np.empty_like(xs)
    for i, x in enumerate(xs):
        interp.set_tensor(index, np.array([[x]], dtype=np.float32))
        interp.invoke()
        ys[i] = interp.get_tensor(out_index)[0, 0]
    return ys


def run_litegpu(lib, model_path, xs, batched, num_threads=None):
    with lg.Model.from_file(lib, model_path) as model, \
            lg.Interpreter(lib, model, num_threads=num_threads) as interp:
        assert interp.input_count == 1
        assert interp.output_count == 1
        if batched:
            interp.resize_input(0, [len(xs), 1])
            interp.allocate_tensors()
            assert interp.input(0).shape == (len(xs), 1)
            interp.set_input(0, xs.reshape(-1, 1))
            interp.invoke()
            out = interp.get_output(0)
            assert out.shape == (len(xs), 1)
            return out.reshape(-1)
        interp.allocate_tensors()
        assert interp.input(0).shape == (1, 1)
        assert interp.input(0).type_name == "FLOAT32"
        ys = np.empty_like(xs)
        for i, x in enumerate(xs):
            interp.set_input(0, np.array([[x]], dtype=np.float32))
            interp.invoke()
            ys[i] = interp.get_output(0)[0, 0]
        return ys


@pytest.fixture(scope="module")
def references(model_path):
    xs = inputs()
    return {
        (name, batched): run_litert(model_path, xs, resolver, batched)
        for name, resolver in litert_resolvers()
        for batched in (False, True)
    }


def compare(got, want, label):
    xs = inputs()
    bad = ~np.isclose(got, want, rtol=RTOL, atol=ATOL)
    if bad.any():
        i = int(np.argmax(bad))
        pytest.fail(
            f"{label}: {int(bad.sum())} of {len(xs)} outputs differ; first at "
            f"x={xs[i]!r}: litegpu {got[i]!r}, LiteRT {want[i]!r}")


@pytest.mark.parametrize("resolver", [name for name, _ in litert_resolvers()])
def test_single_inputs_match_litert(lib, model_path, references, resolver):
    got = run_litegpu(lib, model_path, inputs(), batched=False)
    compare(got, references[(resolver, False)],
            f"one input at a time vs LiteRT {resolver}")


@pytest.mark.parametrize("num_threads", [1, 2, 4])
@pytest.mark.parametrize("resolver", [name for name, _ in litert_resolvers()])
def test_batch_matches_litert(lib, model_path, references, resolver,
                              num_threads):
    got = run_litegpu(lib, model_path, inputs(), batched=True,
                      num_threads=num_threads)
    compare(got, references[(resolver, True)],
            f"batch of {len(inputs())}, {num_threads} threads, vs LiteRT "
            f"{resolver}")


def test_model_from_bytes(lib, model_path, references):
    xs = inputs()[:16]
    data = model_path.read_bytes()
    with lg.Model.from_bytes(lib, data) as model, \
            lg.Interpreter(lib, model) as interp:
        interp.resize_input(0, [len(xs), 1])
        interp.allocate_tensors()
        interp.set_input(0, xs.reshape(-1, 1))
        interp.invoke()
        got = interp.get_output(0).reshape(-1)
    want = references[("default", True)][:16]
    assert np.allclose(got, want, rtol=RTOL, atol=ATOL)


def test_sanity_of_the_model(references):
    """The reference itself approximates sin on [0, 2*pi] (guards against
    comparing two wrong answers)."""
    xs = inputs()[:1000]
    for (name, batched), ys in references.items():
        error = np.max(np.abs(ys[:1000] - np.sin(xs)))
        assert error < 0.25, f"LiteRT {name} (batched={batched}): {error}"


def test_bad_model_bytes_report_an_error(lib):
    with pytest.raises(lg.LiteGpuError) as info:
        lg.Model.from_bytes(lib, b"not a flatbuffer at all, clearly")
    assert info.value.messages, "the error reporter received no message"
