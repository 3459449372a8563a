"""litegpu: TensorFlow Lite models on the CPU and on OpenCL / Vulkan GPUs.

    import litegpu
    interp = litegpu.Interpreter(
        model_path="model.tflite",
        experimental_delegates=[litegpu.load_gpu_delegate(backend="vk")])

Interpreter is a drop-in for ai_edge_litert.interpreter.Interpreter
(interpreter.py); capi is the ctypes layer over the C API it is built on.
"""

from . import capi
from .interpreter import Interpreter, SignatureRunner

__version__ = "0.1.0"

__all__ = ["Interpreter", "SignatureRunner", "load_gpu_delegate", "capi",
           "__version__"]


def load_gpu_delegate(backend="auto", precision_loss_allowed=False,
                      serialization_dir=None, experimental_flags=None,
                      model_token="litegpu"):
    """litegpu's GPU delegate with TFLite's default options, for an
    Interpreter's experimental_delegates. backend: "auto" (OpenCL, else
    Vulkan), "cl" or "vk"; precision_loss_allowed lets it run in float16
    where the device can; serialization_dir caches compiled programs, under
    model_token (TFLite's: one namespace per model).
    Raises ValueError with the reason when no device can be used. The
    delegate is deleted when the returned object is collected, after every
    Interpreter using it (they keep it alive)."""
    if backend not in ("auto", "cl", "vk"):
        raise ValueError(f"backend {backend!r}: expected 'auto', 'cl' or "
                         "'vk'")
    try:
        return capi.GpuDelegate(capi.load_library(), backend=backend,
                                precision_loss=precision_loss_allowed,
                                experimental_flags=experimental_flags,
                                serialization_dir=serialization_dir,
                                model_token=model_token)
    except capi.LiteGpuError as e:
        raise ValueError(str(e)) from None
