"""Compare two runs of the same task item by item: a 2x2 table and McNemar's exact test.

Two accuracies can differ by chance; on the same items, the discordant pairs (right in one run,
wrong in the other) say whether they really differ. This is the MCR paper's Table 5 (each
model's agreement with GPT-4) for any two runs, with a significance test beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.records.folder import load_manifest, load_typed_records


@dataclass(frozen=True)
class Comparison:
    """Item-by-item comparison of run A and run B on the items both have.

    ``both``: right in both; ``only_a``/``only_b``: right in one only; ``neither``. ``same_answer``
    counts items where both read the same letter. ``p_value`` is McNemar's exact two-sided test.
    """

    run_a: str
    run_b: str
    n: int
    both: int
    only_a: int
    only_b: int
    neither: int
    same_answer: int
    p_value: float

    @property
    def accuracy_a(self) -> float:
        """Accuracy of run A on the shared items."""
        return (self.both + self.only_a) / self.n if self.n else 0.0

    @property
    def accuracy_b(self) -> float:
        """Accuracy of run B on the shared items."""
        return (self.both + self.only_b) / self.n if self.n else 0.0

    def to_json(self) -> dict[str, Any]:
        """Return the comparison as a JSON-ready dict."""
        return {
            **self.__dict__,
            "accuracy_a": self.accuracy_a,
            "accuracy_b": self.accuracy_b,
            "answer_agreement": self.same_answer / self.n if self.n else None,
            "p_log10": mcnemar_log10(self.only_a, self.only_b),
        }

    def __str__(self) -> str:
        agreement = self.same_answer / self.n if self.n else 0.0
        width = max(len("B right"), len(str(self.n)))
        return "\n".join(
            [
                f"A: {self.run_a}  (accuracy {self.accuracy_a:.4f})",
                f"B: {self.run_b}  (accuracy {self.accuracy_b:.4f})",
                f"{self.n} shared items; same answer on {self.same_answer} ({agreement:.1%})",
                f"{'':10}{'B right':>{width}}  {'B wrong':>{width}}",
                f"{'A right':10}{self.both:>{width}}  {self.only_a:>{width}}",
                f"{'A wrong':10}{self.only_b:>{width}}  {self.neither:>{width}}",
                f"McNemar exact test on the {self.only_a + self.only_b} discordant items: "
                f"{p_value_text(self.only_a, self.only_b)}",
            ]
        )


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: a binomial(n, 1/2) test of the discordant counts."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def mcnemar_log10(only_a: int, only_b: int) -> float:
    """log10 of :func:`mcnemar_exact`'s p-value, exact even where the p-value underflows."""
    n = only_a + only_b
    if n == 0:
        return 0.0
    k = min(only_a, only_b)
    twice_tail = 2 * sum(math.comb(n, i) for i in range(k + 1))  # an exact integer
    return min(0.0, math.log10(twice_tail) - n * math.log10(2))


def p_value_text(only_a: int, only_b: int) -> str:
    """``p = 0.0123``; a p-value too small for a float is written from its logarithm
    (``p = 3.1e-1234``), never as ``p = 0``."""
    p = mcnemar_exact(only_a, only_b)
    if p >= 1e-300:
        return f"p = {p:.4g}"
    log10 = mcnemar_log10(only_a, only_b)
    exponent = math.floor(log10)
    mantissa = 10 ** (log10 - exponent)
    if round(mantissa, 3) >= 10:  # 9.9996 would print as 10.000
        mantissa, exponent = 1.0, exponent + 1
    return f"p = {mantissa:.4g}e{exponent}"


def compare_runs(run_a: Path, run_b: Path) -> Comparison:
    """Compare two run folders of the same task on the items both have records for.

    Raises ``UsageError`` when either is not a run folder, when they ran different tasks (the
    benchmark, setting and data must match), or when they share no item.
    """
    manifests = [load_manifest(run_a), load_manifest(run_b)]
    tasks = [m.task for m in manifests]
    if tasks[0] != tasks[1]:
        raise UsageError(f"the runs are of different tasks: {tasks[0]} and {tasks[1]}")
    checksums = [m.data_checksums for m in manifests]
    if checksums[0] and checksums[1] and checksums[0] != checksums[1]:
        raise UsageError("the runs used different data files (their checksums differ)")
    records_a, records_b = load_typed_records(run_a), load_typed_records(run_b)
    shared = sorted(set(records_a) & set(records_b))
    if not shared:
        raise UsageError(f"{run_a} and {run_b} have no item in common")
    counts = {"both": 0, "only_a": 0, "only_b": 0, "neither": 0}
    same = 0
    for index in shared:
        a, b = records_a[index], records_b[index]
        right_a, right_b = a.correct, b.correct
        key = (
            "both"
            if right_a and right_b
            else "only_a"
            if right_a
            else "only_b"
            if right_b
            else "neither"
        )
        counts[key] += 1
        same += a.answer is not None and a.answer == b.answer
    return Comparison(
        run_a=str(run_a),
        run_b=str(run_b),
        n=len(shared),
        same_answer=same,
        p_value=mcnemar_exact(counts["only_a"], counts["only_b"]),
        **counts,
    )
