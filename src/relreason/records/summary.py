"""A run's summary: accuracy with a Wilson 95% interval, counts per status, accuracy per label
(relation, source, category, ...), tokens and cost; and its short text form."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason.records.context import (
    WIDTH,
    breakdown_lines,
    context_lines,
    sorted_breakdown,
    wrap_line,
)
from relreason.records.record import Record

STATUSES = ("correct", "wrong", "unparseable", "no_answer", "failed")


@dataclass
class RunSummary:
    """What a finished (or partly finished) run amounts to.

    ``accuracy`` is over all ``n`` items (failed ones count as not correct); ``statuses`` counts
    each status; ``by_label`` maps a label name to value -> ``{"n", "correct", "accuracy"}``.
    ``answered`` counts the items that got a response (every status but ``failed``);
    ``most_common_error`` is the commonest error among failed items (with its count).
    ``partial`` is set when the run covers only part of its task (``--limit``/``--sample``):
    ``n_task`` is then the task's full size.
    """

    out_dir: str
    task: str
    model: str
    n: int
    correct: int
    accuracy: float
    statuses: dict[str, int]
    by_label: dict[str, dict[str, dict[str, float]]]
    usage: dict[str, int]
    cost_usd: float | None
    cached: int
    complete: bool
    elapsed_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)
    """What the accuracy means (chance, baselines, paper figures, answer habit): see
    :mod:`relreason.records.context`; empty when the run's task was not at hand."""
    answered: int = 0
    most_common_error: str | None = None
    most_common_error_count: int = 0
    partial: bool = False
    n_task: int | None = None
    out_is_file: bool = False

    @property
    def failed(self) -> int:
        """The number of items whose request failed for good."""
        return self.statuses.get("failed", 0)

    @property
    def counts(self) -> dict[str, int]:
        """The number of items per status (the same as ``statuses``)."""
        return self.statuses

    def __str__(self) -> str:
        return format_summary(self)

    def to_json(self) -> dict[str, Any]:
        """Return the summary as a JSON-ready dict."""
        data = dict(self.__dict__)
        data["failed"] = self.failed
        return data


def _label_values(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


def summarize(
    records: Iterable[Record],
    *,
    out_dir: Path,
    task: str,
    model: str,
    cost_usd: float | None,
    complete: bool,
    elapsed_s: float = 0.0,
    group_by: Sequence[str] | None = None,
) -> RunSummary:
    """Return the :class:`RunSummary` of ``records``.

    Accuracy is broken down by the labels in ``group_by`` (all labels when None); a label with a
    list value counts the item under each of its values. ``extra["accuracy_ci95"]`` holds the
    Wilson 95% interval of the accuracy.
    """
    records = list(records)
    statuses = dict.fromkeys(STATUSES, 0)
    by_label: dict[str, dict[str, dict[str, float]]] = {}
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    n = correct = cached = 0
    errors: Counter[str] = Counter()
    for record in records:
        n += 1
        status = str(record.status)
        if status == "failed":
            errors[record.error or "no response"] += 1
        statuses[status] = statuses.get(status, 0) + 1
        hit = status == "correct"
        correct += hit
        cached += bool(record.cached)
        for key in usage:
            usage[key] += int(record.usage.get(key, 0))
        for name, value in record.labels.items():
            if group_by is not None and name not in group_by:
                continue
            for one in _label_values(value):
                cell = by_label.setdefault(name, {}).setdefault(one, {"n": 0, "correct": 0})
                cell["n"] += 1
                cell["correct"] += hit
    for values in by_label.values():
        for cell in values.values():
            cell["accuracy"] = cell["correct"] / cell["n"]
    summary = RunSummary(
        out_dir=str(out_dir),
        task=task,
        model=model,
        n=n,
        correct=correct,
        accuracy=correct / n if n else 0.0,
        statuses=statuses,
        by_label=sorted_breakdown(by_label),
        usage=usage,
        cost_usd=cost_usd,
        cached=cached,
        complete=complete,
        elapsed_s=elapsed_s,
        answered=n - statuses.get("failed", 0),
    )
    if errors:
        summary.most_common_error, summary.most_common_error_count = errors.most_common(1)[0]
    summary.extra["accuracy_ci95"] = list(wilson_interval(correct, n))
    audit = reading_audit(records)
    if audit is not None:
        summary.extra["reading_audit"] = audit
    _add_permutation(summary, records)
    _add_epochs(summary, records)
    return summary


def _add_epochs(summary: RunSummary, records: list[Record]) -> None:
    """Epoch figures (``--epochs`` runs only) go in ``extra["epochs"]``."""
    from relreason.records.epochs import epoch_stats

    stats = epoch_stats(records)
    if stats is not None:
        summary.extra["epochs"] = stats


def _add_permutation(summary: RunSummary, records: list[Record]) -> None:
    """Option-order figures (``--permute`` runs only) go in ``extra["permutation"]``."""
    from relreason.records.permutation import permutation_stats

    stats = permutation_stats(records)
    if stats is not None:
        summary.extra["permutation"] = stats


def reading_audit(records: Sequence[Record]) -> dict[str, Any] | None:
    """Accuracy under the record's own reader and under its second reading (``alt``), the
    number of items whose answers differ, and how many items each rule alone reads right.
    None when no record carries a second reading. Failed items count as wrong under both."""
    with_alt = [(r, r.alt) for r in records if r.alt is not None]
    if not with_alt:
        return None
    n = len(records)
    first = sum(r.status == "correct" for r in records)
    second = sum(alt.correct for _, alt in with_alt)
    return {
        "reader": with_alt[0][0].reader,
        "alt_reader": with_alt[0][1].reader,
        "accuracy": first / n if n else None,
        "alt_accuracy": second / n if n else None,
        "answers_differ": sum(r.answer != alt.answer for r, alt in with_alt),
        "only_reader_correct": sum(
            r.status == "correct" and not alt.correct for r, alt in with_alt
        ),
        "only_alt_correct": sum(r.status != "correct" and alt.correct for r, alt in with_alt),
        "paper_rule_cleanup": sum(
            "paper_rule_cleanup" in (r.method, alt.method) for r, alt in with_alt
        ),
        "alt_read": sum(alt.answer is not None for _, alt in with_alt),
    }


def _audit_zero(audit: Mapping[str, Any], n: int) -> str:
    """Why the second rule scored 0.0000, in a few words ("" when it did not)."""
    if audit.get("alt_accuracy") != 0 or not n or "alt_read" not in audit:
        return ""
    read = audit["alt_read"]
    if read == 0:
        return (
            f"; {audit['alt_reader']} reads none of the {n} answers (its rule finds no answer "
            "in this model's outputs)"
        )
    return f"; {audit['alt_reader']} read {read} answer(s), none right"


def wilson_interval(correct: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of ``correct / n`` (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = correct / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def _interval_text(summary: RunSummary) -> str:
    interval = summary.extra.get("accuracy_ci95")
    return f"; 95% CI {interval[0]:.3f}-{interval[1]:.3f}" if interval else ""


def _accuracy_text(summary: RunSummary) -> str:
    if summary.n and not summary.answered:
        return f"accuracy n/a (no item was answered: {summary.failed} failed)"
    if not summary.n:
        return "accuracy n/a (no items)"
    return (
        f"accuracy {summary.accuracy:.4f} ({summary.correct}/{summary.n}{_interval_text(summary)})"
    )


def _marks(summary: RunSummary) -> str:
    marks = "" if summary.complete else " [incomplete]"
    if summary.partial:
        of = f" of {summary.n_task}" if summary.n_task is not None else ""
        marks += f" [partial: {summary.n}{of} items]"
    return marks


def format_summary(summary: RunSummary) -> str:
    """Return a human-readable text of ``summary`` (for printing; lines fit 80 columns).

    A run with no number worth reading opens with its ``extra["verdict"]`` (all failed, or no
    readable answer, with the likely cause). Accuracy is shown as ``n/a`` when no item was
    answered (never as 0.0000). Its context
    (chance, baselines, paper figures, answer habit) follows the counts, then every label's full
    breakdown as a table, then failed items with their most common error.
    """
    said = summary.extra.get("verdict")
    who = f"{summary.task} on {summary.model}:"
    score = f"{_accuracy_text(summary)}{_marks(summary)}"
    headline = [f"{who} {score}"] if len(who) + len(score) < WIDTH else [who, "  " + score]
    lines = [
        *(wrap_line(said, indent="", more="  ") if said else []),  # first: no number to read
        *headline,
        "  " + ", ".join(f"{k} {v}" for k, v in summary.statuses.items()),
        f"  tokens: {summary.usage['prompt_tokens']} in, {summary.usage['completion_tokens']} out"
        + (f"; est. cost ${summary.cost_usd:.4f}" if summary.cost_usd is not None else "")
        + f"; {summary.cached} cached",
    ]
    audit = summary.extra.get("reading_audit")
    if audit and audit.get("alt_accuracy") is not None:
        lines += wrap_line(
            f"reading audit: {audit['reader']} {audit['accuracy']:.4f} vs "
            f"{audit['alt_reader']} {audit['alt_accuracy']:.4f}; answers differ on "
            f"{audit['answers_differ']} item(s)"
            + _audit_zero(audit, summary.n)
            + (
                f"; {audit['paper_rule_cleanup']} left for the paper's clean-up model"
                if audit["paper_rule_cleanup"]
                else ""
            )
        )
    lines += context_lines(summary.context, summary.accuracy, summary.extra.get("accuracy_ci95"))
    lines += breakdown_lines(summary.by_label)
    if "permutation" in summary.extra:
        from relreason.records.permutation import format_permutation

        lines += format_permutation(summary.extra["permutation"])
    if "epochs" in summary.extra:
        from relreason.records.epochs import format_epochs

        lines += format_epochs(summary.extra["epochs"])
    if summary.failed:
        lines += wrap_line(
            f"{summary.failed} item(s) failed; most common error "
            f"({summary.most_common_error_count}x): {summary.most_common_error}"
        )
    lines.append(f"  {'file' if summary.out_is_file else 'folder'}: {summary.out_dir}")
    return "\n".join(lines)
