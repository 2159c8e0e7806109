"""``audit``: how far surface heuristics and trained probes get on a generated file, against
chance.

Every heuristic of ``heuristics.battery`` and ``rules.RULES`` is scored on every item (expected
score: ties and abstentions count as random picks); every probe of ``probes.FAMILIES`` is
trained on another set (``train``: another seed's file) or, without one, on the other half of
the file (two folds, by item position) and scored on the items it did not see. Each is
reported with its accuracy, a 95% Wilson interval (``records.summary.wilson_interval``) and
chance (the mean of 1/n over the items), and the same per domain and per language, with
intervals widened for the number of groups (Bonferroni: the groups of one row together at 95%).
A set gives a rule nothing when chance lies inside its interval overall and in every group;
``passed`` says whether every rule does. Rates that are not rules (the share of "Uncertain"
answers per language and domain, of all-tie order items) are reported beside them, and so is
the proof depth of every item (``depth``), per language and domain.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

from relreason.errors import DataError
from relreason.generate import heuristics, probes
from relreason.generate.depth import proof_depth
from relreason.generate.errors import SolverError
from relreason.generate.records import read_items
from relreason.generate.rules import RULES
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
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per domain and per language: n, accuracy, low, high (Bonferroni-widened), chance."""
    trained: bool = False
    """A trained probe: only a score above chance is a shortcut (one below it is a probe that
    learnt noise from its training set); a hand rule's complement is a rule too, so a hand rule
    must hold chance both ways."""

    @property
    def holds_chance(self) -> bool:
        """Whether chance lies inside the 95% interval (for a trained probe: not below its low
        end), overall and in every group."""
        if self.trained:
            return self.low <= self.chance and all(
                g["low"] <= g["chance"] for g in self.groups.values()
            )
        inside = all(g["low"] <= g["chance"] <= g["high"] for g in self.groups.values())
        return self.low <= self.chance <= self.high and inside

    @property
    def worst(self) -> str:
        """The group farthest from chance (in interval widths), as text; '' without groups."""
        if not self.groups:
            return ""
        name, g = max(
            self.groups.items(),
            key=lambda kv: (
                abs(kv[1]["accuracy"] - kv[1]["chance"]) / max(kv[1]["high"] - kv[1]["low"], 1e-9)
            ),
        )
        return f"{name} {g['accuracy']:.2f} ({g['low']:.2f}-{g['high']:.2f})"


@dataclass(frozen=True)
class Audit:
    """The heuristics' rows and the set's rates."""

    file: str
    n_items: int
    rows: tuple[Row, ...]
    uncertain_share: dict[str, float]
    all_ties_share: float
    depths: dict[str, dict[int, int]] = field(default_factory=dict)
    """Per language/domain: how many items of each proof depth (``depth``, measured again)."""
    depth_not_hops: int = 0
    """Items whose measured proof depth differs from their ``hops``."""

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
            "heuristics": [
                {**asdict(row), "holds_chance": row.holds_chance, "worst": row.worst}
                for row in self.rows
            ],
            "uncertain_share": self.uncertain_share,
            "all_ties_share": self.all_ties_share,
            "depths": self.depths,
            "depth_not_hops": self.depth_not_hops,
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


def _row(
    name: str, items: Sequence[Mapping[str, Any]], got: Sequence[float], trained: bool = False
) -> Row:
    """Return a rule's row from its expected score on each item (overall and per group)."""
    keys = [f"{kind}:{item.get(kind, '?')}" for kind in ("domain", "language") for item in items]
    names = sorted(set(keys))
    z = NormalDist().inv_cdf(1 - 0.05 / (2 * max(len(names), 1)))
    groups: dict[str, dict[str, float]] = {}
    for group in names:
        kind, _, value = group.partition(":")
        mine = [
            (s, item)
            for s, item in zip(got, items, strict=True)
            if str(item.get(kind, "?")) == value
        ]
        total = sum(s for s, _ in mine)
        low, high = wilson_interval(round(total), len(mine), z)
        chance = sum(1.0 / len(item["options"]) for _, item in mine) / len(mine)
        groups[group] = {
            "n": len(mine),
            "accuracy": total / len(mine),
            "low": low,
            "high": high,
            "chance": chance,
        }
    total = sum(got)
    low, high = wilson_interval(round(total), len(items))  # expected count, rounded
    chance = sum(1.0 / len(item["options"]) for item in items) / len(items)
    return Row(name, len(items), total / len(items), low, high, chance, groups, trained)


def _probe_scores(
    items: Sequence[Mapping[str, Any]],
    train: Sequence[Mapping[str, Any]] | None,
    families: Sequence[probes.Features],
) -> list[float]:
    """A probe's score on each item: trained on ``train``, or on the other fold of ``items``."""
    if train is not None:
        return probes.probe_scores(train, items, families)
    folds = (list(items[0::2]), list(items[1::2]))
    if not folds[0] or not folds[1]:
        return [1.0 / len(item["options"]) for item in items]
    first = probes.probe_scores(folds[1], folds[0], families)
    second = probes.probe_scores(folds[0], folds[1], families)
    merged = [0.0] * len(items)
    merged[0::2], merged[1::2] = first, second
    return merged


def audit_items(
    items: Sequence[Any],
    file: str = "(items)",
    train: Sequence[Any] | None = None,
    trained: bool = True,
) -> Audit:
    """Return the audit of generated items; probes train on ``train`` (else on the other
    half of ``items``), none when ``trained`` is false. Raises ``DataError`` for items it cannot
    read."""
    checked = _checked(items, file)
    if not checked:
        raise DataError(file, "no items")
    fitted = _checked(train, "(training set)") if train is not None else None
    most = max(len(item["options"]) for item in checked)
    rules = {**heuristics.battery(min(most, 7)), **RULES}
    rows: list[Row] = []
    for name, rule in rules.items():
        got = [
            heuristics.score(rule(item), heuristics.gold_index(item), len(item["options"]))
            for item in checked
        ]
        rows.append(_row(name, checked, got))
    if trained:
        for name, families in probes.FAMILIES.items():
            rows.append(_row(name, checked, _probe_scores(checked, fitted, families), True))
    groups: Counter[str] = Counter()
    unsure: Counter[str] = Counter()
    for item in checked:
        key = f"{item.get('language', '?')}/{item['domain']}"
        groups[key] += 1
        unsure[key] += item.get("answer") == "uncertain"
    depths: dict[str, Counter[int]] = {}
    off = 0
    for item in checked:
        try:
            found = proof_depth(item["premises"], item["query"], item["language"], item["domain"])
        except (SolverError, KeyError, TypeError, ValueError):
            found = -1  # unreadable premises: ``verify`` names them
        depths.setdefault(f"{item.get('language', '?')}/{item['domain']}", Counter())[found] += 1
        off += found != item.get("hops")
    order = [item for item in checked if item["domain"] == "order"]
    ties = sum(heuristics.all_ties(item) is not None for item in order)
    return Audit(
        file=file,
        n_items=len(checked),
        rows=tuple(rows),
        uncertain_share={key: unsure[key] / groups[key] for key in sorted(groups)},
        all_ties_share=ties / len(order) if order else 0.0,
        depths={key: dict(sorted(c.items())) for key, c in sorted(depths.items())},
        depth_not_hops=off,
    )


def audit(file: Path | str, train: Path | str | None = None, trained: bool = True) -> Audit:
    """Return the audit of a generated file, the probes trained on ``train`` (another seed's
    file; else the file's other half). Raises ``DataError`` for a bad file."""
    fitted = read_items(train) if train is not None else None
    return audit_items(read_items(file), str(file), fitted, trained)


def table(result: Audit) -> str:
    """Return the audit as a plain-text table (one heuristic per line)."""
    lines = [
        f"{result.file}: {result.n_items} items",
        f"{'rule or probe':48} {'accuracy':>8}  {'95% interval':>13}  {'chance':>6}  holds"
        "  farthest group (accuracy, interval)",
    ]
    for row in result.rows:
        mark = "yes" if row.holds_chance else "NO "
        lines.append(
            f"{row.heuristic:48} {row.accuracy:8.3f}  {row.low:.3f}-{row.high:.3f}"
            f"  {row.chance:6.3f}  {mark}  {row.worst}"
        )
    shares = ", ".join(f"{k} {v:.2f}" for k, v in result.uncertain_share.items())
    lines.append(f"'Uncertain' answers by language/domain: {shares}")
    lines.append(f"order items whose premises are all ties: {result.all_ties_share:.3f}")
    shown = "; ".join(
        f"{key} " + " ".join(f"{d}:{n}" for d, n in found.items())
        for key, found in result.depths.items()
    )
    lines.append(f"proof depth (depth:items) by language/domain: {shown}")
    lines.append(f"items whose proof depth is not their hops: {result.depth_not_hops}")
    lines.append(
        "every rule and probe holds chance"
        if result.passed
        else "some rule or probe beats or trails chance"
    )
    return "\n".join(lines)
