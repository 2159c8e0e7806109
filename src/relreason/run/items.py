"""The item path of a run: each item through stage 1, the optional stage 2 (MCR zero-shot CoT
answer extraction), the task's reader, and one record appended to the run folder.

``ItemPath`` asks :class:`relreason.run.calls.CallPath` for responses and knows nothing of
caches, limits or retries; it reports each finished item as an event.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from relreason.benchmarks.epochs import EPOCH_LABEL
from relreason.records import Record, RecordWriter, make_record
from relreason.redact import scrub_secrets
from relreason.run.budget import BudgetReachedError
from relreason.run.calls import CallFailed, CallPath, Request
from relreason.run.chat import conversation
from relreason.run.events import Event, ItemFinished
from relreason.run.options import RunOptions
from relreason.types import (
    ChoiceRequest,
    EvalItem,
    GenerationParams,
    GenerationRequest,
    Response,
    Task,
)

PREPARE_SLICE = 256
"""Items whose choice requests a local model prepares at once (``prepare_choices``)."""


@dataclass
class _Item:
    """One item on its way through the stages."""

    item: EvalItem
    first: Response | None = None
    second: Response | None = None
    attempts: int = 0
    cached: bool = True
    error: str | None = None
    looked_up: bool = False  # stage 1 already missed the cache
    key: str | None = None  # stage 1's cache key, once made
    second_prompt: str | None = None


class ItemPath:
    """Takes items through their stages and records them (lives inside one event loop)."""

    def __init__(
        self,
        task: Task,
        options: RunOptions,
        calls: CallPath,
        writer: RecordWriter,
        records: dict[int, Record],
        emit: Callable[[Event], None],
    ) -> None:
        self.task = task
        self.options = options
        self.calls = calls
        self.writer = writer
        self.records = records
        self.emit = emit
        self.second_stage = task.second_stage if options.scoring == "generate" else None
        self.second_params = dataclasses.replace(
            options.params, max_new_tokens=options.second_stage_max_new_tokens
        )
        self.lines: dict[int, str] = {}
        self.params_json = options.to_json()["params"]
        self.second_params_json = {
            **self.params_json,
            "max_new_tokens": options.second_stage_max_new_tokens,
        }

    # requests and keys -------------------------------------------------------------
    def _request(self, item: EvalItem, prompt: str, stage: int) -> Request:
        if stage == 2:
            return GenerationRequest(
                prompt,
                dataclasses.replace(self.second_params, seed=self._params(item).seed),
                choices=item.choices,
                reference=item.gold,
                chat=conversation(item, prompt, self.options),
            )
        if self.options.scoring == "logprob":
            return self._choice_request(item)
        return GenerationRequest(
            item.prompt,
            self._params(item),
            choices=item.choices,
            reference=item.gold,
            chat=conversation(item, item.prompt, self.options),
        )

    def _params(self, item: EvalItem) -> GenerationParams:
        """The item's generation parameters: under ``--epochs``, epoch e asks with seed + e."""
        epoch = item.labels.get(EPOCH_LABEL)
        if not isinstance(epoch, int):
            return self.options.params
        seed = (self.options.params.seed or 0) + epoch
        return dataclasses.replace(self.options.params, seed=seed)

    def _choice_request(self, item: EvalItem) -> ChoiceRequest:
        return ChoiceRequest(
            item.prompt,
            self.task.continuations(item),
            reference=item.gold,
            chat=conversation(item, item.prompt, self.options),
        )

    def _key(self, item: EvalItem, prompt: str, stage: int) -> str:
        extra: dict[str, Any] = {"choices": list(item.choices), "reference": item.gold}
        chat = conversation(item, prompt, self.options)
        if chat:  # only then: the keys of runs without a conversation stay as they were
            extra["chat"] = [list(turn) for turn in chat]
        if EPOCH_LABEL in item.labels:  # only under --epochs N > 1: other keys stay as they were
            extra["epoch"] = item.labels[EPOCH_LABEL]
        if self.options.scoring == "logprob" and stage == 1:
            extra["continuations"] = self.task.continuations(item)
            return self.calls.key("score_choices", prompt, extra)
        extra["params"] = self.params_json if stage == 1 else self.second_params_json
        return self.calls.key("generate", prompt, extra)

    def _prompt(self, w: _Item, stage: int) -> str:
        if stage == 1:
            return w.item.prompt
        assert self.second_stage is not None and w.first is not None
        return self.second_stage(w.item, w.first.text or "")

    # stages ------------------------------------------------------------------------
    async def _stage(self, work: list[_Item], stage: int) -> None:
        """Fill ``first`` (stage 1) or ``second`` (stage 2) of each item: cache, then backend."""
        prompts = [self._prompt(w, stage) for w in work]
        if stage == 2:
            for w, p in zip(work, prompts, strict=True):
                w.second_prompt = p
        keys = [
            (w.key if stage == 1 and w.key is not None else self._key(w.item, p, stage))
            for w, p in zip(work, prompts, strict=True)
        ]
        fresh = [k for w, k in zip(work, keys, strict=True) if stage == 2 or not w.looked_up]
        hits = self.calls.lookup(fresh) if fresh else {}
        missing = [(w, p, k) for w, p, k in zip(work, prompts, keys, strict=True) if k not in hits]
        for w, _, k in zip(work, prompts, keys, strict=True):
            if k in hits:
                _set(w, stage, hits[k])
        if not missing:
            return
        requests = [self._request(w.item, p, stage) for w, p, _ in missing]
        tokens = sum(math.ceil(len(p) / 4) for _, p, _ in missing)
        try:
            responses, attempts = await self.calls.send(requests, tokens)
        except CallFailed as failure:
            for w, _, _ in missing:
                w.attempts += failure.attempts
                w.cached = False
                w.error = str(failure)
            return
        for (w, _, k), response in zip(missing, responses, strict=True):
            w.attempts += attempts
            w.cached = False
            if response.error is not None:
                w.error = scrub_secrets(response.error)
                continue
            _set(w, stage, response)
            self.calls.remember(k, response)

    async def process(self, work: list[_Item]) -> None:
        """Run a batch of items through every stage and record each."""
        todo = [w for w in work if w.first is None]
        if todo:
            await self._stage(todo, 1)
        if self.second_stage is not None:
            todo = [w for w in work if w.error is None and w.first is not None]
            if todo:
                await self._stage(todo, 2)
        for w in work:
            self.finish(w)

    def finish(self, w: _Item) -> None:
        """Read one item's answer, append its record and report it."""
        scored = w.second if self.second_stage is not None else w.first
        failed = w.error is not None or scored is None
        extraction = alt = None
        if not failed and scored is not None:
            extraction = self.task.scorer(w.item, scored)
            if self.task.alt_scorer is not None and w.first is not None:
                # the second rule reads the model's own first output (for MCR zero-shot CoT,
                # the paper's rule read the reasoning, not the answer-extraction reply)
                alt = self.task.alt_scorer(w.item, w.first)
        made = make_record(
            w.item,
            extraction,
            [w.first, w.second],
            scored=scored,
            attempts=w.attempts,
            cached=w.cached,
            error=w.error,
            reader=self.task.reader,
            alt=alt,
            alt_reader=self.task.alt_reader,
            prompts=(w.item.prompt, w.second_prompt),
            sent_as=self.calls.backend.sent_as(
                w.item.prompt, conversation(w.item, w.item.prompt, self.options)
            ),
        )
        self.records[w.item.index] = made
        self.lines[w.item.index] = self.writer.append(made)  # serialised once, here
        self.emit(
            ItemFinished(
                index=w.item.index, status=made.status, correct=made.correct, cached=made.cached
            )
        )

    async def run(self, items: Sequence[EvalItem]) -> None:
        """Process ``items``: cache hits at once, the rest by concurrent workers."""
        work = [_Item(item) for item in items]
        if self.second_stage is None and self.calls.cache is not None and not self.options.refresh:
            keys = [self._key(w.item, w.item.prompt, 1) for w in work]
            hits = self.calls.lookup(keys)
            rest = []
            for w, k in zip(work, keys, strict=True):
                if k in hits:
                    w.first = hits[k]
                    self.finish(w)
                else:
                    w.looked_up = True
                    w.key = k
                    rest.append(w)
            work = rest
        if self.options.scoring != "logprob":
            await self._run_batches(work)
            return
        # a local model scores a whole slice through one prefix tree ahead of the batches
        # (HFBackend.prepare_choices); slices keep the progress display moving. A backend
        # that prepares nothing (the hook's default) gets the rest as plain batches.
        backend = self.calls.backend
        for start in range(0, len(work), PREPARE_SLICE):
            part = work[start : start + PREPARE_SLICE]
            if not await backend.prepare_choices([self._choice_request(w.item) for w in part]):
                await self._run_batches(work[start:])
                return
            await self._run_batches(part)

    async def _run_batches(self, work: list[_Item]) -> None:
        """Take ``work`` through the stages in batches, by concurrent workers."""
        if not work:
            return
        size = self.calls.batch_size
        batches = [work[i : i + size] for i in range(0, len(work), size)]
        shared = iter(batches)  # the workers take batches from one iterator, in order
        n_workers = min(len(batches), self.options.concurrency * (2 if size == 1 else 1))
        workers = [asyncio.ensure_future(self._worker(shared)) for _ in range(n_workers)]
        try:
            await asyncio.gather(*workers)
        finally:  # one worker's error (the circuit breaker) or a cancel stops them all
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def _worker(self, batches: Iterator[list[_Item]]) -> None:
        for batch in batches:
            try:
                await self.process(batch)
            except BudgetReachedError:
                return  # no new request: those in flight finish, the runner says why it stopped


def _set(w: _Item, stage: int, response: Response) -> None:
    if stage == 1:
        w.first = response
    else:
        w.second = response
