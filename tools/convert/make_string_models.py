"""Converts a graph of STRING tensors with TensorFlow's own TFLite converter
into tests/models/strings/, and writes its README.md.

    build/venv-tf/bin/python tools/convert/make_string_models.py

Model:
  string_graph  one function over a STRING [4] input and INT32 [3] ids that
                the converter lowers to builtins on STRING tensors: GATHER,
                GATHER_ND v2, RESHAPE, TILE v2, SLICE v3, STRIDED_SLICE v5,
                EQUAL v3, NOT_EQUAL v3 and FILL v2 (no weights, nothing
                random)
"""

import argparse
import contextlib
import hashlib
import io
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_models import format_shape, io_tensors, op_counts  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "tests" / "models" / "strings"

README_HEAD = """# Converted models of STRING tensors

Made by this project (litegpu) with TensorFlow's own converter from a graph
written here (no weights); covered by the project's license. Checked
against LiteRT by tests/python/ops/test_ops_string_tensors.py.

    build/venv-tf/bin/python tools/convert/make_string_models.py

with tensorflow-cpu {tf_version}; `supported_ops = [TFLITE_BUILTINS]`, no
optimizations.

"""


def make_string_graph():
    @tf.function(input_signature=[tf.TensorSpec([4], tf.string),
                                  tf.TensorSpec([3], tf.int32)])
    def fn(words, ids):
        picked = tf.gather(words, ids)
        grid = tf.reshape(words, [2, 2])
        tiled = tf.tile(grid, [1, 2])
        return {
            "picked": picked,
            "cut": tf.slice(tiled, [0, 1], [2, 2]),
            "same": tf.equal(picked, words[0]),
            "differ": tf.not_equal(tf.expand_dims(words, 0),
                                   tf.reshape(picked[:1], [1, 1])),
            "filled": tf.fill([2, 3], words[1]),
            "nd": tf.gather_nd(grid, [[1, 0], [0, 1]]),
            "squeezed": tf.squeeze(tf.expand_dims(grid, 1), [1]),
        }

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


MODELS = [("string_graph", make_string_graph)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sections = []
    for name, make in MODELS:
        data = make()
        (args.out / f"{name}.tflite").write_bytes(data)
        ops = ", ".join(f"{op} v{v}" + (f" x{n}" if n > 1 else "")
                        for (op, v), n in sorted(op_counts(data).items()))
        print(f"{name}.tflite: {len(data):,} bytes\n  {ops}")
        lines = [f"## {name}.tflite", "",
                 f"* size: {len(data):,} bytes; sha256 "
                 f"`{hashlib.sha256(data).hexdigest()}`"]
        for kind, key, tname, ttype, shape in io_tensors(data):
            lines.append(f"* {kind} {key} (`{tname}`): {ttype} "
                         f"{format_shape(shape)}")
        lines += ["", f"ops: {ops}", ""]
        sections.append("\n".join(lines))
    (args.out / "README.md").write_text(
        README_HEAD.format(tf_version=tf.__version__) + "\n".join(sections))


if __name__ == "__main__":
    main()
