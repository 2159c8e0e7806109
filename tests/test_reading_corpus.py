"""The readers against a person's reading of real model outputs, on the held-out half.

``reading_corpus/real.jsonl`` holds outputs of real models, each read by a person (``label``):
SmolLM2 through ``hf`` and through llama.cpp's server, Gemma 3 270M through llama.cpp's
completions API (142 rows, the first sweeps), and both again in-process through ``gguf:`` on
other items (304 rows with seed 7, 244 with seeds 11, 13 and 17, 482 with seeds 19, 23 and 29,
439 with seeds 31, 37 and 41, 415 with seeds 43, 47 and 53, then the 150 held-out rows of seeds
59 and 61, the 140 of seeds 67 and 71, the 103 of seeds 73 and 79 (MCR fr, ja, zh), the 152 of
seeds 83 and 89, the 140 of seeds 97 and 101, the 133 of seeds 103 and 107 and the 135 of seeds
109 and 113; ``sweeps/gguf-*.yaml``): ConvRe (plain, few-shot, CoT), MCR and compose in five
languages. ``written.jsonl`` holds hand-written outputs of the kinds the readers used to
misread. The split into a development half (the readers are fixed on it) and a held-out half was
made once, by seed (``reading_corpus.corpus.SEED``).

The agreement on the held-out half (real outputs only; the written cases are each tested on
their own) must be at least 99% in every benchmark and language, not counting ``KNOWN``
(genuinely ambiguous outputs), ``LABELLED_OTHERWISE`` (rows the person read otherwise than the
same form in the development half) and rows two persons read differently (every held-out
row has been read by two persons blind to each other: ``label`` and ``second_label``).
``BELOW_TARGET`` marks cells short of it as strict expected failures, naming the misreadings,
so that a reader fix made on the development half turns them into failures that ask for the
mark to go. The figures are printed (``pytest -s``) and tabled in docs/READERS.md, which also
says which held-out rows were seen while readers were fixed.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from reading_corpus import corpus

ROWS = corpus.load()
HELDOUT = [row for row in ROWS if row["split"] == "heldout" and row["source"] == "real"]
TARGET = 0.99
LANGUAGES = {"en", "zh", "fr", "ja", "ko"}
KNOWN = {
    "gemma3-270m/compose-ko-zs/146": "A., then 'the answer is the same as option B': read as A",
    "smollm2-llamacpp/compose-fr-fs/79": "B) with no option's text, then a stray C: read as B",
    "gguf-gemma3-270m/mcr-fr-zs-s79/1399": "'E. The piéton is facing the east.' (A is 'Est'),"
    " labelled as no answer, where the held-out 'E. Rachel will be facing the east.' (s23/802)"
    " and 'E. The storm is moving east.' (s89/943) were labelled E: read as E",
}
"""Held-out rows the readers read otherwise than the person, where the output itself is
ambiguous (a letter followed by a remark that leans elsewhere): left as they are rather than
fitted; the agreement figures printed include them, and the target is asserted on the other
rows."""
LABELLED_OTHERWISE = {
    "gguf-gemma3-270m/mcr-ko-zs/1368": (
        "gemma3-270m/mcr-ja-zs/1196",
        "'A. The answer is not a correct answer.' labelled A; 'E. The answer is not a correct"
        " option' labelled as taken back: read as none",
    ),
    "gguf-gemma3-270m/convre-text2re-s05/376": (
        "gguf-gemma3-270m/convre-text2re-s05/811",
        "'(Tiger Woods, beats, y)' (A's triple with y for ?) labelled A; '(img models,"
        " represented by, y)' labelled as no choice's text: read as none",
    ),
}
"""Held-out rows the person read otherwise than the same form in the development half (the
row named first in each value), which the readers follow: the person's two readings disagree,
so neither can be held against the reader. Counted in the printed figures, left out of the
target."""
BELOW_TARGET: dict[tuple[str, str], str] = {}
"""Cells whose held-out agreement is below the target, with the misreadings that put it there
(measured on rows not yet looked at, or named)."""
MEASURED_ONLY = re.compile(r"-s(?:59|61|67|71|73|79|83|89|97|101|103|107|109|113)/")
"""Row ids of the measurement rounds (seeds 59 to 113), whose development rows were dropped
unlabelled: only their held-out halves were kept."""
CELLS = [(name, lang) for name in ("convre", "mcr", "compose") for lang in sorted(LANGUAGES)]


def test_the_split_is_the_seeds_and_halves_the_corpus() -> None:
    assert all(row["split"] == corpus.assign_split(row["id"]) for row in ROWS)
    assert len({row["id"] for row in ROWS}) == len(ROWS)
    kept_whole = [row for row in ROWS if not MEASURED_ONLY.search(row["id"])]
    splits = Counter(row["split"] for row in kept_whole)
    assert abs(splits["dev"] - splits["heldout"]) <= 0.15 * len(kept_whole)
    measured = [row for row in ROWS if MEASURED_ONLY.search(row["id"])]
    assert measured and all(row["split"] == "heldout" for row in measured)


def test_the_corpus_covers_the_benchmarks_languages_and_models() -> None:
    real = [row for row in ROWS if row["source"] == "real"]
    counts = Counter(row["benchmark"] for row in real)
    assert min(counts[name] for name in ("convre", "mcr", "compose")) >= 120
    for name in ("mcr", "compose"):
        assert {row["language"] for row in real if row["benchmark"] == name} == LANGUAGES
    models = {"smollm2", "smollm2-llamacpp", "gemma3-270m", "gguf-smollm2", "gguf-gemma3-270m"}
    assert {row["model"] for row in real} >= models
    kinds = {row["setting"].split("-")[0] for row in real if row["benchmark"] == "convre"}
    assert kinds >= {"plain", "few", "cot"}
    assert sum(row["label"] is None for row in real) >= 20  # unreadable outputs are kept too


@pytest.mark.parametrize(
    ("name", "language"),
    [
        pytest.param(*cell, marks=pytest.mark.xfail(reason=BELOW_TARGET[cell], strict=True))
        if cell in BELOW_TARGET
        else cell
        for cell in CELLS
        if cell[0] != "convre" or cell[1] == "en"
    ],
)
def test_heldout_agreement_is_at_least_99_percent(name: str, language: str) -> None:
    rows = [r for r in HELDOUT if r["benchmark"] == name and r["language"] == language]
    assert rows
    same, total = corpus.agreement(rows)[(name, language)]
    print(f"\n{name} {language} held-out agreement (all rows): {same}/{total}")
    fitted = [
        row
        for row in rows
        if row["id"] not in KNOWN | LABELLED_OTHERWISE.keys()
        and row.get("second_label", row["label"]) == row["label"]
    ]  # rows the two persons read differently are ambiguous by measure
    same, total = corpus.agreement(fitted)[(name, language)]
    assert same / total >= TARGET, f"{name} {language}: {same}/{total} without KNOWN"


def test_the_known_disagreements_are_still_disagreements() -> None:
    rows = {row["id"]: row for row in HELDOUT}
    for row_id in KNOWN | LABELLED_OTHERWISE.keys():
        assert corpus.read(rows[row_id]) != rows[row_id]["label"], f"{row_id}: drop it from KNOWN"


def test_each_row_labelled_otherwise_has_a_development_twin_the_reader_follows() -> None:
    rows = {row["id"]: row for row in ROWS}
    for row_id, (twin_id, reason) in LABELLED_OTHERWISE.items():
        row, twin = rows[row_id], rows[twin_id]
        assert (row["split"], twin["split"]) == ("heldout", "dev"), reason
        assert row["label"] != twin["label"], reason
        assert corpus.read(twin) == twin["label"], reason


def test_the_rows_read_twice_are_held_out_and_the_two_persons_mostly_agree() -> None:
    twice = [row for row in ROWS if "second_label" in row]
    assert twice and all(row["split"] == "heldout" for row in twice)
    assert all("second_label" in row for row in HELDOUT)  # every held-out row, read twice
    assert all(r["second_label"] in (None, *r["choices"]) for r in twice)
    persons = sum(row["label"] == row["second_label"] for row in twice)
    agreed = [row for row in twice if row["label"] == row["second_label"]]
    reader = sum(corpus.read(row) == row["label"] for row in agreed)
    print(
        f"\ntwo persons agree on {persons}/{len(twice)} rows read twice;"
        f" the reader agrees with both on {reader}/{len(agreed)} of those"
    )
    assert persons >= 0.9 * len(twice)  # else the labelling guide itself is unclear


@pytest.mark.parametrize(
    "row", [r for r in ROWS if r["source"] == "written"], ids=lambda r: r["id"]
)
def test_every_written_case_is_read_as_the_person_reads_it(row: dict[str, object]) -> None:
    assert corpus.read(row) == row["label"], row["note"]
