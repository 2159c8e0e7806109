"""Command-line options generated from a declaration: a pydantic model's fields become typer
options (help: the field's description; choices: its ``Literal``; ``min``/``max``: its bounds;
names and flags: its :class:`relreason.declare.Cli` marker)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Collection, Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from relreason.declare import NOT_SET, Cli, cli_of


def _without_none(annotation: Any) -> tuple[Any, bool]:
    """The annotation without ``None``, and whether ``None`` was allowed."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        return (args[0] if len(args) == 1 else Union[tuple(args)]), optional  # noqa: UP007
    return annotation, False


def _choices(name: str, annotation: Any) -> type[StrEnum] | None:
    """A ``Literal`` of texts as an enum (typer shows and checks its values)."""
    if get_origin(annotation) is not Literal:
        return None
    values = [str(v) for v in get_args(annotation)]
    title = "".join(part.title() for part in name.split("_"))
    enum: type[StrEnum] = StrEnum(title, {v: v for v in values})  # type: ignore[misc]
    return enum


def _bounds(info: FieldInfo) -> dict[str, float]:
    """``min``/``max`` from the field's inclusive bounds (an excluded one is left to the
    declaration's own check)."""
    args: dict[str, float] = {}
    for meta in info.metadata:
        if isinstance(meta, annotated_types.Ge):
            args["min"] = meta.ge  # type: ignore[assignment]
        elif isinstance(meta, annotated_types.Le):
            args["max"] = meta.le  # type: ignore[assignment]
    return args


def option_parameter(name: str, info: FieldInfo) -> inspect.Parameter:
    """The typer parameter of one declared field."""
    cli = cli_of(info)
    base, optional = _without_none(info.annotation)
    enum = _choices(name, base)
    if enum is not None:
        base = enum
    many = get_origin(base) in (tuple, list) or base in (tuple, list)
    if many:
        base = list[str]
    default: Any = inspect.Parameter.empty
    if cli.default is not NOT_SET:
        default = cli.default
    elif not info.is_required():
        default = info.get_default(call_default_factory=True)
    if enum is not None and isinstance(default, str):
        default = enum(default)
    if many and isinstance(default, tuple | list):
        default = list(default) or None
    annotation = base | None if optional or default is None else base
    show_default = cli.show_default
    if show_default is None and default is None:
        show_default = False
    help_text = " ".join(t for t in (info.description or "", cli.extra_help) if t)
    settings: dict[str, Any] = {"help": help_text, "envvar": cli.envvar, **_bounds(info)}
    if show_default is not None:
        settings["show_default"] = show_default
    option = typer.Option(*cli.flags, **settings)
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        annotation=Annotated[annotation, option],
        default=default,
    )


def option_template(
    model: type[BaseModel],
    keep: Callable[[Cli], bool] = lambda cli: True,
    only: Collection[str] | None = None,
) -> Callable[..., None]:
    """A function whose signature holds the options of ``model``'s fields that ``keep``
    accepts (and ``only`` names, when given; hidden fields never), in the fields' order,
    those saying how answers are read last (for ``gather_options``)."""
    fields = [
        (name, info)
        for name, info in model.model_fields.items()
        if not cli_of(info).hidden and keep(cli_of(info)) and (only is None or name in only)
    ]
    fields.sort(key=lambda field: cli_of(field[1]).reading)
    return _template(option_parameter(name, info) for name, info in fields)


def merged_templates(*templates: Callable[..., None]) -> Callable[..., None]:
    """A template whose signature holds every template's options, in order."""
    return _template(
        parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for part in templates
        for parameter in inspect.signature(part, eval_str=True).parameters.values()
    )


def _template(parameters: Iterable[inspect.Parameter]) -> Callable[..., None]:
    def template(**_: Any) -> None:
        """Holds, in its signature, options generated from a declaration."""

    template.__signature__ = inspect.Signature(list(parameters))  # type: ignore[attr-defined]
    return template
