"""Activation fusion (runtime/fuse_activations.c): a float RELU, RELU6 or
RELU_N1_TO_1 whose input only it reads becomes its producer's fused
activation and leaves the execution plan.

Each case builds two two-op models from one spec: in the first the
producer's output feeds only the activation (fused), in the second it is
also a graph output (never fused). The activation's output must be equal
bit for bit in both (fusion is exact), and within the op tests' tolerance
of LiteRT's reference kernels on the fused model. The op profile of
benchmark_model shows whether the activation node still runs.
"""

import numpy as np
import pytest

import op_harness as oh

RNG = np.random.default_rng(11)

ACTIVATIONS = ["RELU", "RELU6", "RELU_N1_TO_1"]


def f32(*shape, scale=3.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _tensor(name, array, data_dir=None):
    line = f"tensor {name} FLOAT32 {','.join(map(str, array.shape)) or '-'}"
    if data_dir is not None:
        (data_dir / f"{name}.bin").write_bytes(array.astype("<f4").tobytes())
        line += f" data={name}.bin"
    return line


# Producers: (op line after "op NAME 1 in=... out=mid", graph inputs,
# constants, intermediate shape).
def producers():
    x4 = f32(1, 6, 7, 5)
    return {
        "CONV_2D": ("CONV_2D", "padding=SAME stride_w=1 stride_h=1",
                    {"x": x4}, {"w": f32(4, 3, 3, 5), "b": f32(4)},
                    ["x", "w", "b"], (1, 6, 7, 4)),
        "DEPTHWISE_CONV_2D": ("DEPTHWISE_CONV_2D",
                              "padding=VALID stride_w=2 stride_h=1 "
                              "depth_multiplier=1",
                              {"x": x4}, {"w": f32(1, 3, 3, 5),
                                          "b": f32(5)},
                              ["x", "w", "b"], (1, 4, 3, 5)),
        "FULLY_CONNECTED": ("FULLY_CONNECTED", "",
                            {"x": f32(3, 10)},
                            {"w": f32(6, 10), "b": f32(6)},
                            ["x", "w", "b"], (3, 6)),
        "ADD": ("ADD", "", {"x": f32(2, 9), "y": f32(2, 9)}, {},
                ["x", "y"], (2, 9)),
        "SUB": ("SUB", "", {"x": f32(2, 9), "y": f32(1, 9)}, {},
                ["x", "y"], (2, 9)),
        "MUL": ("MUL", "", {"x": f32(4, 5), "y": f32(4, 5)}, {},
                ["x", "y"], (4, 5)),
        "DIV": ("DIV", "", {"x": f32(4, 5),
                            "y": f32(4, 5) + np.float32(0.5)}, {},
                ["x", "y"], (4, 5)),
        "AVERAGE_POOL_2D": ("AVERAGE_POOL_2D",
                            "padding=VALID stride_w=2 stride_h=2 "
                            "filter_width=2 filter_height=2",
                            {"x": x4}, {}, ["x"], (1, 3, 3, 5)),
        "MAX_POOL_2D": ("MAX_POOL_2D",
                        "padding=SAME stride_w=2 stride_h=2 "
                        "filter_width=3 filter_height=3",
                        {"x": x4}, {}, ["x"], (1, 3, 4, 5)),
    }


def write_pair(tmp_path, producer, activation, producer_params_extra=""):
    """Writes the fused and the unfused model; returns their paths and the
    input arrays."""
    op, params, inputs, consts, order, mid_shape = producers()[producer]
    paths = []
    for fusable in (True, False):
        lines = [_tensor(n, a) for n, a in inputs.items()]
        lines += [_tensor(n, a, tmp_path) for n, a in consts.items()]
        mid = np.zeros(mid_shape, np.float32)
        lines += [_tensor("mid", mid), _tensor("out", mid)]
        extra = " ".join(p for p in (params, producer_params_extra) if p)
        lines.append(f"op {op} 1 in={','.join(order)} out=mid {extra}".rstrip())
        lines.append(f"op {activation} 1 in=mid out=out")
        lines.append(f"inputs {','.join(inputs)}")
        lines.append("outputs out" if fusable else "outputs out,mid")
        name = "fused" if fusable else "unfused"
        spec = tmp_path / f"{name}.spec"
        spec.write_text("\n".join(lines) + "\n")
        model = tmp_path / f"{name}.tflite"
        oh.build_model(spec, model)
        paths.append(model)
    return paths[0], paths[1], list(inputs.values())


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("producer", sorted(producers()))
def test_fused_equals_unfused_and_litert(tmp_path, producer, activation):
    fused, unfused, inputs = write_pair(tmp_path, producer, activation)
    assert activation not in oh.profiled_ops(fused)
    assert activation in oh.profiled_ops(unfused)
    for threads in (1, 2):
        got = oh.run_litegpu(fused, inputs, num_threads=threads)[0]
        separate = oh.run_litegpu(unfused, inputs, num_threads=threads)[0]
        np.testing.assert_array_equal(got.view(np.uint32),
                                      separate.view(np.uint32))
    want = oh.run_litert(fused, inputs)[0]
    # Sums of products round in another order than the reference's: an
    # absolute bound near float32's step at the sums' magnitude (~1e2).
    summing = producer in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
    oh.assert_close(got, want, atol=1e-4 if summing else 1e-6)


def test_overflow_clamps_as_separate_ops(tmp_path):
    """ADD clamps inf to FLT_MAX before the activation in both forms."""
    fused, unfused, _ = write_pair(tmp_path, "ADD", "RELU")
    big = np.array([[3e38, -3e38, 1.0, -1.0, 3e38, 0.0, -0.0, 2.0, 5.0]] * 2,
                   np.float32)
    inputs = [big, big]
    got = oh.run_litegpu(fused, inputs)[0]
    separate = oh.run_litegpu(unfused, inputs)[0]
    np.testing.assert_array_equal(got, separate)
    assert got[0, 0] == np.finfo(np.float32).max
    oh.assert_close(got, oh.run_litert(fused, inputs)[0])


def test_producer_with_an_activation_is_not_fused(tmp_path):
    fused, _, inputs = write_pair(tmp_path, "ADD", "RELU",
                                  "fused_activation_function=RELU6")
    assert oh.profiled_ops(fused) == ["ADD", "RELU"] or \
        sorted(oh.profiled_ops(fused)) == ["ADD", "RELU"]
    oh.assert_close(oh.run_litegpu(fused, inputs)[0],
                    oh.run_litert(fused, inputs)[0])


def test_two_readers_keep_the_activation(tmp_path):
    x, y = f32(3, 4), f32(3, 4)
    lines = [_tensor("x", x), _tensor("y", y), _tensor("mid", x),
             _tensor("out", x), _tensor("out2", x),
             "op ADD 1 in=x,y out=mid", "op RELU 1 in=mid out=out",
             "op MUL 1 in=mid,y out=out2", "inputs x,y", "outputs out,out2"]
    spec = tmp_path / "two.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = tmp_path / "two.tflite"
    oh.build_model(spec, model)
    assert sorted(oh.profiled_ops(model)) == ["ADD", "MUL", "RELU"]
    got = oh.run_litegpu(model, [x, y])
    want = oh.run_litert(model, [x, y])
    for g, w in zip(got, want):
        oh.assert_close(g, w)


def test_quantized_activation_is_not_fused(tmp_path):
    q = "quant=0.05:3"
    lines = ["tensor x INT8 2,8 " + q, "tensor y INT8 2,8 " + q,
             "tensor mid INT8 2,8 " + q, "tensor out INT8 2,8 " + q,
             "op ADD 2 in=x,y out=mid", "op RELU 2 in=mid out=out",
             "inputs x,y", "outputs out"]
    spec = tmp_path / "q.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = tmp_path / "q.tflite"
    oh.build_model(spec, model)
    assert sorted(oh.profiled_ops(model)) == ["ADD", "RELU"]
    x = RNG.integers(-128, 127, (2, 8), dtype=np.int8)
    y = RNG.integers(-128, 127, (2, 8), dtype=np.int8)
    np.testing.assert_array_equal(oh.run_litegpu(model, [x, y])[0],
                                  oh.run_litert(model, [x, y])[0])
