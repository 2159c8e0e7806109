"""relreason's cells as inspect_ai tasks: ``relreason/convre``, ``relreason/mcr`` and
``relreason/compose`` (``inspect eval relreason/convre -T task=re2text -T setting=9``).

This module is the ``inspect_ai`` entry point of the package (extra ``[inspect]``); the tasks
are defined in :mod:`relreason.bridges.inspect_tasks`.
"""

from relreason.bridges.inspect_tasks import compose, convre, mcr

__all__ = ["compose", "convre", "mcr"]
