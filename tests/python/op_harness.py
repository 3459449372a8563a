"""The op test harness: one operator, run in LiteRT and in litegpu.

A test describes one op case; the harness writes a one-op model with
litegpu's model writer (tools/model_builder; the spec language is described
in runtime/writer/model_spec.h), runs it in LiteRT with its *reference* kernels
(OpResolverType.BUILTIN_REF: the expected values) and in litegpu through its
C API (python/litegpu/capi.py) once per thread count, and compares every output.

    import numpy as np
    from op_harness import Input, Const, OpCase, check_case, check_rejected

    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 8, 8, 3), dtype=np.float32)
    w = rng.standard_normal((4, 3, 3, 3), dtype=np.float32)
    outs = check_case(OpCase(
        op="CONV_2D", version=1,
        inputs=[Input(x), Const(w), None],     # None: an omitted input
        params={"padding": "SAME", "stride_w": 2, "stride_h": 2,
                "fused_activation_function": "RELU6"},
        outputs=[np.float32]))
    check_rejected(OpCase(op="ADD", inputs=[Input(a), Input(b)]),
                   match=r"ADD: .*broadcast", litert_accepts=False)

Inputs: Input(array) is a graph input fed with `array`; Const(array) is a
constant tensor holding it; Variable(array) is a variable tensor
(is_variable, no data: it starts at zero, and the op keeps state in it);
None is an omitted optional input (-1). The same
Input/Const object listed twice is one tensor. The model's types are the
arrays' dtypes, so pass np.float32 arrays (np.float32(2.0), not 2.0).
Input/Const take quant=(scale, zero_point) or (scales, zero_points, axis).

Params are the schema's option field names (Conv2DOptions: padding,
stride_w, fused_activation_function, ...) with values as Python values:
bool, int, float, str for enum names ("SAME", "RELU6", "INT32"), a sequence
of ints for int vectors (of floats for float vectors), or a numpy dtype for
tensor-type fields.

Outputs: a list of dtypes, or Output(dtype, shape=None, quant=None) entries.
The declared output shapes default to OpCase.output_shapes[i], else the
first input's shape; both runtimes resize outputs in Prepare anyway.

Comparison (assert_close): same shape, same dtype, NaN in the same places,
equal infinities, and |got - want| <= atol + rtol * |want| elementwise for
float and complex outputs; exact equality for integer and bool outputs.

Failures raise AssertionError subclasses whose message names the case, the
output, the first failing index with got/want, the max abs error, and the
model spec. A failure of LiteRT itself is a failure (LiteRTFailure), never a
skip. With LITEGPU_KEEP_CASES set, a failed case's spec, data files, model
and inputs (inputs.npz) are kept, in that directory if it names one (else
in a new temporary directory), and the place is printed.

Where things come from: model_builder and liblitegpu.so from
LITEGPU_BUILD_DIR (default <repo>/build/release); LiteRT from
ai_edge_litert (or tflite_runtime).
"""

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from litegpu import capi as lg

try:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
except ImportError:  # setup.sh may install tflite-runtime instead
    from tflite_runtime.interpreter import Interpreter, OpResolverType

REPO = Path(__file__).resolve().parents[2]

__all__ = [
    "Input", "Const", "Int4Const", "Variable", "Output", "OpCase",
    "check_case",
    "check_steps", "check_rejected",
    "assert_close", "compare", "build_model", "run_litert", "run_litegpu",
    "HarnessError", "LiteRTFailure", "CaseMismatch", "LiteGpuFailure",
]


class HarnessError(AssertionError):
    """The case could not be built or run (bad case, spec error)."""


class LiteRTFailure(AssertionError):
    """LiteRT's reference kernels failed on the case."""


class LiteGpuFailure(AssertionError):
    """litegpu failed on a case it should run, or accepted one it should
    reject."""


class CaseMismatch(AssertionError):
    """An output of litegpu differs from LiteRT's."""


# numpy dtype -> schema TensorType name
_TYPE_NAMES = {
    np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16",
    np.dtype(np.float64): "FLOAT64", np.dtype(np.int8): "INT8",
    np.dtype(np.uint8): "UINT8", np.dtype(np.int16): "INT16",
    np.dtype(np.uint16): "UINT16", np.dtype(np.int32): "INT32",
    np.dtype(np.uint32): "UINT32", np.dtype(np.int64): "INT64",
    np.dtype(np.uint64): "UINT64", np.dtype(np.bool_): "BOOL",
    np.dtype(np.complex64): "COMPLEX64", np.dtype(np.complex128): "COMPLEX128",
}


def type_name(dtype):
    """The schema TensorType name of a numpy dtype (np.float32 -> FLOAT32)."""
    dt = np.dtype(dtype)
    if dt not in _TYPE_NAMES:
        raise HarnessError(f"no tensor type for numpy dtype {dt}")
    return _TYPE_NAMES[dt]


def _format_quant(quant):
    """(scale, zp) or (scales, zps, axis) -> the spec's quant= value."""
    if len(quant) == 2:
        scales, zps, axis = [quant[0]], [quant[1]], 0
    elif len(quant) == 3:
        scales, zps, axis = list(quant[0]), list(quant[1]), int(quant[2])
    else:
        raise HarnessError(f"quant must be (scale, zp) or (scales, zps, "
                           f"axis), got {quant!r}")
    if len(scales) != len(zps):
        raise HarnessError(f"quant: {len(scales)} scales, {len(zps)} zps")
    pairs = ",".join(f"{float(s)!r}:{int(z)}" for s, z in zip(scales, zps))
    return f"{pairs}@{axis}"


class _Tensor:
    def __init__(self, array, quant=None):
        self.array = np.asarray(array)
        self.quant = quant
        type_name(self.array.dtype)  # fail early on an unsupported dtype

    def __repr__(self):
        return (f"{type(self).__name__}({self.array.dtype}"
                f"{list(self.array.shape)})")


class Input(_Tensor):
    """A graph input fed with `array` (its dtype and shape declare it)."""


class Const(_Tensor):
    """A constant tensor holding `array`."""


class Int4Const(Const):
    """A constant INT4 tensor of `values` (integers in [-8, 7]), written as
    TFLite stores INT4: two values a byte, the low nibble first (an odd
    count leaves the last high nibble 0). `data` overrides the bytes (for
    malformed cases)."""

    def __init__(self, values, quant=None, data=None):
        values = np.asarray(values)
        if values.size and (values.min() < -8 or values.max() > 7):
            raise HarnessError("INT4 values must lie in [-8, 7]")
        super().__init__(values.astype(np.int8), quant)
        nibbles = (self.array.ravel().astype(np.uint8) & 0xF)
        if nibbles.size % 2:
            nibbles = np.append(nibbles, np.uint8(0))
        packed = (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)
        self.data = packed.tobytes() if data is None else bytes(data)


class Variable(_Tensor):
    """A variable tensor (is_variable) of `array`'s dtype and shape; it has
    no data and starts at zero (its values are not used)."""


@dataclasses.dataclass
class Output:
    """An output's declared dtype, optionally its shape and quantization."""
    dtype: object = np.float32
    shape: object = None
    quant: object = None


@dataclasses.dataclass
class OpCase:
    """One op case; see the module doc."""
    op: str
    version: int = 1
    inputs: list = dataclasses.field(default_factory=list)
    params: dict = dataclasses.field(default_factory=dict)
    outputs: list = dataclasses.field(default_factory=lambda: [np.float32])
    output_shapes: list = None
    custom: bool = False  # op is then a custom op name
    rtol: float = 1e-5
    atol: float = 1e-6
    name: str = None
    custom_options: bytes = b""  # custom ops only
    # LiteRT's kernels that give the expected values: its reference ones,
    # or "BUILTIN" (its optimized builtin kernels, no delegate) where the
    # reference kernel is broken for the signature (INT8 SUM reads its data
    # as UINT8 in LiteRT 2.3).
    litert_kernels: str = "BUILTIN_REF"

    def label(self):
        if self.name:
            return self.name
        shapes = ",".join("-" if t is None else
                          f"{t.array.dtype}{list(t.array.shape)}"
                          for t in self.inputs)
        params = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.op} v{self.version} ({shapes}) {params}".strip()


# ---- Spec -------------------------------------------------------------------


def _format_param(key, value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))  # round-trips; 'nan', 'inf' parse too
    if isinstance(value, str):
        if not value or re.search(r"\s", value):
            raise HarnessError(f"param {key}={value!r}: empty or has blanks")
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        # Float lists (BUCKETIZE's boundaries) keep their values.
        return ",".join(repr(float(v)) if isinstance(v, (float, np.floating))
                        else str(int(v)) for v in value)
    if isinstance(value, (type, np.dtype)):
        return type_name(value)
    raise HarnessError(f"param {key}: unsupported value {value!r}")


def _shape_word(shape):
    shape = tuple(int(d) for d in shape)
    return ",".join(map(str, shape)) if shape else "-"


def _tensor_line(name, dtype, shape, quant=None, extra=""):
    """dtype: a numpy dtype, or a schema type name (INT4 has no dtype)."""
    kind = dtype if isinstance(dtype, str) else type_name(dtype)
    line = f"tensor {name} {kind} {_shape_word(shape)}"
    if quant is not None:
        line += f" quant={_format_quant(quant)}"
    return line + (f" {extra}" if extra else "")


def _default_output_shape(case):
    for t in case.inputs:
        if t is not None:
            return t.array.shape
    return ()


def _output_specs(case):
    """(dtype, shape, quant) of each output."""
    specs = []
    for i, out in enumerate(case.outputs):
        if not isinstance(out, Output):
            out = Output(dtype=out)
        shape = out.shape
        if shape is None and case.output_shapes is not None:
            shape = case.output_shapes[i]
        if shape is None:
            shape = _default_output_shape(case)
        specs.append((out.dtype, shape, out.quant))
    return specs


def write_spec(case, case_dir):
    """Writes the spec and data files of `case` into case_dir; returns the
    spec text and the runtime input arrays in graph-input order."""
    lines, names, runtime_inputs, graph_inputs, op_inputs = [], {}, [], [], []
    for i, t in enumerate(case.inputs):
        if t is None:
            op_inputs.append("-")
            continue
        if not isinstance(t, _Tensor):
            raise HarnessError(f"input {i}: expected Input, Const or None, "
                               f"got {type(t).__name__}")
        if id(t) not in names:
            prefix = ("in" if isinstance(t, Input) else
                      "v" if isinstance(t, Variable) else "c")
            names[id(t)] = f"{prefix}{i}"
            name = names[id(t)]
            extra = ""
            if isinstance(t, Variable):
                extra = "variable"
            elif isinstance(t, Const):
                data = t.data if isinstance(t, Int4Const) else (
                    np.ascontiguousarray(
                        t.array, dtype=t.array.dtype.newbyteorder("<"))
                    .tobytes())
                (Path(case_dir) / f"{name}.bin").write_bytes(data)
                extra = f"data={name}.bin"
            else:
                graph_inputs.append(name)
                runtime_inputs.append(t.array)
            lines.append(_tensor_line(
                name, "INT4" if isinstance(t, Int4Const) else t.array.dtype,
                t.array.shape, t.quant, extra))
        op_inputs.append(names[id(t)])
    outs = []
    for j, (dtype, shape, quant) in enumerate(_output_specs(case)):
        outs.append(f"out{j}")
        lines.append(_tensor_line(f"out{j}", dtype, shape, quant))
    io = f"{case.version} in={','.join(op_inputs)} out={','.join(outs)}"
    if case.custom:
        op = f"custom {case.op} {io}"
        if case.custom_options:
            op += f" options=hex:{bytes(case.custom_options).hex()}"
        if case.params:
            raise HarnessError("custom ops take custom_options, not params")
    else:
        op = f"op {case.op} {io}"
        for key, value in case.params.items():
            op += f" {key}={_format_param(key, value)}"
    lines += [op, f"inputs {','.join(graph_inputs)}",
              f"outputs {','.join(outs)}"]
    spec = "\n".join(lines) + "\n"
    (Path(case_dir) / "case.spec").write_text(spec)
    return spec, runtime_inputs


# ---- Running ----------------------------------------------------------------


def build_dir():
    return Path(os.environ.get("LITEGPU_BUILD_DIR") or
                REPO / "build" / "release")


def model_builder_path():
    path = build_dir() / "model_builder"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise HarnessError(f"model_builder not found at {path}: build the "
                           "project and point LITEGPU_BUILD_DIR at the build "
                           "directory")
    return path


def build_model(spec_path, model_path):
    """Runs model_builder; raises HarnessError with its message on failure."""
    proc = subprocess.run([str(model_builder_path()), str(spec_path),
                           str(model_path)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise HarnessError(f"model_builder rejected the spec:\n"
                           f"{proc.stderr.strip()}")


def build_from_lines(directory, name, lines):
    """Writes the spec `lines` to directory/name.spec and builds
    directory/name.tflite from it; returns the model's path."""
    spec = directory / f"{name}.spec"
    spec.write_text("\n".join(lines) + "\n")
    model = directory / f"{name}.tflite"
    build_model(spec, model)
    return model


_LITERT_KERNELS = {
    "BUILTIN_REF": "BUILTIN_REF",
    "BUILTIN": "BUILTIN_WITHOUT_DEFAULT_DELEGATES",
}


def _litert_interpreter(model_path, kernels="BUILTIN_REF"):
    return Interpreter(
        model_path=str(model_path),
        experimental_op_resolver_type=getattr(OpResolverType,
                                              _LITERT_KERNELS[kernels]))


def run_litert(model_path, inputs, kernels="BUILTIN_REF"):
    """LiteRT's outputs with its reference kernels (or `kernels`)."""
    interp = _litert_interpreter(model_path, kernels)
    interp.allocate_tensors()
    for detail, array in zip(interp.get_input_details(), inputs):
        interp.set_tensor(detail["index"], array)
    interp.invoke()
    return [np.array(interp.get_tensor(d["index"]))
            for d in interp.get_output_details()]


def run_litegpu(model_path, inputs, num_threads=None):
    """litegpu's outputs (raises litegpu.capi.LiteGpuError)."""
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model_path)) as model, \
            lg.Interpreter(lib, model, num_threads=num_threads) as interp:
        interp.allocate_tensors()
        for i, array in enumerate(inputs):
            interp.set_input(i, array)
        interp.invoke()
        return [interp.get_output(i) for i in range(interp.output_count)]


def profiled_ops(model):
    """The op of every node benchmark_model's op profile lists (the nodes
    litegpu's execution plan runs)."""
    proc = subprocess.run(
        [str(build_dir() / "benchmark_model"), f"--graph={model}",
         "--num_runs=1", "--warmup_runs=0", "--min_secs=0",
         "--warmup_min_secs=0", "--enable_op_profiling=true"],
        capture_output=True, text=True, check=True)
    table = proc.stdout.split("Operator profile", 1)[1]
    table = table.split("Summary by operator type", 1)[0]
    return re.findall(r"^\s+\d+\s+([A-Z0-9_]+)\s+\d+\s", table, re.M)


# ---- Comparing --------------------------------------------------------------


def _index(flat, shape):
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape \
        else ()


def compare(got, want, rtol=1e-5, atol=1e-6):
    """None when `got` matches `want`, else a description of the first
    difference (see the module doc for the rule)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {list(got.shape)} != expected {list(want.shape)}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != expected {want.dtype}"
    if got.size == 0:
        return None
    g, w = got.ravel(), want.ravel()
    if got.dtype.kind not in "fc":
        bad = g != w
        if not bad.any():
            return None
        first = int(np.argmax(bad))
        return (f"{int(bad.sum())} of {g.size} elements differ; first at "
                f"index {_index(first, got.shape)}: got {g[first]!r}, want "
                f"{w[first]!r}")
    wide = np.complex128 if got.dtype.kind == "c" else np.float64
    g, w = g.astype(wide), w.astype(wide)
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    finite = np.isfinite(g) & np.isfinite(w)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(g - w)
        within = finite & (err <= atol + rtol * np.abs(w))
    ok = (nan_g & nan_w) | (~nan_g & ~nan_w & (g == w)) | within
    if ok.all():
        return None
    bad = ~ok
    first = int(np.argmax(bad))
    max_err = float(err[finite].max()) if finite.any() else float("nan")
    kind = "NaN mismatch" if nan_g[first] != nan_w[first] else "mismatch"
    return (f"{int(bad.sum())} of {g.size} elements differ; first ({kind}) "
            f"at index {_index(first, got.shape)}: got {got.ravel()[first]!r}"
            f", want {want.ravel()[first]!r} (|diff| {err[first]:.6g}, "
            f"allowed {atol + rtol * abs(w[first]):.6g}); max abs error "
            f"{max_err:.6g} over finite pairs (rtol {rtol}, atol {atol})")


def assert_close(got, want, rtol=1e-5, atol=1e-6, context="output"):
    """Raises CaseMismatch when compare() finds a difference."""
    problem = compare(got, want, rtol, atol)
    if problem is not None:
        raise CaseMismatch(f"{context}: {problem}")


# ---- Cases ------------------------------------------------------------------


class _CaseRun:
    """A case's directory and its failure reporting: a failure names the
    case and shows the spec; with LITEGPU_KEEP_CASES the files are kept."""

    def __init__(self, case):
        self.case = case
        self.label = case.label()
        keep = os.environ.get("LITEGPU_KEEP_CASES")
        parent = keep if keep and os.path.isdir(keep) else None
        self.dir = Path(tempfile.mkdtemp(prefix="litegpu_case_", dir=parent))
        self.spec = None
        self.inputs = []
        self.model = self.dir / "model.tflite"
        self.kept = False

    def __enter__(self):
        return self

    def build(self):
        """Writes the spec, data files and model; a failure is HarnessError.
        """
        try:
            self.spec, self.inputs = write_spec(self.case, self.dir)
            build_model(self.dir / "case.spec", self.model)
        except HarnessError as e:
            self.fail(HarnessError, str(e))

    def fail(self, kind, message):
        text = f"[{self.label}] {message}"
        if self.spec is not None:
            text += "\n--- model spec ---\n" + self.spec.rstrip()
        if os.environ.get("LITEGPU_KEEP_CASES"):
            np.savez(self.dir / "inputs.npz", *self.inputs)
            self.kept = True
            text += f"\n--- case files kept in {self.dir} ---"
            print(f"op_harness: case files kept in {self.dir}",
                  file=sys.stderr)
        raise kind(text)

    def __exit__(self, *exc):
        if not self.kept:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


def _expected(run):
    try:
        return run_litert(run.model, run.inputs, run.case.litert_kernels)
    except Exception as e:  # LiteRT raises RuntimeError/ValueError
        run.fail(LiteRTFailure, f"LiteRT's reference kernels failed: "
                 f"{type(e).__name__}: {e}")


def check_case(case, threads=(1, 2)):
    """Runs `case` in LiteRT (reference kernels) and in litegpu with each
    thread count; every output must match (see compare). Returns litegpu's
    outputs of the first thread count."""
    with _CaseRun(case) as run:
        run.build()
        expected = _expected(run)
        result = None
        for t in threads:
            try:
                got = run_litegpu(run.model, run.inputs, num_threads=t)
            except lg.LiteGpuError as e:
                run.fail(LiteGpuFailure, f"litegpu failed ({t} threads): {e}")
            if len(got) != len(expected):
                run.fail(CaseMismatch, f"{len(got)} outputs, LiteRT has "
                         f"{len(expected)}")
            for k, (g, w) in enumerate(zip(got, expected)):
                problem = compare(g, w, case.rtol, case.atol)
                if problem is not None:
                    run.fail(CaseMismatch,
                             f"output {k} ({t} threads): {problem}")
            if result is None:
                result = got
        return result


RESET = "reset"


def _run_steps_litert(model_path, steps, kernels):
    interp = _litert_interpreter(model_path, kernels)
    interp.allocate_tensors()
    results = []
    for step in steps:
        if isinstance(step, str) and step == RESET:
            interp.reset_all_variables()
            continue
        for detail, array in zip(interp.get_input_details(), step):
            interp.set_tensor(detail["index"], array)
        interp.invoke()
        results.append([np.array(interp.get_tensor(d["index"]))
                        for d in interp.get_output_details()])
    return results


def _run_steps_litegpu(model_path, steps, num_threads):
    lib = lg.load_library()
    results = []
    with lg.Model.from_file(lib, str(model_path)) as model, \
            lg.Interpreter(lib, model, num_threads=num_threads) as interp:
        interp.allocate_tensors()
        for step in steps:
            if isinstance(step, str) and step == RESET:
                interp.reset_variable_tensors()
                continue
            for i, array in enumerate(step):
                interp.set_input(i, array)
            interp.invoke()
            results.append([interp.get_output(i)
                            for i in range(interp.output_count)])
    return results


def check_steps(case, steps, threads=(1, 2)):
    """Runs `case` as one interpreter through several Invokes: `steps` lists,
    per Invoke, the arrays of the graph inputs (in the case's order), or
    RESET ("reset") to reset the variable tensors (LiteRT's
    reset_all_variables, litegpu's TfLiteInterpreterResetVariableTensors).
    The inputs of the case itself only declare the graph inputs. Every
    output of every Invoke must match LiteRT's (see compare). Returns
    litegpu's outputs per Invoke for the first thread count."""
    with _CaseRun(case) as run:
        run.build()
        try:
            expected = _run_steps_litert(run.model, steps, case.litert_kernels)
        except Exception as e:  # LiteRT raises RuntimeError/ValueError
            run.fail(LiteRTFailure, f"LiteRT's reference kernels failed: "
                     f"{type(e).__name__}: {e}")
        result = None
        for t in threads:
            try:
                got = _run_steps_litegpu(run.model, steps, t)
            except lg.LiteGpuError as e:
                run.fail(LiteGpuFailure, f"litegpu failed ({t} threads): {e}")
            for n, (g_outs, w_outs) in enumerate(zip(got, expected)):
                if len(g_outs) != len(w_outs):
                    run.fail(CaseMismatch, f"{len(g_outs)} outputs, LiteRT "
                             f"has {len(w_outs)}")
                for k, (g, w) in enumerate(zip(g_outs, w_outs)):
                    problem = compare(g, w, case.rtol, case.atol)
                    if problem is not None:
                        run.fail(CaseMismatch, f"invoke {n} output {k} ({t} "
                                 f"threads): {problem}")
            if result is None:
                result = got
        return result


def _litert_accepts(model_path):
    """(True, None) when LiteRT creates and allocates the model, else
    (False, its message)."""
    try:
        _litert_interpreter(model_path).allocate_tensors()
        return True, None
    except Exception as e:
        return False, f"{type(e).__name__}: {e}"


def check_rejected(case, match, litert_accepts=None):
    """Asserts that litegpu refuses `case` (interpreter creation or
    AllocateTensors fails) with a message matching the regex `match`;
    litert_accepts True/False also asserts that LiteRT's reference kernels
    accept/refuse it (None: LiteRT is not asked). Returns litegpu's message.
    """
    with _CaseRun(case) as run:
        run.build()
        lib = lg.load_library()
        message = None
        try:
            with lg.Model.from_file(lib, str(run.model)) as model, \
                    lg.Interpreter(lib, model) as interp:
                interp.allocate_tensors()
        except lg.LiteGpuError as e:
            message = str(e)
        if message is None:
            run.fail(LiteGpuFailure, f"litegpu accepted the case; expected a "
                     f"rejection matching {match!r}")
        if not re.search(match, message):
            run.fail(LiteGpuFailure, f"litegpu's rejection does not match "
                     f"{match!r}: {message}")
        if litert_accepts is not None:
            accepted, why = _litert_accepts(run.model)
            if accepted != litert_accepts:
                run.fail(LiteRTFailure, "LiteRT " + (
                    "accepted the case, expected a rejection" if accepted
                    else f"rejected the case: {why}"))
        return message
