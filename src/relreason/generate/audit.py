"""``audit``: how far surface heuristics get on a generated file, against chance.

Every heuristic of ``heuristics.battery`` is scored on every item (expected score: ties and
abstentions count as random picks), and reported with its accuracy, a 95% Wilson interval
(``records.summary.wilson_interval``) and chance (the mean of 1/n over the items). A set gives a
heuristic nothing when chance lies inside its interval; ``passed`` says whether every
heuristic does. Rates that are not heuristics (the share of "Uncertain" answers per language
and domain, of all-tie order items) are reported beside them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from relreason.errors import DataError
from relreason.generate import heuristics
from relreason.generate.records import read_items
from relreason.records.summary import wilson_interval


@dataclass(frozen=True)
class Row:
    """One heuristic's result over a set."""

    heuristic: str
    n: int
    accuracy: float
    low: float
    high: float
    chance: float

    @property
    def holds_chance(self) -> bool:
        """Whether chance lies inside the 95% interval."""
        return self.low <= self.chance <= self.high


@dataclass(frozen=True)
class Audit:
    """The heuristics' rows and the set's rates."""

    file: str
    n_items: int
    rows: tuple[Row, ...]
    uncertain_share: dict[str, float]
    all_ties_share: float

    @property
    def passed(self) -> bool:
        """Whether every heuristic's interval holds chance."""
        return all(row.holds_chance for row in self.rows)

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict (rows with ``holds_chance``)."""
        return {
            "file": self.file,
            "n_items": self.n_items,
            "passed": self.passed,
            "heuristics": [{**asdict(row), "holds_chance": row.holds_chance} for row in self.rows],
            "uncertain_share": self.uncertain_share,
            "all_ties_share": self.all_ties_share,
        }


def _checked(items: Sequence[Any], file: str) -> list[Mapping[str, Any]]:
    wanted = ("question", "options", "correct", "option_labels", "premises", "query", "domain")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise DataError(file, "not an object", item=f"[{i}]")
        for name in wanted:
            if name not in item:
                where = str(item.get("id", f"[{i}]"))
                raise DataError(file, "missing (not a generated item)", item=where, field=name)
        if item["correct"] not in item["options"]:
            raise DataError(
                file, "not among the options", item=str(item.get("id")), field="correct"
            )
    return list(items)


def audit_items(items: Sequence[Any], file: str = "(items)") -> Audit:
    """Return the audit of generated items. Raises ``DataError`` for items it cannot read."""
    checked = _checked(items, file)
    if not checked:
        raise DataError(file, "no items")
    most = max(len(item["options"]) for item in checked)
    chance = sum(1.0 / len(item["options"]) for item in checked) / len(checked)
    rows: list[Row] = []
    for name, rule in heuristics.battery(min(most, 7)).items():
        total = 0.0
        for item in checked:
            total += heuristics.score(rule(item), heuristics.gold_index(item), len(item["options"]))
        low, high = wilson_interval(round(total), len(checked))  # expected count, rounded
        rows.append(Row(name, len(checked), total / len(checked), low, high, chance))
    groups: Counter[str] = Counter()
    unsure: Counter[str] = Counter()
    for item in checked:
        key = f"{item.get('language', '?')}/{item['domain']}"
        groups[key] += 1
        unsure[key] += item.get("answer") == "uncertain"
    order = [item for item in checked if item["domain"] == "order"]
    ties = sum(heuristics.all_ties(item) is not None for item in order)
    return Audit(
        file=file,
        n_items=len(checked),
        rows=tuple(rows),
        uncertain_share={key: unsure[key] / groups[key] for key in sorted(groups)},
        all_ties_share=ties / len(order) if order else 0.0,
    )


def audit(file: Path | str) -> Audit:
    """Return the audit of a generated file. Raises ``DataError`` for a bad file."""
    return audit_items(read_items(file), str(file))


def table(result: Audit) -> str:
    """Return the audit as a plain-text table (one heuristic per line)."""
    lines = [
        f"{result.file}: {result.n_items} items",
        f"{'heuristic':38} {'accuracy':>8}  {'95% interval':>13}  {'chance':>6}  holds chance",
    ]
    for row in result.rows:
        mark = "yes" if row.holds_chance else "NO"
        lines.append(
            f"{row.heuristic:38} {row.accuracy:8.3f}  {row.low:.3f}-{row.high:.3f}"
            f"  {row.chance:6.3f}  {mark}"
        )
    shares = ", ".join(f"{k} {v:.2f}" for k, v in result.uncertain_share.items())
    lines.append(f"'Uncertain' answers by language/domain: {shares}")
    lines.append(f"order items whose premises are all ties: {result.all_ties_share:.3f}")
    lines.append(
        "every heuristic holds chance" if result.passed else "some heuristic beats or trails chance"
    )
    return "\n".join(lines)
