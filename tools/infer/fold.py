"""One entity type for a dimension table and the metric/event table of the same entities (``sensors``
+ ``readings`` keyed by ``sensor_id``): the dimension becomes the entity's ``static_table``, its
attributes ``emit: static``, as the generator writes such pairs."""

from __future__ import annotations

from difflib import SequenceMatcher

from tools.infer.assemble import TableFit
from tools.infer.profile import Profile
from tools.infer.relations import MIN_COVERAGE
from tools.spec.distributions import ForeignKey

SAME_NAME = 0.8  # key column names must be this similar (``sensor_id`` / ``Sensor_ID``)


def find_folds(profiles: list[Profile]) -> list[tuple[Profile, Profile]]:
    """(metric/event table, dimension table) pairs whose single keys name the same entities."""
    out, used = [], set()
    for p in profiles:
        if not p.emission or len(p.keys) != 1:
            continue
        ids = set(p.table.frame[p.keys[0]].dropna().astype(str).unique())
        for d in profiles:
            if d is p or d.emission or len(d.keys) != 1 or d.name in used:
                continue
            if SequenceMatcher(None, p.keys[0].lower(), d.keys[0].lower()).ratio() < SAME_NAME:
                continue
            dim_ids = set(d.table.frame[d.keys[0]].dropna().astype(str))
            if ids and len(ids & dim_ids) / len(ids) >= MIN_COVERAGE:
                out.append((p, d))
                used.add(d.name)
                break
    return out


def _shift(comments: dict[str, list[str]], offset: int) -> dict[str, list[str]]:
    out = {}
    for k, v in comments.items():
        if k.startswith(".attributes["):
            i = int(k[len(".attributes["):k.index("]")])
            k = f".attributes[{i + offset}]{k[k.index(']') + 1:]}"
        out[k] = v
    return out


def fold_fits(fits: list[TableFit], folds: list[tuple[Profile, Profile]]) -> tuple[list[TableFit], list[str]]:
    """Merge each (metric, dimension) pair of fits into one at the dimension's place; notes for the report."""
    by = {f.profile.name: f for f in fits}
    renamed: dict[str, str] = {}
    notes = []
    for metric, dim in folds:
        mf, df = by[metric.name], by[dim.name]
        in_rows = {a.name for a in mf.entity.attributes}
        kept = [(j, a.model_copy(update={"emit": "static"})) for j, a in enumerate(df.entity.attributes)
                if a.name not in in_rows]
        comments = {k: v for k, v in df.comments.items() if not k.startswith(".attributes[")}
        for new, (old, _) in enumerate(kept):
            if f".attributes[{old}]" in df.comments:
                comments[f".attributes[{new}]"] = df.comments[f".attributes[{old}]"]
        for k, v in _shift(mf.comments, len(kept)).items():
            comments[k] = comments.get(k, []) + v if k == "" else v
        entity = mf.entity.model_copy(update={
            "name": df.entity.name, "static_table": df.entity.table_name, "id": df.entity.id,
            "count": df.entity.count, "attributes": [a for _, a in kept] + list(mf.entity.attributes)})
        merged = TableFit(mf.profile, entity, mf.states, mf.measurements, comments, mf.notes + df.notes)
        fits = [merged if f is df else f for f in fits if f is not mf]
        renamed[mf.entity.name] = df.entity.name
        notes.append(f"{metric.name} holds the rows of the {dim.name} entities (same key {metric.keys[0]}): one entity "
                     f"type, {dim.name} as its static table")
        if metric.entities != dim.entities:
            notes.append(f"{metric.name} has rows for {metric.entities} of the {dim.entities} {dim.name} entities; "
                         "the spec gives every entity rows")
    if renamed:
        fits = [_repoint(f, renamed) for f in fits]
    return fits, notes


def _repoint(fit: TableFit, renamed: dict[str, str]) -> TableFit:
    attrs = [a.model_copy(update={"dist": a.dist.model_copy(update={"entity": renamed[a.dist.entity]})})
             if isinstance(a.dist, ForeignKey) and a.dist.entity in renamed else a for a in fit.entity.attributes]
    fit.entity = fit.entity.model_copy(update={"attributes": attrs})
    return fit
