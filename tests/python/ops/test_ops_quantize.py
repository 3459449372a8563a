"""QUANTIZE against LiteRT's reference kernels, bit for bit.

Every case runs through op_harness (litegpu's model writer, LiteRT's
BUILTIN_REF kernels as the expected values, litegpu with 1 and 2 threads);
integer outputs are compared exactly. Float inputs always include the
values where rounding and the conversion matter: ties (k + 0.5 steps, both
signs), +-0, subnormals, the clamp edges, values far past the range, +-inf
and NaN (TFLite casts the rounded quotient to int32 unchecked; litegpu
reproduces what that gives on x86).
"""

import numpy as np
import pytest

from op_harness import Input, OpCase, Output, check_case, check_rejected

EXACT = dict(rtol=0.0, atol=0.0)


def special_floats(scale, zero_point, lo, hi):
    """Values around every place QUANTIZE's float path can go wrong."""
    steps = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 127.5,
                      -128.5, 255.5, 32767.5, -32768.5], np.float64)
    edges = np.array([lo - zero_point, hi - zero_point, lo - zero_point - 1,
                      hi - zero_point + 1], np.float64)
    fixed = [0.0, -0.0, 1e-45, -1e-45, 1e-38, 3e38, -3e38, 1e10, -1e10,
             np.inf, -np.inf, np.nan]
    return np.concatenate([(steps * scale).astype(np.float32),
                           (edges * scale).astype(np.float32),
                           np.array(fixed, np.float32)])


def float_input(rng, shape, scale, zero_point, lo, hi):
    x = (rng.standard_normal(shape) * scale * (hi - lo) / 4).astype(np.float32)
    special = special_floats(scale, zero_point, lo, hi)
    flat = x.reshape(-1)
    flat[:special.size] = special[:flat.size]
    return x


RANGES = {np.int8: (-128, 127), np.uint8: (0, 255), np.int16: (-32768, 32767)}


@pytest.mark.parametrize("dtype,scale,zp,version", [
    (np.int8, 0.1, 0, 1), (np.int8, 0.0235, -128, 1), (np.int8, 3.0, 127, 1),
    (np.uint8, 0.05, 128, 1), (np.uint8, 1 / 255, 0, 1),
    (np.int16, 1e-3, 0, 2), (np.int16, 0.37, -100, 2),
])
def test_quantize_float_per_tensor(dtype, scale, zp, version):
    rng = np.random.default_rng(701)
    lo, hi = RANGES[dtype]
    x = float_input(rng, (3, 5, 7), scale, zp, lo, hi)
    check_case(OpCase(op="QUANTIZE", version=version, inputs=[Input(x)],
                      outputs=[Output(dtype, quant=(scale, zp))], **EXACT))


@pytest.mark.parametrize("axis,shared_zp", [(0, False), (1, True), (3, False)])
def test_quantize_float_per_channel(axis, shared_zp):
    """Version 3: one scale (and zero point) per index of the output's
    quantized_dimension."""
    rng = np.random.default_rng(702)
    shape = (4, 3, 2, 5)
    channels = shape[axis]
    scales = rng.uniform(1e-3, 0.2, channels).astype(np.float32).tolist()
    zps = [7] * channels if shared_zp else rng.integers(-20, 20, channels).tolist()
    x = float_input(rng, shape, 0.05, 0, -128, 127)
    check_case(OpCase(op="QUANTIZE", version=3, inputs=[Input(x)],
                      outputs=[Output(np.int8, quant=(scales, zps, axis))],
                      **EXACT))


def all_values(dtype):
    info = np.iinfo(dtype)
    if info.bits <= 16:
        return np.arange(info.min, info.max + 1, dtype=np.int64).astype(dtype)
    rng = np.random.default_rng(703)
    edges = np.array([info.min, info.min + 1, -1, 0, 1, info.max - 1,
                      info.max], np.int64)
    return np.concatenate([edges, rng.integers(-2**20, 2**20, 4000)]
                          ).astype(dtype)


@pytest.mark.parametrize("src,dst,in_q,out_q", [
    (np.int8, np.int8, (0.1, 3), (0.07, -5)),      # ratio > 1
    (np.int8, np.int8, (0.02, 0), (0.5, 0)),       # ratio < 1/16
    (np.int8, np.uint8, (0.1, -1), (0.1, 127)),    # same scale, shift 128
    (np.int8, np.uint8, (0.1, 0), (0.3, 128)),
    (np.uint8, np.int8, (0.1, 128), (0.1, 0)),     # same scale, shift -128
    (np.uint8, np.uint8, (0.003, 10), (0.0021, 250)),
    (np.int16, np.int8, (1e-4, 0), (0.01, -3)),
    (np.int16, np.int16, (1e-4, 0), (3e-4, 0)),
    (np.int16, np.int32, (1e-4, 0), (1e-6, 0)),
    (np.int32, np.int8, (1e-5, 0), (0.05, 1)),
    (np.int32, np.int16, (1e-5, 2), (1e-3, 0)),
])
def test_requantize(src, dst, in_q, out_q):
    """Every input value (16 bits and less; edges and random for int32),
    through TFLite's fixed-point multiplier."""
    q = all_values(src)
    check_case(OpCase(op="QUANTIZE", version=2 if dst == np.int16 else 1,
                      inputs=[Input(q, quant=in_q)],
                      outputs=[Output(dst, quant=out_q)], **EXACT))


def test_requantize_int16_needs_zero_points_0():
    q = np.array([-3, 4], np.int16)
    check_rejected(OpCase(op="QUANTIZE", version=2,
                          inputs=[Input(q, quant=(0.1, 2))],
                          outputs=[Output(np.int16, quant=(0.1, 0))]),
                   match=r"QUANTIZE: INT16 to INT16 needs zero points 0 "
                         r"\(input 2, output 0\)",
                   litert_accepts=False)


def test_float_to_int32_rejected():
    x = np.array([1.5], np.float32)
    check_rejected(OpCase(op="QUANTIZE", inputs=[Input(x)],
                          outputs=[Output(np.int32, quant=(0.1, 0))]),
                   match=r"QUANTIZE: input type FLOAT32 with output type "
                         r"INT32 is not supported",
                   litert_accepts=False)


@pytest.mark.parametrize("quant,match", [
    ((0.0, 0), r"Tensor 1 \('out0', INT8\) has scale 0 at 0: a quantization "
               r"scale must be finite and greater than 0"),
    ((-0.5, 0), r"has scale -0.5 at 0"),
    ((float("nan"), 0), r"has scale nan at 0"),
    ((float("inf"), 0), r"has scale inf at 0"),
    ((0.5, 128), r"has zero point 128 at 0, outside INT8's range "
                 r"\[-128, 127\]"),
    ((0.5, -129), r"has zero point -129 at 0"),
])
def test_bad_output_quantization_rejected(quant, match):
    """Invalid parameters fail when the interpreter is built, with the
    tensor and the problem named (LiteRT is not asked: it runs some of
    these); the kernels' own checks of the same (quant_util.c), behind
    them, are covered by the C test test_quant_util, which builds such
    tensors by hand, per-channel arrays that do not fit the shape too."""
    x = np.zeros((2, 3), np.float32)
    check_rejected(OpCase(op="QUANTIZE", version=3, inputs=[Input(x)],
                          outputs=[Output(np.int8, quant=quant)]),
                   match=match)


def test_bad_input_quantization_rejected():
    q = np.array([1, 2], np.int8)
    check_rejected(OpCase(op="QUANTIZE", inputs=[Input(q, quant=(-0.25, 0))],
                          outputs=[Output(np.int8, quant=(0.1, 0))]),
                   match=r"Tensor 0 \('in0', INT8\) has scale -0.25")
