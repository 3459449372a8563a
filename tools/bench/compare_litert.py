#!/usr/bin/env python3
"""Latency and peak memory of .tflite models in litegpu and in LiteRT.

    compare_litert.py MODEL [--threads 1,2] [--runs 50] [--rounds 5]
    compare_litert.py --corpus [--runs 20] [--rounds 3] [--json PATH]
    compare_litert.py MODEL_OR_DIR... [--models-filter REGEX] [--json PATH]

Configurations (--configs picks and orders them):
  litegpu   litegpu's benchmark_model --report=json, timed in C around each
            TfLiteInterpreterInvoke;
  xnnpack   ai-edge-litert with its default resolver (OpResolverType.AUTO:
            builtin kernels plus the XNNPACK delegate);
  builtin   ai-edge-litert with builtin kernels only
            (OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES: in LiteRT 2.x
            OpResolverType.BUILTIN applies the XNNPACK delegate as AUTO does);
  ref       ai-edge-litert's reference kernels (OpResolverType.BUILTIN_REF).
The LiteRT configurations are timed in Python around the binding's Invoke
(perf_counter_ns); the cost of that call is measured on a no-op binding call
and printed as "py call", so that fast models can be read fairly.

Every run of every configuration is a fresh subprocess (load, warm-up, timed
runs), so that its peak RSS is its own: each child reads its VmHWM from
/proc/self/status (benchmark_model's peak_rss_bytes does the same). Not
getrusage: Linux carries ru_maxrss across execve, so a child forked from
this Python would report this Python's size. "base+" is the peak minus the
child's RSS before it loaded the model (for LiteRT: after importing NumPy
and LiteRT), the memory the model itself cost.

Rounds alternate the configurations, and rotate their order, so that
machine noise hits every configuration alike. Latency is pooled over the
rounds: median and p90 of every timed run; RSS is the largest of the
rounds. The lg/x columns are litegpu / that row (below 1: litegpu is faster
or smaller).

Corpus mode (--corpus, a directory, more than one model, or
--models-filter): the same measurements for every model, with round r
running every model, configuration and thread count once (so that a load
spike hits all models), then one summary table: per model and thread count
the three medians, litegpu/xnnpack and litegpu/builtin, and the peak and
base+ RSS of litegpu and builtin; per thread count the geometric mean of
each ratio over the models that ran in both of its configurations, the worst
model and the count of models above 1.25x. The worst model (the highest
litegpu/xnnpack at any thread count) is run once more by benchmark_model
with --enable_op_profiling at that thread count, and its 10 costliest
operator types ("Summary by operator type") and 10 slowest nodes are
printed (read from its --report=json: op_type_summary, op_profile).
--corpus is every .tflite in $LITEGPU_CORPUS_DIR/models (MediaPipe's
models, fetched by scripts/setup.sh; tests/corpus/corpus.json) and the
converted float networks of tests/models (CORPUS_TEST_MODELS: not the
all_ops* op-coverage graphs: one node per op family on 8x8x4 tensors, 0.4
to 90 us, per-op overheads rather than networks, where the binding's call
cost, about 0.5 us, would weigh in the ratio). A directory stands for the
.tflite files directly in it; --models-filter keeps the models whose name
or path matches. A model that fails in any configuration (it stops being
measured in that configuration and thread count) is listed as failed with
the reason and left out of each geometric mean that needs the failed
configuration (the selfie models still count against XNNPACK where
LiteRT's builtin kernels cannot run them); failures that the manifest
expects are marked so: a model with "unsupported" fails everywhere, one
with "litert_lacks" in every LiteRT configuration (MediaPipe's landmark
ops, which only litegpu implements), one with "mediapipe_ops" in LiteRT's
builtin kernels (its MediaPipe custom ops, which XNNPACK and litegpu
implement, are not registered there). Corpus
defaults: --runs 20 --rounds 3, about 3 minutes for --corpus on 2 cores
(--runs 10 --rounds 2: 78 s).

Exit status: 0 when every configuration ran, 1 when one failed (the table
shows why; in corpus mode: a failure the manifest does not expect, or the
worst model's profile run), 2 for bad arguments or a missing tool.

Environment: LITEGPU_BUILD_DIR (where benchmark_model lives, default
build/release), LITEGPU_VENV (the Python with ai-edge-litert, default
build/venv), LITEGPU_CORPUS_DIR (the fetched corpus, default build/corpus).
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFIGS = ("litegpu", "xnnpack", "builtin", "ref")
DEFAULT_CONFIGS = "litegpu,xnnpack,builtin"
SEED = 1234
MANIFEST = REPO / "tests" / "corpus" / "corpus.json"
# The converted float networks of tests/models that --corpus adds to the
# MediaPipe models (tests/models/README.md says how they were made).
CORPUS_TEST_MODELS = ("mobilenet_v2", "mobilenet_v3_small", "kws_cnn",
                      "small_unet", "tiny_transformer")
# Defaults: (single model, corpus mode).
DEFAULT_RUNS = (50, 20)
DEFAULT_ROUNDS = (5, 3)
SLOW_RATIO = 1.25
TOP_N = 10


# ---- Child: one LiteRT measurement -----------------------------------------

def vm_status():
    """VmRSS and VmHWM of this process in bytes (0 where /proc is absent)."""
    values = {"VmRSS": 0, "VmHWM": 0}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in values:
                    values[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return values


def fill_inputs(interp, np):
    """Seeded random inputs in benchmark_model's default ranges."""
    rng = np.random.default_rng(SEED)
    for detail in interp.get_input_details():
        shape, dtype = detail["shape"], np.dtype(detail["dtype"])
        if dtype.kind == "f":
            data = rng.uniform(-0.5, 0.5, size=shape)
        elif dtype == np.bool_:
            data = rng.integers(0, 2, size=shape)
        elif dtype.kind in "iu" and dtype.itemsize == 1:
            info = np.iinfo(dtype)
            data = rng.integers(info.min, info.max, size=shape, endpoint=True)
        elif dtype.kind in "iu":
            data = rng.integers(0, 99, size=shape, endpoint=True)
        else:
            raise SystemExit(f"input {detail['name']}: {dtype} not supported")
        interp.set_tensor(detail["index"], data.astype(dtype))


def call_overhead_us(binding):
    """Median time of a binding call that does no work."""
    times = []
    for _ in range(2000):
        t0 = time.perf_counter_ns()
        binding.NumTensors(0)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e3


def child_main(args):
    """Measures one LiteRT configuration; prints one JSON object."""
    import numpy as np
    from ai_edge_litert import interpreter as litert

    base = vm_status()["VmRSS"]
    resolvers = {
        "xnnpack": litert.OpResolverType.AUTO,
        "builtin": litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        "ref": litert.OpResolverType.BUILTIN_REF,
    }
    t0 = time.perf_counter_ns()
    interp = litert.Interpreter(
        model_path=args.model, num_threads=args.threads[0],
        experimental_op_resolver_type=resolvers[args.child])
    interp.allocate_tensors()
    init_us = (time.perf_counter_ns() - t0) / 1e3
    ops = [d["op_name"] for d in interp._get_ops_details()]
    fill_inputs(interp, np)
    binding = interp._interpreter
    invoke = binding.Invoke
    times = []
    for _ in range(args.warmup + args.runs):
        t0 = time.perf_counter_ns()
        invoke()
        times.append((time.perf_counter_ns() - t0) / 1e3)
    status = vm_status()
    json.dump({
        "init_us": init_us,
        "first_inference_us": times[0] if times else None,
        "run_times_us": times[args.warmup:],
        "delegated": "DELEGATE" in ops,
        "call_overhead_us": call_overhead_us(binding),
        "rss_base_bytes": base,
        "vm_hwm_bytes": status["VmHWM"],
    }, sys.stdout)
    sys.stdout.write("\n")
    return 0


# ---- Parent: rounds of children --------------------------------------------

class ChildError(Exception):
    pass


def run_child(cmd, timeout):
    """Runs cmd to the end; returns its stdout."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=timeout,
                              errors="replace")
    except subprocess.TimeoutExpired:
        raise ChildError(f"timed out after {timeout:g} s")
    except OSError as e:
        raise ChildError(f"cannot start {cmd[0]}: {e}")
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        why = lines[-1] if lines else "(no message)"
        # benchmark_model ends with "benchmark of ... failed"; the
        # library's own message is its first "litegpu:" line. A Python
        # exception's message may take several lines.
        cause = [line for line in lines[:-1] if ": litegpu: " in line]
        start = [i for i, line in enumerate(lines)
                 if re.match(r"\w+(Error|Exception): ", line)]
        if cause:
            why = f"{cause[0].split(': litegpu: ', 1)[1]} ({why})"
        elif start:
            why = " ".join(lines[start[-1]:])
        raise ChildError(f"exit status {proc.returncode}: {why}")
    return proc.stdout


def parse_json(stdout):
    try:
        return json.loads(stdout)
    except json.JSONDecodeError as e:
        raise ChildError(f"output is not JSON ({e}): {stdout[:200]!r}")


def measure(model, config, threads, args):
    """One fresh subprocess; returns a dict of this round's numbers."""
    if config == "litegpu":
        cmd = [str(args.benchmark_model), f"--graph={model}",
               f"--num_threads={threads}", f"--num_runs={args.runs}",
               f"--warmup_runs={args.warmup}", "--min_secs=0",
               "--warmup_min_secs=0", "--report=json", "--json_run_times"]
        report = parse_json(run_child(cmd, args.timeout))
        return {"times": report["inference"]["run_times_us"],
                "peak": report["memory"]["peak_rss_bytes"],
                "base": report["memory"]["rss_at_start_bytes"],
                "init_us": report["init_us"]["total"],
                "first_us": report["first_inference_us"], "overhead": 0.0}
    cmd = [str(args.python), str(Path(__file__).resolve()), "--child",
           config, model, "--threads", str(threads), "--runs",
           str(args.runs), "--warmup", str(args.warmup)]
    report = parse_json(run_child(cmd, args.timeout))
    if report["delegated"] and config != "xnnpack":
        raise ChildError("LiteRT applied a delegate: the configuration is "
                         "not builtin kernels only")
    idle = config == "xnnpack" and not report["delegated"]
    return {"times": report["run_times_us"], "peak": report["vm_hwm_bytes"],
            "base": report["rss_base_bytes"], "init_us": report["init_us"],
            "first_us": report["first_inference_us"],
            "overhead": report["call_overhead_us"],
            "note": "XNNPACK took no node" if idle else ""}


def percentile(values, p):
    """Nearest rank, as benchmark_model computes it."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summarize(rounds):
    times = [t for r in rounds for t in r["times"]]
    return {
        "runs": len(times),
        "median_us": percentile(times, 50),
        "p90_us": percentile(times, 90),
        "peak_rss_bytes": max(r["peak"] for r in rounds),
        "over_base_bytes": max(r["peak"] - r["base"] for r in rounds),
        "init_us": statistics.median(r["init_us"] for r in rounds),
        "first_us": statistics.median(r["first_us"] for r in rounds),
        "call_overhead_us": statistics.median(r["overhead"] for r in rounds),
        "note": rounds[-1].get("note", ""),
    }


def run_rounds(args, models=None):
    """results[(config, threads)] = summary dict or {'error': why}; with
    models (a list of paths): results[(model, config, threads)], round r
    running every model once."""
    paths = [args.model] if models is None else models
    samples = {(m, c, t): [] for m in paths for t in args.threads
               for c in args.configs}
    errors = {}
    for r in range(args.rounds):
        for model in paths:
            where = "" if models is None else f"{Path(model).name}: "
            for threads in args.threads:
                shift = r % len(args.configs)
                order = args.configs[shift:] + args.configs[:shift]
                for config in order:
                    key = (model, config, threads)
                    if key in errors:
                        continue
                    try:
                        samples[key].append(
                            measure(model, config, threads, args))
                    except (ChildError, KeyError, TypeError) as e:
                        errors[key] = f"{type(e).__name__}: {e}"
                        print(f"compare_litert: {where}{config} with "
                              f"{threads} thread(s) failed: {e}",
                              file=sys.stderr)
        print(f"compare_litert: round {r + 1}/{args.rounds} done",
              file=sys.stderr)
    results = {k: ({"error": errors[k]} if k in errors else summarize(v))
               for k, v in samples.items()}
    if models is None:
        return {k[1:]: v for k, v in results.items()}
    return results


# ---- Report -----------------------------------------------------------------

def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


COLUMNS = (("config", "<9"), ("threads", ">7"), ("median us", ">10"),
           ("p90 us", ">10"), ("py call", ">8"), ("peak MB", ">8"),
           ("base+ MB", ">8"), ("init us", ">9"), ("first us", ">9"),
           ("lg/x median", ">11"), ("lg/x peak", ">9"), ("lg/x base+", ">10"),
           ("", ""))


def table_row(values):
    return " ".join(f"{v:{fmt}}" for v, (_, fmt) in zip(values, COLUMNS))


def print_table(args, results):
    """One row per configuration and thread count; lg/x = litegpu / row."""
    mb = 1024 * 1024
    print(f"model: {args.model}")
    print(f"{args.rounds} round(s) x {args.runs} timed runs (+{args.warmup} "
          "warm-up) per configuration and thread count, alternating")
    header = table_row([name for name, _ in COLUMNS])
    print(header)
    print("-" * len(header))
    for threads in args.threads:
        mine = results.get(("litegpu", threads), {})
        for config in args.configs:
            s = results[(config, threads)]
            if "error" in s:
                print(table_row([config, threads, "failed:"]), s["error"])
                continue

            def lg_over(key):
                return ratio(mine[key], s[key]) if key in mine else "-"
            call = s["call_overhead_us"]
            print(table_row([
                config, threads, f"{s['median_us']:.3f}", f"{s['p90_us']:.3f}",
                f"{call:.3f}" if config != "litegpu" else "-",
                f"{s['peak_rss_bytes'] / mb:.2f}",
                f"{s['over_base_bytes'] / mb:.2f}", f"{s['init_us']:.0f}",
                f"{s['first_us']:.1f}", lg_over("median_us"),
                lg_over("peak_rss_bytes"), lg_over("over_base_bytes"),
                s["note"]]))
    print("py call: the Python binding's own cost per call, included in the "
          "LiteRT times; base+: peak RSS minus the RSS before loading the "
          "model")


# ---- Corpus mode ------------------------------------------------------------

def corpus_dir():
    return Path(os.environ.get("LITEGPU_CORPUS_DIR") or
                REPO / "build" / "corpus")


def load_manifest():
    """name -> corpus.json's entry for MediaPipe's models."""
    try:
        return {m["name"]: m
                for m in json.loads(MANIFEST.read_text())["models"]}
    except (OSError, ValueError, KeyError):
        return {}


def expected_failure(model, config, args):
    """Why the manifest expects model to fail in config, or None."""
    path = Path(model)
    if path.parent != args.corpus_models:
        return None
    entry = args.manifest.get(path.stem, {})
    if "unsupported" in entry:
        return f"manifest: unsupported ({entry['unsupported']['why']})"
    if entry.get("litert_lacks") and config != "litegpu":
        return ("manifest: litert_lacks (LiteRT has no kernel for "
                f"{', '.join(entry['litert_lacks'])})")
    if entry.get("mediapipe_ops") and config in ("builtin", "ref"):
        return ("manifest: mediapipe_ops (LiteRT's builtin kernels do not "
                "register MediaPipe's custom ops)")
    return None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def model_rows(args, results, model):
    """One summary row per thread count of one model."""
    rows = []
    for threads in args.threads:
        row = {"threads": threads}
        for config in ("litegpu", "xnnpack", "builtin"):
            s = results.get((model, config, threads), {})
            row[f"{config}_median_us"] = s.get("median_us")
            if config != "xnnpack":
                row[f"{config}_peak_rss_bytes"] = s.get("peak_rss_bytes")
                row[f"{config}_over_base_bytes"] = s.get("over_base_bytes")
        lg = row["litegpu_median_us"]
        for config in ("xnnpack", "builtin"):
            other = row[f"{config}_median_us"]
            row[f"litegpu_over_{config}"] = (lg / other if lg and other
                                             else None)
        rows.append(row)
    return rows


def summarize_corpus(args, models, results):
    """Per-model entries and per-thread-count geometric means."""
    entries = []
    for model in models:
        failures = []
        for threads in args.threads:
            for config in args.configs:
                s = results[(model, config, threads)]
                if "error" in s:
                    failures.append({
                        "config": config, "threads": threads,
                        "error": s["error"],
                        "expected": expected_failure(model, config, args)})
        entries.append({
            "name": args.names[model], "path": model,
            "status": "failed" if failures else "ok",
            "failures": failures,
            "rows": model_rows(args, results, model),
            "results": [{"config": c, "threads": t, **results[(model, c, t)]}
                        for t in args.threads for c in args.configs]})
    # Each ratio is averaged over the models that ran in both of its
    # configurations (a model LiteRT's builtin kernels cannot run still
    # counts against XNNPACK).
    means = []
    for i, threads in enumerate(args.threads):
        mean = {"threads": threads,
                "models": sum(e["status"] == "ok" for e in entries)}
        for config in ("xnnpack", "builtin"):
            key = f"litegpu_over_{config}"
            ratios = [(e["rows"][i][key], e["name"]) for e in entries
                      if e["rows"][i][key] is not None]
            if not ratios:
                continue
            worst = max(ratios)
            mean[key] = {
                "geomean": geomean([r for r, _ in ratios]),
                "models": len(ratios),
                "worst_model": worst[1], "worst_ratio": worst[0],
                "above_slow_ratio": sum(r > SLOW_RATIO for r, _ in ratios)}
        means.append(mean)
    return entries, means


def worst_model(args, entries):
    """(entry, threads, ratio) of the highest litegpu/xnnpack, or None."""
    worst = None
    for e in entries:
        for row in e["rows"]:
            r = row["litegpu_over_xnnpack"]
            if r is not None and (worst is None or r > worst[2]):
                worst = (e, row["threads"], r)
    return worst


def profile_model(model, threads, args):
    """benchmark_model's operator profile: its op types and nodes."""
    cmd = [str(args.benchmark_model), f"--graph={model}",
           f"--num_threads={threads}", f"--num_runs={args.runs}",
           f"--warmup_runs={args.warmup}", "--min_secs=0",
           "--warmup_min_secs=0", "--enable_op_profiling=true",
           "--report=json"]
    try:
        report = parse_json(run_child(cmd, args.timeout))
        types = sorted(report["op_type_summary"],
                       key=lambda o: -o["avg_us_per_run"])
        nodes = sorted(report["op_profile"], key=lambda o: -o["avg_us"])
        return {"threads": threads, "runs": report["inference"]["count"],
                "median_us": report["inference"]["p50_us"],
                "op_types": types[:TOP_N], "nodes": nodes[:TOP_N]}
    except (ChildError, KeyError, TypeError) as e:
        return {"threads": threads, "error": f"{type(e).__name__}: {e}"}


def fmt(value, spec, scale=1.0):
    return "-" if value is None else f"{value / scale:{spec}}"


def print_corpus(args, entries, means, worst, profile):
    mb = 1024 * 1024
    print(f"{len(entries)} model(s), {args.rounds} round(s) x {args.runs} "
          f"timed runs (+{args.warmup} warm-up) per model, configuration "
          "and thread count; each round runs every model")
    width = max([5] + [len(e["name"]) for e in entries])
    columns = ((f"<{width}", "model"), (">7", "threads"),
               (">11", "litegpu us"), (">11", "xnnpack us"),
               (">11", "builtin us"), (">6", "lg/x"), (">6", "lg/b"),
               (">8", "lg peak"), (">8", "b peak"), (">8", "lg base+"),
               (">8", "b base+"), ("", ""))

    def line(values):
        return " ".join(f"{v:{spec}}" for v, (spec, _) in
                        zip(values, columns))
    header = line([name for _, name in columns])
    print(header)
    print("-" * len(header))
    for e in entries:
        for row in e["rows"]:
            failed = sorted({f["config"] for f in e["failures"]
                             if f["threads"] == row["threads"]})
            note = f"failed: {', '.join(failed)}" if failed else ""
            print(line([
                e["name"], row["threads"],
                fmt(row["litegpu_median_us"], ".1f"),
                fmt(row["xnnpack_median_us"], ".1f"),
                fmt(row["builtin_median_us"], ".1f"),
                fmt(row["litegpu_over_xnnpack"], ".2f"),
                fmt(row["litegpu_over_builtin"], ".2f"),
                fmt(row["litegpu_peak_rss_bytes"], ".2f", mb),
                fmt(row["builtin_peak_rss_bytes"], ".2f", mb),
                fmt(row["litegpu_over_base_bytes"], ".2f", mb),
                fmt(row["builtin_over_base_bytes"], ".2f", mb), note]))
    calls = [r["call_overhead_us"] for e in entries for r in e["results"]
             if r["config"] != "litegpu" and "call_overhead_us" in r]
    call = f" ({statistics.median(calls):.2f} us)" if calls else ""
    print("us: median of every timed run; lg/x, lg/b: litegpu / xnnpack, "
          "litegpu / builtin (below 1: litegpu is faster); peak, base+: "
          "peak RSS and peak minus the RSS before loading the model, MB; "
          f"LiteRT's times include the binding's call cost{call}")
    failed = [e for e in entries if e["status"] != "ok"]
    if failed:
        print(f"\nfailed ({len(failed)}; a ratio leaves a model out where "
              "either of its configurations failed):")
        for e in failed:
            for f in e["failures"]:
                note = f" [expected: {f['expected']}]" if f["expected"] else ""
                print(f"  {e['name']}: {f['config']} with {f['threads']} "
                      f"thread(s): {f['error']}{note}")
    print(f"\ngeometric means over the models that ran in both "
          f"configurations of the ratio (above {SLOW_RATIO:g}: models with "
          f"a ratio "
          f"above {SLOW_RATIO:g}x):")
    for mean in means:
        for config in ("xnnpack", "builtin"):
            m = mean.get(f"litegpu_over_{config}")
            if m is None:
                continue
            print(f"  {mean['threads']} thread(s) litegpu/{config:<7} "
                  f"{m['geomean']:.3f} over {m['models']} model(s); worst "
                  f"{m['worst_model']} {m['worst_ratio']:.2f}; above "
                  f"{SLOW_RATIO:g}: {m['above_slow_ratio']}")
    if worst is None:
        print("\nno model ran in litegpu and xnnpack: no worst model")
        return
    entry, threads, r = worst
    print(f"\nworst model: {entry['name']} at {threads} thread(s), "
          f"litegpu/xnnpack {r:.2f}; litegpu's operator profile "
          "(benchmark_model --enable_op_profiling=true):")
    if "error" in profile:
        print(f"  profile run failed: {profile['error']}")
        return
    print(f"  {profile['runs']} runs, median {profile['median_us']:.1f} us")
    print(f"  top {TOP_N} operator types (summary by operator type):")
    print(f"    {'op':<28} {'nodes':>5} {'us per run':>11} {'share %':>8}")
    for o in profile["op_types"]:
        print(f"    {o['op']:<28} {o['nodes']:>5} "
              f"{o['avg_us_per_run']:>11.3f} {o['share_pct']:>8.2f}")
    print(f"  top {TOP_N} nodes:")
    print(f"    {'node':>5} {'op':<28} {'avg us':>11} {'share %':>8}")
    for o in profile["nodes"]:
        print(f"    {o['node']:>5} {o['op']:<28} {o['avg_us']:>11.3f} "
              f"{o['share_pct']:>8.2f}")


def corpus_main(args):
    models = args.models
    results = run_rounds(args, models)
    entries, means = summarize_corpus(args, models, results)
    worst = worst_model(args, entries)
    profile = None
    if worst is not None:
        profile = profile_model(worst[0]["path"], worst[1], args)
    print_corpus(args, entries, means, worst, profile)
    if args.json is not None:
        excluded = [e["name"] for e in entries if e["status"] != "ok"]
        args.json.write_text(json.dumps({
            "mode": "corpus", "runs": args.runs, "rounds": args.rounds,
            "warmup": args.warmup, "threads": args.threads,
            "configs": args.configs, "slow_ratio": SLOW_RATIO,
            "models": entries, "excluded_from_means": excluded,
            "geomeans": means,
            "worst": None if worst is None else {
                "model": worst[0]["name"], "path": worst[0]["path"],
                "threads": worst[1], "litegpu_over_xnnpack": worst[2],
                "profile": profile}}, indent=1) + "\n")
    unexpected = any(f["expected"] is None for e in entries
                     for f in e["failures"])
    return 1 if unexpected or (profile and "error" in profile) else 0


# ---- Arguments --------------------------------------------------------------

def default_build_dir():
    return Path(os.environ.get("LITEGPU_BUILD_DIR",
                               REPO / "build" / "release"))


def default_python():
    venv = Path(os.environ.get("LITEGPU_VENV", REPO / "build" / "venv"))
    candidate = venv / "bin" / "python"
    return candidate if candidate.exists() else Path(sys.executable)


def int_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list like 1,2")
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': counts must be >= 1")
    return values


def config_list(text):
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if v not in CONFIGS]
    if bad or not values or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(
            f"'{text}': a list of distinct names from {', '.join(CONFIGS)}")
    return values


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return value


def regex(text):
    try:
        return re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"'{text}' is not a regex: {e}")


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Compare litegpu's benchmark_model with LiteRT "
        "(XNNPACK and builtin kernels) on one model, or on a corpus.")
    p.add_argument("models", nargs="*", metavar="MODEL",
                   help=".tflite model; several models or directories "
                   "(their .tflite files) make a corpus run")
    p.add_argument("--corpus", action="store_true",
                   help="add the corpus: every .tflite in "
                   "$LITEGPU_CORPUS_DIR/models (default build/corpus/models) "
                   f"and tests/models' {', '.join(CORPUS_TEST_MODELS)}")
    p.add_argument("--models-filter", type=regex, metavar="REGEX",
                   help="corpus mode: only the models whose name or path "
                   "matches REGEX (re.search)")
    p.add_argument("--threads", type=int_list, default=[1, 2],
                   help="thread counts, e.g. 1,2 (default 1,2)")
    p.add_argument("--runs", type=positive_int,
                   help="timed runs per configuration and round (default "
                   f"{DEFAULT_RUNS[0]}; corpus mode {DEFAULT_RUNS[1]})")
    p.add_argument("--rounds", type=positive_int,
                   help=f"alternating rounds (default {DEFAULT_ROUNDS[0]}; "
                   f"corpus mode {DEFAULT_ROUNDS[1]})")
    p.add_argument("--warmup", type=int, default=5,
                   help="warm-up runs per subprocess (default 5)")
    p.add_argument("--configs", type=config_list,
                   default=config_list(DEFAULT_CONFIGS),
                   help=f"configurations (default {DEFAULT_CONFIGS}; "
                   f"choices {', '.join(CONFIGS)})")
    p.add_argument("--benchmark-model", type=Path,
                   default=default_build_dir() / "benchmark_model",
                   help="litegpu's benchmark_model (default "
                   "$LITEGPU_BUILD_DIR/benchmark_model)")
    p.add_argument("--python", type=Path, default=default_python(),
                   help="Python with ai-edge-litert (default "
                   "$LITEGPU_VENV/bin/python)")
    p.add_argument("--timeout", type=float, default=300,
                   help="seconds allowed to one subprocess (default 300)")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--child", choices=CONFIGS[1:], help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.warmup < 0:
        p.error("--warmup must be >= 0")
    if args.child is not None:
        if len(args.models) != 1:
            p.error("--child takes one model")
        args.model = args.models[0]
        return args
    args.corpus_mode = (args.corpus or len(args.models) != 1 or
                        args.models_filter is not None or
                        Path(args.models[0]).is_dir())
    args.runs = args.runs or DEFAULT_RUNS[args.corpus_mode]
    args.rounds = args.rounds or DEFAULT_ROUNDS[args.corpus_mode]
    if args.corpus_mode:
        select_models(p, args)
    else:
        args.model = args.models[0]
    check_tools(p, args)
    return args


def select_models(parser, args):
    """args.models: the corpus's resolved paths; args.names: path -> name."""
    if not args.models and not args.corpus:
        parser.error("give a MODEL, directories or --corpus")
    if "litegpu" not in args.configs:
        parser.error("corpus mode compares litegpu: --configs must name it")
    args.corpus_models = (corpus_dir() / "models").resolve()
    args.manifest = load_manifest()
    sources = [Path(m) for m in args.models]
    if args.corpus:
        if not args.corpus_models.is_dir():
            parser.error(f"no corpus at {args.corpus_models}: run "
                         "scripts/setup.sh (or set LITEGPU_CORPUS_DIR)")
        sources += [args.corpus_models]
        sources += [REPO / "tests" / "models" / f"{n}.tflite"
                    for n in CORPUS_TEST_MODELS]
    paths = []
    for source in sources:
        if source.is_dir():
            found = sorted(source.glob("*.tflite"))
            if not found:
                parser.error(f"no .tflite model in '{source}'")
        elif source.is_file():
            found = [source]
        else:
            parser.error(f"model '{source}' not found")
        for path in found:
            path = str(path.resolve())
            if path not in paths:
                paths.append(path)
    stems = [Path(p).stem for p in paths]
    args.names = {}
    for path, stem in zip(paths, stems):
        if stems.count(stem) == 1:
            args.names[path] = stem
        else:
            try:
                args.names[path] = str(Path(path).relative_to(REPO))
            except ValueError:
                args.names[path] = path
    rx = args.models_filter
    if rx is not None:
        paths = [p for p in paths
                 if rx.search(args.names[p]) or rx.search(p)]
        if not paths:
            parser.error(f"no model matches --models-filter "
                         f"'{rx.pattern}'")
    args.models = paths


def check_tools(parser, args):
    if not args.corpus_mode:
        if not Path(args.model).is_file():
            parser.error(f"model '{args.model}' not found")
        args.model = str(Path(args.model).resolve())
    bm = args.benchmark_model
    usable = bm.is_file() and os.access(bm, os.X_OK)
    if "litegpu" in args.configs and not usable:
        parser.error(f"benchmark_model not found at {bm}: build it (cmake "
                     "--build <dir> --target benchmark_model) and pass "
                     "--benchmark-model or set LITEGPU_BUILD_DIR")
    probe = subprocess.run(
        [str(args.python), "-c", "import ai_edge_litert.interpreter"],
        capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        parser.error(f"{args.python} cannot import ai_edge_litert: "
                     f"{probe.stderr.strip().splitlines()[-1:]}; pass "
                     "--python or run scripts/setup.sh")


def main(argv):
    args = parse_args(argv)
    if args.child is not None:
        return child_main(args)
    if args.corpus_mode:
        return corpus_main(args)
    results = run_rounds(args)
    print_table(args, results)
    if args.json is not None:
        rows = [{"config": c, "threads": t, **s}
                for (c, t), s in results.items()]
        args.json.write_text(json.dumps({"model": args.model,
                                         "runs": args.runs,
                                         "rounds": args.rounds,
                                         "results": rows}, indent=1) + "\n")
    return 1 if any("error" in s for s in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
