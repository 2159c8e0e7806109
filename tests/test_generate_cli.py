"""The ``generate`` sub-application: compose, verify (exit 0/2), converse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from relreason.cli.generate_cmd import generate_app, parse_choice, parse_hops
from relreason.errors import UsageError

runner = CliRunner()


def test_compose_then_verify(tmp_path: Path) -> None:
    out = tmp_path / "set.json"
    result = runner.invoke(
        generate_app,
        [
            "compose",
            "--out",
            str(out),
            "-l",
            "en,ko",
            "--domain",
            "order,kinship",
            "--hops",
            "3-4",
            "--options",
            "3",
            "--count",
            "4",
            "--seed",
            "7",
            "--fictional-names",
        ],
    )
    assert result.exit_code == 0, result.output
    items = json.loads(out.read_text(encoding="utf-8"))
    assert [i["language"] for i in items] == ["en"] * 4 + ["ko"] * 4
    assert {i["domain"] for i in items} == {"order", "kinship"}
    assert all(len(i["options"]) <= 3 for i in items)
    assert runner.invoke(generate_app, ["verify", str(out)]).exit_code == 0
    items[0]["answer"] = "uncertain" if items[0]["answer"] != "uncertain" else "taller"
    out.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    failed = runner.invoke(generate_app, ["verify", str(out)])
    assert failed.exit_code == 2
    assert f"item {items[0]['id']}, field 'answer'" in failed.output


def test_converse_command(tmp_path: Path) -> None:
    base = Path(__file__).parents[1] / "src" / "relreason" / "generate" / "examples"
    result = runner.invoke(
        generate_app,
        [
            "converse",
            str(base / "converse_definitions.json"),
            str(base / "converse_triples.csv"),
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "convre" / "text2re_relations.json").is_file()


def test_option_parsers() -> None:
    assert parse_hops("2-4,6") == (2, 3, 4, 6)
    assert parse_choice("all", ("a", "b"), "x") == ("a", "b")
    with pytest.raises(UsageError):
        parse_hops("two")
    with pytest.raises(UsageError):
        parse_choice("en,de", ("en",), "language")
