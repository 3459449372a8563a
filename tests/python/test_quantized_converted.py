"""The converter-made quantized models (tests/models/quantized/) in litegpu
against LiteRT's reference kernels (BUILTIN_REF), whole graph, bit for bit.

Every model of the directory is listed below: either its outputs must
equal LiteRT's exactly (integer outputs, and the float outputs of the
int8_float_io models, which DEQUANTIZE exact integers), single- and
multi-threaded, on seeded inputs that span each input's range; or (the
dynamic-range models, whose float ops sum in litegpu's order) agree within
a relative 1e-5. A file in the directory that no list names fails the
test.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402

try:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
except ImportError:  # the fallback package setup.sh may install instead
    from tflite_runtime.interpreter import Interpreter, OpResolverType

MODELS = lg.REPO_ROOT / "tests" / "models" / "quantized"

BIT_EXACT = [
    "kws_cnn_int8", "kws_cnn_int8_float_io", "kws_cnn_16x8",
    "small_unet_int8", "small_unet_int8_float_io", "small_unet_16x8",
    "tiny_transformer_int8", "tiny_transformer_int8_float_io",
    "mobilenet_v3_small_int8", "mobilenet_v2_int8",
    # TF1-era fully quantized UINT8 (tools/convert/make_legacy_uint8_models.py)
    "legacy_uint8_cnn",
]

# Dynamic-range models: their hybrid CONV_2D, TRANSPOSE_CONV and
# FULLY_CONNECTED nodes are bit-exact (tests/python/ops), but the float ops
# between them (depthwise convolutions, softmax, layer norm) sum in
# litegpu's own order, as in the float models' comparison: outputs agree
# within DYNAMIC_TOLERANCE of their magnitude.
DYNAMIC = ["kws_cnn_dynamic", "small_unet_dynamic", "tiny_transformer_dynamic"]
DYNAMIC_TOLERANCE = 1e-5

def test_every_file_is_listed():
    files = {p.stem for p in MODELS.glob("*.tflite")}
    listed = set(BIT_EXACT) | set(DYNAMIC)
    assert files == listed, files ^ listed


def seeded_inputs(details, seed):
    rng = np.random.default_rng(seed)
    inputs = []
    for d in details:
        if d["dtype"] == np.float32:
            x = rng.uniform(-1.0, 1.0, d["shape"]).astype(np.float32)
        else:
            info = np.iinfo(d["dtype"])
            x = rng.integers(info.min, info.max + 1, d["shape"],
                             dtype=d["dtype"])
        inputs.append(x)
    return inputs


def litert_run(path, inputs):
    interp = Interpreter(model_path=str(path),
                         experimental_op_resolver_type=(
                             OpResolverType.BUILTIN_REF))
    interp.allocate_tensors()
    for d, x in zip(interp.get_input_details(), inputs):
        interp.set_tensor(d["index"], x)
    interp.invoke()
    return [interp.get_tensor(d["index"])
            for d in interp.get_output_details()]


def litegpu_run(path, inputs, threads):
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(path)) as model, \
            lg.Interpreter(lib, model, num_threads=threads) as interp:
        interp.allocate_tensors()
        for i, x in enumerate(inputs):
            interp.input(i).copy_from(x)
        interp.invoke()
        return [interp.output(i).to_numpy()
                for i in range(interp.output_count)]


@pytest.mark.parametrize("name", BIT_EXACT)
def test_bit_exact_with_litert(name):
    path = MODELS / f"{name}.tflite"
    assert path.is_file(), f"{path} is missing"
    probe = Interpreter(model_path=str(path))
    for seed in (1, 2):
        inputs = seeded_inputs(probe.get_input_details(), seed)
        want = litert_run(path, inputs)
        for threads in (1, 2):
            got = litegpu_run(path, inputs, threads)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape
                bad = np.count_nonzero(g != w)
                assert bad == 0, (
                    f"{name} ({threads} threads, seed {seed}): {bad} of "
                    f"{w.size} outputs differ; max difference "
                    f"{np.abs(g.astype(np.float64) - w).max()}")
        # The outputs carry information (the test can fail).
        assert len(np.unique(want[0])) > 1


@pytest.mark.parametrize("name", DYNAMIC)
def test_dynamic_range_close_to_litert(name):
    path = MODELS / f"{name}.tflite"
    assert path.is_file(), f"{path} is missing"
    probe = Interpreter(model_path=str(path))
    inputs = seeded_inputs(probe.get_input_details(), 3)
    want = litert_run(path, inputs)
    for threads in (1, 2):
        got = litegpu_run(path, inputs, threads)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype == np.float32 and g.shape == w.shape
            bound = DYNAMIC_TOLERANCE * max(1.0, float(np.abs(w).max()))
            err = float(np.abs(g - w).max())
            assert err <= bound, f"{name}: max difference {err} > {bound}"
    assert len(np.unique(want[0])) > 1


ISA_MODELS = ["kws_cnn_int8", "small_unet_int8", "mobilenet_v2_int8",
              "legacy_uint8_cnn"]


@pytest.mark.parametrize("isa", ["scalar", "avx2"])
def test_bit_exact_on_capped_isas(isa, tmp_path):
    """The INT8 convolution kernels have a path per instruction set (AVX-512
    VNNI, AVX2, scalar); LITEGPU_GEMM_ISA caps the choice for a process, so
    each capped path runs in a child process and must match LiteRT too."""
    import os
    import subprocess
    code = (
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "import conftest\n"  # this checkout's litegpu package on sys.path
        "import test_quantized_converted as t\n"
        "from ai_edge_litert.interpreter import Interpreter\n"
        "out = {}\n"
        f"for name in {ISA_MODELS!r}:\n"
        "    path = t.MODELS / f'{name}.tflite'\n"
        "    inputs = t.seeded_inputs(\n"
        "        Interpreter(model_path=str(path)).get_input_details(), 7)\n"
        "    for i, g in enumerate(t.litegpu_run(path, inputs, 2)):\n"
        "        out[f'{name}_{i}'] = g\n"
        f"np.savez({str(tmp_path / 'out.npz')!r}, **out)\n")
    env = dict(os.environ, LITEGPU_GEMM_ISA=isa)
    proc = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = np.load(tmp_path / "out.npz")
    for name in ISA_MODELS:
        path = MODELS / f"{name}.tflite"
        inputs = seeded_inputs(Interpreter(model_path=str(path))
                               .get_input_details(), 7)
        for i, w in enumerate(litert_run(path, inputs)):
            g = got[f"{name}_{i}"]
            assert g.dtype == w.dtype and np.array_equal(g, w), (
                f"{name} with LITEGPU_GEMM_ISA={isa}: "
                f"{np.count_nonzero(g != w)} outputs differ")


def test_dynamic_range_on_scalar_isa(tmp_path):
    """The hybrid kernels' scalar loops (LITEGPU_GEMM_ISA=scalar, in a child
    process) against LiteRT, within the dynamic-range tolerance."""
    import os
    import subprocess
    name = "tiny_transformer_dynamic"
    code = (
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "import conftest\n"  # this checkout's litegpu package on sys.path
        "import test_quantized_converted as t\n"
        "from ai_edge_litert.interpreter import Interpreter\n"
        f"path = t.MODELS / '{name}.tflite'\n"
        "inputs = t.seeded_inputs(\n"
        "    Interpreter(model_path=str(path)).get_input_details(), 3)\n"
        f"np.save({str(tmp_path / 'out.npy')!r}, t.litegpu_run(path, inputs, 1)[0])\n")
    env = dict(os.environ, LITEGPU_GEMM_ISA="scalar")
    proc = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = np.load(tmp_path / "out.npy")
    path = MODELS / f"{name}.tflite"
    want = litert_run(path, seeded_inputs(
        Interpreter(model_path=str(path)).get_input_details(), 3))[0]
    bound = DYNAMIC_TOLERANCE * max(1.0, float(np.abs(want).max()))
    assert got.shape == want.shape
    assert float(np.abs(got - want).max()) <= bound
