"""Local Hugging Face models (``hf:PATH_OR_NAME``, and the bundled ``smollm2``): the backend
(``backend``: ``HFBackend`` and its registry factory), generation (``generate``), log-likelihood
scoring as lm-eval computes it (``choices``: rows, batches, the per-batch shared prefix), and the
prefix tree that scores a whole task's rows at once: ``prefix_tree`` (the radix tree, pure
Python), ``tree_runner`` (runs it on the model), ``tree_scorer`` (a task's rows through one
tree), ``tree_attention`` (packed siblings attend to their parent and themselves only) and
``lean_llama`` (the lean pass for Llama models).

Nothing is imported here: the modules that need torch import it themselves, so
``relreason.models.hf.prefix_tree`` loads without it.
"""
