"""Identity (MCR "Identity"): three named people, descriptions that each fit one of them.

Premises ``(X, is, Y)`` "X is Y" and ``(X, is_not, Y)`` "X is not Y", where X and Y are
descriptions ("the person who wrote the letter", formal name ``letter``) or the named people.
World model: the people named in the scene sentence are three different people and every
description fits exactly one of them. The query ``[description, "?", "A|B|C"]`` asks which of
A, B, C the description fits; the answer is that person's name, or ``uncertain``. The premises
form a tree over descriptions and people; the solver keeps, for each entity, the people it can
be given its subtree (exact on a tree; the tests compare it with every assignment).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

from relreason.generate import grammar, names
from relreason.generate.chains import Chain
from relreason.generate.domain_spec import DomainSpec, Premises, Triple, shuffled, wrong_labels
from relreason.generate.errors import SolverError

RELATIONS: tuple[str, ...] = ("is", "is_not")
PEOPLE = 3

DESCRIPTIONS: dict[str, dict[str, str]] = {
    "letter": {
        "en": "the person who wrote the letter",
        "fr": "la personne qui a écrit la lettre",
        "zh": "写信的人",
        "ja": "手紙を書いた人",
        "ko": "편지를 쓴 사람",
    },
    "cat": {
        "en": "the person who fed the cat",
        "fr": "la personne qui a nourri le chat",
        "zh": "喂猫的人",
        "ja": "猫に餌をやった人",
        "ko": "고양이에게 밥을 준 사람",
    },
    "door": {
        "en": "the person who locked the door",
        "fr": "la personne qui a fermé la porte à clé",
        "zh": "锁门的人",
        "ja": "ドアに鍵をかけた人",
        "ko": "문을 잠근 사람",
    },
    "prize": {
        "en": "the person who won the prize",
        "fr": "la personne qui a gagné le prix",
        "zh": "获奖的人",
        "ja": "賞を取った人",
        "ko": "상을 받은 사람",
    },
    "tickets": {
        "en": "the person who bought the tickets",
        "fr": "la personne qui a acheté les billets",
        "zh": "买票的人",
        "ja": "切符を買った人",
        "ko": "표를 산 사람",
    },
    "dinner": {
        "en": "the person who cooked dinner",
        "fr": "la personne qui a préparé le dîner",
        "zh": "做晚饭的人",
        "ja": "夕食を作った人",
        "ko": "저녁을 만든 사람",
    },
    "car": {
        "en": "the person who drove the car",
        "fr": "la personne qui a conduit la voiture",
        "zh": "开车的人",
        "ja": "車を運転した人",
        "ko": "차를 운전한 사람",
    },
    "plants": {
        "en": "the person who watered the plants",
        "fr": "la personne qui a arrosé les plantes",
        "zh": "浇花的人",
        "ja": "植物に水をやった人",
        "ko": "화분에 물을 준 사람",
    },
    "phone": {
        "en": "the person who answered the phone",
        "fr": "la personne qui a répondu au téléphone",
        "zh": "接电话的人",
        "ja": "電話に出た人",
        "ko": "전화를 받은 사람",
    },
}
"""Descriptions by formal name; nothing in them rules another out (one person may do all)."""

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "intro": "{people} are three different people, and each description below fits exactly "
        "one of them; one person may fit several descriptions.",
        "is": "{A} is {b}.",
        "is_not": "{A} is not {b}.",
        "question": "Who is {a}?",
    },
    "fr": {
        "intro": "{people} sont trois personnes différentes, et chaque description ci-dessous "
        "désigne exactement l'une d'elles ; une même personne peut correspondre à plusieurs "
        "descriptions.",
        "is": "{A} est {b}.",
        "is_not": "{A} n'est pas {b}.",
        "question": "Qui est {a} ?",
    },
    "zh": {
        "intro": "{people}是三个不同的人，下面的每个描述都恰好指其中一个人；"
        "同一个人可能符合多个描述。",
        "is": "{a}就是{b}。",
        "is_not": "{a}不是{b}。",
        "question": "{a}是谁？",
    },
    "ja": {
        "intro": "{people}は別々の三人で、以下の説明はどれも、そのうちのちょうど一人を指します。"
        "一人が複数の説明に当てはまることもあります。",
        "is": "{a}は{b}と同じ人です。",
        "is_not": "{a}は{b}とは別の人です。",
        "question": "{a}は誰ですか？",
    },
    "ko": {
        "intro": "{people} 서로 다른 세 사람이며, 아래의 각 설명은 그중 정확히 한 사람을 "
        "가리킵니다. 한 사람이 여러 설명에 해당할 수도 있습니다.",
        "is": "{a_t} {b_w} 같은 사람입니다.",
        "is_not": "{a_t} {b_w} 다른 사람입니다.",
        "question": "{a_t} 누구입니까?",
    },
}


def roster(query: Sequence[str]) -> list[str]:
    """Return the people of an identity query (its tail, ``A|B|C``)."""
    return str(query[2]).split("|")


def _entity(language: str, name: str) -> str:
    return DESCRIPTIONS[name][language] if name in DESCRIPTIONS else name


def _people_text(language: str, people: Sequence[str]) -> str:
    if language == "zh":
        return "、".join(people[:-1]) + "和" + people[-1]
    if language == "ja":
        return "、".join(people)
    if language == "ko":
        return ", ".join(people[:-1]) + ", " + grammar.ko_topic(people[-1])
    joined = ", ".join(people[:-1])
    return f"{joined} {'and' if language == 'en' else 'et'} {people[-1]}"


def _sentence(language: str, key: str, a: str, b: str) -> str:
    return grammar.fill_pair(_TEXT[language][key], _entity(language, a), _entity(language, b))


def premise(language: str, triple: Sequence[str]) -> str:
    """Return the sentence of one premise ("The person who wrote the letter is Alice.")."""
    a, relation, b = triple
    return _sentence(language, relation, a, b)


def solve(premises: Sequence[Triple], query: Sequence[str]) -> frozenset[str]:
    """Return every person the head description can fit in some world of the premises.

    A premise naming a person narrows what its description can be; the premises between two
    descriptions must form a forest, walked from the head (exact on a forest; the tests compare
    it with every assignment). Empty: the premises contradict each other."""
    if len(query) != 3 or query[1] != "?":
        raise SolverError(f"a query is [description, '?', 'A|B|C'], got {list(query)!r}")
    people = roster(query)
    if len(set(people)) != PEOPLE:
        raise SolverError(f"the query names {people}, not three different people")
    allowed: dict[str, set[str]] = {}
    links: dict[str, list[tuple[str, str]]] = {}
    owner: dict[str, str] = {}

    def root(x: str) -> str:
        while owner.setdefault(x, x) != x:
            x = owner[x]
        return x

    consistent = True
    for a, relation, b in premises:
        if relation not in RELATIONS or a == b:
            raise SolverError(f"premise {[a, relation, b]}: not an identity premise")
        for x in (a, b):
            if x not in DESCRIPTIONS and x not in people:
                raise SolverError(f"{x!r} is neither a description nor one of {people}")
            if x in DESCRIPTIONS:
                allowed.setdefault(x, set(people))
        if a in people and b in people:
            consistent &= relation == "is_not"  # the three are different people
        elif a in people or b in people:
            d, p = (b, a) if a in people else (a, b)
            allowed[d] &= {p} if relation == "is" else set(people) - {p}
        else:
            if root(a) == root(b):
                raise SolverError("the premises between descriptions must form a forest")
            owner[root(a)] = root(b)
            links.setdefault(a, []).append((b, relation))
            links.setdefault(b, []).append((a, relation))
    head = query[0]
    if head not in allowed:
        raise SolverError(f"the query asks about {head!r}, no description of the premises")
    done: set[str] = set()
    for start in [head, *sorted(allowed)]:
        if start not in done and not _fits(links, allowed, start, None, done):
            consistent = False
    return frozenset(_fits(links, allowed, head, None, set())) if consistent else frozenset()


def _fits(
    links: Mapping[str, list[tuple[str, str]]],
    allowed: Mapping[str, set[str]],
    node: str,
    parent: str | None,
    seen: set[str],
) -> set[str]:
    """The people ``node`` can be, given the premises of its subtree (away from ``parent``)."""
    seen.add(node)
    found = set(allowed[node])
    for other, relation in links.get(node, []):
        if other == parent:
            continue
        below = _fits(links, allowed, other, node, seen)
        found = {v for v in found if any((v == w) == (relation == "is") for w in below)}
    return found


def _say(rng: random.Random, a: str, relation: str, b: str) -> Triple:
    """Return the premise stated from either side."""
    return (a, relation, b) if rng.random() < 0.5 else (b, relation, a)


def chain(rng: random.Random, hops: int, want: str) -> Chain:
    """Return premises whose proof takes ``hops`` of them, and filler beside them.

    The asked description is the same person as a few others (a tree of *is* premises, at
    least one); that person is then named (one premise) or, as often from three hops on, found
    by ruling the two others out (two premises, or three or four where a person is ruled out
    through another description), or (``uncertain``) only one is ruled out. The asked
    description is in one premise only, *is* the tree's next one (a person it is not would be
    wrong on sight, and a larger tree around it would mark an "Uncertain" item). Filler
    premises about other descriptions make every person named in some *is* and some *is not*
    premise, so who is named where tells nothing; ``_padding`` evens the premise count.
    """
    people = [f"P{i}" for i in range(PEOPLE)]
    pool = rng.sample(sorted(DESCRIPTIONS), len(DESCRIPTIONS))
    gold = rng.choice(people)
    others = [p for p in people if p != gold]
    rng.shuffle(others)
    if want == "uncertain":
        indirect = rng.choice([i for i in (0, 1) if hops - 1 - i >= 1] or [0])
        excluded, named = others[:1], False
    elif hops >= 3 and rng.random() < 0.5:
        indirect = rng.choice([i for i in (0, 1, 2) if hops - 2 - i >= 1])
        excluded, named = others, False
    else:
        indirect, excluded, named = 0, [], True
    size = hops - len(excluded) - indirect - int(named)  # is-premises among the same-person tree
    same = [pool.pop()]
    premises: list[Triple] = []
    for _ in range(size):
        new = pool.pop()
        premises.append(_say(rng, new, "is", rng.choice(same[1:] or same)))
        same.append(new)
    told = same[1:] or same  # the asked description in one premise only (but at one hop)
    if named:
        premises.append(_say(rng, rng.choice(told), "is", gold))
    for k, person in enumerate(excluded):
        if k < indirect:
            via = pool.pop()
            premises.append(_say(rng, rng.choice(told), "is_not", via))
            premises.append(_say(rng, via, "is", person))
        else:
            premises.append(_say(rng, rng.choice(told), "is_not", person))
    premises += _filler(rng, premises, people, pool)
    premises += _padding(rng, premises, people, FILLER + hops - len(premises))
    sexes = {p: rng.choice(("M", "F")) for p in people}
    return Chain(shuffled(rng, premises), sexes, "people", query=(same[0], "?", "|".join(people)))


def _filler(
    rng: random.Random, premises: Sequence[Triple], people: Sequence[str], pool: list[str]
) -> list[Triple]:
    """Return premises about unused descriptions naming each person in an *is* and an *is
    not* premise where the others do not yet (as far as descriptions last)."""
    said = {(p, r) for a, r, b in premises for p in (a, b) if p in people}
    needs_is = [p for p in people if (p, "is") not in said]
    needs_not = [p for p in people if (p, "is_not") not in said]
    rng.shuffle(needs_is)
    rng.shuffle(needs_not)
    filler: list[Triple] = []
    while (needs_is or needs_not) and pool:
        new = pool.pop()
        fits = needs_is.pop() if needs_is else None
        if fits is not None:
            filler.append(_say(rng, new, "is", fits))
        unlike = [p for p in needs_not if p != fits]
        if unlike:
            needs_not.remove(unlike[0])
            filler.append(_say(rng, new, "is_not", unlike[0]))
    return filler


FILLER = 5
"""Premises beside the proof's: as many in every item (an "Uncertain" item's filler needs five,
a determined one's four or five), so the premise count says nothing of the answer."""


def _padding(
    rng: random.Random, premises: Sequence[Triple], people: Sequence[str], wanted: int
) -> list[Triple]:
    """Return up to ``wanted`` premises between two filler descriptions (each already the same
    as a named person, in no premise between descriptions), saying what their people make
    true: no person named, no answer changed. Only two already linked through the people are
    joined, so the premises fall into as many parts as before (a rule reads parts)."""
    fits = {
        (b if a in people else a): (a if a in people else b)
        for a, r, b in premises
        if r == "is" and (a in people) != (b in people)
    }
    owner: dict[str, str] = {}

    def root(x: str) -> str:
        while owner.setdefault(x, x) != x:
            x = owner[x]
        return x

    for a, _, b in premises:
        owner[root(a)] = root(b)
    linked = {x for a, _, b in premises for x in (a, b) if a not in people and b not in people}
    free = sorted(d for d in fits if d not in linked)
    rng.shuffle(free)
    found: list[Triple] = []
    used: set[str] = set()  # each filler description joined once (the forest stays a forest)
    for a, b in itertools.combinations(free, 2):
        if len(found) < wanted and not {a, b} & used and root(a) == root(b):
            found.append(_say(rng, a, "is" if fits[a] == fits[b] else "is_not", b))
            used |= {a, b}
    return found


def question(
    language: str, frame: str, premises: Premises, query: Sequence[str], sexes: Mapping[str, str]
) -> str:
    """Return the scene (the three people), the premises and the question in ``language``."""
    intro = _TEXT[language]["intro"].format(people=_people_text(language, roster(query)))
    sentences = [intro, *(premise(language, p) for p in premises)]
    sentences.append(_sentence(language, "question", query[0], query[0]))
    return ("" if language in ("zh", "ja") else " ").join(sentences)


def option(language: str, label: str) -> str | None:
    """Return the option text of a label: the person's name."""
    return label


def distractors(
    rng: random.Random, chain: Chain, answer: str, possible: frozenset[str], wanted: int
) -> list[str]:
    """Return the other people: those the models allow first (uncertain items)."""
    people = roster(chain.query or ("", "", ""))
    return wrong_labels(rng, people, answer, possible)[:wanted]


def rename(rng: random.Random, language: str, chain: Chain, fictional: bool) -> dict[str, str]:
    """Return a name for each person (of the sex drawn for them)."""
    people = sorted(chain.sexes)
    chosen = names.pick_names(rng, language, [chain.sexes[p] for p in people], fictional)
    return dict(zip(people, chosen, strict=True))


SPEC = DomainSpec(
    name="identity",
    is_relation=RELATIONS.__contains__,
    converse=lambda relation: relation,
    named={},
    classes=(),
    definite=PEOPLE,
    chain=chain,
    solve=solve,
    question=question,
    option=option,
    distractors=distractors,
    frame=lambda premises, query: "people",
    persons=lambda premises, query: set(roster(query)),
    rename=rename,
)
