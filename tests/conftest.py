"""Shared fixtures: where the official data lies (a local copy, else downloaded with relreason's
own pinned, checksummed download), and a clear skip only when neither is possible."""

from __future__ import annotations

import collections
import contextlib
import functools
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from relreason.data.sources import resolve_data_dir

# A shell without job control starts background commands with SIGINT ignored, and an ignored
# signal stays ignored across exec: every child a test starts would then ignore the Ctrl-C the
# stop tests send it, as a user's terminal never does. The suite restores Python's own handler
# so its children start with SIGINT at its default (what relreason meets in a terminal); how
# relreason treats an inherited SIG_IGN (it keeps it, as nohup asks) is not what they test.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Wall-clock deadlines make property tests flaky on a loaded 2-core CI machine; speed is
# measured in benchmarks/, not asserted in tests.
settings.register_profile("relreason", deadline=None)
settings.load_profile("relreason")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("RELREASON_TEST_DATA", REPO_ROOT.parent / "shared" / "data"))
DOWNLOADED_DATA = Path(
    os.environ.get("RELREASON_TEST_DATA_CACHE", REPO_ROOT / ".pytest_cache" / "relreason-data")
)
"""Where the tests download the official data when no local copy is given (never committed:
.pytest_cache ignores itself)."""
USER_DATA = resolve_data_dir()
"""relreason's own data folder (``RELREASON_DATA_DIR``, else where ``relreason download all``
puts the files) as the session starts, before any test changes the environment."""


def _has_data(folder: Path) -> bool:
    return (folder / "convre" / "triple_dataset.json").is_file() and (
        folder / "mcr" / "composition_english.json"
    ).is_file()


def _verified(folder: Path) -> bool:
    from datafiles import verify

    return _has_data(folder) and not verify("convre", folder) and not verify("mcr", folder)


def find_official_data(
    shared: Path, downloaded: Path, *, user: Path | None = None
) -> tuple[Path | None, str]:
    """The official data folder and how it was found, or None and why not.

    ``shared`` (``RELREASON_TEST_DATA`` or ``../shared/data``) when it holds the files; else
    ``user`` (relreason's own data folder: ``RELREASON_DATA_DIR``, else where ``relreason
    download all`` puts the files) once verified; else ``downloaded`` once verified, fetching
    the files into it with relreason's own pinned, SHA-256-checked download (from
    ``RELREASON_MIRROR`` when set) if needed.
    """
    if _has_data(shared):
        return shared, f"local copy at {shared}"
    if user is not None and _verified(user):
        return user, f"relreason's data folder {user}"
    if _verified(downloaded):
        return downloaded, f"downloaded copy at {downloaded}"
    from datafiles import download
    from relreason.errors import RelreasonError

    try:
        download("all", downloaded, timeout=60)
    except RelreasonError as error:
        text = str(error)
        offline = any(hint in text for hint in _OFFLINE_HINTS)
        why = "there is no network" if offline else "the download failed"
        return None, (
            f"official data not found at {shared}"
            + (f" nor {user}" if user is not None else "")
            + f" and {why} ({text}); run `relreason download all` once with network, or set "
            "RELREASON_TEST_DATA (or RELREASON_DATA_DIR) to a folder holding convre/ and mcr/, "
            f"or run the tests online once (the files are then kept in {downloaded})"
        )
    return downloaded, f"downloaded (pinned, verified) to {downloaded}"


_OFFLINE_HINTS = (
    "Name or service not known",
    "nodename nor servname",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No address associated",
)


@functools.cache
def official_data() -> tuple[Path | None, str]:
    """:func:`find_official_data` for this test session (looked up once)."""
    return find_official_data(SHARED_DATA, DOWNLOADED_DATA, user=USER_DATA)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The official data folder (holding convre/ and mcr/): a local copy, else relreason's
    pinned, checksummed download; skips (saying why, e.g. no network) only when neither works."""
    folder, how = official_data()
    if folder is None:
        pytest.skip(how)
    return folder


@pytest.fixture()
def data_copy(shared_data: Path, tmp_path: Path) -> Path:
    """A writable copy of the official data folder, for tests that corrupt a file."""
    import shutil

    dest = tmp_path / "data"
    shutil.copytree(shared_data, dest)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


# --- No child process outlives the test that started it ------------------------------------

_BORN = pytest.StashKey[list[Any]]()
_LEFT_ALONE = ("resource_tracker", "semaphore_tracker", "forkserver")
"""Helpers Python's multiprocessing starts once and keeps for the whole session (not a leak)."""


def _children(*, recursive: bool = True) -> list[Any]:
    """This process's living descendants (psutil.Process values; with ``recursive=False`` its
    children only), session helpers left out."""
    import psutil

    found = []
    for child in psutil.Process().children(recursive=recursive):
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                continue
            command = " ".join(child.cmdline())
        except psutil.Error:  # it ended meanwhile
            continue
        if not any(name in command for name in _LEFT_ALONE):
            found.append(child)
    return found


def _kill(processes: list[Any], grace_s: float) -> list[str]:
    """Give ``processes`` ``grace_s`` seconds to end, then kill what is left with its own
    descendants; return a description of each one that had to be killed."""
    import psutil

    _, alive = psutil.wait_procs(processes, timeout=grace_s)
    killed = []
    for process in alive:
        try:
            tree = [process, *process.children(recursive=True)]
            killed.append(f"pid {process.pid}: {' '.join(process.cmdline())[:200]}")
        except psutil.Error:
            continue
        for member in tree:
            with contextlib.suppress(psutil.Error):
                member.kill()
        psutil.wait_procs(tree, timeout=5)
    return killed


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Remember the child processes the test's own code started and left running (direct
    children: the workers a fixture's server starts as it goes are the fixture's)."""
    before = {(p.pid, p.create_time()) for p in _children(recursive=False)}
    try:
        return (yield)
    finally:
        item.stash[_BORN] = [
            p for p in _children(recursive=False) if (p.pid, p.create_time()) not in before
        ]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """After the test's fixtures are gone: a child its code started that still runs is killed
    (with its own children), and the test errors, naming it. Processes that wider-scoped
    fixtures start (servers) are theirs to end; :func:`pytest_sessionfinish` checks those."""
    result = yield
    killed = _kill(item.stash.get(_BORN, []), grace_s=5)
    if killed:
        pytest.fail("the test left child processes running (killed now): " + "; ".join(killed))
    return result


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No process of the session outlives it: what is left is killed and the session fails."""
    killed = _kill(_children(), grace_s=5)
    if killed:
        session.config.stash[_LEFTOVERS] = killed
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_LEFTOVERS = pytest.StashKey[list[str]]()


# --- What was skipped, and why, in the last lines of a run ---------------------------------


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    if reason.startswith("official data not found"):  # one reason, whatever the error said
        return reason.split(" (", 1)[0]
    return reason


def _skip_lines(reports: list[pytest.TestReport]) -> list[str]:
    """The skipped tests grouped by reason (most first), then one line saying how many were
    skipped for want of the official data and how to get it."""
    reasons = collections.Counter(_skip_reason(r) for r in reports)
    lines = [f"{len(reports)} skipped, by reason:"]
    lines += [f"{count:5d}  {reason[:300]}" for reason, count in reasons.most_common()]
    no_data = sum(n for reason, n in reasons.items() if reason.startswith("official data"))
    if no_data:
        lines.append(
            f"{no_data} of the {len(reports)} skipped tests need the official data: run "
            "`relreason download all` once with network to GitHub, or set RELREASON_TEST_DATA "
            "(or RELREASON_DATA_DIR) to a folder holding convre/ and mcr/"
        )
    else:
        lines.append(f"{len(reports)} skipped, none for want of the official data")
    return lines


def pytest_unconfigure(config: pytest.Config) -> None:
    """The last lines of a run: any process left running, and what was skipped and why (also
    written to the file ``RELREASON_SKIP_SUMMARY`` names, for scripts/test.sh to print last)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.option.collectonly:
        return
    for line in config.stash.get(_LEFTOVERS, []):
        reporter.write_line(f"left running after the session (killed): {line}", red=True)
    reports = [r for r in reporter.stats.get("skipped", []) if r.when != "teardown"]
    lines = _skip_lines(reports) if reports else ["none skipped"]
    for line in lines:
        reporter.write_line(line, yellow=bool(reports))
    if os.environ.get("RELREASON_SKIP_SUMMARY"):
        Path(os.environ["RELREASON_SKIP_SUMMARY"]).write_text("\n".join(lines) + "\n")
