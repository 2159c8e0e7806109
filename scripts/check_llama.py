"""Exit 0 when the installed llama-cpp-python can load the bundled SmolLM2 GGUF and complete a
prompt; non-zero (or killed by a signal) when it cannot.

A wheel built for another CPU, or with instructions this machine's kernel does not allow (AMX
tiles), dies with SIGSEGV/SIGILL at the first forward pass; scripts/test.sh then rebuilds it
portably. Run in a subprocess for that reason.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Load the model and generate two tokens."""
    from llama_cpp import Llama

    from relreason.models.smollm2 import gguf_path

    model = Llama(str(gguf_path()), verbose=False, n_ctx=256)
    out = model.create_completion("Answer with A or B:", max_tokens=2)
    print("llama-cpp-python works:", repr(out["choices"][0]["text"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
