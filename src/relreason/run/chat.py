"""What a chat model is sent besides the flat prompt: the run's system message
(``--system-prompt``) and a few-shot prompt's exemplars as user/assistant turns
(``--fewshot-as-multiturn``), and the check that the model takes messages at all."""

from __future__ import annotations

from relreason.errors import UsageError
from relreason.models.options import ModelOptions
from relreason.run.options import RunOptions
from relreason.types import EvalItem, Turn

_CHAT_KINDS = ("anthropic",)  # always messages
_TEMPLATED = ("hf", "gguf", "vllm", "smollm2")  # messages through --chat-template


def conversation(item: EvalItem, prompt: str, options: RunOptions) -> tuple[Turn, ...]:
    """The ``chat`` of the request asking ``prompt`` about ``item``: empty (the prompt as one
    user message) unless the run has a system prompt or sends exemplars as turns."""
    system = options.system_prompt
    if options.fewshot_as_multiturn and item.turns and prompt == item.prompt:
        return item.turns if system is None else (("system", system), *item.turns)
    return () if system is None else (("system", system), ("user", prompt))


def check_chat(spec: str, model_options: ModelOptions, options: RunOptions) -> None:
    """Refuse (``UsageError``) a system prompt or few-shot turns for a model that would not
    get them as messages: an ``openai:`` model on the completions API, a local model without
    ``--chat-template``, or choice scoring by an API."""
    asked = [
        flag
        for flag, on in (
            ("--system-prompt", options.system_prompt is not None),
            ("--fewshot-as-multiturn", options.fewshot_as_multiturn),
        )
        if on
    ]
    if not asked:
        return
    kind = spec.partition(":")[0]
    what = " and ".join(asked)
    if kind == "openai" and model_options.api != "chat":
        raise UsageError(f"{what} needs chat messages: use --api chat with {spec}")
    if kind in _TEMPLATED and not model_options.chat_template:
        raise UsageError(
            f"{what} needs the model's chat template: add --chat-template (chat_template: true "
            "in a sweep file)"
        )
    if kind in ("openai", *_CHAT_KINDS) and options.scoring == "logprob":
        raise UsageError(
            f"{what} with --scoring logprob works with local models only (--chat-template); "
            f"{spec} scores choices without messages: use --scoring generate"
        )
