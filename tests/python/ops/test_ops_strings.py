"""SKIP_GRAM and LSH_PROJECTION (version 1 each) against LiteRT 2.3.

Where the expected values come from: LiteRT 2.3's reference kernels
(BUILTIN_REF) run the same models (hand-written specs: the harness's
one-op models take no STRING inputs), and a few cases are derived by hand
(SKIP_GRAM's grams of a short sentence; LSH_PROJECTION's output layout).
LSH_PROJECTION's hash is farmhash's Fingerprint64, which litegpu implements
itself (runtime/kernels/fingerprint.c; tests/unit/test_fingerprint.c checks
it against TensorFlow's values): the dense cases compare hundreds of sign
bits of hashes of keys of 4 to over 200 bytes, every length branch of the
function.

Rejections are litegpu's messages.
"""

import re

import numpy as np
import pytest

import op_harness as oh
from litegpu import capi as lg

# ---- SKIP_GRAM ---------------------------------------------------------------


def skip_gram_model(tmp_path, ngram_size, max_skip, include_all,
                    input_shape="1"):
    spec = "\n".join([
        f"tensor in0 STRING {input_shape}",
        "tensor out0 STRING 1",
        f"op SKIP_GRAM 1 in=in0 out=out0 ngram_size={ngram_size} "
        f"max_skip_size={max_skip} "
        f"include_all_ngrams={'true' if include_all else 'false'}",
        "inputs in0", "outputs out0", ""])
    (tmp_path / "sg.spec").write_text(spec)
    model = tmp_path / "sg.tflite"
    oh.build_model(tmp_path / "sg.spec", model)
    return model


def skip_grams(tmp_path, sentence, ngram_size, max_skip, include_all):
    model = skip_gram_model(tmp_path, ngram_size, max_skip, include_all)
    x = np.array([sentence], dtype=object)
    (want,) = oh.run_litert(model, [x])
    for threads in (1, 2):
        (got,) = oh.run_litegpu(model, [x], num_threads=threads)
        assert list(got) == list(want), (got, want)
    return list(want)


SENTENCES = [
    b"the quick brown fox jumps over the lazy dog",
    b"  leading spaces, tabs\tand\nnewlines  ",
    b"one",
    b"a b",
    b"x",
    b" ",
    b"",
    b"many   spaces\r\n\vbetween\fwords ",
    "unicode w\u00f6rds \u65e5\u672c and more".encode("utf-8"),
]
PARAMS = [
    # ngram_size, max_skip_size, include_all_ngrams
    (1, 0, False),
    (2, 0, False),
    (2, 1, False),
    (3, 2, False),
    (3, 1, True),
    (4, 3, True),
    (0, 1, True),
    (2, -1, True),
]


@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_skip_gram_sentences(tmp_path, params):
    for sentence in SENTENCES:
        skip_grams(tmp_path, sentence, *params)


def test_skip_gram_hand_derived(tmp_path):
    got = skip_grams(tmp_path, b"a b c d", 2, 1, False)
    assert got == [b"a b", b"a c", b"b c", b"b d", b"c d"]
    got = skip_grams(tmp_path, b"a b c", 2, 0, True)
    assert got == [b"a b", b"a", b"b c", b"b", b"c"]
    # A leading blank: TFLite never tests byte 0, so " a" is not a word.
    got = skip_grams(tmp_path, b" a b", 1, 0, False)
    assert got == [b"b"]


def test_skip_gram_fewer_words_than_ngram(tmp_path):
    assert skip_grams(tmp_path, b"only two", 3, 5, True) == []


def test_skip_gram_reuses_interpreter(tmp_path):
    # The dynamic output changes size from Invoke to Invoke.
    model = skip_gram_model(tmp_path, 2, 2, True)
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        for sentence in SENTENCES:
            x = np.array([sentence], dtype=object)
            (want,) = oh.run_litert(model, [x])
            interp.set_input(0, x)
            interp.invoke()
            assert list(interp.get_output(0)) == list(want)


def test_skip_gram_first_string_only(tmp_path):
    model = skip_gram_model(tmp_path, 2, 0, False, input_shape="3")
    x = np.array([b"a b c", b"d e", b"f"], dtype=object)
    (want,) = oh.run_litert(model, [x])
    (got,) = oh.run_litegpu(model, [x], num_threads=1)
    assert list(got) == list(want) == [b"a b", b"b c"]


def _litegpu_error(model, inputs):
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


def test_skip_gram_rejects(tmp_path):
    model = skip_gram_model(tmp_path, -1, 0, False)
    assert re.search(r"SKIP_GRAM: ngram_size -1 is negative",
                     _litegpu_error(model, [np.array([b"a"], dtype=object)]))
    model = skip_gram_model(tmp_path, 2, 0, False, input_shape="0")
    assert re.search(r"SKIP_GRAM: the input holds no sentence",
                     _litegpu_error(model, [np.zeros(0, dtype=object)]))
    spec = "\n".join(["tensor in0 INT32 1", "tensor out0 STRING 1",
                      "op SKIP_GRAM 1 in=in0 out=out0 ngram_size=2",
                      "inputs in0", "outputs out0", ""])
    (tmp_path / "bad.spec").write_text(spec)
    oh.build_model(tmp_path / "bad.spec", tmp_path / "bad.tflite")
    assert re.search(r"SKIP_GRAM: input and output must be STRING; they are "
                     r"INT32 and STRING",
                     _litegpu_error(tmp_path / "bad.tflite",
                                    [np.zeros(1, np.int32)]))


# ---- LSH_PROJECTION ----------------------------------------------------------
# Through the harness's one-op models (numeric inputs) and, for STRING
# inputs, a hand-written spec. Output INT32: SPARSE [num_hash] signatures,
# DENSE [num_hash * num_bits] bits.

def lsh_case(hash_seeds, x, weight=None, kind="DENSE", const_hash=True):
    num_hash, num_bits = hash_seeds.shape
    n = num_hash if kind == "SPARSE" else num_hash * num_bits
    inputs = [oh.Const(hash_seeds) if const_hash else oh.Input(hash_seeds),
              oh.Input(x)]
    if weight is not None:
        inputs.append(oh.Input(weight))
    return oh.OpCase(op="LSH_PROJECTION", version=1, inputs=inputs,
                     params={"type": kind}, outputs=[np.int32],
                     output_shapes=[(n,)], rtol=0.0, atol=0.0)


def seeds(num_hash, num_bits, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((num_hash, num_bits)) * 10).astype(np.float32)


# (input shape, dtype): row sizes 1 to 256 bytes, so that seed + row keys
# reach every branch of Fingerprint64 (4-7, 8-16, 17-32, 33-64, > 64).
LSH_INPUTS = [
    ((3,), np.int8),
    ((4, 1), np.int32),
    ((2, 3), np.int32),
    ((5, 6), np.float32),
    ((3, 12), np.float32),
    ((2, 4, 4), np.float64),
    ((2, 50), np.int32),
    ((3, 64), np.uint8),
    ((1, 3, 7), np.int16),
    ((6,), np.bool_),
    ((2, 2), np.int64),
]


@pytest.mark.parametrize("shape,dtype", LSH_INPUTS, ids=str)
def test_lsh_dense(shape, dtype):
    rng = np.random.default_rng(81)
    if dtype == np.bool_:
        x = rng.integers(0, 2, shape).astype(np.bool_)
    elif np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
    else:
        x = rng.integers(-100, 100, shape).astype(dtype)
    oh.check_case(lsh_case(seeds(4, 8, 82), x))


@pytest.mark.parametrize("with_weight", [False, True])
@pytest.mark.parametrize("num_bits", [1, 5, 16, 28])
def test_lsh_sparse(num_bits, with_weight):
    rng = np.random.default_rng(83)
    x = rng.integers(-1000, 1000, (5, 3)).astype(np.int32)
    w = rng.standard_normal(5).astype(np.float32) if with_weight else None
    oh.check_case(lsh_case(seeds(3, num_bits, 84), x, w, kind="SPARSE"))


def test_lsh_dense_weights_and_32_bits():
    rng = np.random.default_rng(85)
    x = rng.standard_normal((7, 2)).astype(np.float32)
    w = np.array([1.0, -2.0, 0.5, 0.0, 3.0, -0.25, 1e-3], np.float32)
    oh.check_case(lsh_case(seeds(2, 32, 86), x, w, const_hash=False))


def test_lsh_layout_hand_derived():
    # Dense bits are 0/1, hash function i's bits at [i * num_bits, ...);
    # sparse signature i packs the same bits, first bit highest, plus
    # i << num_bits.
    rng = np.random.default_rng(87)
    x = rng.integers(-50, 50, (4, 3)).astype(np.int32)
    h = seeds(3, 6, 88)
    dense = oh.check_case(lsh_case(h, x))[0]
    sparse = oh.check_case(lsh_case(h, x, kind="SPARSE"))[0]
    assert set(np.unique(dense)) <= {0, 1}
    bits = dense.reshape(3, 6)
    want = [int("".join(map(str, row)), 2) + (i << 6)
            for i, row in enumerate(bits)]
    assert list(sparse) == want


def test_lsh_string_input(tmp_path):
    # STRING rows: TFLite hashes bytes / dim0 bytes of the raw buffer per
    # row (header included), whatever the strings.
    h = seeds(3, 7, 89)
    (tmp_path / "h.bin").write_bytes(h.astype("<f4").tobytes())
    spec = "\n".join([
        "tensor h FLOAT32 3,7 data=h.bin", "tensor x STRING 3",
        "tensor y INT32 21", "op LSH_PROJECTION 1 in=h,x out=y type=DENSE",
        "inputs x", "outputs y", ""])
    (tmp_path / "s.spec").write_text(spec)
    model = tmp_path / "s.tflite"
    oh.build_model(tmp_path / "s.spec", model)
    for words in ([b"alpha", b"", b"gamma ray"], [b"x" * 70, b"y", b"z"]):
        x = np.array(words, dtype=object)
        (want,) = oh.run_litert(model, [x])
        (got,) = oh.run_litegpu(model, [x], num_threads=1)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case,match", [
    (lambda: lsh_case(seeds(2, 33, 1), np.ones((2,), np.int32)),
     r"num_bits \(hash dimension 1\) is 33, above 32"),
    (lambda: lsh_case(seeds(2, 3, 1), np.ones((2,), np.int32),
                      kind="UNKNOWN"),
     r"type 0 is not supported \(expected SPARSE 1 or DENSE 2\)"),
    (lambda: lsh_case(seeds(2, 3, 1), np.ones((2,), np.int32),
                      np.ones(3, np.float32)),
     r"weight must be FLOAT32 \[2\] \(one per input row\); it is FLOAT32 "
     r"\[3\]"),
    (lambda: lsh_case(seeds(2, 3, 1).astype(np.float64),
                      np.ones((2,), np.int32)),
     r"hash must be a FLOAT32 matrix"),
    (lambda: lsh_case(seeds(2, 3, 1), np.ones((0, 2), np.int32)),
     r"the input must have rank >= 1 and at least one row"),
], ids=["bits", "unknown", "weight", "hash-type", "no-rows"])
def test_lsh_rejects(case, match):
    oh.check_rejected(case(), match=r"LSH_PROJECTION: " + match)
