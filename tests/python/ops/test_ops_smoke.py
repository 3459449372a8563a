"""Smoke tests of the op harness: the kernels that exist today (ADD,
FULLY_CONNECTED) against LiteRT's reference kernels, a few rejections, and
the comparator and failure reporting of op_harness itself."""

import numpy as np
import pytest

import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case, check_rejected

ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6"]


def normal(rng, shape, scale=2.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


# ---- ADD --------------------------------------------------------------------

ADD_SHAPES = [
    ((2, 3), (2, 3)),            # same shape
    ((1,), (1,)),                # size 1
    ((5,), ()),                  # scalar side
    ((), (7,)),                  # scalar first
    ((2, 3, 4, 5), (5,)),        # trailing broadcast, batch 2
    ((3, 1, 5), (1, 4, 1)),      # both sides broadcast
    ((2, 1, 3, 1, 7), (1, 17, 1, 5, 1)),  # 5-D, odd sizes
    ((4, 1), (1, 3)),            # outer product shape
    ((0, 3), (3,)),              # empty
]


@pytest.mark.parametrize("shapes", ADD_SHAPES, ids=str)
def test_add_broadcast(shapes):
    rng = np.random.default_rng(11)
    a, b = normal(rng, shapes[0]), normal(rng, shapes[1])
    out = check_case(OpCase(op="ADD", inputs=[Input(a), Input(b)],
                            output_shapes=[np.broadcast_shapes(a.shape,
                                                               b.shape)]))
    # The harness compared with LiteRT; one independent check here too.
    np.testing.assert_allclose(out[0], a + b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_add_fused_activation(activation):
    rng = np.random.default_rng(12)
    # Values well across -1, 0, 1 and 6 so that every clamp bites.
    a = normal(rng, (3, 17), scale=4.0)
    b = normal(rng, (17,), scale=4.0)
    out = check_case(OpCase(op="ADD", inputs=[Input(a), Const(b)],
                            params={"fused_activation_function": activation},
                            output_shapes=[(3, 17)]))
    lo, hi = {"NONE": (-np.inf, np.inf), "RELU": (0, np.inf),
              "RELU_N1_TO_1": (-1, 1), "RELU6": (0, 6)}[activation]
    np.testing.assert_allclose(out[0], np.clip(a + b, lo, hi), rtol=1e-6)


def test_add_int32():
    rng = np.random.default_rng(13)
    a = rng.integers(-1000, 1000, (2, 5), dtype=np.int32)
    b = rng.integers(-1000, 1000, (5,), dtype=np.int32)
    check_case(OpCase(op="ADD", inputs=[Input(a), Input(b)],
                      outputs=[np.int32]))


def test_add_nan_inf():
    a = np.array([np.nan, np.inf, -np.inf, np.inf, 1.0, -0.0], np.float32)
    b = np.array([1.0, 1.0, 1.0, -np.inf, np.nan, 0.0], np.float32)
    out = check_case(OpCase(op="ADD", inputs=[Input(a), Input(b)]))
    # inf + -inf is NaN; compare() checked the NaN positions.
    assert np.isnan(out[0][[0, 3, 4]]).all()
    # LiteRT's reference ADD clamps to the activation range of NONE,
    # [lowest, max] of float: +-inf become +-FLT_MAX.
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(out[0][[1, 2]], [big, -big])


def test_add_same_tensor_twice():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = Input(x)
    out = check_case(OpCase(op="ADD", inputs=[t, t]))
    np.testing.assert_array_equal(out[0], 2 * x)


def test_add_extreme_values():
    big = np.finfo(np.float32).max
    a = np.array([big, -big, 1e-38, 3e-45], np.float32)
    b = np.array([big, -big, -1e-38, 3e-45], np.float32)
    out = check_case(OpCase(op="ADD", inputs=[Input(a), Input(b)]))
    # Overflow saturates at +-FLT_MAX (see test_add_nan_inf); denormals add.
    np.testing.assert_array_equal(out[0][:2], [big, -big])


def test_add_incompatible_shapes_rejected():
    rng = np.random.default_rng(14)
    check_rejected(OpCase(op="ADD", inputs=[Input(normal(rng, (2, 3))),
                                            Input(normal(rng, (4,)))]),
                   match=r"ADD", litert_accepts=False)


def test_add_mixed_quantized_types_rejected():
    """Quantized ADD computes UINT8 (v1) and INT8 (v2) inputs
    (tests/python/ops/test_ops_uint8.py), never one of each: the types are
    named."""
    a = np.array([[1, 2, 3]], np.uint8)
    b = np.array([[1, 2, 3]], np.int8)
    check_rejected(OpCase(op="ADD", version=2,
                          inputs=[Input(a, quant=(0.5, 3)),
                                  Input(b, quant=(0.5, 3))],
                          outputs=[Output(np.uint8, quant=(1.0, 3))]),
                   match=r"ADD: input types UINT8 and INT8 differ")


# ---- FULLY_CONNECTED --------------------------------------------------------

FC_SHAPES = [
    # (input shape, units): batch and depth at 1, odd sizes, batch > 1
    ((1, 1), 1),
    ((2, 3), 4),
    ((5, 17), 7),
    ((3, 2, 8), 5),  # flattened to a batch of 6
]


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("shape,units", FC_SHAPES, ids=str)
def test_fc_bias(shape, units, activation):
    rng = np.random.default_rng(21)
    x = normal(rng, shape)
    w = normal(rng, (units, shape[-1]), scale=0.5)
    b = normal(rng, (units,))
    check_case(OpCase(op="FULLY_CONNECTED", inputs=[Input(x), Const(w),
                                                    Const(b)],
                      params={"fused_activation_function": activation},
                      output_shapes=[(x.size // shape[-1], units)]))


@pytest.mark.parametrize("shape,units", FC_SHAPES, ids=str)
def test_fc_no_bias(shape, units):
    rng = np.random.default_rng(22)
    x = normal(rng, shape)
    w = normal(rng, (units, shape[-1]), scale=0.5)
    out = check_case(OpCase(op="FULLY_CONNECTED",
                            inputs=[Input(x), Const(w), None],
                            output_shapes=[(x.size // shape[-1], units)]))
    want = x.reshape(-1, shape[-1]).astype(np.float64) @ w.T.astype(np.float64)
    np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("keep", [False, True])
def test_fc_keep_num_dims(keep):
    rng = np.random.default_rng(23)
    x = normal(rng, (2, 3, 5))
    w = normal(rng, (4, 5))
    b = normal(rng, (4,))
    out = check_case(OpCase(op="FULLY_CONNECTED", version=5,
                            inputs=[Input(x), Const(w), Const(b)],
                            params={"keep_num_dims": keep},
                            output_shapes=[(2, 3, 4) if keep else (6, 4)]))
    assert out[0].shape == ((2, 3, 4) if keep else (6, 4))


def test_fc_runtime_weights():
    """Weights and bias fed as graph inputs instead of constants."""
    rng = np.random.default_rng(25)
    x, w, b = normal(rng, (3, 5)), normal(rng, (2, 5)), normal(rng, (2,))
    check_case(OpCase(op="FULLY_CONNECTED",
                      inputs=[Input(x), Input(w), Input(b)],
                      output_shapes=[(3, 2)]))


def test_fc_bad_weights_rank_rejected():
    rng = np.random.default_rng(24)
    check_rejected(OpCase(op="FULLY_CONNECTED",
                          inputs=[Input(normal(rng, (2, 3))),
                                  Const(normal(rng, (4, 3, 1))), None]),
                   match=r"FULLY_CONNECTED: weights shape \[4,3,1\] is not "
                         r"2-D")


# ---- The comparator ---------------------------------------------------------


def test_compare_accepts_equal_and_close():
    want = np.array([[1.0, -2.0], [np.nan, np.inf]], np.float32)
    got = want.copy()
    got[0, 0] += 1e-6  # within 1e-6 + 1e-5 * 1
    oh.assert_close(got, want)
    oh.assert_close(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32))


def test_compare_flags_one_wrong_element():
    want = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    got = want.copy()
    got[1, 2] += 1e-3
    with pytest.raises(oh.CaseMismatch, match=r"1 of 12 elements differ; "
                       r"first \(mismatch\) at index \(1, 2\)") as e:
        oh.assert_close(got, want)
    assert "max abs error 0.001" in str(e.value)


def test_compare_tolerance_edge():
    want = np.array([100.0], np.float32)
    # allowed = 1e-6 + 1e-5 * 100 = 1.001e-3
    oh.assert_close(want + np.float32(0.00099), want)
    with pytest.raises(oh.CaseMismatch):
        oh.assert_close(want + np.float32(0.0011), want)


@pytest.mark.parametrize("got,want", [
    ([np.nan, 1.0], [1.0, 1.0]),
    ([1.0, 1.0], [1.0, np.nan]),
])
def test_compare_flags_nan_mismatch(got, want):
    with pytest.raises(oh.CaseMismatch, match="NaN mismatch"):
        oh.assert_close(np.array(got, np.float32), np.array(want, np.float32))


@pytest.mark.parametrize("got", [np.inf, -np.inf, 3.0e38])
def test_compare_flags_infinity_mismatch(got):
    # rtol * inf would allow anything; infinities must match exactly.
    with pytest.raises(oh.CaseMismatch, match="index \\(0,\\)"):
        oh.assert_close(np.array([got], np.float32),
                        np.array([np.inf if got != np.inf else -np.inf],
                                 np.float32))


def test_compare_flags_shape_mismatch():
    with pytest.raises(oh.CaseMismatch, match=r"shape \[3, 2\] != expected "
                       r"\[2, 3\]"):
        oh.assert_close(np.zeros((3, 2), np.float32),
                        np.zeros((2, 3), np.float32))


def test_compare_flags_dtype_mismatch():
    with pytest.raises(oh.CaseMismatch, match="dtype int32 != expected "
                       "float32"):
        oh.assert_close(np.zeros(3, np.int32), np.zeros(3, np.float32))


def test_compare_integers_exact():
    want = np.array([5, 6, 7], np.int32)
    with pytest.raises(oh.CaseMismatch, match=r"index \(2,\): got .*8.*, "
                       r"want .*7"):
        oh.assert_close(np.array([5, 6, 8], np.int32), want, rtol=1, atol=1)
    with pytest.raises(oh.CaseMismatch):
        oh.assert_close(np.array([True, False]), np.array([True, True]))


# ---- Failure reporting ------------------------------------------------------


def test_mismatch_message_names_case_and_spec(monkeypatch):
    """A wrong litegpu output fails with the case name, the output index
    and the spec."""
    real = oh.run_litegpu

    def off_by_one(model, inputs, num_threads=None):
        outs = real(model, inputs, num_threads)
        outs[0][0, 1] += 1.0
        return outs

    monkeypatch.setattr(oh, "run_litegpu", off_by_one)
    x = np.ones((2, 2), np.float32)
    with pytest.raises(oh.CaseMismatch) as e:
        check_case(OpCase(op="ADD", inputs=[Input(x), Const(x)],
                          name="ones plus ones"))
    text = str(e.value)
    assert text.startswith("[ones plus ones] output 0 (1 threads): ")
    assert "index (0, 1): got np.float32(3.0), want np.float32(2.0)" in text
    assert "op ADD 1 in=in0,c1 out=out0" in text


def test_keep_cases(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("LITEGPU_KEEP_CASES", str(tmp_path))
    monkeypatch.setattr(oh, "run_litegpu",
                        lambda model, inputs, num_threads=None:
                        [np.zeros((1, 2), np.float32)])
    x = np.ones((1, 2), np.float32)
    with pytest.raises(oh.CaseMismatch, match="case files kept in"):
        check_case(OpCase(op="ADD", inputs=[Input(x), Const(x)]))
    (kept,) = list(tmp_path.iterdir())
    names = sorted(p.name for p in kept.iterdir())
    assert names == ["c1.bin", "case.spec", "inputs.npz", "model.tflite"]
    assert str(kept) in capsys.readouterr().err
    np.testing.assert_array_equal(np.load(kept / "inputs.npz")["arr_0"], x)


def test_cases_are_removed_after_success(monkeypatch, tmp_path):
    monkeypatch.setenv("LITEGPU_KEEP_CASES", str(tmp_path))
    x = np.ones((1, 2), np.float32)
    check_case(OpCase(op="ADD", inputs=[Input(x), Const(x)]))
    assert list(tmp_path.iterdir()) == []


def test_litert_failure_fails_never_skips():
    rng = np.random.default_rng(31)
    with pytest.raises(oh.LiteRTFailure, match="LiteRT's reference kernels "
                       "failed"):
        check_case(OpCase(op="ADD", inputs=[Input(normal(rng, (2, 3))),
                                            Input(normal(rng, (4,)))]))


def test_spec_error_is_reported():
    x = np.ones(2, np.float32)
    with pytest.raises(oh.HarnessError, match=r"ADD: unknown field 'stride' "
                       r"for this op \(AddOptions\)"):
        check_case(OpCase(op="ADD", inputs=[Input(x), Input(x)],
                          params={"stride": 1}))


def test_check_rejected_fails_when_accepted():
    x = np.ones(2, np.float32)
    with pytest.raises(oh.LiteGpuFailure, match="litegpu accepted the case"):
        check_rejected(OpCase(op="ADD", inputs=[Input(x), Input(x)]),
                       match="anything")


def test_check_rejected_checks_litert():
    rng = np.random.default_rng(32)
    case = OpCase(op="ADD", inputs=[Input(normal(rng, (2, 3))),
                                    Input(normal(rng, (4,)))])
    with pytest.raises(oh.LiteRTFailure, match="LiteRT rejected the case"):
        check_rejected(case, match="ADD", litert_accepts=True)


def test_unresolved_custom_op_rejected():
    x = np.ones(3, np.float32)
    check_rejected(OpCase(op="Atan", custom=True, inputs=[Input(x)],
                          custom_options=b"\x01\x02"),
                   match=r"Encountered unresolved custom op: Atan\.",
                   litert_accepts=False)

