"""Models written by litegpu's model writer, loaded and run by LiteRT itself.

Each test asks tools/make_test_model (found in $LITEGPU_BUILD_DIR, default
build/release in the checkout) to write one named model, loads it in LiteRT's
Interpreter, runs it on fixed inputs and compares the outputs with values
derived here by hand or with numpy from the same constants the C tool uses.
Fields that LiteRT's Python API does not expose (metadata, description, raw
operator codes, Buffer offset/size) are read with the schema reader that
LiteRT ships (ai_edge_litert.schema_py_generated), and LiteRT's model
analyzer, which runs the FlatBuffers verifier, must accept every file.

The builtin_ops.h check at the end compares litegpu's operator codes with the
schema's BuiltinOperator enum.
"""

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

try:
    from ai_edge_litert.interpreter import Interpreter
except ImportError:  # setup.sh may install tflite-runtime instead
    from tflite_runtime.interpreter import Interpreter

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR", REPO / "build" / "release"))

# The constants of tools/make_test_model.c; change both together.
ADD_CONST = np.array([[0.5, -1.0, 2.0, 3.25, -4.0]], dtype=np.float32)
FC_WEIGHTS = np.array(
    [[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0], [0.5, -0.5, 1.0], [2.0, 0.0, -1.0]],
    dtype=np.float32,
)
FC_BIAS = np.array([0.5, -1.0, 0.0, 0.25], dtype=np.float32)
TWO_ADD = np.array([[1.0, 2.0, 3.0, 4.0]], dtype=np.float32)
QUANT_SCALE = 0.5
QUANT_ZERO_POINT = -3
MIN_RUNTIME_VERSION = b"1.5.0"
DESCRIPTION = b"litegpu add_const test model"

ALL_MODELS = [
    ("add_const", []),
    ("fc_relu", []),
    ("add_atan", []),
    ("big_weights", ["4000000"]),
    ("two_subgraphs", []),
    ("external_buffers", []),
    ("quant_dequant", []),
]


def litert_module(name):
    """A module of the ai_edge_litert package; fails (never skips) without it."""
    try:
        return __import__(f"ai_edge_litert.{name}", fromlist=[name])
    except ImportError as e:
        pytest.fail(f"ai_edge_litert.{name} is needed for this check: {e}")


@pytest.fixture(scope="session")
def tool():
    path = BUILD_DIR / "make_test_model"
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"make_test_model not found at {path}: build the project "
            "(cmake --build <dir>) and point LITEGPU_BUILD_DIR at that build "
            "directory"
        )
    return path


def write_model(tool, tmp_path, name, *extra):
    out = tmp_path / f"{name}.tflite"
    proc = subprocess.run(
        [str(tool), name, str(out), *extra], capture_output=True, text=True
    )
    assert proc.returncode == 0, f"make_test_model {name} failed:\n{proc.stderr}"
    assert proc.stdout.startswith(f"wrote {name} to {out}"), proc.stdout
    return out


def run_model(path, x):
    interpreter = Interpreter(model_path=str(path))
    interpreter.allocate_tensors()
    (inp,) = interpreter.get_input_details()
    (out,) = interpreter.get_output_details()
    assert tuple(inp["shape"]) == x.shape
    interpreter.set_tensor(inp["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(out["index"])


def read_schema_model(path):
    schema = litert_module("schema_py_generated")
    data = path.read_bytes()
    assert data[4:8] == b"TFL3"
    model = schema.Model.GetRootAs(data, 0)
    assert model.Version() == 3
    return model, data


def metadata_of(model):
    """Metadata name -> (buffer index, bytes) as the schema reader sees it."""
    result = {}
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        buffer = model.Buffers(entry.Buffer())
        result[entry.Name().decode()] = (entry.Buffer(), buffer.DataAsNumpy())
    return result


def inline_data_position(buffer):
    """The file position of a Buffer's inline data (its first byte)."""
    field = buffer._tab.Offset(4)  # vtable slot of field 0, `data`
    return buffer._tab.Vector(field)


# ---- Running the models -----------------------------------------------------


def test_add_const(tool, tmp_path):
    path = write_model(tool, tmp_path, "add_const")
    x = np.array([[1.0, -2.0, 3.5, 0.0, 10.0]], dtype=np.float32)
    np.testing.assert_array_equal(run_model(path, x), x + ADD_CONST)


def test_add_const_signature(tool, tmp_path):
    path = write_model(tool, tmp_path, "add_const")
    interpreter = Interpreter(model_path=str(path))
    assert interpreter.get_signature_list() == {
        "serving_default": {"inputs": ["x"], "outputs": ["y"]}
    }
    runner = interpreter.get_signature_runner("serving_default")
    x = np.array([[4.0, 3.0, 2.0, 1.0, 0.0]], dtype=np.float32)
    np.testing.assert_array_equal(runner(x=x)["y"], x + ADD_CONST)
    names = [t["name"] for t in interpreter.get_tensor_details()]
    assert names == ["x", "c", "y"]


def test_add_const_metadata(tool, tmp_path):
    path = write_model(tool, tmp_path, "add_const")
    model, _ = read_schema_model(path)
    assert model.Description() == DESCRIPTION
    assert model.Subgraphs(0).Name() == b"main"
    metadata = metadata_of(model)
    assert set(metadata) == {"min_runtime_version", "litegpu_note"}
    # TFLite's layout: 16 bytes, zero-filled, the string without terminator.
    _, version = metadata["min_runtime_version"]
    expected = MIN_RUNTIME_VERSION + bytes(16 - len(MIN_RUNTIME_VERSION))
    assert version.tobytes() == expected
    assert metadata["litegpu_note"][1].tobytes() == b"add_const"


def test_buffer_data_aligned(tool, tmp_path):
    path = write_model(tool, tmp_path, "add_const")
    model, data = read_schema_model(path)
    assert model.Buffers(0).DataIsNone()  # the empty sentinel
    checked = 0
    for i in range(1, model.BuffersLength()):
        buffer = model.Buffers(i)
        if buffer.DataIsNone():
            continue
        position = inline_data_position(buffer)
        assert position % 16 == 0, f"buffer {i} data at {position}"
        assert data[position : position + buffer.DataLength()] == (
            buffer.DataAsNumpy().tobytes()
        )
        checked += 1
    assert checked == 3  # the constant and two metadata buffers


def test_fc_relu(tool, tmp_path):
    path = write_model(tool, tmp_path, "fc_relu")
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=np.float32)
    expected = np.maximum(x @ FC_WEIGHTS.T + FC_BIAS, 0.0)
    assert (expected == 0).any() and (expected > 0).any()  # RELU matters
    np.testing.assert_allclose(run_model(path, x), expected, rtol=1e-6)
    model, _ = read_schema_model(path)
    code = model.OperatorCodes(0)
    assert (code.DeprecatedBuiltinCode(), code.BuiltinCode()) == (9, 9)
    assert code.Version() == 1


def test_add_atan_is_unresolved(tool, tmp_path):
    path = write_model(tool, tmp_path, "add_atan")
    interpreter = Interpreter(model_path=str(path))
    ops = [op["op_name"] for op in interpreter._get_ops_details()]
    assert ops == ["ADD", "Atan"]
    # LiteRT has no Atan kernel: preparing the graph fails.
    with pytest.raises(RuntimeError, match="Encountered unresolved custom op: Atan"):
        interpreter.allocate_tensors()
    model, _ = read_schema_model(path)
    code = model.OperatorCodes(1)
    assert code.CustomCode() == b"Atan"
    assert (code.DeprecatedBuiltinCode(), code.BuiltinCode()) == (32, 32)
    assert model.Subgraphs(0).Operators(1).CustomOptionsIsNone()


def test_big_weights(tool, tmp_path):
    size = 4_000_000  # 1000 x 1000 float32
    path = write_model(tool, tmp_path, "big_weights", str(size))
    assert size <= path.stat().st_size < size + 4096
    k = np.arange(size // 4)
    weights = ((k % 17) * 0.125 - 1.0).astype(np.float32).reshape(1000, 1000)
    x = (((np.arange(1000) % 5) - 2) * 0.5).astype(np.float32).reshape(1, 1000)
    # Multiples of 1/16 well inside float32's range: the sums are exact.
    np.testing.assert_array_equal(run_model(path, x), x @ weights.T)


def test_two_subgraphs(tool, tmp_path):
    path = write_model(tool, tmp_path, "two_subgraphs")
    interpreter = Interpreter(model_path=str(path))
    assert interpreter.num_subgraphs() == 2
    assert interpreter.get_signature_list() == {
        "add": {"inputs": ["x"], "outputs": ["y"]},
        "square": {"inputs": ["a"], "outputs": ["z"]},
    }
    x = np.array([[0.5, -1.0, 2.0, 3.0]], dtype=np.float32)
    add = interpreter.get_signature_runner("add")
    np.testing.assert_array_equal(add(x=x)["y"], x + TWO_ADD)
    square = interpreter.get_signature_runner("square")
    np.testing.assert_array_equal(square(a=x)["z"], x * x)
    model, _ = read_schema_model(path)
    assert [model.Subgraphs(i).Name() for i in range(2)] == [b"main", b"square"]
    assert model.SignatureDefs(1).SubgraphIndex() == 1


def test_external_buffers(tool, tmp_path):
    path = write_model(tool, tmp_path, "external_buffers")
    x = np.array([[1.0, 1.0, 1.0, 1.0, 1.0]], dtype=np.float32)
    np.testing.assert_array_equal(run_model(path, x), x + ADD_CONST)
    # The same bytes handed over in memory: offsets count from their start.
    interpreter = Interpreter(model_content=path.read_bytes())
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    out = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    np.testing.assert_array_equal(out, x + ADD_CONST)


def test_external_buffers_layout(tool, tmp_path):
    path = write_model(tool, tmp_path, "external_buffers")
    model, data = read_schema_model(path)
    metadata = metadata_of(model)
    assert metadata["buffer_location"][1].tobytes() == b"outside flatbuffers"
    constant = model.Buffers(model.Subgraphs(0).Tensors(1).Buffer())
    assert constant.DataIsNone()
    offset, size = constant.Offset(), constant.Size()
    assert offset > 1 and offset % 16 == 0
    assert size == ADD_CONST.nbytes
    assert data[offset : offset + size] == ADD_CONST.tobytes()
    # The data follows the FlatBuffer, and 16 zero bytes follow the data.
    location = model.Buffers(metadata["buffer_location"][0])
    assert offset >= inline_data_position(location) + location.DataLength()
    assert data[offset + size :] == bytes(len(data) - offset - size)
    assert len(data) - offset - size >= 16


def test_quant_dequant(tool, tmp_path):
    path = write_model(tool, tmp_path, "quant_dequant")
    x = np.array([[0.3, -1.2, 2.6, 100.0]], dtype=np.float32)
    q = np.clip(np.round(x / QUANT_SCALE) + QUANT_ZERO_POINT, -128, 127)
    expected = (q - QUANT_ZERO_POINT) * QUANT_SCALE
    np.testing.assert_array_equal(run_model(path, x), expected.astype(np.float32))
    interpreter = Interpreter(model_path=str(path))
    (q_tensor,) = [t for t in interpreter.get_tensor_details() if t["name"] == "q"]
    assert q_tensor["dtype"] == np.int8
    params = q_tensor["quantization_parameters"]
    np.testing.assert_array_equal(params["scales"], [QUANT_SCALE])
    np.testing.assert_array_equal(params["zero_points"], [QUANT_ZERO_POINT])
    assert params["quantized_dimension"] == 0


@pytest.mark.parametrize("name,extra", ALL_MODELS, ids=[m[0] for m in ALL_MODELS])
def test_litert_verifier_accepts(tool, tmp_path, name, extra):
    path = write_model(tool, tmp_path, name, *extra)
    analyzer = litert_module("_pywrap_analyzer_wrapper")
    report = analyzer.ModelAnalyzer(str(path), True, False)
    assert "not a valid Flatbuffer" not in report
    assert "Your TFLite model has" in report, report


# ---- Operator codes ---------------------------------------------------------


def camel_case(schema_name):
    """CONV_2D -> Conv2d, the spelling of kTfLiteBuiltin* names."""
    return "".join(part[:1].upper() + part[1:].lower() for part in schema_name.split("_"))


def test_builtin_ops_header_matches_schema():
    schema = litert_module("schema_py_generated")
    header = (REPO / "include" / "tensorflow" / "lite" / "builtin_ops.h").read_text()
    ours = {m[0]: int(m[1]) for m in re.findall(r"kTfLiteBuiltin(\w+)\s*=\s*(\d+)", header)}
    theirs = {
        camel_case(name): value
        for name, value in vars(schema.BuiltinOperator).items()
        if not name.startswith("_")
    }
    assert len(ours) > 200
    mismatched = {k: (v, theirs.get(k)) for k, v in ours.items() if theirs.get(k) != v}
    assert not mismatched, f"builtin_ops.h differs from the schema: {mismatched}"
    missing = sorted(set(theirs) - set(ours))
    assert not missing, f"schema operators missing from builtin_ops.h: {missing}"
