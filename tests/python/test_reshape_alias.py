"""No-op RESHAPE / SQUEEZE elision (runtime/execute.c, alias_reshapes): an
output between two plain arena tensors shares its input's memory, and the
planner keeps the pair's memory free for the union of their lifetimes.

The graphs read the reshaped tensor again after an op whose output the
planner could have put over it (n = r * k + r): without the merged
lifetime m would overwrite r and n would come out as 2 * m. Expected values
come from LiteRT's reference kernels (or numpy for small exact floats after
a resize); data pointers (TfLiteTensorData) show where the elision happens
and where it must not (graph inputs and outputs).
"""

import numpy as np
import pytest

import op_harness as oh
from litegpu import capi as lg

LIB = lg.load_library()
X = (np.arange(12, dtype=np.float32).reshape(2, 6) - 5) / 4


# x -> a = x + 1.5 -> r = reshape(a) -> m = r * 3 -> n = m + r
# [-> b = a + 1.5]
def aliased_graph(tmp_path, read_a_later, new_shape="3,4"):
    lines = ["tensor x FLOAT32 2,6 sig=-1,6", "tensor c FLOAT32 - values=1.5",
             "tensor k FLOAT32 - values=3", "tensor a FLOAT32 2,6",
             "tensor r FLOAT32 3,4", "tensor m FLOAT32 3,4",
             "tensor n FLOAT32 3,4", "op ADD 1 in=x,c out=a",
             f"op RESHAPE 1 in=a out=r new_shape={new_shape}",
             "op MUL 1 in=r,k out=m", "op ADD 1 in=m,r out=n"]
    outputs = ["n"]
    if read_a_later:
        lines += ["tensor b FLOAT32 2,6", "op ADD 1 in=a,c out=b"]
        outputs.append("b")
    lines += ["inputs x", f"outputs {','.join(outputs)}"]
    return oh.build_from_lines(tmp_path, f"alias{int(read_a_later)}", lines)


def data_pointer(interp, index):
    return LIB.TfLiteTensorData(interp.tensor(index).handle)


def run(model, inputs, threads, resize=None):
    """Outputs and the interpreter's data pointer of every tensor."""
    with lg.Model.from_file(LIB, str(model)) as m, \
            lg.Interpreter(LIB, m, num_threads=threads) as interp:
        if resize is not None:
            interp.resize_input(0, resize)
        interp.allocate_tensors()
        for i, array in enumerate(inputs):
            interp.set_input(i, array)
        interp.invoke()
        outputs = [interp.get_output(i) for i in range(interp.output_count)]
        pointers = []
        while True:
            try:
                pointers.append(data_pointer(interp, len(pointers)))
            except lg.LiteGpuError:
                return outputs, pointers


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("read_a_later", [False, True])
def test_reshape_output_aliases_input(tmp_path, threads, read_a_later):
    model = aliased_graph(tmp_path, read_a_later)
    got, ptr = run(model, [X], threads)
    want = oh.run_litert(model, [X])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    # Tensors in spec order: x c k a r m n [b].
    assert ptr[4] == ptr[3], "RESHAPE output not aliased to its input"
    assert ptr[5] not in (ptr[3], ptr[0])


def test_aliased_reshape_after_resize(tmp_path):
    model = aliased_graph(tmp_path, True, new_shape="-1,4")
    x = np.arange(24, dtype=np.float32).reshape(4, 6) / 8
    for threads in (1, 2):
        (n, b), ptr = run(model, [x], threads, resize=[4, 6])
        r = (x + 1.5).reshape(6, 4)
        np.testing.assert_array_equal(n, r * 3 + r)
        np.testing.assert_array_equal(b, x + 3)
        assert ptr[4] == ptr[3]


def test_chain_of_reshapes_shares_one_buffer(tmp_path):
    lines = ["tensor x FLOAT32 2,6", "tensor c FLOAT32 - values=1.5",
             "tensor k FLOAT32 - values=3", "tensor a FLOAT32 2,6",
             "tensor r1 FLOAT32 1,12", "tensor r2 FLOAT32 12",
             "tensor m FLOAT32 12", "tensor n FLOAT32 12",
             "op ADD 1 in=x,c out=a",
             "op RESHAPE 1 in=a out=r1 new_shape=1,12",
             "op SQUEEZE 1 in=r1 out=r2", "op MUL 1 in=r2,k out=m",
             "op ADD 1 in=m,r2 out=n", "inputs x", "outputs n"]
    model = oh.build_from_lines(tmp_path, "chain", lines)
    want = oh.run_litert(model, [X])
    for threads in (1, 2):
        (n,), ptr = run(model, [X], threads)
        np.testing.assert_array_equal(n, want[0])
        assert ptr[3] == ptr[4] == ptr[5], ptr
        assert ptr[6] != ptr[3]


def test_graph_input_and_output_are_not_aliased(tmp_path):
    # x -> r = reshape(x) -> m = r * 3 -> out = reshape(m) (a graph output)
    lines = ["tensor x FLOAT32 2,6", "tensor k FLOAT32 - values=3",
             "tensor r FLOAT32 3,4", "tensor m FLOAT32 3,4",
             "tensor out FLOAT32 12", "op RESHAPE 1 in=x out=r new_shape=3,4",
             "op MUL 1 in=r,k out=m", "op RESHAPE 1 in=m out=out new_shape=12",
             "inputs x", "outputs out"]
    model = oh.build_from_lines(tmp_path, "io", lines)
    want = oh.run_litert(model, [X])
    for threads in (1, 2):
        (out,), ptr = run(model, [X], threads)
        np.testing.assert_array_equal(out, want[0])
        np.testing.assert_array_equal(out, X.reshape(12) * 3)
        assert ptr[2] != ptr[0], "a graph input was aliased"
        assert ptr[4] != ptr[3], "a graph output was aliased"
