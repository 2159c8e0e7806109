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
    "quantity": {"en": "Mathematical", "zh": "数学关系"},
    "identity": {"en": "Identity", "zh": "identity关系"},
    "containment": {"en": "Other", "zh": "其他推理关系"},
}
"""MCR category of each domain (Chinese files use the Chinese names, others the English; the
Chinese names are MCR's own, ``identity关系`` included)."""

# ---- kinship premises: X is Y's <word> ----------------------------------------------------

KIN_PREMISE: dict[str, dict[str, str]] = {
    "en": {
        "father": "father",
        "mother": "mother",
        "son": "son",
        "daughter": "daughter",
        "husband": "husband",
        "wife": "wife",
        "brother": "brother",
        "sister": "sister",
        "older_brother": "older brother",
        "younger_brother": "younger brother",
        "older_sister": "older sister",
        "younger_sister": "younger sister",
        "parent": "parent",
        "child": "child",
        "spouse": "spouse",
        "sibling": "sibling",
    },
    "fr": {
        "father": "père",
        "mother": "mère",
        "son": "fils",
        "daughter": "fille",
        "husband": "mari",
        "wife": "femme",
        "brother": "frère",
        "sister": "sœur",
        "older_brother": "frère aîné",
        "younger_brother": "frère cadet",
        "older_sister": "sœur aînée",
        "younger_sister": "sœur cadette",
        "parent": "{a} est l'un des parents {de_b}.",
        "child": "{a} est un enfant {de_b}.",
        "spouse": "{a} est l'époux ou l'épouse {de_b}.",
        "sibling": "{a} a les mêmes parents {que_b}.",
    },
    "zh": {
        "father": "父亲",
        "mother": "母亲",
        "son": "儿子",
        "daughter": "女儿",
        "husband": "丈夫",
        "wife": "妻子",
        "older_brother": "哥哥",
        "younger_brother": "弟弟",
        "older_sister": "姐姐",
        "younger_sister": "妹妹",
        "parent": "{a}是{b}的双亲之一。",
        "child": "孩子",
        "spouse": "配偶",
    },
    "ja": {
        "father": "父",
        "mother": "母",
        "son": "息子",
        "daughter": "娘",
        "husband": "夫",
        "wife": "妻",
        "older_brother": "兄",
        "younger_brother": "弟",
        "older_sister": "姉",
        "younger_sister": "妹",
        "parent": "親",
        "child": "子ども",
        "spouse": "配偶者",
    },
    "ko": {
        "father": "아버지",
        "mother": "어머니",
        "son": "아들",
        "daughter": "딸",
        "husband": "남편",
        "wife": "아내",
        "older_brother": "형|오빠",
        "younger_brother": "남동생",
        "older_sister": "누나|언니",
        "younger_sister": "여동생",
        "parent": "{a} {b}의 부모 중 한 사람입니다.",
        "child": "자녀",
        "spouse": "배우자",
    },
}
"""Premise relation -> word per language; ``male|female`` words depend on Y's sex (Korean).
English and French also have words that leave the subject's sex open (``parent child spouse
sibling``; French as whole sentences, ``{a}``/``{de_b}``/``{que_b}`` filled, no article to agree
with the subject's sex)."""

SEX_WORDS: dict[str, tuple[str, str]] = {
    "en": ("{a} is a man.", "{a} is a woman."),
    "fr": ("{a} est un homme.", "{a} est une femme."),
    "zh": ("{a}是男性。", "{a}是女性。"),
    "ja": ("{a}は男性です。", "{a}は女性です。"),
    "ko": ("{a} 남성입니다.", "{a} 여성입니다."),
}

# ---- position -----------------------------------------------------------------------------

COMPASS_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "north": "due north",
        "south": "due south",
        "east": "due east",
        "west": "due west",
        "northeast": "northeast",
        "northwest": "northwest",
        "southeast": "southeast",
        "southwest": "southwest",
    },
    "fr": {
        "north": "exactement au nord",
        "south": "exactement au sud",
        "east": "exactement à l'est",
        "west": "exactement à l'ouest",
        "northeast": "au nord-est",
        "northwest": "au nord-ouest",
        "southeast": "au sud-est",
        "southwest": "au sud-ouest",
    },
    "zh": {
        "north": "正北方",
        "south": "正南方",
        "east": "正东方",
        "west": "正西方",
        "northeast": "东北方",
        "northwest": "西北方",
        "southeast": "东南方",
        "southwest": "西南方",
    },
    "ja": {
        "north": "真北",
        "south": "真南",
        "east": "真東",
        "west": "真西",
        "northeast": "北東",
        "northwest": "北西",
        "southeast": "南東",
        "southwest": "南西",
    },
    "ko": {
        "north": "정북쪽",
        "south": "정남쪽",
        "east": "정동쪽",
        "west": "정서쪽",
        "northeast": "북동쪽",
        "northwest": "북서쪽",
        "southeast": "남동쪽",
        "southwest": "남서쪽",
    },
}
"""Compass direction words (premises and options)."""

COMPASS_OPTIONS_FR: dict[str, str] = {
    "north": "Plein nord",
    "south": "Plein sud",
    "east": "Plein est",
    "west": "Plein ouest",
    "northeast": "Nord-est",
    "northwest": "Nord-ouest",
    "southeast": "Sud-est",
    "southwest": "Sud-ouest",
}

RELATIVE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "front": "In front, in the same column",
        "back": "Behind, in the same column",
        "left": "To the left, in the same row",
        "right": "To the right, in the same row",
        "front_left": "In front and to the left",
        "front_right": "In front and to the right",
        "back_left": "Behind and to the left",
        "back_right": "Behind and to the right",
    },
    "fr": {
        "front": "Devant, dans la même colonne",
        "back": "Derrière, dans la même colonne",
        "left": "À gauche, dans la même rangée",
        "right": "À droite, dans la même rangée",
        "front_left": "Devant à gauche",
        "front_right": "Devant à droite",
        "back_left": "Derrière à gauche",
        "back_right": "Derrière à droite",
    },
    "zh": {
        "front": "同一列，在前面",
        "back": "同一列，在后面",
        "left": "同一排，在左边",
        "right": "同一排，在右边",
        "front_left": "左前方",
        "front_right": "右前方",
        "back_left": "左后方",
        "back_right": "右后方",
    },
    "ja": {
        "front": "同じ縦の列の前",
        "back": "同じ縦の列の後ろ",
        "left": "同じ横の列の左",
        "right": "同じ横の列の右",
        "front_left": "左前",
        "front_right": "右前",
        "back_left": "左後ろ",
        "back_right": "右後ろ",
    },
    "ko": {
        "front": "같은 세로줄의 앞",
        "back": "같은 세로줄의 뒤",
        "left": "같은 가로줄의 왼쪽",
        "right": "같은 가로줄의 오른쪽",
        "front_left": "왼쪽 앞",
        "front_right": "오른쪽 앞",
        "back_left": "왼쪽 뒤",
        "back_right": "오른쪽 뒤",
    },
}
"""Left/right/front/back answer words: a straight label says the row or column (any distance),
a diagonal one means a different row and a different column."""

RELATIVE_PREMISE: dict[str, dict[str, str]] = {
    "en": {
        "in_front_of": "{a} stands somewhere in front of {b}, in the same column.",
        "behind": "{a} stands somewhere behind {b}, in the same column.",
        "left_of": "{a} stands somewhere to the left of {b}, in the same row.",
        "right_of": "{a} stands somewhere to the right of {b}, in the same row.",
    },
    "fr": {
        "in_front_of": "{a} se tient quelque part devant {b}, dans la même colonne.",
        "behind": "{a} se tient quelque part derrière {b}, dans la même colonne.",
        "left_of": "{a} se tient quelque part à gauche {de_b}, dans la même rangée.",
        "right_of": "{a} se tient quelque part à droite {de_b}, dans la même rangée.",
    },
    "zh": {
        "in_front_of": "{a}和{b}在同一列，{a}在{b}前面。",
        "behind": "{a}和{b}在同一列，{a}在{b}后面。",
        "left_of": "{a}和{b}在同一排，{a}在{b}左边。",
        "right_of": "{a}和{b}在同一排，{a}在{b}右边。",
    },
    "ja": {
        "in_front_of": "{a}は{b}と同じ縦の列で、{b}より前に立っています。",
        "behind": "{a}は{b}と同じ縦の列で、{b}より後ろに立っています。",
        "left_of": "{a}は{b}と同じ横の列で、{b}より左に立っています。",
        "right_of": "{a}は{b}と同じ横の列で、{b}より右に立っています。",
    },
    "ko": {
        "in_front_of": "{a} {b_with} 같은 세로줄에서 {b}보다 앞에 서 있습니다.",
        "behind": "{a} {b_with} 같은 세로줄에서 {b}보다 뒤에 서 있습니다.",
        "left_of": "{a} {b_with} 같은 가로줄에서 {b}보다 왼쪽에 서 있습니다.",
        "right_of": "{a} {b_with} 같은 가로줄에서 {b}보다 오른쪽에 서 있습니다.",
    },
}
"""Left/right/front/back premises: the same row or column, at any distance (not adjacency),
as the solver models them (``spatial.RELATIVE``)."""

POSITION_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "compass": "{n} are standing in a large field.",
        "relative": "{n} are standing in rows and columns in a square, all facing the same "
        "direction; people in one row or column need not be next to each other.",
        "compass_q": "In which direction is {a} from {c}?",
        "relative_q": "Where is {a} relative to {c}?",
        "compass_p": "{a} is {w} of {b}.",
    },
    "fr": {
        "compass": "{n} se trouvent dans un grand champ.",
        "relative": "{n} se tiennent en rangées et en colonnes sur une place, toutes tournées "
        "dans la même direction ; deux personnes d'une même rangée ou colonne ne sont pas "
        "forcément voisines.",
        "compass_q": "Dans quelle direction se trouve {a} par rapport à {c} ?",
        "relative_q": "Où se trouve {a} par rapport à {c} ?",
        "compass_p": "{a} se trouve {w} {de_b}.",
    },
    "zh": {
        "compass": "{n}站在一片空地上。",
        "relative": "{n}按排和列站在广场上，都面朝同一个方向；同一排或同一列的两个人不一定相邻。",
        "compass_q": "{a}在{c}的什么方向？",
        "relative_q": "{a}在{c}的什么位置？",
        "compass_p": "{a}在{b}的{w}。",
    },
    "ja": {
        "compass": "広い野原に{n}が立っています。",
        "relative": "広場に{n}が縦横の列に並び、同じ方向を向いて立っています。"
        "同じ列の二人が隣同士とは限りません。",
        "compass_q": "{a}は{c}から見てどの方角にいますか？",
        "relative_q": "{a}は{c}から見てどこにいますか？",
        "compass_p": "{a}は{b}の{w}にいます。",
    },
    "ko": {
        "compass": "넓은 들판에 {n}이 서 있습니다.",
        "relative": "광장에 {n}이 가로줄과 세로줄을 맞춰 모두 같은 방향을 보고 서 "
        "있습니다. 같은 줄에 있는 두 사람이 꼭 이웃한 것은 아닙니다.",
        "compass_q": "{a} {c}의 어느 방향에 있습니까?",
        "relative_q": "{a} {c}의 어느 쪽에 있습니까?",
        "compass_p": "{a} {b}의 {w}에 있습니다.",
    },
}
