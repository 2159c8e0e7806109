"""Sweeps on a Ray cluster: each cell left to run is one Ray task, given the resources its model
needs (a GPU for a local engine on ``cuda``, a CPU for a local model on the CPU or a baseline, a
quarter CPU for an API model), so cells spread over the machines of the cluster.

No shared disk is needed: the driver sends a task the cell's folder as it stands (the files of
a partial run, to continue it), the worker runs the cell with :func:`arun_task` into a folder of
its own and sends back every file of it, and the driver writes them into the cell's run folder,
each atomically, the manifest last, under the folder's lock. While a cell runs, its worker
sends each record as it is written through the ``Hub`` actor, and the driver appends it to the
cell's run folder twice a second: a driver stopped by Ctrl-C (or an error) keeps every answered
item, marks the cells in flight interrupted and cancels their tasks, and the sweep run again
asks none of those items again. A worker that dies is a task Ray runs again elsewhere
(``max_retries``) from the folder as the dead attempt left it (the hub keeps it), so what it
answered is not asked again either. Finished cells are skipped, and changed ones refused, by
the same checks as a local sweep (``check_cells``).

The workers' output (a model's loading bars, its library's logs) stays on the workers (Ray's
``log_to_driver``) unless ``show_logs``; each cell's manifest records the driver's command.

API cells that call the same servers share one rate limit and one circuit breaker over all
workers: a ``ServerState`` actor per server set. Progress comes back through a ``Hub`` actor
that the driver reads twice a second into its own display.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.errors import RelreasonError, UsageError
from relreason.files import atomic_write_bytes, atomic_write_json
from relreason.records import MANIFEST, RECORDS, SUMMARY, load_manifest
from relreason.redact import scrub_secrets
from relreason.run.events import Event, ItemFinished
from relreason.run.lock import RunLock
from relreason.run.options import RunOptions
from relreason.run.progress import RunProgress
from relreason.run.ray_actors import Hub, ServerState, SharedProxy
from relreason.run.sweep_cells import PlannedRun, check_cells
from relreason.run.sweep_file import ModelEntry, SweepOptions
from relreason.types import Task

MAX_RETRIES = 3
"""How many times a cell whose worker died is run again (Ray's ``max_retries``)."""
POLL_S = 0.5
"""Seconds between two reads of the workers' progress."""


@dataclass
class CellJob:
    """What a worker needs to run one cell: no path of the driver's is used there."""

    index: int
    name: str
    model: ModelEntry
    task: Task
    options: RunOptions
    files: dict[str, bytes]
    rerun_changed: bool
    command: list[str]
    """The driver's command line (what the cell's manifest records)."""


@dataclass
class CellResult:
    """The files of a cell's folder after its run, and the error that ended it, if any."""

    index: int
    files: dict[str, bytes]
    error: RelreasonError | None


@dataclass(frozen=True)
class CellStart:
    """A worker began (or began again) a cell: reported to ``on_start`` and the display."""

    out_dir: Path
    host: str
    pid: int
    attempt: int


def resources(model: ModelEntry) -> dict[str, float]:
    """The Ray resources a cell of ``model`` asks for."""
    from relreason.models.registry import backend_info

    info = backend_info(model.spec)
    if info is not None and info.free and info.extra is not None:  # a local engine
        if "cuda" in (model.device or ""):
            return {"num_cpus": 1, "num_gpus": 1}
        return {"num_cpus": 1}
    if info is not None and not info.free:  # an API: waits on the network
        return {"num_cpus": 0.25}
    return {"num_cpus": 1}


def server_key(model: ModelEntry) -> str | None:
    """The servers an API model calls (its limit and breaker are shared), None otherwise."""
    from relreason.models.registry import backend_info

    info = backend_info(model.spec)
    if info is None or info.free:
        return None
    urls = list(model.base_urls)
    return f"{info.kind} {' '.join(sorted(u for u in urls if u)) or 'default'}"


def _folder_files(folder: Path) -> dict[str, bytes]:
    """The files of a run folder a worker needs or sends back (not the lock, not temporaries)."""
    if not folder.is_dir():
        return {}
    return {
        p.name: p.read_bytes()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".") and ".tmp" not in p.name
    }


def _whole_lines(path: Path, offset: int) -> bytes:
    """The complete lines of the file ``path`` from byte ``offset`` on."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except FileNotFoundError:
        return b""
    return data[: data.rfind(b"\n") + 1]


class _RemoteProgress(RunProgress):
    """A worker's silent display that forwards what the runner reports to the driver's hub,
    with the run folder's manifest and records as the run begins and each record as it is
    written (the runner writes it before it reports the item finished)."""

    def __init__(self, hub: Any, index: int, attempt: int, folder: Path) -> None:
        super().__init__(enabled=False)
        self.hub = hub
        self.index = index
        self.attempt = attempt
        self.records = folder / RECORDS
        self.offset = 0

    def start_run(
        self, name: str, total: int, *, done: int = 0, correct: int = 0, failed: int = 0
    ) -> Any:
        """Forward the start of the run (with what earlier sessions finished)."""
        lines = _whole_lines(self.records, 0)
        self.offset = len(lines)
        files = {RECORDS: lines, MANIFEST: (self.records.parent / MANIFEST).read_bytes()}
        self.hub.folder.remote(self.index, self.attempt, files)
        body = (name, total, done, correct, failed)
        self.hub.push.remote(("start", self.index, self.attempt, body))
        return super().start_run(name, total, done=done, correct=correct, failed=failed)

    def event(self, run_id: Any, event: Event) -> None:
        """Forward one event (and the record an item finished with)."""
        if isinstance(event, ItemFinished):
            lines = _whole_lines(self.records, self.offset)
            if lines:
                self.offset += len(lines)
                self.hub.add_lines.remote(self.index, self.attempt, lines)
        self.hub.push.remote(("event", self.index, self.attempt, event))


def run_cell(job: CellJob, hub: Any, shared: Any) -> CellResult:
    """Run one cell in a folder of this worker's own and return its files (a Ray task)."""
    import ray

    from relreason.models.registry import load_backend

    attempt, files = ray.get(hub.begin.remote(job.index, job.files))
    hub.push.remote(("cell", job.index, attempt, (socket.gethostname(), os.getpid())))
    root = Path(tempfile.mkdtemp(prefix="relreason-cell-"))
    argv = sys.argv
    try:
        folder = root / "run"
        folder.mkdir()
        for name, body in files.items():
            (folder / name).write_bytes(body)
        error: RelreasonError | None = None
        sys.argv = job.command  # the manifest's command: the user's, not Ray's worker's
        try:
            backend = load_backend(job.model.spec, **job.model.options())
            progress = _RemoteProgress(hub, job.index, attempt, folder)
            asyncio.run(_run(job, backend, folder, progress, shared))
        except RelreasonError as stop:  # what finished is in the folder: send it back too
            error = stop
        return CellResult(job.index, _folder_files(folder), error)
    finally:
        sys.argv = argv
        shutil.rmtree(root, ignore_errors=True)


async def _run(job: CellJob, backend: Any, folder: Path, progress: Any, shared: Any) -> None:
    from relreason.run.runner import arun_task

    try:
        await arun_task(
            job.task,
            backend,
            folder,
            job.options,
            model_options=job.model.manifest_options(),
            progress=progress,
            rerun_changed=job.rerun_changed,
            shared=None if shared is None else SharedProxy(shared),
        )
    finally:
        await backend.aclose()


def _write_result(out_dir: Path, files: dict[str, bytes]) -> None:
    """Write a cell's files into its run folder: records first, the manifest last."""
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    if SUMMARY in files:  # the summary names the worker's folder: name the driver's
        summary = json.loads(files[SUMMARY])
        summary["out_dir"] = str(out_dir)
        files = {**files, SUMMARY: json.dumps(summary, indent=2).encode()}
    order = sorted(files, key=lambda n: (n == MANIFEST, n == SUMMARY, n != RECORDS, n))
    with RunLock(out_dir):
        for name in order:
            atomic_write_bytes(out_dir / name, files[name])


def _mirror(out_dir: Path, files: dict[str, bytes], lines: bytes) -> None:
    """Write what a running cell's worker sent: its manifest (first: the folder is a run
    folder before it holds records), its records file as its run began, the lines since."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with RunLock(out_dir):
        for name in sorted(files, key=lambda n: n != MANIFEST):
            atomic_write_bytes(out_dir / name, files[name])
        if lines:
            with (out_dir / RECORDS).open("ab") as handle:
                handle.write(lines)


def _interrupted(out_dir: Path) -> None:
    """Mark the run folder of a cell stopped in flight as interrupted (it is continued when
    the sweep runs again)."""
    with contextlib.suppress(RelreasonError, OSError), RunLock(out_dir):
        manifest = load_manifest(out_dir)
        if manifest.status == "running":
            manifest.end_session(
                complete=False,
                usage=manifest.usage,
                cost_usd=manifest.cost_usd,
                status="interrupted",
            )
            atomic_write_json(out_dir / MANIFEST, manifest.to_json())


def _connect(address: str, show_logs: bool) -> tuple[Any, bool]:
    """Ray, initialised; and whether this call started it."""
    try:
        import ray
    except ImportError as error:
        from relreason.install import extra_hint

        raise UsageError(f"--ray needs the 'ray' extra: {extra_hint('ray')} ({error})") from None
    if ray.is_initialized():
        return ray, False
    try:
        ray.init(
            address=address,  # "local": a new cluster, never one found on this machine
            log_to_driver=show_logs,
            include_dashboard=False if address == "local" else None,
            logging_level=logging.INFO if show_logs else logging.ERROR,
        )
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise UsageError(f"cannot reach the Ray cluster at {address!r}: {error}") from None
    return ray, True


def run_on_ray(
    planned: Sequence[PlannedRun],
    sweep_options: SweepOptions,
    address: str,
    *,
    show: bool = True,
    rerun_changed: bool = False,
    on_start: Callable[[CellStart], None] | None = None,
    show_logs: bool = False,
) -> dict[str, list[float]]:
    """Run the sweep's cells left to run as Ray tasks; write each cell's folder as it ends.
    Return, per API server set, when its shared limit let each request through.

    ``address``: ``local`` starts a cluster in this process, anything else is given to
    ``ray.init`` (``auto``, ``ray://HOST:10001``); an initialised Ray is used as it is.
    ``on_start`` is told of every attempt at a cell (host, pid); ``show_logs`` lets the
    workers' output through to this process's terminal (a cluster started here). Raises what
    ``check_cells`` raises before anything runs; after every cell has ended, the first error a
    cell stopped with (its folder written as it ended). Stopped itself (Ctrl-C, an error), it
    writes what the workers answered, marks the cells in flight interrupted, cancels their
    tasks (and stops a cluster it started) before it raises.
    """
    options, sizes, todo = check_cells(planned, sweep_options, rerun_changed)
    ray, started = _connect(address, show_logs)
    try:
        hub = ray.remote(num_cpus=0)(Hub).remote()
        states, pending = _submit(ray, hub, planned, sweep_options, options, todo, rerun_changed)
        _wait(ray, hub, planned, pending, sizes, todo, show, on_start)
        return {key: ray.get(state.grants.remote()) for key, state in states.items()}
    except BaseException:
        if started:  # the process may end without its exit handlers (exit 130)
            with contextlib.suppress(Exception):
                ray.shutdown()
        raise


def _submit(
    ray: Any,
    hub: Any,
    planned: Sequence[PlannedRun],
    sweep_options: SweepOptions,
    options: Sequence[RunOptions],
    todo: Sequence[bool],
    rerun_changed: bool,
) -> tuple[dict[str, Any], dict[Any, int]]:
    """Send each cell left to run as a Ray task; return the server states and the tasks."""
    command = [scrub_secrets(a) for a in sys.argv]
    states: dict[str, Any] = {}
    task_fn = ray.remote(max_retries=MAX_RETRIES)(run_cell)
    pending: dict[Any, int] = {}
    for index, (run, run_options, left) in enumerate(zip(planned, options, todo, strict=True)):
        if not left:
            continue
        key = server_key(run.model)
        if key is not None and key not in states:
            states[key] = (
                ray.remote(num_cpus=0)(ServerState)
                .options(max_concurrency=1000)
                .remote(
                    sweep_options.requests_per_minute,
                    sweep_options.tokens_per_minute,
                    sweep_options.max_wait,
                )
            )
        job = CellJob(
            index,
            str(run.out_dir),
            run.model,
            run.task,
            run_options,
            _folder_files(run.out_dir),
            rerun_changed,
            command,
        )
        shared = states.get(key) if key is not None else None
        ref = task_fn.options(**resources(run.model)).remote(job, hub, shared)
        pending[ref] = index
    return states, pending


def _wait(
    ray: Any,
    hub: Any,
    planned: Sequence[PlannedRun],
    pending: dict[Any, int],
    sizes: Sequence[int],
    todo: Sequence[bool],
    show: bool,
    on_start: Callable[[CellStart], None] | None,
) -> None:
    """Show the cells' progress and write their records as they come, each cell's folder as
    it ends; raise the first error a cell stopped with once every cell has ended."""
    first_error: RelreasonError | None = None
    ended: set[int] = set()
    with RunProgress(enabled=show, overall=sum(sizes)) as progress:
        for size, left in zip(sizes, todo, strict=True):
            if not left:
                progress.add_overall(size)
        shown: dict[int, Any] = {}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_S)
                _show(ray.get(hub.drain.remote()), planned, progress, shown, on_start)
                _keep(ray.get(hub.take.remote()), planned, ended)
                for ref in ready:
                    index = pending.pop(ref)
                    result: CellResult = ray.get(ref)
                    _write_result(planned[index].out_dir, result.files)
                    ended.add(index)
                    hub.forget.remote(index)
                    first_error = first_error or result.error
        except BaseException:
            _stop(ray, hub, planned, pending, ended)
            raise
        _show(ray.get(hub.drain.remote()), planned, progress, shown, on_start)
    if first_error is not None:
        raise first_error


def _keep(
    taken: dict[int, tuple[dict[str, bytes], bytes]],
    planned: Sequence[PlannedRun],
    ended: set[int],
) -> None:
    """Write into the cells' run folders the records their workers sent since the last time
    (a cell already written whole is left as it is)."""
    for index, (files, lines) in taken.items():
        if index not in ended:
            _mirror(planned[index].out_dir, files, lines)


def _stop(
    ray: Any, hub: Any, planned: Sequence[PlannedRun], pending: dict[Any, int], ended: set[int]
) -> None:
    """The driver stops before the cells in flight ended: cancel their tasks, write what
    their workers answered, and mark them interrupted."""
    for ref in pending:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=True)
    with contextlib.suppress(Exception):
        _keep(ray.get(hub.take.remote(), timeout=10), planned, ended)
    for index in pending.values():
        _interrupted(planned[index].out_dir)


def _show(
    messages: list[Any],
    planned: Sequence[PlannedRun],
    progress: RunProgress,
    shown: dict[int, Any],
    on_start: Callable[[CellStart], None] | None,
) -> None:
    """Feed the workers' messages to the driver's display (a cell begun again replaces its
    earlier attempt's bar; late messages of an earlier attempt are dropped)."""
    for kind, index, attempt, body in messages:
        current = shown.get(index)
        if kind == "cell":
            host, pid = body
            if on_start is not None:
                on_start(CellStart(planned[index].out_dir, host, pid, attempt))
        elif kind == "start" and (current is None or current[0] < attempt):
            if current is not None:
                progress.drop_run(current[1])
            name, total, done, correct, failed = body
            run_id = progress.start_run(name, total, done=done, correct=correct, failed=failed)
            shown[index] = (attempt, run_id)
        elif kind == "event" and current is not None and current[0] == attempt:
            progress.event(current[1], body)
