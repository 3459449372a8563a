"""tools/model_builder: the spec language (documented in
runtime/writer/model_spec.h).

Spec errors name the right line and problem, exit 1 and leave no file; a
spec using every feature round-trips: the written file is read back with
the schema reader LiteRT ships (ai_edge_litert.schema_py_generated) and each
field is checked, and litegpu's verifying loader accepts it.
"""

import re
import struct
import subprocess

import numpy as np
import pytest

from litegpu import capi as lg
import op_harness

# No fallback: without the schema reader the suite fails (never skips).
from ai_edge_litert import schema_py_generated as schema


def run_builder(spec_path, out_path, stdin=None, cwd=None):
    return subprocess.run(
        [str(op_harness.model_builder_path()), str(spec_path), str(out_path)],
        input=stdin, capture_output=True, text=True, cwd=cwd)


# ---- Errors -----------------------------------------------------------------

# (spec, line, message regex); each spec is fed through stdin.
ERRORS = [
    ("tensor x FLOAT32 2\nop NOPE 1 in=x out=x\n", 2,
     r"unknown op 'NOPE' \(ops are schema names such as CONV_2D\)"),
    ("op CUSTOM 1 in= out=\n", 1,
     r"unknown op 'CUSTOM' \(use a custom line\)"),
    ("tensor x FLOAT32 2\n\n# comment\n  op ADD 1 in=x,y out=x\n", 4,
     r"in=: unknown tensor 'y' in subgraph 0"),
    ("tensor x FLOAT32 2\nop ADD 1 in=x,x out=z\n", 2,
     r"out=: unknown tensor 'z'"),
    ("tensor x FLOAT32 2\noutputs x,-\n", 2,
     r"outputs: '-' \(omitted\) is only allowed in op inputs"),
    ("tensor x FLOAT32 2\nop ADD 1 in=x,x out=x padding=SAME\n", 2,
     r"ADD: unknown field 'padding' for this op \(AddOptions\)"),
    ("tensor x FLOAT32 2\nop ADD 1 in=x,x out=x fused_activation_function="
     "SIGMOID\n", 2, r"ADD: bad value 'SIGMOID' for field "
     r"fused_activation_function \(expected NONE, RELU, RELU_N1_TO_1, RELU6, "
     r"TANH or SIGN_BIT\)"),
    ("op CONV_2D 1 in= out= stride_w=1.5\n", 1,
     r"CONV_2D: bad value '1.5' for field stride_w \(expected a 32-bit "
     r"integer\)"),
    ("op CONV_2D 1 in= out= stride_w=2147483648\n", 1,
     r"bad value '2147483648' for field stride_w"),
    ("op CONV_2D 1 in= out= padding=same\n", 1,
     r"bad value 'same' for field padding \(expected SAME or VALID\)"),
    ("op FULLY_CONNECTED 1 in= out= keep_num_dims=yes\n", 1,
     r"bad value 'yes' for field keep_num_dims \(expected true, false, 1 or "
     r"0\)"),
    ("op SOFTMAX 1 in= out= beta=1e99\n", 1, r"bad value '1e99' for field "
     r"beta \(expected a float\)"),
    ("op CAST 1 in= out= out_data_type=INT33\n", 1,
     r"bad value 'INT33' for field out_data_type"),
    ("op ADD 1 in= out= pot_scale_int16=1 pot_scale_int16=0\n", 1,
     r"ADD: field pot_scale_int16 given twice"),
    ("op ADD 1 in= out= 7\n", 1, r"ADD: expected FIELD=VALUE, got '7'"),
    ("op RELU 1 in= out= alpha=1\n", 1,
     r"RELU: unknown field 'alpha' \(the op takes no params\)"),
    ("op RESHAPE 1 in= out= new_shape=1,2,3,4,5,6,7,8,9\n", 1,
     r"RESHAPE new_shape: 9 values, more than the 8 the params hold"),
    ("op RESHAPE 1 in= out= new_shape=1,,2\n", 1,
     r"RESHAPE new_shape: bad value ''"),
    ("op ADD 0 in= out=\n", 1, r"op ADD: bad version '0' \(an integer >= 1\)"),
    ("op ADD 1 in=\n", 1, r"ADD: missing out=LIST"),
    ("op ADD 1 out=\n", 1, r"ADD: missing in=LIST"),
    ("op ADD 1 in= in= out=\n", 1, r"ADD: in= twice"),
    ("op ADD\n", 1, r"usage: op NAME VERSION"),
    ("tensor x FLOAT32 2,3 values=1,2,3\n", 1,
     r"tensor x: 12 bytes of data, but FLOAT32 with 6 elements needs 24"),
    ("tensor x INT16 2 hex=000102\n", 1,
     r"tensor x: 3 bytes of data, but INT16 with 2 elements needs 4"),
    ("tensor x FLOAT32 - hex=0000803\n", 1,
     r"tensor x hex=: odd number of hex digits \(7\)"),
    ("tensor x FLOAT32 - hex=0000803g\n", 1,
     r"tensor x hex=: bad hex digit at position 7"),
    ("tensor x INT8 2 values=1,200\n", 1,
     r"tensor x values=: bad INT8 value '200' at position 1"),
    ("tensor x FLOAT16 1 values=1\n", 1,
     r"tensor x values=: not supported for type FLOAT16"),
    ("tensor x FLOAT32 1 values=1 hex=00000000\n", 1,
     r"tensor x: more than one of data=, hex=, values="),
    ("tensor x FLOAT32 2 data=no_such_file.bin\n", 1,
     r"tensor x data=: cannot read '.*no_such_file.bin': No such file"),
    ("tensor x FLOAT33 2\n", 1, r"tensor x: unknown type 'FLOAT33'"),
    ("tensor x FLOAT32 2,-1\n", 1,
     r"tensor x shape: bad value '-1' \(an integer in \[0, 2147483647\]\)"),
    ("tensor x FLOAT32 2 sig=1,2\n", 1, r"tensor x: sig= has 2 entries for 1 "
     r"dims"),
    ("tensor x FLOAT32 2 sig=-2\n", 1, r"tensor x sig=: bad value '-2'"),
    ("tensor x FLOAT32 2 shiny\n", 1, r"tensor x: unknown attribute 'shiny'"),
    ("tensor x FLOAT32 2 shiny=1\n", 1,
     r"tensor x: unknown attribute 'shiny='"),
    ("tensor x FLOAT32 2\ntensor x FLOAT32 2\n", 2,
     r"tensor: 'x' is declared twice in subgraph 0"),
    ("tensor a,b FLOAT32 2\n", 1, r"tensor: bad name 'a,b'"),
    ("tensor x FLOAT32\n", 1, r"usage: tensor NAME TYPE SHAPE"),
    ("tensor x INT8 3 quant=0.5:1,0.5:2@0\n", 1,
     r"tensor x: .*2 scales for dimension 0 of size 3"),
    ("tensor x INT8 3 quant=0.5\n", 1,
     r"tensor x quant=: bad SCALE:ZERO_POINT pair 0"),
    ("tensor x INT8 3 quant=0.5:1@x\n", 1, r"tensor x quant=: bad axis 'x'"),
    ("custom Foo 1 in= out= options=base64:AA\n", 1,
     r"custom: options= takes hex:HEX or file:PATH, got 'base64:AA'"),
    ("custom Foo 1 in= out= colour=red\n", 1,
     r"custom Foo: unknown word 'colour=red'"),
    ("min_runtime_version 1.2.3.4.5.6.7.8.9\n", 1,
     r"min_runtime_version: .*"),
    ("min_runtime_version\n", 1, r"usage: min_runtime_version"),
    ("inputs a b\n", 1, r"inputs: expected one comma-separated list"),
    ("subgraph a b\n", 1, r"usage: subgraph \[NAME\]"),
    ("frobnicate 1 2\n", 1, r"unknown statement 'frobnicate'"),
]


@pytest.mark.parametrize("spec,line,message", ERRORS,
                         ids=[f"{i}" for i in range(len(ERRORS))])
def test_spec_error(tmp_path, spec, line, message):
    out = tmp_path / "out.tflite"
    proc = run_builder("-", out, stdin=spec, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0]
    prefix = f"<stdin>:{line}: "
    assert first.startswith(prefix), proc.stderr
    assert re.search(message, first[len(prefix):]), first
    assert not out.exists()


def test_error_names_the_spec_file(tmp_path):
    spec = tmp_path / "bad.spec"
    spec.write_text("# line 1\ntensor x FLOAT32 2\nop ADD 1 in=x,q out=x\n")
    proc = run_builder(spec, tmp_path / "out.tflite")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{spec}:3: in=: unknown tensor 'q'")


def test_usage_and_missing_spec(tmp_path):
    proc = subprocess.run([str(op_harness.model_builder_path())],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "usage:" in proc.stderr
    proc = run_builder(tmp_path / "none.spec", tmp_path / "out.tflite")
    assert proc.returncode == 1 and "cannot open" in proc.stderr
    assert not (tmp_path / "out.tflite").exists()


# ---- Round trip -------------------------------------------------------------

W = np.arange(6, dtype=np.float32).reshape(2, 1, 1, 3) / 4
FC_W = np.linspace(-1, 1, 32 * 4, dtype=np.float32).reshape(4, 32)

FULL_SPEC = """\
# Every feature of the spec language.
subgraph main
tensor x FLOAT32 1,4,4,3 sig=-1,4,4,3
tensor w FLOAT32 2,1,1,3 data=data/w.bin
tensor b FLOAT32 2 values=0.5,-1.5
tensor y FLOAT32 1,2,1,2
op CONV_2D 2 in=x,w,b out=y padding=VALID stride_w=2 stride_h=3 \
fused_activation_function=RELU6 dilation_w_factor=2
tensor shape INT32 2 hex=0100000004000000
tensor r FLOAT32 1,4
op RESHAPE 1 in=y,shape out=r new_shape=1,4
tensor q INT8 1,4 quant=0.5:-3
tensor state INT8 2,4 variable has_rank quant=0.25:1,0.125:-1@0
custom MyOp 3 in=r,-,state out=q options=hex:DEADbeef
tensor c INT32 1,4
op CAST 1 in=q out=c in_data_type=INT8 out_data_type=INT32
tensor s FLOAT32 1,4
op SOFTMAX 1 in=r out=s beta=0.5
tensor fw FLOAT32 4,32 data=fc.bin
tensor f FLOAT32 1,4
op FULLY_CONNECTED 9 in=r,fw,- out=f weights_format=SHUFFLED4x16INT8 \
keep_num_dims=1 asymmetric_quantize_inputs=true quantized_bias_type=INT32
tensor pads INT32 2,2 values=0,0,1,1
tensor m FLOAT32 1,6
op MIRROR_PAD 2 in=r,pads out=m mode=SYMMETRIC
tensor flags BOOL 3 values=true,false,1
tensor k FLOAT32 - values=-inf
inputs x
outputs s,c,f,m
min_runtime_version 2.3.0
subgraph body
tensor a BOOL -
tensor o BOOL -
op LOGICAL_NOT 1 in=a out=o
inputs a
outputs o
"""


@pytest.fixture(scope="module")
def full_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("full")
    (d / "data").mkdir()
    (d / "data" / "w.bin").write_bytes(W.tobytes())
    (d / "fc.bin").write_bytes(FC_W.tobytes())
    # (The backslash-newlines in FULL_SPEC are Python's; the tool sees one
    # line per statement.)
    spec = d / "full.spec"
    spec.write_text(FULL_SPEC)
    out = d / "full.tflite"
    # Run from another directory: data paths are relative to the spec.
    proc = run_builder(spec, out, cwd="/")
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    return out, data, schema.Model.GetRootAs(data, 0)


def tensor_by_name(sg, name):
    for i in range(sg.TensorsLength()):
        if sg.Tensors(i).Name() == name.encode():
            return i, sg.Tensors(i)
    raise KeyError(name)


def buffer_bytes(model, tensor):
    return model.Buffers(tensor.Buffer()).DataAsNumpy().tobytes()


def options(op, cls):
    table = op.BuiltinOptions()
    opts = cls()
    opts.Init(table.Bytes, table.Pos)
    return opts


def test_roundtrip_model_and_subgraphs(full_model):
    _, data, model = full_model
    assert data[4:8] == b"TFL3" and model.Version() == 3
    assert model.SubgraphsLength() == 2
    main, body = model.Subgraphs(0), model.Subgraphs(1)
    assert main.Name() == b"main" and body.Name() == b"body"
    names = [main.Tensors(i).Name().decode()
             for i in range(main.TensorsLength())]
    assert names == ["x", "w", "b", "y", "shape", "r", "q", "state", "c", "s",
                     "fw", "f", "pads", "m", "flags", "k"]
    assert list(main.InputsAsNumpy()) == [names.index("x")]
    assert list(main.OutputsAsNumpy()) == [names.index(n)
                                           for n in ["s", "c", "f", "m"]]
    assert list(body.InputsAsNumpy()) == [0]
    assert list(body.OutputsAsNumpy()) == [1]
    op = body.Operators(0)
    assert model.OperatorCodes(op.OpcodeIndex()).BuiltinCode() == 87


def test_roundtrip_tensors(full_model):
    _, _, model = full_model
    main = model.Subgraphs(0)
    _, x = tensor_by_name(main, "x")
    assert list(x.ShapeAsNumpy()) == [1, 4, 4, 3]
    assert list(x.ShapeSignatureAsNumpy()) == [-1, 4, 4, 3]
    assert x.Type() == schema.TensorType.FLOAT32 and x.Buffer() == 0
    assert not x.IsVariable()
    _, w = tensor_by_name(main, "w")
    assert buffer_bytes(model, w) == W.tobytes()
    _, b = tensor_by_name(main, "b")
    assert buffer_bytes(model, b) == struct.pack("<2f", 0.5, -1.5)
    _, shape = tensor_by_name(main, "shape")
    assert buffer_bytes(model, shape) == struct.pack("<2i", 1, 4)
    _, flags = tensor_by_name(main, "flags")
    assert flags.Type() == schema.TensorType.BOOL
    assert buffer_bytes(model, flags) == b"\x01\x00\x01"
    _, k = tensor_by_name(main, "k")
    assert k.ShapeLength() == 0
    assert buffer_bytes(model, k) == struct.pack("<f", -np.inf)


def test_roundtrip_quantization_and_variable(full_model):
    _, _, model = full_model
    main = model.Subgraphs(0)
    _, q = tensor_by_name(main, "q")
    assert q.Type() == schema.TensorType.INT8
    assert list(q.Quantization().ScaleAsNumpy()) == [0.5]
    assert list(q.Quantization().ZeroPointAsNumpy()) == [-3]
    _, state = tensor_by_name(main, "state")
    assert state.IsVariable() and state.HasRank()
    quant = state.Quantization()
    assert list(quant.ScaleAsNumpy()) == [0.25, 0.125]
    assert list(quant.ZeroPointAsNumpy()) == [1, -1]
    assert quant.QuantizedDimension() == 0


def op_named(model, sg, code=None, custom=None):
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        oc = model.OperatorCodes(op.OpcodeIndex())
        if custom is not None and oc.CustomCode() == custom.encode():
            return op, oc
        if code is not None and max(oc.BuiltinCode(),
                                    oc.DeprecatedBuiltinCode()) == code:
            return op, oc
    raise KeyError(code or custom)


def test_roundtrip_builtin_options(full_model):
    _, _, model = full_model
    main = model.Subgraphs(0)
    B = schema.BuiltinOperator
    op, oc = op_named(model, main, B.CONV_2D)
    assert oc.Version() == 2
    assert op.BuiltinOptionsType() == schema.BuiltinOptions.Conv2DOptions
    conv = options(op, schema.Conv2DOptions)
    assert conv.Padding() == schema.Padding.VALID
    assert (conv.StrideW(), conv.StrideH()) == (2, 3)
    assert conv.FusedActivationFunction() == \
        schema.ActivationFunctionType.RELU6
    assert (conv.DilationWFactor(), conv.DilationHFactor()) == (2, 1)
    op, _ = op_named(model, main, B.RESHAPE)
    assert list(options(op, schema.ReshapeOptions).NewShapeAsNumpy()) == \
        [1, 4]
    op, _ = op_named(model, main, B.CAST)
    cast = options(op, schema.CastOptions)
    assert cast.InDataType() == schema.TensorType.INT8
    assert cast.OutDataType() == schema.TensorType.INT32
    op, _ = op_named(model, main, B.SOFTMAX)
    assert options(op, schema.SoftmaxOptions).Beta() == 0.5
    op, oc = op_named(model, main, B.FULLY_CONNECTED)
    assert oc.Version() == 9 and list(op.InputsAsNumpy())[2] == -1
    fc = options(op, schema.FullyConnectedOptions)
    assert fc.WeightsFormat() == \
        schema.FullyConnectedOptionsWeightsFormat.SHUFFLED4x16INT8
    assert fc.KeepNumDims() and fc.AsymmetricQuantizeInputs()
    assert fc.QuantizedBiasType() == schema.TensorType.INT32
    op, _ = op_named(model, main, B.MIRROR_PAD)
    assert options(op, schema.MirrorPadOptions).Mode() == \
        schema.MirrorPadMode.SYMMETRIC


def test_roundtrip_custom_op(full_model):
    _, _, model = full_model
    main = model.Subgraphs(0)
    op, oc = op_named(model, main, custom="MyOp")
    assert oc.BuiltinCode() == schema.BuiltinOperator.CUSTOM
    assert oc.Version() == 3
    r, _ = tensor_by_name(main, "r")
    state, _ = tensor_by_name(main, "state")
    assert list(op.InputsAsNumpy()) == [r, -1, state]
    assert op.CustomOptionsAsNumpy().tobytes() == b"\xde\xad\xbe\xef"


def test_roundtrip_min_runtime_version(full_model):
    _, _, model = full_model
    found = {}
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        found[entry.Name()] = model.Buffers(entry.Buffer()).DataAsNumpy()
    version = found[b"min_runtime_version"].tobytes()
    assert version == b"2.3.0" + b"\0" * 11


def test_roundtrip_loads_in_litegpu(full_model):
    path, _, _ = full_model
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(path)):
        pass


def test_default_options_and_stdin(tmp_path):
    """Fields not given keep the schema defaults (omitted in the file); a
    spec from stdin resolves data paths against the current directory."""
    (tmp_path / "w.bin").write_bytes(np.zeros((1, 1, 1, 1), np.float32))
    spec = ("tensor x FLOAT32 1,1,1,1\ntensor w FLOAT32 1,1,1,1 data=w.bin\n"
            "tensor y FLOAT32 1,1,1,1\nop CONV_2D 1 in=x,w,- out=y\n"
            "inputs x\noutputs y\n")
    out = tmp_path / "m.tflite"
    proc = run_builder("-", out, stdin=spec, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    model = schema.Model.GetRootAs(out.read_bytes(), 0)
    op = model.Subgraphs(0).Operators(0)
    assert op.BuiltinOptionsType() == schema.BuiltinOptions.Conv2DOptions
    conv = options(op, schema.Conv2DOptions)
    assert conv.Padding() == schema.Padding.SAME
    assert (conv.DilationWFactor(), conv.DilationHFactor()) == (1, 1)
    assert conv.FusedActivationFunction() == schema.ActivationFunctionType.NONE
