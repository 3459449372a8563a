"""The reduce family against LiteRT's reference kernels: AVERAGE_POOL_2D,
MAX_POOL_2D, L2_POOL_2D, MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN,
RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, ARG_MAX, ARG_MIN, SHAPE, FILL and
ZEROS_LIKE.

Every case runs through op_harness.check_case: the same one-op model and
the same seeded inputs in LiteRT (OpResolverType.BUILTIN_REF) and in
litegpu with 1 and 2 threads. Bounds are the harness's 1e-5 relative +
1e-6 absolute for floats (exact for integers); the sums, means, products
and bilinear blends are also checked bit for bit where LiteRT's reference
order of operations is documented in the kernel (see test_*_bit_exact).
L2_POOL_2D's sqrt is correctly rounded on both sides, so it needs no
looser bound.
"""

import numpy as np
import pytest

from op_harness import Const, Input, OpCase, Output, check_case, check_rejected

ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6"]


def normal(rng, shape, scale=2.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# ---- Pooling ----------------------------------------------------------------

# (input shape, (filter_h, filter_w), (stride_h, stride_w), padding)
POOL_CASES = [
    ((1, 5, 5, 1), (3, 3), (1, 1), "SAME"),
    ((1, 5, 5, 1), (3, 3), (1, 1), "VALID"),
    ((2, 7, 6, 3), (2, 3), (2, 1), "VALID"),
    ((2, 7, 6, 3), (2, 3), (2, 1), "SAME"),
    ((1, 17, 13, 67), (3, 3), (2, 2), "SAME"),     # > 64 channels
    ((3, 1, 1, 5), (1, 1), (1, 1), "VALID"),       # size-1 dims
    ((1, 4, 4, 2), (5, 5), (3, 3), "SAME"),        # filter > input
    ((2, 9, 9, 7), (4, 2), (3, 2), "SAME"),
    ((1, 3, 8, 129), (3, 1), (1, 3), "VALID"),
    ((1, 2, 2, 1), (3, 3), (2, 2), "VALID"),       # empty output
    ((0, 4, 4, 3), (2, 2), (2, 2), "SAME"),        # empty batch
    ((4, 32, 31, 16), (3, 3), (1, 1), "SAME"),     # threads split rows
]


def pool_out_shape(shape, filt, stride, padding):
    out = []
    for k in range(2):
        n, f, s = shape[1 + k], filt[k], max(stride[k], 1)
        out.append((n + s - 1) // s if padding == "SAME"
                   else int((n + s - f) / s))
    return (shape[0], out[0], out[1], shape[3])


def pool_case(op, x, filt, stride, padding, activation="NONE", version=1):
    return OpCase(op=op, version=version, inputs=[Input(x)],
                  params={"padding": padding, "stride_h": stride[0],
                          "stride_w": stride[1], "filter_height": filt[0],
                          "filter_width": filt[1],
                          "fused_activation_function": activation},
                  output_shapes=[pool_out_shape(x.shape, filt, stride,
                                                padding)])


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D",
                                "L2_POOL_2D"])
@pytest.mark.parametrize("index", range(len(POOL_CASES)))
def test_pool(op, index):
    shape, filt, stride, padding = POOL_CASES[index]
    rng = np.random.default_rng(100 + index)
    x = normal(rng, shape, scale=4.0)
    check_case(pool_case(op, x, filt, stride, padding,
                         ACTIVATIONS[index % 4]))


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D",
                                "L2_POOL_2D"])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_pool_activations(op, activation):
    rng = np.random.default_rng(7)
    x = normal(rng, (2, 6, 6, 3), scale=5.0)
    check_case(pool_case(op, x, (2, 2), (2, 2), "SAME", activation))


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D",
                                "L2_POOL_2D"])
def test_pool_nan_inf(op):
    # MAX skips NaN and a window of -inf gives -FLT_MAX in LiteRT; the
    # others propagate NaN and Inf.
    x = np.array([np.nan, 1, -np.inf, np.nan, np.nan, -np.inf, 1, 2, np.inf],
                 np.float32).reshape(1, 3, 3, 1)
    check_case(pool_case(op, x, (2, 2), (2, 2), "SAME"))
    y = np.full((1, 2, 2, 1), -np.inf, np.float32)
    check_case(pool_case(op, y, (2, 2), (1, 1), "VALID"))


@pytest.mark.parametrize("op,version", [("AVERAGE_POOL_2D", 3),
                                        ("MAX_POOL_2D", 2)])
def test_pool_versions_float(op, version):
    # Versions 2 and 3 only add int8/int16; a float model may carry them.
    x = normal(np.random.default_rng(3), (1, 4, 4, 2))
    check_case(pool_case(op, x, (2, 2), (2, 2), "VALID", version=version))


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("filt,stride,pad,act", [
    ((2, 2), (2, 2), "VALID", "NONE"),
    ((3, 3), (1, 1), "SAME", "RELU"),
    ((3, 2), (2, 1), "SAME", "RELU6"),
    ((5, 5), (3, 3), "SAME", "RELU_N1_TO_1"),
])
@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_pool_quantized(op, filt, stride, pad, act, dtype):
    """INT8 (version 2) and INT16 (version 3) pooling against LiteRT's
    reference, exactly: odd windows cut at the edges (the average's
    rounding of ties), negative sums, every quantized activation."""
    rng = np.random.default_rng(120 + filt[0] * 10 + stride[1])
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, (2, 9, 8, 5), dtype=dtype)
    q = (0.07, -6) if dtype == np.int8 else (3e-4, 0)
    case = OpCase(op=op, version=2 if dtype == np.int8 else 3,
                  inputs=[Input(x, quant=q)],
                  params={"padding": pad, "stride_h": stride[0],
                          "stride_w": stride[1], "filter_height": filt[0],
                          "filter_width": filt[1],
                          "fused_activation_function": act},
                  outputs=[Output(dtype, quant=q)],
                  rtol=0.0, atol=0.0)
    check_case(case)


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("pad,act", [("SAME", "RELU6"), ("VALID", "NONE")])
def test_pool_int8_vector_widths(op, pad, act):
    """INT8 pooling over 57 channels (MAX's AVX2 32- and 16-wide steps and
    9 channels one by one; AVERAGE's 8-wide steps and 1 channel alone),
    SAME windows cut at the edges (counts 2 to 6: the average's ties round
    away from zero) and a fused activation's clamp, exactly as LiteRT's
    reference."""
    rng = np.random.default_rng(133)
    x = rng.integers(-128, 128, (2, 7, 6, 57), dtype=np.int8)
    q = (0.05, -9)
    case = OpCase(op=op, version=2, inputs=[Input(x, quant=q)],
                  params={"padding": pad, "stride_h": 2, "stride_w": 2,
                          "filter_height": 3, "filter_width": 2,
                          "fused_activation_function": act},
                  outputs=[Output(np.int8, quant=q)], rtol=0.0, atol=0.0)
    check_case(case)


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_pool_int8_many_channels(op):
    """INT8 pooling over 300 channels: the kernel sums 256 channels at a time
    (a whole chunk and a partial one), exactly as LiteRT's reference."""
    rng = np.random.default_rng(131)
    x = rng.integers(-128, 128, (1, 5, 4, 300), dtype=np.int8)
    q = (0.05, 3)
    case = OpCase(op=op, version=2, inputs=[Input(x, quant=q)],
                  params={"padding": "SAME", "stride_h": 2, "stride_w": 1,
                          "filter_height": 3, "filter_width": 2,
                          "fused_activation_function": "NONE"},
                  outputs=[Output(np.int8, quant=q)], rtol=0.0, atol=0.0)
    check_case(case)


@pytest.mark.parametrize("channels", [64, 13])
def test_average_pool_int8_global(channels):
    """A global INT8 AVERAGE_POOL_2D (a keyword spotter's last pool: 25x5
    pixels, count 125) over 64 channels and 13 (8-wide steps and 5 one by
    one), inputs near both ends so the sums reach +-15000, exactly as
    LiteRT's reference."""
    rng = np.random.default_rng(137 + channels)
    x = rng.integers(-128, 128, (1, 25, 5, channels), dtype=np.int8)
    x[..., 0] = -128
    x[..., 1] = 127
    q = (0.1, 4)
    case = OpCase(op="AVERAGE_POOL_2D", version=2, inputs=[Input(x, quant=q)],
                  params={"padding": "VALID", "stride_h": 1, "stride_w": 1,
                          "filter_height": 25, "filter_width": 5,
                          "fused_activation_function": "NONE"},
                  outputs=[Output(np.int8, quant=q)], rtol=0.0, atol=0.0)
    check_case(case)


def test_pool_int8_rescale_rejected():
    """TFLite assumes INT8 pooling keeps its scale; litegpu says so."""
    x = np.zeros((1, 4, 4, 1), np.int8)
    case = OpCase(op="AVERAGE_POOL_2D", version=2,
                  inputs=[Input(x, quant=(0.5, 0))],
                  params={"padding": "VALID", "stride_h": 1, "stride_w": 1,
                          "filter_height": 2, "filter_width": 2},
                  outputs=[Output(np.int8, (1, 3, 3, 1), quant=(0.25, 0))])
    check_rejected(case, r"AVERAGE_POOL_2D: INT8 input and output must "
                         r"share one scale and zero point \(input 0.5/0, "
                         r"output 0.25/0\)")


def test_pool_bad_stride_rejected():
    x = np.zeros((1, 4, 4, 1), np.float32)
    check_rejected(pool_case("MAX_POOL_2D", x, (2, 2), (0, 1), "VALID"),
                   r"MAX_POOL_2D: stride_w 1 and stride_h 0 must both be "
                   r"positive")


# ---- Reductions ---------------------------------------------------------------

REDUCERS = ["MEAN", "SUM", "REDUCE_PROD", "REDUCE_MAX", "REDUCE_MIN"]

# (input shape, axes, keep_dims)
REDUCE_CASES = [
    ((2, 3), [1], False),
    ((2, 3), [0], True),
    ((2, 3), [0, 1], False),          # all: a scalar
    ((2, 3, 4), [-1], False),         # negative
    ((2, 3, 4), [1, -2, 1], True),    # duplicates
    ((2, 3, 4), [0, 2], False),       # outer and inner around a kept dim
    ((3, 1, 5, 7), [1, 3], True),     # size-1 dim reduced
    ((17,), [0], True),
    ((1, 1, 1), [2], False),
    ((4, 5, 6, 7, 3), [0, 2, 4], False),
    ((2, 33, 65), [1], False),        # kept inner row > 64 wide
    ((64, 40, 33), [2], True),        # threads split outputs
    ((40, 33, 64), [0, 1], False),    # threads split rows
    ((1, 56, 56, 200), [1, 2], True),  # global pooling: row chunks split
    ((2, 3), [], False),              # no axes: the input comes back
]


def reduce_out_shape(shape, axes, keep):
    red = {a % len(shape) for a in axes}
    return tuple(1 if i in red else d for i, d in enumerate(shape)
                 if keep or i not in red)


def reduce_case(op, x, axes, keep, axes_input=False, version=1):
    a = np.array(axes, np.int32)
    return OpCase(op=op, version=version,
                  inputs=[Input(x), Input(a) if axes_input else Const(a)],
                  params={"keep_dims": keep}, outputs=[x.dtype.type],
                  output_shapes=[reduce_out_shape(x.shape, axes, keep)])


@pytest.mark.parametrize("op", REDUCERS)
@pytest.mark.parametrize("index", range(len(REDUCE_CASES)))
def test_reduce_float(op, index):
    shape, axes, keep = REDUCE_CASES[index]
    rng = np.random.default_rng(200 + index)
    if op == "REDUCE_PROD":  # factors near 1: no overflow or underflow
        x = rng.uniform(0.9, 1.1, shape).astype(np.float32)
    else:
        x = normal(rng, shape)
    check_case(reduce_case(op, x, axes, keep))


@pytest.mark.parametrize("op", REDUCERS)
@pytest.mark.parametrize("index", [0, 4, 5, 13])
def test_reduce_runtime_axes(op, index):
    # The axes are a graph input: the output is dynamic in both runtimes.
    shape, axes, keep = REDUCE_CASES[index]
    x = normal(np.random.default_rng(300 + index), shape)
    check_case(reduce_case(op, x, axes, keep, axes_input=True))


@pytest.mark.parametrize("op", REDUCERS)
def test_reduce_int32(op):
    rng = np.random.default_rng(17)
    # Full-range values: SUM and PROD wrap, MEAN sums in int64 and
    # truncates towards zero.
    x = rng.integers(-2**31, 2**31, (4, 7, 5), dtype=np.int64).astype(np.int32)
    for axes, keep in [([1], False), ([0, 2], True), ([-1], False)]:
        check_case(reduce_case(op, x, axes, keep))
    small = np.array([[1, 2], [-1, -2], [2**31 - 1, 2**31 - 1], [-3, 0]],
                     np.int32)
    check_case(reduce_case(op, small, [1], False))


@pytest.mark.parametrize("op", REDUCERS)
def test_reduce_nan_inf(op):
    x = np.array([[np.nan, 1, 2], [-np.inf, -np.inf, -np.inf],
                  [np.inf, np.inf, np.inf], [np.nan, np.nan, np.nan],
                  [np.inf, -np.inf, 1]], np.float32)
    check_case(reduce_case(op, x, [1], False))
    # The same columns reduced along the outer axis (the channels kept: the
    # vector fold over rows), NaN first, last and in between.
    check_case(reduce_case(op, np.ascontiguousarray(x.T), [0], False))


@pytest.mark.parametrize("op", REDUCERS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reduce_empty(op, dtype):
    # Reducing an empty dim gives the identity (MEAN: NaN for float, 0 for
    # int32); keeping it gives an empty output.
    x = np.zeros((3, 0), dtype)
    check_case(reduce_case(op, x, [1], False))
    check_case(reduce_case(op, x, [1], True))
    check_case(reduce_case(op, x, [0], False))


@pytest.mark.parametrize("op", ["MEAN", "SUM", "REDUCE_PROD"])
def test_reduce_bit_exact(op):
    # Float32 accumulation in input order, as LiteRT's reference kernel:
    # long sums agree to the last bit, over inner and over outer axes.
    rng = np.random.default_rng(5)
    x = (rng.uniform(0.999, 1.001, (3, 20000)) if op == "REDUCE_PROD"
         else rng.standard_normal((3, 20000)) * 100).astype(np.float32)
    case = reduce_case(op, x, [1], False)
    case.rtol = case.atol = 0.0
    check_case(case)
    case = reduce_case(op, np.ascontiguousarray(x.T), [0], True)
    case.rtol = case.atol = 0.0
    check_case(case)


QUANT_REDUCE_CASES = [0, 3, 4, 5, 6, 9, 10, 13, 14]


@pytest.mark.parametrize("index", QUANT_REDUCE_CASES)
@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.05, -3)),
                                        ((0.021, 17), (0.0031, -100)),
                                        ((0.9, -128), (0.31, 127))])
def test_mean_int8(index, in_q, out_q):
    """INT8 MEAN (version 2), bit for bit with LiteRT's reference: the sum
    rescaled with 1/n folded into the fixed-point multiplier, for reduced
    counts from 1 to 130,000 (a global pooling), kept dims or not, and
    scale ratios far from 1."""
    shape, axes, keep = REDUCE_CASES[index]
    rng = np.random.default_rng(300 + index)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    a = np.array(axes, np.int32)
    check_case(OpCase(op="MEAN", version=2,
                      inputs=[Input(x, quant=in_q), Const(a)],
                      params={"keep_dims": keep},
                      outputs=[Output(np.int8, quant=out_q)],
                      output_shapes=[reduce_out_shape(shape, axes, keep)],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("index", QUANT_REDUCE_CASES)
@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.05, -3)),
                                        ((0.021, 17), (0.31, -100)),
                                        ((0.5, 0), (1.0, 0)),
                                        ((0.9, -128), (0.0031, 127))])
def test_sum_int8(index, in_q, out_q):
    """INT8 SUM (version 2), bit for bit with LiteRT's builtin kernel: the
    int32 sum rescaled in float32 with the zero point's share as a bias,
    rounded half away from zero (0.5 to 1.0 makes ties) and clamped. LiteRT
    2.3's reference kernel reads the data as UINT8 here (its outputs are
    garbage), so the builtin kernel is the reference."""
    shape, axes, keep = REDUCE_CASES[index]
    rng = np.random.default_rng(500 + index)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    check_case(OpCase(op="SUM", version=2,
                      inputs=[Input(x, quant=in_q),
                              Const(np.array(axes, np.int32))],
                      params={"keep_dims": keep},
                      outputs=[Output(np.int8, quant=out_q)],
                      output_shapes=[reduce_out_shape(shape, axes, keep)],
                      rtol=0.0, atol=0.0, litert_kernels="BUILTIN"))


def test_sum_int8_runtime_axes():
    """INT8 SUM with axes known only at Invoke. (Over an empty dim LiteRT
    2.3's builtin kernel leaves some outputs unwritten; litegpu writes 0,
    the value its reference kernels reset the output to.)"""
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, (3, 4, 5), dtype=np.int8)
    check_case(OpCase(op="SUM", version=2,
                      inputs=[Input(x, quant=(0.2, 4)),
                              Input(np.array([0, 2], np.int32))],
                      params={"keep_dims": True},
                      outputs=[Output(np.int8, quant=(0.6, -7))],
                      output_shapes=[(1, 4, 1)],
                      rtol=0.0, atol=0.0, litert_kernels="BUILTIN"))


@pytest.mark.parametrize("index", [0, 5, 9, 13])
def test_mean_int16(index):
    """INT16 MEAN (version 3), zero points 0."""
    shape, axes, keep = REDUCE_CASES[index]
    rng = np.random.default_rng(400 + index)
    x = rng.integers(-32768, 32768, shape, dtype=np.int16)
    check_case(OpCase(op="MEAN", version=3,
                      inputs=[Input(x, quant=(3.1e-4, 0)),
                              Const(np.array(axes, np.int32))],
                      params={"keep_dims": keep},
                      outputs=[Output(np.int16, quant=(2.3e-4, 0))],
                      output_shapes=[reduce_out_shape(shape, axes, keep)],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
@pytest.mark.parametrize("dtype,version", [(np.int8, 2), (np.int16, 3)])
def test_reduce_max_min_quantized(op, dtype, version):
    rng = np.random.default_rng(500)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, (2, 33, 65), dtype=dtype)
    q = (0.5, 3) if dtype == np.int8 else (0.5, 0)
    check_case(OpCase(op=op, version=version,
                      inputs=[Input(x, quant=q),
                              Const(np.array([1], np.int32))],
                      params={"keep_dims": False},
                      outputs=[Output(dtype, quant=q)],
                      output_shapes=[(2, 65)], rtol=0.0, atol=0.0))


def test_reduce_max_requantizing_rejected():
    x = np.zeros((2, 3), np.int8)
    check_rejected(OpCase(op="REDUCE_MAX", version=2,
                          inputs=[Input(x, quant=(0.5, 0)),
                                  Const(np.array([1], np.int32))],
                          params={"keep_dims": False},
                          outputs=[Output(np.int8, (2,), quant=(0.25, 0))]),
                   r"REDUCE_MAX: input quantization \(0.5, 0\) and output "
                   r"quantization \(0.25, 0\) must be equal",
                   litert_accepts=None)


@pytest.mark.parametrize("op,version", [("MEAN", 3), ("SUM", 2),
                                        ("REDUCE_MAX", 3), ("REDUCE_PROD", 2)])
def test_reduce_versions_float(op, version):
    x = normal(np.random.default_rng(9), (2, 5))
    check_case(reduce_case(op, x, [1], False, version=version))


def test_reduce_rejections():
    x = np.zeros((2, 3), np.float32)
    check_rejected(reduce_case("MEAN", x, [2], False),
                   r"MEAN: axis 2 is out of range for an input of rank 2",
                   litert_accepts=False)
    q = np.zeros((2, 3), np.int8)
    case = OpCase(op="REDUCE_PROD", version=2,
                  inputs=[Input(q, quant=(0.5, 0)),
                          Const(np.array([1], np.int32))],
                  params={"keep_dims": False},
                  outputs=[Output(np.int8, (2,), quant=(0.5, 0))])
    check_rejected(case, r"REDUCE_PROD: input type INT8 is not supported",
                   litert_accepts=True)


# ---- Resize -------------------------------------------------------------------

# (input shape, (new_height, new_width))
RESIZE_CASES = [
    ((1, 3, 5, 1), (7, 17)),
    ((2, 8, 8, 3), (3, 5)),       # down
    ((1, 1, 1, 5), (4, 4)),       # from a single pixel
    ((3, 5, 7, 67), (5, 7)),      # same size
    ((1, 4, 6, 2), (1, 1)),       # to a single pixel
    ((2, 17, 3, 1), (33, 2)),
    ((2, 31, 17, 9), (63, 40)),   # threads
    ((1, 3, 130, 20), (5, 300)),  # columns in chunks of 256, 2 vectors
]

# (align_corners, half_pixel_centers)
FLAGS = [(False, False), (True, False), (False, True), (True, True)]


def resize_case(op, x, size, align, half, size_input=False, version=None):
    s = np.array(size, np.int32)
    if version is None:  # the converter's choice
        version = 3 if half or (op == "RESIZE_NEAREST_NEIGHBOR" and align) \
            else 1
    return OpCase(op=op, version=version,
                  inputs=[Input(x), Input(s) if size_input else Const(s)],
                  params={"align_corners": align, "half_pixel_centers": half},
                  output_shapes=[(x.shape[0], size[0], size[1], x.shape[3])])


# Bilinear with both flags is a rejection (test_resize_rejections), so that
# combination is not generated here.
RESIZE_OP_FLAGS = [(op, f) for op in ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR")
                   for f in FLAGS
                   if not (op == "RESIZE_BILINEAR" and f[0] and f[1])]


@pytest.mark.parametrize("op,flags", RESIZE_OP_FLAGS, ids=str)
@pytest.mark.parametrize("index", range(len(RESIZE_CASES)))
def test_resize(op, flags, index):
    align, half = flags
    shape, size = RESIZE_CASES[index]
    x = normal(np.random.default_rng(400 + index), shape, scale=10.0)
    check_case(resize_case(op, x, size, align, half, size_input=index % 2))


@pytest.mark.parametrize("op", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_resize_bit_exact(op):
    # The coordinate arithmetic is TFLite's, in float32: the blends agree to
    # the last bit.
    x = normal(np.random.default_rng(8), (2, 9, 11, 3), scale=100.0)
    for align, half in FLAGS[:3]:
        case = resize_case(op, x, (20, 7), align, half)
        case.rtol = case.atol = 0.0
        check_case(case)


@pytest.mark.parametrize("op", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_resize_nan_inf(op):
    x = np.array([np.nan, 1, np.inf, -2], np.float32).reshape(1, 2, 2, 1)
    check_case(resize_case(op, x, (3, 5), False, False))


@pytest.mark.parametrize("flags", FLAGS, ids=str)
def test_resize_nearest_int32(flags):
    # Nearest copies elements: LiteRT accepts int32 too.
    rng = np.random.default_rng(12)
    x = rng.integers(-2**31, 2**31, (2, 3, 5, 3), dtype=np.int64)
    case = resize_case("RESIZE_NEAREST_NEIGHBOR", x.astype(np.int32), (7, 4),
                       *flags)
    case.outputs = [np.int32]
    check_case(case)


@pytest.mark.parametrize("op,flags", RESIZE_OP_FLAGS, ids=str)
@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@pytest.mark.parametrize("index", [0, 1, 2, 5, 6])
def test_resize_quantized(op, flags, dtype, index):
    """INT8 and INT16 RESIZE_BILINEAR (TFLite's integer interpolation: 10-bit
    weights, int64 sums) and RESIZE_NEAREST_NEIGHBOR, up and down, every
    flag combination, bit for bit with LiteRT's reference."""
    align, half = flags
    shape, size = RESIZE_CASES[index]
    rng = np.random.default_rng(600 + index)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, shape, dtype=dtype)
    q = (0.03, -5) if dtype == np.int8 else (2e-4, 0)
    version = (4 if op == "RESIZE_BILINEAR" else 4) if dtype == np.int16 \
        else 3 if half or align else 2
    case = resize_case(op, x, size, align, half, size_input=index % 2,
                       version=version)
    case.inputs[0] = Input(x, quant=q)
    case.outputs = [Output(dtype, quant=q)]
    case.rtol = case.atol = 0.0
    check_case(case)


# INT8 bilinear on AVX2 CPUs blends 16 channels per step, then 8, then one
# at a time, from 8 channels up (resize.c, quant_simd.c): channel counts at
# that edge, one full step, and steps plus 8 and a tail; exact 2x (the weights 0 and 1/2 without flags,
# where the rounding's ties fall on negative values too), odd ratios, and
# a size that splits over 2 threads.
RESIZE_INT8_VECTOR_CASES = [
    ((1, 4, 5, 8), (8, 10)),
    ((2, 3, 4, 16), (6, 8)),
    ((1, 5, 3, 37), (9, 7)),
    ((1, 9, 7, 45), (17, 27)),    # 20655 outputs: 2 threads split rows
    ((1, 6, 300, 17), (2, 301)),  # columns in chunks of 256
]


@pytest.mark.parametrize("flags", FLAGS[:3], ids=str)
@pytest.mark.parametrize("index", range(len(RESIZE_INT8_VECTOR_CASES)))
def test_resize_bilinear_int8_vector(flags, index):
    align, half = flags
    shape, size = RESIZE_INT8_VECTOR_CASES[index]
    rng = np.random.default_rng(700 + index)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    x.flat[:4] = [-128, 127, -128, 127]  # the extremes, at both corners
    x.flat[-4:] = [127, -128, 127, -128]
    version = 3 if half or align else 2
    case = resize_case("RESIZE_BILINEAR", x, size, align, half,
                       version=version)
    q = (0.05, 3)
    case.inputs[0] = Input(x, quant=q)
    case.outputs = [Output(np.int8, quant=q)]
    case.rtol = case.atol = 0.0
    check_case(case)


def test_resize_requantizing_rejected():
    x = np.zeros((1, 2, 2, 1), np.int8)
    case = resize_case("RESIZE_BILINEAR", x, (4, 4), False, False, version=2)
    case.inputs[0] = Input(x, quant=(0.5, 1))
    case.outputs = [Output(np.int8, quant=(0.25, 1))]
    check_rejected(case, r"RESIZE_BILINEAR: input quantization \(0.5, 1\) "
                         r"and output quantization \(0.25, 1\) must be equal")


def test_resize_nearest_empty_size():
    # Nearest allows a zero size (an empty output); bilinear refuses it.
    x = normal(np.random.default_rng(13), (1, 2, 2, 3))
    check_case(resize_case("RESIZE_NEAREST_NEIGHBOR", x, (3, 0), False,
                           False))
    check_rejected(resize_case("RESIZE_BILINEAR", x, (0, 3), False, False),
                   r"RESIZE_BILINEAR: size \(0, 3\) must be positive",
                   litert_accepts=False)


def test_resize_rejections():
    x = np.zeros((1, 2, 2, 1), np.float32)
    check_rejected(resize_case("RESIZE_BILINEAR", x, (4, 4), True, True),
                   r"RESIZE_BILINEAR: align_corners and half_pixel_centers "
                   r"cannot both be true", litert_accepts=False)
    # (UINT8 resizes are computed: tests/python/ops/test_ops_uint8.py.)


# ---- ARG_MAX / ARG_MIN ----------------------------------------------------------


def arg_case(op, x, axis, out_type=np.int64, axis_type=np.int32,
             axis_input=False):
    a = np.array([axis], axis_type)
    shape = tuple(d for i, d in enumerate(x.shape) if i != axis % x.ndim)
    return OpCase(op=op, inputs=[Input(x), Input(a) if axis_input else Const(a)],
                  params={"output_type": out_type}, outputs=[out_type],
                  output_shapes=[shape])


ARG_CASES = [((2, 3), 1), ((2, 3), 0), ((4, 5, 67), -2), ((3, 130), 0),
             ((7,), 0), ((2, 1, 3, 4, 5), 3), ((64, 40, 33), 1)]


@pytest.mark.parametrize("op", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize("index", range(len(ARG_CASES)))
def test_arg(op, index):
    shape, axis = ARG_CASES[index]
    rng = np.random.default_rng(500 + index)
    # Few distinct values: ties are common and must give the first index.
    x = rng.integers(-4, 5, shape).astype(np.float32)
    check_case(arg_case(op, x, axis, out_type=[np.int32, np.int64][index % 2],
                        axis_input=index % 3 == 0))
    xi = rng.integers(-2**31, 2**31, shape, dtype=np.int64).astype(np.int32)
    check_case(arg_case(op, xi, axis, axis_type=np.int64))


@pytest.mark.parametrize("op", ["ARG_MAX", "ARG_MIN"])
def test_arg_nan(op):
    x = np.array([[np.nan, 1, 2], [1, np.nan, 2], [1, np.nan, 0],
                  [3, 3, 1], [np.nan, np.nan, np.nan],
                  [np.nan, -np.inf, -np.inf], [np.inf, np.nan, -np.inf]],
                 np.float32)
    check_case(arg_case(op, x, 1))
    rng = np.random.default_rng(21)
    y = normal(rng, (6, 9))
    y[rng.random((6, 9)) < 0.3] = np.nan
    check_case(arg_case(op, y, 1, out_type=np.int32))
    check_case(arg_case(op, y, 0))


def test_arg_rejections():
    x = np.zeros((2, 3), np.float32)
    check_rejected(arg_case("ARG_MAX", x, 1, out_type=np.float32),
                   r"ARG_MAX: output_type FLOAT32 is not supported",
                   litert_accepts=False)
    check_rejected(arg_case("ARG_MIN", np.zeros((3, 0), np.float32), 1),
                   r"ARG_MIN: axis 1 of the input is empty",
                   litert_accepts=False)
    b = np.zeros((2, 3), np.bool_)
    check_rejected(OpCase(op="ARG_MIN", version=3,
                          inputs=[Input(b), Const(np.array([1], np.int32))],
                          params={"output_type": np.int32},
                          outputs=[np.int32], output_shapes=[(2,)]),
                   r"ARG_MIN: input type BOOL is not supported")


# ---- SHAPE, FILL, ZEROS_LIKE --------------------------------------------------


@pytest.mark.parametrize("out_type", [np.int32, np.int64])
# A scalar input gives an empty output, which LiteRT's Python API cannot
# read back; the unit suite covers it.
@pytest.mark.parametrize("shape", [(2, 3, 4), (1,), (0, 5), (1, 2, 1, 3, 1)],
                         ids=str)
def test_shape(out_type, shape):
    x = np.zeros(shape, np.float32)
    check_case(OpCase(op="SHAPE", inputs=[Input(x)],
                      params={"out_type": out_type}, outputs=[out_type],
                      output_shapes=[(len(shape),)]))


@pytest.mark.parametrize("dims", [(2, 3), (5,), (), (4, 0), (1, 2, 3, 4)],
                         ids=str)
@pytest.mark.parametrize("value", [np.float32(2.5), np.int32(-7),
                                   np.int64(2**40), np.bool_(True),
                                   np.float32(np.nan)], ids=repr)
def test_fill(dims, value):
    for dims_type in (np.int32, np.int64):
        d = np.array(dims, dims_type)
        v = np.array(value)
        # LiteRT's Python API cannot read an empty dynamic output back.
        runtime = [Input(d)] if np.prod(dims) > 0 else []
        for dims_in in [Const(d)] + runtime:
            check_case(OpCase(op="FILL", version=2 if v.dtype == np.bool_
                              else 1,
                              inputs=[dims_in, Const(v)], outputs=[v.dtype.type],
                              output_shapes=[dims]))


def test_fill_rejections():
    check_rejected(OpCase(op="FILL",
                          inputs=[Const(np.array([2, -3], np.int32)),
                                  Const(np.array(1.0, np.float32))],
                          output_shapes=[(2, 3)]),
                   r"FILL: dimension 1 is negative \(-3\)")
    check_rejected(OpCase(op="FILL", version=3,
                          inputs=[Const(np.array([2], np.int32)),
                                  Const(np.array(1, np.int16))],
                          outputs=[np.int16], output_shapes=[(2,)]),
                   r"FILL: value type INT16 is not supported",
                   litert_accepts=True)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4), (3, 1, 7)], ids=str)
def test_zeros_like(dtype, shape):
    x = (np.arange(int(np.prod(shape))).reshape(shape) + 1).astype(dtype)
    check_case(OpCase(op="ZEROS_LIKE", inputs=[Input(x)], outputs=[dtype]))
