"""Small grammar helpers: Korean particles, French elision and agreement, counted nouns."""

from __future__ import annotations

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_FR_VOWELS = "aeiouyhàâäéèêëîïôöûüAEIOUYHÀÂÉÈÊÎÔÛ"


def has_final_consonant(word: str) -> bool:
    """Return whether a Korean word ends in a syllable with a final consonant (batchim).

    Words not ending in Hangul count as ending in a vowel unless they end with a consonant
    letter of the Latin alphabet.
    """
    if not word:
        return False
    last = ord(word[-1])
    if _HANGUL_FIRST <= last <= _HANGUL_LAST:
        return (last - _HANGUL_FIRST) % 28 != 0
    return word[-1].lower() in "bcdfgjklmnpqrstvxz"


def ko_topic(word: str) -> str:
    """Return ``word`` with the Korean topic particle (은 after a consonant, else 는)."""
    return word + ("은" if has_final_consonant(word) else "는")


def ko_with(word: str) -> str:
    """Return ``word`` with the Korean comitative particle (과 after a consonant, else 와)."""
    return word + ("과" if has_final_consonant(word) else "와")


def fr_elides(word: str) -> bool:
    """Return whether French elides before ``word`` (vowel or mute h, first letter)."""
    return bool(word) and word[0] in _FR_VOWELS


def fr_de(word: str) -> str:
    """Return ``de word`` or ``d'word``."""
    return ("d'" if fr_elides(word) else "de ") + word


def fr_que(word: str) -> str:
    """Return ``que word`` or ``qu'word``."""
    return ("qu'" if fr_elides(word) else "que ") + word


def fr_article(noun: str, feminine: bool) -> str:
    """Return ``noun`` with its definite article: ``le``/``la``, ``l'`` before a vowel."""
    if fr_elides(noun):
        return "l'" + noun
    return ("la " if feminine else "le ") + noun


def fr_possessive(noun: str, feminine: bool) -> str:
    """Return ``noun`` with the possessive ``son``/``sa`` (``son`` before a vowel)."""
    return ("sa " if feminine and not fr_elides(noun) else "son ") + noun


def fr_agree(adjective: str, feminine: bool) -> str:
    """Return a regular French adjective in the feminine (``grand`` -> ``grande``) if needed."""
    if not feminine or adjective.endswith("e"):
        return adjective
    return adjective + "e"


_EN_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
               "ten")  # fmt: skip
_FR_NUMBERS = ("zéro", "une", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
               "dix")  # fmt: skip
_ZH_NUMBERS = ("零", "一", "两", "三", "四", "五", "六", "七", "八", "九", "十")
_KO_NATIVE_COUNTED = ("영", "한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉", "열")


def count_people(language: str, n: int) -> str:
    """Return "n people" in ``language`` with its counter: 五个人, 5人, 다섯 명, cinq personnes."""
    if not 1 <= n <= 10:
        raise ValueError(f"count {n} outside 1..10")
    if language == "en":
        return f"{_EN_NUMBERS[n]} {'person' if n == 1 else 'people'}"
    if language == "fr":
        return f"{_FR_NUMBERS[n]} personne{'s' if n > 1 else ''}"
    if language == "zh":
        return f"{_ZH_NUMBERS[n]}个人"
    if language == "ja":
        return {1: "1人", 2: "2人"}.get(n, f"{n}人")
    if language == "ko":
        return f"{_KO_NATIVE_COUNTED[n]} 명"
    raise ValueError(f"unknown language {language!r}")


def fill_pair(template: str, first: str, second: str) -> str:
    """Fill a two-place sentence template: ``{a}``/``{b}`` the two phrases, ``{A}`` the first
    capitalised, ``{a_t}`` the first with the Korean topic particle, ``{a_w}``/``{b_w}`` either
    with the Korean "with" particle (a template uses the fields it needs)."""
    return template.format(
        a=first,
        A=first[:1].upper() + first[1:],
        b=second,
        a_t=ko_topic(first),
        a_w=ko_with(first),
        b_w=ko_with(second),
    )
