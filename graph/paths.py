"""Where chronoeval keeps its state between commands: one home, ``$CHRONOEVAL_HOME``.

The home (default ``$XDG_DATA_HOME/chronoeval``, i.e. ``~/.local/share/chronoeval``; the platform's
data directory on macOS and Windows) holds the RAG memory (``memory/``), the LLM response cache
(``cache/llm/``) and the build/chat session store (``sessions.sqlite``). Each can still be moved on
its own (``CHRONOEVAL_MEMORY_DIR``, ``CHRONOEVAL_CACHE_DIR``, ``--sessions``). Nothing else is
written outside the output directories a command is given and the system temp directory.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def chronoeval_home() -> Path:
    """``$CHRONOEVAL_HOME``, else the platform's per-user data directory + ``chronoeval``."""
    home = _env_path("CHRONOEVAL_HOME")
    if home is not None:
        return home
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = _env_path("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return base / "chronoeval"


def memory_dir() -> Path:
    """The RAG memory: ``$CHRONOEVAL_MEMORY_DIR``, else ``HOME/memory``."""
    return _env_path("CHRONOEVAL_MEMORY_DIR") or chronoeval_home() / "memory"


def llm_cache_dir() -> Path:
    """The LLM response cache: ``$CHRONOEVAL_CACHE_DIR``, else ``HOME/cache/llm``."""
    return _env_path("CHRONOEVAL_CACHE_DIR") or chronoeval_home() / "cache" / "llm"


def sessions_file() -> Path:
    """The build/chat session store (SQLite): ``HOME/sessions.sqlite`` (``--sessions`` overrides)."""
    return chronoeval_home() / "sessions.sqlite"
