"""The reading corpus: real model outputs (and hand-written cases) with a person's reading.

``real.jsonl`` holds outputs of real models (collected with ``collect.py``), ``written.jsonl``
hand-written outputs of the kinds the readers used to misread. Each row: ``id``, ``source``
(``real``/``written``), ``benchmark``, ``language``, ``setting``, ``model``, ``cot`` (ConvRe
settings 8 and 11), ``few_shot`` (MCR/compose native ``fs``), ``choices``, ``choice_texts``,
``english_choice_texts`` (MCR French, Korean and Japanese rows only: the option texts of the English
item at the same position), ``gold``, ``output`` (the text the reader reads), ``top_logprobs``
(the first generated token's alternatives, or null), ``label`` (the answer a careful person
reads; null: no readable answer, or a hedge) and ``split`` (``dev`` or ``heldout``); every
held-out real row was read by a second person too (``second_label``, ``second_note``), blind
to the first: those of seeds 31 to 61 as they were collected, the earlier ones afterwards, from
the written guide ``LABELLING.md``.

The split was made once by :func:`assign_split` with :data:`SEED` and is stored in the rows;
the tests check that the stored split is still the seed's. Readers are fixed on ``dev`` and
measured on ``heldout``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from relreason.benchmarks.convre.scoring import score_convre
from relreason.benchmarks.mcr.scoring import score_mcr
from relreason.types import EvalItem, Response

FOLDER = Path(__file__).parent
FILES = ("real.jsonl", "written.jsonl")
SEED = 20261201
"""The seed of the one development / held-out split."""


def load(*names: str) -> list[dict[str, Any]]:
    """Return the rows of the corpus files ``names`` (default: all of them)."""
    rows: list[dict[str, Any]] = []
    for name in names or FILES:
        with (FOLDER / name).open(encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def assign_split(row_id: str) -> str:
    """Return ``dev`` or ``heldout`` for a row id: half of the SHA-256 space each, keyed on
    :data:`SEED` (a fixed, order-free split: adding rows never moves another row)."""
    digest = hashlib.sha256(f"{SEED}:{row_id}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "heldout"


def read(row: dict[str, Any]) -> str | None:
    """Return the letter the project's sound (ConvRe) or robust (MCR, compose) reader reads
    from a corpus row, with the first token's log-probabilities when the row has them."""
    item = EvalItem(
        index=0,
        item_id=row["id"],
        prompt="",
        gold=row["gold"],
        choices=tuple(row["choices"]),
        choice_texts=tuple(row["choice_texts"]),
        english_choice_texts=tuple(row.get("english_choice_texts", ())),
    )
    top = row.get("top_logprobs")
    logprobs = ({k: float(v) for k, v in top.items() if v is not None},) if top else None
    response = Response(text=row["output"], top_logprobs=logprobs)
    if row["benchmark"] == "convre":
        return score_convre(item, response, cot=row["cot"]).answer
    return score_mcr(item, response, mode="robust", few_shot=row["few_shot"]).answer


def agreement(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """Return (agreeing rows, rows) per (benchmark, language)."""
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for row in rows:
        key = (row["benchmark"], row["language"])
        same, total = counts.get(key, (0, 0))
        counts[key] = (same + (read(row) == row["label"]), total + 1)
    return counts
