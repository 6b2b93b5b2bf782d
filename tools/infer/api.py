"""Infer a spec from sample tables and/or a DDL file: the entry point of tools.infer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tools.infer.assemble import TableFit, build_spec, fit_table
from tools.infer.errors import InferError
from tools.infer.fold import find_folds, fold_fits
from tools.infer.profile import Profile, profile_table
from tools.infer.read import load_table
from tools.infer.relations import Relation, detect_relations
from tools.infer.render import render_spec
from tools.infer.skew import add_relation_weights
from tools.infer.timeline import time_frame
from tools.spec.model import Spec


@dataclass
class InferResult:
    """The fitted spec, its commented YAML, and what the report shows."""

    spec: Spec
    yaml_text: str
    profiles: list[Profile]
    relations: list[Relation]
    fits: list[TableFit]
    notes: list[str] = field(default_factory=list)
    guesses: list[str] = field(default_factory=list)
    fidelity: list = field(default_factory=list)


def entity_comments(fits: list[TableFit]) -> dict[str, list[str]]:
    """Provenance comments keyed by spec path (each fit's relative paths under its entity)."""
    return {f"entities[{i}]{k}": v for i, f in enumerate(fits) for k, v in f.comments.items()}


def _order(profiles: list[Profile], relations: list[Relation]) -> list[Profile]:
    """Parents before children (then the order given), so the spec reads top-down."""
    deps = {p.name: {r.parent for r in relations if r.child == p.name} for p in profiles}
    done: list[str] = []
    while len(done) < len(profiles):
        ready = [p.name for p in profiles if p.name not in done and deps[p.name] <= set(done)]
        done.append(ready[0] if ready else next(p.name for p in profiles if p.name not in done))
    by = {p.name: p for p in profiles}
    return [by[n] for n in done]


def infer_from_tables(paths: list[str | Path], *, name: str = "inferred", seed: int = 0,
                      progress: Callable[[str], None] | None = None) -> InferResult:
    """Profile every table, detect relations, fit attributes, states and measurements, and build the spec.

    Raises InferError (a user error naming the file and column) for input it cannot use."""
    if not paths:
        raise InferError("infer", "no input files; give CSV or Parquet files (one per table) or --ddl schema.sql")
    tell = progress or (lambda _msg: None)
    tables, seen = [], set()
    for path in paths:
        tell(f"reading {Path(path).name}")
        t = load_table(path)
        if t.name in seen:
            raise InferError(str(path), f"two files give the table name '{t.name}'; rename one of them")
        seen.add(t.name)
        tables.append(t)
    profiles = []
    for t in tables:
        tell(f"profiling {t.name}")
        profiles.append(profile_table(t))
    for p in profiles:
        if p.emission is None and p.table.time is not None:  # one row per entity: a dimension table
            p.columns.pop(p.table.time.column, None)
            p.table.frame = p.table.frame.drop(columns=[p.table.time.column])
            p.table.time = None
    relations = detect_relations(profiles)
    profiles = _order(profiles, relations)
    start, horizon = time_frame(profiles)
    folds = find_folds(profiles)
    dims = {m.name: d.table.frame.set_index(d.table.frame[d.keys[0]].astype(str)) for m, d in folds}
    by = {p.name: p for p in profiles}
    fits = []
    for p in profiles:
        tell(f"fitting {p.name}")
        fits.append(fit_table(p, relations, start, seed, dims.get(p.name), by))
    add_relation_weights(fits, relations)
    fits, fold_notes = fold_fits(fits, folds)
    spec = build_spec(name, fits, start, horizon, seed)
    notes = [f"{p.name}: {w}" for p in profiles for w in p.warnings]
    notes += [f"{p.name}: {n}" for p in profiles for n in (p.table.time.notes if p.table.time else [])]
    notes += [n for f in fits for n in f.notes] + fold_notes
    comments = entity_comments(fits)
    header = [f"Spec fitted by `chronoeval infer` from {len(tables)} table(s): "
              + ", ".join(f"{t.name} ({t.rows} rows)" for t in tables) + ".",
              "Each fitted part carries a comment naming its source table and how many rows or entities it used.",
              *[f"relation: {r}" for r in relations]]
    return InferResult(spec, render_spec(spec, comments, header), profiles, relations, fits, notes)
