"""tools/inspect against what LiteRT's own schema reader sees in the file.

The expected operators, versions, tensors and shapes come from
ai_edge_litert.schema_py_generated reading the same file, never from litegpu.
"""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ai_edge_litert import schema_py_generated as schema
from graph_specs import FUSED_SPEC
from op_harness import Input, OpCase, Output, _CaseRun

REPO = Path(__file__).resolve().parents[1].parent
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR", REPO / "build" / "release"))
SHARED = Path(os.environ.get("LITEGPU_SHARED_DIR", REPO / "tests" / "shared"))
HELLO = SHARED / "models" / "tflite-micro" / "hello_world_float.tflite"

OP_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items()
            if not k.startswith("_")}
TYPE_NAMES = {v: k for k, v in vars(schema.TensorType).items()
              if not k.startswith("_")}


def inspect(*args):
    tool = BUILD_DIR / "inspect"
    assert tool.is_file(), f"{tool} is missing: build the project first"
    return subprocess.run([str(tool), *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def litert_view(path, subgraph=0):
    model = schema.Model.GetRootAs(path.read_bytes(), 0)
    graph = model.Subgraphs(subgraph)
    ops = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        ops.append((OP_NAMES[builtin], code.Version(),
                    list(op.InputsAsNumpy()), list(op.OutputsAsNumpy())))
    tensors = []
    for i in range(graph.TensorsLength()):
        t = graph.Tensors(i)
        tensors.append((t.Name().decode(), TYPE_NAMES[t.Type()],
                        list(t.ShapeAsNumpy()) if t.ShapeLength() else []))
    return ops, tensors


def test_json_matches_the_schema_reader():
    proc = inspect(HELLO, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    ops, tensors = litert_view(HELLO)
    assert [(o["op"], o["version"], o["inputs"], o["outputs"])
            for o in report["operators"]] == ops
    assert [(t["name"], t["type"], t["shape"])
            for t in report["tensors"]] == tensors
    assert report["schema_version"] == 3
    # hello_world records 1.5.0; FULLY_CONNECTED version 1 needs 1.5.0.
    assert report["min_runtime_version"] == "1.5.0"
    assert report["computed_min_runtime_version"] == "1.5.0"
    memory = report["memory"]
    assert 0 < memory["non_constant_tensor_bytes"] <= memory["arena_bytes"] + \
        memory["non_constant_tensor_bytes"]
    (reference,) = report["delegates"]
    assert reference["applied"] is True
    assert reference["partitions"] == [[0, 1, 2]]
    assert reference["rejected"] == []


def test_model_the_cpu_cannot_run_is_still_listed():
    # An INT16 ADD whose input has zero point 3 (INT16 quantization is
    # symmetric; LiteRT refuses it too) fails interpreter creation: inspect
    # still lists every operator and says why. (person_detect and seanet's
    # INT16 add0, once the examples here, now run.)
    a = np.array([[1, 2, 3]], np.int16)
    case = OpCase(op="ADD", version=3,
                  inputs=[Input(a, quant=(0.5, 0)), Input(a, quant=(0.5, 3))],
                  params={"pot_scale_int16": False},
                  outputs=[Output(np.int16, quant=(1.0, 0))])
    with _CaseRun(case) as run:
        run.build()
        model = Path(run.model)
        proc = inspect(model, "--json")
        # Listed, but not allocatable: exit status 1 (it was 0).
        assert proc.returncode == 1, proc.stderr
        assert "cannot allocate" in proc.stderr
        report = json.loads(proc.stdout)
        ops, tensors = litert_view(model)
    assert [(o["op"], o["version"]) for o in report["operators"]] == \
        [(o[0], o[1]) for o in ops] == [("ADD", 3)]
    assert len(report["tensors"]) == len(tensors)
    assert report["delegates"][0]["applied"] is False
    assert report["memory"] is None
    assert "zero point 3" in proc.stderr


def test_help():
    proc = inspect("--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: inspect MODEL")
    assert "Exit status" in proc.stdout


def test_bad_arguments():
    proc = inspect("--bogus")
    assert proc.returncode == 2
    assert "usage: inspect" in proc.stderr
    proc = inspect("/nonexistent/model.tflite")
    assert proc.returncode == 1
    assert "/nonexistent/model.tflite" in proc.stderr


CONTROL_FLOW = REPO / "tests" / "models" / "control_flow"


@pytest.mark.parametrize("name", ["while_cond", "two_signatures",
                                  "stream_state"])
def test_json_lists_every_subgraph_and_signature(name):
    path = CONTROL_FLOW / f"{name}.tflite"
    proc = inspect(path, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    model = schema.Model.GetRootAs(path.read_bytes(), 0)
    assert report["subgraphs"] == model.SubgraphsLength() > 1
    graphs = report["graphs"]
    assert [g["index"] for g in graphs] == list(
        range(1, model.SubgraphsLength()))
    for g in graphs:
        graph = model.Subgraphs(g["index"])
        assert g["name"] == (graph.Name() or b"").decode()
        assert g["inputs"] == list(graph.InputsAsNumpy()) \
            if graph.InputsLength() else g["inputs"] == []
        ops, tensors = litert_view(path, g["index"])
        assert [(o["op"], o["version"], o["inputs"], o["outputs"])
                for o in g["operators"]] == ops
        assert [(t["name"], t["type"], t["shape"])
                for t in g["tensors"]] == tensors
    want = []
    for i in range(model.SignatureDefsLength()):
        sig = model.SignatureDefs(i)
        want.append({
            "key": sig.SignatureKey().decode(),
            "subgraph": sig.SubgraphIndex(),
            "inputs": [{"name": sig.Inputs(k).Name().decode(),
                        "tensor": sig.Inputs(k).TensorIndex()}
                       for k in range(sig.InputsLength())],
            "outputs": [{"name": sig.Outputs(k).Name().decode(),
                         "tensor": sig.Outputs(k).TensorIndex()}
                        for k in range(sig.OutputsLength())],
        })
    assert report["signatures"] == want


def test_text_names_signatures():
    proc = inspect(CONTROL_FLOW / "two_signatures.tflite")
    assert proc.returncode == 0, proc.stderr
    assert "signatures (2):" in proc.stdout
    assert "'encode' on subgraph 1: inputs x=#0; outputs code=#5" in \
        proc.stdout
    assert "subgraph 1 'encode': inputs [0] outputs [5]" in proc.stdout


# ---- --delegate=gpu: the GPU delegate's preview --------------------------------

# graph_specs.FUSED_SPEC: the GPU takes nodes 0 and 3 in two partitions and
# leaves node 2 (CEIL) with TFLite's reason; the fused RELU and RELU6 (nodes
# 1 and 4) never reach it.
NO_OPENCL = {"LITEGPU_OPENCL_TEST_LIBRARY": "/nonexistent/libOpenCL.so.1"}


@pytest.fixture(scope="module")
def fused_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("inspect") / "fused.tflite"
    subprocess.run([str(BUILD_DIR / "model_builder"), "-", str(path)],
                   input=FUSED_SPEC.encode(), check=True, capture_output=True)
    return path


@pytest.mark.parametrize("backend,name", [("cl", "OpenCL"), ("vk", "Vulkan")])
def test_gpu_preview(fused_model, backend, name):
    proc = inspect(fused_model, "--json", "--delegate=gpu",
                   f"--gpu_backend={backend}")
    assert proc.returncode == 0, proc.stderr
    (gpu,) = json.loads(proc.stdout)["delegates"]
    assert gpu["name"] == "gpu" and gpu["applied"] is True
    assert gpu["backend"] == name and gpu["device"]
    assert gpu["partitions"] == 2 and gpu["claimed"] == [0, 3]
    assert gpu["rejected"] == [{"node": 2, "op": "CEIL", "version": 1,
                                "reason": "Operation is not supported."}]


def test_gpu_preview_text_and_all(fused_model):
    proc = inspect(fused_model, "--delegate=all")
    assert proc.returncode == 0, proc.stderr
    assert "delegate reference: 1 partition(s)" in proc.stdout
    assert "delegate gpu (" in proc.stdout and "): 2 partition(s)" in \
        proc.stdout
    assert "  claimed: [0,3]\n" in proc.stdout
    assert "  rejected #2 CEIL v1: Operation is not supported.\n" in \
        proc.stdout
    report = json.loads(inspect(fused_model, "--json", "--delegate=all").stdout)
    assert [d["name"] for d in report["delegates"]] == ["reference", "gpu"]


def test_gpu_preview_without_a_device(fused_model):
    env = dict(os.environ, **NO_OPENCL)
    proc = subprocess.run([str(BUILD_DIR / "inspect"), str(fused_model),
                           "--json", "--delegate=gpu", "--gpu_backend=cl"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    (gpu,) = json.loads(proc.stdout)["delegates"]
    assert gpu["applied"] is False
    assert "no usable OpenCL device" in gpu["reason"]


@pytest.mark.parametrize("arg", ["--delegate=nnapi", "--gpu_backend=metal"])
def test_gpu_preview_bad_values(fused_model, arg):
    proc = inspect(fused_model, arg)
    assert proc.returncode == 2
    assert f"bad value in '{arg}'" in proc.stderr
