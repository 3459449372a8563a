"""DENSIFY and sparse tensors (the schema's SparsityParameters) against
LiteRT, on models built here with LiteRT's own schema classes: CSR and
block-sparse layouts, every index-vector width, float32, float16 (into a
DEQUANTIZE, as MediaPipe's sparse models use it) and int8; and malformed
layouts, which the model reader rejects with the problem named. The
corpus's two sparse MediaPipe models run in test_corpus.py.
"""

import sys
import zlib
from pathlib import Path

import flatbuffers
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litegpu import capi as lg  # noqa: E402

from ai_edge_litert import schema_py_generated as schema  # noqa: E402
from ai_edge_litert.interpreter import (Interpreter,  # noqa: E402
                                        OpResolverType)

TYPES = {np.float32: schema.TensorType.FLOAT32,
         np.float16: schema.TensorType.FLOAT16,
         np.int8: schema.TensorType.INT8}
VECTORS = {4: (schema.SparseIndexVector.Int32Vector, schema.Int32VectorT),
           2: (schema.SparseIndexVector.Uint16Vector, schema.Uint16VectorT),
           1: (schema.SparseIndexVector.Uint8Vector, schema.Uint8VectorT)}


def sparse_encode(dense, traversal, block_map, block_sizes, formats):
    """The stored values and the per-level metadata of `dense` in the given
    layout (formats[k] for level k: "dense" or "csr"), written from the
    format's definition: levels in traversal order, CSR levels keeping only
    the subtrees that hold a non-zero."""
    rank = dense.ndim
    blocked = {d: (j, block_sizes[j]) for j, d in enumerate(block_map)}
    sizes = [dense.shape[d] // blocked[d][1] if d in blocked else
             dense.shape[d] for d in range(rank)] + list(block_sizes)

    def value_at(index):
        coords = []
        for d in range(rank):
            c = index[d]
            if d in blocked:
                j, b = blocked[d]
                c = c * b + index[rank + j]
            coords.append(c)
        return dense[tuple(coords)]

    def nonzero_below(index, k):
        if k == len(traversal):
            return value_at(index) != 0
        e = traversal[k]
        return any(nonzero_below({**index, e: i}, k + 1)
                   for i in range(sizes[e]))

    levels = [{"segments": [0], "indices": []} for _ in traversal]
    values = []

    def visit(index, k):
        if k == len(traversal):
            values.append(value_at(index))
            return
        e = traversal[k]
        level = levels[k]
        for i in range(sizes[e]):
            child = {**index, e: i}
            if formats[k] == "csr":
                if not nonzero_below(child, k + 1):
                    continue
                level["indices"].append(i)
            visit(child, k + 1)
        if formats[k] == "csr":
            level["segments"].append(len(level["indices"]))

    visit({}, 0)
    return np.array(values, dense.dtype), levels, sizes


def index_vector(values, width):
    kind, cls = VECTORS[width]
    vec = cls()
    vec.values = list(values)
    return kind, vec


def sparse_model(dense, traversal, block_map, block_sizes, formats,
                 width=4, dequantize=False, mutate=None):
    """A model of one DENSIFY (and a DEQUANTIZE after a float16 one) whose
    input is `dense` stored sparse; its output is the dense tensor."""
    values, levels, sizes = sparse_encode(dense, traversal, block_map,
                                          block_sizes, formats)
    sparsity = schema.SparsityParametersT()
    sparsity.traversalOrder = list(traversal)
    sparsity.blockMap = list(block_map)
    sparsity.dimMetadata = []
    for k, e in enumerate(traversal):
        meta = schema.DimensionMetadataT()
        if formats[k] == "dense":
            meta.format = schema.DimensionType.DENSE
            meta.denseSize = sizes[e]
        else:
            meta.format = schema.DimensionType.SPARSE_CSR
            meta.arraySegmentsType, meta.arraySegments = index_vector(
                levels[k]["segments"], width)
            meta.arrayIndicesType, meta.arrayIndices = index_vector(
                levels[k]["indices"], width)
        sparsity.dimMetadata.append(meta)
    if mutate is not None:
        values = mutate(sparsity, values)

    def tensor(name, dtype, buffer, sparse=None):
        t = schema.TensorT()
        t.name = name
        t.shape = list(dense.shape)
        t.type = TYPES[dtype]
        t.buffer = buffer
        t.sparsity = sparse
        return t

    buffers = [schema.BufferT(), schema.BufferT(), schema.BufferT(),
               schema.BufferT()]
    buffers[1].data = list(values.tobytes())
    tensors = [tensor("sparse", dense.dtype.type, 1, sparsity),
               tensor("dense", dense.dtype.type, 2)]
    codes = [schema.OperatorCodeT()]
    codes[0].builtinCode = schema.BuiltinOperator.DENSIFY
    codes[0].deprecatedBuiltinCode = schema.BuiltinOperator.DENSIFY
    codes[0].version = 1
    op = schema.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0], [1]
    ops = [op]
    outputs = [1]
    if dequantize:
        tensors.append(tensor("float", np.float32, 3))
        code = schema.OperatorCodeT()
        code.builtinCode = schema.BuiltinOperator.DEQUANTIZE
        code.deprecatedBuiltinCode = schema.BuiltinOperator.DEQUANTIZE
        code.version = 3
        codes.append(code)
        deq = schema.OperatorT()
        deq.opcodeIndex, deq.inputs, deq.outputs = 1, [1], [2]
        ops.append(deq)
        outputs = [2]
    graph = schema.SubGraphT()
    graph.tensors, graph.inputs, graph.outputs, graph.operators = (
        tensors, [], outputs, ops)
    model = schema.ModelT()
    model.version, model.operatorCodes, model.subgraphs, model.buffers = (
        3, codes, [graph], buffers)
    builder = flatbuffers.Builder(0)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def run_litegpu(data):
    lib = lg.load_library()
    with lg.Model.from_bytes(lib, data) as model, \
            lg.Interpreter(lib, model) as interp:
        interp.allocate_tensors()
        interp.invoke()
        return interp.output(0).to_numpy().copy()


def run_litert(data):
    # The builtin kernels: LiteRT 2.3's XNNPACK delegate fails to set up on
    # a constant-only graph (block_2x_4d).
    interp = Interpreter(
        model_content=data,
        experimental_op_resolver_type=(
            OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    interp.allocate_tensors()
    interp.invoke()
    return interp.get_tensor(interp.get_output_details()[0]["index"])


def sparse_dense(shape, dtype, seed, density=0.3, block=None):
    """A seeded tensor with zeros (whole zero blocks when `block` gives the
    blocked dim and size)."""
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        x = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        x = rng.uniform(-2, 2, shape).astype(dtype)
    keep = rng.uniform(size=shape) < density
    if block is not None:
        d, b = block
        cut = [slice(None)] * len(shape)
        for s in range(0, shape[d], b):
            cut[d] = slice(s, s + b)
            if rng.uniform() < 0.5:
                keep[tuple(cut)] = False
            else:
                keep[tuple(cut)] = True
    x[~keep] = 0
    return x


LAYOUTS = {
    # name: (shape, traversal, block_map, block sizes, formats, block)
    "csr_2d": ((6, 9), [0, 1], [], [], ["dense", "csr"], None),
    "csr_transposed": ((5, 7), [1, 0], [], [], ["dense", "csr"], None),
    "csr_both": ((4, 5, 6), [0, 1, 2], [], [], ["csr", "csr", "csr"], None),
    "block_4": ((4, 16), [0, 1, 2], [1], [4], ["dense", "csr", "dense"],
                (1, 4)),
    "block_2x_4d": ((2, 3, 3, 8), [0, 1, 2, 3, 4], [3], [2],
                    ["dense", "dense", "dense", "csr", "dense"], (3, 2)),
}


@pytest.mark.parametrize("width", [4, 2, 1])
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_densify_matches_litert(name, width):
    shape, traversal, block_map, sizes, formats, block = LAYOUTS[name]
    # A stable seed: str hashes change from run to run (PYTHONHASHSEED), and
    # some seeds left block_2x_4d without a non-zero block.
    seed = zlib.crc32(name.encode()) % 1000
    dense = sparse_dense(shape, np.float32, seed, block=block)
    assert np.count_nonzero(dense) > 0
    data = sparse_model(dense, traversal, block_map, sizes, formats, width)
    got = run_litegpu(data)
    np.testing.assert_array_equal(got, run_litert(data))
    np.testing.assert_array_equal(got, dense)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_densify_all_zero(name):
    """A tensor without a non-zero block stores no values (an empty
    buffer): LiteRT densifies it to zeros, and so must litegpu."""
    shape, traversal, block_map, sizes, formats, _ = LAYOUTS[name]
    dense = np.zeros(shape, np.float32)
    data = sparse_model(dense, traversal, block_map, sizes, formats, 4)
    got = run_litegpu(data)
    np.testing.assert_array_equal(got, run_litert(data))
    assert got.shape == dense.shape and not np.any(got)


@pytest.mark.parametrize("dtype", [np.int8, np.float16])
def test_densify_types(dtype):
    shape, traversal, block_map, sizes, formats, block = LAYOUTS["block_4"]
    dense = sparse_dense(shape, dtype, 11, block=block)
    data = sparse_model(dense, traversal, block_map, sizes, formats,
                        dequantize=dtype == np.float16)
    got = run_litegpu(data)
    np.testing.assert_array_equal(got, run_litert(data))
    want = dense.astype(np.float32) if dtype == np.float16 else dense
    np.testing.assert_array_equal(got, want)


def shift_segment(sparsity, values):
    seg = sparsity.dimMetadata[1].arraySegments.values
    seg[1], seg[2] = seg[2], seg[1] - 1
    return values


def big_index(sparsity, values):
    sparsity.dimMetadata[1].arrayIndices.values[0] = 99
    return values


def extra_value(sparsity, values):
    return np.append(values, values[:1])


def bad_traversal(sparsity, values):
    sparsity.traversalOrder = [0, 0]
    return values


def bad_dense_size(sparsity, values):
    sparsity.dimMetadata[0].denseSize += 1
    return values


MALFORMED = {
    "decreasing segments": (shift_segment, "segments decrease"),
    "index outside its dim": (big_index, "outside its dim"),
    "one value too many": (extra_value, "the buffer holds"),
    "traversal not a permutation": (bad_traversal, "not a permutation"),
    "dense size off": (bad_dense_size, "dense_size"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_sparsity_is_rejected_at_load(case):
    mutate, message = MALFORMED[case]
    dense = np.zeros((4, 6), np.float32)
    dense[0, 1] = dense[2, 3] = dense[2, 5] = dense[3, 0] = 1.5
    data = sparse_model(dense, [0, 1], [], [], ["dense", "csr"],
                        mutate=mutate)
    lib = lg.load_library()
    with pytest.raises(lg.LiteGpuError) as error:
        lg.Model.from_bytes(lib, data).close()
    assert "sparsity" in str(error.value) or message in str(error.value)
    assert message in str(error.value), str(error.value)
