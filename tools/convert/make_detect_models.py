"""Converts a graph that uses NON_MAX_SUPPRESSION_V4 and _V5 with
TensorFlow's own TFLite converter into tests/models/detect/, and writes its
README.md.

    build/venv-tf/bin/python tools/convert/make_detect_models.py

Models:
  nms_graph   boxes [16, 4] and scores [16] through NonMaxSuppressionV4
              (padded to 6) and NonMaxSuppressionV5 (soft-NMS, sigma 0.5,
              padded to 8), the kept boxes gathered and scaled
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
DEFAULT_OUT = REPO / "tests" / "models" / "detect"


def run_converter(converter):
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


def make_nms_graph():
    @tf.function(input_signature=[tf.TensorSpec([16, 4], tf.float32),
                                  tf.TensorSpec([16], tf.float32)])
    def fn(boxes, scores):
        hard, count = tf.raw_ops.NonMaxSuppressionV4(
            boxes=boxes, scores=scores, max_output_size=6,
            iou_threshold=0.4, score_threshold=0.2,
            pad_to_max_output_size=True)
        soft, soft_scores, soft_count = tf.raw_ops.NonMaxSuppressionV5(
            boxes=boxes, scores=scores, max_output_size=8,
            iou_threshold=0.9, score_threshold=0.1, soft_nms_sigma=0.5,
            pad_to_max_output_size=True)
        kept = tf.gather(boxes, hard) * 2.0
        return {"hard": hard, "count": count, "kept": kept, "soft": soft,
                "soft_scores": soft_scores, "soft_count": soft_count}

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [fn.get_concrete_function()], tf.Module())
    return run_converter(converter)


MODELS = [("nms_graph", make_nms_graph)]

README_HEAD = """# Converted models for the detection ops

Made by this project (litegpu) with TensorFlow's own converter from graphs
written here (no weights); covered by the project's license. Checked
against LiteRT by tests/python/test_detect_models.py.

    build/venv-tf/bin/python tools/convert/make_detect_models.py

with tensorflow-cpu {tf_version}; `supported_ops = [TFLITE_BUILTINS]`, no
optimizations.

"""


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
