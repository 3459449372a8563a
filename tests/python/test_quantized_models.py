"""Quantized models end to end in litegpu against LiteRT, bit for bit.

hello_world_int8.tflite (tflite-micro: three INT8 FULLY_CONNECTED layers,
version 4, int32 biases, RELU on the first two) runs for every one of the
256 int8 inputs, one at a time at the model's shape [1, 1] and as one batch
of 256 after resizing, single- and multi-threaded; every output must equal
LiteRT's, with its reference kernels (BUILTIN_REF) and with its default
ones (AUTO: XNNPACK), which agree. (LiteRT's optimized builtin kernels
without XNNPACK, BUILTIN_WITHOUT_DEFAULT_DELEGATES, round the output
rescale twice through a fixed-point multiplier and differ on 21 of the 256
inputs; litegpu follows the reference.) The INT8 FULLY_CONNECTED cases below cover what the model does not:
per-channel weights, non-zero weight zero points, RELU6 and RELU_N1_TO_1,
no bias, batches.

person_detect.tflite (tflite-micro's int8 MobileNet: INT8 CONV_2D,
DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, RESHAPE and SOFTMAX) scores person.bmp
and no_person.bmp (the BMP bytes as int8, rows top-down, as tflite-micro's
test data) exactly as LiteRT does, and the scores say person for the first
and no person for the second. INT8 SOFTMAX cases cover depths, betas, input scales and the
differences below TFLite's diff_min.

The models come from LITEGPU_SHARED_DIR (default: tests/shared) under
models/tflite-micro/; the library from LITEGPU_BUILD_DIR.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402
from op_harness import (Const, Input, Int4Const, OpCase,  # noqa: E402
                        Output, build_model, check_case, check_rejected)

try:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
except ImportError:  # the fallback package setup.sh may install instead
    from tflite_runtime.interpreter import Interpreter, OpResolverType


def shared_dir():
    env = os.environ.get("LITEGPU_SHARED_DIR")
    return Path(env) if env else lg.REPO_ROOT / "tests" / "shared"


HELLO_INT8 = shared_dir() / "models" / "tflite-micro" / "hello_world_int8.tflite"
ALL_INT8 = np.arange(-128, 128, dtype=np.int8)


def litert_outputs(resolver, batch):
    interp = Interpreter(model_path=str(HELLO_INT8),
                         experimental_op_resolver_type=resolver)
    index = interp.get_input_details()[0]["index"]
    out_index = interp.get_output_details()[0]["index"]
    if batch:
        interp.resize_tensor_input(index, [256, 1])
        interp.allocate_tensors()
        interp.set_tensor(index, ALL_INT8.reshape(256, 1))
        interp.invoke()
        return interp.get_tensor(out_index).reshape(-1)
    interp.allocate_tensors()
    outs = []
    for v in ALL_INT8:
        interp.set_tensor(index, np.array([[v]], np.int8))
        interp.invoke()
        outs.append(interp.get_tensor(out_index).reshape(-1)[0])
    return np.array(outs, np.int8)


def litegpu_outputs(threads, batch):
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(HELLO_INT8)) as model, \
            lg.Interpreter(lib, model, num_threads=threads) as interp:
        if batch:
            interp.resize_input(0, [256, 1])
            interp.allocate_tensors()
            interp.input(0).copy_from(ALL_INT8.reshape(256, 1))
            interp.invoke()
            return interp.output(0).to_numpy().reshape(-1)
        interp.allocate_tensors()
        outs = []
        for v in ALL_INT8:
            interp.input(0).copy_from(np.array([[v]], np.int8))
            interp.invoke()
            outs.append(interp.output(0).to_numpy().reshape(-1)[0])
        return np.array(outs, np.int8)


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_hello_world_int8_bit_exact(threads, batch):
    assert HELLO_INT8.is_file(), f"{HELLO_INT8} is missing"
    got = litegpu_outputs(threads, batch)
    for resolver in (OpResolverType.BUILTIN_REF, OpResolverType.AUTO):
        want = litert_outputs(resolver, batch)
        assert got.dtype == np.int8 and want.dtype == np.int8
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, (
            f"{bad.size} of 256 outputs differ from LiteRT ({resolver}); "
            f"first at input {ALL_INT8[bad[0]]}: got {got[bad[0]]}, "
            f"want {want[bad[0]]}")
    # The model's outputs are not one constant (the test can fail).
    assert len(set(got.tolist())) > 10


def int8_fc_case(rng, batch, depth, units, weights_q, act, bias=True,
                 in_q=(0.05, -3), out_q=(0.11, 5)):
    x = rng.integers(-128, 128, (batch, depth), dtype=np.int8)
    w = rng.integers(-127, 128, (units, depth), dtype=np.int8)
    inputs = [Input(x, quant=in_q), Const(w, quant=weights_q)]
    if bias:
        b = rng.integers(-3000, 3000, units, dtype=np.int32)
        w_scales = weights_q[0] if isinstance(weights_q[0], list) else \
            [weights_q[0]] * units
        inputs.append(Const(b, quant=([in_q[0] * s for s in w_scales],
                                      [0] * units, 0)
                            if isinstance(weights_q[0], list)
                            else (in_q[0] * weights_q[0], 0)))
    return OpCase(op="FULLY_CONNECTED", version=4 if bias else 6,
                  inputs=inputs,
                  params={"fused_activation_function": act},
                  outputs=[Output(np.int8, quant=out_q)],
                  rtol=0.0, atol=0.0)


@pytest.mark.parametrize("act", ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])
def test_int8_fully_connected_per_tensor(act):
    rng = np.random.default_rng(801)
    check_case(int8_fc_case(rng, 3, 37, 11, (0.02, 0), act))


def test_int8_fully_connected_weight_zero_point_and_no_bias():
    rng = np.random.default_rng(802)
    check_case(int8_fc_case(rng, 4, 16, 9, (0.03, 0), "NONE", bias=False))


def test_int8_fully_connected_per_channel():
    rng = np.random.default_rng(803)
    units = 7
    scales = rng.uniform(0.005, 0.05, units).astype(np.float32).tolist()
    check_case(int8_fc_case(rng, 2, 24, units, (scales, [0] * units, 0),
                            "RELU"))


def test_int8_fully_connected_large_multiplier():
    """input * weights scale above the output scale: a left shift."""
    rng = np.random.default_rng(804)
    check_case(int8_fc_case(rng, 5, 8, 6, (0.5, 0), "NONE",
                            in_q=(0.5, 10), out_q=(0.01, -7)))


def test_int8_fully_connected_threaded():
    """600 x 900 weights: above the threading threshold, so 2 threads split
    the output channels (in blocks of 16) of each batch row."""
    rng = np.random.default_rng(805)
    units = 900
    scales = rng.uniform(0.001, 0.01, units).astype(np.float32).tolist()
    check_case(int8_fc_case(rng, 2, 600, units, (scales, [0] * units, 0),
                            "RELU", out_q=(0.5, -3)))


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("bias", [None, np.int64])
@pytest.mark.parametrize("act", ["NONE", "RELU6"])
def test_int16x8_fully_connected(per_channel, bias, act):
    """16x8 FULLY_CONNECTED: INT16 input and output (zero points 0), INT8
    weights per tensor or per channel, INT64 bias or none; TFLite's
    reference sums in int64 and rounds once in double."""
    rng = np.random.default_rng(810 + per_channel)
    batch, depth, units = 3, 29, 6
    in_s, out_s = 2.7e-4, 9.1e-4
    x = rng.integers(-32768, 32768, (batch, depth), dtype=np.int16)
    x.reshape(-1)[:2] = [-32768, 32767]
    w = rng.integers(-127, 128, (units, depth), dtype=np.int8)
    scales = (rng.uniform(0.005, 0.05, units).astype(np.float32).tolist()
              if per_channel else [0.02] * units)
    w_q = (scales, [0] * units, 0) if per_channel else (0.02, 0)
    inputs = [Input(x, quant=(in_s, 0)), Const(w, quant=w_q)]
    if bias is not None:
        b = rng.integers(-2_000_000, 2_000_000, units).astype(bias)
        inputs.append(Const(b, quant=([in_s * v for v in scales],
                                      [0] * units, 0)))
    check_case(OpCase(op="FULLY_CONNECTED", version=7,
                      inputs=inputs,
                      params={"fused_activation_function": act},
                      outputs=[Output(np.int16, quant=(out_s, 0))],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("asymmetric", [False, True])
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("bias,act", [(True, "NONE"), (False, "RELU")])
def test_hybrid_fully_connected(asymmetric, per_channel, bias, act):
    """Dynamic-range FULLY_CONNECTED (float input, INT8 weights): TFLite's
    on-the-fly input quantization per batch row (symmetric, or asymmetric
    with asymmetric_quantize_inputs), the int32 dot products and their
    float rescale, bit for bit with LiteRT's reference; one all-zero
    row."""
    rng = np.random.default_rng(820 + 2 * asymmetric + per_channel)
    batch, depth, units = 4, 37, 9
    x = rng.normal(0.0, 2.0, (batch, depth)).astype(np.float32)
    x[2] = 0.0
    x[1] += 1.5  # a row away from zero: the asymmetric zero point moves
    w = rng.integers(-127, 128, (units, depth), dtype=np.int8)
    w_q = ((rng.uniform(0.001, 0.02, units).astype(np.float32).tolist(),
            [0] * units, 0) if per_channel else (0.013, 0))
    inputs = [Input(x), Const(w, quant=w_q)]
    if bias:
        inputs.append(Const(rng.normal(0.0, 1.0, units).astype(np.float32)))
    check_case(OpCase(op="FULLY_CONNECTED", version=9 if asymmetric else 3,
                      inputs=inputs,
                      params={"fused_activation_function": act,
                              "asymmetric_quantize_inputs": asymmetric},
                      outputs=[np.float32], rtol=0.0, atol=0.0))


# INT4 weights: (input type, output type, FULLY_CONNECTED version)
INT4_FC_KINDS = {"int8": (np.int8, np.int8, 10),
                 "int16": (np.int16, np.int16, 13),
                 "hybrid": (np.float32, np.float32, 10)}


def int4_fc_case(kind, per_channel, weights=None, seed=830):
    """FULLY_CONNECTED with INT4 weights holding every value in [-8, 7]:
    depth 37 x 5 units, an odd count, leaves the last byte half used."""
    rng = np.random.default_rng(seed)
    in_t, out_t, version = INT4_FC_KINDS[kind]
    batch, depth, units = 3, 37, 5
    w = rng.integers(-8, 8, (units, depth))
    w.reshape(-1)[:16] = np.arange(-8, 8)
    scales = (rng.uniform(0.01, 0.2, units).astype(np.float32).tolist()
              if per_channel else [0.09] * units)
    w_q = (scales, [0] * units, 0) if per_channel else (0.09, 0)
    if in_t == np.float32:
        x = rng.normal(0.0, 2.0, (batch, depth)).astype(np.float32)
        in_q = out_q = None
        b = rng.normal(0.0, 1.0, units).astype(np.float32)
        b_q = None
    else:
        info = np.iinfo(in_t)
        x = rng.integers(info.min, info.max + 1, (batch, depth), dtype=in_t)
        in_s = 0.05 if in_t == np.int8 else 2.7e-4
        in_q = (in_s, -3 if in_t == np.int8 else 0)
        out_q = (0.6, 4) if in_t == np.int8 else (2.1e-3, 0)
        b = rng.integers(-3000, 3000, units).astype(
            np.int32 if in_t == np.int8 else np.int64)
        b_q = ([in_s * v for v in scales], [0] * units, 0)
    return OpCase(op="FULLY_CONNECTED", version=version,
                  inputs=[Input(x, quant=in_q),
                          weights or Int4Const(w, quant=w_q),
                          Const(b, quant=b_q)],
                  params={"fused_activation_function": "NONE"},
                  outputs=[Output(out_t, quant=out_q)],
                  rtol=0.0, atol=0.0)


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("kind", sorted(INT4_FC_KINDS))
def test_int4_weights_fully_connected(kind, per_channel):
    """INT4 weights (two a byte, low nibble first) with INT8 (version 10),
    16x8 (version 13) and float (hybrid) inputs, per tensor and per
    channel: unpacked once in Prepare, bit for bit with LiteRT's
    reference, which unpacks them the same way."""
    got = check_case(int4_fc_case(kind, per_channel))
    assert len(np.unique(got[0])) > 5


def test_int4_weights_zero_point_rejected():
    """INT4 weights are symmetric: LiteRT and litegpu refuse a zero point."""
    w = Int4Const(np.arange(-8, 7).reshape(3, 5), quant=(0.1, 2))
    case = int4_fc_case("int8", False, seed=831)
    case.inputs[1] = w
    case.inputs[0] = Input(np.zeros((2, 5), np.int8), quant=(0.05, 0))
    case.inputs[2] = Const(np.zeros(3, np.int32), quant=(0.005, 0))
    case.outputs = [Output(np.int8, shape=(2, 3), quant=(0.6, 4))]
    check_rejected(case, match=r"FULLY_CONNECTED: INT4 weights have zero "
                               r"point 2 at 0: INT4 weights are symmetric",
                   litert_accepts=False)


def test_int4_weights_wrong_byte_count_rejected():
    """15 INT4 values need 8 bytes: 7 or 9 fail the model's loading."""
    for data in (bytes(7), bytes(9)):
        w = Int4Const(np.zeros((3, 5), np.int8), quant=(0.1, 0), data=data)
        case = OpCase(op="FULLY_CONNECTED", version=10,
                      inputs=[Input(np.zeros((2, 5), np.int8),
                                    quant=(0.05, 0)), w],
                      outputs=[Output(np.int8, shape=(2, 3),
                                      quant=(0.2, 0))])
        check_rejected(case, match=rf"{len(data)} bytes")


@pytest.mark.parametrize("op,kind", [("CONV_2D", "int8"),
                                     ("CONV_2D", "hybrid"),
                                     ("DEPTHWISE_CONV_2D", "int8")])
def test_int4_filter_convolutions(op, kind):
    """INT4 filters (version 7) of CONV_2D and DEPTHWISE_CONV_2D with INT8
    input, and of hybrid CONV_2D: per-channel, an odd number of values,
    every value in [-8, 7]; bit for bit with LiteRT."""
    rng = np.random.default_rng(840 + len(op) + len(kind))
    depthwise = op == "DEPTHWISE_CONV_2D"
    in_c, out_c = 3, 3 if depthwise else 5
    filt = (1, 3, 3, out_c) if depthwise else (out_c, 3, 3, in_c)
    w = rng.integers(-8, 8, filt)
    w.reshape(-1)[:16] = np.arange(-8, 8)
    scales = rng.uniform(0.01, 0.2, out_c).astype(np.float32).tolist()
    w_q = (scales, [0] * out_c, 3 if depthwise else 0)
    params = {"padding": "SAME", "stride_w": 1, "stride_h": 2,
              "fused_activation_function": "NONE"}
    if depthwise:
        params["depth_multiplier"] = 1
    if kind == "hybrid":
        x = rng.normal(0.3, 2.0, (1, 6, 7, in_c)).astype(np.float32)
        b = Const(rng.normal(0.0, 1.0, out_c).astype(np.float32))
        x_q = out = None
        out = Output(np.float32)
    else:
        x = rng.integers(-128, 128, (1, 6, 7, in_c), dtype=np.int8)
        x_q = (0.04, -2)
        b = Const(rng.integers(-3000, 3000, out_c).astype(np.int32),
                  quant=([0.04 * v for v in scales], [0] * out_c, 0))
        out = Output(np.int8, quant=(0.3, 1))
    # LiteRT's reference resolver stops at DEPTHWISE_CONV_2D version 6:
    # its builtin kernel there (the same integer arithmetic).
    got = check_case(OpCase(op=op, version=7,
                            inputs=[Input(x, quant=x_q),
                                    Int4Const(w, quant=w_q), b],
                            params=params, outputs=[out],
                            rtol=0.0, atol=0.0,
                            litert_kernels="BUILTIN" if depthwise
                            else "BUILTIN_REF"))
    assert len(np.unique(got[0])) > 5


def test_int4_filter_int16_input_rejected():
    """16x8 with an INT4 filter is no TFLite signature: refused by name."""
    w = Int4Const(np.zeros((2, 1, 1, 3), np.int8), quant=(0.1, 0))
    check_rejected(OpCase(op="CONV_2D", version=7,
                          inputs=[Input(np.zeros((1, 2, 2, 3), np.int16),
                                        quant=(0.01, 0)), w],
                          params={"padding": "VALID"},
                          outputs=[Output(np.int16, shape=(1, 2, 2, 2),
                                          quant=(0.02, 0))]),
                   match=r"CONV_2D: INT16 input with filter INT4")


def test_int4_weights_must_be_constant(tmp_path):
    """INT4 weights fed as a graph input: refused in Prepare, by name."""
    spec = tmp_path / "case.spec"
    spec.write_text("tensor x INT8 2,5 quant=0.05:0@0\n"
                    "tensor w INT4 3,5 quant=0.1:0@0\n"
                    "tensor y INT8 2,3 quant=0.2:0@0\n"
                    "op FULLY_CONNECTED 10 in=x,w out=y\n"
                    "inputs x,w\noutputs y\n")
    build_model(spec, tmp_path / "model.tflite")
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(tmp_path / "model.tflite")) as model:
        with pytest.raises(lg.LiteGpuError,
                           match=r"FULLY_CONNECTED: INT4 weights must be a "
                                 r"model constant"):
            with lg.Interpreter(lib, model) as interp:
                interp.allocate_tensors()


def test_hybrid_fully_connected_zero_input():
    """An all-zero input skips the product: activation(bias) exactly."""
    w = np.ones((3, 5), np.int8)
    b = np.array([-1.5, 0.25, 2.0], np.float32)
    check_case(OpCase(op="FULLY_CONNECTED", version=3,
                      inputs=[Input(np.zeros((2, 5), np.float32)),
                              Const(w, quant=(0.1, 0)), Const(b)],
                      params={"fused_activation_function": "RELU"},
                      outputs=[np.float32], rtol=0.0, atol=0.0))


PERSON = shared_dir() / "models" / "tflite-micro" / "person_detect.tflite"


def read_bmp_gray(path):
    """An 8-bit BMP's pixels as uint8 gray [height, width], rows top-down
    (palette indices mapped through the palette's green channel)."""
    data = path.read_bytes()
    offset = int.from_bytes(data[10:14], "little")
    header = int.from_bytes(data[14:18], "little")
    colors = int.from_bytes(data[46:50], "little") or 256
    width = int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    bits = int.from_bytes(data[28:30], "little")
    assert bits == 8, f"{path}: {bits} bits per pixel"
    stride = (width + 3) // 4 * 4
    rows = np.frombuffer(data, np.uint8, abs(height) * stride, offset)
    image = rows.reshape(abs(height), stride)[:, :width]
    palette = np.frombuffer(data, np.uint8, colors * 4, 14 + header)
    image = palette.reshape(colors, 4)[:, 1][image]
    return image[::-1] if height > 0 else image


def litert_loadable_person(tmp_path):
    """person_detect with its bias tensors' quantized_dimension set to 0:
    the model ships 1-D per-channel biases marked dimension 3, which LiteRT
    refuses ("quantized_dimension must be in range [0, 1). Was 3.") and
    tflite-micro ignores (biases are read by index); litegpu's kernels do
    not read bias quantization either. The patched copy is the same model
    for LiteRT."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema
    model = schema.ModelT.InitFromPackedBuf(PERSON.read_bytes(), 0)
    patched = 0
    for tensor in model.subgraphs[0].tensors:
        q = tensor.quantization
        if q is not None and len(tensor.shape) == 1 \
                and q.quantizedDimension != 0:
            q.quantizedDimension = 0
            patched += 1
    assert patched > 0  # the model still has what the patch is for
    builder = flatbuffers.Builder(0)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    path = tmp_path / "person_detect_litert.tflite"
    path.write_bytes(bytes(builder.Output()))
    return path


def run_person(image, litert_model=None):
    # tflite-micro's test images are the BMP bytes taken as int8 (its
    # generator casts without recentering); with pixel - 128 instead the
    # model calls person.bmp "no person" (4 against -4), in LiteRT too.
    x = np.ascontiguousarray(image).view(np.int8).reshape(1, 96, 96, 1)
    if litert_model is not None:
        interp = Interpreter(
            model_path=str(litert_model),
            experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        interp.allocate_tensors()
        interp.set_tensor(interp.get_input_details()[0]["index"], x)
        interp.invoke()
        return interp.get_tensor(interp.get_output_details()[0]["index"])
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(PERSON)) as model, \
            lg.Interpreter(lib, model, num_threads=2) as interp:
        interp.allocate_tensors()
        interp.input(0).copy_from(x)
        interp.invoke()
        return interp.output(0).to_numpy()


@pytest.mark.parametrize("bmp,person", [("person.bmp", True),
                                        ("no_person.bmp", False)])
def test_person_detect_bit_exact(bmp, person, tmp_path):
    image = read_bmp_gray(PERSON.parent / bmp)
    assert image.shape == (96, 96)
    got = run_person(image)
    want = run_person(image, litert_loadable_person(tmp_path))
    np.testing.assert_array_equal(got, want)
    # Output [no person, person] scores.
    no_person_score, person_score = (int(v) for v in got.reshape(-1))
    assert (person_score > no_person_score) == person, got


@pytest.mark.parametrize("shape,in_q,beta", [
    ((1, 2), (0.1, 0), 1.0),
    ((3, 10), (0.0625, -17), 1.0),
    ((2, 5, 7), (0.5, 30), 0.5),          # many differences below diff_min
    ((1, 1000), (0.02, 3), 1.0),
    ((4, 1), (0.3, 0), 2.0),
])
def test_softmax_int8(shape, in_q, beta):
    rng = np.random.default_rng(1300 + shape[-1])
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    x.reshape(-1)[:2] = [127, -128]
    check_case(OpCase(op="SOFTMAX", version=2, inputs=[Input(x, quant=in_q)],
                      params={"beta": beta},
                      outputs=[Output(np.int8, quant=(1 / 256, -128))],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("shape,in_q", [
    ((1, 2), (0.1, 0)),
    ((3, 10), (0.0625, -17)),
    ((2, 5, 7), (0.5, 30)),       # many differences below diff_min
    ((1, 1000), (0.02, 3)),
    ((4, 1), (0.3, 0)),
    ((6, 33), (0.004, -128)),     # every difference counts
    ((2, 300), (0.25, 5)),        # many outputs at -128
])
def test_log_softmax_int8(shape, in_q):
    """INT8 LOG_SOFTMAX (version 2), bit for bit with LiteRT's reference:
    output scale 16/256 and zero point 127, the log of the Q12 sum of exps
    in gemmlowp's fixed point."""
    rng = np.random.default_rng(1500 + shape[-1])
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    x.reshape(-1)[:2] = [127, -128]
    check_case(OpCase(op="LOG_SOFTMAX", version=2,
                      inputs=[Input(x, quant=in_q)],
                      outputs=[Output(np.int8, quant=(16 / 256, 127))],
                      rtol=0.0, atol=0.0))


@pytest.mark.parametrize("shape,in_scale,beta", [
    ((1, 2), 1e-3, 1.0),
    ((3, 10), 2.5e-4, 1.0),
    ((2, 5, 7), 3e-3, 0.5),       # differences beyond the table's -10
    ((1, 1000), 1e-4, 1.0),
    ((4, 1), 5e-4, 2.0),
])
def test_softmax_int16(shape, in_scale, beta):
    """INT16 SOFTMAX (version 3): TFLite's exp and 1 / (1 + x) tables with
    interpolation, bit for bit with LiteRT's reference; output Q0.15."""
    rng = np.random.default_rng(1400 + shape[-1])
    x = rng.integers(-32768, 32768, shape, dtype=np.int16)
    x.reshape(-1)[:2] = [32767, -32768]
    check_case(OpCase(op="SOFTMAX", version=3,
                      inputs=[Input(x, quant=(in_scale, 0))],
                      params={"beta": beta},
                      outputs=[Output(np.int16, quant=(1 / 32768, 0))],
                      rtol=0.0, atol=0.0))
