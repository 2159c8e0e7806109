"""``relreason translate``: a benchmark file (MCR format or generated) into another language."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from relreason.cli.declared import option_template
from relreason.cli.options import ModelOpt, gather_options
from relreason.declare import plain
from relreason.models.options import OPTION_HELP, ModelOptions
from relreason.models.registry import DEFAULT_MODEL
from relreason.run.settings import RunSettings
from relreason.translate.prompt import MAX_NEW_TOKENS, REQUEST_TIMEOUT


@gather_options(
    option_template(ModelOptions, only=("base_urls", "api", "chat_template", "device", "dtype")),
    "backend",
    dict,
)
@gather_options(option_template(RunSettings, only=("limit", "concurrency")), "run", dict)
def translate_command(
    file: Annotated[Path, typer.Argument(help="A JSON list of items (MCR format or generated).")],
    to: Annotated[str, typer.Option("--to", help="Target language: a code (de, fr, ...) or name.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the translated file.")],
    model: ModelOpt = DEFAULT_MODEL,
    source_language: Annotated[
        str | None,
        typer.Option("--from", help="Source language (default: the items' own, else en)."),
    ] = None,
    max_new_tokens: Annotated[
        int, typer.Option(min=16, help="Longest reply per item (the translated JSON).")
    ] = MAX_NEW_TOKENS,
    request_timeout: Annotated[
        float, typer.Option(min=0.1, help=OPTION_HELP["timeout"])
    ] = REQUEST_TIMEOUT,
    *,
    backend: dict[str, Any],
    run: dict[str, Any],
) -> None:
    """Translate a benchmark file with a model, keeping option count, gold option and distinct
    options; items failing a check are flagged (OUT.flagged.jsonl), model and prompt recorded
    (OUT.meta.json)."""
    from relreason.models.registry import load_backend
    from relreason.translate import translate_file

    given = {k: plain(v) for k, v in backend.items() if v is not None}
    options = ModelOptions.from_json({**given, "timeout": request_timeout})
    engine = load_backend(model, options)
    result = translate_file(
        file,
        to,
        engine,
        out,
        source_language=source_language,
        **run,
        max_new_tokens=max_new_tokens,
        request_timeout=request_timeout,
    )
    typer.echo(str(result))
