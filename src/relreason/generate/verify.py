"""``verify``: re-prove every item of a generated file with the solver.

For each item: the formal fields are read, the answer is re-derived from the premises by
enumerating their models (independently of how the item was made), and the rendered question,
options and correct answer are checked against the formal ones. Problems name the item and
the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import relreason.generate.lexicon as lexicon
import relreason.generate.render as render
from relreason.errors import DataError
from relreason.generate import kin_words
from relreason.generate.assemble import question_text
from relreason.generate.compose import DOMAINS
from relreason.generate.depth import expected as expected_answer
from relreason.generate.depth import proof_depth
from relreason.generate.domains import SPECS
from relreason.generate.errors import SolverError
from relreason.generate.kin_world import PREMISE_RELATIONS
from relreason.generate.records import read_items
from relreason.generate.solver import SEX_VALUES, domain_of, solve
from relreason.generate.spatial import COMPASS, ORDER


@dataclass(frozen=True)
class Problem:
    """One failed check: which item (id or position), which field, what is wrong."""

    item: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"item {self.item}, field '{self.field}': {self.message}"


def _word(language: str, domain: str, label: str) -> str | None:
    """Return what an option label says: a kinship word, else the label itself."""
    if domain == "kinship" and label != "uncertain":
        return kin_words.word_of(language, label)
    return label


def _true_in(language: str, domain: str, label: str, model: str) -> bool:
    """Return whether the option ``label`` is true in a model where the answer is ``model``."""
    if domain == "kinship":
        word = kin_words.word_of(language, label)
        return word is not None and kin_words.covers(language, word, model)
    return label == model


def _meet(language: str, domain: str, first: str, second: str) -> bool:
    """Return whether two options are both true in some world (their meanings meet)."""
    if domain == "kinship":
        a, b = kin_words.word_of(language, first), kin_words.word_of(language, second)
        return a is not None and b is not None and kin_words.overlap(language, a, b)
    return first == second


def _shape(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return "the item is not an object"
    wanted = {
        "question": str,
        "options": list,
        "correct": str,
        "category": list,
        "domain": str,
        "frame": str,
        "hops": int,
        "language": str,
        "premises": list,
        "query": list,
        "answer": str,
        "option_labels": list,
        "sexes": dict,
    }
    for name, kind in wanted.items():
        if not isinstance(raw.get(name), kind):
            return f"{name}: missing or not a {kind.__name__}"
    if raw["language"] not in lexicon.LANGUAGES or raw["domain"] not in DOMAINS:
        return "language or domain: unknown"
    return None


def verify_item(raw: Any, where: str) -> list[Problem]:
    """Return the problems of one raw item (empty when it is proved); never raises on content."""
    try:
        return _verify_item(raw, where)
    except (TypeError, KeyError, ValueError, AttributeError, IndexError) as error:
        return [Problem(str(where), "-", f"malformed item ({type(error).__name__}: {error})")]


def _verify_item(raw: Any, where: str) -> list[Problem]:
    bad = _shape(raw)
    if bad is not None:
        field, _, message = bad.partition(": ")
        return [Problem(where, field if message else "-", message or bad)]
    where = str(raw.get("id", where))
    language, domain = raw["language"], raw["domain"]
    problems: list[Problem] = []
    try:
        premises = [tuple(p) for p in raw["premises"]]
        if domain_of(premises) != domain:
            problems.append(Problem(where, "domain", "does not match the premise relations"))
        labels = solve(premises, raw["query"])
    except (SolverError, TypeError, ValueError) as error:
        return [Problem(where, "premises", f"the solver cannot read them: {error}")]
    expected = expected_answer(language, domain, labels)
    if expected is None:
        return [
            Problem(
                where,
                "premises",
                f"the models allow answers {sorted(labels)} that have no option text",
            )
        ]
    if _word(language, domain, raw["answer"]) != expected:
        problems.append(
            Problem(
                where,
                "answer",
                f"{raw['answer']!r}, but the models give {expected!r} (labels {sorted(labels)})",
            )
        )
    hops = proof_depth(premises, raw["query"], language, domain)
    if raw["hops"] != hops:
        problems.append(Problem(where, "hops", f"{raw['hops']}, but the proof depth is {hops}"))
    problems += _check_frame_and_sexes(raw, premises, where)
    options, option_labels = raw["options"], raw["option_labels"]
    if len(options) != len(option_labels):
        problems.append(Problem(where, "option_labels", "not one label per option"))
    problems += _check_options(raw, labels, expected, where)
    sexes = raw["sexes"]
    if options.count(raw["correct"]) != 1:
        problems.append(Problem(where, "correct", "not exactly once among the options"))
    elif (
        raw["answer"] not in option_labels
        or raw["correct"] != options[option_labels.index(raw["answer"])]
    ):
        problems.append(Problem(where, "correct", "is not the option of the formal answer"))
    try:
        text = question_text(language, domain, raw["frame"], raw["premises"], raw["query"], sexes)
    except (KeyError, ValueError, IndexError) as error:
        text = f"(cannot render: {error})"
    if raw["question"] != text:
        problems.append(Problem(where, "question", f"differs from the premises rendered: {text!r}"))
    if raw["category"] != [lexicon.CATEGORIES[domain]["zh" if language == "zh" else "en"]]:
        problems.append(Problem(where, "category", f"{raw['category']!r} is not the domain's"))
    return problems


def _check_options(
    raw: dict[str, Any], labels: frozenset[str], expected: str, where: str
) -> list[Problem]:
    """Check each option's text and meaning: one right answer, no two true in any world."""
    language, domain, sexes = raw["language"], raw["domain"], raw["sexes"]
    head, tail = raw["query"][0], raw["query"][2]
    problems: list[Problem] = []
    definite: list[tuple[str, str]] = []
    for text, label in zip(raw["options"], raw["option_labels"], strict=False):
        if render.option_text(language, domain, label, sexes.get(head)) != text:
            problems.append(Problem(where, "options", f"{text!r} is not the text of {label!r}"))
        if label == "uncertain":
            continue
        definite.append((text, label))
        if domain == "kinship":
            word = kin_words.word_of(language, label)
            wanted = None
            if word is not None and tail in sexes:
                # the asked person's sex left open (English, French): the word's own sex
                heads = [sexes[head]] if head in sexes else ["M", "F"]
                meant = [kin_words.pattern(language, word, sexes[tail], x) for x in heads]
                wanted = label if label in meant else meant[0]
            if wanted != label:
                problems.append(
                    Problem(
                        where,
                        "option_labels",
                        f"{label!r} is not what {text!r} means for these persons ({wanted!r})",
                    )
                )
        hits = [_true_in(language, domain, label, model) for model in labels]
        if all(hits) and label != raw["answer"]:
            problems.append(Problem(where, "options", f"{text!r} is also right"))
        elif any(hits) and expected != "uncertain" and label != raw["answer"]:
            problems.append(Problem(where, "options", f"{text!r} is right in some model"))
    for i, (text, label) in enumerate(definite):
        for other_text, other in definite[i + 1 :]:
            if _meet(language, domain, label, other):
                problems.append(
                    Problem(
                        where, "options", f"{text!r} and {other_text!r} are both true in a world"
                    )
                )
    return problems


def _check_frame_and_sexes(
    raw: dict[str, Any], premises: list[tuple[str, ...]], where: str
) -> list[Problem]:
    """Check the frame against the premise relations and the sexes against every premise.

    Kinship: ``sexes`` holds what the question says (a relation word or a sex statement), never
    one model's guess: exactly the persons a premise gives one (words such as "parent" and the
    unisex names leave a sex open).
    """
    problems: list[Problem] = []
    relations = [p[1] for p in premises]
    domain = raw["domain"]
    if domain in SPECS:
        return _check_spec(raw, premises, where)
    if domain == "kinship":
        frame = "family"
    elif domain == "position":
        frame = "compass" if relations[0] in COMPASS else "relative"
    else:
        frame = ORDER[relations[0]][0]
    if raw["frame"] != frame:
        problems.append(
            Problem(where, "frame", f"{raw['frame']!r}, but the premises are {frame!r}")
        )
    people = {name for a, r, b in premises for name in ((a,) if r == "sex" else (a, b))}
    sexes = raw["sexes"]
    # Kinship in English and French may leave a sex open (words such as "parent", unisex
    # names): ``sexes`` then holds exactly the persons whose sex a premise gives.
    named = set(sexes) <= people if domain == "kinship" else set(sexes) == people
    if not named or any(v not in ("M", "F") for v in sexes.values()):
        problems.append(Problem(where, "sexes", "not one M/F for each person of the premises"))
        return problems
    given: set[str] = set()
    for a, relation, b in premises:
        implied = (
            SEX_VALUES.get(b)
            if relation == "sex"
            else PREMISE_RELATIONS.get(relation, ("", None))[1]
        )
        if implied is not None:
            given.add(a)
            if sexes.get(a, implied) != implied:
                problems.append(
                    Problem(where, "sexes", f"{a!r} contradicts premise {[a, relation, b]}")
                )
    if domain == "kinship" and set(sexes) - given:
        problems.append(
            Problem(where, "sexes", f"no premise gives the sex of {sorted(set(sexes) - given)}")
        )
    if domain == "kinship" and given - set(sexes):
        problems.append(
            Problem(where, "sexes", f"the sex of {sorted(given - set(sexes))} left out")
        )
    return problems


def _check_spec(raw: dict[str, Any], premises: list[tuple[str, ...]], where: str) -> list[Problem]:
    """Check a later domain's frame and that ``sexes`` names exactly its persons."""
    spec = SPECS[raw["domain"]]
    problems: list[Problem] = []
    frame = spec.frame(premises, raw["query"])
    if raw["frame"] != frame:
        problems.append(
            Problem(where, "frame", f"{raw['frame']!r}, but the premises are {frame!r}")
        )
    sexes = raw["sexes"]
    people = spec.persons(premises, raw["query"])
    if set(sexes) != people or any(v not in ("M", "F") for v in sexes.values()):
        problems.append(Problem(where, "sexes", "not one M/F for each person of the item"))
    return problems


def verify_items(items: Sequence[Any]) -> list[Problem]:
    """Return the problems of every item (items named by id, else by position)."""
    problems: list[Problem] = []
    for i, raw in enumerate(items):
        problems += verify_item(raw, f"[{i}]")
    return problems


def verify(file: Path | str) -> list[Problem]:
    """Re-check every item of a generated file; return the problems (empty = all proved).

    Raises ``DataError`` when the file is missing or not a JSON list.
    """
    items = read_items(file)
    if not items:
        raise DataError(str(file), "no items")
    return verify_items(items)
