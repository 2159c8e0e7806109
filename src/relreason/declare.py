"""How a declared parameter shows on the command line: the one marker ``Cli``.

A parameter is declared once, as a field of a pydantic model (``BenchmarkParams``): its type
(a ``Literal`` for a choice), its default, its bounds (``Field(ge=..., le=...)``) and its help
(``Field(description=...)``). The command line's options (:mod:`relreason.cli.declared`), sweep
entries and ``relreason.evaluate``'s keywords are read from that field; ``Cli``, in the field's
``Annotated`` metadata, adds only what a command line needs beyond it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic.fields import FieldInfo

NOT_SET: Any = object()
"""The default of ``Cli.default``: the command line takes the declared default."""


@dataclass(frozen=True)
class Cli:
    """How one declared field is shown as a command-line option.

    ``flags``: the option's names (default ``--field-name``; a bool then takes
    ``--x/--no-x``, while one name, e.g. ``("--subset",)``, makes a plain flag); ``reading``:
    the option says how answers are read (``score`` and ``run`` take it, ``prompts`` does
    not); ``hidden``: not an option at all (filled in by relreason, e.g. from the model);
    ``show_default``: whether help shows the default (default: unless it is ``None``);
    ``envvar``: an environment variable that sets it; ``extra_help``: words the command line
    adds to the field's description; ``default``: the command line's default where it differs
    from the declaration's (``NOT_SET``: the same); ``sweep``: whether a sweep file's options
    take it too (run options only)."""

    flags: tuple[str, ...] = ()
    reading: bool = False
    hidden: bool = False
    show_default: bool | None = None
    envvar: str | None = None
    extra_help: str = ""
    default: Any = NOT_SET
    sweep: bool = True


@dataclass(frozen=True)
class Role:
    """Marks a parameter that names a helper model by its role, e.g. MCR's ``cleanup_model``
    is the ``cleanup`` role: a sweep file's ``roles: {cleanup: SPEC}`` fills it in for every
    cell whose benchmark declares it (a cell's own value wins)."""

    name: str


def role_of(info: FieldInfo) -> str | None:
    """The model role a declared field takes (None: it names no helper model)."""
    return next((m.name for m in info.metadata if isinstance(m, Role)), None)


def cli_of(info: FieldInfo) -> Cli:
    """Return the ``Cli`` marker of a declared field (the default one when it has none)."""
    return next((m for m in info.metadata if isinstance(m, Cli)), Cli())


def plain(value: Any) -> Any:
    """An option value as the declaration takes it (a choice's enum member as its text)."""
    from enum import Enum

    return value.value if isinstance(value, Enum) else value
