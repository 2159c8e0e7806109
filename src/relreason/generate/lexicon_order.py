"""Words and sentence patterns of the order/comparison domain, per language (data only).

Patterns as in ``lexicon``; ``{adj:grand}`` marks a French adjective agreeing with A.
"""

from __future__ import annotations

# ---- order and comparison ----------------------------------------------------------------
# Premise patterns per relation; ``{adj:grand}`` marks a French adjective agreeing with A.

ORDER_PREMISE: dict[str, dict[str, str]] = {
    "en": {
        "taller_than": "{a} is taller than {b}.",
        "shorter_than": "{a} is shorter than {b}.",
        "same_height_as": "{a} is the same height as {b}.",
        "older_than": "{a} is older than {b}.",
        "younger_than": "{a} is younger than {b}.",
        "same_age_as": "{a} is the same age as {b}.",
        "arrived_before": "{a} arrived before {b}.",
        "arrived_after": "{a} arrived after {b}.",
        "arrived_with": "{a} arrived at the same time as {b}.",
    },
    "fr": {
        "taller_than": "{a} est plus {adj:grand} {que_b}.",
        "shorter_than": "{a} est plus {adj:petit} {que_b}.",
        "same_height_as": "{a} est de la même taille {que_b}.",
        "older_than": "{a} est plus {adj:âgé} {que_b}.",
        "younger_than": "{a} est plus jeune {que_b}.",
        "same_age_as": "{a} a le même âge {que_b}.",
        "arrived_before": "{a} est {adj:arrivé} avant {b}.",
        "arrived_after": "{a} est {adj:arrivé} après {b}.",
        "arrived_with": "{a} est {adj:arrivé} en même temps {que_b}.",
    },
    "zh": {
        "taller_than": "{a}比{b}高。",
        "shorter_than": "{a}比{b}矮。",
        "same_height_as": "{a}和{b}一样高。",
        "older_than": "{a}比{b}年龄大。",
        "younger_than": "{a}比{b}年龄小。",
        "same_age_as": "{a}和{b}同岁。",
        "arrived_before": "{a}比{b}先到。",
        "arrived_after": "{a}比{b}后到。",
        "arrived_with": "{a}和{b}同时到达。",
    },
    "ja": {
        "taller_than": "{a}は{b}より背が高いです。",
        "shorter_than": "{a}は{b}より背が低いです。",
        "same_height_as": "{a}は{b}と同じ背の高さです。",
        "older_than": "{a}は{b}より年上です。",
        "younger_than": "{a}は{b}より年下です。",
        "same_age_as": "{a}は{b}と同い年です。",
        "arrived_before": "{a}は{b}より先に着きました。",
        "arrived_after": "{a}は{b}より後に着きました。",
        "arrived_with": "{a}は{b}と同時に着きました。",
    },
    "ko": {
        "taller_than": "{a} {b}보다 키가 큽니다.",
        "shorter_than": "{a} {b}보다 키가 작습니다.",
        "same_height_as": "{a} {b_with} 키가 같습니다.",
        "older_than": "{a} {b}보다 나이가 많습니다.",
        "younger_than": "{a} {b}보다 나이가 적습니다.",
        "same_age_as": "{a} {b_with} 동갑입니다.",
        "arrived_before": "{a} {b}보다 먼저 도착했습니다.",
        "arrived_after": "{a} {b}보다 늦게 도착했습니다.",
        "arrived_with": "{a} {b_with} 동시에 도착했습니다.",
    },
}

ORDER_INTRO: dict[str, dict[str, str]] = {
    "en": {"people": "There are {n}.", "arrival": "{n} came to a meeting."},
    "fr": {"people": "Il y a {n}.", "arrival": "{n} sont venues à une réunion."},
    "zh": {"people": "有{n}。", "arrival": "{n}来参加会议。"},
    "ja": {"people": "{n}がいます。", "arrival": "会議に{n}が来ました。"},
    "ko": {"people": "{n}이 있습니다.", "arrival": "{n}이 회의에 왔습니다."},
}

ORDER_QUESTION: dict[str, dict[str, str]] = {
    "en": {
        "height": "Compared with {c}, is {a} taller, shorter, or the same height?",
        "age": "Compared with {c}, is {a} older, younger, or the same age?",
        "arrival": "Did {a} arrive before {c}, after {c}, or at the same time?",
    },
    "fr": {
        "height": "Par rapport à {c}, {a} est-{il} plus {adj:grand}, plus {adj:petit} "
        "ou de la même taille ?",
        "age": "Par rapport à {c}, {a} est-{il} plus {adj:âgé}, plus jeune ou du même âge ?",
        "arrival": "{a} est-{il} {adj:arrivé} avant {c}, après {c} ou en même temps ?",
    },
    "zh": {
        "height": "与{c}相比，{a}是更高、更矮，还是一样高？",
        "age": "{a}的年龄比{c}大、小，还是一样大？",
        "arrival": "与{c}相比，{a}是先到、后到，还是同时到达？",
    },
    "ja": {
        "height": "{c}と比べて、{a}の背は高いですか、低いですか、同じですか？",
        "age": "{c}と比べて、{a}は年上ですか、年下ですか、同い年ですか？",
        "arrival": "{a}は{c}より先に着きましたか、後に着きましたか、同時でしたか？",
    },
    "ko": {
        "height": "{c_with} 비교하면 {a} 키가 더 큽니까, 더 작습니까, 같습니까?",
        "age": "{c_with} 비교하면 {a} 나이가 더 많습니까, 더 적습니까, 같습니까?",
        "arrival": "{a} {c}보다 먼저 도착했습니까, 늦게 도착했습니까, 동시에 도착했습니까?",
    },
}

ORDER_OPTIONS: dict[str, dict[str, str]] = {
    "en": {
        "taller": "Taller",
        "shorter": "Shorter",
        "same_height": "The same height",
        "older": "Older",
        "younger": "Younger",
        "same_age": "The same age",
        "before": "Before",
        "after": "After",
        "same_time": "At the same time",
    },
    "fr": {
        "taller": "Plus {adj:grand}",
        "shorter": "Plus {adj:petit}",
        "same_height": "De la même taille",
        "older": "Plus {adj:âgé}",
        "younger": "Plus jeune",
        "same_age": "Du même âge",
        "before": "Avant",
        "after": "Après",
        "same_time": "En même temps",
    },
    "zh": {
        "taller": "更高",
        "shorter": "更矮",
        "same_height": "一样高",
        "older": "更大",
        "younger": "更小",
        "same_age": "一样大",
        "before": "先到",
        "after": "后到",
        "same_time": "同时到达",
    },
    "ja": {
        "taller": "高い",
        "shorter": "低い",
        "same_height": "同じ",
        "older": "年上",
        "younger": "年下",
        "same_age": "同い年",
        "before": "先に着いた",
        "after": "後に着いた",
        "same_time": "同時に着いた",
    },
    "ko": {
        "taller": "더 크다",
        "shorter": "더 작다",
        "same_height": "같다",
        "older": "더 많다",
        "younger": "더 적다",
        "same_age": "같다",
        "before": "먼저 도착했다",
        "after": "늦게 도착했다",
        "same_time": "동시에 도착했다",
    },
}
"""Answer words (options) per order label."""
