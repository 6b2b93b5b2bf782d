"""Skewed relations: when some parents own many more children than others (heavy users with many
sessions), the parent gets a hidden lognormal weight and the foreign key draws parents by it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from tools.infer.relations import Relation
from tools.spec.distributions import LogNormal

EXACT_MAX = 50  # parents up to this many keep their exact children counts (cells per link)
OVERDISPERSED = 1.5  # variance / mean of children per parent above which the relation is skewed


def _key(frame: pd.DataFrame, cols: list[str]) -> pd.Series:
    return frame[cols].astype(str).agg("\x1f".join, axis=1) if len(cols) > 1 else frame[cols[0]].astype(str)


def children_per_parent(child: pd.DataFrame, child_keys: list[str], fk: list[str], parent: pd.DataFrame,
                        parent_keys: list[str]) -> np.ndarray:
    """How many child entities point at each parent entity (parents without children count 0)."""
    kids = child.drop_duplicates(child_keys) if child_keys else child
    counts = _key(kids, fk).value_counts()
    ids = _key(parent.drop_duplicates(parent_keys), parent_keys)
    return counts.reindex(ids.to_numpy(), fill_value=0).to_numpy()


def weight_sigma(counts: np.ndarray) -> float | None:
    """Lognormal sigma of a parent weight that explains the extra variance of Poisson-like counts
    (Var = m + m^2 (e^{s^2} - 1)), or None when the counts are not overdispersed."""
    m, v = float(counts.mean()), float(counts.var())
    if m <= 0 or v <= OVERDISPERSED * m:
        return None
    return math.sqrt(math.log(1 + (v - m) / (m * m)))


def add_relation_weights(fits: list, relations: list[Relation]) -> None:
    """Patch the fitted entity types in place: a hidden weight on skewed parents, ``weight_by`` on the FK."""
    from tools.spec.entity import Attribute

    by = {f.profile.name: f for f in fits}
    for r in relations:
        child, parent = by[r.child], by[r.parent]
        pp = parent.profile
        if pp.keys and pp.entities <= EXACT_MAX:  # few parents: keep each one's number of children
            first = pp.sorted_frame[np.r_[True, pp.entity_codes[1:] != pp.entity_codes[:-1]]]
            counts = children_per_parent(child.profile.table.frame, child.profile.keys, r.columns, first, pp.keys)
            new = [a.model_copy(update={"dist": a.dist.model_copy(update={"counts": [int(c) for c in counts]})})
                   if a.name == r.columns[0] else a for a in child.entity.attributes]
            child.entity = child.entity.model_copy(update={"attributes": new})
            child.notes.append(f"{r.child}.{r.columns[0]}: children per {r.parent} entity kept as in the sample "
                               f"({len(counts)} parents, {int(counts.sum())} children, max {int(counts.max())})")
            continue
        counts = children_per_parent(child.profile.table.frame, child.profile.keys, r.columns,
                                     parent.profile.table.frame, parent.profile.keys)
        sigma = weight_sigma(counts)
        if sigma is None:
            continue
        name = f"{r.child}_weight"
        attrs = parent.entity.attributes
        weight = Attribute(name=name, emit=False, dist=LogNormal(kind="lognormal", median=1.0, sigma=round(sigma, 4)))
        parent.comments[f".attributes[{len(attrs)}]"] = [
            f"hidden weight: {r.child} rows per {r.parent} entity vary more than chance (mean {counts.mean():.2f}, "
            f"variance {counts.var():.2f}, max {counts.max()}); lognormal sigma from the extra variance"]
        parent.entity = parent.entity.model_copy(update={"attributes": [*attrs, weight]})
        new = [a.model_copy(update={"dist": a.dist.model_copy(update={"weight_by": name})}) if a.name == r.columns[0]
               else a for a in child.entity.attributes]
        child.entity = child.entity.model_copy(update={"attributes": new})
