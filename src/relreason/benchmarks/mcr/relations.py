"""Count the relations stated in an MCR question (the data has no such field; paper Figure 3).

The rule, the same for every language but with each language's punctuation: the question is
split into sentences at ``.`` ``!`` ``?`` (followed by a space or the end) and ``。`` ``！``
``？`` ``．``; the **last** sentence is the question asked, the ones before it the premise. The
premise is split into clauses at ``,`` ``;`` ``:`` (followed by a space) and ``，`` ``；`` ``、``
``：``; a clause joined by "and"/"et" without a comma stays one clause. When the question is a
single sentence (as Chinese ones often are: "A比B高，C比A低，那么...？"), its last clause is the
question and the clauses before it the premise. The relation count is the number of premise
clauses with at least two letters. A question with no premise clause cannot be counted: None.

This is an approximation (a clause such as "In a plane," counts as one), documented and tested,
not a label of the benchmark.
"""

from __future__ import annotations

import functools
import re

_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？．])")
_CLAUSE = re.compile(r"[,;:](?=\s)|[，；、：]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


@functools.lru_cache(maxsize=65536)  # one question recurs in every run of its language
def count_relations(question: str) -> int | None:
    """Return the number of relations stated in ``question`` by the module's rule, or None
    when it cannot be counted (no premise before the question sentence)."""
    sentences = [s.strip() for s in _SENTENCE.split(question.strip()) if s.strip()]
    if not sentences:
        return None
    if len(sentences) == 1:
        clauses = _CLAUSE.split(sentences[0])[:-1]
    else:
        clauses = [c for s in sentences[:-1] for c in _CLAUSE.split(s)]
    count = sum(1 for c in clauses if len(_LETTER.findall(c)) >= 2)
    return count or None
