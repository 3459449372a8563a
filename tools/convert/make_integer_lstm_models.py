"""Writes tiny full-integer (TFLite's 8x8->16 kernel) LSTM models in the
forms TensorFlow's converter does not emit from Keras: CIFG, peephole,
projection and layer norm. The converter's quantization rules are followed
by hand (int8 weights of one scale, zero point 0; int32 gate biases of
input scale x weight scale, or of layer-norm scale x 2^-10 with layer
norm; int16 peephole and layer-norm weights; an int16 cell state whose
scale is a power of two; the five intermediates: four gate scales, read
only with layer norm, and the hidden value's scale and zero point).

    build/venv/bin/python tools/convert/make_integer_lstm_models.py

(ai_edge_litert's flatbuffer schema and numpy; no TensorFlow.) Writes
tests/models/recurrent/lstm_int8_*.tflite and their README.md sections,
below its MARKER line (make_recurrent_models.py keeps what follows it).
Every number comes from a fixed seed: a second run writes the same bytes.
tests/python/test_recurrent_models.py checks them against LiteRT.
"""

import argparse
import hashlib
from pathlib import Path

import flatbuffers
import numpy as np

try:
    from ai_edge_litert import schema_py_generated as schema
except ImportError:  # the converter venv
    from tensorflow.lite.python import schema_py_generated as schema

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "tests" / "models" / "recurrent"
MARKER = "<!-- below: tools/convert/make_integer_lstm_models.py -->"
README_HEAD = """
## Hand-quantized integer LSTMs

Written by tools/convert/make_integer_lstm_models.py (no converter: it
does not emit these forms from Keras) with TFLite's full-integer LSTM
quantization rules applied by hand; covered by the project's license.
Checked bit for bit against LiteRT by
tests/python/test_recurrent_models.py.

"""

INT8, INT16, INT32, FLOAT32 = (schema.TensorType.INT8, schema.TensorType.INT16,
                               schema.TensorType.INT32,
                               schema.TensorType.FLOAT32)
NUMPY = {INT8: np.int8, INT16: np.int16, INT32: np.int32}
GATES = ["input", "forget", "cell", "output"]

# shape: (batch, time, input features, cells); n_output: the projection's
# width (else the cell count); the forms; the options' clips.
MODELS = {
    "lstm_int8_cifg_peephole": dict(
        op="UNIDIRECTIONAL_SEQUENCE_LSTM", seed=4101, shape=(2, 3, 20, 18),
        cifg=True, peephole=True),  # products past one 16-value block
    "lstm_int8_projection": dict(
        op="UNIDIRECTIONAL_SEQUENCE_LSTM", seed=4102, shape=(2, 3, 3, 5),
        n_output=3, projection=True, peephole=True, cell_clip=0.5,
        proj_clip=0.2),
    "lstm_int8_layer_norm": dict(
        op="UNIDIRECTIONAL_SEQUENCE_LSTM", seed=4103, shape=(2, 3, 3, 4),
        layer_norm=True, peephole=True),
    # the forget gate's rows alike: a flat pre-norm gate (zero variance,
    # TFLite's guard)
    "lstm_int8_layer_norm_flat": dict(
        op="UNIDIRECTIONAL_SEQUENCE_LSTM", seed=4105, shape=(2, 3, 3, 4),
        layer_norm=True, flat="forget"),
    "lstm_int8_everything": dict(
        op="LSTM", seed=4104, shape=(2, 1, 3, 4), n_output=3, cifg=True,
        peephole=True, projection=True, layer_norm=True, cell_clip=0.75),
}


class Writer:
    def __init__(self):
        self.tensors, self.buffers = [], [schema.BufferT()]

    def tensor(self, name, ttype, shape, scale=None, zp=0, data=None,
               variable=False):
        t = schema.TensorT()
        t.name = name.encode()
        t.type = ttype
        t.shape = np.array(shape, np.int32)
        t.buffer = 0
        if data is not None:
            b = schema.BufferT()
            b.data = np.frombuffer(
                np.ascontiguousarray(data, NUMPY[ttype]).astype("<" + np.dtype(
                    NUMPY[ttype]).str[1:]).tobytes(), np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        if scale is not None:
            q = schema.QuantizationParametersT()
            q.scale = [float(scale)]
            q.zeroPoint = [int(zp)]
            t.quantization = q
        t.isVariable = variable
        self.tensors.append(t)
        return len(self.tensors) - 1


def quantize(rng, shape, limit, qmax, flat=False):
    """Random reals in +-limit quantized symmetrically: (ints, scale);
    with flat, every row (first axis) the same."""
    real = rng.uniform(-limit, limit, size=shape)
    if flat:
        real[:] = real[0]
    scale = np.abs(real).max() / qmax
    return np.round(real / scale), np.float32(scale)


def build(name, op, seed, shape, n_output=None, cifg=False, peephole=False,
          projection=False, layer_norm=False, cell_clip=0.0, proj_clip=0.0,
          flat=None):
    rng = np.random.default_rng(seed)
    n_batch, n_time, n_input, n_cell = shape
    n_output = n_output or n_cell
    w = Writer()
    x_scale, x_zp = 0.02, 1
    # the output state is the op's output (the projection's, if any)
    h_scale, h_zp = (0.01, 3) if projection else (1 / 128, -5)
    cell_log2 = -11
    hidden_scale, hidden_zp = 1 / 128, -2
    gate_mid = [2.5e-4, 2.2e-4, 3.1e-4, 2.7e-4]  # pre-layer-norm gate scales
    ln_scale = np.float32(1.5 / 32767)
    if op == "LSTM":
        x_shape, y_shape = (n_batch, n_input), (n_batch, n_output)
    else:
        x_shape = (n_batch, n_time, n_input)
        y_shape = (n_batch, n_time, n_output)
    inputs = [-1] * 24
    inputs[0] = w.tensor("input", INT8, x_shape, x_scale, x_zp)
    for g, gate in enumerate(GATES):
        if cifg and gate == "input":
            continue
        for slot, src, cols, s_src in ((1, "input", n_input, x_scale),
                                       (5, "recurrent", n_output, h_scale)):
            q, s = quantize(rng, (n_cell, cols), 0.5, 127, flat == gate)
            inputs[slot + g] = w.tensor(f"{src}_to_{gate}_weights", INT8,
                                        (n_cell, cols), s, 0, q)
            if src == "input":
                bias_scale = ln_scale / 1024 if layer_norm else x_scale * s
        bias = np.round(rng.uniform(-0.3, 0.3, n_cell) / bias_scale)
        if flat == gate:
            bias[:] = bias[0]
        inputs[12 + g] = w.tensor(f"{gate}_gate_bias", INT32, (n_cell,),
                                  bias_scale, 0, bias)
        if peephole and gate != "cell":
            q, s = quantize(rng, (n_cell,), 0.5, 32767)
            inputs[9 + (0, 1, None, 2)[g]] = w.tensor(
                f"cell_to_{gate}_weights", INT16, (n_cell,), s, 0, q)
        if layer_norm:
            coef = np.round(rng.uniform(0.5, 1.5, n_cell) / ln_scale)
            inputs[20 + g] = w.tensor(f"{gate}_layer_norm_coefficients",
                                      INT16, (n_cell,), ln_scale, 0, coef)
    if projection:
        q, s = quantize(rng, (n_output, n_cell), 0.6, 127)
        inputs[16] = w.tensor("projection_weights", INT8, (n_output, n_cell),
                              s, 0, q)
        b_scale = hidden_scale * s
        inputs[17] = w.tensor(
            "projection_bias", INT32, (n_output,), b_scale, 0,
            np.round(rng.uniform(-0.1, 0.1, n_output) / b_scale))
    inputs[18] = w.tensor("output_state", INT8, (n_batch, n_output), h_scale,
                          h_zp, variable=True)
    inputs[19] = w.tensor("cell_state", INT16, (n_batch, n_cell),
                          2.0**cell_log2, 0, variable=True)
    mids = []
    for g, gate in enumerate(GATES):
        if layer_norm:
            mids.append(w.tensor(f"{gate}_intermediate", INT16, (0,),
                                 gate_mid[g], 0))
        else:  # the converter leaves these unquantized without layer norm
            mids.append(w.tensor(f"{gate}_intermediate", FLOAT32, (0,)))
    mids.append(w.tensor("effective_hidden_scale_intermediate", INT8, (0,),
                         hidden_scale, hidden_zp))
    output = w.tensor("output", INT8, y_shape, h_scale, h_zp)

    operator = schema.OperatorT()
    operator.opcodeIndex = 0
    operator.inputs = np.array(inputs, np.int32)
    operator.outputs = np.array([output], np.int32)
    operator.intermediates = np.array(mids, np.int32)
    if op == "LSTM":
        opts = schema.LSTMOptionsT()
        operator.builtinOptionsType = schema.BuiltinOptions.LSTMOptions
    else:
        opts = schema.UnidirectionalSequenceLSTMOptionsT()
        opts.timeMajor = False
        operator.builtinOptionsType = (
            schema.BuiltinOptions.UnidirectionalSequenceLSTMOptions)
    opts.fusedActivationFunction = schema.ActivationFunctionType.TANH
    opts.cellClip = cell_clip
    opts.projClip = proj_clip
    operator.builtinOptions = opts

    code = schema.OperatorCodeT()
    code.builtinCode = getattr(schema.BuiltinOperator, op)
    code.deprecatedBuiltinCode = code.builtinCode
    code.version = 1
    sub = schema.SubGraphT()
    sub.tensors = w.tensors
    sub.inputs = np.array([inputs[0]], np.int32)
    sub.outputs = np.array([output], np.int32)
    sub.operators = [operator]
    sub.name = b"main"
    model = schema.ModelT()
    model.version = 3
    model.description = b"litegpu tools/convert/make_integer_lstm_models.py"
    model.operatorCodes = [code]
    model.subgraphs = [sub]
    model.buffers = w.buffers
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sections = []
    for name, spec in MODELS.items():
        data = build(name, **spec)
        (args.out / f"{name}.tflite").write_bytes(data)
        forms = [f for f in ("cifg", "peephole", "projection", "layer_norm")
                 if spec.get(f)]
        if spec.get("flat"):
            forms.append(f"flat {spec['flat']} gate")
        clips = [f"{c} {spec[c]}" for c in ("cell_clip", "proj_clip")
                 if spec.get(c)]
        n_batch, n_time, n_input, n_cell = spec["shape"]
        sections.append(
            f"### {name}.tflite\n\n"
            f"* size: {len(data):,} bytes; sha256 "
            f"`{hashlib.sha256(data).hexdigest()}`\n"
            f"* seed: {spec['seed']}\n"
            f"* {spec['op']} v1: batch {n_batch}, "
            + (f"time {n_time}, " if spec["op"] != "LSTM" else "")
            + f"{n_input} inputs, {n_cell} cells, "
            f"{spec.get('n_output') or n_cell} outputs; "
            + ", ".join(forms + clips) + "\n")
        print(f"{name}.tflite: {len(data):,} bytes")
    readme = args.out / "README.md"
    text = readme.read_text() if readme.exists() else ""
    text = text.split(MARKER)[0].rstrip("\n") + "\n\n"
    readme.write_text(text + MARKER + "\n" + README_HEAD +
                      "\n".join(sections))


if __name__ == "__main__":
    main()
