"""Converts a recurrent graph with TensorFlow's own TFLite converter into
tests/models/recurrent/, and writes its README.md.

    build/venv-tf/bin/python tools/convert/make_recurrent_models.py

Models:
  fused_lstm   a batch-major LSTM layer (Keras's LSTM: gates i, f, c, o;
               sigmoid and tanh) written as a tf.function that carries
               Keras 2's "lstm_" api_implements attributes, which the
               converter fuses into one UNIDIRECTIONAL_SEQUENCE_LSTM with
               variable state tensors (Keras 3's LSTM lowers to WHILE
               instead)
  lstm_int8    the same layer (4 steps, 8 units, batch 1) with full-integer
               quantization from a representative dataset of 16 seeded
               sequences: int8 input and output, int8 weights, int16 cell
               state, the 8x8->16 integer kernel with the converter's gate
               intermediates
"""

import argparse
import contextlib
import hashlib
import io
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_models import format_shape, io_tensors, op_counts  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "tests" / "models" / "recurrent"
INTEGER_MARKER = "<!-- below: tools/convert/make_integer_lstm_models.py -->"
SEED_LSTM = 4001
SEED_LSTM_INT8 = 4002
TIME, BATCH, FEATURES, UNITS = 6, 2, 3, 5


def run_converter(converter):
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


def fused_lstm_function(seed, time, batch, features, units):
    rng = np.random.default_rng(seed)

    def weights(*shape, scale=0.5):
        return tf.constant(
            rng.uniform(-scale, scale, size=shape).astype(np.float32))

    kernel = weights(features, 4 * units)
    recurrent = weights(units, 4 * units)
    bias = weights(4 * units, scale=0.2)

    # The converter replaces this whole function (its "lstm_" api_implements
    # and arguments input, initial h, initial c, kernel, recurrent kernel,
    # bias, its outputs last output, sequence, h, c and a runtime marker) by
    # one UNIDIRECTIONAL_SEQUENCE_LSTM; the body is what TensorFlow runs.
    @tf.function(experimental_attributes={
        "api_implements": "lstm_litegpu-recurrent-test",
        "api_preferred_device": "CPU", "time_major": False,
        "go_backwards": False})
    def lstm(inputs, init_h, init_c, kernel, recurrent_kernel, bias):
        h, c = init_h, init_c
        outputs = []
        for t in range(time):
            z = (tf.matmul(inputs[:, t], kernel) +
                 tf.matmul(h, recurrent_kernel) + bias)
            i, f, g, o = tf.split(z, 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h = tf.sigmoid(o) * tf.tanh(c)
            outputs.append(h)
        return h, tf.stack(outputs, axis=1), h, c, tf.constant(0.0)

    @tf.function(input_signature=[
        tf.TensorSpec([batch, time, features], tf.float32)])
    def fn(sequence):
        zeros = tf.zeros([batch, units])
        _, outputs, _, _, _ = lstm(sequence, zeros, zeros, kernel, recurrent,
                                   bias)
        return {"hidden": outputs}

    return fn


def make_fused_lstm():
    fn = fused_lstm_function(SEED_LSTM, TIME, BATCH, FEATURES, UNITS)
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    return run_converter(converter)


def make_lstm_int8():
    time, batch, features, units = 4, 1, 3, 8
    fn = fused_lstm_function(SEED_LSTM_INT8, time, batch, features, units)
    rng = np.random.default_rng(SEED_LSTM_INT8 + 1)
    samples = [rng.normal(size=(batch, time, features)).astype(np.float32)
               for _ in range(16)]

    def dataset():
        for sample in samples:
            yield [sample]

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = dataset
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


MODELS = [("fused_lstm", make_fused_lstm, SEED_LSTM),
          ("lstm_int8", make_lstm_int8, SEED_LSTM_INT8)]

README_HEAD = """# Converted recurrent models

Made by this project (litegpu) with TensorFlow's own converter from graphs
written here and random weights; covered by the project's license. Checked
against LiteRT by tests/python/test_recurrent_models.py.

    build/venv-tf/bin/python tools/convert/make_recurrent_models.py

with tensorflow-cpu {tf_version}; `supported_ops = [TFLITE_BUILTINS]`, no
optimizations, except lstm_int8: full-integer quantization
(`optimizations = [Optimize.DEFAULT]`, `supported_ops =
[TFLITE_BUILTINS_INT8]`, int8 input and output) from a representative
dataset of 16 seeded sequences.

"""


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
        lines = [f"## {name}.tflite", "",
                 f"* size: {len(data):,} bytes; sha256 "
                 f"`{hashlib.sha256(data).hexdigest()}`",
                 f"* seed: {seed}"]
        for kind, key, tname, ttype, shape in io_tensors(data):
            lines.append(f"* {kind} {key} (`{tname}`): {ttype} "
                         f"{format_shape(shape)}")
        lines += ["", f"ops: {ops}", ""]
        sections.append("\n".join(lines))
    # keep make_integer_lstm_models.py's sections (after its marker line)
    readme = args.out / "README.md"
    kept = ""
    if readme.exists() and INTEGER_MARKER in readme.read_text():
        kept = "\n" + INTEGER_MARKER + readme.read_text().split(
            INTEGER_MARKER, 1)[1]
    readme.write_text(README_HEAD.format(tf_version=tf.__version__) +
                      "\n".join(sections) + kept)


if __name__ == "__main__":
    main()
