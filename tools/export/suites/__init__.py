"""Suite exporters: one module per eval platform in this folder, each defining
``EXPORTER = SuiteExporter(...)`` (its ``--format`` name, its place in the help, a help phrase, and
``write(records, out, preamble) -> [paths]``). The registry is discovered from the folder, so adding
an exporter is adding a file (docs/EXTENDING.md); ``chronoeval export --format`` and its help list
come from :func:`suite_exporters`."""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path


@dataclass(frozen=True)
class SuiteExporter:
    """One export format of the question suite. ``write`` writes its files into the existing
    directory ``out`` and returns their paths; ``preamble`` is the suite's conventions text
    (suite.json), which agents are given as a system message."""

    name: str
    order: int
    help: str
    write: Callable[[list[dict], Path, str], list[Path]]


@cache
def suite_exporters() -> dict[str, SuiteExporter]:
    """Every suite exporter, by ``--format`` name, in their ``order``."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            kind = getattr(import_module(f"{__name__}.{info.name}"), "EXPORTER", None)
            if isinstance(kind, SuiteExporter):
                found.append(kind)
    return {k.name: k for k in sorted(found, key=lambda k: (k.order, k.name))}
