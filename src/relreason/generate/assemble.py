"""Assembling one item: the rendered question and options, and the formal record beside them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import relreason.generate.lexicon as lexicon
import relreason.generate.render as render
from relreason.generate.chains import Chain, Triple
from relreason.generate.domains import SPECS

FORMAT_VERSION = 1


def _rename(triple: Triple, rename: Mapping[str, str]) -> list[str]:
    a, relation, b = triple
    return [rename.get(a, a), relation, rename.get(b, b)]


def question_text(
    language: str,
    domain: str,
    frame: str,
    premises: Sequence[Sequence[str]],
    query: Sequence[str],
    sexes: Mapping[str, str],
) -> str:
    """Return the question: scene sentence (if any), premises in order, then the question.

    ``premises``/``query`` use the final names; ``sexes`` maps those names to M/F.
    """
    head, _, tail = query
    people = {p for a, r, b in premises for p in ((a,) if r == "sex" else (a, b))}
    sentences: list[str] = []
    if domain in SPECS:
        return SPECS[domain].question(language, frame, premises, query, sexes)
    if domain == "kinship":
        sentences += [render.kin_premise(language, p, sexes) for p in premises]
        sentences.append(render.kin_question(language, head, tail))
    elif domain == "position":
        sentences.append(render.position_intro(language, frame, len(people)))
        sentences += [render.position_premise(language, p) for p in premises]
        sentences.append(render.position_question(language, frame, head, tail))
    else:
        sentences.append(render.order_intro(language, frame, len(people)))
        sentences += [render.order_premise(language, p, sexes) for p in premises]
        sentences.append(render.order_question(language, frame, head, tail, sexes.get(head)))
    return render.join(language, sentences)


def category(language: str, domain: str) -> list[str]:
    """Return the MCR category list of a domain (Chinese names in Chinese files)."""
    names = lexicon.CATEGORIES[domain]
    return [names["zh"] if language == "zh" else names["en"]]


def assemble(
    options: Any,
    domain: str,
    hops: int,
    index: int,
    chain: Chain,
    premises: list[Triple],
    rename: Mapping[str, str],
    answer: str,
    labels: list[str],
) -> dict[str, Any]:
    """Return the JSON-ready item: MCR fields first, then the formal ones.

    ``labels``: the formal label of each option, in option order (``answer`` among them).
    """
    language = options.language
    formal = [_rename(p, rename) for p in premises]
    if chain.query is not None:  # later domains: names of things or lists of people
        query = ["|".join(rename.get(x, x) for x in part.split("|")) for part in chain.query]
        answer = rename.get(answer, answer)
        labels = [rename.get(label, label) for label in labels]
    else:
        query = [rename["P0"], "?", rename[f"P{hops}"]]
    sexes = {rename[p]: s for p, s in chain.sexes.items()}
    head_sex = sexes.get(query[0])
    texts = [render.option_text(language, domain, label, head_sex) for label in labels]
    correct = render.option_text(language, domain, answer, head_sex)
    assert correct is not None and None not in texts
    return {
        "question": question_text(language, domain, chain.frame, formal, query, sexes),
        "options": texts,
        "correct": correct,
        "category": category(language, domain),
        "id": f"{domain}-{language}-{options.seed}-{index}",
        "domain": domain,
        "frame": chain.frame,
        "hops": hops,
        "language": language,
        "seed": options.seed,
        "index": index,
        "premises": formal,
        "query": query,
        "answer": answer,
        "option_labels": labels,
        "sexes": sexes,
    }
