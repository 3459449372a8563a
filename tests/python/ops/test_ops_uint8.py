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


# ---- ADD, SUB, MUL ----------------------------------------------------------------


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("shape1,shape2,q1,q2,qo,act", [
    ((2, 3, 4), (2, 3, 4), (0.05, 128), (0.05, 128), (0.1, 128), "NONE"),
    ((3, 1, 5), (1, 4, 5), (0.031, 117), (0.07, 3), (0.09, 5), "RELU"),
    ((2, 2, 3, 4), (4,), (0.02, 0), (0.013, 128), (0.05, 7), "RELU6"),
    ((1, 7), (1,), (0.004, 100), (0.005, 131), (0.011, 128), "RELU_N1_TO_1"),
    ((4, 1, 1, 33), (1, 3, 2, 1), (0.004, 128), (0.004, 128), (0.004, 128),
     "NONE"),
])
def test_binary_uint8(op, shape1, shape2, q1, q2, qo, act):
    """UINT8 ADD / SUB / MUL (version 1): differing input and output scales
    and zero points, broadcasting, every fused activation."""
    rng = np.random.default_rng(2000 + len(shape1) * 10 + shape1[-1])
    a, b = u8(rng, shape1), u8(rng, shape2)
    out_shape = np.broadcast_shapes(shape1, shape2)
    out = check_case(exact(op=op, version=1,
                           inputs=[Input(a, quant=q1), Input(b, quant=q2)],
                           params={"fused_activation_function": act},
                           outputs=[Output(np.uint8, shape=out_shape,
                                           quant=qo)]))
    assert_varied(out[0], least=min(3, out[0].size))


def test_mul_uint8_rescale_above_one():
    """MUL whose input scales' product exceeds the output scale (a left
    shift in the rescale)."""
    rng = np.random.default_rng(2050)
    a = rng.integers(120, 137, (4, 9), dtype=np.uint8)
    b = rng.integers(120, 137, (4, 9), dtype=np.uint8)
    check_case(exact(op="MUL", version=1,
                     inputs=[Input(a, quant=(0.5, 128)),
                             Input(b, quant=(0.6, 128))],
                     outputs=[Output(np.uint8, quant=(0.1, 120))]))


@pytest.mark.parametrize("dtype,version", [(np.uint8, 1), (np.int8, 2)])
def test_mul_scale_ratio_in_float(dtype, version):
    """MUL's rescale is s1 * s2 / s_out computed in float, as mul.cc does:
    with these scales (a TF1-converted model's) the double ratio differs in
    its last bits and moves 9 outputs of the legacy model by one. Every pair
    of input values."""
    info = np.iinfo(dtype)
    a, b = np.meshgrid(np.arange(info.min, info.max + 1),
                       np.arange(info.min, info.max + 1), indexing="ij")
    zp = 0 if dtype == np.uint8 else -128
    check_case(exact(op="MUL", version=version,
                     inputs=[Input(a.astype(dtype), quant=(0.03921568766236305,
                                                           zp)),
                             Input(b.astype(dtype), quant=(1.0 / 256, zp))],
                     outputs=[Output(dtype, quant=(0.0313725508749485, zp))]))


def test_squared_difference_uint8_rejected():
    a = np.ones((2, 2), np.uint8)
    check_rejected(exact(op="SQUARED_DIFFERENCE", version=1,
                         inputs=[Input(a, quant=(0.5, 128)),
                                 Input(a, quant=(0.5, 128))],
                         outputs=[Output(np.uint8, quant=(0.5, 128))]),
                   match=r"SQUARED_DIFFERENCE: input type UINT8 is not "
                         r"supported")


# ---- AVERAGE_POOL_2D, MAX_POOL_2D ---------------------------------------------------


def pool_out_shape(shape, filt, stride, padding):
    out = []
    for k in range(2):
        n, f, s = shape[1 + k], filt[k], stride[k]
        out.append((n + s - 1) // s if padding == "SAME"
                   else (n - f + s) // s)
    return (shape[0], out[0], out[1], shape[3])


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("filt,stride,pad,act,q", [
    ((2, 2), (2, 2), "VALID", "NONE", (0.07, 128)),
    ((3, 3), (1, 1), "SAME", "RELU", (0.05, 131)),
    ((3, 2), (2, 1), "SAME", "RELU6", (0.03, 3)),
    ((5, 5), (3, 3), "SAME", "RELU_N1_TO_1", (0.01, 117)),
    ((7, 7), (1, 1), "VALID", "NONE", (0.2, 0)),
])
def test_pool_uint8(op, filt, stride, pad, act, q):
    """UINT8 pooling (version 1): windows cut at the edges (the average's
    rounding), every quantized activation."""
    rng = np.random.default_rng(2100 + filt[0] * 10 + stride[1])
    x = u8(rng, (2, 9, 8, 5))
    check_case(exact(op=op, version=1, inputs=[Input(x, quant=q)],
                     params={"padding": pad, "stride_h": stride[0],
                             "stride_w": stride[1], "filter_height": filt[0],
                             "filter_width": filt[1],
                             "fused_activation_function": act},
                     outputs=[Output(np.uint8, quant=q,
                                     shape=pool_out_shape(x.shape, filt,
                                                          stride, pad))]))


def test_pool_uint8_rescale_rejected():
    x = np.ones((1, 4, 4, 1), np.uint8)
    check_rejected(exact(op="AVERAGE_POOL_2D", version=1,
                         inputs=[Input(x, quant=(0.5, 128))],
                         params={"padding": "VALID", "stride_h": 2,
                                 "stride_w": 2, "filter_height": 2,
                                 "filter_width": 2},
                         outputs=[Output(np.uint8, quant=(0.25, 128),
                                         shape=(1, 2, 2, 1))]),
                   match=r"AVERAGE_POOL_2D: UINT8 input and output must "
                         r"share one scale and zero point")


# ---- SOFTMAX ------------------------------------------------------------------------


@pytest.mark.parametrize("shape,in_q,beta", [
    ((1, 10), (0.1, 128), 1.0),
    ((3, 17), (0.05, 3), 1.0),
    ((2, 3, 300), (0.2, 250), 0.7),
    ((4, 1), (0.1, 128), 1.0),
    ((2, 64), (1.0 / 16, 0), 2.0),
])
def test_softmax_uint8(shape, in_q, beta):
    """UINT8 SOFTMAX (version 1): output scale 1/256, zero point 0; rows of
    1 to 300, betas other than 1."""
    rng = np.random.default_rng(2200 + shape[-1])
    x = u8(rng, shape)
    out = check_case(exact(op="SOFTMAX", version=1,
                           inputs=[Input(x, quant=in_q)],
                           params={"beta": beta},
                           outputs=[Output(np.uint8,
                                           quant=(1.0 / 256, 0))]))
    assert_varied(out[0], least=2 if shape[-1] > 1 else 1)


def test_softmax_uint8_output_quantization_rejected():
    x = np.ones((1, 4), np.uint8)
    check_rejected(exact(op="SOFTMAX", version=1,
                         inputs=[Input(x, quant=(0.1, 128))],
                         params={"beta": 1.0},
                         outputs=[Output(np.uint8, quant=(1.0 / 256, 128))]),
                   match=r"SOFTMAX: UINT8 output must have scale 1/256 and "
                         r"zero point 0")


# ---- CONCATENATION ------------------------------------------------------------------


@pytest.mark.parametrize("axis,quants,out_q", [
    (3, [(0.1, 128), (0.1, 128)], (0.1, 128)),             # plain copies
    (3, [(0.1, 128), (0.05, 3), (0.3, 250)], (0.1, 128)),  # rescaled
    (1, [(0.02, 0), (0.1, 128)], (0.07, 117)),
    (-1, [(0.07, 117), (0.05, 128)], (0.07, 117)),          # one copied
    (0, [(0.5, 128), (0.001, 7)], (0.01, 5)),               # saturating
])
@pytest.mark.parametrize("base", [(2, 3, 4, 5), (2, 160, 170, 5)],
                         ids=["small", "split"])
def test_concatenation_uint8(axis, quants, out_q, base):
    """UINT8 CONCATENATION (version 1): inputs whose quantization differs
    from the output's are requantized (TFLite's ConcatenationWithScaling),
    the others copied; "split" outputs (over 512 KB) are copied by 2 threads
    in ranges of blocks."""
    rng = np.random.default_rng(2300 + axis * 10 + len(quants))
    shapes = []
    for i in range(len(quants)):
        s = list(base)
        s[axis] += i
        shapes.append(tuple(s))
    xs = [u8(rng, s) for s in shapes]
    out_shape = list(shapes[0])
    out_shape[axis] = sum(s[axis] for s in shapes)
    check_case(exact(op="CONCATENATION", version=1,
                     inputs=[Input(x, quant=q) for x, q in zip(xs, quants)],
                     params={"axis": axis},
                     outputs=[Output(np.uint8, shape=tuple(out_shape),
                                     quant=out_q)]))


def test_concatenation_uint8_unquantized_output_rejected():
    """A quantized input cannot be requantized to an output with no
    scale."""
    a = np.ones((1, 2), np.uint8)
    check_rejected(exact(op="CONCATENATION", version=1,
                         inputs=[Input(a, quant=(0.5, 3)), Input(a)],
                         params={"axis": 1},
                         outputs=[Output(np.uint8, shape=(1, 4))]),
                   match=r"CONCATENATION: input 0 needs requantizing to the "
                         r"UINT8 output, whose scale 0 is not a positive "
                         r"finite number")


# ---- LOGISTIC, TANH -----------------------------------------------------------------


@pytest.mark.parametrize("op,in_q,out_q", [
    ("LOGISTIC", (0.1, 128), (1.0 / 256, 0)),
    ("LOGISTIC", (0.03, 3), (1.0 / 256, 0)),
    ("LOGISTIC", (0.5, 250), (1.0 / 256, 0)),
    ("TANH", (0.02, 128), (1.0 / 128, 128)),
    ("TANH", (0.1, 117), (1.0 / 128, 128)),
    ("TANH", (0.004, 0), (1.0 / 128, 128)),
])
def test_lut_activation_uint8(op, in_q, out_q):
    """UINT8 LOGISTIC and TANH (version 1) on every input value: TFLite's
    table of the float function."""
    x = np.arange(0, 256, dtype=np.uint8).reshape(2, 128)
    check_case(exact(op=op, version=1, inputs=[Input(x, quant=in_q)],
                     outputs=[Output(np.uint8, quant=out_q)]))


def test_logistic_uint8_output_scale_rejected():
    x = np.ones((1, 4), np.uint8)
    check_rejected(exact(op="LOGISTIC", version=1,
                         inputs=[Input(x, quant=(0.1, 128))],
                         outputs=[Output(np.uint8, quant=(1.0 / 128, 0))]),
                   match=r"LOGISTIC: UINT8 output scale 0.0078125 is not "
                         r"supported \(expected 1/256\)")


# ---- RESIZE_BILINEAR ----------------------------------------------------------------


@pytest.mark.parametrize("shape,size,align,half", [
    ((1, 4, 4, 3), (8, 8), False, False),
    ((2, 5, 7, 2), (9, 4), True, False),
    ((1, 6, 3, 4), (11, 7), False, True),
    ((1, 9, 11, 3), (4, 5), False, False),
    ((1, 3, 3, 1), (1, 1), False, True),
])
def test_resize_bilinear_uint8(shape, size, align, half):
    """UINT8 RESIZE_BILINEAR (version 1; half_pixel_centers version 3): up
    and down, both flags."""
    rng = np.random.default_rng(2400 + shape[1] * 10 + size[0])
    x = u8(rng, shape)
    q = (0.1, 128)
    check_case(exact(op="RESIZE_BILINEAR", version=3 if half else 1,
                     inputs=[Input(x, quant=q),
                             Const(np.array(size, np.int32))],
                     params={"align_corners": align,
                             "half_pixel_centers": half},
                     outputs=[Output(np.uint8, quant=q,
                                     shape=(shape[0], size[0], size[1],
                                            shape[3]))]))


@pytest.mark.parametrize("align,half", [(False, False), (True, False),
                                        (False, True)])
def test_resize_nearest_uint8(align, half):
    """UINT8 RESIZE_NEAREST_NEIGHBOR (version 1; 3 with either flag): the
    elements copied."""
    rng = np.random.default_rng(2450)
    x = u8(rng, (2, 5, 7, 3))
    q = (0.1, 128)
    check_case(exact(op="RESIZE_NEAREST_NEIGHBOR",
                     version=3 if align or half else 1,
                     inputs=[Input(x, quant=q),
                             Const(np.array([9, 4], np.int32))],
                     params={"align_corners": align,
                             "half_pixel_centers": half},
                     outputs=[Output(np.uint8, quant=q,
                                     shape=(2, 9, 4, 3))]))


# ---- MEAN -------------------------------------------------------------------------


@pytest.mark.parametrize("shape,axes,keep,in_q,out_q", [
    ((1, 8, 8, 16), [1, 2], True, (0.1, 128), (0.1, 128)),   # same quant
    ((1, 8, 8, 16), [1, 2], True, (0.1, 128), (0.05, 3)),
    ((2, 5, 7, 3), [1, 2], False, (0.02, 117), (0.03, 250)),
    ((2, 5, 7, 3), [3], True, (0.02, 117), (0.02, 117)),
    ((2, 5, 7, 3), [0, 3], False, (0.2, 0), (0.21, 3)),
    ((3, 300), [-1], False, (0.1, 128), (0.01, 128)),
])
def test_mean_uint8(shape, axes, keep, in_q, out_q):
    """UINT8 MEAN (version 1): global pooling over H and W with equal and
    different quantization, inner and outer axes, keep_dims, long rows."""
    rng = np.random.default_rng(2500 + shape[-1])
    x = u8(rng, shape)
    rank = len(shape)
    reduced = {a % rank for a in axes}
    out_shape = tuple(1 if i in reduced else d for i, d in enumerate(shape)
                      if keep or i not in reduced)
    out = check_case(exact(op="MEAN", version=1,
                           inputs=[Input(x, quant=in_q),
                                   Const(np.array(axes, np.int32))],
                           params={"keep_dims": keep},
                           outputs=[Output(np.uint8, shape=out_shape,
                                           quant=out_q)]))
    assert_varied(out[0], least=min(2, out[0].size))


def test_reduce_max_uint8_rejected():
    x = np.ones((2, 3), np.uint8)
    check_rejected(exact(op="REDUCE_MAX", version=1,
                         inputs=[Input(x, quant=(0.5, 128)),
                                 Const(np.array([1], np.int32))],
                         outputs=[Output(np.uint8, shape=(2,),
                                         quant=(0.5, 128))]),
                   match=r"REDUCE_MAX: input type UINT8 is not supported")


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
