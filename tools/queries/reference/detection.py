"""pandas reference of the calibrated-detection templates.

A reading is flagged when its ``key`` is above its entity's threshold: the ``pct`` percentile of the
entity's own readings in the reference period ``params.ref`` (nearest rank: the value at sorted
position ``ceil(n × pct / 100) - 1``, DuckDB's ``quantile_disc``). Entities without reference
readings have no threshold and flag nothing.

- ``detect_entities``: the sorted entities with more than ``min_count`` flagged readings in the window;
- ``detect_count``: the number of flagged readings in the window (graded within the stated tolerance).

The naive reading pools every entity's reference readings into one threshold. Event logs
(``series: hourly_count``) flag hours instead: a group's (``by``) row count in an hour of the window
above its percentile of the reference day's hourly counts (shapes' ``hourly_counts``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, entity_rows, in_window
from tools.queries.spec import QuerySpec, Window


def nearest_rank(x: np.ndarray, pct: float) -> float:
    s = np.sort(x)
    return float(s[max(0, math.ceil(len(s) * (pct / 100)) - 1)])  # DuckDB's quantile_disc index


def _hourly_flags(frames: Frames, q: QuerySpec, pooled: bool) -> pd.DataFrame:
    """Event logs: the window's hours per group (``e``) flagged where the group's row count is above
    its threshold over the reference period's hourly counts."""
    from tools.queries.reference.shapes import hourly_counts

    ref = hourly_counts(frames, q.model_copy(update={"window": Window.model_validate(q.p("ref"))}))
    tgt = hourly_counts(frames, q)
    if pooled:
        allv = np.concatenate(list(ref.values())) if ref else np.array([])
        thr = {e: nearest_rank(allv, q.p("pct")) if allv.size else math.inf for e in tgt}
    else:
        thr = {e: nearest_rank(x, q.p("pct")) for e, x in ref.items()}
    es, fl = [], []
    for e, x in tgt.items():
        es += [e] * len(x)
        fl += list(x > thr.get(e, math.inf))
    return pd.DataFrame({"e": es, "flag": np.asarray(fl, dtype=bool)})


def _flags(frames: Frames, q: QuerySpec, pooled: bool = False) -> pd.DataFrame:
    """The window's rows (entity ``e``, value ``x``) with ``flag`` set where above the threshold."""
    if q.p("series") == "hourly_count":
        return _hourly_flags(frames, q, pooled)
    key = q.p("key")
    df = entity_rows(frames, q)
    df = df.loc[df[key].notna(), [q.entity, q.time, key]]
    ref = df[in_window(df, q.model_copy(update={"window": Window.model_validate(q.p("ref"))}))]
    tgt = df[in_window(df, q)]
    e_ref, e_tgt = ref[q.entity].astype(str), tgt[q.entity].astype(str)
    if pooled:
        thr = nearest_rank(ref[key].to_numpy(dtype=float), q.p("pct")) if len(ref) else math.inf
        t = pd.Series(thr, index=tgt.index)
    else:
        per = {e: nearest_rank(g.to_numpy(dtype=float), q.p("pct")) for e, g in ref[key].groupby(e_ref.to_numpy())}
        t = e_tgt.map(per).astype(float).fillna(math.inf)
    return pd.DataFrame({"e": e_tgt.to_numpy(), "flag": (tgt[key].to_numpy(dtype=float) > t.to_numpy())})


def detect_entities(frames: Frames, q: QuerySpec, pooled: bool = False) -> list[str]:
    f = _flags(frames, q, pooled)
    n = f[f["flag"]].groupby("e").size()
    return sorted(str(e) for e, c in n.items() if c > q.p("min_count"))


def detect_count(frames: Frames, q: QuerySpec, pooled: bool = False) -> int:
    return int(_flags(frames, q, pooled)["flag"].sum())


def detect_entities_naive(frames: Frames, q: QuerySpec) -> list[str]:
    return detect_entities(frames, q, pooled=True)


def detect_count_naive(frames: Frames, q: QuerySpec) -> int:
    return detect_count(frames, q, pooled=True)
