"""Per-language person names (by sex) and invented names that belong to nobody."""

from __future__ import annotations

import random

NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "M": (
            "James",
            "Oliver",
            "Henry",
            "Samuel",
            "Daniel",
            "Thomas",
            "Lucas",
            "Adam",
            "Peter",
            "George",
            "Ethan",
            "Robert",
        ),
        "F": (
            "Emma",
            "Olivia",
            "Sophie",
            "Grace",
            "Alice",
            "Hannah",
            "Lucy",
            "Clara",
            "Ruth",
            "Mary",
            "Julia",
            "Laura",
        ),
    },
    "fr": {
        "M": (
            "Louis",
            "Hugo",
            "Arthur",
            "Jules",
            "Paul",
            "Antoine",
            "Étienne",
            "Nicolas",
            "Olivier",
            "Théo",
            "Bernard",
            "Henri",
        ),
        "F": (
            "Camille",
            "Léa",
            "Manon",
            "Chloé",
            "Inès",
            "Juliette",
            "Claire",
            "Anne",
            "Élise",
            "Margaux",
            "Sophie",
            "Louise",
        ),
    },
    "zh": {
        # Given names only: a family's members would share a surname, so none is shown.
        "M": (
            "浩然",
            "子轩",
            "宇航",
            "俊杰",
            "志强",
            "明轩",
            "博文",
            "天宇",
            "建国",
            "晓东",
            "文博",
            "嘉豪",
        ),
        "F": (
            "欣怡",
            "雨桐",
            "诗涵",
            "梓萱",
            "佳怡",
            "思琪",
            "晓燕",
            "婉清",
            "雪莹",
            "丽华",
            "紫涵",
            "梦琪",
        ),
    },
    "ja": {
        "M": (
            "太郎",
            "健太",
            "翔太",
            "大輔",
            "拓也",
            "直樹",
            "浩二",
            "誠",
            "蓮",
            "悠真",
            "和也",
            "隆",
        ),
        "F": (
            "花子",
            "美咲",
            "陽子",
            "由美",
            "さくら",
            "恵",
            "彩",
            "真由美",
            "結衣",
            "葵",
            "智子",
            "里奈",
        ),
    },
    "ko": {
        "M": (
            "민준",
            "서준",
            "도윤",
            "지호",
            "현우",
            "준서",
            "우진",
            "태민",
            "성호",
            "동현",
            "재훈",
            "영수",
        ),
        "F": (
            "서연",
            "지민",
            "하은",
            "수아",
            "지우",
            "민서",
            "유나",
            "예은",
            "소영",
            "은지",
            "혜진",
            "미나",
        ),
    },
}
"""Common given names per language and sex (M/F)."""

UNISEX: dict[str, tuple[str, ...]] = {
    "en": (
        "Alex",
        "Sam",
        "Jordan",
        "Taylor",
        "Morgan",
        "Casey",
        "Robin",
        "Jamie",
        "Charlie",
        "Riley",
        "Avery",
        "Quinn",
    ),
    "fr": (
        "Camille",
        "Dominique",
        "Claude",
        "Sacha",
        "Alix",
        "Charlie",
        "Lou",
        "Morgan",
        "Eden",
        "Noa",
        "Andréa",
        "Yaël",
    ),
}
"""Given names borne by men and women alike (English and French kinship: the sex of a person
is what the words say, never the name)."""

FICTIONAL: dict[str, tuple[str, ...]] = {
    "en": (
        "Zorvan",
        "Kelith",
        "Marrow",
        "Tessaly",
        "Quorin",
        "Brennik",
        "Ulvra",
        "Davrel",
        "Drusk",
        "Korrin",
        "Feylan",
        "Oskra",
        "Vantor",
        "Lirael",
    ),
    "fr": (
        "Zorvan",
        "Kélith",
        "Marrou",
        "Tessaly",
        "Quorin",
        "Brennik",
        "Ulvra",
        "Davrel",
        "Drusk",
        "Korrin",
        "Feylan",
        "Oskra",
        "Vantor",
        "Liraël",
    ),
    "zh": (
        "索尔文",
        "柯丽思",
        "马洛",
        "苔萨莉",
        "奎林",
        "布伦尼",
        "乌尔薇",
        "达弗瑞",
        "德鲁斯克",
        "柯林",
        "费兰",
        "奥丝卡",
        "梵托",
        "莉瑞儿",
    ),
    "ja": (
        "ゾルヴァン",
        "ケリス",
        "マロウ",
        "テサリー",
        "クオリン",
        "ブレニク",
        "ウルヴラ",
        "ダヴレル",
        "ドルスク",
        "コリン",
        "フェイラン",
        "オスクラ",
        "ヴァントル",
        "リラエル",
    ),
    "ko": (
        "조르반",
        "켈리스",
        "마로우",
        "테살리",
        "쿠오린",
        "브레닉",
        "울브라",
        "다브렐",
        "드루스크",
        "코린",
        "페일란",
        "오스크라",
        "반토르",
        "리라엘",
    ),
}
"""Invented names (no sex, no bearer) per script, to rule out memorised facts."""


def pick_names(
    rng: random.Random,
    language: str,
    sexes: list[str | None],
    fictional: bool,
    *,
    unisex: bool = False,
) -> list[str]:
    """Return one distinct name per person: of the person's sex (random when None).

    With ``fictional``, invented names regardless of sex; with ``unisex`` (English and French),
    names borne by either sex.
    """
    if fictional:
        return rng.sample(FICTIONAL[language], len(sexes))
    if unisex and language in UNISEX:
        return rng.sample(UNISEX[language], len(sexes))
    chosen: list[str] = []
    pools = {sex: list(NAMES[language][sex]) for sex in ("M", "F")}
    for sex in sexes:
        key = sex if sex is not None else rng.choice(("M", "F"))
        pool = [name for name in pools[key] if name not in chosen]
        chosen.append(rng.choice(pool))
    return chosen
