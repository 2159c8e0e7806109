"""relreason: measure how well language models reason about relations (ConvRe and MCR)."""

__version__ = "0.1.0"
