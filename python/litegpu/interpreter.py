"""litegpu.Interpreter: the interface of ai_edge_litert.interpreter.Interpreter
over litegpu's C API (capi.py).

A program written for LiteRT's Python interpreter runs unchanged once its
import names litegpu:

    from litegpu import Interpreter           # was: ai_edge_litert.interpreter
    interp = Interpreter(model_path="model.tflite", num_threads=2)
    interp.allocate_tensors()
    inp = interp.get_input_details()[0]
    interp.set_tensor(inp["index"], x)
    interp.invoke()
    y = interp.get_tensor(interp.get_output_details()[0]["index"])

Tensor indices are the model's (subgraph 0), as in LiteRT; details carry the
same keys (name, index, shape, shape_signature, dtype, quantization,
quantization_parameters, sparsity_parameters). Errors are ValueError (bad
arguments, as LiteRT raises them) and RuntimeError (a failing call, with the
library's messages).
"""

import ctypes

import numpy as np

from . import capi

class _QuantizationParams(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_float), ("zero_point", ctypes.c_int32)]


class _Quantization(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("params", ctypes.c_void_p)]


class _AffineQuantization(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_void_p), ("zero_point", ctypes.c_void_p),
                ("quantized_dimension", ctypes.c_int32)]


def _bind_details_api(dll):
    """Types of the functions the details need. The opaque API's tensor
    functions take a TfLiteTensor* as their TfLiteOpaqueTensor*."""
    p, i32 = ctypes.c_void_p, ctypes.c_int32
    signatures = {
        "TfLiteTensorQuantizationParams": (_QuantizationParams, [p]),
        "TfLiteOpaqueTensorGetQuantization": (_Quantization, [p]),
        "TfLiteOpaqueTensorGetNumDimsSignature":
            (ctypes.c_int, [p, ctypes.POINTER(i32)]),
        "TfLiteOpaqueTensorGetDimSignature":
            (ctypes.c_int, [p, i32, ctypes.POINTER(i32)]),
        "TfLiteInterpreterResizeInputTensorStrict":
            (ctypes.c_int, [p, i32, ctypes.POINTER(ctypes.c_int), i32]),
    }
    for name, (restype, argtypes) in signatures.items():
        getattr(dll, name).restype = restype
        getattr(dll, name).argtypes = argtypes


def _int_array(address):
    """A TfLiteIntArray (int size; int data[]) as a list."""
    if not address:
        return []
    size = ctypes.c_int.from_address(address).value
    return list((ctypes.c_int * size).from_address(address + 4))


def _float_array(address):
    if not address:
        return []
    size = ctypes.c_int.from_address(address).value
    return list((ctypes.c_float * size).from_address(address + 4))


def _numpy_type(tensor):
    if tensor.type == capi.kTfLiteString:
        return np.bytes_
    return capi._NUMPY_TYPES.get(tensor.type)


class _Details:
    """Builds LiteRT's tensor detail dicts from capi tensors."""

    def __init__(self, lib):
        self.dll = lib._dll
        _bind_details_api(self.dll)

    def shape_signature(self, tensor, shape):
        n = ctypes.c_int32(0)
        if self.dll.TfLiteOpaqueTensorGetNumDimsSignature(
                tensor.handle, ctypes.byref(n)) != capi.kTfLiteOk \
                or n.value < 0:
            return shape
        dims = []
        for i in range(n.value):
            d = ctypes.c_int32(0)
            self.dll.TfLiteOpaqueTensorGetDimSignature(tensor.handle, i,
                                                       ctypes.byref(d))
            dims.append(d.value)
        return dims

    def quantization_parameters(self, tensor):
        q = self.dll.TfLiteOpaqueTensorGetQuantization(tensor.handle)
        scales, zero_points, axis = [], [], 0
        if q.type == 1 and q.params:  # kTfLiteAffineQuantization
            affine = _AffineQuantization.from_address(q.params)
            scales = _float_array(affine.scale)
            zero_points = _int_array(affine.zero_point)
            axis = affine.quantized_dimension
        return {"scales": np.array(scales, np.float32),
                "zero_points": np.array(zero_points, np.int32),
                "quantized_dimension": int(axis)}

    def of(self, tensor, index):
        shape = list(tensor.shape or ())
        params = self.dll.TfLiteTensorQuantizationParams(tensor.handle)
        return {
            "name": tensor.name or "",
            "index": int(index),
            "shape": np.array(shape, np.int32),
            "shape_signature": np.array(self.shape_signature(tensor, shape),
                                        np.int32),
            "dtype": _numpy_type(tensor),
            "quantization": (float(params.scale), int(params.zero_point)),
            "quantization_parameters": self.quantization_parameters(tensor),
            "sparsity_parameters": {},
        }


def _as_runtime_error(error):
    return RuntimeError(str(error))


class Interpreter:
    """ai_edge_litert.interpreter.Interpreter's interface on litegpu.

    model_path or model_content (bytes) gives the model; num_threads as in
    LiteRT (None: the library's default); experimental_delegates takes what
    litegpu.load_gpu_delegate returns (or any object with a TfLiteDelegate
    pointer in `.pointer` / `._delegate_ptr`). The remaining LiteRT keywords
    are accepted: experimental_op_resolver_type and
    experimental_preserve_all_tensors raise ValueError for values litegpu
    does not offer rather than being ignored."""

    def __init__(self, model_path=None, model_content=None,
                 experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=None,
                 experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False,
                 experimental_default_delegate_latest_features=False,
                 library=None):
        if (model_path is None) == (model_content is None):
            raise ValueError("Can't both provide `model_path` and "
                             "`model_content`" if model_path is not None
                             else "`model_path` or `model_content` must be "
                             "specified.")
        if num_threads is not None:
            if not isinstance(num_threads, int):
                raise ValueError("type of num_threads should be int")
            if num_threads < 1 and num_threads != -1:
                raise ValueError("num_threads should >= 1 or just -1 to let "
                                 "TfLite runtime set the value.")
        if experimental_preserve_all_tensors:
            raise ValueError("experimental_preserve_all_tensors: litegpu "
                             "reuses intermediate memory and cannot keep "
                             "every tensor")
        if experimental_op_resolver_type not in (None,) and \
                getattr(experimental_op_resolver_type, "name",
                        str(experimental_op_resolver_type)) not in (
                    "AUTO", "BUILTIN", "BUILTIN_WITHOUT_DEFAULT_DELEGATES"):
            raise ValueError(f"experimental_op_resolver_type "
                             f"{experimental_op_resolver_type}: litegpu has "
                             "one set of kernels (AUTO / BUILTIN)")
        del experimental_disable_delegate_clustering
        del experimental_default_delegate_latest_features
        self._lib = capi.load_library(library)
        self._delegates = list(experimental_delegates or ())
        try:
            if model_path is not None:
                self._model = capi.Model.from_file(self._lib, model_path)
            else:
                self._model = capi.Model.from_bytes(self._lib,
                                                    bytes(model_content))
            pointers = [_delegate_pointer(d) for d in self._delegates]
            self._interp = capi.Interpreter(
                self._lib, self._model,
                num_threads=None if num_threads in (None, -1)
                else num_threads,
                delegates=pointers, mediapipe_ops=True)
        except capi.LiteGpuError as e:
            raise ValueError(str(e)) from None
        self._details = _Details(self._lib)
        self._input_indices = self._indices(
            self._lib._dll.TfLiteInterpreterInputTensorIndices,
            self._interp.input_count)
        self._output_indices = self._indices(
            self._lib._dll.TfLiteInterpreterOutputTensorIndices,
            self._interp.output_count)

    def _indices(self, fn, count):
        fn.restype = ctypes.POINTER(ctypes.c_int)
        fn.argtypes = [ctypes.c_void_p]
        data = fn(self._interp.handle)
        return [int(data[i]) for i in range(count)] if data else []

    def close(self):
        """Deletes the interpreter before the delegates it uses (also when
        the object is collected)."""
        interp = getattr(self, "_interp", None)
        if interp is not None:
            interp.close()
            self._interp = None
        self._delegates = []

    def __del__(self):
        self.close()

    # ---- Running ----

    def allocate_tensors(self):
        try:
            self._interp.allocate_tensors()
        except capi.LiteGpuError as e:
            raise _as_runtime_error(e) from None

    def invoke(self):
        try:
            self._interp.invoke()
        except capi.LiteGpuError as e:
            raise _as_runtime_error(e) from None

    def reset_all_variables(self):
        self._interp.reset_variable_tensors()

    # ---- Tensors ----

    def _tensor(self, tensor_index):
        if not isinstance(tensor_index, (int, np.integer)) or \
                tensor_index < 0:
            raise ValueError(f"Invalid tensor index {tensor_index}")
        handle = self._lib.TfLiteInterpreterGetTensor(self._interp.handle,
                                                      int(tensor_index))
        self._interp.errors.take()
        if not handle:
            raise ValueError(f"Tensor with no shape found: {tensor_index} is "
                             "not a tensor of this model")
        return capi.Tensor(self._lib, handle)

    def _tensor_count(self):
        count = 0
        while self._lib.TfLiteInterpreterGetTensor(self._interp.handle,
                                                   count):
            count += 1
        self._interp.errors.take()  # the probe past the end reports
        return count

    def get_input_details(self):
        return [self._details.of(self._tensor(i), i)
                for i in self._input_indices]

    def get_output_details(self):
        return [self._details.of(self._tensor(i), i)
                for i in self._output_indices]

    def get_tensor_details(self):
        return [self._details.of(self._tensor(i), i)
                for i in range(self._tensor_count())]

    def set_tensor(self, tensor_index, value):
        tensor = self._tensor(tensor_index)
        position = self._input_position(tensor_index)
        if tensor.type == capi.kTfLiteString:
            self._interp.write_strings(tensor, np.asarray(value,
                                                          dtype=object))
            return
        value = np.asarray(value)
        expected = np.dtype(_numpy_type(tensor))
        if value.dtype != expected:
            raise ValueError(
                f"Cannot set tensor: Got value of type "
                f"{_type_name(value.dtype)} but expected type "
                f"{tensor.type_name} for input {position}, name: "
                f"{tensor.name} ")
        shape = list(tensor.shape or ())
        if value.ndim != len(shape):
            raise ValueError(
                f"Cannot set tensor: Dimension mismatch. Got {value.ndim} "
                f"but expected {len(shape)} for input {position}.")
        for axis, (got, want) in enumerate(zip(value.shape, shape)):
            if got != want:
                raise ValueError(
                    f"Cannot set tensor: Dimension mismatch. Got {got} but "
                    f"expected {want} for dimension {axis} of input "
                    f"{position}.")
        try:
            tensor.copy_from(value)
        except capi.LiteGpuError as e:
            raise ValueError(f"Cannot set tensor: {e}") from None

    def _input_position(self, tensor_index):
        try:
            return self._input_indices.index(int(tensor_index))
        except ValueError:
            return tensor_index

    def get_tensor(self, tensor_index, subgraph_index=0):
        if subgraph_index != 0:
            raise ValueError("litegpu.Interpreter reads subgraph 0's tensors;"
                             " run other subgraphs through signatures")
        tensor = self._tensor(tensor_index)
        if tensor.shape is None or not self._lib.TfLiteTensorData(
                tensor.handle):
            raise ValueError(f"Tensor data is null. Run allocate_tensors() "
                             f"first (tensor {tensor_index})")
        return tensor.to_numpy()

    def tensor(self, tensor_index):
        """A function returning a numpy view of the tensor's memory (no
        copy), valid until the next allocate_tensors or resize, as in
        LiteRT."""
        tensor = self._tensor(tensor_index)
        return tensor.view

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        """input_index is the tensor index from get_input_details()."""
        position = self._input_indices.index(int(input_index)) \
            if int(input_index) in self._input_indices else None
        if position is None:
            raise ValueError(f"Tensor {input_index} is not an input of the "
                             "model")
        shape = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        dims = (ctypes.c_int * max(len(shape), 1))(*shape)
        fn = self._lib._dll.TfLiteInterpreterResizeInputTensorStrict \
            if strict else self._lib.TfLiteInterpreterResizeInputTensor
        status = fn(self._interp.handle, position, dims, len(shape))
        if status != capi.kTfLiteOk:
            messages = "; ".join(self._interp.errors.take())
            raise ValueError(f"resize_tensor_input({input_index}, {shape}) "
                             f"failed: {messages}")

    # ---- Signatures ----

    def get_signature_list(self):
        out = {}
        for key in self._interp.signature_keys:
            runner = self._interp.signature_runner(key)
            out[key] = {"inputs": runner.input_names,
                        "outputs": runner.output_names}
        return out

    def get_signature_runner(self, signature_key=None):
        keys = self._interp.signature_keys
        if signature_key is None:
            if len(keys) != 1:
                raise ValueError("SignatureDef signature_key is None and "
                                 f"model has {len(keys)} Signatures. None is"
                                 " only allowed when the model has 1 "
                                 "SignatureDef")
            signature_key = keys[0]
        if signature_key not in keys:
            raise ValueError(f"Invalid signature_key provided: "
                             f"{signature_key!r}; the model has {keys}")
        return SignatureRunner(self, self._interp.signature_runner(
            signature_key))


class SignatureRunner:
    """LiteRT's SignatureRunner: call it with the signature's inputs as
    keyword arguments; it returns {output name: array}."""

    def __init__(self, interpreter, runner):
        self._interpreter = interpreter
        self._runner = runner

    def __call__(self, **kwargs):
        names = self._runner.input_names
        missing = [n for n in names if n not in kwargs]
        extra = [n for n in kwargs if n not in names]
        if missing or extra:
            raise ValueError(f"Invalid number of inputs provided for running"
                             f" a SignatureDef, expected {len(names)} vs "
                             f"provided {len(kwargs)}"
                             + (f" (missing {missing})" if missing else "")
                             + (f" (unknown {extra})" if extra else ""))
        try:
            return self._runner(**kwargs)
        except capi.LiteGpuError as e:
            raise _as_runtime_error(e) from None

    def get_input_details(self):
        details = self._interpreter._details
        return {n: details.of(self._runner.input(n), -1)
                for n in self._runner.input_names}

    def get_output_details(self):
        details = self._interpreter._details
        return {n: details.of(self._runner.output(n), -1)
                for n in self._runner.output_names}


def _type_name(dtype):
    names = {np.dtype(v): capi._TYPE_NAMES[k]
             for k, v in capi._NUMPY_TYPES.items()}
    return names.get(np.dtype(dtype), str(dtype).upper())


def _delegate_pointer(delegate):
    for attr in ("pointer", "_delegate_ptr"):
        value = getattr(delegate, attr, None)
        if value:
            return value
    raise ValueError(f"experimental_delegates: {delegate!r} holds no "
                     "TfLiteDelegate pointer (use litegpu.load_gpu_delegate)")
