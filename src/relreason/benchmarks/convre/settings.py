"""ConvRe prompt settings: the five knobs, and the 12 settings of the paper for each task.

The table is the paper's (Tables 2-4; the prompt ids of Table 9) and the official repository's
``README.md``; the text_type
column differs between the two tasks for settings 1-6.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from relreason.errors import UsageError

TASKS: tuple[str, ...] = ("re2text", "text2re")
PROMPTS: tuple[str, ...] = ("normal", "hint", "hint+cot")
RELATIONS: tuple[str, ...] = ("normal", "converse")
EXAMPLE_TYPES: tuple[str, ...] = ("hard", "regular")
TEXT_TYPES: tuple[str, ...] = ("hard", "regular")
MAX_SHOT = 10
KNOBS: tuple[str, ...] = ("prompt", "relation", "n_shot", "example_type", "text_type")


def _choose(knob: str, value: object, valid: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in valid:
        raise UsageError(f"unknown ConvRe {knob} {value!r}; valid: {', '.join(valid)}")


@dataclass(frozen=True)
class ConvReSetting:
    """One ConvRe prompt setting: the five arguments of the official ``main.py`` (read by
    ``ConvReProcessor.construct_prompt`` in ``utils/data_processor.py``).

    Raises ``UsageError`` (listing the valid values) when a knob has an unknown value.
    """

    prompt: str = "normal"
    relation: str = "normal"
    n_shot: int = 0
    example_type: str = "regular"
    text_type: str = "regular"

    def __post_init__(self) -> None:
        _choose("prompt", self.prompt, PROMPTS)
        _choose("relation", self.relation, RELATIONS)
        _choose("example_type", self.example_type, EXAMPLE_TYPES)
        _choose("text_type", self.text_type, TEXT_TYPES)
        n = self.n_shot
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_SHOT:
            raise UsageError(f"ConvRe n_shot must be an integer 0..{MAX_SHOT}, got {n!r}")

    @property
    def hint(self) -> bool:
        """Whether the prompt carries the converse-relation hint."""
        return "hint" in self.prompt

    @property
    def cot(self) -> bool:
        """Whether the prompt asks for a JSON chain-of-thought answer."""
        return "cot" in self.prompt

    def as_dict(self) -> dict[str, Any]:
        """Return the five knobs as a JSON-ready dict."""
        return asdict(self)

    def slug(self) -> str:
        """Return a short name of the knobs, e.g. ``hint+cot-converse-3shot-hard-ex-hard-text``."""
        return (
            f"{self.prompt}-{self.relation}-{self.n_shot}shot-"
            f"{self.example_type}-ex-{self.text_type}-text"
        )


# id -> (prompt, relation, n_shot, example_type, text_type re2text, text_type text2re)
_PAPER_TABLE: dict[int, tuple[str, str, int, str, str, str]] = {
    1: ("normal", "normal", 0, "regular", "regular", "hard"),
    2: ("normal", "normal", 0, "regular", "hard", "regular"),
    3: ("normal", "converse", 0, "regular", "regular", "hard"),
    4: ("normal", "converse", 0, "regular", "hard", "regular"),
    5: ("hint", "converse", 0, "regular", "regular", "hard"),
    6: ("hint", "converse", 0, "regular", "hard", "regular"),
    7: ("normal", "converse", 3, "hard", "hard", "hard"),
    8: ("hint+cot", "converse", 3, "hard", "hard", "hard"),
    9: ("normal", "converse", 6, "hard", "hard", "hard"),
    10: ("normal", "converse", 3, "regular", "hard", "hard"),
    11: ("hint+cot", "converse", 3, "regular", "hard", "hard"),
    12: ("normal", "converse", 6, "regular", "hard", "hard"),
}
SETTING_IDS: tuple[int, ...] = tuple(_PAPER_TABLE)


def check_task(task: object) -> str:
    """Return ``task`` if it is a ConvRe task name; else raise ``UsageError`` listing them."""
    if not isinstance(task, str) or task not in TASKS:
        raise UsageError(f"unknown ConvRe task {task!r}; valid: {', '.join(TASKS)}")
    return task


def paper_setting(task: str, setting_id: int) -> ConvReSetting:
    """Return the paper's setting ``setting_id`` (1-12) for ``task`` (re2text or text2re).

    Raises ``UsageError`` listing the valid tasks or ids when either is unknown.
    """
    check_task(task)
    if (
        not isinstance(setting_id, int)
        or isinstance(setting_id, bool)
        or setting_id not in _PAPER_TABLE
    ):
        raise UsageError(
            f"unknown ConvRe setting id {setting_id!r}; valid: "
            + ", ".join(str(i) for i in SETTING_IDS)
        )
    prompt, relation, n_shot, example_type, re2text_text, text2re_text = _PAPER_TABLE[setting_id]
    text_type = re2text_text if task == "re2text" else text2re_text
    return ConvReSetting(prompt, relation, n_shot, example_type, text_type)


def setting_id_of(task: str, setting: ConvReSetting) -> int | None:
    """Return the paper id (1-12) of ``setting`` for ``task``, or None for a custom setting.

    Raises ``UsageError`` for an unknown task.
    """
    check_task(task)
    for setting_id in SETTING_IDS:
        if paper_setting(task, setting_id) == setting:
            return setting_id
    return None
