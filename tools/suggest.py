"""Did-you-mean hints for names the user mistyped (packs, agents, formats, backends)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"did you mean 'iot'? "`` for the closest choice to ``word`` (case-insensitive), else ``""``."""
    options = list(choices)
    lowered = {c.lower(): c for c in options}
    close = difflib.get_close_matches(str(word).lower().strip(), list(lowered), n=1, cutoff=0.6)
    return f"did you mean {lowered[close[0]]!r}? " if close else ""
