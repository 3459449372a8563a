"""Invalid quantization parameters in real quantized models fail cleanly.

For every quantized activation and weight tensor of the converter-made
int8 and 16x8 models and tflite-micro's hello_world_int8, each of these
mutations is written into a copy of the file (through LiteRT's own schema
object API): a zero, negative, NaN or infinite scale; a zero point outside
the tensor type's range; one scale too many for a per-channel tensor. The
interpreter must then refuse the model when it is created or its tensors
allocated (the interpreter checks every INT8 / INT16 tensor's
quantization as it builds the graph, kernels their own tensors again in
Prepare), with a message naming the tensor and what is wrong, never crash
(the ASan+UBSan step of scripts/test.sh runs this file too) and never run
with the bad parameters.
"""

import math
import sys
from pathlib import Path

import flatbuffers
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402

from ai_edge_litert import schema_py_generated as schema  # noqa: E402

QUANTIZED = lg.REPO_ROOT / "tests" / "models" / "quantized"
MODELS = [QUANTIZED / "kws_cnn_int8.tflite", QUANTIZED / "kws_cnn_16x8.tflite",
          QUANTIZED / "tiny_transformer_int8.tflite",
          lg.REPO_ROOT / "tests" / "shared" / "models" / "tflite-micro" /
          "hello_world_int8.tflite"]

TYPE_RANGE = {schema.TensorType.INT8: (-128, 127),
              schema.TensorType.INT16: (-32768, 32767)}


def activation_and_weight_tensors(model):
    """(index, name, type, per_channel) of the INT8 / INT16 tensors with
    quantization that some operator reads or writes."""
    graph = model.subgraphs[0]
    used = set()
    for op in graph.operators:
        used.update(i for i in op.inputs if i >= 0)
        used.update(i for i in op.outputs if i >= 0)
    found = []
    for i, t in enumerate(graph.tensors):
        q = t.quantization
        if i in used and t.type in TYPE_RANGE and q is not None and \
                q.scale is not None and len(q.scale) > 0:
            found.append((i, t.name.decode(), t.type, len(q.scale) > 1))
    return found


def mutations(tensor_type, per_channel):
    lo, hi = TYPE_RANGE[tensor_type]
    scale_rule = r"a quantization scale must be finite and greater than 0"
    type_name = "INT8" if lo == -128 else "INT16"
    out = [("scale", 0.0, rf"scale 0\b.*{scale_rule}"),
           ("scale", -0.5, rf"scale -0.5\b.*{scale_rule}"),
           ("scale", math.nan, rf"scale nan\b.*{scale_rule}"),
           ("scale", math.inf, rf"scale inf\b.*{scale_rule}"),
           ("zero_point", hi + 1,
            rf"zero point {hi + 1}\b.*outside {type_name}'s range"),
           ("zero_point", lo - 1,
            rf"zero point {lo - 1}\b.*outside {type_name}'s range")]
    if per_channel:
        out.append(("extra_scale", None, r"\d+ scales for dimension \d+"))
    return out


def mutated(buffer, index, what, value):
    model = schema.ModelT.InitFromPackedBuf(buffer, 0)
    q = model.subgraphs[0].tensors[index].quantization
    scale = [float(s) for s in q.scale]
    zero_point = [int(z) for z in q.zeroPoint]
    if what == "scale":
        scale = [value] * len(scale)
    elif what == "zero_point":
        zero_point = [value] * len(zero_point)
    else:
        scale = scale + [scale[0]]
        zero_point = zero_point + [zero_point[0]]
    q.scale = np.array(scale, np.float32)
    q.zeroPoint = np.array(zero_point, np.int64)
    builder = flatbuffers.Builder(len(buffer) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def cases():
    out = []
    for path in MODELS:
        model = schema.ModelT.InitFromPackedBuf(path.read_bytes(), 0)
        for index, name, ttype, per_channel in \
                activation_and_weight_tensors(model):
            for what, value, match in mutations(ttype, per_channel):
                out.append(pytest.param(
                    path, index, name, what, value, match,
                    id=f"{path.stem}-t{index}-{what}-{value}"))
    return out


def test_the_models_have_quantized_tensors():
    # Guards the parametrization: hundreds of cases, not none.
    assert len(cases()) > 300


@pytest.mark.parametrize("path,index,name,what,value,match", cases())
def test_bad_quantization_is_refused(tmp_path, path, index, name, what,
                                     value, match):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(mutated(path.read_bytes(), index, what, value))
    lib = lg.load_library()
    with pytest.raises(lg.LiteGpuError) as caught:
        with lg.Model.from_file(lib, str(bad)) as model, \
                lg.Interpreter(lib, model) as interp:
            interp.allocate_tensors()
    message = str(caught.value)
    assert name in message, message
    assert __import__("re").search(match, message), message
