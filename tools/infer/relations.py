"""Relations between tables: columns whose values are another table's entity ids, including composite
ones (a cell's serving Transport_Device_ID + Transport_Interface_ID -> a transport link's key)."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

import pandas as pd

from tools.infer.profile import Profile

MIN_COVERAGE = 0.99  # share of the child's distinct values that must be parent ids


@dataclass
class Relation:
    """``child.columns`` hold ids of ``parent`` (its key ``parent_columns``, same order)."""

    child: str
    columns: list[str]
    parent: str
    parent_columns: list[str]
    coverage: float

    def __str__(self) -> str:
        c = ", ".join(self.columns)
        p = ", ".join(self.parent_columns)
        return f"{self.child}.({c}) -> {self.parent}.({p})" if len(self.columns) > 1 else f"{self.child}.{c} -> {self.parent}.{p}"


def _entity_rows(p: Profile) -> pd.DataFrame:
    """One row per entity (the first), so relation checks cost the entity count, not the row count."""
    f = p.sorted_frame
    first = pd.Series(p.entity_codes).ne(pd.Series(p.entity_codes).shift()).to_numpy()
    return f[first]


def _coverage(child: pd.Series, parent_values: set) -> float:
    vals = set(child.dropna().astype(str))
    return len(vals & parent_values) / len(vals) if vals else 0.0


def _similar(a: str, b: str) -> float:
    return SequenceMatcher(None, a.lower(), b.lower()).ratio()


def detect_relations(profiles: list[Profile]) -> list[Relation]:
    """Every child attribute (or attribute pair) whose values are ids of another table's entities."""
    rows = {p.name: _entity_rows(p) for p in profiles}
    out: list[Relation] = []
    for child in profiles:
        attrs = [c.name for c in child.columns.values() if c.role == "attribute" and c.kind != "numeric"]
        taken: set[str] = set()
        for parent in profiles:
            if parent is child or not parent.keys or parent.entities < 2:
                continue
            keyvals = [set(rows[parent.name][k].astype(str)) for k in parent.keys]
            matches = [[a for a in attrs if a not in taken and _coverage(rows[child.name][a], kv) >= MIN_COVERAGE]
                       for kv in keyvals]
            if not all(matches):
                continue
            cols = [max(m, key=lambda a, k=k: _similar(a, k)) for m, k in zip(matches, parent.keys, strict=True)]
            if len(set(cols)) < len(cols):
                continue
            if len(cols) > 1:
                pairs = set(map(tuple, rows[parent.name][parent.keys].astype(str).to_numpy()))
                child_pairs = set(map(tuple, child.table.frame[cols].dropna().astype(str).drop_duplicates().to_numpy()))
                cov = len(child_pairs & pairs) / len(child_pairs) if child_pairs else 0.0
                if cov < MIN_COVERAGE:
                    continue
            else:
                cov = _coverage(rows[child.name][cols[0]], keyvals[0])
            out.append(Relation(child.name, cols, parent.name, list(parent.keys), round(cov, 4)))
            taken.update(cols)
            for c in cols:
                child.columns[c].role = "relation"
                child.columns[c].kind = f"-> {parent.name}"
    return out
