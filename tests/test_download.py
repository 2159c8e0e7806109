"""Downloading the official data over real HTTP from a local server on 127.0.0.1 (no network).

The server (tests/http_static.py) serves the shared official data folder, either laid out as a
mirror (``convre/<file>``, ``mcr/<file>``) or as raw.githubusercontent.com does
(``OWNER/REPO/COMMIT/PATH``), so both code paths run for real except for the host name.
"""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from datafiles import download, pinned_files, verify
from http_static import StaticServer
from relreason.benchmarks.mcr.files import exemplars_json, extract_exemplars
from relreason.errors import ChecksumError, DataError, RelreasonError, UsageError
from relreason.files import atomic_write_bytes as write_atomic

pytestmark = pytest.mark.server

# From the official data README: the repositories and commits the files come from.
CONVRE_AT = "3B-Group/ConvRe/afb9a21fd2e4216c85faf3934abf7004bbe6d48d"
MCR_AT = (
    "zhaojinm/Multilingual_Composition_Relation_benchmark/23aaee66440a95eb7ffb2b3f396eed722038ad2e"
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RELREASON_DATA_DIR", "RELREASON_CACHE_DIR", "RELREASON_MIRROR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture()
def mirror(shared_data: Path) -> Iterator[StaticServer]:
    with StaticServer(shared_data) as server:
        yield server


def leftovers(folder: Path) -> list[Path]:
    """Every file under ``folder`` (temp files included)."""
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_download_all_then_nothing_to_fetch(
    mirror: StaticServer, shared_data: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "cache"
    written = download("all", dest, mirror=mirror.url)
    assert len(written) == 12
    assert mirror.count() == 12
    for benchmark, files in ((b, pinned_files(b)) for b in ("convre", "mcr")):
        assert verify(benchmark, dest) == []
        for name in files:
            assert (dest / benchmark / name).read_bytes() == (
                shared_data / benchmark / name
            ).read_bytes()
    assert not list(dest.rglob("*.tmp"))

    inodes = {p: p.stat().st_ino for p in written}
    assert download("all", dest, mirror=mirror.url) == written
    assert mirror.count() == 12  # the second run made no request at all
    assert {p: p.stat().st_ino for p in written} == inodes  # and rewrote nothing


def test_download_uses_env_mirror_and_cache(
    mirror: StaticServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELREASON_MIRROR", mirror.url + "/")
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path))
    written = download("convre")
    assert sorted(p.name for p in written) == sorted(pinned_files("convre"))
    assert all(p.parent == tmp_path / "data" / "convre" for p in written)
    assert mirror.count("convre/") == 6 and mirror.count("mcr/") == 0
    assert verify("convre", tmp_path / "data") == []


def test_only_missing_or_changed_files_are_fetched(mirror: StaticServer, tmp_path: Path) -> None:
    download("mcr", tmp_path, mirror=mirror.url)
    (tmp_path / "mcr" / "composition_french.json").unlink()
    changed = tmp_path / "mcr" / "exemplars_official.json"
    changed.write_text("{}", encoding="utf-8")
    before = len(mirror.requests)
    ready = download("mcr", tmp_path, mirror=mirror.url)
    assert sorted(p.name for p in ready) == sorted(pinned_files("mcr"))
    fetched = sorted(mirror.requests[before:])
    assert fetched == ["/mcr/composition_french.json", "/mcr/exemplars_official.json"]
    assert verify("mcr", tmp_path) == []


def test_corrupted_file_leaves_nothing(mirror: StaticServer, tmp_path: Path) -> None:
    name = "mcr/composition_korean.json"
    mirror.corrupt[name] = lambda body: body[:-2] + b"X" + body[-1:]
    served = mirror.corrupt[name]((mirror.root / name).read_bytes())
    dest = tmp_path / "cache"
    with pytest.raises(ChecksumError) as info:
        download("all", dest, mirror=mirror.url)
    message = str(info.value)
    assert "composition_korean.json" in message
    assert pinned_files("mcr")["composition_korean.json"] in message
    assert hashlib.sha256(served).hexdigest() in message
    assert leftovers(dest) == []  # no file, no temp file: the folder was not even created


def test_corrupted_file_keeps_existing_files(mirror: StaticServer, tmp_path: Path) -> None:
    download("convre", tmp_path, mirror=mirror.url)
    before = {p: p.read_bytes() for p in leftovers(tmp_path)}
    mirror.corrupt["mcr/composition_chinese.json"] = lambda body: body.replace(b"A", b"B", 1)
    with pytest.raises(ChecksumError, match=r"composition_chinese\.json"):
        download("all", tmp_path, mirror=mirror.url)
    assert {p: p.read_bytes() for p in leftovers(tmp_path)} == before


def test_404_names_the_url(mirror: StaticServer, tmp_path: Path) -> None:
    mirror.omit.add("convre/triple_subset.json")
    with pytest.raises(RelreasonError) as info:
        download("convre", tmp_path / "d", mirror=mirror.url)
    assert not isinstance(info.value, ChecksumError)
    assert f"{mirror.url}/convre/triple_subset.json" in str(info.value)
    assert "404" in str(info.value)
    assert leftovers(tmp_path) == []


def test_server_error_names_the_url(mirror: StaticServer, tmp_path: Path) -> None:
    mirror.status["mcr/composition_english.json"] = 503
    with pytest.raises(RelreasonError, match=r"composition_english\.json answered HTTP 503"):
        download("mcr", tmp_path, mirror=mirror.url)
    assert leftovers(tmp_path) == []


def test_timeout_names_the_url(mirror: StaticServer, tmp_path: Path) -> None:
    mirror.delay["convre/re2text_examples.json"] = 1.5
    with pytest.raises(RelreasonError, match=r"re2text_examples\.json timed out"):
        download("convre", tmp_path, mirror=mirror.url, timeout=0.2)
    assert leftovers(tmp_path) == []


def test_connection_refused_names_the_url(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(RelreasonError, match=rf"{url}/convre/\S+\.json") as refused:
        download("convre", tmp_path, mirror=url, timeout=5)
    assert leftovers(tmp_path) == []
    # and it names the ways on without this network
    for way in ("RELREASON_DATA_DIR=DIR", "--data-dir DIR", "--mirror URL", "RELREASON_MIRROR"):
        assert way in str(refused.value)


@pytest.mark.parametrize(("which", "mirror_url"), [("bogus", None), ("mcr", "ftp://example")])
def test_bad_arguments(which: str, mirror_url: str | None, tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        download(which, tmp_path, mirror=mirror_url)


def test_write_atomic_failure_leaves_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """os.replace is made to fail (standing in for a full disk): old content stays, no temp."""
    target = tmp_path / "f.json"
    target.write_bytes(b"old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("relreason.data.download.os.replace", broken_replace)
    with pytest.raises(RelreasonError, match="No space left"):
        write_atomic(target, b"new")
    assert leftovers(tmp_path) == [target]
    assert target.read_bytes() == b"old"


# --- the GitHub code path: raw addresses at the pinned commits, exemplars from main.py --------


def build_main_py(exemplars: dict[str, str], assignment: str | None = None) -> str:
    """A main.py standing in for the MCR repository's (not reachable here): same shape, a
    top-level ``examplars = {...}`` of triple-quoted strings among other code."""
    lines = ["import argparse", "import os", "", "examplars = {"]
    for key, text in exemplars.items():
        assert '"""' not in text and "\\" not in text
        lines.append(f'    "{key}": """{text}""",')
    lines += ["}", ""]
    if assignment is not None:
        lines = ["import argparse", "", assignment, ""]
    lines += ["def main():", "    print(examplars['english'])", "", 'if __name__ == "__main__":']
    lines += ["    main()", ""]
    return "\n".join(lines)


def raw_layout(shared_data: Path, root: Path, main_py: str) -> Path:
    """Lay out ``root`` as raw.githubusercontent.com serves the two repositories."""
    for name in pinned_files("convre"):
        target = root / CONVRE_AT / "data" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(shared_data / "convre" / name)
    for name in pinned_files("mcr"):
        if name.startswith("composition_"):
            target = root / MCR_AT / "dataset" / "composition" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(shared_data / "mcr" / name)
    (root / MCR_AT / "main.py").write_text(main_py, encoding="utf-8")
    return root


@pytest.fixture()
def official_exemplars(shared_data: Path) -> dict[str, str]:
    value: dict[str, str] = json.loads(
        (shared_data / "mcr" / "exemplars_official.json").read_text("utf-8")
    )
    return value


def test_github_path_extracts_exemplars_from_main_py(
    shared_data: Path, official_exemplars: dict[str, str], tmp_path: Path
) -> None:
    """main.py here is built from the shared exemplars; it stands in for the real file."""
    root = raw_layout(shared_data, tmp_path / "raw", build_main_py(official_exemplars))
    dest = tmp_path / "data"
    with StaticServer(root) as server:
        written = download("all", dest, raw_base=server.url)
        assert len(written) == 12
        assert f"/{MCR_AT}/main.py" in server.requests
        assert f"/{CONVRE_AT}/data/triple_dataset.json" in server.requests
        assert f"/{MCR_AT}/dataset/composition/composition_french.json" in server.requests
        assert len(server.requests) == 12
    assert verify("convre", dest) == [] and verify("mcr", dest) == []
    assert (dest / "mcr" / "exemplars_official.json").read_bytes() == (
        shared_data / "mcr" / "exemplars_official.json"
    ).read_bytes()


def test_github_path_changed_exemplar_is_a_checksum_error(
    shared_data: Path, official_exemplars: dict[str, str], tmp_path: Path
) -> None:
    changed = dict(official_exemplars, english=official_exemplars["english"] + "Q:x\nA:A) y\n")
    root = raw_layout(shared_data, tmp_path / "raw", build_main_py(changed))
    with StaticServer(root) as server, pytest.raises(ChecksumError) as info:
        download("mcr", tmp_path / "data", raw_base=server.url)
    assert "exemplars_official.json" in str(info.value)
    assert "main.py" in str(info.value)
    assert leftovers(tmp_path / "data") == []


@pytest.mark.parametrize(
    ("assignment", "reason"),
    [
        ("other = {}", "no top-level assignment to 'examplars'"),
        ("examplars = __import__('os').system('touch PWNED')", "not a literal value"),
        ("examplars = ['a', 'b']", "expected a dict of strings"),
        ("examplars = {", "not valid Python"),
    ],
)
def test_github_path_bad_main_py(
    assignment: str,
    reason: str,
    shared_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    root = raw_layout(shared_data, tmp_path / "raw", build_main_py({}, assignment))
    with StaticServer(root) as server, pytest.raises(DataError, match=reason) as info:
        download("mcr", tmp_path / "data", raw_base=server.url)
    assert f"{server.url}/{MCR_AT}/main.py" in str(info.value)
    assert not (tmp_path / "PWNED").exists()  # main.py is parsed, never run
    assert leftovers(tmp_path / "data") == []


def test_extract_takes_last_assignment_and_annotated() -> None:
    source = b"examplars = {'a': 'x'}\nexamplars: dict = {'b': 'y'}\n"
    assert extract_exemplars(source, "m.py") == {"b": "y"}


@settings(max_examples=60, deadline=None)
@given(
    value=st.dictionaries(st.text(), st.text(), max_size=6), noise=st.sampled_from(["", "x = 1"])
)
def test_extract_round_trips(value: dict[str, str], noise: str) -> None:
    """Any dict of strings written into a source file comes back equal, keys in order, and its
    JSON bytes read back to the same dict."""
    source = f"{noise}\nexamplars = {value!r}\ndef f():\n    return examplars\n".encode()
    extracted = extract_exemplars(source, "main.py")
    assert extracted == value and list(extracted) == list(value)
    assert json.loads(exemplars_json(extracted).decode("utf-8")) == value


def run_cli(args: list[str]) -> int:
    from relreason.cli import main

    try:
        main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def test_cli_download(
    mirror: StaticServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`relreason download all` through the real command line, against the local mirror."""
    assert run_cli(["download", "all", "--dest", str(tmp_path), "--mirror", mirror.url]) == 0
    assert verify("convre", tmp_path) == [] and verify("mcr", tmp_path) == []
    mirror.omit.add("convre/text2re_relations.json")
    (tmp_path / "convre" / "text2re_relations.json").unlink()
    capsys.readouterr()
    assert run_cli(["download", "convre", "--dest", str(tmp_path), "--mirror", mirror.url]) == 2
    captured = capsys.readouterr()
    output = captured.out + captured.err
    assert f"{mirror.url}/convre/text2re_relations.json" in output
    assert "Traceback" not in output
