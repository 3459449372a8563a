"""tools/bench/compare_litert.py in corpus mode (several models).

One short run over two converted networks of tests/models (kws_cnn and
tiny_transformer, about 0.1 ms each) and a truncated copy of kws_cnn, at
1 thread, 2 timed runs, 1 round: the JSON's keys; each ratio is the
quotient of the medians it reports; each geometric mean is the n-th root
of the product of the ratios of the models that ran (computed here from
the medians), and leaves out the truncated model, which is listed as
failed with its reason and makes the exit status 1 (the manifest does not
expect it); the worst model is the highest litegpu/xnnpack and its
operator profile names operators. With the MediaPipe corpus fetched
(build/corpus, LITEGPU_CORPUS_DIR), face_landmark_with_attention runs in
litegpu and fails in LiteRT's configurations as the manifest expects
(its "litert_lacks"; exit status 0). And the argument
checks of corpus mode. benchmark_model comes from LITEGPU_BUILD_DIR
(default build/release), LiteRT from LITEGPU_VENV (default build/venv).
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
CORPUS = Path(os.environ.get("LITEGPU_CORPUS_DIR") or
              REPO / "build" / "corpus")
COMPARE = REPO / "tools" / "bench" / "compare_litert.py"
MODELS = REPO / "tests" / "models"
SMALL = [MODELS / "kws_cnn.tflite", MODELS / "tiny_transformer.tflite"]
SHORT = ["--runs", "2", "--rounds", "1", "--threads", "1", "--warmup", "1"]
OP_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
ROW_KEYS = {"threads", "litegpu_median_us", "xnnpack_median_us",
            "builtin_median_us", "litegpu_over_xnnpack",
            "litegpu_over_builtin", "litegpu_peak_rss_bytes",
            "builtin_peak_rss_bytes", "litegpu_over_base_bytes",
            "builtin_over_base_bytes"}


def compare(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, str(COMPARE), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env=env)


@pytest.fixture(scope="module")
def bench():
    path = BUILD_DIR / "benchmark_model"
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"benchmark_model not found at {path}: build the "
                    "project and point LITEGPU_BUILD_DIR at the build "
                    "directory")
    return path


@pytest.fixture(scope="module")
def corpus_run(bench, tmp_path_factory):
    """(process, report) of one run over SMALL and a truncated model."""
    tmp = tmp_path_factory.mktemp("corpus")
    broken = tmp / "truncated_kws.tflite"
    broken.write_bytes(SMALL[0].read_bytes()[:20000])
    out = tmp / "report.json"
    proc = compare(*SMALL, broken, *SHORT, "--benchmark-model", bench,
                   "--json", out)
    assert out.is_file(), proc.stderr
    return proc, json.loads(out.read_text())


def test_json_keys(corpus_run):
    proc, report = corpus_run
    assert {"mode", "runs", "rounds", "warmup", "threads", "configs",
            "slow_ratio", "models", "excluded_from_means", "geomeans",
            "worst"} <= set(report)
    assert report["mode"] == "corpus"
    assert (report["runs"], report["rounds"], report["threads"]) == \
        (2, 1, [1])
    assert report["configs"] == ["litegpu", "xnnpack", "builtin"]
    assert [m["name"] for m in report["models"]] == \
        ["kws_cnn", "tiny_transformer", "truncated_kws"]
    for model in report["models"]:
        assert {"name", "path", "status", "failures", "rows",
                "results"} <= set(model)
        assert [set(r) for r in model["rows"]] == [ROW_KEYS]
    assert set(report["worst"]) == {"model", "path", "threads",
                                    "litegpu_over_xnnpack", "profile"}


def test_ratios_are_the_medians_quotients(corpus_run):
    _, report = corpus_run
    for model in report["models"][:2]:
        assert model["status"] == "ok", model["failures"]
        medians = {r["config"]: r["median_us"] for r in model["results"]}
        for r in model["results"]:
            assert r["runs"] == 2
            assert 0 < r["median_us"] <= r["p90_us"]
        row = model["rows"][0]
        for config in ("litegpu", "xnnpack", "builtin"):
            assert row[f"{config}_median_us"] == medians[config]
        assert row["litegpu_over_xnnpack"] == pytest.approx(
            medians["litegpu"] / medians["xnnpack"], rel=1e-12)
        assert row["litegpu_over_builtin"] == pytest.approx(
            medians["litegpu"] / medians["builtin"], rel=1e-12)
        assert row["litegpu_peak_rss_bytes"] > 0
        assert row["builtin_peak_rss_bytes"] > 0


def test_geometric_means_leave_out_the_failed_model(corpus_run):
    proc, report = corpus_run
    ok = [m for m in report["models"] if m["status"] == "ok"]
    assert [m["name"] for m in ok] == ["kws_cnn", "tiny_transformer"]
    assert report["excluded_from_means"] == ["truncated_kws"]
    [mean] = report["geomeans"]
    assert mean["threads"] == 1 and mean["models"] == 2
    for config in ("xnnpack", "builtin"):
        ratios = {}
        for m in ok:
            medians = {r["config"]: r["median_us"] for r in m["results"]}
            ratios[m["name"]] = medians["litegpu"] / medians[config]
        got = mean[f"litegpu_over_{config}"]
        assert got["models"] == 2
        assert got["geomean"] == pytest.approx(
            math.prod(ratios.values()) ** (1 / len(ratios)), rel=1e-9)
        worst = max(ratios, key=ratios.get)
        assert got["worst_model"] == worst
        assert got["worst_ratio"] == pytest.approx(ratios[worst])
        assert got["above_slow_ratio"] == sum(
            r > report["slow_ratio"] for r in ratios.values())
        assert f"litegpu/{config}" in proc.stdout
    assert re.search(r"^\s*1 thread\(s\) litegpu/xnnpack\s+"
                     rf"{mean['litegpu_over_xnnpack']['geomean']:.3f} over "
                     r"2 model\(s\)", proc.stdout, re.M), proc.stdout


def test_failed_model_is_reported_with_its_reason(corpus_run):
    proc, report = corpus_run
    # The truncated model is not one the manifest expects to fail.
    assert proc.returncode == 1, proc.stderr
    broken = report["models"][2]
    assert broken["status"] == "failed"
    assert {f["config"] for f in broken["failures"]} == \
        {"litegpu", "xnnpack", "builtin"}
    for f in broken["failures"]:
        assert f["expected"] is None
        assert "Flatbuffer" in f["error"], f
    assert all("error" in r for r in broken["results"])
    assert re.search(r"^truncated_kws\s+1\s+-.*failed: builtin, litegpu, "
                     r"xnnpack$", proc.stdout, re.M), proc.stdout
    assert "failed (1; a ratio leaves a model out where either" in proc.stdout
    assert re.search(r"^  truncated_kws: litegpu with 1 thread\(s\): .*"
                     "not a valid Flatbuffer", proc.stdout, re.M)


def test_worst_model_profile_lists_operators(corpus_run):
    proc, report = corpus_run
    worst = report["worst"]
    ok = report["models"][:2]
    ratios = {m["name"]: m["rows"][0]["litegpu_over_xnnpack"] for m in ok}
    assert worst["model"] == max(ratios, key=ratios.get)
    assert worst["threads"] == 1
    assert worst["litegpu_over_xnnpack"] == ratios[worst["model"]]
    profile = worst["profile"]
    assert "error" not in profile, profile
    assert profile["threads"] == 1 and profile["runs"] == 2
    types, nodes = profile["op_types"], profile["nodes"]
    assert 0 < len(types) <= 10 and 0 < len(nodes) <= 10
    for op in types:
        assert OP_NAME.match(op["op"]) and op["nodes"] >= 1
    for node in nodes:
        assert OP_NAME.match(node["op"]) and node["node"] >= 0
    costs = [op["avg_us_per_run"] for op in types]
    assert costs == sorted(costs, reverse=True)
    costs = [node["avg_us"] for node in nodes]
    assert costs == sorted(costs, reverse=True)
    # Both networks hold FULLY_CONNECTED nodes.
    assert "FULLY_CONNECTED" in {op["op"] for op in types}
    assert f"worst model: {worst['model']} at 1 thread(s)" in proc.stdout
    assert "top 10 operator types" in proc.stdout
    assert re.search(rf"^\s+\d+ {types[0]['op']}\s", proc.stdout, re.M)


def test_expected_failure_from_the_manifest(bench, tmp_path):
    model = CORPUS / "models" / "face_landmark_with_attention.tflite"
    if not model.is_file():
        pytest.skip(f"the corpus is not fetched ({model}): scripts/setup.sh")
    out = tmp_path / "report.json"
    proc = compare(model, SMALL[0], *SHORT, "--benchmark-model", bench,
                   "--json", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    failed = report["models"][0]
    assert failed["status"] == "failed"
    assert {f["config"] for f in failed["failures"]} == {"xnnpack",
                                                         "builtin"}
    for f in failed["failures"]:
        assert "Landmarks2TransformMatrix" in f["error"]
        assert f["expected"].startswith("manifest: litert_lacks")
    assert report["excluded_from_means"] == [failed["name"]]
    assert report["geomeans"][0]["models"] == 1


@pytest.mark.parametrize("args,message", [
    (["--models-filter", "nosuch"], "no model matches --models-filter"),
    (["--models-filter", "("], "is not a regex"),
    (["--configs", "xnnpack,builtin"], "--configs must name it"),
    ([str(REPO / "tests" / "python")], "no .tflite model in"),
])
def test_corpus_bad_arguments(args, message):
    proc = compare(*SMALL, *args)
    assert proc.returncode == 2
    assert message in proc.stderr, proc.stderr


def test_corpus_without_a_fetched_corpus(tmp_path):
    env = dict(os.environ, LITEGPU_CORPUS_DIR=str(tmp_path))
    proc = compare("--corpus", env=env)
    assert proc.returncode == 2
    assert f"no corpus at {tmp_path / 'models'}" in proc.stderr
    assert "scripts/setup.sh" in proc.stderr
    proc = compare()
    assert proc.returncode == 2
    assert "give a MODEL, directories or --corpus" in proc.stderr
