"""ConvRe (converse relations; Qi et al., EMNLP 2023): data, settings, prompts, readers, the
paper's Table 9, and the official files. Public face: ``BENCHMARK``, ``ConvReParams``."""

from relreason.benchmarks.convre.benchmark import BENCHMARK, ConvReParams

__all__ = ["BENCHMARK", "ConvReParams"]
