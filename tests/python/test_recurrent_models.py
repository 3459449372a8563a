"""Converter-made recurrent models (tests/models/recurrent: a Keras-style
LSTM layer that TensorFlow's converter fused into one
UNIDIRECTIONAL_SEQUENCE_LSTM with variable state tensors) in litegpu and in
LiteRT (default and reference kernels), one interpreter each through
several Invokes (the state carries over), a variable reset and one more
Invoke, on seeded inputs."""

from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "models" / "recurrent"
RESOLVERS = {"default": None}
if hasattr(litert, "OpResolverType"):
    RESOLVERS["builtin_ref"] = litert.OpResolverType.BUILTIN_REF

RESET = "reset"


def feeds(seed):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((2, 6, 3)).astype(np.float32) for _ in range(2)]
    return [xs[0], xs[1], RESET, xs[0], RESET, xs[1]]


def run_litert(name, steps, resolver):
    kwargs = {"model_path": str(MODELS / f"{name}.tflite")}
    if RESOLVERS[resolver] is not None:
        kwargs["experimental_op_resolver_type"] = RESOLVERS[resolver]
    interp = litert.Interpreter(**kwargs)
    interp.allocate_tensors()
    (inp,) = interp.get_input_details()
    (out,) = interp.get_output_details()
    results = []
    for x in steps:
        if isinstance(x, str):
            interp.reset_all_variables()
            continue
        interp.set_tensor(inp["index"], x)
        interp.invoke()
        results.append(interp.get_tensor(out["index"]).copy())
    return results


def run_litegpu(lib, name, steps, threads):
    results = []
    with lg.Model.from_file(lib, MODELS / f"{name}.tflite") as model, \
            lg.Interpreter(lib, model, num_threads=threads) as interp:
        interp.allocate_tensors()
        for x in steps:
            if isinstance(x, str):
                interp.reset_variable_tensors()
                continue
            interp.set_input(0, x)
            interp.invoke()
            results.append(interp.get_output(0))
    return results


@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [1, 2])
def test_fused_lstm_matches_litert(lib, resolver, threads, seed):
    steps = feeds(seed)
    want = run_litert("fused_lstm", steps, resolver)
    got = run_litegpu(lib, "fused_lstm", steps, threads)
    assert len(got) == len(want) == 4
    for n, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape == (2, 6, 5) and g.dtype == w.dtype
        # Dot products of 3 + 5 terms per gate, 6 steps: a few ulps apart.
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5,
                                   err_msg=f"invoke {n}")
    # The state carried into Invoke 2 (which differs from the same input
    # after a reset), and the reset restarted it.
    assert not np.allclose(got[1], got[3], rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(got[2], got[0])


def int8_feeds(seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-128, 128, (1, 4, 3), dtype=np.int8) for _ in range(3)]
    return [xs[0], xs[1], xs[2], RESET, xs[0]]


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("seed", [1, 2])
def test_lstm_int8_bit_exact(lib, resolver, seed):
    """The full-integer (8x8->16) kernel: every Invoke bit for bit, the
    INT8 output state starting (and reset) at its zero point as LiteRT's."""
    steps = int8_feeds(seed)
    want = run_litert("lstm_int8", steps, resolver)
    got = run_litegpu(lib, "lstm_int8", steps, 1)
    assert len(got) == len(want) == 4
    for n, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape == (1, 4, 8) and g.dtype == w.dtype == np.int8
        np.testing.assert_array_equal(g, w, err_msg=f"invoke {n}")
    assert not np.array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[3], got[0])


# Hand-quantized integer LSTMs in the forms the converter does not emit
# (tools/convert/make_integer_lstm_models.py): name -> (input features,
# output shape).
INTEGER_FORMS = {
    "lstm_int8_cifg_peephole": (20, (2, 3, 18)),
    "lstm_int8_projection": (3, (2, 3, 3)),
    "lstm_int8_layer_norm": (3, (2, 3, 4)),
    "lstm_int8_layer_norm_flat": (3, (2, 3, 4)),
    "lstm_int8_everything": (3, (2, 3)),
}


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("name", sorted(INTEGER_FORMS))
def test_lstm_int8_forms_bit_exact(lib, resolver, name):
    """CIFG, peephole, projection (with its clip), layer norm (also of a
    flat gate: the variance guard) and all of them in the one-step LSTM:
    every Invoke bit for bit with LiteRT, the state carried over three
    Invokes, then reset."""
    features, shape = INTEGER_FORMS[name]
    in_shape = shape[:-1] + (features,)
    rng = np.random.default_rng(len(name))
    xs = [rng.integers(-128, 128, in_shape, dtype=np.int8) for _ in range(3)]
    steps = [xs[0], xs[1], xs[2], RESET, xs[0]]
    want = run_litert(name, steps, resolver)
    got = run_litegpu(lib, name, steps, 1)
    assert len(got) == len(want) == 4
    for n, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape == shape and g.dtype == w.dtype == np.int8
        np.testing.assert_array_equal(g, w, err_msg=f"invoke {n}")
    # the state carried over (the same input gives another output later),
    # and the reset restarted it
    assert not np.array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[3], got[0])
