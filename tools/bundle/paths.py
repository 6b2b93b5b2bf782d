"""Output paths built from names must stay inside their output directory."""

from __future__ import annotations

from pathlib import Path


class UnsafePathError(ValueError):
    """A name that would put a file outside its output directory (a user error: exit 2 in the CLI)."""


def child_path(root: Path, name: str, suffix: str = "") -> Path:
    """``root/<name><suffix>``, refusing names that are absolute, contain a separator or ``..``, or
    resolve (through symlinks) outside ``root``."""
    root = Path(root)
    if not name or "/" in name or "\\" in name or "\x00" in name or name in (".", "..") or Path(name).is_absolute():
        raise UnsafePathError(f"{name!r} cannot name a file inside {root}: use a plain name without '/', '\\\\' "
                              "or '..' (spec names must be identifiers; `chronoeval validate` checks them)")
    path = root / f"{name}{suffix}"
    resolved_root = root.resolve()
    if not path.resolve().is_relative_to(resolved_root):
        raise UnsafePathError(f"{path} resolves outside {root}; remove the symlink or choose another output directory")
    return path
