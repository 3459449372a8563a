"""Quantizes the project's Keras test models with TensorFlow's own TFLite
converter and writes tests/models/quantized/ (the .tflite files and their
README.md).

Run from the repository root with the conversion-only environment of
make_models.py (never used by CI: the converted files are committed):

    build/venv-tf/bin/python tools/convert/make_quantized_models.py [--out DIR]

Each network is built exactly as make_models.py builds its float file (same
seeds, same batch norm calibration) and converted in up to four ways, the
ones TFLite documents for deployment:
  int8           full integer: int8 weights and activations, int8 input and
                 output (`inference_input_type = inference_output_type =
                 tf.int8`, `supported_ops = [TFLITE_BUILTINS_INT8]`)
  int8_float_io  full integer inside, float input and output: the converter
                 adds QUANTIZE and DEQUANTIZE at the edges
  16x8           int16 activations, int8 weights, int64 biases
                 (`EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_
                 INT8`), int16 input and output
  dynamic        dynamic range: int8 weights, float activations (hybrid
                 kernels), `optimizations = [DEFAULT]` without a dataset
The representative dataset is 8 seeded inputs drawn as the float model's
calibration batch is (numpy default_rng with the model's seed + 1). The
converter calibrates the activation ranges on it, so a second run with the
pinned package versions writes the same bytes.
"""

import argparse
import contextlib
import hashlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_models as mm  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

DEFAULT_OUT = mm.REPO / "tests" / "models" / "quantized"
VARIANTS = ("int8", "int8_float_io", "16x8", "dynamic")


def uniform_images(shape):
    return lambda rng: rng.uniform(-1.0, 1.0, shape).astype(np.float32)


def normal_inputs(shape):
    return lambda rng: rng.standard_normal(shape).astype(np.float32)


# (name, builder, seed, input sampler, variants). Built in this order in one
# process: Keras numbers its layers per process, and the names end up in
# the files.
NETWORKS = [
    ("kws_cnn", mm.build_kws_cnn, mm.SEED_KWS, normal_inputs((1, 49, 10, 1)),
     VARIANTS),
    ("small_unet", mm.build_small_unet, mm.SEED_UNET,
     uniform_images((1, 64, 64, 3)), VARIANTS),
    # No 16x8: the converter cannot quantize the layer norm's NEG to 16x8
    # ("Quantization to 16x8-bit not yet supported for op: 'NEG'").
    ("tiny_transformer", mm.build_tiny_transformer, mm.SEED_TRANSFORMER,
     normal_inputs((1, 16, 64)), ("int8", "int8_float_io", "dynamic")),
    # No 16x8: "Quantization to 16x8-bit not yet supported for op:
    # 'HARD_SWISH'".
    ("mobilenet_v3_small", mm.build_mobilenet_v3_small, mm.SEED_MOBILENET_V3,
     uniform_images((1, 224, 224, 3)), ("int8",)),
    ("mobilenet_v2", mm.build_mobilenet_v2, mm.SEED_MOBILENET,
     uniform_images((1, 224, 224, 3)), ("int8",)),
]
SAMPLES = 8


def quantize(model, variant, sample, seed):
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if variant != "dynamic":
        def dataset():
            rng = np.random.default_rng(seed + 1)
            for _ in range(SAMPLES):
                yield [sample(rng)]
        converter.representative_dataset = dataset
    if variant in ("int8", "int8_float_io"):
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if variant == "int8":
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    if variant == "16x8":
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.
            EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        converter.inference_input_type = tf.int16
        converter.inference_output_type = tf.int16
    with contextlib.redirect_stdout(io.StringIO()):
        return converter.convert()


README_HEAD = """# Converter-made quantized models

Quantized versions of the project's Keras test models (tests/models/
README.md describes the networks), made by TensorFlow's own TFLite converter
from the same seeded networks, for the whole-model comparison of litegpu
against LiteRT (tests/python/test_quantized_converted.py). Made by this
project; covered by its license. Written by
`build/venv-tf/bin/python tools/convert/make_quantized_models.py` with the
pins of tools/convert/requirements.txt (tensorflow-cpu {tf_version}).

Variants: `int8` full integer with int8 input and output; `int8_float_io`
full integer with float input and output (QUANTIZE / DEQUANTIZE at the
edges); `16x8` int16 activations, int8 weights, int64 biases, int16 input
and output; `dynamic` dynamic-range (int8 weights, float activations). The
representative dataset is {samples} seeded inputs per network.

| file | bytes | sha256 | ops |
| --- | --- | --- | --- |
"""


LEGACY_SECTION = "## Legacy uint8"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, build, seed, sample, variants in NETWORKS:
        model = build()
        for variant in variants:
            data = quantize(model, variant, sample, seed)
            path = args.out / f"{name}_{variant}.tflite"
            path.write_bytes(data)
            ops = ", ".join(f"{op} v{v}" + (f" x{n}" if n > 1 else "")
                            for (op, v), n in
                            sorted(mm.op_counts(data).items()))
            rows.append(f"| {path.name} | {len(data):,} | "
                        f"`{hashlib.sha256(data).hexdigest()[:16]}` | "
                        f"{ops} |")
            print(f"{path.name}: {len(data):,} bytes\n  {ops}")
    readme = args.out / "README.md"
    # make_legacy_uint8_models.py's section (its own script writes that
    # model) is kept as it is.
    legacy = ""
    if readme.is_file():
        text = readme.read_text()
        if LEGACY_SECTION in text:
            legacy = "\n" + LEGACY_SECTION + text.split(LEGACY_SECTION, 1)[1]
    readme.write_text(
        README_HEAD.format(tf_version=tf.__version__, samples=SAMPLES) +
        "\n".join(rows) + "\n" + legacy)


if __name__ == "__main__":
    main()
