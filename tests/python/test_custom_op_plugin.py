"""Custom-op libraries in the tools: --custom_op_library=PATH in
litegpu_run, benchmark_model (its plain run, the operator profile and the
--compare rows) and inspect, with the example library
examples/custom_op_atan (CMake target litegpu_example_atan) on a model that
model_builder writes from a spec: y = atan(x + offset), an ADD then the
CUSTOM op "Atan". Values are checked against numpy.arctan; the errors for a
library that cannot be opened and one without litegpu_register_custom_ops
against their messages and exit status. Last, the C snippets of
docs/custom_ops.md against the files they are taken from.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR",
                                REPO / "build" / "release"))
PLUGIN = BUILD_DIR / "liblitegpu_example_atan.so"
DOC = REPO / "docs" / "custom_ops.md"

# The model of docs/custom_ops.md.
SPEC = """\
tensor x FLOAT32 2,3
tensor offset FLOAT32 2,3 values=0.5,0.5,0.5,0.5,0.5,0.5
tensor sum FLOAT32 2,3
tensor y FLOAT32 2,3
op ADD 1 in=x,offset out=sum
custom Atan 1 in=sum out=y
inputs x
outputs y
"""
OFFSET = np.float32(0.5)
X = np.array([-8, -1.5, 0, 0.5, 2.2, 201], dtype=np.float32)
FAST = ["--warmup_runs=1", "--warmup_min_secs=0", "--min_secs=0"]
TOOLS = ["litegpu_run", "benchmark_model", "inspect"]


def tool(name, *args):
    path = BUILD_DIR / name
    assert path.is_file(), f"{path} is missing: build the project first"
    return subprocess.run([str(path), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def plugin():
    assert PLUGIN.is_file(), (f"{PLUGIN} is missing: build the "
                              "litegpu_example_atan target")
    return PLUGIN


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("atan")
    (d / "atan.spec").write_text(SPEC)
    proc = tool("model_builder", d / "atan.spec", d / "atan.tflite")
    assert proc.returncode == 0, proc.stderr
    return d / "atan.tflite"


def model_args(name, model):
    """How each tool takes the model."""
    return [f"--graph={model}"] if name == "benchmark_model" else [model]


def printed_output(stdout, index=0):
    """The values litegpu_run prints for output `index`."""
    m = re.search(rf"^output {index} '[^']*' FLOAT32 \[([\d,]*)\]:(.*)$",
                  stdout, re.M)
    assert m, stdout
    shape = [int(d) for d in m.group(1).split(",") if d]
    return shape, np.array(m.group(2).split(), dtype=np.float32)


# ---- Running the op -----------------------------------------------------------

def test_litegpu_run_computes_atan(plugin, model):
    values = ",".join(repr(float(v)) for v in X)
    proc = tool("litegpu_run", model, f"--input={values}", "--num_runs=2",
                f"--custom_op_library={plugin}")
    assert proc.returncode == 0, proc.stderr
    shape, y = printed_output(proc.stdout)
    assert shape == [2, 3]
    # Printed with 7 significant digits.
    np.testing.assert_allclose(y, np.arctan(X + OFFSET), rtol=2e-6, atol=1e-7)


def test_without_the_library_the_op_is_unresolved(model):
    proc = tool("litegpu_run", model, "--num_runs=1")
    assert proc.returncode == 1
    assert "Encountered unresolved custom op: Atan." in proc.stderr


def test_a_library_may_be_given_twice(plugin, model):
    proc = tool("litegpu_run", model, "--num_runs=1", "--input=1",
                f"--custom_op_library={plugin}",
                f"--custom_op_library={plugin}")
    assert proc.returncode == 0, proc.stderr
    _, y = printed_output(proc.stdout)
    np.testing.assert_allclose(y, np.full(6, np.arctan(np.float32(1.5))),
                               rtol=2e-6)


def test_benchmark_model_profiles_the_custom_op(plugin, model):
    proc = tool("benchmark_model", f"--graph={model}", "--num_runs=20", *FAST,
                "--enable_op_profiling", "--report=json",
                f"--custom_op_library={plugin}")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["flags"]["custom_op_library"] == [str(plugin)]
    assert r["model"]["num_nodes"] == 2
    runs = r["inference"]["count"]
    assert runs >= 20
    by_op = {e["op"]: e for e in r["op_profile"]}
    assert set(by_op) == {"ADD", "Atan"}
    atan = by_op["Atan"]
    assert atan["node"] == 1 and atan["version"] == 1
    assert atan["count"] == runs
    assert atan["total_us"] >= 0 and atan["avg_us"] >= 0
    assert sum(e["share_pct"] for e in r["op_profile"]) == \
        pytest.approx(100, abs=0.01)
    assert {g["op"] for g in r["op_type_summary"]} == {"ADD", "Atan"}


def test_benchmark_model_text_profile_names_the_op(plugin, model):
    proc = tool("benchmark_model", f"--graph={model}", "--num_runs=5", *FAST,
                "--enable_op_profiling", f"--custom_op_library={plugin}")
    assert proc.returncode == 0, proc.stderr
    profile = proc.stdout.split("Operator profile", 1)[1]
    assert re.search(r"^\s+1\s+Atan\s+1\s+[\d.]+\s+[\d.]+%\s+\d+$", profile,
                     re.M), profile
    assert f"--custom_op_library={plugin}" in proc.stdout


def test_benchmark_model_compare_rows_get_the_library(plugin, model):
    proc = tool("benchmark_model", f"--graph={model}", "--compare=cpu",
                "--num_runs=3", *FAST, "--report=json",
                f"--custom_op_library={plugin}")
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["comparison"]
    assert row["backend"] == "cpu" and row["ok"] is True
    # Without it the CPU reference cannot be prepared.
    proc = tool("benchmark_model", f"--graph={model}", "--compare=cpu",
                "--num_runs=3", *FAST)
    assert proc.returncode == 1
    assert "the CPU reference failed" in proc.stderr


def test_inspect_allocates_with_the_library(plugin, model):
    proc = tool("inspect", model, "--json", f"--custom_op_library={plugin}")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert [o["op"] for o in r["operators"]] == ["ADD", "Atan"]
    assert r["memory"]["arena_bytes"] > 0
    # The reference delegate takes the ADD and gives the custom op a reason.
    [rejected] = r["delegates"][0]["rejected"]
    assert rejected["op"] == "Atan"
    proc = tool("inspect", model, "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["memory"] is None


# ---- Errors ---------------------------------------------------------------------

@pytest.mark.parametrize("name", TOOLS)
def test_a_file_that_cannot_be_opened(name, model, tmp_path):
    missing = tmp_path / "no_such_library.so"
    proc = tool(name, *model_args(name, model),
                f"--custom_op_library={missing}")
    assert proc.returncode == 2, proc.stderr
    # The tool's name, the flag, the path and dlerror's text.
    assert re.search(rf"^{name}: --custom_op_library: cannot open "
                     rf"'{re.escape(str(missing))}': .*No such file or "
                     r"directory$", proc.stderr, re.M), proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("name", TOOLS)
def test_a_file_that_is_not_a_library(name, model):
    proc = tool(name, *model_args(name, model),
                f"--custom_op_library={model}")
    assert proc.returncode == 2, proc.stderr
    assert f"cannot open '{model}'" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("name", TOOLS)
def test_a_library_without_the_register_function(name, model):
    # litegpu's own library is a shared object without the entry point.
    other = BUILD_DIR / "liblitegpu.so"
    assert other.is_file(), f"{other} is missing: build the litegpu target"
    proc = tool(name, *model_args(name, model), f"--custom_op_library={other}")
    assert proc.returncode == 2, proc.stderr
    assert (f"{name}: --custom_op_library: '{other}' does not export "
            "litegpu_register_custom_ops") in proc.stderr
    assert proc.stdout == ""


FAILING_LIBRARY = """\
#include "tensorflow/lite/c/c_api.h"
TFL_CAPI_EXPORT TfLiteStatus
litegpu_register_custom_ops(TfLiteInterpreterOptions* options);
TfLiteStatus litegpu_register_custom_ops(TfLiteInterpreterOptions* options) {
  (void)options;
  return kTfLiteError;
}
"""


@pytest.fixture(scope="module")
def failing_library(tmp_path_factory):
    """A library whose register function returns kTfLiteError, built with
    the system's C compiler against the headers only."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the failing library")
    d = tmp_path_factory.mktemp("failing")
    (d / "failing.c").write_text(FAILING_LIBRARY)
    proc = subprocess.run([cc, "-shared", "-fPIC", "-I", str(REPO / "include"),
                           str(d / "failing.c"), "-o", str(d / "libfailing.so")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return d / "libfailing.so"


@pytest.mark.parametrize("name", TOOLS)
def test_a_register_function_that_fails(name, model, failing_library):
    proc = tool(name, *model_args(name, model),
                f"--custom_op_library={failing_library}")
    assert proc.returncode == 2, proc.stderr
    assert (f"{name}: --custom_op_library: litegpu_register_custom_ops of "
            f"'{failing_library}' returned status 1") in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("name", TOOLS)
def test_an_empty_path_is_a_bad_argument(name, model):
    proc = tool(name, *model_args(name, model), "--custom_op_library=")
    assert proc.returncode == 2
    assert "--custom_op_library" in proc.stderr


@pytest.mark.parametrize("name", TOOLS)
def test_help_lists_the_flag(name):
    proc = tool(name, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--custom_op_library=" in proc.stdout
    assert "litegpu_register_custom_ops" in proc.stdout


# ---- docs/custom_ops.md ---------------------------------------------------------

def doc_snippets():
    """(path, code) for every fenced block the page says is taken from a
    file: a block right after a line that ends with 'From `PATH`:'."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    snippets, i = [], 0
    while i < len(lines):
        m = re.search(r"From `([^`]+)`:$", lines[i])
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            end = lines.index("```", i + 2)
            snippets.append((m.group(1), "\n".join(lines[i + 2:end])))
            i = end
        i += 1
    return snippets


def test_doc_snippets_are_taken_from_the_compiled_files():
    snippets = doc_snippets()
    sources = {path for path, _ in snippets}
    # The kernel and both registrations, the test that runs them, the model.
    assert {"examples/custom_op_atan/atan_op.c",
            "tests/unit/test_custom_op_atan.c",
            "tests/unit/test_kernel_test_kit.c",
            "tests/install/CMakeLists.txt",
            "tests/python/test_custom_op_plugin.py"} <= sources, sources
    for path, code in snippets:
        text = (REPO / path).read_text(encoding="utf-8")
        assert code.strip() and code in text, (
            f"docs/custom_ops.md quotes {path}, which no longer holds:\n"
            f"{code}")


def test_every_c_block_of_the_doc_names_its_file():
    text = DOC.read_text(encoding="utf-8")
    blocks = len(re.findall(r"^```c$", text, re.M))
    quoted = sum(1 for path, _ in doc_snippets() if path.endswith(".c"))
    assert blocks == quoted
