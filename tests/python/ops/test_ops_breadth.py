"""Ops added for op breadth, against LiteRT's reference kernels through
op_harness: FLOOR_DIV, FLOOR_MOD, ADD_N, SPACE_TO_BATCH_ND,
BATCH_TO_SPACE_ND, GATHER_ND, REVERSE_V2, ONE_HOT, RANGE, WHERE, CUMSUM,
TOPK_V2, LOGICAL_AND/OR/NOT. Each case runs in LiteRT (BUILTIN_REF) and in
litegpu at 1 and 2 threads; data movement and integer ops must match
exactly, float arithmetic too (each element is one IEEE operation or a
running sum in the same order as LiteRT's). Many cases also check numpy.
Shape inputs given as Input(...) are graph inputs: the output is then
dynamic in both runtimes.
"""

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case


def run(op, inputs, params=None, outputs=(np.float32,), v=1, shapes=None,
        rtol=0.0, atol=0.0):
    return check_case(OpCase(op=op, version=v, inputs=inputs,
                             params=params or {}, outputs=list(outputs),
                             output_shapes=shapes, rtol=rtol, atol=atol))


def i32(*values):
    return np.array(values, dtype=np.int32)


def litegpu_error(case, tmp_path):
    """The error litegpu reports for a case (it must fail)."""
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


# ---- FLOOR_DIV / FLOOR_MOD -----------------------------------------------------

SIGNED = [-7, -6, -1, 0, 1, 5, 7, 9]


# FLOOR_DIV has no INT64 kernel (in TFLite either).
@pytest.mark.parametrize("op,dtype", [
    ("FLOOR_DIV", np.float32), ("FLOOR_DIV", np.int32),
    ("FLOOR_MOD", np.float32), ("FLOOR_MOD", np.int32),
    ("FLOOR_MOD", np.int64)])
@pytest.mark.parametrize("shapes", [((8,), (8,)), ((2, 4), (4,)),
                                    ((3, 1), (1, 5))], ids=str)
def test_floor_div_mod(op, dtype, shapes):
    rng = np.random.default_rng(3)
    x = rng.integers(-20, 21, size=shapes[0]).astype(dtype)
    y = rng.choice([v for v in SIGNED if v != 0], size=shapes[1]).astype(dtype)
    if dtype == np.float32:
        x = (x * 0.75).astype(dtype)
        y = (y * 1.25).astype(dtype)
    v = 2 if op == "FLOOR_DIV" and dtype == np.float32 else 1
    out = run(op, [Input(x), Input(y)], outputs=[dtype], v=v)
    want = np.floor_divide(x, y) if op == "FLOOR_DIV" else np.mod(x, y)
    np.testing.assert_array_equal(out[0], want.astype(dtype))


@pytest.mark.parametrize("op", ["FLOOR_DIV", "FLOOR_MOD"])
def test_floor_int_division_by_zero_fails(op, tmp_path):
    case = OpCase(op=op, inputs=[Input(i32(4, 5)), Input(i32(2, 0))],
                  outputs=[np.int32])
    assert "Division by 0 (input 1 at index 1)" in litegpu_error(case,
                                                                tmp_path)


def test_floor_div_float_by_zero_fails(tmp_path):
    """LiteRT fails a float FLOOR_DIV by zero too (FLOOR_MOD gives NaN)."""
    x = np.array([1.0, -1.0, 0.0], np.float32)
    case = OpCase(op="FLOOR_DIV", version=2,
                  inputs=[Input(x), Input(np.array([1, 0, 2], np.float32))])
    assert "Division by 0 (input 1 at index 1)" in litegpu_error(case,
                                                                tmp_path)
    out = run("FLOOR_MOD", [Input(x), Input(np.zeros(3, np.float32))])
    assert np.isnan(out[0]).all()


def test_floor_div_int8_rejected(tmp_path):
    x = np.array([4, 5], np.int8)
    case = OpCase(op="FLOOR_DIV", version=3, inputs=[Input(x), Input(x)],
                  outputs=[np.int8])
    assert "input type INT8 is not supported" in litegpu_error(case, tmp_path)


# ---- ADD_N ---------------------------------------------------------------------

@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_add_n(count, dtype):
    rng = np.random.default_rng(count)
    xs = [(rng.standard_normal((2, 3, 4)) * 10).astype(dtype)
          for _ in range(count)]
    out = run("ADD_N", [Input(x) for x in xs], outputs=[dtype])
    want = xs[0].copy()
    for x in xs[1:]:
        want = (want + x).astype(dtype)
    np.testing.assert_array_equal(out[0], want)


def test_add_n_shape_mismatch_rejected(tmp_path):
    case = OpCase(op="ADD_N", inputs=[Input(np.zeros((2, 3), np.float32)),
                                      Input(np.zeros((3, 2), np.float32))])
    assert "every input must be FLOAT32 [2,3]" in litegpu_error(case, tmp_path)


# ---- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND --------------------------------------

STB = [((1, 4, 4, 3), (2, 2), ((0, 0), (0, 0))),
       ((2, 5, 3, 2), (2, 3), ((1, 0), (2, 1))),
       ((1, 6, 6, 1), (3, 2), ((0, 3), (1, 1))),
       ((3, 4, 2), (2,), ((1, 1),))]


@pytest.mark.parametrize("shape,block,pads", STB, ids=str)
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_space_to_batch(shape, block, pads, source):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float32)
    b = np.array(block, np.int32)
    p = np.array(pads, np.int32)
    wrap = Const if source == "const" else Input
    v = 3 if len(shape) != 4 else 1
    run("SPACE_TO_BATCH_ND", [Input(x), wrap(b), wrap(p)], v=v)


@pytest.mark.parametrize("shape,block,crops", [
    ((4, 2, 2, 3), (2, 2), ((0, 0), (0, 0))),
    ((12, 3, 2, 2), (2, 3), ((1, 0), (2, 1))),
    ((6, 2, 3, 1), (3, 2), ((0, 3), (1, 1))),
    ((6, 2, 2), (2,), ((1, 1),))], ids=str)
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_batch_to_space(shape, block, crops, source):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape).astype(np.float32)
    wrap = Const if source == "const" else Input
    v = 3 if len(shape) != 4 else 1
    run("BATCH_TO_SPACE_ND", [Input(x), wrap(np.array(block, np.int32)),
                              wrap(np.array(crops, np.int32))], v=v)


@pytest.mark.parametrize("dtype,v", [(np.int8, 2), (np.uint8, 1),
                                     (np.int32, 1), (np.int64, 1)])
def test_space_batch_types(dtype, v):
    rng = np.random.default_rng(7)
    x = rng.integers(-100, 100, size=(1, 4, 3, 2)).astype(dtype)
    quant = (0.5, 3) if dtype in (np.int8, np.uint8) else None
    out = run("SPACE_TO_BATCH_ND",
              [Input(x, quant=quant), Const(i32(2, 2)),
               Const(np.array([[0, 0], [1, 0]], np.int32))],
              outputs=[Output(dtype, quant=quant)], v=v)
    back = run("BATCH_TO_SPACE_ND",
               [Input(out[0], quant=quant), Const(i32(2, 2)),
                Const(np.array([[0, 0], [1, 0]], np.int32))],
               outputs=[Output(dtype, quant=quant)], v=v)
    np.testing.assert_array_equal(back[0], x)


def test_space_to_batch_uneven_rejected(tmp_path):
    case = OpCase(op="SPACE_TO_BATCH_ND",
                  inputs=[Input(np.zeros((1, 5, 4, 1), np.float32)),
                          Const(i32(2, 2)), Const(np.zeros((2, 2), np.int32))])
    assert "is not a multiple of block_shape[0] = 2" in litegpu_error(
        case, tmp_path)


# ---- GATHER_ND -----------------------------------------------------------------

@pytest.mark.parametrize("pshape,ishape", [
    ((4, 5), (3, 2)), ((4, 5), (3, 1)), ((2, 3, 4), (2, 2, 2)),
    ((6,), (4, 1)), ((3, 4, 2), (5, 3))], ids=str)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_nd(pshape, ishape, itype):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(pshape).astype(np.float32)
    k = ishape[-1]
    idx = np.stack([rng.integers(0, pshape[d], size=ishape[:-1])
                    for d in range(k)], axis=-1).astype(itype)
    out = run("GATHER_ND", [Input(x), Input(idx)])
    np.testing.assert_array_equal(out[0], x[tuple(np.moveaxis(idx, -1, 0))])


@pytest.mark.parametrize("dtype,v", [(np.int32, 1), (np.int8, 1),
                                     (np.int16, 3), (np.bool_, 5)])
def test_gather_nd_types(dtype, v):
    x = np.arange(12).reshape(4, 3).astype(dtype)
    out = run("GATHER_ND", [Input(x), Const(i32(3, 0, 2).reshape(3, 1))],
              outputs=[dtype], v=v)
    np.testing.assert_array_equal(out[0], x[[3, 0, 2]])


def test_gather_nd_out_of_range_fails(tmp_path):
    case = OpCase(op="GATHER_ND",
                  inputs=[Input(np.zeros((4, 3), np.float32)),
                          Input(i32(1, 4).reshape(2, 1))])
    assert "index 4 at indices position 1 is out of range [0, 4)" in \
        litegpu_error(case, tmp_path)


# ---- REVERSE_V2 ----------------------------------------------------------------

@pytest.mark.parametrize("shape,axes", [
    ((5,), (0,)), ((2, 3, 4), (1,)), ((2, 3, 4), (-1,)), ((2, 3, 4), (0,)),
    ((3, 1, 4, 2), (2,))], ids=str)
@pytest.mark.parametrize("dtype,v", [(np.float32, 1), (np.int32, 1),
                                     (np.bool_, 2), (np.int8, 3)])
def test_reverse_v2(shape, axes, dtype, v):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    out = run("REVERSE_V2", [Input(x), Const(np.array(axes, np.int32))],
              outputs=[dtype], v=v)
    np.testing.assert_array_equal(out[0], np.flip(x, axis=axes))


# ---- ONE_HOT -------------------------------------------------------------------

@pytest.mark.parametrize("ishape,axis", [((4,), -1), ((2, 3), -1),
                                         ((2, 3), 0), ((2, 3), 1)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64,
                                   np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_one_hot(ishape, axis, dtype, source):
    rng = np.random.default_rng(10)
    idx = rng.integers(-1, 6, size=ishape).astype(np.int32)  # -1 and 5: off
    depth = np.array(5, np.int32)
    on = np.array(1 if dtype == np.bool_ else 7, dtype)
    off = np.array(0 if dtype == np.bool_ else 2, dtype)
    wrap = Const if source == "const" else Input
    out = run("ONE_HOT", [Input(idx), wrap(depth), Const(on), Const(off)],
              params={"axis": axis}, outputs=[dtype])
    want = np.where(np.arange(5) == idx[..., None], on, off)
    if axis != -1:
        want = np.moveaxis(want, -1, axis)
    np.testing.assert_array_equal(out[0], want.astype(dtype))


# ---- RANGE / WHERE -------------------------------------------------------------

@pytest.mark.parametrize("dtype,start,limit,delta,v", [
    (np.int32, 0, 10, 3, 1), (np.int32, 10, -5, -4, 1),
    (np.float32, 0.5, 3.2, 0.3, 1), (np.float32, 1.0, -2.0, -0.7, 1),
    # INT64 is version 2, which LiteRT's reference resolver lacks; the
    # kernel does not read the version.
    (np.int64, -3, 9, 2, 1)])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_range(dtype, start, limit, delta, v, source):
    wrap = Const if source == "const" else Input
    vals = [np.array(x, dtype) for x in (start, limit, delta)]
    out = run("RANGE", [wrap(x) for x in vals], outputs=[dtype], v=v)
    assert out[0].ndim == 1


def litegpu_outputs(case, tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    return oh.run_litegpu(model, inputs, num_threads=1)


def test_empty_outputs(tmp_path):
    """Outputs without elements (LiteRT's Python API cannot read them, so
    the expectations are hand-derived): RANGE from 2 to 2, TOPK_V2 with
    k = 0."""
    two = np.array(2, np.int32)
    out = litegpu_outputs(OpCase(op="RANGE", inputs=[
        Input(two), Input(two), Input(np.array(1, np.int32))],
        outputs=[np.int32]), tmp_path / "range")
    assert out[0].shape == (0,)
    out = litegpu_outputs(OpCase(op="TOPK_V2", inputs=[
        Input(np.ones((3, 6), np.float32)), Input(np.array(0, np.int32))],
        outputs=[np.float32, np.int32]), tmp_path / "topk")
    assert out[0].shape == (3, 0) and out[1].shape == (3, 0)


def test_range_wrong_direction_fails(tmp_path):
    case = OpCase(op="RANGE", inputs=[Input(np.array(0, np.int32)),
                                      Input(np.array(5, np.int32)),
                                      Input(np.array(-1, np.int32))],
                  outputs=[np.int32])
    assert "delta -1 cannot reach limit 5 from start 0" in litegpu_error(
        case, tmp_path)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2)], ids=str)
@pytest.mark.parametrize("dtype,v", [(np.bool_, 1), (np.float32, 2),
                                     (np.int32, 2)])
def test_where(shape, dtype, v):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2, size=shape).astype(dtype)
    out = run("WHERE", [Input(x)], outputs=[np.int64], v=v)
    np.testing.assert_array_equal(out[0], np.argwhere(x))


# ---- CUMSUM / TOPK_V2 ----------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((6,), 0), ((3, 4), 1), ((3, 4), 0),
                                        ((2, 3, 4), -2)], ids=str)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_cumsum(shape, axis, exclusive, reverse, dtype):
    rng = np.random.default_rng(12)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    run("CUMSUM", [Input(x), Const(np.array(axis, np.int32))],
        params={"exclusive": exclusive, "reverse": reverse}, outputs=[dtype])


@pytest.mark.parametrize("shape,k", [((10,), 3), ((4, 7), 7), ((2, 3, 5), 1),
                                     ((1, 40), 17)], ids=str)
@pytest.mark.parametrize("dtype,v", [(np.float32, 1), (np.int32, 1),
                                     (np.uint8, 1), (np.int8, 2)])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_topk(shape, k, dtype, v, source):
    rng = np.random.default_rng(13)
    # Few distinct values: ties must keep position order, as in LiteRT.
    x = rng.integers(0, 5, size=shape).astype(dtype)
    wrap = Const if source == "const" else Input
    out = run("TOPK_V2", [Input(x), wrap(np.array(k, np.int32))],
              outputs=[dtype, np.int32], v=v)
    order = np.argsort(-x.astype(np.int64), axis=-1, kind="stable")[..., :k]
    np.testing.assert_array_equal(out[1], order)


# ---- LOGICAL_AND / LOGICAL_OR / LOGICAL_NOT --------------------------------------

@pytest.mark.parametrize("op,fn", [("LOGICAL_AND", np.logical_and),
                                   ("LOGICAL_OR", np.logical_or)])
@pytest.mark.parametrize("shapes", [((6,), (6,)), ((2, 3), (3,)),
                                    ((2, 1, 3), (4, 1))], ids=str)
def test_logical_binary(op, fn, shapes):
    rng = np.random.default_rng(14)
    a = rng.random(shapes[0]) < 0.5
    b = rng.random(shapes[1]) < 0.5
    out = run(op, [Input(a), Input(b)], outputs=[np.bool_])
    np.testing.assert_array_equal(out[0], fn(a, b))


def test_logical_not():
    a = np.random.default_rng(15).random((3, 4)) < 0.5
    out = run("LOGICAL_NOT", [Input(a)], outputs=[np.bool_])
    np.testing.assert_array_equal(out[0], ~a)
