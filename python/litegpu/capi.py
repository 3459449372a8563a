"""litegpu.capi: a ctypes layer over litegpu's TFLite-compatible C API.

litegpu.Interpreter (interpreter.py) is built on it, and the project's
tests drive the shared library (liblitegpu.so) through it: the same C
functions a C program would call, so what they check is the public API, not
internals.

Where the library comes from, first match wins:
  * LITEGPU_LIBRARY: the path of the library file itself;
  * LITEGPU_BUILD_DIR: a build directory holding liblitegpu.so;
  * the copy installed beside this module (`pip install .`);
  * <repo>/build/release/liblitegpu.so, when running from a clone.

Use:
    lib = load_library()
    with Model.from_file(lib, path) as model, \
            Interpreter(lib, model, num_threads=2) as interp:
        interp.resize_input(0, [8, 1])
        interp.allocate_tensors()
        interp.set_input(0, np.zeros((8, 1), np.float32))
        interp.invoke()
        y = interp.get_output(0)          # a copy

Every failing call raises LiteGpuError, whose message holds the function,
its status and every message the library reported since the last call.
Messages are captured through TfLiteInterpreterOptionsSetErrorReporter /
TfLiteModelCreate*WithErrorReporter: the callback receives a va_list, which
is handed unchanged to libc's vsnprintf (a va_list parameter arrives as a
pointer on x86-64 and AArch64 Linux alike).

Objects are closed by `close()`, by leaving a `with` block, or when
collected; an interpreter keeps its model alive.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BUILD_DIR = REPO_ROOT / "build" / "release"
LIBRARY_NAME = "liblitegpu.so"
BUNDLED_LIBRARY = Path(__file__).resolve().parent / LIBRARY_NAME

# TfLiteStatus
kTfLiteOk = 0
kTfLiteString = 5

# TfLiteType -> numpy dtype (the types tests exchange as arrays).
_NUMPY_TYPES = {
    1: np.float32,
    2: np.int32,
    3: np.uint8,
    4: np.int64,
    6: np.bool_,
    7: np.int16,
    8: np.complex64,
    9: np.int8,
    10: np.float16,
    11: np.float64,
    12: np.complex128,
    13: np.uint64,
    16: np.uint32,
    17: np.uint16,
}
_TYPE_NAMES = {
    0: "NOTYPE", 1: "FLOAT32", 2: "INT32", 3: "UINT8", 4: "INT64",
    5: "STRING", 6: "BOOL", 7: "INT16", 8: "COMPLEX64", 9: "INT8",
    10: "FLOAT16", 11: "FLOAT64", 12: "COMPLEX128", 13: "UINT64",
    14: "RESOURCE", 15: "VARIANT", 16: "UINT32", 17: "UINT16", 18: "INT4",
    19: "BFLOAT16",
}

# void (*)(void* user_data, const char* format, va_list args)
ErrorReporter = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)


class LiteGpuError(RuntimeError):
    """A C API call failed; `status` is its TfLiteStatus (None for NULL)."""

    def __init__(self, message, status=None, messages=()):
        super().__init__(message)
        self.status = status
        self.messages = list(messages)


def library_path():
    """The library file the environment points at (see the module doc)."""
    explicit = os.environ.get("LITEGPU_LIBRARY")
    if explicit:
        return Path(explicit)
    build_dir = os.environ.get("LITEGPU_BUILD_DIR")
    if build_dir:
        return Path(build_dir) / LIBRARY_NAME
    if BUNDLED_LIBRARY.is_file():
        return BUNDLED_LIBRARY
    return DEFAULT_BUILD_DIR / LIBRARY_NAME


_P = ctypes.c_void_p
_SIGNATURES = {
    # name: (restype, argtypes)
    "TfLiteVersion": (ctypes.c_char_p, []),
    "TfLiteSchemaVersion": (ctypes.c_int, []),
    "TfLiteModelCreate": (_P, [_P, ctypes.c_size_t]),
    "TfLiteModelCreateWithErrorReporter":
        (_P, [_P, ctypes.c_size_t, ErrorReporter, _P]),
    "TfLiteModelCreateFromFile": (_P, [ctypes.c_char_p]),
    "TfLiteModelCreateFromFileWithErrorReporter":
        (_P, [ctypes.c_char_p, ErrorReporter, _P]),
    "TfLiteModelDelete": (None, [_P]),
    "TfLiteInterpreterOptionsCreate": (_P, []),
    "TfLiteInterpreterOptionsDelete": (None, [_P]),
    "TfLiteInterpreterOptionsSetNumThreads": (None, [_P, ctypes.c_int32]),
    "TfLiteInterpreterOptionsSetErrorReporter":
        (None, [_P, ErrorReporter, _P]),
    "TfLiteInterpreterCreate": (_P, [_P, _P]),
    "TfLiteInterpreterDelete": (None, [_P]),
    "TfLiteInterpreterGetInputTensorCount": (ctypes.c_int32, [_P]),
    "TfLiteInterpreterGetOutputTensorCount": (ctypes.c_int32, [_P]),
    "TfLiteInterpreterGetInputTensor": (_P, [_P, ctypes.c_int32]),
    "TfLiteInterpreterGetOutputTensor": (_P, [_P, ctypes.c_int32]),
    "TfLiteInterpreterGetTensor": (_P, [_P, ctypes.c_int]),
    "TfLiteInterpreterResizeInputTensor":
        (ctypes.c_int, [_P, ctypes.c_int32, ctypes.POINTER(ctypes.c_int),
                        ctypes.c_int32]),
    "TfLiteInterpreterAllocateTensors": (ctypes.c_int, [_P]),
    "TfLiteInterpreterInvoke": (ctypes.c_int, [_P]),
    "TfLiteTensorType": (ctypes.c_int, [_P]),
    "TfLiteTensorNumDims": (ctypes.c_int32, [_P]),
    "TfLiteTensorDim": (ctypes.c_int32, [_P, ctypes.c_int32]),
    "TfLiteTensorByteSize": (ctypes.c_size_t, [_P]),
    "TfLiteTensorData": (_P, [_P]),
    "TfLiteTensorName": (ctypes.c_char_p, [_P]),
    "TfLiteTensorCopyFromBuffer": (ctypes.c_int, [_P, _P, ctypes.c_size_t]),
    "TfLiteTensorCopyToBuffer": (ctypes.c_int, [_P, _P, ctypes.c_size_t]),
    "TfLiteInterpreterOptionsAddDelegate": (None, [_P, _P]),
    "TfLiteInterpreterOptionsSetEnableDelegateFallback":
        (None, [_P, ctypes.c_bool]),
    "TfLiteInterpreterResetVariableTensors": (ctypes.c_int, [_P]),
    "TfLiteInterpreterGetSignatureCount": (ctypes.c_int32, [_P]),
    "TfLiteInterpreterGetSignatureKey": (ctypes.c_char_p, [_P, ctypes.c_int32]),
    "TfLiteInterpreterGetSignatureRunner": (_P, [_P, ctypes.c_char_p]),
    "TfLiteSignatureRunnerGetInputCount": (ctypes.c_size_t, [_P]),
    "TfLiteSignatureRunnerGetInputName": (ctypes.c_char_p, [_P, ctypes.c_int32]),
    "TfLiteSignatureRunnerResizeInputTensor":
        (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                        ctypes.c_int32]),
    "TfLiteSignatureRunnerAllocateTensors": (ctypes.c_int, [_P]),
    "TfLiteSignatureRunnerGetInputTensor": (_P, [_P, ctypes.c_char_p]),
    "TfLiteSignatureRunnerInvoke": (ctypes.c_int, [_P]),
    "TfLiteSignatureRunnerGetOutputCount": (ctypes.c_size_t, [_P]),
    "TfLiteSignatureRunnerGetOutputName":
        (ctypes.c_char_p, [_P, ctypes.c_int32]),
    "TfLiteSignatureRunnerGetOutputTensor": (_P, [_P, ctypes.c_char_p]),
    "TfLiteSignatureRunnerDelete": (None, [_P]),
    "litegpu_tensor_write_strings":
        (ctypes.c_int, [_P, _P, ctypes.POINTER(ctypes.c_char_p),
                        ctypes.POINTER(ctypes.c_size_t), ctypes.c_int32,
                        ctypes.POINTER(ctypes.c_int), ctypes.c_int]),
    "litegpu_add_mediapipe_ops": (ctypes.c_int, [_P]),
    "litegpu_reference_delegate_create": (_P, [_P]),
    "litegpu_reference_delegate_delete": (None, [_P]),
    "litegpu_reference_delegate_num_partitions": (ctypes.c_int, [_P]),
}


class Library:
    """liblitegpu.so with typed entry points (attributes named as in C)."""

    def __init__(self, path=None):
        self.path = Path(path) if path is not None else library_path()
        if not self.path.is_file():
            raise FileNotFoundError(
                f"{self.path} does not exist: build litegpu (a shared "
                "library) or point LITEGPU_BUILD_DIR / LITEGPU_LIBRARY at it")
        self._dll = ctypes.CDLL(str(self.path))
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(self._dll, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def version(self):
        return self.TfLiteVersion().decode()


_LIBRARIES = {}


def load_library(path=None):
    """The library (loaded once per path)."""
    resolved = Path(path) if path is not None else library_path()
    key = str(resolved)
    if key not in _LIBRARIES:
        _LIBRARIES[key] = Library(resolved)
    return _LIBRARIES[key]


_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
_libc.vsnprintf.restype = ctypes.c_int
_libc.vsnprintf.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                            ctypes.c_void_p]


class ErrorCollector:
    """Collects the library's reported messages as Python strings."""

    def __init__(self):
        self.messages = []
        # Kept as an attribute: the C side holds only the raw pointer.
        self.callback = ErrorReporter(self._report)

    def _report(self, user_data, fmt, args):
        buf = ctypes.create_string_buffer(4096)
        _libc.vsnprintf(buf, len(buf), fmt, args)
        self.messages.append(buf.value.decode("utf-8", "replace"))

    def take(self):
        taken, self.messages = self.messages, []
        return taken


class _Closing:
    """A handle freed by close(): also a context manager, and closed when
    collected. close() must be safe to call twice."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class Model(_Closing):
    """A TfLiteModel; `from_file` maps a file, `from_bytes` keeps a copy of
    the bytes alive for the model's lifetime (the C API does not copy)."""

    def __init__(self, lib, handle, errors, keepalive=None):
        self.lib = lib
        self.handle = handle
        self.errors = errors
        self._keepalive = keepalive

    @classmethod
    def from_file(cls, lib, path):
        errors = ErrorCollector()
        handle = lib.TfLiteModelCreateFromFileWithErrorReporter(
            str(path).encode(), errors.callback, None)
        if not handle:
            raise LiteGpuError(
                f"TfLiteModelCreateFromFile({path}) failed: "
                + "; ".join(errors.messages), None, errors.messages)
        return cls(lib, handle, errors)

    @classmethod
    def from_bytes(cls, lib, data):
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        errors = ErrorCollector()
        handle = lib.TfLiteModelCreateWithErrorReporter(
            buf, len(data), errors.callback, None)
        if not handle:
            raise LiteGpuError(
                "TfLiteModelCreate failed: " + "; ".join(errors.messages),
                None, errors.messages)
        return cls(lib, handle, errors, keepalive=buf)

    def close(self):
        if self.handle:
            self.lib.TfLiteModelDelete(self.handle)
            self.handle = None


class Tensor:
    """A view of one TfLiteTensor; valid while its interpreter lives and
    until the next allocate_tensors (which may move its data)."""

    def __init__(self, lib, handle):
        self.lib = lib
        self.handle = handle

    @property
    def type(self):
        return self.lib.TfLiteTensorType(self.handle)

    @property
    def type_name(self):
        return _TYPE_NAMES.get(self.type, f"type {self.type}")

    @property
    def dtype(self):
        try:
            return np.dtype(_NUMPY_TYPES[self.type])
        except KeyError:
            raise LiteGpuError(f"no numpy dtype for {self.type_name}")

    @property
    def shape(self):
        n = self.lib.TfLiteTensorNumDims(self.handle)
        if n < 0:
            return None
        return tuple(self.lib.TfLiteTensorDim(self.handle, i)
                     for i in range(n))

    @property
    def name(self):
        raw = self.lib.TfLiteTensorName(self.handle)
        return raw.decode() if raw is not None else None

    @property
    def byte_size(self):
        return self.lib.TfLiteTensorByteSize(self.handle)

    def copy_from(self, array):
        array = np.ascontiguousarray(array, dtype=self.dtype)
        if array.nbytes != self.byte_size:
            raise LiteGpuError(
                f"tensor {self.name!r} holds {self.byte_size} bytes "
                f"{self.shape}, the array {array.nbytes} {array.shape}")
        status = self.lib.TfLiteTensorCopyFromBuffer(
            self.handle, array.ctypes.data, array.nbytes)
        if status != kTfLiteOk:
            raise LiteGpuError("TfLiteTensorCopyFromBuffer failed", status)

    def strings(self):
        """A STRING tensor's contents as bytes objects (TFLite's layout:
        an int32 count, count + 1 int32 offsets, the bytes)."""
        size = self.byte_size
        data = self.lib.TfLiteTensorData(self.handle)
        if size == 0 or not data:
            return np.array([], dtype=object).reshape(self.shape)
        raw = ctypes.string_at(data, size)
        count = int.from_bytes(raw[0:4], "little", signed=True)
        offsets = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "little",
                                  signed=True) for i in range(count + 1)]
        items = [raw[offsets[i]:offsets[i + 1]] for i in range(count)]
        out = np.empty(count, dtype=object)
        out[:] = items
        return out.reshape(self.shape)

    def to_numpy(self):
        """A copy of the tensor's contents, shaped like the tensor."""
        if self.type == kTfLiteString:
            return self.strings()
        out = np.empty(self.shape, dtype=self.dtype)
        status = self.lib.TfLiteTensorCopyToBuffer(
            self.handle, out.ctypes.data, out.nbytes)
        if status != kTfLiteOk:
            raise LiteGpuError("TfLiteTensorCopyToBuffer failed", status)
        return out

    def view(self):
        """A numpy array over the tensor's own memory (no copy)."""
        data = self.lib.TfLiteTensorData(self.handle)
        if not data:
            raise LiteGpuError(f"tensor {self.name!r} has no data yet")
        size = self.byte_size
        raw = (ctypes.c_uint8 * size).from_address(data)
        return np.frombuffer(raw, dtype=self.dtype).reshape(self.shape)


class Interpreter(_Closing):
    """A TfLiteInterpreter over a Model, with options applied at creation.

    num_threads None leaves the option unset (the library chooses).
    mediapipe_ops registers MediaPipe's custom ops (litegpu_add_mediapipe_ops).
    delegates are TfLiteDelegate pointers the caller owns and keeps alive
    while the interpreter exists."""

    def __init__(self, lib, model, num_threads=None, delegates=(),
                 delegate_fallback=False, mediapipe_ops=False):
        self.lib = lib
        self.model = model  # keeps the model alive
        self.errors = ErrorCollector()
        self.handle = None
        self._runners = []
        options = lib.TfLiteInterpreterOptionsCreate()
        if not options:
            raise LiteGpuError("TfLiteInterpreterOptionsCreate failed")
        try:
            if num_threads is not None:
                lib.TfLiteInterpreterOptionsSetNumThreads(options,
                                                          num_threads)
            lib.TfLiteInterpreterOptionsSetErrorReporter(
                options, self.errors.callback, None)
            if mediapipe_ops:
                lib.litegpu_add_mediapipe_ops(options)
            for delegate in delegates:  # TfLiteDelegate* values, caller-owned
                lib.TfLiteInterpreterOptionsAddDelegate(options, delegate)
            lib.TfLiteInterpreterOptionsSetEnableDelegateFallback(
                options, bool(delegate_fallback))
            self.handle = lib.TfLiteInterpreterCreate(model.handle, options)
        finally:
            lib.TfLiteInterpreterOptionsDelete(options)
        if not self.handle:
            self._raise("TfLiteInterpreterCreate", None)

    def _raise(self, what, status):
        messages = self.errors.take()
        detail = "; ".join(messages) if messages else "no message"
        raise LiteGpuError(f"{what} failed (status {status}): {detail}",
                           status, messages)

    def _check(self, what, status):
        if status != kTfLiteOk:
            self._raise(what, status)

    @property
    def input_count(self):
        return self.lib.TfLiteInterpreterGetInputTensorCount(self.handle)

    @property
    def output_count(self):
        return self.lib.TfLiteInterpreterGetOutputTensorCount(self.handle)

    def input(self, index):
        handle = self.lib.TfLiteInterpreterGetInputTensor(self.handle, index)
        if not handle:
            raise LiteGpuError(f"no input {index}")
        return Tensor(self.lib, handle)

    def output(self, index):
        handle = self.lib.TfLiteInterpreterGetOutputTensor(self.handle, index)
        if not handle:
            raise LiteGpuError(f"no output {index}")
        return Tensor(self.lib, handle)

    def tensor(self, index):
        handle = self.lib.TfLiteInterpreterGetTensor(self.handle, index)
        if not handle:
            raise LiteGpuError(f"no tensor {index}")
        return Tensor(self.lib, handle)

    def resize_input(self, index, shape):
        dims = (ctypes.c_int * len(shape))(*shape)
        self._check("TfLiteInterpreterResizeInputTensor",
                    self.lib.TfLiteInterpreterResizeInputTensor(
                        self.handle, index, dims, len(shape)))

    def allocate_tensors(self):
        self._check("TfLiteInterpreterAllocateTensors",
                    self.lib.TfLiteInterpreterAllocateTensors(self.handle))

    def invoke(self):
        self._check("TfLiteInterpreterInvoke",
                    self.lib.TfLiteInterpreterInvoke(self.handle))

    def set_input(self, index, array):
        if self.input(index).type == kTfLiteString:
            array = np.asarray(array, dtype=object)
            if list(self.input(index).shape) != list(array.shape):
                self.resize_input(index, array.shape)
                self.allocate_tensors()
            self.write_strings(self.input(index), array)
        else:
            self.input(index).copy_from(array)

    def write_strings(self, tensor, array):
        """Writes an array of bytes/str into a STRING tensor
        (litegpu_tensor_write_strings), shaping it like the array."""
        array = np.asarray(array, dtype=object)
        items = [x.encode() if isinstance(x, str) else bytes(x)
                 for x in array.reshape(-1)]
        n = len(items)
        strings = (ctypes.c_char_p * max(n, 1))(*items)
        lengths = (ctypes.c_size_t * max(n, 1))(*[len(x) for x in items])
        dims = (ctypes.c_int * max(array.ndim, 1))(*array.shape)
        self._check("litegpu_tensor_write_strings",
                    self.lib.litegpu_tensor_write_strings(
                        self.handle, tensor.handle, strings, lengths, n, dims,
                        array.ndim))

    def get_output(self, index):
        return self.output(index).to_numpy()

    def reset_variable_tensors(self):
        self._check("TfLiteInterpreterResetVariableTensors",
                    self.lib.TfLiteInterpreterResetVariableTensors(
                        self.handle))

    @property
    def signature_keys(self):
        count = self.lib.TfLiteInterpreterGetSignatureCount(self.handle)
        return [self.lib.TfLiteInterpreterGetSignatureKey(self.handle,
                                                          i).decode()
                for i in range(count)]

    def signature_runner(self, key):
        """A SignatureRunner for `key` (closed before this interpreter)."""
        handle = self.lib.TfLiteInterpreterGetSignatureRunner(
            self.handle, key.encode())
        if not handle:
            self._raise(f"TfLiteInterpreterGetSignatureRunner({key!r})", None)
        runner = SignatureRunner(self, handle)
        self._runners.append(runner)
        return runner

    def close(self):
        for runner in getattr(self, "_runners", ()):
            runner.close()
        if self.handle:
            self.lib.TfLiteInterpreterDelete(self.handle)
            self.handle = None


class SignatureRunner(_Closing):
    """A TfLiteSignatureRunner: named inputs and outputs of one signature."""

    def __init__(self, interpreter, handle):
        self.interpreter = interpreter
        self.lib = interpreter.lib
        self.handle = handle

    def _check(self, what, status):
        self.interpreter._check(what, status)

    @property
    def input_names(self):
        n = self.lib.TfLiteSignatureRunnerGetInputCount(self.handle)
        return [self.lib.TfLiteSignatureRunnerGetInputName(self.handle,
                                                           i).decode()
                for i in range(n)]

    @property
    def output_names(self):
        n = self.lib.TfLiteSignatureRunnerGetOutputCount(self.handle)
        return [self.lib.TfLiteSignatureRunnerGetOutputName(self.handle,
                                                            i).decode()
                for i in range(n)]

    def input(self, name):
        handle = self.lib.TfLiteSignatureRunnerGetInputTensor(
            self.handle, name.encode())
        if not handle:
            self.interpreter._raise(f"no signature input {name!r}", None)
        return Tensor(self.lib, handle)

    def output(self, name):
        handle = self.lib.TfLiteSignatureRunnerGetOutputTensor(
            self.handle, name.encode())
        if not handle:
            self.interpreter._raise(f"no signature output {name!r}", None)
        return Tensor(self.lib, handle)

    def resize_input(self, name, shape):
        dims = (ctypes.c_int * len(shape))(*shape)
        self._check("TfLiteSignatureRunnerResizeInputTensor",
                    self.lib.TfLiteSignatureRunnerResizeInputTensor(
                        self.handle, name.encode(), dims, len(shape)))

    def allocate_tensors(self):
        self._check("TfLiteSignatureRunnerAllocateTensors",
                    self.lib.TfLiteSignatureRunnerAllocateTensors(self.handle))

    def invoke(self):
        self._check("TfLiteSignatureRunnerInvoke",
                    self.lib.TfLiteSignatureRunnerInvoke(self.handle))

    def __call__(self, **inputs):
        """Runs the signature on named numpy inputs (resizing inputs whose
        shape differs) and returns {output name: array}."""
        strings = {n for n in inputs if self.input(n).type == kTfLiteString}
        for name, array in inputs.items():
            if list(self.input(name).shape) != list(np.shape(array)):
                self.resize_input(name, np.shape(array))
        self.allocate_tensors()
        for name, array in inputs.items():
            if name in strings:  # written with its shape
                self.interpreter.write_strings(self.input(name), array)
            else:
                self.input(name).copy_from(array)
        self.invoke()
        return {name: self.output(name).to_numpy()
                for name in self.output_names}

    def close(self):
        if self.handle:
            self.lib.TfLiteSignatureRunnerDelete(self.handle)
            self.handle = None


# ---- The GPU delegate (include/litegpu/gpu_delegate.h) ----------------------


class _TfLiteGpuOptions(ctypes.Structure):
    _fields_ = [("is_precision_loss_allowed", ctypes.c_int32),
                ("inference_preference", ctypes.c_int32),
                ("inference_priority1", ctypes.c_int32),
                ("inference_priority2", ctypes.c_int32),
                ("inference_priority3", ctypes.c_int32),
                ("experimental_flags", ctypes.c_int64),
                ("max_delegated_partitions", ctypes.c_int32),
                ("serialization_dir", ctypes.c_char_p),
                ("model_token", ctypes.c_char_p)]


class _GpuOptions(ctypes.Structure):
    _fields_ = [("tflite", _TfLiteGpuOptions),
                ("backend", ctypes.c_int),
                ("device_index", ctypes.c_int),
                ("min_nodes_per_partition", ctypes.c_int),
                ("share_device_with", ctypes.c_void_p)]


class GpuStats(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_char_p),
                ("device_name", ctypes.c_char * 256),
                ("partitions", ctypes.c_int),
                ("nodes_delegated", ctypes.c_int),
                ("dispatches_per_invoke", ctypes.c_int),
                ("device_bytes", ctypes.c_uint64),
                ("bytes_uploaded", ctypes.c_uint64),
                ("bytes_downloaded", ctypes.c_uint64),
                ("programs_compiled", ctypes.c_uint64),
                ("programs_from_cache", ctypes.c_uint64),
                ("cache_files_loaded", ctypes.c_uint64),
                ("fp16", ctypes.c_int),
                ("bytes_copied_by_handles", ctypes.c_uint64),
                ("kernels_tuned", ctypes.c_int),
                ("tunings_from_cache", ctypes.c_int)]


_BACKENDS = {"auto": 0, "cl": 1, "vk": 2}
_ENABLE_SERIALIZATION = 1 << 3  # TFLITE_GPU_EXPERIMENTAL_FLAGS_...


class GpuDelegate(_Closing):
    """litegpu_gpu_delegate_create with TFLite's defaults, on `backend`
    ("cl", "vk" or "auto"); precision_loss sets is_precision_loss_allowed,
    experimental_flags (None: the default, ENABLE_QUANT) TFLite's flags,
    serialization_dir TFLite's program cache folder (None: no cache),
    with model_token the cache entries' namespace (ENABLE_SERIALIZATION is
    set for them),
    max_delegated_partitions TFLite's limit (None: the default, 1).
    Pass `.pointer` in an Interpreter's delegates and keep this object alive
    while the interpreter exists. Raises LiteGpuError with the delegate's
    reason when it cannot be created (no device)."""

    def __init__(self, lib, backend="auto", precision_loss=False,
                 experimental_flags=None, serialization_dir=None,
                 max_delegated_partitions=None, model_token="litegpu"):
        dll = lib._dll
        dll.litegpu_gpu_delegate_options_default.restype = _GpuOptions
        dll.litegpu_gpu_delegate_create.restype = _P
        dll.litegpu_gpu_delegate_create.argtypes = [
            ctypes.POINTER(_GpuOptions), ctypes.c_char_p, ctypes.c_size_t]
        dll.litegpu_gpu_delegate_get_stats.restype = ctypes.c_int
        dll.litegpu_gpu_delegate_get_stats.argtypes = [
            _P, ctypes.POINTER(GpuStats)]
        dll.TfLiteGpuDelegateV2Delete.argtypes = [_P]
        self._dll = dll
        options = dll.litegpu_gpu_delegate_options_default()
        options.backend = _BACKENDS[backend]
        options.tflite.is_precision_loss_allowed = 1 if precision_loss else 0
        if experimental_flags is not None:  # TFLite's default: ENABLE_QUANT
            options.tflite.experimental_flags = experimental_flags
        if max_delegated_partitions is not None:
            options.tflite.max_delegated_partitions = max_delegated_partitions
        # Kept alive with the delegate: the options hold the raw pointer.
        # TFLite serializes only with ENABLE_SERIALIZATION, the folder and
        # a model token (the cache entries' namespace).
        self._serialization_dir = self._model_token = None
        if serialization_dir is not None:
            self._serialization_dir = str(serialization_dir).encode()
            self._model_token = str(model_token).encode()
            options.tflite.serialization_dir = self._serialization_dir
            options.tflite.model_token = self._model_token
            options.tflite.experimental_flags |= _ENABLE_SERIALIZATION
        error = ctypes.create_string_buffer(2048)
        self.pointer = dll.litegpu_gpu_delegate_create(
            ctypes.byref(options), error, len(error))
        if not self.pointer:
            raise LiteGpuError(f"GPU delegate ({backend}): "
                               f"{error.value.decode(errors='replace')}")

    def decisions(self):
        """{node index: "" when claimed, else the reason} of the last
        application (litegpu_gpu_delegate_node_reason), for every node the
        delegate decided on: an activation the interpreter fused into its
        producer was never in the plan it saw and has no entry."""
        count = self._dll.litegpu_gpu_delegate_num_nodes
        count.restype = ctypes.c_int
        count.argtypes = [_P]
        fn = self._dll.litegpu_gpu_delegate_node_reason
        fn.restype = ctypes.c_char_p
        fn.argtypes = [_P, ctypes.c_int]
        reasons = ((n, fn(self.pointer, n)) for n in range(count(self.pointer)))
        return {n: r.decode(errors="replace") for n, r in reasons
                if r is not None}

    def stats(self):
        out = GpuStats()
        if self._dll.litegpu_gpu_delegate_get_stats(self.pointer,
                                                    ctypes.byref(out)) != 0:
            raise LiteGpuError("litegpu_gpu_delegate_get_stats failed")
        return out

    def close(self):
        if self.pointer:
            self._dll.TfLiteGpuDelegateV2Delete(self.pointer)
            self.pointer = None
