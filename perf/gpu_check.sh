#!/usr/bin/env bash
# GPU check, one script, under 8 minutes on one H200: relreason's vllm: and hf: against
# lm-eval's vllm and hf backends on the same model and items (ConvRe re2text setting 9
# log-likelihood, MCR English zero-shot generation), identical-output checks, peak GPU memory.
#
#   bash perf/gpu_check.sh MODEL_DIR DATA_DIR [LIMIT]
#
# MODEL_DIR: a Hugging Face model folder (e.g. the bundled SmolLM2's float32 conversion,
# `python -c "from relreason.models.smollm2 import converted_dir; print(converted_dir())"`).
# DATA_DIR: the official data (holding convre/ and mcr/). Results go to $OUT (the device
# tool's folder) or perf/gpu-out: results.json, one log per phase. Phases whose package is not
# installed (vllm, lm_eval) are reported as skipped. Every phase has its own time limit, and the
# whole script is stopped at 470 s.
#
# Not run yet: no GPU was lent to the task that wrote it. On the H200 machines this workplace
# lends, nothing can be fetched and at most 64 MiB travels with the tree, while the image there
# has torch and transformers but neither vllm nor lm_eval: the vllm phases need a machine with
# vllm installed, and the model must be on the machine (SmolLM2's GGUF alone is 98 MB).
set -uo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: perf/gpu_check.sh MODEL_DIR DATA_DIR [LIMIT]}
data=${2:?usage: perf/gpu_check.sh MODEL_DIR DATA_DIR [LIMIT]}
limit=${3:-}
out=${OUT:-perf/gpu-out}
mkdir -p "$out"
py=${PYTHON:-python3}
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
  "$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
  "$py" -c "import vllm; print('vllm', vllm.__version__)" 2>/dev/null || echo "vllm: not installed"
  "$py" -c "import lm_eval; print('lm_eval', lm_eval.__version__)" 2>/dev/null || echo "lm_eval: not installed"
} | tee "$out/environment.txt"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
timeout 470 "$py" perf/gpu_check.py --model "$model" --data "$data" --out "$out" \
  ${limit:+--limit "$limit"} --phase-timeout 110 2>&1 | tee "$out/log.txt"
