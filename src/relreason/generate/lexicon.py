"""Words and sentence patterns of each language, by domain (data only; see ``render``).

Patterns use ``{a}``/``{b}`` for names already carrying their particles or elisions (built by
``render``); every sentence ends with its own full stop.
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("en", "zh", "fr", "ja", "ko")

UNCERTAIN: dict[str, str] = {
    "en": "Uncertain",
    "fr": "Incertain",
    "zh": "无法确定",
    "ja": "判断できない",
    "ko": "알 수 없음",
}
"""The "uncertain" option in each language."""

CATEGORIES: dict[str, dict[str, str]] = {
    "kinship": {"en": "Personal", "zh": "人物关系"},
    "position": {"en": "Positional", "zh": "位置关系"},
    "order": {"en": "Comparative", "zh": "比较关系"},
}
"""MCR category of each domain (Chinese files use the Chinese names, others the English)."""

# ---- kinship premises: X is Y's <word> ----------------------------------------------------

KIN_PREMISE: dict[str, dict[str, str]] = {
    "en": {
        "father": "father", "mother": "mother", "son": "son", "daughter": "daughter",
        "husband": "husband", "wife": "wife", "brother": "brother", "sister": "sister",
        "older_brother": "older brother", "younger_brother": "younger brother",
        "older_sister": "older sister", "younger_sister": "younger sister",
    },
    "fr": {
        "father": "père", "mother": "mère", "son": "fils", "daughter": "fille",
        "husband": "mari", "wife": "femme", "brother": "frère", "sister": "sœur",
        "older_brother": "frère aîné", "younger_brother": "frère cadet",
        "older_sister": "sœur aînée", "younger_sister": "sœur cadette",
    },
    "zh": {
        "father": "父亲", "mother": "母亲", "son": "儿子", "daughter": "女儿",
        "husband": "丈夫", "wife": "妻子", "older_brother": "哥哥", "younger_brother": "弟弟",
        "older_sister": "姐姐", "younger_sister": "妹妹",
    },
    "ja": {
        "father": "父", "mother": "母", "son": "息子", "daughter": "娘", "husband": "夫",
        "wife": "妻", "older_brother": "兄", "younger_brother": "弟", "older_sister": "姉",
        "younger_sister": "妹",
    },
    "ko": {
        "father": "아버지", "mother": "어머니", "son": "아들", "daughter": "딸",
        "husband": "남편", "wife": "아내", "older_brother": "형|오빠",
        "younger_brother": "남동생", "older_sister": "누나|언니", "younger_sister": "여동생",
    },
}
"""Premise relation -> word per language; ``male|female`` words depend on Y's sex (Korean)."""

SEX_WORDS: dict[str, tuple[str, str]] = {
    "en": ("{a} is a man.", "{a} is a woman."),
    "fr": ("{a} est un homme.", "{a} est une femme."),
    "zh": ("{a}是男性。", "{a}是女性。"),
    "ja": ("{a}は男性です。", "{a}は女性です。"),
    "ko": ("{a} 남성입니다.", "{a} 여성입니다."),
}

# ---- position -----------------------------------------------------------------------------

COMPASS_WORDS: dict[str, dict[str, str]] = {
    "en": {"north": "due north", "south": "due south", "east": "due east", "west": "due west",
           "northeast": "northeast", "northwest": "northwest", "southeast": "southeast",
           "southwest": "southwest"},
    "fr": {"north": "exactement au nord", "south": "exactement au sud",
           "east": "exactement à l'est", "west": "exactement à l'ouest", "northeast": "au nord-est", "northwest": "au nord-ouest",
           "southeast": "au sud-est", "southwest": "au sud-ouest"},
    "zh": {"north": "正北方", "south": "正南方", "east": "正东方", "west": "正西方",
           "northeast": "东北方", "northwest": "西北方", "southeast": "东南方",
           "southwest": "西南方"},
    "ja": {"north": "真北", "south": "真南", "east": "真東", "west": "真西", "northeast": "北東",
           "northwest": "北西", "southeast": "南東", "southwest": "南西"},
    "ko": {"north": "정북쪽", "south": "정남쪽", "east": "정동쪽", "west": "정서쪽",
           "northeast": "북동쪽", "northwest": "북서쪽", "southeast": "남동쪽",
           "southwest": "남서쪽"},
}
"""Compass direction words (premises and options)."""

COMPASS_OPTIONS_FR: dict[str, str] = {
    "north": "Plein nord", "south": "Plein sud", "east": "Plein est", "west": "Plein ouest",
    "northeast": "Nord-est", "northwest": "Nord-ouest", "southeast": "Sud-est",
    "southwest": "Sud-ouest",
}

RELATIVE_WORDS: dict[str, dict[str, str]] = {
    "en": {"front": "Directly in front", "back": "Directly behind",
           "left": "Directly to the left", "right": "Directly to the right",
           "front_left": "In front and to the left", "front_right": "In front and to the right",
           "back_left": "Behind and to the left", "back_right": "Behind and to the right"},
    "fr": {"front": "Juste devant", "back": "Juste derrière", "left": "Juste à gauche",
           "right": "Juste à droite", "front_left": "Devant à gauche",
           "front_right": "Devant à droite", "back_left": "Derrière à gauche",
           "back_right": "Derrière à droite"},
    "zh": {"front": "正前方", "back": "正后方", "left": "正左方", "right": "正右方",
           "front_left": "左前方", "front_right": "右前方", "back_left": "左后方",
           "back_right": "右后方"},
    "ja": {"front": "真ん前", "back": "真後ろ", "left": "真左", "right": "真右",
           "front_left": "左前", "front_right": "右前", "back_left": "左後ろ",
           "back_right": "右後ろ"},
    "ko": {"front": "바로 앞", "back": "바로 뒤", "left": "바로 왼쪽", "right": "바로 오른쪽",
           "front_left": "왼쪽 앞", "front_right": "오른쪽 앞", "back_left": "왼쪽 뒤",
           "back_right": "오른쪽 뒤"},
}
"""Left/right/front/back answer words."""

RELATIVE_PREMISE: dict[str, dict[str, str]] = {
    "en": {"in_front_of": "{a} stands directly in front of {b}.",
           "behind": "{a} stands directly behind {b}.",
           "left_of": "{a} stands directly to the left of {b}.",
           "right_of": "{a} stands directly to the right of {b}."},
    "fr": {"in_front_of": "{a} se tient juste devant {b}.",
           "behind": "{a} se tient juste derrière {b}.",
           "left_of": "{a} se tient juste à gauche {de_b}.",
           "right_of": "{a} se tient juste à droite {de_b}."},
    "zh": {"in_front_of": "{a}站在{b}的正前方。", "behind": "{a}站在{b}的正后方。",
           "left_of": "{a}站在{b}的正左方。", "right_of": "{a}站在{b}的正右方。"},
    "ja": {"in_front_of": "{a}は{b}の真ん前に立っています。",
           "behind": "{a}は{b}の真後ろに立っています。",
           "left_of": "{a}は{b}の真左に立っています。",
           "right_of": "{a}は{b}の真右に立っています。"},
    "ko": {"in_front_of": "{a} {b}의 바로 앞에 서 있습니다.",
           "behind": "{a} {b}의 바로 뒤에 서 있습니다.",
           "left_of": "{a} {b}의 바로 왼쪽에 서 있습니다.",
           "right_of": "{a} {b}의 바로 오른쪽에 서 있습니다."},
}

POSITION_TEXT: dict[str, dict[str, str]] = {
    "en": {"compass": "{n} are standing in a large field.",
           "relative": "{n} are standing in a square, all facing the same direction.",
           "compass_q": "In which direction is {a} from {c}?",
           "relative_q": "Where is {a} relative to {c}?",
           "compass_p": "{a} is {w} of {b}."},
    "fr": {"compass": "{n} se trouvent dans un grand champ.",
           "relative": "{n} se tiennent sur une place, toutes tournées dans la même direction.",
           "compass_q": "Dans quelle direction se trouve {a} par rapport à {c} ?",
           "relative_q": "Où se trouve {a} par rapport à {c} ?",
           "compass_p": "{a} se trouve {w} {de_b}."},
    "zh": {"compass": "{n}站在一片空地上。", "relative": "{n}站在广场上，都面朝同一个方向。",
           "compass_q": "{a}在{c}的什么方向？", "relative_q": "{a}在{c}的什么位置？",
           "compass_p": "{a}在{b}的{w}。"},
    "ja": {"compass": "広い野原に{n}が立っています。",
           "relative": "広場に{n}が同じ方向を向いて立っています。",
           "compass_q": "{a}は{c}から見てどの方角にいますか？",
           "relative_q": "{a}は{c}から見てどこにいますか？",
           "compass_p": "{a}は{b}の{w}にいます。"},
    "ko": {"compass": "넓은 들판에 {n}이 서 있습니다.",
           "relative": "광장에 {n}이 모두 같은 방향을 보고 서 있습니다.",
           "compass_q": "{a} {c}의 어느 방향에 있습니까?",
           "relative_q": "{a} {c}의 어느 쪽에 있습니까?",
           "compass_p": "{a} {b}의 {w}에 있습니다."},
}

# ---- order and comparison ----------------------------------------------------------------
# Premise patterns per relation; ``{adj:grand}`` marks a French adjective agreeing with A.

ORDER_PREMISE: dict[str, dict[str, str]] = {
    "en": {"taller_than": "{a} is taller than {b}.", "shorter_than": "{a} is shorter than {b}.",
           "same_height_as": "{a} is the same height as {b}.",
           "older_than": "{a} is older than {b}.", "younger_than": "{a} is younger than {b}.",
           "same_age_as": "{a} is the same age as {b}.",
           "arrived_before": "{a} arrived before {b}.", "arrived_after": "{a} arrived after {b}.",
           "arrived_with": "{a} arrived at the same time as {b}."},
    "fr": {"taller_than": "{a} est plus {adj:grand} {que_b}.",
           "shorter_than": "{a} est plus {adj:petit} {que_b}.",
           "same_height_as": "{a} est de la même taille {que_b}.",
           "older_than": "{a} est plus {adj:âgé} {que_b}.",
           "younger_than": "{a} est plus jeune {que_b}.",
           "same_age_as": "{a} a le même âge {que_b}.",
           "arrived_before": "{a} est {adj:arrivé} avant {b}.",
           "arrived_after": "{a} est {adj:arrivé} après {b}.",
           "arrived_with": "{a} est {adj:arrivé} en même temps {que_b}."},
    "zh": {"taller_than": "{a}比{b}高。", "shorter_than": "{a}比{b}矮。",
           "same_height_as": "{a}和{b}一样高。", "older_than": "{a}比{b}年龄大。",
           "younger_than": "{a}比{b}年龄小。", "same_age_as": "{a}和{b}同岁。",
           "arrived_before": "{a}比{b}先到。", "arrived_after": "{a}比{b}后到。",
           "arrived_with": "{a}和{b}同时到达。"},
    "ja": {"taller_than": "{a}は{b}より背が高いです。",
           "shorter_than": "{a}は{b}より背が低いです。",
           "same_height_as": "{a}は{b}と同じ背の高さです。",
           "older_than": "{a}は{b}より年上です。", "younger_than": "{a}は{b}より年下です。",
           "same_age_as": "{a}は{b}と同い年です。",
           "arrived_before": "{a}は{b}より先に着きました。",
           "arrived_after": "{a}は{b}より後に着きました。",
           "arrived_with": "{a}は{b}と同時に着きました。"},
    "ko": {"taller_than": "{a} {b}보다 키가 큽니다.", "shorter_than": "{a} {b}보다 키가 작습니다.",
           "same_height_as": "{a} {b_with} 키가 같습니다.",
           "older_than": "{a} {b}보다 나이가 많습니다.",
           "younger_than": "{a} {b}보다 나이가 적습니다.",
           "same_age_as": "{a} {b_with} 동갑입니다.",
           "arrived_before": "{a} {b}보다 먼저 도착했습니다.",
           "arrived_after": "{a} {b}보다 늦게 도착했습니다.",
           "arrived_with": "{a} {b_with} 동시에 도착했습니다."},
}

ORDER_INTRO: dict[str, dict[str, str]] = {
    "en": {"people": "There are {n}.", "arrival": "{n} came to a meeting."},
    "fr": {"people": "Il y a {n}.", "arrival": "{n} sont venues à une réunion."},
    "zh": {"people": "有{n}。", "arrival": "{n}来参加会议。"},
    "ja": {"people": "{n}がいます。", "arrival": "会議に{n}が来ました。"},
    "ko": {"people": "{n}이 있습니다.", "arrival": "{n}이 회의에 왔습니다."},
}

ORDER_QUESTION: dict[str, dict[str, str]] = {
    "en": {"height": "Compared with {c}, is {a} taller, shorter, or the same height?",
           "age": "Compared with {c}, is {a} older, younger, or the same age?",
           "arrival": "Did {a} arrive before {c}, after {c}, or at the same time?"},
    "fr": {"height": "Par rapport à {c}, {a} est-{il} plus {adj:grand}, plus {adj:petit} "
                     "ou de la même taille ?",
           "age": "Par rapport à {c}, {a} est-{il} plus {adj:âgé}, plus jeune ou du même âge ?",
           "arrival": "{a} est-{il} {adj:arrivé} avant {c}, après {c} ou en même temps ?"},
    "zh": {"height": "与{c}相比，{a}是更高、更矮，还是一样高？",
           "age": "与{c}相比，{a}的年龄是更大、更小，还是同岁？",
           "arrival": "与{c}相比，{a}是先到、后到，还是同时到达？"},
    "ja": {"height": "{c}と比べて、{a}の背は高いですか、低いですか、同じですか？",
           "age": "{c}と比べて、{a}は年上ですか、年下ですか、同い年ですか？",
           "arrival": "{a}は{c}より先に着きましたか、後に着きましたか、同時でしたか？"},
    "ko": {"height": "{c_with} 비교하면 {a} 키가 더 큽니까, 더 작습니까, 같습니까?",
           "age": "{c_with} 비교하면 {a} 나이가 더 많습니까, 더 적습니까, 같습니까?",
           "arrival": "{a} {c}보다 먼저 도착했습니까, 늦게 도착했습니까, 동시에 도착했습니까?"},
}

ORDER_OPTIONS: dict[str, dict[str, str]] = {
    "en": {"taller": "Taller", "shorter": "Shorter", "same_height": "The same height",
           "older": "Older", "younger": "Younger", "same_age": "The same age",
           "before": "Before", "after": "After", "same_time": "At the same time"},
    "fr": {"taller": "Plus {adj:grand}", "shorter": "Plus {adj:petit}",
           "same_height": "De la même taille", "older": "Plus {adj:âgé}",
           "younger": "Plus jeune", "same_age": "Du même âge", "before": "Avant",
           "after": "Après", "same_time": "En même temps"},
    "zh": {"taller": "更高", "shorter": "更矮", "same_height": "一样高", "older": "更大",
           "younger": "更小", "same_age": "同岁", "before": "先到", "after": "后到",
           "same_time": "同时到达"},
    "ja": {"taller": "高い", "shorter": "低い", "same_height": "同じ", "older": "年上",
           "younger": "年下", "same_age": "同い年", "before": "先に着いた",
           "after": "後に着いた", "same_time": "同時に着いた"},
    "ko": {"taller": "더 크다", "shorter": "더 작다", "same_height": "같다",
           "older": "더 많다", "younger": "더 적다", "same_age": "같다",
           "before": "먼저 도착했다", "after": "늦게 도착했다", "same_time": "동시에 도착했다"},
}
"""Answer words (options) per order label."""
