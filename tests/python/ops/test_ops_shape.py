"""The shape and data-movement kernels against LiteRT's reference kernels.

Every case goes through op_harness: a one-op model written by litegpu's
model writer runs in LiteRT (OpResolverType.BUILTIN_REF) and in litegpu with
1 and 2 threads, and every output must match exactly (these ops move
elements without arithmetic, so the bound is 0; NaN matches NaN). Many cases
also check the result against numpy.

Shape-computing inputs given as Input(...) instead of Const(...) are graph
inputs, which makes the output dynamic in both runtimes (computed in Invoke):
the "dynamic" cases cover that path.

Versions: the model carries the op version that LiteRT's versioning gives
the case's element type, capped at what the BUILTIN_REF resolver registers
(STRIDED_SLICE 4, TILE 2, DEPTH_TO_SPACE 1, SQUEEZE 1): the kernels do not
look at the version, and the reference resolver refuses higher ones.

Where LiteRT itself is undefined or refuses what TensorFlow allows, the
case says so and checks litegpu against numpy (or its rejection) instead:
  - CONCATENATION with a fused activation (LiteRT refuses any; litegpu
    clamps float32 outputs);
  - STRIDED_SLICE shrinking with a negative stride, or with an index outside
    the dim (LiteRT writes nothing / reads out of bounds);
  - TRANSPOSE with an INT64 perm (LiteRT reads it as INT32) or a repeated
    perm entry (LiteRT accepts it; litegpu refuses);
  - RESHAPE with an INT64 shape tensor (LiteRT ignores it).
"""

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case, check_rejected

ALL_TYPES = [np.float32, np.int32, np.int64, np.int8, np.uint8, np.int16,
             np.bool_]
ACTIVATIONS = {"NONE": (-np.inf, np.inf), "RELU": (0, np.inf),
               "RELU_N1_TO_1": (-1, 1), "RELU6": (0, 6)}

# Highest version the BUILTIN_REF resolver of ai-edge-litert 2.3.0 takes.
REF_MAX = {"STRIDED_SLICE": 4, "TILE": 2, "DEPTH_TO_SPACE": 1, "SQUEEZE": 1}
# The version LiteRT's versioning gives a type (op_version.cc), default 1.
TYPE_VERSION = {
    "CONCATENATION": {np.int8: 2, np.int16: 3},
    "PACK": {np.int8: 2, np.int16: 3},
    "UNPACK": {np.int8: 2, np.uint8: 2, np.bool_: 3, np.int16: 4},
    "SPLIT": {np.int8: 2, np.int32: 3, np.int16: 4},
    "SPLIT_V": {np.int8: 2},
    "SLICE": {np.int8: 2, np.int16: 4},
    "STRIDED_SLICE": {np.int8: 2, np.bool_: 3},
    "PAD": {np.int8: 2, np.int16: 3, np.bool_: 5},
    "PADV2": {np.int8: 2, np.int16: 3, np.bool_: 5},
    "MIRROR_PAD": {np.int8: 2, np.int16: 3},
    "TRANSPOSE": {np.int8: 2, np.bool_: 3, np.int16: 5},
    "GATHER": {np.int8: 2, np.bool_: 3, np.int16: 4},
    "TILE": {np.int8: 3},
    "BROADCAST_TO": {np.int8: 3, np.int16: 3},
    "DEPTH_TO_SPACE": {np.int8: 2},
    "SPACE_TO_DEPTH": {np.int8: 2},
}


# LiteRT's Python API cannot read a dynamic output with no elements
# ("Invalid tensor size"), so such cases run only with constant inputs.
EMPTY_DYNAMIC = "LiteRT cannot read an empty dynamic output"


def version(op, dtype, minimum=1):
    v = max(TYPE_VERSION.get(op, {}).get(dtype, 1), minimum)
    if op == "BROADCAST_TO":
        v = max(v, 2)
    return min(v, REF_MAX.get(op, v))


def data(rng, shape, dtype, specials=False):
    """Seeded values of `dtype`; floats optionally hold NaN and +-Inf."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        x = rng.standard_normal(shape).astype(dt)
        if specials and x.size >= 3:
            flat = x.reshape(-1)
            flat[0], flat[x.size // 2], flat[-1] = np.nan, np.inf, -np.inf
        return x
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt,
                        endpoint=True)


def run(op, inputs, params=None, outputs=(np.float32,), dtype=np.float32,
        shapes=None, v=None, name=None):
    """check_case with exact comparison; returns litegpu's outputs."""
    return check_case(OpCase(
        op=op, version=v if v is not None else version(op, dtype),
        inputs=inputs, params=params or {}, outputs=list(outputs),
        output_shapes=shapes, rtol=0.0, atol=0.0, name=name))


def i32(*values):
    return np.array(values, dtype=np.int32)


def i64(*values):
    return np.array(values, dtype=np.int64)


def build(case, directory):
    """Writes the case's model into `directory`; returns (model, inputs)."""
    _, inputs = oh.write_spec(case, directory)
    model = directory / "model.tflite"
    oh.build_model(directory / "case.spec", model)
    return model, inputs


def litegpu_only(case, tmp_path):
    """Runs a case in litegpu alone (for what LiteRT refuses or computes
    wrongly); returns its outputs."""
    model, inputs = build(case, tmp_path)
    return oh.run_litegpu(model, inputs, num_threads=1)


def litert_fails(case, tmp_path):
    """Whether LiteRT's reference kernels fail on the case."""
    model, inputs = build(case, tmp_path)
    try:
        oh.run_litert(model, inputs)
    except Exception:  # LiteRT raises RuntimeError / ValueError
        return True
    return False


# ---- RESHAPE / SQUEEZE / EXPAND_DIMS ------------------------------------------

RESHAPES = [((2, 3, 4), (4, -1)), ((24,), (2, 3, 4)), ((1, 1), ()),
            ((2, 3), (-1,)), ((0, 6), (0, -1, 2)), ((3, 0), (0, -1)),
            ((5, 1, 7), (7, 5)), ((1,), (1, 1, 1, 1, 1, 1))]


@pytest.mark.parametrize("shapes", RESHAPES, ids=str)
@pytest.mark.parametrize("source", ["const", "dynamic", "params"])
def test_reshape(shapes, source):
    rng = np.random.default_rng(1)
    x = data(rng, shapes[0], np.float32, specials=True)
    new = i32(*shapes[1])
    if source == "params":
        if len(new) == 0:
            new = i32(0)  # the legacy scalar spelling
        inputs, params = [Input(x)], {"new_shape": list(new)}
    else:
        shape_t = Const(new) if source == "const" else Input(new)
        inputs, params = [Input(x), shape_t], {}
    out = run("RESHAPE", inputs, params)
    if x.size:  # numpy cannot infer a -1 next to a 0
        np.testing.assert_array_equal(out[0], x.reshape(shapes[1]))


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_reshape_types(dtype):
    rng = np.random.default_rng(2)
    x = data(rng, (3, 5), dtype)
    out = run("RESHAPE", [Input(x), Const(i32(5, 3))], dtype=dtype,
              outputs=[dtype])
    np.testing.assert_array_equal(out[0], x.reshape(5, 3))


def test_reshape_int64_shape_litegpu_only(tmp_path):
    # LiteRT takes only INT32 shape tensors (it falls back to the empty
    # options and fails); litegpu reads INT64 too.
    x = np.arange(6, dtype=np.float32)
    case = OpCase(op="RESHAPE", inputs=[Input(x), Const(i64(3, -1))])
    np.testing.assert_array_equal(litegpu_only(case, tmp_path)[0],
                                  x.reshape(3, 2))
    assert litert_fails(case, tmp_path)


@pytest.mark.parametrize("shape,new,match", [
    ((2, 3), (4, -1), r"RESHAPE: cannot reshape input \[2,3\] \(6 elements\)"),
    ((2, 3), (-1, -1), r"RESHAPE: new shape \[-1,-1\] has more than one -1"),
    ((2, 3), (-2, -3), r"RESHAPE: new shape \[-2,-3\] has a negative"),
    ((2, 3), (0, -1), r"cannot reshape input \[2,3\] \(6 elements\) to "
                      r"\[0,-1\]"),
])
def test_reshape_rejected(shape, new, match):
    x = np.zeros(shape, np.float32)
    check_rejected(OpCase(op="RESHAPE", inputs=[Input(x), Const(i32(*new))]),
                   match=match, litert_accepts=False)


@pytest.mark.parametrize("shape,dims", [
    ((1, 2, 1, 3, 1), []), ((1, 2, 1, 3, 1), [0, 2]), ((1, 2, 1, 3, 1), [-1]),
    ((1, 2, 1, 3, 1), [-5, 4, 4]), ((1, 1), []), ((7,), []), ((2, 0, 1), [2]),
])
def test_squeeze(shape, dims):
    x = data(np.random.default_rng(3), shape, np.float32)
    out = run("SQUEEZE", [Input(x)], {"squeeze_dims": dims})
    axes = tuple(sorted({d % len(shape) for d in dims})) if dims else None
    want = np.squeeze(x, axis=axes)
    np.testing.assert_array_equal(out[0], want)


def test_squeeze_rejected():
    check_rejected(OpCase(op="SQUEEZE", inputs=[Input(np.zeros((2, 1),
                                                               np.float32))],
                          params={"squeeze_dims": [0]}),
                   match=r"SQUEEZE: cannot squeeze dim 0 of input \[2,1\]",
                   litert_accepts=False)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -2, -4])
@pytest.mark.parametrize("kind", ["i32", "i64", "dynamic"])
def test_expand_dims(axis, kind):
    x = data(np.random.default_rng(4), (2, 3, 5), np.int16)
    a = np.array([axis], np.int64 if kind == "i64" else np.int32)
    t = Input(a) if kind == "dynamic" else Const(a)
    out = run("EXPAND_DIMS", [Input(x), t], dtype=np.int16,
              outputs=[np.int16])
    np.testing.assert_array_equal(out[0], np.expand_dims(x, axis))


def test_expand_dims_rejected():
    x = np.zeros((2, 3), np.float32)
    check_rejected(OpCase(op="EXPAND_DIMS", inputs=[Input(x), Const(i32(3))]),
                   match=r"EXPAND_DIMS: axis 3 is out of range \[-3, 2\]")


# ---- CONCATENATION / PACK / UNPACK -------------------------------------------

CONCATS = [
    ([(2, 3), (2, 5)], 1), ([(2, 3), (2, 5), (2, 0)], -1),
    ([(1, 4), (3, 4), (2, 4)], 0), ([(2, 3, 4), (2, 1, 4)], -2),
    ([(5,)], 0), ([(2, 1, 3, 1, 2), (2, 1, 3, 7, 2)], 3),
    ([(1, 17), (1, 17), (1, 17), (1, 17)], 0),
    # Over 512 KB: the blocks are split over 2 threads (a channel
    # concatenation's 4096 pixels; 2079 blocks of 90 + 13 floats).
    ([(1, 64, 64, 32), (1, 64, 64, 16)], 3),
    ([(3, 99, 7, 90), (3, 99, 7, 13)], -1),
]


@pytest.mark.parametrize("shapes,axis", CONCATS, ids=str)
def test_concatenation(shapes, axis):
    rng = np.random.default_rng(5)
    xs = [data(rng, s, np.float32, specials=True) for s in shapes]
    out = run("CONCATENATION", [Input(x) for x in xs], {"axis": axis})
    np.testing.assert_array_equal(out[0], np.concatenate(xs, axis=axis))


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_concatenation_types(dtype):
    rng = np.random.default_rng(6)
    a, b = data(rng, (3, 2), dtype), data(rng, (3, 5), dtype)
    out = run("CONCATENATION", [Input(a), Const(b)], {"axis": 1},
              dtype=dtype, outputs=[dtype])
    np.testing.assert_array_equal(out[0], np.concatenate([a, b], 1))


def test_concatenation_int8_quantized():
    rng = np.random.default_rng(7)
    a, b = data(rng, (2, 3), np.int8), data(rng, (4, 3), np.int8)
    q = (0.25, -3)
    run("CONCATENATION", [Input(a, quant=q), Input(b, quant=q)], {"axis": 0},
        dtype=np.int8, outputs=[Output(np.int8, quant=q)])
    check_rejected(OpCase(op="CONCATENATION", version=2,
                          inputs=[Input(a, quant=q), Input(b, quant=(0.5, -3))],
                          params={"axis": 0},
                          outputs=[Output(np.int8, quant=q)]),
                   match=r"CONCATENATION: input 1 quantization \(scale 0.5, "
                         r"zero point -3\) differs from the output's",
                   litert_accepts=False)


@pytest.mark.parametrize("activation", ["RELU", "RELU_N1_TO_1", "RELU6"])
def test_concatenation_activation_litegpu_only(activation, tmp_path):
    # LiteRT's CONCATENATION refuses every fused activation; litegpu clamps
    # float32 results like its other float kernels (to the finite range, so
    # RELU turns +inf into FLT_MAX; NaN passes).
    rng = np.random.default_rng(8)
    a = data(rng, (3, 4), np.float32, specials=True) * 4
    b = data(rng, (3, 2), np.float32) * 4
    case = OpCase(op="CONCATENATION", inputs=[Input(a), Input(b)],
                  params={"axis": 1, "fused_activation_function": activation})
    lo, hi = ACTIVATIONS[activation]
    hi = min(hi, np.finfo(np.float32).max)
    np.testing.assert_array_equal(litegpu_only(case, tmp_path)[0],
                                  np.clip(np.concatenate([a, b], 1), lo, hi))
    assert litert_fails(case, tmp_path)


@pytest.mark.parametrize("shape,axis,count", [
    ((3,), 0, 2), ((3,), 1, 3), ((3,), -1, 2), ((2, 4), 1, 5), ((), 0, 4),
    ((2, 0), 0, 2), ((1, 2, 3, 1), -3, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8, np.int16],
                         ids=lambda t: np.dtype(t).name)
def test_pack(shape, axis, count, dtype):
    rng = np.random.default_rng(9)
    xs = [data(rng, shape, dtype) for _ in range(count)]
    out = run("PACK", [Input(x) for x in xs],
              {"values_count": count, "axis": axis}, dtype=dtype,
              outputs=[dtype])
    np.testing.assert_array_equal(out[0], np.stack(xs, axis=axis))


@pytest.mark.parametrize("shape,axis", [((2, 3), 0), ((2, 3), 1), ((2, 3), -1),
                                        ((4,), 0), ((1, 5, 2, 3), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_],
                         ids=lambda t: np.dtype(t).name)
def test_unpack(shape, axis, dtype):
    x = data(np.random.default_rng(10), shape, dtype)
    n = shape[axis]
    out = run("UNPACK", [Input(x)], {"num": n, "axis": axis}, dtype=dtype,
              outputs=[dtype] * n)
    for k in range(n):
        np.testing.assert_array_equal(out[k], np.take(x, k, axis=axis))


# ---- SPLIT / SPLIT_V ----------------------------------------------------------

@pytest.mark.parametrize("shape,axis,num", [
    ((4, 6), 1, 3), ((4, 6), -1, 2), ((4, 6), 0, 4), ((5,), 0, 1),
    ((2, 3, 4), -2, 3), ((0, 4), 1, 2)])
@pytest.mark.parametrize("kind", ["const", "dynamic"])
def test_split(shape, axis, num, kind):
    if kind == "dynamic" and 0 in shape:
        pytest.skip(EMPTY_DYNAMIC)
    x = data(np.random.default_rng(11), shape, np.float32, specials=True)
    a = i32(axis)
    out = run("SPLIT", [Const(a) if kind == "const" else Input(a), Input(x)],
              {"num_splits": num}, outputs=[np.float32] * num)
    for got, want in zip(out, np.split(x, num, axis=axis)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint8,
                                   np.int16], ids=lambda t: np.dtype(t).name)
def test_split_types(dtype):
    x = data(np.random.default_rng(12), (3, 4), dtype)
    run("SPLIT", [Const(i32(1)), Input(x)], {"num_splits": 2}, dtype=dtype,
        outputs=[dtype] * 2)


@pytest.mark.parametrize("sizes,axis", [
    ((1, 2, 3), 1), ((-1, 2), 1), ((0, 6), -1), ((6,), 1), ((2, -1, 0), 0),
    ((4, 1, 1), 1)])
@pytest.mark.parametrize("kind", ["i32", "i64", "dynamic"])
def test_split_v(sizes, axis, kind):
    if kind == "dynamic" and 0 in sizes:
        pytest.skip(EMPTY_DYNAMIC)
    x = data(np.random.default_rng(13), (4, 6), np.float32)
    sz = np.array(sizes, np.int64 if kind == "i64" else np.int32)
    t = Input(sz) if kind == "dynamic" else Const(sz)
    out = run("SPLIT_V", [Input(x), t, Const(i32(axis))],
              {"num_splits": len(sizes)}, outputs=[np.float32] * len(sizes))
    real = list(sizes)
    if -1 in real:
        real[real.index(-1)] = x.shape[axis] - sum(s for s in real if s >= 0)
    for got, want in zip(out, np.split(x, np.cumsum(real)[:-1], axis=axis)):
        np.testing.assert_array_equal(got, want)


def test_split_rejected():
    x = np.zeros((4, 6), np.float32)
    check_rejected(OpCase(op="SPLIT", inputs=[Const(i32(1)), Input(x)],
                          params={"num_splits": 4},
                          outputs=[np.float32] * 4),
                   match=r"SPLIT: dim 1 of input \[4,6\] \(size 6\) does not "
                         r"split into 4 equal pieces", litert_accepts=False)
    check_rejected(OpCase(op="SPLIT_V", inputs=[Input(x), Const(i32(2, 5)),
                                                Const(i32(1))],
                          params={"num_splits": 2},
                          outputs=[np.float32] * 2),
                   match=r"SPLIT_V: size_splits add up to 7, but the axis dim "
                         r"is 6")


# ---- SLICE / STRIDED_SLICE ----------------------------------------------------

@pytest.mark.parametrize("begin,size", [
    ((0, 0, 0), (1, 1, 1)), ((1, 2, 0), (-1, -1, 5)), ((0, 1, 3), (2, 2, -1)),
    ((2, 0, 1), (0, 3, 2)), ((1, 3, 4), (1, 0, 1))])
@pytest.mark.parametrize("kind", ["i32", "i64", "dynamic"])
def test_slice(begin, size, kind):
    x = data(np.random.default_rng(14), (3, 3, 5), np.float32, specials=True)
    dt = np.int64 if kind == "i64" else np.int32
    b, s = np.array(begin, dt), np.array(size, dt)
    ins = [Input(x), Input(b), Input(s)] if kind == "dynamic" else \
        [Input(x), Const(b), Const(s)]
    sl = tuple(slice(bb, None if ss == -1 else bb + ss)
               for bb, ss in zip(begin, size))
    if kind == "dynamic" and x[sl].size == 0:
        pytest.skip(EMPTY_DYNAMIC)
    out = run("SLICE", ins, shapes=[x[sl].shape])
    np.testing.assert_array_equal(out[0], x[sl])


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_slice_types_5d(dtype):
    x = data(np.random.default_rng(15), (2, 3, 1, 4, 3), dtype)
    out = run("SLICE", [Input(x), Const(i32(1, 0, 0, 1, 1)),
                        Const(i32(1, 2, 1, -1, 2))], dtype=dtype,
              outputs=[dtype], v=max(version("SLICE", dtype), 5),
              shapes=[(1, 2, 1, 3, 2)])
    np.testing.assert_array_equal(out[0], x[1:2, 0:2, :, 1:, 1:3])


def test_slice_rejected():
    x = np.zeros((3, 4), np.float32)
    check_rejected(OpCase(op="SLICE", inputs=[Input(x), Const(i32(1, 2)),
                                              Const(i32(1, 3))]),
                   match=r"SLICE: begin 2 and size 3 of dim 1 are out of "
                         r"range for input \[3,4\]", litert_accepts=False)


def strided_case(rng, features):
    """A random valid STRIDED_SLICE spec: (shape, begin, end, strides,
    params). Shrunk entries get positive strides and in-range indices (where
    LiteRT is defined); offset specs cover every dim and stay in range."""
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 6)) for _ in range(rank)]
    if "zero" in features and rng.random() < 0.15:
        shape[int(rng.integers(rank))] = 0
    if "offset" in features:
        n = rank
        b = [int(rng.integers(-d, d)) if d else 0 for d in shape]
        st = [int(rng.choice([1, 2, 3])) for _ in range(rank)]
        e = []
        for d, bb in zip(shape, b):
            start = bb + d if bb < 0 else bb
            room = d - start
            e.append(int(rng.integers(0, room + 1)))
        return shape, b, e, st, {"offset": True}
    while True:
        n = int(rng.integers(1, rank + 2))
        ell = (1 << int(rng.integers(n))) if "ellipsis" in features and \
            rng.random() < 0.4 else 0
        new = int(rng.integers(0, 1 << n)) & ~ell if "new_axis" in features \
            and rng.random() < 0.4 else 0
        regular = sum(1 for j in range(n) if not (ell >> j) & 1 and
                      not (new >> j) & 1)
        if regular <= rank:
            break
    b = [int(v) for v in rng.integers(-7, 8, n)]
    e = [int(v) for v in rng.integers(-7, 8, n)]
    st = [int(v) for v in rng.choice([-3, -2, -1, 1, 2, 3], n)]
    bm, em = int(rng.integers(0, 1 << n)), int(rng.integers(0, 1 << n))
    shrink = 0
    if "shrink" in features and ell == 0 and new == 0 and n <= rank:
        for j in range(n):
            if rng.random() < 0.35 and shape[j] > 0:
                shrink |= 1 << j
                st[j] = abs(st[j])
                b[j] = int(rng.integers(-shape[j], shape[j]))
                bm &= ~(1 << j)
    params = {"begin_mask": bm, "end_mask": em, "ellipsis_mask": ell,
              "new_axis_mask": new, "shrink_axis_mask": shrink}
    return shape, b, e, st, params


STRIDED_FEATURES = {
    "plain": (), "zero": ("zero",), "shrink": ("shrink",),
    "ellipsis": ("ellipsis",), "new_axis": ("new_axis",),
    "all": ("ellipsis", "new_axis", "zero"), "offset": ("offset",),
}


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("feature", list(STRIDED_FEATURES))
def test_strided_slice_random(feature, seed):
    rng = np.random.default_rng(1000 * seed + len(feature))
    shape, b, e, st, params = strided_case(rng, STRIDED_FEATURES[feature])
    x = data(rng, shape, np.float32, specials=True)
    run("STRIDED_SLICE",
        [Input(x), Const(i32(*b)), Const(i32(*e)), Const(i32(*st))], params,
        v=4, name=f"STRIDED_SLICE {feature} x{shape} b{b} e{e} s{st} "
                  f"{params}")


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("kind", ["const", "dynamic"])
def test_strided_slice_types(dtype, kind):
    x = data(np.random.default_rng(16), (4, 5, 3), dtype)
    idx = [i32(3, -1, 0), i32(-5, 0, 3), i32(-1, -2, 2)]
    wrap = Const if kind == "const" else Input
    out = run("STRIDED_SLICE", [Input(x)] + [wrap(a) for a in idx],
              {"end_mask": 4}, dtype=dtype, outputs=[dtype])
    np.testing.assert_array_equal(out[0], x[3:-5:-1, -1:0:-2, 0::2])


def test_strided_slice_negative_shrink_litegpu_only(tmp_path):
    # LiteRT computes nothing for a shrunk dim with a negative stride;
    # litegpu takes the element at begin.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    case = OpCase(op="STRIDED_SLICE",
                  inputs=[Input(x), Const(i32(1, 3)), Const(i32(0, 0)),
                          Const(i32(-1, -1))],
                  params={"shrink_axis_mask": 1, "end_mask": 2})
    np.testing.assert_array_equal(litegpu_only(case, tmp_path)[0], x[1, ::-1])


def test_strided_slice_rejected():
    x = np.zeros((3, 4), np.float32)
    check_rejected(OpCase(op="STRIDED_SLICE",
                          inputs=[Input(x), Const(i32(0, 0)), Const(i32(1, 1)),
                                  Const(i32(1, 0))]),
                   match=r"STRIDED_SLICE: strides\[1\] is 0",
                   litert_accepts=False)
    check_rejected(OpCase(op="STRIDED_SLICE",
                          inputs=[Input(x), Const(i32(3, 0)), Const(i32(4, 1)),
                                  Const(i32(1, 1))],
                          params={"shrink_axis_mask": 1}),
                   match=r"STRIDED_SLICE: entry 0 \(begin 3, end 4, stride 1, "
                         r"shrunk\) reads outside its input dim")


# ---- PAD / PADV2 / MIRROR_PAD -------------------------------------------------

PADS = [((2, 3), ((1, 0), (0, 2))), ((4,), ((3, 3),)), ((), ()),
        ((1, 2, 3, 4), ((0, 1), (2, 0), (1, 1), (0, 0))),
        ((2, 1, 2, 1, 2), ((1, 0), (0, 1), (1, 1), (2, 0), (0, 0))),
        ((0, 3), ((1, 1), (0, 2))), ((2, 3), ((0, 0), (0, 0))),
        # Spatial padding of an NHWC tensor large enough to split its rows
        # over threads.
        ((1, 48, 50, 32), ((0, 0), (1, 2), (2, 1), (0, 0)))]


@pytest.mark.parametrize("shape,pads", PADS, ids=str)
@pytest.mark.parametrize("op,kind", [("PAD", "i32"), ("PAD", "i64"),
                                     ("PAD", "dynamic"), ("PADV2", "i32"),
                                     ("PADV2", "dynamic")])
def test_pad(shape, pads, op, kind):
    rng = np.random.default_rng(17)
    x = data(rng, shape, np.float32, specials=True)
    p = np.array(pads, np.int64 if kind == "i64" else np.int32).reshape(-1, 2)
    ins = [Input(x), Input(p) if kind == "dynamic" else Const(p)]
    value = np.float32(-2.5)
    if op == "PADV2":
        ins.append(Const(value))
    v = 4 if len(shape) > 4 else 1
    out = run(op, ins, v=v)
    if x.ndim:
        want = np.pad(x, p, constant_values=value if op == "PADV2" else 0)
        np.testing.assert_array_equal(out[0], want)
    else:
        np.testing.assert_array_equal(out[0], x)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op", ["PAD", "PADV2"])
def test_pad_types(dtype, op):
    rng = np.random.default_rng(18)
    x = data(rng, (2, 3), dtype)
    ins = [Input(x), Const(i32(1, 2, 0, 1).reshape(2, 2))]
    if op == "PADV2":
        ins.append(Const(data(rng, (1,), dtype)))
    run(op, ins, dtype=dtype, outputs=[dtype])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_pad_quantized_zero_point(dtype):
    # PAD fills with the zero point; PADV2's value must share the output's
    # quantization.
    x = data(np.random.default_rng(19), (2, 2), dtype)
    q = (0.5, -4 if dtype == np.int8 else 130)
    p = Const(i32(1, 1, 2, 0).reshape(2, 2))
    out = run("PAD", [Input(x, quant=q), p], dtype=dtype,
              outputs=[Output(dtype, quant=q)])
    assert out[0][0, 0] == q[1]
    run("PADV2", [Input(x, quant=q), p, Const(np.array([7], dtype), quant=q)],
        dtype=dtype, outputs=[Output(dtype, quant=q)])


def test_pad_rejected():
    x = np.zeros((2, 3), np.float32)
    check_rejected(OpCase(op="PAD", inputs=[Input(x), Const(i32(0, -1, 0, 0)
                                                            .reshape(2, 2))]),
                   match=r"PAD: paddings \(0, -1\) of dim 0 are negative",
                   litert_accepts=False)
    check_rejected(OpCase(op="PAD", inputs=[Input(x), Const(i32(0, 1))]),
                   match=r"PAD: paddings shape \[2\] is not \[2,2\]")


MIRRORS = [((3,), ((2, 2),)), ((2, 3), ((1, 0), (2, 1))), ((1, 4), ((0, 0),
           (3, 3))), ((2, 2, 3, 2), ((1, 1), (1, 0), (2, 2), (0, 1))),
           ((5, 1), ((4, 0), (0, 0)))]


@pytest.mark.parametrize("shape,pads", MIRRORS, ids=str)
@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("kind", ["i32", "i64", "dynamic"])
def test_mirror_pad(shape, pads, mode, kind):
    if mode == "REFLECT" and any(max(p) > d - 1 for d, p in zip(shape, pads)):
        pytest.skip("REFLECT pads at most dim - 1")
    x = data(np.random.default_rng(20), shape, np.float32, specials=True)
    p = np.array(pads, np.int64 if kind == "i64" else np.int32)
    out = run("MIRROR_PAD",
              [Input(x), Input(p) if kind == "dynamic" else Const(p)],
              {"mode": mode})
    np.testing.assert_array_equal(out[0], np.pad(x, p, mode=mode.lower()))


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_mirror_pad_types(dtype):
    x = data(np.random.default_rng(21), (3, 4), dtype)
    run("MIRROR_PAD", [Input(x), Const(i32(2, 1, 0, 3).reshape(2, 2))],
        {"mode": "REFLECT"}, dtype=dtype, outputs=[dtype])


def test_mirror_pad_rejected():
    x = np.zeros((3, 2), np.float32)
    check_rejected(OpCase(op="MIRROR_PAD",
                          inputs=[Input(x), Const(i32(3, 0, 0, 0)
                                                  .reshape(2, 2))],
                          params={"mode": "REFLECT"}),
                   match=r"MIRROR_PAD: paddings \(3, 0\) of dim 0 \(size 3\) "
                         r"exceed 2 \(REFLECT pads at most dim - 1\)",
                   litert_accepts=False)


# ---- TRANSPOSE ----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5, 6])
def test_transpose_random(rank, seed):
    rng = np.random.default_rng(100 * rank + seed)
    shape = tuple(int(rng.integers(1, 6 if rank < 5 else 4))
                  for _ in range(rank))
    perm = rng.permutation(rank)
    if seed % 3 == 1:
        perm = np.where(rng.random(rank) < 0.5, perm - rank, perm)  # negative
    dtype = ALL_TYPES[seed % len(ALL_TYPES)]
    x = data(rng, shape, dtype)
    p = perm.astype(np.int32)
    t = Input(p) if seed % 4 == 2 else Const(p)
    v = max(version("TRANSPOSE", dtype), 6 if rank > 5 else 4 if rank > 4
            else 1)
    out = run("TRANSPOSE", [Input(x), t], dtype=dtype, outputs=[dtype], v=v)
    np.testing.assert_array_equal(out[0], np.transpose(x, perm % rank))


@pytest.mark.parametrize("shape,perm", [
    ((1, 33, 17, 20), (0, 3, 1, 2)), ((1, 20, 33, 17), (0, 2, 3, 1)),
    ((37, 65), (1, 0)), ((3, 16, 33), (2, 1, 0)), ((2, 5, 18, 7), (3, 0, 2, 1))])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int16, np.int64],
                         ids=lambda t: np.dtype(t).name)
def test_transpose_large(shape, perm, dtype):
    # Sizes around the 16-element tiles of the blocked copy.
    x = data(np.random.default_rng(len(shape) + sum(shape)), shape, dtype)
    out = run("TRANSPOSE", [Input(x), Const(np.array(perm, np.int32))],
              dtype=dtype, outputs=[dtype])
    np.testing.assert_array_equal(out[0], np.transpose(x, perm))


def test_transpose_litegpu_only(tmp_path):
    # An INT64 perm (LiteRT reads it as INT32) and rank 8 (above LiteRT's 6).
    x = data(np.random.default_rng(22), (2, 1, 3, 2, 1, 2, 3, 2), np.float32)
    perm = np.array([7, 0, 6, 1, 5, 2, 4, 3], np.int64)
    out = litegpu_only(OpCase(op="TRANSPOSE", version=8,
                              inputs=[Input(x), Const(perm)]), tmp_path)
    np.testing.assert_array_equal(out[0], np.transpose(x, perm))


def test_transpose_rejected():
    x = np.zeros((2, 3), np.float32)
    check_rejected(OpCase(op="TRANSPOSE", inputs=[Input(x), Const(i32(0, 0))]),
                   match=r"TRANSPOSE: perm\[1\] = 0: perm must hold each dim",
                   litert_accepts=True)


# ---- GATHER -------------------------------------------------------------------

GATHERS = [  # params shape, indices shape, axis, batch_dims
    ((5, 3), (4,), 0, 0), ((5, 3), (2, 2), 1, 0), ((5, 3), (), 0, 0),
    ((2, 4, 3), (3,), -2, 0), ((2, 4, 3), (2, 3), 1, 1),
    ((2, 4, 3), (2, 2, 2), 2, -2), ((3, 2, 5, 2), (3, 2, 4), 2, 2),
    ((4, 3), (0,), 0, 0)]


@pytest.mark.parametrize("pshape,ishape,axis,batch_dims", GATHERS, ids=str)
@pytest.mark.parametrize("itype", [np.int32, np.int64],
                         ids=lambda t: np.dtype(t).name)
def test_gather(pshape, ishape, axis, batch_dims, itype):
    rng = np.random.default_rng(23)
    x = data(rng, pshape, np.float32, specials=True)
    idx = rng.integers(0, pshape[axis], size=ishape).astype(itype)
    v = 5 if batch_dims else 1
    out = run("GATHER", [Input(x), Input(idx)],
              {"axis": axis, "batch_dims": batch_dims}, v=v)
    if batch_dims == 0:
        np.testing.assert_array_equal(out[0], np.take(x, idx, axis=axis))


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_gather_types(dtype):
    rng = np.random.default_rng(24)
    x = data(rng, (4, 3), dtype)
    idx = i32(3, 0, 3, 1)
    out = run("GATHER", [Input(x), Const(idx)], {"axis": 0}, dtype=dtype,
              outputs=[dtype])
    np.testing.assert_array_equal(out[0], x[idx])


@pytest.mark.parametrize("index", [4, -1])
def test_gather_out_of_range_fails_at_invoke(index, tmp_path):
    x = np.zeros((4, 3), np.float32)
    case = OpCase(op="GATHER", inputs=[Input(x), Input(i32(1, index))],
                  params={"axis": 0})
    with pytest.raises(lg.LiteGpuError, match=rf"GATHER: indices\[1\] = "
                                              rf"{index} is out of range "
                                              rf"\[0, 4\)"):
        litegpu_only(case, tmp_path)
    assert litert_fails(case, tmp_path)  # LiteRT refuses it too


# ---- TILE / BROADCAST_TO ------------------------------------------------------

@pytest.mark.parametrize("shape,mult", [
    ((2, 3), (2, 1)), ((3,), (4,)), ((1, 2, 1), (3, 2, 5)), ((2, 2), (0, 3)),
    ((2, 1, 3, 1, 2), (1, 2, 1, 3, 1)), ((1,), (17,))])
@pytest.mark.parametrize("kind", ["i32", "i64", "dynamic"])
def test_tile(shape, mult, kind):
    if kind == "dynamic" and 0 in mult:
        pytest.skip(EMPTY_DYNAMIC)
    x = data(np.random.default_rng(25), shape, np.float32, specials=True)
    m = np.array(mult, np.int64 if kind == "i64" else np.int32)
    out = run("TILE", [Input(x), Input(m) if kind == "dynamic" else Const(m)])
    np.testing.assert_array_equal(out[0], np.tile(x, mult))


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_tile_types(dtype):
    x = data(np.random.default_rng(26), (2, 3), dtype)
    out = run("TILE", [Input(x), Const(i32(2, 2))], dtype=dtype,
              outputs=[dtype])
    np.testing.assert_array_equal(out[0], np.tile(x, (2, 2)))


@pytest.mark.parametrize("shape,target", [
    ((3, 1), (2, 3, 4)), ((1,), (5,)), ((), (2, 3)), ((2, 1, 3), (2, 4, 3)),
    ((4,), (2, 1, 3, 4)), ((1, 3), (0, 3)),
    ((1, 2, 1, 2, 1, 2, 1, 2), (2, 2, 2, 2, 2, 2, 2, 2))])
@pytest.mark.parametrize("kind", ["i32", "i64", "dynamic"])
def test_broadcast_to(shape, target, kind):
    if kind == "dynamic" and 0 in target:
        pytest.skip(EMPTY_DYNAMIC)
    x = data(np.random.default_rng(27), shape, np.float32, specials=True)
    t = np.array(target, np.int64 if kind == "i64" else np.int32)
    out = run("BROADCAST_TO", [Input(x), Input(t) if kind == "dynamic"
                               else Const(t)])
    np.testing.assert_array_equal(out[0], np.broadcast_to(x, target))


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_broadcast_to_types(dtype):
    x = data(np.random.default_rng(28), (3, 1), dtype)
    run("BROADCAST_TO", [Input(x), Const(i32(2, 3, 3))], dtype=dtype,
        outputs=[dtype])


def test_broadcast_to_rejected():
    x = np.zeros((3,), np.float32)
    check_rejected(OpCase(op="BROADCAST_TO", version=2,
                          inputs=[Input(x), Const(i32(2, 2))]),
                   match=r"BROADCAST_TO: cannot broadcast input \[3\] to "
                         r"shape \[2,2\]", litert_accepts=False)


# ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ------------------------------------------

def np_depth_to_space(x, b):
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h * b, w * b, c // (b * b))


@pytest.mark.parametrize("shape,block", [
    ((1, 1, 1, 4), 2), ((2, 3, 2, 8), 2), ((1, 2, 3, 18), 3),
    ((3, 1, 5, 4), 1), ((1, 2, 2, 12), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.int8,
                                   np.uint8], ids=lambda t: np.dtype(t).name)
def test_depth_to_space_and_back(shape, block, dtype):
    x = data(np.random.default_rng(29), shape, dtype)
    out = run("DEPTH_TO_SPACE", [Input(x)], {"block_size": block},
              dtype=dtype, outputs=[dtype])
    np.testing.assert_array_equal(out[0], np_depth_to_space(x, block))
    back = run("SPACE_TO_DEPTH", [Input(out[0])], {"block_size": block},
               dtype=dtype, outputs=[dtype])
    np.testing.assert_array_equal(back[0], x)


def test_space_depth_rejected():
    x = np.zeros((1, 3, 2, 1), np.float32)
    check_rejected(OpCase(op="SPACE_TO_DEPTH", inputs=[Input(x)],
                          params={"block_size": 2}),
                   match=r"SPACE_TO_DEPTH: input height and width of "
                         r"\[1,3,2,1\] are not multiples of block_size 2")
    check_rejected(OpCase(op="DEPTH_TO_SPACE", inputs=[Input(x)],
                          params={"block_size": 2}),
                   match=r"DEPTH_TO_SPACE: input depth 1 of \[1,3,2,1\] is "
                         r"not a multiple of block_size\^2 = 4")
