"""LSTM on the GPU delegate, against LiteRT, across Invokes.

One-op LSTM models (the full kernel, one batch row, state in variable
tensors; peephole, projection and clips, and CIFG with layer
normalization) run in LiteRT's reference kernels (the expected values) and in
litegpu with the GPU delegate on OpenCL and on Vulkan through three
Invokes, a reset of the variable tensors and a fourth Invoke on the first
input: the node must be claimed, every Invoke's output must match
LiteRT's (the state carried on the GPU and synced with the interpreter's
variable tensors), and the fourth must equal the first. A hybrid LSTM
(INT8 weights) must match LiteRT's float LSTM over its dequantized weights,
and the BASIC kernel type (version 2) all four of LiteRT's outputs.

The conformance suite (tests/conformance/cases_conv.c) runs more forms in
float32 and float16 against litegpu's CPU kernel.
"""

import tempfile
from pathlib import Path

import numpy as np
import pytest

import op_harness as h
from litegpu import capi as lg

BACKENDS = ["cl", "vk"]
RTOL = 1e-5
ATOL = 1e-5


def gpu_steps(model_path, steps, backend):
    """Outputs per Invoke (h.RESET resets the variables) and decisions."""
    lib = lg.load_library()
    results = []
    with lg.Model.from_file(lib, str(model_path)) as model, \
            lg.GpuDelegate(lib, backend) as delegate, \
            lg.Interpreter(lib, model, num_threads=1,
                           delegates=[delegate.pointer]) as interp:
        interp.allocate_tensors()
        for step in steps:
            if isinstance(step, str) and step == h.RESET:
                interp.reset_variable_tensors()
                continue
            for i, array in enumerate(step):
                interp.set_input(i, array)
            interp.invoke()
            results.append([interp.get_output(i).copy()
                            for i in range(interp.output_count)])
        return results, delegate.decisions()


@pytest.fixture(scope="module")
def tmp_root():
    with tempfile.TemporaryDirectory(prefix="litegpu_gpu_lstm_") as d:
        yield Path(d)


def build(tmp_root, name, case):
    case_dir = tmp_root / name
    case_dir.mkdir()
    h.write_spec(case, case_dir)
    model = case_dir / "model.tflite"
    h.build_model(case_dir / "case.spec", model)
    return model


def check_state_across_invokes(model, rng, input_shape, backend):
    """Three Invokes on random inputs, a reset of the variables and the
    first input again, in LiteRT and on the GPU: the node claimed, every
    output of every Invoke matching, the state moving the second Invoke's
    first output and the reset giving the first one back."""
    feeds = [[(rng.standard_normal(input_shape) * 2).astype(np.float32)]
             for _ in range(3)]
    steps = feeds + [h.RESET, feeds[0]]
    want = h._run_steps_litert(model, steps, "BUILTIN_REF")
    try:
        got, decisions = gpu_steps(model, steps, backend)
    except lg.LiteGpuError as e:
        pytest.skip(f"no {backend} device: {e}")
    assert decisions == {0: ""}, decisions
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)
    assert not np.allclose(got[1][0], got[0][0])  # the state moved it
    np.testing.assert_array_equal(got[3][0], got[0][0])


def lstm_inputs(rng, n_input, n_cell, n_output, cifg, peephole,
                projection, layer_norm):
    """The 20 (24 with layer normalization) inputs of TFLite's LSTM (None:
    omitted)."""
    def w(*shape, scale=0.5):
        return h.Const(rng.uniform(-scale, scale, shape).astype(np.float32))
    ins = [h.Input(np.zeros((1, n_input), np.float32))] + [None] * 23
    for g in range(4):
        if cifg and g == 0:
            continue
        ins[1 + g] = w(n_cell, n_input)
        ins[5 + g] = w(n_cell, n_output)
        ins[12 + g] = w(n_cell, scale=0.2)
    for g in range(3):
        if peephole and not (cifg and g == 0):
            ins[9 + g] = w(n_cell)
    if projection:
        ins[16] = w(n_output, n_cell)
        ins[17] = w(n_output, scale=0.2)
    ins[18] = h.Variable(np.zeros((1, n_output), np.float32))
    ins[19] = h.Variable(np.zeros((1, n_cell), np.float32))
    if not layer_norm:
        return ins[:20]
    for g in range(4):
        if not (cifg and g == 0):
            ins[20 + g] = h.Const(
                rng.uniform(0.5, 1.5, n_cell).astype(np.float32))
    return ins


VARIANTS = {
    "peephole_projection_clips": dict(n_cell=6, n_output=3, cifg=False,
                                      peephole=True, projection=True,
                                      layer_norm=False, cell_clip=0.5,
                                      proj_clip=0.2),
    "cifg_layer_norm": dict(n_cell=5, n_output=5, cifg=True, peephole=False,
                            projection=False, layer_norm=True,
                            cell_clip=0.0, proj_clip=0.0),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_lstm_state_across_invokes(tmp_root, variant, backend):
    v = VARIANTS[variant]
    rng = np.random.default_rng(len(variant))
    n_input = 4
    ins = lstm_inputs(rng, n_input, v["n_cell"], v["n_output"], v["cifg"],
                      v["peephole"], v["projection"], v["layer_norm"])
    case = h.OpCase("LSTM", inputs=ins,
                    params={"fused_activation_function": "TANH",
                            "cell_clip": v["cell_clip"],
                            "proj_clip": v["proj_clip"]},
                    output_shapes=[(1, v["n_output"])])
    model = build(tmp_root, f"{variant}_{backend}", case)
    check_state_across_invokes(model, rng, (1, n_input), backend)



@pytest.mark.parametrize("backend", BACKENDS)
def test_hybrid_lstm_runs_dequantized(tmp_root, backend):
    """A hybrid LSTM (INT8 weights of one scale, version 3) is claimed and
    computed in float over the dequantized weights, as TFLite's GPU
    delegate computes it: every Invoke matches LiteRT's float LSTM over
    those weights, and LiteRT's hybrid kernel (which quantizes the input
    and state too) within its quantization error."""
    rng = np.random.default_rng(3)
    n_input, n_cell, scale = 4, 5, 0.5 / 127
    hybrid = lstm_inputs(rng, n_input, n_cell, n_cell, cifg=False,
                         peephole=False, projection=False, layer_norm=False)
    dequantized = list(hybrid)
    for g in range(4):
        for slot in (1 + g, 5 + g):
            q = rng.integers(-127, 128, hybrid[slot].array.shape,
                             dtype=np.int8)
            hybrid[slot] = h.Const(q, quant=(scale, 0))
            dequantized[slot] = h.Const(q.astype(np.float32) * np.float32(scale))
    params = {"fused_activation_function": "TANH", "cell_clip": 0.0,
              "proj_clip": 0.0}
    models = {}
    for name, ins in (("hybrid", hybrid), ("dequantized", dequantized)):
        case = h.OpCase("LSTM", inputs=ins, params=params,
                        output_shapes=[(1, n_cell)])
        models[name] = build(tmp_root, f"{name}_{backend}", case)
    feeds = [[(rng.standard_normal((1, n_input)) * 2).astype(np.float32)]
             for _ in range(3)]
    want = h._run_steps_litert(models["dequantized"], feeds, "BUILTIN_REF")
    near = h._run_steps_litert(models["hybrid"], feeds, "BUILTIN_REF")
    try:
        got, decisions = gpu_steps(models["hybrid"], feeds, backend)
    except lg.LiteGpuError as e:
        pytest.skip(f"no {backend} device: {e}")
    assert decisions == {0: ""}, decisions
    for g, w, n in zip(got, want, near):
        np.testing.assert_allclose(g[0], w[0], rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(g[0], n[0], atol=2e-2)
    # LiteRT did run its hybrid kernel (here about 6e-3 away).
    assert any(not np.allclose(n[0], w[0], atol=1e-4)
               for n, w in zip(near, want))
    assert not np.allclose(got[1][0], got[0][0])  # the state moved it


@pytest.mark.parametrize("backend", BACKENDS)
def test_basic_lstm_state_across_invokes(tmp_root, backend):
    """LSTM's BASIC kernel type (batch 2, state in variable tensors): all
    four outputs of every Invoke match LiteRT's, the state carried in the
    variables (which a reset clears)."""
    rng = np.random.default_rng(11)
    batch, n_input, depth = 2, 3, 4
    total = n_input + depth
    ins = [h.Input(np.zeros((batch, n_input), np.float32)),
           h.Variable(np.zeros((batch, depth), np.float32)),
           h.Const(rng.uniform(-0.6, 0.6, (4 * depth, total))
                   .astype(np.float32)),
           h.Const(rng.uniform(-0.2, 0.2, 4 * depth).astype(np.float32)),
           h.Variable(np.zeros((batch, depth), np.float32))]
    case = h.OpCase("LSTM", version=2, inputs=ins,
                    params={"fused_activation_function": "TANH",
                            "kernel_type": "BASIC"},
                    outputs=[np.float32] * 4,
                    output_shapes=[(batch, depth), (batch, depth),
                                   (batch, total), (batch, 4 * depth)])
    model = build(tmp_root, f"basic_{backend}", case)
    check_state_across_invokes(model, rng, (batch, n_input), backend)
