"""Kinship vocabulary of each language: the word for a formal label, or None (no common word).

A language's term is a function of the structure in the label (see ``kin_labels``), so the
finer distinctions of Chinese, Japanese and Korean (paternal or maternal side, older or
younger, the sex of the person spoken of) come out of the solved world, not from a table of
answers. Two labels with the same term are the same answer in that language.
"""

from __future__ import annotations

from collections.abc import Callable

Term = str | None


def split(label: str) -> tuple[str, str]:
    """Return (core, Y's sex) of a label ``core@S``."""
    core, _, ysex = label.rpartition("@")
    return core, ysex


def _parts(core: str) -> tuple[str, list[str]]:
    if core.startswith("sp["):
        inner, _, sex = core[3:].rpartition("]:")
        return "sp", [inner, sex]
    if core.startswith("ofsp["):
        return "ofsp", [core[5:-1]]
    kind, _, rest = core.partition(":")
    return kind, rest.split(":")


def _pick(sex: str, male: str, female: str) -> str:
    return male if sex == "M" else female


# ---- English -------------------------------------------------------------------------------


def _en_blood(core: str) -> Term:
    kind, f = _parts(core)
    if kind == "anc":
        names = {1: ("father", "mother"), 2: ("grandfather", "grandmother")}
        names[3] = ("great-grandfather", "great-grandmother")
        pair = names.get(len(f[0]))
        return None if pair is None else _pick(f[0][-1], *pair)
    if kind == "desc":
        names = {1: ("son", "daughter"), 2: ("grandson", "granddaughter")}
        names[3] = ("great-grandson", "great-granddaughter")
        pair = names.get(len(f[0]))
        return None if pair is None else _pick(f[0][-1], *pair)
    if kind == "col":
        up, down = len(f[0].strip("-")), len(f[2])
        table = {
            (0, 1): ("brother", "sister"),
            (1, 1): ("uncle", "aunt"),
            (0, 2): ("nephew", "niece"),
            (1, 2): ("cousin", "cousin"),
            (2, 1): ("great-uncle", "great-aunt"),
        }
        pair = table.get((up, down))
        return None if pair is None else _pick(f[2][-1], *pair)
    return None


def term_en(label: str) -> Term:
    """Return the English term for ``label`` (e.g. ``grandmother``), or None."""
    core, _ = split(label)
    kind, f = _parts(core)
    if kind == "spouse":
        return _pick(f[0], "husband", "wife")
    if kind == "sp":
        inner = _en_blood(f[0])
        mapping = {
            "brother": "brother-in-law",
            "sister": "brother-in-law",
            "uncle": "uncle",
            "aunt": "uncle",
            "son": "son-in-law",
            "daughter": "son-in-law",
        }
        male = mapping.get(inner or "")
        if male is None:
            return None
        female = {
            "brother-in-law": "sister-in-law",
            "uncle": "aunt",
            "son-in-law": "daughter-in-law",
        }
        return male if f[1] == "M" else female[male]
    if kind == "ofsp":
        inner = _en_blood(f[0])
        return {
            "father": "father-in-law",
            "mother": "mother-in-law",
            "brother": "brother-in-law",
            "sister": "sister-in-law",
        }.get(inner or "")
    return _en_blood(core)


# ---- French ----------------------------------------------------------------------------------


def term_fr(label: str) -> Term:
    """Return the French term for ``label`` (e.g. ``grand-mère``), or None."""
    english = term_en(label)
    if english is None:
        return None
    core, _ = split(label)
    _, f = _parts(core)
    if english == "cousin":
        return _pick(f[2][-1], "cousin", "cousine")
    return FRENCH[english]


FRENCH: dict[str, str] = {
    "father": "père",
    "mother": "mère",
    "grandfather": "grand-père",
    "grandmother": "grand-mère",
    "great-grandfather": "arrière-grand-père",
    "great-grandmother": "arrière-grand-mère",
    "son": "fils",
    "daughter": "fille",
    "grandson": "petit-fils",
    "granddaughter": "petite-fille",
    "great-grandson": "arrière-petit-fils",
    "great-granddaughter": "arrière-petite-fille",
    "brother": "frère",
    "sister": "sœur",
    "uncle": "oncle",
    "aunt": "tante",
    "nephew": "neveu",
    "niece": "nièce",
    "great-uncle": "grand-oncle",
    "great-aunt": "grand-tante",
    "husband": "mari",
    "wife": "femme",
    "brother-in-law": "beau-frère",
    "sister-in-law": "belle-sœur",
    "son-in-law": "gendre",
    "daughter-in-law": "belle-fille",
    "father-in-law": "beau-père",
    "mother-in-law": "belle-mère",
}
"""English kin word -> French (same referent; French, like English, ignores side and age)."""

FRENCH_FEMININE: frozenset[str] = frozenset(
    {
        "mère",
        "grand-mère",
        "arrière-grand-mère",
        "fille",
        "petite-fille",
        "arrière-petite-fille",
        "sœur",
        "tante",
        "nièce",
        "grand-tante",
        "femme",
        "belle-sœur",
        "belle-fille",
        "belle-mère",
        "cousine",
    }
)
"""French kin nouns of feminine gender (for articles and possessives)."""


# ---- Chinese ---------------------------------------------------------------------------------


def _zh_blood(core: str) -> Term:
    kind, f = _parts(core)
    if kind == "anc":
        return {
            "M": "父亲",
            "F": "母亲",
            "MM": "爷爷",
            "MF": "奶奶",
            "FM": "外公",
            "FF": "外婆",
            "MMM": "曾祖父",
            "MMF": "曾祖母",
        }.get(f[0])
    if kind == "desc":
        return {
            "M": "儿子",
            "F": "女儿",
            "MM": "孙子",
            "MF": "孙女",
            "FM": "外孙",
            "FF": "外孙女",
            "MMM": "曾孙",
            "MMF": "曾孙女",
        }.get(f[0])
    if kind == "col":
        up, order, down = f
        if up == "-" and len(down) == 1:
            return {"oM": "哥哥", "yM": "弟弟", "oF": "姐姐", "yF": "妹妹"}[order + down]
        if len(up) == 1 and len(down) == 1:
            if up == "M":
                return "姑姑" if down == "F" else ("伯父" if order == "o" else "叔叔")
            return "舅舅" if down == "M" else "姨妈"
        if up == "-" and len(down) == 2:
            return {"MM": "侄子", "MF": "侄女", "FM": "外甥", "FF": "外甥女"}[down]
    return None


def term_zh(label: str) -> Term:
    """Return the Chinese term for ``label`` (e.g. ``外婆``), or None."""
    core, ysex = split(label)
    kind, f = _parts(core)
    if kind == "spouse":
        return _pick(f[0], "丈夫", "妻子")
    if kind == "sp":
        inner = _zh_blood(f[0])
        return {
            "哥哥": "嫂子",
            "弟弟": "弟媳",
            "姐姐": "姐夫",
            "妹妹": "妹夫",
            "伯父": "伯母",
            "叔叔": "婶婶",
            "姑姑": "姑父",
            "舅舅": "舅妈",
            "姨妈": "姨父",
            "儿子": "儿媳",
            "女儿": "女婿",
        }.get(inner or "")
    if kind == "ofsp":
        inner = _zh_blood(f[0])
        if inner in ("父亲", "母亲"):
            male = ysex == "M"
            return ("岳父" if male else "公公") if inner == "父亲" else ("岳母" if male else "婆婆")
        return None
    return _zh_blood(core)


# ---- Japanese --------------------------------------------------------------------------------


def _ja_blood(core: str) -> Term:
    kind, f = _parts(core)
    if kind == "anc":
        names = {1: ("父", "母"), 2: ("祖父", "祖母"), 3: ("曾祖父", "曾祖母")}
        pair = names.get(len(f[0]))
        return None if pair is None else _pick(f[0][-1], *pair)
    if kind == "desc":
        return {1: _pick(f[0][-1], "息子", "娘"), 2: "孫", 3: "ひ孫"}.get(len(f[0]))
    if kind == "col":
        up, order, down = f
        if up == "-" and len(down) == 1:
            return {"oM": "兄", "yM": "弟", "oF": "姉", "yF": "妹"}[order + down]
        if len(up) == 1 and len(down) == 1:
            return {"oM": "伯父", "yM": "叔父", "oF": "伯母", "yF": "叔母"}[order + down]
        if up == "-" and len(down) == 2:
            return _pick(down[-1], "甥", "姪")
        if len(up) == 1 and len(down) == 2:
            return "いとこ"
    return None


def term_ja(label: str) -> Term:
    """Return the Japanese term for ``label`` (e.g. ``伯父``), or None."""
    core, _ = split(label)
    kind, f = _parts(core)
    if kind == "spouse":
        return _pick(f[0], "夫", "妻")
    if kind == "sp":
        inner = _ja_blood(f[0])
        return {
            "兄": "義姉",
            "弟": "義妹",
            "姉": "義兄",
            "妹": "義弟",
            "伯父": "伯母",
            "叔父": "叔母",
            "伯母": "伯父",
            "叔母": "叔父",
            "息子": "嫁",
            "娘": "婿",
        }.get(inner or "")
    if kind == "ofsp":
        inner = _ja_blood(f[0])
        return {
            "父": "義父",
            "母": "義母",
            "兄": "義兄",
            "弟": "義弟",
            "姉": "義姉",
            "妹": "義妹",
        }.get(inner or "")
    return _ja_blood(core)


# ---- Korean ----------------------------------------------------------------------------------


def _ko_blood(core: str, ysex: str) -> Term:
    kind, f = _parts(core)
    if kind == "anc":
        return {
            "M": "아버지",
            "F": "어머니",
            "MM": "할아버지",
            "MF": "할머니",
            "FM": "외할아버지",
            "FF": "외할머니",
            "MMM": "증조할아버지",
            "MMF": "증조할머니",
        }.get(f[0])
    if kind == "desc":
        return {
            "M": "아들",
            "F": "딸",
            "MM": "손자",
            "MF": "손녀",
            "FM": "외손자",
            "FF": "외손녀",
            "MMM": "증손자",
            "MMF": "증손녀",
        }.get(f[0])
    if kind == "col":
        up, order, down = f
        if up == "-" and len(down) == 1:
            if order == "y":
                return _pick(down, "남동생", "여동생")
            if down == "M":
                return _pick(ysex, "형", "오빠")
            return _pick(ysex, "누나", "언니")
        if len(up) == 1 and len(down) == 1:
            if up == "M":
                return "고모" if down == "F" else ("큰아버지" if order == "o" else "작은아버지")
            return "외삼촌" if down == "M" else "이모"
        if up == "-" and len(down) == 2:
            return _pick(down[-1], "조카", "조카딸")
        if len(up) == 1 and len(down) == 2:
            return "사촌"
    return None


def term_ko(label: str) -> Term:
    """Return the Korean term for ``label`` (``형``/``오빠`` by Y's sex), or None."""
    core, ysex = split(label)
    kind, f = _parts(core)
    if kind == "spouse":
        return _pick(f[0], "남편", "아내")
    if kind == "sp":
        inner = _ko_blood(f[0], ysex)
        return {
            "형": "형수",
            "오빠": "새언니",
            "남동생": _pick(ysex, "제수", "올케"),
            "누나": "매형",
            "언니": "형부",
            "여동생": _pick(ysex, "매제", "제부"),
            "큰아버지": "큰어머니",
            "작은아버지": "작은어머니",
            "고모": "고모부",
            "외삼촌": "외숙모",
            "이모": "이모부",
            "아들": "며느리",
            "딸": "사위",
        }.get(inner or "")
    if kind == "ofsp":
        inner = _ko_blood(f[0], ysex)
        if inner in ("아버지", "어머니"):
            if ysex == "M":
                return "장인" if inner == "아버지" else "장모"
            return "시아버지" if inner == "아버지" else "시어머니"
        return None
    return _ko_blood(core, ysex)


TERMS: dict[str, Callable[[str], Term]] = {
    "en": term_en,
    "fr": term_fr,
    "zh": term_zh,
    "ja": term_ja,
    "ko": term_ko,
}
"""Language code -> its kinship term function."""


def term(language: str, label: str) -> Term:
    """Return ``language``'s term for a kinship label, or None when it has no common word."""
    if label.startswith("none"):
        return None
    return TERMS[language](label)
