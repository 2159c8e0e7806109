"""The memory share vLLM takes on a CPU when ``gpu_memory_utilization`` is not given.

On its CPU build, vLLM reads ``gpu_memory_utilization`` as the share of the NUMA node's memory
(node 0 on most machines: all of it on one-socket ones) that weights, activations and the
key/value cache must fit in, and refuses to start when that share is more than the memory
available there. Its default, 0.92, is refused on any machine where something else runs. The
share picked here is what the model needs (its weight files, a quarter more, and 4 GiB for
activations and the key/value cache), at least 0.25, and at most 90% of what is available now.
"""

from __future__ import annotations

import math
from pathlib import Path

GIB = 1024**3
FLOOR = 0.25
"""The least share picked: enough for a small model's 2048-token sequences on a 14 GiB node."""
HEADROOM_BYTES = 4 * GIB
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")


def weights_bytes(model: str) -> int:
    """The size of a local model folder's weight files (0 for a hub name: unknown here)."""
    folder = Path(model)
    if not folder.is_dir():
        return 0
    return sum(p.stat().st_size for p in folder.iterdir() if p.suffix in WEIGHT_SUFFIXES)


def pick_share(weights: int, total: int, available: int) -> float:
    """The share of ``total`` bytes to give vLLM: what ``weights`` need, at least ``FLOOR``,
    at most 90% of ``available``; rounded down to a hundredth, never below 0.01."""
    wanted = max(FLOOR, (weights * 1.25 + HEADROOM_BYTES) / total)
    share = min(wanted, 0.9 * available / total, 1.0)
    return max(0.01, math.floor(share * 100) / 100)


def node_memory() -> tuple[int, int]:
    """(total, available) bytes of the memory vLLM's CPU worker measures: NUMA node 0's, as
    vLLM itself reads them (the machine's when it has no NUMA nodes)."""
    try:
        from vllm.utils.cpu_resource_utils import get_memory_node_info
    except ImportError:  # another vLLM version: the machine's memory
        import psutil

        memory = psutil.virtual_memory()
        return int(memory.total), int(memory.available)
    info = get_memory_node_info(0)
    return int(info.total_memory), int(info.available_memory)


def cpu_share(model: str, engines: int = 1) -> tuple[float, str] | None:
    """On vLLM's CPU platform: the share to use for ``model`` and the line that says so;
    None on a GPU (vLLM's own default stands there). ``engines`` data-parallel engines
    share the available memory."""
    from vllm.platforms import current_platform

    if not current_platform.is_cpu():
        return None
    total, available = node_memory()
    weights = weights_bytes(model)
    share = pick_share(weights, total, available // engines)
    held = f"{weights / GIB:.2f} GiB of weights" if weights else "the weights"
    each = f", in each of {engines} engines" if engines > 1 else ""
    said = (
        f"vllm: on this CPU, --gpu-memory-utilization {share}: the share of NUMA node 0's "
        f"{total / GIB:.1f} GiB that vLLM may take ({share * total / GIB:.1f} GiB for {held}, "
        f"activations and the key/value cache{each}; {available / GIB:.1f} GiB is available "
        "now); set --gpu-memory-utilization to choose another"
    )
    return share, said
