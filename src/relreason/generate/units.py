"""Unit chains, the ``exchange`` frame of quantity: how many tokens of one colour one token of
another is worth.

Premises ``(A, worth:k, B)`` "one A token is worth k B tokens" and ``(A, per:k, B)`` "k A
tokens are worth one B token" (the converse), k = 2..5. World model: all tokens of one colour
have the same positive value (the scene sentence says so). The query ``[A, "?", B]`` asks how
many B tokens one A token is worth: the product of the ratios along the chain, exact
(``fractions.Fraction``, written ``3`` or ``3/4``); ``uncertain`` when no chain of premises
links A to B (their values are then free: the solver gives two worlds' answers). Generated
items: two paths of rates, the question asking within one path or across the two.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from relreason.generate.chains import Chain
from relreason.generate.domain_spec import Triple, shuffled
from relreason.generate.errors import SolverError

_PATTERN = re.compile(r"(worth|per):([2-5])")
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
        "bleu",
        "vert",
        "jaune",
        "noir",
        "blanc",
        "gris",
        "marron",
        "violet",
        "orange",
        "rose",
    ),
    "zh": ("红色", "蓝色", "绿色", "黄色", "黑色", "白色", "灰色", "棕色", "紫色", "橙色", "粉色"),
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
"""Token colours (eleven: a chain of eight hops and one rate beside it name eleven); formal
names in English."""
_FR_PLURAL = {"gris": "gris", "marron": "marron", "orange": "orange"}

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "intro": "All tokens of one colour have the same value.",
        "worth": "One {a} token is worth {k} {b} tokens.",
        "per": "{k} {a} tokens are worth one {b} token.",
        "question": "How many {b} tokens is one {a} token worth?",
    },
    "fr": {
        "intro": "Tous les jetons d'une même couleur ont la même valeur.",
        "worth": "Un jeton {a} vaut {k} jetons {bs}.",
        "per": "{k} jetons {as_} valent un jeton {b}.",
        "question": "Combien de jetons {bs} vaut un jeton {a} ?",
    },
    "zh": {
        "intro": "同一颜色的代币价值都相同。",
        "worth": "1枚{a}代币值{k}枚{b}代币。",
        "per": "{k}枚{a}代币值1枚{b}代币。",
        "question": "1枚{a}代币值多少枚{b}代币？",
    },
    "ja": {
        "intro": "同じ色のコインはどれも同じ価値です。",
        "worth": "{a}コイン1枚は{b}コイン{k}枚と同じ価値です。",
        "per": "{a}コイン{k}枚は{b}コイン1枚と同じ価値です。",
        "question": "{a}コイン1枚は{b}コイン何枚と同じ価値ですか？",
    },
    "ko": {
        "intro": "같은 색의 토큰은 모두 가치가 같습니다.",
        "worth": "{a} 토큰 1개는 {b} 토큰 {k}개와 가치가 같습니다.",
        "per": "{a} 토큰 {k}개는 {b} 토큰 1개와 가치가 같습니다.",
        "question": "{a} 토큰 1개는 {b} 토큰 몇 개와 가치가 같습니까?",
    },
}


def parse(relation: str) -> tuple[str, int] | None:
    """Return (kind, k) of an exchange premise (``worth:3`` -> ("worth", 3)), else None."""
    found = _PATTERN.fullmatch(relation)
    return None if found is None else (found[1], int(found[2]))


def converse(relation: str) -> str | None:
    """Return the relation stated from the other colour."""
    parsed = parse(relation)
    return None if parsed is None else f"{'per' if parsed[0] == 'worth' else 'worth'}:{parsed[1]}"


def ratio(relation: str) -> Fraction:
    """Return how many B tokens one A token is worth, for premise ``(A, relation, B)``."""
    parsed = parse(relation)
    assert parsed is not None
    kind, k = parsed
    return Fraction(k) if kind == "worth" else Fraction(1, k)


def label(value: Fraction) -> str:
    """Return the label (and option text) of an exact value: ``3`` or ``3/4``."""
    return str(value)


def _color(language: str, color: str, plural: bool = False) -> str:
    word = COLORS[language][COLORS["en"].index(color)]
    if plural and language == "fr":
        return _FR_PLURAL.get(word, word + "s")
    return word


def premise(language: str, triple: Sequence[str]) -> str:
    """Return the sentence of one premise ("One red token is worth 3 blue tokens.")."""
    a, relation, b = triple
    parsed = parse(relation)
    assert parsed is not None
    text = _TEXT[language][parsed[0]].format(
        a=_color(language, a),
        b=_color(language, b),
        as_=_color(language, a, plural=True),
        bs=_color(language, b, plural=True),
        k=parsed[1],
    )
    return text[:1].upper() + text[1:]


def question(language: str, premises: Sequence[Sequence[str]], query: Sequence[str]) -> str:
    """Return the scene, the premises and the question in ``language``."""
    head, tail = _color(language, query[0]), _color(language, query[2])
    ask = _TEXT[language]["question"].format(
        a=head, b=tail, bs=_color(language, query[2], plural=True)
    )
    sentences = [_TEXT[language]["intro"], *(premise(language, p) for p in premises), ask]
    return grammar_join(language, sentences)


def grammar_join(language: str, sentences: Sequence[str]) -> str:
    """Join sentences as ``language`` writes them."""
    return ("" if language in ("zh", "ja") else " ").join(sentences)


def values(premises: Sequence[Triple], start: str) -> dict[str, Fraction]:
    """Return each colour's value in ``start`` tokens, along the premises from ``start``."""
    links: dict[str, list[tuple[str, Fraction]]] = {}
    for a, relation, b in premises:
        if parse(relation) is None or a == b:
            raise SolverError(f"premise {[a, relation, b]}: not an exchange premise")
        links.setdefault(a, []).append((b, 1 / ratio(relation)))  # one b = 1/r a
        links.setdefault(b, []).append((a, ratio(relation)))  # one a = r b
    found = {start: Fraction(1)}
    todo = [start]
    while todo:
        here = todo.pop()
        for other, worth in links.get(here, []):
            if other not in found:
                found[other] = found[here] * worth
                todo.append(other)
    nodes = set(links) | {start}
    components = 0
    seen: set[str] = set()
    for node in sorted(nodes):
        if node not in seen:
            components += 1
            seen |= set(values_from(links, node))
    if len(premises) != len(nodes) - components:
        raise SolverError("the premises must form a forest (no colour linked to itself twice)")
    return found


def values_from(links: Mapping[str, list[tuple[str, Fraction]]], start: str) -> set[str]:
    """Return the colours linked to ``start``."""
    seen = {start}
    todo = [start]
    while todo:
        for other, _ in links.get(todo.pop(), []):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def solve(premises: Sequence[Triple], query: Sequence[str]) -> frozenset[str]:
    """Return how many tail tokens one head token is worth (two worlds' answers when open)."""
    head, _, tail = query
    if head == tail:
        raise SolverError("the query relates a colour to itself")
    found = values(premises, tail)  # values in tail tokens
    if head in found:
        return frozenset({label(found[head])})
    if head not in {x for a, _, b in premises for x in (a, b)}:
        raise SolverError(f"no premise names {head!r}")
    return frozenset({"1", "2"})  # unlinked: one head token may be worth anything


def _path(rng: random.Random, names: Sequence[str]) -> list[Triple]:
    """Return rates linking ``names`` in a path, each between tokens of whole values."""
    value = rng.choice((12, 24, 36, 60, 120))
    path: list[Triple] = []
    for a, b in itertools.pairwise(names):
        while True:
            k = rng.randint(2, 5)
            up = rng.random() < 0.5
            new = value * k if up else Fraction(value, k)
            if new.denominator == 1 and 1 <= new <= 600:
                break
        relation = f"worth:{k}" if not up else f"per:{k}"  # value(a) vs value(b)
        path.append((a, relation, b))
        value = int(new)
    return path


def chain(rng: random.Random, hops: int, want: str) -> Chain:
    """Return exchange rates forming two paths: P0's own of ``hops`` rates (its proof) and a
    shorter one beside it; the question asks from P0 to the far end of its own path, or
    (``uncertain``) to an end of the other path, which no rate links to it."""

    beside = filler_length(rng, hops, min(3, len(COLORS["en"]) - hops - 2))
    colours = [f"P{i}" for i in range(hops + 2 + beside)]
    mine, other = colours[: hops + 1], colours[hops + 1 :]
    if rng.random() < 0.5:
        other.reverse()
    tail = other[-1] if want == "uncertain" else mine[-1]
    path = _path(rng, mine) + _path(rng, other)
    premises = [(b, str(converse(r)), a) if rng.random() < 0.5 else (a, r, b) for a, r, b in path]
    return Chain(shuffled(rng, premises), {}, "exchange", query=("P0", "?", tail))


def filler_length(rng: random.Random, hops: int, most: int) -> int:
    """Return the length of the path beside the asked one: 1..hops-1, at most ``most`` (names
    and colours last)."""
    return max(1, min(rng.randint(1, max(1, hops - 1)), most))
