"""ConvRe (converse relations): items and prompts, byte for byte as the
official ``utils/data_processor.py`` (``ConvReProcessor.construct_prompt``) builds them.

``build_items(task, setting)`` turns the official triples into ``EvalItem`` prompts for one of
the two tasks (re2text, text2re) under one setting (one of the paper's 12, or custom knobs);
``build_task`` wraps them with their scorer. ``neutral=True`` gives the "relation R" variant of
the paper's Appendix G.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from relreason.benchmarks.convre.data import (
    ExamplesFile,
    RelationsFile,
    Triple,
    item_label,
    load_examples,
    load_relations,
    load_triples,
    triples_path,
)
from relreason.benchmarks.convre.settings import (
    KNOBS,
    SETTING_IDS,
    TASKS,
    ConvReSetting,
    check_task,
    paper_setting,
    setting_id_of,
)
from relreason.benchmarks.turns import as_turns, split_at
from relreason.errors import DataError
from relreason.types import EvalItem, Task

__all__ = [
    "KNOBS",
    "SETTING_IDS",
    "SOURCES",
    "TASKS",
    "ConvReSetting",
    "Triple",
    "build_items",
    "build_task",
    "load_triples",
    "neutralize",
    "paper_setting",
    "resolve_setting",
    "setting_id_of",
]

INTRO = "Read the instruction and then answer the question using A or B."
HINT = (
    " Note that in this task, if the relation is defined in a converse manner, unlike the"
    " conventional definition, you should carefully choose the answer."
)
HINT_REMIND = "Look out for the ORDER of the entities in the instruction!"
COT = " Your answer should be in JSON format with the following keys: thought, answer."
GOALS: Mapping[str, str] = {"re2text": "natural language sentence", "text2re": "triple query"}
NEUTRAL_NAME = "R"

# Source dataset / knowledge graph of each relation (paper, Appendix B, Table 5).
SOURCES: Mapping[str, str] = {
    "hypernym": "WN18RR/WordNet",
    "has part": "WN18RR/WordNet",
    "organization , organization , child. , organization , organization relationship , child": (
        "FB15K-237/FreeBase"
    ),
    "location , location , partially contains": "FB15K-237/FreeBase",
    "athlete beat athlete": "NELL-ONE/NELL",
    "parent of": "NELL-ONE/NELL + Wikidata5M/WikiData",
    "represented by": "Wikidata5M/WikiData",
    "side effect": "Wikidata5M/WikiData",
    "has facility": "Wikidata5M/WikiData",
    "influenced by": "Wikidata5M/WikiData",
    "owned by": "Wikidata5M/WikiData",
    "consult": "ICEWS14/ICEWS",
    "praise or endorse": "ICEWS14/ICEWS",
    "made of": "ConceptNet5/ConceptNet",
    "used for": "ConceptNet5/ConceptNet",
    "has property": "ConceptNet5/ConceptNet",
    "has subevent": "ConceptNet5/ConceptNet",
}

# A triple notation "(a, NAME, b)" in a template or an example (before [N] is filled in: tails
# may hold commas and parentheses, so notations are only rewritten in texts without a tail).
_NOTATION = re.compile(r"\(([^(),\n]+), ([^(),\n]+), ([^(),\n]+)\)")


def neutralize(text: str) -> str:
    """Return ``text`` with the relation name of every triple notation ``(a, NAME, b)`` set to R.

    Meant for templates and few-shot examples (texts without a filled-in tail); the rest of the
    text is unchanged.
    """
    return _NOTATION.sub(lambda m: f"({m[1]}, {NEUTRAL_NAME}, {m[3]})", text)


def resolve_setting(task: str, setting: ConvReSetting | int) -> tuple[ConvReSetting, int | None]:
    """Return the setting (a paper id is looked up) and its paper id (None when custom).

    Raises ``UsageError`` for an unknown task or setting id.
    """
    check_task(task)
    if isinstance(setting, ConvReSetting):
        return setting, setting_id_of(task, setting)
    resolved = paper_setting(task, setting)
    return resolved, setting


@dataclass(frozen=True)
class _Parts:
    """The texts of one relation under one setting; only the tail remains to be filled in."""

    prefix: str  # intro + hint + cot + "\n" + few-shot + instruction + "\n"
    question: str  # with [N] (text2re) or the relation name (re2text)
    correct: str
    wrong: str


def _neutral_template(relations: RelationsFile, key: str, name: str) -> str:
    template = relations.entries[key][name]
    neutral = neutralize(template)
    if neutral == template and f", {NEUTRAL_NAME}, " not in template:
        raise DataError(
            relations.path,
            "the neutral variant needs a triple notation like '(x, NAME, y)' here",
            item=item_label(key),
            field=name,
        )
    return neutral


def _examples(
    task: str, setting: ConvReSetting, neutral: bool, data_dir: Path | str | None
) -> tuple[str, ...]:
    if setting.n_shot == 0:
        return ()
    examples: ExamplesFile = load_examples(task, data_dir)
    name = f"{setting.example_type}-cot" if setting.cot else setting.example_type
    chosen = examples.first(name, setting.n_shot)
    if neutral:
        chosen = tuple(neutralize(example) for example in chosen)
    return chosen


def _few_shot(examples: tuple[str, ...]) -> str:
    return "".join("\n" + example for example in examples) + "\n"


def _parts(
    task: str, setting: ConvReSetting, relations: RelationsFile, key: str, head: str, neutral: bool
) -> _Parts:
    entry = relations.entries[key]

    def template(name: str, in_notation: bool) -> str:
        if neutral and in_notation:
            return _neutral_template(relations, key, name)
        return entry[name]

    prefix = head + "Instruction: " + template(setting.relation, True) + "\n"
    other_relation = "converse" if setting.relation == "normal" else "normal"
    if task == "re2text":
        other_text = "regular" if setting.text_type == "hard" else "hard"
        return _Parts(
            prefix=prefix,
            question="",
            correct=template(f"{setting.relation}-{setting.text_type}", False),
            wrong=template(f"{other_relation}-{other_text}", False),
        )
    return _Parts(
        prefix=prefix,
        question="Question: " + template(setting.text_type, False),
        correct=template(f"{setting.relation}-correct", True),
        wrong=template(f"{setting.relation}-wrong", True),
    )


def build_items(
    task: str,
    setting: ConvReSetting | int,
    *,
    subset: bool = False,
    neutral: bool = False,
    data_dir: Path | str | None = None,
) -> list[EvalItem]:
    """Return the ConvRe items of ``task`` under ``setting`` (a ``ConvReSetting`` or paper id 1-12).

    Prompts are byte-identical to the official ``construct_prompt``'s; the gold letter is the
    triple's answer; choice texts are (A text, B text). ``subset`` uses the 328-triple subset;
    ``neutral`` replaces the relation name inside every triple notation with ``R`` (paper,
    Appendix G).
    Raises ``UsageError`` for an unknown task or setting, ``DataError`` for bad data files.
    """
    resolved, _ = resolve_setting(task, setting)
    triples = load_triples(data_dir, subset)
    relations = load_relations(task, data_dir)
    intro = INTRO + (HINT if resolved.hint else "") + (COT if resolved.cot else "") + "\n"
    examples = _examples(task, resolved, neutral, data_dir)
    head = intro + _few_shot(examples)
    shots = tuple(split_at(example, "\nAnswer:") for example in examples)
    suffix = (
        f"\nTo convert the question into a semantically equivalent {GOALS[task]}, which choice is"
        f" correct? {HINT_REMIND if resolved.hint else ''}\nAnswer:"
    )
    parts_of: dict[str, _Parts] = {}
    items: list[EvalItem] = []
    for index, triple in enumerate(triples):
        key = triple.relation_key
        parts = parts_of.get(key)
        if parts is None:
            if key not in relations.entries:
                raise DataError(
                    str(triples_path(subset, data_dir)),
                    f"relation key has no entry in {relations.path}",
                    item=item_label(key),
                    field="relation",
                )
            parts = parts_of[key] = _parts(task, resolved, relations, key, head, neutral)
        item = _item(task, index, triple, parts, suffix, neutral)
        if shots:
            item = replace(item, turns=as_turns(intro, shots, item.prompt[len(head) :]))
        items.append(item)
    return items


def _item(
    task: str, index: int, triple: Triple, parts: _Parts, suffix: str, neutral: bool
) -> EvalItem:
    tail = triple.tail
    if task == "re2text":
        name = NEUTRAL_NAME if neutral else triple.relation_name
        question = f"Question: (?, {name}, {tail})"
    else:
        question = parts.question.replace("[N]", tail)
    correct = parts.correct.replace("[N]", tail)
    wrong = parts.wrong.replace("[N]", tail)
    a_text, b_text = (correct, wrong) if triple.answer == "A" else (wrong, correct)
    prompt = parts.prefix + question + "\nA: " + a_text + "\nB: " + b_text + suffix
    return EvalItem(
        index=index,
        item_id=triple.item_id,
        prompt=prompt,
        gold=triple.answer,
        choices=("A", "B"),
        choice_texts=(a_text, b_text),
        labels={
            "relation": triple.relation_key,
            "relation_name": triple.relation_name,
            "source": SOURCES.get(triple.relation_key, "unknown"),
            "head": triple.head,
            "tail": tail,
            "task": task,
        },
    )


def task_name(
    task: str, setting: ConvReSetting, setting_id: int | None, subset: bool, neutral: bool
) -> str:
    """Return a task's name: ``convre/re2text/setting-9`` or ``convre/text2re/custom-<knobs>``,
    with ``-subset`` and ``-neutral`` appended when they apply."""
    name = f"convre/{task}/" + (
        f"setting-{setting_id}" if setting_id else f"custom-{setting.slug()}"
    )
    return name + ("-subset" if subset else "") + ("-neutral" if neutral else "")


def describe(
    task: str,
    setting: ConvReSetting,
    setting_id: int | None,
    subset: bool,
    neutral: bool,
    logprob_fallback: bool = True,
) -> dict[str, Any]:
    """Return the JSON-ready description of a ConvRe task (recorded in the manifest)."""
    return {
        "benchmark": "convre",
        "task": task,
        "setting_id": setting_id,
        **setting.as_dict(),
        "subset": subset,
        "neutral": neutral,
        "logprob_fallback": logprob_fallback,
    }


def build_task(
    task: str,
    setting: ConvReSetting | int,
    *,
    subset: bool = False,
    neutral: bool = False,
    data_dir: Path | str | None = None,
    logprob_fallback: bool = True,
) -> Task:
    """Return the ConvRe ``Task`` of ``task`` under ``setting`` (see ``build_items``).

    The scorer is ``relreason.benchmarks.convre.scoring.score_convre`` with ``cot`` set by the
    setting and ``logprob_fallback`` passed through. Raises ``UsageError`` / ``DataError`` like
    ``build_items``.
    """
    resolved, setting_id = resolve_setting(task, setting)
    items = build_items(task, resolved, subset=subset, neutral=neutral, data_dir=data_dir)
    from relreason.benchmarks.convre.scoring import (
        score_convre,  # lazy: written by another module owner
    )

    scorer: Callable[..., Any] = functools.partial(
        score_convre, cot=resolved.cot, logprob_fallback=logprob_fallback
    )
    return Task(
        benchmark="convre",
        name=task_name(task, resolved, setting_id, subset, neutral),
        description=describe(task, resolved, setting_id, subset, neutral, logprob_fallback),
        items=tuple(items),
        scorer=scorer,
        group_by=("relation", "source"),
        max_new_tokens=256 if resolved.cot else 32,
    )
