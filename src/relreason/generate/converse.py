"""``converse``: ConvRe-style data from a user's triples and relation definitions.

Writes the six official ConvRe files into ``<out>/convre/`` so that relreason's ConvRe loader,
given ``<out>`` as its data folder, runs all 12 settings and the neutral variant on them:

- ``triple_dataset.json`` / ``triple_subset.json``: ``{name: [{head, relation, tail, answer}]}``
  (the subset keeps the first ``subset_size`` triples of each relation);
- ``re2text_relations.json`` / ``text2re_relations.json``: the templates, derived from each
  relation's meaning and its four question texts (see ``converse_input``);
- ``re2text_examples.json`` / ``text2re_examples.json``: the lists ``hard``, ``hard-cot``,
  ``regular``, ``regular-cot`` built from the examples, in the official layout (converse
  instruction, question, two choices, answer).

A triple's answer letter, when not given, is fixed by a hash of the triple (stable, about half A).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.generate.converse_input import (
    Definitions,
    Example,
    Relation,
    UserTriple,
    read_definitions,
    read_triples,
)

GOALS = {"re2text": "natural language sentence", "text2re": "triple query"}


def _answer(triple: UserTriple) -> str:
    if triple.answer is not None:
        return triple.answer
    key = f"{triple.head}\0{triple.relation}\0{triple.tail}".encode()
    return "AB"[hashlib.sha256(key).digest()[0] % 2]


def re2text_templates(relation: Relation) -> dict[str, str]:
    """Return the ``re2text_relations.json`` entry of a relation."""
    return {
        "normal": relation.normal,
        "converse": relation.converse,
        "normal-regular": relation.head_regular,
        "normal-hard": relation.head_hard,
        "converse-regular": relation.tail_regular,
        "converse-hard": relation.tail_hard,
    }


def text2re_templates(relation: Relation) -> dict[str, str]:
    """Return the ``text2re_relations.json`` entry: the question asks the relation's reading.

    A head reading ("e such that meaning(e, [N])") is ``(?, name, [N])`` under the normal
    definition and ``([N], name, ?)`` under the converse one; a tail reading the reverse.
    """
    head_first, tail_first = f"(?, {relation.name}, [N])", f"([N], {relation.name}, ?)"
    if relation.text2re_reading == "head":
        hard, regular, normal, converse = (
            relation.head_regular,
            relation.head_hard,
            head_first,
            tail_first,
        )
    else:
        hard, regular, normal, converse = (
            relation.tail_regular,
            relation.tail_hard,
            tail_first,
            head_first,
        )
    return {
        "normal": relation.normal,
        "converse": relation.converse,
        "hard": hard,
        "regular": regular,
        "normal-correct": normal,
        "normal-wrong": converse,
        "converse-correct": converse,
        "converse-wrong": normal,
    }


def _letters(answer: str, correct: str, wrong: str) -> tuple[str, str]:
    return (correct, wrong) if answer == "A" else (wrong, correct)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _re2text_example(relation: Relation, example: Example, kind: str, cot: bool) -> str:
    templates = re2text_templates(relation)
    other = "regular" if kind == "hard" else "hard"
    correct = templates[f"converse-{kind}"].replace("[N]", example.tail)
    wrong = templates[f"normal-{other}"].replace("[N]", example.tail)
    a, b = _letters(example.answer, correct, wrong)
    answer = example.answer
    if cot:
        thought = (
            "Let's think step by step. Firstly, the question is asking for x. Then, the "
            f"instruction indicates {relation.meaning_of('y', 'x')}. According to the question, "
            f"y is {example.tail}, and therefore {relation.meaning_of(example.tail, 'x')}, "
            f"the answer is {example.answer}."
        )
        answer = "{'thought': " + json.dumps(thought) + ", 'answer': '" + example.answer + "'}"
    return (
        f"Instruction: {relation.converse}\nQuestion: (?, {relation.name}, {example.tail})\n"
        f"A: {a}\nB: {b}\nTo convert the question into a semantically equivalent "
        f"{GOALS['re2text']}, which choice is correct?\nAnswer: {answer}\n"
    )


def _text2re_example(relation: Relation, example: Example, kind: str, cot: bool) -> str:
    templates = text2re_templates(relation)
    question = templates[kind].replace("[N]", example.tail)
    correct = templates["converse-correct"].replace("[N]", example.tail)
    wrong = templates["converse-wrong"].replace("[N]", example.tail)
    a, b = _letters(example.answer, correct, wrong)
    answer = example.answer
    if cot:
        thought = (
            f"Let's think step by step. Firstly, we need to {_lower_first(question).rstrip('.')}. "
            f"Then {relation.converse.rstrip('.')}. So the answer is {correct}"
        )
        answer = "{'thought': " + json.dumps(thought) + ", 'answer': \"" + example.answer + '"}'
    return (
        f"Instruction: {relation.converse}\nQuestion: {question}\nA: {a}\nB: {b}\n"
        f"To convert the question into a semantically equivalent {GOALS['text2re']}, "
        f"which choice is correct?\nAnswer: {answer}\n"
    )


def example_lists(definitions: Definitions, task: str) -> dict[str, list[str]]:
    """Return the four few-shot lists (``hard``, ``hard-cot``, ``regular``, ``regular-cot``)."""
    by_name = {r.name: r for r in (*definitions.relations, *definitions.example_relations)}
    build = _re2text_example if task == "re2text" else _text2re_example
    lists: dict[str, list[str]] = {}
    for kind in ("hard", "regular"):
        for cot in (False, True):
            name = f"{kind}-cot" if cot else kind
            lists[name] = [build(by_name[e.relation], e, kind, cot) for e in definitions.examples]
    return lists


@dataclass(frozen=True)
class ConverseSet:
    """The six ConvRe files of a built set, as JSON-ready objects keyed by file name."""

    files: dict[str, Any]

    def write(self, out: Path | str) -> Path:
        """Write the files into ``<out>/convre/`` and return that folder."""
        folder = Path(out) / "convre"
        folder.mkdir(parents=True, exist_ok=True)
        for name, content in self.files.items():
            text = json.dumps(content, ensure_ascii=False, indent=2) + "\n"
            (folder / name).write_text(text, encoding="utf-8")
        return folder


def build_converse(
    definitions: Definitions, triples: list[UserTriple], *, subset_size: int = 20
) -> ConverseSet:
    """Return the ConvRe files for ``triples`` over the defined relations.

    Relation keys are the relation names, in definition order; relations without triples keep
    their templates but no triples.
    """
    dataset: dict[str, list[dict[str, str]]] = {}
    for relation in definitions.relations:
        rows = [
            {"head": t.head, "relation": t.relation, "tail": t.tail, "answer": _answer(t)}
            for t in triples
            if t.relation == relation.name
        ]
        if rows:
            dataset[relation.name] = rows
    subset = {key: rows[:subset_size] for key, rows in dataset.items()}
    files: dict[str, Any] = {
        "triple_dataset.json": dataset,
        "triple_subset.json": subset,
        "re2text_relations.json": {r.name: re2text_templates(r) for r in definitions.relations},
        "text2re_relations.json": {r.name: text2re_templates(r) for r in definitions.relations},
        "re2text_examples.json": example_lists(definitions, "re2text"),
        "text2re_examples.json": example_lists(definitions, "text2re"),
    }
    return ConverseSet(files)


def converse(
    definitions: Path | str, triples: Path | str, out: Path | str, *, subset_size: int = 20
) -> Path:
    """Read, check and build a converse set; write it under ``<out>/convre/``; return that folder.

    ``relreason`` then loads it with ``--data-dir <out>``. Raises ``DataError`` naming the
    file, item and field of the first problem in the inputs.
    """
    checked = read_definitions(definitions)
    rows = read_triples(triples, {r.name for r in checked.relations})
    return build_converse(checked, rows, subset_size=subset_size).write(out)
