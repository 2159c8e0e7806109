"""MCR (multilingual compositional relations): questions, exemplars, prompts, readers, the
paper's Table 4, and the official files. Public face: ``BENCHMARK``, ``McrParams``."""

from relreason.benchmarks.mcr.benchmark import BENCHMARK, McrParams

__all__ = ["BENCHMARK", "McrParams"]
