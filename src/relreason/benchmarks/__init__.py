"""Benchmarks: one package per benchmark, each exporting one ``Benchmark``, and their registry.

Public face: ``get(name)``, ``names()``, ``all_benchmarks()``, ``register(benchmark)``,
``unregister(name)``, ``data_files(which)``, ``permuted(task, how)``, and the base types
``Benchmark``, ``BenchmarkParams``, ``PaperFigure``.
"""

from relreason.benchmarks.base import Benchmark, BenchmarkParams, PaperFigure
from relreason.benchmarks.registry import (
    all_benchmarks,
    data_files,
    get,
    names,
    permuted,
    register,
    unregister,
)

__all__ = [
    "Benchmark",
    "BenchmarkParams",
    "PaperFigure",
    "all_benchmarks",
    "data_files",
    "get",
    "names",
    "permuted",
    "register",
    "unregister",
]
