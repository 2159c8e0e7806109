"""Turning formal premises, queries and answer labels into sentences of each language.

Agreement handled here: Korean particles after names (은/는, 와/과), French elision
(``d'Alice``, ``qu'Élise``), articles and possessives by the noun's gender, adjectives agreeing
with the person's sex, and counted people (两个人, 5人, 다섯 명, cinq personnes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import relreason.generate.grammar as grammar
import relreason.generate.lexicon as lexicon
import relreason.generate.lexicon_order as lexicon_order
from relreason.generate import kin_words
from relreason.generate.domains import SPECS
from relreason.generate.kin_terms import FRENCH_FEMININE

Triple = Sequence[str]
_ADJ = re.compile(r"\{adj:([^}]+)\}")


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(language: str, pattern: str, names: Mapping[str, str], sex_a: str | None) -> str:
    """Fill ``{a} {b} {c}`` and their particle/elision forms, and French adjectives."""
    a, b, c = names.get("a", ""), names.get("b", ""), names.get("c", "")
    feminine = sex_a == "F"
    text = _ADJ.sub(lambda m: grammar.fr_agree(m[1], feminine), pattern)
    values = {
        "a": grammar.ko_topic(a) if language == "ko" else a,
        "b": b,
        "c": c,
        "de_b": grammar.fr_de(b),
        "que_b": grammar.fr_que(b),
        "b_with": grammar.ko_with(b),
        "c_with": grammar.ko_with(c),
        "il": "elle" if feminine else "il",
        "n": names.get("n", ""),
        "w": names.get("w", ""),
    }
    return text.format(**values)


def join(language: str, sentences: Sequence[str]) -> str:
    """Join sentences the way ``language`` writes them (no spaces in Chinese and Japanese)."""
    glue = "" if language in ("zh", "ja") else " "
    return glue.join(sentences)


def kin_premise(language: str, triple: Triple, sexes: Mapping[str, str]) -> str:
    """Return ``X is Y's <relation>`` (or ``X is a man``) in ``language``."""
    a, relation, b = triple
    if relation == "sex":
        male, female = lexicon.SEX_WORDS[language]
        return _fill(language, male if b == "male" else female, {"a": a}, None)
    word = lexicon.KIN_PREMISE[language][relation]
    if "{" in word:  # a whole sentence (French words that leave the subject's sex open)
        return _fill(language, word, {"a": a, "b": b}, None)
    if "|" in word:
        male, female = word.split("|")
        word = male if sexes[b] == "M" else female
    if language == "en":
        return f"{a} is {b}'s {word}."
    if language == "fr":
        article = grammar.fr_article(word, sexes[a] == "F")
        return f"{a} est {article} {grammar.fr_de(b)}."
    if language == "zh":
        return f"{a}是{b}的{word}。"
    if language == "ja":
        return f"{a}は{b}の{word}です。"
    return f"{grammar.ko_topic(a)} {b}의 {word}입니다."


def kin_question(language: str, head: str, tail: str) -> str:
    """Return "What is <head> to <tail>?" in ``language``."""
    return {
        "en": f"What is {head} to {tail}?",
        "fr": f"Qui est {head} pour {tail} ?",
        "zh": f"{head}是{tail}的什么人？",
        "ja": f"{head}は{tail}の何にあたりますか？",
        "ko": f"{grammar.ko_topic(head)} {tail}의 누구입니까?",
    }[language]


def kin_word_option(language: str, word: str) -> str:
    """Return the option text of a kinship word ("Grandmother", "Sa grand-mère", 외할머니)."""
    if language == "en":
        return _capitalize(word)
    if language == "fr":
        return _capitalize(grammar.fr_possessive(word, word in FRENCH_FEMININE))
    return word


def kin_option(language: str, label: str) -> str | None:
    """Return the option text of a kinship label or pattern (None: no word for it)."""
    word = kin_words.word_of(language, label)
    return None if word is None else kin_word_option(language, word)


def position_intro(language: str, frame: str, count: int) -> str:
    """Return the scene sentence ("Five people are standing in a large field.")."""
    people = grammar.count_people(language, count)
    text = _fill(language, lexicon.POSITION_TEXT[language][frame], {"n": people}, None)
    return _capitalize(text)


def position_premise(language: str, triple: Triple) -> str:
    """Return a compass or left/right/front/back premise in ``language``."""
    a, relation, b = triple
    if relation in lexicon.RELATIVE_PREMISE["en"]:
        pattern = lexicon.RELATIVE_PREMISE[language][relation]
        return _fill(language, pattern, {"a": a, "b": b}, None)
    direction = relation.removesuffix("_of")
    word = lexicon.COMPASS_WORDS[language][direction]
    pattern = lexicon.POSITION_TEXT[language]["compass_p"]
    return _fill(language, pattern, {"a": a, "b": b, "w": word}, None)


def position_question(language: str, frame: str, head: str, tail: str) -> str:
    """Return "In which direction is A from C?" (compass) or "Where is A relative to C?"."""
    pattern = lexicon.POSITION_TEXT[language][f"{frame}_q"]
    return _fill(language, pattern, {"a": head, "c": tail}, None)


def position_option(language: str, label: str) -> str | None:
    """Return the option text of a position label (None for ``same_place``)."""
    if label in lexicon.RELATIVE_WORDS[language]:
        return lexicon.RELATIVE_WORDS[language][label]
    if label not in lexicon.COMPASS_WORDS[language]:
        return None
    if language == "fr":
        return lexicon.COMPASS_OPTIONS_FR[label]
    return _capitalize(lexicon.COMPASS_WORDS[language][label])


def order_intro(language: str, attribute: str, count: int) -> str:
    """Return the scene sentence ("There are five people.")."""
    people = grammar.count_people(language, count)
    key = "arrival" if attribute == "arrival" else "people"
    return _capitalize(
        _fill(language, lexicon_order.ORDER_INTRO[language][key], {"n": people}, None)
    )


def order_premise(language: str, triple: Triple, sexes: Mapping[str, str]) -> str:
    """Return a comparison premise ("A is taller than B.") in ``language``."""
    a, relation, b = triple
    pattern = lexicon_order.ORDER_PREMISE[language][relation]
    return _fill(language, pattern, {"a": a, "b": b}, sexes.get(a))


def order_question(language: str, attribute: str, head: str, tail: str, sex: str | None) -> str:
    """Return "Compared with C, is A taller, shorter, or the same height?" in ``language``."""
    pattern = lexicon_order.ORDER_QUESTION[language][attribute]
    return _fill(language, pattern, {"a": head, "c": tail}, sex)


def order_option(language: str, label: str, sex: str | None) -> str:
    """Return the option text of an order label, agreeing with the person asked about."""
    return _fill(language, lexicon_order.ORDER_OPTIONS[language][label], {}, sex)


def option_text(language: str, domain: str, label: str, sex_head: str | None = None) -> str | None:
    """Return the option text of any formal answer label (``uncertain`` included)."""
    if label == "uncertain":
        return lexicon.UNCERTAIN[language]
    if domain == "kinship":
        return kin_option(language, label)
    if domain in SPECS:
        return SPECS[domain].option(language, label)
    if domain == "position":
        return position_option(language, label)
    return order_option(language, label, sex_head)
