"""``relreason generate``: compose proved questions, verify and audit a file, converse sets.

A typer sub-application; the main CLI mounts it with ``app.add_typer(generate_app,
name="generate")``. User errors are ``RelreasonError``s, printed by the main CLI without a
traceback. It lives in
``cli/``, not ``generate/``: importing any module of ``generate/`` runs its package, which
imports the whole generator, and the command line is built at every start.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from relreason.errors import UsageError

generate_app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate relation benchmarks: composed questions proved by a solver, converse sets.",
)
err = Console(stderr=True)


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def parse_hops(value: str) -> tuple[int, ...]:
    """Return hop counts from ``"3"``, ``"2-6"`` or ``"2,4,6"``; raises ``UsageError``."""
    hops: list[int] = []
    try:
        for part in _split(value):
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                hops += list(range(low, high + 1))
            else:
                hops.append(int(part))
    except ValueError:
        raise UsageError(f"bad --hops {value!r}: expected e.g. 3, 2-6 or 2,4,6") from None
    if not hops:
        raise UsageError(f"bad --hops {value!r}: no hop count")
    return tuple(hops)


def parse_choice(value: str, valid: tuple[str, ...], what: str) -> tuple[str, ...]:
    """Return the comma-separated names of ``value`` (``all`` = every one); checks each."""
    names = list(valid) if value.strip() == "all" else _split(value)
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise UsageError(
            f"unknown {what} {', '.join(bad) or '(none)'}; valid: {', '.join(valid)}, all"
        )
    return tuple(names)


@generate_app.command("compose")
def compose_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="The JSON file to write.")],
    language: Annotated[
        str, typer.Option("--language", "-l", help="en, zh, fr, ja, ko (comma list) or all.")
    ] = "en",
    domain: Annotated[
        str,
        typer.Option(
            help="kinship, position, order, quantity, identity, containment (comma list) or all."
        ),
    ] = "all",
    hops: Annotated[
        str,
        typer.Option(
            help="Proof depth per question (the premises its answer takes; filler aside): 3, 2-6"
            " or 2,4,6 (cycled)."
        ),
    ] = "2-6",
    options: Annotated[int, typer.Option("--options", help="Options per question (2-7).")] = 4,
    uncertain: Annotated[
        bool,
        typer.Option("--uncertain/--no-uncertain", help="Offer 'Uncertain' (sometimes right)."),
    ] = True,
    fictional: Annotated[
        bool, typer.Option("--fictional-names", help="Invented names only.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Random seed (same seed, same file).")] = 0,
    count: Annotated[int, typer.Option(help="Questions per language.")] = 100,
) -> None:
    """Write MCR-format questions whose answers a solver proved from their formal premises."""
    from relreason.generate.compose import DOMAINS, ComposeOptions, compose
    from relreason.generate.lexicon import LANGUAGES
    from relreason.generate.records import write_items

    languages = parse_choice(language, LANGUAGES, "language")
    domains = parse_choice(domain, DOMAINS, "domain")
    started = time.perf_counter()
    items = []
    for code in languages:
        items += compose(
            ComposeOptions(
                language=code,
                domains=domains,
                hops=parse_hops(hops),
                n_options=options,
                uncertain=uncertain,
                fictional=fictional,
                seed=seed,
                count=count,
            )
        )
    elapsed = time.perf_counter() - started
    write_items(items, out)
    rate = len(items) / elapsed if elapsed > 0 else float("inf")
    err.print(f"wrote {len(items)} questions to {escape(str(out))} ({rate:.0f} per second)")


@generate_app.command("verify")
def verify_command(
    file: Annotated[Path, typer.Argument(help="A file written by compose.")],
) -> None:
    """Re-prove every question of FILE with the solver; exit 2 listing the problems."""
    from relreason.generate.verify import verify

    problems = verify(file)
    if problems:
        for problem in problems:
            typer.echo(str(problem))
        err.print(f"[red]{len(problems)} problem(s)[/] in {escape(str(file))}")
        raise typer.Exit(2)
    err.print(f"every question of {escape(str(file))} is proved")


@generate_app.command("audit")
def audit_command(
    file: Annotated[Path, typer.Argument(help="A file written by compose (or your own).")],
    train: Annotated[
        Path | None,
        typer.Option(
            help="Train the probes on this file (another seed's set); else on FILE's other half."
        ),
    ] = None,
    probes: Annotated[
        bool, typer.Option("--probes/--no-probes", help="Train the probes (slower).")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Score surface rules and trained probes (no reasoning) on FILE against chance, overall,
    per domain and per language; exit 1 if a rule beats or trails chance, or a probe beats it
    (its 95% interval, the groups' widened for their number, leaves chance out)."""
    from relreason.generate.audit import audit, table

    result = audit(file, train, probes)
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        typer.echo(table(result))
    if not result.passed:
        raise typer.Exit(1)


@generate_app.command("converse")
def converse_command(
    definitions: Annotated[Path, typer.Argument(help="Relation definitions and examples (JSON).")],
    triples: Annotated[Path, typer.Argument(help="Triples: CSV head,relation,tail or JSON.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Data folder to write convre/ into.")],
    subset_size: Annotated[
        int, typer.Option(min=1, help="Triples per relation in the subset file.")
    ] = 20,
) -> None:
    """Build ConvRe files from your own triples; run them with --data-dir OUT."""
    from relreason.generate.converse import converse as build_converse

    folder = build_converse(definitions, triples, out, subset_size=subset_size)
    err.print(f"wrote the ConvRe files to {escape(str(folder))}; use --data-dir {escape(str(out))}")
