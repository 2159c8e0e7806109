"""MCR data: languages, methods, categories, and the validated questions and exemplars.

The data carries no count of relations per question (its optional ``hint`` field holds worked
intermediate values, not a relation count), so items have no ``n_relations`` label.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from relreason.data.sources import Stamp, data_file, file_stamp, load_json, sha256_file
from relreason.errors import DataError, UsageError

LANGUAGES: dict[str, str] = {
    "en": "english",
    "zh": "chinese",
    "fr": "french",
    "ja": "japanese",
    "ko": "korean",
}
"""Language code -> the long name used in the official file names and exemplar keys."""

METHODS: tuple[str, ...] = ("zs", "zsc", "fs", "fs-english", "fs-multilingual")
"""Prompting methods: zero-shot, zero-shot CoT (EN-CoT), 5-shot native/English/multilingual."""

_METHOD_ALIASES: dict[str, str] = {
    "zero_shot": "zs",
    "zero_shot_cot": "zsc",
    "few_shot": "fs",
    "few_shot_english": "fs-english",
    "few_shot_multilingual": "fs-multilingual",
}

Mode = Literal["robust", "paper"]
MODES: tuple[Mode, ...] = ("robust", "paper")
"""Scoring modes: a sound extractor, or the official code's letter rule."""

CATEGORIES: tuple[str, ...] = (
    "Positional",
    "Comparative",
    "Personal",
    "Mathematical",
    "Identity",
    "Other",
)
"""The six English category names (paper Table 1 order)."""

CATEGORY_ZH: dict[str, str] = {
    "其他推理关系": "Other",
    "人物关系": "Personal",
    "identity关系": "Identity",
    "数学关系": "Mathematical",
    "位置关系": "Positional",
    "比较关系": "Comparative",
}
"""The category names of the Chinese file -> the English ones."""

EXEMPLAR_KEYS: tuple[str, ...] = (*LANGUAGES.values(), "multilingual")
"""The keys an exemplar file must have."""

MAX_OPTIONS = 7
_LETTERS: tuple[str, ...] = tuple("ABCDEFG")
"""Answer letters go A-G (the official extractor reads only those)."""

OFFICIAL_EXEMPLARS = "exemplars_official.json"


@dataclass(frozen=True)
class Question:
    """One validated MCR question: its text, lettered options, gold option and categories.

    ``categories`` are English names (Chinese ones are mapped); ``hint`` is the optional worked
    hint of the file (not used in prompts).
    """

    index: int
    question: str
    correct: str
    options: tuple[str, ...]
    categories: tuple[str, ...]
    hint: str | None = None

    @property
    def gold(self) -> str:
        """Return the letter of the correct option (A, B, ...)."""
        return chr(65 + self.options.index(self.correct))


@dataclass(frozen=True)
class _LoadedFile:
    questions: tuple[Question, ...]
    sha256: str
    blocks: tuple[str, ...]  # question_block() of each question, built once
    letters: tuple[tuple[str, ...], ...]  # the answer letters of each question


# One entry per file path: the version last read and what it gave.
_QUESTION_CACHE: dict[str, tuple[Stamp, _LoadedFile]] = {}
_EXEMPLAR_CACHE: dict[str, tuple[Stamp, dict[str, str]]] = {}


# --- names -------------------------------------------------------------------------------


def normalize_language(name: str) -> str:
    """Return the language code (``en`` ...) for a code or long name, case-insensitive.

    Raises ``UsageError`` listing the valid names when ``name`` is unknown.
    """
    key = str(name).strip().lower()
    if key in LANGUAGES:
        return key
    for code, long_name in LANGUAGES.items():
        if key == long_name:
            return code
    valid = ", ".join(f"{code} ({long_name})" for code, long_name in LANGUAGES.items())
    raise UsageError(f"unknown MCR language {name!r}; valid: {valid}")


def normalize_method(name: str) -> str:
    """Return the method name (one of ``METHODS``), also accepting the official names.

    ``zero_shot``, ``few_shot_english``... are accepted, case-insensitive. Raises ``UsageError``
    listing the valid methods when ``name`` is unknown.
    """
    key = str(name).strip().lower()
    if key in METHODS:
        return key
    if key in _METHOD_ALIASES:
        return _METHOD_ALIASES[key]
    if key.replace("_", "-") in METHODS:
        return key.replace("_", "-")
    raise UsageError(f"unknown MCR method {name!r}; valid: {', '.join(METHODS)}")


def normalize_mode(name: str) -> Mode:
    """Return the scoring mode (one of ``MODES``); raises ``UsageError`` when unknown."""
    key = str(name).strip().lower()
    for mode in MODES:
        if key == mode:
            return mode
    raise UsageError(f"unknown MCR scoring mode {name!r}; valid: {', '.join(MODES)}")


# --- questions -----------------------------------------------------------------------------


def _known_category(name: Any) -> str | None:
    if isinstance(name, str):
        if name in CATEGORIES:
            return name
        if name in CATEGORY_ZH:
            return CATEGORY_ZH[name]
    return None


def _validate_question(file: str, i: int, raw: Any) -> Question:
    item = f"[{i}]"
    if not isinstance(raw, dict):
        raise DataError(file, f"expected an object, got {type(raw).__name__}", item=item)

    def fail(message: str, field: str) -> DataError:
        return DataError(file, message, item=item, field=field)

    def nonempty_list(field: str, of: str) -> list[Any]:
        value = raw[field]
        if not isinstance(value, list) or not value:
            raise fail(f"expected a non-empty list of {of}, got {value!r}", field)
        return value

    for key in ("question", "correct", "options", "category"):
        if key not in raw:
            raise fail("missing field", key)
    text = raw["question"]
    if not isinstance(text, str) or not text.strip():
        raise fail(f"expected a non-empty string, got {text!r}", "question")
    options = nonempty_list("options", "strings")
    for j, option in enumerate(options):
        if not isinstance(option, str):
            raise fail(f"option {j} is not a string: {option!r}", "options")
    if len(options) > MAX_OPTIONS:
        raise fail(f"{len(options)} options; at most {MAX_OPTIONS} (letters A-G)", "options")
    correct = raw["correct"]
    count = options.count(correct) if isinstance(correct, str) else 0
    if count == 0:
        raise fail(f"{correct!r} is not one of the options {options!r}", "correct")
    if count > 1:
        raise fail(f"{correct!r} appears {count} times among the options", "correct")
    english: list[str] = []
    for name in nonempty_list("category", "category names"):
        known = _known_category(name)
        if known is None:
            valid = ", ".join([*CATEGORIES, *CATEGORY_ZH])
            raise fail(f"unknown category {name!r}; valid: {valid}", "category")
        english.append(known)
    hint = raw.get("hint")
    if hint is not None and not isinstance(hint, str):
        raise fail(f"expected a string, got {hint!r}", "hint")
    return Question(i, text, correct, tuple(options), tuple(english), hint)


def question_block(question: Question) -> str:
    """Return the bare question ``x`` the official ``main.py`` builds:
    ``"Q: ... Answer choices: A) .. B) .. \\nA:"``."""
    choices = "".join(f"{chr(65 + j)}) {option} " for j, option in enumerate(question.options))
    return "Q: " + question.question.strip() + " Answer choices: " + choices + "\nA:"


def _load_file(path: Path) -> _LoadedFile:
    key = file_stamp(path)
    cached = _QUESTION_CACHE.get(key[0])
    if cached is not None and cached[0] == key:
        return cached[1]
    raw = load_json(path)
    if not isinstance(raw, list):
        raise DataError(str(path), f"expected a JSON list of questions, got {type(raw).__name__}")
    questions = tuple(_validate_question(str(path), i, entry) for i, entry in enumerate(raw))
    blocks = tuple(question_block(q) for q in questions)
    letters = tuple(_LETTERS[: len(q.options)] for q in questions)
    loaded = _LoadedFile(questions, sha256_file(path), blocks, letters)
    _QUESTION_CACHE[key[0]] = (key, loaded)
    return loaded


def question_file(language: str) -> str:
    """Return the file name of a language's questions, e.g. ``composition_english.json``.

    Raises ``UsageError`` for an unknown language.
    """
    return f"composition_{LANGUAGES[normalize_language(language)]}.json"


def load_questions(language: str, data_dir: Path | str | None = None) -> list[Question]:
    """Return the validated questions of one language, in file order.

    Reads ``mcr/composition_<long name>.json`` from the data folder (parsed once per file
    version). Raises ``UsageError`` for an unknown language and ``DataError`` naming the file,
    item and field for a missing or malformed file.
    """
    path = data_file("mcr", question_file(language), data_dir)
    return list(_load_file(path).questions)


def english_options(
    questions: tuple[Question, ...] | list[Question], data_dir: Path | str | None = None
) -> tuple[tuple[str, ...], ...] | None:
    """Return the option texts of the English question each of ``questions`` translates, or None
    when the English file does not align with them.

    The French and Korean files are the English one translated item by item: the same number
    of questions, each with as many options, the gold option at the same position. The Japanese
    file is too, less one question (English 511) and with one gold answer of its own (1059 in
    the file). Aligned means: at most one English question left out, every pair with as many
    options and at least 99% of the pairs with the same gold position; the Chinese file (other
    questions) and any file that differs more get None. The texts only help to read answers:
    with no English file in the data folder, or a malformed one, the result is None too.
    """
    try:
        english = _load_file(data_file("mcr", question_file("en"), data_dir)).questions
    except DataError:
        return None
    gaps = len(english) - len(questions)  # English questions left untranslated: 0 or 1
    if gaps not in (0, 1):
        return None
    offset = 0
    pairs: list[Question] = []
    for i, question in enumerate(questions):
        if len(question.options) != len(english[i + offset].options):
            offset += 1  # the English question here has no translation
            if offset > gaps or len(question.options) != len(english[i + offset].options):
                return None
        pairs.append(english[i + offset])
    same_gold = sum(q.gold == o.gold for q, o in zip(questions, pairs, strict=True))
    if same_gold < 0.99 * len(questions):
        return None
    return tuple(original.options for original in pairs)


# --- exemplars -----------------------------------------------------------------------------


def load_exemplars(
    path: Path | str | None = None,
    data_dir: Path | str | None = None,
) -> dict[str, str]:
    """Return the 5-shot exemplar blocks, keyed by long language name and ``multilingual``.

    ``path`` is a user JSON file of the same shape; without it, the official
    ``mcr/exemplars_official.json`` of the data folder. Raises ``DataError`` naming the file and
    key for a missing file, a missing key or a non-string value.
    """
    file = Path(path) if path is not None else data_file("mcr", OFFICIAL_EXEMPLARS, data_dir)
    key = file_stamp(file)
    cached = _EXEMPLAR_CACHE.get(key[0])
    if cached is not None and cached[0] == key:
        return dict(cached[1])
    raw = load_json(file)
    if not isinstance(raw, dict):
        raise DataError(
            str(file), f"expected a JSON object of exemplar blocks, got {type(raw).__name__}"
        )
    blocks: dict[str, str] = {}
    for name in EXEMPLAR_KEYS:
        if name not in raw:
            raise DataError(
                str(file),
                f"missing exemplar block; needed keys: {', '.join(EXEMPLAR_KEYS)}",
                field=name,
            )
        if not isinstance(raw[name], str):
            raise DataError(
                str(file), f"expected a string, got {type(raw[name]).__name__}", field=name
            )
        blocks[name] = raw[name]
    _EXEMPLAR_CACHE[key[0]] = (key, blocks)
    return dict(blocks)
