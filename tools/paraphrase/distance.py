"""Normalized token edit distance: how different two wordings of a question are."""

from __future__ import annotations

import re

import numpy as np

_TOKEN_RE = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*|[<>≤≥%$#&]")


def tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens (punctuation dropped, ``2.5`` and ``v2.4.1`` kept whole)."""
    return _TOKEN_RE.findall(text.lower())


def token_edit_distance(a: str, b: str) -> float:
    """Levenshtein distance between the token sequences of ``a`` and ``b`` (insert, delete and
    substitute one token each cost 1) divided by the longer sequence's length: 0 for the same
    tokens, 1 for nothing in common."""
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 0.0
    if len(ta) < len(tb):
        ta, tb = tb, ta
    if not tb:
        return 1.0
    ids: dict[str, int] = {}
    xa = [ids.setdefault(t, len(ids)) for t in ta]
    xb = np.array([ids.setdefault(t, len(ids)) for t in tb])
    js = np.arange(len(xb) + 1)
    prev = js.copy()
    for i, x in enumerate(xa, 1):
        # deletions and substitutions first; insertions along the row are a running minimum:
        # cur[j] = min_k (base[k] + j - k) = j + cummin(base - k)
        base = np.empty_like(prev)
        base[0] = i
        base[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (xb != x))
        prev = np.minimum.accumulate(base - js) + js
    return float(prev[-1]) / len(ta)
