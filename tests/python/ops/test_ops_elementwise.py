"""The elementwise family against LiteRT's reference kernels: ADD, SUB, MUL,
DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, POW, the comparisons (LESS,
LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL), SELECT_V2 and
quantized PRELU (its float cases are with the unary family's).

Every case runs in LiteRT (the expected values) and in litegpu on 1 and 2
threads through op_harness. Inputs are seeded. Bounds are the harness
default (1e-5 relative + 1e-6 absolute) throughout: every op here is one
correctly rounded float operation, or libm's pow, which LiteRT calls too.
Integer and bool outputs compare exactly.
"""

import zlib

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case, check_rejected

ARITH = ["ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM",
         "MINIMUM", "POW"]
WITH_ACTIVATION = ["ADD", "SUB", "MUL", "DIV"]
COMPARISONS = ["LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL",
               "NOT_EQUAL"]
ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6"]

# TFLite's BuiltinOpResolver ranges (LiteRT tflite/core/kernels/register.cc).
VERSIONS = {"ADD": 5, "SUB": 5, "MUL": 7, "DIV": 2, "SQUARED_DIFFERENCE": 2,
            "MAXIMUM": 4, "MINIMUM": 4, "POW": 1, "LESS": 3, "LESS_EQUAL": 2,
            "GREATER": 2, "GREATER_EQUAL": 3, "EQUAL": 5, "NOT_EQUAL": 4,
            "SELECT_V2": 2}

SHAPES = [
    ((2, 3), (2, 3)),                      # same shape
    ((1,), (1,)),                          # size 1
    ((7,), ()),                            # scalar right
    ((), (5,)),                            # scalar left
    ((), ()),                              # scalar op scalar
    ((2, 3, 4, 5), (5,)),                  # trailing broadcast, batch 2
    ((3, 1, 5), (1, 4, 1)),                # both sides broadcast
    ((4, 1), (1, 3)),                      # outer product shape
    ((1, 1), (17,)),                       # [1,1] keeps rank 2
    ((2, 1, 3, 1, 7), (1, 17, 1, 5, 1)),   # 5-D, alternating, odd sizes
    ((3, 1, 2, 1, 5), (2, 4, 1)),          # 5-D against 3-D
    ((0, 3), (3,)),                        # empty
    ((2, 0), (1,)),                        # empty, scalar-like side
    ((1031,), (1031,)),                    # long rows: vector loop bodies
]


def seed_of(*key):
    """A fixed seed per parameter set (hash() of a str varies per run)."""
    return zlib.crc32(repr(key).encode())


def values(rng, op, shape, side):
    """Seeded float32 inputs suited to op: DIV divisors away from 0; POW
    positive bases (negative ones are tested separately) and exponents in
    [-3, 3]."""
    if op == "POW":
        if side == 0:
            return rng.uniform(0.25, 3.0, shape).astype(np.float32)
        return rng.uniform(-3.0, 3.0, shape).astype(np.float32)
    v = (rng.standard_normal(shape) * 3.0).astype(np.float32)
    if op == "DIV" and side == 1:
        v = np.where(np.abs(v) < 0.1, np.float32(0.5), v).astype(np.float32)
    return v


def case(op, inputs, outputs=(np.float32,), version=1, params=None,
         out_shape=None, **kw):
    if out_shape is None:
        out_shape = np.broadcast_shapes(
            *[t.array.shape for t in inputs if t is not None])
    return OpCase(op=op, version=version, inputs=list(inputs),
                  params=params or {}, outputs=list(outputs),
                  output_shapes=[out_shape] * len(outputs), **kw)


def litegpu_error(c):
    """litegpu's error for a case that fails at Invoke (LiteRT must fail
    too: its reference kernels check the same values)."""
    with oh._CaseRun(c) as run:
        run.build()
        with pytest.raises(Exception):
            oh.run_litert(run.model, run.inputs)
        with pytest.raises(lg.LiteGpuError) as e:
            oh.run_litegpu(run.model, run.inputs)
        return str(e.value)


# ---- Arithmetic: float32 ----------------------------------------------------


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", ARITH)
def test_arith_broadcast_f32(op, shapes):
    rng = np.random.default_rng(seed_of(op, shapes))
    a = values(rng, op, shapes[0], 0)
    b = values(rng, op, shapes[1], 1)
    check_case(case(op, [Input(a), Input(b)]))


@pytest.mark.parametrize("op", ARITH)
def test_arith_6d_and_const(op):
    """6-D broadcasting (litegpu's limit) and a constant right operand."""
    rng = np.random.default_rng(3)
    a = values(rng, op, (2, 1, 3, 1, 2, 1), 0)
    b = values(rng, op, (1, 2, 1, 2, 1, 3), 1)
    version = {"SUB": 3, "DIV": 2, "MAXIMUM": 3, "MINIMUM": 3}.get(op, 1)
    check_case(case(op, [Input(a), Const(b)], version=version))


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("op", WITH_ACTIVATION)
def test_fused_activation(op, activation):
    rng = np.random.default_rng(17)
    # Values across -1, 0, 1 and 6 so that every clamp bites.
    a = (rng.standard_normal((3, 17)) * 4).astype(np.float32)
    b = values(rng, op, (17,), 1)
    out = check_case(case(op, [Input(a), Const(b)],
                          params={"fused_activation_function": activation}))
    lo, hi = {"NONE": (-np.inf, np.inf), "RELU": (0, np.inf),
              "RELU_N1_TO_1": (-1, 1), "RELU6": (0, 6)}[activation]
    assert out[0].min() >= lo and out[0].max() <= hi


def test_float_specials():
    """Infinite ADD/SUB/MUL/DIV results are clamped to +-FLT_MAX (TFLite's
    activation range of NONE), NaN passes; SQUARED_DIFFERENCE, MAXIMUM,
    MINIMUM and POW do not clamp."""
    inf, nan = np.inf, np.nan
    a = np.array([inf, -inf, nan, 3e38, inf, 1, 0, -0.0, 5, -1],
                 np.float32)
    b = np.array([1, 1, 1, 3e38, -inf, nan, 0, 0, -0.0, 0], np.float32)
    big = np.finfo(np.float32).max
    for op in ARITH:
        out = check_case(case(op, [Input(a), Input(b)]))[0]
        if op in WITH_ACTIVATION:
            assert np.all(np.isfinite(out) | np.isnan(out))
    out = check_case(case("DIV", [Input(a), Input(b)],
                          params={"fused_activation_function": "RELU6"}))[0]
    assert out[5] != out[5] and out[9] == 0 and out[8] == 0
    out = check_case(case("ADD", [Input(a), Input(b)]))[0]
    assert out[0] == big and out[1] == -big


def test_max_min_nan_order_and_signed_zero():
    """MAXIMUM(NaN, 1) is 1 but MAXIMUM(1, NaN) is NaN; for +-0 the right
    operand wins."""
    a = np.array([np.nan, 1, np.nan, -0.0, 0.0], np.float32)
    b = np.array([1, np.nan, np.nan, 0.0, -0.0], np.float32)
    for op in ["MAXIMUM", "MINIMUM"]:
        out = check_case(case(op, [Input(a), Input(b)]))[0]
        assert out[0] == 1 and np.isnan(out[1])
        np.testing.assert_array_equal(np.signbit(out[3:]), [False, True])


def test_pow_special_values():
    """Negative base with a non-integer exponent is NaN; integer exponents
    work; 0^-1 = inf; (-0)^-3 = -inf; overflow is inf (no clamp)."""
    a = np.array([-8, -2, -2, 0, -0.0, 1, np.nan, 10, 2], np.float32)
    b = np.array([1 / 3, 3, 2, -1, -3, np.nan, 0, 39, 0.5], np.float32)
    out = check_case(case("POW", [Input(a), Input(b)]))[0]
    assert np.isnan(out[0]) and out[1] == -8 and out[7] == np.inf


def test_pow_negative_bases_random():
    rng = np.random.default_rng(5)
    a = rng.uniform(-3, 3, (4, 33)).astype(np.float32)
    b = np.where(rng.random((4, 33)) < 0.5,
                 rng.integers(-3, 4, (4, 33)),
                 rng.uniform(-3, 3, (4, 33))).astype(np.float32)
    check_case(case("POW", [Input(a), Input(b)]))


def test_extreme_values():
    big = np.finfo(np.float32).max
    tiny = np.finfo(np.float32).tiny
    a = np.array([big, -big, tiny, 1e-45, big, 1e20], np.float32)
    b = np.array([big, big, -tiny, 1e-45, 0.5, 1e20], np.float32)
    for op in ARITH:
        check_case(case(op, [Input(a), Input(b)]))


# ---- Arithmetic: integers ---------------------------------------------------


@pytest.mark.parametrize("shapes", SHAPES[:10], ids=str)
@pytest.mark.parametrize("op", ARITH)
def test_arith_int32(op, shapes):
    rng = np.random.default_rng(seed_of(op, "i32", shapes))
    a = rng.integers(-1000, 1000, shapes[0], dtype=np.int32)
    b = rng.integers(-1000, 1000, shapes[1], dtype=np.int32)
    if op == "DIV":
        b = np.where(b == 0, 7, b).astype(np.int32)
    if op == "POW":
        a = rng.integers(-6, 7, shapes[0], dtype=np.int32)
        b = rng.integers(0, 14, shapes[1], dtype=np.int32)
    check_case(case(op, [Input(a), Input(b)], outputs=[np.int32]))


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("op", WITH_ACTIVATION)
def test_int32_activation(op, activation):
    a = np.array([-9, -3, -1, 0, 1, 3, 7, 12], np.int32)
    b = np.array([2], np.int32)
    check_case(case(op, [Input(a), Const(b)], outputs=[np.int32],
                    params={"fused_activation_function": activation}))


def test_int32_wrap_and_division():
    i32 = np.iinfo(np.int32)
    a = np.array([i32.max, i32.min, 65536, 46341, 7, -7, 7, -7, i32.min,
                  i32.min, 0], np.int32)
    b = np.array([1, 1, 65536, 46341, 2, 2, -2, -2, -1, 1, 5], np.int32)
    for op in ["ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM",
               "MINIMUM"]:
        check_case(case(op, [Input(a), Input(b)], outputs=[np.int32]))


def test_int32_pow_overflow():
    a = np.array([0, 2, -2, 3, 2, -1, 7, 46341, 1, 5], np.int32)
    b = np.array([0, 31, 31, 19, 32, 7, 0, 2, 1000000, 1], np.int32)
    check_case(case("POW", [Input(a), Input(b)], outputs=[np.int32]))


def test_int32_div_by_zero_fails_invoke():
    a = np.array([[4, 5, 6], [1, 2, 3]], np.int32)
    b = np.array([1, 0, 2], np.int32)
    msg = litegpu_error(case("DIV", [Input(a), Input(b)], outputs=[np.int32]))
    assert "DIV: input 1 holds a zero divisor at index 1" in msg


def test_int32_pow_negative_exponent_fails_invoke():
    a = np.array([2, 3], np.int32)
    b = np.array([1, -2], np.int32)
    msg = litegpu_error(case("POW", [Input(a), Input(b)], outputs=[np.int32]))
    assert "POW: input 1 holds the negative exponent -2 at index 1" in msg


@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
def test_max_min_int64(op):
    rng = np.random.default_rng(8)
    a = rng.integers(-2**62, 2**62, (3, 5), dtype=np.int64)
    b = rng.integers(-2**62, 2**62, (5,), dtype=np.int64)
    a[0, 0], b[0] = 2**62 + 1, 2**62  # equal as doubles
    check_case(case(op, [Input(a), Input(b)], outputs=[np.int64]))


# ---- Comparisons ------------------------------------------------------------


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_f32(op, shapes):
    rng = np.random.default_rng(seed_of(op, shapes))
    # Few distinct values (and a NaN) so that ties and NaN pairs occur.
    pool = np.array([-1.5, 0, -0.0, 0.5, 2, np.inf, np.nan], np.float32)
    a = rng.choice(pool, shapes[0]).astype(np.float32)
    b = rng.choice(pool, shapes[1]).astype(np.float32)
    check_case(case(op, [Input(a), Input(b)], outputs=[np.bool_]))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_int(op, dtype):
    rng = np.random.default_rng(21)
    info = np.iinfo(dtype)
    pool = np.array([info.min, -3, 0, 3, info.max], dtype)
    a = rng.choice(pool, (4, 1, 6)).astype(dtype)
    b = rng.choice(pool, (5, 1)).astype(dtype)
    if dtype == np.int64:
        a[0, 0, :2] = [2**62 + 1, 2**62]
        b[0, 0] = 2**62
    check_case(case(op, [Input(a), Input(b)], outputs=[np.bool_]))


@pytest.mark.parametrize("op", ["EQUAL", "NOT_EQUAL"])
def test_compare_bool(op):
    rng = np.random.default_rng(22)
    a = rng.random((3, 7)) < 0.5
    b = rng.random((7,)) < 0.5
    check_case(case(op, [Input(a), Const(b)], outputs=[np.bool_]))


@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_6d(op):
    rng = np.random.default_rng(23)
    a = rng.integers(-2, 3, (2, 1, 3, 1, 2, 1)).astype(np.float32)
    b = rng.integers(-2, 3, (1, 2, 1, 2, 1, 3)).astype(np.float32)
    check_case(case(op, [Input(a), Input(b)], outputs=[np.bool_]))


# ---- SELECT_V2 --------------------------------------------------------------

SELECT_SHAPES = [
    ((2, 3), (2, 3), (2, 3)),            # same shape
    ((), (2, 3), (2, 3)),                # scalar condition
    ((2, 1), (1, 3), (2, 3)),            # broadcast across all three
    ((2, 3), (), (3,)),                  # scalar x, row y
    ((1,), (1,), (1,)),                  # size 1
    ((3, 1, 5, 1, 2), (1, 4, 1, 1, 2), (4, 5, 1, 1)),  # 5-D
    ((2, 1, 3, 1, 2, 1), (1, 2, 1, 2, 1, 3), (3, 1, 1, 1)),  # 6-D
    ((0, 3), (3,), ()),                  # empty
    ((7, 1031), (1031,), (7, 1)),        # long rows
]


@pytest.mark.parametrize("shapes", SELECT_SHAPES, ids=str)
def test_select_broadcast(shapes):
    rng = np.random.default_rng(seed_of(shapes))
    cond = rng.random(shapes[0]) < 0.5
    x = rng.standard_normal(shapes[1]).astype(np.float32)
    y = rng.standard_normal(shapes[2]).astype(np.float32)
    check_case(case("SELECT_V2", [Input(cond), Input(x), Input(y)]))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.bool_,
                                   np.int8, np.uint8, np.int16, np.uint32])
def test_select_types(dtype):
    rng = np.random.default_rng(31)
    cond = rng.random((4, 5)) < 0.5
    if dtype == np.bool_:
        x, y = rng.random((4, 5)) < 0.5, rng.random((5,)) < 0.5
    elif dtype == np.float32:
        x = rng.standard_normal((4, 5)).astype(dtype)
        y = np.array([np.nan, -0.0, np.inf, 1, 2], dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, (4, 5), dtype=dtype)
        y = rng.integers(info.min, info.max, (5,), dtype=dtype)
    version = 2 if dtype == np.uint32 else 1
    check_case(case("SELECT_V2", [Input(cond), Input(x), Const(y)],
                    outputs=[dtype], version=version))


@pytest.mark.parametrize("op", ["ADD", "POW", "MINIMUM", "NOT_EQUAL",
                                "SELECT_V2"])
def test_large_split_over_threads(op):
    """Outputs above litegpu's split threshold (2^16 elements), with rows
    that the 2-thread split cuts in the middle."""
    rng = np.random.default_rng(51)
    a = values(rng, op, (3, 70001), 0)
    b = values(rng, op, (70001,), 1)
    if op == "NOT_EQUAL":  # ties must be common for a wrong index to show
        a = rng.integers(0, 3, a.shape).astype(np.float32)
        b = rng.integers(0, 3, b.shape).astype(np.float32)
    if op == "SELECT_V2":
        c = case(op, [Input(rng.random((3, 1)) < 0.5), Input(a), Input(b)])
    else:
        c = case(op, [Input(a), Input(b)],
                 outputs=[np.bool_ if op == "NOT_EQUAL" else np.float32])
    check_case(c)


# ---- Versions and rejections ------------------------------------------------


@pytest.mark.parametrize("op", ARITH)
def test_every_version_loads(op):
    """Each registered version of a float model runs (the versions that
    only add other types accept float32 too)."""
    rng = np.random.default_rng(41)
    a, b = values(rng, op, (2, 3), 0), values(rng, op, (3,), 1)
    for version in range(1, VERSIONS[op] + 1):
        check_case(case(op, [Input(a), Input(b)], version=version))


@pytest.mark.parametrize("op", COMPARISONS + ["SELECT_V2"])
def test_every_version_loads_compare_select(op):
    a = np.array([1, 2, 3], np.float32)
    b = np.array([2, 2, 2], np.float32)
    for version in range(1, VERSIONS[op] + 1):
        if op == "SELECT_V2":
            c = case(op, [Input(np.array([True, False, True])), Input(a),
                          Input(b)], version=version)
        else:
            c = case(op, [Input(a), Input(b)], outputs=[np.bool_],
                     version=version)
        check_case(c)


@pytest.mark.parametrize("op", ARITH + COMPARISONS + ["SELECT_V2"])
def test_version_above_range_rejected(op):
    a = np.ones(3, np.float32)
    inputs = [Input(a), Input(a)]
    outputs = [np.bool_] if op in COMPARISONS else [np.float32]
    if op == "SELECT_V2":
        inputs = [Input(np.ones(3, np.bool_))] + inputs
    check_rejected(case(op, inputs, outputs=outputs,
                        version=VERSIONS[op] + 1),
                   match=rf"{op}.*version.*{VERSIONS[op] + 1}",
                   litert_accepts=False)


@pytest.mark.parametrize("op", ARITH + COMPARISONS)
def test_not_broadcastable_rejected(op):
    a = np.ones((2, 3), np.float32)
    b = np.ones((4,), np.float32)
    outputs = [np.bool_] if op in COMPARISONS else [np.float32]
    check_rejected(case(op, [Input(a), Input(b)], outputs=outputs,
                        out_shape=(2, 3)),
                   match=rf"{op}: input shapes \[2,3\] and \[4\] are not "
                         r"broadcastable", litert_accepts=False)


def test_select_not_broadcastable_rejected():
    cond = np.ones((2,), np.bool_)
    x = np.ones((3,), np.float32)
    check_rejected(case("SELECT_V2", [Input(cond), Input(x), Input(x)],
                        out_shape=(3,)),
                   match=r"SELECT_V2: input shapes \[2\] \(condition\), \[3\] "
                         r"\(x\) and \[3\] \(y\) are not broadcastable",
                   litert_accepts=False)


QUANT = (0.5, 3)


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("shape1,shape2,q1,q2,qo,act", [
    ((2, 3, 4, 5), (2, 3, 4, 5), (0.05, -3), (0.07, 10), (0.1, 4), "NONE"),
    ((1, 4, 4, 8), (8,), (0.5, 0), (0.02, -128), (0.3, -7), "RELU"),
    ((3, 1, 6), (1, 5, 1), (0.011, 127), (0.013, -128), (0.02, 0), "RELU6"),
    ((7,), (7,), (1.5, 1), (0.001, 2), (0.01, 0), "RELU_N1_TO_1"),
])
def test_int8_arithmetic(op, shape1, shape2, q1, q2, qo, act):
    """INT8 ADD / SUB / MUL (version 2), bit for bit with LiteRT's reference:
    different scales and zero points per operand, broadcasting, every
    quantized activation, scale ratios far from 1."""
    rng = np.random.default_rng(2000 + len(shape1) * 7 + shape1[-1])
    a = rng.integers(-128, 128, shape1, dtype=np.int8)
    b = rng.integers(-128, 128, shape2, dtype=np.int8)
    a.reshape(-1)[:2] = [-128, 127]
    b.reshape(-1)[:2] = [127, -128]
    check_case(OpCase(op=op, version=2,
                      inputs=[Input(a, quant=q1), Input(b, quant=q2)],
                      params={"fused_activation_function": act},
                      outputs=[Output(np.int8, quant=qo)],
                      output_shapes=[np.broadcast_shapes(shape1, shape2)],
                      rtol=0.0, atol=0.0))


def test_int8_mul_rescale_above_one():
    """MUL version 3: input scales' product above the output scale (a left
    shift in the fixed-point rescale)."""
    rng = np.random.default_rng(2099)
    a = rng.integers(-128, 128, (4, 9), dtype=np.int8)
    b = rng.integers(-128, 128, (4, 9), dtype=np.int8)
    check_case(OpCase(op="MUL", version=3,
                      inputs=[Input(a, quant=(0.5, 3)),
                              Input(b, quant=(0.5, -2))],
                      outputs=[Output(np.int8, quant=(0.1, 1))],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("shape1,shape2,q1,q2,qo", [
    ((2, 3, 4, 5), (2, 3, 4, 5), (0.05, -3), (0.07, 10), (0.5, -128)),
    ((1, 4, 4, 8), (8,), (0.5, 0), (0.02, -128), (4.0, -100)),
    ((3, 1, 6), (1, 5, 1), (0.011, 127), (0.013, -128), (0.002, -128)),
])
def test_int8_squared_difference(shape1, shape2, q1, q2, qo):
    """INT8 SQUARED_DIFFERENCE (version 2), bit for bit with LiteRT's
    reference: inputs at 2 * max(scale) with 7 bits of headroom, squared,
    rescaled; broadcasting."""
    rng = np.random.default_rng(2600 + shape1[-1])
    a = rng.integers(-128, 128, shape1, dtype=np.int8)
    b = rng.integers(-128, 128, shape2, dtype=np.int8)
    check_case(OpCase(op="SQUARED_DIFFERENCE", version=2,
                      inputs=[Input(a, quant=q1), Input(b, quant=q2)],
                      outputs=[Output(np.int8, quant=qo)],
                      output_shapes=[np.broadcast_shapes(shape1, shape2)],
                      rtol=0.0, atol=0.0))


def test_int8_squared_difference_output_scale_rejected():
    """TFLite aborts when the output rescale reaches 1; litegpu refuses it
    in Prepare."""
    a = np.array([1, 2, 3], np.int8)
    check_rejected(OpCase(op="SQUARED_DIFFERENCE", version=2,
                          inputs=[Input(a, quant=(1.0, 0)),
                                  Input(a, quant=(1.0, 0))],
                          outputs=[Output(np.int8, quant=(1e-4, 0))]),
                   match=r"SQUARED_DIFFERENCE: output scale 0.0001 is too "
                         r"small for the input scales 1 and 1")


INT16_VERSION = {"ADD": 3, "SUB": 5, "MUL": 4}


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("shape1,shape2,s1,s2,so,act", [
    ((2, 3, 4, 5), (2, 3, 4, 5), 0.0005, 0.0007, 0.001, "NONE"),
    ((1, 4, 4, 8), (8,), 0.003, 0.0002, 0.0004, "RELU"),
    ((3, 1, 6), (1, 5, 1), 1.1e-4, 1.3e-4, 2e-4, "RELU6"),
    ((7,), (7,), 1.5e-5, 1e-3, 6e-5, "RELU_N1_TO_1"),
    ((2, 9), (2, 9), 2.0 ** -10, 2.0 ** -12, 2.0 ** -10, "NONE"),
])
def test_int16_arithmetic_general_scales(op, shape1, shape2, s1, s2, so,
                                         act):
    """INT16 ADD (version 3), SUB (5) and MUL (4) with pot_scale_int16 off
    (what the converter writes for 16x8 models): TFLite's general rescale
    with 15 bits of headroom, bit for bit with LiteRT's reference, for
    broadcasting, every quantized activation and power-of-two scales too."""
    rng = np.random.default_rng(2200 + len(shape1) * 7 + shape1[-1])
    a = rng.integers(-32768, 32768, shape1, dtype=np.int16)
    b = rng.integers(-32768, 32768, shape2, dtype=np.int16)
    a.reshape(-1)[:2] = [-32768, 32767]
    b.reshape(-1)[:2] = [32767, -32768]
    params = {"fused_activation_function": act}
    if op != "MUL":
        params["pot_scale_int16"] = False
    check_case(OpCase(op=op, version=INT16_VERSION[op],
                      inputs=[Input(a, quant=(s1, 0)), Input(b, quant=(s2, 0))],
                      params=params,
                      outputs=[Output(np.int16, quant=(so, 0))],
                      output_shapes=[np.broadcast_shapes(shape1, shape2)],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("op", ["ADD", "SUB"])
@pytest.mark.parametrize("log2s,act", [
    ((-12, -12, -12), "NONE"),
    ((-15, -12, -12), "NONE"),
    ((-10, -13, -10), "RELU"),
    ((-10, -10, -10), "RELU_N1_TO_1"),
])
def test_int16_add_sub_power_of_two_scales(op, log2s, act):
    """INT16 ADD / SUB (version 1) with pot_scale_int16 on and every scale a
    power of two: TFLite's LSTM path, one input shifted right (rounding) to
    the output's scale, saturating. Equal shapes: LiteRT's ADD has no
    broadcasting on this path."""
    rng = np.random.default_rng(2300 + log2s[0] * 3 + log2s[1])
    a = rng.integers(-32768, 32768, (3, 4, 5), dtype=np.int16)
    b = rng.integers(-32768, 32768, (3, 4, 5), dtype=np.int16)
    a.reshape(-1)[:3] = [-32768, 32767, 32767]
    b.reshape(-1)[:3] = [-32768, 32767, 1]
    s1, s2, so = (2.0 ** e for e in log2s)
    check_case(OpCase(op=op, version=1,
                      inputs=[Input(a, quant=(s1, 0)), Input(b, quant=(s2, 0))],
                      params={"fused_activation_function": act,
                              "pot_scale_int16": True},
                      outputs=[Output(np.int16, quant=(so, 0))],
                      rtol=0.0, atol=0.0))


def test_int16_sub_power_of_two_broadcast():
    """SUB's power-of-two path broadcasts in LiteRT (ADD's does not)."""
    rng = np.random.default_rng(2399)
    a = rng.integers(-32768, 32768, (2, 3, 4), dtype=np.int16)
    b = rng.integers(-32768, 32768, (4,), dtype=np.int16)
    check_case(OpCase(op="SUB", version=1,
                      inputs=[Input(a, quant=(2.0 ** -11, 0)),
                              Input(b, quant=(2.0 ** -13, 0))],
                      params={"pot_scale_int16": True},
                      outputs=[Output(np.int16, quant=(2.0 ** -11, 0))],
                      output_shapes=[(2, 3, 4)], rtol=0.0, atol=0.0))


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL"])
def test_int16_nonzero_zero_point_rejected(op):
    """LiteRT refuses these in Prepare (ADD, SUB) or Invoke (MUL); litegpu
    in Prepare for all three, naming the tensor."""
    a = np.array([[1, 2, 3]], np.int16)
    params = {} if op == "MUL" else {"pot_scale_int16": False}
    check_rejected(OpCase(op=op, version=INT16_VERSION[op],
                          inputs=[Input(a, quant=(0.5, 0)),
                                  Input(a, quant=(0.5, 3))],
                          params=params,
                          outputs=[Output(np.int16, quant=(1.0, 0))]),
                   match=rf"{op}: input 1 of type INT16 has zero point 3; "
                         r"INT16 quantization is symmetric",
                   litert_accepts=None if op == "MUL" else False)


def test_int16_power_of_two_both_shifted_rejected():
    a = np.array([[1, 2, 3]], np.int16)
    check_rejected(OpCase(op="ADD", version=1,
                          inputs=[Input(a, quant=(2.0 ** -12, 0)),
                                  Input(a, quant=(2.0 ** -13, 0))],
                          params={"pot_scale_int16": True},
                          outputs=[Output(np.int16, quant=(2.0 ** -11, 0))]),
                   match=r"ADD: INT16 with power-of-two scales needs one "
                         r"input at the output's scale",
                   litert_accepts=False)


# (UINT8 ADD, SUB and MUL are computed: tests/python/ops/test_ops_uint8.py.)
@pytest.mark.parametrize("op,version,dtype", [
    ("ADD", 4, np.int64),
    ("SUB", 4, np.int64),
    ("MUL", 5, np.int64), ("DIV", 1, np.uint8),
    ("SQUARED_DIFFERENCE", 2, np.uint8), ("MAXIMUM", 2, np.int8),
    ("MINIMUM", 1, np.uint8),
])
def test_other_types_rejected_by_name(op, version, dtype):
    """Versions that add quantized or int64 arithmetic: LiteRT runs them,
    litegpu refuses the type by name."""
    quantized = dtype in (np.int8, np.uint8)
    a = np.array([[1, 2, 3]], dtype)
    q = QUANT if quantized else None
    out = Output(dtype, quant=(1.0, 3) if quantized else None)
    check_rejected(OpCase(op=op, version=version,
                          inputs=[Input(a, quant=q), Input(a, quant=q)],
                          outputs=[out]),
                   match=rf"{op}: input type {oh.type_name(dtype)} is not "
                         r"supported", litert_accepts=True)


# ---- Quantized comparisons --------------------------------------------------

# The version a converter writes: TFLite's rule gives 2 for int8 inputs and
# 1 for uint8 (op_version.cc).
QUANT_VERSION = {np.dtype(np.int8): 2, np.dtype(np.uint8): 1}


def quant_values(rng, dtype, shape, zero_point):
    """Seeded values of a quantized type: the type's extremes and the zero
    point first, then half random over the range, half near the zero point
    (so that ties between the rescaled inputs occur)."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    wide = rng.integers(info.min, info.max, n, endpoint=True)
    near = np.clip(zero_point + rng.integers(-3, 4, n), info.min, info.max)
    v = np.where(rng.random(n) < 0.5, wide, near)
    v[:3] = [info.min, info.max, zero_point][:min(3, n)]
    return v.astype(dtype).reshape(shape)


def zero_point_for(dtype, zp):
    """An int8 zero point as the same offset from the middle of uint8."""
    return zp + 128 if np.dtype(dtype) == np.uint8 else zp


# (shape 1, shape 2, (scale, int8 zero point) of each input)
QUANT_COMPARE_CASES = [
    ((2, 3, 4, 5), (2, 3, 4, 5), (0.05, 3), (0.05, 3)),     # same params
    ((2, 3, 4, 5), (5,), (0.05, 3), (0.07, -5)),            # trailing
    ((3, 1, 5), (1, 4, 1), (0.02, 4), (0.01, -6)),          # ratio 2: ties
    ((4, 1), (1, 3), (0.001, 3), (0.0013, -5)),             # rounding ties
    ((2, 1, 3, 1, 7), (1, 5, 1, 4, 1), (1e-4, 0), (1e-4, 1)),  # 5-D, coarse
    ((7,), (), (0.9, -128), (0.5, 127)),                    # scalar, shift 0
    ((), (9,), (0.3, 10), (1e-10, 0)),                      # multiplier 0
    ((1031,), (1031,), (0.0123, -17), (0.0456, 33)),        # long rows
    ((0, 3), (3,), (0.1, 0), (0.2, 0)),                     # empty
]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape1,shape2,q1,q2", QUANT_COMPARE_CASES, ids=str)
@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_quantized(op, shape1, shape2, q1, q2, dtype):
    """INT8 (version 2) and UINT8 (version 1) comparisons, bit for bit with
    LiteRT's reference: each input rescaled by its own scale with 8 bits of
    headroom, different scales and zero points, broadcasting up to 5-D,
    scalars, ties created by equal reals and by rounding, a scale so small
    its multiplier is 0 (every value compares equal)."""
    rng = np.random.default_rng(seed_of(op, shape1, shape2, q1, q2,
                                        np.dtype(dtype).name))
    z1, z2 = zero_point_for(dtype, q1[1]), zero_point_for(dtype, q2[1])
    a = quant_values(rng, dtype, shape1, z1)
    b = quant_values(rng, dtype, shape2, z2)
    check_case(case(op, [Input(a, quant=(q1[0], z1)),
                         Input(b, quant=(q2[0], z2))],
                    outputs=[np.bool_],
                    version=QUANT_VERSION[np.dtype(dtype)]))


@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_quantized_const_and_threads(op):
    """A constant right operand, and an output above litegpu's split
    threshold (2^16) with rows the 2-thread split cuts."""
    rng = np.random.default_rng(seed_of(op, "q-large"))
    a = quant_values(rng, np.int8, (3, 70001), -3)
    b = quant_values(rng, np.int8, (70001,), 2)
    check_case(case(op, [Input(a, quant=(0.02, -3)),
                         Const(b, quant=(0.04, 2))],
                    outputs=[np.bool_], version=2))
    u = quant_values(rng, np.uint8, (4, 6), 128)
    c = quant_values(rng, np.uint8, (6,), 100)
    check_case(case(op, [Input(u, quant=(0.25, 128)),
                         Const(c, quant=(0.125, 100))],
                    outputs=[np.bool_], version=1))


@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_quantized_scale_one_or_more_rejected(op):
    """TFLite's rescale is a right shift: a scale of 1 or more makes its
    kernel abort or shift by a negative amount. litegpu refuses it in
    Prepare, naming the tensor (LiteRT is not run: it may abort)."""
    a = np.array([1, 2, 3], np.int8)
    check_rejected(case(op, [Input(a, quant=(0.5, 0)),
                             Input(a, quant=(1.5, 0))],
                        outputs=[np.bool_], version=2),
                   match=rf"{op}: input 1 tensor 'in1' has scale 1.5; "
                         r"TFLite's quantized comparison takes scales "
                         r"below 1")


def test_compare_quantized_bad_quantization_rejected():
    """Missing or per-channel quantization fails at Prepare with the
    tensor's name (LiteRT is not run: it aborts on a zero scale)."""
    a = np.array([[1, 2, 3]], np.int8)
    check_rejected(case("LESS", [Input(a), Input(a, quant=(0.5, 0))],
                        outputs=[np.bool_], version=2),
                   match=r"LESS: input 0 tensor 'in0' \(INT8\) has no "
                         r"quantization")
    check_rejected(case("EQUAL", [Input(a, quant=(0.5, 0)),
                                  Const(a, quant=([0.1, 0.2, 0.3],
                                                  [0, 0, 0], 1))],
                        outputs=[np.bool_], version=2),
                   match=r"EQUAL: input 1 tensor 'c1' has 3 scales "
                         r"\(expected one, per tensor\)")


@pytest.mark.parametrize("op,version", [("LESS", 3), ("GREATER_EQUAL", 3)])
def test_compare_int16_rejected(op, version):
    a = np.array([1, 2, 3], np.int16)
    check_rejected(case(op, [Input(a), Input(a)], outputs=[np.bool_],
                        version=version),
                   match=rf"{op}: input type INT16 is not supported",
                   litert_accepts=True)


# ---- Quantized PRELU --------------------------------------------------------
# (PRELU's float cases are in test_ops_unary.py.)

PRELU_QUANT_SHAPES = [
    ((1, 4, 4, 3), (3,)),          # per channel
    ((2, 4, 4, 3), (1, 1, 3)),     # per channel, rank 3
    ((2, 3, 5, 7), (3, 5, 7)),     # full per-sample alpha
    ((2, 3, 5, 7), ()),            # scalar alpha
    ((2, 5, 2, 3), (5, 1, 3)),     # (H, C) pairs
    ((1, 5, 2, 3), (5, 1, 1)),     # along H
    ((33,), (33,)),
    ((0, 3), (3,)),                # empty
]

# ((input scale, zp), (alpha scale, zp), (output scale, zp)) for int8;
# uint8 shifts each zero point by 128.
PRELU_QUANTS = [
    ((0.05, -10), (0.004, 0), (0.05, -10)),      # identity rescale 1
    ((0.1, 20), (0.01, -40), (0.03, -100)),      # rescales above 1
    ((0.02, 0), (0.008, 100), (0.5, 5)),         # negative alphas too
]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("quants", PRELU_QUANTS, ids=str)
@pytest.mark.parametrize("const_alpha", [True, False])
@pytest.mark.parametrize("shapes", PRELU_QUANT_SHAPES, ids=str)
def test_prelu_quantized(shapes, const_alpha, quants, dtype):
    """INT8 and UINT8 PRELU (version 1, TFLite has no other), bit for bit
    with LiteRT's reference: the identity branch rescaled by input / output
    scale, the alpha branch by input x alpha / output scale, with the alpha
    zero point; per-channel-shaped, full and scalar alphas, constant or
    not."""
    (si, zi), (sa, za), (so, zo) = quants
    zi, za, zo = (zero_point_for(dtype, z) for z in (zi, za, zo))
    rng = np.random.default_rng(seed_of(shapes, const_alpha, quants,
                                        np.dtype(dtype).name))
    x = quant_values(rng, dtype, shapes[0], zi)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, shapes[1],
                     endpoint=True).astype(dtype)
    alpha = (Const if const_alpha else Input)(a, quant=(sa, za))
    check_case(OpCase(op="PRELU", inputs=[Input(x, quant=(si, zi)), alpha],
                      outputs=[Output(dtype, quant=(so, zo))],
                      rtol=0.0, atol=0.0))


def test_prelu_quantized_large_two_threads():
    rng = np.random.default_rng(74)
    x = quant_values(rng, np.int8, (4, 33, 33, 16), 3)
    a = rng.integers(-128, 128, (16,)).astype(np.int8)
    check_case(OpCase(op="PRELU", inputs=[Input(x, quant=(0.03, 3)),
                                          Const(a, quant=(0.002, -7))],
                      outputs=[Output(np.int8, quant=(0.02, -1))],
                      rtol=0.0, atol=0.0))


def test_prelu_quantized_rejected():
    """Mixed types, per-channel alpha quantization, a rescale of 2^31 or
    more, and INT16 (which LiteRT computes with an INT8 alpha) fail at
    Prepare with the tensor and the problem."""
    x = np.array([[-3, 0, 5]], np.int8)
    out = Output(np.int8, quant=(0.1, 0))
    check_rejected(OpCase(op="PRELU", inputs=[Input(x, quant=(0.1, 0)),
                                              Const(np.ones(3, np.float32))],
                          outputs=[out]),
                   match=r"PRELU: alpha type FLOAT32 is not supported "
                         r"\(expected INT8, the input's\)")
    check_rejected(OpCase(op="PRELU", inputs=[
                       Input(x, quant=(0.1, 0)),
                       Const(x[0], quant=([0.1, 0.2, 0.3], [0, 0, 0], 0))],
                          outputs=[out]),
                   match=r"PRELU: alpha tensor 'c1' has 3 scales "
                         r"\(expected one, per tensor\)")
    check_rejected(OpCase(op="PRELU", inputs=[Input(x, quant=(1.0, 0)),
                                              Const(x[0], quant=(0.1, 0))],
                          outputs=[Output(np.int8, quant=(1e-10, 0))]),
                   match=r"PRELU: the identity \(input scale / output "
                         r"scale\) rescale 1e\+10 is 2\^31 or more")
    check_rejected(OpCase(op="PRELU", inputs=[Input(x), Const(x[0])],
                          outputs=[np.int8]),
                   match=r"PRELU: input tensor 'in0' \(INT8\) has no "
                         r"quantization")
    w = np.array([[-3, 0, 5]], np.int16)
    check_rejected(OpCase(op="PRELU", inputs=[Input(w, quant=(0.1, 0)),
                                              Const(x[0], quant=(0.1, 0))],
                          outputs=[Output(np.int16, quant=(0.1, 0))]),
                   match=r"PRELU: input type INT16 is not supported "
                         r"\(expected FLOAT32, INT8 or UINT8\)",
                   litert_accepts=True)


def test_mixed_and_output_types_rejected():
    a = np.ones(3, np.float32)
    i = np.ones(3, np.int32)
    check_rejected(case("MUL", [Input(a), Input(i)]),
                   match=r"MUL: input types FLOAT32 and INT32 differ",
                   litert_accepts=False)
    check_rejected(case("LESS", [Input(a), Input(a)], outputs=[np.float32]),
                   match=r"LESS: output type FLOAT32 is not supported "
                         r"\(expected BOOL\)")
    check_rejected(case("SELECT_V2", [Input(a), Input(a), Input(a)]),
                   match=r"SELECT_V2: condition type FLOAT32 is not "
                         r"supported \(expected BOOL\)",
                   litert_accepts=False)
    check_rejected(case("SELECT_V2", [Input(np.ones(3, np.bool_)), Input(a),
                                      Input(i)]),
                   match=r"SELECT_V2: input types FLOAT32 \(x\) and INT32 "
                         r"\(y\) differ", litert_accepts=False)


def test_unsupported_activation_rejected():
    a = np.ones(3, np.float32)
    check_rejected(case("ADD", [Input(a), Input(a)],
                        params={"fused_activation_function": "TANH"}),
                   match=r"ADD: fused activation TANH \(4\) is not supported")
