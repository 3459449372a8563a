"""Models converted by TensorFlow's converter (tests/models/*.tflite, made by
tools/convert/make_models.py) give the same outputs in litegpu as in LiteRT.

Each model runs in LiteRT with its default kernels and with its reference
kernels (BUILTIN_REF), and in litegpu (litegpu.capi, library from
LITEGPU_BUILD_DIR, default build/release) with 1 and 2 threads, on seeded
inputs (3 trials). Inputs with a dimension known only at run time are
resized first (to 3, 5 or 7, by trial and position). The expected values
always come from LiteRT.

The bound, per output tensor o (derived, not fitted):

    |litegpu - LiteRT| <= 2 * u * A(o) * S(o)       (u = 2^-24)

* S(o) is the output's scale, the largest finite |LiteRT value| in it.
* A(o) is the error budget of the ops o depends on (its ancestors in the
  graph), in units of u relative to the scale: an op that sums L products
  or terms (CONV_2D: kh*kw*cin, DEPTHWISE_CONV_2D: kh*kw, TRANSPOSE_CONV:
  kh*kw*cin, FULLY_CONNECTED and BATCH_MATMUL: the inner length, MEAN/SUM/
  REDUCE_PROD: the reduced count, pools: the window, SOFTMAX and
  LOG_SOFTMAX: the class count) contributes L plus one for its bias or
  activation, since a float32 sum of L terms computed in any order is
  within L*u of the exact sum, relative to the magnitude of its terms
  (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2);
  a transcendental function (EXP, LOG, SIN, COS, TANH, LOGISTIC, ELU, GELU,
  POW, SQRT, RSQRT, and the exponentials inside SOFTMAX) contributes 16,
  for LiteRT's optimized kernels evaluate them with polynomial or rational
  approximations that are a few ulp off where libm is within one;
  RESIZE_BILINEAR contributes 6*max(h, w) + 4 for an h x w input (its
  interpolation weight comes from a source coordinate as large as the
  input, see op_cost); an elementwise op contributes the roundings it makes
  (HARD_SWISH 3, SQUARED_DIFFERENCE 2, any other op 1: layout ops round
  nothing but are counted too, which only widens the bound by a few u).
  A dimension known only at run time counts as 7, the largest resize.
  Summing over all ancestors bounds the sum along any path, and errors
  inherited from an op's inputs are carried at most with gain one relative
  to the scale in these networks (normalized activations, no catastrophic
  cancellation).
* The factor 2: litegpu and LiteRT may each be A(o)*u away from the exact
  result, in opposite directions.

all_ops_extra holds the ops LiteRT's reference kernels lack (CEIL, ELU,
ROUND): it is compared with LiteRT's default kernels only.

The same bound must hold between LiteRT's own two kernel sets
(test_bound_holds_between_litert_kernels): it is a check of the bound
itself, not of litegpu.

Outputs of integer or boolean type, and every output that depends on an op
with a discrete result (ARG_MAX/MIN, comparisons, FLOOR, CEIL, ROUND, SIGN,
CAST, SHAPE), must match exactly: make_models.py feeds those ops only
with values that correctly rounded elementwise ops computed from the
inputs, which every correct runtime reproduces bit for bit. NaN must be
where LiteRT has NaN, and an infinity where LiteRT has the same infinity.
For classifier outputs (a SOFTMAX over [1, N]) the top class must also be
the same whenever LiteRT's top two differ by more than twice the bound
(when they differ by less, the order is decided by rounding, not by
correctness).

Finally each file's op list (op, version, node count) must equal the table
recorded for it in tests/models/README.md, so that a regenerated file that
lost or changed an op is caught.
"""

import re
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402

try:
    from ai_edge_litert import interpreter as litert
    from ai_edge_litert import schema_py_generated as schema
except ImportError:  # the fallback package setup.sh may install instead
    litert = pytest.importorskip("tflite_runtime.interpreter")
    schema = pytest.importorskip("tensorflow.lite.python.schema_py_generated")

MODELS_DIR = lg.REPO_ROOT / "tests" / "models"
README = MODELS_DIR / "README.md"
MODEL_PATHS = sorted(MODELS_DIR.glob("*.tflite"))
MODEL_IDS = [p.stem for p in MODEL_PATHS]

UNIT_ROUNDOFF = 2.0 ** -24
TRIALS = 3
RESIZE_CHOICES = (3, 5, 7)
TRANSCENDENTAL_ULPS = 16

OP_NAMES = {value: name for name, value in vars(schema.BuiltinOperator).items()
            if not name.startswith("_")}

# Models that LiteRT's reference resolver cannot load, and the ops it lacks
# (make_models.py keeps those ops in all_ops_extra for this reason). Any
# other load failure is an error.
BUILTIN_REF_LACKS = {"all_ops_extra": "CEIL, ELU, ROUND"}

TRANSCENDENTAL = {"EXP", "LOG", "SIN", "COS", "TANH", "LOGISTIC", "ELU",
                  "GELU", "POW", "SQRT", "RSQRT"}
# Elementwise ops that round more than once: HARD_SWISH x*relu6(x+3)/6
# (add, multiply, divide), SQUARED_DIFFERENCE (subtract, square).
ROUNDINGS = {"HARD_SWISH": 3, "SQUARED_DIFFERENCE": 2}
# Ops whose result is discrete: outputs computed by them compare exactly.
DISCRETE = {"ARG_MAX", "ARG_MIN", "LESS", "GREATER", "EQUAL", "NOT_EQUAL",
            "LESS_EQUAL", "GREATER_EQUAL", "FLOOR", "CEIL", "ROUND", "SIGN",
            "CAST", "SHAPE"}


# ---- Reading a model file ---------------------------------------------------

class ModelFile:
    """The parts of a .tflite file the bound and the op list need."""

    def __init__(self, path):
        self.path = path
        self.data = path.read_bytes()
        self.model = schema.Model.GetRootAs(self.data, 0)
        self.graph = self.model.Subgraphs(0)
        self.producer = {}
        for i in range(self.graph.OperatorsLength()):
            op = self.graph.Operators(i)
            for t in op.OutputsAsNumpy():
                self.producer[int(t)] = i
        self.keys = {}
        for s in range(self.model.SignatureDefsLength()):
            sig = self.model.SignatureDefs(s)
            for i in range(sig.OutputsLength()):
                self.keys[sig.Outputs(i).TensorIndex()] = \
                    sig.Outputs(i).Name().decode()

    def op_name(self, op):
        code = self.model.OperatorCodes(op.OpcodeIndex())
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        return OP_NAMES.get(builtin, f"BUILTIN_{builtin}"), code.Version()

    def op_counts(self):
        """{(op name, version): node count} over every subgraph."""
        counts = {}
        for s in range(self.model.SubgraphsLength()):
            graph = self.model.Subgraphs(s)
            for i in range(graph.OperatorsLength()):
                key = self.op_name(graph.Operators(i))
                counts[key] = counts.get(key, 0) + 1
        return counts

    def shape(self, index):
        """A tensor's shape; a dimension known only at run time counts as
        the largest size the inputs are resized to (an upper bound)."""
        tensor = self.graph.Tensors(index)
        if tensor.ShapeSignatureLength():
            dims = tensor.ShapeSignatureAsNumpy()
        elif tensor.ShapeLength():
            dims = tensor.ShapeAsNumpy()
        else:
            return []
        return [int(d) if d >= 0 else max(RESIZE_CHOICES) for d in dims]

    def ancestors(self, tensor_index):
        """Indices of the ops the tensor depends on."""
        seen, stack = set(), [tensor_index]
        while stack:
            op_index = self.producer.get(stack.pop())
            if op_index is None or op_index in seen:
                continue
            seen.add(op_index)
            stack.extend(int(t) for t in
                         self.graph.Operators(op_index).InputsAsNumpy()
                         if t >= 0)
        return seen

    def op_cost(self, op_index):
        """The op's error budget in units of u (see the module doc)."""
        op = self.graph.Operators(op_index)
        name, _ = self.op_name(op)
        inputs = [int(t) for t in op.InputsAsNumpy()]
        out_shape = self.shape(int(op.OutputsAsNumpy()[0]))
        if name == "CONV_2D":
            _, kh, kw, cin = self.shape(inputs[1])
            return kh * kw * cin + 2
        if name == "DEPTHWISE_CONV_2D":
            _, kh, kw, _ = self.shape(inputs[1])
            return kh * kw + 2
        if name == "TRANSPOSE_CONV":
            _, kh, kw, cin = self.shape(inputs[1])
            return kh * kw * cin + 2
        if name == "FULLY_CONNECTED":
            return self.shape(inputs[1])[-1] + 2
        if name == "BATCH_MATMUL":
            return max(self.shape(inputs[0])[-2:]) + 1
        if name in ("MEAN", "SUM", "REDUCE_PROD"):
            count = np.prod(self.shape(inputs[0])) // max(
                1, np.prod(out_shape))
            return int(count) + 1
        if name in ("AVERAGE_POOL_2D", "L2_POOL_2D"):
            return self.pool_window(op) + 2
        if name in ("SOFTMAX", "LOG_SOFTMAX"):
            return self.shape(inputs[0])[-1] + 2 * TRANSCENDENTAL_ULPS
        if name in TRANSCENDENTAL:
            return TRANSCENDENTAL_ULPS
        if name == "RESIZE_BILINEAR":
            # The fraction w of a source coordinate c <= max(h, w) of the
            # input comes from ~3 roundings of values up to c, so it is off
            # by up to 3*c*u; the result a + w*(b - a) moves by that times
            # |b - a| <= 2S; plus 4 roundings of the interpolation.
            _, h, w, _ = self.shape(inputs[0])
            return 6 * max(h, w) + 4
        return ROUNDINGS.get(name, 1)

    def pool_window(self, op):
        table = op.BuiltinOptions()
        options = schema.Pool2DOptions()
        options.Init(table.Bytes, table.Pos)
        return options.FilterWidth() * options.FilterHeight()

    def output_info(self):
        """[(tensor name, signature key, budget A, discrete?, classifier?)]
        for each model output, in the graph's output order."""
        rows = []
        for i in range(self.graph.OutputsLength()):
            index = self.graph.Outputs(i)
            ops = self.ancestors(index)
            budget = sum(self.op_cost(j) for j in ops)
            names = {self.op_name(self.graph.Operators(j))[0] for j in ops}
            last = self.op_name(self.graph.Operators(
                self.producer[index]))[0] if index in self.producer else None
            shape = self.shape(index)
            classifier = (last == "SOFTMAX" and len(shape) == 2
                          and shape[0] == 1 and shape[1] >= 2
                          and "CONV_2D" in names)
            rows.append((self.graph.Tensors(index).Name().decode(),
                         self.keys.get(index, f"output {i}"), budget,
                         bool(names & DISCRETE), classifier))
        return rows


_FILES = {}


def model_file(path):
    if path not in _FILES:
        _FILES[path] = ModelFile(path)
    return _FILES[path]


# ---- The README's op tables -------------------------------------------------

def readme_op_tables():
    """{file name: {(op, version): count}} from the README's tables."""
    text = README.read_text()
    tables = {}
    for match in re.finditer(r"<!-- ops (\S+) -->\n(.*?)<!-- end ops -->",
                             text, re.S):
        rows = {}
        for line in match.group(2).splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[1].isdigit():
                rows[(cells[0], int(cells[1]))] = int(cells[2])
        tables[match.group(1)] = rows
    return tables


# ---- Inputs -----------------------------------------------------------------

def resized_shape(signature, trial):
    return [d if d >= 0 else RESIZE_CHOICES[(trial + i) % len(RESIZE_CHOICES)]
            for i, d in enumerate(signature)]


def make_inputs(name, details, trial):
    """{tensor name: array} of seeded inputs for one trial: images in
    [-1, 1] for mobilenet_v2 (its preprocessing range), N(0, 1) features
    for kws_cnn, N(0, 3^2) for the all_ops* graphs (wide enough to reach
    every branch: RELU6 saturation, HARD_SWISH's three pieces, negative
    arguments of LOG/SQRT/RSQRT, which give NaN), with a few exact zeros in
    `x` in the last trial (LOG(0) = -inf, SQRT(0) = 0). None in `y`, which
    RSQRT reads: LiteRT's two kernel sets disagree on RSQRT(0) (NaN in the
    default kernels, inf in the reference ones) and on RSQRT(-0)."""
    rng = np.random.default_rng([zlib.crc32(name.encode()), trial])
    arrays = {}
    for d in details:
        shape = resized_shape(list(d["shape_signature"]), trial)
        if name == "mobilenet_v2":
            a = rng.uniform(-1.0, 1.0, shape)
        elif name == "kws_cnn":
            a = rng.standard_normal(shape)
        else:
            a = 3.0 * rng.standard_normal(shape)
            if trial == TRIALS - 1 and d["name"].endswith("_x:0"):
                flat = a.reshape(-1)
                flat[rng.choice(flat.size, 4, replace=False)] = 0.0
        arrays[d["name"]] = a.astype(d["dtype"])
    return arrays


# ---- Running ----------------------------------------------------------------

def litert_resolvers():
    resolvers = [("default", None)]
    op_resolver_type = getattr(litert, "OpResolverType", None)
    if op_resolver_type is not None:
        resolvers.append(("builtin_ref", op_resolver_type.BUILTIN_REF))
    return resolvers


RESOLVERS = dict(litert_resolvers())


def run_litert(path, inputs, resolver):
    """{output tensor name: array}."""
    kwargs = {"model_path": str(path)}
    if RESOLVERS[resolver] is not None:
        kwargs["experimental_op_resolver_type"] = RESOLVERS[resolver]
    interp = litert.Interpreter(**kwargs)
    for d in interp.get_input_details():
        value = inputs[d["name"]]
        if list(d["shape"]) != list(value.shape):
            interp.resize_tensor_input(d["index"], list(value.shape))
    interp.allocate_tensors()
    for d in interp.get_input_details():
        interp.set_tensor(d["index"], inputs[d["name"]])
    interp.invoke()
    return {d["name"]: interp.get_tensor(d["index"]).copy()
            for d in interp.get_output_details()}


def run_litegpu(lib, path, inputs, num_threads):
    with lg.Model.from_file(lib, path) as model, \
            lg.Interpreter(lib, model, num_threads=num_threads) as interp:
        for i in range(interp.input_count):
            tensor = interp.input(i)
            value = inputs[tensor.name]
            if tensor.shape != value.shape:
                interp.resize_input(i, list(value.shape))
        interp.allocate_tensors()
        for i in range(interp.input_count):
            interp.input(i).copy_from(inputs[interp.input(i).name])
        interp.invoke()
        return {interp.output(i).name: interp.get_output(i)
                for i in range(interp.output_count)}


_LITEGPU = {}


def litegpu_outputs(lib, path, trial, inputs, num_threads):
    """run_litegpu, once per (model, trial, threads): the two LiteRT kernel
    sets are compared with the same litegpu outputs."""
    key = (path, trial, num_threads)
    if key not in _LITEGPU:
        _LITEGPU[key] = run_litegpu(lib, path, inputs, num_threads)
    return _LITEGPU[key]


def input_details(path):
    return litert.Interpreter(model_path=str(path)).get_input_details()


def usable(path, resolver):
    return not (resolver == "builtin_ref" and path.stem in BUILTIN_REF_LACKS)


_TRIALS = {}


def trials(path):
    """[(inputs, {resolver: outputs})] for the model, computed once."""
    if path not in _TRIALS:
        details = input_details(path)
        runs = []
        resolvers = [r for r in RESOLVERS if usable(path, r)]
        for trial in range(TRIALS):
            inputs = make_inputs(path.stem, details, trial)
            runs.append((inputs, {r: run_litert(path, inputs, r)
                                  for r in resolvers}))
        _TRIALS[path] = runs
    return _TRIALS[path]


# ---- Comparing --------------------------------------------------------------

def scale_of(want):
    finite = np.abs(want[np.isfinite(want)])
    return float(finite.max()) if finite.size else 0.0


def first_index(mask):
    return tuple(int(i) for i in np.argwhere(mask)[0])


def compare_output(got, want, budget, discrete, label, names):
    """Returns None, or a message saying where and by how much `got` is off
    from `want`; `names` names the two (e.g. ("litegpu", "LiteRT"))."""
    a, b = names
    if got.shape != want.shape or got.dtype != want.dtype:
        return (f"{label}: {a} {got.dtype}{list(got.shape)}, {b} "
                f"{want.dtype}{list(want.shape)}")
    if discrete or not np.issubdtype(want.dtype, np.floating):
        bad = ~((got == want) | (np.isnan(got) & np.isnan(want))
                if np.issubdtype(want.dtype, np.floating) else got == want)
        if bad.any():
            i = first_index(bad)
            return (f"{label}: {int(bad.sum())} of {want.size} values differ "
                    f"(exact output); first at {i}: {a} {got[i]!r}, "
                    f"{b} {want[i]!r}")
        return None
    nan_bad = np.isnan(got) != np.isnan(want)
    inf_bad = (np.isinf(want) | np.isinf(got)) & (got != want) & ~nan_bad
    if nan_bad.any() or inf_bad.any():
        i = first_index(nan_bad | inf_bad)
        return (f"{label}: NaN/Inf differ at {int((nan_bad | inf_bad).sum())}"
                f" places; first at {i}: {a} {got[i]!r}, {b} {want[i]!r}")
    tol = 2.0 * UNIT_ROUNDOFF * budget * scale_of(want)
    finite = np.isfinite(want)
    err = np.abs(np.where(finite, got, 0.0).astype(np.float64)
                 - np.where(finite, want, 0.0))
    if (err > tol).any():
        i = first_index(err == err.max())
        return (f"{label}: max |error| {err.max():.3g} > bound {tol:.3g} "
                f"(2u x budget {budget} x scale {scale_of(want):.3g}), "
                f"{int((err > tol).sum())} of {want.size} values over; worst "
                f"at {i}: {a} {got[i]!r}, {b} {want[i]!r}")
    return None


def compare_top_class(got, want, budget, label, names):
    tol = 2.0 * UNIT_ROUNDOFF * budget * scale_of(want)
    flat = want.reshape(-1)
    top2 = np.sort(flat)[-2:]
    if top2[1] - top2[0] <= 2.0 * tol:
        return None  # the order is decided by rounding
    if int(np.argmax(got)) != int(np.argmax(want)):
        return (f"{label}: top class {int(np.argmax(got))} in {names[0]}, "
                f"{int(np.argmax(want))} in {names[1]} (gap "
                f"{top2[1] - top2[0]:.3g} > 2 x bound {tol:.3g})")
    return None


def compare_all(path, outputs, references, label, names):
    problems = []
    for name, key, budget, discrete, classifier in \
            model_file(path).output_info():
        where = f"{label} output {key!r}"
        if name not in outputs:
            problems.append(f"{where}: missing")
            continue
        message = compare_output(outputs[name], references[name], budget,
                                 discrete, where, names)
        if message is None and classifier:
            message = compare_top_class(outputs[name], references[name],
                                        budget, where, names)
        if message:
            problems.append(message)
    return problems


# ---- Tests ------------------------------------------------------------------

@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


def test_comparison_catches_errors_over_the_bound():
    """The comparison itself can fail: an error just over the bound, a NaN
    out of place, a wrong exact value and a wrong shape are all reported,
    an error under the bound is not."""
    want = np.linspace(-2.0, 2.0, 50, dtype=np.float32).reshape(5, 10)
    budget = 100
    tol = 2.0 * UNIT_ROUNDOFF * budget * 2.0
    names = ("got", "want")

    def check(got, discrete=False):
        return compare_output(got, want, budget, discrete, "case", names)

    under = want.copy()
    under[3, 4] += np.float32(0.5 * tol)
    assert check(under) is None
    over = want.copy()
    over[3, 4] += np.float32(1.5 * tol)
    assert "worst at (3, 4)" in check(over)
    assert check(under, discrete=True) is not None
    nan = want.copy()
    nan[1, 2] = np.nan
    assert "first at (1, 2)" in check(nan)
    assert check(want[:4]) is not None
    assert check(want.astype(np.int32), discrete=True) is not None


def test_models_exist():
    names = {p.name for p in MODEL_PATHS}
    for wanted in ("mobilenet_v2.tflite", "kws_cnn.tflite",
                   "mobilenet_v3_small.tflite", "tiny_transformer.tflite",
                   "small_unet.tflite", "all_ops.tflite",
                   "all_ops_fp16w.tflite", "all_ops_extra.tflite",
                   "all_ops_jax.tflite", "all_ops_dynamic.tflite"):
        assert wanted in names, f"tests/models/{wanted} is missing"


def test_readme_has_a_table_for_every_model():
    tables = readme_op_tables()
    assert set(tables) == {p.name for p in MODEL_PATHS}, (
        "tests/models/README.md and the .tflite files disagree: rerun "
        "tools/convert/make_models.py")


@pytest.mark.parametrize("path", MODEL_PATHS, ids=MODEL_IDS)
def test_op_list_matches_readme(path):
    recorded = readme_op_tables().get(path.name)
    assert recorded is not None, f"no op table for {path.name} in README"
    actual = model_file(path).op_counts()
    lost = {k: v for k, v in recorded.items() if actual.get(k) != v}
    new = {k: v for k, v in actual.items() if recorded.get(k) != v}
    assert not lost and not new, (
        f"{path.name}: README records {sorted(lost.items())}, the file has "
        f"{sorted(new.items())}")


# Only the combinations LiteRT itself can run are generated (its reference
# kernels lack a few ops, see BUILTIN_REF_LACKS): nothing is skipped.
BOUND_PATHS = [p for p in MODEL_PATHS if usable(p, "builtin_ref")]
MATCH_CASES = [(p, r) for p in MODEL_PATHS for r in RESOLVERS if usable(p, r)]


@pytest.mark.parametrize("path", BOUND_PATHS, ids=[p.stem for p in BOUND_PATHS])
def test_bound_holds_between_litert_kernels(path):
    assert len(RESOLVERS) >= 2, "this LiteRT has no BUILTIN_REF resolver"
    problems = []
    for trial, (_, refs) in enumerate(trials(path)):
        problems += compare_all(path, refs["default"], refs["builtin_ref"],
                                f"{path.stem} trial {trial}",
                                ("LiteRT default", "LiteRT reference"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("path,resolver", MATCH_CASES,
                         ids=[f"{p.stem}-{r}" for p, r in MATCH_CASES])
def test_matches_litert(lib, path, resolver, num_threads):
    problems = []
    for trial, (inputs, refs) in enumerate(trials(path)):
        try:
            outputs = litegpu_outputs(lib, path, trial, inputs, num_threads)
        except lg.LiteGpuError as error:
            failure = error
        else:
            failure = None
        if failure is not None:
            # Each distinct message the library reported, one a line.
            lines = dict.fromkeys(m.strip() for m in failure.messages)
            pytest.fail(f"litegpu cannot run {path.name}:\n  "
                        + "\n  ".join(lines or [str(failure)]),
                        pytrace=False)
        problems += compare_all(
            path, outputs, refs[resolver],
            f"{path.stem} trial {trial} ({num_threads} threads)",
            ("litegpu", f"LiteRT {resolver}"))
    assert not problems, "\n".join(problems[:20]) + (
        f"\n... and {len(problems) - 20} more" if len(problems) > 20 else "")
