"""Converter-made graphs of the detection ops (tests/models/detect:
NON_MAX_SUPPRESSION_V4 and _V5 between GATHER and MUL) in litegpu and in
LiteRT (default and reference kernels) on seeded boxes and scores, some
with tied scores."""

from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "models" / "detect"
RESOLVERS = {"default": None}
if hasattr(litert, "OpResolverType"):
    RESOLVERS["builtin_ref"] = litert.OpResolverType.BUILTIN_REF


def value_for(tensor_name, inputs):
    (value,) = [v for k, v in inputs.items() if k in tensor_name]
    return value


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


def inputs_for(seed):
    rng = np.random.default_rng(seed)
    yx = rng.uniform(0, 3, (16, 2))
    hw = rng.uniform(0.3, 2, (16, 2))
    boxes = np.concatenate([yx, yx + hw], axis=1).astype(np.float32)
    if seed % 2:  # ties
        scores = rng.choice([0.3, 0.6, 0.9], size=16).astype(np.float32)
    else:
        scores = rng.random(16).astype(np.float32)
    return {"boxes": boxes, "scores": scores}


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_nms_graph_matches_litert(lib, resolver, threads, seed):
    inputs = inputs_for(seed)
    want = run_litert("nms_graph", inputs, resolver)
    got = run_litegpu(lib, "nms_graph", inputs, threads)
    assert set(got) == set(want)
    for key, w in want.items():
        g = got[key]
        assert g.shape == w.shape and g.dtype == w.dtype, key
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=0, err_msg=key)
        else:
            np.testing.assert_array_equal(g, w, err_msg=key)
