"""ConvRe's official files: the 3B-Group/ConvRe repository at a pinned commit, with the SHA-256
of each file as the official data README lists it (``sha256sum -c`` format upstream)."""

from __future__ import annotations

from relreason.data.spec import DataFile, DataFiles

REPO = "3B-Group/ConvRe"
COMMIT = "afb9a21fd2e4216c85faf3934abf7004bbe6d48d"

_PINS = {
    "re2text_examples.json": "f01e8f503d1650cf82d3e992f6a7b47285f1d25bf973da29807b37a1073acf91",
    "re2text_relations.json": "83f43ab7833e3824ae943cc82ee71cd0648c817f4b5e747fde16008524dd4d36",
    "text2re_examples.json": "163f36d8f8c7aaeb67e47bceab33ca78633fb0da3e8ae25128cf08e2c098a40e",
    "text2re_relations.json": "2831a70e630e2bb960e3b6306f135ce7fe22fa2f5daf5787909f955e4ef90526",
    "triple_dataset.json": "8648382cb5c24ced80663e7a58b9a6d34167225210e44aa0224e3508478deb03",
    "triple_subset.json": "f6fa9acd4c0f3ba8f172fc33a77434f4b5899bf9f8274b8f9dd361ac4fccd1ca",
}

FILES = DataFiles(
    folder="convre",
    repo=REPO,
    commit=COMMIT,
    files=tuple(DataFile(name, sha, f"data/{name}") for name, sha in sorted(_PINS.items())),
)
"""The six ConvRe files under ``<data dir>/convre/``."""
