"""Epilogue fusion (runtime/epilogue.c): a float CONV_2D,
DEPTHWISE_CONV_2D or FULLY_CONNECTED completes the ADD (same-shape
residual) and PRELU (constant alpha) / LOGISTIC / HARD_SWISH chain after
it, and the chain's nodes are skipped at Invoke.

Every graph runs with the fusion on and off (LITEGPU_EPILOGUE_FUSION=0):
the outputs must be equal bit for bit (the fusion calls the kernels' own
arithmetic in their order), and within the op tests' tolerance of LiteRT's
reference kernels. benchmark_model's op profile (a skipped node is listed
with a count of 0) shows which nodes still run on their own.
"""

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import op_harness as oh
from litegpu import capi as lg
# A FLOAT32 tensor's spec line (with its data file for a constant).
from test_fuse_activations import _tensor as tensor

LIB = lg.load_library()
RNG = np.random.default_rng(23)


def f32(*shape, scale=2.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def build(tmp_path, inputs, consts, others, ops, outputs, name="g"):
    """A model from graph inputs, constants, other tensors (arrays giving
    the shape), op lines and output names."""
    lines = [tensor(n, a) for n, a in inputs.items()]
    lines += [tensor(n, a, tmp_path) for n, a in consts.items()]
    lines += [tensor(n, a) for n, a in others.items()]
    lines += ops
    lines += [f"inputs {','.join(inputs)}", f"outputs {','.join(outputs)}"]
    spec = tmp_path / f"{name}.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = tmp_path / f"{name}.tflite"
    oh.build_model(spec, model)
    return model


def run(model, inputs, fused, threads=1, pointers=0):
    """The outputs, and with `pointers` also the data pointers of the first
    `pointers` tensors."""
    old = os.environ.get("LITEGPU_EPILOGUE_FUSION")
    os.environ["LITEGPU_EPILOGUE_FUSION"] = "1" if fused else "0"
    try:
        # MediaPipe's custom ops on, for the corpus models.
        with lg.Model.from_file(LIB, str(model)) as m, \
                lg.Interpreter(LIB, m, num_threads=threads,
                               mediapipe_ops=True) as interp:
            interp.allocate_tensors()
            for i, array in enumerate(inputs):
                interp.set_input(i, array)
            interp.invoke()
            outputs = [interp.get_output(i)
                       for i in range(interp.output_count)]
            if not pointers:
                return outputs
            return outputs, [LIB.TfLiteTensorData(interp.tensor(i).handle)
                             for i in range(pointers)]
    finally:
        if old is None:
            del os.environ["LITEGPU_EPILOGUE_FUSION"]
        else:
            os.environ["LITEGPU_EPILOGUE_FUSION"] = old


def benchmark_report(model, fused):
    env = dict(os.environ, LITEGPU_EPILOGUE_FUSION="1" if fused else "0")
    return subprocess.run(
        [str(oh.build_dir() / "benchmark_model"), f"--graph={model}",
         "--num_runs=1", "--warmup_runs=0", "--min_secs=0",
         "--warmup_min_secs=0", "--enable_op_profiling=true"],
        capture_output=True, text=True, check=True, env=env).stdout


def running_ops(model, fused=True):
    """The ops of the nodes that ran, from benchmark_model's op profile."""
    table = benchmark_report(model, fused).split("Operator profile", 1)[1]
    table = table.split("Summary by operator type", 1)[0]
    rows = re.findall(r"^\s+\d+\s+([A-Z0-9_]+)\s+\d+\s.*\s(\d+)$", table,
                      re.M)
    return sorted(op for op, count in rows if int(count) > 0)


def check(model, inputs, atol=1e-4):
    """Fused equals unfused bit for bit at 1 and 2 threads, and LiteRT."""
    for threads in (1, 2):
        got = run(model, inputs, True, threads)
        plain = run(model, inputs, False, threads)
        for g, p in zip(got, plain):
            np.testing.assert_array_equal(g.view(np.uint32), p.view(np.uint32))
    want = oh.run_litert(model, inputs)
    for g, w in zip(got, want):
        # Sums of products round in another order than the reference's.
        oh.assert_close(g, w, atol=atol)


CONV = "padding=SAME stride_w=1 stride_h=1"
DW = "padding=SAME stride_w=1 stride_h=1 depth_multiplier=1"


def conv_graph(tmp_path, tail, producer="CONV_2D", add_params="",
               residual_shape=(1, 9, 10, 6), alpha=None, extra_out=()):
    """x -> producer -> mid [-> ADD r -> sum] -> tail op -> out."""
    x = f32(1, 9, 10, 6 if producer != "FULLY_CONNECTED" else 1)
    if producer == "FULLY_CONNECTED":
        x, w, shape = f32(40, 12), f32(6, 12), (40, 6)
        params = ""
    elif producer == "CONV_2D":
        w, shape, params = f32(6, 3, 3, 6, scale=0.3), (1, 9, 10, 6), CONV
    else:
        w, shape, params = f32(1, 3, 3, 6), (1, 9, 10, 6), DW
    inputs = {"x": x}
    consts = {"w": w, "b": f32(6)}
    zeros = np.zeros(shape, np.float32)
    others = {"mid": zeros, "out": zeros}
    ops = [f"op {producer} 1 in=x,w,b out=mid {params}".rstrip()]
    link = "mid"
    if "ADD" in tail:
        if producer == "FULLY_CONNECTED":
            residual_shape = shape
        inputs["r"] = f32(*residual_shape)
        others["sum"] = zeros
        ops.append(f"op ADD 1 in=r,{link} out=sum {add_params}".rstrip())
        link = "sum"
    act = [t for t in tail if t != "ADD"]
    if act:
        op = act[0]
        if op == "PRELU":
            alpha = f32(6, scale=0.5) if alpha is None else alpha
            consts["alpha"] = alpha
            ops.append(f"op PRELU 1 in={link},alpha out=out")
        else:
            ops.append(f"op {op} 1 in={link} out=out")
    else:
        ops[-1] = ops[-1].replace("out=sum", "out=out")
        others.pop("sum")
    model = build(tmp_path, inputs, consts, others, ops,
                  ["out", *extra_out])
    return model, list(inputs.values())


FUSED = [
    ("CONV_2D", ("ADD", "PRELU"), ""),
    ("CONV_2D", ("PRELU",), ""),
    ("CONV_2D", ("LOGISTIC",), ""),
    ("CONV_2D", ("ADD",), "fused_activation_function=RELU6"),
    ("DEPTHWISE_CONV_2D", ("ADD", "HARD_SWISH"), ""),
    ("DEPTHWISE_CONV_2D", ("PRELU",), ""),
    ("FULLY_CONNECTED", ("ADD", "LOGISTIC"), "fused_activation_function=RELU"),
]


@pytest.mark.parametrize("producer,tail,add_params", FUSED,
                         ids=["-".join((p, *t)) for p, t, _ in FUSED])
def test_chain_is_fused_and_exact(tmp_path, producer, tail, add_params):
    model, inputs = conv_graph(tmp_path, tail, producer, add_params)
    assert running_ops(model) == [producer]
    assert running_ops(model, fused=False) == sorted([producer, *tail])
    check(model, inputs)


def test_scalar_alpha_is_fused(tmp_path):
    model, inputs = conv_graph(tmp_path, ("ADD", "PRELU"),
                               alpha=np.array([0.25], np.float32))
    assert running_ops(model) == ["CONV_2D"]
    check(model, inputs)


def test_intermediate_read_twice_is_not_fused(tmp_path):
    x, r = f32(1, 5, 4, 6), f32(1, 5, 4, 6)
    zeros = np.zeros((1, 5, 4, 6), np.float32)
    model = build(
        tmp_path, {"x": x, "r": r},
        {"w": f32(6, 1, 1, 6), "b": f32(6), "alpha": f32(6)},
        {"mid": zeros, "sum": zeros, "out": zeros, "out2": zeros},
        [f"op CONV_2D 1 in=x,w,b out=mid {CONV}",
         "op ADD 1 in=mid,r out=sum", "op PRELU 1 in=sum,alpha out=out",
         "op MUL 1 in=sum,r out=out2"], ["out", "out2"])
    # The conv's output feeds only the ADD: the chain stops there.
    assert running_ops(model) == ["CONV_2D", "MUL", "PRELU"]
    check(model, [x, r])


def test_intermediate_graph_output_is_not_fused(tmp_path):
    model, inputs = conv_graph(tmp_path, ("PRELU",), extra_out=("mid",))
    assert running_ops(model) == ["CONV_2D", "PRELU"]
    check(model, inputs)


def test_broadcast_add_is_not_fused(tmp_path):
    model, inputs = conv_graph(tmp_path, ("ADD", "LOGISTIC"),
                               residual_shape=(1, 1, 1, 6))
    # The ADD broadcasts: only the LOGISTIC after it could follow a conv,
    # and it reads the ADD, so nothing is fused.
    assert running_ops(model) == ["ADD", "CONV_2D", "LOGISTIC"]
    check(model, inputs)


def test_alpha_from_an_input_is_not_fused(tmp_path):
    x, alpha = f32(1, 5, 4, 6), f32(6)
    zeros = np.zeros((1, 5, 4, 6), np.float32)
    model = build(tmp_path, {"x": x, "alpha": alpha},
                  {"w": f32(6, 3, 3, 6), "b": f32(6)},
                  {"mid": zeros, "out": zeros},
                  [f"op CONV_2D 1 in=x,w,b out=mid {CONV}",
                   "op PRELU 1 in=mid,alpha out=out"], ["out"])
    assert running_ops(model) == ["CONV_2D", "PRELU"]
    check(model, [x, alpha])


def test_residual_written_after_the_producer_is_not_fused(tmp_path):
    """The chain would run at the conv, before its residual exists."""
    x, y = f32(1, 5, 4, 6), f32(1, 5, 4, 6)
    zeros = np.zeros((1, 5, 4, 6), np.float32)
    model = build(tmp_path, {"x": x, "y": y},
                  {"w": f32(6, 3, 3, 6), "b": f32(6)},
                  {"mid": zeros, "r": zeros, "out": zeros},
                  [f"op CONV_2D 1 in=x,w,b out=mid {CONV}",
                   "op MUL 1 in=y,y out=r", "op ADD 1 in=mid,r out=out"],
                  ["out"])
    assert running_ops(model) == ["ADD", "CONV_2D", "MUL"]
    check(model, [x, y])


def test_residual_written_before_the_producer_is_fused(tmp_path):
    """The residual r is an earlier op's output that a RELU reads after the
    conv. The chain writes `out` at the conv's position, so the arena must
    not give `out` r's slot (free after the ADD, were the chain planned at
    the ADD's and PRELU's positions): the RELU would read `out`."""
    x, z = f32(1, 7, 6, 6), f32(1, 5, 4, 6)
    zeros = np.zeros((1, 5, 4, 6), np.float32)
    model = build(tmp_path, {"x": x, "z": z},
                  {"w": f32(6, 3, 3, 6), "b": f32(6), "alpha": f32(6)},
                  {"r": zeros, "mid": zeros, "out2": zeros, "sum": zeros,
                   "out": zeros},
                  ["op MUL 1 in=z,z out=r",
                   "op CONV_2D 1 in=x,w,b out=mid padding=VALID "
                   "stride_w=1 stride_h=1",
                   "op RELU 1 in=r out=out2",
                   "op ADD 1 in=mid,r out=sum",
                   "op PRELU 1 in=sum,alpha out=out"], ["out", "out2"])
    assert running_ops(model) == ["CONV_2D", "MUL", "RELU"]
    check(model, [x, z])


def test_gpu_delegate_sees_the_plain_graph(tmp_path):
    model, inputs = conv_graph(tmp_path, ("ADD", "PRELU"))
    lib = LIB
    try:
        delegate = lg.GpuDelegate(lib, "cl")
    except lg.LiteGpuError as e:
        pytest.fail(f"no OpenCL device: {e}")
    with delegate, lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, delegates=(delegate.pointer,)) as interp:
        interp.allocate_tensors()
        for i, a in enumerate(inputs):
            interp.set_input(i, a)
        interp.invoke()
        got = interp.get_output(0)
        assert delegate.decisions() == {0: "", 1: "", 2: ""}
    oh.assert_close(got, oh.run_litert(model, inputs)[0], atol=1e-4)


CORPUS = Path(os.environ.get("LITEGPU_CORPUS_DIR") or
              Path(__file__).resolve().parents[2] / "build" / "corpus")
# MediaPipe models whose blocks are conv -> ADD -> PRELU, conv -> PRELU or
# conv -> LOGISTIC (the float16-weight ones read PRELU's alpha through a
# constant DEQUANTIZE).
CORPUS_MODELS = ["iris_landmark", "palm_detection_full", "face_landmark",
                 "selfie_segmentation"]


@pytest.mark.parametrize("name", CORPUS_MODELS)
def test_corpus_model_fused_equals_unfused(name):
    path = CORPUS / "models" / f"{name}.tflite"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run scripts/setup.sh (it fetches "
                    "the corpus)")
    fused, plain = running_ops(path), running_ops(path, fused=False)
    assert len(fused) < len(plain), "no chain was fused"
    # The chain's output may take the producer's scratch: no arena growth.
    arena = [int(re.search(r"arena (\d+) bytes", benchmark_report(path, f))
                 .group(1)) for f in (True, False)]
    assert arena[0] <= arena[1]
    with lg.Model.from_file(LIB, str(path)) as m, \
            lg.Interpreter(LIB, m) as interp:
        shapes = [interp.input(i).shape for i in range(interp.input_count)]
    inputs = [np.random.default_rng(17 + i).uniform(0, 1, s).astype(np.float32)
              for i, s in enumerate(shapes)]
    for threads in (1, 2):
        got = run(path, inputs, True, threads)
        want = run(path, inputs, False, threads)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.view(np.uint32), w.view(np.uint32))


def chain_parts(x, weights, producer_op, out_shape, tail):
    """The graph x -> producer_op (its op line) -> mid [-> ADD r] ->
    HARD_SWISH or PRELU (per channel) -> out, as build()'s inputs,
    constants, other tensors and op lines."""
    channels = out_shape[-1]
    inputs = {"x": x}
    consts = {"w": weights, "b": f32(channels)}
    zeros = np.zeros(out_shape, np.float32)
    others = {"mid": zeros, "out": zeros}
    ops = [producer_op]
    link = "mid"
    if "ADD" in tail:
        inputs["r"] = f32(*out_shape)
        others["sum"] = zeros
        ops.append("op ADD 1 in=mid,r out=sum")
        link = "sum"
    if "PRELU" in tail:
        consts["alpha"] = f32(channels, scale=0.5)
        ops.append(f"op PRELU 1 in={link},alpha out=out")
    else:
        ops.append(f"op HARD_SWISH 1 in={link} out=out")
    return inputs, consts, others, ops


def check_chain_in_tasks(tmp_path, x, weights, producer_op, out_shape, tail):
    """chain_parts' graph: only the producer runs, and at 2 threads, then
    as check() does, the outputs match LiteRT."""
    inputs, consts, others, ops = chain_parts(x, weights, producer_op,
                                              out_shape, tail)
    model = build(tmp_path, inputs, consts, others, ops, ["out"])
    assert running_ops(model) == [producer_op.split()[1]]
    # 2 threads first: a later interpreter may get a freed arena that still
    # holds an earlier run's correct outputs where a wrong split wrote none.
    want = oh.run_litert(model, list(inputs.values()))[0]
    oh.assert_close(run(model, list(inputs.values()), True, 2)[0], want,
                    atol=1e-4)
    check(model, list(inputs.values()))


# Depthwise layers large enough to be split over 2 threads (at least 2^18
# multiply-adds): with few output rows the tasks split the channels in
# ranges of 16 (an odd count leaves a partial last vector), and each task
# runs the epilogue on its own rows and channels. The 3x3 row loop, the
# general (5x5) loop and both paths' edges are covered; PRELU's alpha is
# per channel, so a task's channel range must pick its own alphas.
DW_SPLITS = [
    # (input shape, window, padding, tail)
    ((1, 3, 300, 113), 3, "SAME", ("HARD_SWISH",)),
    ((1, 3, 300, 113), 3, "SAME", ("ADD", "PRELU")),
    ((1, 7, 7, 437), 5, "SAME", ("HARD_SWISH",)),
    ((1, 7, 7, 437), 5, "SAME", ("ADD", "PRELU")),
    ((1, 5, 300, 40), 5, "VALID", ("HARD_SWISH",)),
]


@pytest.mark.parametrize(
    "shape,window,padding,tail", DW_SPLITS,
    ids=[f"{s[1]}x{s[2]}x{s[3]}-{w}x{w}-{'-'.join(t)}"
         for s, w, _, t in DW_SPLITS])
def test_depthwise_split_runs_the_chain_in_its_tasks(tmp_path, shape, window,
                                                     padding, tail):
    channels = shape[3]
    out_h = shape[1] if padding == "SAME" else shape[1] - window + 1
    out_w = shape[2] if padding == "SAME" else shape[2] - window + 1
    assert out_h * out_w * channels * window * window >= 1 << 18
    check_chain_in_tasks(
        tmp_path, f32(*shape), f32(1, window, window, channels, scale=0.3),
        f"op DEPTHWISE_CONV_2D 1 in=x,w,b out=mid padding={padding} "
        "stride_w=1 stride_h=1 depth_multiplier=1",
        (1, out_h, out_w, channels), tail)


# A stem convolution (3 input channels: conv_shallow.c) runs the chain in
# its tasks on each block of 64 pixels it finished; 61 output columns leave
# a partial block at the end of each task. Odd output channels (17) leave a
# partial vector.
SHALLOW = [((1, 122, 122, 3), 17, ("HARD_SWISH",)),
           ((1, 122, 122, 3), 17, ("ADD", "PRELU"))]


@pytest.mark.parametrize("shape,channels,tail", SHALLOW,
                         ids=["-".join(t) for _, _, t in SHALLOW])
def test_shallow_conv_runs_the_chain_in_its_tasks(tmp_path, shape, channels,
                                                  tail):
    check_chain_in_tasks(
        tmp_path, f32(*shape), f32(channels, 3, 3, shape[3], scale=0.3),
        "op CONV_2D 1 in=x,w,b out=mid padding=SAME stride_w=2 stride_h=2",
        (1, shape[1] // 2, shape[2] // 2, channels), tail)


# Convolutions through the GEMM (runtime/kernels/gemm.c): the chain runs as
# the interpreter's pass after the node (running it inside the GEMM's tasks
# was measured no faster and cost arena memory: docs/architecture.md).
# Output channels are not multiples of any ISA's tile (8, 16 or 32 wide),
# and the layers are large enough to be split over 2 threads (at least 2^19
# multiply-adds): 400 output pixels split by rows (several 144-row blocks),
# 20 pixels of 300 channels split by channels; PRELU's alpha is per
# channel. 1x1 with 100 channels reads the input in place; with 150 (more
# than 4 panels of 32) it packs it; 3x3 packs image patches; 16 input
# channels over 8-channel filters make 2 groups. More than 128 channels
# keep the 3x3 layers off conv_rows.c.
GEMM_CONVS = [
    # (input shape, filter shape (OHWI), tail)
    ((1, 20, 20, 24), (100, 1, 1, 24), ("HARD_SWISH",)),
    ((1, 20, 20, 24), (150, 1, 1, 24), ("ADD", "PRELU")),
    ((1, 4, 5, 16), (300, 3, 3, 16), ("ADD", "PRELU")),
    ((1, 4, 5, 16), (300, 3, 3, 16), ("HARD_SWISH",)),
    ((1, 10, 10, 16), (150, 3, 3, 8), ("ADD", "PRELU")),
]


@pytest.mark.parametrize(
    "shape,filter_shape,tail", GEMM_CONVS,
    ids=[f"{s[1]}x{s[2]}x{s[3]}-{f[0]}x{f[1]}x{f[2]}x{f[3]}-{'-'.join(t)}"
         for s, f, t in GEMM_CONVS])
def test_gemm_conv_chain_is_fused_and_exact(tmp_path, shape, filter_shape,
                                               tail):
    out_shape = (*shape[:3], filter_shape[0])
    k = filter_shape[1] * filter_shape[2] * filter_shape[3]
    assert out_shape[1] * out_shape[2] * filter_shape[0] * k >= 1 << 19
    check_chain_in_tasks(
        tmp_path, f32(*shape), f32(*filter_shape, scale=0.3),
        "op CONV_2D 1 in=x,w,b out=mid padding=SAME stride_w=1 stride_h=1",
        out_shape, tail)


def test_large_fully_connected_chain_is_fused_and_exact(tmp_path):
    # 300 rows of 150 channels, 40 deep: split over 2 threads.
    check_chain_in_tasks(tmp_path, f32(300, 40), f32(150, 40, scale=0.3),
                         "op FULLY_CONNECTED 1 in=x,w,b out=mid",
                         (300, 150), ("ADD", "PRELU"))


# The chain's output, when only later nodes read it (not a graph output),
# takes the memory of the producer's output (execute.c, alias_epilogues):
# the chain runs in place. Producers: the depthwise loop split by channels,
# the stem convolution's tasks, a GEMM convolution (the interpreter's pass
# after the node) and FULLY_CONNECTED.
IN_PLACE = [
    ((1, 7, 7, 437), (1, 5, 5, 437),
     "op DEPTHWISE_CONV_2D 1 in=x,w,b out=mid padding=SAME stride_w=1 "
     "stride_h=1 depth_multiplier=1", (1, 7, 7, 437)),
    ((1, 122, 122, 3), (17, 3, 3, 3),
     "op CONV_2D 1 in=x,w,b out=mid padding=SAME stride_w=2 stride_h=2",
     (1, 61, 61, 17)),
    ((1, 20, 20, 24), (150, 1, 1, 24),
     "op CONV_2D 1 in=x,w,b out=mid padding=SAME stride_w=1 stride_h=1",
     (1, 20, 20, 150)),
    ((300, 40), (150, 40), "op FULLY_CONNECTED 1 in=x,w,b out=mid",
     (300, 150)),
]


@pytest.mark.parametrize("tail", [("HARD_SWISH",), ("ADD", "PRELU")],
                         ids=["HARD_SWISH", "ADD-PRELU"])
@pytest.mark.parametrize("shape,filter_shape,producer_op,out_shape", IN_PLACE,
                         ids=["depthwise", "stem", "gemm", "fc"])
def test_chain_runs_in_place(tmp_path, shape, filter_shape, producer_op,
                             out_shape, tail):
    inputs, consts, others, ops = chain_parts(
        f32(*shape), f32(*filter_shape, scale=0.3), producer_op, out_shape,
        tail)
    # A later node reads the chain's output: it is not a graph output.
    consts["two"] = np.array(2.0, np.float32)
    others["y"] = others["out"]
    ops.append("op MUL 1 in=out,two out=y")
    model = build(tmp_path, inputs, consts, others, ops, ["y"])
    names = [*inputs, *consts, *others]
    assert running_ops(model) == sorted([producer_op.split()[1], "MUL"])
    arrays = list(inputs.values())
    want = oh.run_litert(model, arrays)[0]
    for threads in (2, 1):
        [got], ptr = run(model, arrays, True, threads, len(names))
        assert ptr[names.index("out")] == ptr[names.index("mid")], \
            "the chain's output does not take the producer's output memory"
        [unfused] = run(model, arrays, False, threads)
        np.testing.assert_array_equal(got.view(np.uint32),
                                      unfused.view(np.uint32))
        oh.assert_close(got, want, atol=1e-4)

