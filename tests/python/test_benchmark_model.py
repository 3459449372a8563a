"""tools/benchmark_model and tools/bench/compare_litert.py.

benchmark_model: its flags (every bad value exits 2 with a message naming
the flag), the JSON report (valid JSON, the documented keys, counts that
follow --num_runs/--min_secs/--max_secs, ordered percentiles, an operator
profile with one entry per node whose names are LiteRT's names for the
model's operators), input resizing and value ranges, model failures (exit
1 with the library's message) and the sections of the text report.
compare_litert.py: one short comparison and its argument checks.

Models: ../shared/models/tflite-micro/hello_world_float.tflite (three
FULLY_CONNECTED), models written by make_test_model and one with inputs of
five types written by model_builder. Both tools come from
LITEGPU_BUILD_DIR (default build/release).
"""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("LITEGPU_BUILD_DIR",
                                REPO / "build" / "release"))
SHARED = Path(os.environ.get("LITEGPU_SHARED_DIR", REPO.parent / "shared"))
HELLO = SHARED / "models" / "tflite-micro" / "hello_world_float.tflite"
HELLO_INPUT = "serving_default_dense_input:0"
COMPARE = REPO / "tools" / "bench" / "compare_litert.py"
# No minimum time: run counts are then exactly the ones asked for.
FAST = ["--min_secs=0", "--warmup_min_secs=0"]
BIG_WEIGHT_BYTES = 4000000

TFLITE_FLAGS = ["graph", "num_runs", "warmup_runs", "min_secs",
                "warmup_min_secs", "max_secs", "run_delay", "num_threads",
                "enable_op_profiling", "input_layer", "input_layer_shape",
                "input_layer_value_range", "verbose"]
TOP_KEYS = {"tool", "tflite_version", "flags", "model", "init_us",
            "first_inference_us", "warmup", "inference", "memory",
            "op_profile", "op_type_summary"}
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


def run(bench, *args, timeout=120):
    return subprocess.run([str(bench), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def run_json(bench, *args):
    proc = run(bench, *args, "--report=json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # the whole of stdout is one object


# ---- Flags ----------------------------------------------------------------

def test_help_lists_every_flag_with_its_default(bench):
    proc = run(bench, "--help")
    assert proc.returncode == 0
    for flag in TFLITE_FLAGS + ["report", "json_run_times", "random_seed"]:
        assert f"--{flag}=" in proc.stdout, flag
    # TFLite's defaults.
    for default in ["--num_runs=50", "--warmup_runs=1", "--min_secs=1",
                    "--max_secs=150", "--num_threads=-1", "--run_delay=-1",
                    "--warmup_min_secs=0.5", "--report=text"]:
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


def test_malformed_model(bench, models):
    proc = run(bench, f"--graph={models['garbage']}")
    assert proc.returncode == 1
    assert "cannot load model" in proc.stderr
    assert "benchmark_model: litegpu: " in proc.stderr  # the reader's reason


def test_unresolved_operator(bench, models):
    proc = run(bench, f"--graph={models['add_atan']}")
    assert proc.returncode == 1
    assert "Encountered unresolved custom op: Atan." in proc.stderr
    assert "cannot create an interpreter" in proc.stderr


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
    assert inp["type"] == "FLOAT32"
    init = r["init_us"]
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
    # number of runs: 40000 times would be 320 KB (512 KB allocated).
    r = run_json(bench, f"--graph={hello}", "--num_runs=40000", *FAST)
    check_stats(r["inference"])
    assert r["inference"]["count"] == 40000
    mem = r["memory"]
    grown = mem["peak_rss_bytes"] - mem["peak_rss_after_init_bytes"]
    if b"__asan_init" not in bench.read_bytes():  # ASan has its own heap
        assert grown < 300000
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
