# ruff: noqa: E501
"""Wording = model for quantity, identity and containment: each premise's sentence in each
language beside its formal meaning, the meaning checked against the solver; and the reviewed
scene sentences, questions and options (``tests/test_generate_wording.py`` does the same for
kinship, position and order)."""

from __future__ import annotations

import pytest

from relreason.generate import containment, identity, lexicon, quantity
from relreason.generate.solver import solve

NAMES = {"en": ("Alice", "Henry"), "fr": ("Alice", "Hugo"), "zh": ("小红", "小明"),
         "ja": ("花子", "太郎"), "ko": ("서연", "민준")}  # fmt: skip

MEANING: dict[str, str] = {
    "inside": "box X is inside box Y (at any depth)",
    "holds": "box Y is inside box X (at any depth)",
    "apart": "neither box is inside the other",
    "is": "X and Y are the same person",
    "is_not": "X and Y are different people",
    "more:3": "coins(X) = coins(Y) + 3",
    "fewer:3": "coins(X) = coins(Y) - 3",
    "times:2": "coins(X) = 2 * coins(Y)",
    "part:2": "coins(X) = coins(Y) / 2",
    "part:3": "coins(X) = coins(Y) / 3",
    "part:4": "coins(X) = coins(Y) / 4",
    "has": "coins(X) = 12",
    "worth:3": "value(X) = 3 * value(Y)",
    "per:3": "3 * value(X) = value(Y)",
}
"""What each premise relation means in the solver's model."""

_CONTAINMENT = {"inside": "box X is inside box Y (at any depth)",
                "contains": "box Y is inside box X (at any depth)",
                "apart": "neither box is inside the other"}  # fmt: skip


def model_meaning(relation: str) -> str:
    """The meaning of ``relation`` read off the solver's answer to a one-premise question."""
    if relation in containment.STATES:
        (label,) = solve([("red", relation, "blue")], ("red", "?", "blue"))
        return _CONTAINMENT[label]
    if relation in identity.RELATIONS:
        found = solve([("letter", relation, "A")], ("letter", "?", "A|B|C"))
        return "X and Y are the same person" if found == {"A"} else "X and Y are different people"
    if relation.startswith(("worth:", "per:")):
        (rate,) = solve([("red", relation, "blue")], ("red", "?", "blue"))  # one X in Y tokens
        return "value(X) = 3 * value(Y)" if rate == "3" else "3 * value(X) = value(Y)"
    if relation == "has":
        (count,) = solve([("X", "has", "12")], ("X", "?", "coins"))
        return f"coins(X) = {count}"
    (count,) = solve([("X", relation, "Y"), ("Y", "has", "12")], ("X", "?", "coins"))
    kind, k = relation.split(":")
    formula = {"more": f"coins(Y) + {k}", "fewer": f"coins(Y) - {k}",
               "times": f"{k} * coins(Y)", "part": f"coins(Y) / {k}"}[kind]  # fmt: skip
    assert int(count) == eval(formula.replace("coins(Y)", "12"))  # the formula, computed
    return f"coins(X) = {formula}"


def test_every_relation_has_its_meaning_from_the_model() -> None:
    for relation, meaning in MEANING.items():
        assert model_meaning(relation) == meaning, relation


RELATION_SENTENCES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("inside", "The red box is inside the blue box."),
        ("holds", "The red box contains the blue box."),
        ("apart", "Neither the red box nor the blue box is inside the other."),
        ("is", "The person who wrote the letter is Alice."),
        ("is_not", "The person who wrote the letter is not Alice."),
        ("more:3", "Alice has 3 more coins than Henry."),
        ("fewer:3", "Alice has 3 fewer coins than Henry."),
        ("times:2", "Alice has twice as many coins as Henry."),
        ("part:2", "Alice has half as many coins as Henry."),
        ("part:3", "Alice has a third as many coins as Henry."),
        ("part:4", "Alice has a quarter as many coins as Henry."),
        ("has", "Alice has 12 coins."),
        ("worth:3", "One red token is worth 3 blue tokens."),
        ("per:3", "3 red tokens are worth one blue token."),
    ],
    "fr": [
        ("inside", "La boîte rouge est dans la boîte bleue."),
        ("holds", "La boîte rouge contient la boîte bleue."),
        ("apart", "Ni la boîte rouge ni la boîte bleue n'est dans l'autre."),
        ("is", "La personne qui a écrit la lettre est Alice."),
        ("is_not", "La personne qui a écrit la lettre n'est pas Alice."),
        ("more:3", "Alice a 3 pièces de plus qu'Hugo."),
        ("fewer:3", "Alice a 3 pièces de moins qu'Hugo."),
        ("times:2", "Alice a 2 fois autant de pièces qu'Hugo."),
        ("part:2", "Alice a la moitié du nombre de pièces d'Hugo."),
        ("part:3", "Alice a le tiers du nombre de pièces d'Hugo."),
        ("part:4", "Alice a le quart du nombre de pièces d'Hugo."),
        ("has", "Alice a 12 pièces."),
        ("worth:3", "Un jeton rouge vaut 3 jetons bleus."),
        ("per:3", "3 jetons rouges valent un jeton bleu."),
    ],
    "zh": [
        ("inside", "红盒子在蓝盒子里面。"),
        ("holds", "红盒子里面装着蓝盒子。"),
        ("apart", "红盒子和蓝盒子都不在对方里面。"),
        ("is", "写信的人就是小红。"),
        ("is_not", "写信的人不是小红。"),
        ("more:3", "小红比小明多3枚硬币。"),
        ("fewer:3", "小红比小明少3枚硬币。"),
        ("times:2", "小红的硬币数是小明的2倍。"),
        ("part:2", "小红的硬币数是小明的二分之一。"),
        ("part:3", "小红的硬币数是小明的三分之一。"),
        ("part:4", "小红的硬币数是小明的四分之一。"),
        ("has", "小红有12枚硬币。"),
        ("worth:3", "1枚红色代币值3枚蓝色代币。"),
        ("per:3", "3枚红色代币值1枚蓝色代币。"),
    ],
    "ja": [
        ("inside", "赤い箱は青い箱の中にあります。"),
        ("holds", "赤い箱は青い箱を中に入れています。"),
        ("apart", "赤い箱と青い箱は、どちらも相手の中にはありません。"),
        ("is", "手紙を書いた人は花子と同じ人です。"),
        ("is_not", "手紙を書いた人は花子とは別の人です。"),
        ("more:3", "花子は太郎より硬貨を3枚多く持っています。"),
        ("fewer:3", "花子は太郎より硬貨を3枚少なく持っています。"),
        ("times:2", "花子の硬貨の枚数は太郎の2倍です。"),
        ("part:2", "花子の硬貨の枚数は太郎の半分です。"),
        ("part:3", "花子の硬貨の枚数は太郎の3分の1です。"),
        ("part:4", "花子の硬貨の枚数は太郎の4分の1です。"),
        ("has", "花子は硬貨を12枚持っています。"),
        ("worth:3", "赤いコイン1枚は青いコイン3枚と同じ価値です。"),
        ("per:3", "赤いコイン3枚は青いコイン1枚と同じ価値です。"),
    ],
    "ko": [
        ("inside", "빨간 상자는 파란 상자 안에 있습니다."),
        ("holds", "빨간 상자는 파란 상자를 담고 있습니다."),
        ("apart", "빨간 상자와 파란 상자는 어느 쪽도 다른 쪽 안에 있지 않습니다."),
        ("is", "편지를 쓴 사람은 서연과 같은 사람입니다."),
        ("is_not", "편지를 쓴 사람은 서연과 다른 사람입니다."),
        ("more:3", "서연은 민준보다 동전이 3개 많습니다."),
        ("fewer:3", "서연은 민준보다 동전이 3개 적습니다."),
        ("times:2", "서연의 동전 수는 민준의 2배입니다."),
        ("part:2", "서연의 동전 수는 민준의 절반입니다."),
        ("part:3", "서연의 동전 수는 민준의 3분의 1입니다."),
        ("part:4", "서연의 동전 수는 민준의 4분의 1입니다."),
        ("has", "서연은 동전을 12개 가지고 있습니다."),
        ("worth:3", "빨간 토큰 1개는 파란 토큰 3개와 가치가 같습니다."),
        ("per:3", "빨간 토큰 3개는 파란 토큰 1개와 가치가 같습니다."),
    ],
}
"""The reviewed sentence of each relation: X is the red box, the letter's writer or the first
name; Y the blue box, the first name or the second name."""

SCENES: dict[str, list[tuple[str, str]]] = {
    "en": [
        (
            "containment intro",
            "There are 3 boxes. Each box lies directly in at most one other box; a box is inside another (and the other contains it) when it lies in it directly or in a box that is inside it.",
        ),
        (
            "containment question",
            "Is the red box inside the blue box, does it contain the blue box, or neither?",
        ),
        ("containment options", "It is inside it / It contains it / Neither is inside the other"),
        (
            "identity intro",
            "Alice, Henry and Tom are three different people, and each description below fits exactly one of them; one person may fit several descriptions.",
        ),
        ("identity question", "Who is the person who fed the cat?"),
        ("quantity intro", "Everyone has a whole number of coins (possibly none)."),
        ("quantity question", "How many coins does Alice have?"),
        ("exchange intro", "All tokens of one colour have the same value."),
        ("exchange question", "How many blue tokens is one red token worth?"),
    ],
    "fr": [
        (
            "containment intro",
            "Il y a 3 boîtes. Chaque boîte est posée directement dans au plus une autre boîte ; une boîte est dans une autre (et l'autre la contient) quand elle y est posée directement ou dans une boîte qui s'y trouve.",
        ),
        (
            "containment question",
            "La boîte rouge est-elle dans la boîte bleue, la contient-elle, ou ni l'un ni l'autre ?",
        ),
        ("containment options", "Elle est dedans / Elle la contient / Ni l'un ni l'autre"),
        (
            "identity intro",
            "Alice, Hugo et Tom sont trois personnes différentes, et chaque description ci-dessous désigne exactement l'une d'elles ; une même personne peut correspondre à plusieurs descriptions.",
        ),
        ("identity question", "Qui est la personne qui a nourri le chat ?"),
        ("quantity intro", "Chacun a un nombre entier de pièces (peut-être aucune)."),
        ("quantity question", "Combien de pièces a Alice ?"),
        ("exchange intro", "Tous les jetons d'une même couleur ont la même valeur."),
        ("exchange question", "Combien de jetons bleus vaut un jeton rouge ?"),
    ],
    "zh": [
        (
            "containment intro",
            "有3个盒子。每个盒子最多直接放在另外一个盒子里；一个盒子直接放在另一个盒子里，或放在其中的某个盒子里，都算在它里面，也说那个盒子里面装着它。",
        ),
        ("containment question", "红盒子在蓝盒子里面、装着蓝盒子，还是都不是？"),
        ("containment options", "在它里面 / 装着它 / 都不是"),
        (
            "identity intro",
            "小红、小明和Tom是三个不同的人，下面的每个描述都恰好指其中一个人；同一个人可能符合多个描述。",
        ),
        ("identity question", "喂猫的人是谁？"),
        ("quantity intro", "每个人都有整数枚硬币（也可能没有）。"),
        ("quantity question", "小红有多少枚硬币？"),
        ("exchange intro", "同一颜色的代币价值都相同。"),
        ("exchange question", "1枚红色代币值多少枚蓝色代币？"),
    ],
    "ja": [
        (
            "containment intro",
            "箱が3個あります。どの箱も、じかに入っている箱は多くても一つです。じかに入っていても、中の別の箱に入っていても、その箱の「中にある」とし、その箱はそれを「中に入れている」とします。",
        ),
        (
            "containment question",
            "赤い箱は青い箱の中にありますか、青い箱を中に入れていますか、それともどちらでもありませんか？",
        ),
        ("containment options", "中にある / 中に入れている / どちらでもない"),
        (
            "identity intro",
            "花子、太郎、Tomは別々の三人で、以下の説明はどれも、そのうちのちょうど一人を指します。一人が複数の説明に当てはまることもあります。",
        ),
        ("identity question", "猫に餌をやった人は誰ですか？"),
        ("quantity intro", "どの人も硬貨を整数枚持っています（0枚のこともあります）。"),
        ("quantity question", "花子は硬貨を何枚持っていますか？"),
        ("exchange intro", "同じ色のコインはどれも同じ価値です。"),
        ("exchange question", "赤いコイン1枚は青いコイン何枚と同じ価値ですか？"),
    ],
    "ko": [
        (
            "containment intro",
            "상자가 3개 있습니다. 각 상자는 많아야 한 상자에 직접 들어 있습니다. 직접 들어 있든 그 안의 다른 상자에 들어 있든 그 상자 '안에 있다'고 하고, 그 상자는 그것을 '담고 있다'고 합니다.",
        ),
        (
            "containment question",
            "빨간 상자는 파란 상자 안에 있습니까, 파란 상자를 담고 있습니까, 아니면 둘 다 아닙니까?",
        ),
        ("containment options", "안에 있다 / 담고 있다 / 둘 다 아니다"),
        (
            "identity intro",
            "서연, 민준, Tom은 서로 다른 세 사람이며, 아래의 각 설명은 그중 정확히 한 사람을 가리킵니다. 한 사람이 여러 설명에 해당할 수도 있습니다.",
        ),
        ("identity question", "고양이에게 밥을 준 사람은 누구입니까?"),
        ("quantity intro", "각 사람이 가진 동전의 수는 0 이상의 정수입니다."),
        ("quantity question", "서연은 동전을 몇 개 가지고 있습니까?"),
        ("exchange intro", "같은 색의 토큰은 모두 가치가 같습니다."),
        ("exchange question", "빨간 토큰 1개는 파란 토큰 몇 개와 가치가 같습니까?"),
    ],
}
"""The reviewed scene sentences, questions and option words (three boxes; people X, Y, Tom)."""


def _render(language: str, relation: str) -> str:
    x, y = NAMES[language]
    if relation in containment.STATES:
        return containment.premise(language, ("red", relation, "blue"))
    if relation in identity.RELATIONS:
        return identity.premise(language, ("letter", relation, x))
    if relation.startswith(("worth:", "per:")):
        return quantity.premise(language, ("red", relation, "blue"))
    return quantity.premise(language, (x, relation, "12" if relation == "has" else y))


def _scene(language: str, what: str) -> str:
    x, y = NAMES[language]
    boxes = [("red", "inside", "blue"), ("blue", "inside", "green")]
    people = [("cat", "is", x)]
    coins = [(x, "more:3", y), (y, "has", "12")]
    tokens = [("red", "worth:3", "blue")]
    texts = {
        "containment": containment.question(language, "boxes", boxes, ("red", "?", "blue"), {}),
        "identity": identity.question(language, "people", people, ("cat", "?", f"{x}|{y}|Tom"), {}),
        "quantity": quantity.question(language, "coins", coins, (x, "?", "coins"), {}),
        "exchange": quantity.question(language, "exchange", tokens, ("red", "?", "blue"), {}),
    }
    return texts[what.split()[0]]


@pytest.mark.parametrize("language", lexicon.LANGUAGES)
def test_each_sentence_is_the_reviewed_wording(language: str) -> None:
    rows = RELATION_SENTENCES[language]
    assert [relation for relation, _ in rows] == list(MEANING)
    for relation, sentence in rows:
        assert _render(language, relation) == sentence, (language, relation)


@pytest.mark.parametrize("language", lexicon.LANGUAGES)
def test_scenes_questions_and_options_are_the_reviewed_ones(language: str) -> None:
    for what, text in SCENES[language]:
        if what == "containment options":
            shown = [containment.option(language, label) for label in containment.LABELS]
            assert " / ".join(str(s) for s in shown) == text
        elif what.endswith("intro"):
            assert _scene(language, what).startswith(text), what
        else:
            assert _scene(language, what).endswith(text), what
