"""The StableHLO builtins (and TFLite's REDUCE_WINDOW) against LiteRT 2.3:
STABLEHLO_ADD, STABLEHLO_MULTIPLY, STABLEHLO_MAXIMUM, STABLEHLO_MINIMUM,
STABLEHLO_AND, STABLEHLO_SHIFT_LEFT, STABLEHLO_PAD, REDUCE_WINDOW,
STABLEHLO_COMPOSITE, STABLEHLO_GATHER, STABLEHLO_SCATTER,
STABLEHLO_REDUCE_WINDOW and STABLEHLO_CASE (all version 1).

Where the expected values come from: LiteRT 2.3's reference kernels
(BUILTIN_REF) through op_harness for the arithmetic ops, STABLEHLO_PAD,
REDUCE_WINDOW and STABLEHLO_GATHER; its reference resolver does not register
STABLEHLO_AND or STABLEHLO_SHIFT_LEFT, so those compare with its builtin
kernels (BUILTIN, no delegate). STABLEHLO_COMPOSITE, STABLEHLO_SCATTER,
STABLEHLO_REDUCE_WINDOW and STABLEHLO_CASE need a second subgraph (the
decomposition, the update computation, the body, the branches), which the
harness's one-op models lack: spec models run in both runtimes (reference
kernels; builtin kernels for STABLEHLO_CASE, which the reference resolver
lacks, and for bodies made of STABLEHLO_AND), and some are checked by hand
(the spec's gather example, gather's implicit index vector, which LiteRT
reads past its indices for, scatter's NaN handling, reduce-window's dilation
and padding, every CASE branch). Shifts outside [0, 31], which LiteRT
computes with an undefined C++ shift, are checked against hand-derived
values (StableHLO's 0) in litegpu alone; REDUCE_WINDOW's signed-zero ties
are checked by sign bit (the harness compares -0.0 and 0.0 as equal). Every
output must match exactly: integers, byte moves, and float32/float64 sums,
products and comparisons done in the same order as LiteRT.

Rejections (litegpu's messages): operands of different shapes (StableHLO
has no broadcasting; LiteRT refuses them too), different types, the types
litegpu does not compute (FLOAT16 for the arithmetic ops, which LiteRT
takes; FLOAT32 for AND and SHIFT_LEFT, which LiteRT refuses), bad padding,
window, dimension-number and subgraph parameters, unrecognised region
bodies, and bad branch indices.
"""

import numpy as np
import pytest

from op_harness import Input, Const, OpCase, check_case, check_rejected

ARITH = ["STABLEHLO_ADD", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM",
         "STABLEHLO_MINIMUM"]
ARITH_TYPES = [np.float32, np.float64, np.int8, np.uint8, np.int16,
               np.uint16, np.int32, np.uint32, np.int64, np.uint64]
AND_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
             np.int64, np.uint64, np.bool_]
SHIFT_TYPES = [np.int8, np.int16, np.int32]


def values(dtype, shape, seed):
    """Random values over the type's whole range (so integer sums and
    products wrap), with the extremes included."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    out = rng.integers(info.min, info.max, size=shape, dtype=dtype,
                       endpoint=True)
    flat = out.reshape(-1)
    if flat.size >= 2:
        flat[0], flat[1] = info.min, info.max
    return out


def run(op, inputs, dtype, kernels="BUILTIN_REF", shape=None):
    return check_case(OpCase(op=op, version=1, inputs=inputs,
                             outputs=[dtype], rtol=0.0, atol=0.0,
                             output_shapes=[shape] if shape else None,
                             litert_kernels=kernels))


@pytest.mark.parametrize("op", ARITH)
@pytest.mark.parametrize("dtype", ARITH_TYPES, ids=lambda t: np.dtype(t).name)
def test_arith_types(op, dtype):
    a = values(dtype, (2, 3, 4), 1)
    b = values(dtype, (2, 3, 4), 2)
    run(op, [Input(a), Input(b)], dtype)


@pytest.mark.parametrize("op", ARITH)
@pytest.mark.parametrize("shape", [(), (7,), (1, 1, 5), (2, 1, 3, 2, 2),
                                   (3, 0, 2)], ids=str)
def test_arith_shapes(op, shape):
    a = values(np.float32, shape, 3)
    b = values(np.float32, shape, 4)
    run(op, [Input(a), Const(b)], np.float32, shape=shape)


@pytest.mark.parametrize("op", ARITH)
def test_arith_same_tensor_twice(op):
    a = Input(values(np.int32, (4, 5), 5))
    run(op, [a, a], np.int32)


@pytest.mark.parametrize("op", ["STABLEHLO_MAXIMUM", "STABLEHLO_MINIMUM"])
def test_max_min_nan_and_signed_zero(op):
    # std::max / std::min keep the first operand on ties and unordered
    # pairs: NaN survives from the first operand, not from the second.
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    a = np.array([nan, 1.0, nan, 0.0, -0.0, inf, -inf, 2.0], np.float32)
    b = np.array([1.0, nan, nan, -0.0, 0.0, -inf, inf, 2.0], np.float32)
    run(op, [Input(a), Input(b)], np.float32)


def test_add_multiply_large_float():
    a = np.array([3e38, -3e38, 1e-45, 1e30], np.float32)
    b = np.array([3e38, -3e38, 0.5, 1e30], np.float32)
    run("STABLEHLO_ADD", [Input(a), Input(b)], np.float32)
    run("STABLEHLO_MULTIPLY", [Input(a), Input(b)], np.float32)


@pytest.mark.parametrize("dtype", AND_TYPES, ids=lambda t: np.dtype(t).name)
def test_and_types(dtype):
    a = values(dtype, (3, 5), 6)
    b = values(dtype, (3, 5), 7)
    run("STABLEHLO_AND", [Input(a), Input(b)], dtype, kernels="BUILTIN")


@pytest.mark.parametrize("dtype", SHIFT_TYPES, ids=lambda t: np.dtype(t).name)
def test_shift_left_types(dtype):
    rng = np.random.default_rng(8)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(4, 8), dtype=dtype,
                     endpoint=True)
    # Shifts 0..31: past the type's width the truncated result is 0.
    b = np.arange(32, dtype=dtype).reshape(4, 8)
    run("STABLEHLO_SHIFT_LEFT", [Input(a), Input(b)], dtype,
        kernels="BUILTIN")


def test_shift_left_negative_values():
    a = np.array([-1, -3, -128, 127, 64, -64], np.int8)
    b = np.array([1, 2, 1, 1, 1, 0], np.int8)
    run("STABLEHLO_SHIFT_LEFT", [Input(a), Const(b)], np.int8,
        kernels="BUILTIN")


def test_shift_left_by_31():
    a = np.array([1, -1, 3, 2, -7], np.int32)
    b = np.array([31, 31, 30, 30, 29], np.int32)
    run("STABLEHLO_SHIFT_LEFT", [Input(a), Input(b)], np.int32,
        kernels="BUILTIN")


def test_shift_left_out_of_range_hand_derived():
    # LiteRT's shift is undefined C++ here; StableHLO gives 0.
    from op_harness import write_spec, build_model, run_litegpu
    import tempfile
    from pathlib import Path
    a = np.array([1, -1, 5, 7], np.int32)
    b = np.array([32, -1, 40, -32], np.int32)
    case = OpCase(op="STABLEHLO_SHIFT_LEFT", version=1,
                  inputs=[Input(a), Input(b)], outputs=[np.int32])
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        _, inputs = write_spec(case, d)
        build_model(d / "case.spec", d / "model.tflite")
        (got,) = run_litegpu(d / "model.tflite", inputs, num_threads=1)
    np.testing.assert_array_equal(got, np.zeros(4, np.int32))


# ---- Rejections -------------------------------------------------------------

@pytest.mark.parametrize("op", ARITH)
def test_arith_rejects_broadcast(op):
    a = np.ones((2, 3), np.float32)
    b = np.ones((1, 3), np.float32)
    check_rejected(OpCase(op=op, inputs=[Input(a), Input(b)],
                          outputs=[np.float32]),
                   match=op + r": input shapes \[2,3\] and \[1,3\] differ",
                   litert_accepts=False)


@pytest.mark.parametrize("op", ["STABLEHLO_AND", "STABLEHLO_SHIFT_LEFT"])
def test_bitwise_rejects_broadcast(op):
    a = np.ones((4,), np.int32)
    b = np.ones((), np.int32)
    check_rejected(OpCase(op=op, inputs=[Input(a), Input(b)],
                          outputs=[np.int32]),
                   match=op + r": input shapes \[4\] and \[\] differ")


@pytest.mark.parametrize("op", ARITH + ["STABLEHLO_AND",
                                        "STABLEHLO_SHIFT_LEFT"])
def test_rejects_mixed_types(op):
    a = np.ones((4,), np.int32)
    b = np.ones((4,), np.int16)
    check_rejected(OpCase(op=op, inputs=[Input(a), Input(b)],
                          outputs=[np.int32]),
                   match=op + r": input types INT32 and INT16 differ")


@pytest.mark.parametrize("op", ARITH)
def test_arith_rejects_float16(op):
    a = np.ones((4,), np.float16)
    check_rejected(OpCase(op=op, inputs=[Input(a), Input(a.copy())],
                          outputs=[np.float16]),
                   match=op + r": input type FLOAT16 is not supported "
                   r"\(expected FLOAT32, FLOAT64, INT8")


@pytest.mark.parametrize("op", ARITH)
def test_arith_rejects_bool(op):
    a = np.ones((4,), np.bool_)
    check_rejected(OpCase(op=op, inputs=[Input(a), Input(a.copy())],
                          outputs=[np.bool_]),
                   match=op + r": input type BOOL is not supported")


@pytest.mark.parametrize("op,dtype,expected", [
    ("STABLEHLO_AND", np.float32, r"INT8, UINT8, .* or BOOL"),
    ("STABLEHLO_SHIFT_LEFT", np.float32, r"INT8, INT16 or INT32"),
    ("STABLEHLO_SHIFT_LEFT", np.int64, r"INT8, INT16 or INT32"),
    ("STABLEHLO_SHIFT_LEFT", np.uint8, r"INT8, INT16 or INT32"),
])
def test_bitwise_rejects_types(op, dtype, expected):
    a = np.ones((4,), dtype)
    check_rejected(OpCase(op=op, inputs=[Input(a), Input(a.copy())],
                          outputs=[dtype]),
                   match=op + r": input type \w+ is not supported \(expected "
                   + expected)


@pytest.mark.parametrize("op", ARITH)
def test_rejects_version_2(op):
    a = np.ones((4,), np.float32)
    check_rejected(OpCase(op=op, version=2, inputs=[Input(a), Input(a)],
                          outputs=[np.float32]),
                   match=op + r".*version 2", litert_accepts=False)


# ---- STABLEHLO_PAD ----------------------------------------------------------
# Options in builtin_options_2 (StablehloPadOptions, [long] vectors), which
# litegpu's writer writes and both runtimes read; LiteRT's reference kernel
# gives the expected values (exact: the op moves bytes).

def pad(x, value, low, high, interior, const_value=True, kernels="BUILTIN_REF"):
    out_shape = tuple(
        max(0, d + max(d - 1, 0) * i + lo + hi)
        for d, lo, hi, i in zip(x.shape, low, high, interior))
    if any(d == 0 for d in out_shape):
        out_shape = tuple(0 for _ in out_shape)
    v = np.array(value, dtype=x.dtype)
    return check_case(OpCase(
        op="STABLEHLO_PAD", version=1,
        inputs=[Input(x), Const(v) if const_value else Input(v)],
        params={"edge_padding_low": list(low),
                "edge_padding_high": list(high),
                "interior_padding": list(interior)},
        outputs=[x.dtype.type], output_shapes=[out_shape], rtol=0.0, atol=0.0,
        litert_kernels=kernels))


PAD_CASES = [
    # shape, low, high, interior
    ((2, 3), (1, 2), (2, 1), (0, 0)),
    ((2, 3), (0, 0), (0, 0), (1, 2)),
    ((2, 3), (1, 0), (0, 3), (2, 1)),
    ((4, 5), (-1, -2), (-1, 0), (0, 0)),          # cropping
    ((3, 4), (-1, -3), (-2, 1), (1, 2)),          # cropping into the interior
    ((3, 4), (-2, 0), (0, -4), (1, 1)),
    ((5,), (3,), (-2,), (2,)),
    ((2, 1, 3), (0, 1, 1), (1, 0, 1), (1, 0, 1)),
    ((1, 2, 2, 3), (1, 0, 1, 0), (0, 1, 0, 2), (0, 1, 1, 0)),
    ((2, 1, 2, 1, 2), (1, 0, 0, 1, 0), (0, 1, 0, 0, 1), (0, 0, 1, 0, 1)),
    ((1, 2, 1, 2, 1, 2, 1, 2), (0, 1, 0, 0, 0, 1, 0, 0),
     (0, 0, 0, 1, 0, 0, 1, 0), (0, 1, 0, 0, 0, 0, 0, 1)),
    ((2, 3), (0, 0), (0, 0), (0, 0)),             # identity
]


@pytest.mark.parametrize("shape,low,high,interior", PAD_CASES, ids=str)
def test_pad_float32(shape, low, high, interior):
    x = values(np.float32, shape, 11)
    pad(x, -7.5, low, high, interior)


@pytest.mark.parametrize("shape,low,high,interior", PAD_CASES[:6], ids=str)
def test_pad_runtime_padding_value(shape, low, high, interior):
    x = values(np.int32, shape, 12)
    pad(x, 99, low, high, interior, const_value=False)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16,
                                   np.int32, np.uint32, np.int64, np.uint64,
                                   np.float64, np.float16, np.bool_],
                         ids=lambda t: np.dtype(t).name)
def test_pad_types(dtype):
    x = values(dtype, (3, 4), 13) if dtype != np.float16 else \
        values(np.float32, (3, 4), 13).astype(np.float16)
    pad(x, 1, (1, -1), (-1, 2), (1, 1))


@pytest.mark.parametrize("low", [(-3, 0), (-5, 1), (0, -9)], ids=str)
def test_pad_everything_cropped(low):
    # Output dims <= 0: LiteRT gives an empty output with every dim 0.
    x = values(np.float32, (3, 4), 14)
    pad(x, 0.0, low, (0, 1), (0, 0))


@pytest.mark.parametrize("interior", [(1, 0), (0, 2)], ids=str)
def test_pad_empty_operand(interior):
    # A zero dim gives low + high padding elements (StableHLO's
    # d + max(d - 1, 0) * interior + low + high).
    x = np.zeros((0, 3), np.float32)
    pad(x, 2.5, (2, 0), (1, 1), interior)


def test_pad_rejects_negative_interior():
    x = np.ones((2, 2), np.float32)
    check_rejected(OpCase(
        op="STABLEHLO_PAD", inputs=[Input(x), Const(np.float32(0))],
        params={"interior_padding": [0, -1]}, outputs=[np.float32]),
        match=r"STABLEHLO_PAD: interior_padding\[1\] = -1 is out of range",
        litert_accepts=False)


def test_pad_rejects_value_type():
    x = np.ones((2, 2), np.float32)
    check_rejected(OpCase(
        op="STABLEHLO_PAD", inputs=[Input(x), Const(np.int32(0))],
        params={"edge_padding_low": [1, 1]}, outputs=[np.float32]),
        match=r"STABLEHLO_PAD: padding value type INT32 differs from "
        r"operand type FLOAT32")


def test_pad_rejects_value_shape():
    x = np.ones((2, 2), np.float32)
    check_rejected(OpCase(
        op="STABLEHLO_PAD", inputs=[Input(x), Const(np.zeros(2, np.float32))],
        params={"edge_padding_low": [1, 1]}, outputs=[np.float32]),
        match=r"STABLEHLO_PAD: the padding value has 2 elements, not 1")


def test_pad_rejects_scalar_operand():
    x = np.float32(3.0)
    check_rejected(OpCase(
        op="STABLEHLO_PAD", inputs=[Input(x), Const(np.float32(0))],
        outputs=[np.float32], output_shapes=[()]),
        match=r"STABLEHLO_PAD: the operand is a scalar", litert_accepts=False)


def test_pad_rejects_huge_padding():
    x = np.ones((2, 2), np.float32)
    check_rejected(OpCase(
        op="STABLEHLO_PAD", inputs=[Input(x), Const(np.float32(0))],
        params={"edge_padding_high": [0, 3000000000]}, outputs=[np.float32]),
        match=r"STABLEHLO_PAD: edge_padding_high\[1\] = 3000000000 is out of "
        r"range")


# ---- REDUCE_WINDOW (TFLite's builtin, code 205) ------------------------------
# ReduceWindowOptions in builtin_options_2 (reduce_function: 1 ADD, 2 MUL,
# 3 MINIMUM, 4 MAXIMUM, 5 ALL, 6 ANY); against LiteRT's reference kernel,
# exactly (both fold each window in row-major order from the init value).

RW_FUNCS = {"ADD": 1, "MUL": 2, "MINIMUM": 3, "MAXIMUM": 4, "ALL": 5, "ANY": 6}


def reduce_window(x, init, window, strides, dilations, fn, const_init=True):
    out_shape = tuple(
        0 if d < (w - 1) * dl + 1 else (d - ((w - 1) * dl + 1)) // s + 1
        for d, w, s, dl in zip(x.shape, window, strides, dilations))
    v = np.array(init, dtype=x.dtype)
    return check_case(OpCase(
        op="REDUCE_WINDOW", version=1,
        inputs=[Input(x), Const(v) if const_init else Input(v),
                Const(np.array(window, np.int64)),
                Const(np.array(strides, np.int64)),
                Const(np.array(dilations, np.int64))],
        params={"reduce_function": RW_FUNCS[fn]},
        outputs=[x.dtype.type], output_shapes=[out_shape], rtol=0.0, atol=0.0))


RW_CASES = [
    # shape, window, strides, dilations
    ((6,), (3,), (1,), (1,)),
    ((7,), (2,), (3,), (2,)),
    ((4, 5), (2, 2), (1, 1), (1, 1)),
    ((4, 5), (2, 3), (2, 1), (1, 2)),
    ((1, 6, 6, 2), (1, 3, 3, 1), (1, 2, 2, 1), (1, 1, 1, 1)),
    ((2, 3, 4, 2, 3), (1, 2, 2, 1, 2), (1, 1, 2, 1, 1), (1, 1, 1, 2, 1)),
    ((2, 2, 3, 2, 2, 3), (2, 1, 2, 1, 2, 2), (1, 1, 1, 1, 1, 1),
     (1, 1, 2, 1, 1, 1)),
    ((3, 4), (4, 1), (1, 1), (1, 1)),        # window larger than the input
    ((5, 4), (2, 2), (1, 1), (3, 1)),        # dilated window fits once
]


@pytest.mark.parametrize("fn", ["ADD", "MUL", "MINIMUM", "MAXIMUM"])
@pytest.mark.parametrize("shape,window,strides,dilations", RW_CASES, ids=str)
def test_reduce_window_float32(fn, shape, window, strides, dilations):
    x = values(np.float32, shape, 21) / np.float32(50)
    init = {"ADD": 0.0, "MUL": 1.0, "MINIMUM": np.inf, "MAXIMUM": -np.inf}[fn]
    reduce_window(x, init, window, strides, dilations, fn)


@pytest.mark.parametrize("fn", ["ADD", "MUL", "MINIMUM", "MAXIMUM", "ALL",
                                "ANY"])
@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.int16, np.int32,
                                   np.int64, np.uint8],
                         ids=lambda t: np.dtype(t).name)
def test_reduce_window_types(fn, dtype):
    x = values(dtype, (5, 6), 22)
    if fn in ("ALL", "ANY"):
        x = (x % 3).astype(dtype)   # zeros and non-zeros
    reduce_window(x, 1 if fn in ("MUL", "ALL") else 0, (2, 3), (1, 2),
                  (2, 1), fn)


@pytest.mark.parametrize("fn", ["ALL", "ANY", "MAXIMUM", "MINIMUM"])
def test_reduce_window_bool(fn):
    x = values(np.bool_, (4, 6), 23)
    reduce_window(x, fn in ("ALL", "MINIMUM"), (2, 2), (1, 2), (1, 1), fn)


def test_reduce_window_nan_and_runtime_init():
    x = np.array([[1, np.nan, 3, -2], [np.nan, 0, 5, 7], [2, 2, np.nan, 1]],
                 np.float32)
    for fn in ("MAXIMUM", "MINIMUM", "ADD"):
        reduce_window(x, np.nan if fn == "MAXIMUM" else 0.0, (2, 2), (1, 1),
                      (1, 1), fn, const_init=False)


def _rw_case(x, window, strides, dilations, fn=1, init=None,
             window_type=np.int64, const_window=True):
    mk = Const if const_window else Input
    return OpCase(
        op="REDUCE_WINDOW",
        inputs=[Input(x), Const(np.array(0, x.dtype) if init is None else init),
                mk(np.array(window, window_type)),
                Const(np.array(strides, window_type)),
                Const(np.array(dilations, window_type))],
        params={"reduce_function": fn}, outputs=[x.dtype.type])


def test_reduce_window_rejects():
    x = np.ones((3, 4), np.float32)
    check_rejected(_rw_case(x, (2, 2), (0, 1), (1, 1)),
                   match=r"REDUCE_WINDOW: window_strides\[0\] = 0 is out of "
                   r"range")
    check_rejected(_rw_case(x, (2, 2), (1, 1), (1, -1)),
                   match=r"REDUCE_WINDOW: window_dilations\[1\] = -1")
    check_rejected(_rw_case(x, (2,), (1, 1), (1, 1)),
                   match=r"REDUCE_WINDOW: window_shape has 1 elements, "
                   r"expected 2")
    check_rejected(_rw_case(x, (2, 2), (1, 1), (1, 1), window_type=np.int32),
                   match=r"REDUCE_WINDOW: window_shape type INT32 is not "
                   r"supported", litert_accepts=False)
    check_rejected(_rw_case(x, (2, 2), (1, 1), (1, 1), const_window=False),
                   match=r"REDUCE_WINDOW: window_shape must be a constant",
                   litert_accepts=False)
    check_rejected(_rw_case(x, (2, 2), (1, 1), (1, 1), fn=0),
                   match=r"REDUCE_WINDOW: reduce_function 0 is not supported")
    check_rejected(_rw_case(x, (2, 2), (1, 1), (1, 1), fn=7),
                   match=r"REDUCE_WINDOW: reduce_function 7 is not supported")
    check_rejected(_rw_case(x, (2, 2), (1, 1), (1, 1), init=np.int32(0)),
                   match=r"REDUCE_WINDOW: init value type INT32 differs",
                   litert_accepts=False)
    check_rejected(_rw_case(np.ones((3, 4), np.float16), (2, 2), (1, 1),
                            (1, 1)),
                   match=r"REDUCE_WINDOW: input type FLOAT16 is not "
                   r"supported")  # LiteRT's Prepare takes it, its Eval not


@pytest.mark.parametrize("fn,init,want_signbit", [
    ("MAXIMUM", -np.inf, [False, True]),   # ties keep the accumulator
    ("MINIMUM", np.inf, [False, True]),
])
def test_reduce_window_signed_zero_ties(fn, init, want_signbit):
    # The harness compares -0.0 and 0.0 as equal; the sign shows which
    # operand a tie keeps (LiteRT: accu >= x ? accu : x, accu <= x ? ...).
    from op_harness import write_spec, build_model, run_litert
    import tempfile
    from pathlib import Path
    x = np.array([0.0, -0.0, -0.0, 0.0], np.float32)
    case = OpCase(op="REDUCE_WINDOW", version=1,
                  inputs=[Input(x), Const(np.float32(init)),
                          Const(np.array([2], np.int64)),
                          Const(np.array([2], np.int64)),
                          Const(np.array([1], np.int64))],
                  params={"reduce_function": RW_FUNCS[fn]},
                  outputs=[np.float32], output_shapes=[(2,)])
    got = check_case(case)[0]
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        _, inputs = write_spec(case, d)
        build_model(d / "case.spec", d / "model.tflite")
        (want,) = run_litert(d / "model.tflite", inputs)
    assert list(np.signbit(want)) == want_signbit
    assert list(np.signbit(got)) == want_signbit


# ---- STABLEHLO_COMPOSITE -----------------------------------------------------
# A two-subgraph model written as a spec (the harness builds one-op models):
# the node's decomposition subgraph computes the outputs. Expected values
# from LiteRT 2.3 (its reference kernels run the decomposition too).

COMPOSITE_SPEC = """\
tensor x FLOAT32 2,3
tensor y FLOAT32 2,3
tensor s FLOAT32 2,3
tensor p FLOAT32 2,3
op STABLEHLO_COMPOSITE 1 in=x,y out=s,p name=test.compose decomposition_subgraph_index={index} composite_attributes=hex:6b0001030101010104022401 version=3
inputs x,y
outputs s,p
subgraph decomposition
tensor a FLOAT32 2,3
tensor b FLOAT32 2,3
tensor c FLOAT32 2,3
tensor d FLOAT32 2,3
tensor e FLOAT32 2,3
op ADD 1 in=a,b out=c
op MUL 1 in=c,b out=d
op MAXIMUM 1 in=d,a out=e
inputs a,b
outputs c,e
"""


def _composite_model(tmp_path, index):
    from op_harness import build_model
    spec = tmp_path / "composite.spec"
    spec.write_text(COMPOSITE_SPEC.format(index=index))
    model = tmp_path / "composite.tflite"
    build_model(spec, model)
    return model


@pytest.mark.parametrize("kernels", ["BUILTIN_REF", "BUILTIN"])
def test_composite_runs_decomposition(tmp_path, kernels):
    from op_harness import run_litert, run_litegpu, assert_close
    model = _composite_model(tmp_path, 1)
    x = values(np.float32, (2, 3), 31)
    y = values(np.float32, (2, 3), 32)
    want = run_litert(model, [x, y], kernels)
    c = x + y
    np.testing.assert_array_equal(want[0], c)          # by hand as well
    np.testing.assert_array_equal(want[1], np.maximum(c * y, x))
    for threads in (1, 2):
        got = run_litegpu(model, [x, y], num_threads=threads)
        assert len(got) == 2
        for g, w in zip(got, want):
            assert_close(g, w, rtol=0.0, atol=0.0)


@pytest.mark.parametrize("index,match", [
    (0, r"STABLEHLO_COMPOSITE: decomposition subgraph 0 is the subgraph the "
        r"node is in"),
    (2, r"STABLEHLO_COMPOSITE: decomposition subgraph index 2 is out of "
        r"range"),
])
def test_composite_rejects_bad_index(tmp_path, index, match):
    import re
    from op_harness import run_litegpu
    from litegpu import capi as lg
    model = _composite_model(tmp_path, index)
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(lg.LiteGpuError) as raised:
        run_litegpu(model, [x, x], num_threads=1)
    assert re.search(match, str(raised.value)), str(raised.value)


# ---- STABLEHLO_GATHER --------------------------------------------------------
# StablehloGatherOptions in builtin_options_2 ([long] vectors with a count,
# index_vector_dim a long); against LiteRT's reference kernel, exactly (the
# op moves elements). Start indices outside the operand are clamped (the
# spec's and LiteRT's rule), so no case here can fail on an index.

def gather_params(offset_dims, collapsed, start_index_map, ivd, slice_sizes):
    params = {"index_vector_dim": ivd, "slice_sizes": list(slice_sizes)}
    for key, dims in (("offset_dims", offset_dims),
                      ("collapsed_slice_dims", collapsed),
                      ("start_index_map", start_index_map)):
        if dims:
            params[key] = list(dims)
    return params


def gather_out_shape(operand_shape, indices_shape, offset_dims, collapsed,
                     ivd, slice_sizes):
    batch = [d for i, d in enumerate(indices_shape) if i != ivd]
    window = [s for i, s in enumerate(slice_sizes) if i not in collapsed]
    rank = len(batch) + len(offset_dims)
    out, b, w = [], iter(batch), iter(window)
    for d in range(rank):
        out.append(next(w) if d in offset_dims else next(b))
    return tuple(out)


def gather(operand, indices, offset_dims, collapsed, start_index_map, ivd,
           slice_sizes, const_indices=False, kernels="BUILTIN_REF"):
    shape = gather_out_shape(operand.shape, indices.shape, offset_dims,
                             collapsed, ivd, slice_sizes)
    return check_case(OpCase(
        op="STABLEHLO_GATHER", version=1,
        inputs=[Input(operand),
                Const(indices) if const_indices else Input(indices)],
        params=gather_params(offset_dims, collapsed, start_index_map, ivd,
                             slice_sizes),
        outputs=[operand.dtype.type], output_shapes=[shape], rtol=0.0,
        atol=0.0, litert_kernels=kernels))[0]


GATHER_CASES = [
    # operand shape, indices, offset_dims, collapsed, start_index_map, ivd,
    # slice_sizes
    # The spec's example: two offset dims after the batch dims.
    ((3, 4, 2), [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]]],
     (2, 3), (0,), (1, 0), 2, (1, 2, 2)),
    # tf.gather on axis 0 (rows), the index vector one element long.
    ((5, 3), [[4], [0], [2], [2]], (1,), (0,), (0,), 1, (1, 3)),
    # gather_nd-like: index vectors along dim 0, every dim collapsed.
    ((4, 5), [[0, 3, 1], [4, 0, 2]], (), (0, 1), (0, 1), 0, (1, 1)),
    # Offset dims between batch dims, nothing collapsed, start on dim 1 only.
    ((6, 7), [[[1], [5]], [[0], [3]]], (1, 3), (), (1,), 2, (2, 3)),
    # Start indices out of range, negative and large: clamped.
    ((5, 6), [[-3, 2], [9, 9], [4, -1], [1, 100]], (1, 2), (), (0, 1), 1,
     (2, 3)),
    # Index vector along a middle dim, start_index_map reversed, rank 4.
    ((3, 4, 5, 2), [[[1, 4, 0], [2, 1, 3]], [[3, 0, 2], [1, 1, 0]]],
     (2, 3, 4), (1,), (2, 1), 1, (2, 1, 3, 2)),
    # Whole-operand slices (every start clamped to 0).
    ((2, 3), [[1, 1], [0, 2]], (1, 2), (), (0, 1), 1, (2, 3)),
]


@pytest.mark.parametrize("case", GATHER_CASES, ids=lambda c: str(c[0]))
def test_gather_cases(case):
    shape, idx, offset, collapsed, smap, ivd, sizes = case
    operand = values(np.float32, shape, 41)
    gather(operand, np.array(idx, np.int32), offset, collapsed, smap, ivd,
           sizes)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int8, np.uint8,
                                   np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64, np.bool_],
                         ids=lambda t: np.dtype(t).name)
def test_gather_types(dtype):
    operand = values(dtype, (4, 3), 42) if dtype != np.float16 else \
        values(np.float32, (4, 3), 42).astype(np.float16)
    idx = np.array([[3, 0], [1, 2], [0, 1]], np.int64)
    gather(operand, idx, (1,), (0,), (0, 1), 1, (1, 2), const_indices=True)


def test_gather_hand_derived():
    # The spec's example (StableHLO docs/spec.md#gather), by hand.
    operand = np.arange(24, dtype=np.int32).reshape(3, 4, 2)
    idx = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]]],
                   np.int32)
    got = gather(operand, idx, (2, 3), (0,), (1, 0), 2, (1, 2, 2))
    want = np.empty((2, 3, 2, 2), np.int32)
    for b0 in range(2):
        for b1 in range(3):
            col, row = idx[b0, b1]           # start_index_map (1, 0)
            col = min(max(col, 0), 4 - 2)    # clamped to fit the slice
            row = min(max(row, 0), 3 - 1)
            want[b0, b1] = operand[row, col:col + 2, :]
    np.testing.assert_array_equal(got, want)


def test_gather_implicit_index_vector_dim():
    # index_vector_dim == rank(start_indices): one-element index vectors
    # (the spec's implicit trailing 1). LiteRT reads past the indices' shape
    # here, so the expected values are derived by hand (operand rows).
    from op_harness import write_spec, build_model, run_litegpu
    import tempfile
    from pathlib import Path
    operand = values(np.int16, (5, 3), 43)
    idx = np.array([[4, 1], [7, -2]], np.int32)
    case = OpCase(op="STABLEHLO_GATHER", version=1,
                  inputs=[Input(operand), Input(idx)],
                  params=gather_params((2,), (0,), (0,), 2, (1, 3)),
                  outputs=[np.int16], output_shapes=[(2, 2, 3)])
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        _, inputs = write_spec(case, d)
        build_model(d / "case.spec", d / "model.tflite")
        (got,) = run_litegpu(d / "model.tflite", inputs, num_threads=1)
    np.testing.assert_array_equal(got, operand[np.clip(idx, 0, 4)])


def test_gather_empty_batch():
    operand = values(np.float32, (4, 3), 44)
    gather(operand, np.zeros((0, 1), np.int32), (1,), (0,), (0,), 1, (1, 3))


def _gather_case(operand, idx, offset, collapsed, smap, ivd, sizes):
    return OpCase(op="STABLEHLO_GATHER", inputs=[Input(operand), Const(idx)],
                  params=gather_params(offset, collapsed, smap, ivd, sizes),
                  outputs=[operand.dtype.type])


@pytest.mark.parametrize("args,match", [
    (((1,), (0,), (0,), 1, (1,)),
     r"slice_sizes has 1 elements, expected the operand rank 2"),
    (((1,), (0,), (0,), 1, (1, 4)),
     r"slice_sizes\[1\] = 4 is out of range \[0, 3\]"),
    (((1,), (0,), (0,), 1, (2, 3)),
     r"slice_sizes\[0\] = 2 for collapsed dimension 0, expected 1"),
    (((), (0,), (0,), 1, (1, 3)),
     r"offset_dims has 0 elements, expected 1"),
    (((1,), (0,), (0, 1), 1, (1, 3)),
     r"start_index_map has 2 elements, but an index vector has 1"),
    (((1,), (0,), (2,), 1, (1, 3)),
     r"start_index_map\[0\] = 2 is out of range \[0, 2\)"),
    (((1,), (0,), (0,), 3, (1, 3)),
     r"index_vector_dim 3 is out of range \[0, 2\]"),
    (((2,), (0,), (0,), 1, (1, 3)),
     r"offset_dims\[0\] = 2 is out of range \[0, 2\)"),
    (((1,), (0, 0), (0,), 1, (1, 3)),
     r"collapsed_slice_dims holds 0 twice"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_gather_rejects(args, match):
    operand = np.ones((4, 3), np.float32)
    idx = np.zeros((2, 1), np.int32)
    check_rejected(_gather_case(operand, idx, *args),
                   match=r"STABLEHLO_GATHER: " + match)


def test_gather_rejects_index_type():
    operand = np.ones((4, 3), np.float32)
    check_rejected(_gather_case(operand, np.zeros((2, 1), np.int16), (1,),
                                (0,), (0,), 1, (1, 3)),
                   match=r"STABLEHLO_GATHER: start_indices type INT16 is not "
                   r"supported", litert_accepts=False)


# ---- Region models (STABLEHLO_SCATTER, STABLEHLO_REDUCE_WINDOW) --------------
# The op's body is a second subgraph, which the harness's one-op models
# lack: a spec model (graph inputs for every operand) runs in LiteRT 2.3's
# reference kernels, which give the expected values, and in litegpu.

def _shape_word(shape):
    return ",".join(str(d) for d in shape) if len(shape) else "-"


def _body_spec(dtype, body_op, name="body"):
    """A subgraph of two scalar inputs and one output: `body_op` on them, or
    (None) the second input returned, or a list of ops chained."""
    t = __import__("op_harness").type_name(dtype)
    lines = [f"subgraph {name}", f"tensor a {t} -", f"tensor b {t} -"]
    if body_op is None:
        lines += ["inputs a,b", "outputs b"]
        return lines
    ops = body_op if isinstance(body_op, list) else [body_op]
    prev = "a"
    for i, op in enumerate(ops):
        lines.append(f"tensor c{i} {t} -")
        lines.append(f"op {op} 1 in={prev},b out=c{i}")
        prev = f"c{i}"
    lines += ["inputs a,b", f"outputs {prev}"]
    return lines


def _params_words(params):
    words = []
    for key, value in params.items():
        if isinstance(value, (list, tuple)):
            if not value:
                continue
            value = ",".join(str(int(v)) for v in value)
        elif isinstance(value, bool):
            value = "true" if value else "false"
        words.append(f"{key}={value}")
    return " ".join(words)


def _region_model(tmp_path, op, arrays, out_dtype, out_shape, params,
                  body_op, name="region"):
    from op_harness import build_model, type_name
    lines, names = [], []
    for i, a in enumerate(arrays):
        lines.append(f"tensor x{i} {type_name(a.dtype)} {_shape_word(a.shape)}")
        names.append(f"x{i}")
    lines.append(f"tensor y {type_name(out_dtype)} {_shape_word(out_shape)}")
    lines.append(f"op {op} 1 in={','.join(names)} out=y "
                 + _params_words(params))
    lines += [f"inputs {','.join(names)}", "outputs y"]
    lines += _body_spec(arrays[0].dtype, body_op)
    spec = tmp_path / f"{name}.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = tmp_path / f"{name}.tflite"
    build_model(spec, model)
    return model


def _run_region(tmp_path, op, arrays, out_shape, params, body_op,
                kernels="BUILTIN_REF"):
    from op_harness import run_litert, run_litegpu, assert_close
    model = _region_model(tmp_path, op, arrays, arrays[0].dtype, out_shape,
                          params, body_op)
    (want,) = run_litert(model, arrays, kernels)
    (got,) = run_litegpu(model, arrays, num_threads=1)  # kernels: 1 thread
    assert_close(got, want, rtol=0.0, atol=0.0)
    return want


def _region_rejected(tmp_path, op, arrays, out_shape, params, body_op, match):
    import re
    from op_harness import run_litegpu
    from litegpu import capi as lg
    model = _region_model(tmp_path, op, arrays, arrays[0].dtype, out_shape,
                          params, body_op)
    with pytest.raises(lg.LiteGpuError) as raised:
        run_litegpu(model, arrays, num_threads=1)
    assert re.search(match, str(raised.value)), str(raised.value)


# ---- STABLEHLO_SCATTER -------------------------------------------------------
# StablehloScatterOptions in builtin_options_2; the update computation is
# one of LiteRT's recognised bodies (STABLEHLO_ADD, _MULTIPLY, _MAXIMUM,
# _MINIMUM, or none: replace). Updates land in row-major order, so repeated
# indices accumulate (or the last one wins) in LiteRT's order; positions
# outside the operand are skipped element by element, as LiteRT does.

def scatter_params(window, inserted, to_operand, ivd, body=1):
    return {"update_window_dims": list(window),
            "inserted_window_dims": list(inserted),
            "scatter_dims_to_operand_dims": list(to_operand),
            "index_vector_dim": ivd,
            "update_computation_subgraph_index": body}


SCATTER_CASES = [
    # operand shape, indices, updates shape, window, inserted, to_operand, ivd
    # Rows (tf.tensor_scatter_nd_update), a repeated row.
    ((5, 3), [[4], [0], [4]], (3, 3), (1,), (0,), (0,), 1),
    # Elements, every dim inserted.
    ((4, 5), [[0, 1], [3, 4], [0, 1], [2, 2]], (4,), (), (0, 1), (0, 1), 1),
    # The spec's example: window dims after the scatter dims.
    ((3, 4, 2), [[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]],
     (2, 3, 2, 2), (2, 3), (0,), (1, 0), 2),
    # Index vectors along dim 0; windows partly outside (skipped elements).
    ((6, 4), [[5, 1, -1], [2, 3, 0]], (3, 3, 2), (1, 2), (), (0, 1), 0),
    # A window dim first, scatter dim last, start on dim 1 only.
    ((3, 5), [[1], [4], [3]], (2, 3), (0,), (1,), (1,), 1),
]
SCATTER_BODIES = [None, "STABLEHLO_ADD", "STABLEHLO_MULTIPLY",
                  "STABLEHLO_MAXIMUM", "STABLEHLO_MINIMUM"]


@pytest.mark.parametrize("body", SCATTER_BODIES, ids=str)
@pytest.mark.parametrize("case", SCATTER_CASES, ids=lambda c: str(c[0]))
def test_scatter_cases(tmp_path, case, body):
    shape, idx, ushape, window, inserted, to_operand, ivd = case
    operand = values(np.float32, shape, 51)
    updates = values(np.float32, ushape, 52)
    _run_region(tmp_path, "STABLEHLO_SCATTER",
                [operand, np.array(idx, np.int32), updates], shape,
                scatter_params(window, inserted, to_operand, ivd), body)


# Every type with ADD and MAXIMUM; MULTIPLY and MINIMUM with a float, a
# narrow and a wide integer type and BOOL.
SCATTER_TYPES = [np.float64, np.float16, np.int8, np.uint8, np.int16,
                 np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_]
SCATTER_TYPE_CASES = (
    [(t, b) for t in SCATTER_TYPES
     for b in ("STABLEHLO_ADD", "STABLEHLO_MAXIMUM")] +
    [(t, b) for t in (np.float16, np.int8, np.uint64, np.bool_)
     for b in ("STABLEHLO_MULTIPLY", "STABLEHLO_MINIMUM")])


@pytest.mark.parametrize("dtype,body", SCATTER_TYPE_CASES,
                         ids=lambda x: x if isinstance(x, str)
                         else np.dtype(x).name)
def test_scatter_types(tmp_path, dtype, body):
    if dtype == np.float16:
        operand = values(np.float32, (4, 3), 53).astype(np.float16)
        updates = values(np.float32, (3, 3), 54).astype(np.float16)
    else:
        operand = values(dtype, (4, 3), 53)
        updates = values(dtype, (3, 3), 54)
    idx = np.array([[3], [1], [3]], np.int64)
    _run_region(tmp_path, "STABLEHLO_SCATTER", [operand, idx, updates],
                (4, 3), scatter_params((1,), (0,), (0,), 1), body)


def test_scatter_nan_and_hand_derived(tmp_path):
    nan = np.float32(np.nan)
    operand = np.array([nan, 1.0, 2.0, 3.0], np.float32)
    idx = np.array([[0], [1], [3], [3], [7]], np.int32)
    updates = np.array([5.0, nan, 4.0, 6.0, 9.0], np.float32)
    params = scatter_params((), (0,), (0,), 1)
    got = _run_region(tmp_path, "STABLEHLO_SCATTER",
                      [operand, idx, updates], (4,), params,
                      "STABLEHLO_MAXIMUM")
    # std::max(element, update): a NaN element stays, a NaN update is
    # dropped; index 7 is outside and skipped.
    np.testing.assert_array_equal(got, [nan, 1.0, 2.0, 6.0])
    got = _run_region(tmp_path, "STABLEHLO_SCATTER",
                      [operand, idx, updates], (4,), params, "STABLEHLO_ADD")
    np.testing.assert_array_equal(got, [nan, nan, 2.0, 13.0])


@pytest.mark.parametrize("params,body,match", [
    (scatter_params((1,), (0,), (0,), 1, body=2), "STABLEHLO_ADD",
     r"update_computation subgraph index 2 is out of range"),
    (scatter_params((1,), (0,), (0,), 1, body=0), "STABLEHLO_ADD",
     r"update_computation subgraph 0 is the subgraph the node is in"),
    (scatter_params((1,), (0,), (0,), 1), ["STABLEHLO_ADD", "STABLEHLO_ADD"],
     r"update_computation subgraph 1 must be one operator on its two inputs "
     r"or return its second input; it has 2 operators"),
    (scatter_params((1,), (0,), (0,), 1), "SUB",
     r"the update computation's operator \(builtin 41\) is not supported"),
    (scatter_params((1,), (0,), (0, 1), 1), "STABLEHLO_ADD",
     r"scatter_dims_to_operand_dims has 2 elements, but an index vector has "
     r"1"),
    (scatter_params((1,), (), (0,), 1), "STABLEHLO_ADD",
     r"update_window_dims \(1\) and inserted_window_dims \(0\) together must "
     r"have the operand rank 2 elements"),
    (scatter_params((0,), (0,), (0,), 1), "STABLEHLO_ADD",
     r"updates dimension 1 \(3\) differs from scatter_indices dimension 0 "
     r"\(2\)"),
    (scatter_params((1,), (0,), (0,), 2), "STABLEHLO_ADD",
     r"index_vector_dim 2 is out of range \[0, 2\]|updates rank 2 is not 3"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_scatter_rejects(tmp_path, params, body, match):
    operand = np.zeros((5, 3), np.float32)
    idx = np.array([[1], [2]], np.int32)
    updates = np.ones((2, 3), np.float32)
    _region_rejected(tmp_path, "STABLEHLO_SCATTER", [operand, idx, updates],
                     (5, 3), params, body, r"STABLEHLO_SCATTER: " + match)


def test_scatter_rejects_updates_type(tmp_path):
    operand = np.zeros((5, 3), np.float32)
    idx = np.array([[1], [2]], np.int32)
    updates = np.ones((2, 3), np.int32)
    _region_rejected(tmp_path, "STABLEHLO_SCATTER", [operand, idx, updates],
                     (5, 3), scatter_params((1,), (0,), (0,), 1),
                     "STABLEHLO_ADD",
                     r"STABLEHLO_SCATTER: updates type INT32 differs from "
                     r"operand type FLOAT32")


# ---- STABLEHLO_REDUCE_WINDOW -------------------------------------------------
# REDUCE_WINDOW's kernel with StablehloReduceWindowOptions: base dilations
# and padding (negative crops) filled with the init value, which LiteRT
# folds like any element; the body subgraph names the function. Exact
# against LiteRT's reference kernel (same fold order).

def srw_out_shape(shape, window, strides, base, wdil, padding):
    out = []
    for i, d in enumerate(shape):
        dilated = 0 if d == 0 else (d - 1) * base[i] + 1
        padded = dilated + padding[2 * i] + padding[2 * i + 1]
        span = (window[i] - 1) * wdil[i] + 1
        out.append(0 if padded < span else (padded - span) // strides[i] + 1)
    return tuple(out)


def srw(tmp_path, x, init, window, strides, base, wdil, padding, body,
        kernels="BUILTIN_REF"):
    params = {"window_dimensions": list(window),
              "window_strides": list(strides),
              "base_dilations": list(base),
              "window_dilations": list(wdil), "padding": list(padding),
              "body_subgraph_index": 1}
    shape = srw_out_shape(x.shape, window, strides, base, wdil, padding)
    return _run_region(tmp_path, "STABLEHLO_REDUCE_WINDOW",
                       [x, np.array(init, x.dtype)], shape, params, body,
                       kernels)


SRW_CASES = [
    # shape, window, strides, base dilations, window dilations, padding
    ((6,), (3,), (1,), (1,), (1,), (0, 0)),
    ((5,), (2,), (1,), (2,), (1,), (1, 1)),
    ((4, 5), (2, 2), (2, 1), (1, 2), (1, 1), (1, 0, 0, 2)),
    ((4, 5), (3, 2), (1, 2), (2, 1), (2, 1), (-1, 2, 1, -1)),
    ((1, 6, 6, 2), (1, 3, 3, 1), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1),
     (0, 0, 1, 1, 1, 1, 0, 0)),                       # SAME-style pooling
    ((2, 3, 4, 2, 3), (1, 2, 2, 1, 2), (1, 1, 2, 1, 1), (1, 2, 1, 1, 2),
     (1, 1, 1, 2, 1), (0, 1, 1, 0, 0, 0, 2, 0, 0, 1)),
    ((3, 4), (2, 2), (1, 1), (1, 1), (1, 1), (-1, -1, 0, 0)),  # one row left
]
SRW_BODIES = ["STABLEHLO_ADD", "MUL", "STABLEHLO_MAXIMUM", "MINIMUM"]


@pytest.mark.parametrize("body", SRW_BODIES)
@pytest.mark.parametrize("case", SRW_CASES, ids=lambda c: str(c))
def test_stablehlo_reduce_window_cases(tmp_path, case, body):
    shape, window, strides, base, wdil, padding = case
    x = values(np.float32, shape, 61) / np.float32(50)
    init = {"STABLEHLO_ADD": 0.5, "MUL": 1.5, "STABLEHLO_MAXIMUM": -1.0,
            "MINIMUM": 1.0}[body]   # a visible init: padding folds it in
    srw(tmp_path, x, init, window, strides, base, wdil, padding, body)


# Every body with int8 and float64; ADD and MAXIMUM with the other types.
SRW_TYPE_CASES = (
    [(t, b) for t in (np.int8, np.float64)
     for b in ("ADD", "STABLEHLO_MULTIPLY", "MAXIMUM", "STABLEHLO_MINIMUM")] +
    [(t, b) for t in (np.int16, np.int32, np.int64, np.uint8)
     for b in ("ADD", "MAXIMUM")])


@pytest.mark.parametrize("dtype,body", SRW_TYPE_CASES,
                         ids=lambda x: x if isinstance(x, str)
                         else np.dtype(x).name)
def test_stablehlo_reduce_window_types(tmp_path, dtype, body):
    x = values(dtype, (5, 6), 62)
    srw(tmp_path, x, 3, (2, 3), (1, 2), (2, 1), (1, 2), (1, 0, -1, 2), body)


@pytest.mark.parametrize("body", ["LOGICAL_AND", "LOGICAL_OR",
                                  "STABLEHLO_AND"])
def test_stablehlo_reduce_window_bool(tmp_path, body):
    # LiteRT's reference resolver lacks STABLEHLO_AND (the body's op):
    # that body compares with its builtin kernels. Neither runtime has
    # STABLEHLO_OR.
    x = values(np.bool_, (4, 6), 63)
    kernels = "BUILTIN" if body.startswith("STABLEHLO") else "BUILTIN_REF"
    srw(tmp_path, x, "AND" in body, (2, 2), (1, 2), (1, 2), (1, 1),
        (0, 1, 1, 0), body, kernels=kernels)


def test_stablehlo_reduce_window_hand_derived(tmp_path):
    # [1, 2, 3] dilated by 2 -> [1, i, 2, i, 3], padded (1, 1) with the
    # init i = 10 -> [i, 1, i, 2, i, 3, i]; windows of 3, stride 2, summed.
    x = np.array([1, 2, 3], np.int32)
    got = srw(tmp_path, x, 10, (3,), (2,), (2,), (1,), (1, 1),
              "STABLEHLO_ADD")
    np.testing.assert_array_equal(got, [10 + 10 + 1 + 10, 10 + 10 + 2 + 10,
                                        10 + 10 + 3 + 10])


@pytest.mark.parametrize("attr,value,match", [
    ("window_strides", [1, 0], r"window_strides\[1\] = 0 is out of range"),
    ("base_dilations", [-1, 1], r"base_dilations\[0\] = -1 is out of range"),
    ("padding", [0, 0, -9, 0],
     r"dimension 1 is -4 once dilated and padded"),
    ("padding", [-3, 0, 0, 0],
     r"the padding gives an empty tensor \(dimension 0 is 0"),
    ("body_subgraph_index", 3, r"body subgraph index 3 is out of range"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_stablehlo_reduce_window_rejects(tmp_path, attr, value, match):
    params = {"window_dimensions": [2, 2], "window_strides": [1, 1],
              "base_dilations": [1, 1], "window_dilations": [1, 1],
              "padding": [0, 0, 0, 0], "body_subgraph_index": 1}
    params[attr] = value
    x = np.ones((3, 5), np.float32)
    _region_rejected(tmp_path, "STABLEHLO_REDUCE_WINDOW",
                     [x, np.float32(0)], (2, 4), params, "STABLEHLO_ADD",
                     r"STABLEHLO_REDUCE_WINDOW: " + match)


@pytest.mark.parametrize("body,match", [
    ("SUB", r"the body's operator \(builtin 41\) is not supported"),
    (None, r"body subgraph 1 must be one operator on its two inputs; it has "
           r"0 operators"),
])
def test_stablehlo_reduce_window_rejects_body(tmp_path, body, match):
    params = {"window_dimensions": [2], "body_subgraph_index": 1}
    x = np.ones((4,), np.float32)
    _region_rejected(tmp_path, "STABLEHLO_REDUCE_WINDOW",
                     [x, np.float32(0)], (3,), params, body,
                     r"STABLEHLO_REDUCE_WINDOW: " + match)


# ---- STABLEHLO_CASE ----------------------------------------------------------
# StablehloCaseOptions (branch_subgraph_indices) in builtin_options_2; the
# INT32 index picks a branch subgraph, and an index outside the branches
# picks the last one (StableHLO's rule, LiteRT's too). Expected values from
# LiteRT 2.3's builtin kernels (its reference resolver lacks STABLEHLO_CASE)
# and by hand. A branch giving another output shape makes the
# output dynamic.

CASE_SPEC = """\
tensor i INT32 -
tensor x FLOAT32 2,3
tensor y FLOAT32 2,3
tensor out FLOAT32 {out_shape}
op STABLEHLO_CASE 1 in=i,x,y out=out branch_subgraph_indices={branches}
inputs i,x,y
outputs out
subgraph add
tensor a FLOAT32 2,3
tensor b FLOAT32 2,3
tensor c FLOAT32 2,3
op ADD 1 in=a,b out=c
inputs a,b
outputs c
subgraph mul
tensor a FLOAT32 2,3
tensor b FLOAT32 2,3
tensor c FLOAT32 2,3
op MUL 1 in=a,b out=c
inputs a,b
outputs c
subgraph third
tensor a FLOAT32 2,3
tensor b FLOAT32 2,3
tensor c FLOAT32 {third_shape}
op {third_op} 1 in=a,b out=c{third_params}
inputs a,b
outputs c
"""


def _case_model(tmp_path, branches="1,2,3", dynamic=False):
    from op_harness import build_model
    fields = dict(branches=branches, out_shape="2,3", third_shape="2,3",
                  third_op="MAXIMUM", third_params="")
    if dynamic:   # the third branch concatenates: a (4, 3) output
        fields.update(out_shape="4,3", third_shape="4,3",
                      third_op="CONCATENATION", third_params=" axis=0")
    spec = tmp_path / "case.spec"
    spec.write_text(CASE_SPEC.format(**fields))
    model = tmp_path / "case.tflite"
    build_model(spec, model)
    return model


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_case_picks_branch(tmp_path, dynamic):
    from op_harness import run_litert, run_litegpu, assert_close
    from litegpu import capi as lg
    model = _case_model(tmp_path, dynamic=dynamic)
    x = values(np.float32, (2, 3), 71)
    y = values(np.float32, (2, 3), 72)
    third = np.concatenate([x, y]) if dynamic else np.maximum(x, y)
    by_hand = {0: x + y, 1: x * y, 2: third, -1: third, 3: third,
               1000: third}
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        # One interpreter through every index: the branch changes (and
        # with it the dynamic output's shape) from Invoke to Invoke.
        for index, want_hand in by_hand.items():
            inputs = [np.array(index, np.int32), x, y]
            (want,) = run_litert(model, inputs, "BUILTIN")
            np.testing.assert_array_equal(want, want_hand)
            for i, a in enumerate(inputs):
                interp.set_input(i, a)
            interp.invoke()
            assert_close(interp.get_output(0), want, rtol=0.0, atol=0.0)
    (got,) = run_litegpu(model, [np.array(1, np.int32), x, y], num_threads=2)
    np.testing.assert_array_equal(got, x * y)


def test_case_one_branch_repeated(tmp_path):
    # By hand only: LiteRT's Prepare assumes one branch per subgraph past
    # the first and reads past its branch list here (it crashes).
    from op_harness import run_litegpu
    model = _case_model(tmp_path, branches="2,2")
    x = values(np.float32, (2, 3), 73)
    y = values(np.float32, (2, 3), 74)
    for index in (0, 1, 5):
        inputs = [np.array(index, np.int32), x, y]
        (got,) = run_litegpu(model, inputs, num_threads=1)
        np.testing.assert_array_equal(got, x * y)


@pytest.mark.parametrize("branches,match", [
    ("1,4", r"branch subgraph index 4 is out of range"),
    ("0,1", r"branch subgraph 0 is the subgraph the node is in"),
])
def test_case_rejects_branches(tmp_path, branches, match):
    import re
    from op_harness import run_litegpu
    from litegpu import capi as lg
    model = _case_model(tmp_path, branches=branches)
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(lg.LiteGpuError) as raised:
        run_litegpu(model, [np.array(0, np.int32), x, x], num_threads=1)
    assert re.search(r"STABLEHLO_CASE: " + match, str(raised.value)), \
        str(raised.value)


def test_case_rejects_index_type(tmp_path):
    import re
    from op_harness import build_model, run_litegpu
    from litegpu import capi as lg
    spec = CASE_SPEC.format(branches="1,2", out_shape="2,3",
                            third_shape="2,3", third_op="MAXIMUM",
                            third_params="").replace("tensor i INT32 -",
                                                     "tensor i INT64 -")
    (tmp_path / "c.spec").write_text(spec)
    build_model(tmp_path / "c.spec", tmp_path / "c.tflite")
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(lg.LiteGpuError) as raised:
        run_litegpu(tmp_path / "c.tflite", [np.array(0, np.int64), x, x],
                    num_threads=1)
    assert re.search(r"STABLEHLO_CASE: the branch index must be one INT32 "
                     r"element; it is INT64", str(raised.value))


def test_stablehlo_reduce_window_rejects_huge_window(tmp_path):
    # Base dilation makes a two-element input 2^31 long: a window that
    # large is refused rather than folded.
    params = {"window_dimensions": [65536, 65536], "window_strides": [1, 1],
              "base_dilations": [1, 2 ** 30], "window_dilations": [1, 1],
              "padding": [0, 65535, 0, 0], "body_subgraph_index": 1}
    x = np.ones((1, 2), np.float32)
    _region_rejected(tmp_path, "STABLEHLO_REDUCE_WINDOW",
                     [x, np.float32(0)], (1, 1), params, "STABLEHLO_ADD",
                     r"STABLEHLO_REDUCE_WINDOW: the window has more than "
                     r"2147483647 elements")
