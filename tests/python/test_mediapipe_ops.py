"""MediaPipe's custom ops on litegpu's CPU (litegpu_add_mediapipe_ops).

LiteRT has none of these ops, so each is checked against what LiteRT
computes for the equivalent builtin graph, or against its definition:
  * Convolution2DTransposeBias(x, w, b) is TRANSPOSE_CONV(x, w) + b with
    MediaPipe's output size; LiteRT's reference kernels run the builtin
    pair (within 1e-5: the two sum in different orders).
  * MaxPoolingWithArgmax2D's values are MAX_POOL_2D's (LiteRT, exactly);
    its positions follow from the definition (numpy below): the first
    maximum of the window, y * filter_w + x + 0.1.
  * MaxUnpooling2D puts each value where its position says, the last
    writer winning and positions outside the window ignored (numpy below).
Without the registration the ops are unresolved, in TFLite's words; with
it, the GPU delegate still claims them (test_gpu_claims_... below).
"""

import struct

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from litegpu import capi as lg
import op_harness as oh

SAME, VALID = 1, 2


def _floats(values):
    return ",".join(f"{v:.9g}" for v in np.asarray(values).ravel())


def _shape(shape):
    return ",".join(str(d) for d in shape)


def _hex(ints):
    return struct.pack(f"<{len(ints)}i", *ints).hex()


def _build(tmp_path, name, spec):
    spec_path = tmp_path / f"{name}.spec"
    model_path = tmp_path / f"{name}.tflite"
    spec_path.write_text(spec)
    oh.build_model(spec_path, model_path)
    return model_path


def _run_litegpu(path, inputs, mediapipe_ops=True, delegates=()):
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(path)) as model, \
            lg.Interpreter(lib, model, num_threads=1, delegates=delegates,
                           mediapipe_ops=mediapipe_ops) as interp:
        interp.allocate_tensors()
        for i, x in enumerate(inputs):
            interp.set_input(i, x)
        interp.invoke()
        return [interp.get_output(i) for i in range(interp.output_count)]


def _run_litert(path, inputs):
    interp = Interpreter(model_path=str(path),
                         experimental_op_resolver_type=(
                             OpResolverType.BUILTIN_REF))
    interp.allocate_tensors()
    for d, x in zip(interp.get_input_details(), inputs):
        interp.set_tensor(d["index"], x)
    interp.invoke()
    return [interp.get_tensor(d["index"])
            for d in interp.get_output_details()]


def _mediapipe_out(padding, size, kernel, stride):
    pad = max(0, kernel - (size - 1) % stride - 1) if padding == SAME else 0
    return stride * (size - 1) + kernel - pad


TRANSPOSE_CASES = [
    # shape, out_c, kernel, stride, padding
    ((1, 4, 4, 3), 5, 2, 2, SAME),
    ((1, 5, 5, 8), 6, 3, 2, SAME),   # odd: MediaPipe's output is 2H - 1
    ((1, 4, 6, 5), 3, 4, 2, VALID),
    ((2, 3, 3, 16), 8, 2, 2, SAME),
    ((1, 7, 7, 4), 4, 3, 1, SAME),
]


@pytest.mark.parametrize("shape,out_c,kernel,stride,padding",
                         TRANSPOSE_CASES)
def test_transpose_conv_bias_is_transpose_conv_plus_bias(
        tmp_path, shape, out_c, kernel, stride, padding):
    rng = np.random.default_rng(sum(shape) + kernel)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, (out_c, kernel, kernel,
                                shape[3])).astype(np.float32)
    b = rng.uniform(-1, 1, (out_c,)).astype(np.float32)
    out_shape = (shape[0], _mediapipe_out(padding, shape[1], kernel, stride),
                 _mediapipe_out(padding, shape[2], kernel, stride), out_c)
    tensors = (f"tensor x FLOAT32 {_shape(shape)}\n"
               f"tensor w FLOAT32 {_shape(w.shape)} values={_floats(w)}\n"
               f"tensor b FLOAT32 {out_c} values={_floats(b)}\n"
               f"tensor y FLOAT32 {_shape(out_shape)}\n")
    custom = _build(tmp_path, "custom", tensors +
                    "custom Convolution2DTransposeBias 1 in=x,w,b out=y "
                    f"options=hex:{_hex([padding, stride, stride])}\n"
                    "inputs x\noutputs y\n")
    builtin = _build(tmp_path, "builtin", tensors +
                     f"tensor s INT32 4 values={_shape(out_shape)}\n"
                     f"tensor t FLOAT32 {_shape(out_shape)}\n"
                     "op TRANSPOSE_CONV 1 in=s,w,x out=t "
                     f"padding={'SAME' if padding == SAME else 'VALID'} "
                     f"stride_w={stride} stride_h={stride}\n"
                     "op ADD 1 in=t,b out=y\n"
                     "inputs x\noutputs y\n")
    got = _run_litegpu(custom, [x])[0]
    want = _run_litert(builtin, [x])[0]
    assert got.shape == out_shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _argmax_reference(x, kernel, stride, padding):
    """The definition: windows at o * stride - pad, clipped to the input;
    the first maximum in (row, column) order; position y * k + x + 0.1."""
    n, h, w, c = x.shape
    if padding == SAME:
        oh_, ow = -(-h // stride), -(-w // stride)
    else:
        oh_, ow = (h - kernel) // stride + 1, (w - kernel) // stride + 1
    ph = max(0, ((oh_ - 1) * stride + kernel - h) // 2)
    pw = max(0, ((ow - 1) * stride + kernel - w) // 2)
    values = np.zeros((n, oh_, ow, c), np.float32)
    positions = np.zeros((n, oh_, ow, c), np.float32)
    for b in range(n):
        for oy in range(oh_):
            for ox in range(ow):
                for ch in range(c):
                    best, at = -np.finfo(np.float32).max, 0
                    for fy in range(kernel):
                        for fx in range(kernel):
                            y, xx = oy * stride - ph + fy, ox * stride - pw + fx
                            if 0 <= y < h and 0 <= xx < w and \
                                    x[b, y, xx, ch] > best:
                                best, at = x[b, y, xx, ch], fy * kernel + fx
                    values[b, oy, ox, ch] = best
                    positions[b, oy, ox, ch] = np.float32(at) + np.float32(0.1)
    return values, positions


POOL_CASES = [
    ((1, 8, 8, 3), 2, 2, VALID),
    ((1, 7, 7, 5), 3, 2, SAME),
    ((2, 6, 6, 4), 2, 1, SAME),
]


@pytest.mark.parametrize("shape,kernel,stride,padding", POOL_CASES)
def test_max_pool_argmax(tmp_path, shape, kernel, stride, padding):
    rng = np.random.default_rng(kernel * 7 + stride)
    # Ties on purpose: values on a coarse grid, so the first maximum counts.
    x = np.round(rng.uniform(-4, 4, shape) * 2).astype(np.float32) / 2
    options = _hex([padding, stride, stride, kernel, kernel, 0])
    ref_values, ref_positions = _argmax_reference(x, kernel, stride, padding)
    out = _shape(ref_values.shape)
    custom = _build(tmp_path, "argmax",
                    f"tensor x FLOAT32 {_shape(shape)}\n"
                    f"tensor v FLOAT32 {out}\ntensor p FLOAT32 {out}\n"
                    "custom MaxPoolingWithArgmax2D 1 in=x out=v,p "
                    f"options=hex:{options}\ninputs x\noutputs v,p\n")
    pool = _build(tmp_path, "pool",
                  f"tensor x FLOAT32 {_shape(shape)}\ntensor v FLOAT32 {out}\n"
                  "op MAX_POOL_2D 1 in=x out=v "
                  f"padding={'SAME' if padding == SAME else 'VALID'} "
                  f"stride_w={stride} stride_h={stride} "
                  f"filter_width={kernel} filter_height={kernel}\n"
                  "inputs x\noutputs v\n")
    values, positions = _run_litegpu(custom, [x])
    np.testing.assert_array_equal(values, _run_litert(pool, [x])[0])
    np.testing.assert_array_equal(values, ref_values)
    np.testing.assert_array_equal(positions, ref_positions)


def _unpool_reference(values, positions, kernel, stride, padding):
    n, h, w, c = values.shape
    oh_, ow = h * kernel, w * kernel
    ph = max(0, ((h - 1) * stride + kernel - oh_) // 2)
    pw = max(0, ((w - 1) * stride + kernel - ow) // 2)
    out = np.zeros((n, oh_, ow, c), np.float32)
    for b in range(n):
        for y in range(h):
            for x in range(w):
                for ch in range(c):
                    at = positions[b, y, x, ch]
                    if not 0 <= at < kernel * kernel:
                        continue
                    k = int(at)
                    oy = y * stride - ph + k // kernel
                    ox = x * stride - pw + k % kernel
                    if 0 <= oy < oh_ and 0 <= ox < ow:
                        out[b, oy, ox, ch] = values[b, y, x, ch]
    return out


@pytest.mark.parametrize("shape,kernel,stride,padding",
                         [((1, 4, 4, 3), 2, 2, VALID),
                          ((1, 3, 3, 5), 3, 2, SAME),
                          ((2, 5, 5, 4), 2, 1, SAME)])
def test_max_unpool(tmp_path, shape, kernel, stride, padding):
    rng = np.random.default_rng(kernel + 11 * stride)
    values = rng.uniform(-1, 1, shape).astype(np.float32)
    # Some positions outside the window (ignored), overlaps with stride 1.
    positions = rng.uniform(-1.5, kernel * kernel + 1.5,
                            shape).astype(np.float32)
    out = (shape[0], shape[1] * kernel, shape[2] * kernel, shape[3])
    custom = _build(tmp_path, "unpool",
                    f"tensor v FLOAT32 {_shape(shape)}\n"
                    f"tensor p FLOAT32 {_shape(shape)}\n"
                    f"tensor y FLOAT32 {_shape(out)}\n"
                    "custom MaxUnpooling2D 1 in=v,p out=y options=hex:"
                    f"{_hex([padding, stride, stride, kernel, kernel, 0])}\n"
                    "inputs v,p\noutputs y\n")
    got = _run_litegpu(custom, [values, positions])[0]
    np.testing.assert_array_equal(
        got, _unpool_reference(values, positions, kernel, stride, padding))


def test_unregistered_ops_are_unresolved_and_bad_options_refused(tmp_path):
    spec = ("tensor x FLOAT32 1,4,4,2\ntensor v FLOAT32 1,2,2,2\n"
            "tensor p FLOAT32 1,2,2,2\n"
            "custom MaxPoolingWithArgmax2D 1 in=x out=v,p options=hex:{}\n"
            "inputs x\noutputs v,p\n")
    good = _build(tmp_path, "good", spec.format(_hex([VALID, 2, 2, 2, 2, 0])))
    x = np.zeros((1, 4, 4, 2), np.float32)
    with pytest.raises(lg.LiteGpuError,
                       match="Encountered unresolved custom op: "
                             "MaxPoolingWithArgmax2D"):
        _run_litegpu(good, [x], mediapipe_ops=False)
    short = _build(tmp_path, "short", spec.format(_hex([VALID, 2, 2])))
    with pytest.raises(lg.LiteGpuError,
                       match="MaxPoolingWithArgmax2D: custom options must "
                             "hold a TfLitePoolParams"):
        _run_litegpu(short, [x])


@pytest.mark.parametrize("backend", ["cl", "vk"])
def test_gpu_claims_them_unregistered(tmp_path, backend):
    """The GPU delegate takes the placeholder of an unregistered op: the
    model runs whole on the GPU without the CPU kernels, and matches the
    CPU kernels' output."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 4, 4, 3)).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, (5, 2, 2, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (5,)).astype(np.float32)
    model = _build(tmp_path, "selfie_like",
                   "tensor x FLOAT32 1,4,4,3\n"
                   f"tensor w FLOAT32 5,2,2,3 values={_floats(w)}\n"
                   f"tensor b FLOAT32 5 values={_floats(b)}\n"
                   "tensor y FLOAT32 1,8,8,5\n"
                   "custom Convolution2DTransposeBias 1 in=x,w,b out=y "
                   f"options=hex:{_hex([SAME, 2, 2])}\n"
                   "inputs x\noutputs y\n")
    cpu = _run_litegpu(model, [x])[0]
    lib = lg.load_library()
    with lg.GpuDelegate(lib, backend) as gpu:
        got = _run_litegpu(model, [x], mediapipe_ops=False,
                           delegates=(gpu.pointer,))[0]
    np.testing.assert_allclose(got, cpu, rtol=1e-5, atol=1e-5)
