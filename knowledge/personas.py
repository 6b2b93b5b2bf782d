"""The persona library (``knowledge/personas.yaml``): who asks the questions and how they write.

Knowledge owns the file; ``tools.paraphrase.personas`` parses a library from a path it is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.paraphrase.personas import Persona

PERSONAS_FILE = Path(__file__).resolve().parent / "personas.yaml"


def load_personas(path: Path | str | None = None) -> dict[str, Persona]:
    """Every persona of the library (``path``, default the built-in one), by name, in file order.
    A bad entry raises ValueError naming it."""
    from tools.paraphrase.personas import read_personas  # lazy: knowledge.builtin needs only the path

    return read_personas(Path(path) if path else PERSONAS_FILE)
