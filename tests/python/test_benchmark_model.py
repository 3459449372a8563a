"""tools/benchmark_model and tools/bench/compare_litert.py.

benchmark_model: its flags (every bad value exits 2 with a message naming
the flag), the JSON report (valid JSON, the documented keys, counts that
follow --num_runs/--min_secs/--max_secs, ordered percentiles, an operator
profile with one entry per node whose names are LiteRT's names for the
model's operators), input resizing and value ranges, model failures (exit
1 with the library's message) and the sections of the text report.
GPU flags: the delegate section (nodes and partitions consistent with the
model, bytes per inference derived by hand from the partition inputs and
outputs), partition limits, --require_full_delegation naming the node,
the kernel cache of --delegate_serialize_dir; --compare: the table and its
JSON, the CPU reference, outputs within 1e-5 of the CPU's, the Vulkan row's
reason. --signature_to_run_for: a signature on subgraph 0 and one on
another subgraph (their names, strict resizing, what is refused there), an
unknown key. The GPU tests need an OpenCL device (PoCL on the CPU is enough);
without one they fail, they never skip.
compare_litert.py: one short comparison and its argument checks.

Models: tests/shared/models/tflite-micro/hello_world_float.tflite (three
FULLY_CONNECTED, which the GPU delegate does not take yet), models written
by make_test_model and some written by model_builder (five input types;
elementwise ops only; elementwise ops around a FULLY_CONNECTED). Both tools
come from LITEGPU_BUILD_DIR (default build/release). Signatures:
tests/models/control_flow/two_signatures.tflite ('combine' on subgraph 0:
a, b [1,4] -> product, difference; 'encode' on subgraph 1: x with shape
signature [-1,4] -> code) and lstm_keras.tflite (one signature,
'serving_default').
"""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graph_specs import FUSED_SPEC

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR",
                                REPO / "build" / "release"))
SHARED = Path(os.environ.get("LITEGPU_SHARED_DIR", REPO / "tests" / "shared"))
HELLO = SHARED / "models" / "tflite-micro" / "hello_world_float.tflite"
HELLO_INPUT = "serving_default_dense_input:0"
CONTROL_FLOW = REPO / "tests" / "models" / "control_flow"
TWO_SIGNATURES = CONTROL_FLOW / "two_signatures.tflite"
LSTM = CONTROL_FLOW / "lstm_keras.tflite"
COMPARE = REPO / "tools" / "bench" / "compare_litert.py"
LSAN_SUPP = REPO / "tests" / "lsan_opencl.supp"
# No minimum time: run counts are then exactly the ones asked for.
FAST = ["--min_secs=0", "--warmup_min_secs=0"]
BIG_WEIGHT_BYTES = 4000000

TFLITE_FLAGS = ["graph", "num_runs", "warmup_runs", "min_secs",
                "warmup_min_secs", "max_secs", "run_delay", "num_threads",
                "enable_op_profiling", "input_layer", "input_layer_shape",
                "input_layer_value_range", "signature_to_run_for", "verbose"]
TOP_KEYS = {"tool", "tflite_version", "flags", "signature", "model",
            "init_us",
            "first_inference_us", "warmup", "inference", "memory",
            "op_profile", "op_type_summary", "gpu_dispatch_profile",
            "delegate"}
GPU_FLAGS = ["use_gpu", "gpu_precision_loss_allowed", "gpu_backend",
             "max_delegated_partitions", "min_nodes_per_partition",
             "require_full_delegation", "delegate_serialize_dir",
             "gpu_inference_for_sustained_speed"]
DELEGATE_KEYS = {"backend", "device", "fp16", "partitions",
                 "nodes_delegated", "nodes_total", "bytes_uploaded",
                 "bytes_downloaded", "bytes_per_inference",
                 "dispatches_per_invoke", "device_bytes",
                 "programs_compiled", "programs_from_cache",
                 "cache_files_loaded", "fell_back"}
ROW_KEYS = {"backend", "listed", "ok", "reason", "device", "init_cold_ms",
            "init_warm_ms", "first_inference_ms", "runs", "mean_ms",
            "std_ms", "p50_ms", "p90_ms", "p99_ms", "nodes_delegated",
            "nodes_total", "partitions", "bytes_uploaded",
            "bytes_downloaded", "bytes_per_inference", "fp16",
            "programs_cold", "programs_warm", "max_abs_diff", "speedup",
            "paired_mean_ms", "paired_speedup"}
VULKAN_MISSING = "no usable Vulkan device"
# The Vulkan loader finds no driver: how a machine without Vulkan looks.
NO_VULKAN = {"VK_ICD_FILENAMES": "/nonexistent/icd.json",
             "VK_DRIVER_FILES": "/nonexistent/icd.json"}
# Elementwise ops only: y = tanh(sigmoid(x*x + x)), x and y [1,64] float32.
ELEMENTWISE_SPEC = """tensor x FLOAT32 1,64
tensor sq FLOAT32 1,64
tensor sum FLOAT32 1,64
tensor sig FLOAT32 1,64
tensor y FLOAT32 1,64
op MUL 1 in=x,x out=sq
op ADD 1 in=sq,x out=sum
op LOGISTIC 1 in=sum out=sig
op TANH 1 in=sig out=y
inputs x
outputs y
"""
# Two elementwise partitions around a CEIL (node 2), an op TFLite's GPU
# delegate does not have, so it stays on the CPU: nodes 0-1 (2 nodes) and
# 3-5 (3 nodes). All tensors [1,4] float32 (16 bytes); outputs s and y.
MIXED_SPEC = """tensor x FLOAT32 1,4
tensor sq FLOAT32 1,4
tensor s FLOAT32 1,4
tensor c FLOAT32 1,4
tensor a FLOAT32 1,4
tensor b FLOAT32 1,4
tensor y FLOAT32 1,4
op MUL 1 in=x,x out=sq
op ADD 1 in=sq,x out=s
op CEIL 1 in=s out=c
op LOGISTIC 1 in=c out=a
op TANH 1 in=a out=b
op RELU 1 in=b out=y
inputs x
outputs s,y
"""
# LOG_SOFTMAX only: not in TFLite's GPU delegate, so a GPU backend runs it
# on the CPU, and its output depends on every input value.
CPU_ONLY_SPEC = """tensor x FLOAT32 1,8
tensor y FLOAT32 1,8
op LOG_SOFTMAX 1 in=x out=y
inputs x
outputs y
"""
STATS_KEYS = {"count", "mean_us", "std_us", "min_us", "max_us", "p50_us",
              "p90_us", "p99_us"}
MEMORY_KEYS = {"peak_rss_bytes", "ru_maxrss_bytes", "rss_at_start_bytes",
               "peak_rss_after_init_bytes", "arena_bytes",
               "non_constant_tensor_bytes", "heap_bytes", "constant_bytes"}


def tool_path(name):
    path = BUILD_DIR / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"{name} not found at {path}: build the project and "
                    "point LITEGPU_BUILD_DIR at the build directory")
    return path


@pytest.fixture(scope="session")
def bench():
    return tool_path("benchmark_model")


@pytest.fixture(scope="session")
def hello():
    assert HELLO.is_file(), f"{HELLO} is missing"
    return HELLO


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    """name -> path of models written by make_test_model."""
    tool = tool_path("make_test_model")
    out = tmp_path_factory.mktemp("models")
    paths = {}
    for name, extra in [("fc_relu", []), ("add_atan", []),
                        ("big_weights", [str(BIG_WEIGHT_BYTES)])]:
        path = out / f"{name}.tflite"
        subprocess.run([str(tool), name, str(path), *extra], check=True,
                       capture_output=True)
        paths[name] = path
    for name, text in [("elementwise", ELEMENTWISE_SPEC),
                       ("mixed", MIXED_SPEC), ("cpu_only", CPU_ONLY_SPEC),
                       ("fused", FUSED_SPEC)]:
        paths[name] = out / f"{name}.tflite"
        subprocess.run([str(tool_path("model_builder")), "-",
                        str(paths[name])], input=text.encode(), check=True,
                       capture_output=True)
    # Five inputs of five types; only x is used (y = x + x).
    spec = ("tensor x FLOAT32 2,3\ntensor k INT8 64\ntensor q INT32 64\n"
            "tensor h FLOAT16 16\ntensor flag BOOL 16\n"
            "tensor y FLOAT32 2,3\nop ADD 1 in=x,x out=y\n"
            "inputs x,k,q,h,flag\noutputs y\n")
    paths["multi"] = out / "multi.tflite"
    subprocess.run([str(tool_path("model_builder")), "-",
                    str(paths["multi"])], input=spec.encode(), check=True,
                   capture_output=True)
    garbage = out / "garbage.tflite"
    garbage.write_bytes(b"not a flatbuffer at all" * 8)
    paths["garbage"] = garbage
    return paths


def run(bench, *args, timeout=120, env=None):
    env = dict(os.environ if env is None else env)
    # An ASan build: the OpenCL driver's own process-lifetime allocations
    # are not ours (tests/lsan_opencl.supp says which).
    env.setdefault("LSAN_OPTIONS", f"suppressions={LSAN_SUPP}:"
                   "print_suppressions=0")
    return subprocess.run([str(bench), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env)


def run_json(bench, *args, env=None):
    proc = run(bench, *args, "--report=json", env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # the whole of stdout is one object


# ---- Flags ----------------------------------------------------------------

def test_help_lists_every_flag_with_its_default(bench):
    proc = run(bench, "--help")
    assert proc.returncode == 0
    for flag in TFLITE_FLAGS + GPU_FLAGS + ["report", "json_run_times",
                                            "random_seed", "compare"]:
        assert f"--{flag}=" in proc.stdout, flag
    # TFLite's defaults.
    for default in ["--num_runs=50", "--warmup_runs=1", "--min_secs=1",
                    "--max_secs=150", "--num_threads=-1", "--run_delay=-1",
                    "--warmup_min_secs=0.5", "--report=text",
                    "--use_gpu=false", "--gpu_precision_loss_allowed=true",
                    "--max_delegated_partitions=0",
                    "--min_nodes_per_partition=0",
                    "--require_full_delegation=false",
                    "--gpu_inference_for_sustained_speed=false"]:
        assert default in proc.stdout, default


BAD_FLAGS = [
    (["--num_runs=abc"], r"'--num_runs=abc': not an integer"),
    (["--num_runs=0"], r"'--num_runs=0': out of range \[1, "),
    (["--num_runs=5x"], r"'--num_runs=5x': not an integer"),
    (["--warmup_runs=-1"], r"'--warmup_runs=-1': out of range"),
    (["--min_secs=-1"], r"'--min_secs=-1': out of range"),
    (["--max_secs=inf"], r"'--max_secs=inf': not a finite number"),
    (["--run_delay=soon"], r"'--run_delay=soon': not a finite number"),
    (["--num_threads=0"], r"--num_threads=0.*-1 \(platform default\) or a "
                          r"positive count"),
    (["--num_threads=-2"], r"'--num_threads=-2': out of range \[-1, "),
    (["--report=xml"], r"'--report=xml': expected one of text\|json"),
    (["--enable_op_profiling=maybe"], r"expected true or false"),
    (["--verbose=2"], r"'--verbose=2': expected true or false"),
    (["--no_such_flag=1"], r"unknown flag '--no_such_flag'"),
    (["--num_runs"], r"--num_runs needs a value"),
    (["stray"], r"unexpected argument 'stray'"),
    (["--use_gpu=maybe"], r"'--use_gpu=maybe': expected true or false"),
    (["--gpu_precision_loss_allowed=2"],
     r"'--gpu_precision_loss_allowed=2': expected true or false"),
    (["--gpu_backend=xx"],
     r"'--gpu_backend=xx': expected empty or one of cl\|vk"),
    (["--gpu_backend=CL"], r"'--gpu_backend=CL': expected empty or one of"),
    (["--max_delegated_partitions=-1"],
     r"'--max_delegated_partitions=-1': out of range \[0, "),
    (["--min_nodes_per_partition=few"],
     r"'--min_nodes_per_partition=few': not an integer"),
    (["--require_full_delegation=yes"],
     r"'--require_full_delegation=yes': expected true or false"),
    (["--delegate_serialize_dir"], r"--delegate_serialize_dir needs a value"),
    (["--compare=cpu,xx"],
     r"'--compare=cpu,xx': 'xx' is not one of cpu, cl, vk, gpu"),
    (["--compare=cl,vk,cl"], r"'--compare=cl,vk,cl': 'cl' is listed twice"),
    (["--compare=cpu,"], r"'--compare=cpu,': '' is not one of"),
    (["--compare=cpu", "--signature_to_run_for=serving_default"],
     r"--signature_to_run_for cannot be combined with --compare"),
]


@pytest.mark.parametrize("args,message", BAD_FLAGS,
                         ids=[a[0] for a, _ in BAD_FLAGS])
def test_bad_flag_exits_2_with_a_message(bench, hello, args, message):
    proc = run(bench, f"--graph={hello}", *args)
    assert proc.returncode == 2
    assert re.search(message, proc.stderr), proc.stderr
    assert proc.stdout == ""


def test_graph_is_required(bench):
    proc = run(bench, "--num_runs=3")
    assert proc.returncode == 2
    assert "--graph=MODEL.tflite is required" in proc.stderr


BAD_INPUT_FLAGS = [
    (["--input_layer=a,b", "--input_layer_shape=1,1"],
     r"has 1 shape\(s\) for 2 --input_layer name\(s\)"),
    (["--input_layer=a", "--input_layer_shape=1,0"],
     r"'1,0' \(for 'a'\) is not a list of positive integers"),
    (["--input_layer=a", "--input_layer_shape=1,,2"], r"positive integers"),
    (["--input_layer=a", "--input_layer_shape=2x"], r"positive integers"),
    (["--input_layer=a,", "--input_layer_shape=1:1"], r"name 2 is empty"),
    (["--input_layer_value_range=x,2,1"], r"item 1 of 'x,2,1' is not "
                                          r"NAME,LOW,HIGH"),
    (["--input_layer_value_range=x,1"], r"item 1 .* is not NAME,LOW,HIGH"),
    (["--input_layer_value_range=x,0,1:"], r"item 2 .* is not NAME,LOW,HIGH"),
    (["--input_layer_value_range=x,a,1"], r"is not NAME,LOW,HIGH"),
]


@pytest.mark.parametrize("args,message", BAD_INPUT_FLAGS,
                         ids=[" ".join(a) for a, _ in BAD_INPUT_FLAGS])
def test_bad_input_flag_exits_2_with_a_message(bench, hello, args, message):
    proc = run(bench, f"--graph={hello}", *FAST, *args)
    assert proc.returncode == 2
    assert re.search(message, proc.stderr), proc.stderr


def test_input_names_that_match_nothing_are_refused(bench, hello, models):
    # Two names for a one-input model, neither of them its input's name.
    proc = run(bench, f"--graph={models['fc_relu']}", *FAST,
               "--input_layer=p,q", "--input_layer_shape=1,3:1,3")
    assert proc.returncode == 1
    assert "--input_layer names 2 input(s) but the model has 1" in proc.stderr
    assert "the model's inputs, in order: 'x'" in proc.stderr
    proc = run(bench, f"--graph={hello}", *FAST,
               "--input_layer_value_range=nosuch,0,1")
    assert proc.returncode == 1
    assert ("'nosuch', which is neither an --input_layer name nor a model "
            "input") in proc.stderr


# ---- Model failures ---------------------------------------------------------

def test_missing_model(bench, tmp_path):
    proc = run(bench, f"--graph={tmp_path / 'none.tflite'}")
    assert proc.returncode == 1
    assert "cannot open model" in proc.stderr
    assert "No such file or directory" in proc.stderr  # the reason


def test_malformed_model(bench, models):
    proc = run(bench, f"--graph={models['garbage']}")
    assert proc.returncode == 1
    assert "cannot load model" in proc.stderr
    assert "benchmark_model: litegpu: " in proc.stderr  # the reader's reason


def test_unresolved_operator(bench, models):
    proc = run(bench, f"--graph={models['add_atan']}")
    assert proc.returncode == 1
    assert "Encountered unresolved custom op: Atan." in proc.stderr
    # As in TFLite, the placeholder is refused when it is prepared.
    assert "Node number 1 (Atan) failed to prepare." in proc.stderr
    assert "AllocateTensors failed" in proc.stderr


def test_failing_prepare_after_a_resize(bench, models):
    # x [2,4] has 8 elements: not a multiple of the weights' depth 3.
    proc = run(bench, f"--graph={models['fc_relu']}", *FAST,
               "--input_layer=x", "--input_layer_shape=2,4")
    assert proc.returncode == 1
    assert "FULLY_CONNECTED" in proc.stderr
    assert "AllocateTensors failed" in proc.stderr
    assert proc.stdout == ""


# ---- JSON report ------------------------------------------------------------

def litert_op_names(path):
    try:
        from ai_edge_litert import interpreter as litert
    except ImportError as e:
        pytest.fail(f"ai_edge_litert is needed for this check: {e}")
    interp = litert.Interpreter(
        model_path=str(path), experimental_op_resolver_type=(
            litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    return {d["index"]: d["op_name"] for d in interp._get_ops_details()}


def check_stats(stats):
    assert set(stats) >= STATS_KEYS
    assert stats["min_us"] <= stats["p50_us"] <= stats["p90_us"]
    assert stats["p90_us"] <= stats["p99_us"] <= stats["max_us"]
    assert stats["min_us"] <= stats["mean_us"] <= stats["max_us"]
    assert 0 <= stats["std_us"] <= stats["max_us"] - stats["min_us"]
    assert stats["min_us"] > 0


def test_json_report(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=7",
                 "--warmup_runs=3", *FAST, "--enable_op_profiling",
                 "--json_run_times", "--num_threads=1")
    assert set(r) == TOP_KEYS
    assert r["tool"] == "litegpu benchmark_model"
    assert r["flags"]["num_runs"] == 7 and r["flags"]["num_threads"] == 1
    assert r["flags"]["graph"] == str(hello)
    assert r["flags"]["enable_op_profiling"] is True
    assert r["model"]["num_nodes"] == 3
    assert r["model"]["size_bytes"] == hello.stat().st_size
    [inp] = r["model"]["inputs"]
    assert inp["name"] == HELLO_INPUT and inp["shape"] == [1, 1]
    assert inp["tensor"] == HELLO_INPUT  # no signature: the same name
    assert inp["type"] == "FLOAT32"
    assert r["signature"] is None
    init = r["init_us"]
    assert init["delegate"] == 0  # no --use_gpu
    assert r["delegate"] is None
    assert math.isclose(init["total"],
                        init["load"] + init["create"] + init["allocate"],
                        abs_tol=0.01)
    check_stats(r["warmup"])
    assert r["warmup"]["count"] == 3
    assert r["first_inference_us"] > 0
    inference = r["inference"]
    check_stats(inference)
    assert inference["count"] == 7
    times = inference["run_times_us"]
    assert len(times) == 7
    assert min(times) == pytest.approx(inference["min_us"], abs=1e-3)
    assert max(times) == pytest.approx(inference["max_us"], abs=1e-3)
    assert sum(times) / 7 == pytest.approx(inference["mean_us"], abs=2e-3)
    # Nearest rank: the 4th of 7 sorted values is the median.
    assert sorted(times)[3] == pytest.approx(inference["p50_us"], abs=1e-3)


def test_json_op_profile_has_one_entry_per_node(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=5", *FAST,
                 "--enable_op_profiling")
    profile = r["op_profile"]
    names = litert_op_names(hello)
    assert len(profile) == r["model"]["num_nodes"] == len(names)
    assert sorted(e["node"] for e in profile) == sorted(names)
    for entry in profile:
        assert entry["op"] == names[entry["node"]]
        assert entry["version"] == 1
        assert entry["count"] == 5
        assert entry["avg_us"] >= 0
        assert entry["total_us"] == pytest.approx(entry["avg_us"] * 5,
                                                  abs=0.01)
    totals = [e["total_us"] for e in profile]
    assert totals == sorted(totals, reverse=True)  # slowest first
    assert sum(e["share_pct"] for e in profile) == pytest.approx(100, abs=0.01)
    [group] = r["op_type_summary"]
    assert group["op"] == "FULLY_CONNECTED" and group["nodes"] == 3
    assert group["share_pct"] == pytest.approx(100)


def test_json_memory(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=2", *FAST)
    mem = r["memory"]
    assert set(mem) == MEMORY_KEYS
    assert mem["peak_rss_bytes"] >= mem["peak_rss_after_init_bytes"] > 0
    assert mem["peak_rss_bytes"] >= mem["rss_at_start_bytes"] > 0
    assert mem["arena_bytes"] > 0 and mem["non_constant_tensor_bytes"] > 0
    assert mem["constant_bytes"] > 1000
    assert r["op_profile"] is None and r["op_type_summary"] is None
    assert "run_times_us" not in r["inference"]


def test_big_weights_memory_and_threads(bench, models):
    path = models["big_weights"]
    for threads in (1, 2):
        r = run_json(bench, f"--graph={path}", "--num_runs=3", *FAST,
                     f"--num_threads={threads}")
        mem = r["memory"]
        assert mem["constant_bytes"] == BIG_WEIGHT_BYTES
        # The weights are mapped, and every page is read by the first run.
        grown = mem["peak_rss_bytes"] - mem["rss_at_start_bytes"]
        assert grown >= 0.95 * BIG_WEIGHT_BYTES
        assert r["model"]["outputs"][0]["shape"] == [1, 1000]
        assert r["inference"]["count"] == 3


# ---- Run counts and times ---------------------------------------------------

def test_min_secs_runs_past_num_runs(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=1",
                 "--warmup_min_secs=0", "--min_secs=0.2")
    assert r["inference"]["count"] > 1
    assert r["inference"]["total_secs"] >= 0.2


def test_max_secs_stops_short_of_num_runs(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=2000000000", *FAST,
                 "--max_secs=0.2")
    count = r["inference"]["count"]
    assert 1 <= count < 2000000000
    assert 0.2 <= r["inference"]["total_secs"] < 5


def test_without_warm_up_the_first_run_is_the_first_inference(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=4", "--warmup_runs=0",
                 *FAST, "--json_run_times")
    assert r["warmup"]["count"] == 0
    assert all(r["warmup"][k] is None for k in STATS_KEYS - {"count"})
    assert r["first_inference_us"] == r["inference"]["run_times_us"][0]


def test_many_runs_keep_the_memory_flat(bench, hello):
    # Past 16384 runs percentiles come from a histogram instead of a list
    # of every time, so that the tool's own memory does not grow with the
    # number of runs: 80000 times would be 640 KB (1 MB allocated). The
    # 16384-entry list itself (128 KB) and page-level noise stay well under
    # the bound.
    r = run_json(bench, f"--graph={hello}", "--num_runs=80000", *FAST)
    check_stats(r["inference"])
    assert r["inference"]["count"] == 80000
    mem = r["memory"]
    grown = mem["peak_rss_bytes"] - mem["peak_rss_after_init_bytes"]
    if b"__asan_init" not in bench.read_bytes():  # ASan has its own heap
        assert grown < 450000
    # --json_run_times keeps them all.
    r = run_json(bench, f"--graph={hello}", "--num_runs=20000", *FAST,
                 "--json_run_times")
    assert len(r["inference"]["run_times_us"]) == 20000


def test_run_delay_sleeps_between_runs(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=3", *FAST,
                 "--run_delay=0.1")
    assert r["inference"]["total_secs"] >= 0.3
    assert r["inference"]["max_us"] < 50000  # the sleep is not timed


# ---- Inputs -----------------------------------------------------------------

def test_input_layer_shape_resizes_a_named_input(bench, hello):
    r = run_json(bench, f"--graph={hello}", "--num_runs=2", *FAST,
                 f"--input_layer={HELLO_INPUT}", "--input_layer_shape=8,1")
    [inp], [out] = r["model"]["inputs"], r["model"]["outputs"]
    assert inp["shape"] == [8, 1] and out["shape"] == [8, 1]
    assert inp["values"]["count"] == 8


def test_input_layer_shape_on_another_model(bench, models):
    r = run_json(bench, f"--graph={models['fc_relu']}", "--num_runs=2", *FAST,
                 "--input_layer=x", "--input_layer_shape=5,3")
    assert r["model"]["inputs"][0]["shape"] == [5, 3]
    assert r["model"]["outputs"][0]["shape"] == [5, 4]


def test_input_layer_by_position_warns_about_the_name(bench, hello):
    proc = run(bench, f"--graph={hello}", "--num_runs=2", *FAST,
               "--input_layer=x", "--input_layer_shape=4,1", "--report=json")
    assert proc.returncode == 0
    assert (f"warning: input 0 is named '{HELLO_INPUT}' but --input_layer "
            "calls it 'x'") in proc.stderr
    assert json.loads(proc.stdout)["model"]["inputs"][0]["shape"] == [4, 1]


def input_values(bench, path, *args):
    r = run_json(bench, f"--graph={path}", "--num_runs=1", *FAST, *args)
    return r["model"]["inputs"][0]["values"]


def test_default_float_range(bench, models):
    v = input_values(bench, models["fc_relu"])
    assert v["count"] == 6 and (v["low"], v["high"]) == (-0.5, 0.5)
    assert -0.5 <= v["min"] < v["max"] <= 0.5


def test_value_range_by_model_name_with_escaped_colon(bench, hello):
    v = input_values(bench, hello, f"--input_layer={HELLO_INPUT}",
                     "--input_layer_shape=64,1",
                     "--input_layer_value_range="
                     "serving_default_dense_input::0,2,3")
    assert (v["low"], v["high"]) == (2, 3)
    assert 2 <= v["min"] < v["max"] <= 3


def test_value_range_by_input_layer_name(bench, hello):
    v = input_values(bench, hello, "--input_layer=x",
                     "--input_layer_shape=16,1",
                     "--input_layer_value_range=x,-7,-6")
    assert -7 <= v["min"] < v["max"] <= -6


def test_seed_makes_inputs_reproducible(bench, models):
    path = models["fc_relu"]
    a = input_values(bench, path, "--random_seed=5")
    b = input_values(bench, path, "--random_seed=5")
    c = input_values(bench, path, "--random_seed=6")
    assert a == b
    assert (a["min"], a["max"]) != (c["min"], c["max"])


def multi_inputs(bench, models, *args):
    r = run_json(bench, f"--graph={models['multi']}", "--num_runs=1", *FAST,
                 *args)
    return {i["name"]: i for i in r["model"]["inputs"]}, r["model"]["outputs"]


def test_default_ranges_of_every_type(bench, models):
    inputs, _ = multi_inputs(bench, models)
    assert list(inputs) == ["x", "k", "q", "h", "flag"]
    expected = {"x": (-0.5, 0.5, "FLOAT32"), "k": (-128, 127, "INT8"),
                "q": (0, 99, "INT32"), "h": (-0.5, 0.5, "FLOAT16"),
                "flag": (0, 1, "BOOL")}
    for name, (low, high, dtype) in expected.items():
        v = inputs[name]["values"]
        assert inputs[name]["type"] == dtype
        assert (v["low"], v["high"]) == (low, high), name
        assert low <= v["min"] < v["max"] <= high, name
        if dtype != "FLOAT32" and dtype != "FLOAT16":
            assert v["min"] == int(v["min"]) and v["max"] == int(v["max"])


def test_integer_value_ranges(bench, models):
    inputs, _ = multi_inputs(bench, models,
                             "--input_layer_value_range=k,-3,3:q,10,12")
    k, q = inputs["k"]["values"], inputs["q"]["values"]
    assert (k["min"], k["max"]) == (-3, 3)  # 64 draws cover 7 values
    assert (q["min"], q["max"]) == (10, 12)


@pytest.mark.parametrize("item,message", [
    ("k,0,300", r"input 'k' is INT8: \[0, 300\] must be integers within "
                r"\[-128, 127\]"),
    ("q,0.5,2", r"input 'q' is INT32: \[0.5, 2\] must be integers"),
    ("flag,0,2", r"input 'flag' is BOOL: \[0, 2\] must be integers within "
                 r"\[0, 1\]"),
])
def test_value_range_outside_the_type(bench, models, item, message):
    proc = run(bench, f"--graph={models['multi']}", *FAST,
               f"--input_layer_value_range={item}")
    assert proc.returncode == 1
    assert re.search(message, proc.stderr), proc.stderr


def test_input_layer_names_pick_inputs_in_any_order(bench, models):
    inputs, [out] = multi_inputs(bench, models, "--input_layer=q,x",
                                 "--input_layer_shape=5:4,3")
    assert inputs["q"]["shape"] == [5] and inputs["x"]["shape"] == [4, 3]
    assert inputs["k"]["shape"] == [64]  # not named: unchanged
    assert out["shape"] == [4, 3]


def test_input_named_twice(bench, models):
    proc = run(bench, f"--graph={models['multi']}", *FAST, "--input_layer=x,x")
    assert proc.returncode == 1
    assert "--input_layer names input 'x' twice" in proc.stderr


# ---- Text report ------------------------------------------------------------

def test_text_report_sections(bench, hello):
    proc = run(bench, f"--graph={hello}", "--num_runs=3", *FAST,
               "--enable_op_profiling")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for section in ["Flags (set on the command line", "--num_runs=3",
                    "Model: ", "3 nodes", f"input 0 '{HELLO_INPUT}' FLOAT32",
                    "Initialization:", "load model", "create interpreter",
                    "AllocateTensors", "First inference:", "Warm-up",
                    "Steady state", "3 runs in", "p50=", "p90=", "p99=",
                    "Inference timings in us: Init:", "Memory:",
                    "peak RSS", "getrusage ru_maxrss", "arena",
                    "Operator profile (steady state, 3 runs)",
                    "Summary by operator type:", "FULLY_CONNECTED"]:
        assert section in text, section
    assert "--max_secs=" not in text  # left at its default: not listed
    assert "--random_seed" not in text


def test_verbose_lists_every_flag(bench, hello):
    proc = run(bench, f"--graph={hello}", "--num_runs=3", *FAST, "--verbose")
    assert proc.returncode == 0
    for flag in TFLITE_FLAGS:
        assert f"--{flag}=" in proc.stdout, flag
    assert "*--num_runs=3" in proc.stdout  # set flags are marked
    assert "--max_secs=150" in proc.stdout
    assert "Operator profile" not in proc.stdout


# ---- Signatures (--signature_to_run_for) -----------------------------------

@pytest.fixture(scope="session")
def two_signatures():
    assert TWO_SIGNATURES.is_file(), f"{TWO_SIGNATURES} is missing"
    return TWO_SIGNATURES


def signature_json(bench, path, key, *args):
    return run_json(bench, f"--graph={path}", "--num_runs=3", *FAST,
                    f"--signature_to_run_for={key}", *args)


def test_signature_on_another_subgraph_with_a_resize(bench, two_signatures):
    # 'encode' runs subgraph 1; x's shape signature [-1,4] lets the batch
    # change, and its output follows.
    r = signature_json(bench, two_signatures, "encode", "--input_layer=x",
                       "--input_layer_shape=3,4", "--json_run_times")
    assert set(r) == TOP_KEYS
    assert r["signature"] == "encode"
    assert r["flags"]["signature_to_run_for"] == "encode"
    [x] = r["model"]["inputs"]
    assert (x["name"], x["tensor"]) == ("x", "encode_x:0")
    assert x["type"] == "FLOAT32" and x["shape"] == [3, 4]
    assert x["values"]["count"] == 12
    [code] = r["model"]["outputs"]
    assert code["name"] == "code" and code["shape"] == [3, 4]
    assert "values" not in code
    assert r["inference"]["count"] == 3
    assert len(r["inference"]["run_times_us"]) == 3
    # What the interpreter reports for subgraph 0 is not given for it.
    assert r["model"]["num_nodes"] is None
    assert "arena_bytes" not in r["memory"]
    assert r["memory"]["peak_rss_bytes"] > 0
    assert r["op_profile"] is None and r["delegate"] is None


def test_signature_on_subgraph_0(bench, two_signatures):
    r = signature_json(bench, two_signatures, "combine")
    assert r["signature"] == "combine"
    inputs = {i["name"]: i for i in r["model"]["inputs"]}
    outputs = {o["name"]: o for o in r["model"]["outputs"]}
    assert set(inputs) == {"a", "b"}
    assert set(outputs) == {"product", "difference"}
    assert inputs["a"]["tensor"] == "combine_a:0"
    assert inputs["b"]["tensor"] == "combine_b:0"
    for t in [*inputs.values(), *outputs.values()]:
        assert t["type"] == "FLOAT32" and t["shape"] == [1, 4]
    # Subgraph 0 (MUL and SUB): the interpreter's figures are its own.
    assert r["model"]["num_nodes"] == 2
    assert set(r["memory"]) == MEMORY_KEYS


def test_signature_on_subgraph_0_profiles_its_operators(bench, two_signatures):
    r = signature_json(bench, two_signatures, "combine",
                       "--enable_op_profiling")
    assert sorted(e["op"] for e in r["op_profile"]) == ["MUL", "SUB"]
    assert all(e["count"] == 3 for e in r["op_profile"])


def test_signature_input_names_pick_inputs_and_ranges(bench, two_signatures):
    # --input_layer and --input_layer_value_range take the signature's
    # names; its inputs cannot grow past their shape signature [1,4].
    r = signature_json(bench, two_signatures, "combine",
                       "--input_layer_value_range=b,0.25,0.5")
    inputs = {i["name"]: i["values"] for i in r["model"]["inputs"]}
    assert (inputs["b"]["low"], inputs["b"]["high"]) == (0.25, 0.5)
    assert 0.25 <= inputs["b"]["min"] <= inputs["b"]["max"] <= 0.5
    assert (inputs["a"]["low"], inputs["a"]["high"]) == (-0.5, 0.5)
    proc = run(bench, f"--graph={two_signatures}", *FAST,
               "--signature_to_run_for=combine",
               "--input_layer_value_range=combine_b::0,0,1")
    assert proc.returncode == 1
    # The tensor's own name is not one of the signature's names.
    assert ("'combine_b:0', which is neither an --input_layer name nor a "
            "signature input") in proc.stderr
    assert "the inputs of signature 'combine', in order: 'a', 'b'" in (
        proc.stderr)


def test_single_signature_model_matches_its_subgraph_0(bench):
    assert LSTM.is_file(), f"{LSTM} is missing"
    plain = run_json(bench, f"--graph={LSTM}", "--num_runs=2", *FAST)
    r = signature_json(bench, LSTM, "serving_default")
    assert r["signature"] == "serving_default"
    assert r["model"]["num_nodes"] == plain["model"]["num_nodes"]
    for key in ("inputs", "outputs"):
        tensors = [(t["tensor"], t["shape"]) for t in r["model"][key]]
        assert tensors == [(t["tensor"], t["shape"])
                           for t in plain["model"][key]]


def test_unknown_signature_lists_the_keys(bench, two_signatures, hello):
    proc = run(bench, f"--graph={two_signatures}", *FAST,
               "--signature_to_run_for=nosuch", "--report=json")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert ("--signature_to_run_for=nosuch: the model has no signature "
            "'nosuch'") in proc.stderr
    assert "the model's signature keys: 'combine', 'encode'" in proc.stderr
    proc = run(bench, f"--graph={hello}", *FAST,
               "--signature_to_run_for=encode")
    assert proc.returncode == 1
    assert "the model's signature keys: 'serving_default'" in proc.stderr


def test_signature_resizes_strictly(bench, two_signatures):
    # x is [-1,4]: only the batch may change.
    proc = run(bench, f"--graph={two_signatures}", *FAST,
               "--signature_to_run_for=encode", "--input_layer=x",
               "--input_layer_shape=3,5")
    assert proc.returncode == 1
    assert ("resizing input 'x' of signature 'encode' to [3,5] failed"
            in proc.stderr)
    assert "shape signature is [-1,4]" in proc.stderr
    proc = run(bench, f"--graph={two_signatures}", *FAST,
               "--signature_to_run_for=combine", "--input_layer=a",
               "--input_layer_shape=2,4")
    assert proc.returncode == 1
    assert "shape signature is [1,4]" in proc.stderr


@pytest.mark.parametrize("args,message", [
    (["--enable_op_profiling"],
     "--enable_op_profiling times the nodes of subgraph 0 only"),
    (["--use_gpu", "--require_full_delegation"],
     "--require_full_delegation reads the execution plan of subgraph 0 only"),
])
def test_another_subgraph_refuses_what_reads_subgraph_0(bench, two_signatures,
                                                        args, message):
    proc = run(bench, f"--graph={two_signatures}", *FAST,
               "--signature_to_run_for=encode", *args)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert ("signature 'encode' (--signature_to_run_for) runs another "
            "subgraph") in proc.stderr
    assert proc.stdout == ""


def test_signature_text_report(bench, two_signatures):
    proc = run(bench, f"--graph={two_signatures}", "--num_runs=2", *FAST,
               "--signature_to_run_for=encode", "--input_layer=x",
               "--input_layer_shape=2,4")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for line in ["--signature_to_run_for=encode",
                 "Signature: 'encode' (a subgraph other than 0)",
                 "input 0 'x' (tensor 'encode_x:0') FLOAT32 [2,4]",
                 "output 0 'code' (tensor ",
                 "arena, heap and constants: not shown",
                 "Steady state"]:
        assert line in text, line
    proc = run(bench, f"--graph={two_signatures}", "--num_runs=2", *FAST,
               "--signature_to_run_for=combine")
    assert proc.returncode == 0, proc.stderr
    assert "Signature: 'combine' (subgraph 0)" in proc.stdout
    assert " 2 nodes)" in proc.stdout


def test_gpu_runs_a_signature_on_another_subgraph(bench, two_signatures):
    # The interpreter applies the delegate to every subgraph; the counts
    # read from subgraph 0's execution plan are unknown (null) here.
    r = signature_json(bench, two_signatures, "encode", "--use_gpu",
                       "--input_layer=x", "--input_layer_shape=3,4")
    d = r["delegate"]
    assert set(d) == DELEGATE_KEYS
    assert d["backend"] == "OpenCL" and d["fell_back"] is False
    for key in ("partitions", "nodes_delegated", "nodes_total",
                "dispatches_per_invoke"):
        assert d[key] is None, key
    # MUL, ADD and TANH on the GPU: x [3,4] float32 in, code out.
    assert (d["bytes_uploaded"], d["bytes_downloaded"]) == (48, 48)
    assert d["bytes_per_inference"] == 96
    assert r["model"]["outputs"][0]["shape"] == [3, 4]


# ---- GPU delegate (--use_gpu and its flags) ---------------------------------

def gpu_json(bench, path, *args, env=None):
    return run_json(bench, f"--graph={path}", "--num_runs=3", *FAST,
                    "--use_gpu", *args, env=env)


def check_delegate(d, nodes_total):
    assert set(d) == DELEGATE_KEYS
    assert d["backend"] == "OpenCL" and d["device"]
    assert d["nodes_total"] == nodes_total
    assert 0 <= d["nodes_delegated"] <= nodes_total
    assert (d["partitions"] == 0) == (d["nodes_delegated"] == 0)
    assert d["partitions"] <= d["nodes_delegated"]
    assert d["bytes_per_inference"] == (d["bytes_uploaded"] +
                                        d["bytes_downloaded"])
    assert d["fell_back"] is False


def test_gpu_on_hello_world_reports_the_delegate(bench, hello):
    # How much of it the delegate takes grows with the delegate (nothing,
    # while FULLY_CONNECTED was not lowered): the numbers must agree.
    r = gpu_json(bench, hello)
    d = r["delegate"]
    check_delegate(d, 3)
    assert r["model"]["num_nodes"] == 3  # the model's nodes, not the plan's
    assert r["flags"]["use_gpu"] is True
    if d["nodes_delegated"] == 0:
        assert d["bytes_per_inference"] == 0
        assert d["dispatches_per_invoke"] == 0
    init = r["init_us"]
    assert init["delegate"] > 0
    assert math.isclose(init["total"], init["load"] + init["delegate"] +
                        init["create"] + init["allocate"], abs_tol=0.01)


def test_gpu_takes_every_elementwise_node(bench, models):
    d = gpu_json(bench, models["elementwise"],
                 "--require_full_delegation")["delegate"]
    check_delegate(d, 4)
    assert (d["nodes_delegated"], d["partitions"]) == (4, 1)
    # One partition: x [1,64] float32 in, y [1,64] out, 256 bytes each.
    assert (d["bytes_uploaded"], d["bytes_downloaded"]) == (256, 256)
    assert d["dispatches_per_invoke"] == 4  # one per node
    assert d["programs_compiled"] + d["programs_from_cache"] >= 1


def test_gpu_runs_resized_inputs(bench, models):
    # The delegate is applied after --input_layer_shape (TFLite's order; it
    # plans static shapes): a batch of 3 moves 3 x 64 floats each way.
    r = gpu_json(bench, models["elementwise"], "--input_layer=x",
                 "--input_layer_shape=3,64", "--require_full_delegation")
    assert r["model"]["inputs"][0]["shape"] == [3, 64]
    assert r["model"]["outputs"][0]["shape"] == [3, 64]
    d = r["delegate"]
    check_delegate(d, 4)
    assert (d["nodes_delegated"], d["partitions"]) == (4, 1)
    assert (d["bytes_uploaded"], d["bytes_downloaded"]) == (768, 768)


def test_gpu_text_report_has_the_delegate_section(bench, models):
    proc = run(bench, f"--graph={models['elementwise']}", "--num_runs=2",
               *FAST, "--use_gpu")
    assert proc.returncode == 0, proc.stderr
    for line in ["create GPU delegate", "GPU delegate: OpenCL on '",
                 "partitions 1, nodes delegated 4 of 4",
                 "bytes per inference: 256 uploaded + 256 downloaded = 512"]:
        assert line in proc.stdout, line


def test_gpu_dispatch_profile(bench, models):
    # MIXED_SPEC: partitions {MUL 0, ADD 1} and {LOGISTIC 3, TANH 4, RELU 5}
    # around CEIL 2; one dispatch per node.
    r = gpu_json(bench, models["mixed"], "--enable_op_profiling")
    g = r["gpu_dispatch_profile"]
    assert g["runs"] == 3
    ops = {e["node"]: e["op"] for e in g["dispatches"]}
    assert ops == {0: "MUL", 1: "ADD", 3: "LOGISTIC", 4: "TANH", 5: "RELU"}
    part = {e["node"]: e["partition"] for e in g["dispatches"]}
    assert part[0] == part[1] and part[3] == part[4] == part[5]
    assert part[0] != part[3]
    avg = [e["avg_us"] for e in g["dispatches"]]
    assert all(a > 0 for a in avg) and avg == sorted(avg, reverse=True)
    assert all(e["kernel"] for e in g["dispatches"])
    assert sum(e["share_pct"] for e in g["dispatches"]) == pytest.approx(
        100, abs=0.01)
    kernels = g["kernels"]
    assert sum(k["dispatches"] for k in kernels) == 5
    assert ({k["kernel"] for k in kernels} ==
            {e["kernel"] for e in g["dispatches"]})
    # Each figure is printed to 0.001 us: five roundings on either side.
    assert sum(k["avg_us_per_run"] for k in kernels) == pytest.approx(
        sum(avg), abs=0.006)
    # The CPU's operator profile is still there (two delegate kernels).
    assert len(r["op_profile"]) == 3
    assert gpu_json(bench, models["mixed"])["gpu_dispatch_profile"] is None


def test_gpu_dispatch_profile_text(bench, models):
    proc = run(bench, f"--graph={models['elementwise']}", "--num_runs=2",
               *FAST, "--use_gpu", "--enable_op_profiling")
    assert proc.returncode == 0, proc.stderr
    assert "GPU dispatch profile (2 extra runs" in proc.stdout
    assert "Summary by GPU kernel:" in proc.stdout
    assert re.search(r"^\s+0\s+3\s+TANH\s+\w+\s+[0-9.]+\s+[0-9.]+%$",
                     proc.stdout, re.M), proc.stdout


@pytest.mark.parametrize("args,nodes,partitions,up,down", [
    # Nodes 0-1 upload x and download s (CEIL reads it and it is a graph
    # output); nodes 3-5 upload c and download y: 16 bytes each.
    ([], 5, 2, 32, 32),
    # The limit keeps the largest partition (3 nodes).
    (["--max_delegated_partitions=1"], 3, 1, 16, 16),
    (["--max_delegated_partitions=2"], 5, 2, 32, 32),
    (["--min_nodes_per_partition=3"], 3, 1, 16, 16),
    (["--min_nodes_per_partition=4"], 0, 0, 0, 0),
])
def test_gpu_partition_limits(bench, models, args, nodes, partitions, up,
                              down):
    d = gpu_json(bench, models["mixed"], *args)["delegate"]
    check_delegate(d, 6)
    assert (d["nodes_delegated"], d["partitions"]) == (nodes, partitions)
    assert (d["bytes_uploaded"], d["bytes_downloaded"]) == (up, down)


@pytest.mark.parametrize("model,message", [
    ("mixed", "node 2 (CEIL) was not delegated: Operation is not supported."),
    ("cpu_only", "node 0 (LOG_SOFTMAX) was not delegated: Operation is not "
                 "supported."),
    # Past the fused RELU (node 1), which has no decision.
    ("fused", "node 2 (CEIL) was not delegated: Operation is not supported."),
])
def test_require_full_delegation_names_the_node(bench, models, model,
                                                message):
    proc = run(bench, f"--graph={models[model]}", *FAST, "--use_gpu",
               "--require_full_delegation")
    assert proc.returncode == 1
    assert f"--require_full_delegation: {message}" in proc.stderr
    assert proc.stdout == ""


def test_gpu_counts_nodes_past_fused_activations(bench, models):
    # The counts are the plan's (3 nodes), the fused RELU and RELU6 neither
    # delegated nor left on the CPU.
    d = gpu_json(bench, models["fused"])["delegate"]
    check_delegate(d, 3)
    assert (d["nodes_delegated"], d["partitions"]) == (2, 2)


def test_require_full_delegation_counts_dropped_partitions(bench, models):
    proc = run(bench, f"--graph={models['elementwise']}", *FAST, "--use_gpu",
               "--require_full_delegation", "--min_nodes_per_partition=5")
    assert proc.returncode == 1
    assert re.search(r"node 0 \(MUL\) was not delegated: .+", proc.stderr)


def test_gpu_backend_vk_fails_with_the_delegates_reason(bench, models):
    proc = run(bench, f"--graph={models['elementwise']}", *FAST, "--use_gpu",
               "--gpu_backend=vk", env=dict(os.environ, **NO_VULKAN))
    assert proc.returncode == 1
    assert f"--use_gpu: GPU delegate: {VULKAN_MISSING}" in proc.stderr


# liblitegpu opens the OpenCL and Vulkan loaders at run time; the test hooks
# point it at a file that does not exist: a machine without that API.
NO_OPENCL_LOADER = {"LITEGPU_OPENCL_TEST_LIBRARY":
                    "/nonexistent/libOpenCL.so.1"}
NO_VULKAN_LOADER = {"LITEGPU_VULKAN_TEST_LIBRARY":
                    "/nonexistent/libvulkan.so.1"}


@pytest.mark.parametrize("backend,hook,message", [
    ("cl", NO_OPENCL_LOADER,
     "no usable OpenCL device: cannot load the OpenCL ICD loader "
     "(/nonexistent/libOpenCL.so.1: cannot open shared object file"),
    ("vk", NO_VULKAN_LOADER,
     "no usable Vulkan device: cannot load the Vulkan loader "
     "(/nonexistent/libvulkan.so.1: cannot open shared object file"),
    # A library without the API's calls (the C math library).
    ("cl", {"LITEGPU_OPENCL_TEST_LIBRARY": "libm.so.6"},
     "the OpenCL ICD loader has no clBuildProgram"),
    ("vk", {"LITEGPU_VULKAN_TEST_LIBRARY": "libm.so.6"},
     "the Vulkan loader has no vkAllocateCommandBuffers"),
])
def test_a_missing_loader_is_named(bench, models, backend, hook, message):
    proc = run(bench, f"--graph={models['elementwise']}", *FAST, "--use_gpu",
               f"--gpu_backend={backend}", env=dict(os.environ, **hook))
    assert proc.returncode == 1
    assert message in proc.stderr, proc.stderr


def test_auto_takes_the_backend_whose_loader_is_there(bench, models):
    d = gpu_json(bench, models["elementwise"],
                 env=dict(os.environ, **NO_OPENCL_LOADER))["delegate"]
    assert d["backend"] == "Vulkan" and d["nodes_delegated"] == 4
    d = gpu_json(bench, models["elementwise"],
                 env=dict(os.environ, **NO_VULKAN_LOADER))["delegate"]
    assert d["backend"] == "OpenCL" and d["nodes_delegated"] == 4


def test_without_any_loader_the_cpu_still_runs(bench, models):
    env = dict(os.environ, **NO_OPENCL_LOADER, **NO_VULKAN_LOADER)
    proc = run(bench, f"--graph={models['elementwise']}", *FAST, "--use_gpu",
               env=env)
    assert proc.returncode == 1
    assert "cannot load the OpenCL ICD loader" in proc.stderr
    assert "cannot load the Vulkan loader" in proc.stderr
    r = run_json(bench, f"--graph={models['elementwise']}", "--num_runs=2",
                 *FAST, env=env)
    assert r["inference"]["count"] >= 2


def test_gpu_backend_vk(bench, models):
    d = gpu_json(bench, models["elementwise"], "--gpu_backend=vk")["delegate"]
    assert d["backend"] == "Vulkan"
    assert (d["nodes_delegated"], d["partitions"]) == (4, 1)


def test_gpu_backend_cl(bench, models):
    d = gpu_json(bench, models["elementwise"], "--gpu_backend=cl")["delegate"]
    assert d["backend"] == "OpenCL" and d["nodes_delegated"] == 4


def test_delegate_serialize_dir_caches_kernels(bench, models, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    first = gpu_json(bench, models["elementwise"],
                     f"--delegate_serialize_dir={cache}")["delegate"]
    assert first["programs_compiled"] >= 1
    assert first["programs_from_cache"] == 0
    assert first["cache_files_loaded"] == 0
    assert any(cache.iterdir())
    second = gpu_json(bench, models["elementwise"],
                      f"--delegate_serialize_dir={cache}")["delegate"]
    assert second["programs_compiled"] == 0
    assert second["programs_from_cache"] == first["programs_compiled"]
    assert second["cache_files_loaded"] == first["programs_compiled"]


def test_gpu_flags_without_use_gpu_warn(bench, hello):
    proc = run(bench, f"--graph={hello}", "--num_runs=1", *FAST,
               "--gpu_backend=cl", "--min_nodes_per_partition=2",
               "--report=json")
    assert proc.returncode == 0
    for flag in ("gpu_backend", "min_nodes_per_partition"):
        assert (f"warning: --{flag} has no effect without --use_gpu"
                in proc.stderr)
    assert json.loads(proc.stdout)["delegate"] is None


# ---- Comparison (--compare) -------------------------------------------------

def compare_json(bench, path, backends, *args, env=None):
    r = run_json(bench, f"--graph={path}", f"--compare={backends}",
                 "--num_runs=4", "--warmup_runs=2", *FAST, *args, env=env)
    assert set(r) == {"tool", "tflite_version", "flags", "model",
                      "pocl_kernel_cache", "comparison"}
    return r


def check_row(row, runs=4):
    assert set(row) == ROW_KEYS and row["ok"] is True
    assert row["reason"] is None and row["runs"] == runs
    assert row["init_cold_ms"] > 0 and row["first_inference_ms"] > 0
    assert 0 < row["p50_ms"] <= row["p90_ms"] <= row["p99_ms"]
    assert row["std_ms"] >= 0
    assert row["bytes_per_inference"] == (row["bytes_uploaded"] +
                                          row["bytes_downloaded"])
    assert row["paired_mean_ms"] > 0 and row["paired_speedup"] > 0


def test_compare_with_resized_inputs(bench, models, tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    r = compare_json(bench, models["elementwise"], "cpu,cl,vk",
                     "--input_layer=x", "--input_layer_shape=3,64",
                     "--gpu_precision_loss_allowed=false", env=env)
    cpu, cl, vk = r["comparison"]
    check_row(cpu)
    for row in (cl, vk):
        check_row(row)
        assert (row["nodes_delegated"], row["partitions"]) == (4, 1)
        assert row["bytes_per_inference"] == 2 * 3 * 64 * 4
        assert 0 <= row["max_abs_diff"] <= 1e-5


def test_compare_json(bench, models, tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    env.pop("POCL_KERNEL_CACHE", None)
    r = compare_json(bench, models["elementwise"], "cpu,cl,vk", env=env)
    assert r["model"]["num_nodes"] == 4
    assert r["pocl_kernel_cache"] == "0"  # set for honest cold builds
    cpu, cl, vk = r["comparison"]
    assert [row["backend"] for row in (cpu, cl, vk)] == ["cpu", "cl", "vk"]
    check_row(cpu)
    assert cpu["listed"] and cpu["device"] == "CPU"
    assert cpu["init_warm_ms"] is None and cpu["programs_cold"] is None
    assert (cpu["nodes_delegated"], cpu["nodes_total"]) == (0, 4)
    assert cpu["max_abs_diff"] == 0 and cpu["speedup"] == 1
    assert cpu["paired_speedup"] == 1
    # Precision loss is allowed by default (TFLite's benchmark default):
    # PoCL has no cl_khr_fp16, so OpenCL stays float32; lavapipe has
    # shaderFloat16 and 16-bit storage, so Vulkan moves half the bytes and
    # is held to the fp16 bound (outputs in (-1, 1)).
    check_row(cl)
    assert cl["init_warm_ms"] > 0
    assert (cl["nodes_delegated"], cl["nodes_total"]) == (4, 4)
    assert cl["partitions"] == 1 and cl["bytes_per_inference"] == 512
    assert cl["fp16"] is False
    assert 0 <= cl["max_abs_diff"] <= 1e-5
    assert cl["speedup"] == pytest.approx(cpu["mean_ms"] / cl["mean_ms"],
                                          rel=1e-6)
    assert cl["paired_speedup"] == pytest.approx(
        cpu["paired_mean_ms"] / cl["paired_mean_ms"], rel=1e-6)
    # Cold: an empty cache, every kernel compiled; warm: all from the cache.
    compiled = cl["programs_cold"]["compiled"]
    assert compiled >= 1 and cl["programs_cold"]["from_cache"] == 0
    assert cl["programs_cold"]["cache_files"] == 0
    assert cl["programs_warm"] == {"compiled": 0, "from_cache": compiled,
                                   "cache_files": compiled}
    check_row(vk)
    assert (vk["nodes_delegated"], vk["nodes_total"]) == (4, 4)
    assert vk["partitions"] == 1 and vk["bytes_per_inference"] == 256
    assert vk["fp16"] is True
    assert 0 < vk["max_abs_diff"] <= 1e-2
    # Vulkan: the cold run builds pipelines and writes the pipeline cache
    # (one file per shader, which its later variants already read), the
    # warm one loads it. Every pipeline is built either way, and counts as
    # from the cache only where the driver reports a hit (lavapipe reports
    # none), so the two inits build the same number.
    cold, warm = vk["programs_cold"], vk["programs_warm"]
    assert cold["compiled"] >= 1 and cold["from_cache"] == 0
    assert warm["compiled"] + warm["from_cache"] == cold["compiled"]
    assert warm["cache_files"] >= 1
    assert list(tmp_path.iterdir()) == []  # the cache dirs are removed


def test_compare_backend_without_device_gets_a_reason(bench, models):
    r = compare_json(bench, models["elementwise"], "cpu,vk",
                     env=dict(os.environ, **NO_VULKAN))
    cpu, vk = r["comparison"]
    check_row(cpu)
    assert vk == {"backend": "vk", "listed": True, "ok": False,
                  "reason": vk["reason"]}
    assert VULKAN_MISSING in vk["reason"]


def test_compare_text_table(bench, models):
    # Full precision: both backends float32, 512 bytes, the fp32 bound.
    proc = run(bench, f"--graph={models['elementwise']}",
               "--compare=cpu,cl,vk", "--num_runs=3", *FAST,
               "--gpu_precision_loss_allowed=false")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    [header] = [i for i, line in enumerate(lines)
                if line.startswith("backend")]
    for column in ["prec", "init cold", "init warm", "first", "mean", "std", "p50",
                   "p90", "p99", "delegated", "parts", "bytes/inf",
                   "max abs diff", "speed-up", "paired"]:
        assert column in lines[header], column
    cpu, cl, vk = lines[header + 1:header + 4]
    # speed-up, then the paired mean and its speed-up
    assert re.match(r"cpu\s+fp32\s+[\d.]+\s+-\s+([\d.]+\s+){6}0/4\s+0\s+0\s+"
                    r"reference\s+1\.00x\s+[\d.]+\s+1\.00x$", cpu), cpu
    m = re.match(r"cl\s+fp32\s+([\d.]+\s+){8}4/4\s+1\s+512\s+(\S+)\s+[\d.]+x"
                 r"\s+[\d.]+\s+[\d.]+x$", cl)
    assert m, cl
    assert float(m.group(2)) <= 1e-5
    m = re.match(r"vk\s+fp32\s+([\d.]+\s+){8}4/4\s+1\s+512\s+(\S+)\s+[\d.]+x"
                 r"\s+[\d.]+\s+[\d.]+x$", vk)
    assert m, vk
    assert float(m.group(2)) <= 1e-5
    assert "POCL_KERNEL_CACHE=" in proc.stdout
    assert "cl: OpenCL on '" in proc.stdout
    # A driver that reports no pipeline-cache hits (lavapipe) gets the
    # line that says why a warm Vulkan init still counts compiled pipelines.
    warm = re.search(r"vk: Vulkan on .*warm init \d+ compiled \+ (\d+) from "
                     r"cache \((\d+) cache files\)", proc.stdout)
    assert warm, proc.stdout
    explained = "(Vulkan builds every pipeline at each init" in proc.stdout
    assert explained == (warm.group(1) == "0" and warm.group(2) != "0")


def test_compare_runs_the_cpu_first_even_unlisted(bench, models):
    r = compare_json(bench, models["mixed"], "vk,gpu")
    cpu, vk, gpu = r["comparison"]
    assert (cpu["backend"], cpu["listed"]) == ("cpu", False)
    check_row(cpu)
    assert vk["backend"] == "vk" and vk["ok"]
    check_row(vk)
    check_row(gpu)
    assert gpu["listed"] and (gpu["nodes_delegated"], gpu["partitions"]) == \
        (5, 2)
    assert gpu["max_abs_diff"] <= 1e-5  # over both outputs


def test_compare_uses_the_same_inputs(bench, models):
    # Nothing is delegated: both rows compute on the CPU, so only different
    # inputs could make their outputs differ.
    r = compare_json(bench, models["cpu_only"], "cpu,cl")
    cpu, cl = r["comparison"]
    check_row(cl)
    assert cl["nodes_delegated"] == 0 and cl["nodes_total"] == 1
    assert cl["partitions"] == 0 and cl["bytes_per_inference"] == 0
    assert cl["max_abs_diff"] == 0


def test_compare_hello_world(bench, hello):
    r = compare_json(bench, hello, "cpu,cl")
    cpu, cl = r["comparison"]
    check_row(cpu)
    check_row(cl)
    assert cl["nodes_total"] == 3
    assert 0 <= cl["max_abs_diff"] <= 1e-5


def test_compare_keeps_the_users_pocl_cache_setting(bench, hello):
    env = dict(os.environ, POCL_KERNEL_CACHE="1")
    r = compare_json(bench, hello, "cpu", env=env)
    assert r["pocl_kernel_cache"] == "1"
    [cpu] = r["comparison"]
    check_row(cpu)


def test_compare_require_full_delegation_fails_the_row(bench, models):
    r = compare_json(bench, models["mixed"], "cpu,cl",
                     "--require_full_delegation")
    cpu, cl = r["comparison"]
    check_row(cpu)
    assert not cl["ok"]
    assert cl["reason"] == ("--require_full_delegation: node 2 (CEIL) was "
                            "not delegated: Operation is not supported.")


def test_compare_warns_about_unused_flags(bench, hello):
    proc = run(bench, f"--graph={hello}", "--compare=cpu", "--num_runs=1",
               *FAST, "--use_gpu", "--enable_op_profiling")
    assert proc.returncode == 0
    assert "warning: --use_gpu is not used with --compare" in proc.stderr
    assert ("warning: --enable_op_profiling is not used with --compare"
            in proc.stderr)


# ---- compare_litert.py ------------------------------------------------------

def compare(*args, timeout=300):
    return subprocess.run([sys.executable, str(COMPARE), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_compare_litert_short_run(bench, hello, tmp_path):
    out = tmp_path / "compare.json"
    proc = compare(hello, "--threads", "1", "--runs", "3", "--rounds", "2",
                   "--warmup", "1", "--benchmark-model", bench, "--json", out)
    assert proc.returncode == 0, proc.stderr
    for config in ("litegpu", "xnnpack", "builtin"):
        assert re.search(rf"^{config}\s+1\s+\d", proc.stdout, re.M), config
    rows = json.loads(out.read_text())["results"]
    assert {r["config"] for r in rows} == {"litegpu", "xnnpack", "builtin"}
    for row in rows:
        assert row["runs"] == 6  # 2 rounds x 3 runs
        assert 0 < row["median_us"] <= row["p90_us"]
        assert row["peak_rss_bytes"] > 0


@pytest.mark.parametrize("args,message", [
    (["nosuch.tflite"], "model 'nosuch.tflite' not found"),
    (["{hello}", "--threads", "0"], "counts must be >= 1"),
    (["{hello}", "--threads", "a"], "is not a list like 1,2"),
    (["{hello}", "--configs", "litegpu,gpu"], "a list of distinct names"),
    (["{hello}", "--runs", "0"], "is not a positive integer"),
    (["{hello}", "--benchmark-model", "/nonexistent/benchmark_model"],
     "benchmark_model not found at /nonexistent/benchmark_model"),
])
def test_compare_litert_bad_arguments(hello, args, message):
    proc = compare(*[a.format(hello=hello) for a in args])
    assert proc.returncode == 2
    assert message in proc.stderr, proc.stderr


# ---- The chart (--plot) -----------------------------------------------------

def svg_bands(path):
    """The chart's bands by backend, its ticks as (ms, x), its title."""
    import xml.etree.ElementTree as ET
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()  # well-formed XML, or this raises
    bands = {g.get("data-backend"): g for g in root.iter(f"{ns}g")
             if g.get("class") == "band"}
    ticks = [(float(g.get("data-ms")), float(g.get("data-x")))
             for g in root.iter(f"{ns}g") if g.get("class") == "tick"]
    title = "".join(root.find(f"{ns}text").itertext())
    return ns, bands, ticks, title


def test_compare_plot_draws_every_backends_runs(bench, models, tmp_path):
    # A model path that needs XML escaping in the title.
    model = tmp_path / "m&<x>.tflite"
    model.write_bytes(models["elementwise"].read_bytes())
    chart = tmp_path / "chart.svg"
    r = compare_json(bench, model, "cpu,cl,vk", f"--plot={chart}")
    ns, bands, ticks, title = svg_bands(chart)
    assert title.endswith(": m&<x>.tflite")
    assert list(bands) == ["cpu", "cl", "vk"]
    # The log axis: ticks at 1, 2, 5 x 10^k, x linear in log10(ms).
    assert len(ticks) >= 3
    (m0, x0), (m1, x1) = ticks[0], ticks[-1]
    slope = (x1 - x0) / (math.log10(m1) - math.log10(m0))

    def x_of(ms):
        return x0 + slope * (math.log10(ms) - math.log10(m0))

    for ms, x in ticks:
        assert x == pytest.approx(x_of(ms), abs=0.02)
    widths = {}
    for row in r["comparison"]:
        g = bands[row["backend"]]
        assert g.get("data-ok") == "true"
        assert int(g.get("data-runs")) == row["runs"]
        for key in ("p50", "mean"):
            assert float(g.get(f"data-{key}-ms")) == pytest.approx(
                row[f"{key}_ms"], rel=1e-6)
        q = [float(g.get(f"data-p{p}-ms")) for p in (5, 25, 50, 75, 95)]
        assert q == sorted(q)
        assert float(g.get("data-speedup")) == pytest.approx(row["speedup"],
                                                              rel=1e-6)
        assert float(g.get("data-paired-speedup")) == pytest.approx(
            row["paired_speedup"], rel=1e-6)
        # One dot per run, each inside the p0-p100 span of the axis.
        dots = g.find(f"{ns}g[@class='dots']")
        xs = [float(c.get("cx")) for c in dots.iter(f"{ns}circle")]
        assert len(xs) == row["runs"]
        assert min(xs) <= x_of(q[0]) + 0.02 and max(xs) >= x_of(q[4]) - 0.02
        median = g.find(f"{ns}line[@class='median']")
        assert float(median.get("x1")) == pytest.approx(x_of(q[2]), abs=0.02)
        box = g.find(f"{ns}rect[@class='box']")
        assert float(box.get("x")) == pytest.approx(x_of(q[1]), abs=0.02)
        whisker = g.find(f"{ns}line[@class='whisker']")
        assert float(whisker.get("x1")) == pytest.approx(x_of(q[0]), abs=0.02)
        assert float(whisker.get("x2")) == pytest.approx(x_of(q[4]), abs=0.02)
        bar = g.find(f"{ns}rect[@class='speed']")
        if row["backend"] == "cpu":
            assert bar is None  # the reference
        else:
            widths[row["backend"]] = float(bar.get("width"))
    # Bars in proportion to the speed-ups (widths written to 1e-6 px).
    cl, vk = r["comparison"][1:]
    assert widths["cl"] / widths["vk"] == pytest.approx(
        cl["speedup"] / vk["speedup"], rel=1e-3)


def test_compare_plot_gives_a_failed_backend_its_reason(bench, models,
                                                        tmp_path):
    chart = tmp_path / "chart.svg"
    r = compare_json(bench, models["elementwise"], "cpu,vk", f"--plot={chart}",
                     env=dict(os.environ, **NO_VULKAN))
    assert r["comparison"][1]["ok"] is False
    ns, bands, _, _ = svg_bands(chart)
    assert bands["vk"].get("data-ok") == "false"
    reason = bands["vk"].find(f"{ns}text[@class='reason']")
    assert VULKAN_MISSING in "".join(reason.itertext())
    assert bands["cpu"].get("data-ok") == "true"


@pytest.mark.parametrize("args,message", [
    (["--plot=x.svg"], "--plot charts a comparison: add --compare"),
    (["--compare=cpu", "--plot=/nonexistent/dir/x.svg"],
     "cannot write the --plot file '/nonexistent/dir/x.svg': No such file "
     "or directory"),
])
def test_plot_argument_errors(bench, hello, args, message):
    proc = run(bench, f"--graph={hello}", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""
