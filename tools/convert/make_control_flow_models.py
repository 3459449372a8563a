"""Converts the whole-graph test models in tests/models/control_flow/ with
TensorFlow's own TFLite converter (control flow, resource variables,
several signatures) and writes their README.md.

Run from the repository root with the conversion-only environment (see
tools/convert/make_models.py; the converted files are committed):

    build/venv-tf/bin/python tools/convert/make_control_flow_models.py

Models:
  while_cond      tf.while_loop whose body holds a tf.cond: WHILE, IF
  while_grow      a loop whose state grows by one column per iteration
                  (shapes that change across iterations)
  lstm_keras      a Keras 3 LSTM layer, which the converter lowers to WHILE
  stream_state    a streaming model with a tf.Variable ring buffer:
                  CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE
  two_signatures  a tf.Module with two signatures, each its own subgraph
  string_lookup   a StaticHashTable over STRING keys: HASHTABLE* ops
"""

import argparse
import contextlib
import hashlib
import io
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_models import format_shape, io_tensors, op_counts  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "tests" / "models" / "control_flow"

SEED_LSTM = 2001
SEED_STREAM = 2002


def run_converter(converter):
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


def convert_module(module, functions):
    """Converts tf.functions of `module` (a dict signature key -> concrete
    function) through a SavedModel, so every function keeps its signature
    key and the module's variables stay variables."""
    with tempfile.TemporaryDirectory() as tmp:
        tf.saved_model.save(module, tmp, signatures=functions)
        converter = tf.lite.TFLiteConverter.from_saved_model(
            tmp, signature_keys=list(functions))
        return run_converter(converter)


class WhileCond(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32),
                                  tf.TensorSpec([], tf.int32)])
    def serve(self, x, n):
        def body(i, x):
            x = tf.cond(tf.reduce_sum(x) > 0.0,
                        lambda: x * 0.5 + 1.0,
                        lambda: x * 2.0 - 1.0)
            return i + 1, x

        _, y = tf.while_loop(lambda i, x: i < n, body, [tf.constant(0), x])
        return {"y": y}


def make_while_cond():
    m = WhileCond()
    return convert_module(m, {"serving_default": m.serve.get_concrete_function()})


class WhileGrow(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2, 1], tf.float32),
                                  tf.TensorSpec([], tf.int32)])
    def serve(self, x, n):
        def body(i, x):
            last = x[:, -1:]
            return i + 1, tf.concat([x, last * 2.0 + 1.0], axis=1)

        _, y = tf.while_loop(
            lambda i, x: i < n, body, [tf.constant(0), x],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([2, None])])
        return {"y": y}


def make_while_grow():
    m = WhileGrow()
    return convert_module(m, {"serving_default": m.serve.get_concrete_function()})


def make_lstm_keras():
    import keras
    tf.keras.utils.set_random_seed(SEED_LSTM)
    inp = keras.Input(shape=(6, 3), batch_size=1, name="sequence")
    h = keras.layers.LSTM(8)(inp)
    out = keras.layers.Dense(4)(h)
    model = keras.Model(inp, out)
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    return run_converter(converter)


class StreamState(tf.Module):
    """A microWakeWord-style streaming layer: a ring buffer of the last 3
    frames in a variable, a dense layer over it."""

    def __init__(self, rng):
        super().__init__()
        self.buffer = tf.Variable(tf.zeros([1, 3, 4]), name="ring_buffer")
        self.weights = tf.constant(
            rng.standard_normal((12, 5)).astype(np.float32) / 3.0)

    @tf.function(input_signature=[tf.TensorSpec([1, 1, 4], tf.float32)])
    def serve(self, frame):
        state = tf.concat([self.buffer[:, 1:, :], frame], axis=1)
        self.buffer.assign(state)
        flat = tf.reshape(state, [1, 12])
        return {"out": tf.nn.relu(tf.matmul(flat, self.weights))}


def make_stream_state():
    m = StreamState(np.random.default_rng(SEED_STREAM))
    return convert_module(m, {"serving_default": m.serve.get_concrete_function()})


class TwoSignatures(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def encode(self, x):
        return {"code": tf.tanh(x * 0.5 + 0.25)}

    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32),
                                  tf.TensorSpec([1, 4], tf.float32)])
    def combine(self, a, b):
        return {"product": a * b, "difference": a - b}


def make_two_signatures():
    m = TwoSignatures()
    return convert_module(m, {
        "encode": m.encode.get_concrete_function(),
        "combine": m.combine.get_concrete_function(),
    })


class StringLookup(tf.Module):
    """A tf.lookup.StaticHashTable from words to ids, and its size."""

    def __init__(self):
        super().__init__()
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(["cat", "dog", "bird", "fish"]),
                tf.constant([3, 1, 4, 1], tf.int64)),
            default_value=-1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def serve(self, words):
        return {"ids": self.table.lookup(words), "n": self.table.size()}


def make_string_lookup():
    m = StringLookup()
    return convert_module(m, {"serving_default": m.serve.get_concrete_function()})


MODELS = [
    ("while_cond", make_while_cond, None),
    ("while_grow", make_while_grow, None),
    ("lstm_keras", make_lstm_keras, SEED_LSTM),
    ("stream_state", make_stream_state, SEED_STREAM),
    ("two_signatures", make_two_signatures, None),
    ("string_lookup", make_string_lookup, None),
]

DESCRIPTIONS = {
    "while_cond": "`tf.while_loop` over (i, x) while i < n whose body "
                  "applies `tf.cond(sum(x) > 0, x*0.5+1, x*2-1)`: WHILE "
                  "with cond and body subgraphs, IF inside the body.",
    "while_grow": "`tf.while_loop` whose state x [2, k] gains a column "
                  "(2 * last + 1) per iteration; the state's shape changes "
                  "across iterations (shape invariant [2, None]).",
    "lstm_keras": "`keras.layers.LSTM(8)` over 6 steps of 3 features, then "
                  "`Dense(4)`; Keras 3's LSTM is lowered to a WHILE loop.",
    "stream_state": "A streaming layer: a `tf.Variable` ring buffer "
                    "[1, 3, 4] takes one frame per Invoke (the oldest drops "
                    "out) and a dense layer with ReLU reads it. The "
                    "converter initializes the variable in a CALL_ONCE "
                    "subgraph.",
    "string_lookup": "A `tf.lookup.StaticHashTable` from STRING words to "
                     "INT64 ids (initialized in a CALL_ONCE subgraph: "
                     "HASHTABLE, HASHTABLE_IMPORT) looked up with "
                     "HASHTABLE_FIND, and its HASHTABLE_SIZE.",
    "two_signatures": "A `tf.Module` with two signatures: `encode` (x [?, 4] "
                      "-> tanh(x/2 + 1/4)) and `combine` (a, b -> a*b, "
                      "a-b), each its own subgraph.",
}

README_HEAD = """# Converted whole-graph models

Models converted by TensorFlow's own TFLite converter that use more than
one subgraph: control flow (WHILE, IF), resource variables (CALL_ONCE,
VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) and signatures. They are
checked against LiteRT by tests/python/test_control_flow.py. They were made
by this project (litegpu) from graphs written here and randomly initialized
weights; no trained weights or third-party model files are included. They
are covered by the project's license.

How they were made (this file is written by the same script):

```
build/venv-tf/bin/python tools/convert/make_control_flow_models.py
```

with tensorflow-cpu {tf_version} (Keras {keras_version}, numpy
{np_version}), CPython {py_version}; every pin in
tools/convert/requirements.txt. Converted through a SavedModel with
`target_spec.supported_ops = [TFLITE_BUILTINS]`, no optimizations.

"""


def readme_section(name, data, seed):
    lines = [f"## {name}.tflite", "", DESCRIPTIONS[name], ""]
    lines.append(f"* size: {len(data):,} bytes; sha256 "
                 f"`{hashlib.sha256(data).hexdigest()}`")
    lines.append(f"* seed: {seed if seed is not None else 'none'}")
    for kind, key, tname, ttype, shape in io_tensors(data):
        lines.append(f"* {kind} {key} (`{tname}`): {ttype} "
                     f"{format_shape(shape)}")
    lines.append("")
    lines.append("| op | version | nodes |")
    lines.append("| --- | --- | --- |")
    for (op, version), count in sorted(op_counts(data).items()):
        lines.append(f"| {op} | {version} | {count} |")
    lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sections = []
    for name, make, seed in MODELS:
        data = make()
        (args.out / f"{name}.tflite").write_bytes(data)
        ops = ", ".join(f"{op} v{v}" + (f" x{n}" if n > 1 else "")
                        for (op, v), n in sorted(op_counts(data).items()))
        print(f"{name}.tflite: {len(data):,} bytes\n  {ops}")
        sections.append(readme_section(name, data, seed))
    import keras
    head = README_HEAD.format(
        tf_version=tf.__version__, keras_version=keras.__version__,
        np_version=np.__version__,
        py_version=".".join(str(v) for v in sys.version_info[:3]))
    (args.out / "README.md").write_text(head + "\n".join(sections))


if __name__ == "__main__":
    main()
