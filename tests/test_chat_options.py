"""``--system-prompt`` and ``--fewshot-as-multiturn``: what a chat model is sent besides the
flat prompt. Checked on the wire (a real local OpenAI-compatible server keeps every request
body), in the chat templates of the bundled SmolLM2 (``hf:`` and ``gguf:``), in the run
folder (manifest, fingerprint, refusal of a changed one) and on the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason import evaluate
from relreason.benchmarks.compose.prompts import build_task
from relreason.benchmarks.registry import permuted
from relreason.benchmarks.turns import as_turns, qa_shots, split_at
from relreason.cli import main
from relreason.errors import UsageError
from relreason.models.base import chat_messages
from relreason.run.options import RunOptions
from relreason.run.runner import run_task
from relreason.types import GenerationParams
from servers.fault_server import FaultServer

SYSTEM = "You are a careful logician. Answer with the option's letter and text."


@pytest.fixture(autouse=True)
def _private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-chat-0000")


def _records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def _manifest(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "manifest.json").read_text()))


# ------------------------------------------------------------------ the turns of a prompt


def test_compose_few_shot_items_carry_their_turns() -> None:
    task = build_task("en", "fs")
    item = task.items[0]
    roles = [role for role, _ in item.turns]
    assert roles == ["user", "assistant"] * 5 + ["user"]
    # every turn's text is in the flat prompt, in order; the question is its end
    at = 0
    for _, text in item.turns:
        found = item.prompt.find(text, at)
        assert found >= at, text
        at = found + len(text)
    assert item.prompt.rstrip().endswith(item.turns[-1][1])
    assert build_task("en", "zs").items[0].turns == ()


@given(
    st.lists(
        st.tuples(
            st.text(st.characters(blacklist_characters="\r\n"), min_size=1).filter(
                lambda s: "Q:" not in s and "A:" not in s
            ),
            st.text(st.characters(blacklist_characters="\r\n"), min_size=1).filter(
                lambda s: s.strip() and "Q:" not in s
            ),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_qa_blocks_split_into_their_exemplars(pairs: list[tuple[str, str]]) -> None:
    block = "".join(f"\nQ:{q}\nA:{a}" for q, a in pairs) + "\n"
    shots = qa_shots(block)
    assert [(s[0], s[1].rstrip()) for s in shots] == [(f"Q:{q}\nA:", a.rstrip()) for q, a in pairs]
    turns = as_turns("", shots, "Q: last?\nA:")
    assert len(turns) == 2 * len(pairs) + 1 and turns[-1] == ("user", "Q: last?\nA:")


def test_an_exemplar_without_its_answer_gives_no_turns() -> None:
    assert split_at("Question: x\nAnswer: B\n", "\nAnswer:") == ("Question: x\nAnswer:", " B\n")
    assert as_turns("intro", [split_at("no marker here", "\nAnswer:")], "Q") == ()
    assert as_turns("intro", [], "Q") == ()


def test_permuted_items_ask_the_reordered_question_in_their_last_turn() -> None:
    task = permuted(build_task("en", "fs"), "reverse")
    for item in task.items[:6]:
        assert item.turns, item.item_id
        question = item.turns[-1][1]
        assert item.prompt.rstrip().endswith(question)


# ------------------------------------------------------------------ on the wire


@pytest.mark.server
def test_the_request_carries_the_system_message_and_the_turns(tmp_path: Path) -> None:
    with FaultServer(fault_rate=0.0) as server:
        result = evaluate(
            "compose",
            "openai:fake",
            out=tmp_path / "run",
            language="en",
            method="fs",
            base_urls=(server.url,),
            limit=3,
            system_prompt=SYSTEM,
            fewshot_as_multiturn=True,
            use_cache=False,
        )
        bodies = list(server.bodies)
    items = build_task("en", "fs").items[:3]
    assert len(bodies) == 3
    for body, record in zip(
        sorted(bodies, key=lambda b: json.dumps(b["messages"])),
        sorted(_records(result.folder), key=lambda r: json.dumps(r["sent_as"])),
        strict=True,
    ):
        assert body["messages"] == record["sent_as"]
    sent = {json.dumps(b["messages"]) for b in bodies}
    for item in items:
        expected = [{"role": "system", "content": SYSTEM}, *chat_messages("", item.turns)]
        assert json.dumps(expected) in sent
    for record, item in zip(_records(result.folder), items, strict=True):
        assert record["prompt"] == item.prompt  # the flat text stays the record's prompt
    manifest = _manifest(result.folder)
    assert manifest["options"]["system_prompt"] == SYSTEM
    assert manifest["options"]["fewshot_as_multiturn"] is True
    assert manifest["config"]["system_prompt"] == SYSTEM


@pytest.mark.server
def test_a_system_prompt_alone_goes_before_the_flat_prompt(tmp_path: Path) -> None:
    with FaultServer(fault_rate=0.0) as server:
        result = evaluate(
            "compose",
            "openai:fake",
            out=tmp_path / "run",
            language="en",
            method="zs",
            base_urls=(server.url,),
            limit=2,
            system_prompt=SYSTEM,
        )
        bodies = list(server.bodies)
    prompts = {r["prompt"] for r in _records(result.folder)}
    assert {b["messages"][1]["content"] for b in bodies} == prompts
    assert all(b["messages"][0] == {"role": "system", "content": SYSTEM} for b in bodies)
    assert all(len(b["messages"]) == 2 for b in bodies)


@pytest.mark.server
def test_another_system_prompt_is_another_run_and_misses_the_cache(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        common: dict[str, Any] = {
            "language": "en",
            "method": "zs",
            "base_urls": (server.url,),
            "limit": 2,
        }
        evaluate("compose", "openai:fake", out=folder, system_prompt=SYSTEM, **common)
        with pytest.raises(UsageError, match="system_prompt"):
            evaluate("compose", "openai:fake", out=folder, system_prompt="Other.", **common)
        with pytest.raises(UsageError, match="system_prompt"):
            evaluate("compose", "openai:fake", out=folder, **common)
        before = len(server.bodies)
        evaluate("compose", "openai:fake", out=tmp_path / "b", system_prompt="Other.", **common)
        assert len(server.bodies) == before + 2  # the cache keys differ too
        evaluate("compose", "openai:fake", out=tmp_path / "c", system_prompt="Other.", **common)
        assert len(server.bodies) == before + 2  # and the same one hits it


# ------------------------------------------------------------------ refused where useless


@pytest.mark.parametrize(
    ("model", "options", "match"),
    [
        ("smollm2", {}, "--chat-template"),
        ("gguf:smollm2", {}, "--chat-template"),
        ("openai:fake", {"api": "completions"}, "--api chat"),
        ("openai:fake", {"scoring": "logprob"}, "--scoring generate"),
    ],
)
def test_models_without_messages_are_refused(
    tmp_path: Path, model: str, options: dict[str, Any], match: str
) -> None:
    with pytest.raises(UsageError, match=match):
        evaluate(
            "compose",
            model,
            out=tmp_path / "x",
            method="fs",
            fewshot_as_multiturn=True,
            limit=1,
            **options,
        )
    assert not (tmp_path / "x").exists()


def test_system_prompt_from_a_file_and_a_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "system.txt"
    text.write_text(SYSTEM + "\n", encoding="utf-8")
    out = tmp_path / "run"
    base = ["run", "compose", "--model", "first", "--limit", "2", "--no-progress"]
    with pytest.raises(SystemExit) as done:
        main([*base, "--method", "fs", "--system-prompt", f"@{text}", "--out", str(out)])
    assert done.value.code in (0, None)
    assert _manifest(out)["options"]["system_prompt"] == SYSTEM
    with pytest.raises(SystemExit) as done:
        main([*base, "--system-prompt", f"@{tmp_path / 'nope.txt'}", "--out", str(tmp_path / "y")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "nope.txt" in err and "Traceback" not in err


# ------------------------------------------------------------------ chat templates


@pytest.fixture(scope="module")
def smollm2_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """SmolLM2 converted into the private cache test_hf_backend shares (converted once)."""
    from relreason.models.smollm2 import converted_dir

    root = tmp_path_factory.getbasetemp() / "relreason-cache"
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELREASON_CACHE_DIR", str(root))
        yield converted_dir()


def _templated_run(backend: Any, out: Path) -> list[dict[str, Any]]:
    task = build_task("en", "fs")
    options = RunOptions(
        use_cache=False,
        limit=1,
        system_prompt=SYSTEM,
        fewshot_as_multiturn=True,
        params=GenerationParams(max_new_tokens=3),
    )
    run_task(task, backend, out, options)
    return _records(out)


@pytest.mark.model
def test_the_hf_chat_template_renders_the_system_text_and_the_turns(
    smollm2_folder: Path, tmp_path: Path
) -> None:
    from relreason.models.hf.backend import HFBackend

    backend = HFBackend(str(smollm2_folder), batch_size=1, chat_template=True)
    (record,) = _templated_run(backend, tmp_path / "hf")
    item = build_task("en", "fs").items[0]
    text = record["sent_as"]
    assert text.startswith(f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n")
    assert f"<|im_start|>assistant\n{item.turns[1][1]}<|im_end|>" in text
    assert text.count("<|im_start|>assistant\n") == 6  # five exemplars and the answer's
    assert text.endswith(f"{item.turns[-1][1]}<|im_end|>\n<|im_start|>assistant\n")
    ids = backend.encode(text)
    system_ids = backend.tokenizer(SYSTEM, add_special_tokens=False)["input_ids"]
    assert any(ids[i : i + len(system_ids)] == system_ids for i in range(len(ids)))
    assert record["usage"]["prompt_tokens"] == len(ids)  # the model was given that text


@pytest.mark.model
def test_the_gguf_chat_template_renders_the_system_text_and_the_turns(tmp_path: Path) -> None:
    from relreason.models.registry import load_backend

    backend = load_backend("gguf:smollm2", threads=1, chat_template=True)
    (record,) = _templated_run(backend, tmp_path / "gguf")
    item = build_task("en", "fs").items[0]
    text = record["sent_as"]
    assert f"<|im_start|>system\n{SYSTEM}<|im_end|>" in text
    assert f"<|im_start|>assistant\n{item.turns[1][1]}<|im_end|>" in text
    assert text.endswith("<|im_start|>assistant\n")
    assert record["usage"]["prompt_tokens"] == len(backend.encode(text))


# ------------------------------------------------------------------ sweeps


def _sweep(tmp_path: Path, models: list[Any], options: dict[str, Any]) -> Path:
    import yaml

    path = tmp_path / "sweep.yaml"
    runs = [{"benchmark": "compose", "language": "en", "method": "fs"}]
    sweep = {"out": str(tmp_path / "out"), "models": models, "runs": runs, "options": options}
    path.write_text(yaml.safe_dump(sweep), encoding="utf-8")
    return path


def test_a_sweep_refuses_a_model_without_messages(tmp_path: Path) -> None:
    from relreason.errors import DataError
    from relreason.run.sweep import load_sweep, plan_sweep

    path = _sweep(tmp_path, ["first", "smollm2"], {"fewshot_as_multiturn": True, "limit": 1})
    with pytest.raises(DataError, match=r"models\[1\].*--chat-template"):
        plan_sweep(load_sweep(path), path=path)
    missing = _sweep(tmp_path, ["first"], {"system_prompt": f"@{tmp_path / 'none.txt'}"})
    with pytest.raises(DataError, match=r"none\.txt"):
        plan_sweep(load_sweep(missing), path=missing)


def test_a_sweep_records_the_system_prompt_of_its_file(tmp_path: Path) -> None:
    from relreason.run.sweep import run_sweep

    (tmp_path / "system.txt").write_text(SYSTEM, encoding="utf-8")
    options = {"system_prompt": f"@{tmp_path / 'system.txt'}", "limit": 2}
    path = _sweep(tmp_path, ["first"], {**options, "fewshot_as_multiturn": True})
    run_sweep(path, show_progress=False)
    (manifest,) = list((tmp_path / "out").rglob("manifest.json"))
    recorded = json.loads(manifest.read_text())["options"]
    assert recorded["system_prompt"] == SYSTEM and recorded["fewshot_as_multiturn"] is True


@pytest.mark.server
def test_anthropic_gets_the_system_field_and_the_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from servers.anthropic_stub import ApiStub

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-chat-0000")
    with ApiStub() as stub:
        result = evaluate(
            "compose",
            "anthropic:claude-stub",
            out=tmp_path / "run",
            language="en",
            method="fs",
            base_urls=(stub.url,),
            limit=2,
            system_prompt=SYSTEM,
            fewshot_as_multiturn=True,
        )
        bodies = [body for path, _, body in stub.requests if path.endswith("/messages")]
    items = build_task("en", "fs").items[:2]
    assert sorted(json.dumps(b["messages"]) for b in bodies) == sorted(
        json.dumps(chat_messages("", item.turns)) for item in items
    )
    assert all(b["system"] == SYSTEM for b in bodies)
    record = _records(result.folder)[0]
    assert record["sent_as"]["system"] == SYSTEM


@pytest.mark.server
def test_the_second_stage_gets_the_system_message_too(tmp_path: Path) -> None:
    with FaultServer(fault_rate=0.0) as server:
        evaluate(
            "compose",
            "openai:fake",
            out=tmp_path / "run",
            language="en",
            method="zsc",
            base_urls=(server.url,),
            limit=2,
            system_prompt=SYSTEM,
        )
        bodies = list(server.bodies)
    assert len(bodies) == 4  # two stages per item
    assert all(b["messages"][0] == {"role": "system", "content": SYSTEM} for b in bodies)
    assert {len(b["messages"]) for b in bodies} == {2}


def test_the_conversation_of_each_combination_of_options() -> None:
    from relreason.run.chat import conversation

    item = build_task("en", "fs").items[0]
    system = ("system", SYSTEM)
    plain = RunOptions()
    assert conversation(item, item.prompt, plain) == ()  # as before: cache keys unchanged
    with_system = RunOptions(system_prompt=SYSTEM)
    assert conversation(item, item.prompt, with_system) == (system, ("user", item.prompt))
    turns = RunOptions(fewshot_as_multiturn=True)
    assert conversation(item, item.prompt, turns) == item.turns
    both = RunOptions(system_prompt=SYSTEM, fewshot_as_multiturn=True)
    assert conversation(item, item.prompt, both) == (system, *item.turns)
    # a second-stage prompt is not the item's: it goes as one user message
    assert conversation(item, "Therefore, the answer is", turns) == ()
    zero_shot = build_task("en", "zs").items[0]
    assert conversation(zero_shot, zero_shot.prompt, turns) == ()
