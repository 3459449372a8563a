"""Converts the float32 test models in tests/models/ with TensorFlow's own
TFLite converter, and writes tests/models/README.md from what it converted.

Run from the repository root with the conversion-only environment (never
used by CI or scripts/setup.sh: the converted files are committed):

    python3 -m venv build/venv-tf
    build/venv-tf/bin/pip install -r tools/convert/requirements.txt
    build/venv-tf/bin/python tools/convert/make_models.py [--out DIR]
        [--only [NAME ...]]

Every random number comes from a fixed seed (tf.keras.utils.set_random_seed
for Keras initializers, numpy's default_rng for hand-made constants), so a
second run with the same package versions writes the same bytes.

Models (see MODELS below):
  mobilenet_v2      Keras MobileNetV2, 224x224x3, 1000 classes, random init
  kws_cnn           a DS-CNN style keyword-spotting net, [1,49,10,1] -> 12
  mobilenet_v3_small  Keras MobileNetV3Small, width 0.75, 100 classes
  tiny_transformer  two transformer encoder blocks, [1,16,64] -> 10
  small_unet        a two-level U-Net, [1,64,64,3] -> [1,64,64,1]
  all_ops           one graph using (nearly) every float op litegpu targets
  all_ops_fp16w     the same graph with float16 weights (DEQUANTIZE)
  all_ops_extra     CEIL, ELU, ROUND: ops LiteRT's reference kernels lack
  all_ops_jax       RELU_0_TO_1, from JAX through jax2tf (StableHLO)
  all_ops_dynamic   ops the converter keeps only when shapes are dynamic
                    (SHAPE, ZEROS_LIKE, SQUEEZE, EXPAND_DIMS, dynamic FILL
                    and BROADCAST_TO)

After converting, the script lists the ops of each file and prints every op
of WANTED_OPS that none of the all_ops* files holds, with the reason when it
is known (KNOWN_MISSING).
"""

import argparse
import contextlib
import hashlib
import io
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.lite.python import schema_py_generated as schema  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "tests" / "models"

SEED_MOBILENET = 1001
SEED_KWS = 1002
SEED_ALL_OPS = 1003
SEED_MOBILENET_V3 = 1004
SEED_TRANSFORMER = 1005
SEED_UNET = 1006

# The ops the all_ops* files should hold between them (the project's float
# kernel list).
WANTED_OPS = """
ADD SUB MUL DIV SQUARED_DIFFERENCE MAXIMUM MINIMUM POW CONV_2D
DEPTHWISE_CONV_2D TRANSPOSE_CONV FULLY_CONNECTED BATCH_MATMUL AVERAGE_POOL_2D
MAX_POOL_2D L2_POOL_2D MEAN SUM REDUCE_MAX REDUCE_MIN REDUCE_PROD RESHAPE
SQUEEZE EXPAND_DIMS CONCATENATION PACK UNPACK SPLIT SPLIT_V SLICE
STRIDED_SLICE PAD PADV2 MIRROR_PAD TRANSPOSE GATHER TILE BROADCAST_TO
DEPTH_TO_SPACE SPACE_TO_DEPTH RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR SOFTMAX
LOG_SOFTMAX LOGISTIC TANH RELU RELU6 RELU_N1_TO_1 RELU_0_TO_1 LEAKY_RELU PRELU
ELU HARD_SWISH GELU EXP LOG SQRT RSQRT SQUARE ABS NEG SIN COS FLOOR CEIL ROUND
SIGN CAST DEQUANTIZE ARG_MAX ARG_MIN SHAPE FILL ZEROS_LIKE SELECT_V2 LESS
GREATER EQUAL NOT_EQUAL LESS_EQUAL GREATER_EQUAL
""".split()

# Ops that neither path of the converter (TensorFlow graphs, StableHLO) emits
# with the versions pinned in requirements.txt, and why.
KNOWN_MISSING = {
    "L2_POOL_2D": (
        "TensorFlow has no L2-pool op, and the converter does not rewrite "
        "sqrt(avg_pool(square(x))) into L2_POOL_2D (it emits SQUARE, "
        "AVERAGE_POOL_2D, SQRT); nor does its StableHLO path (a JAX "
        "sqrt(reduce_window(x*x)/n) becomes MUL, AVERAGE_POOL_2D, SQRT); "
        "covered by the per-op tests instead"),
}

OP_NAMES = {value: name for name, value in vars(schema.BuiltinOperator).items()
            if not name.startswith("_")}
TYPE_NAMES = {value: name for name, value in vars(schema.TensorType).items()
              if not name.startswith("_")}


# ---- Reading a converted file -----------------------------------------------

def op_code_name(model, code_index):
    code = model.OperatorCodes(code_index)
    # Older files keep the code in deprecated_builtin_code: take the larger.
    builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
    name = OP_NAMES.get(builtin, f"BUILTIN_{builtin}")
    if builtin == schema.BuiltinOperator.CUSTOM:
        name = "CUSTOM:" + code.CustomCode().decode()
    return name, code.Version()


def op_counts(data):
    """{(op name, version): number of nodes} over every subgraph."""
    model = schema.Model.GetRootAs(data, 0)
    counts = {}
    for s in range(model.SubgraphsLength()):
        graph = model.Subgraphs(s)
        for i in range(graph.OperatorsLength()):
            key = op_code_name(model, graph.Operators(i).OpcodeIndex())
            counts[key] = counts.get(key, 0) + 1
    return counts


def signature_names(model):
    """{tensor index: signature key} from the file's signature defs."""
    names = {}
    for s in range(model.SignatureDefsLength()):
        sig = model.SignatureDefs(s)
        for i in range(sig.InputsLength()):
            names[sig.Inputs(i).TensorIndex()] = sig.Inputs(i).Name().decode()
        for i in range(sig.OutputsLength()):
            names[sig.Outputs(i).TensorIndex()] = \
                sig.Outputs(i).Name().decode()
    return names


def io_tensors(data):
    """[(kind, signature key, tensor name, type, shape signature)] of
    subgraph 0's inputs and outputs (-1: known only at run time)."""
    model = schema.Model.GetRootAs(data, 0)
    graph = model.Subgraphs(0)
    keys = signature_names(model)
    rows = []
    for kind, count, get in (("input", graph.InputsLength(), graph.Inputs),
                             ("output", graph.OutputsLength(), graph.Outputs)):
        for i in range(count):
            index = get(i)
            tensor = graph.Tensors(index)
            if tensor.ShapeSignatureLength():
                shape = tensor.ShapeSignatureAsNumpy()
            elif tensor.ShapeLength():
                shape = tensor.ShapeAsNumpy()
            else:
                shape = []
            rows.append((kind, keys.get(index, "?"), tensor.Name().decode(),
                         TYPE_NAMES.get(tensor.Type(), str(tensor.Type())),
                         [int(d) for d in shape]))
    return rows


# ---- Conversion -------------------------------------------------------------

def convert(fn, specs, fp16_weights=False):
    """Converts a Python function of the `specs` inputs, which reads no
    variables, to .tflite bytes: TFLITE_BUILTINS only, no optimization unless
    fp16_weights (then float16 weight quantization, which adds DEQUANTIZE
    nodes). No autograph: the functions have no Python control flow."""
    owner = tf.Module()
    owner.serve = tf.function(fn, input_signature=specs, autograph=False)
    concrete = owner.serve.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete],
                                                                owner)
    return run_converter(converter, fp16_weights)


def convert_keras(model):
    """Converts a Keras model at its fixed input shape; the converter
    freezes its weights and folds batch norm (inference mode) into the
    convolutions."""
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    # Keras prints the whole traced signature while exporting; keep it out
    # of the report.
    with contextlib.redirect_stdout(io.StringIO()):
        return run_converter(converter, False)


def run_converter(converter, fp16_weights):
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if fp16_weights:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    return converter.convert()


# ---- Keras networks ---------------------------------------------------------

def build_mobilenet_v2():
    tf.keras.utils.set_random_seed(SEED_MOBILENET)
    # A batch-1 input tensor so that the file has no unknown dimension.
    image = tf.keras.Input(shape=(224, 224, 3), batch_size=1, name="image")
    model = tf.keras.applications.MobileNetV2(
        input_shape=(224, 224, 3), input_tensor=image, weights=None,
        classes=1000)
    rng = np.random.default_rng(SEED_MOBILENET)
    batch = rng.uniform(-1.0, 1.0, (4, 224, 224, 3)).astype(np.float32)
    calibrate_batch_norms(model, batch, rng)
    return model


def make_mobilenet_v2():
    return convert_keras(build_mobilenet_v2())


def calibrate_batch_norms(model, batch, rng):
    """Sets every BatchNormalization's moving statistics to the statistics
    of its input on `batch` (one forward pass in training mode with momentum
    0), and gives it random affine terms (gamma in [0.5, 1.5], beta in
    [-0.2, 0.2]). Freshly initialized statistics (mean 0, variance 1) let
    the activations of a deep random network shrink layer by layer (in
    MobileNetV2 to about 1e-11 before the classifier, leaving a uniform
    softmax); calibrated ones keep every layer near unit scale, as in a
    trained network, and folding them changes the convolution weights."""
    norms = [layer for layer in model.layers
             if isinstance(layer, tf.keras.layers.BatchNormalization)]
    for layer in norms:
        n = layer.gamma.shape[0]
        layer.gamma.assign(rng.uniform(0.5, 1.5, n).astype(np.float32))
        layer.beta.assign(rng.uniform(-0.2, 0.2, n).astype(np.float32))
        layer.momentum = 0.0
    with warnings.catch_warnings():
        # Keras compares the call's structure with the named Input's.
        warnings.filterwarnings("ignore", "The structure of `inputs`")
        model(batch, training=True)
    for layer in norms:
        layer.momentum = 0.99


def build_kws_cnn():
    """DS-CNN (Zhang et al., "Hello Edge", 2017), small size: a 10x4 stride-2
    convolution over 49 MFCC frames x 10 coefficients, four depthwise-
    separable blocks, average pooling over the whole map, 12 classes."""
    tf.keras.utils.set_random_seed(SEED_KWS)
    layers = tf.keras.layers
    inputs = tf.keras.Input(shape=(49, 10, 1), batch_size=1, name="mfcc")
    h = layers.Conv2D(64, (10, 4), strides=(2, 2), padding="same",
                      use_bias=False)(inputs)
    h = layers.BatchNormalization()(h)
    h = layers.ReLU()(h)
    for _ in range(4):
        h = layers.DepthwiseConv2D((3, 3), padding="same", use_bias=False)(h)
        h = layers.BatchNormalization()(h)
        h = layers.ReLU()(h)
        h = layers.Conv2D(64, (1, 1), use_bias=False)(h)
        h = layers.BatchNormalization()(h)
        h = layers.ReLU()(h)
    h = layers.AveragePooling2D(pool_size=(25, 5))(h)
    h = layers.Flatten()(h)
    h = layers.Dense(12)(h)
    outputs = layers.Softmax()(h)
    model = tf.keras.Model(inputs, outputs)
    rng = np.random.default_rng(SEED_KWS)
    batch = rng.standard_normal((16, 49, 10, 1)).astype(np.float32)
    calibrate_batch_norms(model, batch, rng)
    return model


def make_kws_cnn():
    return convert_keras(build_kws_cnn())


def build_mobilenet_v3_small():
    """Keras MobileNetV3Small at width 0.75 with 100 classes (a smaller
    file): hard-swish, squeeze-and-excitation blocks (global average
    pooling, two 1x1 convolutions, hard-sigmoid, a broadcast multiply),
    5x5 depthwise convolutions, stride-2 layers on odd sizes."""
    tf.keras.utils.set_random_seed(SEED_MOBILENET_V3)
    image = tf.keras.Input(shape=(224, 224, 3), batch_size=1, name="image")
    model = tf.keras.applications.MobileNetV3Small(
        input_shape=(224, 224, 3), input_tensor=image, alpha=0.75,
        weights=None, classes=100, dropout_rate=0.0,
        include_preprocessing=False)
    rng = np.random.default_rng(SEED_MOBILENET_V3)
    batch = rng.uniform(-1.0, 1.0, (4, 224, 224, 3)).astype(np.float32)
    calibrate_batch_norms(model, batch, rng)
    return model


def make_mobilenet_v3_small():
    return convert_keras(build_mobilenet_v3_small())


def build_tiny_transformer():
    """Two pre-norm transformer encoder blocks over 16 tokens of width 64:
    layer normalization, 4-head self-attention (Keras MultiHeadAttention,
    key size 16), an exact-GELU feed-forward layer of width 128, residual
    adds; a final layer norm, mean over the tokens, 10-way softmax."""
    tf.keras.utils.set_random_seed(SEED_TRANSFORMER)
    layers = tf.keras.layers
    tokens = tf.keras.Input(shape=(16, 64), batch_size=1, name="tokens")
    h = tokens
    for _ in range(2):
        a = layers.LayerNormalization(epsilon=1e-5)(h)
        a = layers.MultiHeadAttention(num_heads=4, key_dim=16)(a, a)
        h = layers.Add()([h, a])
        f = layers.LayerNormalization(epsilon=1e-5)(h)
        f = layers.Dense(128, activation="gelu")(f)
        f = layers.Dense(64)(f)
        h = layers.Add()([h, f])
    h = layers.LayerNormalization(epsilon=1e-5)(h)
    h = layers.GlobalAveragePooling1D()(h)
    outputs = layers.Dense(10, activation="softmax")(h)
    return tf.keras.Model(tokens, outputs)


def make_tiny_transformer():
    return convert_keras(build_tiny_transformer())


def build_small_unet():
    """A two-level U-Net for 64x64 RGB segmentation: 3x3 convolutions with
    RELU, 2x2 max pooling, a stride-2 transposed convolution and a bilinear
    2x upsampling on the way up, skip connections by concatenation, a 1x1
    convolution with a sigmoid per pixel."""
    tf.keras.utils.set_random_seed(SEED_UNET)
    layers = tf.keras.layers

    def conv(h, filters):
        return layers.Conv2D(filters, 3, padding="same",
                             activation="relu")(h)

    image = tf.keras.Input(shape=(64, 64, 3), batch_size=1, name="image")
    c1 = conv(conv(image, 16), 16)
    c2 = conv(conv(layers.MaxPooling2D()(c1), 32), 32)
    bottom = conv(layers.MaxPooling2D()(c2), 64)
    u2 = layers.Conv2DTranspose(32, 2, strides=2, padding="same")(bottom)
    c3 = conv(layers.Concatenate()([u2, c2]), 32)
    u1 = layers.UpSampling2D(interpolation="bilinear")(c3)
    c4 = conv(layers.Concatenate()([u1, c1]), 16)
    mask = layers.Conv2D(1, 1, activation="sigmoid")(c4)
    return tf.keras.Model(image, mask)


# ---- all_ops ----------------------------------------------------------------


def make_small_unet():
    return convert_keras(build_small_unet())


def const(rng, shape, fan_in):
    """Seeded normal weights scaled by 1/sqrt(fan_in) (unit-scale outputs)."""
    w = rng.standard_normal(shape) / np.sqrt(fan_in)
    return tf.constant(w.astype(np.float32))


def all_ops_fn():
    """The all_ops graph on x, y: [1,8,8,4]. Every op reads values that
    depend on the inputs, so the converter can fold nothing away. Activations
    read an input (or a layout op) directly, never the result of an op with
    a fused-activation field, so that each stays a node of its own. Ops with
    a discrete result (comparisons, FLOOR/CEIL/ROUND/SIGN, CAST to int,
    ARG_MAX/MIN) read only values computed by correctly rounded elementwise
    ops, which every correct runtime computes bit for bit: their outputs are
    compared exactly."""
    rng = np.random.default_rng(SEED_ALL_OPS)
    w_conv = const(rng, (3, 3, 4, 8), 36)
    b_conv = const(rng, (8,), 1)
    w_dw = const(rng, (3, 3, 8, 2), 9)
    b_dw = const(rng, (16,), 1)
    w_tconv = const(rng, (3, 3, 6, 16), 16 * 9 / 4)
    w_fc = const(rng, (32, 10), 32)
    b_fc = const(rng, (10,), 1)
    scale = const(rng, (4,), 1)
    # Keras' PReLU computes relu(x) - alpha * relu(-x), which the converter
    # matches as PRELU when -alpha is a constant.
    neg_alpha = tf.constant(-rng.uniform(0.05, 0.5, (1, 1, 4)).astype(
        np.float32))

    def fn(x, y):
        out = {}
        # Elementwise arithmetic, with and without broadcasting.
        out["arith"] = tf.concat(
            [x + y, x - y[:, :, :1, :], x * y, x / (tf.abs(y) + 0.5),
             x * scale], axis=3)
        out["minmax"] = tf.concat(
            [tf.math.squared_difference(x, y), tf.maximum(x, y),
             tf.minimum(x, y[:, :1, :, :])], axis=3)
        out["pow"] = tf.pow(tf.abs(x) * 0.25 + 0.5, y * 0.25)
        # Convolutions: 3x3 SAME + RELU, depthwise x2 stride 2, transposed
        # stride 2 back to 8x8.
        c = tf.nn.relu(tf.nn.conv2d(x, w_conv, 1, "SAME") + b_conv)
        d = tf.nn.depthwise_conv2d(c, w_dw, [1, 2, 2, 1], "SAME") + b_dw
        out["conv"] = tf.nn.conv2d_transpose(d, w_tconv, [1, 8, 8, 6], 2,
                                             "SAME")
        out["fc"] = tf.matmul(tf.reshape(x, [8, 32]), w_fc) + b_fc
        out["bmm"] = tf.matmul(tf.reshape(x, [4, 8, 8]),
                               tf.reshape(y, [4, 8, 8]))
        # Pooling (SAME average counts only the cells inside the input).
        out["avg_pool"] = tf.nn.avg_pool2d(x, 3, 2, "SAME")
        out["max_pool"] = tf.nn.max_pool2d(y, 2, 2, "VALID")
        # Reductions.
        out["mean"] = tf.reduce_mean(x, axis=[1, 2])
        out["sum"] = tf.reduce_sum(y, axis=3)
        out["reduce_max"] = tf.reduce_max(x, axis=1)
        out["reduce_min"] = tf.reduce_min(y, axis=[2], keepdims=True)
        out["reduce_prod"] = tf.reduce_prod(x, axis=3)
        # Layout.
        out["transpose"] = tf.transpose(x, [0, 3, 1, 2])
        out["gather"] = tf.gather(y, [3, 0, 2, 2, 1], axis=3)
        out["tile"] = tf.tile(y[:, 2:4, 2:4, :], [2, 1, 3, 1])
        out["broadcast_to"] = tf.reshape(
            tf.broadcast_to(x[:, :1, :, :], [1, 5, 8, 4]), [-1])
        parts = tf.unstack(x, axis=3)
        halves = tf.split(y, 2, axis=1)
        one, three = tf.split(x, [1, 3], axis=3)
        swapped = tf.concat([halves[1], halves[0]], axis=1)
        out["pack"] = tf.stack([parts[2], parts[0], swapped[:, :, :, 1]],
                               axis=1)
        out["split_v"] = tf.concat([three, one], axis=3)
        out["slice"] = tf.slice(y, [0, 1, 2, 0], [1, 5, 4, 3])
        out["strided_slice"] = x[:, 1:7:2, ::-1, 1:]
        out["pad"] = tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]])
        out["padv2"] = tf.pad(y, [[0, 0], [0, 1], [3, 0], [1, 1]],
                              constant_values=1.5)
        out["mirror_pad"] = tf.concat(
            [tf.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], "REFLECT"),
             tf.pad(y, [[0, 0], [2, 1], [1, 2], [0, 0]], "SYMMETRIC")],
            axis=3)
        out["depth_to_space"] = tf.nn.depth_to_space(x, 2)
        out["space_to_depth"] = tf.nn.space_to_depth(y, 2)
        out["resize_bilinear"] = tf.image.resize(x, [12, 13], "bilinear")
        out["resize_bilinear_ac"] = tf.compat.v1.image.resize_bilinear(
            y, [5, 11], align_corners=True)
        out["resize_nearest"] = tf.image.resize(y, [16, 11], "nearest")
        out["resize_nearest_ac"] = \
            tf.compat.v1.image.resize_nearest_neighbor(
                x, [13, 6], align_corners=True)
        # Activations, each on an input directly.
        out["softmax"] = tf.nn.softmax(x)
        out["log_softmax"] = tf.nn.log_softmax(y)
        out["logistic"] = tf.sigmoid(x)
        out["tanh"] = tf.tanh(y)
        out["relu"] = tf.nn.relu(y)
        out["relu6"] = tf.nn.relu6(x)
        out["relu_n1_to_1"] = tf.clip_by_value(x, -1.0, 1.0)
        out["leaky_relu"] = tf.nn.leaky_relu(y, 0.2)
        out["prelu"] = tf.nn.relu(x) + neg_alpha * tf.nn.relu(-x)
        out["hard_swish"] = x * tf.nn.relu6(x + 3.0) / 6.0
        out["gelu"] = tf.nn.gelu(y)
        out["gelu_tanh"] = tf.nn.gelu(x, approximate=True)
        # Unary math (LOG, SQRT, RSQRT of negatives give NaN on purpose).
        out["exp"] = tf.exp(x)
        out["log"] = tf.math.log(x)
        out["sqrt"] = tf.sqrt(x)
        out["rsqrt"] = tf.math.rsqrt(y)
        out["square"] = tf.square(x)
        out["neg_abs"] = tf.concat([-y, tf.abs(x)], axis=3)
        out["sin"] = tf.sin(x)
        out["cos"] = tf.cos(y)
        # Discrete results of exactly computed values.
        quarters = tf.floor(x * 4.0)
        out["sign"] = tf.sign(quarters)
        out["cast"] = tf.cast(tf.cast(y * 4.0, tf.int32), tf.float32)
        out["arg_max"] = tf.argmax(x, axis=3, output_type=tf.int32)
        out["arg_min"] = tf.argmin(y, axis=1)
        out["fill"] = tf.fill([2, 3], tf.reduce_max(y))
        out["select_v2"] = tf.where(tf.less(x, y), x, y[:, :1, :, :])
        out["greater"] = tf.greater(x, 0.5)
        out["equal"] = tf.equal(quarters, tf.floor(x * 4.0 + 0.5))
        out["not_equal"] = tf.not_equal(quarters, y[:, :, :1, :])
        out["less_equal"] = tf.less_equal(x, y[:, :1, :1, :])
        out["greater_equal"] = tf.greater_equal(y, x[:, :, :, 1:2])
        return out

    return fn


def all_ops_extra_fn():
    """The ops of the list that LiteRT's reference resolver (BUILTIN_REF)
    does not register, apart from all_ops so that all_ops runs there."""
    def fn(x, y):
        out = {}
        # floor(4x)/2 is a multiple of 0.5, so ROUND meets halfway cases
        # (TFLite rounds them to even).
        out["round"] = tf.round(tf.floor(x * 4.0) * 0.5)
        out["ceil"] = tf.math.ceil(y * 4.0)
        out["elu"] = tf.nn.elu(y)
        return out

    return fn


ALL_OPS_SPECS = [tf.TensorSpec([1, 8, 8, 4], tf.float32, name="x"),
                 tf.TensorSpec([1, 8, 8, 4], tf.float32, name="y")]


def make_all_ops():
    tf.keras.utils.set_random_seed(SEED_ALL_OPS)
    return convert(all_ops_fn(), ALL_OPS_SPECS)


def make_all_ops_fp16w():
    tf.keras.utils.set_random_seed(SEED_ALL_OPS)
    return convert(all_ops_fn(), ALL_OPS_SPECS, fp16_weights=True)


def make_all_ops_extra():
    return convert(all_ops_extra_fn(), ALL_OPS_SPECS)


def make_all_ops_jax():
    """RELU_0_TO_1, which the converter emits only from StableHLO: the
    TensorFlow path keeps clip(x, 0, 1), minimum(relu(x), 1) and
    relu(minimum(x, 1)) as RELU + MINIMUM. jax2tf wraps the JAX function's
    StableHLO in an XlaCallModule op, which the converter legalizes to
    TFLite builtins."""
    import jax.numpy as jnp
    from jax.experimental import jax2tf

    def fn(x):
        return {"clip": jnp.clip(x, 0.0, 1.0),
                "min_max": jnp.minimum(jnp.maximum(x[:, 2:7], 0.0), 1.0)}

    spec = tf.TensorSpec([1, 8, 8, 4], tf.float32, name="x")
    return convert(jax2tf.convert(fn), [spec])


def make_all_ops_dynamic():
    """Ops that the converter replaces by constants or RESHAPE when every
    shape is known: with two unknown dimensions SHAPE, ZEROS_LIKE, SQUEEZE
    and EXPAND_DIMS stay, FILL and BROADCAST_TO take run-time shapes."""
    def fn(z):
        out = {}
        squeezed = tf.squeeze(z, axis=2)
        out["shape"] = tf.shape(z)
        out["squeeze"] = squeezed
        out["expand_dims"] = tf.expand_dims(squeezed * 2.0, 1)
        out["zeros_like"] = tf.zeros_like(z) + z[:, :, :, :1]
        out["fill"] = tf.fill(tf.shape(squeezed), tf.reduce_max(z))
        out["broadcast_to"] = tf.broadcast_to(z[:, :1, :, 1:3],
                                              tf.shape(z[:, :, :, :2]))
        return out

    spec = tf.TensorSpec([None, None, 1, 4], tf.float32, name="z")
    return convert(fn, [spec])


MODELS = [
    ("mobilenet_v2", make_mobilenet_v2, SEED_MOBILENET),
    ("kws_cnn", make_kws_cnn, SEED_KWS),
    ("mobilenet_v3_small", make_mobilenet_v3_small, SEED_MOBILENET_V3),
    ("tiny_transformer", make_tiny_transformer, SEED_TRANSFORMER),
    ("small_unet", make_small_unet, SEED_UNET),
    ("all_ops", make_all_ops, SEED_ALL_OPS),
    ("all_ops_fp16w", make_all_ops_fp16w, SEED_ALL_OPS),
    ("all_ops_extra", make_all_ops_extra, None),
    ("all_ops_jax", make_all_ops_jax, None),
    ("all_ops_dynamic", make_all_ops_dynamic, None),
]

DESCRIPTIONS = {
    "mobilenet_v2": (
        "`tf.keras.applications.MobileNetV2(input_shape=(224, 224, 3), "
        "weights=None, classes=1000)` with a batch-1 input tensor: Keras' "
        "default random initialization (no trained weights are downloaded); "
        "batch norm statistics calibrated on 4 seeded random images in "
        "[-1, 1] and random batch norm gammas/betas (see "
        "`calibrate_batch_norms`: with the initial statistics the "
        "activations shrink to ~1e-11 and the softmax is uniform), then "
        "folded into the convolutions by the converter. Input: an image in "
        "[-1, 1]; output: 1000 softmax probabilities."),
    "kws_cnn": (
        "A DS-CNN keyword-spotting network in the style of \"Hello Edge\" "
        "(Zhang et al. 2017): input 49 MFCC frames x 10 coefficients; a 10x4 "
        "stride-2 convolution with 64 filters, four depthwise-separable "
        "blocks (3x3 depthwise, 1x1 pointwise, 64 channels), each "
        "convolution followed by batch norm (statistics calibrated on 16 "
        "seeded N(0, 1) inputs, random gammas/betas, folded by the "
        "converter) and RELU; 25x5 average pooling, a 12-way dense layer, "
        "softmax."),
    "mobilenet_v3_small": (
        "`tf.keras.applications.MobileNetV3Small(input_shape=(224, 224, 3), "
        "alpha=0.75, weights=None, classes=100, dropout_rate=0.0, "
        "include_preprocessing=False)` with a batch-1 input tensor: Keras' "
        "random initialization, batch norms calibrated as for mobilenet_v2 "
        "(4 seeded images in [-1, 1]) and folded by the converter. "
        "Hard-swish, squeeze-and-excitation blocks (MEAN over the image, two "
        "1x1 convolutions, hard-sigmoid as ADD with a fused RELU6 and a MUL, "
        "a broadcast MUL), 5x5 depthwise convolutions. Input: an image in "
        "[-1, 1]; output: 100 softmax probabilities."),
    "tiny_transformer": (
        "Two pre-norm transformer encoder blocks written with Keras layers: "
        "input 16 tokens of width 64; per block LayerNormalization (the "
        "converter spells it MEAN, SQUARED_DIFFERENCE, RSQRT, MUL, NEG, "
        "ADD), 4-head MultiHeadAttention with key size 16 (FULLY_CONNECTED, "
        "RESHAPE, TRANSPOSE, BATCH_MATMUL, SOFTMAX), a residual ADD, a "
        "Dense(128, exact GELU) and Dense(64) feed-forward layer, a residual "
        "ADD; a final layer norm, the mean over the tokens and a 10-way "
        "softmax. Keras' random initialization."),
    "small_unet": (
        "A two-level U-Net for 64x64 RGB images: two 3x3 RELU convolutions "
        "per level (16, 32 filters), 2x2 max pooling, a 64-filter bottom "
        "convolution, a stride-2 2x2 transposed convolution and a bilinear "
        "2x upsampling on the way up with skip connections by "
        "concatenation, and a 1x1 convolution with a sigmoid per pixel. "
        "Keras' random initialization. Output: a [1,64,64,1] mask."),
    "all_ops": (
        "One graph over two inputs `x`, `y` [1,8,8,4] with one output per "
        "op family (see `all_ops_fn` in make_models.py): every op reads "
        "values that depend on the inputs, so nothing is folded; ops with a "
        "discrete result read only correctly rounded elementwise results, "
        "so they are compared exactly."),
    "all_ops_fp16w": (
        "The all_ops graph converted with float16 weight quantization "
        "(`optimizations=[DEFAULT]`, `supported_types=[float16]`): weights "
        "and float constants are stored as float16 and expanded by "
        "DEQUANTIZE nodes; computation stays float32."),
    "all_ops_extra": (
        "CEIL, ELU and ROUND (with halfway cases) on inputs `x`, `y` "
        "[1,8,8,4]: the ops of the list that LiteRT's reference resolver "
        "(BUILTIN_REF) does not register, kept out of all_ops so that "
        "all_ops runs with both of LiteRT's kernel sets. Compared with "
        "LiteRT's default kernels only."),
    "all_ops_jax": (
        "RELU_0_TO_1 (twice: `jnp.clip(x, 0, 1)` and `minimum(maximum(x, 0), "
        "1)` on a slice) from a JAX function through jax2tf: the converter "
        "emits RELU_0_TO_1 only when it legalizes StableHLO, never from a "
        "TensorFlow graph. Input `x` [1,8,8,4]."),
    "all_ops_dynamic": (
        "Input `z` [-1,-1,1,4] (two dimensions unknown until run time): "
        "SHAPE, ZEROS_LIKE, SQUEEZE, EXPAND_DIMS, FILL and BROADCAST_TO with "
        "run-time shapes, which the converter folds away or turns into "
        "RESHAPE when every shape is known. Run it after resizing the input."),
}


# ---- README -----------------------------------------------------------------

README_HEAD = """# Converted float32 models

Models converted by TensorFlow's own TFLite converter, for the whole-model
comparison of litegpu against LiteRT (tests/python/test_converted_models.py:
LiteRT's default and reference kernels against litegpu at 1 and 2 threads,
seeded inputs, a bound derived from each output's accumulation lengths).
They were made by this project (litegpu) from randomly initialized networks
and graphs written here; no trained weights or third-party model files are
included. They are covered by the project's license.

How they were made (this file is written by the same script):

```
python3 -m venv build/venv-tf
build/venv-tf/bin/pip install -r tools/convert/requirements.txt
build/venv-tf/bin/python tools/convert/make_models.py
```

* tensorflow-cpu {tf_version} (Keras {keras_version}, numpy {np_version},
  jax {jax_version}), CPython {py_version}, on Debian 12; every pin in
  tools/convert/requirements.txt. A second run with these versions writes
  the same bytes (the sha256 of each file is below).
* Converter: `tf.lite.TFLiteConverter` (`from_keras_model` for the Keras
  networks, `from_concrete_functions` for the graphs written as functions;
  all_ops_jax: a JAX function through `jax2tf.convert`), with
  `target_spec.supported_ops = [TFLITE_BUILTINS]` and no optimizations
  (float32 throughout), except all_ops_fp16w (float16 weights).
* Seeds: `tf.keras.utils.set_random_seed(seed)` before building each model
  and `numpy.random.default_rng(seed)` for hand-made constants, calibration
  batches and batch norm terms; the seed of each file is given below.

| file | bytes | what |
| --- | --- | --- |
{summary}

Ops of the project's float list that no file here holds, and why:

{missing}

The op tables below are checked against the files by the test (a file
regenerated without an op, or with another version or node count, fails
it). Version is the operator version recorded in the file.
"""

SUMMARY = {
    "mobilenet_v2": "Keras MobileNetV2, 224x224x3 -> 1000 classes",
    "kws_cnn": "DS-CNN keyword spotting, 49x10 MFCC -> 12 classes",
    "mobilenet_v3_small": "Keras MobileNetV3Small (width 0.75), 224x224x3 "
                          "-> 100 classes",
    "tiny_transformer": "two transformer encoder blocks, 16 tokens x 64 "
                        "-> 10 classes",
    "small_unet": "two-level U-Net, 64x64x3 -> 64x64 mask",
    "all_ops": "one graph over two [1,8,8,4] inputs, one output per op "
               "family",
    "all_ops_fp16w": "all_ops with float16 weights (DEQUANTIZE)",
    "all_ops_extra": "CEIL, ELU, ROUND (absent from LiteRT's reference "
                     "kernels)",
    "all_ops_jax": "RELU_0_TO_1 (StableHLO path)",
    "all_ops_dynamic": "SHAPE, ZEROS_LIKE, SQUEEZE, EXPAND_DIMS, FILL, "
                       "BROADCAST_TO with run-time shapes",
}


def format_shape(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def readme_section(name, data, seed):
    lines = [f"## {name}.tflite", ""]
    lines.append(DESCRIPTIONS[name])
    lines.append("")
    lines.append(f"* size: {len(data):,} bytes; sha256 "
                 f"`{hashlib.sha256(data).hexdigest()}`")
    seed_text = seed if seed is not None else "none (no random values)"
    lines.append(f"* seed: {seed_text}")
    for kind, key, tname, ttype, shape in io_tensors(data):
        lines.append(f"* {kind} {key} (`{tname}`): {ttype} "
                     f"{format_shape(shape)}")
    lines.append("")
    lines.append(f"<!-- ops {name}.tflite -->")
    lines.append("| op | version | nodes |")
    lines.append("| --- | --- | --- |")
    for (op, version), count in sorted(op_counts(data).items()):
        lines.append(f"| {op} | {version} | {count} |")
    lines.append("<!-- end ops -->")
    lines.append("")
    return "\n".join(lines)


def missing_report(files):
    present = set()
    for name, data in files.items():
        if name.startswith("all_ops"):
            present.update(op for op, _ in op_counts(data))
    return [op for op in WANTED_OPS if op not in present]


def write_readme(out_dir, files):
    import jax
    import keras
    missing = missing_report(files)
    missing_text = "\n".join(
        f"* {op}: {KNOWN_MISSING.get(op, 'reason unknown')}"
        for op in missing) or "* none"
    head = README_HEAD.format(
        tf_version=tf.__version__, keras_version=keras.__version__,
        np_version=np.__version__, jax_version=jax.__version__,
        py_version=".".join(str(v) for v in sys.version_info[:3]),
        summary="\n".join(f"| {name}.tflite | {len(data):,} | "
                           f"{SUMMARY[name]} |"
                           for name, data in files.items()),
        missing=missing_text)
    seeds = {name: seed for name, _, seed in MODELS}
    body = "\n".join(readme_section(name, data, seeds[name])
                     for name, data in files.items())
    (out_dir / "README.md").write_text(head + "\n" + body)
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--only", nargs="*", metavar="NAME",
        help="convert only these models (the others are read from --out); "
             "with no name, only rewrite README.md")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    files = {}
    for name, make, _ in MODELS:
        path = args.out / f"{name}.tflite"
        if args.only is not None and name not in args.only:
            if path.is_file():
                files[name] = path.read_bytes()
            continue
        data = make()
        path.write_bytes(data)
        files[name] = data
        ops = ", ".join(f"{op} v{v}" + (f" x{n}" if n > 1 else "")
                        for (op, v), n in sorted(op_counts(data).items()))
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        print(f"{shown}: {len(data):,} bytes\n  {ops}")

    missing = write_readme(args.out, files)
    if missing:
        print("ops of the list that no all_ops* file holds:")
        for op in missing:
            print(f"  {op}: {KNOWN_MISSING.get(op, 'reason unknown')}")
    else:
        print("every op of the list is present")


if __name__ == "__main__":
    main()
