"""Converter-made graphs of the ops added for op breadth (tests/models/
breadth: an atrous convolution written as SPACE_TO_BATCH_ND, CONV_2D,
BATCH_TO_SPACE_ND; a graph of TOPK_V2, GATHER_ND, CUMSUM, ONE_HOT,
REVERSE_V2, ADD_N, FLOOR_DIV, FLOOR_MOD, RANGE and WHERE; a graph of
SCATTER_ND, the segment ops, UNIQUE, MATRIX_DIAG, MATRIX_SET_DIAG,
REVERSE_SEQUENCE, SPARSE_TO_DENSE, BROADCAST_ARGS and
DYNAMIC_UPDATE_SLICE; a speech front end of the custom ops AudioSpectrogram
and Mfcc) in litegpu and in LiteRT (default and reference kernels;
SEGMENT_SUM, which the reference resolver lacks, makes segment_graph
default-only) on seeded inputs."""

from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "models" / "breadth"
RESOLVERS = {"default": None}
if hasattr(litert, "OpResolverType"):
    RESOLVERS["builtin_ref"] = litert.OpResolverType.BUILTIN_REF


def run_litert(name, inputs, resolver):
    kwargs = {"model_path": str(MODELS / f"{name}.tflite")}
    if RESOLVERS[resolver] is not None:
        kwargs["experimental_op_resolver_type"] = RESOLVERS[resolver]
    interp = litert.Interpreter(**kwargs)
    interp.allocate_tensors()
    for d in interp.get_input_details():
        interp.set_tensor(d["index"], value_for(d["name"], inputs))
    interp.invoke()
    return {d["name"]: interp.get_tensor(d["index"]).copy()
            for d in interp.get_output_details()}


def run_litegpu(lib, name, inputs, threads):
    with lg.Model.from_file(lib, MODELS / f"{name}.tflite") as model, \
            lg.Interpreter(lib, model, num_threads=threads) as interp:
        interp.allocate_tensors()
        for i in range(interp.input_count):
            interp.set_input(i, value_for(interp.input(i).name, inputs))
        interp.invoke()
        return {interp.output(i).name: interp.get_output(i)
                for i in range(interp.output_count)}


@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


def inputs_for(name, seed):
    """{input name part: value}."""
    rng = np.random.default_rng(seed)
    if name == "dilated_conv":
        return {"image": rng.standard_normal((1, 16, 16, 3)).astype(np.float32)}
    if name == "audio_graph":  # two tones and noise, 0.5 s at 16 kHz
        t = np.arange(8000)[:, None] / 16000.0
        audio = (0.5 * np.sin(2 * np.pi * 440.0 * t) +
                 0.2 * np.sin(2 * np.pi * 3100.0 * t) +
                 0.05 * rng.standard_normal((8000, 1)))
        return {"audio": audio.astype(np.float32)}
    if name == "segment_graph":
        return {"_x": rng.standard_normal((6, 4)).astype(np.float32),
                "_ids": rng.integers(-20, 20, size=6).astype(np.int32),
                "_codes": rng.integers(0, 5, size=8).astype(np.int32),
                "_lengths": rng.integers(0, 9, size=3).astype(np.int32),
                # Starts out of range are clamped.
                "_start": rng.integers(-3, 8, size=2).astype(np.int32)}
    return {"_x": rng.standard_normal((3, 10)).astype(np.float32),
            "_ids": rng.integers(0, 6, size=4).astype(np.int32)}


def value_for(tensor_name, inputs):
    (value,) = [v for k, v in inputs.items() if k in tensor_name]
    return value


# LiteRT's reference resolver has no SEGMENT_SUM: segment_graph runs against
# its default kernels only.
CASES = [(name, resolver)
         for name in ["dilated_conv", "ops_graph", "segment_graph",
                      "audio_graph"]
         for resolver in sorted(RESOLVERS)
         if not (name == "segment_graph" and resolver == "builtin_ref")]


@pytest.mark.parametrize("name,resolver", CASES)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [1, 2])
def test_matches_litert(lib, name, resolver, threads, seed):
    inputs = inputs_for(name, seed)
    want = run_litert(name, inputs, resolver)
    got = run_litegpu(lib, name, inputs, threads)
    assert set(got) == set(want)
    for key, w in want.items():
        g = got[key]
        assert g.shape == w.shape and g.dtype == w.dtype, key
        if name == "audio_graph":
            # litegpu's FFT is not TFLite's (Ooura's rdft): both in double,
            # at most a few float ulps apart on bins far below a frame's
            # energy (test_ops_audio.py derives the bound; these seeds give
            # the same bits); Mfcc's own arithmetic is TFLite's.
            np.testing.assert_allclose(g, w, rtol=2.4e-7, atol=1e-9,
                                       err_msg=key)
        elif w.dtype.kind == "f":
            # The convolution accumulates 27 products: a few ulps apart.
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5,
                                       err_msg=key)
        else:
            np.testing.assert_array_equal(g, w, err_msg=key)
