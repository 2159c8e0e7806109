"""``relreason list``: what there is to run — benchmarks with their settings (every knob
spelled out), languages and methods, the papers' model names for ``report --compare``, and the
model backends with their capabilities and options."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from relreason import benchmarks
from relreason.models.options import OPTION_HELP
from relreason.models.registry import BACKENDS


def listing() -> dict[str, Any]:
    """Return everything ``relreason list`` shows, JSON-ready."""
    bench: dict[str, Any] = {}
    for benchmark in benchmarks.all_benchmarks():
        entry = benchmark.listing()
        entry["paper_models"] = sorted({f.model for f in benchmark.paper_figures()})
        bench[benchmark.name] = entry
    backends = {
        kind: {
            "form": info.form,
            "summary": info.summary,
            "free": info.free,
            "logprobs": info.capabilities.logprobs,
            "choice_scoring": info.capabilities.choice_scoring,
            "apis": list(info.apis),
            "options": {name: OPTION_HELP[name] for name in info.options},
            "extra": info.extra,
        }
        for kind, info in BACKENDS.items()
    }
    return {"benchmarks": bench, "backends": backends}


def _text(data: dict[str, Any]) -> str:
    """The listing as text lines of at most 80 characters (settings as one table)."""
    from relreason.cli.helptext import settings_table
    from relreason.records.context import wrap_line

    lines: list[str] = []
    for name, entry in data["benchmarks"].items():
        lines += wrap_line(f"{name}: {entry['title']}", "", "  ")
        for key, value in entry.items():
            if key in ("title", "paper_models", "settings", "grid"):
                continue
            shown = value
            if isinstance(value, list):
                shown = ", ".join(str(v) for v in value)
            elif isinstance(value, dict):
                shown = ", ".join(f"{k} ({v})" for k, v in value.items())
            lines += wrap_line(f"{key}: {shown}", "  ", "    ")
        if entry.get("settings"):
            table = settings_table(entry["settings"]).splitlines()[1:]  # without click's marker
            lines += ["  " + line for line in table]
        if entry["paper_models"]:
            models = ", ".join(entry["paper_models"])
            lines += wrap_line(f"paper models (for --compare): {models}", "  ", "    ")
    lines.append("model backends (--model):")
    for info in data["backends"].values():
        can = [c for c in ("logprobs", "choice_scoring", "free") if info[c]]
        lines += wrap_line(
            f"{info['form']}: {info['summary']} [{', '.join(can) or '-'}]", "  ", "    "
        )
        for option, text in info["options"].items():
            lines += wrap_line(f"{option}: {text}", "      ", "        ")
    return "\n".join(lines)


def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List benchmarks, settings, languages, methods, paper model names and model backends."""
    data = listing()
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else _text(data))
