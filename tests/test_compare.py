"""Comparing two runs item by item: the 2x2 table and McNemar's exact test."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from relreason.analysis.compare import mcnemar_exact
from relreason.cli import main


@given(st.integers(0, 300), st.integers(0, 300))
def test_mcnemar_matches_scipys_binomial_test(only_a: int, only_b: int) -> None:
    n = only_a + only_b
    expected = 1.0 if n == 0 else binomtest(only_a, n, 0.5).pvalue
    assert mcnemar_exact(only_a, only_b) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def _run(
    model: str, out: Path, data: Path, capsys: pytest.CaptureFixture[str], setting: str = "4"
) -> Path:
    args = [
        "run",
        "convre",
        "--task",
        "text2re",
        "--setting",
        setting,
        "--subset",
        "--model",
        model,
    ]
    code, _, err = _cli(
        [*args, "--out", str(out), "--no-progress", "--data-dir", str(data)], capsys
    )
    assert code == 0, err
    return out


def test_compare_two_runs(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _run("random:4", tmp_path / "a", shared_data, capsys)
    b = _run("first", tmp_path / "b", shared_data, capsys)
    code, out, _ = _cli(["compare", str(a), str(b), "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    rec_a = [json.loads(x) for x in (a / "records.jsonl").read_text().splitlines()]
    rec_b = [json.loads(x) for x in (b / "records.jsonl").read_text().splitlines()]
    pairs = list(zip(rec_a, rec_b, strict=True))
    assert result["n"] == 328
    assert result["both"] == sum(x["correct"] and y["correct"] for x, y in pairs)
    assert result["only_a"] == sum(x["correct"] and not y["correct"] for x, y in pairs)
    assert result["only_b"] == sum(y["correct"] and not x["correct"] for x, y in pairs)
    assert result["same_answer"] == sum(x["answer"] == y["answer"] for x, y in pairs)
    assert result["accuracy_a"] == pytest.approx(sum(x["correct"] for x in rec_a) / 328)
    code, out, _ = _cli(["compare", str(a), str(b)], capsys)
    assert code == 0 and "McNemar" in out


def test_compare_refuses_different_tasks(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _run("first", tmp_path / "a", shared_data, capsys)
    b = _run("first", tmp_path / "b", shared_data, capsys, setting="5")
    code, _, err = _cli(["compare", str(a), str(b)], capsys)
    assert code == 2
    assert "different tasks" in err
    code, _, err = _cli(["compare", str(a), str(tmp_path)], capsys)
    assert code == 2 and "not a run folder" in " ".join(err.split())


@given(st.integers(min_value=0, max_value=40), st.integers(min_value=0, max_value=4000))
def test_p_value_text_is_never_zero_and_matches_the_exact_fraction(a: int, b: int) -> None:
    from fractions import Fraction

    from relreason.analysis.compare import mcnemar_log10, p_value_text

    n, k = a + b, min(a, b)
    exact = min(Fraction(1), Fraction(2 * sum(math.comb(n, i) for i in range(k + 1)), 2**n))
    log10 = math.log10(exact.numerator) - math.log10(exact.denominator)
    assert abs(mcnemar_log10(a, b) - log10) < 1e-9
    text = p_value_text(a, b)
    assert text != "p = 0" and not text.startswith("p = 0e")
    body = text.removeprefix("p = ")
    mantissa, _, exponent = body.partition("e")
    assert 1 <= float(mantissa) < 10 or not exponent
    shown_log10 = math.log10(float(mantissa)) + int(exponent or 0)
    assert abs(shown_log10 - log10) < 1e-3  # the exact value, to 4 significant digits
