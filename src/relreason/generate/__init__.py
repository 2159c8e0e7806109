"""Generated relation benchmarks: solver-proved compositional questions and converse sets.

- ``compose(ComposeOptions(...))``: MCR-style questions over kinship, position, order, quantity,
  identity and containment (MCR's six categories), each with formal premises and query;
  answers found by enumerating every model of the premises.
- ``verify(file)``: re-prove every item of a generated file (a list of ``Problem``).
- ``audit(file)``: surface heuristics against chance (``Audit``: rows, ``passed``, ``to_json``).
- ``converse(definitions, triples, out)``: ConvRe files from a user's own triples.
- ``load_records(file)`` / ``load_default(language)``: plain records for a benchmark package.

Also ``audit_items``, ``verify_items`` (the same over items in memory), ``solve`` (the
solver), ``Record``/``write_items`` (the file format), ``default_path``/``rebuild_default`` (the
embedded sets). The relation vocabulary and the file format are documented in
``VOCABULARY.md``.
"""

from __future__ import annotations

from relreason.generate.audit import Audit, audit, audit_items
from relreason.generate.compose import ComposeOptions, compose
from relreason.generate.converse import converse
from relreason.generate.default import default_path, load_default, rebuild_default
from relreason.generate.records import Record, load_records, write_items
from relreason.generate.solver import solve
from relreason.generate.verify import Problem, verify, verify_items

__all__ = [
    "Audit",
    "ComposeOptions",
    "Problem",
    "Record",
    "audit",
    "audit_items",
    "compose",
    "converse",
    "default_path",
    "load_default",
    "load_records",
    "rebuild_default",
    "solve",
    "verify",
    "verify_items",
    "write_items",
]
