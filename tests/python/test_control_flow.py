"""Whole graphs against LiteRT: the converter-made models of
tests/models/control_flow (WHILE with IF inside, a loop whose state grows,
a Keras 3 LSTM lowered to WHILE, a streaming model with a resource
variable initialized by CALL_ONCE, a module with two signatures), run in
litegpu (litegpu.capi) and in LiteRT (ai-edge-litert, its default and
reference kernels) on seeded inputs."""

from pathlib import Path

import numpy as np
import pytest

from litegpu import capi as lg

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "models" / "control_flow"

RESOLVERS = {"default": None}
if hasattr(litert, "OpResolverType"):
    RESOLVERS["builtin_ref"] = litert.OpResolverType.BUILTIN_REF


@pytest.fixture(scope="module")
def lib():
    return lg.load_library()


def litert_interpreter(name, resolver):
    kwargs = {"model_path": str(MODELS / f"{name}.tflite")}
    if RESOLVERS[resolver] is not None:
        kwargs["experimental_op_resolver_type"] = RESOLVERS[resolver]
    return litert.Interpreter(**kwargs)


def run_litert(name, inputs, resolver):
    """Runs subgraph 0 on `inputs` (in input order); the outputs in order."""
    interp = litert_interpreter(name, resolver)
    details = interp.get_input_details()
    for d, value in zip(details, inputs):
        if list(d["shape"]) != list(value.shape):
            interp.resize_tensor_input(d["index"], list(value.shape))
    interp.allocate_tensors()
    for d, value in zip(interp.get_input_details(), inputs):
        interp.set_tensor(d["index"], value)
    interp.invoke()
    return [interp.get_tensor(d["index"]).copy()
            for d in interp.get_output_details()]


def run_litegpu(lib, name, inputs, num_threads):
    with lg.Model.from_file(lib, MODELS / f"{name}.tflite") as model, \
            lg.Interpreter(lib, model, num_threads=num_threads) as interp:
        for i, value in enumerate(inputs):
            if list(interp.input(i).shape) != list(value.shape):
                interp.resize_input(i, value.shape)
        interp.allocate_tensors()
        for i, value in enumerate(inputs):
            interp.set_input(i, value)
        interp.invoke()
        return [interp.get_output(i) for i in range(interp.output_count)]


def assert_close(got, want, label, rtol=1e-5):
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{label}: {got.dtype} != {want.dtype}"
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= rtol * scale, f"{label}: max error {err} (scale {scale})"


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("steps", [0, 1, 2, 5, 12])
def test_while_cond(lib, resolver, threads, steps):
    rng = np.random.default_rng(100 + steps)
    x = rng.uniform(-3, 3, (1, 4)).astype(np.float32)
    inputs = [x, np.array(steps, np.int32)]
    want = run_litert("while_cond", inputs, resolver)
    got = run_litegpu(lib, "while_cond", inputs, threads)
    # Only exact float operations (x*0.5+1, x*2-1) on small integers plus
    # halves: the results match bit for bit.
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("steps", [0, 1, 3, 6])
def test_while_state_grows(lib, resolver, steps):
    x = np.array([[0.5], [-1.25]], np.float32)
    inputs = [x, np.array(steps, np.int32)]
    want = run_litert("while_grow", inputs, resolver)
    got = run_litegpu(lib, "while_grow", inputs, 1)
    assert want[0].shape == (2, 1 + steps)  # the loop grew the state
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_keras_lstm(lib, resolver, threads, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, 6, 3)).astype(np.float32)
    want = run_litert("lstm_keras", [x], resolver)
    got = run_litegpu(lib, "lstm_keras", [x], threads)
    assert len(got) == len(want) == 1
    assert_close(got[0], want[0], f"lstm seed {seed}")


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
def test_streaming_state(lib, resolver):
    """Six frames through one interpreter: each output depends on the last
    three frames, kept in the resource variable between Invokes."""
    rng = np.random.default_rng(7)
    frames = [rng.standard_normal((1, 1, 4)).astype(np.float32)
              for _ in range(6)]
    ref = litert_interpreter("stream_state", resolver)
    ref.allocate_tensors()
    path = MODELS / "stream_state.tflite"
    with lg.Model.from_file(lib, path) as model, \
            lg.Interpreter(lib, model, num_threads=1) as interp, \
            lg.Interpreter(lib, model, num_threads=1) as fresh:
        interp.allocate_tensors()
        outputs = []
        for k, frame in enumerate(frames):
            ref.set_tensor(ref.get_input_details()[0]["index"], frame)
            ref.invoke()
            want = ref.get_tensor(ref.get_output_details()[0]["index"])
            interp.set_input(0, frame)
            interp.invoke()
            got = interp.get_output(0)
            assert_close(got, want, f"frame {k}")
            outputs.append(got)
        # The state is the interpreter's own: a second one starts empty.
        fresh.allocate_tensors()
        fresh.set_input(0, frames[0])
        fresh.invoke()
        np.testing.assert_array_equal(fresh.get_output(0), outputs[0])
    assert not np.array_equal(outputs[0], outputs[3])


def test_signatures(lib):
    ref = litert_interpreter("two_signatures", "default")
    ref_list = ref.get_signature_list()
    rng = np.random.default_rng(11)
    with lg.Model.from_file(lib, MODELS / "two_signatures.tflite") as model, \
            lg.Interpreter(lib, model, num_threads=1) as interp:
        assert sorted(interp.signature_keys) == sorted(ref_list)
        for key, names in ref_list.items():
            runner = interp.signature_runner(key)
            assert sorted(runner.input_names) == sorted(names["inputs"])
            assert sorted(runner.output_names) == sorted(names["outputs"])
        # encode's batch dimension is unknown (-1): resized to 3.
        x = rng.standard_normal((3, 4)).astype(np.float32)
        got = interp.signature_runner("encode")(x=x)
        want = ref.get_signature_runner("encode")(x=x)
        assert set(got) == set(want)
        for name in want:
            assert_close(got[name], want[name], f"encode {name}")
        a = rng.standard_normal((1, 4)).astype(np.float32)
        b = rng.standard_normal((1, 4)).astype(np.float32)
        got = interp.signature_runner("combine")(a=a, b=b)
        want = ref.get_signature_runner("combine")(a=a, b=b)
        assert set(got) == set(want)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])


def test_signature_rejects_fixed_dimension(lib):
    with lg.Model.from_file(lib, MODELS / "two_signatures.tflite") as model, \
            lg.Interpreter(lib, model, num_threads=1) as interp:
        runner = interp.signature_runner("combine")
        with pytest.raises(lg.LiteGpuError) as raised:
            runner.resize_input("a", (2, 4))
        assert "only allows mutating unknown dimensions" in str(raised.value)
        with pytest.raises(lg.LiteGpuError) as raised:
            interp.signature_runner("decode")
        assert "no signature 'decode'" in str(raised.value)


# ---- The GPU delegate inside callee subgraphs --------------------------------

@pytest.mark.parametrize("backend", ["cl", "vk"])
@pytest.mark.parametrize("name,inputs", [
    ("lstm_keras",
     [np.random.default_rng(5).standard_normal((1, 6, 3)).astype(np.float32)]),
    ("while_cond", [np.array([[1.5, -2.0, 3.0, -4.0]], np.float32),
                    np.array(5, np.int32)]),
])
def test_gpu_delegate_in_loop_bodies(lib, backend, name, inputs):
    """The delegate is applied to every subgraph: it claims nodes of the
    loop body (the main graph holds little besides the WHILE node), and the
    outputs match LiteRT's CPU kernels."""
    want = run_litert(name, inputs, "default")
    path = MODELS / f"{name}.tflite"
    with lg.GpuDelegate(lib, backend) as delegate, \
            lg.Model.from_file(lib, path) as model, \
            lg.Interpreter(lib, model, num_threads=1,
                           delegates=[delegate.pointer]) as interp:
        stats = delegate.stats()
        interp.allocate_tensors()
        for i, value in enumerate(inputs):
            interp.set_input(i, value)
        interp.invoke()
        got = [interp.get_output(i) for i in range(interp.output_count)]
    # The last subgraph the delegate was applied to is a callee (the loop
    # body, or the IF branch's subgraph): it holds delegated nodes.
    assert stats.nodes_delegated > 0
    for g, w in zip(got, want):
        assert_close(g, w, f"{name} on {backend}", rtol=1e-5)


def test_gpu_delegate_refuses_dynamic_loop_state(lib):
    """A loop whose state changes shape leaves dynamic tensors: a delegate
    for static shapes is refused with TFLite's message."""
    with lg.GpuDelegate(lib, "cl") as delegate, \
            lg.Model.from_file(lib, MODELS / "while_grow.tflite") as model:
        with pytest.raises(lg.LiteGpuError) as raised:
            lg.Interpreter(lib, model, num_threads=1,
                           delegates=[delegate.pointer])
        assert "only supports static-sized tensors" in str(raised.value)


# ---- STRING tensors and hash tables ------------------------------------------

@pytest.mark.parametrize("words", [
    [b"cat", b"fish", b"cow", b"", b"bird", b"cat"], [b"dog"], []],
    ids=["mixed", "one", "none"])
def test_string_lookup(lib, words):
    """A StaticHashTable from words to ids: the table is made and filled in
    a CALL_ONCE subgraph, looked up (missing words give the default, -1)
    and sized; STRING inputs are written with litegpu_tensor_write_strings
    and compared with LiteRT's outputs."""
    array = np.array(words, dtype=object)
    ref = litert_interpreter("string_lookup", "default")
    want = ref.get_signature_runner()(words=np.array(words, dtype=bytes)
                                      if words else
                                      np.array([], dtype=bytes))
    path = MODELS / "string_lookup.tflite"
    with lg.Model.from_file(lib, path) as model, \
            lg.Interpreter(lib, model, num_threads=1) as interp:
        got = interp.signature_runner("serving_default")(words=array)
        for _ in range(2):  # a second Invoke: the import is not repeated
            got = interp.signature_runner("serving_default")(words=array)
    assert set(got) == set(want)
    np.testing.assert_array_equal(got["ids"], want["ids"])
    np.testing.assert_array_equal(got["n"], want["n"])
    assert list(got["ids"]) == [{b"cat": 3, b"dog": 1, b"bird": 4,
                                 b"fish": 1}.get(w, -1) for w in words]


def test_string_input_through_interpreter(lib):
    path = MODELS / "string_lookup.tflite"
    with lg.Model.from_file(lib, path) as model, \
            lg.Interpreter(lib, model, num_threads=1) as interp:
        interp.allocate_tensors()
        interp.set_input(0, np.array([b"bird", b"ant"], dtype=object))
        assert interp.input(0).strings().tolist() == [b"bird", b"ant"]
        interp.invoke()
        outputs = [interp.get_output(i) for i in range(interp.output_count)]
    assert sorted(o.tolist() if o.size > 1 else [int(o.reshape(-1)[0])]
                  for o in outputs) == sorted([[4, -1], [4]])
