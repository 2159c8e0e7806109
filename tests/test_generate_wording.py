"""Wording = model: each relation's sentence in each language beside its formal meaning.

The sentence column is the reviewed wording (a reader takes it as the meaning column says);
the meaning column is checked against the solver's own tables (``spatial``, ``kin_world``), so
a change of wording or of model that breaks the pairing fails here. The subject of each
sentence is X, its object Y (the first name is X unless the relation needs a man as subject).
"""

from __future__ import annotations

import pytest

from relreason.generate import lexicon, render
from relreason.generate.kin_world import PREMISE_RELATIONS
from relreason.generate.spatial import COMPASS, ORDER, RELATIVE

NAMES = {"en": ("Alice", "Henry"), "fr": ("Alice", "Hugo"), "zh": ("小红", "小明"),
         "ja": ("花子", "太郎"), "ko": ("서연", "민준")}  # fmt: skip
MALE_SUBJECT = {"father", "son", "husband", "brother", "older_brother", "younger_brother"}

MEANING: dict[str, str] = {
    "in_front_of": "right(X) = right(Y), front(X) > front(Y)",
    "behind": "right(X) = right(Y), front(X) < front(Y)",
    "right_of": "right(X) > right(Y), front(X) = front(Y)",
    "left_of": "right(X) < right(Y), front(X) = front(Y)",
    "north_of": "east(X) = east(Y), north(X) > north(Y)",
    "south_of": "east(X) = east(Y), north(X) < north(Y)",
    "east_of": "east(X) > east(Y), north(X) = north(Y)",
    "west_of": "east(X) < east(Y), north(X) = north(Y)",
    "northeast_of": "east(X) > east(Y), north(X) > north(Y)",
    "northwest_of": "east(X) < east(Y), north(X) > north(Y)",
    "southeast_of": "east(X) > east(Y), north(X) < north(Y)",
    "southwest_of": "east(X) < east(Y), north(X) < north(Y)",
    "taller_than": "height(X) > height(Y)",
    "shorter_than": "height(X) < height(Y)",
    "same_height_as": "height(X) = height(Y)",
    "older_than": "age(X) > age(Y)",
    "younger_than": "age(X) < age(Y)",
    "same_age_as": "age(X) = age(Y)",
    "arrived_before": "earliness(X) > earliness(Y)",
    "arrived_after": "earliness(X) < earliness(Y)",
    "arrived_with": "earliness(X) = earliness(Y)",
    "father": "X is a parent of Y; X is male",
    "mother": "X is a parent of Y; X is female",
    "son": "X is a child of Y; X is male",
    "daughter": "X is a child of Y; X is female",
    "husband": "X is the spouse of Y; X is male",
    "wife": "X is the spouse of Y; X is female",
    "brother": "X is a sibling of Y (same parents); X is male",
    "sister": "X is a sibling of Y (same parents); X is female",
    "older_brother": "X is a sibling of Y born before Y; X is male",
    "younger_brother": "X is a sibling of Y born after Y; X is male",
    "older_sister": "X is a sibling of Y born before Y; X is female",
    "younger_sister": "X is a sibling of Y born after Y; X is female",
    "parent": "X is a parent of Y; X's sex left open",
    "child": "X is a child of Y; X's sex left open",
    "spouse": "X is the spouse of Y; X's sex left open",
    "sibling": "X is a sibling of Y (same parents); X's sex left open",
}
"""What each premise relation means in the solver's model (any distance: never adjacency)."""

RELATION_SENTENCES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("in_front_of", "Alice stands somewhere in front of Henry, in the same column."),
        ("behind", "Alice stands somewhere behind Henry, in the same column."),
        ("right_of", "Alice stands somewhere to the right of Henry, in the same row."),
        ("left_of", "Alice stands somewhere to the left of Henry, in the same row."),
        ("north_of", "Alice is due north of Henry."),
        ("south_of", "Alice is due south of Henry."),
        ("east_of", "Alice is due east of Henry."),
        ("west_of", "Alice is due west of Henry."),
        ("northeast_of", "Alice is northeast of Henry."),
        ("northwest_of", "Alice is northwest of Henry."),
        ("southeast_of", "Alice is southeast of Henry."),
        ("southwest_of", "Alice is southwest of Henry."),
        ("taller_than", "Alice is taller than Henry."),
        ("shorter_than", "Alice is shorter than Henry."),
        ("same_height_as", "Alice is the same height as Henry."),
        ("older_than", "Alice is older than Henry."),
        ("younger_than", "Alice is younger than Henry."),
        ("same_age_as", "Alice is the same age as Henry."),
        ("arrived_before", "Alice arrived before Henry."),
        ("arrived_after", "Alice arrived after Henry."),
        ("arrived_with", "Alice arrived at the same time as Henry."),
        ("father", "Henry is Alice's father."),
        ("mother", "Alice is Henry's mother."),
        ("son", "Henry is Alice's son."),
        ("daughter", "Alice is Henry's daughter."),
        ("husband", "Henry is Alice's husband."),
        ("wife", "Alice is Henry's wife."),
        ("brother", "Henry is Alice's brother."),
        ("sister", "Alice is Henry's sister."),
        ("older_brother", "Henry is Alice's older brother."),
        ("younger_brother", "Henry is Alice's younger brother."),
        ("older_sister", "Alice is Henry's older sister."),
        ("younger_sister", "Alice is Henry's younger sister."),
        ("parent", "Alice is Henry's parent."),
        ("child", "Alice is Henry's child."),
        ("spouse", "Alice is Henry's spouse."),
        ("sibling", "Alice is Henry's sibling."),
    ],
    "fr": [
        ("in_front_of", "Alice se tient quelque part devant Hugo, dans la même colonne."),
        ("behind", "Alice se tient quelque part derrière Hugo, dans la même colonne."),
        ("right_of", "Alice se tient quelque part à droite d'Hugo, dans la même rangée."),
        ("left_of", "Alice se tient quelque part à gauche d'Hugo, dans la même rangée."),
        ("north_of", "Alice se trouve exactement au nord d'Hugo."),
        ("south_of", "Alice se trouve exactement au sud d'Hugo."),
        ("east_of", "Alice se trouve exactement à l'est d'Hugo."),
        ("west_of", "Alice se trouve exactement à l'ouest d'Hugo."),
        ("northeast_of", "Alice se trouve au nord-est d'Hugo."),
        ("northwest_of", "Alice se trouve au nord-ouest d'Hugo."),
        ("southeast_of", "Alice se trouve au sud-est d'Hugo."),
        ("southwest_of", "Alice se trouve au sud-ouest d'Hugo."),
        ("taller_than", "Alice est plus grande qu'Hugo."),
        ("shorter_than", "Alice est plus petite qu'Hugo."),
        ("same_height_as", "Alice est de la même taille qu'Hugo."),
        ("older_than", "Alice est plus âgée qu'Hugo."),
        ("younger_than", "Alice est plus jeune qu'Hugo."),
        ("same_age_as", "Alice a le même âge qu'Hugo."),
        ("arrived_before", "Alice est arrivée avant Hugo."),
        ("arrived_after", "Alice est arrivée après Hugo."),
        ("arrived_with", "Alice est arrivée en même temps qu'Hugo."),
        ("father", "Hugo est le père d'Alice."),
        ("mother", "Alice est la mère d'Hugo."),
        ("son", "Hugo est le fils d'Alice."),
        ("daughter", "Alice est la fille d'Hugo."),
        ("husband", "Hugo est le mari d'Alice."),
        ("wife", "Alice est la femme d'Hugo."),
        ("brother", "Hugo est le frère d'Alice."),
        ("sister", "Alice est la sœur d'Hugo."),
        ("older_brother", "Hugo est le frère aîné d'Alice."),
        ("younger_brother", "Hugo est le frère cadet d'Alice."),
        ("older_sister", "Alice est la sœur aînée d'Hugo."),
        ("younger_sister", "Alice est la sœur cadette d'Hugo."),
        ("parent", "Alice est l'un des parents d'Hugo."),
        ("child", "Alice est un enfant d'Hugo."),
        ("spouse", "Alice est l'époux ou l'épouse d'Hugo."),
        ("sibling", "Alice a les mêmes parents qu'Hugo."),
    ],
    "zh": [
        ("in_front_of", "小红和小明在同一列，小红在小明前面。"),
        ("behind", "小红和小明在同一列，小红在小明后面。"),
        ("right_of", "小红和小明在同一排，小红在小明右边。"),
        ("left_of", "小红和小明在同一排，小红在小明左边。"),
        ("north_of", "小红在小明的正北方。"),
        ("south_of", "小红在小明的正南方。"),
        ("east_of", "小红在小明的正东方。"),
        ("west_of", "小红在小明的正西方。"),
        ("northeast_of", "小红在小明的东北方。"),
        ("northwest_of", "小红在小明的西北方。"),
        ("southeast_of", "小红在小明的东南方。"),
        ("southwest_of", "小红在小明的西南方。"),
        ("taller_than", "小红比小明高。"),
        ("shorter_than", "小红比小明矮。"),
        ("same_height_as", "小红和小明一样高。"),
        ("older_than", "小红比小明年龄大。"),
        ("younger_than", "小红比小明年龄小。"),
        ("same_age_as", "小红和小明同岁。"),
        ("arrived_before", "小红比小明先到。"),
        ("arrived_after", "小红比小明后到。"),
        ("arrived_with", "小红和小明同时到达。"),
        ("father", "小明是小红的父亲。"),
        ("mother", "小红是小明的母亲。"),
        ("son", "小明是小红的儿子。"),
        ("daughter", "小红是小明的女儿。"),
        ("husband", "小明是小红的丈夫。"),
        ("wife", "小红是小明的妻子。"),
        ("older_brother", "小明是小红的哥哥。"),
        ("younger_brother", "小明是小红的弟弟。"),
        ("older_sister", "小红是小明的姐姐。"),
        ("younger_sister", "小红是小明的妹妹。"),
        ("parent", "小红是小明的双亲之一。"),
        ("child", "小红是小明的孩子。"),
        ("spouse", "小红是小明的配偶。"),
    ],
    "ja": [
        ("in_front_of", "花子は太郎と同じ縦の列で、太郎より前に立っています。"),
        ("behind", "花子は太郎と同じ縦の列で、太郎より後ろに立っています。"),
        ("right_of", "花子は太郎と同じ横の列で、太郎より右に立っています。"),
        ("left_of", "花子は太郎と同じ横の列で、太郎より左に立っています。"),
        ("north_of", "花子は太郎の真北にいます。"),
        ("south_of", "花子は太郎の真南にいます。"),
        ("east_of", "花子は太郎の真東にいます。"),
        ("west_of", "花子は太郎の真西にいます。"),
        ("northeast_of", "花子は太郎の北東にいます。"),
        ("northwest_of", "花子は太郎の北西にいます。"),
        ("southeast_of", "花子は太郎の南東にいます。"),
        ("southwest_of", "花子は太郎の南西にいます。"),
        ("taller_than", "花子は太郎より背が高いです。"),
        ("shorter_than", "花子は太郎より背が低いです。"),
        ("same_height_as", "花子は太郎と同じ背の高さです。"),
        ("older_than", "花子は太郎より年上です。"),
        ("younger_than", "花子は太郎より年下です。"),
        ("same_age_as", "花子は太郎と同い年です。"),
        ("arrived_before", "花子は太郎より先に着きました。"),
        ("arrived_after", "花子は太郎より後に着きました。"),
        ("arrived_with", "花子は太郎と同時に着きました。"),
        ("father", "太郎は花子の父です。"),
        ("mother", "花子は太郎の母です。"),
        ("son", "太郎は花子の息子です。"),
        ("daughter", "花子は太郎の娘です。"),
        ("husband", "太郎は花子の夫です。"),
        ("wife", "花子は太郎の妻です。"),
        ("older_brother", "太郎は花子の兄です。"),
        ("younger_brother", "太郎は花子の弟です。"),
        ("older_sister", "花子は太郎の姉です。"),
        ("younger_sister", "花子は太郎の妹です。"),
        ("parent", "花子は太郎の親です。"),
        ("child", "花子は太郎の子どもです。"),
        ("spouse", "花子は太郎の配偶者です。"),
    ],
    "ko": [
        ("in_front_of", "서연은 민준과 같은 세로줄에서 민준보다 앞에 서 있습니다."),
        ("behind", "서연은 민준과 같은 세로줄에서 민준보다 뒤에 서 있습니다."),
        ("right_of", "서연은 민준과 같은 가로줄에서 민준보다 오른쪽에 서 있습니다."),
        ("left_of", "서연은 민준과 같은 가로줄에서 민준보다 왼쪽에 서 있습니다."),
        ("north_of", "서연은 민준의 정북쪽에 있습니다."),
        ("south_of", "서연은 민준의 정남쪽에 있습니다."),
        ("east_of", "서연은 민준의 정동쪽에 있습니다."),
        ("west_of", "서연은 민준의 정서쪽에 있습니다."),
        ("northeast_of", "서연은 민준의 북동쪽에 있습니다."),
        ("northwest_of", "서연은 민준의 북서쪽에 있습니다."),
        ("southeast_of", "서연은 민준의 남동쪽에 있습니다."),
        ("southwest_of", "서연은 민준의 남서쪽에 있습니다."),
        ("taller_than", "서연은 민준보다 키가 큽니다."),
        ("shorter_than", "서연은 민준보다 키가 작습니다."),
        ("same_height_as", "서연은 민준과 키가 같습니다."),
        ("older_than", "서연은 민준보다 나이가 많습니다."),
        ("younger_than", "서연은 민준보다 나이가 적습니다."),
        ("same_age_as", "서연은 민준과 동갑입니다."),
        ("arrived_before", "서연은 민준보다 먼저 도착했습니다."),
        ("arrived_after", "서연은 민준보다 늦게 도착했습니다."),
        ("arrived_with", "서연은 민준과 동시에 도착했습니다."),
        ("father", "민준은 서연의 아버지입니다."),
        ("mother", "서연은 민준의 어머니입니다."),
        ("son", "민준은 서연의 아들입니다."),
        ("daughter", "서연은 민준의 딸입니다."),
        ("husband", "민준은 서연의 남편입니다."),
        ("wife", "서연은 민준의 아내입니다."),
        ("older_brother", "민준은 서연의 오빠입니다."),
        ("younger_brother", "민준은 서연의 남동생입니다."),
        ("older_sister", "서연은 민준의 누나입니다."),
        ("younger_sister", "서연은 민준의 여동생입니다."),
        ("parent", "서연은 민준의 부모 중 한 사람입니다."),
        ("child", "서연은 민준의 자녀입니다."),
        ("spouse", "서연은 민준의 배우자입니다."),
    ],
}
"""The reviewed sentence of each relation per language (X = first name unless MALE_SUBJECT)."""


_OP = {1: ">", -1: "<", 0: "="}
_LINKS = {
    "parent": "X is a parent of Y",
    "child": "X is a child of Y",
    "spouse": "X is the spouse of Y",
    "sibling": "X is a sibling of Y (same parents)",
    "older": "X is a sibling of Y born before Y",
    "younger": "X is a sibling of Y born after Y",
}


def model_meaning(relation: str) -> str:
    """The meaning of ``relation`` written out from the solver's tables."""
    if relation in RELATIVE or relation in COMPASS:
        axes = ("right", "front") if relation in RELATIVE else ("east", "north")
        signs = RELATIVE.get(relation) or COMPASS[relation]
        return ", ".join(
            f"{axis}(X) {_OP[s]} {axis}(Y)" for axis, s in zip(axes, signs, strict=True)
        )
    if relation in ORDER:
        attribute, sign = ORDER[relation]
        name = "earliness" if attribute == "arrival" else attribute
        return f"{name}(X) {_OP[sign]} {name}(Y)"
    link, sex = PREMISE_RELATIONS[relation]
    if sex is None:
        return f"{_LINKS[link]}; X's sex left open"
    return f"{_LINKS[link]}; X is {'male' if sex == 'M' else 'female'}"


def test_every_relation_has_its_meaning_from_the_model() -> None:
    relations = {*RELATIVE, *COMPASS, *ORDER, *PREMISE_RELATIONS}
    assert set(MEANING) == relations
    for relation in relations:
        assert MEANING[relation] == model_meaning(relation), relation


def _render(language: str, relation: str) -> str:
    first, second = NAMES[language]
    if relation in MALE_SUBJECT:
        x, y, sexes = second, first, {second: "M", first: "F"}
    else:
        x, y, sexes = first, second, {first: "F", second: "M"}
    if relation in ORDER:
        return render.order_premise(language, (x, relation, y), sexes)
    if relation in PREMISE_RELATIONS:
        return render.kin_premise(language, (x, relation, y), sexes)
    return render.position_premise(language, (x, relation, y))


@pytest.mark.parametrize("language", lexicon.LANGUAGES)
def test_each_sentence_is_the_reviewed_wording(language: str) -> None:
    rows = RELATION_SENTENCES[language]
    wanted = {*RELATIVE, *COMPASS, *ORDER, *lexicon.KIN_PREMISE[language]}
    assert {relation for relation, _ in rows} == wanted
    for relation, sentence in rows:
        assert _render(language, relation) == sentence, (language, relation)


@pytest.mark.parametrize("language", lexicon.LANGUAGES)
def test_no_relation_word_claims_adjacency(language: str) -> None:
    """Words read as "next to" (directly, juste, 真後ろ, 正后方, 바로 뒤): never used."""
    adjacency = ("directly", "juste", "真後ろ", "真ん前", "真右", "真左", "正后方", "正前方",
                 "正左方", "正右方", "바로")  # fmt: skip
    texts = [s for _, s in RELATION_SENTENCES[language]]
    texts += list(lexicon.RELATIVE_WORDS[language].values())
    for text in texts:
        assert not any(word in text for word in adjacency), text
