"""Containment (MCR "Other"): boxes inside boxes, stated either way round, or apart.

Premises ``(A, inside, B)`` "A is inside B" (directly, or inside a box that is inside B),
``(A, holds, B)`` "A contains B" (the converse) and ``(A, apart, B)`` "neither is inside the
other". World model: every box lies directly in at most one box (the boxes form a forest); A is
inside B when B is above A. The answer of A to C is ``inside``, ``contains`` or ``apart``. The
solver composes along the chain with a table found by enumerating every forest of three boxes
(the premises form a tree, so the composition is exact; the tests compare it with every forest).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator, Mapping, Sequence

from relreason.generate import grammar
from relreason.generate.chains import Chain
from relreason.generate.domain_spec import (
    DomainSpec,
    Premises,
    Triple,
    shuffled,
    walk,
    wrong_labels,
)
from relreason.generate.errors import SolverError

LABELS: tuple[str, ...] = ("inside", "contains", "apart")
STATES: dict[str, str] = {"inside": "inside", "holds": "contains", "apart": "apart"}
"""Premise relation -> the label it states of its first box to its second."""
FLIP: dict[str, str] = {"inside": "contains", "contains": "inside", "apart": "apart"}
CONVERSE: dict[str, str] = {"inside": "holds", "holds": "inside", "apart": "apart"}
_RELATION_OF = {label: relation for relation, label in STATES.items()}

COLORS: dict[str, tuple[str, ...]] = {
    "en": (
        "red",
        "blue",
        "green",
        "yellow",
        "black",
        "white",
        "grey",
        "brown",
        "purple",
        "orange",
        "pink",
    ),
    "fr": (
        "rouge",
        "bleue",
        "verte",
        "jaune",
        "noire",
        "blanche",
        "grise",
        "marron",
        "violette",
        "orange",
        "rose",
    ),
    "zh": ("红", "蓝", "绿", "黄", "黑", "白", "灰", "棕", "紫", "橙", "粉"),
    "ja": (
        "赤い",
        "青い",
        "緑の",
        "黄色い",
        "黒い",
        "白い",
        "灰色の",
        "茶色の",
        "紫の",
        "オレンジの",
        "ピンクの",
    ),
    "ko": (
        "빨간",
        "파란",
        "초록",
        "노란",
        "검은",
        "흰",
        "회색",
        "갈색",
        "보라색",
        "주황색",
        "분홍색",
    ),
}
"""Box colours; the formal name of a box is its English colour."""

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "intro": "There are {n} boxes. Each box lies directly in at most one other box; a box is "
        "inside another (and the other contains it) when it lies in it directly or in a box "
        "that is inside it.",
        "inside": "{A} is inside {b}.",
        "holds": "{A} contains {b}.",
        "apart": "Neither {a} nor {b} is inside the other.",
        "question": "Is {a} inside {b}, does it contain {b}, or neither?",
        "inside_o": "It is inside it",
        "contains_o": "It contains it",
        "apart_o": "Neither is inside the other",
    },
    "fr": {
        "intro": "Il y a {n} boîtes. Chaque boîte est posée directement dans au plus une autre "
        "boîte ; une boîte est dans une autre (et l'autre la contient) quand elle y est posée "
        "directement ou dans une boîte qui s'y trouve.",
        "inside": "{A} est dans {b}.",
        "holds": "{A} contient {b}.",
        "apart": "Ni {a} ni {b} n'est dans l'autre.",
        "question": "{A} est-elle dans {b}, la contient-elle, ou ni l'un ni l'autre ?",
        "inside_o": "Elle est dedans",
        "contains_o": "Elle la contient",
        "apart_o": "Ni l'un ni l'autre",
    },
    "zh": {
        "intro": "有{n}个盒子。每个盒子最多直接放在另外一个盒子里；一个盒子直接放在另一个盒子里，"
        "或放在其中的某个盒子里，都算在它里面，也说那个盒子里面装着它。",
        "inside": "{a}在{b}里面。",
        "holds": "{a}里面装着{b}。",
        "apart": "{a}和{b}都不在对方里面。",
        "question": "{a}在{b}里面、装着{b}，还是都不是？",
        "inside_o": "在它里面",
        "contains_o": "装着它",
        "apart_o": "都不是",
    },
    "ja": {
        "intro": "箱が{n}個あります。どの箱も、じかに入っている箱は多くても一つです。じかに入って"
        "いても、中の別の箱に入っていても、その箱の「中にある」とし、その箱はそれを「中に入れている」"
        "とします。",
        "inside": "{a}は{b}の中にあります。",
        "holds": "{a}は{b}を中に入れています。",
        "apart": "{a}と{b}は、どちらも相手の中にはありません。",
        "question": "{a}は{b}の中にありますか、{b}を中に入れていますか、"
        "それともどちらでもありませんか？",
        "inside_o": "中にある",
        "contains_o": "中に入れている",
        "apart_o": "どちらでもない",
    },
    "ko": {
        "intro": "상자가 {n}개 있습니다. 각 상자는 많아야 한 상자에 직접 들어 있습니다. 직접 들어 "
        "있든 그 안의 다른 상자에 들어 있든 그 상자 '안에 있다'고 하고, 그 상자는 그것을 '담고 "
        "있다'고 합니다.",
        "inside": "{a_t} {b} 안에 있습니다.",
        "holds": "{a_t} {b}를 담고 있습니다.",
        "apart": "{a_w} {b}는 어느 쪽도 다른 쪽 안에 있지 않습니다.",
        "question": "{a_t} {b} 안에 있습니까, {b}를 담고 있습니까, 아니면 둘 다 아닙니까?",
        "inside_o": "안에 있다",
        "contains_o": "담고 있다",
        "apart_o": "둘 다 아니다",
    },
}


def box(language: str, color: str) -> str:
    """Return the box of English colour ``color`` in ``language`` ("the red box", 红盒子)."""
    word = COLORS[language][COLORS["en"].index(color)]
    return {
        "en": f"the {word} box",
        "fr": f"la boîte {word}",
        "zh": f"{word}盒子",
        "ja": f"{word}箱",
        "ko": f"{word} 상자",
    }[language]


def _fill(language: str, key: str, a: str, b: str) -> str:
    return grammar.fill_pair(_TEXT[language][key], box(language, a), box(language, b))


def premise(language: str, triple: Sequence[str]) -> str:
    """Return the sentence of one premise ("The red box is inside the blue box.")."""
    a, relation, b = triple
    return _fill(language, relation, a, b)


def forests(boxes: Sequence[str]) -> Iterator[dict[str, str | None]]:
    """Yield every forest over ``boxes`` (each box's parent, or None)."""
    for parents in itertools.product([None, *boxes], repeat=len(boxes)):
        forest = dict(zip(boxes, parents, strict=True))
        if all(p != b for b, p in forest.items()) and all(_roots(forest, b) for b in boxes):
            yield forest


def _roots(forest: Mapping[str, str | None], node: str) -> bool:
    seen = {node}
    while (node := forest[node]) is not None:  # type: ignore[assignment]
        if node in seen:
            return False
        seen.add(node)
    return True


def _above(forest: Mapping[str, str | None], node: str) -> set[str]:
    found: set[str] = set()
    while (parent := forest[node]) is not None:
        found.add(parent)
        node = parent
    return found


def relation(forest: Mapping[str, str | None], x: str, y: str) -> str:
    """Return the label of box x to box y in a forest."""
    if y in _above(forest, x):
        return "inside"
    return "contains" if x in _above(forest, y) else "apart"


@functools.lru_cache(maxsize=1)
def compose_table() -> dict[tuple[str, str], frozenset[str]]:
    """Return, for labels (x to y, y to z), every label x to z has in some forest of three."""
    table: dict[tuple[str, str], set[str]] = {}
    for forest in forests(("x", "y", "z")):
        key = (relation(forest, "x", "y"), relation(forest, "y", "z"))
        table.setdefault(key, set()).add(relation(forest, "x", "z"))
    return {key: frozenset(value) for key, value in table.items()}


def compose_labels(steps: Sequence[str]) -> frozenset[str]:
    """Return the labels of the first box to the last over a path of step labels."""
    found = frozenset(steps[:1])
    table = compose_table()
    for step in steps[1:]:
        found = frozenset(x for label in found for x in table[(label, step)])
    return found


def solve(premises: Sequence[Triple], query: Sequence[str]) -> frozenset[str]:
    """Return every label the head box has to the tail box in some world of the premises."""
    if len(query) != 3:
        raise SolverError(f"a query is [head, '?', tail], got {list(query)!r}")
    return compose_labels(walk(premises, query[0], query[2], STATES, FLIP))


def _steps(rng: random.Random, hops: int, want: str) -> list[str]:
    if want in ("inside", "contains"):
        return [want] * hops
    if want == "apart":
        k = rng.randrange(hops)
        return ["inside"] * k + ["apart"] + ["contains"] * (hops - k - 1)
    while True:
        steps = [rng.choice(LABELS) for _ in range(hops)]
        if len(compose_labels(steps)) > 1 or want != "uncertain":
            return steps


def chain(rng: random.Random, hops: int, want: str) -> Chain:
    """Return a chain of ``hops`` premises from box P0 to box Pn whose answer is ``want``."""
    premises: list[Triple] = []
    for i, label in enumerate(_steps(rng, hops, want)):
        a, b = f"P{i}", f"P{i + 1}"
        relation = _RELATION_OF[label]
        premises.append((b, CONVERSE[relation], a) if rng.random() < 0.5 else (a, relation, b))
    return Chain(shuffled(rng, premises), {}, "boxes", query=("P0", "?", f"P{hops}"))


def question(
    language: str, frame: str, premises: Premises, query: Sequence[str], sexes: Mapping[str, str]
) -> str:
    """Return the scene, the premises and the question in ``language``."""
    boxes = {x for a, _, b in premises for x in (a, b)}
    intro = _TEXT[language]["intro"].format(n=len(boxes))
    sentences = [intro, *(premise(language, p) for p in premises)]
    sentences.append(_fill(language, "question", query[0], query[2]))
    return ("" if language in ("zh", "ja") else " ").join(sentences)


def option(language: str, label: str) -> str | None:
    """Return the option text of a label."""
    return _TEXT[language].get(f"{label}_o")


def distractors(
    rng: random.Random, chain: Chain, answer: str, possible: frozenset[str], wanted: int
) -> list[str]:
    """Return the wrong labels: those the models allow first (uncertain items), then the rest."""
    return wrong_labels(rng, LABELS, answer, possible)[:wanted]


def rename(rng: random.Random, language: str, chain: Chain, fictional: bool) -> dict[str, str]:
    """Return a colour for each box."""
    boxes = sorted({x for a, _, b in chain.premises for x in (a, b)})
    return dict(zip(boxes, rng.sample(COLORS["en"], len(boxes)), strict=True))


SPEC = DomainSpec(
    name="containment",
    is_relation=STATES.__contains__,
    converse=CONVERSE.get,
    named=STATES,
    classes=LABELS,
    definite=len(LABELS),
    chain=chain,
    solve=solve,
    question=question,
    option=option,
    distractors=distractors,
    frame=lambda premises, query: "boxes",
    persons=lambda premises, query: set(),
    rename=rename,
)
