"""Writes the small float32 models of tests/python/versioning_models/ with
TensorFlow's own TFLite converter: one op each, in the variants whose
version is above 1 (grouped convolution, dilation, 5-D broadcast, ...).

test_versioning_litert.py checks that the version TensorFlow's converter
recorded for each operator, and the model's min_runtime_version, equal what
litegpu's rules compute (tools/op_versions), and that the model writer's
auto versions give the same version for the same op.

    build/venv-tf/bin/python tests/python/versioning_models/make_models.py

(build/venv-tf: the TensorFlow environment of tools/convert, see
tests/models/README.md; the files here were made with tensorflow-cpu
2.21.0.) Weights come from numpy.random.default_rng(SEED); the converter
runs with TFLITE_BUILTINS only and no optimizations.
"""

from pathlib import Path

import numpy as np
import tensorflow as tf

HERE = Path(__file__).resolve().parent
SEED = 2024


def convert(name, fn, shapes):
    """Converts fn (float32 inputs of `shapes`) into HERE/<name>.tflite."""
    func = tf.function(fn)
    concrete = func.get_concrete_function(
        *[tf.TensorSpec(s, tf.float32) for s in shapes])
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [concrete], func)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    (HERE / f"{name}.tflite").write_bytes(converter.convert())
    print("wrote", name)


def main():
    rng = np.random.default_rng(SEED)

    def const(shape):
        return tf.constant(rng.standard_normal(shape).astype(np.float32))

    five_a, five_b = (2, 1, 3, 1, 5), (2, 4, 3, 1, 5)
    grouped = const((3, 3, 2, 6))  # 4 input channels, 2 per group
    convert("grouped_conv", lambda x: tf.nn.conv2d(x, grouped, 1, "SAME"),
            [(1, 5, 5, 4)])
    dw = const((3, 3, 4, 1))
    convert("dw_dilated", lambda x: tf.nn.depthwise_conv2d(
        x, dw, [1, 1, 1, 1], "SAME", dilations=[2, 2]), [(1, 9, 9, 4)])
    convert("dw_plain", lambda x: tf.nn.depthwise_conv2d(
        x, dw, [1, 1, 1, 1], "SAME"), [(1, 9, 9, 4)])
    fc = const((4, 10))
    convert("fc_nobias", lambda x: tf.matmul(x, fc), [(2, 4)])
    convert("fc_3d", lambda x: tf.tensordot(x, fc, axes=1), [(2, 3, 4)])
    convert("strided5d", lambda x: x[:, 1:3, :, ::2, 0:1], [(2, 4, 3, 4, 2)])
    convert("transpose5d", lambda x: tf.transpose(x, [0, 2, 1, 4, 3]),
            [(2, 3, 4, 5, 2)])
    convert("transpose6d", lambda x: tf.transpose(x, [0, 2, 1, 4, 3, 5]),
            [(2, 3, 4, 1, 2, 2)])
    convert("pad5d", lambda x: tf.pad(
        x, [[0, 0], [1, 1], [0, 0], [2, 0], [0, 0]]), [(1, 2, 3, 4, 2)])
    convert("sub5d", lambda x, y: x - y, [five_a, five_b])
    convert("div5d", lambda x, y: x / y, [five_a, five_b])
    convert("max5d", tf.maximum, [five_a, five_b])
    convert("slice5d", lambda x: tf.slice(x, [0, 1, 0, 0, 0], [1, 2, 3, 4, 2]),
            [(1, 3, 3, 4, 2)])
    indices = tf.constant(np.array([[0, 2], [1, 1]], np.int32))
    convert("gather_batch_dims", lambda x: tf.gather(
        x, indices, axis=1, batch_dims=1), [(2, 3, 4)])
    tw, tb = const((3, 3, 5, 4)), const((5,))
    convert("tconv_bias", lambda x: tf.nn.conv2d_transpose(
        x, tw, [1, 8, 8, 5], 2, "SAME") + tb, [(1, 4, 4, 4)])
    convert("tconv_bias_relu", lambda x: tf.nn.relu(tf.nn.conv2d_transpose(
        x, tw, [1, 8, 8, 5], 2, "SAME") + tb), [(1, 4, 4, 4)])
    convert("resize_half_pixel", lambda x: tf.image.resize(
        x, [7, 9], "bilinear"), [(1, 4, 5, 2)])
    convert("resize_align_corners",
            lambda x: tf.compat.v1.image.resize_bilinear(
                x, [7, 9], align_corners=True), [(1, 4, 5, 2)])
    convert("resize_nearest_align_corners",
            lambda x: tf.compat.v1.image.resize_nearest_neighbor(
                x, [7, 9], align_corners=True), [(1, 4, 5, 2)])
    convert("softmax", tf.nn.softmax, [(2, 5)])
    convert("broadcast_to", lambda x: tf.broadcast_to(x, [3, 2, 5]), [(2, 5)])


if __name__ == "__main__":
    main()
