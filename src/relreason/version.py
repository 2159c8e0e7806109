"""relreason's version: one constant, importable without the package's lazy entry points
(``relreason.__version__`` is this value)."""

__version__ = "0.2.0"
