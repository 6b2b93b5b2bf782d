"""The built-in incident pattern kinds, one module each. A new kind is one new module here that
declares ``KIND = PatternKind(...)``: it is found by ``register_builtin`` (no list to edit)."""

from __future__ import annotations

import pkgutil
from importlib import import_module


def register_builtin() -> None:
    """Import and register every module of this package (modules starting with ``_`` are skipped)."""
    from tools.patterns.registry import register

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            register(import_module(f"{__name__}.{info.name}"))
