"""OpenAI and any OpenAI-compatible server (``openai:MODEL``): the backend (``backend``:
``OpenAIBackend`` and its registry factory), choice scoring by echo or first-token
log-probabilities (``choices``) and reading the server's results (``results``).

Nothing is imported here: the ``openai`` library is imported by ``backend`` when it is built
(the ``[openai]`` extra).
"""
