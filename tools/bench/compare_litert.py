#!/usr/bin/env python3
"""Latency and peak memory of one .tflite model in litegpu and in LiteRT.

    compare_litert.py MODEL [--threads 1,2] [--runs 50] [--rounds 5]

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

Exit status: 0 when every configuration ran, 1 when one failed (the table
shows why), 2 for bad arguments or a missing tool.

Environment: LITEGPU_BUILD_DIR (where benchmark_model lives, default
build/release), LITEGPU_VENV (the Python with ai-edge-litert, default
build/venv).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFIGS = ("litegpu", "xnnpack", "builtin", "ref")
DEFAULT_CONFIGS = "litegpu,xnnpack,builtin"
SEED = 1234


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
        raise ChildError(f"exit status {proc.returncode}: "
                         f"{lines[-1] if lines else '(no message)'}")
    return proc.stdout


def parse_json(stdout):
    try:
        return json.loads(stdout)
    except json.JSONDecodeError as e:
        raise ChildError(f"output is not JSON ({e}): {stdout[:200]!r}")


def measure(config, threads, args):
    """One fresh subprocess; returns a dict of this round's numbers."""
    if config == "litegpu":
        cmd = [str(args.benchmark_model), f"--graph={args.model}",
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
           config, args.model, "--threads", str(threads), "--runs",
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


def run_rounds(args):
    """results[(config, threads)] = summary dict or {'error': why}."""
    samples = {(c, t): [] for t in args.threads for c in args.configs}
    errors = {}
    for r in range(args.rounds):
        for threads in args.threads:
            shift = r % len(args.configs)
            order = args.configs[shift:] + args.configs[:shift]
            for config in order:
                key = (config, threads)
                if key in errors:
                    continue
                try:
                    samples[key].append(measure(config, threads, args))
                except (ChildError, KeyError, TypeError) as e:
                    errors[key] = f"{type(e).__name__}: {e}"
                    print(f"compare_litert: {config} with {threads} "
                          f"thread(s) failed: {e}", file=sys.stderr)
        print(f"compare_litert: round {r + 1}/{args.rounds} done",
              file=sys.stderr)
    return {k: ({"error": errors[k]} if k in errors else summarize(v))
            for k, v in samples.items()}


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


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Compare litegpu's benchmark_model with LiteRT "
        "(XNNPACK and builtin kernels) on one model.")
    p.add_argument("model", help=".tflite model")
    p.add_argument("--threads", type=int_list, default=[1, 2],
                   help="thread counts, e.g. 1,2 (default 1,2)")
    p.add_argument("--runs", type=positive_int, default=50,
                   help="timed runs per configuration and round (default 50)")
    p.add_argument("--rounds", type=positive_int, default=5,
                   help="alternating rounds (default 5)")
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
    if args.child is None:
        check_tools(p, args)
    return args


def check_tools(parser, args):
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
