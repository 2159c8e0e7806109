"""lm-eval's tokenisation rules, shared by the local engines (``hf``, ``gguf``, ``vllm``): for
scoring choices the context's trailing whitespace moves onto each continuation, an empty
context becomes one token (BOS, else EOS), and a continuation's ids are the whole text's past
the context's, or, after an empty context, its own without special tokens; for generation the
prompt is cut from the left to leave room for the new tokens."""

from __future__ import annotations

from typing import Protocol

from relreason.types import ChoiceRequest, GenerationRequest, Turn


class Tokeniser(Protocol):
    """What the rules need of an engine: its prompt as text, and text as token ids."""

    def render(self, prompt: str, chat: tuple[Turn, ...] = ()) -> str: ...

    def encode(self, text: str, *, special: bool | None = None) -> list[int]: ...


def lm_eval_context(
    engine: Tokeniser, req: ChoiceRequest, empty: int
) -> tuple[str, str, list[int]]:
    """(the rendered context without its trailing whitespace, that whitespace, the context's
    ids or ``[empty]``); ValueError for a request with no continuation or an empty one."""
    if not req.continuations:
        raise ValueError("the request has no continuations to score")
    if any(not cont for cont in req.continuations.values()):
        raise ValueError("a continuation is empty")
    context = engine.render(req.prompt, req.chat)
    stripped = context.rstrip()
    return stripped, context[len(stripped) :], engine.encode(stripped) if stripped else [empty]


def lm_eval_continuation(
    engine: Tokeniser, stripped: str, moved: str, ctx: list[int], cont: str
) -> list[int]:
    """A continuation's ids after the context ``lm_eval_context`` gave (may be empty)."""
    if stripped:
        return engine.encode(stripped + moved + cont)[len(ctx) :]
    return engine.encode(moved + cont, special=False)


def prompt_ids(
    engine: Tokeniser, req: GenerationRequest, length: int, empty: int, within: str
) -> list[int]:
    """A generation prompt's ids, cut from the left to leave ``max_new_tokens`` room within
    ``length`` tokens (``[empty]`` for an empty prompt); ValueError, naming ``within``, when
    no room is left."""
    room = length - req.params.max_new_tokens
    if room < 1:
        raise ValueError(
            f"max_new_tokens {req.params.max_new_tokens} leaves no room for the prompt within "
            f"{within} {length}"
        )
    return engine.encode(engine.render(req.prompt, req.chat))[-room:] or [empty]
