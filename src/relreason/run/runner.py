"""Run a Task on a backend into a run folder: concurrent, rate-limited, retried, cached, resumable.

Flow per item: cache lookup -> (rate limits -> backend call, retried by tenacity) -> optional
second stage (MCR zero-shot CoT answer extraction) -> scorer -> one line in ``records.jsonl``.
An item that still fails after the retries is recorded as ``failed`` with its last error; a
rerun (or :func:`resume_run`) redoes only failed and missing items.

This module holds the entry points; the options are in :mod:`relreason.run.options`, the run
folder's configuration and manifest in :mod:`relreason.run.folder`, the concurrent per-item
work in :mod:`relreason.run.items` (the item path) and :mod:`relreason.run.calls` (the call
path: cache, retries) and the rate limits in :mod:`relreason.run.limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from relreason.errors import (
    RelreasonError,
    ServerUnreachableError,
    UsageError,
)
from relreason.files import atomic_write_json
from relreason.models.base import ModelBackend
from relreason.models.body_cap import body_cap
from relreason.paths import default_cache_path
from relreason.records import (
    MANIFEST,
    RECORDS,
    SUMMARY,
    Manifest,
    Record,
    RecordWriter,
    RunSummary,
    format_summary,
    load_manifest,
    load_typed_records,
    summarize,
    write_sorted_records,
)
from relreason.redact import scrub_secrets
from relreason.run.budget import BudgetReachedError, budget_for
from relreason.run.cache import ResponseCache
from relreason.run.calls import CallPath
from relreason.run.context import task_context
from relreason.run.cost import Price, estimate_cost, load_prices
from relreason.run.events import Event, ItemFinished, Working
from relreason.run.folder import (
    check_capabilities,
    keep_items,
    make_folder,
    new_manifest,
    prepare_folder,
    resume_task,
    run_config,
    versions,
)
from relreason.run.follow_up import follow_up_with_model
from relreason.run.items import ItemPath
from relreason.run.lock import RunLock
from relreason.run.loop import run_coroutine, set_stop_hint
from relreason.run.options import RunOptions, override_options
from relreason.run.progress import RunProgress, loading
from relreason.run.selection import select_items
from relreason.run.shared import SharedServer
from relreason.run.stops import check_indices, check_limits, resume_command, stopped_error
from relreason.run.tracking import log_run
from relreason.run.verdict import verdict
from relreason.run.warnings import warn
from relreason.types import EvalItem
from relreason.types import Task as EvalTask


def _undone(records: Mapping[int, Record], index: int) -> bool:
    """Whether item ``index`` still needs an answer (no record, or a failed one)."""
    record = records.get(index)
    return record is None or record.status == "failed"


def _open_cache(options: RunOptions) -> ResponseCache | None:
    if not options.use_cache:
        return None
    path = options.cache_path or default_cache_path()
    try:
        return ResponseCache(path, max_bytes=body_cap(options.max_answer_chars))
    except UsageError as error:
        warn(f"{error}; the run goes on without the cache")
        return None


async def arun_task(
    task: EvalTask,
    backend: ModelBackend,
    out_dir: Path,
    options: RunOptions,
    *,
    model_options: Mapping[str, Any] | None = None,
    data_dir: Path | None = None,
    progress: RunProgress | None = None,
    prices_file: Path | None = None,
    rerun_changed: bool = False,
    shared: SharedServer | None = None,
) -> RunSummary:
    """Run ``task`` on ``backend`` into the run folder ``out_dir``; return its summary.

    An existing run folder of the same configuration is continued (finished items are kept,
    failed and missing ones are redone); one of another configuration (other items, reader,
    model, servers, parameters) is refused naming what changed, or started again when
    ``rerun_changed``. ``shared`` gives the rate limit and circuit breaker of the backend's
    server when other processes call it too (a Ray sweep). One process at a time may write a
    folder (``RunLock``). Raises
    ``UsageError`` for bad options, a scoring the backend cannot do (before any folder is
    written), an unwritable, locked or foreign folder, or a disk error while writing;
    ``DataError`` for a corrupt one; ``ServerUnreachableError`` when the circuit breaker stops
    the run; ``InterruptedRunError`` when it is cancelled (Ctrl-C, SIGTERM). In every case what
    finished is kept and the manifest says how the run ended.
    """
    options.validate()
    check_capabilities(backend, options)
    check_limits(task, options)
    budget_for(backend.spec, options, load_prices(prices_file))  # refused before any folder
    out_dir = Path(out_dir)
    model_options = dict(model_options or {})
    for name, value in backend.chosen_options().items():
        if model_options.get(name) is None:
            model_options[name] = value
    config = run_config(task, backend, options)
    fresh = new_manifest(task, backend, options, model_options, data_dir, config)
    make_folder(out_dir)
    with RunLock(out_dir):
        manifest = prepare_folder(out_dir, config, fresh, rerun_changed=rerun_changed)
        keep_items(out_dir, task, manifest is fresh)
        sessions = len(manifest.sessions)
        try:
            summary = await _run_locked(
                task, backend, out_dir, options, manifest, data_dir, progress, prices_file, shared
            )
        except Exception as error:
            # stopped after the session began without saying how (a folder that cannot be
            # written, a fault of relreason's own): the manifest must not say "running"
            if len(manifest.sessions) > sessions and manifest.status == "running":
                manifest.end_session(
                    complete=False,
                    usage=manifest.usage,
                    cost_usd=None,
                    status="interrupted" if isinstance(error, RelreasonError) else "failed",
                )
                with contextlib.suppress(UsageError):
                    atomic_write_json(out_dir / MANIFEST, manifest.to_json())
            raise
    log_run(out_dir, options.log_to)  # to --log-to's tracker; a failure only warns
    return summary


async def _run_locked(
    task: EvalTask,
    backend: ModelBackend,
    out_dir: Path,
    options: RunOptions,
    manifest: Manifest,
    data_dir: Path | None,
    progress: RunProgress | None,
    prices_file: Path | None,
    shared: SharedServer | None = None,
) -> RunSummary:
    selected = select_items(task, options)
    prices = load_prices(prices_file)
    written: dict[int, str] = {}  # the lines as they are: rewritten unchanged
    records = load_typed_records(out_dir, repair=True, lines=written)  # damaged: refused as is
    check_indices(records, task, out_dir)
    set_stop_hint(f"continue with: {resume_command(out_dir, data_dir)}")
    manifest.begin_session(
        options.to_json(),
        len(selected),
        command=[scrub_secrets(a) for a in sys.argv],
        versions=versions(),
        pid=os.getpid(),
    )
    atomic_write_json(out_dir / MANIFEST, manifest.to_json())
    started = time.monotonic()
    stop, lines = await _answer(
        task, backend, out_dir, options, (records, written), selected, progress, prices, shared
    )
    selected_records = [records[it.index] for it in selected if it.index in records]
    selected_done = len(selected_records) == len(selected)
    # a stopped run keeps the appended file (whole; later lines win) and stops at once; with
    # no room for a sorted copy, the same
    if stop is None:
        with contextlib.suppress(UsageError):
            write_sorted_records(out_dir, records.values(), lines)
    summary = summarize(
        selected_records,
        out_dir=out_dir,
        task=task.name,
        model=backend.spec,
        cost_usd=None,
        complete=selected_done and stop is None,
        elapsed_s=round(time.monotonic() - started, 3),
        group_by=task.group_by or None,
    )
    summary.partial = len(selected) < len(task.items)
    summary.n_task = len(task.items)
    summary.cost_usd = estimate_cost(
        backend.spec, summary.usage["prompt_tokens"], summary.usage["completion_tokens"], prices
    )
    summary.context = task_context(task, selected_records)
    if task.description.get("reading"):
        summary.extra["reading"] = task.description["reading"]
    said = verdict(summary, backend.describe(), options)
    if said is not None:
        summary.extra["verdict"] = said
    status: Any = None
    if isinstance(stop, ServerUnreachableError):
        status = "failed"
    elif stop is not None:
        status = "interrupted"
    try:
        atomic_write_json(out_dir / SUMMARY, summary.to_json())
        manifest.end_session(
            complete=selected_done and stop is None,
            usage=summary.usage,
            cost_usd=summary.cost_usd,
            status=status,
            stopped=str(stop) if isinstance(stop, BudgetReachedError) else None,
        )
        atomic_write_json(out_dir / MANIFEST, manifest.to_json())
    except UsageError as error:
        if stop is None:
            stop = OSError(str(error))
    if stop is not None:
        raise stopped_error(stop, summary, out_dir, data_dir, len(selected))
    if options.show_progress and progress is None:
        print(format_summary(summary))
    return summary


async def _answer(
    task: EvalTask,
    backend: ModelBackend,
    out_dir: Path,
    options: RunOptions,
    found: tuple[dict[int, Record], dict[int, str]],
    selected: Sequence[EvalItem],
    progress: RunProgress | None,
    prices: Mapping[str, Price],
    shared: SharedServer | None,
) -> tuple[BaseException | None, dict[int, str]]:
    """Ask the ``selected`` items that have no record yet or a failed one (``found``: the
    records read and their lines as written), each appended to ``records.jsonl`` as it
    finishes; then the follow-up pass. Return what stopped the run (None: nothing) and each
    record's line as written (rewritten unchanged by the sorted rewrite)."""
    records, written = found
    done = {i for i, r in records.items() if r.status != "failed"}
    todo = [item for item in selected if item.index not in done]
    cache = _open_cache(options)
    own_progress = progress is None
    display = progress or RunProgress(enabled=options.show_progress)
    finished = [records[i] for i in (it.index for it in selected) if i in done]
    progress_id = display.start_run(
        f"{task.name} | {backend.spec}",
        len(selected),
        done=len(finished),
        correct=sum(r.correct for r in finished),
    )
    try:
        writer = RecordWriter(out_dir)
    except OSError as error:
        raise UsageError(f"cannot write {out_dir / RECORDS}: {error.strerror or error}") from None

    def emit(event: Event) -> None:
        if isinstance(event, ItemFinished) and not event.cached:
            made = records.get(event.index)
            usage = made.usage if made is not None else {}
            tokens = sum(int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens"))
            event = dataclasses.replace(event, tokens=tokens)
        display.event(progress_id, event)

    loop = asyncio.get_running_loop()

    def work(requests: int, tokens: int) -> None:  # called from the backend's threads
        with contextlib.suppress(RuntimeError):  # the loop closed: the run is over
            loop.call_soon_threadsafe(emit, Working(requests, tokens))

    calls = CallPath(backend, options, cache, emit, shared)
    calls.budget = budget_for(backend.spec, options, prices)
    items = ItemPath(task, options, calls, writer, records, emit)
    items.lines.update(written)
    stop: BaseException | None = None
    backend.work_listener = work
    backend.max_answer_chars = options.max_answer_chars
    try:
        await items.run(todo)
        spent = calls.budget.reached() if calls.budget is not None else None
        if spent is not None and any(_undone(records, item.index) for item in todo):
            raise BudgetReachedError(spent)
        if task.follow_up is not None:
            for index in await follow_up_with_model(task, records, options, cache):
                items.lines.pop(index, None)  # re-serialised by the sorted rewrite below
    except (
        asyncio.CancelledError,
        KeyboardInterrupt,
        ServerUnreachableError,
        BudgetReachedError,
        OSError,
    ) as error:
        stop = error
    finally:
        backend.work_listener = None
        with contextlib.suppress(OSError):
            writer.close()
        calls.close_cache()
        if own_progress:
            display.close()
    return stop, items.lines


def run_task(
    task: EvalTask,
    backend: ModelBackend,
    out_dir: Path,
    options: RunOptions,
    *,
    model_options: Mapping[str, Any] | None = None,
    data_dir: Path | None = None,
    prices_file: Path | None = None,
    close_backend: bool = True,
    rerun_changed: bool = False,
) -> RunSummary:
    """Synchronous :func:`arun_task` (starts its own event loop; not for use inside one).

    The event loop ends with the run, and API clients' connections are bound to it, so the
    backend is closed (``aclose``) before it ends unless ``close_backend`` is False.
    Returns the run's summary; raises as :func:`arun_task` does.
    """

    async def run() -> RunSummary:
        try:
            return await arun_task(
                task,
                backend,
                out_dir,
                options,
                model_options=model_options,
                data_dir=data_dir,
                prices_file=prices_file,
                rerun_changed=rerun_changed,
            )
        finally:
            if close_backend:
                await backend.aclose()

    return run_coroutine(run())


async def aresume_run(
    out_dir: Path,
    *,
    data_dir: Path | None = None,
    options_override: Mapping[str, Any] | None = None,
    task: EvalTask | None = None,
    backend: ModelBackend | None = None,
    progress: RunProgress | None = None,
    rerun_changed: bool = False,
) -> RunSummary:
    """Continue the run in ``out_dir`` as its manifest describes; return its summary.

    ``task``/``backend`` may be given explicitly (they must match the manifest); otherwise they
    are rebuilt with ``relreason.run.plan.task_from_description`` and
    ``relreason.models.registry.load_backend``. Raises ``UsageError`` for a non-run folder or a
    configuration that differs from the folder's, ``DataError`` for a corrupt manifest.
    """
    out_dir = Path(out_dir)
    manifest = load_manifest(out_dir)
    spec = manifest.spec
    model_options = dict(manifest.model.options)
    options = RunOptions.from_json(manifest.options)
    options = override_options(options, options_override)
    own_backend = backend is None
    if task is None:
        task = resume_task(manifest, data_dir, out_dir)
    if backend is None:
        from relreason.models.registry import load_backend

        with loading(spec, enabled=options.show_progress):
            backend = load_backend(spec, **model_options)
    try:
        return await arun_task(
            task,
            backend,
            out_dir,
            options,
            model_options=model_options,
            data_dir=data_dir,
            progress=progress,
            rerun_changed=rerun_changed,
        )
    finally:
        if own_backend:
            await backend.aclose()


def resume_run(
    out_dir: Path,
    *,
    data_dir: Path | None = None,
    options_override: Mapping[str, Any] | None = None,
    task: EvalTask | None = None,
    backend: ModelBackend | None = None,
    rerun_changed: bool = False,
) -> RunSummary:
    """Synchronous :func:`aresume_run`; returns the run's summary, raises as it does.

    A ``backend`` passed in is closed when the run's event loop ends (as in :func:`run_task`).
    """

    async def run() -> RunSummary:
        try:
            return await aresume_run(
                out_dir,
                data_dir=data_dir,
                options_override=options_override,
                task=task,
                backend=backend,
                rerun_changed=rerun_changed,
            )
        finally:
            if backend is not None:
                await backend.aclose()

    return run_coroutine(run())


__all__ = [
    "RunOptions",
    "aresume_run",
    "arun_task",
    "resume_command",
    "resume_run",
    "resume_task",
    "run_config",
    "run_task",
]
