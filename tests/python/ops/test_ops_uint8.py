"""UINT8 (legacy, TF1-era fully quantized) kernels against LiteRT's
reference kernels, bit for bit.

Legacy uint8 models quantize activations AND weights as UINT8 per tensor,
with nonzero zero points on both (weights included), and INT32 biases of
scale input_scale * weights_scale. Every case runs through
op_harness.check_case: the same one-op model and seeded inputs in LiteRT
(OpResolverType.BUILTIN_REF) and in litegpu with 1 and 2 threads, compared
exactly (integer outputs). test_capped_isas re-runs this whole file in child
processes with LITEGPU_GEMM_ISA=scalar and =avx2, so each SIMD path (the
packed int16 rows of CONV_2D and FULLY_CONNECTED) is checked against its
scalar twin through LiteRT.

Zero points are deliberately odd (input 128, weights 117, output 3, ...)
and inputs span the whole [0, 255] range.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from op_harness import Const, Input, OpCase, Output, check_case, check_rejected

ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6"]


def u8(rng, shape):
    return rng.integers(0, 256, shape, dtype=np.uint8)


def exact(**kwargs):
    return OpCase(rtol=0.0, atol=0.0, **kwargs)


def assert_varied(out, least=8):
    """The case tests the arithmetic, not only the clamp: its outputs (equal
    to LiteRT's) take several values."""
    assert len(np.unique(out)) >= least, np.unique(out)


def scales(x, zx, w, zw, k, act):
    """(input scale, filter scale, output scale) for a case: the output
    scale from out_scale; for RELU_N1_TO_1 the input scale shrunk so that
    the sums lie mostly within [-1.5, 1.5], not all clamped to +-1."""
    in_s, w_s = 0.023, 0.0071
    o = out_scale(x, zx, in_s, w, zw, w_s, k)
    if act == "RELU_N1_TO_1":
        in_s = float(np.float32(in_s * 1.5 / (o * 128)))
        o = out_scale(x, zx, in_s, w, zw, w_s, k)
    return in_s, w_s, o


def out_scale(x, zx, in_s, w, zw, w_s, k):
    """An output scale under which the outputs do not all saturate: a
    k-term sum of (x - zx) * (w - zw) (scale in_s * w_s) has its mean +- 3
    standard deviations (estimated from the data) within 128 steps of the
    zero point (zo: outputs on its far side clamp)."""
    dx = x.astype(np.float64) - zx
    dw = w.astype(np.float64) - zw
    mean = k * dx.mean() * dw.mean()
    std = np.sqrt(k) * (np.abs(dx).mean() + 1) * (np.abs(dw).mean() + 1)
    lo, hi = (mean - 3 * std) * in_s * w_s, (mean + 3 * std) * in_s * w_s
    return float(np.float32(max(abs(lo), abs(hi)) / 128))


# ---- CONV_2D ------------------------------------------------------------------


def conv_case(x, w, b, in_q, w_q, out_q, stride, dil, pad, act,
              const_filter=True):
    bias = None
    if b is not None:
        bias = Const(b, quant=(in_q[0] * w_q[0], 0))
    filt = Const(w, quant=w_q) if const_filter else Input(w, quant=w_q)
    return exact(op="CONV_2D", version=1,
                 inputs=[Input(x, quant=in_q), filt, bias],
                 params={"padding": pad, "stride_w": stride[1],
                         "stride_h": stride[0], "dilation_w_factor": dil[1],
                         "dilation_h_factor": dil[0],
                         "fused_activation_function": act},
                 outputs=[Output(np.uint8, quant=out_q)])


@pytest.mark.parametrize(
    "shape,filt,stride,dil,pad,act,zps,const_filter", [
        ((1, 5, 5, 1), (1, 1, 1, 1), (1, 1), (1, 1), "SAME", "NONE",
         (128, 117, 3), True),
        ((2, 9, 8, 3), (8, 3, 3, 3), (2, 2), (1, 1), "SAME", "RELU",
         (128, 117, 3), True),
        ((1, 7, 7, 4), (5, 3, 3, 4), (1, 1), (2, 2), "VALID", "NONE",
         (0, 255, 250), True),
        ((1, 8, 9, 5), (7, 3, 2, 5), (2, 1), (1, 2), "SAME", "RELU_N1_TO_1",
         (77, 1, 128), True),
        ((1, 12, 10, 16), (32, 1, 1, 16), (1, 1), (1, 1), "VALID", "NONE",
         (255, 0, 251), True),
        ((1, 6, 7, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", "RELU",
         (128, 117, 3), False),
        # Large enough to be split over two threads.
        ((1, 24, 24, 32), (48, 3, 3, 32), (1, 1), (1, 1), "SAME", "RELU6",
         (131, 119, 5), True),
    ])
def test_conv_uint8(shape, filt, stride, dil, pad, act, zps, const_filter):
    """UINT8 CONV_2D (version 1): uint8 input, filter (nonzero zero point)
    and output, INT32 bias; strides, dilations, paddings, every fused
    activation, a constant filter (the packed fast path) and a filter fed
    as an input (the reference loops)."""
    rng = np.random.default_rng(1700 + shape[1] * 10 + filt[0])
    x, w = u8(rng, shape), u8(rng, filt)
    b = rng.integers(-3000, 3000, filt[0], dtype=np.int32)
    k = filt[1] * filt[2] * filt[3]
    in_s, w_s, o_s = scales(x, zps[0], w, zps[1], k, act)
    in_q, w_q, out_q = (in_s, zps[0]), (w_s, zps[1]), (o_s, zps[2])
    out = check_case(conv_case(x, w, b, in_q, w_q, out_q, stride, dil, pad,
                               act, const_filter))
    assert_varied(out[0])


def test_conv_uint8_saturating():
    """An output scale small enough that most outputs clamp to 0 or 255
    (the rescale's saturation). (LiteRT's uint8 CONV_2D needs a bias.)"""
    rng = np.random.default_rng(1731)
    x, w = u8(rng, (1, 6, 6, 4)), u8(rng, (3, 3, 3, 4))
    check_case(conv_case(x, w, np.zeros(3, np.int32), (0.5, 100),
                         (0.25, 140), (0.8, 128), (1, 1), (1, 1), "SAME",
                         "NONE"))


def test_conv_uint8_large_multiplier():
    """input_scale * filter_scale / output_scale above 1 (a left shift in
    the fixed-point rescale)."""
    rng = np.random.default_rng(1732)
    x = rng.integers(120, 137, (1, 4, 4, 2), dtype=np.uint8)
    w = rng.integers(125, 131, (2, 1, 1, 2), dtype=np.uint8)
    check_case(conv_case(x, w, np.array([5, -7], np.int32), (0.5, 128),
                         (0.3, 128), (0.05, 128), (1, 1), (1, 1), "VALID",
                         "NONE"))


def test_conv_uint8_per_channel_filter_rejected():
    x = np.ones((1, 3, 3, 1), np.uint8)
    w = np.ones((2, 1, 1, 1), np.uint8)
    check_rejected(exact(op="CONV_2D", version=1,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(w, quant=([0.5, 0.25], [3, 3], 0)),
                                 None],
                         params={"padding": "VALID", "stride_w": 1,
                                 "stride_h": 1},
                         outputs=[Output(np.uint8, quant=(1.0, 0))]),
                   match=r"CONV_2D: UINT8 filter has 2 scales")


def test_conv_uint8_int8_filter_rejected():
    x = np.ones((1, 3, 3, 1), np.uint8)
    w = np.ones((1, 1, 1, 1), np.int8)
    check_rejected(exact(op="CONV_2D", version=1,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(w, quant=(0.5, 0)), None],
                         params={"padding": "VALID", "stride_w": 1,
                                 "stride_h": 1},
                         outputs=[Output(np.uint8, quant=(1.0, 0))]),
                   match=r"CONV_2D: UINT8 input with filter INT8, bias "
                         r"\(none\) and output UINT8 is not supported "
                         r"\(expected UINT8")


# ---- DEPTHWISE_CONV_2D ----------------------------------------------------------


@pytest.mark.parametrize("shape,k,mult,stride,dil,pad,act,zps", [
    ((1, 5, 5, 3), 3, 1, 1, 1, "SAME", "NONE", (128, 117, 3)),
    ((2, 9, 8, 4), 3, 2, 2, 1, "VALID", "RELU", (128, 117, 3)),
    ((1, 7, 7, 5), 2, 3, 1, 2, "SAME", "NONE", (0, 255, 250)),
    ((1, 8, 6, 8), 5, 1, 2, 1, "SAME", "RELU_N1_TO_1", (77, 1, 128)),
    ((1, 4, 4, 300), 3, 1, 1, 1, "SAME", "RELU", (131, 119, 5)),
    # Large enough to be split over two threads.
    ((1, 40, 40, 64), 3, 1, 1, 1, "SAME", "RELU6", (128, 117, 3)),
])
def test_depthwise_uint8(shape, k, mult, stride, dil, pad, act, zps):
    """UINT8 DEPTHWISE_CONV_2D (version 1; dilation version 2): depth
    multipliers 1-3, strides, dilation, paddings, every activation, more
    channels than one accumulator chunk (256)."""
    rng = np.random.default_rng(1800 + shape[3] * 10 + k)
    out_c = shape[3] * mult
    x, w = u8(rng, shape), u8(rng, (1, k, k, out_c))
    b = rng.integers(-3000, 3000, out_c, dtype=np.int32)
    in_s, w_s, o_s = scales(x, zps[0], w, zps[1], k * k, act)
    in_q, w_q, out_q = (in_s, zps[0]), (w_s, zps[1]), (o_s, zps[2])
    out = check_case(exact(op="DEPTHWISE_CONV_2D",
                           version=2 if dil > 1 else 1,
                     inputs=[Input(x, quant=in_q), Const(w, quant=w_q),
                             Const(b, quant=(in_q[0] * w_q[0], 0))],
                     params={"padding": pad, "stride_w": stride,
                             "stride_h": stride, "depth_multiplier": mult,
                             "dilation_w_factor": dil,
                             "dilation_h_factor": dil,
                             "fused_activation_function": act},
                     outputs=[Output(np.uint8, quant=out_q)]))
    assert_varied(out[0])


def test_depthwise_uint8_filter_input():
    """The filter fed as an input (LiteRT's uint8 kernel needs a bias)."""
    rng = np.random.default_rng(1850)
    x, w = u8(rng, (1, 6, 6, 4)), u8(rng, (1, 3, 3, 4))
    b = rng.integers(-500, 500, 4, dtype=np.int32)
    check_case(exact(op="DEPTHWISE_CONV_2D", version=1,
                     inputs=[Input(x, quant=(0.05, 128)),
                             Input(w, quant=(0.02, 117)),
                             Const(b, quant=(0.05 * 0.02, 0))],
                     params={"padding": "SAME", "stride_w": 1, "stride_h": 1,
                             "depth_multiplier": 1},
                     outputs=[Output(np.uint8, quant=(0.1, 3))]))


def test_depthwise_uint8_per_channel_filter_rejected():
    x = np.ones((1, 3, 3, 2), np.uint8)
    w = np.ones((1, 1, 1, 2), np.uint8)
    check_rejected(exact(op="DEPTHWISE_CONV_2D", version=1,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(w, quant=([0.5, 0.25], [3, 3], 3)),
                                 None],
                         params={"padding": "VALID", "stride_w": 1,
                                 "stride_h": 1, "depth_multiplier": 1},
                         outputs=[Output(np.uint8, quant=(1.0, 0))]),
                   match=r"DEPTHWISE_CONV_2D: UINT8 filter has 2 scales")


# ---- FULLY_CONNECTED ------------------------------------------------------------


@pytest.mark.parametrize("batch,depth,units,act,zps,const_w,bias,keep", [
    (1, 16, 8, "NONE", (128, 117, 3), True, True, False),
    (3, 37, 10, "RELU", (128, 117, 3), True, True, False),
    (2, 64, 33, "NONE", (0, 255, 250), True, False, False),
    (4, 5, 7, "RELU_N1_TO_1", (77, 1, 128), False, True, False),
    (2, 300, 100, "NONE", (131, 119, 5), True, True, True),
])
def test_fully_connected_uint8(batch, depth, units, act, zps, const_w, bias,
                               keep):
    """UINT8 FULLY_CONNECTED (version 1): uint8 input, weights (nonzero
    zero point) and output, INT32 bias or none, batches, keep_num_dims,
    constant weights (the packed fast path) and weights fed as an input."""
    rng = np.random.default_rng(1900 + depth + units)
    shape = (batch, 1, depth) if keep else (batch, depth)
    x, w = u8(rng, shape), u8(rng, (units, depth))
    in_s, w_s, o_s = scales(x, zps[0], w, zps[1], depth, act)
    in_q, w_q, out_q = (in_s, zps[0]), (w_s, zps[1]), (o_s, zps[2])
    wt = Const(w, quant=w_q) if const_w else Input(w, quant=w_q)
    b = None
    if bias:
        b = Const(rng.integers(-3000, 3000, units, dtype=np.int32),
                  quant=(in_q[0] * w_q[0], 0))
    out_shape = (batch, 1, units) if keep else (batch, units)
    out = check_case(exact(op="FULLY_CONNECTED", version=1,
                     inputs=[Input(x, quant=in_q), wt, b],
                     params={"fused_activation_function": act,
                             "keep_num_dims": keep},
                     outputs=[Output(np.uint8, shape=out_shape,
                                     quant=out_q)]))
    assert_varied(out[0], least=min(8, max(2, out[0].size // 4)))


def test_fully_connected_uint8_per_channel_rejected():
    x = np.ones((1, 2), np.uint8)
    w = np.ones((2, 2), np.uint8)
    check_rejected(exact(op="FULLY_CONNECTED", version=1,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(w, quant=([0.5, 0.25], [3, 3], 0)),
                                 None],
                         outputs=[Output(np.uint8, shape=(1, 2),
                                         quant=(1.0, 0))]),
                   match=r"FULLY_CONNECTED: UINT8 weights have 2 scales")


def test_fully_connected_uint8_int16_output_rejected():
    x = np.ones((1, 2), np.uint8)
    w = np.ones((2, 2), np.uint8)
    check_rejected(exact(op="FULLY_CONNECTED", version=1,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(w, quant=(0.5, 3)), None],
                         outputs=[Output(np.int16, shape=(1, 2),
                                         quant=(1.0, 0))]),
                   match=r"FULLY_CONNECTED: output type INT16 is not "
                         r"supported with UINT8 input")


def test_fully_connected_shuffled_weights_rejected():
    x = np.ones((1, 16), np.uint8)
    w = np.ones((4, 16), np.uint8)
    check_rejected(exact(op="FULLY_CONNECTED", version=2,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(w, quant=(0.5, 128)), None],
                         params={"weights_format": "SHUFFLED4x16INT8"},
                         outputs=[Output(np.int16, shape=(1, 4),
                                         quant=(1.0, 0))]),
                   match=r"FULLY_CONNECTED: weights format SHUFFLED4x16INT8 "
                         r"is not supported")


# ---- Every case again with the instruction set capped -------------------------


@pytest.mark.skipif(os.environ.get("LITEGPU_GEMM_ISA") is not None,
                    reason="already in a capped child")
@pytest.mark.parametrize("isa", ["scalar", "avx2"])
def test_capped_isas(isa):
    """This file's cases with LITEGPU_GEMM_ISA capped (a child pytest per
    instruction set): the scalar loops and the AVX2 paths against LiteRT."""
    env = dict(os.environ, LITEGPU_GEMM_ISA=isa)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(Path(__file__)), "-q", "-x",
         "-p", "no:cacheprovider", "-k", "not capped_isas"],
        env=env, capture_output=True, text=True, timeout=900,
        cwd=str(Path(__file__).resolve().parent))
    assert proc.returncode == 0, (
        f"LITEGPU_GEMM_ISA={isa}:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
