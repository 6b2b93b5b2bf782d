"""Personas as pydantic models, and reading a persona library file (the built-in library is
knowledge's: ``knowledge.personas.load_personas``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

Style = Literal["perfect_grammar", "terse", "typos", "non_native"]


class Habits(BaseModel):
    """Writing habits the deterministic paraphraser applies."""

    model_config = ConfigDict(extra="forbid")
    abbreviations: bool = False
    relative_time: bool = False
    iso_dates: bool = False
    ampm: bool = False
    fronts_window: bool = False
    typo_rate: float = Field(default=0.0, ge=0, le=0.3)


class Persona(BaseModel):
    """Who asks and how they write: role, goals, style, dialect, habits and vocabulary."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str
    goals: list[str] = []
    domains: list[str] = []
    style: Style = "perfect_grammar"
    dialect: Literal["us", "uk", "in"] = "us"
    formality: Literal["low", "medium", "high"] = "medium"
    verbosity: Literal["low", "medium", "high"] = "medium"
    habits: Habits = Habits()
    vocabulary: dict[str, str] = {}

    def brief(self) -> str:
        """One paragraph describing the persona (for prompts and reports)."""
        h = [k.replace("_", " ") for k, v in self.habits.model_dump().items() if v is True]
        return (f"{self.name}: {self.description} Goals: {', '.join(self.goals) or '-'}. Style: "
                f"{self.style.replace('_', ' ')}, {self.dialect.upper()} English, {self.formality} formality, "
                f"{self.verbosity} verbosity. Habits: {', '.join(h) or 'none'}. Vocabulary: "
                + (", ".join(f"{k} -> {v}" for k, v in self.vocabulary.items()) or "-") + ".")


def read_personas(path: Path | str) -> dict[str, Persona]:
    """Every persona of the library file ``path``, by name, in file order. A bad entry raises
    ValueError naming it."""
    path = Path(path)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    items = data.get("personas", []) if isinstance(data, dict) else data
    out: dict[str, Persona] = {}
    for i, item in enumerate(items):
        try:
            p = Persona.model_validate(item)
        except ValueError as exc:
            raise ValueError(f"{path}: personas[{i}] is invalid: {exc}") from None
        out[p.name] = p
    return out


def personas_for(domain: str | None, personas: dict[str, Persona]) -> list[Persona]:
    """The personas typical of a domain (those listing it, then the domain-agnostic ones)."""
    own = [p for p in personas.values() if domain and domain in p.domains]
    anyone = [p for p in personas.values() if not p.domains]
    return own + anyone + [p for p in personas.values() if p not in own and p not in anyone]
