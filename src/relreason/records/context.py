"""What a run's accuracy means: chance, the baselines, the papers' figures, answer habits; and
the per-label breakdown as a table in a stable order.

The context is a plain JSON-ready dict (``RunSummary.context``, written to ``summary.json``)::

    {"chance": 0.5,                                  # mean of 1/len(choices) over the items
     "baselines": {"random": 0.49, "first": 0.5},    # the same items, answered without a model
     "paper": {"source": ..., "cell": ..., "figures": {model: accuracy}} | None,
     "answers": {"letter": "A", "count": 328, "answered": 328, "n": 328,
                 "gold_count": 164, "habit": True}}

It is built by :func:`relreason.run.context.task_context` (which knows the task, the baselines
and the benchmark's paper table); this module only computes what the records and items alone
give, and turns a context into text lines of at most 80 characters.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from relreason.records.record import Record
from relreason.types import EvalItem

HABIT_SHARE = 0.8
"""A model "picked one letter for most items" when that letter is at least this share of its
answers (and it answered at least :data:`HABIT_MIN_ANSWERS` items)."""
HABIT_MIN_ANSWERS = 10
BASELINE_NAMES = {"first": "always-first baseline", "random": "random baseline"}
WIDTH = 80
"""The widest line the summary text has (a terminal of 80 columns, or a log)."""


def chance_level(items: Iterable[EvalItem]) -> float | None:
    """The accuracy of a uniform random guess: the mean of 1/len(choices) over ``items``."""
    shares = [1 / len(item.choices) for item in items if item.choices]
    return sum(shares) / len(shares) if shares else None


def answer_habit(records: Iterable[Record]) -> dict[str, Any] | None:
    """The letter answered most often, how often, and whether that is a habit.

    Returns None when no record has an answer. ``habit`` is True when the letter makes up at
    least :data:`HABIT_SHARE` of at least :data:`HABIT_MIN_ANSWERS` answers; ``gold_count`` says
    how many items have that letter as their right answer (what always answering it would score).
    """
    answers: Counter[str] = Counter()
    golds: Counter[str] = Counter()
    n = 0
    for record in records:
        n += 1
        golds[str(record.gold)] += 1
        answer = record.answer
        if answer is not None:
            answers[str(answer)] += 1
    if not answers:
        return None
    answered = sum(answers.values())
    # ties broken by the letter, so the same records always give the same note
    letter, count = min(answers.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "letter": letter,
        "count": count,
        "answered": answered,
        "n": n,
        "gold_count": golds.get(letter, 0),
        "habit": answered >= HABIT_MIN_ANSWERS and count >= HABIT_SHARE * answered,
    }


def label_sort_key(value: str) -> tuple[int, float, str, str]:
    """Sort key for label values: numbers in numeric order first, then text alphabetically
    (case-blind, then case-sensitive, so any two different values have one order)."""
    try:
        return (0, float(value), "", value)
    except ValueError:
        return (1, 0.0, value.casefold(), value)


def sorted_breakdown(
    by_label: Mapping[str, Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, dict[str, float]]]:
    """``by_label`` with label names and their values in a stable (sorted) order."""
    return {
        name: {value: dict(values[value]) for value in sorted(values, key=label_sort_key)}
        for name, values in sorted(by_label.items())
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def wrap_line(text: str, indent: str = "  ", more: str = "    ") -> list[str]:
    """``text`` as summary lines of at most 80 characters (a long word, e.g. a path, whole)."""
    return textwrap.wrap(
        text,
        width=WIDTH,
        initial_indent=indent,
        subsequent_indent=more,
        break_on_hyphens=False,
        break_long_words=False,
    )


def _paper_text(paper: Mapping[str, Any]) -> str:
    figures = dict(paper.get("figures") or {})
    ranked = sorted(figures.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{model} {accuracy:.3f}" for model, accuracy in ranked)
    return f"paper, {paper.get('source')} ({paper.get('cell')}): {shown}"


def _habit_text(answers: Mapping[str, Any]) -> str:
    letter, count, n = answers["letter"], answers["count"], answers["n"]
    return (
        f"note: the model answered {letter!r} to {count} of {n} items (the right answer is "
        f"{letter!r} for {answers['gold_count']}): a habit of position, not reasoning"
    )


def _versus(interval: Sequence[float], name: str, value: float) -> str:
    if interval[0] <= value <= interval[1]:
        return f"not distinguishable from {name} ({value:.3f})"
    return f"{'below' if interval[1] < value else 'above'} {name} ({value:.3f})"


def verdict_text(
    accuracy: float,
    interval: Sequence[float],
    chance: float | None,
    baselines: Mapping[str, float | None],
) -> str:
    """Where ``accuracy`` (95% ``interval``) stands against chance and the best baseline."""
    parts = [] if chance is None else [_versus(interval, "chance", chance)]
    known = {name: value for name, value in baselines.items() if value is not None}
    if known:
        name, value = max(sorted(known.items()), key=lambda kv: kv[1])
        parts.append(_versus(interval, f"the {BASELINE_NAMES.get(name, name)}", value))
    return f"accuracy {accuracy:.3f}: " + ("; ".join(parts) or "no reference")


def context_lines(
    context: Mapping[str, Any], accuracy: float, interval: Sequence[float] | None = None
) -> list[str]:
    """The context as text lines (each at most 80 characters)."""
    if not context:
        return []
    lines: list[str] = []
    chance = context.get("chance")
    parts = [f"chance {_fmt(chance)}"]
    baselines = context.get("baselines") or {}
    parts += [
        f"{BASELINE_NAMES.get(name, name)} {_fmt(value)}"
        for name, value in sorted(baselines.items())
    ]
    lines += wrap_line("context (same items): " + "; ".join(parts))
    if interval:
        lines += wrap_line(verdict_text(accuracy, interval, chance, baselines))
    paper = context.get("paper")
    if paper and paper.get("figures"):
        lines += wrap_line(_paper_text(paper))
    answers = context.get("answers")
    if answers and answers.get("habit"):
        lines += wrap_line(_habit_text(answers))
    return lines


def breakdown_lines(by_label: Mapping[str, Mapping[str, Mapping[str, float]]]) -> list[str]:
    """Every label's breakdown as a table (value, n, correct, accuracy), sorted, 80 columns."""
    lines: list[str] = []
    for name, values in sorted_breakdown(by_label).items():
        if not values:
            continue
        width = min(max(len(name) + 3, *(len(v) for v in values)), WIDTH - 30)
        lines.append(f"  {'by ' + name:<{width}}  {'n':>6}  {'correct':>7}  {'accuracy':>8}")
        for value, cell in values.items():
            shown = value if len(value) <= width else value[: width - 1] + "~"
            lines.append(
                f"  {shown:<{width}}  {int(cell['n']):>6}  {int(cell['correct']):>7}  "
                f"{cell['accuracy']:>8.3f}"
            )
    return lines
