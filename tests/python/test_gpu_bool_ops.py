"""The GPU delegate's ops that read or write BOOL tensors, against LiteRT.

The comparisons write a BOOL tensor, LOGICAL_AND reads and writes them,
SELECT_V2 reads one: on the device a bool is one byte per element, as on
the CPU, so a bool graph input or output crosses the partition's boundary
as it is. One-op models (written by tools/model_builder through the op
harness) run in LiteRT's reference kernels (the expected values) and in
litegpu with the GPU delegate on OpenCL and on Vulkan; each must be
claimed and give LiteRT's outputs exactly (bools, and floats that the
kernels copy or compute exactly). FLOOR_MOD rides along: its remainder
is computed as the CPU's (fma), so float32 results match LiteRT's within
one rounding, and ONE_HOT, whose int32 indices are another non-float
graph input.

The conformance suite (tests/conformance/cases_binary.c) runs these ops
over more shapes and in float16, against litegpu's CPU kernels.
"""

import tempfile
from pathlib import Path

import numpy as np
import pytest

import op_harness as h
from litegpu import capi as lg

BACKENDS = ["cl", "vk"]


def gpu_run(model_path, inputs, backend):
    """Outputs and the delegate's decisions, one thread."""
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model_path)) as model, \
            lg.GpuDelegate(lib, backend) as delegate, \
            lg.Interpreter(lib, model, num_threads=1,
                           delegates=[delegate.pointer]) as interp:
        interp.allocate_tensors()
        for i, array in enumerate(inputs):
            interp.set_input(i, array)
        interp.invoke()
        outputs = [interp.get_output(i).copy()
                   for i in range(interp.output_count)]
        return outputs, delegate.decisions()


@pytest.fixture(scope="module")
def tmp_root():
    with tempfile.TemporaryDirectory(prefix="litegpu_gpu_bool_") as d:
        yield Path(d)


def check(tmp_root, name, case, backend, rtol=0.0, refused=None):
    case_dir = tmp_root / f"{name}_{backend}"
    case_dir.mkdir()
    _, inputs = h.write_spec(case, case_dir)
    model = case_dir / "model.tflite"
    h.build_model(case_dir / "case.spec", model)
    want = h.run_litert(model, inputs)
    try:
        got, decisions = gpu_run(model, inputs, backend)
    except lg.LiteGpuError as e:
        pytest.skip(f"no {backend} device: {e}")
    if refused is None:
        assert decisions == {0: ""}, decisions
    else:  # the node stays on the CPU, with the reason
        assert refused in decisions[0], decisions
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype == np.bool_:
            # The stored bytes, not just their truth: a kernel writing 2
            # for true would show here.
            assert np.array_equal(g.view(np.uint8), w.view(np.uint8))
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=0)
    return got


RNG = np.random.default_rng(21)
# Integers in [-3, 3]: ties for EQUAL, LESS_EQUAL and GREATER_EQUAL.
A = RNG.integers(-3, 4, size=(2, 5, 5, 7)).astype(np.float32)
B = RNG.integers(-3, 4, size=(2, 5, 5, 7)).astype(np.float32)
ROW = RNG.integers(-3, 4, size=(7,)).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["LESS", "LESS_EQUAL", "GREATER",
                                "GREATER_EQUAL", "EQUAL", "NOT_EQUAL"])
def test_comparison_writes_a_bool_output(tmp_root, op, backend):
    case = h.OpCase(op, inputs=[h.Input(A), h.Input(B)], outputs=[np.bool_])
    out = check(tmp_root, op.lower(), case, backend)[0]
    assert 0 < out.sum() < out.size  # both answers occur


@pytest.mark.parametrize("backend", BACKENDS)
def test_comparison_with_a_broadcast_constant(tmp_root, backend):
    case = h.OpCase("GREATER_EQUAL", inputs=[h.Input(A), h.Const(ROW)],
                    outputs=[np.bool_])
    check(tmp_root, "greater_equal_const", case, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_logical_and_reads_and_writes_bools(tmp_root, backend):
    x = RNG.integers(0, 2, size=(1, 4, 1, 3)).astype(np.bool_)
    y = RNG.integers(0, 2, size=(1, 1, 5, 3)).astype(np.bool_)
    case = h.OpCase("LOGICAL_AND", inputs=[h.Input(x), h.Input(y)],
                    outputs=[np.bool_], output_shapes=[(1, 4, 5, 3)])
    check(tmp_root, "logical_and", case, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_v2_reads_a_bool_input(tmp_root, backend):
    cond = RNG.integers(0, 2, size=(2, 1, 1, 7)).astype(np.bool_)
    x = RNG.uniform(-2, 2, size=(2, 5, 5, 7)).astype(np.float32)
    y = np.float32([0.5])
    case = h.OpCase("SELECT_V2", inputs=[h.Input(cond), h.Input(x),
                                         h.Const(y)],
                    output_shapes=[(2, 5, 5, 7)])
    check(tmp_root, "select_v2", case, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_floor_mod_and_floor_div(tmp_root, backend):
    x = RNG.uniform(-8, 8, size=(1, 6, 6, 5)).astype(np.float32)
    y = np.float32([0.75, -1.5, 2.0, -0.5, 1.25])
    for op in ("FLOOR_MOD", "FLOOR_DIV"):
        case = h.OpCase(op, version=2 if op == "FLOOR_DIV" else 1,
                        inputs=[h.Input(x), h.Const(y)])
        check(tmp_root, op.lower(), case, backend, rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_rank1_condition_stays_on_the_cpu(tmp_root, backend):
    """SELECT v1's rank-1 condition picks whole rows along dim 0, not a
    NumPy broadcast: the lowering refuses it and the CPU runs it."""
    cond = np.array([True, False])
    x = RNG.uniform(-2, 2, size=(2, 3, 4)).astype(np.float32)
    y = RNG.uniform(-2, 2, size=(2, 3, 4)).astype(np.float32)
    case = h.OpCase("SELECT", inputs=[h.Input(cond), h.Input(x), h.Input(y)])
    check(tmp_root, "select_rank1", case, backend,
          refused="SELECT with a rank-1 condition")


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_hot_reads_int32_indices(tmp_root, backend):
    """ONE_HOT's runtime int32 indices cross the boundary as they are; -1
    and depth are outside [0, depth) and give rows of off_value."""
    idx = RNG.integers(-1, 6, size=(1, 1, 9)).astype(np.int32)
    case = h.OpCase("ONE_HOT", inputs=[h.Input(idx), h.Const(np.int32(5)),
                                       h.Const(np.float32(2.5)),
                                       h.Const(np.float32(-1.0))],
                    params={"axis": -1}, output_shapes=[(1, 1, 9, 5)])
    check(tmp_root, "one_hot", case, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cast_float_to_bool_and_back(tmp_root, backend):
    """CAST float32 -> bool runs on the GPU (x != 0, one byte per element);
    bool -> float32 runs there only after a comparison that this CAST
    alone reads (TFLite's rule), so from a bool graph input it stays on the
    CPU with TFLite's reason."""
    x = RNG.integers(-2, 3, size=(2, 5, 5, 7)).astype(np.float32)
    to_bool = h.OpCase("CAST", inputs=[h.Input(x)], outputs=[np.bool_],
                       params={"in_data_type": np.float32,
                               "out_data_type": np.bool_})
    check(tmp_root, "cast_to_bool", to_bool, backend)
    b = RNG.integers(0, 2, size=(2, 5, 5, 7)).astype(np.bool_)
    from_bool = h.OpCase("CAST", inputs=[h.Input(b)], outputs=[np.float32],
                         params={"in_data_type": np.bool_,
                                 "out_data_type": np.float32})
    check(tmp_root, "cast_from_bool", from_bool, backend,
          refused="Not supported cast case")
