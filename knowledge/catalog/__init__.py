"""The domain catalog: measurement, entity, attribute, state-role and incident archetypes.

Each ``*.yaml`` file in this folder holds lists under any of the keys ``measurements``,
``entities``, ``attributes``, ``roles`` and ``incidents``; ``load_catalog`` merges them into one
validated ``tools.describe.catalog_model.Catalog`` (cached: the files ship with the package).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from tools.describe.catalog_model import Catalog

CATALOG_DIR = Path(__file__).parent
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: the catalog is ~8k lines
PARTS = ("measurements", "entities", "attributes", "roles", "incidents")


def catalog_files(directory: Path = CATALOG_DIR) -> list[Path]:
    """The catalog's YAML files, in name order."""
    return sorted(directory.glob("*.yaml"))


def load_catalog_from(directory: Path) -> Catalog:
    """Parse and validate every catalog file in ``directory`` (errors name the file)."""
    merged: dict[str, list] = {p: [] for p in PARTS}
    for path in catalog_files(directory):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        unknown = set(data) - set(PARTS)
        if unknown:
            raise ValueError(f"{path.name}: unknown top-level keys {sorted(unknown)}; use {', '.join(PARTS)}")
        for part in PARTS:
            merged[part] += data.get(part) or []
    return Catalog.model_validate(merged)


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The packaged catalog (parsed once per process)."""
    return load_catalog_from(CATALOG_DIR)
