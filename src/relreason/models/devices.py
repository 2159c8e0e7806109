"""Which devices a local model can run on here, found in milliseconds without importing torch.

``--device cuda`` on a machine without a GPU used to fail only when the loaded model was moved
there, minutes later, with a traceback. :func:`check_device` refuses such a device before
anything is loaded, naming the devices this machine has. CUDA GPUs are counted through the
driver library (``libcuda``, which honours ``CUDA_VISIBLE_DEVICES``), or by torch when it is
already imported or the machine has a ROCm device (``/dev/kfd``); ``mps`` is Apple silicon.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import re
import sys

from relreason.errors import UsageError

FORMS = ("cpu", "cuda", "cuda:N", "mps", "auto")
_FORM = re.compile(r"(cpu|auto|mps|cuda)(?::(\d+))?")


@functools.cache
def cuda_count() -> int:
    """How many CUDA (or ROCm) GPUs this process can use; 0 without a driver."""
    if "torch" in sys.modules or os.path.exists("/dev/kfd"):
        import torch

        return int(torch.cuda.device_count())
    try:
        driver = ctypes.CDLL("libcuda.so.1" if sys.platform != "win32" else "nvcuda.dll")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def has_mps() -> bool:
    """Apple silicon's Metal device (macOS on arm64)."""
    if "torch" in sys.modules:
        import torch

        return bool(torch.backends.mps.is_available())
    return sys.platform == "darwin" and platform.machine() == "arm64"


def available() -> list[str]:
    """The devices a model can be put on here: ``cpu``, then ``cuda:0``..., then ``mps``."""
    found = ["cpu"] + [f"cuda:{i}" for i in range(cuda_count())]
    return [*found, "mps"] if has_mps() else found


def check_device(device: str) -> None:
    """Raise ``UsageError`` for a device that is malformed or not on this machine, naming the
    devices that are (``auto`` always passes: it picks cuda only where there is one)."""
    here = ", ".join(available())
    form = _FORM.fullmatch(device)
    if form is None or (form.group(2) is not None and form.group(1) != "cuda"):
        raise UsageError(
            f"unknown device {device!r}; valid forms: {', '.join(FORMS)} (available here: {here})"
        )
    kind, index = form.group(1), form.group(2)
    if kind in ("cpu", "auto"):
        return
    if kind == "mps" and not has_mps():
        raise UsageError(
            f"device 'mps' is not available: it is the GPU of Apple silicon, under macOS "
            f"(available here: {here}); use --device cpu"
        )
    count = cuda_count()
    if kind == "cuda" and count == 0:
        raise UsageError(
            f"device {device!r} is not available: no CUDA GPU found on this machine "
            f"(available here: {here}); use --device cpu, or --device auto to take a GPU "
            "where there is one"
        )
    if kind == "cuda" and index is not None and int(index) >= count:
        raise UsageError(
            f"device {device!r} is not available: this machine has {count} CUDA GPU(s) "
            f"(available here: {here})"
        )
