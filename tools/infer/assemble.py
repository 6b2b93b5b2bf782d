"""Assemble the fitted parts into a spec (entity types, attributes, relations, states, emission,
measurements) with a provenance comment per fitted part."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from tools.common.durations import format_duration
from tools.infer.fit_dist import categorical, fit_numeric
from tools.infer.fit_measure import MeasurementFit, fit_measurement
from tools.infer.fit_noise import link_noise
from tools.infer.fit_states import StateFit, fit_states, trajectory_flags
from tools.infer.formulas import as_formula, find_sums
from tools.infer.hidden import hidden_regime
from tools.infer.naming import entity_name, group_id_formats, id_format, rename_entities
from tools.infer.overrides import LabelSource, fit_overrides
from tools.infer.profile import Profile, seconds
from tools.infer.relations import Relation
from tools.infer.timeline import fit_arrival, series_numbers
from tools.spec.distributions import ForeignKey, Listed, ParentAttribute
from tools.spec.entity import Attribute, Emission, EntityType, IdSpec, TrajectoryFlag
from tools.spec.model import Spec

COMPOSITE_MAX = 10_000  # composite keys up to this many entities are listed pair by pair


@dataclass
class TableFit:
    """Everything fitted for one table (the spec entity plus what the report and fidelity need)."""

    profile: Profile
    entity: EntityType
    states: StateFit | None
    measurements: dict[str, MeasurementFit]
    comments: dict[str, list[str]] = field(default_factory=dict)  # relative paths: "", ".attributes[0]"
    notes: list[str] = field(default_factory=list)


def _first_rows(p: Profile, sf: pd.DataFrame) -> pd.DataFrame:
    codes = p.entity_codes
    return sf[np.r_[True, codes[1:] != codes[:-1]]]


def _attributes(p: Profile, ents: pd.DataFrame, relations: list[Relation], seed: int, tf: TableFit) -> list[Attribute]:
    out: list[Attribute] = []
    rel_of = {r.columns[0]: r for r in relations if r.child == p.name}
    second = {c: (r, j) for r in relations if r.child == p.name for j, c in enumerate(r.columns) if j > 0}
    base = ".attributes"  # comment paths are relative to the entity (prefixed when the spec is assembled)
    for k in p.keys[1:]:
        if len(ents) <= COMPOSITE_MAX:  # each entity's own pair (router, interface) kept as in the sample
            tf.comments[f"{base}[{len(out)}]"] = [f"{p.name}.{k}: part of the composite key ({', '.join(p.keys)}); "
                                                  f"listed per entity as in the sample ({len(ents)} entities)"]
            out.append(Attribute(name=k, dist=Listed(kind="listed", values=list(ents[k].astype(str)))))
            continue
        counts = ents[k].astype(str).value_counts(sort=False)
        tf.comments[f"{base}[{len(out)}]"] = [f"{p.name}.{k}: part of the composite key ({', '.join(p.keys)}); "
                                              f"weights from {len(ents)} entities"]
        out.append(Attribute(name=k, dist=categorical(list(counts.index), list(counts.values))))
    for c in sorted(p.columns.values(), key=lambda c: c.name in second):  # a copied column after its key
        path = f"{base}[{len(out)}]"
        if c.name in rel_of:
            r = rel_of[c.name]
            tf.comments[path] = [f"relation {r} (coverage {r.coverage:.0%} of {len(ents)} entities)"]
            out.append(Attribute(name=c.name, dist=ForeignKey(kind="foreign_key", entity=r.parent)))
        elif c.name in second:
            r, j = second[c.name]
            tf.comments[path] = [f"part of relation {r}: copied from the parent"]
            out.append(Attribute(name=c.name, dist=ParentAttribute(kind="parent_attribute", via=r.columns[0],
                                                                 attribute=r.parent_columns[j])))
        elif c.role == "attribute" and c.kind == "numeric":
            fit = fit_numeric(ents[c.name].to_numpy(dtype=float), seed)
            tried = ", ".join(f"{k} {v:.3f}" for k, v in fit.tried.items())
            tf.comments[path] = [f"{p.name}.{c.name}: {fit.dist.kind} from {len(ents)} entities"
                                 + (f" (KS: {tried})" if tried else "")]
            out.append(Attribute(name=c.name, dist=fit.dist))
        elif c.role == "attribute" and c.kind == "categorical":
            counts = ents[c.name].dropna().astype(str).value_counts(sort=False)
            if counts.empty:
                continue
            tf.comments[path] = [f"{p.name}.{c.name}: categorical weights from {int(counts.sum())} entities"]
            out.append(Attribute(name=c.name, dist=categorical(list(counts.index), list(counts.values))))
        elif c.role == "attribute":
            c.role, c.note = "skipped", c.note or "too many distinct labels"
            tf.notes.append(f"{p.name}.{c.name}: {c.distinct} distinct labels (very high cardinality); not modelled")
    return out


def fit_table(p: Profile, relations: list[Relation], start: float, seed: int,
              dimension: pd.DataFrame | None = None, parents: dict[str, Profile] | None = None) -> TableFit:
    """Fit one table into an entity type; ``comments`` maps paths relative to the entity (``""``,
    ``.attributes[0]``, ``.states``, ...) to provenance lines. ``dimension`` (the rows of a dimension
    table of the same entities, indexed by id) offers its labels as level effects of measurements."""
    sf = p.sorted_frame
    ents = _first_rows(p, sf)
    key = p.keys[0] if p.keys else f"{p.name}_id"
    fmt, fmt_note = id_format(ents[key], entity_name(p.keys, p.name)) if p.keys else (f"{p.name.upper()}_{{i}}", None)
    tf = TableFit(p, None, None, {})  # type: ignore[arg-type]
    attrs = _attributes(p, ents, relations, seed, tf)
    by_group = None
    if fmt_note:
        labels = {a.name: ents[a.name].astype(str).to_numpy() for a in attrs
                  if a.dist.kind == "categorical" and a.name in ents and a.name not in p.keys}
        by_group = group_id_formats(ents[key].to_numpy(), labels)
    if by_group:
        tf.comments[".id"] = [f"{p.name}.{key}: one id format per {by_group[0]} ("
                              + ", ".join(f"{k}: {v}" for k, v in by_group[1].items()) + ")"]
    elif fmt_note:
        tf.notes.append(f"{p.name}.{key}: {fmt_note}")
    emission = states = arrival = None
    measurements = []
    if p.emission:
        tcol = p.table.time.column
        states = fit_states(p, sf, seed) or hidden_regime(p, sf, seed)
        tf.states = states
        if states and p.emission == "on_transition":
            attrs = _flags(p, states, ents, attrs, tf)
        if states and not states.hidden:
            attrs = _overrides(p, states, ents, attrs, relations, parents or {}, tf, seed)
        t = seconds(sf[tcol])
        periodic = p.emission == "periodic"
        cadence = format_duration(p.cadence) if periodic else None
        emission = Emission(kind=p.emission, cadence=cadence, timestamp_column=tcol,
                            jitter=format_duration(p.jitter) if periodic and p.jitter else "0s",
                            missing_rate=round(min(p.missing_rate, 0.99), 4) if p.missing_rate >= 0.001 else 0.0)
        gap = f"cadence {format_duration(p.cadence)}" if periodic else f"median gap {format_duration(p.cadence)}"
        late = f", rows up to {format_duration(p.jitter)} after each tick" if p.jitter else ""
        tf.comments[".emission"] = [
            f"{p.emission}: {gap} ({p.regularity:.0%} of gaps on the grid{late}), missing rate {p.missing_rate:.1%}"]
        if states:
            cols = [c for c in p.columns.values() if c.role in ("state",)]
            tf.comments[".states"] = [
                f"state machine from {states.transitions} transitions of {p.entities} entities "
                f"({p.name}: {', '.join(c.name for c in cols) or 'no state column'}; {len(sf)} rows)",
                *states.notes]
        series = series_numbers(p, t)
        groups = _label_groups(p, ents, dimension)
        t_codes = pd.factorize(t)[0]
        for c in [c for c in p.columns.values() if c.role == "measurement"]:
            mf = fit_measurement(c.name, c.kind, sf[c.name].to_numpy(dtype=float), t.astype(float), start,
                                 p.entity_codes, series, states.row_state if states else None,
                                 states.names if states else [], periodic, seed, groups, t_codes)
            tf.measurements[c.name] = mf
            if c.missing >= 0.001:
                tf.notes.append(f"{p.name}.{c.name}: {c.missing:.1%} of the values are missing; the spec writes every "
                                "value (only whole missing rows are modelled, as the emission's missing rate)")
            tf.comments[f".measurements[{len(measurements)}]"] = [
                f"{p.name}.{c.name} ({c.kind}): {int(np.isfinite(sf[c.name].to_numpy(dtype=float)).sum())} rows; "
                f"{mf.note}"]
            measurements.append(mf.measurement)
            if mf.offset:
                attrs.append(mf.offset)
        measurements = _sums(p, sf, measurements, attrs, tf)
        measurements = link_noise(measurements, tf.measurements, tf.notes, p.name)
        if not periodic:
            arrival = fit_arrival(t, p.entity_codes, start)
    count = max(p.series or p.entities, 1)
    if p.series > p.entities:
        tf.notes.append(f"{p.name}: {p.series} series share {p.entities} ids ({key}); the spec writes {p.series} "
                        "entities, each with its own id, so row counts and value ranges match")
    shared = list(ents[key].astype(str)) if len(p.keys) > 1 and len(ents) <= COMPOSITE_MAX else []
    ids = IdSpec(column=key, format=fmt, formats_by=by_group[0] if by_group else None,
                 formats=by_group[1] if by_group else {}, values=shared)
    if shared:
        tf.comments[".id"] = [f"{p.name}.{key}: ids listed as in the sample: {len(set(shared))} ids shared by "
                              f"{len(shared)} entities (the key is {' + '.join(p.keys)})"]
    e = EntityType(name=p.name, table=p.name, id=ids, count=count,
                   attributes=attrs, states=states.machine if states else None, emission=emission,
                   measurements=measurements, arrival=arrival)
    tf.entity = e
    rows = f"{p.table.rows} rows, {p.entities} entities"
    tf.comments[""] = [f"fitted from {p.table.path} ({rows}; key: {', '.join(p.keys) or 'none'})"]
    return tf


def _sums(p: Profile, sf: pd.DataFrame, measurements: list, attrs: list[Attribute], tf: TableFit) -> list:
    """Count columns that are the sum of two others become formulas (their own fits are dropped)."""
    counts = [c.name for c in p.columns.values() if c.role == "measurement" and c.kind in ("count", "integer")]
    sums = find_sums(sf, counts) if len(counts) >= 3 else {}
    out = []
    for j, m in enumerate(measurements):
        if m.name in sums:
            a, b, k = sums[m.name]
            m = as_formula(m, a, b, k)
            tf.comments[f".measurements[{j}]"] = [f"{p.name}.{m.name} ({p.columns[m.name].kind}): {len(sf)} rows; "
                                                 f"equals {m.formula} on every row (within 1: rounding)"]
            offset = tf.measurements[m.name].offset  # its hidden per-entity offset has nothing to shift now
            attrs[:] = [x for x in attrs if offset is None or x.name != offset.name]
        out.append(m)
    return out


def _overrides(p: Profile, states: StateFit, ents: pd.DataFrame, attrs: list[Attribute], relations: list[Relation],
               parents: dict[str, Profile], tf: TableFit, seed: int = 0) -> list[Attribute]:
    """Transition overrides keyed on the entity's labels or its parent's (copied as a hidden attribute)."""
    sources = [LabelSource(a.name, ents[a.name].astype(str).to_numpy()) for a in attrs
               if a.dist.kind == "categorical" and a.name in ents]
    names = {a.name for a in attrs} | set(p.columns)
    for r in relations:
        parent = parents.get(r.parent)
        if r.child != p.name or len(r.columns) != 1 or parent is None:
            continue
        prow = parent.sorted_frame.drop_duplicates(parent.keys).set_index(parent.keys[0])
        for c in parent.columns.values():
            if c.role == "attribute" and c.kind == "categorical" and c.name not in names:
                labels = prow[c.name].astype(str).reindex(ents[r.columns[0]].astype(str).to_numpy()).to_numpy()
                sources.append(LabelSource(c.name, labels, via=r.columns[0], attribute=c.name))
    overrides, base, base_dwell, used = fit_overrides(p, states, sources, seed)
    if not overrides:
        return attrs
    defs = {k: (v.model_copy(update={"dwell": base_dwell[k]}) if k in base_dwell else v)
            for k, v in states.machine.states.items()}
    states.machine = states.machine.model_copy(update={
        "overrides": overrides, "transitions": {**states.machine.transitions, **base}, "states": defs})
    for src in used:
        if src.via:
            tf.comments[f".attributes[{len(attrs)}]"] = [f"copied from the parent through {src.via}: "
                                                         "transition overrides depend on it"]
            attrs = [*attrs, Attribute(name=src.name, emit=False, dist=ParentAttribute(
                kind="parent_attribute", via=src.via, attribute=src.attribute))]
    tf.comments.setdefault(".states", []).append(
        "overrides (likelihood-ratio tests, chosen by effect): " + "; ".join(
            f"{o.when[0].attribute} = {o.when[0].equals}: " + ", ".join(
                [f"row {k}" for k in o.transitions] + [f"dwell {k}" for k in o.dwell]) for o in overrides))
    return attrs


def _flags(p: Profile, states: StateFit, ents: pd.DataFrame, attrs: list[Attribute], tf: TableFit) -> list[Attribute]:
    """Move 0/1 attributes that mean "ever entered state X" into the machine's ``flags``."""
    binary = [a.name for a in attrs if p.columns.get(a.name) and p.columns[a.name].kind == "numeric"
              and p.columns[a.name].distinct == 2]
    flags = trajectory_flags(states, p.entity_codes, ents, binary)
    if not flags:
        return attrs
    states.machine = states.machine.model_copy(update={"flags": {
        c: TrajectoryFlag(ever_in=[s]) for c, s in flags.items()}})
    for c, s in flags.items():
        p.columns[c].role, p.columns[c].kind = "derived", f"flag: ever in {s}"
        tf.notes.append(f"{p.name}.{c}: 1 on every row of the entities that ever enter '{s}' (a trajectory flag)")
    kept, comments = [], {}
    for j, a in enumerate(attrs):
        if a.name not in flags:
            if f".attributes[{j}]" in tf.comments:
                comments[f".attributes[{len(kept)}]"] = tf.comments[f".attributes[{j}]"]
            kept.append(a)
    tf.comments = {k: v for k, v in tf.comments.items() if not k.startswith(".attributes[")} | comments
    return kept


def _label_groups(p: Profile, ents: pd.DataFrame, dimension: pd.DataFrame | None) -> dict[str, np.ndarray]:
    """Label attributes (of the table, or of its dimension table) as one label per entity code."""
    out = {c.name: ents[c.name].astype(str).to_numpy() for c in p.columns.values()
           if (c.role == "attribute" and c.kind == "categorical") or c.role == "relation"}  # a parent sets a level
    if dimension is not None and p.keys:
        rows = dimension.reindex(ents[p.keys[0]].astype(str).to_numpy())
        for col in dimension.columns:
            labels = rows[col].dtype == object or pd.api.types.is_string_dtype(rows[col])
            if col not in out and labels and 2 <= rows[col].nunique() <= 50:
                out[col] = rows[col].astype(str).to_numpy()
    return out


def build_spec(name: str, fits: list[TableFit], start: float, horizon: float, seed: int) -> Spec:
    """The spec of the fitted tables (validated: a bad fit raises here, not at generation time)."""
    when = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    entities = rename_entities([f.entity for f in fits], {f.entity.name: f.profile.keys for f in fits})
    return Spec(name=name, description=f"Fitted by chronoeval infer from {len(fits)} table(s).", seed=seed,
                start=when, horizon=format_duration(math.ceil(horizon)), entities=entities)
