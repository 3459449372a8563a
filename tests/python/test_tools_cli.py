"""The small tools' command lines: --help (exit 0, on stdout), bad
arguments (exit 2), and litegpu_run's --input checks. benchmark_model and
inspect have their own files."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR", REPO / "build" / "release"))
SHARED = Path(os.environ.get("LITEGPU_SHARED_DIR", REPO / "tests" / "shared"))
MICRO = SHARED / "models" / "tflite-micro"


def tool(name, *args):
    path = BUILD_DIR / name
    assert path.is_file(), f"{path} is missing: build the project first"
    return subprocess.run([str(path), *map(str, args)], capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("name,usage", [
    ("litegpu_run", "usage: litegpu_run MODEL"),
    ("op_versions", "usage: op_versions MODEL.tflite"),
])
def test_help_exits_0_on_stdout(name, usage):
    for flag in ("--help", "-h"):
        proc = tool(name, flag)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(usage)
        assert "Exit status" in proc.stdout


@pytest.mark.parametrize("name", ["model_builder", "make_test_model",
                                  "bench_load", "bench_gemm",
                                  "bench_gpu_conv", "bench_gpu_invoke",
                                  "bench_gpu_chain", "bench_async",
                                  "bench_gpu_resize"])
def test_every_other_tool_has_help(name):
    proc = tool(name, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {name} "), proc.stdout


@pytest.mark.parametrize("name,args", [
    ("litegpu_run", ["--bogus"]),
    ("litegpu_run", []),
    ("op_versions", ["--bogus"]),
    ("op_versions", []),
])
def test_bad_arguments_exit_2(name, args):
    proc = tool(name, *args)
    assert proc.returncode == 2
    assert "usage:" in proc.stderr


def test_litegpu_run_refuses_more_values_than_the_input_holds():
    proc = tool("litegpu_run", MICRO / "hello_world_float.tflite",
                "--input=1,2", "--num_runs=1")
    assert proc.returncode == 1
    assert "--input has 2 values, but input 0" in proc.stderr
    assert "has 1 elements" in proc.stderr


def test_litegpu_run_gives_int8_inputs_the_values():
    proc = tool("litegpu_run", MICRO / "hello_world_int8.tflite",
                "--input=300", "--num_runs=1")
    assert proc.returncode == 0, proc.stderr
    # Clamped to the type, as a stored integer.
    assert "INT8 [1,1]: 127" in proc.stdout


def test_demo_help_describes_the_demo():
    proc = subprocess.run(["bash", str(REPO / "scripts" / "demo.sh"),
                           "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("The main job:")
    assert "bash scripts/demo.sh [MODEL.tflite] [benchmark_model flags...]" \
        in proc.stdout
    assert "realpath" not in proc.stdout + proc.stderr


def test_readme_c_example_builds_and_runs(tmp_path):
    """The README's C program, taken from the README itself, compiles with
    warnings as errors against the built library and runs a model."""
    import re
    text = (REPO / "README.md").read_text()
    match = re.search(r"```c\n(#include <stdio.h>.*?)```", text, re.S)
    assert match, "README has no C example with main()"
    (tmp_path / "app.c").write_text(match.group(1))
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
    if "asan" in BUILD_DIR.name:  # the library is instrumented there
        flags += ["-fsanitize=address,undefined"]
    build = subprocess.run(
        ["cc", *flags, f"-I{REPO / 'include'}", str(tmp_path / "app.c"),
         str(BUILD_DIR / "liblitegpu.so"), f"-Wl,-rpath,{BUILD_DIR}", "-o",
         str(tmp_path / "app")], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
    run = subprocess.run([str(tmp_path / "app"),
                          str(MICRO / "hello_world_float.tflite")],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("output 0: ")
