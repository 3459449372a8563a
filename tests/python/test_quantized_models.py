"""Quantized models end to end in litegpu against LiteRT, bit for bit.

hello_world_int8.tflite (tflite-micro: three INT8 FULLY_CONNECTED layers,
version 4, int32 biases, RELU on the first two) runs for every one of the
256 int8 inputs, one at a time at the model's shape [1, 1] and as one batch
of 256 after resizing, single- and multi-threaded; every output must equal
LiteRT's, with its reference kernels (BUILTIN_REF) and with its default
ones (AUTO: XNNPACK), which agree. (LiteRT's optimized builtin kernels
without XNNPACK, BUILTIN_WITHOUT_DEFAULT_DELEGATES, round the output
rescale twice through a fixed-point multiplier and differ on 21 of the 256
inputs; litegpu follows the reference.) The INT8 FULLY_CONNECTED cases below cover what the model does not:
per-channel weights, non-zero weight zero points, RELU6 and RELU_N1_TO_1,
no bias, batches.

The model comes from LITEGPU_SHARED_DIR (default: tests/shared) under
models/tflite-micro/; the library from LITEGPU_BUILD_DIR.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import litegpu_ctypes as lg  # noqa: E402
from op_harness import (Const, Input, OpCase, Output,  # noqa: E402
                        check_case)

try:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
except ImportError:  # the fallback package setup.sh may install instead
    from tflite_runtime.interpreter import Interpreter, OpResolverType


def shared_dir():
    env = os.environ.get("LITEGPU_SHARED_DIR")
    return Path(env) if env else lg.REPO_ROOT / "tests" / "shared"


HELLO_INT8 = shared_dir() / "models" / "tflite-micro" / "hello_world_int8.tflite"
ALL_INT8 = np.arange(-128, 128, dtype=np.int8)


def litert_outputs(resolver, batch):
    interp = Interpreter(model_path=str(HELLO_INT8),
                         experimental_op_resolver_type=resolver)
    index = interp.get_input_details()[0]["index"]
    out_index = interp.get_output_details()[0]["index"]
    if batch:
        interp.resize_tensor_input(index, [256, 1])
        interp.allocate_tensors()
        interp.set_tensor(index, ALL_INT8.reshape(256, 1))
        interp.invoke()
        return interp.get_tensor(out_index).reshape(-1)
    interp.allocate_tensors()
    outs = []
    for v in ALL_INT8:
        interp.set_tensor(index, np.array([[v]], np.int8))
        interp.invoke()
        outs.append(interp.get_tensor(out_index).reshape(-1)[0])
    return np.array(outs, np.int8)


def litegpu_outputs(threads, batch):
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(HELLO_INT8)) as model, \
            lg.Interpreter(lib, model, num_threads=threads) as interp:
        if batch:
            interp.resize_input(0, [256, 1])
            interp.allocate_tensors()
            interp.input(0).copy_from(ALL_INT8.reshape(256, 1))
            interp.invoke()
            return interp.output(0).to_numpy().reshape(-1)
        interp.allocate_tensors()
        outs = []
        for v in ALL_INT8:
            interp.input(0).copy_from(np.array([[v]], np.int8))
            interp.invoke()
            outs.append(interp.output(0).to_numpy().reshape(-1)[0])
        return np.array(outs, np.int8)


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_hello_world_int8_bit_exact(threads, batch):
    assert HELLO_INT8.is_file(), f"{HELLO_INT8} is missing"
    got = litegpu_outputs(threads, batch)
    for resolver in (OpResolverType.BUILTIN_REF, OpResolverType.AUTO):
        want = litert_outputs(resolver, batch)
        assert got.dtype == np.int8 and want.dtype == np.int8
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, (
            f"{bad.size} of 256 outputs differ from LiteRT ({resolver}); "
            f"first at input {ALL_INT8[bad[0]]}: got {got[bad[0]]}, "
            f"want {want[bad[0]]}")
    # The model's outputs are not one constant (the test can fail).
    assert len(set(got.tolist())) > 10


def int8_fc_case(rng, batch, depth, units, weights_q, act, bias=True,
                 in_q=(0.05, -3), out_q=(0.11, 5)):
    x = rng.integers(-128, 128, (batch, depth), dtype=np.int8)
    w = rng.integers(-127, 128, (units, depth), dtype=np.int8)
    inputs = [Input(x, quant=in_q), Const(w, quant=weights_q)]
    if bias:
        b = rng.integers(-3000, 3000, units, dtype=np.int32)
        w_scales = weights_q[0] if isinstance(weights_q[0], list) else \
            [weights_q[0]] * units
        inputs.append(Const(b, quant=([in_q[0] * s for s in w_scales],
                                      [0] * units, 0)
                            if isinstance(weights_q[0], list)
                            else (in_q[0] * weights_q[0], 0)))
    return OpCase(op="FULLY_CONNECTED", version=4 if bias else 6,
                  inputs=inputs,
                  params={"fused_activation_function": act},
                  outputs=[Output(np.int8, quant=out_q)],
                  rtol=0.0, atol=0.0)


@pytest.mark.parametrize("act", ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])
def test_int8_fully_connected_per_tensor(act):
    rng = np.random.default_rng(801)
    check_case(int8_fc_case(rng, 3, 37, 11, (0.02, 0), act))


def test_int8_fully_connected_weight_zero_point_and_no_bias():
    rng = np.random.default_rng(802)
    check_case(int8_fc_case(rng, 4, 16, 9, (0.03, 0), "NONE", bias=False))


def test_int8_fully_connected_per_channel():
    rng = np.random.default_rng(803)
    units = 7
    scales = rng.uniform(0.005, 0.05, units).astype(np.float32).tolist()
    check_case(int8_fc_case(rng, 2, 24, units, (scales, [0] * units, 0),
                            "RELU"))


def test_int8_fully_connected_large_multiplier():
    """input * weights scale above the output scale: a left shift."""
    rng = np.random.default_rng(804)
    check_case(int8_fc_case(rng, 5, 8, 6, (0.5, 0), "NONE",
                            in_q=(0.5, 10), out_q=(0.01, -7)))
