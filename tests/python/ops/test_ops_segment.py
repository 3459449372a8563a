"""Scatter, segment, lookup and small shape ops against LiteRT's kernels
through op_harness: SCATTER_ND, SEGMENT_SUM, UNSORTED_SEGMENT_SUM / MAX /
MIN / PROD, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE, MATRIX_DIAG,
MATRIX_SET_DIAG, RANK, BROADCAST_ARGS, SPARSE_TO_DENSE, UNIQUE,
REVERSE_SEQUENCE. Each case runs in LiteRT (its reference kernels;
SEGMENT_SUM, which the reference resolver lacks, its builtin ones) and in
litegpu at 1 and 2 threads. Data movement and integer results must match
exactly, float ones too (each element is the same sequence of IEEE
operations as LiteRT's). Most cases also check numpy. Inputs that decide an
output shape given as Input(...) are graph inputs: the output is then
dynamic in both runtimes. Error cases check litegpu's message.
"""

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case


def run(op, inputs, params=None, outputs=(np.float32,), v=1, shapes=None,
        kernels="BUILTIN_REF"):
    return check_case(OpCase(op=op, version=v, inputs=inputs,
                             params=params or {}, outputs=list(outputs),
                             output_shapes=shapes, rtol=0.0, atol=0.0,
                             litert_kernels=kernels))


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


def values(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype == np.float32:
        return rng.standard_normal(shape).astype(np.float32)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    return rng.integers(lo, hi + 1, size=shape).astype(dtype)


# ---- SCATTER_ND ------------------------------------------------------------------

def scatter_nd_numpy(idx, upd, shape):
    out = np.zeros(shape, upd.dtype)
    k = idx.shape[-1]
    flat_idx = idx.reshape(-1, k)
    flat_upd = upd.reshape((flat_idx.shape[0],) + tuple(shape[k:]))
    for i, u in zip(flat_idx, flat_upd):
        if upd.dtype == np.bool_:
            out[tuple(i)] |= u
        else:
            out[tuple(i)] = (out[tuple(i)] + u).astype(upd.dtype)
    return out


SCATTER_SHAPES = [((4, 1), (8,)), ((2, 1), (4, 4, 4)), ((5, 2), (3, 3)),
                  ((2, 3, 2), (4, 4, 5)), ((6, 1), (3, 2))]


@pytest.mark.parametrize("ishape,shape", SCATTER_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.int8,
                                   np.uint8, np.bool_])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_scatter_nd(ishape, shape, dtype, source):
    rng = np.random.default_rng(20)
    k = ishape[-1]
    # Few distinct places: duplicates are summed.
    idx = np.stack([rng.integers(0, shape[d], size=ishape[:-1])
                    for d in range(k)], axis=-1).astype(np.int32)
    upd = values(rng, ishape[:-1] + tuple(shape[k:]), dtype)
    wrap = Const if source == "const" else Input
    out = run("SCATTER_ND", [Input(idx), Input(upd),
                             wrap(np.array(shape, np.int32))],
              outputs=[dtype], shapes=[shape])
    np.testing.assert_array_equal(out[0], scatter_nd_numpy(idx, upd, shape))


def test_scatter_nd_out_of_range_fails(tmp_path):
    case = OpCase(op="SCATTER_ND",
                  inputs=[Input(i32(1, 3, 4).reshape(3, 1)),
                          Input(np.ones(3, np.float32)), Const(i32(4))],
                  output_shapes=[(4,)])
    assert "index 4 at indices position 2 is out of range [0, 4)" in \
        litegpu_error(case, tmp_path)


def test_scatter_nd_updates_shape_rejected(tmp_path):
    case = OpCase(op="SCATTER_ND",
                  inputs=[Input(i32(1, 3).reshape(2, 1)),
                          Input(np.ones((2, 3), np.float32)),
                          Const(i32(4, 2))],
                  output_shapes=[(4, 2)])
    assert "updates shape [2,3] differs from indices.shape[:-1] + " \
        "shape[1:] = [2,2]" in litegpu_error(case, tmp_path)


def test_scatter_nd_int64_indices_rejected(tmp_path):
    idx = np.array([[1]], np.int64)
    case = OpCase(op="SCATTER_ND",
                  inputs=[Input(idx), Input(np.ones(1, np.float32)),
                          Const(np.array([4], np.int64))],
                  output_shapes=[(4,)])
    assert "SCATTER_ND: indices type INT64 is not supported" in \
        litegpu_error(case, tmp_path)


# ---- SEGMENT_SUM -----------------------------------------------------------------

@pytest.mark.parametrize("shape,ids", [
    ((6,), (0, 0, 1, 2, 2, 2)), ((6, 3), (0, 1, 1, 2, 3, 3)),
    ((5, 2, 3), (0, 0, 0, 0, 0)), ((4, 2), (0, 1, 2, 3))], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_segment_sum(shape, ids, dtype, source):
    rng = np.random.default_rng(21)
    x = values(rng, shape, dtype)
    wrap = Const if source == "const" else Input
    seg = np.array(ids, np.int32)
    rows = ids[-1] + 1
    out = run("SEGMENT_SUM", [Input(x), wrap(seg)], outputs=[dtype],
              shapes=[(rows,) + shape[1:]], kernels="BUILTIN")
    want = np.zeros((rows,) + shape[1:], dtype)
    for i, s in enumerate(ids):
        want[s] = (want[s] + x[i]).astype(dtype)
    np.testing.assert_array_equal(out[0], want)


@pytest.mark.parametrize("ids,bad", [((0, 2, 1), "segment id 2 at position 1"),
                                     ((0, 0, 2), "segment id 2 at position 2"),
                                     ((1, 1, 2), "segment id 1 at position 0")])
def test_segment_sum_unsorted_rejected(ids, bad, tmp_path):
    case = OpCase(op="SEGMENT_SUM",
                  inputs=[Input(np.ones(3, np.float32)),
                          Input(np.array(ids, np.int32))],
                  output_shapes=[(3,)])
    err = litegpu_error(case, tmp_path)
    assert f"SEGMENT_SUM: {bad} breaks the order" in err


def test_segment_sum_ids_length_rejected(tmp_path):
    case = OpCase(op="SEGMENT_SUM",
                  inputs=[Input(np.ones((3, 2), np.float32)),
                          Const(i32(0, 1))], output_shapes=[(2, 2)])
    assert "segment_ids [2] must be 1-D with one id per row of data [3,2]" \
        in litegpu_error(case, tmp_path)


# ---- UNSORTED_SEGMENT_* ------------------------------------------------------------

REDUCE = {"UNSORTED_SEGMENT_SUM": np.add, "UNSORTED_SEGMENT_PROD": np.multiply,
          "UNSORTED_SEGMENT_MAX": np.maximum, "UNSORTED_SEGMENT_MIN": np.minimum}


def identity(op, dtype):
    if op == "UNSORTED_SEGMENT_SUM":
        return 0
    if op == "UNSORTED_SEGMENT_PROD":
        return 1
    info = np.finfo(dtype) if dtype == np.float32 else np.iinfo(dtype)
    return info.min if op == "UNSORTED_SEGMENT_MAX" else info.max


@pytest.mark.parametrize("op", list(REDUCE))
@pytest.mark.parametrize("shape,id_shape,num", [
    ((6,), (6,), 4), ((5, 3), (5,), 6), ((2, 3, 4), (2, 3), 3),
    ((4, 2), (4,), 2)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_unsorted_segment(op, shape, id_shape, num, dtype, source):
    rng = np.random.default_rng(22)
    x = values(rng, shape, dtype)
    if dtype == np.int32 and op == "UNSORTED_SEGMENT_PROD":
        x = rng.integers(-3, 4, size=shape).astype(dtype)
    # Ids in any order, some segments empty, negative ids skipped (not
    # with num == 2, whose ids are all given).
    ids = rng.integers(-1 if num > 2 else 0, num - 1, size=id_shape)
    ids = ids.astype(np.int32)
    wrap = Const if source == "const" else Input
    out_shape = (num,) + shape[len(id_shape):]
    out = run(op, [Input(x), wrap(ids), wrap(np.array(num, np.int32))],
              outputs=[dtype], shapes=[out_shape])
    want = np.full(out_shape, identity(op, dtype), dtype)
    rows = x.reshape((-1,) + shape[len(id_shape):])
    for s, r in zip(ids.reshape(-1), rows):
        if s >= 0:
            want[s] = REDUCE[op](want[s], r).astype(dtype)
    np.testing.assert_array_equal(out[0], want)


def test_unsorted_segment_id_too_large_fails(tmp_path):
    case = OpCase(op="UNSORTED_SEGMENT_MAX",
                  inputs=[Input(np.ones(3, np.float32)), Input(i32(0, 3, 1)),
                          Const(np.array(3, np.int32))], output_shapes=[(3,)])
    assert "segment id 3 at position 1 is not below num_segments 3" in \
        litegpu_error(case, tmp_path)


def test_unsorted_segment_prefix_rejected(tmp_path):
    case = OpCase(op="UNSORTED_SEGMENT_SUM",
                  inputs=[Input(np.ones((3, 2), np.float32)),
                          Const(i32(0, 1)), Const(np.array(3, np.int32))],
                  output_shapes=[(3, 2)])
    assert "segment_ids shape [2] is not a prefix of data shape [3,2]" in \
        litegpu_error(case, tmp_path)


def test_unsorted_segment_int8_rejected(tmp_path):
    case = OpCase(op="UNSORTED_SEGMENT_MIN",
                  inputs=[Input(np.ones(3, np.int8)), Const(i32(0, 1, 1)),
                          Const(np.array(2, np.int32))],
                  outputs=[np.int8], output_shapes=[(2,)])
    assert "UNSORTED_SEGMENT_MIN: data type INT8 is not supported" in \
        litegpu_error(case, tmp_path)


# ---- EMBEDDING_LOOKUP ----------------------------------------------------------------

@pytest.mark.parametrize("tshape", [(5, 3), (6, 2, 4), (3, 1)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.uint8])
def test_embedding_lookup(tshape, dtype):
    rng = np.random.default_rng(23)
    table = values(rng, tshape, dtype)
    ids = rng.integers(0, tshape[0], size=7).astype(np.int32)
    quant = (0.25, 0) if dtype in (np.int8, np.uint8) else None
    out = run("EMBEDDING_LOOKUP", [Input(ids), Const(table, quant=quant)],
              outputs=[Output(dtype, quant=quant)],
              shapes=[(7,) + tshape[1:]])
    np.testing.assert_array_equal(out[0], table[ids])


@pytest.mark.parametrize("dtype,v", [(np.int8, 3), (np.uint8, 2)])
@pytest.mark.parametrize("per_row", [False, True])
def test_embedding_lookup_hybrid(dtype, v, per_row):
    rng = np.random.default_rng(24)
    table = rng.integers(0, 256, size=(4, 6)).astype(np.uint8).view(dtype)
    ids = i32(3, 0, 3, 1, 2)
    if per_row:
        scales = [0.5, 0.125, 2.0, 0.03]
        quant, v = (scales, [0] * 4, 0), 4
        scale = np.array(scales, np.float32)[ids][:, None]
    else:
        quant, scale = (0.0625, 0), np.float32(0.0625)
    out = run("EMBEDDING_LOOKUP", [Input(ids), Const(table, quant=quant)],
              v=v, shapes=[(5, 6)])
    # TFLite reads the bytes as signed values, UINT8 too.
    want = table.view(np.int8)[ids].astype(np.float32) * scale
    np.testing.assert_array_equal(out[0], want)


def test_embedding_lookup_out_of_range_fails(tmp_path):
    case = OpCase(op="EMBEDDING_LOOKUP",
                  inputs=[Input(i32(0, 5, 1)),
                          Const(np.ones((5, 2), np.float32))],
                  output_shapes=[(3, 2)])
    assert "id 5 at position 1 is out of range [0, 5)" in \
        litegpu_error(case, tmp_path)


def test_embedding_lookup_zero_point_rejected(tmp_path):
    case = OpCase(op="EMBEDDING_LOOKUP",
                  inputs=[Input(i32(0)),
                          Const(np.ones((5, 2), np.int8), quant=(0.5, 3))],
                  output_shapes=[(1, 2)])
    assert "zero point must be 0 (got 3)" in litegpu_error(case, tmp_path)


# ---- DYNAMIC_UPDATE_SLICE --------------------------------------------------------------

def dus_numpy(operand, update, start):
    out = operand.copy()
    sl = []
    for d, s in enumerate(start):
        s = min(max(int(s), 0), operand.shape[d] - update.shape[d])
        sl.append(slice(s, s + update.shape[d]))
    out[tuple(sl)] = update
    return out


@pytest.mark.parametrize("oshape,ushape,start", [
    ((4, 5), (2, 3), (1, 1)), ((4, 5), (2, 3), (-2, 9)),
    ((4, 5), (4, 5), (1, 1)), ((3, 4, 5), (1, 4, 2), (2, 0, 3)),
    ((6,), (2,), (5,)), ((2, 3, 4, 5), (1, 2, 1, 3), (1, 1, 3, 1))], ids=str)
@pytest.mark.parametrize("itype,v", [(np.int32, 1), (np.int64, 2)])
def test_dynamic_update_slice(oshape, ushape, start, itype, v):
    rng = np.random.default_rng(25)
    x = values(rng, oshape, np.float32)
    u = values(rng, ushape, np.float32)
    s = np.array(start, itype)
    out = run("DYNAMIC_UPDATE_SLICE", [Input(x), Input(u), Input(s)], v=v)
    np.testing.assert_array_equal(out[0], dus_numpy(x, u, start))


@pytest.mark.parametrize("dtype,v", [(np.int32, 1), (np.int64, 1),
                                     (np.int8, 1), (np.bool_, 1),
                                     (np.float16, 3), (np.int16, 4)])
def test_dynamic_update_slice_types(dtype, v):
    rng = np.random.default_rng(26)
    x = values(rng, (3, 4), dtype) if dtype != np.float16 else \
        rng.standard_normal((3, 4)).astype(dtype)
    u = values(rng, (2, 2), dtype) if dtype != np.float16 else \
        rng.standard_normal((2, 2)).astype(dtype)
    out = run("DYNAMIC_UPDATE_SLICE", [Input(x), Input(u), Const(i32(1, 3))],
              outputs=[dtype], v=v)
    np.testing.assert_array_equal(out[0], dus_numpy(x, u, (1, 3)))


@pytest.mark.parametrize("op,v", [("DYNAMIC_UPDATE_SLICE", 5),
                                  ("DYNAMIC_UPDATE_SLICE", 6),
                                  ("EMBEDDING_LOOKUP", 5)])
def test_top_versions_resolve(op, v):
    """The top versions LiteRT 2.3 registers resolve in litegpu too (their
    new types, int4 and int2, are rejected; float32 runs)."""
    x = values(np.random.default_rng(30), (4, 3), np.float32)
    if op == "EMBEDDING_LOOKUP":
        out = run(op, [Input(i32(3, 1)), Const(x)], v=v, shapes=[(2, 3)])
        np.testing.assert_array_equal(out[0], x[[3, 1]])
    else:
        u = values(np.random.default_rng(31), (1, 2), np.float32)
        out = run(op, [Input(x), Input(u), Input(i32(2, 5))], v=v)
        np.testing.assert_array_equal(out[0], dus_numpy(x, u, (2, 5)))


def test_dynamic_update_slice_update_too_large_rejected(tmp_path):
    case = OpCase(op="DYNAMIC_UPDATE_SLICE",
                  inputs=[Input(np.ones((2, 3), np.float32)),
                          Input(np.ones((3, 1), np.float32)),
                          Input(i32(0, 0))])
    assert "update [3,1] does not fit in operand [2,3]" in litegpu_error(
        case, tmp_path)


# ---- MATRIX_DIAG / MATRIX_SET_DIAG ---------------------------------------------------

DIAG_TYPES = [np.float32, np.int32, np.int64, np.int16, np.int8, np.uint8]


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 1, 5)], ids=str)
@pytest.mark.parametrize("dtype", DIAG_TYPES)
def test_matrix_diag(shape, dtype):
    x = values(np.random.default_rng(27), shape, dtype)
    out = run("MATRIX_DIAG", [Input(x)], outputs=[dtype],
              shapes=[shape + shape[-1:]])
    want = np.zeros(shape + shape[-1:], dtype)
    idx = np.arange(shape[-1])
    want[..., idx, idx] = x
    np.testing.assert_array_equal(out[0], want)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 5), (2, 5, 3), (1, 2, 4, 4)],
                         ids=str)
@pytest.mark.parametrize("dtype", DIAG_TYPES)
def test_matrix_set_diag(shape, dtype):
    rng = np.random.default_rng(28)
    x = values(rng, shape, dtype)
    k = min(shape[-2:])
    d = values(rng, shape[:-2] + (k,), dtype)
    out = run("MATRIX_SET_DIAG", [Input(x), Input(d)], outputs=[dtype])
    want = x.copy()
    idx = np.arange(k)
    want[..., idx, idx] = d
    np.testing.assert_array_equal(out[0], want)


def test_matrix_set_diag_shape_rejected(tmp_path):
    case = OpCase(op="MATRIX_SET_DIAG",
                  inputs=[Input(np.ones((2, 3, 4), np.float32)),
                          Input(np.ones((2, 4), np.float32))])
    assert "diagonal [2,4] does not match input [2,3,4]" in litegpu_error(
        case, tmp_path)


def test_matrix_diag_bool_rejected(tmp_path):
    case = OpCase(op="MATRIX_DIAG", inputs=[Input(np.ones(3, np.bool_))],
                  outputs=[np.bool_], output_shapes=[(3, 3)])
    assert "MATRIX_DIAG: input type BOOL is not supported" in litegpu_error(
        case, tmp_path)


# ---- RANK / BROADCAST_ARGS -----------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (1, 2, 3, 4, 5)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_rank(shape, dtype):
    x = values(np.random.default_rng(29), shape, dtype)
    out = run("RANK", [Input(x)], outputs=[np.int32], shapes=[()])
    assert out[0].shape == () and int(out[0]) == len(shape)


@pytest.mark.parametrize("a,b", [((2, 3), (2, 3)), ((1, 3), (4, 1)),
                                 ((5, 1, 3), (2, 1)), ((4,), (2, 1, 1)),
                                 ((1, 0), (3, 1))], ids=str)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_broadcast_args(a, b, dtype, source):
    wrap = Const if source == "const" else Input
    out = run("BROADCAST_ARGS", [wrap(np.array(a, dtype)),
                                 wrap(np.array(b, dtype))],
              outputs=[dtype], shapes=[(max(len(a), len(b)),)])
    want = np.broadcast_shapes(a, b)
    np.testing.assert_array_equal(out[0], np.array(want, dtype))


def test_broadcast_args_incompatible_fails(tmp_path):
    case = OpCase(op="BROADCAST_ARGS", inputs=[Input(i32(2, 3)),
                                               Input(i32(4, 1))],
                  outputs=[np.int32])
    assert "dimensions 2 and 4 at output position 0 are not broadcastable" \
        in litegpu_error(case, tmp_path)


# ---- SPARSE_TO_DENSE -----------------------------------------------------------------

STD_TYPES = [(np.float32, 1), (np.int32, 1), (np.int64, 2), (np.int8, 3),
             (np.uint8, 3)]


@pytest.mark.parametrize("shape,n", [((7,), 3), ((4, 5), 6), ((2, 3, 4), 5),
                                     ((2, 2, 3, 2), 4)], ids=str)
@pytest.mark.parametrize("dtype,v", STD_TYPES)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("source", ["const", "dynamic"])
def test_sparse_to_dense(shape, n, dtype, v, itype, source):
    rng = np.random.default_rng(32)
    # Distinct places (TFLite's order for repeated ones is its loop's).
    flat = rng.choice(int(np.prod(shape)), size=n, replace=False)
    coords = np.stack(np.unravel_index(flat, shape), axis=-1).astype(itype)
    if len(shape) == 1:
        coords = coords.reshape(-1)
    vals = values(rng, (n,), dtype)
    default = np.array(values(rng, (1,), dtype)[0], dtype)
    wrap = Const if source == "const" else Input
    out = run("SPARSE_TO_DENSE",
              [Input(coords), wrap(np.array(shape, itype)), Input(vals),
               Input(default)],
              params={"validate_indices": False}, outputs=[dtype], v=v,
              shapes=[shape])
    want = np.full(shape, default, dtype)
    want.reshape(-1)[flat] = vals
    np.testing.assert_array_equal(out[0], want)


@pytest.mark.parametrize("index_rank", [0, 1, 2])
def test_sparse_to_dense_scalar_value(index_rank):
    idx = {0: np.array(3, np.int32), 1: i32(0, 4, 2),
           2: i32(1, 0, 0, 2).reshape(2, 2)}[index_rank]
    shape = i32(3, 3) if index_rank == 2 else i32(6)
    out = run("SPARSE_TO_DENSE",
              [Input(idx), Const(shape), Input(np.float32(2.5)),
               Input(np.float32(-1.0))],
              shapes=[tuple(shape)])
    want = np.full(tuple(shape), -1.0, np.float32)
    if index_rank == 2:
        want[idx[:, 0], idx[:, 1]] = 2.5
    else:
        want[idx] = 2.5
    np.testing.assert_array_equal(out[0], want)


def test_sparse_to_dense_out_of_range_fails(tmp_path):
    case = OpCase(op="SPARSE_TO_DENSE",
                  inputs=[Input(i32(1, 0, 2, 3).reshape(2, 2)),
                          Const(i32(3, 3)), Input(np.ones(2, np.float32)),
                          Input(np.float32(0))], output_shapes=[(3, 3)])
    assert "index 3 at indices position 3 is out of range [0, 3) for " \
        "output dimension 1" in litegpu_error(case, tmp_path)


def test_sparse_to_dense_value_count_rejected(tmp_path):
    case = OpCase(op="SPARSE_TO_DENSE",
                  inputs=[Input(i32(1, 2)), Const(i32(4)),
                          Input(np.ones(3, np.float32)),
                          Input(np.float32(0))], output_shapes=[(4,)])
    assert "3 values for 2 indices" in litegpu_error(case, tmp_path)


# ---- UNIQUE --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.int16,
                                   np.int8, np.uint8])
@pytest.mark.parametrize("idx_type", [np.int32, np.int64])
@pytest.mark.parametrize("n,distinct", [(1, 1), (9, 4), (40, 40), (64, 7)],
                         ids=str)
def test_unique(dtype, idx_type, n, distinct):
    rng = np.random.default_rng(33 + n)
    pool = values(rng, (distinct * 3,), dtype)
    pool = np.unique(pool)[:distinct]
    x = rng.choice(pool, size=n).astype(dtype)
    out = run("UNIQUE", [Input(x)], params={"idx_out_type": idx_type},
              outputs=[dtype, idx_type], shapes=[(n,), (n,)])
    # numpy: values in order of first appearance.
    _, first = np.unique(x, return_index=True)
    want = x[np.sort(first)]
    np.testing.assert_array_equal(out[0], want)
    np.testing.assert_array_equal(out[0][out[1]], x)


def test_unique_signed_zero():
    """-0.0 and 0.0 are one value; the first appearance is kept."""
    x = np.array([-0.0, 1.0, 0.0, 1.0, -0.0], np.float32)
    out = run("UNIQUE", [Input(x)], outputs=[np.float32, np.int32],
              shapes=[(5,), (5,)])
    np.testing.assert_array_equal(out[1], i32(0, 1, 0, 1, 0))
    assert np.signbit(out[0][0])


def test_unique_wrong_idx_type_rejected(tmp_path):
    case = OpCase(op="UNIQUE", inputs=[Input(np.ones(3, np.float32))],
                  params={"idx_out_type": np.int64},
                  outputs=[np.float32, np.int32])
    assert "UNIQUE: output 1 type INT32 differs from idx_out_type INT64" in \
        litegpu_error(case, tmp_path)


def test_unique_rank_rejected(tmp_path):
    case = OpCase(op="UNIQUE", inputs=[Input(np.ones((2, 2), np.float32))],
                  outputs=[np.float32, np.int32])
    assert "UNIQUE: input must be 1-D (got rank 2)" in litegpu_error(
        case, tmp_path)


# ---- REVERSE_SEQUENCE -------------------------------------------------------------------

@pytest.mark.parametrize("shape,seq,batch", [
    ((3, 5), 1, 0), ((5, 3), 0, 1), ((2, 4, 3), 1, 0), ((4, 2, 3), 0, 2),
    ((2, 3, 6, 2), 2, 1)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.int16,
                                   np.uint8])
@pytest.mark.parametrize("ltype", [np.int32, np.int64])
def test_reverse_sequence(shape, seq, batch, dtype, ltype):
    rng = np.random.default_rng(34)
    x = values(rng, shape, dtype)
    lengths = rng.integers(0, shape[seq] + 1, size=shape[batch]).astype(ltype)
    out = run("REVERSE_SEQUENCE", [Input(x), Input(lengths)],
              params={"seq_dim": seq, "batch_dim": batch}, outputs=[dtype])
    want = x.copy()
    for b, n in enumerate(lengths):
        src = np.take(x, b, axis=batch)
        s = seq if seq < batch else seq - 1
        part = np.take(src, np.arange(n), axis=s)
        dst = [slice(None)] * len(shape)
        dst[batch] = b
        dst[seq] = slice(0, n)
        want[tuple(dst)] = np.flip(part, axis=s)
    np.testing.assert_array_equal(out[0], want)


def test_reverse_sequence_length_out_of_range_fails(tmp_path):
    case = OpCase(op="REVERSE_SEQUENCE",
                  inputs=[Input(np.ones((2, 4), np.float32)),
                          Input(i32(2, 5))],
                  params={"seq_dim": 1, "batch_dim": 0})
    assert "seq_lengths[1] = 5 is out of range [0, 4]" in litegpu_error(
        case, tmp_path)


def test_reverse_sequence_same_axes_rejected(tmp_path):
    case = OpCase(op="REVERSE_SEQUENCE",
                  inputs=[Input(np.ones((2, 4), np.float32)),
                          Input(i32(2, 1))],
                  params={"seq_dim": 0, "batch_dim": 0})
    assert "seq_dim 0 and batch_dim 0 must be distinct axes in [0, 2)" in \
        litegpu_error(case, tmp_path)


# ---- Rejections shared by the newer versions --------------------------------------------

@pytest.mark.parametrize("table,out", [(np.float32, np.int8),
                                       (np.int32, np.float32),
                                       (np.int8, np.int32)])
def test_embedding_lookup_type_pair_rejected(table, out, tmp_path):
    quant = (0.5, 0) if table == np.int8 else None
    case = OpCase(op="EMBEDDING_LOOKUP",
                  inputs=[Input(i32(0)), Const(np.ones((3, 2), table),
                                               quant=quant)],
                  outputs=[out], output_shapes=[(1, 2)])
    name = {np.float32: "FLOAT32", np.int8: "INT8", np.int32: "INT32"}
    assert f"output type {name[out]} differs from table type " \
        f"{name[table]} (only INT8 and UINT8 tables dequantize" in \
        litegpu_error(case, tmp_path)


def test_matrix_diag_too_large_rejected(tmp_path):
    case = OpCase(op="MATRIX_DIAG",
                  inputs=[Input(np.zeros((2, 50000), np.int8))],
                  outputs=[np.int8], output_shapes=[(2, 1, 1)])
    assert "MATRIX_DIAG: the output has too many elements" in litegpu_error(
        case, tmp_path)


# ---- Empty tensors and repeated invocations (litegpu only, hand-derived) ----------------

def build(case, tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    return model, inputs


def invoke_each(model, feeds):
    """litegpu's outputs for each list of inputs, one interpreter (dynamic
    outputs are resized again at each Invoke)."""
    lib = lg.load_library()
    results = []
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        for feed in feeds:
            for i, array in enumerate(feed):
                interp.set_input(i, array)
            interp.invoke()
            results.append([interp.get_output(i)
                            for i in range(interp.output_count)])
    return results


def test_empty_tensors(tmp_path):
    """Zero-element inputs and outputs (LiteRT's Python API cannot read
    those): UNIQUE of nothing, SEGMENT_SUM of no rows, SCATTER_ND of no
    updates, an empty DYNAMIC_UPDATE_SLICE update, RANK of an empty
    tensor."""
    model, inputs = build(OpCase(op="UNIQUE", inputs=[
        Input(np.zeros(0, np.float32))], outputs=[np.float32, np.int32],
        output_shapes=[(0,), (0,)]), tmp_path / "unique")
    (out,) = invoke_each(model, [inputs])
    assert out[0].shape == (0,) and out[1].shape == (0,)
    model, inputs = build(OpCase(op="SEGMENT_SUM", inputs=[
        Input(np.zeros((0, 3), np.float32)), Input(np.zeros(0, np.int32))],
        output_shapes=[(0, 3)]), tmp_path / "segment")
    (out,) = invoke_each(model, [inputs])
    assert out[0].shape == (0, 3)
    model, inputs = build(OpCase(op="SCATTER_ND", inputs=[
        Input(np.zeros((0, 1), np.int32)), Input(np.zeros(0, np.float32)),
        Input(i32(3))], output_shapes=[(3,)]), tmp_path / "scatter")
    (out,) = invoke_each(model, [inputs])
    np.testing.assert_array_equal(out[0], np.zeros(3, np.float32))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    model, inputs = build(OpCase(op="DYNAMIC_UPDATE_SLICE", inputs=[
        Input(x), Input(np.zeros((0, 3), np.float32)), Input(i32(1, 0))]),
        tmp_path / "dus")
    (out,) = invoke_each(model, [inputs])
    np.testing.assert_array_equal(out[0], x)
    model, inputs = build(OpCase(op="RANK", inputs=[
        Input(np.zeros((2, 0, 3), np.float32))], outputs=[np.int32],
        output_shapes=[()]), tmp_path / "rank")
    (out,) = invoke_each(model, [inputs])
    assert int(out[0]) == 3


def test_dynamic_outputs_follow_each_invoke(tmp_path):
    """One interpreter, several Invokes with values that change the
    dynamic outputs' shapes."""
    model, _ = build(OpCase(op="UNIQUE", inputs=[
        Input(np.zeros(6, np.int32))], outputs=[np.int32, np.int32],
        output_shapes=[(6,), (6,)]), tmp_path / "unique")
    feeds = [[i32(4, 4, 4, 4, 4, 4)], [i32(5, 1, 5, 2, 3, 1)],
             [i32(9, 8, 7, 6, 5, 4)]]
    outs = invoke_each(model, feeds)
    np.testing.assert_array_equal(outs[0][0], i32(4))
    np.testing.assert_array_equal(outs[0][1], i32(0, 0, 0, 0, 0, 0))
    np.testing.assert_array_equal(outs[1][0], i32(5, 1, 2, 3))
    np.testing.assert_array_equal(outs[1][1], i32(0, 1, 0, 2, 3, 1))
    np.testing.assert_array_equal(outs[2][0], i32(9, 8, 7, 6, 5, 4))
    model, _ = build(OpCase(op="UNSORTED_SEGMENT_MAX", inputs=[
        Input(np.zeros(4, np.float32)), Input(np.zeros(4, np.int32)),
        Input(np.array(1, np.int32))], output_shapes=[(1,)]),
        tmp_path / "segment")
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    outs = invoke_each(model, [[x, i32(0, 0, 1, 1), np.array(2, np.int32)],
                               [x, i32(2, -1, 0, 2), np.array(4, np.int32)]])
    np.testing.assert_array_equal(outs[0][0], np.array([1.0, 3.0],
                                                        np.float32))
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(
        outs[1][0], np.array([3.0, lowest, 1.0, lowest], np.float32))
    model, _ = build(OpCase(op="SCATTER_ND", inputs=[
        Input(i32(0, 1).reshape(2, 1)), Input(np.ones(2, np.float32)),
        Input(i32(2))], output_shapes=[(2,)]), tmp_path / "scatter")
    outs = invoke_each(model, [[i32(0, 1).reshape(2, 1),
                                np.ones(2, np.float32), i32(2)],
                               [i32(3, 3).reshape(2, 1),
                                np.array([1.5, 2.0], np.float32), i32(5)]])
    np.testing.assert_array_equal(outs[0][0], np.ones(2, np.float32))
    np.testing.assert_array_equal(
        outs[1][0], np.array([0, 0, 0, 3.5, 0], np.float32))
