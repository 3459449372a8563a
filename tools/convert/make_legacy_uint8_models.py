"""Makes a legacy (TF1-era) fully quantized UINT8 model with TensorFlow's
TF1-compat converter and writes it to tests/models/quantized/.

Run from the repository root with the conversion-only environment of
make_models.py (never used by CI: the converted file is committed):

    build/venv-tf/bin/python tools/convert/make_legacy_uint8_models.py
        [--out DIR]

legacy_uint8_cnn is built the way quantization-aware-trained TF1 graphs
were (mobilenet_v1_*_quant, SSD MobileNet quant): a float graph whose
activations and weights pass through
tf.quantization.fake_quant_with_min_max_vars nodes, converted by
tf.compat.v1.lite.TFLiteConverter with inference_type = tf.uint8 and
quantized_input_stats, so every tensor is UINT8 per tensor (weights with
nonzero zero points) and every bias INT32. The graph, on a [1, 32, 32, 3]
input: CONV_2D 3x3 stride 2 + RELU6, DEPTHWISE_CONV_2D 3x3 + RELU6, a 1x1
CONV_2D branch added back (ADD of different ranges), a LOGISTIC gate
multiplied in (MUL), a CONCATENATION of two differently ranged branches
(requantized inputs), AVERAGE_POOL_2D, RESIZE_BILINEAR, MAX_POOL_2D, TANH,
RESHAPE, FULLY_CONNECTED and SOFTMAX. Weights come from numpy's
default_rng(SEED); the fake-quant ranges are fixed, so a second run with
the pinned package versions writes the same bytes.

Prints the README line (tests/models/quantized/README.md lists it under
"Legacy uint8").
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
SEED = 8008
tf1 = tf.compat.v1


def build_and_convert():
    rng = np.random.default_rng(SEED)

    def fq(t, lo, hi):
        return tf.quantization.fake_quant_with_min_max_vars(
            t, tf.constant(lo, tf.float32), tf.constant(hi, tf.float32),
            num_bits=8)

    def weights(shape, scale):
        w = (rng.standard_normal(shape) * scale).astype(np.float32)
        return fq(tf.constant(w), float(w.min()), float(w.max()))

    def bias(n):
        return tf.constant((rng.standard_normal(n) * 0.1).astype(np.float32))

    def conv(h, shape, stride=1, scale=0.3):
        return tf.nn.conv2d(h, weights(shape, scale), [1, stride, stride, 1],
                            "SAME") + bias(shape[3])

    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [1, 32, 32, 3], name="input")
        h = fq(x, -1.0, 1.0)
        h = fq(tf.nn.relu6(conv(h, (3, 3, 3, 16), stride=2)), 0.0, 6.0)
        d = tf.nn.depthwise_conv2d(h, weights((3, 3, 16, 1), 0.3),
                                   [1, 1, 1, 1], "SAME") + bias(16)
        d = fq(tf.nn.relu6(d), 0.0, 6.0)
        r = fq(tf.nn.relu(conv(d, (1, 1, 16, 16))), 0.0, 4.0)
        h = fq(d + r, 0.0, 10.0)                              # ADD
        gate = fq(tf.sigmoid(fq(conv(h, (1, 1, 16, 16), scale=0.1), -8.0,
                                8.0)), 0.0, 255.0 / 256.0)    # LOGISTIC
        h = fq(h * gate, 0.0, 8.0)                            # MUL
        b = fq(tf.nn.relu(conv(h, (3, 3, 16, 8))), 0.0, 3.0)
        h = fq(tf.concat([h, b], axis=3), 0.0, 8.0)           # 16 + 8
        h = fq(tf.nn.avg_pool2d(h, 2, 2, "VALID"), 0.0, 8.0)  # 8x8x24
        h = fq(tf1.image.resize_bilinear(h, [12, 12]), 0.0, 8.0)
        h = fq(tf.nn.relu(conv(h, (1, 1, 24, 32))), 0.0, 6.0)
        h = fq(tf.nn.max_pool2d(h, 3, 3, "VALID"), 0.0, 6.0)  # 4x4x32
        h = fq(tf.tanh(fq(conv(h, (1, 1, 32, 32), scale=0.1), -4.0, 4.0)),
               -1.0, 127.0 / 128.0)                           # TANH
        h = tf.reshape(h, [1, 4 * 4 * 32])
        h = tf.matmul(h, weights((4 * 4 * 32, 10), 0.1)) + bias(10)
        h = fq(h, -12.0, 12.0)
        out = fq(tf.nn.softmax(h), 0.0, 255.0 / 256.0)
        with tf1.Session(graph=graph) as sess:
            converter = tf1.lite.TFLiteConverter.from_session(sess, [x], [out])
            converter.inference_type = tf.uint8
            converter.quantized_input_stats = {"input": (127.5, 127.5)}
            with contextlib.redirect_stdout(io.StringIO()):
                return converter.convert()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tf1.disable_eager_execution()
    data = build_and_convert()
    path = args.out / "legacy_uint8_cnn.tflite"
    path.write_bytes(data)
    ops = ", ".join(f"{op} v{v}" + (f" x{n}" if n > 1 else "")
                    for (op, v), n in sorted(mm.op_counts(data).items()))
    print(f"| {path.name} | {len(data):,} | "
          f"`{hashlib.sha256(data).hexdigest()[:16]}` | {ops} |")


if __name__ == "__main__":
    main()
