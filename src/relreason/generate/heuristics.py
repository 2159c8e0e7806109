"""Surface heuristics: ways to pick an option without reasoning, for the audit and the generator.

Each heuristic maps a generated item to the set of options it favours (indices), or None when
it has no opinion (it then scores chance on that item). Its score on an item is 1/|set| when
the gold option is in the set, else 0; abstaining scores 1/n. A set is balanced when every
heuristic's accuracy is indistinguishable from chance (``audit``); ``compose`` uses the same
functions to choose premise wordings and options that give these rules nothing to go on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from relreason.generate import kin_words, label_patterns
from relreason.generate.domains import spec_of_relation
from relreason.generate.spatial import (
    COMPASS,
    COMPASS_LABELS,
    ORDER,
    ORDER_LABELS,
    RELATIVE,
    RELATIVE_LABELS,
)

Item = Mapping[str, Any]
Heuristic = Callable[[Item], set[int] | None]

_KIN_LABELS = {
    "father": ("anc:M",),
    "mother": ("anc:F",),
    "son": ("desc:M",),
    "daughter": ("desc:F",),
    "husband": ("spouse:M",),
    "wife": ("spouse:F",),
    "brother": ("col:-:o:M", "col:-:y:M"),
    "sister": ("col:-:o:F", "col:-:y:F"),
    "parent": ("anc:M", "anc:F"),
    "child": ("desc:M", "desc:F"),
    "spouse": ("spouse:M", "spouse:F"),
    "sibling": ("col:-:o:M", "col:-:y:M", "col:-:o:F", "col:-:y:F"),
    "older_brother": ("col:-:o:M",),
    "younger_brother": ("col:-:y:M",),
    "older_sister": ("col:-:o:F",),
    "younger_sister": ("col:-:y:F",),
}


def named_label(relation: str) -> tuple[str, ...]:
    """Return the answer labels a premise relation names on its face (``behind`` -> back)."""
    if relation in COMPASS:
        return (COMPASS_LABELS[COMPASS[relation]],)
    if relation in RELATIVE:
        return (RELATIVE_LABELS[RELATIVE[relation]],)
    if relation in ORDER:
        attribute, sign = ORDER[relation]
        return (ORDER_LABELS[attribute][sign],)
    spec = spec_of_relation(relation)
    if spec is not None and relation in spec.named:
        return (spec.named[relation],)
    return _KIN_LABELS.get(relation, ())


def is_named(domain: str, option: str, labels: Sequence[str]) -> bool:
    """Return whether an option label is one of ``labels`` (kinship: its pattern, whatever
    Y's sex, matches one of these label cores)."""
    if option == "uncertain":
        return False
    if domain == "kinship":
        cores = "|".join(alt.rpartition("@")[0] for alt in option.split("|"))
        return any(label_patterns.matches(cores, label) for label in labels)
    return option in labels


def named_by_premises(domain: str, option: str, premises: Sequence[Sequence[str]]) -> bool:
    """Return whether some premise's relation names ``option`` on its face."""
    return any(is_named(domain, option, named_label(p[1])) for p in premises if p[1] != "sex")


def _names(item: Item, labels: Sequence[str]) -> set[int] | None:
    """Options whose formal label is one of ``labels`` (kinship: whose word covers one)."""
    found = {
        i
        for i, option in enumerate(item["option_labels"])
        if is_named(item["domain"], option, labels)
    }
    return found or None


def relations(item: Item) -> list[str]:
    """Return the relations of the item's relational premises, in question order."""
    return [p[1] for p in item["premises"] if p[1] != "sex"]


def _uncertain_index(item: Item) -> int | None:
    labels = list(item["option_labels"])
    return labels.index("uncertain") if "uncertain" in labels else None


def first_relation(item: Item) -> set[int] | None:
    """The option the first premise's relation names."""
    return _names(item, named_label(relations(item)[0]))


def last_relation(item: Item) -> set[int] | None:
    """The option the last premise's relation names."""
    return _names(item, named_label(relations(item)[-1]))


def majority_relation(item: Item) -> set[int] | None:
    """The option the most frequent relation names; "Uncertain" when two relations tie."""
    counts = Counter(relations(item)).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        unsure = _uncertain_index(item)
        return None if unsure is None else {unsure}
    return _names(item, named_label(counts[0][0]))


def always_uncertain(item: Item) -> set[int] | None:
    """ "Uncertain" whenever it is offered."""
    unsure = _uncertain_index(item)
    return None if unsure is None else {unsure}


def never_uncertain(item: Item) -> set[int] | None:
    """Strike "Uncertain" out, pick among the rest."""
    unsure = _uncertain_index(item)
    if unsure is None:
        return None
    return set(range(len(item["options"]))) - {unsure}


def sex_filter(item: Item) -> set[int] | None:
    """Kinship: keep the options that can be said of someone of the head's sex."""
    if item["domain"] != "kinship":
        return None
    sex = item["sexes"].get(item["query"][0])
    if sex is None:  # English and French: the asked person's sex left open (all are kept)
        return None
    kept = {
        i
        for i, label in enumerate(item["option_labels"])
        if label == "uncertain" or any(kin_words.head_sex(a) == sex for a in label.split("|"))
    }
    return kept or None


def premise_text(item: Item) -> str:
    """Return the question without its last sentence (the scene and the premises), case-folded."""
    question = str(item["question"]).casefold()
    cut = max(question.rfind(mark, 0, len(question) - 1) for mark in (". ", "。", "? "))
    return question[: cut + 1] if cut > 0 else question


def appears(text: str, option: str, language: str) -> bool:
    """Return whether ``option`` (case-folded) occurs in ``text`` (a whole word in en/fr)."""
    option = option.casefold()
    if not option:
        return False
    if language in ("en", "fr"):
        return re.search(r"(?<!\w)" + re.escape(option) + r"(?!\w)", text) is not None
    return option in text


def word_in_premises(item: Item) -> set[int] | None:
    """The options whose text appears in the premises."""
    text = premise_text(item)
    pairs = zip(item["options"], item["option_labels"], strict=True)
    found = {
        i
        for i, (option, label) in enumerate(pairs)
        if label != "uncertain" and appears(text, option, item["language"])
    }
    return found or None


def word_not_in_premises(item: Item) -> set[int] | None:
    """The options whose text does not appear in the premises (when some do)."""
    found = word_in_premises(item)
    if found is None:
        return None
    rest = set(range(len(item["options"]))) - found
    return rest or None


def longest_option(item: Item) -> set[int] | None:
    """The longest option text(s)."""
    longest = max(len(o) for o in item["options"])
    return {i for i, o in enumerate(item["options"]) if len(o) == longest}


def shortest_option(item: Item) -> set[int] | None:
    """The shortest option text(s)."""
    shortest = min(len(o) for o in item["options"])
    return {i for i, o in enumerate(item["options"]) if len(o) == shortest}


def all_ties(item: Item) -> set[int] | None:
    """Order: when every premise is a tie, the "same" option."""
    if item["domain"] != "order" or any(ORDER[r][1] != 0 for r in relations(item)):
        return None
    same = ORDER_LABELS[str(item["frame"])][0]
    return _names(item, (same,))


_UNLINKING = frozenset({"has", "sex"})
"""Premise relations that state something of one entity (a count, a sex) and link no other."""


def parts(item: Item) -> int:
    """Return how many parts the premises fall into: entities linked by a relational premise
    are in one part; one named only by a count (or a sex) is a part of its own."""
    owner: dict[str, str] = {}

    def root(x: str) -> str:
        while owner.setdefault(x, x) != x:
            x = owner[x]
        return x

    for a, relation, b in item["premises"]:
        root(a)
        if relation not in _UNLINKING:
            owner[root(a)] = root(b)
    return len({root(x) for x in list(owner)})


def split_premises(item: Item) -> set[int] | None:
    """ "Uncertain" when the premises fall into parts not linked to each other (a count given
    for a person no other premise names, a chain cut in two), else strike "Uncertain" out."""
    unsure = _uncertain_index(item)
    if unsure is None:
        return None
    if parts(item) > 1:
        return {unsure}
    return set(range(len(item["options"]))) - {unsure}


def position(k: int) -> Heuristic:
    """Return the heuristic "always option k" (0-based; abstains on shorter items)."""

    def pick(item: Item) -> set[int] | None:
        return {k} if k < len(item["options"]) else None

    pick.__doc__ = f"Always option {chr(65 + k)}."
    return pick


def always_last(item: Item) -> set[int] | None:
    """Always the last option."""
    return {len(item["options"]) - 1}


def random_pick(item: Item) -> set[int] | None:
    """The random baseline: any option (its expected score, 1/n, on every item)."""
    return set(range(len(item["options"])))


def score(choice: set[int] | None, gold: int, n_options: int) -> float:
    """Return a heuristic's expected score on one item (ties broken at random)."""
    if choice is None:
        return 1.0 / n_options
    return 1.0 / len(choice) if gold in choice else 0.0


def gold_index(item: Item) -> int:
    """Return the index of the correct option."""
    return list(item["options"]).index(item["correct"])


SURFACE: dict[str, Heuristic] = {
    "first premise's relation": first_relation,
    "last premise's relation": last_relation,
    "majority relation (tie: Uncertain)": majority_relation,
    "answer word in the premises": word_in_premises,
    "answer word not in the premises": word_not_in_premises,
}
"""Heuristics that read the premises: the generator chooses wordings that defeat them."""


def battery(max_options: int = 4) -> dict[str, Heuristic]:
    """Return every heuristic of the audit by name, in report order."""
    rules: dict[str, Heuristic] = {"random baseline (expected)": random_pick}
    rules["always first (A)"] = position(0)
    for k in range(1, max_options):
        rules[f"always {chr(65 + k)}"] = position(k)
    rules["always last"] = always_last
    rules["always Uncertain"] = always_uncertain
    rules["never Uncertain"] = never_uncertain
    rules.update(SURFACE)
    rules["sex filter (kinship)"] = sex_filter
    rules["longest option"] = longest_option
    rules["shortest option"] = shortest_option
    rules["all ties -> same (order)"] = all_ties
    rules["premises in parts -> Uncertain"] = split_premises
    return rules
