"""No silent zero: the command line and sweep files accept the same values (one declaration,
``RunSettings``); a misnamed key in a responses file is an error naming it; options that
do nothing for a backend are refused; every option given at run time survives ``--resume``;
a reading audit's 0.0000 says why; a run with no readable answer says so first, with the option
that fixes its likely cause; ``score`` reads every reply a record holds."""

from __future__ import annotations

import json
from pathlib import Path

import annotated_types
import pytest

from clihelp import run_cli
from relreason.errors import DataError
from relreason.run.options import TASK_OPTIONS
from relreason.run.settings import RunSettings
from relreason.run.sweep import load_sweep


def _bound(name: str) -> tuple[float, bool, float | None] | None:
    """Option ``name``'s declared lower bound, whether it is excluded, and its upper bound."""
    meta = RunSettings.model_fields[name].metadata
    high = next((float(m.le) for m in meta if isinstance(m, annotated_types.Le)), None)
    for m in meta:
        if isinstance(m, annotated_types.Ge):
            return float(m.ge), False, high  # type: ignore[arg-type]
        if isinstance(m, annotated_types.Gt):
            return float(m.gt), True, high  # type: ignore[arg-type]
    return None


def _edges(name: str) -> tuple[list[float], list[float]]:
    """Values just inside and just outside the declared bound of option ``name``."""
    bound = _bound(name)
    assert bound is not None
    low, exclusive, high = bound
    step = 1 if float(low).is_integer() and name not in ("temperature",) else 0.05
    inside = [low + step] if exclusive else [low]
    outside = [low] if exclusive else [low - step]
    if high is not None:
        inside.append(high)
        outside.append(high + 1)
    return inside, outside


def _sweep_accepts(tmp_path: Path, name: str, value: float) -> bool:
    path = tmp_path / "s.yaml"
    path.write_text(
        f"out: {tmp_path / 'o'}\nmodels: [first]\nruns: [{{benchmark: compose}}]\n"
        f"options: {{{name}: {value}}}\n"
    )
    try:
        load_sweep(path)
    except DataError:
        return False
    return True


def _cli_accepts(name: str, value: float, capsys: pytest.CaptureFixture[str]) -> bool:
    flag = {"requests_per_minute": "--rpm", "tokens_per_minute": "--tpm"}.get(
        name, "--" + name.replace("_", "-")
    )
    code, _, _ = run_cli(
        ["run", "compose", "--model", "first", flag, str(value), "--dry-run"], capsys
    )
    return code == 0


SWEPT = [n for n in RunSettings.model_fields if n not in TASK_OPTIONS and _bound(n) is not None]


@pytest.mark.parametrize("name", SWEPT)
def test_the_sweep_and_the_cli_accept_the_same_values(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    inside, outside = _edges(name)
    for value in inside:
        assert _sweep_accepts(tmp_path, name, value), (name, value)
        assert _cli_accepts(name, value, capsys), (name, value)
    for value in outside:
        assert not _sweep_accepts(tmp_path, name, value), (name, value)
        assert not _cli_accepts(name, value, capsys), (name, value)


def test_limit_zero_is_refused_in_a_sweep_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        f"out: {tmp_path}\nmodels: [first]\nruns: [{{benchmark: compose}}]\noptions: {{limit: 0}}\n"
    )
    with pytest.raises(DataError, match="limit"):
        load_sweep(path)


def _responses(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_misnamed_key_in_a_responses_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _responses(tmp_path, [{"index": 0, "response": "A"}, {"index": 1, "response": "B"}])
    code, _, err = run_cli(
        ["score", "compose", "--responses", str(path), "--out", str(tmp_path / "s.jsonl")], capsys
    )
    assert code == 2
    assert "'response'" in err and "line 1" in err and "output" in err
    assert not (tmp_path / "s.jsonl").exists()


def test_a_run_records_file_is_still_accepted_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code, _, err = run_cli(
        [
            "run",
            "compose",
            "--model",
            "first",
            "--limit",
            "3",
            "--out",
            str(out),
            "--no-progress",
            "--no-cache",
        ],
        capsys,
    )
    assert code == 0, err
    code, _, err = run_cli(
        [
            "score",
            "compose",
            "--responses",
            str(out / "records.jsonl"),
            "--out",
            str(tmp_path / "s.jsonl"),
        ],
        capsys,
    )
    assert code == 0, err
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    run = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["answer"] for r in scored] == [r["answer"] for r in run]


def test_an_option_that_does_nothing_for_the_backend_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        [
            "run",
            "compose",
            "--model",
            "openai:m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--chat-template",
            "--out",
            str(tmp_path / "r"),
        ],
        capsys,
    )
    assert code == 2 and "--chat-template" in err and "openai" in err
    assert not (tmp_path / "r").exists()
    code, _, err = run_cli(
        [
            "run",
            "compose",
            "--model",
            "first",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "r"),
        ],
        capsys,
    )
    assert code == 2 and "--base-url" in err


def test_convre_strict_mode_survives_resume(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    from servers.fault_server import FaultServer

    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, reply=lambda prompt: "I would rather not say.") as server:
        args = ["run", "convre", "--task", "re2text", "--setting", "1", "--mode", "strict",
                "--model", "openai:m", "--base-url", server.url, "--limit", "2", "--no-cache",
                "--top-logprobs", "0", "--no-progress", "--data-dir", str(shared_data),
                "--out", str(out)]  # fmt: skip
        code, _, err = run_cli(args, capsys)
        assert code == 1 and "strict mode" in err
        stored = json.loads((out / "manifest.json").read_text())["description"]["params"]
        assert stored["mode"] == "strict"
        code, _, err = run_cli(
            ["run", "--resume", str(out), "--data-dir", str(shared_data)], capsys
        )
    assert code == 1 and "strict mode" in err


def _convre(server_url: str, shared_data: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "convre", "--task", "re2text", "--setting", "1", "--model", "openai:m",
            "--base-url", server_url, "--limit", "2", "--no-cache", "--no-progress",
            "--data-dir", str(shared_data), "--out", str(out), *extra]  # fmt: skip


def test_a_reading_audit_zero_says_why(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    from servers.fault_server import FaultServer

    with FaultServer(fault_rate=0.0, reply=lambda prompt: "I would rather not say.") as server:
        code, out, err = run_cli(_convre(server.url, shared_data, tmp_path / "r"), capsys)
    assert code == 0, err
    audit = " ".join(line.strip() for line in out.splitlines() if line.startswith("  "))
    assert "official:gpt-chat 0.0000" in audit
    assert "official:gpt-chat reads none of the 2 answers" in audit


def test_a_run_with_no_readable_answer_says_so_first_with_the_fix(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    from servers.fault_server import FaultServer

    with FaultServer(fault_rate=0.0, reply=lambda prompt: "I would rather not say.") as server:
        args = _convre(server.url, shared_data, tmp_path / "r", "--top-logprobs", "0")
        code, out, err = run_cli(args, capsys)
    assert code == 0, err
    said = " ".join(out.split("convre/re2text")[0].split())  # what comes before the headline
    assert said.startswith("no readable answer") and "--api completions" in said


def test_a_server_refusing_logprobs_is_named_with_the_option_that_fixes_it(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    from servers.fault_server import FaultServer

    with FaultServer(fault_rate=0.0, refuse_logprobs=True) as server:
        args = _convre(server.url, shared_data, tmp_path / "r", "--max-retries", "0")
        code, out, err = run_cli(args, capsys)
        assert code == 3 and "--top-logprobs 0" in err, err
        assert out.splitlines()[0].startswith("no item was answered")
        args = _convre(server.url, shared_data, tmp_path / "s", "--top-logprobs", "0")
        code, out, err = run_cli(args, capsys)
    assert code == 0, err


def test_score_reads_the_second_reply_and_the_runs_family(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    from servers.fault_server import FaultServer

    def reply(prompt: str) -> str:  # reasoning first; the answer only when asked for it
        return "C" if prompt.endswith("the answer is") else "Let me think: A or B, maybe."

    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, reply=reply) as server:
        code, _, err = run_cli(
            ["run", "compose", "--method", "zsc", "--model", "openai:m", "--base-url",
             server.url, "--limit", "4", "--no-cache", "--no-progress", "--out", str(out)],
            capsys,
        )  # fmt: skip
        assert code == 0, err
        code, _, err = run_cli(
            _convre(server.url, shared_data, tmp_path / "c", "--api", "completions"), capsys
        )
        assert code == 0, err
    scored = tmp_path / "scored.jsonl"
    code, _, err = run_cli(
        ["score", "compose", "--method", "zsc", "--responses", str(out / "records.jsonl"),
         "--out", str(scored)], capsys,
    )  # fmt: skip
    assert code == 0, err
    run = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    again = [json.loads(x) for x in scored.read_text().splitlines()]
    assert [r["answer"] for r in run] == ["C"] * 4
    assert [r["answer"] for r in again] == [r["answer"] for r in run]
    assert [r["second_output"] for r in again] == ["C"] * 4
    code, _, err = run_cli(
        ["score", "convre", "--task", "re2text", "--setting", "1", "--data-dir",
         str(shared_data), "--responses", str(tmp_path / "c" / "records.jsonl"),
         "--out", str(tmp_path / "c.jsonl")], capsys,
    )  # fmt: skip
    assert code == 0, err
    ran = [json.loads(x)["alt"]["reader"] for x in (tmp_path / "c" / "records.jsonl").open()]
    read = [json.loads(x)["alt"]["reader"] for x in (tmp_path / "c.jsonl").open()]
    assert ran == read == ["official:gpt-text"] * 2


def test_score_with_no_readable_answer_says_so_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _responses(tmp_path, [{"index": i, "output": "zzz"} for i in range(3)])
    code, out, err = run_cli(
        ["score", "compose", "--responses", str(path), "--out", str(tmp_path / "s.jsonl")], capsys
    )
    assert code == 0, err
    assert out.startswith("no readable answer: none of the 3 output(s)")
