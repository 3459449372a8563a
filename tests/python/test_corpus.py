"""Real third-party models (tests/corpus/corpus.json: every .tflite that
MediaPipe 0.10.14's wheel ships, fetched by scripts/setup.sh) on litegpu's
CPU and GPU delegate.

Every model either runs or fails with the message its manifest entry
names (a model that starts working must have its entry updated). For the
models that run:
  * litegpu's CPU matches LiteRT (its default kernels) on seeded inputs;
  * the GPU delegate, on OpenCL and on Vulkan, in float32 and in float16,
    takes every node into one partition, moves only the model's inputs and
    outputs per Invoke, and matches litegpu's CPU.

The error of an output is max|a - b| / max(1, max|ref|): its largest
difference against its largest magnitude. Some of these networks amplify
rounding (a pose model's segmentation logits reach 1500 and LiteRT's own
two kernel sets differ there by 1.7e-4 of that), so the float32 bound is
max(1e-4, 4 x LiteRT's spread), the spread being LiteRT's XNNPACK kernels
against its reference kernels on the same inputs (0 where LiteRT cannot
run the model). Float16 rounds 8192 times coarser than float32, and the
same networks amplify it: float16 is held to max(1e-2, 2048 x LiteRT's
float32 spread), a quarter of the proportional allowance (the pose
model's segmentation logits, spread 5.9e-4, differ by 0.19 of their
largest magnitude in float16; every other output stays under 1e-2).
For the two segmentation models, whose masks are 0 on synthetic inputs,
a copy with the logits as the first output runs too ("NAME:logits").

face_landmark_with_attention holds MediaPipe's landmark ops, which LiteRT
has no kernel for (its manifest entry's "litert_lacks") and the GPU
delegate leaves to the CPU ("gpu_leaves_to_cpu"). Its CPU run is checked
in pieces: LiteRT runs a copy of the model cut at those ops (their nodes
removed, the tensors they read made outputs, the tensors they write made
inputs, fed with litegpu's values); litegpu's tensors feeding each op
match LiteRT's, each op's outputs match the numpy reference
(mediapipe_landmarks_ref.py) on litegpu's inputs, and the model's outputs
match LiteRT's. On the GPU, every other node is claimed, in the
"gpu_partitions" partitions those ops split the graph into (the
delegate's max_delegated_partitions set to that); the bytes uploaded per
Invoke are exactly the tensors the GPU reads from the CPU (the model's
input, the ops' outputs), and those downloaded at least the tensors the
CPU reads from the GPU (outputs of one partition that another reads come
down too).
OpenCL's float16 run uses the half-storage test hook
(LITEGPU_OPENCL_TEST_FP16_STORAGE), since PoCL has no cl_khr_fp16.

The figures of every run are written to build/corpus/report.json
(LITEGPU_CORPUS_DIR) for the README and the issue notes.
"""

import functools
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg
import mediapipe_landmarks_ref as mpref

REPO = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((REPO / "tests" / "corpus" / "corpus.json").read_text())
CORPUS = Path(os.environ.get("LITEGPU_CORPUS_DIR") or
              REPO / "build" / "corpus")
MODELS = {m["name"]: m for m in MANIFEST["models"]}
# "NAME:logits": the copy of NAME whose first output is its logits tensor.
for _m in MANIFEST["models"]:
    if "logits_tensor" in _m:
        MODELS[_m["name"] + ":logits"] = dict(_m, base=_m["name"])
RUNS = [n for n, m in MODELS.items() if "unsupported" not in m]
UNSUPPORTED = [n for n, m in MODELS.items() if "unsupported" in m]
FP32_FLOOR = 1e-4
FP16_BOUND = 1e-2
REPORT = {}


def set_first_output(data, tensor):
    """The .tflite bytes with subgraph 0's first output replaced by
    `tensor` (an in-place edit of that int32 of the FlatBuffer: Model field
    2 subgraphs, SubGraph field 2 outputs)."""
    data = bytearray(data)

    def u32(at):
        return struct.unpack_from("<I", data, at)[0]

    def field(table, index):
        vtable = table - struct.unpack_from("<i", data, table)[0]
        if 4 + 2 * index >= struct.unpack_from("<H", data, vtable)[0]:
            raise ValueError("no such field")
        return table + struct.unpack_from("<H", data, vtable + 4 + 2 * index)[0]

    subgraphs = field(u32(0), 2)
    subgraphs += u32(subgraphs)
    subgraph = subgraphs + 4 + u32(subgraphs + 4)
    outputs = field(subgraph, 2)
    outputs += u32(outputs)
    struct.pack_into("<i", data, outputs + 4, tensor)
    return bytes(data)


def path_of(name):
    model = MODELS[name]
    path = CORPUS / "models" / f"{model.get('base', name)}.tflite"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run scripts/setup.sh (it fetches "
                    "the corpus)")
    if "base" not in model:
        return path
    variant = CORPUS / "variants" / f"{model['base']}_logits.tflite"
    variant.parent.mkdir(exist_ok=True)
    variant.write_bytes(set_first_output(path.read_bytes(),
                                         model["logits_tensor"]))
    return variant


def schema_model(name):
    """The model as LiteRT's schema objects (ModelT; a new copy per call,
    which callers may edit)."""
    from ai_edge_litert import schema_py_generated as schema
    data = path_of(name).read_bytes()
    return schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))


def pack(model):
    import flatbuffers
    builder = flatbuffers.Builder(1 << 22)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def custom_name(model, op):
    code = model.operatorCodes[op.opcodeIndex].customCode
    return code.decode() if code else ""


@functools.lru_cache(maxsize=None)
def graph_facts(name):
    """Subgraph 0 of the model: each node's custom name ("" for builtins),
    inputs and outputs; the tensors that are constant (weights, and what
    DEQUANTIZE makes of them, which litegpu folds at Prepare); each
    tensor's bytes; the model's outputs."""
    model = schema_model(name)
    graph = model.subgraphs[0]
    constant = {i for i, t in enumerate(graph.tensors)
                if model.buffers[t.buffer].data is not None and
                len(model.buffers[t.buffer].data)}
    nodes = []
    for op in graph.operators:
        code = model.operatorCodes[op.opcodeIndex]
        inputs = [int(t) for t in op.inputs if t >= 0]
        if (max(code.builtinCode, code.deprecatedBuiltinCode) == 6 and
                set(inputs) <= constant):  # DEQUANTIZE of a weight
            constant.update(int(t) for t in op.outputs)
        nodes.append((custom_name(model, op), inputs,
                      [int(t) for t in op.outputs]))
    itemsize = {0: 4, 1: 2, 2: 4}  # FLOAT32, FLOAT16, INT32
    sizes = [itemsize[t.type] * int(np.prod(t.shape)) for t in graph.tensors]
    return nodes, constant, sizes, [int(t) for t in graph.outputs]


def gpu_boundary_bytes(name, claimed):
    """The bytes of the tensors claimed nodes read from the CPU (the model's
    inputs, the outputs of unclaimed nodes) and of those unclaimed nodes
    read from claimed ones, plus the model's outputs claimed nodes write."""
    nodes, constant, sizes, outputs = graph_facts(name)
    producer = {t: i for i, (_, _, outs) in enumerate(nodes) for t in outs}
    up, down = set(), set()
    for i, (_, inputs, _) in enumerate(nodes):
        for t in inputs:
            if t in constant:
                continue
            on_gpu = producer.get(t) in claimed
            if i in claimed and not on_gpu:
                up.add(t)
            elif i not in claimed and on_gpu:
                down.add(t)
    down.update(t for t in outputs if producer.get(t) in claimed)
    return sum(sizes[t] for t in up), sum(sizes[t] for t in down)


def landmark_op_reference(op_name, inputs, options):
    """The numpy reference of one of MediaPipe's landmark ops."""
    if op_name == "Landmarks2TransformMatrix":
        return mpref.landmarks_to_transform_matrix(inputs[0], options)
    if op_name == "TransformTensorBilinear":
        return mpref.transform_tensor_bilinear(
            inputs[0], inputs[1], options["output_height"],
            options["output_width"])
    assert op_name == "TransformLandmarks", op_name
    return mpref.transform_landmarks(inputs[0], inputs[1])


def check_cpu_in_pieces(name, shapes):
    """litegpu's CPU on a model LiteRT cannot load (module docstring)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from flatbuffers import flexbuffers
    lacks = set(MODELS[name]["litert_lacks"])
    model = schema_model(name)
    graph = model.subgraphs[0]
    cut = [i for i, op in enumerate(graph.operators)
           if custom_name(model, op)]
    cut_ops = [graph.operators[i] for i in cut]
    # Every custom op of the model is one the manifest names.
    assert {custom_name(model, op) for op in cut_ops} == lacks
    written = list(dict.fromkeys(int(t) for op in cut_ops for t in op.outputs))
    read = [t for t in dict.fromkeys(int(t) for op in cut_ops
                                     for t in op.inputs) if t not in written]
    outputs = [int(t) for t in graph.outputs]
    inputs = [int(t) for t in graph.inputs]
    # litegpu: the whole model, with the ops' inputs and outputs as outputs.
    graph.outputs = outputs + read + written
    whole = pack(model)
    # LiteRT: the model without those ops.
    graph.operators = [op for i, op in enumerate(graph.operators)
                       if i not in set(cut)]
    graph.inputs = inputs + written
    graph.outputs = outputs + read
    pieces = pack(model)

    lib = lg.load_library()
    x = inputs_for(shapes)
    with lg.Model.from_bytes(lib, whole) as m, \
            lg.Interpreter(lib, m, num_threads=2,
                           mediapipe_ops=True) as interp:
        interp.allocate_tensors()
        for i, value in enumerate(x):
            interp.set_input(i, value)
        interp.invoke()
        got = {t: interp.get_output(k)
               for k, t in enumerate(outputs + read + written)}
    fed = dict(zip(inputs, x))
    fed.update((t, got[t]) for t in written)
    runs = []
    for resolver in (OpResolverType.AUTO, OpResolverType.BUILTIN_REF):
        interp = Interpreter(model_content=pieces, num_threads=2,
                             experimental_op_resolver_type=resolver)
        interp.allocate_tensors()
        for d in interp.get_input_details():
            interp.set_tensor(d["index"], fed[d["index"]])
        interp.invoke()
        runs.append({t: interp.get_tensor(t) for t in outputs + read})
    checked = outputs + read
    spread = [error(runs[0][t], runs[1][t]) for t in checked]
    errors = [error(got[t], runs[0][t]) for t in checked]
    record(name, "cpu_vs_litert", errors[:len(outputs)])
    record(name, "litert_spread", spread[:len(outputs)])
    record(name, "custom_op_inputs_vs_litert", errors[len(outputs):])
    for t, e, s in zip(checked, errors, spread):
        assert e <= max(FP32_FLOOR, 4 * s), \
            f"tensor {t} ({graph.tensors[t].name}): {e:.3g}"
    op_errors = []
    for op in cut_ops:
        blob = op.customOptions
        options = {} if blob is None else flexbuffers.Loads(bytes(blob))
        want = landmark_op_reference(custom_name(model, op),
                                     [got[int(t)] for t in op.inputs], options)
        op_errors.append(error(got[int(op.outputs[0])], want))
    record(name, "custom_ops_vs_numpy", op_errors)
    assert max(op_errors) <= 1e-5, op_errors


def error(a, ref):
    a = np.asarray(a, np.float64)
    ref = np.asarray(ref, np.float64)
    return float(np.max(np.abs(a - ref)) / max(1.0, float(np.max(np.abs(ref)))))


def inputs_for(shapes):
    return [np.random.default_rng(17 + i).uniform(0, 1, s).astype(np.float32)
            for i, s in enumerate(shapes)]


def run_litegpu(name, delegate=None):
    """Outputs, input shapes and (with a delegate) its decisions and stats,
    read while the interpreter lives."""
    lib = lg.load_library()
    model = MODELS[name]
    delegates = (delegate.pointer,) if delegate is not None else ()
    with lg.Model.from_file(lib, str(path_of(name))) as m, \
            lg.Interpreter(lib, m, num_threads=2, delegates=delegates,
                           mediapipe_ops=model.get("mediapipe_ops", False)
                           ) as interp:
        interp.allocate_tensors()
        shapes = [interp.input(i).shape for i in range(interp.input_count)]
        for i, x in enumerate(inputs_for(shapes)):
            interp.set_input(i, x)
        interp.invoke()
        outputs = [interp.get_output(i) for i in range(interp.output_count)]
        extra = None
        if delegate is not None:
            extra = (delegate.decisions(), delegate.stats())
        return outputs, shapes, extra


_CPU = {}


def cpu_outputs(name):
    if name not in _CPU:
        _CPU[name] = run_litegpu(name)
    return _CPU[name]


_LITERT = {}


def litert_outputs(name, shapes):
    """LiteRT's default and reference kernels' outputs, or None when LiteRT
    cannot run the model (MediaPipe's custom ops)."""
    if name in _LITERT:
        return _LITERT[name]
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    runs = []
    for resolver in (OpResolverType.AUTO, OpResolverType.BUILTIN_REF):
        try:
            interp = Interpreter(model_path=str(path_of(name)), num_threads=2,
                                 experimental_op_resolver_type=resolver)
            interp.allocate_tensors()
        except RuntimeError:
            _LITERT[name] = None
            return None
        for d, x in zip(interp.get_input_details(), inputs_for(shapes)):
            interp.set_tensor(d["index"], x)
        interp.invoke()
        runs.append([interp.get_tensor(d["index"])
                     for d in interp.get_output_details()])
    _LITERT[name] = runs
    return runs


def spreads(name):
    """Per output: LiteRT's XNNPACK kernels against its reference kernels
    (0 where LiteRT cannot run the model)."""
    outputs, shapes, _ = cpu_outputs(name)
    litert = litert_outputs(name, shapes)
    if litert is None:
        return [0.0] * len(outputs)
    return [error(x, r) for x, r in zip(*litert)]


def bounds(name, fp16):
    if fp16:
        return [max(FP16_BOUND, 2048 * s) for s in spreads(name)]
    return [max(FP32_FLOOR, 4 * s) for s in spreads(name)]


def record(name, key, value):
    REPORT.setdefault(name, {})[key] = value
    (CORPUS / "report.json").write_text(json.dumps(REPORT, indent=1) + "\n")


def test_files_match_the_manifest():
    import hashlib
    for model in MANIFEST["models"]:
        data = path_of(model["name"]).read_bytes()
        assert len(data) == model["bytes"], model["name"]
        assert hashlib.sha256(data).hexdigest() == model["sha256"], \
            model["name"]


def test_unsupported_models_fail_clearly():
    # Every model of the corpus runs today (none is marked "unsupported");
    # an entry marked so must still fail with the message it names, with
    # its reason given.
    for name in UNSUPPORTED:
        entry = MODELS[name]["unsupported"]
        assert entry["why"], name
        with pytest.raises(lg.LiteGpuError) as info:
            run_litegpu(name)
        assert entry["error"] in str(info.value), name
    assert len(RUNS) + len(UNSUPPORTED) == len(MODELS)
    assert "face_landmark_with_attention" in RUNS


@pytest.mark.parametrize("name", RUNS)
def test_cpu_matches_litert(name):
    outputs, shapes, _ = cpu_outputs(name)
    litert = litert_outputs(name, shapes)
    if litert is None:
        # Only the models with MediaPipe's custom ops, which LiteRT lacks:
        # their CPU kernels are checked against LiteRT's equivalent builtins
        # or numpy references in test_mediapipe_ops.py, and the GPU runs
        # below against them; a model with "litert_lacks" in pieces too.
        assert MODELS[name].get("mediapipe_ops"), name
        if "litert_lacks" in MODELS[name]:
            check_cpu_in_pieces(name, shapes)
        return
    errors = [error(x, r) for x, r in zip(outputs, litert[0])]
    record(name, "cpu_vs_litert", errors)
    record(name, "litert_spread", spreads(name))
    for k, (e, bound) in enumerate(zip(errors, bounds(name, False))):
        assert e <= bound, f"output {k}: {e:.3g} > {bound:.3g}"


@pytest.fixture
def half_storage_hook():
    """PoCL has no fp16: OpenCL's half storage through the test hook."""
    old = os.environ.get("LITEGPU_OPENCL_TEST_FP16_STORAGE")
    os.environ["LITEGPU_OPENCL_TEST_FP16_STORAGE"] = "1"
    yield
    if old is None:
        del os.environ["LITEGPU_OPENCL_TEST_FP16_STORAGE"]
    else:
        os.environ["LITEGPU_OPENCL_TEST_FP16_STORAGE"] = old


@pytest.mark.parametrize("fp16", [False, True], ids=["fp32", "fp16"])
@pytest.mark.parametrize("backend", ["cl", "vk"])
@pytest.mark.parametrize("name", RUNS)
def test_gpu_runs_whole_and_matches_cpu(name, backend, fp16,
                                        half_storage_hook):
    cpu, shapes, _ = cpu_outputs(name)
    lib = lg.load_library()
    model = MODELS[name]
    partitions = model.get("gpu_partitions", 1)
    with lg.GpuDelegate(lib, backend, precision_loss=fp16,
                        max_delegated_partitions=partitions) as delegate:
        outputs, _, (decisions, stats) = run_litegpu(name, delegate)
    refused = [(i, r) for i, r in decisions.items() if r]
    leaves = set(model.get("gpu_leaves_to_cpu", ()))
    key = f"{backend}_{'fp16' if fp16 else 'fp32'}"
    errors = [error(x, c) for x, c in zip(outputs, cpu)]
    in_bytes = sum(int(np.prod(s)) * 4 for s in shapes)
    out_bytes = sum(c.nbytes for c in cpu)
    if stats.fp16:
        in_bytes //= 2
        out_bytes //= 2
    record(name, key, {"nodes": len(decisions),
                       "claimed": len(decisions) - len(refused),
                       "partitions": stats.partitions,
                       "bytes_per_invoke": stats.bytes_uploaded +
                       stats.bytes_downloaded,
                       "error": errors})
    assert bool(stats.fp16) == fp16
    if not leaves:
        assert not refused, f"refused: {refused[:5]}"
        assert stats.partitions == 1
        assert stats.bytes_uploaded == in_bytes
        assert stats.bytes_downloaded == out_bytes
    else:
        nodes = graph_facts(model.get("base", name))[0]
        assert [i for i, _ in refused] == \
            [i for i, (op, _, _) in enumerate(nodes) if op in leaves]
        assert stats.partitions == partitions
        up, down = gpu_boundary_bytes(
            model.get("base", name),
            {i for i, r in decisions.items() if not r})
        if stats.fp16:
            up //= 2
            down //= 2
        assert stats.bytes_uploaded == up
        assert stats.bytes_downloaded >= down
    for k, (e, bound) in enumerate(zip(errors, bounds(name, fp16))):
        assert e <= bound, f"output {k}: {e:.3g} > {bound:.3g}"


@pytest.mark.parametrize("name", [n for n, m in MODELS.items()
                                  if m.get("mediapipe_ops") and
                                  "unsupported" not in m and "base" not in m])
def test_benchmark_model_runs_mediapipe_ops_on_the_cpu(name):
    """The tools register litegpu's kernels for MediaPipe's custom ops, so
    benchmark_model runs these models on the CPU (before, the CPU row
    failed on "unresolved custom op: Convolution2DTransposeBias")."""
    import subprocess
    build = Path(os.environ.get("LITEGPU_BUILD_DIR") or
                 REPO / "build" / "release")
    proc = subprocess.run(
        [str(build / "benchmark_model"), f"--graph={path_of(name)}",
         "--num_runs=1", "--warmup_runs=0", "--min_secs=0",
         "--warmup_min_secs=0", "--report=json"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["inference"]["count"] >= 1, report["inference"]
