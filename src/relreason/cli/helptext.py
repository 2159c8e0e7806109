"""Help a newcomer can read: value names instead of type names, a benchmark's settings table,
and the overview when a command group is called with nothing.

Typer labels an option's value with its Python type (``<int range>``, ``<list[str]>``, ``<str>``);
:func:`readable_metavars` gives each option a value name (``N``, ``URL``, ``DIR``, ...) once the
click command tree is built. Flags show no value at all (plain click help, not rich panels,
which cut option names at 80 columns).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args, get_origin

import typer

VALUE_NAMES = {
    "model": "SPEC",
    "base_urls": "URL",
    "mirror": "URL",
    "out": "PATH",
    "resume": "DIR",
    "dest": "DIR",
    "data_dir": "DIR",
    "prices": "FILE",
    "log_to": "TRACKER",
    "exemplars": "FILE",
    "responses": "FILE",
    "compare": "SPEC=PAPER_MODEL",
    "language": "LANG",
    "method": "METHOD",
    "device": "DEVICE",
    "dtype": "DTYPE",
    "prompt": "PROMPT",
    "relation": "RELATION",
    "example_type": "TYPE",
    "text_type": "TYPE",
    "requests_per_minute": "N",
    "tokens_per_minute": "N",
    "request_timeout": "SECONDS",
    "temperature": "T",
}
"""Value names by parameter name; other options get one from their type."""


def _type_name(param: Any) -> str | None:
    """A value name from the option's annotation (None: leave typer's label, e.g. choices)."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or desc.is_choice:
        return None
    if desc.is_path:
        return "PATH"
    annotation = desc.annotation
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    names = {int: "N", float: "NUMBER", str: "TEXT"}
    return names.get(annotation) if isinstance(annotation, type) else None


def _no_label(ctx: Any) -> None:
    """No type label (for an argument)."""


def readable_metavars(command: Any) -> None:
    """Give every option of ``command`` (a click command built by typer) and its subcommands
    a value name, in place: flags keep none, arguments their upper-case name."""
    for param in getattr(command, "params", ()):
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        if param.metavar is not None:
            continue
        if getattr(param, "param_type_name", "") == "argument":
            # typer labels an argument with its type ("RUN_A <path>"); its name says enough
            param.display_type_rich = _no_label
            param.metavar = (param.name or "value").upper()
        else:
            param.metavar = VALUE_NAMES.get(param.name or "") or _type_name(param)
    for sub in getattr(command, "commands", {}).values():
        readable_metavars(sub)


def show_help_without_command(ctx: typer.Context) -> None:
    """A group callback: called with no subcommand, print the group's help and exit 0."""
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


def benchmark_help(bench: Any, first: str) -> str:
    """A benchmark command's help: ``first``, then its settings table when it has named
    settings (``listing()["settings"]``, as ConvRe's 12 paper settings)."""
    settings = bench.listing().get("settings")
    return f"{first}\n\n{settings_table(settings)}" if settings else first


def settings_table(settings: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """A benchmark's named settings as a table: setting -> its knobs (one column per knob).

    ``settings`` maps a task to setting id -> knob -> value (``Benchmark.listing()``); a knob
    that differs between the tasks shows each task's value, ``a/b``, in the tasks' order.
    Returned with click's no-rewrap marker, for a command's help text.
    """
    tasks = list(settings)
    ids = list(dict.fromkeys(i for task in tasks for i in settings[task]))
    knobs = list(
        dict.fromkeys(k for task in tasks for i in settings[task] for k in settings[task][i])
    )
    rows = []
    for setting_id in ids:
        row = [str(setting_id)]
        for knob in knobs:
            values = [str(settings[t].get(setting_id, {}).get(knob, "-")) for t in tasks]
            row.append(values[0] if len(set(values)) == 1 else "/".join(values))
        rows.append(row)
    header = ["setting", *(k.replace("_", "-") for k in knobs)]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    head = "  ".join(c.ljust(w) for c, w in zip(header, widths, strict=True)).rstrip()
    note = [f"(a/b: the value for {' / '.join(tasks)})"] if len(tasks) > 1 else []
    title = "The paper's settings (--setting N; an option named after a knob overrides it)"
    return "\n".join(["\b", title, *note, head, *lines])


def command_group(name_help: str) -> typer.Typer:
    """A command group that shows its help (exit 0) when called with no subcommand."""
    group = typer.Typer(rich_markup_mode=None, invoke_without_command=True, help=name_help)
    group.callback()(show_help_without_command)
    return group
