"""The nn family against LiteRT's reference kernels: CONV_2D,
DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED and BATCH_MATMUL.

Every case runs through op_harness.check_case: the same one-op model and
the same seeded inputs in LiteRT (OpResolverType.BUILTIN_REF) and in
litegpu with 1 and 2 threads, on the GEMM's instruction set for this
machine (run with LITEGPU_GEMM_ISA=scalar or avx2 to check the other
paths). Bounds are the harness's 1e-5 relative + 1e-6 absolute: inputs are
scaled so that every sum stays near 1 in magnitude, where the different
summation order (LiteRT's reference adds terms one by one; litegpu's GEMM
adds KC-deep blocks with fused multiply-adds) stays far inside the bound.
Shapes cover size-1 dims, odd sizes, primes, batch > 1, sizes around the
GEMM's tiles (12 x 32 micro-tiles, depth blocks of 256) and the depthwise
loop's 64-channel chunks, and one case per op large enough for the work to
be split over the 2 threads (the kernels keep small ops on one thread).
"""

import tempfile
from pathlib import Path

import numpy as np
import pytest

from op_harness import (Const, Input, OpCase, Output, build_model, check_case,
                        check_rejected, run_litegpu, write_spec)

ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6"]


def normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def grid(rng, shape, denominator):
    """Integers in [-4, 4] over `denominator` (a power of two): products of
    two such values are multiples of a small power of two, so every partial
    sum of a few thousand of them is exact in float32 and any summation
    order gives the same bits. Used for the long sums (k in the thousands)
    of the cases split over threads: with general floats, LiteRT's reference
    (one sequential float sum) is itself further from the exact result than
    the 1e-6 absolute bound there (FULLY_CONNECTED 2048 -> 2100: 5.1e-6 off
    the float64 sum, litegpu 1.2e-6), so the bound would measure LiteRT's
    rounding rather than litegpu's indexing."""
    return (rng.integers(-4, 5, shape) / denominator).astype(np.float32)


def _run_litegpu_case(case, threads=(1, 2)):
    """litegpu's first output for a case LiteRT cannot run (checked against
    numpy by the caller), the same with every thread count."""
    with tempfile.TemporaryDirectory() as tmp:
        _, inputs = write_spec(case, tmp)
        model = Path(tmp) / "model.tflite"
        build_model(Path(tmp) / "case.spec", model)
        outs = [run_litegpu(model, inputs, num_threads=t)[0] for t in threads]
    for other in outs[1:]:
        np.testing.assert_array_equal(other, outs[0])
    return outs[0]


def out_size(n, f, s, d, padding):
    eff = (f - 1) * d + 1
    return (n + s - 1) // s if padding == "SAME" else (n + s - eff) // s


# ---- CONV_2D ----------------------------------------------------------------

# (input NHWC, (out_c, fh, fw), (stride_h, stride_w), (dil_h, dil_w), padding)
CONV_CASES = [
    ((1, 5, 5, 3), (4, 3, 3), (1, 1), (1, 1), "SAME"),
    ((1, 5, 5, 3), (4, 3, 3), (1, 1), (1, 1), "VALID"),
    ((2, 7, 6, 5), (17, 3, 2), (2, 1), (1, 1), "SAME"),
    ((1, 9, 8, 4), (7, 3, 3), (1, 2), (2, 3), "VALID"),
    ((1, 13, 11, 29), (33, 3, 3), (2, 2), (1, 1), "SAME"),   # k = 261
    ((3, 4, 5, 256), (65, 1, 1), (1, 1), (1, 1), "VALID"),   # direct 1x1
    ((1, 6, 6, 8), (32, 1, 1), (2, 2), (1, 1), "SAME"),      # 1x1 stride 2
    ((1, 1, 1, 1), (1, 1, 1), (1, 1), (1, 1), "SAME"),       # all size 1
    ((1, 4, 4, 2), (3, 5, 5), (3, 3), (1, 1), "SAME"),       # filter > input
    ((2, 12, 12, 16), (12, 3, 3), (1, 1), (1, 1), "SAME"),   # m > 256 rows
    ((1, 2, 2, 1), (2, 3, 3), (1, 1), (1, 1), "VALID"),      # empty output
    ((0, 4, 4, 3), (2, 3, 3), (1, 1), (1, 1), "SAME"),       # empty batch
    # Up to 4 output channels: a dot product per pixel (conv_narrow.c):
    # window rows cut at every edge, runs longer than a vector, dilated
    # windows (a run per tap), 1x1.
    ((1, 20, 19, 8), (1, 3, 3), (1, 1), (1, 1), "SAME"),
    ((2, 9, 10, 40), (3, 5, 5), (2, 2), (1, 1), "SAME"),
    ((1, 11, 12, 3), (2, 3, 3), (1, 1), (2, 2), "SAME"),
    ((1, 7, 7, 64), (4, 1, 1), (1, 1), (1, 1), "VALID"),
    ((1, 9, 30, 12), (3, 3, 3), (1, 2), (1, 1), "SAME"),    # groups of 4
    # Up to 4 input channels and more than 4 outputs: broadcast taps
    # against vectors of output channels, eight pixels at a time
    # (conv_shallow.c): edge windows, 40 channels (a masked third vector),
    # VALID with columns left over.
    ((1, 17, 19, 3), (16, 3, 3), (2, 2), (1, 1), "SAME"),
    ((2, 12, 21, 1), (40, 5, 5), (1, 2), (1, 1), "SAME"),
    ((1, 9, 30, 4), (24, 2, 3), (1, 1), (1, 1), "VALID"),
    # Groups of eight pixels run on into the next row and the next image.
    # Images whose windows often reach into the padding are read from a
    # zero-padded copy (the cases above and a keyword spotter's first layer,
    # 25x5 outputs; two images of 7x3; dilated windows); a larger one with
    # padding only at the bottom and right copies out its edge windows one
    # by one (two images of 40x42 outputs).
    ((1, 49, 10, 1), (64, 10, 4), (2, 2), (1, 1), "SAME"),
    ((2, 13, 6, 2), (24, 4, 3), (2, 2), (1, 1), "SAME"),
    ((1, 10, 9, 2), (12, 3, 3), (1, 1), (2, 2), "SAME"),
    ((2, 158, 166, 3), (16, 3, 3), (4, 4), (1, 1), "SAME"),
    # 5 to 128 output channels with a constant filter: a GEMM per window
    # row over the input in place (conv_rows.c): padded copies, stride_w 2,
    # dilation_h, the input read directly (VALID), columns left over,
    # windows mostly in the padding.
    ((2, 9, 10, 24), (20, 3, 3), (1, 2), (2, 1), "SAME"),
    ((1, 8, 11, 16), (128, 3, 3), (1, 1), (1, 1), "VALID"),
    ((1, 6, 9, 8), (40, 2, 4), (2, 3), (1, 1), "VALID"),
    ((1, 3, 3, 5), (6, 7, 7), (1, 1), (1, 1), "SAME"),
]


def conv_case(x, w, b, stride, dilation, padding, activation="NONE",
              version=1, filter_input=False):
    out_c, fh, fw = w.shape[0], w.shape[1], w.shape[2]
    oh = out_size(x.shape[1], fh, stride[0], dilation[0], padding)
    ow = out_size(x.shape[2], fw, stride[1], dilation[1], padding)
    wt = Input(w) if filter_input else Const(w)
    # LiteRT wants no bias as two inputs (a third input of -1 fails there).
    inputs = [Input(x), wt] + ([] if b is None else [Const(b)])
    return OpCase(op="CONV_2D", version=version, inputs=inputs,
                  params={"padding": padding, "stride_h": stride[0],
                          "stride_w": stride[1],
                          "dilation_h_factor": dilation[0],
                          "dilation_w_factor": dilation[1],
                          "fused_activation_function": activation},
                  output_shapes=[(x.shape[0], oh, ow, out_c)])


@pytest.mark.parametrize("shape,filt,stride,dilation,padding", CONV_CASES,
                         ids=str)
def test_conv(shape, filt, stride, dilation, padding):
    rng = np.random.default_rng(101)
    x = normal(rng, shape)
    k = filt[1] * filt[2] * shape[3]
    w = normal(rng, (filt[0], filt[1], filt[2], shape[3]), 1 / np.sqrt(k))
    b = normal(rng, (filt[0],), 0.5)
    check_case(conv_case(x, w, b, stride, dilation, padding))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_conv_activation(activation):
    rng = np.random.default_rng(102)
    x = normal(rng, (2, 6, 7, 3), 3.0)
    w = normal(rng, (5, 2, 2, 3))
    check_case(conv_case(x, w, normal(rng, (5,)), (1, 1), (1, 1), "SAME",
                         activation))


def test_conv_no_bias():
    """Two inputs (no bias): litegpu runs it; LiteRT's float CONV_2D
    requires the bias (conv.cc: "has_bias was not true"), so the expected
    values come from numpy here."""
    rng = np.random.default_rng(105)
    x = normal(rng, (1, 4, 5, 3))
    w = normal(rng, (2, 1, 1, 3))
    case = conv_case(x, w, None, (1, 1), (1, 1), "VALID")
    with pytest.raises(AssertionError, match="has_bias"):
        check_case(case)
    want = np.einsum("nhwc,oc->nhwo", x.astype(np.float64),
                     w[:, 0, 0, :].astype(np.float64))
    got = _run_litegpu_case(case)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_conv_split_over_threads():
    """38M multiply-adds: the GEMM splits the output over both threads."""
    rng = np.random.default_rng(106)
    x = grid(rng, (1, 32, 32, 64), 4)
    w = grid(rng, (64, 3, 3, 64), 16)
    check_case(conv_case(x, w, grid(rng, (64,), 4), (1, 1), (1, 1), "SAME",
                         "RELU6"))


def test_conv_narrow_split_over_threads():
    """1.2M multiply-adds into 2 channels: the narrow path splits output
    rows over both threads, with a fused RELU6."""
    rng = np.random.default_rng(107)
    x = grid(rng, (1, 64, 64, 16), 4)
    w = grid(rng, (2, 3, 3, 16), 16)
    check_case(conv_case(x, w, grid(rng, (2,), 4), (1, 1), (1, 1), "SAME",
                         "RELU6"))


def test_conv_runtime_filter():
    """A filter fed as a graph input: packed per call, not in Prepare."""
    rng = np.random.default_rng(103)
    x = normal(rng, (1, 8, 8, 6))
    w = normal(rng, (9, 3, 3, 6), 0.2)
    check_case(conv_case(x, w, normal(rng, (9,)), (1, 1), (1, 1), "SAME",
                         filter_input=True))


@pytest.mark.parametrize("shape,filter_c,out_c", [
    ((1, 6, 6, 4), 2, 4),     # 2 groups
    ((2, 5, 7, 12), 3, 8),    # 4 groups, 2 outputs each
    ((1, 4, 4, 6), 1, 6),     # depthwise as groups
])
def test_conv_grouped(shape, filter_c, out_c):
    """Grouped convolution (version 6): input channels a multiple of the
    filter's."""
    rng = np.random.default_rng(104)
    x = normal(rng, shape)
    w = normal(rng, (out_c, 3, 3, filter_c), 0.3)
    check_case(conv_case(x, w, normal(rng, (out_c,)), (1, 1), (1, 1), "SAME",
                         version=6))


def test_conv_nan_inf():
    x = np.ones((1, 3, 3, 1), np.float32)
    x[0, 0, 0, 0] = np.nan
    x[0, 2, 2, 0] = np.inf
    w = np.ones((2, 2, 2, 1), np.float32)
    w[1, 0, 0, 0] = -1.0
    out = check_case(conv_case(x, w, np.zeros(2, np.float32), (1, 1), (1, 1),
                               "VALID"))
    assert np.isnan(out[0][0, 0, 0]).all()
    # NONE clamps to the float range like LiteRT: inf -> FLT_MAX.
    assert out[0][0, 1, 1, 0] == np.finfo(np.float32).max


@pytest.mark.parametrize("shape,filt,stride,dil,pad,act,per_channel,groups", [
    ((1, 5, 5, 1), (1, 1, 1, 1), 1, 1, "SAME", "NONE", True, 1),
    ((2, 9, 8, 3), (8, 3, 3, 3), 2, 1, "SAME", "RELU", True, 1),
    ((1, 7, 7, 4), (5, 3, 3, 4), 1, 2, "VALID", "RELU6", False, 1),
    ((1, 6, 6, 8), (6, 2, 2, 4), 1, 1, "SAME", "RELU_N1_TO_1", True, 2),
    ((1, 12, 10, 16), (32, 1, 1, 16), 1, 1, "VALID", "NONE", True, 1),
    # 3 output rows, 5 blocks of 16 channels: on the VNNI kernel each row's
    # blocks are split over tasks too (fewer rows than tasks).
    ((1, 3, 9, 128), (80, 3, 3, 128), 1, 1, "SAME", "RELU", True, 1),
    ((1, 3, 20, 256), (80, 1, 1, 256), 1, 1, "VALID", "NONE", False, 1),
    ((1, 1, 24, 128), (80, 1, 3, 128), 1, 1, "SAME", "RELU", True, 1),
    # 11 rows split over the tasks 2 threads claim.
    ((1, 11, 12, 64), (48, 3, 3, 64), 1, 1, "SAME", "RELU6", True, 1),
    # Taps read in place (depth a multiple of 4): the pixels between a
    # row's padded edges move their taps by the stride, rows in the padding
    # read a row of zero points; stride 2, a dilated 5x3 window, 2 images,
    # channel blocks with a partial one.
    ((2, 9, 11, 8), (40, 3, 3, 8), 2, 1, "SAME", "RELU6", True, 1),
    ((1, 10, 13, 12), (20, 5, 3, 12), 1, 2, "SAME", "NONE", True, 1),
    ((1, 8, 9, 16), (17, 3, 3, 16), 2, 1, "VALID", "NONE", False, 1),
    # Other depths from 3 in place too, each pixel padded to whole 4-byte
    # groups: a first layer's 3 channels (4 pixels per shuffle, then one by
    # one), 6 channels in 8 bytes.
    ((1, 13, 14, 3), (16, 3, 3, 3), 1, 1, "SAME", "NONE", True, 1),
    ((1, 6, 7, 6), (20, 3, 2, 6), 1, 1, "VALID", "RELU", False, 1),
    # Depths 1 and 2 gather each window's taps side by side, the window
    # padded to 4 bytes once: a dilated window; a keyword spotter's first
    # layer (10x4 taps at stride 2, windows cut at the edges); odd windows
    # of 15 and 30 taps, stride 3; depth 2 at stride 2 over 2 images.
    ((1, 8, 7, 1), (5, 3, 3, 1), 1, 2, "SAME", "RELU6", True, 1),
    ((1, 19, 10, 1), (20, 10, 4, 1), 2, 1, "SAME", "RELU", True, 1),
    ((1, 11, 9, 1), (7, 5, 3, 1), 3, 1, "SAME", "RELU6", True, 1),
    ((1, 9, 8, 2), (19, 3, 5, 2), 1, 1, "VALID", "NONE", False, 1),
    ((2, 8, 7, 2), (24, 3, 3, 2), 2, 1, "SAME", "RELU_N1_TO_1", True, 1),
])
def test_conv_int8(shape, filt, stride, dil, pad, act, per_channel, groups):
    """Quantized CONV_2D (version 3), bit for bit with LiteRT's reference:
    asymmetric int8 input, symmetric filter per channel or per tensor, int32
    bias, grouped, strided, dilated, every quantized activation."""
    rng = np.random.default_rng(900 + shape[1] * 10 + filt[0])
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    w = rng.integers(-127, 128, filt, dtype=np.int8)
    in_scale, out_q = 0.031, (0.047, -9)
    out_c = filt[0]
    if per_channel:
        scales = rng.uniform(0.002, 0.03, out_c).astype(np.float32).tolist()
        w_q = (scales, [0] * out_c, 0)
        b_q = ([in_scale * s for s in scales], [0] * out_c, 0)
    else:
        w_q = (0.011, 0)
        b_q = (in_scale * 0.011, 0)
    b = rng.integers(-4000, 4000, out_c, dtype=np.int32)
    check_case(OpCase(op="CONV_2D", version=3 if groups == 1 else 6,
                      inputs=[Input(x, quant=(in_scale, 3)), Const(w, quant=w_q),
                              Const(b, quant=b_q)],
                      params={"padding": pad, "stride_w": stride,
                              "stride_h": stride, "dilation_w_factor": dil,
                              "dilation_h_factor": dil,
                              "fused_activation_function": act},
                      outputs=[Output(np.int8, quant=out_q)],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("shape,filt,stride,dil,pad,act,per_channel", [
    ((1, 5, 5, 2), (3, 3, 3, 2), 1, 1, "SAME", "NONE", True),
    ((2, 9, 8, 3), (8, 3, 3, 3), 2, 1, "VALID", "RELU", True),
    ((1, 7, 7, 4), (5, 3, 3, 4), 1, 2, "SAME", "RELU6", False),
    ((1, 4, 30, 16), (8, 1, 3, 16), 1, 1, "VALID", "NONE", True),
])
def test_conv_int16x8(shape, filt, stride, dil, pad, act, per_channel):
    """16x8 CONV_2D (version 4): INT16 activations with zero point 0, INT8
    filters, INT64 bias; bit for bit with LiteRT's reference (its int64
    accumulator and int64 rescale), full-range inputs and biases."""
    rng = np.random.default_rng(1900 + shape[1] * 10 + filt[0])
    x = rng.integers(-32768, 32768, shape, dtype=np.int16)
    x.reshape(-1)[:2] = [-32768, 32767]
    w = rng.integers(-127, 128, filt, dtype=np.int8)
    in_scale, out_scale = 3.1e-4, 2.3e-3
    out_c = filt[0]
    if per_channel:
        scales = rng.uniform(0.002, 0.03, out_c).astype(np.float32).tolist()
        w_q = (scales, [0] * out_c, 0)
        b_q = ([in_scale * s for s in scales], [0] * out_c, 0)
    else:
        w_q = (0.011, 0)
        b_q = (in_scale * 0.011, 0)
    b = rng.integers(-4_000_000, 4_000_000, out_c, dtype=np.int64)
    check_case(OpCase(op="CONV_2D", version=4,
                      inputs=[Input(x, quant=(in_scale, 0)),
                              Const(w, quant=w_q), Const(b, quant=b_q)],
                      params={"padding": pad, "stride_w": stride,
                              "stride_h": stride, "dilation_w_factor": dil,
                              "dilation_h_factor": dil,
                              "fused_activation_function": act},
                      outputs=[Output(np.int16, quant=(out_scale, 0))],
                      rtol=0.0, atol=0.0))


def test_conv_int16_nonzero_zero_point_rejected():
    x = np.ones((1, 3, 3, 1), np.int16)
    w = np.ones((1, 1, 1, 1), np.int8)
    check_rejected(OpCase(op="CONV_2D", version=4,
                          inputs=[Input(x, quant=(0.5, 7)),
                                  Const(w, quant=(0.5, 0)),
                                  Const(np.zeros(1, np.int64),
                                        quant=(0.25, 0))],
                          params={"padding": "SAME", "stride_w": 1,
                                  "stride_h": 1},
                          outputs=[Output(np.int16, quant=(1.0, 0))]),
                   match=r"CONV_2D: input of type INT16 has zero point 7",
                   litert_accepts=False)


def test_conv_int16_int8_bias_rejected():
    x = np.ones((1, 3, 3, 1), np.int16)
    w = np.ones((1, 1, 1, 1), np.int8)
    check_rejected(OpCase(op="CONV_2D", version=4,
                          inputs=[Input(x, quant=(0.5, 0)),
                                  Const(w, quant=(0.5, 0)),
                                  Const(np.zeros(1, np.int8),
                                        quant=(0.25, 0))],
                          params={"padding": "SAME", "stride_w": 1,
                                  "stride_h": 1},
                          outputs=[Output(np.int16, quant=(1.0, 0))]),
                   match=r"CONV_2D: INT16 input with filter INT8, bias INT8 "
                         r"and output INT16 is not supported \(expected "
                         r"INT8, INT64 or INT32 and INT16\)",
                   litert_accepts=False)


def test_conv_int8_asymmetric_filter_rejected():
    """INT8 filters are symmetric (zero point 0), as TFLite requires."""
    x = np.ones((1, 3, 3, 1), np.int8)
    w = np.ones((1, 1, 1, 1), np.int8)
    check_rejected(OpCase(op="CONV_2D", version=3,
                          inputs=[Input(x, quant=(0.5, 0)),
                                  Const(w, quant=(0.5, 4)), None],
                          params={"padding": "SAME", "stride_w": 1,
                                  "stride_h": 1},
                          outputs=[Output(np.int8, quant=(1.0, 0))]),
                   match=r"CONV_2D: filter zero point 4 \(channel 0\): INT8 "
                         r"filters are symmetric")


@pytest.mark.parametrize("shape,filt,stride,dil,pad,act,scales,groups", [
    ((1, 6, 6, 3), (4, 3, 3, 3), 1, 1, "SAME", "NONE", "equal", 1),
    ((2, 9, 8, 4), (8, 3, 3, 4), 2, 1, "VALID", "RELU", "equal", 1),
    ((1, 7, 7, 4), (5, 3, 3, 4), 1, 2, "SAME", "RELU6", "differ", 1),
    ((2, 6, 5, 8), (6, 2, 2, 4), 1, 1, "SAME", "NONE", "differ", 2),
    ((1, 5, 5, 8), (4, 1, 1, 8), 1, 1, "VALID", "NONE", "equal", 1),
])
def test_conv_hybrid(shape, filt, stride, dil, pad, act, scales, groups):
    """Dynamic-range CONV_2D (float input, INT8 filter): TFLite's symmetric
    per-image input quantization when every filter scale is equal
    (HybridConv), asymmetric with per-channel scales or groups
    (HybridConvPerChannel), bit for bit with LiteRT's reference."""
    rng = np.random.default_rng(1700 + shape[1] * 10 + filt[0])
    x = rng.normal(0.3, 2.0, shape).astype(np.float32)
    w = rng.integers(-127, 128, filt, dtype=np.int8)
    out_c = filt[0]
    if scales == "equal":
        w_q = ([0.011] * out_c, [0] * out_c, 0)
    else:
        w_q = (rng.uniform(0.002, 0.03, out_c).astype(np.float32).tolist(),
               [0] * out_c, 0)
    b = rng.normal(0.0, 1.0, out_c).astype(np.float32)
    check_case(OpCase(op="CONV_2D", version=5 if scales == "differ" else 2,
                      inputs=[Input(x), Const(w, quant=w_q), Const(b)],
                      params={"padding": pad, "stride_w": stride,
                              "stride_h": stride, "dilation_w_factor": dil,
                              "dilation_h_factor": dil,
                              "fused_activation_function": act},
                      outputs=[np.float32], rtol=0.0, atol=0.0))


@pytest.mark.parametrize("w_shape,match", [
    ((3, 3), r"CONV_2D: filter must be 4-D, got \[3,3\]"),
    ((2, 1, 1, 3), r"CONV_2D: input channels 4 are not a multiple of the "
                   r"filter's input channels 3"),
    ((3, 1, 1, 2), r"CONV_2D: output channels 3 are not a multiple of the "
                   r"group count 2"),
])
def test_conv_bad_shapes_rejected(w_shape, match):
    x = np.ones((1, 3, 3, 4), np.float32)
    check_rejected(OpCase(op="CONV_2D", inputs=[Input(x),
                                                Const(np.ones(w_shape,
                                                              np.float32))],
                          params={"padding": "SAME", "stride_w": 1,
                                  "stride_h": 1},
                          output_shapes=[(1, 3, 3, 1)]),
                   match=match)


def test_conv_zero_stride_rejected():
    x = np.ones((1, 3, 3, 1), np.float32)
    check_rejected(OpCase(op="CONV_2D",
                          inputs=[Input(x), Const(np.ones((1, 1, 1, 1),
                                                          np.float32))],
                          params={"padding": "SAME", "stride_w": 0,
                                  "stride_h": 1}),
                   match=r"CONV_2D: stride_w must be at least 1, got 0")


# ---- DEPTHWISE_CONV_2D -------------------------------------------------------

# (input NHWC, multiplier, (fh, fw), stride, dilation, padding)
DW_CASES = [
    ((1, 5, 5, 3), 1, (3, 3), (1, 1), (1, 1), "SAME"),
    ((2, 7, 8, 64), 1, (3, 3), (2, 2), (1, 1), "SAME"),
    ((1, 9, 6, 65), 1, (3, 3), (1, 1), (2, 2), "VALID"),
    ((1, 6, 6, 63), 2, (5, 5), (1, 2), (1, 1), "SAME"),
    ((3, 4, 4, 1), 1, (2, 2), (1, 1), (1, 1), "VALID"),
    ((1, 11, 13, 130), 1, (3, 5), (3, 1), (1, 2), "SAME"),
    ((1, 3, 3, 5), 3, (3, 3), (1, 1), (1, 1), "SAME"),
    ((1, 1, 1, 7), 1, (1, 1), (1, 1), (1, 1), "VALID"),
    ((1, 2, 2, 3), 1, (3, 3), (1, 1), (1, 1), "VALID"),      # empty output
    ((1, 44, 44, 144), 1, (3, 3), (1, 1), (1, 1), "SAME"),   # split (2T)
    # Windows other than 3x3 sum four interior pixels at a time: rows
    # with whole and partial groups of four, 1 or 2 channel vectors and
    # masked tails of both instruction sets' widths.
    ((1, 12, 21, 32), 1, (5, 5), (1, 1), (1, 1), "SAME"),
    ((2, 10, 19, 17), 1, (5, 5), (2, 2), (1, 1), "SAME"),
    ((1, 9, 23, 40), 1, (5, 3), (1, 1), (1, 2), "VALID"),
    ((1, 8, 30, 9), 1, (7, 7), (1, 3), (1, 1), "SAME"),
    # 1, 2, 4 or 8 channels at stride_w 1: 16 / channels pixels per vector
    # (AVX-512), in blocks of four vectors, single vectors and edge pixels.
    ((1, 7, 37, 8), 1, (3, 3), (1, 1), (1, 1), "SAME"),
    ((2, 9, 29, 4), 1, (5, 5), (2, 1), (1, 2), "SAME"),
    ((1, 6, 50, 2), 1, (3, 2), (1, 1), (2, 1), "VALID"),
    ((1, 5, 70, 1), 1, (1, 3), (1, 1), (1, 1), "SAME"),
]


def dw_case(x, mult, w, b, stride, dilation, padding, activation="NONE"):
    oh = out_size(x.shape[1], w.shape[1], stride[0], dilation[0], padding)
    ow = out_size(x.shape[2], w.shape[2], stride[1], dilation[1], padding)
    version = 2 if dilation != (1, 1) else 1
    inputs = [Input(x), Const(w)] + ([] if b is None else [Const(b)])
    return OpCase(op="DEPTHWISE_CONV_2D", version=version, inputs=inputs,
                  params={"padding": padding, "stride_h": stride[0],
                          "stride_w": stride[1], "depth_multiplier": mult,
                          "dilation_h_factor": dilation[0],
                          "dilation_w_factor": dilation[1],
                          "fused_activation_function": activation},
                  output_shapes=[(x.shape[0], oh, ow, w.shape[3])])


@pytest.mark.parametrize("shape,mult,filt,stride,dilation,padding", DW_CASES,
                         ids=str)
def test_depthwise(shape, mult, filt, stride, dilation, padding):
    rng = np.random.default_rng(201)
    x = normal(rng, shape)
    w = normal(rng, (1, filt[0], filt[1], shape[3] * mult), 0.3)
    b = normal(rng, (shape[3] * mult,), 0.5)
    check_case(dw_case(x, mult, w, b, stride, dilation, padding))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_depthwise_activation(activation):
    rng = np.random.default_rng(202)
    x = normal(rng, (2, 5, 5, 70), 3.0)
    w = normal(rng, (1, 3, 3, 70))
    check_case(dw_case(x, 1, w, normal(rng, (70,)), (1, 1), (1, 1), "SAME",
                       activation))


def test_depthwise_no_bias():
    rng = np.random.default_rng(203)
    x = normal(rng, (1, 5, 4, 6))
    w = normal(rng, (1, 3, 3, 6))
    check_case(dw_case(x, 1, w, None, (1, 1), (1, 1), "SAME"))


def test_depthwise_bad_filter_rejected():
    x = np.ones((1, 3, 3, 2), np.float32)
    check_rejected(OpCase(op="DEPTHWISE_CONV_2D",
                          inputs=[Input(x), Const(np.ones((2, 3, 3, 2),
                                                          np.float32))],
                          params={"padding": "SAME", "stride_w": 1,
                                  "stride_h": 1, "depth_multiplier": 1}),
                   match=r"DEPTHWISE_CONV_2D: filter shape \[2,3,3,2\] must "
                         r"have 1 as its first dimension")


@pytest.mark.parametrize("shape,k,mult,stride,dil,pad,act,per_channel", [
    ((1, 5, 5, 2), 3, 1, 1, 1, "SAME", "NONE", True),
    ((2, 9, 8, 8), 3, 1, 2, 1, "SAME", "RELU6", True),
    ((1, 7, 7, 3), 3, 2, 1, 2, "VALID", "RELU", False),
    ((1, 6, 5, 4), 5, 1, 1, 1, "SAME", "RELU_N1_TO_1", True),
    # Above the threading threshold: 21 rows over the tasks of 2 threads.
    ((1, 21, 20, 144), 3, 1, 1, 1, "SAME", "RELU6", True),
])
def test_depthwise_int8(shape, k, mult, stride, dil, pad, act, per_channel):
    """Quantized DEPTHWISE_CONV_2D (version 3), bit for bit with LiteRT's
    reference: per-channel (dim 3) and per-tensor filters, multiplier 2,
    strides, dilation, every quantized activation."""
    rng = np.random.default_rng(950 + shape[3] * 10 + k)
    out_c = shape[3] * mult
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    w = rng.integers(-127, 128, (1, k, k, out_c), dtype=np.int8)
    in_scale = 0.027
    if per_channel:
        scales = rng.uniform(0.003, 0.04, out_c).astype(np.float32).tolist()
        w_q = (scales, [0] * out_c, 3)
        b_q = ([in_scale * s for s in scales], [0] * out_c, 0)
    else:
        w_q = (0.013, 0)
        b_q = (in_scale * 0.013, 0)
    b = rng.integers(-2000, 2000, out_c, dtype=np.int32)
    check_case(OpCase(op="DEPTHWISE_CONV_2D", version=3,
                      inputs=[Input(x, quant=(in_scale, -5)),
                              Const(w, quant=w_q), Const(b, quant=b_q)],
                      params={"padding": pad, "stride_w": stride,
                              "stride_h": stride, "depth_multiplier": mult,
                              "dilation_w_factor": dil,
                              "dilation_h_factor": dil,
                              "fused_activation_function": act},
                      outputs=[Output(np.int8, quant=(0.05, 4))],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("shape,k,stride,dil,pad", [
    ((1, 9, 11, 71), 3, 2, 1, "SAME"),    # 2 blocks of 32 + 7 channels
    ((1, 10, 9, 33), 3, 1, 2, "VALID"),   # dilated, 1 channel past a block
    ((1, 8, 10, 40), 5, 1, 1, "SAME"),    # 13 tap pairs, 8 past a block
    ((2, 7, 12, 64), 3, 2, 1, "VALID"),   # two images, no channel left over
])
def test_depthwise_int8_rows(shape, k, stride, dil, pad):
    """INT8 DEPTHWISE_CONV_2D's row kernel (AVX-512: the pixels between the
    padded edges of a row in one call, 32-channel blocks, the rest of the
    channels per pixel), bit for bit with LiteRT's reference: per-channel
    multipliers on both sides of 1 (rescale shifts from -4 to +1), channel
    counts past the 32-lane blocks, strides, dilation and padding."""
    rng = np.random.default_rng(1700 + shape[3] + 10 * k)
    out_c = shape[3]
    # Small values keep the sums inside the output range at multipliers
    # above 1 (a left shift), so that the rounding shows.
    x = rng.integers(-15, 6, shape, dtype=np.int8)
    w = rng.integers(-10, 11, (1, k, k, out_c), dtype=np.int8)
    in_scale = 0.027
    scales = rng.uniform(0.001, 0.045, out_c).astype(np.float32).tolist()
    b = rng.integers(-300, 300, out_c, dtype=np.int32)
    check_case(OpCase(op="DEPTHWISE_CONV_2D", version=3,
                      inputs=[Input(x, quant=(in_scale, -5)),
                              Const(w, quant=(scales, [0] * out_c, 3)),
                              Const(b, quant=([in_scale * s for s in scales],
                                              [0] * out_c, 0))],
                      params={"padding": pad, "stride_w": stride,
                              "stride_h": stride, "depth_multiplier": 1,
                              "dilation_w_factor": dil,
                              "dilation_h_factor": dil,
                              "fused_activation_function": "NONE"},
                      outputs=[Output(np.int8, quant=(0.0009, -3))],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("shape,k,mult,stride,pad,act", [
    ((1, 5, 5, 2), 3, 1, 1, "SAME", "NONE"),
    ((2, 9, 8, 8), 3, 1, 2, "VALID", "RELU"),
    ((1, 7, 7, 3), 3, 2, 1, "SAME", "RELU6"),
])
def test_depthwise_int16x8(shape, k, mult, stride, pad, act):
    """16x8 DEPTHWISE_CONV_2D (version 5), INT64 bias, per-channel filters,
    bit for bit with LiteRT's reference."""
    rng = np.random.default_rng(1950 + shape[3] * 10 + k)
    out_c = shape[3] * mult
    x = rng.integers(-32768, 32768, shape, dtype=np.int16)
    w = rng.integers(-127, 128, (1, k, k, out_c), dtype=np.int8)
    in_scale = 2.7e-4
    scales = rng.uniform(0.003, 0.04, out_c).astype(np.float32).tolist()
    b = rng.integers(-2_000_000, 2_000_000, out_c, dtype=np.int64)
    check_case(OpCase(op="DEPTHWISE_CONV_2D", version=5,
                      inputs=[Input(x, quant=(in_scale, 0)),
                              Const(w, quant=(scales, [0] * out_c, 3)),
                              Const(b, quant=([in_scale * s for s in scales],
                                              [0] * out_c, 0))],
                      params={"padding": pad, "stride_w": stride,
                              "stride_h": stride, "depth_multiplier": mult,
                              "fused_activation_function": act},
                      outputs=[Output(np.int16, quant=(1.9e-3, 0))],
                      rtol=0.0, atol=0.0))


# ---- TRANSPOSE_CONV ----------------------------------------------------------

# (input NHWC, (out_c, fh, fw), stride, output (h, w), padding)
TC_CASES = [
    ((1, 3, 3, 2), (3, 3, 3), (2, 2), (6, 6), "SAME"),
    ((2, 4, 5, 7), (17, 3, 3), (2, 2), (9, 11), "VALID"),
    ((1, 7, 7, 33), (5, 4, 4), (2, 2), (14, 14), "SAME"),
    ((1, 5, 6, 13), (32, 2, 3), (1, 3), (6, 18), "VALID"),
    ((3, 2, 2, 1), (1, 5, 5), (3, 3), (6, 6), "SAME"),
    ((1, 1, 1, 1), (1, 1, 1), (1, 1), (1, 1), "VALID"),
    ((1, 2, 2, 3), (4, 1, 1), (3, 3), (6, 6), "SAME"),   # untouched pixels
    ((1, 16, 16, 8), (128, 4, 4), (4, 4), (64, 64), "VALID"),  # split (2T)
    # Output columns x taps past the gather's listed 4096: the unlisted loop.
    ((1, 2, 1100, 2), (3, 2, 4), (1, 4), (3, 4400), "VALID"),
]


def tc_case(x, w, b, stride, out_hw, padding, activation=None,
            shape_input=False):
    out_shape = np.array([x.shape[0], out_hw[0], out_hw[1], w.shape[0]],
                         np.int32)
    params = {"padding": padding, "stride_h": stride[0],
              "stride_w": stride[1]}
    version = 1 if b is None else 3
    if activation is not None:
        params["fused_activation_function"] = activation
        version = 4
    inputs = [Input(out_shape) if shape_input else Const(out_shape),
              Const(w), Input(x)]
    if b is not None:
        inputs.append(Const(b))
    return OpCase(op="TRANSPOSE_CONV", version=version, inputs=inputs,
                  params=params, output_shapes=[tuple(out_shape)])


@pytest.mark.parametrize("shape,filt,stride,out_hw,padding", TC_CASES,
                         ids=str)
@pytest.mark.parametrize("bias", [False, True])
def test_transpose_conv(shape, filt, stride, out_hw, padding, bias):
    rng = np.random.default_rng(301)
    x = normal(rng, shape)
    w = normal(rng, (filt[0], filt[1], filt[2], shape[3]), 0.3)
    b = normal(rng, (filt[0],)) if bias else None
    check_case(tc_case(x, w, b, stride, out_hw, padding))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_transpose_conv_activation(activation):
    """Fused activation (version 4)."""
    rng = np.random.default_rng(302)
    x = normal(rng, (1, 4, 4, 3), 2.0)
    w = normal(rng, (5, 3, 3, 3))
    check_case(tc_case(x, w, normal(rng, (5,)), (2, 2), (8, 8), "SAME",
                       activation))


def test_transpose_conv_runtime_output_shape():
    """output_shape fed as a graph input: the output is sized in Invoke."""
    rng = np.random.default_rng(303)
    x = normal(rng, (1, 3, 4, 2))
    w = normal(rng, (3, 3, 3, 2), 0.5)
    check_case(tc_case(x, w, None, (2, 2), (6, 8), "SAME", shape_input=True))


@pytest.mark.parametrize("shape,filt,stride,out_hw,padding,per_channel", [
    ((1, 3, 3, 2), (3, 3, 3), (2, 2), (6, 6), "SAME", True),
    ((2, 4, 5, 7), (5, 3, 3), (2, 2), (9, 11), "VALID", False),
    ((1, 4, 4, 8), (6, 2, 2), (2, 2), (8, 8), "SAME", True),
])
def test_transpose_conv_hybrid(shape, filt, stride, out_hw, padding,
                               per_channel):
    """Dynamic-range TRANSPOSE_CONV (float input, INT8 weights): TFLite's
    asymmetric input quantization and its float terms summed in input
    order, bit for bit with LiteRT's reference."""
    rng = np.random.default_rng(2800 + shape[3] + filt[0])
    x = rng.normal(0.2, 1.5, shape).astype(np.float32)
    out_c = filt[0]
    w = rng.integers(-127, 128, (out_c, filt[1], filt[2], shape[3]),
                     dtype=np.int8)
    scales = (rng.uniform(0.002, 0.03, out_c).astype(np.float32).tolist()
              if per_channel else [0.012] * out_c)
    b = rng.normal(0.0, 1.0, out_c).astype(np.float32)
    out_shape = np.array([shape[0], out_hw[0], out_hw[1], out_c], np.int32)
    check_case(OpCase(op="TRANSPOSE_CONV", version=3,
                      inputs=[Const(out_shape),
                              Const(w, quant=(scales, [0] * out_c, 0)),
                              Input(x), Const(b)],
                      params={"padding": padding, "stride_h": stride[0],
                              "stride_w": stride[1]},
                      output_shapes=[tuple(out_shape)], rtol=0.0, atol=0.0))


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@pytest.mark.parametrize("shape,filt,stride,out_hw,padding,per_channel", [
    ((1, 3, 3, 2), (3, 3, 3), (2, 2), (6, 6), "SAME", True),
    ((2, 4, 5, 7), (17, 3, 3), (2, 2), (9, 11), "VALID", False),
    ((1, 2, 40, 8), (16, 3, 4), (1, 2), (4, 82), "VALID", True),
    # Above the threading threshold: 13 output rows over the threads.
    ((1, 6, 7, 16), (24, 3, 3), (2, 2), (13, 15), "VALID", True),
    # INT8 depths that are multiples of 4 take the VNNI kernel where the
    # CPU has it: the U-Net's 2x2 stride-2 layer (4 groups of 4 bytes at a
    # time, 2 full blocks of 16 channels); 3 groups and one channel past a
    # block, padded; above the threading threshold.
    ((1, 8, 8, 64), (32, 2, 2), (2, 2), (16, 16), "VALID", True),
    ((2, 5, 4, 12), (17, 3, 3), (2, 2), (10, 8), "SAME", False),
    ((1, 9, 10, 20), (40, 3, 3), (2, 2), (19, 21), "VALID", True),
])
def test_transpose_conv_quantized(dtype, shape, filt, stride, out_hw,
                                  padding, per_channel):
    """Quantized TRANSPOSE_CONV: INT8 (version 3 with a bias; asymmetric
    input and output) and 16x8 (version 5, INT64 bias, zero points 0),
    per-channel (dim 0) and per-tensor weights, bit for bit with LiteRT's
    reference."""
    rng = np.random.default_rng(2500 + shape[3] + filt[0])
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, shape, dtype=dtype)
    w = rng.integers(-127, 128, (filt[0], filt[1], filt[2], shape[3]),
                     dtype=np.int8)
    out_c = filt[0]
    wide = dtype == np.int16
    in_q = (2.1e-4, 0) if wide else (0.037, -4)
    out_q = (1.3e-3, 0) if wide else (0.09, 6)
    if per_channel:
        scales = rng.uniform(0.002, 0.03, out_c).astype(np.float32).tolist()
        w_q = (scales, [0] * out_c, 0)
        b_q = ([in_q[0] * s for s in scales], [0] * out_c, 0)
    else:
        w_q = (0.012, 0)
        b_q = (in_q[0] * 0.012, 0)
    b = rng.integers(-30000, 30000, out_c).astype(np.int64 if wide
                                                  else np.int32)
    out_shape = np.array([shape[0], out_hw[0], out_hw[1], out_c], np.int32)
    check_case(OpCase(op="TRANSPOSE_CONV", version=5 if wide else 3,
                      inputs=[Const(out_shape), Const(w, quant=w_q),
                              Input(x, quant=in_q), Const(b, quant=b_q)],
                      params={"padding": padding, "stride_h": stride[0],
                              "stride_w": stride[1]},
                      outputs=[Output(dtype, quant=out_q)],
                      output_shapes=[tuple(out_shape)], rtol=0.0, atol=0.0))


def test_transpose_conv_channel_mismatch_rejected():
    x = np.ones((1, 2, 2, 3), np.float32)
    check_rejected(OpCase(op="TRANSPOSE_CONV",
                          inputs=[Const(np.array([1, 4, 4, 1], np.int32)),
                                  Const(np.ones((1, 2, 2, 2), np.float32)),
                                  Input(x)],
                          params={"padding": "VALID", "stride_h": 2,
                                  "stride_w": 2},
                          output_shapes=[(1, 4, 4, 1)]),
                   match=r"TRANSPOSE_CONV: input channels 3 differ from the "
                         r"weights' input channels 2")


# ---- FULLY_CONNECTED on the GEMM ----------------------------------------------

FC_CASES = [
    # (input shape, units): around the 12 x 32 micro-tile and 256-deep blocks
    ((1, 257), 1000),
    ((13, 255), 33),
    ((12, 7), 32),
    ((37, 300), 17),
    ((3, 513), 65),
    ((129, 16), 8),
]


@pytest.mark.parametrize("shape,units", FC_CASES, ids=str)
@pytest.mark.parametrize("runtime_weights", [False, True])
def test_fc_gemm(shape, units, runtime_weights):
    rng = np.random.default_rng(401)
    x = normal(rng, shape)
    w = normal(rng, (units, shape[-1]), 1 / np.sqrt(shape[-1]))
    b = normal(rng, (units,))
    wt = Input(w) if runtime_weights else Const(w)
    check_case(OpCase(op="FULLY_CONNECTED", inputs=[Input(x), wt, Const(b)],
                      params={"fused_activation_function": "RELU"},
                      output_shapes=[(shape[0], units)]))


@pytest.mark.parametrize("runtime_weights", [False, True])
def test_fc_split_over_threads(runtime_weights):
    """8.6M multiply-adds with a batch of 2: split by output columns."""
    rng = np.random.default_rng(402)
    x, w, b = grid(rng, (2, 2048), 4), grid(rng, (2100, 2048), 16), \
        grid(rng, (2100,), 4)
    wt = Input(w) if runtime_weights else Const(w)
    check_case(OpCase(op="FULLY_CONNECTED", inputs=[Input(x), wt, Const(b)],
                      output_shapes=[(2, 2100)]))


# ---- BATCH_MATMUL ------------------------------------------------------------

# (lhs shape, rhs shape, adj_x, adj_y)
BMM_CASES = [
    ((2, 3), (3, 2), False, False),
    ((13, 17), (17, 33), False, False),
    ((4, 7, 5), (4, 7, 9), True, False),
    ((2, 3, 12, 31), (32, 31), False, True),
    ((1, 6, 257), (2, 3, 5, 6), True, True),
    ((2, 1, 2, 3, 4), (1, 3, 1, 4, 5), False, False),  # rank 5 broadcast
    ((129, 64), (3, 64, 70), False, False),
    ((8, 16, 16), (8, 16, 16), False, True),
    ((1, 300), (300, 1), False, False),
    ((2, 0), (0, 3), False, False),                    # k = 0
    ((40, 64, 64), (40, 64, 64), False, True),         # split by batch (2T)
]


def bmm_out_shape(ls, rs, adj_x, adj_y):
    rank = max(len(ls), len(rs))
    lx = (1,) * (rank - len(ls)) + tuple(ls)
    rx = (1,) * (rank - len(rs)) + tuple(rs)
    batch = tuple(r if l == 1 else l for l, r in zip(lx[:-2], rx[:-2]))
    m = lx[-1] if adj_x else lx[-2]
    n = rx[-2] if adj_y else rx[-1]
    return batch + (m, n)


@pytest.mark.parametrize("ls,rs,adj_x,adj_y", BMM_CASES, ids=str)
@pytest.mark.parametrize("const_rhs", [False, True])
def test_batch_matmul(ls, rs, adj_x, adj_y, const_rhs):
    rng = np.random.default_rng(501)
    k = ls[-2] if adj_x else ls[-1]
    x = normal(rng, ls)
    y = normal(rng, rs, 1 / np.sqrt(max(k, 1)))
    check_case(OpCase(op="BATCH_MATMUL",
                      inputs=[Input(x), Const(y) if const_rhs else Input(y)],
                      params={"adj_x": adj_x, "adj_y": adj_y},
                      output_shapes=[bmm_out_shape(ls, rs, adj_x, adj_y)]))


def test_batch_matmul_nan_inf():
    x = np.array([[np.nan, 1.0], [np.inf, 0.0], [np.inf, -np.inf]],
                 np.float32)
    y = np.ones((2, 1), np.float32)
    out = check_case(OpCase(op="BATCH_MATMUL", inputs=[Input(x), Input(y)],
                            output_shapes=[(3, 1)]))
    assert np.isnan(out[0][0, 0]) and np.isnan(out[0][2, 0])
    assert out[0][1, 0] == np.inf  # no fused activation: no clamp


@pytest.mark.parametrize("ls,rs,match", [
    ((2, 3), (2, 2), r"BATCH_MATMUL: lhs \[2,3\] and rhs \[2,2\] do not "
                     r"contract: 3 != 2"),
    ((2, 2, 3), (3, 3, 2), r"BATCH_MATMUL: batch dims of lhs \[2,2,3\] and "
                           r"rhs \[3,3,2\] are not broadcastable"),
    ((3,), (3, 2), r"BATCH_MATMUL: lhs must have rank 2 to 5, got \[3\]"),
])
def test_batch_matmul_bad_shapes_rejected(ls, rs, match):
    check_rejected(OpCase(op="BATCH_MATMUL",
                          inputs=[Input(np.ones(ls, np.float32)),
                                  Input(np.ones(rs, np.float32))],
                          output_shapes=[(2, 2)]),
                   match=match)


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@pytest.mark.parametrize("lhs_shape,rhs_shape,adj_x,adj_y", [
    ((3, 5), (5, 4), False, False),
    ((2, 1, 4, 7), (3, 7, 6), False, False),   # broadcast batch dims
    ((2, 16, 16), (2, 16, 16), False, True),   # attention's Q K^T
    ((4, 9, 3), (4, 9, 5), True, False),
])
def test_batch_matmul_quantized(dtype, lhs_shape, rhs_shape, adj_x, adj_y):
    """INT8 (version 2) and INT16 (version 3) BATCH_MATMUL, bit for bit with
    LiteRT's reference: offsets, the fixed-point rescale (INT16: int64),
    broadcast batches and both adjoints; a constant rhs too."""
    rng = np.random.default_rng(2700 + lhs_shape[-1] + rhs_shape[-1])
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, lhs_shape, dtype=dtype)
    y = rng.integers(info.min, info.max + 1, rhs_shape, dtype=dtype)
    wide = dtype == np.int16
    lq = (3.1e-4, 0) if wide else (0.05, -7)
    rq = (2.2e-4, 0) if wide else (0.03, 11)
    oq = (0.02, 0) if wide else (0.9, 3)
    for rhs in (Input(y, quant=rq), Const(y, quant=rq)):
        check_case(OpCase(op="BATCH_MATMUL", version=3 if wide else 2,
                          inputs=[Input(x, quant=lq), rhs],
                          params={"adj_x": adj_x, "adj_y": adj_y},
                          outputs=[Output(dtype, quant=oq)],
                          rtol=0.0, atol=0.0))


def test_batch_matmul_int8_int32_output_rejected():
    """INT8 inputs with an INT32 output (TFLite's unquantized integer
    product) is not computed; the message names the types."""
    x = np.ones((2, 3), np.int8)
    y = np.ones((3, 2), np.int8)
    check_rejected(OpCase(op="BATCH_MATMUL", version=2,
                          inputs=[Input(x, quant=(0.5, 0)),
                                  Input(y, quant=(0.5, 0))],
                          outputs=[Output(np.int32, shape=(2, 2))]),
                   match=r"BATCH_MATMUL: INT8 lhs with rhs INT8 and output "
                         r"INT32 is not supported")
