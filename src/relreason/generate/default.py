"""The embedded default set: a few hundred generated questions per language, in the package.

``default/compose_<lang>.json`` is built by ``compose`` with ``default_options``: first the
150 items of kinship, position and order (as shipped before the later domains came), then 150
of quantity, identity and containment (a second run, same seed; item ids name the domain); the
``rebuild_default`` function writes it again and a test compares the bytes, so the shipped set
is exactly what the generator makes. Nothing to download: ``load_default`` reads it offline.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from relreason.generate.compose import FIRST_DOMAINS, ComposeOptions, compose
from relreason.generate.domains import SPECS
from relreason.generate.lexicon import LANGUAGES
from relreason.generate.records import Record, dumps, load_records

DEFAULT_SEED = 2026
PARTS: tuple[tuple[str, ...], ...] = (FIRST_DOMAINS, tuple(SPECS))
"""The default set's two runs: the first three domains, then the later ones."""
PART_COUNT = 150
DEFAULT_COUNT = PART_COUNT * len(PARTS)


def default_options(language: str, part: int = 0) -> ComposeOptions:
    """Return the options of run ``part`` (``PARTS``) of the default set of ``language``."""
    return ComposeOptions(
        language=language,
        domains=PARTS[part],
        hops=(2, 3, 4, 5, 6),
        n_options=4,
        uncertain=True,
        seed=DEFAULT_SEED,
        count=PART_COUNT,
    )


def default_file_name(language: str) -> str:
    """Return the file name of a language's default set, e.g. ``compose_en.json``."""
    return f"compose_{language}.json"


@functools.lru_cache(maxsize=8)
def default_text(language: str) -> str:
    """Return the exact text of the default file of ``language``, built now (once a process)."""
    items = [
        item for part in range(len(PARTS)) for item in compose(default_options(language, part))
    ]
    return dumps(items)


def default_dir() -> Path:
    """Return the folder of the shipped default files (inside the package)."""
    return Path(str(resources.files("relreason.generate"))) / "default"


def default_path(language: str) -> Path:
    """Return the path of the shipped default file of ``language``."""
    return default_dir() / default_file_name(language)


def rebuild_default(folder: Path | str | None = None) -> list[Path]:
    """Write the default file of every language into ``folder`` (the package's by default)."""
    target = Path(folder) if folder is not None else default_dir()
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for language in LANGUAGES:
        path = target / default_file_name(language)
        path.write_text(default_text(language), encoding="utf-8")
        written.append(path)
    return written


def load_default(language: str) -> list[Record]:
    """Return the shipped default questions of ``language`` as plain records."""
    return load_records(default_path(language))
