"""The `litegpu` Python package (python/litegpu): litegpu.Interpreter is a
drop-in for ai_edge_litert.interpreter.Interpreter.

Each program below is written once against LiteRT's interface and run
with both classes: the details (names, indices, shapes, shape signatures,
dtypes, quantization), signature lists, errors and outputs must agree
(outputs bit for bit on the integer models, within float summation order
on the float ones). `pip install .` is checked to install a package that
works outside the checkout, with the library inside it.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

from ai_edge_litert.interpreter import OpResolverType

import litegpu

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "tests" / "models"
BOTH = [LiteRTInterpreter, litegpu.Interpreter]
DETAIL_KEYS = ("name", "index", "shape", "shape_signature", "dtype",
               "quantization")


def seeded(details, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    for d in details:
        if np.issubdtype(d["dtype"], np.integer):
            info = np.iinfo(d["dtype"])
            out.append(rng.integers(info.min, info.max, d["shape"],
                                    dtype=d["dtype"], endpoint=True))
        else:
            out.append(rng.standard_normal(d["shape"]).astype(d["dtype"]))
    return out


def run_program(cls, model, **kwargs):
    """A typical user program, in LiteRT's interface."""
    interp = cls(model_path=str(model), **kwargs)
    interp.allocate_tensors()
    ins = interp.get_input_details()
    for d, x in zip(ins, seeded(ins)):
        interp.set_tensor(d["index"], x)
    interp.invoke()
    outs = interp.get_output_details()
    return ins, outs, [interp.get_tensor(d["index"]) for d in outs]


def assert_same_details(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert set(w) <= set(g), f"missing keys {set(w) - set(g)}"
        for key in DETAIL_KEYS:
            np.testing.assert_equal(g[key], w[key], err_msg=key)
        gq, wq = g["quantization_parameters"], w["quantization_parameters"]
        np.testing.assert_array_equal(gq["scales"], wq["scales"])
        np.testing.assert_array_equal(gq["zero_points"], wq["zero_points"])
        assert gq["quantized_dimension"] == wq["quantized_dimension"]


# Quantized models are compared bit for bit with LiteRT's reference
# kernels (XNNPACK's int8 path rounds differently by a step).
@pytest.mark.parametrize("model,exact", [
    ("quantized/kws_cnn_int8.tflite", True),
    ("quantized/tiny_transformer_int8_float_io.tflite", True),
    ("quantized/mobilenet_v3_small_int8.tflite", True),
    ("kws_cnn.tflite", False),
    ("all_ops.tflite", False),
])
def test_same_program_same_results(model, exact):
    reference = {"experimental_op_resolver_type":
                 OpResolverType.BUILTIN_REF} if exact else {}
    want_in, want_out, want = run_program(LiteRTInterpreter, MODELS / model,
                                          **reference)
    got_in, got_out, got = run_program(litegpu.Interpreter, MODELS / model,
                                       num_threads=2)
    assert_same_details(got_in, want_in)
    assert_same_details(got_out, want_out)
    for g, w in zip(got, want):
        if exact or not np.issubdtype(w.dtype, np.floating):
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_per_channel_quantization_details():
    """A per-channel constant's scales, zero points and axis, as LiteRT."""
    model = str(MODELS / "quantized" / "mobilenet_v2_int8.tflite")
    want = LiteRTInterpreter(model_path=model).get_tensor_details()
    interp = litegpu.Interpreter(model_path=model)
    got = interp.get_tensor_details()
    assert len(got) == len(want)
    per_channel = [w for w in want
                   if len(w["quantization_parameters"]["scales"]) > 1]
    assert len(per_channel) > 10
    for w in per_channel:
        g = got[w["index"]]
        assert g["name"] == w["name"]
        for key in ("scales", "zero_points"):
            np.testing.assert_array_equal(g["quantization_parameters"][key],
                                          w["quantization_parameters"][key])
        assert (g["quantization_parameters"]["quantized_dimension"] ==
                w["quantization_parameters"]["quantized_dimension"])


def test_model_content_and_resize():
    """model_content, resize_tensor_input on a dynamic model, the
    shape_signature with its -1s."""
    content = (MODELS / "all_ops_dynamic.tflite").read_bytes()
    results = []
    for cls in BOTH:
        interp = cls(model_content=content)
        d = interp.get_input_details()[0]
        assert list(d["shape_signature"][:2]) == [-1, -1]
        interp.resize_tensor_input(d["index"], [3, 5, 1, 4])
        interp.allocate_tensors()
        d = interp.get_input_details()[0]
        assert list(d["shape"]) == [3, 5, 1, 4]
        interp.set_tensor(d["index"], seeded([d])[0])
        interp.invoke()
        results.append([interp.get_tensor(o["index"])
                        for o in interp.get_output_details()])
    for g, w in zip(results[1], results[0]):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_signatures():
    model = str(MODELS / "control_flow" / "two_signatures.tflite")
    lite, ours = LiteRTInterpreter(model_path=model), \
        litegpu.Interpreter(model_path=model)
    assert ours.get_signature_list() == lite.get_signature_list()
    for key, io in lite.get_signature_list().items():
        want_runner = lite.get_signature_runner(key)
        got_runner = ours.get_signature_runner(key)
        details = want_runner.get_input_details()
        assert sorted(got_runner.get_input_details()) == sorted(details)
        feed = {n: x for n, x in zip(details, seeded(details.values()))}
        want, got = want_runner(**feed), got_runner(**feed)
        assert sorted(got) == sorted(want) == sorted(io["outputs"])
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5,
                                       atol=1e-6)
    with pytest.raises(ValueError):
        ours.get_signature_runner()  # two signatures: a key is needed
    with pytest.raises(ValueError, match="Invalid signature_key"):
        ours.get_signature_runner("nope")


def test_tensor_view_writes_the_input():
    model = str(MODELS / "kws_cnn.tflite")
    interp = litegpu.Interpreter(model_path=model)
    interp.allocate_tensors()
    d = interp.get_input_details()[0]
    x = seeded([d])[0]
    interp.tensor(d["index"])()[...] = x  # no copy: the tensor's memory
    np.testing.assert_array_equal(interp.get_tensor(d["index"]), x)
    interp.invoke()
    _, _, want = run_program(LiteRTInterpreter, model)
    out = interp.get_tensor(interp.get_output_details()[0]["index"])
    np.testing.assert_allclose(out, want[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", BOTH, ids=["litert", "litegpu"])
def test_errors_as_litert(cls):
    interp = cls(model_path=str(MODELS / "kws_cnn.tflite"))
    interp.allocate_tensors()
    d = interp.get_input_details()[0]
    with pytest.raises(ValueError, match="Cannot set tensor: Got value of "
                       "type FLOAT64 but expected type FLOAT32"):
        interp.set_tensor(d["index"], np.zeros(d["shape"], np.float64))
    with pytest.raises(ValueError, match="Cannot set tensor: Dimension "
                       "mismatch"):
        interp.set_tensor(d["index"], np.zeros([1, 2], np.float32))
    with pytest.raises(ValueError):
        cls(model_path=str(MODELS / "kws_cnn.tflite"),
            model_content=b"x")
    with pytest.raises(ValueError):
        cls(model_path=str(MODELS / "kws_cnn.tflite"), num_threads=0)


def test_bad_model_is_a_value_error(tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(ValueError, match="TfLiteModelCreate"):
        litegpu.Interpreter(model_path=str(bad))


def test_gpu_delegate_through_experimental_delegates():
    model = str(MODELS / "kws_cnn.tflite")
    delegate = litegpu.load_gpu_delegate(backend="vk")
    interp = litegpu.Interpreter(model_path=model,
                                 experimental_delegates=[delegate])
    interp.allocate_tensors()
    d = interp.get_input_details()[0]
    interp.set_tensor(d["index"], seeded([d])[0])
    interp.invoke()
    got = interp.get_tensor(interp.get_output_details()[0]["index"])
    stats = delegate.stats()
    assert (stats.partitions, stats.nodes_delegated) == (1, 12)
    _, _, want = run_program(LiteRTInterpreter, model)
    np.testing.assert_allclose(got, want[0], rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError, match="backend"):
        litegpu.load_gpu_delegate(backend="metal")


def test_gpu_delegate_serializes_under_its_model_token(tmp_path):
    """serialization_dir turns on TFLite's serialization (the flag and a
    model token): a second delegate with the token reads every program
    back; another token reads none."""
    model = str(REPO / "tests" / "models" / "kws_cnn.tflite")

    def from_cache(token):
        delegate = litegpu.load_gpu_delegate(
            backend="cl", serialization_dir=tmp_path, model_token=token)
        interp = litegpu.Interpreter(model_path=model,
                                     experimental_delegates=[delegate])
        interp.allocate_tensors()
        stats = delegate.stats()
        return stats.programs_compiled, stats.programs_from_cache

    compiled, cached = from_cache("kws")
    assert compiled > 0 and cached == 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == compiled
    assert from_cache("kws") == (0, compiled)
    assert from_cache("other") == (compiled, 0)
    assert len(list(tmp_path.iterdir())) == 2 * compiled


def test_pip_install_outside_the_checkout(tmp_path):
    """`pip install .` (the library copied from LITEGPU_BUILD_DIR) gives a
    package that runs with nothing from the checkout on its path."""
    target = tmp_path / "site"
    build_dir = os.environ.get("LITEGPU_BUILD_DIR",
                               str(REPO / "build" / "release"))
    env = dict(os.environ, LITEGPU_BUILD_DIR=build_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
         "--no-deps", "--no-index", "--target", str(target), str(REPO)],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (target / "litegpu" / "liblitegpu.so").is_file()
    code = (
        "import numpy as np, litegpu\n"
        "print(litegpu.capi.library_path())\n"
        f"it = litegpu.Interpreter(model_path={str(MODELS / 'kws_cnn.tflite')!r})\n"
        "it.allocate_tensors()\n"
        "d = it.get_input_details()[0]\n"
        "it.set_tensor(d['index'], np.ones(d['shape'], np.float32))\n"
        "it.invoke()\n"
        "print(it.get_tensor(it.get_output_details()[0]['index']).sum())\n")
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("LITEGPU_")}
    clean["PYTHONPATH"] = str(target)
    run = subprocess.run([sys.executable, "-c", code], env=clean,
                         cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    library, total = run.stdout.split()
    assert Path(library).parent == target / "litegpu"
    assert abs(float(total) - 1.0) < 1e-4  # softmax scores sum to one


def test_readme_example_runs():
    """README's Python example, as written, from the repository root."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("### From Python", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        scope = {}
        exec(compile(code, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    assert scope["scores"].shape == (1, 12)  # kws_cnn: 12 keywords
    assert abs(float(scope["scores"].sum()) - 1.0) < 1e-4
