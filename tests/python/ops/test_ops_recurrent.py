"""The recurrent ops (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN,
BIDIRECTIONAL_SEQUENCE_RNN, SVDF) against LiteRT's reference kernels through
op_harness.

Each case is one interpreter run through several Invokes (check_steps): two
Invokes with different inputs (the state in the variable tensors carries
over), a TfLiteInterpreterResetVariableTensors, and one more Invoke, which
must match a fresh start. Every output of every Invoke is compared.

Tolerance: rtol 1e-5, atol 1e-5. litegpu sums each float dot product in
row order where LiteRT's float kernels (its tensor_utils, SIMD builds) may
sum in another order, and litegpu's sigmoid and tanh are libm's expf and
tanhf where LiteRT's builds use Eigen's logistic and tanh; the differences
are a few float ulps per step and stay below 1e-6 over these short
sequences. Hybrid cases (int8 weights) whose activations are clamps (RELU,
NONE) compare with tolerance 0: the integer products are exact and each is
added as one float multiply-add in LiteRT's order.

Expected values are LiteRT's reference kernels (its builtin kernels for the
v4 diagonal LSTM, which the reference resolver lacks), except where LiteRT
cannot give them, said at each such test: activation NONE of the LSTMs
(LiteRT leaves it uncomputed) against a hand-derived float64 cell, and the
merged batch-major BIDIRECTIONAL_SEQUENCE_LSTM (LiteRT varies from run to
run) against litegpu's unmerged outputs, which match LiteRT.
"""

import re

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, Variable, check_steps

RTOL = 1e-5
ATOL = 1e-5


def f32(a):
    return np.asarray(a, dtype=np.float32)


def weights(rng, *shape, scale=0.5):
    return f32(rng.uniform(-scale, scale, size=shape))


def run_steps(op, inputs, feeds, params=None, outputs=None, v=1,
              shapes=None, kernels="BUILTIN_REF", rtol=RTOL, atol=ATOL):
    """check_steps with feeds = per-Invoke input arrays (or oh.RESET)."""
    case = OpCase(op=op, version=v, inputs=inputs, params=params or {},
                  outputs=outputs or [np.float32], output_shapes=shapes,
                  rtol=rtol, atol=atol, litert_kernels=kernels)
    return check_steps(case, feeds)


def run_litegpu_steps(op, inputs, feeds, params, outputs, shapes, tmp_path,
                      v=1):
    """litegpu's outputs per Invoke, without LiteRT."""
    case = OpCase(op=op, version=v, inputs=inputs, params=params,
                  outputs=outputs, output_shapes=shapes)
    oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    return oh._run_steps_litegpu(model, feeds, 1)


def litegpu_error(case, tmp_path):
    """The error litegpu reports for a case (it must fail)."""
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


def sequence_feeds(rng, shape, count=3):
    """Inputs for Invoke 1, 2, a reset, then Invoke 3 (= Invoke 1's input,
    so its output must equal Invoke 1's after the reset)."""
    xs = [f32(rng.standard_normal(shape)) for _ in range(count - 1)]
    return [[xs[0]], [xs[1]], oh.RESET, [xs[0]]]


# ---- LSTM cells -----------------------------------------------------------


LSTM_VARIANTS = {
    "plain": {},
    "cifg": {"cifg": True},
    "peephole": {"peephole": True},
    "cifg_peephole": {"cifg": True, "peephole": True},
    "projection": {"projection": True},
    "projection_bias": {"projection": True, "proj_bias": True},
    "layer_norm": {"layer_norm": True},
    "layer_norm_cifg": {"layer_norm": True, "cifg": True},
    "everything": {"peephole": True, "projection": True, "proj_bias": True,
                   "layer_norm": True},
    "cifg_peephole_projection_ln": {"cifg": True, "peephole": True,
                                    "projection": True, "layer_norm": True},
}


def int8_weights(rng, *shape):
    """A hybrid weight: INT8 with one scale (zero point 0)."""
    return Const(rng.integers(-127, 128, size=shape).astype(np.int8),
                 quant=(float(rng.uniform(0.002, 0.006)), 0))


def lstm_cell(rng, n_input, n_cell, n_output, n_batch, cifg=False,
              peephole=False, projection=False, proj_bias=False,
              layer_norm=False, diagonal=False, hybrid=False):
    """The 23 weight/state inputs of one LSTM direction (slots 1..23 of
    TFLite's 24-input layout; None for an omitted optional input). With
    hybrid, the matrices, peephole and projection weights are INT8 (the
    biases and layer norm coefficients stay float)."""
    if not projection:
        n_output = n_cell

    def mat(*shape):
        if hybrid:
            return int8_weights(rng, *shape)
        return Const(weights(rng, *shape))
    cells = [None] * 23
    for g in range(4):
        if cifg and g == 0:
            continue
        cells[g] = mat(n_cell, n_input)                             # 1-4
        if diagonal:
            cells[4 + g] = mat(n_cell)                              # 5-8
        else:
            cells[4 + g] = mat(n_cell, n_output)
        cells[11 + g] = Const(weights(rng, n_cell, scale=0.2))      # 12-15
    if peephole:
        for k in range(3):
            if cifg and k == 0:
                continue
            cells[8 + k] = mat(n_cell)                              # 9-11
    if projection:
        cells[15] = mat(n_output, n_cell)                           # 16
        if proj_bias:
            cells[16] = Const(weights(rng, n_output, scale=0.2))    # 17
    cells[17] = Variable(np.zeros((n_batch, n_output), np.float32))  # 18
    cells[18] = Variable(np.zeros((n_batch, n_cell), np.float32))    # 19
    if layer_norm:
        for g in range(4):
            if cifg and g == 0:
                continue
            cells[19 + g] = Const(f32(rng.uniform(0.5, 1.5, n_cell)))  # 20-23
    return cells, n_output


@pytest.mark.parametrize("variant", sorted(LSTM_VARIANTS))
@pytest.mark.parametrize("time_major", [True, False])
def test_unidirectional_lstm(variant, time_major):
    rng = np.random.default_rng(len(variant) + 7 * time_major)
    n_batch, n_time, n_input, n_cell = 2, 4, 3, 5
    cell, n_output = lstm_cell(rng, n_input, n_cell, 4, n_batch,
                               **LSTM_VARIANTS[variant])
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    x = Input(np.zeros(shape, np.float32))
    out_shape = shape[:2] + (n_output,)
    outs = run_steps("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + cell,
                     sequence_feeds(rng, shape),
                     params={"fused_activation_function": "TANH",
                             "time_major": time_major},
                     shapes=[out_shape])
    # The state carried over: the second Invoke differs from a fresh start,
    # and after the reset the first input gives the first output again.
    np.testing.assert_array_equal(outs[2][0], outs[0][0])
    assert not np.allclose(outs[1][0], outs[0][0])


@pytest.mark.parametrize("activation", ["RELU", "RELU6", "SIGN_BIT",
                                        "RELU_N1_TO_1", "TANH"])
def test_unidirectional_lstm_activations(activation):
    rng = np.random.default_rng(11)
    cell, n_output = lstm_cell(rng, 3, 4, 4, 2, peephole=True)
    shape = (2, 5, 3)
    x = Input(np.zeros(shape, np.float32))
    run_steps("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + cell,
              sequence_feeds(rng, shape),
              params={"fused_activation_function": activation},
              shapes=[(2, 5, n_output)])


@pytest.mark.parametrize("clips", [(0.3, 0.0), (0.0, 0.2), (0.5, 0.1)])
def test_unidirectional_lstm_clipping(clips):
    rng = np.random.default_rng(12)
    cell, n_output = lstm_cell(rng, 3, 6, 3, 2, projection=True,
                               proj_bias=True)
    shape = (2, 4, 3)
    x = Input(np.zeros(shape, np.float32))
    feeds = [[f32(rng.standard_normal(shape) * 4)] for _ in range(2)]
    run_steps("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + cell, feeds,
              params={"fused_activation_function": "TANH",
                      "cell_clip": clips[0], "proj_clip": clips[1]},
              shapes=[(2, 4, n_output)])


def test_unidirectional_lstm_twenty_inputs():
    """Without the layer norm slots (20 inputs) the op is the same."""
    rng = np.random.default_rng(13)
    cell, n_output = lstm_cell(rng, 3, 4, 4, 1, peephole=True)
    shape = (3, 1, 3)
    x = Input(np.zeros(shape, np.float32))
    run_steps("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + cell[:19],
              sequence_feeds(rng, shape),
              params={"fused_activation_function": "TANH",
                      "time_major": True},
              shapes=[(3, 1, n_output)])


def test_unidirectional_lstm_diagonal_v4():
    """Version 4 (diagonal recurrent weights: one weight per cell, an
    elementwise product with the output state). LiteRT 2.3's reference
    resolver stops at version 3, so its builtin kernels give the expected
    values."""
    rng = np.random.default_rng(14)
    cell, n_output = lstm_cell(rng, 3, 4, 4, 2, diagonal=True, peephole=True)
    shape = (2, 3, 3)
    x = Input(np.zeros(shape, np.float32))
    run_steps("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + cell,
              sequence_feeds(rng, shape), v=4,
              params={"fused_activation_function": "TANH",
                      "diagonal_recurrent_tensors": True},
              shapes=[(2, 3, n_output)], kernels="BUILTIN")


@pytest.mark.parametrize("variant", sorted(LSTM_VARIANTS))
def test_lstm_single_step(variant):
    rng = np.random.default_rng(len(variant) + 100)
    n_batch, n_input, n_cell = 3, 4, 5
    cell, n_output = lstm_cell(rng, n_input, n_cell, 3, n_batch,
                               **LSTM_VARIANTS[variant])
    shape = (n_batch, n_input)
    x = Input(np.zeros(shape, np.float32))
    feeds = [[f32(rng.standard_normal(shape))] for _ in range(3)]
    outs = run_steps("LSTM", [x] + cell, feeds + [oh.RESET, feeds[0]],
                     params={"fused_activation_function": "TANH",
                             "cell_clip": 0.0, "proj_clip": 0.0},
                     shapes=[(n_batch, n_output)])
    np.testing.assert_array_equal(outs[3][0], outs[0][0])


def test_lstm_twenty_inputs_with_clipping():
    rng = np.random.default_rng(101)
    cell, n_output = lstm_cell(rng, 2, 4, 2, 2, projection=True,
                               peephole=True)
    x = Input(np.zeros((2, 2), np.float32))
    feeds = [[f32(rng.standard_normal((2, 2)) * 3)] for _ in range(3)]
    run_steps("LSTM", [x] + cell[:19], feeds,
              params={"fused_activation_function": "TANH",
                      "cell_clip": 0.4, "proj_clip": 0.25},
              shapes=[(2, n_output)])


def numpy_lstm(x_steps, cell, activation):
    """Hand-derived LSTM (the formulas of TFLite's LSTM documentation) over
    time steps x_steps[t] of [batch, input], float64: the expected values
    where LiteRT cannot give them. `cell` is lstm_cell's list."""
    arr = [None if c is None else c.array.astype(np.float64) for c in cell]
    act = {"NONE": lambda v: v, "TANH": np.tanh}[activation]
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    h = np.zeros(cell[17].array.shape)
    c = np.zeros(cell[18].array.shape)
    outs = []
    for x in x_steps:
        def gate(g, peep_state):
            v = x @ arr[g].T + h @ arr[4 + g].T
            if g != 2 and arr[8 + (2 if g == 3 else g)] is not None:
                v = v + arr[8 + (2 if g == 3 else g)] * peep_state
            if arr[19 + g] is not None:
                mean = v.mean(axis=1, keepdims=True)
                var = ((v - mean) ** 2).mean(axis=1, keepdims=True)
                v = (v - mean) / np.sqrt(var + 1e-8) * arr[19 + g]
            return v + arr[11 + g]
        f = sig(gate(1, c))
        i = 1.0 - f if arr[0] is None else sig(gate(0, c))
        c = f * c + i * act(gate(2, None))
        o = sig(gate(3, c))
        h = o * act(c)
        if arr[15] is not None:
            h = h @ arr[15].T + (arr[16] if arr[16] is not None else 0.0)
        outs.append(h)
    return np.stack(outs)


@pytest.mark.parametrize("variant", ["plain", "everything",
                                     "cifg_peephole_projection_ln"])
def test_unidirectional_lstm_activation_none(variant, tmp_path):
    """Activation NONE is the identity. LiteRT's float kernels leave the
    result of a NONE activation unwritten (ApplyActivationToVector returns
    at once), so their output is whatever the scratch held; the expected
    values are the hand-derived cell in float64 instead (tolerance 1e-5 for
    float32 rounding over 4 steps)."""
    rng = np.random.default_rng(50 + len(variant))
    cell, n_output = lstm_cell(rng, 3, 4, 3, 2, **LSTM_VARIANTS[variant])
    shape = (4, 2, 3)
    xs = f32(rng.standard_normal(shape))
    got = run_litegpu_steps("UNIDIRECTIONAL_SEQUENCE_LSTM",
                            [Input(xs)] + cell, [[xs]],
                            {"fused_activation_function": "NONE",
                             "time_major": True},
                            [np.float32], [(4, 2, n_output)], tmp_path)
    want = numpy_lstm(xs.astype(np.float64), cell, "NONE")
    np.testing.assert_allclose(got[0][0], want, rtol=1e-5, atol=1e-5)
    # The same reference agrees with LiteRT where LiteRT computes (TANH).
    (tmp_path / "tanh").mkdir()
    got = run_litegpu_steps("UNIDIRECTIONAL_SEQUENCE_LSTM",
                            [Input(xs)] + cell, [[xs]],
                            {"fused_activation_function": "TANH",
                             "time_major": True},
                            [np.float32], [(4, 2, n_output)],
                            tmp_path / "tanh")
    np.testing.assert_allclose(got[0][0], numpy_lstm(xs, cell, "TANH"),
                               rtol=1e-5, atol=1e-5)


# ---- BIDIRECTIONAL_SEQUENCE_LSTM --------------------------------------------


def bidi_lstm_inputs(rng, n_input, n_cell, n_output, n_batch, **variant):
    fw, fw_out = lstm_cell(rng, n_input, n_cell, n_output, n_batch, **variant)
    bw, bw_out = lstm_cell(rng, n_input, n_cell, n_output, n_batch, **variant)
    # slots 1-17 fw weights, 18-34 bw weights, 35-38 states, 39-47 aux.
    inputs = fw[:17] + bw[:17] + [fw[17], fw[18], bw[17], bw[18]]
    return inputs + [None] * 9, fw_out, bw_out


@pytest.mark.parametrize("variant", ["plain", "cifg_peephole",
                                     "projection_bias"])
@pytest.mark.parametrize("merge,time_major", [(False, True), (True, True),
                                              (False, False)])
def test_bidirectional_lstm(variant, merge, time_major):
    rng = np.random.default_rng(len(variant) + 3 * merge + time_major)
    n_batch, n_time, n_input = 2, 3, 3
    v = dict(LSTM_VARIANTS[variant])
    inputs, fw_out, bw_out = bidi_lstm_inputs(rng, n_input, 4, 3, n_batch,
                                              **v)
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    x = Input(np.zeros(shape, np.float32))
    if merge:
        out_shapes = [shape[:2] + (fw_out + bw_out,)]
    else:
        out_shapes = [shape[:2] + (fw_out,), shape[:2] + (bw_out,)]
    run_steps("BIDIRECTIONAL_SEQUENCE_LSTM", [x] + inputs,
              sequence_feeds(rng, shape),
              params={"fused_activation_function": "TANH",
                      "merge_outputs": merge, "time_major": time_major},
              outputs=[np.float32] * len(out_shapes), shapes=out_shapes)


@pytest.mark.parametrize("variant", ["plain", "cifg_peephole",
                                     "projection_bias"])
def test_bidirectional_lstm_merged_batch_major(variant, tmp_path):
    """merge_outputs with batch-major input: LiteRT 2.3's kernels give
    different values from one run of the same model to the next here (seen
    on both its reference and builtin kernels), so the expected values are
    litegpu's unmerged outputs, which match LiteRT in test_bidirectional_lstm:
    the merged output is the forward and backward outputs side by side."""
    rng = np.random.default_rng(len(variant) + 40)
    inputs, fw_out, bw_out = bidi_lstm_inputs(rng, 3, 4, 3, 2,
                                              **LSTM_VARIANTS[variant])
    shape = (2, 3, 3)
    x = Input(np.zeros(shape, np.float32))
    feeds = sequence_feeds(rng, shape)
    params = {"fused_activation_function": "TANH", "time_major": False}
    split = run_steps("BIDIRECTIONAL_SEQUENCE_LSTM", [x] + inputs, feeds,
                      params=dict(params, merge_outputs=False),
                      outputs=[np.float32] * 2,
                      shapes=[(2, 3, fw_out), (2, 3, bw_out)])
    merged = run_litegpu_steps("BIDIRECTIONAL_SEQUENCE_LSTM", [x] + inputs,
                               feeds, dict(params, merge_outputs=True),
                               [np.float32], [(2, 3, fw_out + bw_out)],
                               tmp_path)
    for got, want in zip(merged, split):
        np.testing.assert_array_equal(got[0], np.concatenate(want, axis=-1))


# ---- LSTM rejections --------------------------------------------------------


def lstm_case(op="UNIDIRECTIONAL_SEQUENCE_LSTM", v=1, mutate=None,
              params=None, n_batch=2):
    rng = np.random.default_rng(5)
    cell, n_output = lstm_cell(rng, 3, 4, 4, n_batch)
    if mutate:
        mutate(cell)
    shape = (n_batch, 3) if op == "LSTM" else (n_batch, 2, 3)
    return OpCase(op=op, version=v,
                  inputs=[Input(f32(rng.standard_normal(shape)))] + cell,
                  params=params or {"fused_activation_function": "TANH"},
                  output_shapes=[shape[:-1] + (n_output,)])


# Hybrid LSTMs: the int8 products are exact and added as in LiteRT, but the
# gates go through libm's expf/tanhf where LiteRT uses Eigen's logistic and
# tanh (an ulp apart at times), so the shared tolerance applies.
HYBRID_LSTM_CASES = [
    (op, variant)
    for op in ["UNIDIRECTIONAL_SEQUENCE_LSTM", "LSTM",
               "BIDIRECTIONAL_SEQUENCE_LSTM"]
    for variant in ["plain", "cifg_peephole", "projection_bias",
                    "everything", "layer_norm_cifg"]
    # the bidirectional op has no layer norm slots
    if not (op.startswith("BIDI") and LSTM_VARIANTS[variant].get(
        "layer_norm"))]


@pytest.mark.parametrize("asymmetric", [False, True])
@pytest.mark.parametrize("op,variant", HYBRID_LSTM_CASES)
def test_lstm_hybrid(op, asymmetric, variant):
    rng = np.random.default_rng(500 + len(op) + len(variant) + asymmetric)
    n_batch, n_time, n_input, n_cell = 2, 3, 4, 5
    v = dict(LSTM_VARIANTS[variant], hybrid=True)
    params = {"fused_activation_function": "TANH",
              "asymmetric_quantize_inputs": asymmetric}
    if op == "BIDIRECTIONAL_SEQUENCE_LSTM":
        inputs, fw_out, bw_out = bidi_lstm_inputs(rng, n_input, n_cell, 3,
                                                  n_batch, **v)
        shape = (n_time, n_batch, n_input)
        shapes = [shape[:2] + (fw_out,), shape[:2] + (bw_out,)]
        version = 3 if asymmetric else 2
    else:
        inputs, n_output = lstm_cell(rng, n_input, n_cell, 3, n_batch, **v)
        shape = (n_batch, n_input) if op == "LSTM" else \
            (n_batch, n_time, n_input)
        shapes = [shape[:-1] + (n_output,)]
        if op == "LSTM":
            version = 4 if asymmetric else 3
        else:
            version = 3 if asymmetric else 2
    x = Input(np.zeros(shape, np.float32))
    feeds = [[f32(rng.standard_normal(shape) * 2)] for _ in range(2)]
    feeds += [[np.zeros(shape, np.float32)], oh.RESET, feeds[0]]
    run_steps(op, [x] + inputs, feeds, params=params, v=version,
              outputs=[np.float32] * len(shapes), shapes=shapes)


def test_lstm_hybrid_mixed_weights_rejected(tmp_path):
    def mixed(cell):
        for g in range(4):
            cell[g] = Const(np.ones((4, 3), np.int8), quant=(0.1, 0))
    msg = litegpu_error(lstm_case(v=2, mutate=mixed), tmp_path)
    assert ("UNIDIRECTIONAL_SEQUENCE_LSTM: recurrent_to_input_weights has "
            "type FLOAT32; a hybrid node's weights are all INT8") in msg


def test_lstm_integer_rejected(tmp_path):
    rng = np.random.default_rng(7)
    cell, n_output = lstm_cell(rng, 3, 4, 4, 2, hybrid=True)
    # TFLite's rule gives version 5, past LiteRT's range; version 1 reaches
    # Prepare.
    case = OpCase(op="UNIDIRECTIONAL_SEQUENCE_LSTM", version=1,
                  inputs=[Input(np.ones((2, 2, 3), np.int16),
                                quant=(0.01, 0))] + cell,
                  params={"fused_activation_function": "TANH"},
                  outputs=[Output(np.int16, quant=(0.01, 0))],
                  output_shapes=[(2, 2, n_output)])
    msg = litegpu_error(case, tmp_path)
    assert ("UNIDIRECTIONAL_SEQUENCE_LSTM: integer kernel (INT16 input, INT8 "
            "weights) is not supported") in msg


def int8_lstm_case(rng, n_cell=4, peephole=False, cifg=False):
    """A one-op INT8 UNIDIRECTIONAL_SEQUENCE_LSTM in TFLite's 8x8->16 form
    (INT32 biases, INT8 output state, INT16 cell state of scale 2^-15),
    without the converter's intermediates (the model writer has none)."""
    cell, _ = lstm_cell(rng, 3, n_cell, n_cell, 2, hybrid=True,
                        peephole=peephole, cifg=cifg)
    for g in range(4):
        if cell[11 + g] is not None:
            cell[11 + g] = Const(np.zeros(n_cell, np.int32), quant=(1e-4, 0))
    if peephole:
        for k in range(3):
            if cell[8 + k] is not None:
                cell[8 + k] = Const(np.ones(n_cell, np.int16), quant=(1e-3, 0))
    cell[17] = Variable(np.zeros((2, n_cell), np.int8), quant=(0.01, -3))
    cell[18] = Variable(np.zeros((2, n_cell), np.int16), quant=(2.0**-15, 0))
    return OpCase(op="UNIDIRECTIONAL_SEQUENCE_LSTM", version=1,
                  inputs=[Input(np.ones((2, 2, 3), np.int8),
                                quant=(0.02, 1))] + cell[:19],
                  params={"fused_activation_function": "TANH"},
                  outputs=[Output(np.int8, quant=(0.01, -3))],
                  output_shapes=[(2, 2, n_cell)])


def int8_peephole_without_input(case):
    case.inputs[9] = None  # cell_to_input_weights of a non-CIFG node


def int8_cifg_with_input_bias(case):
    case.inputs[12] = Const(np.zeros(4, np.int32), quant=(1e-4, 0))


def int8_widening_projection(case):
    # 4 cells projected to 6 outputs: TFLite's peephole would read past the
    # cell state
    rng = np.random.default_rng(5)
    for g in range(4):
        case.inputs[5 + g] = Const(
            rng.integers(-127, 128, (4, 6), dtype=np.int8), quant=(0.01, 0))
    case.inputs[16] = Const(rng.integers(-127, 128, (6, 4), dtype=np.int8),
                            quant=(0.01, 0))
    case.inputs[18] = Variable(np.zeros((2, 6), np.int8), quant=(0.01, -3))
    case.output_shapes = [(2, 2, 6)]


@pytest.mark.parametrize("form,mutate,match", [
    ("plain", None,
     "the integer \\(INT8\\) kernel needs 5 intermediates \\(TFLite's "
     "8x8->16 kernel; 12 is its 8x8->8 kernel, not supported\\), got 0"),
    ("peephole", int8_peephole_without_input,
     "cell_to_forget_weights and cell_to_output_weights must be both given "
     "or both absent, cell_to_input_weights given with them unless the node "
     "is CIFG"),
    ("cifg", int8_cifg_with_input_bias,
     "input_to_input_weights, recurrent_to_input_weights and input_gate_bias "
     "must be all given or all absent \\(CIFG\\)"),
    ("peephole", int8_widening_projection,
     "peephole weights with a projection to 6 outputs from 4 cells are not "
     "supported"),
])
def test_lstm_int8_unsupported_forms_rejected(tmp_path, form, mutate, match):
    # The integer LSTM runs bit-exact, CIFG, peephole, projection and layer
    # norm included, in tests/python/test_recurrent_models.py (models with
    # the intermediates this writer lacks); these are the nodes litegpu
    # refuses.
    rng = np.random.default_rng(11)
    case = int8_lstm_case(rng, peephole=form == "peephole",
                          cifg=form == "cifg")
    if mutate is not None:
        mutate(case)
    msg = litegpu_error(case, tmp_path)
    assert re.search("UNIDIRECTIONAL_SEQUENCE_LSTM: " + match, msg), msg


def test_lstm_state_must_be_variable(tmp_path):
    def const_state(cell):
        cell[17] = Const(np.zeros((2, 4), np.float32))
    msg = litegpu_error(lstm_case(mutate=const_state), tmp_path)
    assert "output_state must be a variable tensor" in msg


def test_lstm_cifg_mismatch_rejected(tmp_path):
    def half_cifg(cell):
        cell[0] = None
    msg = litegpu_error(lstm_case(mutate=half_cifg), tmp_path)
    assert "must be all given or all absent (CIFG)" in msg


def test_lstm_weight_shape_rejected(tmp_path):
    def bad(cell):
        cell[2] = Const(np.zeros((4, 2), np.float32))
    msg = litegpu_error(lstm_case(mutate=bad), tmp_path)
    assert "input_to_cell_weights has shape [4,2], expected [4,3]" in msg


def test_lstm_state_shape_rejected(tmp_path):
    def bad(cell):
        cell[18] = Variable(np.zeros((2, 5), np.float32))
    msg = litegpu_error(lstm_case(mutate=bad), tmp_path)
    assert "cell_state has shape [2,5], expected [2,4]" in msg


# ---- LSTM's BASIC kernel type (version 2) ----------------------------------


def basic_lstm_inputs(rng, n_batch, n_input, depth, state=Variable):
    """input, prev_activation, weights, biases, prev_state: the states as
    variable tensors (carried from Invoke to Invoke: the kernel writes the
    new state back into them) or as graph inputs."""
    x = Input(np.zeros((n_batch, n_input), np.float32))
    if state is Variable:
        h = Variable(np.zeros((n_batch, depth), np.float32))
        c = Variable(np.zeros((n_batch, depth), np.float32))
    else:
        h = Input(np.zeros((n_batch, depth), np.float32))
        c = Input(np.zeros((n_batch, depth), np.float32))
    w = Const(weights(rng, 4 * depth, n_input + depth))
    b = Const(weights(rng, 4 * depth, scale=0.3))
    return [x, h, w, b, c]


def basic_shapes(n_batch, n_input, depth):
    return [(n_batch, depth), (n_batch, depth), (n_batch, n_input + depth),
            (n_batch, 4 * depth)]


# The basic kernel ignores the options' activation and clips (as TFLite's
# does): the RELU/clip case must match LiteRT all the same.
@pytest.mark.parametrize("n_batch,n_input,depth,params", [
    (2, 3, 4, {"fused_activation_function": "TANH"}),
    (1, 5, 2, {"fused_activation_function": "TANH"}),
    (3, 2, 3, {"fused_activation_function": "RELU", "cell_clip": 0.1,
               "proj_clip": 0.2}),
])
def test_lstm_basic(n_batch, n_input, depth, params):
    rng = np.random.default_rng(600 + 10 * n_batch + depth)
    inputs = basic_lstm_inputs(rng, n_batch, n_input, depth)
    feeds = sequence_feeds(rng, (n_batch, n_input))
    outs = run_steps("LSTM", inputs, feeds,
                     params=dict(params, kernel_type="BASIC"), v=2,
                     outputs=[np.float32] * 4,
                     shapes=basic_shapes(n_batch, n_input, depth))
    # The state carried over, and the reset restarts it.
    assert not np.allclose(outs[1][0], outs[0][0])
    for k in range(4):
        np.testing.assert_array_equal(outs[2][k], outs[0][k])


def test_lstm_basic_state_inputs():
    """prev_activation and prev_state as graph inputs fed each Invoke."""
    rng = np.random.default_rng(610)
    n_batch, n_input, depth = 2, 3, 3
    inputs = basic_lstm_inputs(rng, n_batch, n_input, depth, state=Input)
    feeds = [[f32(rng.standard_normal(s)) for s in
              [(n_batch, n_input), (n_batch, depth), (n_batch, depth)]]
             for _ in range(2)]
    run_steps("LSTM", inputs, feeds,
              params={"fused_activation_function": "TANH",
                      "kernel_type": "BASIC"}, v=2,
              outputs=[np.float32] * 4,
              shapes=basic_shapes(n_batch, n_input, depth))


def basic_quantized_inputs(rng, n_batch, n_input, depth, state):
    """The quantized BASIC kernel's inputs: UINT8 activations (scale 1/128,
    zero point 128), UINT8 weights, INT32 biases, an INT16 Q4.11 state."""
    act_q = (1 / 128, 128)
    x = Input(np.zeros((n_batch, n_input), np.uint8), quant=act_q)
    h = state(np.zeros((n_batch, depth), np.uint8), quant=act_q)
    c = state(np.zeros((n_batch, depth), np.int16), quant=(2.0**-11, 0))
    w = Const(rng.integers(0, 256, (4 * depth, n_input + depth))
              .astype(np.uint8), quant=(0.02, 120))
    b = Const(rng.integers(-3000, 3000, 4 * depth).astype(np.int32),
              quant=(0.02 / 128, 0))
    outputs = [Output(np.uint8, quant=act_q),
               Output(np.int16, quant=(2.0**-11, 0)),
               Output(np.uint8, quant=act_q),
               Output(np.int16, quant=(2.0**-12, 0))]
    return [x, h, w, b, c], outputs


@pytest.mark.parametrize("kernels", ["BUILTIN_REF", "BUILTIN"])
@pytest.mark.parametrize("state", ["Variable", "Input"])
def test_lstm_basic_quantized(state, kernels):
    """TFLite's quantized LstmCell (UINT8 activations, INT16 state in
    Q4.11): all four outputs bit for bit, the state carried by variable
    tensors or fed as graph inputs."""
    rng = np.random.default_rng(630 + len(state))
    n_batch, n_input, depth = 2, 3, 4
    inputs, outputs = basic_quantized_inputs(
        rng, n_batch, n_input, depth, Variable if state == "Variable"
        else Input)

    def feed():
        arrays = [rng.integers(0, 256, (n_batch, n_input)).astype(np.uint8)]
        if state == "Input":
            arrays += [rng.integers(0, 256, (n_batch, depth))
                       .astype(np.uint8),
                       rng.integers(-8000, 8000, (n_batch, depth))
                       .astype(np.int16)]
        return arrays
    feeds = [feed() for _ in range(3)]
    if state == "Variable":
        feeds += [oh.RESET, feeds[0]]
    outs = run_steps("LSTM", inputs, feeds,
                     params={"fused_activation_function": "TANH",
                             "kernel_type": "BASIC"}, v=2, outputs=outputs,
                     shapes=basic_shapes(n_batch, n_input, depth),
                     kernels=kernels)
    if state == "Variable":
        assert not np.array_equal(outs[1][1], outs[0][1])
        for k in range(4):
            np.testing.assert_array_equal(outs[3][k], outs[0][k])


def basic_case(mutate=None, outputs=None):
    rng = np.random.default_rng(620)
    inputs = basic_lstm_inputs(rng, 2, 3, 2)
    inputs[0] = Input(f32(rng.standard_normal((2, 3))))
    if mutate:
        mutate(inputs)
    return OpCase(op="LSTM", version=2, inputs=inputs,
                  params={"fused_activation_function": "TANH",
                          "kernel_type": "BASIC"},
                  outputs=outputs or [np.float32] * 4,
                  output_shapes=basic_shapes(2, 3, 2))


def test_lstm_basic_rejections(tmp_path):
    def uint8(inputs):
        inputs[0] = Input(np.ones((2, 3), np.uint8), quant=(1 / 128, 128))
        inputs[1] = Input(np.ones((2, 2), np.uint8), quant=(1 / 128, 128))
        inputs[2] = Const(np.ones((8, 5), np.uint8), quant=(0.01, 128))
        inputs[3] = Const(np.ones(8, np.int32), quant=(1e-4, 0))
        inputs[4] = Input(np.ones((2, 2), np.int16), quant=(2 ** -11, 0))
    out_q = [Output(np.uint8, quant=(1 / 128, 128)),
             Output(np.int16, quant=(2 ** -11, 0)),
             Output(np.uint8, quant=(1 / 128, 128)),
             Output(np.int16, quant=(2 ** -12, 0))]
    def state_scale(inputs):
        uint8(inputs)
        inputs[4] = Input(np.ones((2, 2), np.int16), quant=(2 ** -12, 0))
    out_q12 = out_q[:1] + [Output(np.int16, quant=(2 ** -12, 0))] + out_q[2:]
    cases = {
        "uint8_state_scale": (basic_case(state_scale, out_q12),
                              "LSTM: BASIC kernel: the state's scale "
                              "0.000244141 must be 2^-11"),
        "uint8_weights_type": (basic_case(lambda i: (uint8(i), i.__setitem__(
            2, Const(np.ones((8, 5), np.int8), quant=(0.01, 0)))), out_q),
            "LSTM: BASIC kernel: weights has type INT8, expected UINT8 (the "
            "quantized kernel)"),
        "const_state": (basic_case(lambda i: i.__setitem__(
            4, Const(np.zeros((2, 2), np.float32)))),
            "LSTM: BASIC kernel: prev_state is a constant tensor, but the "
            "kernel writes the new state back into it"),
        "weights_shape": (basic_case(lambda i: i.__setitem__(
            2, Const(np.zeros((8, 4), np.float32)))),
            "LSTM: weights has shape [8,4], expected [8,5]"),
        "state_batch": (basic_case(lambda i: i.__setitem__(
            1, Variable(np.zeros((3, 2), np.float32)))),
            "LSTM: prev_activation has shape [3,2], expected [2,2]"),
        "int32_bias": (basic_case(lambda i: i.__setitem__(
            3, Const(np.zeros(8, np.int32)))),
            "LSTM: BASIC kernel: biases has type INT32, expected FLOAT32"),
    }
    for name, (case, want) in cases.items():
        (tmp_path / name).mkdir()
        assert want in litegpu_error(case, tmp_path / name), name
    (tmp_path / "io").mkdir()
    case = basic_case(outputs=[np.float32] * 3)
    case.output_shapes = case.output_shapes[:3]
    assert "LSTM" in litegpu_error(case, tmp_path / "io")


# ---- BIDIRECTIONAL_SEQUENCE_LSTM auxiliary inputs ---------------------------


def aux_weights(rng, n_cell, n_aux, cifg):
    return [None if cifg and g == 0 else Const(weights(rng, n_cell, n_aux))
            for g in range(4)]


@pytest.mark.parametrize("variant,merge,time_major", [
    ("plain", False, True), ("plain", True, True), ("plain", False, False),
    ("cifg_peephole", False, False), ("projection_bias", False, True)])
def test_bidirectional_lstm_aux_cross_linked(variant, merge, time_major):
    """aux_input with aux weights: both directions add aux_to_gate *
    aux_input (aux features 2, input features 3)."""
    rng = np.random.default_rng(700 + len(variant) + 3 * merge + time_major)
    n_batch, n_time, n_input, n_aux, n_cell = 2, 3, 3, 2, 4
    v = LSTM_VARIANTS[variant]
    inputs, fw_out, bw_out = bidi_lstm_inputs(rng, n_input, n_cell, 3,
                                              n_batch, **v)
    cifg = v.get("cifg", False)
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    aux_shape = shape[:2] + (n_aux,)
    inputs[38] = Input(np.zeros(aux_shape, np.float32))
    inputs[39:47] = (aux_weights(rng, n_cell, n_aux, cifg) +
                     aux_weights(rng, n_cell, n_aux, cifg))
    x = Input(np.zeros(shape, np.float32))
    xs = [f32(rng.standard_normal(s)) for s in [shape, aux_shape] * 2]
    feeds = [xs[:2], xs[2:], oh.RESET, xs[:2]]
    if merge:
        out_shapes = [shape[:2] + (fw_out + bw_out,)]
    else:
        out_shapes = [shape[:2] + (fw_out,), shape[:2] + (bw_out,)]
    outs = run_steps("BIDIRECTIONAL_SEQUENCE_LSTM", [x] + inputs, feeds,
                     params={"fused_activation_function": "TANH",
                             "merge_outputs": merge,
                             "time_major": time_major},
                     outputs=[np.float32] * len(out_shapes), shapes=out_shapes)
    np.testing.assert_array_equal(outs[2][0], outs[0][0])
    assert not np.allclose(outs[1][0], outs[0][0])


@pytest.mark.parametrize("time_major,hybrid", [(True, False), (False, False),
                                               (True, True)])
def test_bidirectional_lstm_aux_not_cross_linked(time_major, hybrid):
    """aux_input without aux weights: the backward direction reads it in
    place of the input (also in a hybrid node)."""
    rng = np.random.default_rng(720 + time_major + 2 * hybrid)
    n_batch, n_time, n_input = 2, 3, 3
    inputs, fw_out, bw_out = bidi_lstm_inputs(rng, n_input, 4, 4, n_batch,
                                              peephole=True, hybrid=hybrid)
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    inputs[38] = Input(np.zeros(shape, np.float32))
    x = Input(np.zeros(shape, np.float32))
    xs = [f32(rng.standard_normal(shape)) for _ in range(4)]
    feeds = [xs[:2], xs[2:], oh.RESET, xs[:2]]
    outs = run_steps("BIDIRECTIONAL_SEQUENCE_LSTM", [x] + inputs, feeds,
                     params={"fused_activation_function": "TANH",
                             "time_major": time_major},
                     v=2 if hybrid else 1, outputs=[np.float32] * 2,
                     shapes=[shape[:2] + (fw_out,), shape[:2] + (bw_out,)])
    np.testing.assert_array_equal(outs[2][1], outs[0][1])


@pytest.mark.parametrize("asymmetric", [False, True])
def test_bidirectional_lstm_aux_hybrid(asymmetric):
    """Cross-linked aux inputs of a hybrid node: INT8 aux weights of one
    scale, each aux_input row quantized on the fly, as the input's."""
    rng = np.random.default_rng(740 + asymmetric)
    n_batch, n_time, n_input, n_aux, n_cell = 2, 3, 4, 3, 5
    inputs, fw_out, bw_out = bidi_lstm_inputs(
        rng, n_input, n_cell, 3, n_batch, peephole=True, projection=True,
        hybrid=True)
    shape = (n_time, n_batch, n_input)
    aux_shape = (n_time, n_batch, n_aux)
    inputs[38] = Input(np.zeros(aux_shape, np.float32))
    inputs[39:47] = [int8_weights(rng, n_cell, n_aux) for _ in range(8)]
    xs = [f32(rng.standard_normal(s) * 2) for s in [shape, aux_shape] * 2]
    run_steps("BIDIRECTIONAL_SEQUENCE_LSTM",
              [Input(np.zeros(shape, np.float32))] + inputs,
              [xs[:2], xs[2:], oh.RESET, xs[:2]],
              params={"fused_activation_function": "TANH",
                      "asymmetric_quantize_inputs": asymmetric},
              v=3 if asymmetric else 2, outputs=[np.float32] * 2,
              shapes=[shape[:2] + (fw_out,), shape[:2] + (bw_out,)])


def bidi_aux_case(mutate, hybrid=False):
    rng = np.random.default_rng(6)
    inputs, fw_out, bw_out = bidi_lstm_inputs(rng, 3, 4, 4, 1, hybrid=hybrid)
    shape = (2, 1, 3)
    inputs[38] = Input(f32(rng.standard_normal((2, 1, 2))))
    inputs[39:47] = aux_weights(rng, 4, 2, False) * 2
    mutate(inputs)
    return OpCase(op="BIDIRECTIONAL_SEQUENCE_LSTM", version=2 if hybrid else 1,
                  inputs=[Input(f32(rng.standard_normal(shape)))] + inputs,
                  params={"fused_activation_function": "TANH"},
                  outputs=[np.float32, np.float32],
                  output_shapes=[(2, 1, fw_out), (2, 1, bw_out)])


def test_bidirectional_lstm_aux_rejections(tmp_path):
    def no_aux_input(i):
        i[38] = None

    def partial(i):
        i[45] = None

    def aux_batch(i):
        i[38] = Input(np.zeros((2, 3, 2), np.float32))

    def aux_shape_no_weights(i):
        i[39:47] = [None] * 8

    def weight_shape(i):
        i[41] = Const(np.zeros((4, 3), np.float32))
    cases = {
        "no_aux_input": (bidi_aux_case(no_aux_input),
                         "auxiliary weights are given without aux_input"),
        "partial": (bidi_aux_case(partial),
                    "the fw_ and bw_aux_input_to_{forget,cell,output}_weights "
                    "(inputs "
                    "41-43, 45-47) must be all given or all absent"),
        "aux_batch": (bidi_aux_case(aux_batch),
                      "aux_input has shape [2,3,2], expected [2,1,3] but for "
                      "the last dimension"),
        "aux_shape_no_weights": (
            bidi_aux_case(aux_shape_no_weights),
            "aux_input has shape [2,1,2], expected [2,1,3] (without aux "
            "weights the backward direction reads it"),
        "weight_shape": (bidi_aux_case(weight_shape),
                         "fw_aux_input_to_cell_weights has shape [4,3], "
                         "expected [4,2]"),
        "hybrid_float_aux": (bidi_aux_case(lambda i: None, hybrid=True),
                             "fw_aux_input_to_input_weights has type FLOAT32; "
                             "a hybrid node's weights are all INT8"),
    }
    for name, (case, want) in cases.items():
        (tmp_path / name).mkdir()
        msg = litegpu_error(case, tmp_path / name)
        assert "BIDIRECTIONAL_SEQUENCE_LSTM: " + want in msg, (name, msg)


# ---- RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN -----------


def rnn_cell(rng, n_input, n_units, n_batch):
    """Input weights, recurrent weights, bias, hidden state."""
    return [Const(weights(rng, n_units, n_input)),
            Const(weights(rng, n_units, n_units)),
            Const(weights(rng, n_units, scale=0.2)),
            Variable(np.zeros((n_batch, n_units), np.float32))]


RNN_ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH",
                   "SIGN_BIT"]


@pytest.mark.parametrize("activation", RNN_ACTIVATIONS)
def test_rnn(activation):
    rng = np.random.default_rng(200 + len(activation))
    n_batch, n_input, n_units = 3, 4, 5
    x = Input(np.zeros((n_batch, n_input), np.float32))
    feeds = [[f32(rng.standard_normal((n_batch, n_input)))] for _ in range(3)]
    outs = run_steps("RNN", [x] + rnn_cell(rng, n_input, n_units, n_batch),
                     feeds + [oh.RESET, feeds[0]],
                     params={"fused_activation_function": activation},
                     shapes=[(n_batch, n_units)])
    np.testing.assert_array_equal(outs[3][0], outs[0][0])


@pytest.mark.parametrize("activation", ["RELU6", "RELU_N1_TO_1", "RELU"])
def test_rnn_activation_range(activation):
    """Inputs large enough that the clamps of the activations bind."""
    rng = np.random.default_rng(205)
    x = Input(np.zeros((4, 3), np.float32))
    feeds = [[f32(rng.standard_normal((4, 3)) * 12)] for _ in range(3)]
    outs = run_steps("RNN", [x] + rnn_cell(rng, 3, 6, 4), feeds,
                     params={"fused_activation_function": activation},
                     shapes=[(4, 6)])
    hi = {"RELU6": 6.0, "RELU_N1_TO_1": 1.0, "RELU": np.inf}[activation]
    assert any((o[0] == hi).any() for o in outs) or hi == np.inf
    assert max(o[0].max() for o in outs) > (0.9 * hi if hi < 7 else 6.0)


@pytest.mark.parametrize("activation", ["RELU", "TANH", "NONE"])
@pytest.mark.parametrize("time_major", [True, False])
def test_unidirectional_rnn(activation, time_major):
    rng = np.random.default_rng(210 + len(activation) + time_major)
    n_batch, n_time, n_input, n_units = 2, 5, 3, 4
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    x = Input(np.zeros(shape, np.float32))
    outs = run_steps("UNIDIRECTIONAL_SEQUENCE_RNN",
                     [x] + rnn_cell(rng, n_input, n_units, n_batch),
                     sequence_feeds(rng, shape),
                     params={"fused_activation_function": activation,
                             "time_major": time_major},
                     shapes=[shape[:2] + (n_units,)])
    np.testing.assert_array_equal(outs[2][0], outs[0][0])


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("time_major", [True, False])
def test_bidirectional_rnn(merge, time_major):
    rng = np.random.default_rng(220 + 2 * merge + time_major)
    n_batch, n_time, n_input = 2, 4, 3
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    x = Input(np.zeros(shape, np.float32))
    fw = rnn_cell(rng, n_input, 4, n_batch)
    bw = rnn_cell(rng, n_input, 3, n_batch)
    if merge:
        shapes = [shape[:2] + (7,)]
    else:
        shapes = [shape[:2] + (4,), shape[:2] + (3,)]
    run_steps("BIDIRECTIONAL_SEQUENCE_RNN", [x] + fw + bw + [None] * 3,
              sequence_feeds(rng, shape),
              params={"fused_activation_function": "TANH",
                      "time_major": time_major, "merge_outputs": merge},
              outputs=[np.float32] * len(shapes), shapes=shapes)


def test_bidirectional_rnn_needs_twelve_inputs():
    """TFLite's kernel takes exactly 12 inputs (the aux slots omitted with
    -1), as litegpu's does."""
    rng = np.random.default_rng(230)
    shape = (3, 2, 2)
    case = OpCase(op="BIDIRECTIONAL_SEQUENCE_RNN",
                  inputs=[Input(f32(rng.standard_normal(shape)))] +
                  rnn_cell(rng, 2, 3, 2) + rnn_cell(rng, 2, 3, 2),
                  params={"fused_activation_function": "RELU",
                          "time_major": True},
                  outputs=[np.float32] * 2, output_shapes=[(3, 2, 3)] * 2)
    oh.check_rejected(case, match=r"BIDIRECTIONAL_SEQUENCE_RNN: expected 12 "
                      r"inputs, got 9", litert_accepts=False)


def rnn_hybrid_cell(rng, n_input, n_units, n_batch):
    """Hybrid weights: INT8 with one scale each (zero point 0)."""
    def q(*shape):
        return Const(rng.integers(-127, 128, size=shape).astype(np.int8),
                     quant=(float(rng.uniform(0.002, 0.01)), 0))
    return [q(n_units, n_input), q(n_units, n_units),
            Const(weights(rng, n_units, scale=0.2)),
            Variable(np.zeros((n_batch, n_units), np.float32))]


# Hybrid kernels quantize each batch row on the fly; the integer dot
# products are exact and each term is one float multiply-add, as in
# LiteRT, so with RELU the outputs match bit for bit (tolerance 0); TANH
# goes through libm's tanhf where LiteRT's builds use Eigen's, 1 ulp apart
# at times (tolerance 1e-5).
@pytest.mark.parametrize("activation", ["RELU", "TANH"])
@pytest.mark.parametrize("asymmetric", [False, True])
@pytest.mark.parametrize("op", ["RNN", "UNIDIRECTIONAL_SEQUENCE_RNN",
                                "BIDIRECTIONAL_SEQUENCE_RNN"])
def test_rnn_hybrid(op, asymmetric, activation):
    rng = np.random.default_rng(250 + 2 * len(op) + asymmetric)
    n_batch, n_time, n_input, n_units = 3, 4, 5, 4
    shape = (n_batch, n_input) if op == "RNN" else (n_batch, n_time, n_input)
    x = Input(np.zeros(shape, np.float32))
    params = {"fused_activation_function": activation,
              "asymmetric_quantize_inputs": asymmetric}
    inputs = [x] + rnn_hybrid_cell(rng, n_input, n_units, n_batch)
    outputs = [np.float32]
    shapes = [shape[:-1] + (n_units,)]
    if op == "BIDIRECTIONAL_SEQUENCE_RNN":
        inputs += rnn_hybrid_cell(rng, n_input, 3, n_batch) + [None] * 3
        outputs = [np.float32] * 2
        shapes.append(shape[:-1] + (3,))
    feeds = [[f32(rng.standard_normal(shape) * 2)] for _ in range(2)]
    feeds += [[np.zeros(shape, np.float32)], oh.RESET, feeds[0]]
    exact = activation == "RELU"
    run_steps(op, inputs, feeds, params=params, outputs=outputs,
              shapes=shapes, v=3 if asymmetric else 2,
              rtol=0.0 if exact else RTOL, atol=0.0 if exact else ATOL)


def test_rnn_uint8_and_per_channel_weights_rejected(tmp_path):
    rng = np.random.default_rng(240)
    cell = rnn_cell(rng, 3, 4, 2)
    cell[0] = Const(np.ones((4, 3), np.uint8), quant=(0.1, 128))
    case = OpCase(op="RNN", version=2,
                  inputs=[Input(f32(rng.standard_normal((2, 3))))] + cell,
                  params={"fused_activation_function": "TANH"},
                  output_shapes=[(2, 4)])
    assert ("RNN: hybrid kernel (FLOAT32 input, UINT8 weights) is not "
            "supported") in litegpu_error(case, tmp_path)
    cell = rnn_hybrid_cell(rng, 3, 4, 2)
    cell[0] = Const(np.ones((4, 3), np.int8),
                    quant=([0.1, 0.2, 0.1, 0.3], [0, 0, 0, 0], 0))
    case.inputs = [case.inputs[0]] + cell
    (tmp_path / "pc").mkdir()
    assert ("RNN: input weights must have one scale > 0 and zero point 0"
            in litegpu_error(case, tmp_path / "pc"))


def test_rnn_state_must_be_variable(tmp_path):
    rng = np.random.default_rng(241)
    cell = rnn_cell(rng, 3, 4, 2)
    cell[3] = Input(np.zeros((2, 4), np.float32))
    case = OpCase(op="UNIDIRECTIONAL_SEQUENCE_RNN",
                  inputs=[Input(f32(rng.standard_normal((2, 2, 3))))] + cell,
                  params={"fused_activation_function": "TANH"},
                  output_shapes=[(2, 2, 4)])
    assert ("UNIDIRECTIONAL_SEQUENCE_RNN: hidden state must be a variable "
            "tensor") in litegpu_error(case, tmp_path)


def test_rnn_recurrent_shape_rejected(tmp_path):
    rng = np.random.default_rng(242)
    cell = rnn_cell(rng, 3, 4, 2)
    cell[1] = Const(weights(rng, 4, 3))
    case = OpCase(op="RNN",
                  inputs=[Input(f32(rng.standard_normal((2, 3))))] + cell,
                  params={"fused_activation_function": "TANH"},
                  output_shapes=[(2, 4)])
    assert ("RNN: recurrent weights has shape [4,3], expected [4,4]"
            in litegpu_error(case, tmp_path))


@pytest.mark.parametrize("cross,merge,time_major", [
    (True, False, True), (True, True, True), (True, False, False),
    (False, False, True), (False, False, False)])
def test_bidirectional_rnn_aux(cross, merge, time_major):
    """aux_input with aux weights (cross-linking: both directions add W_aux
    aux_input), or alone (the backward direction of a time-major node reads
    it in place of the input; LiteRT's batch-major loop reads the input,
    and litegpu does too). aux features 2 (input features 3) batch-major
    only: LiteRT's time-major loop steps through aux_input by the input's
    feature count (see rnn.c)."""
    rng = np.random.default_rng(260 + 4 * cross + 2 * merge + time_major)
    n_batch, n_time, n_input = 2, 3, 3
    n_aux = 2 if cross and not time_major else n_input
    shape = (n_time, n_batch, n_input) if time_major else \
        (n_batch, n_time, n_input)
    aux_shape = shape[:2] + (n_aux,)
    fw = rnn_cell(rng, n_input, 4, n_batch)
    bw = rnn_cell(rng, n_input, 3, n_batch)
    aux = [Input(np.zeros(aux_shape, np.float32))]
    aux += [Const(weights(rng, 4, n_aux)), Const(weights(rng, 3, n_aux))] \
        if cross else [None, None]
    shapes = [shape[:2] + (7,)] if merge else \
        [shape[:2] + (4,), shape[:2] + (3,)]
    xs = [f32(rng.standard_normal(s)) for s in [shape, aux_shape] * 2]
    outs = run_steps("BIDIRECTIONAL_SEQUENCE_RNN",
                     [Input(np.zeros(shape, np.float32))] + fw + bw + aux,
                     [xs[:2], xs[2:], oh.RESET, xs[:2]],
                     params={"fused_activation_function": "TANH",
                             "time_major": time_major, "merge_outputs": merge},
                     outputs=[np.float32] * len(shapes), shapes=shapes)
    np.testing.assert_array_equal(outs[2][-1], outs[0][-1])
    assert not np.allclose(outs[1][-1], outs[0][-1])


def test_bidirectional_rnn_aux_hybrid_not_cross_linked():
    """A hybrid node with aux_input and no aux weights (batch-major: the
    backward direction reads the input, as LiteRT's loop does; its hybrid
    time-major loop runs the sequence max_time times over, so it gives no
    reference there). RELU: bit-exact as the other hybrid RNN cases."""
    rng = np.random.default_rng(270)
    shape = (2, 3, 4)
    inputs = [Input(np.zeros(shape, np.float32))]
    inputs += rnn_hybrid_cell(rng, 4, 3, 2) + rnn_hybrid_cell(rng, 4, 2, 2)
    inputs += [Input(np.zeros(shape, np.float32)), None, None]
    xs = [f32(rng.standard_normal(shape) * 2) for _ in range(4)]
    run_steps("BIDIRECTIONAL_SEQUENCE_RNN", inputs,
              [xs[:2], xs[2:], oh.RESET, xs[:2]],
              params={"fused_activation_function": "RELU"}, v=2,
              outputs=[np.float32] * 2, shapes=[(2, 3, 3), (2, 3, 2)],
              rtol=0.0, atol=0.0)


# Hybrid nodes with aux weights are rejected: LiteRT 2.3's hybrid kernel
# gives values of 1e17 and more there (batch-major; its time-major hybrid
# loop runs the sequence max_time times over), so there is no reference.
def test_bidirectional_rnn_aux_rejections(tmp_path):
    rng = np.random.default_rng(243)
    shape = (2, 1, 3)

    def case(aux, hybrid=False):
        cell = rnn_hybrid_cell if hybrid else rnn_cell
        inputs = cell(rng, 3, 2, 1) + cell(rng, 3, 2, 1) + aux
        return OpCase(op="BIDIRECTIONAL_SEQUENCE_RNN", version=2 if hybrid
                      else 1,
                      inputs=[Input(f32(rng.standard_normal(shape)))] + inputs,
                      params={"fused_activation_function": "TANH",
                              "time_major": True},
                      outputs=[np.float32] * 2,
                      output_shapes=[(2, 1, 2), (2, 1, 2)])
    aux_in = Input(f32(rng.standard_normal((2, 1, 2))))
    w = Const(weights(rng, 2, 2))
    q = int8_weights(rng, 2, 2)
    cases = {
        "one_weight": (case([aux_in, w, None]),
                       "fw_aux_weights and bw_aux_weights (inputs 10, 11) "
                       "must be both given or both absent"),
        "no_aux_input": (case([None, w, w]),
                         "aux weights are given without aux_input (input 9)"),
        "aux_shape": (case([aux_in, None, None]),
                      "aux_input has shape [2,1,2], expected [2,1,3] (without "
                      "aux weights"),
        "weight_shape": (case([aux_in, w, Const(weights(rng, 2, 3))]),
                         "bw_aux_weights has shape [2,3], expected [2,2]"),
        "hybrid": (case([aux_in, q, q], hybrid=True),
                   "aux weights in a hybrid node (INT8 weights) are not "
                   "supported"),
    }
    for name, (c, want) in cases.items():
        (tmp_path / name).mkdir()
        msg = litegpu_error(c, tmp_path / name)
        assert "BIDIRECTIONAL_SEQUENCE_RNN: " + want in msg, (name, msg)


# ---- SVDF -------------------------------------------------------------------


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("activation", ["NONE", "RELU", "TANH"])
@pytest.mark.parametrize("with_bias", [True, False])
def test_svdf(rank, activation, with_bias):
    rng = np.random.default_rng(300 + rank + len(activation) + with_bias)
    n_batch, n_input, units, memory = 2, 3, 4, 3
    filters = units * rank
    x = Input(np.zeros((n_batch, n_input), np.float32))
    inputs = [x, Const(weights(rng, filters, n_input)),
              Const(weights(rng, filters, memory)),
              Const(weights(rng, units, scale=0.2)) if with_bias else None,
              Variable(np.zeros((n_batch, filters * memory), np.float32))]
    # More Invokes than memory steps, so the oldest values drop out.
    feeds = [[f32(rng.standard_normal((n_batch, n_input)))] for _ in range(5)]
    outs = run_steps("SVDF", inputs, feeds + [oh.RESET, feeds[0]],
                     params={"rank": rank,
                             "fused_activation_function": activation},
                     shapes=[(n_batch, units)])
    np.testing.assert_array_equal(outs[5][0], outs[0][0])


def test_svdf_memory_one():
    rng = np.random.default_rng(310)
    x = Input(np.zeros((1, 2), np.float32))
    inputs = [x, Const(weights(rng, 3, 2)), Const(weights(rng, 3, 1)),
              Const(weights(rng, 3)),
              Variable(np.zeros((1, 3), np.float32))]
    feeds = [[f32(rng.standard_normal((1, 2)))] for _ in range(3)]
    run_steps("SVDF", inputs, feeds, params={"rank": 1},
              shapes=[(1, 3)])


def svdf_case(rank=1, filters=4, mutate=None, v=1):
    rng = np.random.default_rng(320)
    inputs = [Input(f32(rng.standard_normal((2, 3)))),
              Const(weights(rng, filters, 3)), Const(weights(rng, filters, 2)),
              None, Variable(np.zeros((2, filters * 2), np.float32))]
    if mutate:
        mutate(inputs)
    return OpCase(op="SVDF", version=v, inputs=inputs, params={"rank": rank},
                  output_shapes=[(2, max(filters // max(rank, 1), 1))])


def test_svdf_rank_must_divide_filters(tmp_path):
    msg = litegpu_error(svdf_case(rank=3), tmp_path)
    assert "SVDF: rank 3 must be >= 1 and divide the 4 filters" in msg
    msg = litegpu_error(svdf_case(rank=0), tmp_path)
    assert "SVDF: rank 0 must be >= 1" in msg


def test_svdf_state_shape_rejected(tmp_path):
    def bad(inputs):
        inputs[4] = Variable(np.zeros((2, 7), np.float32))
    msg = litegpu_error(svdf_case(mutate=bad), tmp_path)
    assert "SVDF: activation state has shape [2,7], expected [2,8]" in msg


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("asymmetric", [False, True])
@pytest.mark.parametrize("activation", ["NONE", "RELU", "TANH"])
def test_svdf_hybrid(rank, asymmetric, activation):
    """Hybrid SVDF (v2; v4 with asymmetric_quantize_inputs): int8
    weights_feature and weights_time. Bit for bit with LiteRT except for
    TANH (libm's tanhf against Eigen's tanh: 1e-5)."""
    rng = np.random.default_rng(330 + rank + 2 * asymmetric)
    n_batch, n_input, units, memory = 2, 5, 3, 4
    filters = units * rank

    def q(*shape):
        return Const(rng.integers(-127, 128, size=shape).astype(np.int8),
                     quant=(float(rng.uniform(0.002, 0.02)), 0))
    x = Input(np.zeros((n_batch, n_input), np.float32))
    inputs = [x, q(filters, n_input), q(filters, memory),
              Const(weights(rng, units, scale=0.2)),
              Variable(np.zeros((n_batch, filters * memory), np.float32))]
    feeds = [[f32(rng.standard_normal((n_batch, n_input)) * 2)]
             for _ in range(5)]
    feeds += [[np.zeros((n_batch, n_input), np.float32)], oh.RESET, feeds[0]]
    exact = activation != "TANH"
    run_steps("SVDF", inputs, feeds, v=4 if asymmetric else 2,
              params={"rank": rank, "fused_activation_function": activation,
                      "asymmetric_quantize_inputs": asymmetric},
              shapes=[(n_batch, units)], rtol=0.0 if exact else RTOL,
              atol=0.0 if exact else ATOL)


@pytest.mark.parametrize("kernels", ["BUILTIN_REF", "BUILTIN"])
@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("with_bias", [True, False])
def test_svdf_integer(rank, with_bias, kernels):
    """The integer kernel (v3): int8 input and output, int8 weights_feature,
    int16 weights_time and state, int32 bias, RELU (TFLite's only one, left
    to the output's clamp: negative outputs pass): bit for bit through more
    Invokes than memory steps, a reset and a repeat."""
    rng = np.random.default_rng(340 + rank + 2 * with_bias)
    n_batch, n_input, units, memory = 2, 5, 3, 4
    filters = units * rank
    x = Input(np.zeros((n_batch, n_input), np.int8), quant=(0.05, 3))
    inputs = [x,
              Const(rng.integers(-127, 128, (filters, n_input)).astype(np.int8),
                    quant=(0.01, 0)),
              Const(rng.integers(-3000, 3000, (filters, memory))
                    .astype(np.int16), quant=(1.5e-4, 0)),
              Const(rng.integers(-20000, 20000, units).astype(np.int32),
                    quant=(1e-5, 0)) if with_bias else None,
              Variable(np.zeros((n_batch, filters * memory), np.int16),
                       quant=(2.0e-3, 0))]
    feeds = [[rng.integers(-128, 128, (n_batch, n_input)).astype(np.int8)]
             for _ in range(5)]
    feeds += [oh.RESET, feeds[0]]
    outs = run_steps("SVDF", inputs, feeds, v=3,
                     params={"rank": rank, "fused_activation_function": "RELU"},
                     outputs=[Output(np.int8, quant=(0.004, -5))],
                     shapes=[(n_batch, units)], kernels=kernels)
    np.testing.assert_array_equal(outs[5][0], outs[0][0])
    assert (np.concatenate([o[0].ravel() for o in outs]) < -5).any()


def test_svdf_integer_and_mixed_weights_rejected(tmp_path):
    def integer(inputs):
        inputs[0] = Input(np.ones((2, 3), np.int8), quant=(0.1, 0))
        inputs[1] = Const(np.ones((4, 3), np.int8), quant=(0.1, 0))
    msg = litegpu_error(svdf_case(mutate=integer, v=3), tmp_path)
    assert ("SVDF: the integer kernel (INT8 input) computes activation RELU "
            "only") in msg

    def int8_time(inputs):
        integer(inputs)
        inputs[2] = Const(np.ones((4, 2), np.int8), quant=(0.1, 0))
    (tmp_path / "time").mkdir()
    case = svdf_case(mutate=int8_time, v=3)
    case.params["fused_activation_function"] = "RELU"
    msg = litegpu_error(case, tmp_path / "time")
    assert ("SVDF: weights_time has type INT8, the integer kernel needs "
            "INT16") in msg

    def huge_scales(inputs):
        inputs[0] = Input(np.ones((2, 3), np.int8), quant=(1e20, 0))
        inputs[1] = Const(np.ones((4, 3), np.int8), quant=(1e20, 0))
        inputs[2] = Const(np.ones((4, 2), np.int16), quant=(0.1, 0))
        inputs[4] = Variable(np.zeros((2, 8), np.int16), quant=(0.1, 0))
    (tmp_path / "huge").mkdir()
    case = OpCase(op="SVDF", version=3, inputs=svdf_case(
        mutate=huge_scales).inputs,
        params={"rank": 1, "fused_activation_function": "RELU"},
        outputs=[Output(np.int8, quant=(0.1, 0))], output_shapes=[(2, 4)])
    msg = litegpu_error(case, tmp_path / "huge")
    assert ("SVDF: the scales give a rescale factor out of float's range"
            in msg)

    def mixed(inputs):
        inputs[1] = Const(np.ones((4, 3), np.int8), quant=(0.1, 0))
    (tmp_path / "mixed").mkdir()
    msg = litegpu_error(svdf_case(mutate=mixed, v=2), tmp_path / "mixed")
    assert ("SVDF: weights_time has type FLOAT32; a hybrid node's weights "
            "are all INT8") in msg


def test_lstm_zero_batch():
    """An empty batch runs and gives an empty output, as in LiteRT."""
    rng = np.random.default_rng(400)
    cell, n_output = lstm_cell(rng, 3, 4, 4, 0)
    x = Input(np.zeros((0, 2, 3), np.float32))
    run_steps("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + cell,
              [[np.zeros((0, 2, 3), np.float32)]] * 2,
              params={"fused_activation_function": "TANH"},
              shapes=[(0, 2, n_output)])


def test_lstm_state_batch_mismatch_rejected(tmp_path):
    def bad(cell):
        cell[17] = Variable(np.zeros((3, 4), np.float32))
    msg = litegpu_error(lstm_case(mutate=bad), tmp_path)
    assert "output_state has shape [3,4], expected [2,4]" in msg
