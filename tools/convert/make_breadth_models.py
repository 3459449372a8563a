"""Converts graphs that use the ops added for op breadth with TensorFlow's
own TFLite converter into tests/models/breadth/, and writes their README.md.

    build/venv-tf/bin/python tools/convert/make_breadth_models.py

Models:
  dilated_conv   an atrous convolution written out (SPACE_TO_BATCH_ND,
                 CONV_2D, BATCH_TO_SPACE_ND)
  ops_graph      one function using TOPK_V2, GATHER_ND, CUMSUM, ONE_HOT,
                 REVERSE_V2, ADD_N, FLOOR_DIV, FLOOR_MOD, RANGE and WHERE
  segment_graph  one function using SCATTER_ND, SEGMENT_SUM,
                 UNSORTED_SEGMENT_SUM / MAX / MIN / PROD, UNIQUE,
                 MATRIX_DIAG, MATRIX_SET_DIAG, REVERSE_SEQUENCE,
                 SPARSE_TO_DENSE, BROADCAST_ARGS and DYNAMIC_UPDATE_SLICE
  audio_graph    a keyword-spotting front end: tf.raw_ops.AudioSpectrogram
                 and Mfcc, which the converter keeps as the custom ops
                 (allow_custom_ops) TFLite's BuiltinOpResolver registers
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
DEFAULT_OUT = REPO / "tests" / "models" / "breadth"
SEED_DILATED = 3001
SEED_OPS = 3002
SEED_SEGMENT = 3003
SEED_AUDIO = 3004


def run_converter(converter):
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


def make_dilated_conv():
    """The pattern TensorFlow writes for an atrous convolution when the
    converter keeps it: SPACE_TO_BATCH_ND, a VALID convolution, then
    BATCH_TO_SPACE_ND (written out, as the converter now folds
    Conv2D(dilation_rate=...) into CONV_2D's own dilation)."""
    rng = np.random.default_rng(SEED_DILATED)
    w = tf.constant(rng.standard_normal((3, 3, 3, 8)).astype(np.float32) / 3)

    @tf.function(input_signature=[tf.TensorSpec([1, 16, 16, 3], tf.float32)])
    def fn(image):
        x = tf.space_to_batch(image, [2, 2], [[2, 2], [2, 2]])
        x = tf.nn.relu(tf.nn.conv2d(x, w, 1, "VALID"))
        return {"features": tf.batch_to_space(x, [2, 2], [[0, 0], [0, 0]])}

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    return run_converter(converter)


def make_ops_graph():
    rng = np.random.default_rng(SEED_OPS)
    table = tf.constant(rng.standard_normal((6, 4)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([3, 10], tf.float32),
                                  tf.TensorSpec([4], tf.int32)])
    def fn(x, ids):
        values, indices = tf.math.top_k(x, k=4)
        picked = tf.gather_nd(table, tf.expand_dims(ids, -1))
        running = tf.math.cumsum(values, axis=1, exclusive=True)
        hot = tf.one_hot(indices, depth=10, on_value=2.0, off_value=-1.0)
        flipped = tf.reverse(picked, axis=[0])[:3]
        total = tf.add_n([values, running, flipped])
        quotient = tf.math.floordiv(ids, 3)
        remainder = tf.math.floormod(x, 0.75)
        steps = tf.range(0, tf.reduce_max(ids) + 1, 2)
        where = tf.where(x > 0.5)
        return {"total": total, "hot": hot, "quotient": quotient,
                "remainder": remainder, "steps": steps, "where": where}

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    return run_converter(converter)


def make_segment_graph():
    """Scatter, segment and small shape ops. Ids come from the int32 input
    through FLOOR_MOD, so every id is in range; DYNAMIC_UPDATE_SLICE is
    XLA's (tf2xla), which the converter lowers to the builtin."""
    from tensorflow.compiler.tf2xla.python import xla

    rng = np.random.default_rng(SEED_SEGMENT)
    bias = tf.constant(rng.standard_normal((5, 4)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([6, 4], tf.float32),
                                  tf.TensorSpec([6], tf.int32),
                                  tf.TensorSpec([8], tf.int32),
                                  tf.TensorSpec([3], tf.int32),
                                  tf.TensorSpec([2], tf.int32)])
    def fn(x, ids, codes, lengths, start):
        seg = ids % 4
        scattered = tf.scatter_nd(tf.reshape(ids % 5, [6, 1]), x, [5, 4])
        unique, where = tf.unique(codes)
        return {
            "scattered": scattered + bias,
            "seg_sum": tf.math.unsorted_segment_sum(x, seg, 5),
            "seg_max": tf.math.unsorted_segment_max(x, seg, 5),
            "seg_min": tf.math.unsorted_segment_min(x, seg, 5),
            "seg_prod": tf.math.unsorted_segment_prod(x, seg, 5),
            "sorted_sum": tf.math.segment_sum(x, tf.sort(ids % 3)),
            "unique": unique, "unique_idx": where,
            "diag": tf.linalg.diag(x),
            "set_diag": tf.linalg.set_diag(x, x[1] * 3.0),
            "reversed": tf.reverse_sequence(x[:3], lengths % 5, seq_axis=1,
                                            batch_axis=0),
            "dense": tf.compat.v1.sparse_to_dense(
                tf.range(3) * 2, [7], tf.cast(lengths, tf.float32), -1.0),
            "broadcast": tf.broadcast_dynamic_shape(
                tf.shape(unique), tf.constant([1], tf.int32)),
            "updated": xla.dynamic_update_slice(x, x[:2, :3] * 2.0, start),
        }

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    return run_converter(converter)


def make_audio_graph():
    """AudioSpectrogram (30 ms windows, 10 ms stride at 16 kHz: 480 / 160,
    a 512-point FFT) into Mfcc, the speech-commands front end; a second
    AudioSpectrogram gives magnitudes. Nothing random: the seed is unused.
    The converter writes both as custom ops with FlexBuffers options
    (Mfcc's frequency limits as floats, which TFLite reads as integers)."""

    @tf.function(input_signature=[tf.TensorSpec([8000, 1], tf.float32)])
    def fn(audio):
        power = tf.raw_ops.AudioSpectrogram(
            input=audio, window_size=480, stride=160, magnitude_squared=True)
        mfcc = tf.raw_ops.Mfcc(
            spectrogram=power, sample_rate=tf.constant(16000),
            upper_frequency_limit=7600.0, lower_frequency_limit=60.0,
            filterbank_channel_count=40, dct_coefficient_count=13)
        magnitude = tf.raw_ops.AudioSpectrogram(
            input=audio, window_size=400, stride=320, magnitude_squared=False)
        return {"mfcc": mfcc, "magnitude": magnitude}

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    converter.allow_custom_ops = True
    return run_converter(converter)


MODELS = [("dilated_conv", make_dilated_conv, SEED_DILATED),
          ("ops_graph", make_ops_graph, SEED_OPS),
          ("segment_graph", make_segment_graph, SEED_SEGMENT),
          ("audio_graph", make_audio_graph, SEED_AUDIO)]

README_HEAD = """# Converted models for op breadth

Made by this project (litegpu) with TensorFlow's own converter from graphs
written here and random weights; covered by the project's license. Checked
against LiteRT by tests/python/test_breadth_models.py.

    build/venv-tf/bin/python tools/convert/make_breadth_models.py

with tensorflow-cpu {tf_version}; `supported_ops = [TFLITE_BUILTINS]`, no
optimizations (audio_graph also `allow_custom_ops`).

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
    (args.out / "README.md").write_text(
        README_HEAD.format(tf_version=tf.__version__) + "\n".join(sections))


if __name__ == "__main__":
    main()
