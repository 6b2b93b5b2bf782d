"""The regenerated side of the shape checks of a small periodic table: the model's own lag-1, tails,
correlations and entity spread, not one draw of it. A sample of six links with one incident is
compared with data in which the number of incidents is itself random (Poisson, about one): a single
regeneration has none about a third of the time, and its lag-1 then differs from the model's by 0.3 or
more. The table is regenerated with several seeds (only its entity type and the parents its foreign
keys need) and the copies are stacked as distinct entities, so the regenerated side of each check is
close to its expectation under the fitted spec while the sample side and every threshold stay as they
are."""

from __future__ import annotations

import pandas as pd

from tools.spec.model import Spec

MAX_COPIES = 200     # regenerations stacked: a six-link table's lag-1 then within about 0.013 of the model's
REPLICATE_ROWS = 250_000


def _needed(spec: Spec, name: str) -> list[str]:
    """The entity type ``name`` and, recursively, the parents its foreign keys point at."""
    by = {e.name: e for e in spec.entities}
    out, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in out or n not in by:
            continue
        out.append(n)
        todo += [a.dist.entity for a in by[n].attributes if a.dist.kind == "foreign_key"]
    return [e.name for e in spec.entities if e.name in out]


def stacked_regeneration(spec: Spec, table: str, rows: int, seed: int) -> pd.DataFrame | None:
    """``table`` regenerated ``k`` times (seeds ``seed + 1 ...``; ``k`` up to MAX_COPIES, at most about
    REPLICATE_ROWS rows in all) with each copy's ids suffixed ``#copy``; None when fewer than two copies
    fit (a large table's single regeneration is its own large sample)."""
    from tools.infer.fidelity import entity_for_table, regenerate

    copies = min(MAX_COPIES, REPLICATE_ROWS // max(rows, 1))
    if copies < 2:
        return None
    e = entity_for_table(spec, table)
    keep = set(_needed(spec, e.name))
    try:
        sub = spec.model_copy(update={"entities": [x for x in spec.entities if x.name in keep]})
        frames = []
        for k in range(copies):
            g = regenerate(sub, seed + 1 + k)[table].copy()
            g[e.id.column] = g[e.id.column].astype(str) + f"#{k}"
            frames.append(g)
    except (ValueError, KeyError):  # a spec whose parts do not regenerate alone: one draw only
        return None
    return pd.concat(frames, ignore_index=True)
