"""STRING tensors through the builtins whose TFLite kernels move or compare
them: GATHER, RESHAPE, EXPAND_DIMS, SQUEEZE (v2), EQUAL / NOT_EQUAL (v3),
FILL (v2), SLICE (v3), STRIDED_SLICE (v5), TILE (v2), GATHER_ND (v2), and
IF / WHILE passing STRING values between subgraphs.

Where the expected values come from: LiteRT 2.3's reference kernels
(BUILTIN_REF) run the same hand-written one-op models (the harness's
one-op models take no STRING tensors), fed the same numpy object arrays of
bytes; a few outputs are also spelled out by hand. The strings include
empty ones, NUL bytes and non-ASCII UTF-8, and zero-element tensors.
Rejections are litegpu's messages.
"""

import re
import struct

import numpy as np
import pytest

import op_harness as oh
from litegpu import capi as lg

WORDS = [b"", "gr\u00fc\u00df".encode(), b"a\x00b", b"\xff\xfe", b"longer word",
         b"x", "\u65e5\u672c".encode(), b" "]


def strings(items, shape=None):
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out.reshape(shape if shape is not None else (len(items),))


def scalar(value):
    """A 0-d STRING feed. numpy's bytes dtype, not object: LiteRT 2.3's
    set_tensor writes a 0-d object array wrongly (its kernels then read a
    garbage string). The bytes dtype drops trailing NULs."""
    return np.array(value, dtype=bytes)


def string_hex(items):
    """TFLite's STRING layout: count, count + 1 offsets, the bytes."""
    header = 4 * (len(items) + 2)
    offsets, at = [], header
    for s in items:
        offsets.append(at)
        at += len(s)
    offsets.append(at)
    raw = struct.pack(f"<{len(items) + 2}i", len(items), *offsets)
    return (raw + b"".join(items)).hex()


build = oh.build_from_lines


def same(got, want):
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype == object:
        assert got.dtype == object
        assert list(got.reshape(-1)) == list(want.reshape(-1)), (got, want)
    else:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


def check(model, feeds, kernels="BUILTIN_REF"):
    """Runs LiteRT and litegpu on the model; returns LiteRT's outputs.
    kernels="BUILTIN": LiteRT's optimized kernels, for versions its
    reference resolver does not register (SQUEEZE 2, STRIDED_SLICE 5)."""
    wants = oh.run_litert(model, feeds, kernels=kernels)
    gots = oh.run_litegpu(model, feeds, num_threads=1)
    assert len(gots) == len(wants)
    for got, want in zip(gots, wants):
        same(got, want)
    return wants


def litegpu_error(model, feeds):
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, feeds, num_threads=1)
    return str(raised.value)


# ---- GATHER -----------------------------------------------------------------


def gather_model(tmp_path, pshape, ishape, axis=0, batch_dims=0,
                 itype="INT32"):
    return build(tmp_path, "gather", [
        f"tensor p STRING {pshape}", f"tensor i {itype} {ishape}",
        "tensor o STRING 1",
        f"op GATHER 1 in=p,i out=o axis={axis} batch_dims={batch_dims}",
        "inputs p,i", "outputs o"])


def test_gather_1d(tmp_path):
    model = gather_model(tmp_path, "8", "5")
    (out,) = check(model, [strings(WORDS), np.array([3, 0, 2, 2, 7],
                                                    np.int32)])
    assert list(out) == [b"\xff\xfe", b"", b"a\x00b", b"a\x00b", b" "]


def test_gather_2d_indices_int64(tmp_path):
    model = gather_model(tmp_path, "8", "2,2", itype="INT64")
    (out,) = check(model, [strings(WORDS), np.array([[6, 1], [1, 4]],
                                                    np.int64)])
    assert out.tolist() == [[WORDS[6], WORDS[1]], [WORDS[1], WORDS[4]]]


def test_gather_empty(tmp_path):
    model = gather_model(tmp_path, "8", "0")
    (out,) = check(model, [strings(WORDS), np.zeros(0, np.int32)])
    assert out.shape == (0,)


def test_gather_reinvoked_with_other_strings(tmp_path):
    model = gather_model(tmp_path, "3", "4")
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        for words in ([b"a", b"bb", b"ccc"], [b"", b"", b"z" * 300]):
            feeds = [strings(words), np.array([2, 1, 0, 2], np.int32)]
            (want,) = oh.run_litert(model, feeds)
            interp.set_input(0, feeds[0])
            interp.set_input(1, feeds[1])
            interp.invoke()
            same(interp.get_output(0), want)


def test_gather_rejects(tmp_path):
    # TFLite's gather takes 1-D STRING params only.
    oh_model = gather_model(tmp_path, "2,3", "2", axis=1)
    msg = litegpu_error(oh_model, [strings(WORDS[:6], (2, 3)),
                                   np.array([0, 1], np.int32)])
    assert re.search(r"GATHER: STRING params must be 1-D \(as TFLite's\), "
                     r"got rank 2", msg), msg
    with pytest.raises(RuntimeError, match=r"NumDimensions\(input\) != 1"):
        oh.run_litert(oh_model, [strings(WORDS[:6], (2, 3)),
                                 np.array([0, 1], np.int32)])
    model = gather_model(tmp_path, "3", "2")
    msg = litegpu_error(model, [strings([b"a", b"b", b"c"]),
                                np.array([1, 3], np.int32)])
    assert re.search(r"GATHER: indices\[1\] = 3 is out of range \[0, 3\)",
                     msg), msg
    # A constant STRING whose count does not fit its size.
    bad = "02000000" + "0c000000" + "0d000000"
    model = build(tmp_path, "bad", [
        f"tensor p STRING 2 hex={bad}", "tensor i INT32 1",
        "tensor o STRING 1", "op GATHER 1 in=p,i out=o axis=0",
        "inputs i", "outputs o"])
    msg = litegpu_error(model, [np.array([0], np.int32)])
    assert re.search(r"GATHER: STRING params is malformed: its count does "
                     r"not fit its size", msg), msg
    # Well-formed, but one string for two elements.
    model = build(tmp_path, "short", [
        f"tensor p STRING 2 hex={string_hex([b'a'])}", "tensor i INT32 1",
        "tensor o STRING 1", "op GATHER 1 in=p,i out=o axis=0",
        "inputs i", "outputs o"])
    msg = litegpu_error(model, [np.array([0], np.int32)])
    assert re.search(r"GATHER: STRING params holds 1 strings for 2 elements",
                     msg), msg


# ---- RESHAPE, EXPAND_DIMS, SQUEEZE ---------------------------------------


def test_reshape_family(tmp_path):
    x = strings(WORDS, (2, 4))
    model = build(tmp_path, "reshape", [
        "tensor x STRING 2,4", "tensor s INT32 3 values=4,1,2",
        "tensor o STRING 4,1,2", "op RESHAPE 1 in=x,s out=o",
        "inputs x", "outputs o"])
    (out,) = check(model, [x])
    assert out.shape == (4, 1, 2) and out[3, 0, 1] == b" "
    # A shape input that is not constant: the output is sized in Invoke.
    model = build(tmp_path, "reshape_dyn", [
        "tensor x STRING 2,4", "tensor s INT32 2", "tensor o STRING 8",
        "op RESHAPE 1 in=x,s out=o", "inputs x,s", "outputs o"])
    check(model, [x, np.array([-1, 2], np.int32)])
    model = build(tmp_path, "expand", [
        "tensor x STRING 2,4", "tensor a INT32 - values=-1",
        "tensor o STRING 2,4,1", "op EXPAND_DIMS 1 in=x,a out=o",
        "inputs x", "outputs o"])
    check(model, [x])
    model = build(tmp_path, "squeeze", [
        "tensor x STRING 1,8,1", "tensor o STRING 8",
        "op SQUEEZE 2 in=x out=o squeeze_dims=0", "inputs x", "outputs o"])
    (out,) = check(model, [strings(WORDS, (1, 8, 1))], kernels="BUILTIN")
    assert out.shape == (8, 1)
    model = build(tmp_path, "reshape_empty", [
        "tensor x STRING 0,3", "tensor s INT32 2 values=3,0",
        "tensor o STRING 3,0", "op RESHAPE 1 in=x,s out=o",
        "inputs x", "outputs o"])
    check(model, [strings([], (0, 3))])


# ---- EQUAL, NOT_EQUAL -------------------------------------------------------


@pytest.mark.parametrize("op", ["EQUAL", "NOT_EQUAL"])
def test_compare_strings(tmp_path, op):
    a = strings([b"", b"a\x00b", b"a\x00c", b"ab", b"\xff", b"x", b"", b"x"],
                (2, 4))
    b = strings([b"", b"a\x00b", b"a", b"\xff"])
    model = build(tmp_path, "cmp", [
        "tensor a STRING 2,4", "tensor b STRING 4", "tensor o BOOL 2,4",
        f"op {op} 3 in=a,b out=o", "inputs a,b", "outputs o"])
    (out,) = check(model, [a, b])
    want = [[True, True, False, False], [False, False, False, False]]
    assert out.tolist() == (want if op == "EQUAL" else
                            [[not v for v in r] for r in want])
    model = build(tmp_path, "cmp_scalar", [
        "tensor a STRING 8", "tensor b STRING -", "tensor o BOOL 8",
        f"op {op} 3 in=a,b out=o", "inputs a,b", "outputs o"])
    check(model, [strings(WORDS), scalar(b"x")])
    model = build(tmp_path, "cmp_const", [
        "tensor a STRING 8", f"tensor b STRING - hex={string_hex([b''])}",
        "tensor o BOOL 8", f"op {op} 3 in=a,b out=o", "inputs a",
        "outputs o"])
    (out,) = check(model, [strings(WORDS)])
    assert out.tolist() == [(w == b"") == (op == "EQUAL") for w in WORDS]
    model = build(tmp_path, "cmp_empty", [
        "tensor a STRING 0,2", "tensor b STRING 2", "tensor o BOOL 0,2",
        f"op {op} 3 in=a,b out=o", "inputs a,b", "outputs o"])
    check(model, [strings([], (0, 2)), strings([b"a", b"b"])])


def test_compare_rejects_mixed_types(tmp_path):
    model = build(tmp_path, "mixed", [
        "tensor a STRING 2", "tensor b INT32 2", "tensor o BOOL 2",
        "op EQUAL 3 in=a,b out=o", "inputs a,b", "outputs o"])
    msg = litegpu_error(model, [strings([b"a", b"b"]),
                                np.zeros(2, np.int32)])
    assert re.search(r"EQUAL: input types STRING and INT32 differ", msg), msg


# ---- FILL -------------------------------------------------------------------


def test_fill(tmp_path):
    model = build(tmp_path, "fill", [
        "tensor d INT32 2", "tensor v STRING -", "tensor o STRING 1",
        "op FILL 2 in=d,v out=o", "inputs d,v", "outputs o"])
    (out,) = check(model, [np.array([2, 3], np.int32),
                           scalar("gr\u00fc\u00df".encode())])
    assert out.tolist() == [["gr\u00fc\u00df".encode()] * 3] * 2
    check(model, [np.array([3, 0], np.int32), scalar(b"z")])
    model = build(tmp_path, "fill_empty", [
        "tensor d INT32 2", f"tensor v STRING - hex={string_hex([b''])}",
        "tensor o STRING 1", "op FILL 2 in=d,v out=o", "inputs d",
        "outputs o"])
    (out,) = check(model, [np.array([4, 1], np.int32)])
    assert out.tolist() == [[b""]] * 4
    model = build(tmp_path, "fill_const", [
        "tensor d INT64 1 values=5", "tensor v STRING -", "tensor o STRING 5",
        "op FILL 2 in=d,v out=o", "inputs v", "outputs o"])
    (out,) = check(model, [scalar(b"a\x00b")])
    assert out.tolist() == [b"a\x00b"] * 5


def test_fill_rejects_non_scalar(tmp_path):
    model = build(tmp_path, "fill_bad", [
        "tensor d INT32 1", "tensor v STRING 2", "tensor o STRING 1",
        "op FILL 2 in=d,v out=o", "inputs d,v", "outputs o"])
    msg = litegpu_error(model, [np.array([2], np.int32),
                                strings([b"a", b"b"])])
    assert re.search(r"FILL: value must be a scalar", msg), msg


# ---- SLICE, STRIDED_SLICE, TILE, GATHER_ND ----------------------------------


def test_slice_and_strided_slice(tmp_path):
    x = strings(WORDS + [b"9", b"10", b"11", b"12"], (3, 4))
    model = build(tmp_path, "slice", [
        "tensor x STRING 3,4", "tensor b INT32 2 values=1,1",
        "tensor s INT32 2 values=-1,2", "tensor o STRING 2,2",
        "op SLICE 3 in=x,b,s out=o", "inputs x", "outputs o"])
    (out,) = check(model, [x])
    assert out.tolist() == [[b"x", "\u65e5\u672c".encode()], [b"10", b"11"]]
    model = build(tmp_path, "slice_dyn", [
        "tensor x STRING 3,4", "tensor b INT32 2", "tensor s INT32 2",
        "tensor o STRING 1", "op SLICE 3 in=x,b,s out=o",
        "inputs x,b,s", "outputs o"])
    check(model, [x, np.array([0, 3], np.int32), np.array([3, 1], np.int32)])
    check(model, [x, np.array([2, 0], np.int32), np.array([0, 4], np.int32)])
    model = build(tmp_path, "strided", [
        "tensor x STRING 3,4", "tensor b INT32 2 values=2,-1",
        "tensor e INT32 2 values=0,0", "tensor s INT32 2 values=-1,-2",
        "tensor o STRING 1", "op STRIDED_SLICE 5 in=x,b,e,s out=o "
        "begin_mask=0 end_mask=1 shrink_axis_mask=0",
        "inputs x", "outputs o"])
    (out,) = check(model, [x], kernels="BUILTIN")
    assert out.tolist() == [[b"12", b"10"], [b" ", b"x"], [b"\xff\xfe", WORDS[1]]]


def test_tile(tmp_path):
    model = build(tmp_path, "tile", [
        "tensor x STRING 2,2", "tensor m INT32 2", "tensor o STRING 1",
        "op TILE 2 in=x,m out=o", "inputs x,m", "outputs o"])
    x = strings([b"a", b"", b"\xc3\xa9", b"d\x00"], (2, 2))
    (out,) = check(model, [x, np.array([2, 3], np.int32)])
    assert out.shape == (4, 6) and out[3, 5] == b"d\x00"
    check(model, [x, np.array([0, 2], np.int32)])


def test_gather_nd(tmp_path):
    model = build(tmp_path, "gnd", [
        "tensor p STRING 2,2,2", "tensor i INT32 3,2", "tensor o STRING 1",
        "op GATHER_ND 2 in=p,i out=o", "inputs p,i", "outputs o"])
    p = strings(WORDS, (2, 2, 2))
    (out,) = check(model, [p, np.array([[1, 1], [0, 0], [1, 0]], np.int32)])
    assert out.tolist() == [[b"\xe6\x97\xa5\xe6\x9c\xac", b" "], [b"", "gr\u00fc\u00df".encode()],
                            [b"longer word", b"x"]]
    model = build(tmp_path, "gnd_empty", [
        "tensor p STRING 2,2,2", "tensor i INT32 0,3", "tensor o STRING 1",
        "op GATHER_ND 2 in=p,i out=o", "inputs p,i", "outputs o"])
    check(model, [p, np.zeros((0, 3), np.int32)])
    msg = litegpu_error(
        build(tmp_path, "gnd_bad", [
            "tensor p STRING 2,2,2", "tensor i INT32 1,2", "tensor o STRING 1",
            "op GATHER_ND 2 in=p,i out=o", "inputs p,i", "outputs o"]),
        [p, np.array([[0, 2]], np.int32)])
    assert re.search(r"GATHER_ND: index 2 at indices position 1 is out of "
                     r"range \[0, 2\) for params dimension 1", msg), msg


def test_broadcast_to_rejects_strings(tmp_path):
    model = build(tmp_path, "bt", [
        "tensor x STRING 2", "tensor s INT32 2 values=3,2",
        "tensor o STRING 3,2", "op BROADCAST_TO 2 in=x,s out=o",
        "inputs x", "outputs o"])
    msg = litegpu_error(model, [strings([b"a", b"b"])])
    assert re.search(r"BROADCAST_TO: input type STRING is not supported",
                     msg), msg


# ---- IF and WHILE carry STRING values between subgraphs -----------------------


def test_if_carries_strings(tmp_path):
    model = build(tmp_path, "if", [
        "tensor c BOOL 1", "tensor x STRING 3", "tensor o STRING 3",
        "op IF 1 in=c,x out=o then_subgraph_index=1 else_subgraph_index=2",
        "inputs c,x", "outputs o",
        "subgraph then", "tensor x STRING 3", "tensor i INT32 2 values=2,0",
        "tensor o STRING 2", "op GATHER 1 in=x,i out=o axis=0",
        "inputs x", "outputs o",
        "subgraph else", "tensor x STRING 3", "inputs x", "outputs x"])
    x = strings([b"", "\u00e9t\u00e9".encode(), b"z\x00"])
    (out,) = check(model, [np.array([True]), x])
    assert out.tolist() == [b"z\x00", b""]
    (out,) = check(model, [np.array([False]), x])
    assert out.tolist() == x.tolist()


def test_while_grows_string_state(tmp_path):
    # state (i, s): while i < 3: i += 1, s = TILE(s, [2]).
    model = build(tmp_path, "while", [
        "tensor i INT32 -", "tensor s STRING 2", "tensor oi INT32 -",
        "tensor os STRING 2",
        "op WHILE 1 in=i,s out=oi,os cond_subgraph_index=1 "
        "body_subgraph_index=2", "inputs i,s", "outputs oi,os",
        "subgraph cond", "tensor i INT32 -", "tensor s STRING 2",
        "tensor n INT32 - values=3", "tensor b BOOL -",
        "op LESS 1 in=i,n out=b", "inputs i,s", "outputs b",
        "subgraph body", "tensor i INT32 -", "tensor s STRING 2",
        "tensor one INT32 - values=1", "tensor m INT32 1 values=2",
        "tensor j INT32 -", "tensor t STRING 4",
        "op ADD 1 in=i,one out=j", "op TILE 1 in=s,m out=t",
        "inputs i,s", "outputs j,t"])
    s = strings([b"a\x00", "\u00fc".encode()])
    outs = check(model, [np.array(0, np.int32), s])
    assert int(outs[0]) == 3 and outs[1].tolist() == s.tolist() * 8
    outs = check(model, [np.array(3, np.int32), s])
    assert outs[1].tolist() == s.tolist()


# ---- A converter-made model ----------------------------------------------------
# tests/models/strings/string_graph.tflite (tools/convert/make_string_models.py):
# TensorFlow's converter lowers tf.gather / reshape / tile / slice / equal /
# fill / gather_nd on tf.string to the builtins above. LiteRT's default
# kernels (its reference resolver has no STRIDED_SLICE 5).

STRING_GRAPH = (oh.REPO / "tests" / "models" / "strings" /
                "string_graph.tflite")


@pytest.mark.parametrize("words,ids", [
    ([b"cat", b"", "\u00fc".encode(), b"a\x00b"], [2, 0, 2]),
    ([b"x", b"x", b"y", b"x"], [3, 3, 1]),
])
def test_converted_string_graph(words, ids):
    lib = lg.load_library()
    feeds = {"words": strings(words), "ids": np.array(ids, np.int32)}
    ref = oh._litert_interpreter(STRING_GRAPH, "BUILTIN")
    ref.allocate_tensors()
    for d in ref.get_input_details():
        ref.set_tensor(d["index"], feeds[d["name"].split("_")[-1][:-2]])
    ref.invoke()
    want = {d["name"]: ref.get_tensor(d["index"])
            for d in ref.get_output_details()}
    with lg.Model.from_file(lib, str(STRING_GRAPH)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        for i in range(interp.input_count):
            interp.set_input(i, feeds[interp.input(i).name.split("_")[-1][:-2]])
        interp.invoke()
        got = {interp.output(i).name: interp.get_output(i)
               for i in range(interp.output_count)}
    assert set(got) == set(want) and len(want) == 7
    for name, w in want.items():
        same(got[name], w)
