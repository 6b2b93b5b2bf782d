"""The built-in domain packs (``knowledge/packs/*.yaml``): where they are, their names, loading one.

Knowledge owns these files; the core (``tools.spec``) only parses a spec from a path or text, so
anything that takes "a spec path or a pack name" resolves it here and hands the core a path.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tools.spec.errors import SpecError

if TYPE_CHECKING:
    from tools.spec.model import Spec

PACKS_DIR = Path(__file__).resolve().parent / "packs"


def pack_dir() -> Path:
    """The folder of the built-in packs."""
    return PACKS_DIR


def list_packs() -> list[str]:
    """Names of the built-in domain packs."""
    return sorted(p.stem for p in pack_dir().glob("*.yaml"))


def pack_path(name: str) -> Path:
    """The YAML file of pack ``name`` (it may not exist; see :func:`unknown_pack`)."""
    return pack_dir() / f"{name}.yaml"


def unknown_pack(name: str, empty: str = "") -> SpecError:
    """The error for a pack name that is not installed: a did-you-mean and the available packs
    (``empty`` is said instead of the list when there are none)."""
    from tools.suggest import did_you_mean

    names = list_packs()
    return SpecError(name, [("", f"no such pack; {did_you_mean(name, names)}available packs: "
                                 f"{', '.join(names) or empty}")])


def load_pack(name: str) -> Spec:
    """Load a built-in pack by name (``telecom``); SpecError if there is no such pack."""
    p = pack_path(name)
    if not p.is_file():
        raise unknown_pack(name)
    from tools.spec.io import load_spec  # the spec model is slow to import; `memory list` needs none

    return load_spec(p)


def resolve_spec(spec_or_pack: str) -> Spec:
    """A path to a YAML spec, or the name of a built-in pack."""
    p = Path(spec_or_pack)
    if p.suffix.lower() in (".yaml", ".yml", ".json") or p.exists():
        from tools.spec.io import load_spec

        return load_spec(p)
    return load_pack(spec_or_pack)
