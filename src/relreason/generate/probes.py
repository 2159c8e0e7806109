"""Trained probes: an adversary that sees only surface features of an item, for the audit.

Each probe is a conditional logit (one weight per feature; an item's options compete in a
softmax, numpy, L2-penalised, fitted by Adam) over one family of surface features of each
option: the words or the characters of the premises and the option, the option's position
and length, the order of the numbers among the options, where the people named are mentioned
(in which relation, beside the asked entity), the relations of the asked entity's own premises
and of the first and last premise, each crossed with the option. ``all features`` sees every
family at once. A probe is trained on one set and scored on another (no item of the test set
is seen in training); on a set whose answers need reasoning it scores chance.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where a probe is fitted: not at start-up
    import numpy as np

from relreason.generate.heuristics import appears, premise_text

Item = Mapping[str, Any]
Features = Callable[[Item, int], Iterator[str]]

_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"[0-9]+(/[0-9]+)?")
_STEPS, _RATE, _PENALTY, _MIN_COUNT = 300, 0.05, 1e-3, 2


def _tokens(text: str, language: str) -> list[str]:
    """Words (en, fr) or characters and character pairs (zh, ja, ko) of a text."""
    text = text.casefold()
    if language in ("en", "fr"):
        return _WORD.findall(text)
    chars = [c for c in text if not c.isspace()]
    return chars + [a + b for a, b in itertools.pairwise(chars)]


def _kind(item: Item, k: int) -> str:
    """What an option is, across items: its formal label where labels recur, else its sort."""
    label = str(item["option_labels"][k])
    if label == "uncertain":
        return "uncertain"
    if item["domain"] in ("position", "order", "containment"):
        return label
    if item["domain"] == "kinship":
        return str(item["options"][k]).casefold()
    return "value" if _NUMBER.fullmatch(label) else "person"


def _relation(relation: str) -> str:
    return relation.split(":")[0]


def base(item: Item, k: int) -> Iterator[str]:
    """What every probe sees: whether the option is "Uncertain", and the item's domain."""
    yield f"kind={_kind(item, k)}"
    yield f"domain={item['domain']}|unc={_kind(item, k) == 'uncertain'}"


def layout(item: Item, k: int) -> Iterator[str]:
    """Position and length: the option's slot, whether last, its length rank."""
    n = len(item["options"])
    lengths = sorted({len(o) for o in item["options"]})
    size = len(item["options"][k])
    yield f"pos={k}"
    yield f"last={k == n - 1}"
    yield f"lenrank={lengths.index(size)}"
    yield f"longest={size == lengths[-1]}"
    yield f"shortest={size == lengths[0]}"


def words(item: Item, k: int) -> Iterator[str]:
    """Bag of words of the option; the premises' words, crossed with "Uncertain" or not; the
    option's words found in the premises."""
    language = str(item["language"])
    text = premise_text(item)
    unc = _kind(item, k) == "uncertain"
    for token in set(_tokens(str(item["options"][k]), language)):
        yield f"ow={token}"
    for token in set(_tokens(text, language)):
        yield f"pw={token}|unc={unc}"
    yield f"in_premises={appears(text, str(item['options'][k]), language)}"


def characters(item: Item, k: int) -> Iterator[str]:
    """Character pairs of the option and of the premises (crossed with "Uncertain" or not)."""
    option = str(item["options"][k]).casefold()
    unc = _kind(item, k) == "uncertain"
    for a, b in itertools.pairwise(option):
        yield f"oc={a}{b}"
    text = premise_text(item)
    for pair in {a + b for a, b in itertools.pairwise(text)}:
        yield f"pc={pair}|unc={unc}"


def _value(text: str) -> Fraction | None:
    return Fraction(text) if _NUMBER.fullmatch(text) else None


def numbers(item: Item, k: int) -> Iterator[str]:
    """Numbers: the option's rank among the numeric options, whether its reciprocal or a number
    of the premises is an option, its size against the others."""
    values = [_value(str(o)) for o in item["options"]]
    mine = values[k]
    if mine is None:
        return
    given = [v for v in values if v is not None]
    ordered = sorted(set(given))
    rank = ordered.index(mine)
    yield f"rank={rank}"
    yield f"rank_from_top={len(ordered) - 1 - rank}"
    yield f"median={rank in ((len(ordered) - 1) // 2, len(ordered) // 2)}"
    yield f"reciprocal_offered={mine != 0 and 1 / mine in given}"
    stated = {Fraction(m[0]) for p in item["premises"] for m in _NUMBER.finditer(" ".join(p))}
    yield f"stated={mine in stated}"
    if mine > 0 and all(v > 0 for v in given):
        mean = math.exp(sum(math.log(v) for v in given) / len(given))
        yield f"size={round(math.log2(float(mine) / mean))}"


def _mentions(item: Item, name: str) -> list[tuple[int, Sequence[str]]]:
    return [(i, p) for i, p in enumerate(item["premises"]) if name in (p[0], p[2])]


def names(item: Item, k: int) -> Iterator[str]:
    """Where the option (a person) is mentioned: how often, in which relation, first or not,
    beside the asked entity; or not at all."""
    name = str(item["option_labels"][k])
    if _kind(item, k) not in ("person",):
        return
    head = item["query"][0]
    found = _mentions(item, name)
    yield f"mentions={min(len(found), 3)}"
    for i, (a, relation, b) in found:
        yield f"rel={_relation(relation)}"
        yield f"rel={_relation(relation)}|side={'first' if a == name else 'second'}"
        if head in (a, b):
            yield f"with_asked={_relation(relation)}"
        if i == 0:
            yield "in_first_premise"
    order = [p for p in dict.fromkeys(x for q in item["premises"] for x in (q[0], q[2]))]
    people = [x for x in order if x in item["option_labels"]]
    if name in people:
        yield f"mention_order={people.index(name)}"


def relations(item: Item, k: int) -> Iterator[str]:
    """The relations of the first and the last premise and of the asked entity's own premises
    (which side it is on), crossed with the option. (Not the bag of every relation crossed with
    the option: on a two-premise chain that composes the answer, a reasoner, not a surface
    probe.)"""
    kind = _kind(item, k)
    head = item["query"][0]
    premises = [p for p in item["premises"] if p[1] not in ("sex", "has")]
    if not premises:
        return
    yield f"first={_relation(premises[0][1])}|{kind}"
    yield f"last={_relation(premises[-1][1])}|{kind}"
    own = [(p, p[0] == head) for p in premises if head in (p[0], p[2])]
    for i, (p, first) in enumerate(own):
        yield f"own={_relation(p[1])}|{first}|{kind}"
        if i == 0:
            yield f"own_first={_relation(p[1])}|{first}|{kind}"
    yield f"n_premises={min(len(item['premises']), 9)}|{kind}"


FAMILIES: dict[str, tuple[Features, ...]] = {
    "probe: words of premises and options": (words,),
    "probe: characters of premises and options": (characters,),
    "probe: option position and length": (layout,),
    "probe: numbers' order": (numbers,),
    "probe: names, where mentioned": (names,),
    "probe: premise relations, the asked entity's own": (relations,),
}
FAMILIES["probe: all features"] = tuple(f for family in FAMILIES.values() for f in family)


def _rows(items: Sequence[Item], families: Sequence[Features]) -> list[list[list[str]]]:
    return [
        [
            [*base(item, k), *(f for family in families for f in family(item, k))]
            for k in range(len(item["options"]))
        ]
        for item in items
    ]


class _Design:
    """Sparse option-by-feature rows of a set, with the items' offsets and gold rows."""

    def __init__(self, rows: list[list[list[str]]], vocab: Mapping[str, int], gold: list[int]):
        import numpy as np

        entries = [
            (r, vocab[f])
            for r, option in enumerate(o for item in rows for o in item)
            for f in option
            if f in vocab
        ]
        self.rows = np.array([r for r, _ in entries], dtype=np.int64)
        self.cols = np.array([c for _, c in entries], dtype=np.int64)
        sizes = [len(item) for item in rows]
        self.starts = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
        self.n_rows = sum(sizes)
        self.item_of = np.repeat(np.arange(len(rows)), sizes)
        self.gold = np.zeros(self.n_rows)
        self.gold[self.starts + np.array(gold, dtype=np.int64)] = 1.0

    def scores(self, w: np.ndarray) -> np.ndarray:
        import numpy as np

        return np.bincount(self.rows, weights=w[self.cols], minlength=self.n_rows)

    def probabilities(self, w: np.ndarray) -> np.ndarray:
        import numpy as np

        s = self.scores(w)
        s = s - np.maximum.reduceat(s, self.starts)[self.item_of]
        e = np.exp(s)
        found: np.ndarray = e / np.add.reduceat(e, self.starts)[self.item_of]
        return found


def _fit(design: _Design, size: int, n_items: int) -> np.ndarray:
    """Return the weights of the conditional logit (Adam on the mean log loss, L2)."""
    import numpy as np

    w = np.zeros(size)
    m, v = np.zeros(size), np.zeros(size)
    for step in range(1, _STEPS + 1):
        residual = design.probabilities(w) - design.gold
        counts = np.bincount(design.cols, weights=residual[design.rows], minlength=size)
        grad = counts / n_items + _PENALTY * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= _RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w


def _gold(item: Item) -> int:
    return list(item["options"]).index(item["correct"])


def probe_scores(
    train: Sequence[Item], test: Sequence[Item], families: Sequence[Features]
) -> list[float]:
    """Return the probe's expected score on each test item (1/ties when the gold is among its
    best-scored options, else 0), after training it on ``train``."""
    import numpy as np

    train_rows = _rows(train, families)
    counts = Counter(f for item in train_rows for option in item for f in set(option))
    vocab = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= _MIN_COUNT))}
    w = _fit(_Design(train_rows, vocab, [_gold(x) for x in train]), len(vocab), len(train))
    test_rows = _rows(test, families)
    design = _Design(test_rows, vocab, [_gold(x) for x in test])
    scores = design.scores(w)
    found: list[float] = []
    for i, item in enumerate(test):
        start = int(design.starts[i])
        mine = scores[start : start + len(item["options"])]
        best = np.flatnonzero(mine >= mine.max() - 1e-9)
        found.append(1.0 / len(best) if _gold(item) in best else 0.0)
    return found
