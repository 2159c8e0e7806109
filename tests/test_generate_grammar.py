"""Agreement in rendered text: Korean particles, French elision and gender, counters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from relreason.generate import grammar, render


def test_korean_particles_follow_the_final_consonant() -> None:
    assert grammar.ko_topic("민준") == "민준은"
    assert grammar.ko_topic("지우") == "지우는"
    assert grammar.ko_with("서연") == "서연과"
    assert grammar.ko_with("하은") == "하은과"
    assert grammar.ko_with("미나") == "미나와"


@given(st.integers(min_value=0xAC00, max_value=0xD7A3))
def test_every_hangul_syllable_takes_exactly_one_topic_form(code: int) -> None:
    syllable = chr(code)
    final = (code - 0xAC00) % 28 != 0
    assert grammar.ko_topic(syllable) == syllable + ("은" if final else "는")


def test_french_elision_gender_and_possessives() -> None:
    assert grammar.fr_de("Élise") == "d'Élise"
    assert grammar.fr_de("Paul") == "de Paul"
    assert grammar.fr_que("Inès") == "qu'Inès"
    assert render.kin_premise("fr", ("Anne", "older_sister", "Hugo"), {"Anne": "F"}) == (
        "Anne est la sœur aînée d'Hugo."
    )
    assert render.kin_option("fr", "anc:MMF@M") == "Son arrière-grand-mère"
    assert render.kin_option("fr", "col:M:o:F@F") == "Sa tante"
    assert render.order_premise("fr", ("Léa", "taller_than", "Olivier"), {"Léa": "F"}) == (
        "Léa est plus grande qu'Olivier."
    )


def test_counters() -> None:
    assert grammar.count_people("zh", 2) == "两个人"
    assert grammar.count_people("ko", 4) == "네 명"
    assert grammar.count_people("ja", 5) == "5人"
    assert (
        render.position_intro("en", "compass", 3) == "Three people are standing in a large field."
    )
    assert render.order_intro("fr", "arrival", 4) == "Quatre personnes sont venues à une réunion."


def test_korean_sibling_word_follows_the_sex_of_the_younger_sibling() -> None:
    premise = ("지호", "older_brother", "서연")
    assert render.kin_premise("ko", premise, {"서연": "F"}) == "지호는 서연의 오빠입니다."
    assert render.kin_premise("ko", premise, {"서연": "M"}) == "지호는 서연의 형입니다."
