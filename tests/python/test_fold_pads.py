"""PAD folding (runtime/fold_pads.c): a zero PAD of H and W in front of
VALID CONV_2D / DEPTHWISE_CONV_2D nodes leaves the execution plan when the
kernels can take its padding as explicit padding (SAME's, or shorter than
an undilated window); the convolutions read the PAD's input.

Each folding case is checked three ways: benchmark_model's op profile no
longer lists the PAD, the outputs equal bit for bit those of the same model
with the PAD's output also a graph output (never folded), and of the model
with SAME convolutions and no PAD where the padding is SAME's; and they are
within the conv tests' tolerance of LiteRT's reference kernels. Cases that
must not fold keep the PAD in the profile and still match LiteRT; resizes
that end the condition run the PAD again; a delegate is offered the
unfolded graph.
"""

import numpy as np
import pytest

import op_harness as oh

RNG = np.random.default_rng(15)


def f32(*shape, rng=RNG):
    return rng.standard_normal(shape).astype(np.float32)


def shape_word(shape):
    return ",".join(map(str, shape))


def conv_line(op, src, dst, filt, padding, stride, extra=""):
    line = (f"op {op} 1 in={src},{filt},b{filt} out={dst} padding={padding} "
            f"stride_w={stride} stride_h={stride}")
    if op == "DEPTHWISE_CONV_2D":
        line += " depth_multiplier=1"
    return f"{line} {extra}".rstrip()


def float_model(tmp_path, name, *, in_shape, pads, convs, pad_value=None,
                also_output=False, extra_reader=False, use_pad=True):
    """Writes x -> PAD (or PADV2 when pad_value is given) -> each conv of
    `convs` ((op, filter h, filter w, stride) tuples, all reading the PAD's
    output). use_pad=False writes the SAME-padded convolutions on x
    instead (with the same weights). Returns the model path."""
    weights_rng = np.random.default_rng(7)
    n, h, w, c = in_shape
    (top, bottom), (left, right) = pads[1], pads[2]
    padded = (n + sum(pads[0]), h + top + bottom, w + left + right,
              c + sum(pads[3]))
    lines = [f"tensor x FLOAT32 {shape_word(in_shape)}"]
    outputs = []
    src = "x"
    if use_pad:
        flat = ",".join(str(v) for pair in pads for v in pair)
        lines += [f"tensor p INT32 4,2 values={flat}",
                  f"tensor xp FLOAT32 {shape_word(padded)}"]
        if pad_value is None:
            lines.append("op PAD 1 in=x,p out=xp")
        else:
            lines += [f"tensor v FLOAT32 - values={pad_value}",
                      "op PADV2 1 in=x,p,v out=xp"]
        src = "xp"
    for i, (op, fh, fw, stride) in enumerate(convs):
        out_c = padded[3]
        if op == "CONV_2D":
            filt = (out_c, fh, fw, padded[3])
        else:
            filt = (1, fh, fw, out_c)
        for tname, arr in ((f"w{i}", f32(*filt, rng=weights_rng)),
                           (f"bw{i}", f32(out_c, rng=weights_rng))):
            (tmp_path / f"{name}_{tname}.bin").write_bytes(arr.tobytes())
            lines.append(f"tensor {tname} FLOAT32 {shape_word(arr.shape)} "
                         f"data={name}_{tname}.bin")
        lines.append(f"tensor y{i} FLOAT32 1,1,1,{out_c}")
        padding = "VALID" if use_pad else "SAME"
        lines.append(conv_line(op, src, f"y{i}", f"w{i}", padding, stride))
        outputs.append(f"y{i}")
    if extra_reader:
        lines += [f"tensor z FLOAT32 {shape_word(padded)}",
                  "op ADD 1 in=xp,xp out=z"]
        outputs.append("z")
    if also_output:
        outputs.append("xp")
    lines += ["inputs x", f"outputs {','.join(outputs)}"]
    spec = tmp_path / f"{name}.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = tmp_path / f"{name}.tflite"
    oh.build_model(spec, model)
    return model


def check_litert(model, inputs, atol=1e-4):
    got = oh.run_litegpu(model, inputs)
    want = oh.run_litert(model, inputs)
    for g, w_ in zip(got, want):
        oh.assert_close(g, w_, atol=atol)
    return got


SAME_1 = ((0, 0), (1, 1), (1, 1), (0, 0))

# Paddings equal to the convolutions' SAME padding (also checked against a
# model with SAME convolutions and no PAD).
FOLDING_SAME = {
    # MediaPipe's pattern: 3x3 stride 1 after PAD 1 on each side.
    "depthwise_3x3": dict(in_shape=(1, 9, 8, 6), pads=SAME_1,
                          convs=[("DEPTHWISE_CONV_2D", 3, 3, 1)]),
    "conv_3x3": dict(in_shape=(1, 7, 6, 5), pads=SAME_1,
                     convs=[("CONV_2D", 3, 3, 1)]),
    "depthwise_5x5": dict(in_shape=(1, 8, 8, 4),
                          pads=((0, 0), (2, 2), (2, 2), (0, 0)),
                          convs=[("DEPTHWISE_CONV_2D", 5, 5, 1)]),
    # SAME with stride 2 on an even size pads only after.
    "stride2_after_only": dict(in_shape=(1, 8, 10, 3),
                               pads=((0, 0), (0, 1), (0, 1), (0, 0)),
                               convs=[("CONV_2D", 3, 3, 2)]),
    # pose_detection's pattern: one PAD read by two convolutions.
    "two_readers": dict(in_shape=(1, 6, 6, 4), pads=SAME_1,
                        convs=[("DEPTHWISE_CONV_2D", 3, 3, 1),
                               ("DEPTHWISE_CONV_2D", 3, 3, 1)]),
    "padv2_zero": dict(in_shape=(1, 5, 5, 3), pads=SAME_1, pad_value="0",
                       convs=[("CONV_2D", 3, 3, 1)]),
}

# Paddings SAME does not make: the kernels take them as explicit padding.
FOLDING_EXPLICIT = {
    # MediaPipe's stride-2 pattern (SAME would pad 0 before).
    "depthwise_stride2": dict(in_shape=(1, 8, 8, 6), pads=SAME_1,
                              convs=[("DEPTHWISE_CONV_2D", 3, 3, 2)]),
    "conv_stride2": dict(in_shape=(1, 10, 8, 3), pads=SAME_1,
                         convs=[("CONV_2D", 3, 3, 2)]),
    "depthwise_5x5_stride2": dict(in_shape=(1, 12, 12, 4),
                                  pads=((0, 0), (2, 2), (2, 2), (0, 0)),
                                  convs=[("DEPTHWISE_CONV_2D", 5, 5, 2)]),
    "asymmetric": dict(in_shape=(1, 7, 9, 4),
                       pads=((0, 0), (2, 0), (0, 2), (0, 0)),
                       convs=[("CONV_2D", 3, 3, 1),
                              ("DEPTHWISE_CONV_2D", 3, 3, 2)]),
}

FOLDING = {**FOLDING_SAME, **FOLDING_EXPLICIT}


@pytest.mark.parametrize("case", sorted(FOLDING))
def test_folds_and_matches_unfolded(tmp_path, case):
    spec = FOLDING[case]
    model = float_model(tmp_path, "pad", **spec)
    # The same model with the PAD's output also a graph output: not folded.
    unfolded = float_model(tmp_path, "unfolded", also_output=True, **spec)
    ops = oh.profiled_ops(model)
    assert "PAD" not in ops and "PADV2" not in ops and ops
    x = f32(*spec["in_shape"])
    got = check_litert(model, [x])
    for g, u in zip(got, oh.run_litegpu(unfolded, [x])):
        np.testing.assert_array_equal(g.view(np.uint32), u.view(np.uint32))
    if case in FOLDING_SAME:
        same = float_model(tmp_path, "same", use_pad=False,
                           **{k: v for k, v in spec.items()
                              if k != "pad_value"})
        for g, s in zip(got, oh.run_litegpu(same, [x])):
            np.testing.assert_array_equal(g.view(np.uint32),
                                          s.view(np.uint32))


NOT_FOLDING = {
    # Windows wholly in the padding (padding as long as the window).
    "padding_covers_a_window": dict(in_shape=(1, 6, 6, 3),
                                    pads=((0, 0), (3, 3), (1, 1), (0, 0)),
                                    convs=[("DEPTHWISE_CONV_2D", 3, 3, 1)]),
    "nonzero_value": dict(in_shape=(1, 5, 5, 3), pads=SAME_1,
                          pad_value="0.5", convs=[("CONV_2D", 3, 3, 1)]),
    "negative_zero": dict(in_shape=(1, 5, 5, 3), pads=SAME_1,
                          pad_value="-0", convs=[("CONV_2D", 3, 3, 1)]),
    "pads_channels": dict(in_shape=(1, 5, 5, 3),
                          pads=((0, 0), (1, 1), (1, 1), (0, 1)),
                          convs=[("CONV_2D", 3, 3, 1)]),
    "pads_batch": dict(in_shape=(1, 5, 5, 3),
                       pads=((1, 0), (1, 1), (1, 1), (0, 0)),
                       convs=[("DEPTHWISE_CONV_2D", 3, 3, 1)]),
    "graph_output": dict(in_shape=(1, 5, 5, 3), pads=SAME_1,
                         also_output=True,
                         convs=[("DEPTHWISE_CONV_2D", 3, 3, 1)]),
    "other_reader": dict(in_shape=(1, 5, 5, 3), pads=SAME_1,
                         extra_reader=True,
                         convs=[("DEPTHWISE_CONV_2D", 3, 3, 1)]),
}


@pytest.mark.parametrize("case", sorted(NOT_FOLDING))
def test_does_not_fold(tmp_path, case):
    spec = NOT_FOLDING[case]
    model = float_model(tmp_path, "pad", **spec)
    ops = oh.profiled_ops(model)
    assert "PAD" in ops or "PADV2" in ops
    check_litert(model, [f32(*spec["in_shape"])])


def test_resize_unfolds_when_padding_stops_matching(tmp_path):
    """8x10 with stride 2 and padding (0, 1) is SAME; at 7x9 SAME pads 1
    before, so the PAD must run again (and fold again back at 8x10)."""
    model = float_model(tmp_path, "pad", **FOLDING["stride2_after_only"])
    lib = oh.lg.load_library()
    with oh.lg.Model.from_file(lib, str(model)) as m, \
            oh.lg.Interpreter(lib, m) as interp:
        for shape in ((1, 7, 9, 3), (1, 8, 10, 3), (1, 9, 9, 3)):
            interp.resize_input(0, shape)
            interp.allocate_tensors()
            x = f32(*shape)
            interp.set_input(0, x)
            interp.invoke()
            got = interp.get_output(0)
            ref = oh._litert_interpreter(model, "BUILTIN_REF")
            ref.resize_tensor_input(0, shape)
            ref.allocate_tensors()
            ref.set_tensor(ref.get_input_details()[0]["index"], x)
            ref.invoke()
            want = ref.get_tensor(ref.get_output_details()[0]["index"])
            oh.assert_close(got, want, atol=1e-4, context=str(shape))


def test_delegate_sees_the_unfolded_graph(tmp_path):
    """The reference delegate is applied after a plan that folded: it must
    be offered the PAD and the VALID convolution (both nodes), and give the
    CPU's result."""
    model = float_model(tmp_path, "pad", **FOLDING["stride2_after_only"])
    x = f32(*FOLDING["stride2_after_only"]["in_shape"])
    lib = oh.lg.load_library()
    delegate = lib.litegpu_reference_delegate_create(None)
    assert delegate
    try:
        with oh.lg.Model.from_file(lib, str(model)) as m, \
                oh.lg.Interpreter(lib, m, delegates=[delegate]) as interp:
            assert any("Replacing 2 out of 2 node(s)" in message
                       for message in interp.errors.take())
            interp.allocate_tensors()
            interp.set_input(0, x)
            interp.invoke()
            np.testing.assert_array_equal(interp.get_output(0),
                                          oh.run_litegpu(model, [x])[0])
    finally:
        lib.litegpu_reference_delegate_delete(delegate)


def int8_depthwise_model(tmp_path, pad_value_zp, stride):
    """x (int8, zero point 5) -> PADV2 of 1 around H and W with the value
    `pad_value_zp` -> 3x3 VALID int8 DEPTHWISE_CONV_2D."""
    q = "quant=0.1:5"
    w = RNG.integers(-127, 128, (1, 3, 3, 4), dtype=np.int8)
    b = RNG.integers(-500, 500, 4, dtype=np.int32)
    (tmp_path / "w.bin").write_bytes(w.tobytes())
    (tmp_path / "b.bin").write_bytes(b.tobytes())
    lines = [f"tensor x INT8 1,6,7,4 {q}",
             "tensor p INT32 4,2 values=0,0,1,1,1,1,0,0",
             f"tensor v INT8 - values={pad_value_zp} {q}",
             f"tensor xp INT8 1,8,9,4 {q}",
             "tensor w INT8 1,3,3,4 data=w.bin quant=0.02:0",
             "tensor bw INT32 4 data=b.bin quant=0.002:0",
             "tensor y INT8 1,6,7,4 quant=0.3:-3",
             "op PADV2 1 in=x,p,v out=xp",
             "op DEPTHWISE_CONV_2D auto in=xp,w,bw out=y padding=VALID "
             f"stride_w={stride} stride_h={stride} depth_multiplier=1",
             "inputs x", "outputs y"]
    spec = tmp_path / "q.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = tmp_path / "q.tflite"
    oh.build_model(spec, model)
    return model


@pytest.mark.parametrize("value,stride,folds",
                         [(5, 1, True), (5, 2, True), (0, 1, False)])
def test_int8_folds_only_with_the_zero_point(tmp_path, value, stride, folds):
    model = int8_depthwise_model(tmp_path, value, stride)
    assert ("PADV2" not in oh.profiled_ops(model)) == folds
    x = RNG.integers(-128, 128, (1, 6, 7, 4), dtype=np.int8)
    np.testing.assert_array_equal(oh.run_litegpu(model, [x])[0],
                                  oh.run_litert(model, [x])[0])
