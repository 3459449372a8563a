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

MediaPipe's landmark ops (Landmarks2TransformMatrix, TransformTensorBilinear,
TransformLandmarks; version 2, CPU only) are checked against the numpy
references of mediapipe_landmarks_ref.py, written from MediaPipe's
definitions and themselves checked here against hand-derived values; then
their error paths (litegpu's messages). test_corpus.py runs them inside
face_landmark_with_attention.
"""

import struct

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from flatbuffers import flexbuffers

from litegpu import capi as lg
import mediapipe_landmarks_ref as mpref
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


# ---- The landmark ops (version 2; CPU only) ------------------------------
#
# Expected values: the numpy references of mediapipe_landmarks_ref.py
# (MediaPipe's definitions in float64), themselves checked against values
# derived by hand (an upright box, a 90-degree rotation, identity,
# translation, a half-size crop).


def _flex(options, typed=True):
    """FlexBuffers custom options (bytes pass through); non-empty lists as
    typed int vectors (as MediaPipe's models hold subset_idxs) or, with
    typed=False, untyped vectors."""
    if isinstance(options, bytes):
        return options
    b = flexbuffers.Builder()
    with b.Map():
        for key, value in options.items():
            b.Key(key)
            if isinstance(value, list):
                if typed and value:
                    b.TypedVectorFromElements(value)
                else:
                    b.VectorFromElements(value)
            elif isinstance(value, str):
                b.String(value)
            elif isinstance(value, float):
                b.Float(value)
            else:
                b.Int(value)
    return bytes(b.Finish())


def _matrix_model(tmp_path, n, options, name="l2m", version=2, dims=3,
                  raw=None):
    blob = _flex(options) if raw is None else raw
    return _build(tmp_path, name,
                  f"tensor l FLOAT32 1,{n},{dims}\ntensor m FLOAT32 1,4,4\n"
                  f"custom Landmarks2TransformMatrix {version} in=l out=m "
                  f"options=hex:{blob.hex()}\ninputs l\noutputs m\n")


def _bilinear_model(tmp_path, in_shape, options, name="ttb", matrix="1,4,4",
                    raw=None, in_type="FLOAT32"):
    blob = _flex(options) if raw is None else raw
    out = _shape((1, options.get("output_height", 1),
                  options.get("output_width", 1), in_shape[-1]))
    return _build(tmp_path, name,
                  f"tensor x {in_type} {_shape(in_shape)}\n"
                  f"tensor m FLOAT32 {matrix}\ntensor y FLOAT32 {out}\n"
                  "custom TransformTensorBilinear 2 in=x,m out=y "
                  f"options=hex:{blob.hex()}\ninputs x,m\noutputs y\n")


def _landmarks_model(tmp_path, shape, name="tlm", matrix="1,4,4"):
    return _build(tmp_path, name,
                  f"tensor l FLOAT32 {_shape(shape)}\n"
                  f"tensor m FLOAT32 {matrix}\n"
                  f"tensor y FLOAT32 {_shape(shape)}\n"
                  "custom TransformLandmarks 2 in=l,m out=y\n"
                  "inputs l,m\noutputs y\n")


def _box_landmarks(points, n=6):
    """[1, n, 3] landmarks: the given (x, y) first, zeros after; z = 7."""
    lm = np.zeros((1, n, 3), np.float32)
    lm[0, :, 2] = 7
    lm[0, :len(points), :2] = points
    return lm


# Two hand-derived cases: (landmarks, options, matrix).
#  * Rotation landmarks (0, 0) -> (1, 0): no rotation. The subset spans
#    x in [2, 6], y in [4, 8]: centre (4, 6), size 4 x 4, a 4 x 4 crop at
#    scale 1 maps pixel (0, 0) to (2, 4): a pure translation.
#  * Rotation landmarks (0, 0) -> (0, 1): 90 degrees. The subset is the
#    rectangle x in [0, 2], y in [0, 4]; in the frame rotated back it is 4
#    wide and 2 high, centre (1, 2). A 4 x 2 crop at scale 1: M's 2x2 block
#    is the rotation [[0, -1], [1, 0]] and its translation (1, 2) -
#    R (2, 1) = (2, 0): pixel (0, 0) -> (2, 0), pixel (4, 2) -> (0, 4).
L2M_HAND = [
    (_box_landmarks([(0, 0), (1, 0), (2, 4), (6, 8), (3, 5), (5, 7)]),
     dict(subset_idxs=[2, 3, 4, 5], left_rotation_idx=0,
          right_rotation_idx=1, target_rotation_radians=0.0,
          output_height=4, output_width=4, scale_x=1.0, scale_y=1.0),
     [[1, 0, 0, 2], [0, 1, 0, 4], [0, 0, 1, 0], [0, 0, 0, 1]]),
    (_box_landmarks([(0, 0), (0, 1), (0, 0), (2, 0), (2, 4), (0, 4)]),
     dict(subset_idxs=[2, 3, 4, 5], left_rotation_idx=0,
          right_rotation_idx=1, target_rotation_radians=0.0,
          output_height=2, output_width=4, scale_x=1.0, scale_y=1.0),
     [[0, -1, 0, 2], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),
]


@pytest.mark.parametrize("case", range(len(L2M_HAND)))
def test_landmarks_to_matrix_hand_derived(tmp_path, case):
    lm, options, want = L2M_HAND[case]
    want = np.array([want], np.float32)
    np.testing.assert_allclose(
        mpref.landmarks_to_transform_matrix(lm, options), want, atol=1e-6)
    got = _run_litegpu(_matrix_model(tmp_path, lm.shape[1], options), [lm])[0]
    assert got.shape == (1, 4, 4)
    np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("typed,target,count", [(True, 0.0, 12),
                                                (False, 0.4, 9)])
def test_landmarks_to_matrix_matches_reference(tmp_path, typed, target, count):
    """Random landmarks; the subset as a typed or untyped vector, an odd
    count (the last index pairs with itself), a target rotation."""
    rng = np.random.default_rng(count)
    n = 20
    lm = rng.uniform(0, 192, (1, n, 3)).astype(np.float32)
    options = dict(subset_idxs=[int(i) for i in rng.integers(0, n, count)],
                   left_rotation_idx=3, right_rotation_idx=11,
                   target_rotation_radians=target, output_height=16,
                   output_width=12, scale_x=1.5, scale_y=1.25)
    model = _matrix_model(tmp_path, n, options, raw=_flex(options, typed))
    got = _run_litegpu(model, [lm])[0]
    want = mpref.landmarks_to_transform_matrix(lm, options)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_transform_tensor_bilinear_hand_derived(tmp_path):
    """Identity: the input itself. Translation by (1, 0): the input shifted
    left, its last column 0 (the sample point lies past W - 1). Rotation by
    90 degrees with translation (W, 0): output[r, c] = input[c, W - 1 - r]
    (np.rot90). Scale 2: output pixel (c, r) samples (2c + 0.5, 2r + 0.5),
    the mean of a 2 x 2 block."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (1, 6, 6, 3)).astype(np.float32)
    cases = [
        (np.eye(4), 6, x[0]),
        (mpref.translation(1, 0), 6,
         np.concatenate([x[0, :, 1:], np.zeros((6, 1, 3))], axis=1)),
        (mpref.translation(6, 0) @ mpref.rotation(np.pi / 2), 6,
         np.rot90(x[0], 1, axes=(0, 1))),
        (mpref.scaling(2, 2), 3,
         x[0].reshape(3, 2, 3, 2, 3).mean(axis=(1, 3))),
    ]
    model = _bilinear_model(tmp_path, x.shape, dict(output_height=6,
                                                    output_width=6))
    half = _bilinear_model(tmp_path, x.shape, dict(output_height=3,
                                                   output_width=3),
                           name="half")
    for matrix, size, want in cases:
        m = np.round(matrix, 12).astype(np.float32)[None]
        ref = mpref.transform_tensor_bilinear(x, m, size, size)
        np.testing.assert_allclose(ref[0], want, atol=1e-6)
        got = _run_litegpu(model if size == 6 else half, [x, m])[0]
        np.testing.assert_allclose(got[0], want, atol=1e-6)


def test_transform_tensor_bilinear_matches_reference(tmp_path):
    """A rotated, scaled crop of a feature map (as the model's: 16 x 16 of
    a 48 x 48 map, here smaller), partly outside the input."""
    rng = np.random.default_rng(8)
    x = rng.uniform(-1, 1, (1, 24, 20, 5)).astype(np.float32)
    m = (mpref.translation(3.3, -2.1) @ mpref.rotation(0.7) @
         mpref.scaling(1.6, 1.3)).astype(np.float32)[None]
    model = _bilinear_model(tmp_path, x.shape, dict(output_height=14,
                                                    output_width=16))
    got = _run_litegpu(model, [x, m])[0]
    want = mpref.transform_tensor_bilinear(x, m, 14, 16)
    assert got.shape == (1, 14, 16, 5)
    assert 0 < np.count_nonzero(want[..., 0] == 0) < 14 * 16
    np.testing.assert_allclose(got, want, atol=2e-5)


@pytest.mark.parametrize("dims", [2, 3])
def test_transform_landmarks(tmp_path, dims):
    """A 90-degree rotation plus translation (4, 1) by hand: (x, y) ->
    (4 - y, 1 + x), z kept; then a random affine matrix against the
    reference."""
    lm = np.array([[[1, 2, 9], [0, 0, -3], [5, -1, 0.5]]],
                  np.float32)[..., :dims]
    rot = (mpref.translation(4, 1) @ mpref.rotation(np.pi / 2))
    rot = np.round(rot, 12).astype(np.float32)[None]
    want = lm.copy()
    want[..., 0], want[..., 1] = 4 - lm[..., 1], 1 + lm[..., 0]
    model = _landmarks_model(tmp_path, lm.shape)
    np.testing.assert_allclose(mpref.transform_landmarks(lm, rot), want,
                               atol=1e-6)
    np.testing.assert_allclose(_run_litegpu(model, [lm, rot])[0], want,
                               atol=1e-6)
    rng = np.random.default_rng(dims)
    lm = rng.uniform(-5, 5, (1, 40, dims)).astype(np.float32)
    m = rng.uniform(-2, 2, (1, 4, 4)).astype(np.float32)
    got = _run_litegpu(_landmarks_model(tmp_path, lm.shape, "tlm40"),
                       [lm, m])[0]
    np.testing.assert_allclose(got, mpref.transform_landmarks(lm, m),
                               rtol=1e-5, atol=1e-5)


_L2M_OK = dict(subset_idxs=[0, 1, 2], left_rotation_idx=0,
               right_rotation_idx=1, output_height=4, output_width=4,
               scale_x=1.0, scale_y=1.0)


def _without(key):
    return {k: v for k, v in _L2M_OK.items() if k != key}


L2M_ERRORS = [
    # (options or raw bytes, landmarks count, dims, message)
    (_without("subset_idxs"), 4, 3, "custom options: subset_idxs is missing"),
    (dict(_L2M_OK, subset_idxs=[]), 4, 3,
     "custom options: subset_idxs is empty"),
    (dict(_L2M_OK, subset_idxs=[0, 5, 1]), 4, 3,
     "subset_idxs[1] = 5 is out of range for 4 landmarks"),
    (dict(_L2M_OK, subset_idxs=[0, -1]), 4, 3,
     "subset_idxs[1] = -1 is out of range"),
    (dict(_L2M_OK, right_rotation_idx=4), 4, 3,
     "right_rotation_idx = 4 is out of range for 4 landmarks"),
    (_without("output_width"), 4, 3,
     "custom options must set output_height and output_width"),
    (dict(_L2M_OK, output_height=0), 4, 3, "output size 0 x 4"),
    (_without("scale_y"), 4, 3, "scale_x (1) and scale_y (0) must be "
     "positive"),
    (dict(_L2M_OK, scale_x="big"), 4, 3,
     "custom options: FlexBuffers: 'scale_x' has type 5, not a number"),
    (bytes(flexbuffers.Dumps(dict(_L2M_OK, subset_idxs=[0, 1.5]))), 4, 3,
     "custom options: FlexBuffers: element 1 of 'subset_idxs' has type 3, "
     "not an integer"),
    (_flex(_L2M_OK)[:-20], 4, 3, "custom options: FlexBuffers: "),
    (b"", 4, 3, "custom options: FlexBuffers: 0 bytes is too short"),
    (_L2M_OK, 4, 2, "the landmarks must be [1, N, 3], not [1,4,2]"),
]


@pytest.mark.parametrize("options,n,dims,message", L2M_ERRORS)
def test_landmarks_to_matrix_errors(tmp_path, options, n, dims, message):
    model = _matrix_model(tmp_path, n, None, dims=dims,
                          raw=_flex(options))
    with pytest.raises(lg.LiteGpuError) as info:
        _run_litegpu(model, [np.zeros((1, n, dims), np.float32)])
    assert f"Landmarks2TransformMatrix: {message}" in str(info.value)


TTB_ERRORS = [
    # (options, input shape, matrix shape, input type, message)
    (dict(output_height=4), (1, 6, 6, 2), "1,4,4", "FLOAT32",
     "custom options must set output_height and output_width"),
    (dict(output_height=4, output_width=-2), (1, 6, 6, 2), "1,4,4",
     "FLOAT32", "output size 4 x -2 (height x width) is not positive"),
    (b"\x00\x01", (1, 6, 6, 2), "1,4,4", "FLOAT32",
     "custom options: FlexBuffers:"),
    (dict(output_height=4, output_width=4), (1, 6, 6, 2), "1,3,4",
     "FLOAT32", "the matrix must be [1, 4, 4], not [1,3,4]"),
    (dict(output_height=4, output_width=4), (2, 6, 6, 2), "1,4,4",
     "FLOAT32", "the input must be [1, H, W, C], not [2,6,6,2]"),
    (dict(output_height=4, output_width=4), (1, 6, 6, 2), "1,4,4", "INT32",
     "the input has type INT32 (expected FLOAT32)"),
]


@pytest.mark.parametrize("options,shape,matrix,in_type,message", TTB_ERRORS)
def test_transform_tensor_bilinear_errors(tmp_path, options, shape, matrix,
                                          in_type, message):
    model = _bilinear_model(tmp_path, shape, {}, matrix=matrix,
                            raw=_flex(options), in_type=in_type)
    x = np.zeros(shape, np.int32 if in_type == "INT32" else np.float32)
    m = np.zeros([int(d) for d in matrix.split(",")], np.float32)
    with pytest.raises(lg.LiteGpuError) as info:
        _run_litegpu(model, [x, m])
    assert f"TransformTensorBilinear: {message}" in str(info.value)


@pytest.mark.parametrize("shape,matrix,message", [
    ((1, 5, 4), "1,4,4", "the landmarks must be [1, N, 2] or [1, N, 3], not "
     "[1,5,4]"),
    ((1, 5, 2), "16", "the matrix must be [1, 4, 4], not [16]"),
])
def test_transform_landmarks_errors(tmp_path, shape, matrix, message):
    model = _landmarks_model(tmp_path, shape, matrix=matrix)
    m = np.zeros([int(d) for d in matrix.split(",")], np.float32)
    with pytest.raises(lg.LiteGpuError) as info:
        _run_litegpu(model, [np.zeros(shape, np.float32), m])
    assert f"TransformLandmarks: {message}" in str(info.value)


def test_landmark_ops_unregistered_or_version_1(tmp_path):
    """Without the registration the op is unresolved; version 1 (MediaPipe's
    older Landmarks2TransformMatrix, another layout and options) has no
    kernel either."""
    lm = np.zeros((1, 4, 3), np.float32)
    v2 = _matrix_model(tmp_path, 4, _L2M_OK)
    with pytest.raises(lg.LiteGpuError,
                       match="Encountered unresolved custom op: "
                             "Landmarks2TransformMatrix"):
        _run_litegpu(v2, [lm], mediapipe_ops=False)
    v1 = _matrix_model(tmp_path, 4, _L2M_OK, name="v1", version=1)
    with pytest.raises(lg.LiteGpuError,
                       match="Encountered unresolved custom op: "
                             "Landmarks2TransformMatrix"):
        _run_litegpu(v1, [lm])


# ---- fuzz seed ------------------------------------------------------------
#
# tests/fuzz/seeds/mediapipe_landmarks.tflite chains the three landmark ops
# (their FlexBuffers options included) for the model-loader and interpreter
# fuzzers (which register MediaPipe's ops); it is written by
#   PYTHONPATH=tests/python:python LITEGPU_BUILD_DIR=build/release \
#       build/venv/bin/python tests/python/test_mediapipe_ops.py

SEED = oh.REPO / "tests" / "fuzz" / "seeds" / "mediapipe_landmarks.tflite"
SEED_L2M = dict(subset_idxs=[1, 2, 3, 4, 5], left_rotation_idx=0,
                right_rotation_idx=3, target_rotation_radians=0.25,
                output_height=4, output_width=4, scale_x=1.5, scale_y=1.5)
SEED_TTB = dict(output_height=4, output_width=4)


def _seed_spec():
    return ("tensor l FLOAT32 1,6,3\ntensor m FLOAT32 1,4,4\n"
            "tensor x FLOAT32 1,8,8,2\ntensor c FLOAT32 1,4,4,2\n"
            "tensor p FLOAT32 1,5,2\ntensor q FLOAT32 1,5,2\n"
            "custom Landmarks2TransformMatrix 2 in=l out=m "
            f"options=hex:{_flex(SEED_L2M).hex()}\n"
            "custom TransformTensorBilinear 2 in=x,m out=c "
            f"options=hex:{_flex(SEED_TTB).hex()}\n"
            "custom TransformLandmarks 2 in=p,m out=q\n"
            "inputs l,x,p\noutputs m,c,q\n")


def test_fuzz_seed_is_current_and_runs(tmp_path):
    assert SEED.is_file(), f"{SEED} is missing: write the seed"
    model = _build(tmp_path, "seed", _seed_spec())
    assert model.read_bytes() == SEED.read_bytes()
    rng = np.random.default_rng(4)
    lm = rng.uniform(0, 8, (1, 6, 3)).astype(np.float32)
    x = rng.uniform(-1, 1, (1, 8, 8, 2)).astype(np.float32)
    p = rng.uniform(0, 4, (1, 5, 2)).astype(np.float32)
    m, c, q = _run_litegpu(SEED, [lm, x, p])
    np.testing.assert_allclose(
        m, mpref.landmarks_to_transform_matrix(lm, SEED_L2M), rtol=1e-5,
        atol=1e-5)
    np.testing.assert_allclose(c, mpref.transform_tensor_bilinear(x, m, 4, 4),
                               atol=1e-5)
    np.testing.assert_allclose(q, mpref.transform_landmarks(p, m), rtol=1e-5,
                               atol=1e-5)


if __name__ == "__main__":
    import shutil
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copyfile(_build(Path(tmp), "seed", _seed_spec()), SEED)
    print(SEED)
