"""The on-disk LLM response cache, keyed by model + messages + output schema: a re-run with the
cache makes no HTTP call.

Where it lives is the application's choice, not the agents': the CLI (``graph``) points it at
``$CHRONOEVAL_CACHE_DIR`` / ``$CHRONOEVAL_HOME/cache/llm`` with ``use_cache_dir``; until something
does, responses are not cached.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.models import model_id

_WHERE: dict[str, Path | Callable[[], Path] | None] = {"dir": None}


def use_cache_dir(where: Path | Callable[[], Path] | None) -> None:
    """Cache responses under ``where``: a directory, a function giving it at each call (so a changed
    environment is seen), or None for no cache."""
    _WHERE["dir"] = where


def cache_dir() -> Path | None:
    """The cache directory in use, or None (no cache)."""
    where = _WHERE["dir"]
    return where() if callable(where) else where


def _messages(messages: Sequence[Any]) -> list[dict[str, str]]:
    out = []
    for m in messages:
        if isinstance(m, tuple):
            out.append({"role": m[0], "content": str(m[1])})
        else:
            out.append({"role": getattr(m, "type", "user"), "content": str(getattr(m, "content", m))})
    return out


def cache_key(model: Any, messages: Sequence[Any], schema: type) -> str:
    """sha256 of model + messages + output schema (a pydantic model class)."""
    blob = json.dumps({"model": model_id(model), "messages": _messages(messages),
                       "schema": schema.model_json_schema()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def cache_get(key: str) -> dict | None:
    """The cached response under ``key``, or None (no cache, a miss, or an unreadable entry)."""
    root = cache_dir()
    if root is None:
        return None
    try:
        return json.loads((root / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def cache_put(key: str, value: dict) -> None:
    """Store a response (a read-only or absent cache never fails a run)."""
    from tools.bundle.atomic import atomic_write_text  # lazy: the CLI loads this module at start-up

    root = cache_dir()
    if root is None:
        return
    path = root / key[:2] / f"{key}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(value, sort_keys=True))
    except OSError:
        pass
