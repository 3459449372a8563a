"""The unary family against LiteRT: elementwise math and activations,
SOFTMAX / LOG_SOFTMAX, PRELU, CAST and DEQUANTIZE.

Every case runs through op_harness: the model is written by litegpu's model
writer, LiteRT's reference kernels give the expected values, litegpu runs it
with 1 and 2 threads. Inputs are seeded and always include the special
values (NaN, +-inf, +-0, cut-offs, ties) next to random ones.

Tolerances (rtol, atol):
  * exact (0, 0): ABS, NEG, FLOOR, CEIL, ROUND, SIGN, SQUARE, SQRT, the
    RELU family, LEAKY_RELU, HARD_SWISH, PRELU, CAST, DEQUANTIZE and the
    integer paths. These are single correctly rounded IEEE operations (or
    none) in the same order as TFLite's kernels, so any difference is a bug.
  * TRANSCENDENTAL (2.4e-7 = 2 * 2^-23, i.e. 2 ulp, atol 1e-44 for
    subnormal results): EXP, LOG, RSQRT, SIN, COS, TANH, LOGISTIC, ELU.
    TFLite's reference kernels call the C library's float functions
    (std::exp etc.) with the same formulas as litegpu (LOGISTIC's cut-offs
    included); both then use the same glibc libm here and agree bit for bit
    (measured on 20000 random inputs per op). The 2-ulp bound is what two
    different libms may differ by (each is within 1 ulp for these
    functions), so the tests stay valid against a LiteRT built elsewhere.
  * SOFTMAX / LOG_SOFTMAX (1e-6, 1e-7): litegpu follows the reference's
    float steps (max, exp((x - max) * beta), a float sum, divide /
    subtract log); SOFTMAX with beta > 0 on AVX2 / AVX-512 uses a vector
    exp (within 1 ulp) and sums in vector lanes, so a difference is a few
    ulps of exp and of the sum's order.
  * GELU: LiteRT's reference GELU evaluates tanh and erfc with Eigen's
    polynomial approximations, not libm. The erfc form stays within the
    default bound (measured 2.4e-7 abs, 8e-7 rel). The tanh form differs by
    up to 8 ulps of tanh near +-1, and Eigen's tanh saturates to +-1 already
    at |u| >= 7.9; 0.5 x (1 + tanh u) turns that into an absolute error of
    0.5 |x| * delta, measured at most 9.5e-7 (x near 4 and -5) over a dense
    grid of [-15, 15]: atol 2e-6 with the default rtol.

CEIL, ROUND and ELU are not in LiteRT's reference op resolver
(BUILTIN_REF), so their cases compare with LiteRT's builtin kernels through
check_case_builtin below (same harness pieces, another resolver).
"""

import dataclasses
import os
import tempfile
import zlib

import numpy as np
import pytest

import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case, check_rejected

try:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
except ImportError:  # setup.sh may install tflite-runtime instead
    from tflite_runtime.interpreter import Interpreter, OpResolverType

EXACT = dict(rtol=0.0, atol=0.0)
TRANSCENDENTAL = dict(rtol=2.4e-7, atol=1e-44)
SOFTMAX_TOL = dict(rtol=1e-6, atol=1e-7)
GELU_TANH_TOL = dict(rtol=1e-5, atol=2e-6)

SPECIALS = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -1.0, 0.5,
                     -0.5, 1.5, -2.5, 3.0, -3.0, 6.0, 7.0, 1e-45, -1e-38,
                     3.4e38, -3.4e38], np.float32)

# Shapes: scalar, size 1, odd sizes, batch > 1, 5-D, empty.
SHAPES = [(), (1,), (3,), (5, 7), (2, 17), (2, 3, 5), (4, 1, 3, 7),
          (2, 1, 3, 1, 5), (0, 3)]


def check_case_builtin(case, threads=(1, 2)):
    """check_case for ops LiteRT's reference resolver lacks: the same model
    and comparison, with LiteRT's builtin kernels as the expected values."""
    with tempfile.TemporaryDirectory(prefix="litegpu_unary_") as d:
        _, inputs = oh.write_spec(case, d)
        model = os.path.join(d, "model.tflite")
        oh.build_model(os.path.join(d, "case.spec"), model)
        interp = Interpreter(
            model_path=model, experimental_op_resolver_type=(
                OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
        interp.allocate_tensors()
        for detail, array in zip(interp.get_input_details(), inputs):
            interp.set_tensor(detail["index"], array)
        interp.invoke()
        want = [np.array(interp.get_tensor(x["index"]))
                for x in interp.get_output_details()]
        first = None
        for t in threads:
            got = oh.run_litegpu(model, inputs, num_threads=t)
            assert len(got) == len(want)
            for k, (g, w) in enumerate(zip(got, want)):
                problem = oh.compare(g, w, case.rtol, case.atol)
                assert problem is None, (f"[{case.label()}] output {k} "
                                         f"({t} threads): {problem}")
            first = first if first is not None else got
        return first


def data(rng, shape, lo, hi, specials=True):
    """Seeded uniform values in [lo, hi) of `shape`, with the special values
    written over the first elements when the shape has room."""
    x = rng.uniform(lo, hi, shape).astype(np.float32)
    if specials and x.size:
        flat = x.reshape(-1)
        n = min(flat.size, SPECIALS.size)
        flat[:n] = SPECIALS[:n]
    return x


# ---- Elementwise float ops ---------------------------------------------------

# op -> (input range, tolerance)
FLOAT_OPS = {
    "EXP": ((-90, 90), TRANSCENDENTAL),
    "LOG": ((-1, 1e4), TRANSCENDENTAL),
    "SQRT": ((-1, 1e4), EXACT),
    "RSQRT": ((-1, 1e4), TRANSCENDENTAL),
    "SQUARE": ((-1e20, 1e20), EXACT),
    "ABS": ((-10, 10), EXACT),
    "NEG": ((-10, 10), EXACT),
    "SIN": ((-100, 100), TRANSCENDENTAL),
    "COS": ((-100, 100), TRANSCENDENTAL),
    "FLOOR": ((-10, 10), EXACT),
    "SIGN": ((-2, 2), EXACT),
    "LOGISTIC": ((-120, 30), TRANSCENDENTAL),
    "TANH": ((-12, 12), TRANSCENDENTAL),
    "RELU": ((-10, 10), EXACT),
    "RELU6": ((-10, 10), EXACT),
    "RELU_N1_TO_1": ((-3, 3), EXACT),
    "RELU_0_TO_1": ((-3, 3), EXACT),
    "HARD_SWISH": ((-8, 8), EXACT),
}
BUILTIN_ONLY_OPS = {
    "CEIL": ((-10, 10), EXACT),
    "ROUND": ((-10, 10), EXACT),
    "ELU": ((-20, 5), TRANSCENDENTAL),
}


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
def test_float_op(op, shape):
    (lo, hi), tol = FLOAT_OPS[op]
    rng = np.random.default_rng(zlib.crc32(f"{op}{shape}".encode()))
    x = data(rng, shape, lo, hi)
    check_case(OpCase(op=op, inputs=[Input(x)], **tol))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", sorted(BUILTIN_ONLY_OPS))
def test_float_op_builtin_reference(op, shape):
    (lo, hi), tol = BUILTIN_ONLY_OPS[op]
    rng = np.random.default_rng(zlib.crc32(f"{op}{shape}".encode()))
    x = data(rng, shape, lo, hi)
    if op == "ROUND" and x.size:
        # Ties everywhere: half to even on both sides.
        x.reshape(-1)[::2] = np.floor(x.reshape(-1)[::2]) + 0.5
    check_case_builtin(OpCase(op=op, inputs=[Input(x)], **tol))


def test_large_tensor_two_threads():
    """Above the kernels' parallel threshold (16384 elements), split over
    two threads by the harness's second run."""
    rng = np.random.default_rng(3)
    x = data(rng, (3, 7, 1031), -20, 20)
    for op in ("EXP", "TANH", "LOGISTIC", "HARD_SWISH", "RELU6"):
        check_case(OpCase(op=op, inputs=[Input(x)],
                          **FLOAT_OPS[op][1]))


def test_logistic_cutoffs():
    """TFLite's reference LOGISTIC: 1 above 16.619047, exp(x) below -9, else
    1 / (1 + exp(-x)); values on and around both cut-offs."""
    up = np.float32(16.619047164916992188)
    x = np.array([up, np.nextafter(up, np.float32(0)),
                  np.nextafter(up, np.float32(100)), -9.0,
                  np.nextafter(np.float32(-9), np.float32(0)),
                  np.nextafter(np.float32(-9), np.float32(-100)), -10.0,
                  -87.0, -100.0, -104.0, 88.0], np.float32)
    out = check_case(OpCase(op="LOGISTIC", inputs=[Input(x)],
                            **TRANSCENDENTAL))
    assert out[0][0] < 1.0 and out[0][2] == 1.0


@pytest.mark.parametrize("alpha", [0.2, 0.0, -0.5, 1.5, 1e-30])
def test_leaky_relu(alpha):
    rng = np.random.default_rng(41)
    x = data(rng, (3, 17), -10, 10)
    check_case(OpCase(op="LEAKY_RELU", inputs=[Input(x)],
                      params={"alpha": alpha}, **EXACT))


def test_leaky_relu_version_2_float():
    """Version 2 adds int16; a float model may still carry it."""
    x = data(np.random.default_rng(42), (5,), -3, 3)
    check_case(OpCase(op="LEAKY_RELU", version=2, inputs=[Input(x)],
                      params={"alpha": 0.3}, **EXACT))


# (op, version for INT8, version for INT16 or None where TFLite has none)
QUANT_RELUS = [("RELU", 2, 3), ("RELU6", 2, 3), ("RELU_N1_TO_1", 1, None),
               ("RELU_0_TO_1", 1, None)]


@pytest.mark.parametrize("op,v8,v16", QUANT_RELUS)
@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.05, -3)),
                                        ((0.021, 17), (0.034, -100)),
                                        ((0.9, -128), (0.0031, 127))])
def test_relu_family_int8(op, v8, v16, in_q, out_q):
    """INT8 RELU, RELU6, RELU_N1_TO_1 and RELU_0_TO_1 for every input value,
    with equal and different input/output quantization: bit for bit with
    LiteRT's reference (rescale, then clamp to the quantized range)."""
    x = np.arange(-128, 128, dtype=np.int8).reshape(4, 64)
    check_case(OpCase(op=op, version=v8, inputs=[Input(x, quant=in_q)],
                      outputs=[Output(np.int8, quant=out_q)],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("op,v8,v16", [r for r in QUANT_RELUS if r[2]])
@pytest.mark.parametrize("in_s,out_s", [(1e-3, 1e-3), (2.1e-4, 3.7e-4)])
def test_relu_family_int16(op, v8, v16, in_s, out_s):
    x = np.arange(-32768, 32768, 7, dtype=np.int16)
    check_case(OpCase(op=op, version=v16, inputs=[Input(x, quant=(in_s, 0))],
                      outputs=[Output(np.int16, quant=(out_s, 0))],
                      rtol=0.0, atol=0.0))


# (op, version, params, output quantization or None for "as the input")
LUT_OPS = [("LOGISTIC", 2, {}, (1 / 256, -128)),
           ("TANH", 2, {}, (1 / 128, 0)),
           ("TANH", 2, {}, (0.0123, 9)),
           ("ELU", 1, {}, None),
           ("GELU", 2, {"approximate": False}, None),
           ("GELU", 2, {"approximate": True}, (0.031, -20))]


@pytest.mark.parametrize("op,version,params,out_q", LUT_OPS)
@pytest.mark.parametrize("in_q", [(0.05, -3), (0.11, 60), (0.0021, -128)])
def test_lut_activation_int8(op, version, params, out_q, in_q):
    """INT8 LOGISTIC, TANH, ELU and GELU for every input value: TFLite's
    table of the float function (dequantize, transform, requantize),
    bit for bit with LiteRT's reference (ELU: its builtin kernels)."""
    x = np.arange(-128, 128, dtype=np.int8).reshape(2, 128)
    case = OpCase(op=op, version=version, inputs=[Input(x, quant=in_q)],
                  params=params,
                  outputs=[Output(np.int8, quant=out_q or in_q)],
                  rtol=0.0, atol=0.0)
    # ELU is absent from LiteRT's reference kernel set: its builtin ones.
    (check_case_builtin if op in BUILTIN_ONLY_OPS else check_case)(case)


# INT16 LOGISTIC / TANH input scales: 2^-12 (TANH also 2^-11) take the
# power-of-two path (multiplier 3 or 6, no shift); the others an input
# multiplier, from 2.0 (no shift, the largest product that fits TFLite's
# 32 bits) down to 1e-9 (a 31-bit shift), 2^-10 being a power of two the
# power-of-two path does not take.
SIGMOID16_POT = {"LOGISTIC": [2**-12], "TANH": [2**-12, 2**-11]}
SIGMOID16_SCALES = [2**-10, 3.1e-4, 1.07e-3, 7.7e-3, 0.4, 2.0, 1e-9]
SIGMOID16_CASES = [(op, s) for op in ("LOGISTIC", "TANH")
                   for s in SIGMOID16_POT[op] + SIGMOID16_SCALES]


@pytest.mark.parametrize("op,scale", SIGMOID16_CASES)
def test_logistic_tanh_int16(op, scale):
    """INT16 LOGISTIC and TANH (version 3, 16x8 models) for every input
    value: the interpolated sigmoid table, bit for bit with LiteRT's
    reference kernels; with the non-power-of-two scales also with its
    default kernels (which take gemmlowp's path for the power-of-two
    ones)."""
    x = np.arange(-32768, 32768, dtype=np.int16).reshape(256, 256)
    case = OpCase(op=op, version=3, inputs=[Input(x, quant=(scale, 0))],
                  outputs=[Output(np.int16, quant=(2**-15, 0))],
                  rtol=0.0, atol=0.0)
    got = check_case(case, threads=(1, 2))[0]
    # Both functions increase; beyond the tiny scale the outputs vary.
    assert np.all(np.diff(got.ravel().astype(np.int32)) >= 0)
    assert scale < 1e-4 or len(np.unique(got)) > 5
    if scale not in SIGMOID16_POT[op]:
        check_case(dataclasses.replace(case, litert_kernels="BUILTIN"),
                   threads=(1,))


@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_logistic_tanh_int16_bad_quantization(op):
    """LiteRT and litegpu refuse an output scale other than 1/32768 and a
    non-zero zero point; litegpu names the problem."""
    x = np.array([1, -2, 3], np.int16)
    check_rejected(OpCase(op=op, version=3, inputs=[Input(x, quant=(1e-3, 0))],
                          outputs=[Output(np.int16, quant=(1 / 256, 0))]),
                   match=op + r": INT16 output scale 0.00390625 is not "
                         r"supported \(expected 1/32768\)",
                   litert_accepts=False)
    check_rejected(OpCase(op=op, version=3, inputs=[Input(x, quant=(1e-3, 4))],
                          outputs=[Output(np.int16, quant=(2**-15, 0))]),
                   match=op + r": INT16 zero points must be 0 \(input 4, "
                         r"output 0\)", litert_accepts=False)


@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.05, -3)),
                                        ((0.021, 17), (0.0031, -100)),
                                        ((0.11, -128), (0.2, 40)),
                                        ((0.08, 5), (0.6, -128)),
                                        ((0.0004, 0), (0.001, 10))])
def test_hard_swish_int8(in_q, out_q):
    """INT8 HARD_SWISH (version 1) for every input value: TFLite's 16-bit
    fixed-point reference (hi-res input, "reluish" factor, truncating
    product), bit for bit, with the output's scale above, below and far
    from the input's."""
    x = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
    check_case(OpCase(op="HARD_SWISH", inputs=[Input(x, quant=in_q)],
                      outputs=[Output(np.int8, quant=out_q)],
                      rtol=0.0, atol=0.0))


def test_hard_swish_int8_scale_ratio_rejected():
    """TFLite requires input scale / output scale <= 128."""
    x = np.array([1, 2], np.int8)
    check_rejected(OpCase(op="HARD_SWISH", inputs=[Input(x, quant=(1.0, 0))],
                          outputs=[Output(np.int8, quant=(0.001, 0))]),
                   match=r"HARD_SWISH: input scale 1 over output scale "
                         r"0.001 is too large", litert_accepts=False)


@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.05, -3)),
                                        ((0.021, -128), (0.031, -100)),
                                        ((0.9, 0), (0.004, -128)),
                                        ((0.0004, 100), (0.6, 5))])
def test_rsqrt_int8(in_q, out_q):
    """INT8 RSQRT (version 2) for every input value from the zero point up:
    TFLite's fixed-point inverse square root (five Newton-Raphson steps)
    and rescale, bit for bit; the zero point itself gives 127."""
    x = np.arange(in_q[1], 128, dtype=np.int8)
    check_case(OpCase(op="RSQRT", version=2, inputs=[Input(x, quant=in_q)],
                      outputs=[Output(np.int8, quant=out_q)],
                      rtol=0.0, atol=0.0))


def test_rsqrt_int8_below_zero_point_fails_invoke():
    """A value below the zero point is negative: LiteRT and litegpu fail
    Invoke, litegpu naming the element."""
    from litegpu import capi as lg
    x = np.array([5, 9, 2, 7], np.int8)
    case = OpCase(op="RSQRT", version=2, inputs=[Input(x, quant=(0.1, 3))],
                  outputs=[Output(np.int8, quant=(0.1, 0))])
    with oh._CaseRun(case) as run:
        run.build()
        lib = lg.load_library()
        with lg.Model.from_file(lib, str(run.model)) as model, \
                lg.Interpreter(lib, model) as interp:
            interp.allocate_tensors()
            interp.input(0).copy_from(x)
            with pytest.raises(lg.LiteGpuError,
                               match=r"RSQRT: input element 2 is 2, below "
                                     r"the zero point 3"):
                interp.invoke()


@pytest.mark.parametrize("alpha", [0.2, -0.5, 1.5, 0.0])
@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.05, -3)),
                                        ((0.021, 17), (0.034, -100))])
def test_leaky_relu_int8(alpha, in_q, out_q):
    """INT8 LEAKY_RELU (version 1) for every input value: TFLite's identity
    and alpha rescales (ratios in float), negative alpha included."""
    x = np.arange(-128, 128, dtype=np.int8)
    check_case(OpCase(op="LEAKY_RELU", inputs=[Input(x, quant=in_q)],
                      params={"alpha": alpha},
                      outputs=[Output(np.int8, quant=out_q)],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("alpha", [0.2, -0.5, 1.5])
def test_leaky_relu_int16(alpha):
    """INT16 LEAKY_RELU (version 2), zero points 0."""
    x = np.arange(-32768, 32768, 5, dtype=np.int16)
    check_case(OpCase(op="LEAKY_RELU", version=2,
                      inputs=[Input(x, quant=(5.1e-4, 0))],
                      params={"alpha": alpha},
                      outputs=[Output(np.int16, quant=(4.6e-4, 0))],
                      rtol=0.0, atol=0.0))


def test_leaky_relu_int16_zero_point_rejected():
    x = np.array([1, 2], np.int16)
    check_rejected(OpCase(op="LEAKY_RELU", version=2,
                          inputs=[Input(x, quant=(0.5, 2))],
                          params={"alpha": 0.1},
                          outputs=[Output(np.int16, quant=(0.5, 0))]),
                   match=r"LEAKY_RELU: INT16 zero points must be 0 \(input "
                         r"2, output 0\)", litert_accepts=False)


@pytest.mark.parametrize("shape", [(7,), (2, 3, 17), (0, 2)], ids=str)
@pytest.mark.parametrize("approximate", [False, True])
def test_gelu(approximate, shape):
    rng = np.random.default_rng(43)
    x = data(rng, shape, -12, 12)
    tol = GELU_TANH_TOL if approximate else {}
    check_case(OpCase(op="GELU", inputs=[Input(x)],
                      params={"approximate": approximate}, **tol))


def test_gelu_dense_grid():
    """The whole interesting range, where the tanh form's error peaks."""
    x = np.linspace(-15, 15, 30001, dtype=np.float32)
    check_case(OpCase(op="GELU", inputs=[Input(x)],
                      params={"approximate": True}, **GELU_TANH_TOL))
    check_case(OpCase(op="GELU", inputs=[Input(x)],
                      params={"approximate": False}))


# ---- Integer paths ----------------------------------------------------------

INT32_EDGES = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max, -1,
                        0, 1, -7], np.int32)


@pytest.mark.parametrize("op,version", [("ABS", 5), ("NEG", 1), ("SIGN", 2)])
def test_int32_ops(op, version):
    rng = np.random.default_rng(51)
    x = np.concatenate([INT32_EDGES,
                        rng.integers(-2**31, 2**31 - 1, 57, dtype=np.int32)])
    case = OpCase(op=op, version=version, inputs=[Input(x.reshape(3, 21))],
                  outputs=[np.int32])
    # LiteRT's reference resolver stops at ABS version 3; int32 ABS is 5.
    (check_case_builtin if op == "ABS" else check_case)(case)


def test_neg_int64():
    rng = np.random.default_rng(52)
    x = np.concatenate([
        np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1],
                 np.int64),
        rng.integers(-2**62, 2**62, 13, dtype=np.int64)])
    check_case(OpCase(op="NEG", inputs=[Input(x)], outputs=[np.int64]))


# ---- SOFTMAX / LOG_SOFTMAX --------------------------------------------------

SOFTMAX_SHAPES = [(1,), (3,), (1, 1), (4, 1), (2, 17), (3, 5, 7),
                  (2, 1, 3, 129), (1, 1000), (0, 5)]


@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0, 0.0, -1.0])
@pytest.mark.parametrize("shape", SOFTMAX_SHAPES, ids=str)
def test_softmax(shape, beta):
    rng = np.random.default_rng(61)
    x = rng.uniform(-8, 8, shape).astype(np.float32)
    check_case(OpCase(op="SOFTMAX", inputs=[Input(x)],
                      params={"beta": beta}, **SOFTMAX_TOL))


@pytest.mark.parametrize("shape", SOFTMAX_SHAPES, ids=str)
def test_log_softmax(shape):
    rng = np.random.default_rng(62)
    x = rng.uniform(-30, 30, shape).astype(np.float32)
    check_case(OpCase(op="LOG_SOFTMAX", inputs=[Input(x)], **SOFTMAX_TOL))


@pytest.mark.parametrize("op", ["SOFTMAX", "LOG_SOFTMAX"])
def test_softmax_specials(op):
    """Stability with large values; a NaN, +inf, all -inf and a lone
    finite value among -inf, one row each."""
    inf = np.inf
    x = np.array([[1000, 1001, 1002, 999],
                  [-1e30, 3e30, 0, 1],
                  [1, np.nan, 2, 3],
                  [-inf, -inf, -inf, -inf],
                  [inf, 1, -inf, 0],
                  [-inf, 0, -inf, -inf]], np.float32)
    params = {"beta": 1.0} if op == "SOFTMAX" else {}
    check_case(OpCase(op=op, inputs=[Input(x)], params=params,
                      **SOFTMAX_TOL))


@pytest.mark.parametrize("op,version", [("SOFTMAX", 2), ("SOFTMAX", 3),
                                        ("LOG_SOFTMAX", 2)])
def test_softmax_later_versions_float(op, version):
    """Versions that only add quantized types still run float models."""
    x = np.random.default_rng(63).uniform(-3, 3, (2, 9)).astype(np.float32)
    params = {"beta": 1.0} if op == "SOFTMAX" else {}
    check_case(OpCase(op=op, version=version, inputs=[Input(x)],
                      params=params, **SOFTMAX_TOL))


def test_softmax_many_rows_two_threads():
    x = np.random.default_rng(64).standard_normal((257, 101)).astype(
        np.float32) * 5
    check_case(OpCase(op="SOFTMAX", inputs=[Input(x)],
                      params={"beta": 0.75}, **SOFTMAX_TOL))
    check_case(OpCase(op="LOG_SOFTMAX", inputs=[Input(x)], **SOFTMAX_TOL))


# ---- PRELU ------------------------------------------------------------------

PRELU_SHAPES = [
    ((1, 4, 4, 3), (3,)),          # per channel
    ((2, 4, 4, 3), (1, 1, 3)),     # per channel, rank 3
    ((2, 3, 5, 7), (3, 5, 7)),     # full per-sample alpha
    ((2, 3, 5, 7), (1,)),          # one alpha
    ((2, 3, 5, 7), ()),            # scalar alpha
    ((3, 17), (17,)),
    ((1, 5, 2, 3), (5, 1, 1)),     # along H, repeated over W and C
    ((2, 5, 2, 3), (5, 1, 3)),     # (H, C) pairs
    ((7,), (7,)),
    ((0, 3), (3,)),                # empty
]


@pytest.mark.parametrize("const_alpha", [True, False])
@pytest.mark.parametrize("shapes", PRELU_SHAPES, ids=str)
def test_prelu(shapes, const_alpha):
    rng = np.random.default_rng(71)
    x = data(rng, shapes[0], -5, 5)
    a = rng.uniform(-1, 1, shapes[1]).astype(np.float32)
    alpha = Const(a) if const_alpha else Input(a)
    check_case(OpCase(op="PRELU", inputs=[Input(x), alpha], **EXACT))


def test_prelu_large_two_threads():
    rng = np.random.default_rng(72)
    x = data(rng, (4, 33, 33, 16), -5, 5)
    a = rng.uniform(0, 0.5, (16,)).astype(np.float32)
    check_case(OpCase(op="PRELU", inputs=[Input(x), Const(a)], **EXACT))


@pytest.mark.parametrize("shapes", [((2, 3), (4,)), ((3,), (2, 3)),
                                    ((1, 3), (2, 3))], ids=str)
def test_prelu_bad_alpha_rejected(shapes):
    rng = np.random.default_rng(73)
    case = OpCase(op="PRELU", inputs=[Input(data(rng, shapes[0], -1, 1)),
                                      Const(data(rng, shapes[1], 0, 1))])
    check_rejected(case, match=r"PRELU: .*(broadcast|broadcastable)",
                   litert_accepts=False)


# ---- CAST -------------------------------------------------------------------

CAST_TYPES = [np.float32, np.int32, np.int64, np.bool_, np.int8, np.uint8]


def cast_input(dtype, rng):
    """Edge values of `dtype` plus seeded random ones, 40 elements."""
    if dtype == np.float32:
        edges = np.array([np.nan, -np.inf, np.inf, -0.0, 0.3, -1.7, 2.9,
                          127.9, -128.9, 255.9, 300.5, -200.2, 3e9, -3e9,
                          2147483520.0, 2147483648.0, -2147483648.0, 1e20,
                          -1e20, 9.3e18, 2.0**63, -2.0**63], np.float32)
        rand = rng.uniform(-400, 400, 20).astype(np.float32)
    elif dtype == np.bool_:
        edges = np.array([True, False], np.bool_)
        rand = rng.integers(0, 2, 38).astype(np.bool_)
    else:
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1, -1 if info.min else 2,
                          127, 128, 255, 256, -129], np.int64)
        edges = np.clip(edges, info.min, info.max).astype(dtype)
        rand = rng.integers(info.min, info.max, 30, dtype=dtype,
                            endpoint=True)
    return np.concatenate([edges, rand]).astype(dtype)


@pytest.mark.parametrize("to", CAST_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("frm", CAST_TYPES, ids=lambda t: np.dtype(t).name)
def test_cast(frm, to):
    rng = np.random.default_rng(81)
    x = cast_input(frm, rng).reshape(2, -1)
    # The version a converter writes: 3 once int8 is involved, else 1.
    version = 3 if np.int8 in (frm, to) else 1
    out = check_case(OpCase(op="CAST", version=version, inputs=[Input(x)],
                            outputs=[to], params={
                                "in_data_type": frm, "out_data_type": to},
                            **EXACT))
    assert out[0].dtype == np.dtype(to)


def test_cast_empty_and_scalar():
    check_case(OpCase(op="CAST", inputs=[Input(np.zeros((0, 4), np.int32))],
                      outputs=[np.float32], **EXACT))
    check_case(OpCase(op="CAST", inputs=[Input(np.array(-2.5, np.float32))],
                      outputs=[np.int64], **EXACT))


def test_cast_without_options():
    """TFLite (and litegpu) read the types from the tensors, not from
    CastOptions: a model without the options casts the same."""
    x = cast_input(np.float32, np.random.default_rng(82))
    check_case(OpCase(op="CAST", inputs=[Input(x)], outputs=[np.uint8],
                      **EXACT))


def test_cast_float16_rejected():
    """Version 5 adds float16; LiteRT runs it, litegpu names the type."""
    x = np.array([1.0, -2.5], np.float16)
    check_rejected(OpCase(op="CAST", version=5, inputs=[Input(x)],
                          outputs=[np.float32]),
                   match=r"CAST: input type FLOAT16 is not supported",
                   litert_accepts=True)


def test_cast_int16_rejected():
    x = np.array([1, -2], np.int16)
    check_rejected(OpCase(op="CAST", inputs=[Input(x)], outputs=[np.float32]),
                   match=r"CAST: input type INT16 is not supported",
                   litert_accepts=True)


# ---- DEQUANTIZE -------------------------------------------------------------


@pytest.mark.parametrize("const", [True, False])
def test_dequantize_uint8(const):
    rng = np.random.default_rng(91)
    q = rng.integers(0, 256, (3, 7), dtype=np.uint8)
    q.reshape(-1)[:3] = [0, 128, 255]
    t = (Const if const else Input)(q, quant=(0.5, 128))
    check_case(OpCase(op="DEQUANTIZE", version=1, inputs=[t], **EXACT))


@pytest.mark.parametrize("scale,zp", [(0.25, -3), (0.1, 0), (1e-3, 127)])
def test_dequantize_int8(scale, zp):
    rng = np.random.default_rng(92)
    q = rng.integers(-128, 128, (2, 3, 5), dtype=np.int8)
    check_case(OpCase(op="DEQUANTIZE", version=2,
                      inputs=[Const(q, quant=(scale, zp))], **EXACT))


def test_dequantize_int16():
    rng = np.random.default_rng(93)
    q = rng.integers(-2**15, 2**15, (17,), dtype=np.int16)
    check_case(OpCase(op="DEQUANTIZE", version=3,
                      inputs=[Input(q, quant=(0.125, 0))], **EXACT))


@pytest.mark.parametrize("axis", [0, 1, 3])
def test_dequantize_int8_per_channel(axis):
    """Per-channel weights (version 5), e.g. a conv filter [O, H, W, I]."""
    rng = np.random.default_rng(94)
    shape = (4, 3, 3, 5)
    q = rng.integers(-127, 128, shape, dtype=np.int8)
    scales = rng.uniform(1e-3, 0.1, shape[axis]).tolist()
    check_case(OpCase(op="DEQUANTIZE", version=5,
                      inputs=[Const(q, quant=(scales, [0] * shape[axis],
                                              axis))], **EXACT))


@pytest.mark.parametrize("const", [True, False])
def test_dequantize_float16(const):
    """fp16 weights: every special half (subnormals, max, inf, NaN, -0)
    and random values."""
    rng = np.random.default_rng(95)
    bits = np.array([0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xc000,
                     0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555],
                    np.uint16)
    rand = rng.integers(0, 0x7c00, 51, dtype=np.uint16)
    h = np.concatenate([bits, rand]).view(np.float16).reshape(4, 16)
    t = (Const if const else Input)(h)
    check_case(OpCase(op="DEQUANTIZE", version=3, inputs=[t], **EXACT))


def test_dequantize_all_halves():
    """Every one of the 65536 halves (NaN payloads come back as NaN)."""
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    check_case(OpCase(op="DEQUANTIZE", version=3, inputs=[Const(h)], **EXACT))


# ---- Rejections -------------------------------------------------------------


def test_logistic_int8_output_scale_rejected():
    """INT8 LOGISTIC's output scale must be 1/256, as TFLite requires."""
    q = np.array([[-128, 0, 127]], np.int8)
    check_rejected(OpCase(op="LOGISTIC", version=2,
                          inputs=[Input(q, quant=(0.1, 0))],
                          outputs=[Output(np.int8, quant=(1 / 128, -128))]),
                   match=r"LOGISTIC: INT8 output scale 0.0078125 is not "
                         r"supported \(expected 1/256\)",
                   litert_accepts=False)


def test_quantized_log_softmax_rejected():
    """INT8 LOG_SOFTMAX (version 2) runs (tests/python/
    test_quantized_models.py) with TFLite's fixed output quantization, 16/256
    and 127; another one is refused with what it must be (LiteRT refuses it
    too). UINT8 (version 1) is refused by its type, which LiteRT runs."""
    q = np.array([[-128, 0, 127]], np.int8)
    check_rejected(OpCase(op="LOG_SOFTMAX", version=2,
                          inputs=[Input(q, quant=(0.1, 0))],
                          outputs=[Output(np.int8, quant=(1 / 256, -128))]),
                   match=r"LOG_SOFTMAX: INT8 output must have scale 16/256 "
                         r"and zero point 127",
                   litert_accepts=False)
    u = np.array([[0, 128, 255]], np.uint8)
    check_rejected(OpCase(op="LOG_SOFTMAX", version=1,
                          inputs=[Input(u, quant=(0.1, 128))],
                          outputs=[Output(np.uint8, quant=(16 / 256, 255))]),
                   match=r"LOG_SOFTMAX: input type UINT8 is not supported",
                   litert_accepts=True)


def test_int16_abs_rejected():
    """ABS version 3: quantized int16, which litegpu does not compute."""
    x = np.array([-3, 4], np.int16)
    check_rejected(OpCase(op="ABS", version=3, inputs=[Input(x, quant=(0.5, 0))],
                          outputs=[Output(np.int16, quant=(0.5, 0))]),
                   match=r"ABS: input type INT16 is not supported \(expected "
                         r"FLOAT32 or INT32\)",
                   litert_accepts=True)


def test_square_int32_rejected():
    """TFLite's SQUARE is float only; both refuse int32."""
    x = np.array([3, -4], np.int32)
    check_rejected(OpCase(op="SQUARE", inputs=[Input(x)], outputs=[np.int32]),
                   match=r"SQUARE: input type INT32 is not supported",
                   litert_accepts=False)


def test_softmax_scalar_rejected():
    x = np.array(1.5, np.float32)
    check_rejected(OpCase(op="SOFTMAX", inputs=[Input(x)],
                          params={"beta": 1.0}),
                   match=r"SOFTMAX: input must have at least 1 dimension",
                   litert_accepts=False)


@pytest.mark.parametrize("op,version", [("SOFTMAX", 5), ("ABS", 6),
                                        ("RELU", 4), ("EXP", 3),
                                        ("DEQUANTIZE", 10), ("CAST", 10),
                                        ("HARD_SWISH", 2), ("GELU", 4),
                                        ("SIN", 3), ("PRELU", 2)])
def test_versions_beyond_range_rejected(op, version):
    """Past LiteRT's BuiltinOpResolver range both runtimes refuse the model;
    litegpu names the op, the version and its supported range."""
    x = np.ones((2, 2), np.float32)
    dtype = np.float16 if op == "DEQUANTIZE" else np.float32
    inputs = [Input(x.astype(dtype))] + ([Const(x)] if op == "PRELU" else [])
    check_rejected(OpCase(op=op, version=version, inputs=inputs,
                          outputs=[np.float32]),
                   match=rf"{op}.*{version}", litert_accepts=False)


@pytest.mark.parametrize("op,version,params", [
    ("GELU", 3, {"approximate": False}), ("SIN", 2, {}), ("COS", 2, {})])
def test_newest_versions_float(op, version, params):
    """Versions LiteRT 2.3.0 registers beyond the indexed source (they add
    other types): a float32 model at that version computes as version 1.
    LiteRT's reference resolver stops earlier, so its builtin kernels (the
    same code for these ops) give the expected values."""
    x = data(np.random.default_rng(96), (3, 11), -6, 6)
    tol = {} if op == "GELU" else TRANSCENDENTAL
    check_case_builtin(OpCase(op=op, version=version, inputs=[Input(x)],
                              params=params, **tol))


def test_newest_versions_other_types_rejected():
    """SOFTMAX 4 is float16 and SIN 2 is float16: litegpu runs float32 only
    and names the type."""
    h = np.array([[1.0, -2.0, 0.5]], np.float16)
    check_rejected(OpCase(op="SOFTMAX", version=4, inputs=[Input(h)],
                          params={"beta": 1.0}, outputs=[np.float16]),
                   match=r"SOFTMAX: input type FLOAT16 is not supported")
    check_rejected(OpCase(op="SIN", version=2, inputs=[Input(h)],
                          outputs=[np.float16]),
                   match=r"SIN: input type FLOAT16 is not supported")
