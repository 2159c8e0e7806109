"""The plain values that flow through relreason: items, requests, responses, extractions.

One direction of flow: benchmark data -> ``EvalItem`` (prompt + gold) -> ``GenerationRequest`` /
``ChoiceRequest`` -> model backend -> ``Response`` -> scorer -> ``Extraction`` -> record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Turn = tuple[str, str]
"""One message of a conversation: (role, text), role ``system``, ``user`` or ``assistant``."""

Status = Literal["correct", "wrong", "unparseable", "no_answer", "failed"]
"""How an item ended: answered right, answered wrong, output not readable as an answer,
an empty output (or an explicit refusal), or the request failed for good (no output at all)."""


@dataclass(frozen=True)
class EvalItem:
    """One benchmark question, turned into a prompt by a setting.

    ``index`` is the 0-based position in the order the official files define (ConvRe: relation keys
    in file order, then list order; MCR: list order); ``item_id`` is stable
    across settings (e.g. ``"hypernym/3"`` or ``"en/17"``). ``choices`` are the answer letters
    (``("A", "B")`` for ConvRe), ``choice_texts`` the text behind each letter, ``gold`` the correct
    letter. ``labels`` hold what analyses group by (relation, source KG, category, language, ...).
    ``english_choice_texts`` are the choice texts of the English item this one translates (MCR
    French, Korean, Japanese), empty otherwise: readers use them to catch answers in English.
    ``turns``: the same prompt as a conversation, its few-shot exemplars as user/assistant
    turns and the question last (what ``--fewshot-as-multiturn`` sends a chat model); empty
    for a prompt without exemplars.
    """

    index: int
    item_id: str
    prompt: str
    gold: str
    choices: tuple[str, ...]
    choice_texts: tuple[str, ...]
    labels: Mapping[str, Any] = field(default_factory=dict)
    english_choice_texts: tuple[str, ...] = ()
    turns: tuple[Turn, ...] = ()


@dataclass(frozen=True)
class Usage:
    """Token usage of one request, as reported by the backend (0 when unknown)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class GenerationParams:
    """Every generation parameter that can change an output; all of it goes in the cache key."""

    max_new_tokens: int = 512
    temperature: float = 0.0
    top_logprobs: int = 5
    stop: tuple[str, ...] = ()
    seed: int | None = None


@dataclass(frozen=True)
class GenerationRequest:
    """Ask a model to continue ``prompt`` as free text.

    ``choices`` and ``reference`` are there only for baselines (random, first, oracle), which
    answer without a model; real backends ignore them. ``chat``, when not empty, is the
    conversation a chat model is sent instead of one user message holding ``prompt`` (a system
    message, few-shot turns); ``prompt`` stays the flat text.
    """

    prompt: str
    params: GenerationParams = GenerationParams()
    choices: tuple[str, ...] = ()
    reference: str | None = None
    chat: tuple[Turn, ...] = ()


@dataclass(frozen=True)
class ChoiceRequest:
    """Ask a model for the log-likelihood of each continuation after ``prompt``.

    ``continuations`` maps a choice letter to the text scored after the prompt, e.g.
    ``{"A": " A", "B": " B"}``. ``reference`` is for the oracle baseline only. ``chat``: as
    :class:`GenerationRequest`'s (a chat-templated local model scores after it).
    """

    prompt: str
    continuations: Mapping[str, str]
    reference: str | None = None
    chat: tuple[Turn, ...] = ()


@dataclass(frozen=True)
class Response:
    """What a backend returned for one request.

    ``text``: the generated text (None for choice scoring or failure). ``top_logprobs``: for the
    first generated tokens, a mapping token -> log-probability of the top alternatives.
    ``choice_logprobs``: letter -> log-likelihood of that continuation (choice scoring).
    ``error``: set when the request failed for good; then the other fields are empty.
    ``served_model``: what the API says answered (its resolved model name and
    ``system_fingerprint``, when it reports them), kept in the cache and the record.
    ``note``: what relreason changed in the response before reading it (invalid code points
    replaced: :func:`relreason.untrusted.clean_response`), kept in the record.
    """

    text: str | None = None
    top_logprobs: tuple[Mapping[str, float], ...] | None = None
    choice_logprobs: Mapping[str, float] | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    error: str | None = None
    served_model: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Extraction:
    """The answer a scorer read from a response, and how.

    ``answer`` is a choice letter or None. ``method`` says how it was read: ``"clean"``,
    ``"json"``, ``"literal"``, ``"pattern"``, ``"logprob_fallback"``, ``"statement"``,
    ``"option_text"``, ``"paper_rule"``, ``"choice_logprob"``, ``"none"``...
    ``status`` is ``"correct"``/``"wrong"`` when an answer was read, else ``"unparseable"``
    or ``"no_answer"``.
    """

    answer: str | None
    status: Status
    method: str
    detail: str | None = None

    @property
    def correct(self) -> bool:
        """Whether the read answer equals the gold letter."""
        return self.status == "correct"


Scorer = Callable[[EvalItem, Response], Extraction]
"""A pure function reading one response for one item; never needs a model."""


@dataclass(frozen=True)
class FollowUp:
    """A second model asked about the items one reading left open, as the MCR paper did with
    its clean-up model: ``needs(extraction)`` says whether an item's ``reader`` reading needs
    it, ``request(item, output)`` builds the question, ``read(item, first, reply)`` gives the
    final reading."""

    model: str
    reader: str
    needs: Callable[[Extraction], bool]
    request: Callable[[EvalItem, str], GenerationRequest]
    read: Callable[[EvalItem, Extraction, Response], Extraction]


@dataclass(frozen=True)
class Task:
    """A benchmark under one setting: its items, how to score them, and what it is.

    ``description`` is a JSON-ready mapping recorded in the manifest (benchmark, task, setting
    knobs, language, method, subset, data checksums...). ``continuations`` gives, per item, the
    texts that ``--scoring logprob`` compares (default: ``" " + letter`` for each choice).
    ``second_stage`` (MCR zero-shot CoT) turns an item and its first output into the
    answer-extraction prompt; the runner calls the model again with it when set.
    ``group_by`` names the item labels that summaries break accuracy down by (e.g. relation,
    source knowledge graph, category); other labels stay in the records only.
    ``max_new_tokens`` is the generation length a run uses unless the user sets one: enough
    for the answer the prompt asks for (a letter, or a chain of thought), no more.
    ``strict``: a run or score that leaves some answers unread exits 1 (ConvRe ``--mode strict``).
    ``reader`` names the rule ``scorer`` reads answers by (``sound``, ``official:gpt-chat``,
    ``robust``, ``paper``); ``alt_scorer`` is a second rule (``alt_reader``) every record is
    also read by, so that summaries can show how much of a score is the reading rule's doing.
    ``follow_up`` (MCR ``--cleanup-model``) asks a second model about items a reading left open.
    """

    benchmark: str
    name: str
    description: Mapping[str, Any]
    items: tuple[EvalItem, ...]
    scorer: Scorer
    second_stage: Callable[[EvalItem, str], str] | None = None
    group_by: tuple[str, ...] = ()
    max_new_tokens: int = 512
    strict: bool = False
    reader: str = "sound"
    alt_scorer: Scorer | None = None
    alt_reader: str | None = None
    follow_up: FollowUp | None = None

    def continuations(self, item: EvalItem) -> dict[str, str]:
        """The continuation scored for each choice letter: ``" A"``, ``" B"``, ..."""
        return {letter: " " + letter for letter in item.choices}
