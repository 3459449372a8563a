"""Op versions and minimum runtime versions against TensorFlow's converter
and LiteRT.

1. Models converted by TensorFlow 2.21's converter (tests/models/*.tflite,
   and the one-op variants in tests/python/versioning_models/, made by its
   make_models.py): for every operator code, the version the converter
   recorded equals the largest version litegpu's rules (lg_op_version)
   compute for the operators that use it, and every operator's own computed
   version is at most that (the converter shares one code per (op, version)
   and only ever raises a version: an operator that needs less, such as
   RESIZE_BILINEAR with align_corners next to one with half_pixel_centers,
   carries the shared, higher version). The recorded min_runtime_version
   equals lg_model_min_runtime_version. Versions and metadata are read twice:
   by tools/op_versions (litegpu's reader) and by LiteRT's schema reader.

2. Models written by litegpu's model writer with computed versions (version
   "auto" in tools/model_builder, through the op harness): the version
   stamped for each op variant equals the version TensorFlow's converter
   recorded for the same variant (the file of the same name in
   versioning_models/), the stamped min_runtime_version is the table's entry
   for it, and LiteRT loads and runs the model with its reference kernels,
   litegpu giving the same outputs (1 and 2 threads) within 1e-5 relative +
   1e-6 absolute.

Tools come from LITEGPU_BUILD_DIR (default build/release).
"""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from op_harness import (Const, Input, OpCase, build_dir, build_model,
                        check_case, write_spec)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CONVERTED = HERE / "versioning_models"
TF_MODELS = sorted((REPO / "tests" / "models").glob("*.tflite"))
VARIANT_MODELS = sorted(CONVERTED.glob("*.tflite"))
REQUIRED_TF_MODELS = {"mobilenet_v2.tflite", "kws_cnn.tflite",
                      "all_ops.tflite"}


# ---- Reading versions ------------------------------------------------------


def op_versions(path):
    """tools/op_versions' JSON for the model at `path`."""
    tool = build_dir() / "op_versions"
    if not tool.is_file():
        pytest.fail(f"op_versions not found at {tool}: build the project and "
                    "point LITEGPU_BUILD_DIR at the build directory")
    proc = subprocess.run([str(tool), str(path)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, f"op_versions {path}: {proc.stderr}"
    return json.loads(proc.stdout)


def schema_facts(path):
    """(versions by opcode index, recorded min_runtime_version) read with
    LiteRT's own schema reader."""
    try:
        from ai_edge_litert import schema_py_generated as schema
    except ImportError as e:
        pytest.fail(f"ai_edge_litert.schema_py_generated is needed: {e}")
    data = Path(path).read_bytes()
    model = schema.Model.GetRootAs(data, 0)
    versions = [model.OperatorCodes(i).Version()
                for i in range(model.OperatorCodesLength())]
    recorded = ""
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        if entry.Name() == b"min_runtime_version":
            raw = model.Buffers(entry.Buffer()).DataAsNumpy().tobytes()
            recorded = raw.split(b"\0")[0].decode()
    return versions, recorded


# ---- 1. Converted models ---------------------------------------------------


def test_converted_model_sets_are_present():
    names = {p.name for p in TF_MODELS}
    assert REQUIRED_TF_MODELS <= names, f"tests/models has {sorted(names)}"
    variants = {p.stem for p in VARIANT_MODELS}
    assert {c[0] for c in AUTO_CASES if c[0] is not None} <= variants


@pytest.mark.parametrize("path", TF_MODELS + VARIANT_MODELS,
                         ids=lambda p: p.name)
def test_converter_versions_match_rules(path):
    facts = op_versions(path)
    versions, recorded_runtime = schema_facts(path)
    assert [c["recorded"] for c in facts["opcodes"]] == versions
    problems = []
    for code in facts["opcodes"]:
        if code["operators"] and code["recorded"] != code["computed_max"]:
            problems.append(f"{code['op']}: the converter recorded version "
                            f"{code['recorded']}, litegpu computes "
                            f"{code['computed_max']}")
    for op in facts["operators"]:
        if not 1 <= op["computed"] <= op["recorded"]:
            problems.append(f"operator {op['index']} ({op['op']}): computed "
                            f"{op['computed']}, recorded {op['recorded']}")
    assert not problems, "\n".join(problems)
    runtime = facts["min_runtime_version"]
    assert runtime["recorded"] == recorded_runtime
    assert recorded_runtime != ""
    assert runtime["computed"] == recorded_runtime


def test_shared_opcode_keeps_the_higher_version():
    """all_ops.tflite: its two RESIZE_BILINEAR operators share one code; the
    align_corners one needs version 1, the half-pixel one 3: recorded 3."""
    facts = op_versions(REPO / "tests" / "models" / "all_ops.tflite")
    resize = [op for op in facts["operators"]
              if op["op"] == "RESIZE_BILINEAR"]
    assert sorted(op["computed"] for op in resize) == [1, 3]
    assert {op["recorded"] for op in resize} == {3}


# ---- 2. Written with computed versions ---------------------------------------

RNG = np.random.default_rng(20240611)


def _f32(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape).astype(np.float32)


def _i32(*values):
    return np.array(values, dtype=np.int32)


def _conv_case(op, x, w, b, params, out_shape):
    return OpCase(op=op, version="auto", inputs=[Input(x), Const(w), b],
                  params=params, output_shapes=[out_shape])


def _binary5d(op):
    a = _f32(2, 1, 3, 1, 5)
    b = (_f32(2, 4, 3, 1, 5, low=0.5, high=2.0) *
         np.where(RNG.random((2, 4, 3, 1, 5)) < 0.5, -1, 1)).astype(
             np.float32)
    return OpCase(op=op, version="auto", inputs=[Input(a), Input(b)],
                  output_shapes=[(2, 4, 3, 1, 5)])


def _tconv(activation):
    return OpCase(
        op="TRANSPOSE_CONV", version="auto",
        inputs=[Const(_i32(1, 8, 8, 5)), Const(_f32(5, 3, 3, 4)),
                Input(_f32(1, 4, 4, 4)), Const(_f32(5))],
        params={"padding": "SAME", "stride_w": 2, "stride_h": 2,
                "fused_activation_function": activation},
        output_shapes=[(1, 8, 8, 5)])


def _resize(op, **flags):
    return OpCase(op=op, version="auto",
                  inputs=[Input(_f32(1, 4, 5, 2)), Const(_i32(7, 9))],
                  params=flags, output_shapes=[(1, 7, 9, 2)])


SAME1 = {"padding": "SAME", "stride_w": 1, "stride_h": 1}

# (converted variant of the same op, or None; the case; the version TFLite's
# rules give; that version's minimum runtime). Each rule is named.
AUTO_CASES = [
    # CONV_2D: input channels (4) differ from the filter's (2): grouped -> 6.
    ("grouped_conv", _conv_case("CONV_2D", _f32(1, 5, 5, 4),
                                _f32(6, 3, 3, 2), Const(_f32(6)), SAME1,
                                (1, 5, 5, 6)), 6, "2.9.0"),
    # DEPTHWISE_CONV_2D: a dilation factor other than 1 -> 2.
    ("dw_dilated", _conv_case(
        "DEPTHWISE_CONV_2D", _f32(1, 9, 9, 4), _f32(1, 3, 3, 4),
        Const(_f32(4)), dict(SAME1, depth_multiplier=1, dilation_w_factor=2,
                             dilation_h_factor=2), (1, 9, 9, 4)), 2, "1.12.0"),
    ("dw_plain", _conv_case("DEPTHWISE_CONV_2D", _f32(1, 9, 9, 4),
                            _f32(1, 3, 3, 4), Const(_f32(4)),
                            dict(SAME1, depth_multiplier=1), (1, 9, 9, 4)),
     1, "1.5.0"),
    # FULLY_CONNECTED: keep_num_dims -> 5; an omitted (-1) bias stays 1;
    # exactly two inputs (no bias slot) -> 6.
    ("fc_3d", _conv_case("FULLY_CONNECTED", _f32(2, 3, 4), _f32(10, 4),
                         Const(_f32(10)), {"keep_num_dims": True},
                         (2, 3, 10)), 5, "2.0.0"),
    ("fc_nobias", _conv_case("FULLY_CONNECTED", _f32(2, 4), _f32(10, 4), None,
                             {}, (2, 10)), 1, "1.5.0"),
    (None, OpCase(op="FULLY_CONNECTED", version="auto",
                  inputs=[Input(_f32(2, 4)), Const(_f32(10, 4))],
                  output_shapes=[(2, 10)]), 6, "2.1.0"),
    # STRIDED_SLICE: an input of more than 4 dims -> 4.
    ("strided5d", OpCase(op="STRIDED_SLICE", version="auto",
                         inputs=[Input(_f32(2, 4, 3, 4, 2)),
                                 Const(_i32(0, 1, 0, 0, 0)),
                                 Const(_i32(2, 3, 3, 4, 1)),
                                 Const(_i32(1, 1, 1, 2, 1))],
                         output_shapes=[(2, 2, 3, 2, 1)]), 4, "2.2.0"),
    # TRANSPOSE: rank 5 -> 4, rank 6 -> 6.
    ("transpose5d", OpCase(op="TRANSPOSE", version="auto",
                           inputs=[Input(_f32(2, 3, 4, 5, 2)),
                                   Const(_i32(0, 2, 1, 4, 3))],
                           output_shapes=[(2, 4, 3, 2, 5)]), 4, "2.3.0"),
    ("transpose6d", OpCase(op="TRANSPOSE", version="auto",
                           inputs=[Input(_f32(2, 3, 4, 1, 2, 2)),
                                   Const(_i32(0, 2, 1, 4, 3, 5))],
                           output_shapes=[(2, 4, 3, 2, 1, 2)]), 6, "2.12.0"),
    # PAD: rank 5 -> 4.
    ("pad5d", OpCase(op="PAD", version="auto",
                     inputs=[Input(_f32(1, 2, 3, 4, 2)),
                             Const(np.array([[0, 0], [1, 1], [0, 0], [2, 0],
                                             [0, 0]], np.int32))],
                     output_shapes=[(1, 4, 3, 6, 2)]), 4, "2.6.0"),
    # Broadcast between inputs of rank 5: SUB -> 3, DIV -> 2, MAXIMUM -> 3.
    ("sub5d", _binary5d("SUB"), 3, "2.3.0"),
    ("div5d", _binary5d("DIV"), 2, "2.3.0"),
    ("max5d", _binary5d("MAXIMUM"), 3, "2.3.0"),
    # SLICE: rank 5 -> 5.
    ("slice5d", OpCase(op="SLICE", version="auto",
                       inputs=[Input(_f32(1, 3, 3, 4, 2)),
                               Const(_i32(0, 1, 0, 0, 0)),
                               Const(_i32(1, 2, 3, 4, 2))],
                       output_shapes=[(1, 2, 3, 4, 2)]), 5, "2.5.0"),
    # GATHER: batch_dims != 0 -> 5.
    ("gather_batch_dims", OpCase(
        op="GATHER", version="auto",
        inputs=[Input(_f32(2, 3, 4)),
                Const(np.array([[0, 2], [1, 1]], np.int32))],
        params={"axis": 1, "batch_dims": 1}, output_shapes=[(2, 2, 4)]),
     5, "2.5.0"),
    # TRANSPOSE_CONV: a bias (4th input) -> 3; a fused activation -> 4.
    ("tconv_bias", _tconv("NONE"), 3, "2.3.0"),
    ("tconv_bias_relu", _tconv("RELU"), 4, "2.13.0"),
    # RESIZE_BILINEAR: half_pixel_centers -> 3, align_corners alone -> 1;
    # RESIZE_NEAREST_NEIGHBOR: align_corners -> 3.
    ("resize_half_pixel", _resize("RESIZE_BILINEAR", half_pixel_centers=True),
     3, "2.2.0"),
    ("resize_align_corners", _resize("RESIZE_BILINEAR", align_corners=True),
     1, "1.7.0"),
    ("resize_nearest_align_corners",
     _resize("RESIZE_NEAREST_NEIGHBOR", align_corners=True), 3, "2.3.0"),
    # No rule matches a float32 SOFTMAX -> 1; BROADCAST_TO starts at 2.
    ("softmax", OpCase(op="SOFTMAX", version="auto",
                       inputs=[Input(_f32(2, 5))], params={"beta": 1.0}),
     1, "1.5.0"),
    ("broadcast_to", OpCase(op="BROADCAST_TO", version="auto",
                            inputs=[Input(_f32(2, 5)), Const(_i32(3, 2, 5))],
                            output_shapes=[(3, 2, 5)]), 2, "2.5.0"),
]


def _case_id(entry):
    variant, case, version, _ = entry
    return variant or f"{case.op}-v{version}"


@pytest.mark.parametrize("entry", AUTO_CASES, ids=_case_id)
def test_auto_version_matches_converter(entry, tmp_path):
    variant, case, version, runtime = entry
    write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    build_model(tmp_path / "case.spec", model)
    facts = op_versions(model)
    (code,) = facts["opcodes"]
    assert code["op"] == case.op
    assert code["recorded"] == version, f"{case.op}: stamped version"
    assert code["computed_max"] == version
    versions, recorded_runtime = schema_facts(model)
    assert versions == [version]
    assert recorded_runtime == runtime
    assert facts["min_runtime_version"]["computed"] == runtime
    if variant is not None:
        converted = op_versions(CONVERTED / f"{variant}.tflite")
        same_op = [c for c in converted["opcodes"] if c["op"] == case.op]
        assert [c["recorded"] for c in same_op] == [version], (
            f"TensorFlow's converter chose {same_op} for {variant}")
        assert converted["min_runtime_version"]["recorded"] == runtime


@pytest.mark.parametrize("entry", AUTO_CASES, ids=_case_id)
def test_auto_versioned_model_runs_in_litert(entry):
    """LiteRT (reference kernels) loads and runs the model; litegpu agrees."""
    check_case(entry[1])
