"""Selective registration (docs/selective_registration.md).

The tool selective_registration reads models and writes a kernel table of
only the ops they use; its rows are checked against the ops LiteRT's own
schema reader (ai_edge_litert.schema_py_generated) finds in each model's
operators, every subgraph included. The build links one program,
tests/selective/selective_run.c, against the full library and against the
selective tables of hello_world and MobileNetV2 (tests/CMakeLists.txt):
a selective program gives the full one's outputs byte for byte (and
hello_world's agrees with LiteRT), holds only its models' kernels, and
refuses an op outside its table, or a version outside the table's range,
with TFLite's message naming op and version.
"""

import os
import re
import subprocess
from pathlib import Path

import flatbuffers
import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.interpreter import Interpreter

import op_harness

REPO = Path(__file__).resolve().parents[2]
BUILD = op_harness.build_dir()
TOOL = BUILD / "selective_registration"
SHARED = Path(os.environ.get("LITEGPU_SHARED_DIR", REPO / "tests" / "shared"))
HELLO = SHARED / "models" / "tflite-micro" / "hello_world_float.tflite"
MOBILENET = REPO / "tests" / "models" / "mobilenet_v2.tflite"

OP_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items()
            if not k.startswith("_")}
CUSTOM = schema.BuiltinOperator.CUSTOM

# The manifest's CPU ranges: builtin rows by schema name, and the custom
# ops litegpu runs on the CPU by custom name.
_MANIFEST = (REPO / "ops" / "ops.def").read_text()
CPU_RANGE = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(
    r"LG_OP\(\s*(\w+),\s*\w+,\s*\w+,\s*CPU\((\d+),\s*(\d+)\)", _MANIFEST)}
CPU_CUSTOM = set(re.findall(
    r'LG_CUSTOM_OP\(\s*\w+,\s*"([^"]+)",\s*\w+,\s*CPU\(', _MANIFEST))

ROW = re.compile(r"^    \{kTfLiteBuiltin(\w+), (\d+), (\d+), "
                 r"lg_register_(\w+)\},$", re.M)
CUSTOM_ROW = re.compile(r'^    \{"([^"]+)", (\d+), (\d+), '
                        r"lg_register_(\w+)\},$", re.M)

NOT_FOUND = ("Didn't find op for builtin opcode '{}' version '{}'. An older "
             "version of this builtin might be supported. Are you using an "
             "old TFLite binary with a newer model?")


def binary(name):
    path = BUILD / name
    if not path.is_file():
        pytest.skip(f"{path} is not built")
    return path


def run(*args, check=None):
    proc = subprocess.run([str(a) for a in args], capture_output=True,
                          text=True, timeout=120)
    if check is not None:
        assert proc.returncode == check, proc.stderr
    return proc


def generate(*models):
    """The table the tool writes for `models` (stdout)."""
    return run(binary("selective_registration"), *models, check=0).stdout


def schema_ops(*models):
    """What LiteRT's reader finds: {builtin name: versions} and
    {custom name: versions} over every operator of every subgraph."""
    builtins, customs = {}, {}
    for path in models:
        m = schema.ModelT.InitFromPackedBuf(Path(path).read_bytes(), 0)
        for g in m.subgraphs:
            for op in g.operators or []:
                code = m.operatorCodes[op.opcodeIndex]
                b = max(code.builtinCode, code.deprecatedBuiltinCode)
                if b == CUSTOM:
                    customs.setdefault(code.customCode.decode(), set()).add(
                        code.version)
                else:
                    builtins.setdefault(OP_NAMES[b], set()).add(code.version)
    return builtins, customs


def table_rows(source):
    builtins = {}
    for constant, lo, hi, name in ROW.findall(source):
        assert name not in builtins, f"two rows for {name}"
        builtins[name] = (int(lo), int(hi))
        # The enum constant is the manifest row's (FULLY_CONNECTED ->
        # kTfLiteBuiltinFullyConnected).
        assert constant.lower() == name.replace("_", "").lower(), name
    customs = {c: (int(lo), int(hi)) for c, lo, hi, _ in
               CUSTOM_ROW.findall(source)}
    return builtins, customs


def check_table(source, *models):
    want_builtins, want_customs = schema_ops(*models)
    builtins, customs = table_rows(source)
    assert builtins == {k: (min(v), max(v)) for k, v in
                        want_builtins.items()}
    assert customs == {k: (min(v), max(v)) for k, v in want_customs.items()
                       if k in CPU_CUSTOM}
    comment = source[:source.index("*/")]
    for name in want_customs.keys() - CPU_CUSTOM:
        # Listed for the application to register, not in the table.
        assert re.search(rf"^ \*   {re.escape(name)}:", comment, re.M), name
    # The declarations name exactly the rows' kernels.
    declared = set(re.findall(
        r"^const TfLiteRegistration\* lg_register_(\w+)\(void\);$", source,
        re.M))
    assert declared == set(builtins) | {
        n for _, _, _, n in CUSTOM_ROW.findall(source)}


@pytest.mark.parametrize("model", [
    "all_ops.tflite", "all_ops_dynamic.tflite", "all_ops_extra.tflite",
    "all_ops_fp16w.tflite", "all_ops_jax.tflite", "mobilenet_v2.tflite",
    "control_flow/lstm_keras.tflite", "detect/nms_graph.tflite"])
def test_table_matches_schema_reader(model):
    path = REPO / "tests" / "models" / model
    check_table(generate(path), path)


def test_table_of_hello_world():
    source = generate(HELLO)
    check_table(source, HELLO)
    assert table_rows(source) == ({"FULLY_CONNECTED": (1, 1)}, {})
    assert ("FULLY_CONNECTED 1..1: hello_world_float.tflite v1 "
            "(3 operators)") in source


@pytest.fixture(scope="module")
def spec_models(tmp_path_factory):
    """Two models written by model_builder: several versions of one op,
    a second subgraph, a custom op litegpu runs and one it does not."""
    root = tmp_path_factory.mktemp("selective")
    first = root / "first.tflite"
    (root / "first.spec").write_text(
        "tensor x FLOAT32 4\ntensor y FLOAT32 4\ntensor z FLOAT32 4\n"
        "tensor w FLOAT32 4\ntensor v FLOAT32 4\n"
        "op ADD 1 in=x,x out=y\nop ADD 2 in=y,y out=z\n"
        "custom NumericVerify 1 in=z,z out=w\n"
        "custom AppOnly_Op 3 in=w out=v\n"
        "inputs x\noutputs v\n"
        "subgraph body\ntensor a FLOAT32 2\ntensor b FLOAT32 2\n"
        "op MUL 3 in=a,a out=b\ninputs a\noutputs b\n")
    op_harness.build_model(root / "first.spec", first)
    second = root / "second.tflite"
    (root / "second.spec").write_text(
        "tensor x FLOAT32 4\ntensor y FLOAT32 4\ntensor z FLOAT32 4\n"
        "op ADD 4 in=x,x out=y\nop MUL 3 in=y,y out=z\n"
        "inputs x\noutputs z\n")
    op_harness.build_model(root / "second.spec", second)
    return root, first, second


def test_table_of_several_models_and_subgraphs(spec_models):
    _, first, second = spec_models
    source = generate(first, second)
    check_table(source, first, second)
    # Hand-derived from the specs.
    assert table_rows(source) == ({"ADD": (1, 4), "MUL": (3, 3)},
                                  {"NumericVerify": (1, 1)})
    assert ("ADD 1..4: first.tflite v1 (1 operator), first.tflite v2 "
            "(1 operator), second.tflite v4 (1 operator)") in source
    assert ("MUL 3..3: first.tflite v3 (1 operator), second.tflite v3 "
            "(1 operator)") in source
    assert " *   AppOnly_Op: first.tflite v3 (1 operator)" in source
    assert '"AppOnly_Op"' not in source


def test_tool_refuses_ops_without_a_cpu_kernel(spec_models, tmp_path):
    root = spec_models[0]
    bad = tmp_path / "bad.tflite"
    (tmp_path / "bad.spec").write_text(
        "tensor x FLOAT32 4\ntensor y FLOAT32 4\ntensor z FLOAT32 4\n"
        "op STABLEHLO_LOGISTIC 1 in=x out=y\nop ADD 99 in=y,y out=z\n"
        "inputs x\noutputs z\n")
    op_harness.build_model(tmp_path / "bad.spec", bad)
    out = tmp_path / "table.c"
    proc = run(binary("selective_registration"), f"--output={out}",
               root / "second.tflite", bad, check=1)
    lo, hi = CPU_RANGE["ADD"]
    assert (f"{bad}: litegpu has no CPU kernel for STABLEHLO_LOGISTIC "
            "(builtin code 162, version 1)") in proc.stderr
    assert (f"{bad}: ADD version 99 is not supported: litegpu's CPU kernel "
            f"runs versions {lo} to {hi}") in proc.stderr
    assert not out.exists()
    # A good model alone writes the file.
    run(binary("selective_registration"), f"--output={out}",
        root / "second.tflite", check=0)
    assert table_rows(out.read_text())[0] == {"ADD": (4, 4), "MUL": (3, 3)}


def test_tool_command_line(tmp_path):
    tool = binary("selective_registration")
    assert "litegpu_add_selective_library" in run(tool, "--help",
                                                  check=0).stdout
    assert "no model given" in run(tool, check=2).stderr
    assert "unknown argument --bogus" in run(tool, "--bogus", HELLO,
                                             check=2).stderr
    assert "cannot read" in run(tool, tmp_path / "missing.tflite",
                                check=1).stderr


# ---- The selective programs ----------------------------------------------


def program_output(name, model):
    proc = run(binary(f"tests/{name}"), model)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def float_outputs(text):
    """The float32 values of selective_run's first output."""
    lines = text.splitlines()
    assert lines[0].startswith("output 0 FLOAT32 ")
    data = bytes.fromhex("".join(lines[1:]))
    return np.frombuffer(data, dtype="<f4")


def test_hello_world_selective_matches_full_and_litert():
    selective = program_output("selective_run_hello", HELLO)
    assert selective == program_output("selective_run_full", HELLO)
    # selective_run's input: element 0 gets ((0 * 37) % 101) / 50 - 1.
    interpreter = Interpreter(model_path=str(HELLO))
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]
    interpreter.set_tensor(inp["index"],
                           np.full(inp["shape"], -1.0, np.float32))
    interpreter.invoke()
    want = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    np.testing.assert_allclose(float_outputs(selective), want.ravel(),
                               rtol=1e-5, atol=1e-6)


def test_mobilenet_selective_matches_full():
    selective = program_output("selective_run_mobilenet", MOBILENET)
    assert selective == program_output("selective_run_full", MOBILENET)
    assert float_outputs(selective).size == 1000


def kernels_linked(name):
    out = run("nm", binary(f"tests/{name}"), check=0).stdout
    # The kernels' getters, lg_register_<NAME> (the manifest's names).
    return set(re.findall(r" lg_register_([A-Z0-9_]+)$", out, re.M))


def test_selective_programs_leave_other_kernels_out():
    full = kernels_linked("selective_run_full")
    hello = kernels_linked("selective_run_hello")
    mobilenet = kernels_linked("selective_run_mobilenet")
    assert len(full) == len(CPU_RANGE) + len(CPU_CUSTOM)
    mobilenet_ops = {"ADD", "CONV_2D", "DEPTHWISE_CONV_2D",
                     "FULLY_CONNECTED", "SOFTMAX", "MEAN"}
    assert "FULLY_CONNECTED" in hello
    assert mobilenet_ops <= mobilenet
    # A kernel file holding several ops comes whole (binary.c: ADD with
    # SUB, MUL, ...), and the resource-variable and hashtable kernels
    # hold the release functions the interpreter calls; nothing else.
    assert not hello & (mobilenet_ops - {"FULLY_CONNECTED"})
    for absent in ("CONV_2D", "LSTM", "RESHAPE", "CONCATENATION", "GATHER",
                   "WHILE", "DETECTION_POSTPROCESS"):
        assert absent not in hello
    for absent in ("LSTM", "RESHAPE", "CONCATENATION", "GATHER", "WHILE",
                   "TRANSPOSE_CONV"):
        assert absent not in mobilenet
    assert len(hello) < 16 and len(mobilenet) < 40


def test_op_outside_the_table_is_refused():
    proc = run(binary("tests/selective_run_hello"), MOBILENET, check=1)
    assert NOT_FOUND.format("CONV_2D", 1) in proc.stderr
    assert "Registration failed." in proc.stderr
    assert "TfLiteInterpreterCreate failed" in proc.stderr


def test_version_outside_the_range_is_refused(tmp_path):
    # hello_world with its FULLY_CONNECTED recorded as version 2: the full
    # library runs it, the table of hello_world holds version 1 only.
    m = schema.ModelT.InitFromPackedBuf(HELLO.read_bytes(), 0)
    assert [c.version for c in m.operatorCodes] == [1]
    m.operatorCodes[0].version = 2
    builder = flatbuffers.Builder(4096)
    builder.Finish(m.Pack(builder), file_identifier=b"TFL3")
    model = tmp_path / "hello_fc_v2.tflite"
    model.write_bytes(builder.Output())
    assert (program_output("selective_run_full", model) ==
            program_output("selective_run_full", HELLO))
    proc = run(binary("tests/selective_run_hello"), model, check=1)
    assert NOT_FOUND.format("FULLY_CONNECTED", 2) in proc.stderr
    assert ("FULLY_CONNECTED version 2 is not supported: this runtime "
            "supports versions 1 to 1.") in proc.stderr
