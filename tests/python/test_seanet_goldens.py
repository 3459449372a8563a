"""tflite-micro's seanet per-layer models against their golden outputs.

Each of the 127 files under models/tflite-micro/seanet/<op>/ is one INT16
layer of the SEANet speech-enhancement model (16-bit activations, 8-bit
weights, 64-bit biases) with tflite-micro's recorded inputs
(<name>_input<i>_int16.csv) and outputs (<name>_golden_int16.csv). The
goldens come from TFLite's reference kernels; every element litegpu
computes must equal them, single- and multi-threaded. A model whose files
are missing fails (it is never skipped).
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402


def shared_dir():
    env = os.environ.get("LITEGPU_SHARED_DIR")
    return Path(env) if env else lg.REPO_ROOT / "tests" / "shared"


SEANET = shared_dir() / "models" / "tflite-micro" / "seanet"
OPS = ["add", "conv", "leaky_relu", "pad", "quantize", "strided_slice", "sub",
       "transpose_conv"]


def seanet_models():
    models = []
    for op in OPS:
        for path in sorted((SEANET / op).glob("*.tflite")):
            models.append(pytest.param(path, id=path.stem))
    return models


def one_file(path, pattern):
    found = sorted(path.parent.glob(pattern))
    assert len(found) == 1, f"{pattern}: {found}"
    return found[0]


def golden_name(path):
    return one_file(path, f"{path.stem}_golden_*.csv").name


def read_csv(path, dtype):
    text = path.read_text().strip()
    return np.array([int(v) for v in text.split(",")], dtype=dtype)


def test_every_layer_is_here():
    # tflite-micro ships 127 seanet layers; a missing directory or file
    # must fail here rather than shrink the parametrized list silently.
    counts = {op: len(list((SEANET / op).glob("*.tflite"))) for op in OPS}
    assert counts == {"add": 17, "conv": 22, "leaky_relu": 23, "pad": 19,
                      "quantize": 2, "strided_slice": 34, "sub": 5,
                      "transpose_conv": 5}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("path", seanet_models())
def test_layer_matches_golden(path, threads):
    stem = path.stem
    golden = read_csv(one_file(path, f"{stem}_golden_*.csv"), np.int64)
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(path)) as model, \
            lg.Interpreter(lib, model, num_threads=threads) as interp:
        interp.allocate_tensors()
        for i in range(interp.input_count):
            tensor = interp.input(i)
            dtype = tensor.dtype
            data = read_csv(one_file(path, f"{stem}_input{i}_*.csv"),
                            np.int64)
            assert data.size == np.prod(tensor.shape)
            assert (data.astype(dtype) == data).all()
            tensor.copy_from(data.astype(dtype).reshape(tensor.shape))
        interp.invoke()
        got = interp.output(0).to_numpy().reshape(-1)
    # quantize1 requantizes INT16 to INT32; every other layer is INT16.
    want_type = np.int32 if path.parent.name == "quantize" and \
        golden_name(path).endswith("int32.csv") else np.int16
    assert got.dtype == want_type
    assert got.size == golden.size
    bad = np.nonzero(got != golden)[0]
    assert bad.size == 0, (
        f"{bad.size} of {golden.size} outputs differ from the golden; first "
        f"at {bad[0]}: got {got[bad[0]]}, want {golden[bad[0]]}; max "
        f"difference {np.abs(got.astype(np.int32) - golden).max()}")
