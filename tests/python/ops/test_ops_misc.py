"""Normalizations, SELECT, logical reductions and small elementwise ops,
against LiteRT's reference kernels through op_harness: L2_NORMALIZATION,
LOCAL_RESPONSE_NORMALIZATION, SELECT, REDUCE_ALL, REDUCE_ANY, ATAN2,
BITWISE_XOR, RIGHT_SHIFT, BITCAST, FAKE_QUANT, DILATE, BUCKETIZE, CONV_3D,
CONV_3D_TRANSPOSE.

Each case runs in LiteRT (BUILTIN_REF unless the case says otherwise) and
in litegpu at 1 and 2 threads. Integer, bool and quantized outputs must
match exactly (quantized L2_NORMALIZATION is TFLite's fixed-point
arithmetic, bit for bit). Float tolerances:
  - L2_NORMALIZATION float32: exact (the same float32 sum of squares in
    the same order, sqrtf and one division per element, as LiteRT's
    reference kernel);
  - LOCAL_RESPONSE_NORMALIZATION: rtol 5e-5 against LiteRT, 1e-5 against
    numpy in float64. The power goes through libm's powf; LiteRT's kernel
    keeps one running window sum of alpha * x^2 per row (adding the
    entering channel, subtracting the leaving one, so rounding accumulates
    along the row: 1.2e-5 seen at 32 channels) and takes the power with
    Eigen, while litegpu sums each window afresh. LiteRT's
    reference kernel sums a window of 2 * radius channels (c - radius up to
    c + radius - 1), its default kernel 2 * radius + 1 (up to c + radius,
    TensorFlow's definition); litegpu follows TensorFlow, so these cases
    compare with LiteRT's default kernels and also with numpy in float64;
  - ATAN2: exact against LiteRT (both call libm's atan2f / atan2); numpy's
    own atan2 differs by an ulp at (inf, inf), so the numpy check allows
    rtol 2e-7;
  - FAKE_QUANT: exact (the same float32 steps); narrow_range (version 2),
    which LiteRT refuses, against TensorFlow's definition in numpy float32.
DILATE with a zero-size dimension, which LiteRT fails on, is checked
against its hand-derived empty output.
"""

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case


def run(op, inputs, params=None, outputs=(np.float32,), v=1, shapes=None,
        rtol=0.0, atol=0.0, kernels="BUILTIN_REF"):
    return check_case(OpCase(op=op, version=v, inputs=inputs,
                             params=params or {}, outputs=list(outputs),
                             output_shapes=shapes, rtol=rtol, atol=atol,
                             litert_kernels=kernels))


def litegpu_error(case, tmp_path):
    """The error litegpu reports for a case (it must fail)."""
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


# ---- L2_NORMALIZATION -------------------------------------------------------

L2_SHAPES = [(5,), (3, 8), (2, 3, 16), (2, 2, 2, 7), (1, 1, 1, 1000), (4, 1)]


@pytest.mark.parametrize("shape", L2_SHAPES, ids=str)
def test_l2_norm_float(shape):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    out = run("L2_NORMALIZATION", [Input(x)])
    want = x / np.maximum(np.sqrt((x.astype(np.float64) ** 2).sum(
        axis=-1, keepdims=True)), 1e-6)
    np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-7)


def test_l2_norm_float_epsilon_and_specials():
    """Rows of zeros (and tiny values) divide by the 1e-6 epsilon; NaN and
    infinity propagate as in LiteRT."""
    x = np.array([[0, 0, 0, 0], [1e-8, -2e-8, 0, 3e-8],
                  [1, np.nan, 2, 3], [np.inf, 1, 2, 3],
                  [1e20, 1e20, 1, 0]], np.float32)
    out = run("L2_NORMALIZATION", [Input(x)])
    np.testing.assert_array_equal(out[0][0], np.zeros(4, np.float32))
    np.testing.assert_allclose(out[0][1], x[1] / np.float32(1e-6), rtol=1e-6)


# (type, input zero point, input scale)
L2_QUANT = [(np.int8, 0, 0.05), (np.int8, -7, 0.1), (np.int8, 100, 0.02),
            (np.uint8, 128, 0.05), (np.uint8, 90, 0.3), (np.uint8, 0, 1.0)]


@pytest.mark.parametrize("dtype,zp,scale", L2_QUANT, ids=str)
@pytest.mark.parametrize("shape", [(3, 8), (2, 3, 33), (1, 1000), (6, 1),
                                   (2, 2, 2, 3)], ids=str)
def test_l2_norm_quantized(dtype, zp, scale, shape):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(12)
    x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    out_zp = 128 if dtype == np.uint8 else 0
    v = 2 if dtype == np.int8 else 1
    out = run("L2_NORMALIZATION", [Input(x, quant=(scale, zp))],
              outputs=[Output(dtype, quant=(1 / 128, out_zp))], v=v)
    # Against the real value, within a step or two of the 1/128 grid.
    d = x.astype(np.float64) - zp
    norm = np.sqrt((d ** 2).sum(axis=-1, keepdims=True))
    want = np.where(norm > 0, d / np.where(norm > 0, norm, 1), 0)
    got = (out[0].astype(np.float64) - out_zp) / 128
    assert np.abs(got - np.clip(want, -1, 127 / 128)).max() <= 2 / 128 + 1e-9


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_l2_norm_quantized_edges(dtype):
    """Rows at the zero point (sum 0), a single step (sum 1), one large
    value, and the extremes."""
    info = np.iinfo(dtype)
    zp = 128 if dtype == np.uint8 else 0
    rows = [[zp] * 6, [zp + 1] + [zp] * 5, [zp - 1] + [zp] * 5,
            [info.max] * 6, [info.min] * 6, [info.max, info.min] * 3,
            [zp + 1, zp - 1, zp + 2, zp, zp, zp]]
    x = np.array(rows, dtype)
    out_zp = 128 if dtype == np.uint8 else 0
    run("L2_NORMALIZATION", [Input(x, quant=(0.1, zp))],
        outputs=[Output(dtype, quant=(1 / 128, out_zp))],
        v=2 if dtype == np.int8 else 1)


@pytest.mark.parametrize("dtype,quant,want", [
    (np.int8, (1 / 64, 0), r"INT8 output quantization \(0.015625, 0\) is not "
     r"supported \(expected scale 1/128 and zero point 0\)"),
    (np.uint8, (1 / 128, 0), r"UINT8 output quantization \(0.0078125, 0\) is "
     r"not supported \(expected scale 1/128 and zero point 128\)"),
])
def test_l2_norm_quantized_rejected(dtype, quant, want, tmp_path):
    x = np.zeros((2, 4), dtype)
    case = OpCase(op="L2_NORMALIZATION", version=2,
                  inputs=[Input(x, quant=(0.1, 0))],
                  outputs=[Output(dtype, quant=quant)])
    oh.check_rejected(case, "L2_NORMALIZATION: " + want, litert_accepts=False)


def test_l2_norm_rejections():
    x = np.ones((2, 4), np.float32)
    oh.check_rejected(OpCase(op="L2_NORMALIZATION", inputs=[Input(x)],
                             params={"fused_activation_function": "RELU"}),
                      r"L2_NORMALIZATION: fused activation RELU is not "
                      r"supported \(expected NONE\)", litert_accepts=False)
    oh.check_rejected(OpCase(op="L2_NORMALIZATION",
                             inputs=[Input(np.float32(1))]),
                      r"L2_NORMALIZATION: input must have at least one "
                      r"dimension", litert_accepts=False)
    oh.check_rejected(OpCase(op="L2_NORMALIZATION",
                             inputs=[Input(np.ones((2, 3), np.int32))],
                             outputs=[np.int32]),
                      r"L2_NORMALIZATION: input type INT32 is not supported",
                      litert_accepts=False)


# ---- LOCAL_RESPONSE_NORMALIZATION -------------------------------------------

def lrn_numpy(x, radius, bias, alpha, beta):
    x64 = x.astype(np.float64)
    depth = x.shape[-1]
    out = np.empty_like(x64)
    for c in range(depth):
        lo, hi = max(0, c - radius), min(depth, c + radius + 1)
        s = (x64[..., lo:hi] ** 2).sum(axis=-1)
        out[..., c] = x64[..., c] * (bias + alpha * s) ** -beta
    return out


LRN_PARAMS = [(2, 1.0, 1e-4, 0.75), (0, 2.0, 0.5, 0.5), (1, 0.5, 1.0, 1.0),
              (5, 1.0, 0.1, 0.3), (20, 1.5, 0.01, 2.0)]


@pytest.mark.parametrize("radius,bias,alpha,beta", LRN_PARAMS, ids=str)
@pytest.mark.parametrize("shape", [(1, 2, 2, 8), (2, 3, 1, 5), (1, 1, 1, 1),
                                   (1, 4, 4, 32)], ids=str)
def test_lrn(radius, bias, alpha, beta, shape):
    rng = np.random.default_rng(13)
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    params = {"radius": radius, "bias": bias, "alpha": alpha, "beta": beta}
    out = run("LOCAL_RESPONSE_NORMALIZATION", [Input(x)], params=params,
              rtol=5e-5, atol=1e-6, kernels="BUILTIN")
    np.testing.assert_allclose(out[0], lrn_numpy(x, radius, bias, alpha, beta),
                               rtol=1e-5, atol=1e-7)


def test_lrn_reference_kernel_window():
    """LiteRT's reference kernel leaves channel c + radius out of the
    window: with radius 1 on [1, 2], channel 0 sees only 1 there, 1 and 2
    here (TensorFlow's definition)."""
    x = np.array([1, 2], np.float32).reshape(1, 1, 1, 2)
    params = {"radius": 1, "bias": 0.0, "alpha": 1.0, "beta": 1.0}
    case = OpCase(op="LOCAL_RESPONSE_NORMALIZATION", inputs=[Input(x)],
                  params=params)
    with oh._CaseRun(case) as r:
        r.build()
        ref = oh.run_litert(r.model, r.inputs, "BUILTIN_REF")[0]
        got = oh.run_litegpu(r.model, r.inputs)[0]
    np.testing.assert_allclose(got.ravel(), [1 / 5, 2 / 5], rtol=1e-6)
    np.testing.assert_allclose(ref.ravel(), [1 / 1, 2 / 5], rtol=1e-6)


def test_lrn_rejections():
    x = np.ones((2, 4), np.float32)
    params = {"radius": 1, "bias": 1.0, "alpha": 1.0, "beta": 0.5}
    oh.check_rejected(OpCase(op="LOCAL_RESPONSE_NORMALIZATION",
                             inputs=[Input(x)], params=params),
                      r"LOCAL_RESPONSE_NORMALIZATION: input rank 2 is not "
                      r"supported \(expected 4\)", litert_accepts=False)
    x4 = np.ones((1, 1, 2, 4), np.float32)
    oh.check_rejected(OpCase(op="LOCAL_RESPONSE_NORMALIZATION",
                             inputs=[Input(x4)],
                             params={**params, "radius": -1}),
                      r"LOCAL_RESPONSE_NORMALIZATION: radius -1 is negative")
    oh.check_rejected(OpCase(op="LOCAL_RESPONSE_NORMALIZATION",
                             inputs=[Input(x4.astype(np.int8), quant=(1, 0))],
                             params=params,
                             outputs=[Output(np.int8, quant=(1, 0))]),
                      r"LOCAL_RESPONSE_NORMALIZATION: input type INT8 is not "
                      r"supported", litert_accepts=False)


# ---- SELECT -----------------------------------------------------------------

SELECT_TYPES = [np.float32, np.int32, np.int64, np.int16, np.int8, np.uint8,
                np.bool_, np.uint32]


def values(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1,
                        size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", SELECT_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("cshape,xshape", [
    ((6,), (6,)), ((2, 3), (2, 3)), ((2, 3, 4, 5), (2, 3, 4, 5)),
    ((), (2, 3)), ((3,), (3, 4)), ((2,), (2, 3, 2, 2, 3)),
    ((4,), (4, 1, 1, 1, 1, 1, 2)), ((), ())], ids=str)
def test_select(dtype, cshape, xshape):
    rng = np.random.default_rng(14)
    c = rng.integers(0, 2, size=cshape).astype(np.bool_)
    x, y = values(rng, xshape, dtype), values(rng, xshape, dtype)
    v = 3 if 5 in (len(cshape), len(xshape)) else 1
    v = 4 if dtype == np.uint32 else v
    out = run("SELECT", [Input(c), Input(x), Input(y)], outputs=[dtype],
              shapes=[xshape], v=v)
    cb = c.reshape(c.shape + (1,) * (len(xshape) - len(cshape))) \
        if len(cshape) == 1 and cshape != xshape else c
    np.testing.assert_array_equal(out[0], np.where(cb, x, y))


def test_select_all_true_false():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = -x
    for cond in (np.ones(3, np.bool_), np.zeros(3, np.bool_)):
        out = run("SELECT", [Input(cond), Input(x), Input(y)])
        np.testing.assert_array_equal(out[0], x if cond[0] else y)


def test_select_one_element_keeps_output_shape():
    """All four tensors of one element: the output keeps its declared
    shape, as in TFLite."""
    c = np.array([True])
    x = np.array([[3.0]], np.float32)
    y = np.array([4.0], np.float32)
    out = run("SELECT", [Input(c), Input(x), Input(y)], shapes=[(1, 1, 1)])
    assert out[0].shape == (1, 1, 1) and out[0].item() == 3.0


def test_select_int8_quantized_passes_through():
    rng = np.random.default_rng(15)
    c = rng.integers(0, 2, size=(4, 5)).astype(np.bool_)
    q = (0.25, -3)
    x, y = values(rng, (4, 5), np.int8), values(rng, (4, 5), np.int8)
    run("SELECT", [Input(c), Input(x, quant=q), Input(y, quant=q)],
        outputs=[Output(np.int8, quant=q)])


@pytest.mark.parametrize("cshape,xshape,yshape,want", [
    ((2,), (3, 2), (3, 2), r"condition shape \[2\] must be x's shape \[3,2\], "
     r"a scalar, or rank 1 with x's first dimension"),
    ((2, 1), (2, 3), (2, 3), r"condition shape \[2,1\] must be x's shape"),
    ((3,), (3, 2), (3, 1), r"x shape \[3,2\] and y shape \[3,1\] differ"),
    ((2,), (), (), r"condition shape \[2\] must be x's shape \[\]"),
], ids=str)
def test_select_shapes_rejected(cshape, xshape, yshape, want):
    case = OpCase(op="SELECT", inputs=[
        Input(np.zeros(cshape, np.bool_)), Input(np.zeros(xshape, np.float32)),
        Input(np.zeros(yshape, np.float32))], output_shapes=[xshape])
    oh.check_rejected(case, "SELECT: " + want, litert_accepts=False)


def test_select_types_rejected():
    x = np.zeros((2, 2), np.float32)
    oh.check_rejected(OpCase(op="SELECT", inputs=[
        Input(np.zeros((2, 2), np.int32)), Input(x), Input(x)]),
        r"SELECT: condition type INT32 is not supported \(expected BOOL\)",
        litert_accepts=False)
    oh.check_rejected(OpCase(op="SELECT", inputs=[
        Input(np.zeros((2, 2), np.bool_)), Input(x),
        Input(x.astype(np.int32))]),
        r"SELECT: input types FLOAT32 \(x\) and INT32 \(y\) differ",
        litert_accepts=False)


def test_select_v2_still_broadcasts():
    """SELECT_V2 shares the kernel: its broadcasting is unchanged."""
    rng = np.random.default_rng(16)
    c = rng.integers(0, 2, size=(2, 1)).astype(np.bool_)
    x = rng.standard_normal((1, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    out = run("SELECT_V2", [Input(c), Input(x), Input(y)], shapes=[(2, 3)])
    np.testing.assert_array_equal(out[0], np.where(c, x, y))


# ---- REDUCE_ALL / REDUCE_ANY ------------------------------------------------

LOGICAL_CASES = [
    ((2, 3), [1], False), ((2, 3), [0], True), ((2, 3), [0, 1], False),
    ((2, 3, 4), [-1], False), ((2, 3, 4), [1, -2, 1], True),
    ((2, 3, 4), [0, 2], False), ((3, 1, 5, 7), [1, 3], True),
    ((2, 33, 65), [1], False), ((64, 40, 33), [2], True),
    ((40, 33, 64), [0, 1], False), ((2, 3), [], False), ((0, 3), [0], False),
    ((4, 5, 6, 7, 3), [0, 2, 4], True)]


def logical_out_shape(shape, axes, keep):
    red = {a % len(shape) for a in axes}
    return tuple(1 if i in red else d for i, d in enumerate(shape)
                 if keep or i not in red)


@pytest.mark.parametrize("op", ["REDUCE_ALL", "REDUCE_ANY"])
@pytest.mark.parametrize("index", range(len(LOGICAL_CASES)))
@pytest.mark.parametrize("density", [0.1, 0.9])
def test_reduce_logical(op, index, density):
    shape, axes, keep = LOGICAL_CASES[index]
    rng = np.random.default_rng(300 + index)
    x = rng.random(shape) < density
    a = np.array(axes, np.int32)
    oshape = logical_out_shape(shape, axes, keep)
    out = run(op, [Input(x), Const(a)], params={"keep_dims": keep},
              outputs=[np.bool_], shapes=[oshape])
    fn = np.all if op == "REDUCE_ALL" else np.any
    want = fn(x, axis=tuple(sorted({v % len(shape) for v in axes})),
              keepdims=keep) if axes else x
    np.testing.assert_array_equal(out[0], want)


@pytest.mark.parametrize("op", ["REDUCE_ALL", "REDUCE_ANY"])
def test_reduce_logical_dynamic_axes(op):
    """Axes given at run time: the output is dynamic in both runtimes."""
    rng = np.random.default_rng(17)
    x = rng.random((3, 4, 5)) < 0.5
    out = run(op, [Input(x), Input(np.array([2, 0], np.int32))],
              params={"keep_dims": False}, outputs=[np.bool_], shapes=[(4,)])
    fn = np.all if op == "REDUCE_ALL" else np.any
    np.testing.assert_array_equal(out[0], fn(x, axis=(0, 2)))


def test_reduce_logical_rejections():
    x = np.zeros((2, 3), np.float32)
    oh.check_rejected(OpCase(op="REDUCE_ANY", inputs=[
        Input(x), Const(np.array([0], np.int32))], outputs=[np.float32],
        output_shapes=[(3,)]),
        r"REDUCE_ANY: input type FLOAT32 is not supported \(expected BOOL\)")
    oh.check_rejected(OpCase(op="REDUCE_ALL", inputs=[
        Input(np.zeros((2, 3), np.bool_)), Const(np.array([2], np.int32))],
        outputs=[np.bool_], output_shapes=[(3,)]),
        r"REDUCE_ALL: axis 2 is out of range for an input of rank 2",
        litert_accepts=False)
    oh.check_rejected(OpCase(op="MEAN", inputs=[
        Input(np.zeros((2, 3), np.bool_)), Const(np.array([0], np.int32))],
        outputs=[np.bool_], output_shapes=[(3,)]),
        r"MEAN: input type BOOL is not supported")


# ---- ATAN2 ------------------------------------------------------------------
# atan2 goes through libm (atan2f / atan2) in both runtimes: exact here,
# as the same glibc functions give the same bits.

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4, 5), ()], ids=str)
def test_atan2(dtype, shape):
    rng = np.random.default_rng(18)
    y = (rng.standard_normal(shape) * 3).astype(dtype)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    out = run("ATAN2", [Input(y), Input(x)], outputs=[dtype])
    np.testing.assert_allclose(out[0], np.arctan2(y, x), rtol=1e-6)


def test_atan2_special_values():
    """Signed zeros, infinities and NaN: every quadrant's special case."""
    vals = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]
    y, x = np.meshgrid(np.array(vals, np.float32), np.array(vals, np.float32))
    out = run("ATAN2", [Input(y.copy()), Input(x.copy())])
    # numpy's own atan2 differs from libm's by an ulp at (inf, inf).
    np.testing.assert_allclose(out[0], np.arctan2(y, x), rtol=2e-7)
    assert np.signbit(out[0]).tolist() == np.signbit(np.arctan2(y, x)).tolist()


def test_atan2_rejections():
    a = np.zeros((2, 3), np.float32)
    oh.check_rejected(OpCase(op="ATAN2", inputs=[Input(a),
                                                 Input(np.zeros((2, 1),
                                                                np.float32))]),
                      r"ATAN2: input shapes \[2,3\] and \[2,1\] differ")
    oh.check_rejected(OpCase(op="ATAN2", inputs=[
        Input(a.astype(np.int32)), Input(a.astype(np.int32))],
        outputs=[np.int32]),
        r"ATAN2: input type INT32 is not supported \(expected FLOAT32 or "
        r"FLOAT64\)", litert_accepts=False)
    oh.check_rejected(OpCase(op="ATAN2", inputs=[
        Input(a.astype(np.float16)), Input(a.astype(np.float16))],
        outputs=[np.float16]),
        r"ATAN2: input type FLOAT16 is not supported")


# ---- BITWISE_XOR / RIGHT_SHIFT ----------------------------------------------

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]
BROADCASTS = [((8,), (8,)), ((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)),
              ((3, 1), (1, 5)), ((), (2, 2)), ((2, 1, 3, 1), (1, 4, 1, 2))]


def full_range(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True,
                        dtype=dtype)


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_bitwise_xor(dtype, shapes):
    rng = np.random.default_rng(19)
    a, b = full_range(rng, shapes[0], dtype), full_range(rng, shapes[1], dtype)
    oshape = np.broadcast_shapes(shapes[0], shapes[1])
    out = run("BITWISE_XOR", [Input(a), Input(b)], outputs=[dtype],
              shapes=[oshape])
    np.testing.assert_array_equal(out[0], np.bitwise_xor(a, b))


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_right_shift(dtype, shapes):
    """Shifts from -3 to bits + 3: out-of-range amounts clamp to 0 and
    bits - 1, as TFLite's kernel does."""
    rng = np.random.default_rng(20)
    bits = np.iinfo(dtype).bits
    a = full_range(rng, shapes[0], dtype)
    lo = 0 if np.iinfo(dtype).min == 0 else -3
    b = rng.integers(lo, bits + 3, size=shapes[1], endpoint=True).astype(dtype)
    oshape = np.broadcast_shapes(shapes[0], shapes[1])
    out = run("RIGHT_SHIFT", [Input(a), Input(b)], outputs=[dtype],
              shapes=[oshape])
    amount = np.clip(b.astype(np.int64), 0, bits - 1)
    wide = np.broadcast_to(a, oshape).astype(np.int64)
    want = (wide >> amount).astype(dtype)
    np.testing.assert_array_equal(out[0], want)


@pytest.mark.parametrize("op", ["BITWISE_XOR", "RIGHT_SHIFT"])
def test_bitwise_rejections(op):
    a = np.zeros((2, 3), np.int32)
    oh.check_rejected(OpCase(op=op, inputs=[Input(a), Input(a.astype(
        np.int8))], outputs=[np.int32]),
        op + r": input types INT32 and INT8 differ", litert_accepts=False)
    f = a.astype(np.float32)
    oh.check_rejected(OpCase(op=op, inputs=[Input(f), Input(f)]),
                      op + r": input type FLOAT32 is not supported \(expected "
                      r"INT8, UINT8, INT16, UINT16, INT32 or UINT32\)")
    oh.check_rejected(OpCase(op=op, inputs=[Input(a), Input(np.zeros(
        (2, 2), np.int32))], outputs=[np.int32]),
        op + r": input shapes \[2,3\] and \[2,2\] are not broadcastable",
        litert_accepts=False)


# ---- BITCAST ----------------------------------------------------------------

@pytest.mark.parametrize("src,dst,shape", [
    (np.float32, np.int32, (2, 3)), (np.int32, np.uint32, (5,)),
    (np.float32, np.uint8, (2, 3)), (np.int64, np.int16, (3,)),
    (np.uint8, np.float32, (2, 4)), (np.int16, np.int64, (3, 4)),
    (np.int8, np.int32, (4,)), (np.float64, np.float32, (2, 2)),
    (np.int32, np.float32, ()), (np.uint16, np.int16, (2, 0))], ids=str)
def test_bitcast(src, dst, shape):
    rng = np.random.default_rng(21)
    nbytes = int(np.prod(shape)) * np.dtype(src).itemsize
    raw = rng.integers(0, 256, size=nbytes, dtype=np.uint8)
    x = raw.view(src).reshape(shape)
    if np.dtype(src).kind == "f":
        x = np.where(np.isfinite(x), x, 1).astype(src)  # no NaN payloads
    ratio = np.dtype(src).itemsize / np.dtype(dst).itemsize
    oshape = (shape + (int(ratio),) if ratio > 1 else
              shape[:-1] if ratio < 1 else shape)
    out = run("BITCAST", [Input(x)], outputs=[dst], shapes=[oshape])
    want = np.ascontiguousarray(x).view(dst).reshape(oshape)
    np.testing.assert_array_equal(out[0].reshape(-1).view(np.uint8),
                                  want.reshape(-1).view(np.uint8))


def test_bitcast_rejections():
    oh.check_rejected(OpCase(op="BITCAST", inputs=[
        Input(np.zeros((2, 3), np.uint8))], outputs=[np.int32],
        output_shapes=[(2,)]),
        r"BITCAST: input shape \[2,3\] must end in a dimension of 4 to make "
        r"INT32 elements of UINT8", litert_accepts=False)
    oh.check_rejected(OpCase(op="BITCAST", inputs=[
        Input(np.int8(3))], outputs=[np.int32], output_shapes=[()]),
        r"BITCAST: input shape \[\] must end in a dimension of 4")


# ---- FAKE_QUANT -------------------------------------------------------------

def round_away(t):
    """Rounds float32 values half away from zero (exact in float64)."""
    t64 = np.asarray(t, np.float64)
    return np.trunc(t64 + np.copysign(0.5, t64)).astype(np.float32)


def fake_quant_numpy(x, fmin, fmax, num_bits, narrow):
    """TensorFlow's FakeQuantWithMinMaxArgs in float32, step by step."""
    f = np.float32
    qmin, qmax = f(1 if narrow else 0), f((1 << num_bits) - 1)
    scale = f((f(fmax) - f(fmin)) / (qmax - qmin))
    zp_from_min = f(qmin - f(fmin) / scale)
    zp = qmin if zp_from_min < qmin else qmax if zp_from_min > qmax else \
        round_away(zp_from_min)
    nmin, nmax = f((qmin - zp) * scale), f((qmax - zp) * scale)
    inv = f(f(1) / scale)
    c = np.minimum(nmax, np.maximum(nmin, x)).astype(f)
    t = f(c - nmin) * inv
    r = round_away(t)
    return (r * scale + nmin).astype(f)


FQ_PARAMS = [(-1.0, 1.0, 8), (-6.0, 6.0, 8), (0.0, 6.0, 8), (-3.2, 0.7, 4),
             (-0.1, 25.5, 16), (-10.0, 10.0, 2), (0.5, 2.0, 8),
             (-2.0, -0.5, 8), (-127.0, 128.0, 8)]


@pytest.mark.parametrize("fmin,fmax,bits", FQ_PARAMS, ids=str)
def test_fake_quant(fmin, fmax, bits):
    rng = np.random.default_rng(22)
    x = (rng.standard_normal((3, 50)) * max(abs(fmin), abs(fmax))).astype(
        np.float32)
    x[0, :5] = [fmin, fmax, 0.0, -1e30, 1e30]
    params = {"min": fmin, "max": fmax, "num_bits": bits}
    out = run("FAKE_QUANT", [Input(x)], params=params)
    np.testing.assert_array_equal(out[0], fake_quant_numpy(x, fmin, fmax,
                                                           bits, False))


def test_fake_quant_nan():
    x = np.array([np.nan, 1.0, -np.inf, np.inf], np.float32)
    out = run("FAKE_QUANT", [Input(x)],
              params={"min": -1.0, "max": 1.0, "num_bits": 8})
    assert not np.isnan(out[0]).any()


@pytest.mark.parametrize("fmin,fmax,bits", [(-1.0, 1.0, 8), (-6.0, 6.0, 4),
                                            (0.0, 6.0, 8)], ids=str)
def test_fake_quant_narrow_range(fmin, fmax, bits, tmp_path):
    """Version 2: LiteRT refuses narrow_range; the expected values are
    TensorFlow's definition computed in numpy. With min -1, max 1, 8 bits
    the grid is 2/254 steps and zero sits at 127."""
    rng = np.random.default_rng(23)
    x = (rng.standard_normal((4, 16)) * 3).astype(np.float32)
    case = OpCase(op="FAKE_QUANT", version=2, inputs=[Input(x)],
                  params={"min": fmin, "max": fmax, "num_bits": bits,
                          "narrow_range": True})
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    got = oh.run_litegpu(model, inputs)[0]
    np.testing.assert_array_equal(got, fake_quant_numpy(x, fmin, fmax, bits,
                                                        True))
    if (fmin, fmax, bits) == (-1.0, 1.0, 8):
        # Hand-derived: 254 steps of 2/254 from -1 to 1 (zero point 128).
        assert got.min() == -1.0 and got.max() == 1.0
        np.testing.assert_allclose(got * 127, np.round(got * 127), atol=1e-4)
    assert not oh._litert_accepts(model)[0]


@pytest.mark.parametrize("params,want", [
    ({"min": -1.0, "max": 1.0, "num_bits": 1}, r"num_bits 1 is outside 2..16"),
    ({"min": -1.0, "max": 1.0, "num_bits": 17},
     r"num_bits 17 is outside 2..16"),
    ({"min": 1.0, "max": 1.0, "num_bits": 8}, r"min 1 must be below max 1"),
], ids=str)
def test_fake_quant_rejections(params, want):
    oh.check_rejected(OpCase(op="FAKE_QUANT", inputs=[
        Input(np.zeros((2, 3), np.float32))], params=params),
        "FAKE_QUANT: " + want)


def test_fake_quant_int8_rejected():
    oh.check_rejected(OpCase(op="FAKE_QUANT", inputs=[
        Input(np.zeros((2, 3), np.int8), quant=(1, 0))],
        outputs=[Output(np.int8, quant=(1, 0))],
        params={"min": -1.0, "max": 1.0, "num_bits": 8}),
        r"FAKE_QUANT: input type INT8 is not supported")


# ---- DILATE -----------------------------------------------------------------

@pytest.mark.parametrize("shape,dilations", [
    ((3,), (2,)), ((3, 3), (2, 3)), ((2, 3, 4), (1, 1, 3)),
    ((2, 3, 4), (3, 1, 1)), ((1, 4, 1, 2), (2, 2, 5, 1)), ((2, 2), (1, 1)),
    ((2, 3, 2, 2, 2), (2, 1, 2, 1, 3))], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int16, np.int64,
                                   np.bool_], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_dilate(shape, dilations, dtype, source):
    rng = np.random.default_rng(24)
    x = values(rng, shape, dtype)
    pad = np.array(True if dtype == np.bool_ else 7, dtype)
    d = np.array(dilations, np.int32)
    oshape = tuple(0 if s == 0 else (s - 1) * k + 1
                   for s, k in zip(shape, dilations))
    wrap = Const if source == "const" else Input
    out = run("DILATE", [Input(x), wrap(d), Input(pad)], outputs=[dtype],
              shapes=[oshape])
    want = np.full(oshape, pad, dtype)
    want[tuple(slice(None, None, k) for k in dilations)] = x
    np.testing.assert_array_equal(out[0], want)


def test_dilate_empty(tmp_path):
    """A dimension of 0 stays 0 (LiteRT computes (0 - 1) * d + 1 and fails
    on the negative size): an empty output."""
    case = OpCase(op="DILATE", inputs=[
        Input(np.zeros((2, 0, 3), np.float32)),
        Const(np.array([2, 2, 2], np.int32)), Input(np.float32(1))],
        output_shapes=[(3, 0, 5)])
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    got = oh.run_litegpu(model, inputs)[0]
    assert got.shape == (3, 0, 5)


def test_dilate_rejections(tmp_path):
    x = np.zeros((2, 3), np.float32)
    pad = np.float32(0)
    oh.check_rejected(OpCase(op="DILATE", inputs=[
        Input(x), Const(np.array([2, 0], np.int32)), Input(pad)]),
        r"DILATE: dilations\[1\] = 0 is below 1")
    oh.check_rejected(OpCase(op="DILATE", inputs=[
        Input(x), Const(np.array([2], np.int32)), Input(pad)]),
        r"DILATE: dilations shape \[1\] must be \[2\]")
    oh.check_rejected(OpCase(op="DILATE", inputs=[
        Input(x), Const(np.array([2, 2], np.int32)), Input(np.int32(0))]),
        r"DILATE: padding value type INT32 differs from input type FLOAT32",
        litert_accepts=False)
    case = OpCase(op="DILATE", inputs=[
        Input(x), Input(np.array([1, -2], np.int32)), Input(pad)])
    assert "DILATE: dilations[1] = -2 is below 1" in litegpu_error(case,
                                                                   tmp_path)


# ---- BUCKETIZE -------------------------------------------------------------

BOUNDARIES = [[0.0, 10.0, 100.0], [-1.5, -0.5, 0.0, 0.25, 3.0],
              [1.0, 1.0, 2.0], [2.5]]


@pytest.mark.parametrize("boundaries", BOUNDARIES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.int64], ids=lambda t: np.dtype(t).name)
def test_bucketize(boundaries, dtype):
    rng = np.random.default_rng(25)
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal((3, 17)) * 20).astype(dtype)
        x.flat[:len(boundaries)] = boundaries  # values on the boundaries
    else:
        x = rng.integers(-120, 120, size=(3, 17)).astype(dtype)
        x.flat[:len(boundaries)] = np.trunc(boundaries)
    params = {"boundaries": [float(b) for b in boundaries]}
    out = run("BUCKETIZE", [Input(x)], params=params, outputs=[np.int32])
    b32 = np.array(boundaries, np.float32)
    want = np.searchsorted(b32, x.astype(np.float64 if dtype == np.float64
                                         else np.float32), side="right")
    np.testing.assert_array_equal(out[0], want.astype(np.int32))


def test_bucketize_specials():
    """NaN is below no boundary (last bucket); infinities at the ends;
    int64 values are compared as float, as in TFLite."""
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)
    out = run("BUCKETIZE", [Input(x)], params={"boundaries": [-1.0, 0.0]},
              outputs=[np.int32])
    np.testing.assert_array_equal(out[0], [2, 2, 0, 2, 2])
    # FLOAT64 compares in double: just below 2.5 is bucket 0, though it
    # rounds to 2.5 in float.
    near = np.array([2.4999999999, 2.5, 2.5000000001], np.float64)
    out = run("BUCKETIZE", [Input(near)], params={"boundaries": [2.5]},
              outputs=[np.int32])
    np.testing.assert_array_equal(out[0], [0, 1, 1])
    big = np.array([2**24 + 1, 2**40, -(2**40)], np.int64)
    run("BUCKETIZE", [Input(big)],
        params={"boundaries": [float(2**24), 2.0**40]}, outputs=[np.int32])


def test_bucketize_rejections():
    x = np.zeros((2, 3), np.float32)
    # The writer leaves an empty list out: options without boundaries,
    # which LiteRT's parser refuses too.
    oh.check_rejected(OpCase(op="BUCKETIZE", inputs=[Input(x)],
                             params={"boundaries": []}, outputs=[np.int32]),
                      r"BUCKETIZE: BucketizeOptions has no boundaries",
                      litert_accepts=False)
    oh.check_rejected(OpCase(op="BUCKETIZE", inputs=[Input(x)],
                             params={"boundaries": [1.0, 0.5]},
                             outputs=[np.int32]),
                      r"BUCKETIZE: boundaries must be sorted \(boundaries\[1\]"
                      r" = 0.5 is below boundaries\[0\] = 1\)",
                      litert_accepts=False)
    oh.check_rejected(OpCase(op="BUCKETIZE", inputs=[Input(x.astype(np.int8))],
                             params={"boundaries": [1.0]},
                             outputs=[np.int32]),
                      r"BUCKETIZE: input type INT8 is not supported",
                      litert_accepts=False)
    oh.check_rejected(OpCase(op="BUCKETIZE", inputs=[Input(x)],
                             params={"boundaries": [1.0]},
                             outputs=[np.int64]),
                      r"BUCKETIZE: output type INT64 is not supported")


# ---- CONV_3D ---------------------------------------------------------------
# Exact: the same float32 sums in TFLite's reference order.

def conv3d_numpy(x, w, b, strides, dilations, padding):
    """Float64 NDHWC convolution (TensorFlow's SAME / VALID)."""
    n, dims, ic = x.shape[0], x.shape[1:4], x.shape[4]
    ks, oc = w.shape[:3], w.shape[4]
    outs, pads = [], []
    for i in range(3):
        eff = (ks[i] - 1) * dilations[i] + 1
        o = (-(-dims[i] // strides[i]) if padding == "SAME"
             else (dims[i] - eff + strides[i]) // strides[i])
        outs.append(o)
        pads.append(max(0, ((o - 1) * strides[i] + eff - dims[i])) // 2)
    y = np.zeros((n,) + tuple(outs) + (oc,))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    for od in range(outs[0]):
        for oy in range(outs[1]):
            for ox in range(outs[2]):
                acc = np.zeros((n, oc))
                for kd in range(ks[0]):
                    iz = od * strides[0] - pads[0] + kd * dilations[0]
                    for ky in range(ks[1]):
                        iy = oy * strides[1] - pads[1] + ky * dilations[1]
                        for kx in range(ks[2]):
                            ix = ox * strides[2] - pads[2] + kx * dilations[2]
                            if (0 <= iz < dims[0] and 0 <= iy < dims[1]
                                    and 0 <= ix < dims[2]):
                                acc += x64[:, iz, iy, ix, :] @ w64[kd, ky, kx]
                y[:, od, oy, ox, :] = acc
    return y + (0 if b is None else b.astype(np.float64))


CONV3D_CASES = [
    # input, filter, strides (d, h, w), dilations (d, h, w), padding
    ((1, 4, 5, 6, 3), (2, 3, 3, 3, 4), (1, 1, 1), (1, 1, 1), "SAME"),
    ((2, 5, 5, 5, 2), (3, 3, 3, 2, 3), (2, 2, 2), (1, 1, 1), "VALID"),
    ((1, 6, 7, 5, 2), (2, 2, 3, 2, 2), (1, 2, 3), (1, 1, 1), "SAME"),
    ((1, 7, 6, 6, 1), (2, 3, 2, 1, 5), (1, 1, 1), (3, 2, 1), "VALID"),
    ((1, 5, 6, 7, 2), (3, 2, 2, 2, 2), (2, 1, 1), (2, 2, 3), "SAME"),
    ((1, 1, 1, 1, 4), (1, 1, 1, 4, 3), (1, 1, 1), (1, 1, 1), "VALID"),
]


@pytest.mark.parametrize("index", range(len(CONV3D_CASES)))
@pytest.mark.parametrize("bias,act", [(True, "NONE"), (False, "NONE"),
                                      (True, "RELU6"), (True, "RELU_N1_TO_1"),
                                      (True, "RELU")])
def test_conv3d(index, bias, act):
    xs, ws, strides, dilations, padding = CONV3D_CASES[index]
    rng = np.random.default_rng(400 + index)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) * 0.5).astype(np.float32)
    b = rng.standard_normal(ws[4]).astype(np.float32) if bias else None
    params = {"padding": padding, "stride_d": strides[0],
              "stride_h": strides[1], "stride_w": strides[2],
              "dilation_d_factor": dilations[0],
              "dilation_h_factor": dilations[1],
              "dilation_w_factor": dilations[2],
              "fused_activation_function": act}
    want = conv3d_numpy(x, w, b, strides, dilations, padding)
    out = run("CONV_3D", [Input(x), Const(w), Const(b) if bias else None],
              params=params, shapes=[want.shape])
    if act == "NONE":
        np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-4)


def test_conv3d_runtime_filter():
    """A filter given at run time (not a constant) works the same."""
    rng = np.random.default_rng(410)
    x = rng.standard_normal((1, 3, 4, 4, 2)).astype(np.float32)
    w = rng.standard_normal((2, 2, 2, 2, 3)).astype(np.float32)
    run("CONV_3D", [Input(x), Input(w), Input(np.zeros(3, np.float32))],
        params={"padding": "SAME", "stride_d": 1, "stride_h": 1,
                "stride_w": 1}, shapes=[(1, 3, 4, 4, 3)])


def test_conv3d_infinity_clamps():
    """Without an activation TFLite's range is float's finite extremes:
    an infinite sum becomes +-FLT_MAX; NaN stays NaN."""
    x = np.ones((1, 1, 1, 3, 1), np.float32)
    x[0, 0, 0, :, 0] = [np.inf, -np.inf, np.nan]
    w = np.ones((1, 1, 1, 1, 1), np.float32)
    out = run("CONV_3D", [Input(x), Const(w)],
              params={"padding": "VALID", "stride_d": 1, "stride_h": 1,
                      "stride_w": 1}, shapes=[x.shape])
    fmax = np.finfo(np.float32).max
    assert out[0].ravel()[:2].tolist() == [fmax, -fmax]
    assert np.isnan(out[0].ravel()[2])


def test_conv3d_rejections():
    x = np.zeros((1, 3, 3, 3, 2), np.float32)
    ok = {"padding": "VALID", "stride_d": 1, "stride_h": 1, "stride_w": 1}
    oh.check_rejected(OpCase(op="CONV_3D", inputs=[
        Input(x), Const(np.zeros((2, 2, 2, 3, 4), np.float32))], params=ok),
        r"CONV_3D: input has 2 channels, the filter takes 3",
        litert_accepts=False)
    oh.check_rejected(OpCase(op="CONV_3D", inputs=[
        Input(x), Const(np.zeros((4, 2, 2, 2, 4), np.float32))], params=ok),
        r"CONV_3D: the filter's depth \(4, dilation 1\) leaves no output "
        r"from an input depth of 3")
    oh.check_rejected(OpCase(op="CONV_3D", inputs=[
        Input(x), Const(np.zeros((2, 2, 2, 2, 4), np.float32))],
        params={**ok, "stride_d": 0}),
        r"CONV_3D: stride_d must be at least 1, got 0", litert_accepts=False)
    oh.check_rejected(OpCase(op="CONV_3D", inputs=[
        Input(x), Const(np.zeros((2, 2, 2, 2, 4), np.float32)),
        Const(np.zeros(3, np.float32))], params=ok),
        r"CONV_3D: bias has 3 elements, expected 4", litert_accepts=False)
    oh.check_rejected(OpCase(op="CONV_3D", inputs=[
        Input(x.astype(np.int8), quant=(1, 0)),
        Const(np.zeros((2, 2, 2, 2, 4), np.int8), quant=(1, 0))],
        params=ok, outputs=[Output(np.int8, quant=(1, 0))]),
        r"CONV_3D: input type INT8 is not supported \(expected FLOAT32\)",
        litert_accepts=False)


# ---- CONV_3D_TRANSPOSE ------------------------------------------------------
# Exact: the same float32 scatter-adds in TFLite's reference order.

def conv3d_transpose_numpy(x, w, b, out_shape, strides, dilations, padding):
    """Float64 scatter form of the transposed NDHWC convolution."""
    n, dims, ic = x.shape[0], x.shape[1:4], x.shape[4]
    ks = w.shape[:3]
    pads = []
    for i in range(3):
        eff = (ks[i] - 1) * dilations[i] + 1
        pads.append(max(0, (dims[i] - 1) * strides[i] + eff
                        - out_shape[i + 1]) // 2)
    y = np.zeros(out_shape)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    for iz in range(dims[0]):
        for iy in range(dims[1]):
            for ix in range(dims[2]):
                for kd in range(ks[0]):
                    oz = iz * strides[0] - pads[0] + kd * dilations[0]
                    for ky in range(ks[1]):
                        oy = iy * strides[1] - pads[1] + ky * dilations[1]
                        for kx in range(ks[2]):
                            ox = ix * strides[2] - pads[2] + kx * dilations[2]
                            if (0 <= oz < out_shape[1] and
                                    0 <= oy < out_shape[2] and
                                    0 <= ox < out_shape[3]):
                                y[:, oz, oy, ox, :] += (
                                    x64[:, iz, iy, ix, :] @ w64[kd, ky, kx].T)
    return y + (0 if b is None else b.astype(np.float64))


CONV3DT_CASES = [
    # input, filter [kd, kh, kw, oc, ic], output shape, strides, dilations,
    # padding
    ((1, 2, 3, 3, 2), (2, 2, 2, 3, 2), (1, 4, 6, 6, 3), (2, 2, 2), (1, 1, 1),
     "SAME"),
    ((2, 3, 3, 2, 3), (3, 3, 2, 2, 3), (2, 5, 5, 3, 2), (1, 1, 1), (1, 1, 1),
     "VALID"),
    ((1, 2, 2, 3, 1), (2, 3, 3, 4, 1), (1, 5, 4, 7, 4), (2, 1, 2), (1, 1, 1),
     "VALID"),
    ((1, 3, 4, 4, 2), (2, 2, 3, 2, 2), (1, 3, 4, 4, 2), (1, 1, 1), (2, 1, 2),
     "SAME"),
    ((1, 2, 2, 2, 2), (3, 3, 3, 1, 2), (1, 3, 4, 3, 1), (2, 2, 2), (1, 1, 1),
     "SAME"),
]


@pytest.mark.parametrize("index", range(len(CONV3DT_CASES)))
@pytest.mark.parametrize("bias,act", [(True, "NONE"), (False, "NONE"),
                                      (True, "RELU6"), (False, "RELU")])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_conv3d_transpose(index, bias, act, source):
    xs, ws, os_, strides, dilations, padding = CONV3DT_CASES[index]
    rng = np.random.default_rng(500 + index)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) * 0.5).astype(np.float32)
    b = rng.standard_normal(ws[3]).astype(np.float32) if bias else None
    shape = np.array(os_, np.int32)
    params = {"padding": padding, "stride_d": strides[0],
              "stride_h": strides[1], "stride_w": strides[2],
              "dilation_d_factor": dilations[0],
              "dilation_h_factor": dilations[1],
              "dilation_w_factor": dilations[2],
              "fused_activation_function": act}
    wrap = Const if source == "const" else Input
    out = run("CONV_3D_TRANSPOSE",
              [wrap(shape), Const(w), Input(x)] + ([Const(b)] if bias else []),
              params=params, shapes=[os_])
    if act == "NONE":
        want = conv3d_transpose_numpy(x, w, b, os_, strides, dilations,
                                      padding)
        np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-4)


def test_conv3d_transpose_rejections(tmp_path):
    x = np.zeros((1, 2, 2, 2, 2), np.float32)
    w = np.zeros((2, 2, 2, 3, 2), np.float32)
    p = {"padding": "SAME", "stride_d": 2, "stride_h": 2, "stride_w": 2}
    oh.check_rejected(OpCase(op="CONV_3D_TRANSPOSE", inputs=[
        Const(np.array([1, 5, 4, 4, 3], np.int32)), Const(w), Input(x)],
        params=p, output_shapes=[(1, 5, 4, 4, 3)]),
        r"CONV_3D_TRANSPOSE: output depth 5 gives 3 under the filter, not "
        r"the input's 2", litert_accepts=False)
    oh.check_rejected(OpCase(op="CONV_3D_TRANSPOSE", inputs=[
        Const(np.array([1, 4, 4, 4, 2], np.int32)), Const(w), Input(x)],
        params=p, output_shapes=[(1, 4, 4, 4, 2)]),
        r"CONV_3D_TRANSPOSE: output shape batch 1 and channels 2 must be the "
        r"input's batch 1 and the filter's dimension 3 \(3\)",
        litert_accepts=False)
    oh.check_rejected(OpCase(op="CONV_3D_TRANSPOSE", inputs=[
        Const(np.array([1, 4, 4, 4, 3], np.int32)),
        Const(np.zeros((2, 2, 2, 3, 5), np.float32)), Input(x)],
        params=p, output_shapes=[(1, 4, 4, 4, 3)]),
        r"CONV_3D_TRANSPOSE: input has 2 channels, the filter takes 5",
        litert_accepts=False)
    oh.check_rejected(OpCase(op="CONV_3D_TRANSPOSE", inputs=[
        Const(np.array([1, 4, 4, 4], np.int32)), Const(w), Input(x)],
        params=p, output_shapes=[(1, 4, 4, 4, 3)]),
        r"CONV_3D_TRANSPOSE: output shape must be 5 INT32 values, got 4",
        litert_accepts=False)
    case = OpCase(op="CONV_3D_TRANSPOSE", inputs=[
        Input(np.array([1, 4, -4, 4, 3], np.int32)), Const(w), Input(x)],
        params=p, output_shapes=[(1, 4, 4, 4, 3)])
    assert ("CONV_3D_TRANSPOSE: output shape[2] = -4 is negative"
            in litegpu_error(case, tmp_path))
