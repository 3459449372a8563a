"""RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL,
STABLEHLO_RNG_BIT_GENERATOR and the complex ops REAL, IMAG, COMPLEX_ABS and
RFFT2D against LiteRT's kernels through op_harness.

With a nonzero seed or seed2 both runtimes draw from Philox4x32-10 seeded
the same way, so every output of every Invoke of one interpreter must equal
LiteRT's bit for bit (rtol = atol = 0): the generator's state carries from
one Invoke to the next in both. Several Invokes run through check_steps.
Shapes given as Input(...) are graph inputs: the output is then dynamic in
both runtimes. With seeds 0 and 0 TFLite picks a seed from the system's
entropy, so those cases check shapes, ranges and statistics instead (the
bounds are many standard errors wide, so a correct kernel does not fail
them by chance). STABLEHLO_RNG_BIT_GENERATOR's bits and next state, and the
complex ops' outputs, must equal LiteRT's exactly too (a part is a copy; a
magnitude is hypot in both); RFFT2D's tolerance is stated and justified
above its tests. Error cases check litegpu's message.
"""

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case, check_steps


def i32(*values):
    return np.array(values, dtype=np.int32)


def case(op, inputs, seed, seed2, outputs=(np.float32,), shapes=None,
         name=None):
    params = {}
    if seed:
        params["seed"] = seed
    if seed2:
        params["seed2"] = seed2
    return OpCase(op=op, version=1, inputs=inputs, params=params,
                  outputs=list(outputs), output_shapes=shapes, rtol=0.0,
                  atol=0.0, name=name)


def litegpu_error(c, tmp_path):
    """The error litegpu reports for a case (it must fail)."""
    _, inputs = oh.write_spec(c, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


def litegpu_run(c, tmp_path, steps):
    """litegpu's outputs per Invoke (no LiteRT: for unseeded cases)."""
    _, _ = oh.write_spec(c, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    return oh._run_steps_litegpu(model, steps, 1)


# TFLite keeps the seeds as int: negative ones sign-extend to 64 bits.
SEEDS = [(1, 0), (0, 1), (42, 7), (-1, 2**31 - 1), (-(2**31), -5)]
FLOAT_OPS = ["RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL"]


# ---- RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL -------------------------------

@pytest.mark.parametrize("op", FLOAT_OPS)
@pytest.mark.parametrize("seed,seed2", SEEDS)
@pytest.mark.parametrize("shape", [(1,), (3,), (4,), (5,), (2, 3), (3, 3, 3),
                                   (2, 1, 4, 2)])
def test_constant_shape_three_invokes(op, seed, seed2, shape):
    c = case(op, [Const(i32(*shape))], seed, seed2, shapes=[shape])
    got = check_steps(c, [[], [], []])
    assert got[0][0].shape == shape
    # The state moves on: the second Invoke draws new numbers.
    assert not np.array_equal(got[0][0], got[1][0])


@pytest.mark.parametrize("op", FLOAT_OPS)
@pytest.mark.parametrize("seed,seed2", [(5, 0), (123456789, 987654321)])
def test_dynamic_shape_changes_between_invokes(op, seed, seed2):
    """The shape is a graph input: each Invoke sizes the output anew, and
    odd sizes drop the rest of the last block as LiteRT does."""
    c = case(op, [Input(i32(2, 3))], seed, seed2)
    steps = [[i32(2, 3)], [i32(1, 1)], [i32(7, 1)], [i32(4, 4)]]
    got = check_steps(c, steps)
    assert [g[0].shape for g in got] == [(2, 3), (1, 1), (7, 1), (4, 4)]


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_empty_output(op, tmp_path):
    """A zero dim gives an empty output and draws nothing: the next Invoke
    gives what LiteRT's first gives. (LiteRT's Python API cannot read an
    empty output, so the empty one is checked on litegpu alone.)"""
    c = case(op, [Input(i32(3, 0))], 5, 6)
    got = litegpu_run(c, tmp_path, [[i32(3, 0)], [i32(2, 2)]])
    assert got[0][0].shape == (3, 0)
    want = check_case(case(op, [Input(i32(2, 2))], 5, 6))
    np.testing.assert_array_equal(got[1][0], want[0])


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_scalar_output(op):
    c = case(op, [Const(np.zeros((0,), np.int32))], 9, 9, shapes=[()])
    got = check_steps(c, [[], []])
    assert got[0][0].shape == ()


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_large_output(op):
    shape = (3, 1001)
    c = case(op, [Const(i32(*shape))], 77, 3, shapes=[shape])
    got = check_steps(c, [[], []])
    assert got[0][0].shape == shape


def test_uniform_values_in_range():
    c = case("RANDOM_UNIFORM", [Const(i32(64, 64))], 3, 4, shapes=[(64, 64)])
    out = check_case(c)[0]
    assert out.min() >= 0.0 and out.max() < 1.0


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_unseeded_statistics(op, tmp_path):
    n = 40000
    c = case(op, [Const(i32(n))], 0, 0, shapes=[(n,)])
    got = litegpu_run(c, tmp_path, [[], []])
    a, b = got[0][0], got[1][0]
    assert a.shape == (n,) and a.dtype == np.float32
    assert not np.array_equal(a, b)
    if op == "RANDOM_UNIFORM":
        assert a.min() >= 0.0 and a.max() < 1.0
        # mean 1/2, sd 1/sqrt(12 n) = 0.0014; variance 1/12.
        assert abs(a.mean() - 0.5) < 0.01
        assert abs(a.var() - 1 / 12) < 0.005
        hist = np.histogram(a, bins=10, range=(0, 1))[0]
        assert np.all(np.abs(hist - n / 10) < 0.1 * n / 10)
    else:
        # mean 0 (sd 0.005), variance 1; about 68.3% within one sd.
        assert abs(a.mean()) < 0.03
        assert abs(a.var() - 1.0) < 0.04
        assert abs(np.mean(np.abs(a) < 1.0) - 0.6827) < 0.02
    # A second interpreter gets other seeds.
    other = litegpu_run(c, tmp_path, [[]])[0][0]
    assert not np.array_equal(a, other)


# ---- MULTINOMIAL ------------------------------------------------------------

def logits(rng, batch, classes):
    return rng.standard_normal((batch, classes)).astype(np.float32) * 2


@pytest.mark.parametrize("out_type", [np.int64, np.int32])
@pytest.mark.parametrize("seed,seed2", [(1, 0), (0, 3), (31, 41),
                                        (-7, 2**31 - 9)])
@pytest.mark.parametrize("batch,classes,samples", [(1, 2, 1), (1, 5, 8),
                                                   (2, 3, 5), (3, 10, 7),
                                                   (4, 1, 3), (2, 6, 2)])
def test_multinomial_dynamic(out_type, seed, seed2, batch, classes, samples):
    rng = np.random.default_rng(batch * 100 + classes * 10 + samples)
    lg_in = logits(rng, batch, classes)
    c = case("MULTINOMIAL", [Input(lg_in), Const(np.array(samples, np.int32))],
             seed, seed2, outputs=[out_type], shapes=[(batch, samples)])
    steps = [[lg_in], [logits(rng, batch, classes)], [lg_in]]
    got = check_steps(c, steps)
    assert got[0][0].shape == (batch, samples)
    assert got[0][0].dtype == out_type
    if samples:
        assert got[0][0].min() >= 0 and got[0][0].max() < classes


@pytest.mark.parametrize("out_type", [np.int64, np.int32])
def test_multinomial_constant_inputs(out_type):
    rng = np.random.default_rng(5)
    c = case("MULTINOMIAL", [Const(logits(rng, 3, 4)),
                             Const(np.array(6, np.int32))], 11, 12,
             outputs=[out_type], shapes=[(3, 6)])
    got = check_steps(c, [[], [], []])
    assert got[0][0].shape == (3, 6)


def test_multinomial_num_samples_input():
    rng = np.random.default_rng(6)
    x = logits(rng, 2, 5)
    c = case("MULTINOMIAL", [Input(x), Input(np.array(4, np.int32))], 2, 9,
             outputs=[np.int64])
    steps = [[x, np.array(4, np.int32)], [x, np.array(9, np.int32)],
             [x, np.array(1, np.int32)], [x, np.array(6, np.int32)]]
    got = check_steps(c, steps)
    assert [g[0].shape for g in got] == [(2, 4), (2, 9), (2, 1), (2, 6)]


def test_multinomial_zero_samples(tmp_path):
    """num_samples 0: an empty [batch, 0] output; the generator still moves
    on by TFLite's fixed advance (0 blocks for 0 samples), so the next
    Invoke draws what a fresh interpreter's first does. (LiteRT's Python API
    cannot read an empty output.)"""
    x = np.zeros((2, 3), np.float32)
    c = case("MULTINOMIAL", [Input(x), Input(np.array(0, np.int32))], 4, 4,
             outputs=[np.int64])
    got = litegpu_run(c, tmp_path, [[x, np.array(0, np.int32)],
                                    [x, np.array(5, np.int32)]])
    assert got[0][0].shape == (2, 0)
    want = check_case(case("MULTINOMIAL", [Input(x),
                                           Input(np.array(5, np.int32))],
                           4, 4, outputs=[np.int64]))
    np.testing.assert_array_equal(got[1][0], want[0])


def test_multinomial_non_finite_logits():
    """Non-finite logits add nothing: classes of -inf, nan and +inf are
    never drawn, nor are the classes far below the maximum."""
    x = np.array([[0.0, -np.inf, 1.0, np.nan],
                  [np.inf, 2.0, -np.inf, -200.0],
                  [-1e30, 5.0, 5.0, -np.inf]], np.float32)
    c = case("MULTINOMIAL", [Input(x), Const(np.array(64, np.int32))], 8, 1,
             outputs=[np.int64], shapes=[(3, 64)])
    got = check_steps(c, [[x], [x]])
    out = got[0][0]
    assert set(out[0]) <= {0, 2}
    assert set(out[1]) == {1}
    assert set(out[2]) <= {1, 2}


def test_multinomial_all_logits_non_finite():
    """No finite logit: the total is zero and every sample is `classes`
    (past the last class), as in TFLite."""
    x = np.array([[-np.inf, -np.inf, np.nan]], np.float32)
    c = case("MULTINOMIAL", [Input(x), Const(np.array(5, np.int32))], 8, 1,
             outputs=[np.int64], shapes=[(1, 5)])
    got = check_case(c)
    assert np.all(got[0] == 3)


def test_multinomial_many_samples():
    rng = np.random.default_rng(7)
    x = logits(rng, 2, 50)
    c = case("MULTINOMIAL", [Input(x), Const(np.array(1001, np.int32))], 13,
             17, outputs=[np.int32], shapes=[(2, 1001)])
    check_steps(c, [[x], [x]])


def test_multinomial_unseeded_frequencies(tmp_path):
    p = np.array([0.1, 0.2, 0.3, 0.4])
    x = np.log(p).astype(np.float32)[None, :]
    n = 20000
    c = case("MULTINOMIAL", [Input(x), Const(np.array(n, np.int32))], 0, 0,
             outputs=[np.int64], shapes=[(1, n)])
    got = litegpu_run(c, tmp_path, [[x], [x]])
    a, b = got[0][0][0], got[1][0][0]
    assert a.shape == (n,)
    assert not np.array_equal(a, b)
    freq = np.bincount(a, minlength=4) / n
    # Standard error at most 0.0035.
    assert np.all(np.abs(freq - p) < 0.02)


# ---- Errors -----------------------------------------------------------------

@pytest.mark.parametrize("op", FLOAT_OPS)
def test_shape_type_rejected(op, tmp_path):
    c = case(op, [Const(np.array([2, 2], np.int64))], 1, 1, shapes=[(2, 2)])
    msg = litegpu_error(c, tmp_path)
    assert f"{op}: shape type INT64 is not supported" in msg


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_shape_rank_rejected(op, tmp_path):
    c = case(op, [Const(np.array([[2, 2]], np.int32))], 1, 1,
             shapes=[(2, 2)])
    msg = litegpu_error(c, tmp_path)
    assert f"{op}: shape must be 1-D, got rank 2" in msg


@pytest.mark.parametrize("op", FLOAT_OPS)
@pytest.mark.parametrize("out_type", [np.int32, np.float16])
def test_output_type_rejected(op, out_type, tmp_path):
    c = case(op, [Const(i32(2))], 1, 1, outputs=[out_type], shapes=[(2,)])
    msg = litegpu_error(c, tmp_path)
    assert f"{op}: output type" in msg and "is not supported" in msg


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_negative_dim_rejected(op, tmp_path):
    c = case(op, [Const(i32(2, -3))], 1, 1, shapes=[(2, 3)])
    msg = litegpu_error(c, tmp_path)
    assert f"{op}: shape dim 1 is negative (-3)" in msg
    # At run time too (a dynamic output).
    c = case(op, [Input(i32(2, -3))], 1, 1, shapes=[(2, 3)])
    msg = litegpu_error(c, tmp_path)
    assert f"{op}: shape dim 1 is negative (-3)" in msg


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_too_many_elements_rejected(op, tmp_path):
    c = case(op, [Input(i32(65536, 65536))], 1, 1, shapes=[(1, 1)])
    msg = litegpu_error(c, tmp_path)
    assert f"{op}: shape has 2^31 or more elements" in msg


def test_multinomial_errors(tmp_path):
    x = np.zeros((2, 3), np.float32)
    n = Const(np.array(2, np.int32))
    cases = [
        (case("MULTINOMIAL", [Const(np.zeros(3, np.float32)), n], 1, 1,
              outputs=[np.int64], shapes=[(1, 2)]),
         "MULTINOMIAL: logits must be 2-D [batch, classes], got rank 1"),
        (case("MULTINOMIAL", [Input(x.astype(np.int32)), n], 1, 1,
              outputs=[np.int64], shapes=[(2, 2)]),
         "MULTINOMIAL: logits type INT32 is not supported"),
        (case("MULTINOMIAL", [Input(x), Const(np.array([2], np.int32))], 1, 1,
              outputs=[np.int64], shapes=[(2, 2)]),
         "MULTINOMIAL: num_samples must be a scalar, got rank 1"),
        (case("MULTINOMIAL", [Input(x), Const(np.array(-1, np.int32))], 1, 1,
              outputs=[np.int64], shapes=[(2, 2)]),
         "MULTINOMIAL: num_samples must be >= 0, got -1"),
        (case("MULTINOMIAL", [Input(x), Const(np.array(2, np.int64))], 1, 1,
              outputs=[np.int64], shapes=[(2, 2)]),
         "MULTINOMIAL: num_samples type INT64 is not supported"),
        (case("MULTINOMIAL", [Input(x), n], 1, 1, outputs=[np.float32],
              shapes=[(2, 2)]),
         "MULTINOMIAL: output type FLOAT32 is not supported"),
        (case("MULTINOMIAL", [Input(np.zeros((2, 0), np.float32)), n], 1, 1,
              outputs=[np.int64], shapes=[(2, 2)]),
         "MULTINOMIAL: logits must have at least one class, got 0"),
    ]
    for i, (c, want) in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        msg = litegpu_error(c, d)
        assert want in msg, (i, msg)


# ---- STABLEHLO_RNG_BIT_GENERATOR --------------------------------------------

def u64(*values):
    return np.array(values, dtype=np.uint64)


def rng_case(state, algorithm, out_type, out_shape):
    params = {} if algorithm is None else {"algorithm": algorithm}
    return OpCase(op="STABLEHLO_RNG_BIT_GENERATOR", version=1, inputs=[state],
                  params=params,
                  outputs=[Output(np.uint64, shape=state.array.shape),
                           Output(out_type, shape=out_shape)],
                  rtol=0.0, atol=0.0)


STATES = {
    2: [u64(0, 0), u64(0x0123456789abcdef, 0x00000000fffffffe),
        u64(2**64 - 1, 2**64 - 1)],
    3: [u64(0, 0, 0), u64(7, 0x00000000fffffffd, 0xdeadbeef00c0ffee),
        u64(2**64 - 1, 2**64 - 2, 5)],
}


# THREEFRY takes a 2-element state only (a 3-element one is an error case).
@pytest.mark.parametrize("algorithm,n", [
    (None, 2), (None, 3), ("DEFAULT", 2), ("DEFAULT", 3), ("PHILOX", 2),
    ("PHILOX", 3), ("THREEFRY", 2)])
@pytest.mark.parametrize("out_type", [np.int32, np.uint32, np.int64,
                                      np.uint64])
@pytest.mark.parametrize("out_shape", [(1,), (3,), (2, 5), (7,)])
def test_rng_bit_generator(algorithm, n, out_type, out_shape):
    """Bits and the next state bit for bit; the counter words near 2^32
    and 2^64 show the carry from word 0 into word 1 (and none out of
    word 1). Three Invokes with other states, the last one the state the
    first returned."""
    states = STATES[n]
    c = rng_case(Input(states[0]), algorithm, out_type, out_shape)
    first = check_steps(c, [[states[0]], [states[1]], [states[2]]])
    c = rng_case(Input(states[0]), algorithm, out_type, out_shape)
    check_steps(c, [[first[0][0]]])
    assert first[0][1].shape == out_shape


def test_rng_bit_generator_constant_state():
    c = rng_case(Const(u64(11, 22, 33)), "PHILOX", np.uint64, (4, 3))
    got = check_case(c)
    assert got[0][0] == 11  # the key words are kept


def test_rng_bit_generator_errors(tmp_path):
    cases = [
        (rng_case(Input(np.array([1, 2], np.int64)), "PHILOX", np.int32, (2,)),
         "STABLEHLO_RNG_BIT_GENERATOR: initial_state type INT64 is not "
         "supported"),
        (rng_case(Input(u64(1, 2, 3)), "THREEFRY", np.int32, (2,)),
         "STABLEHLO_RNG_BIT_GENERATOR: THREEFRY takes a state of 2 elements, "
         "got 3"),
        (rng_case(Input(u64(1, 2, 3, 4)), "PHILOX", np.int32, (2,)),
         "STABLEHLO_RNG_BIT_GENERATOR: PHILOX takes a state of 2 or 3 "
         "elements, got 4"),
        (rng_case(Input(np.array([[1, 2]], np.uint64)), "PHILOX", np.int32,
                  (2,)),
         "STABLEHLO_RNG_BIT_GENERATOR: initial_state must be 1-D, got rank 2"),
        (rng_case(Input(u64(1, 2)), "PHILOX", np.float32, (2,)),
         "STABLEHLO_RNG_BIT_GENERATOR: output type FLOAT32 is not supported"),
    ]
    for i, (c, want) in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        msg = litegpu_error(c, d)
        assert want in msg, (i, msg)


# ---- REAL, IMAG, COMPLEX_ABS ------------------------------------------------

def complex_values(rng, shape, dtype):
    part = np.float32 if dtype == np.complex64 else np.float64
    re = (rng.standard_normal(shape) * 10).astype(part)
    im = (rng.standard_normal(shape) * 10).astype(part)
    return (re + 1j * im).astype(dtype)


COMPLEX_OPS = ["REAL", "IMAG", "COMPLEX_ABS"]


@pytest.mark.parametrize("op", COMPLEX_OPS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (2, 3, 4), (1, 2, 1, 3, 2)])
def test_complex_parts(op, dtype, shape):
    """Exact (a part is copied; the magnitude is hypot in both runtimes)."""
    rng = np.random.default_rng(len(shape) * 10 + len(op))
    x = complex_values(rng, shape, dtype)
    out = np.float32 if dtype == np.complex64 else np.float64
    c = OpCase(op=op, version=1, inputs=[Input(x)], outputs=[out],
               rtol=0.0, atol=0.0)
    got = check_case(c)[0]
    want = {"REAL": np.real, "IMAG": np.imag, "COMPLEX_ABS": np.abs}[op](x)
    np.testing.assert_allclose(got, want, rtol=1e-6 if out == np.float32
                               else 1e-15)


@pytest.mark.parametrize("op", COMPLEX_OPS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_special_values(op, dtype):
    """Signed zeros, infinities, NaN, values whose squares overflow or
    underflow (hypot does not), denormals."""
    big = np.finfo(np.float32 if dtype == np.complex64 else np.float64).max
    tiny = np.finfo(np.float32 if dtype == np.complex64 else np.float64).tiny
    pairs = [(0.0, -0.0), (-0.0, 0.0), (np.inf, 1.0), (1.0, -np.inf),
             (np.nan, 2.0), (np.inf, np.nan), (big, big / 2),
             (tiny / 4, tiny / 8), (-3.0, 4.0), (1e-30, -1e30)]
    part = np.float32 if dtype == np.complex64 else np.float64
    x = np.empty(len(pairs), dtype)
    x.real = np.array([p[0] for p in pairs], part)
    x.imag = np.array([p[1] for p in pairs], part)
    out = np.float32 if dtype == np.complex64 else np.float64
    c = OpCase(op=op, version=1, inputs=[Const(x)], outputs=[out],
               output_shapes=[x.shape], rtol=0.0, atol=0.0)
    got = check_case(c)[0]
    if op == "COMPLEX_ABS":
        assert got[8] == 5.0 and got[2] == np.inf and got[5] == np.inf
        assert got[7] > 0  # no underflow to zero
    if op == "IMAG":
        assert np.signbit(got[0]) and not np.signbit(got[1])


def test_complex_errors(tmp_path):
    x = np.ones(3, np.complex64)
    cases = [
        (OpCase(op="REAL", version=1, inputs=[Input(np.ones(3, np.float32))],
                outputs=[np.float32]),
         "REAL: input type FLOAT32 is not supported"),
        (OpCase(op="IMAG", version=1, inputs=[Input(x)],
                outputs=[np.float64]),
         "IMAG: output type FLOAT64 must be FLOAT32 for a COMPLEX64 input"),
        (OpCase(op="COMPLEX_ABS", version=1,
                inputs=[Input(np.ones(3, np.complex128))],
                outputs=[np.float32]),
         "COMPLEX_ABS: output type FLOAT32 must be FLOAT64 for a COMPLEX128 "
         "input"),
    ]
    for i, (c, want) in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        msg = litegpu_error(c, d)
        assert want in msg, (i, msg)


# ---- RFFT2D -----------------------------------------------------------------
#
# Both runtimes transform in double and round the results to float, but in
# different summation orders (TFLite: Ooura's fft2d; litegpu: row then
# column radix-2 FFTs). The double results differ by a few double
# roundings of the terms, at most ~1e-13 * sum|x| for these sizes; after
# the final rounding to float they differ by at most one float ulp of the
# value (rtol 2.5e-7, two ulps of 2^-24 with a margin), and near-zero bins
# by the double difference itself (atol 1e-9 * sum|x|, far above it and far
# below any float-visible error of the transform).

def rfft_case(x, fft_length, const_length=True, name=None):
    scale = max(float(np.abs(x).reshape(-1, *x.shape[-2:]).sum(axis=(1, 2))
                      .max()) if x.size else 1.0, 1.0)
    length = np.array(fft_length, np.int32)
    shape = x.shape[:-2] + (fft_length[0], fft_length[1] // 2 + 1)
    return OpCase(op="RFFT2D", version=1,
                  inputs=[Input(x), Const(length) if const_length
                          else Input(length)],
                  outputs=[np.complex64], output_shapes=[shape],
                  rtol=2.5e-7, atol=1e-9 * scale, name=name)


@pytest.mark.parametrize("shape,fft_length", [
    ((4, 4), (4, 4)), ((1, 1), (1, 2)), ((2, 8), (2, 8)), ((8, 2), (8, 2)),
    ((3, 5), (4, 8)),        # zero-padded
    ((9, 17), (8, 16)),      # cropped
    ((5, 3), (2, 4)),        # cropped rows, padded columns
    ((2, 3, 16, 32), (16, 32)), ((32, 64), (32, 64)), ((1, 128), (1, 128)),
])
def test_rfft2d(shape, fft_length):
    rng = np.random.default_rng(sum(shape) + sum(fft_length))
    x = rng.standard_normal(shape).astype(np.float32)
    got = check_case(rfft_case(x, fft_length))[0]
    # numpy's transform of the cropped / padded input, in double.
    h, w = fft_length
    padded = np.zeros(shape[:-2] + (h, w))
    ch, cw = min(h, shape[-2]), min(w, shape[-1])
    padded[..., :ch, :cw] = x[..., :ch, :cw]
    np.testing.assert_allclose(got, np.fft.rfft2(padded), rtol=1e-5,
                               atol=1e-5 * max(1.0, np.abs(x).sum()))


def test_rfft2d_dynamic_fft_length():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 6)).astype(np.float32)
    c = rfft_case(x, (8, 8), const_length=False)
    steps = [[x, np.array(l, np.int32)] for l in ((8, 8), (4, 2), (2, 16),
                                                   (8, 8))]
    got = check_steps(c, steps)
    assert [g[0].shape for g in got] == [(2, 8, 5), (2, 4, 2), (2, 2, 9),
                                        (2, 8, 5)]


def test_rfft2d_special_inputs():
    """A constant (all energy in bin 0), an impulse (flat spectrum), and
    large values."""
    x = np.stack([np.full((4, 8), 2.5, np.float32),
                  np.pad(np.ones((1, 1), np.float32), ((0, 3), (0, 7))),
                  np.full((4, 8), 1e30, np.float32)])
    got = check_case(rfft_case(x, (4, 8)))[0]
    assert got[0, 0, 0] == 80.0 and np.all(got[0].ravel()[1:] == 0)
    assert np.all(got[1] == 1.0)


def test_rfft2d_errors(tmp_path):
    x = np.ones((4, 4), np.float32)
    cases = [
        (rfft_case(x, (4, 6)),
         "RFFT2D: fft_length[1] = 6 is not a power of two"),
        (rfft_case(x, (0, 4)),
         "RFFT2D: fft_length[0] = 0 is not a power of two"),
        (OpCase(op="RFFT2D", version=1,
                inputs=[Input(np.ones(4, np.float32)),
                        Const(np.array([4, 4], np.int32))],
                outputs=[np.complex64], output_shapes=[(4, 3)]),
         "RFFT2D: input must have rank 2 or more, got 1"),
        (OpCase(op="RFFT2D", version=1,
                inputs=[Input(x.astype(np.float64)),
                        Const(np.array([4, 4], np.int32))],
                outputs=[np.complex64], output_shapes=[(4, 3)]),
         "RFFT2D: input type FLOAT64 is not supported"),
        (OpCase(op="RFFT2D", version=1,
                inputs=[Input(x), Const(np.array([4, 4, 4], np.int32))],
                outputs=[np.complex64], output_shapes=[(4, 3)]),
         "RFFT2D: fft_length must be a [2] tensor"),
        (OpCase(op="RFFT2D", version=1,
                inputs=[Input(x), Input(np.array([4, 3], np.int32))],
                outputs=[np.complex64], output_shapes=[(4, 3)]),
         "RFFT2D: fft_length[1] = 3 is not a power of two"),
    ]
    for i, (c, want) in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        msg = litegpu_error(c, d)
        assert want in msg, (i, msg)
