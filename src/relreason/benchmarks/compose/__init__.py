"""Compose: generated, solver-verified relation questions (kinship, position, order, quantity,
identity, containment: MCR's six categories) in the MCR format, read like MCR. Ships an
embedded default set per language: no download. Public face: ``BENCHMARK``, ``ComposeParams``."""

from relreason.benchmarks.compose.benchmark import BENCHMARK, ComposeParams

__all__ = ["BENCHMARK", "ComposeParams"]
