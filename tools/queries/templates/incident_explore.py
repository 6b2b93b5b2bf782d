"""Batched DuckDB exploration for the incident enumerators: one scan per (incident, population) gives
every per-entity aggregate the enumerators need (over the incident window, its one-step shifts, the
baseline window and its shifts, or the rest of the data), so candidate selection stays fast on
10M-row tables. Only candidate *selection* uses these figures; answers come from the two executors."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pandas as pd

from tools.queries.context import SynthContext, iso
from tools.queries.spec import EntityFilter, Window
from tools.queries.sql.common import ident, lit, pred, ts
from tools.queries.sql.incident import agg_sql
from tools.queries.templates.incident_model import Inc, Measure

SHIFTED = ("w", "w+", "w-", "b", "b+", "b-")


def _between(col: str, w: Window) -> str:
    return f"({ident(col)} >= {ts(w.start)} AND {ident(col)} < {ts(w.end)})"


def pop_cond(f: EntityFilter | None) -> str:
    """A row condition selecting a population's rows, for exploration only: predicates of a main-table
    filter apply to the rows directly (ids and static attributes are constant per entity), a
    static-table filter becomes a semi-join on the (small) static table."""
    if f is None:
        return "TRUE"
    preds = " AND ".join(pred(p) for p in f.predicates)
    if f.table is None:
        return f"({preds})"
    return f"({ident(f.key)} IN (SELECT {ident(f.ref)} FROM {ident(f.table)} WHERE {preds}))"


def windows_of(ctx: SynthContext, inc: Inc) -> dict[str, Window]:
    """The incident window ``w``, the baseline ``b`` and both shifted one cadence step either way."""
    step = timedelta(seconds=ctx.catalog[inc.table].cadence_s or 60.0)
    out = {}
    for name, w in (("w", inc.window), ("b", inc.baseline)):
        if w is None:
            continue
        out[name] = w
        for sign, suffix in ((1, "+"), (-1, "-")):
            out[name + suffix] = Window(start=iso(w.start_dt + sign * step), end=iso(w.end_dt + sign * step))
    return out


def col(agg: str, key: str, where: str) -> str:
    return f"{agg}|{key}|{where}"


def entity_table(ctx: SynthContext, inc: Inc, pop: EntityFilter | None) -> pd.DataFrame:
    """Per entity (index, as text), columns ``agg|key|window`` (agg: mean, std, max, min, sum, range) for
    every key the incident moved or left calm; windows are ``SHIFTED`` names, plus ``rest`` (outside the
    incident window) when there is no baseline window. NaN where undefined.

    One scan: rows are grouped by (entity, segment), the segments cut by every window edge, with count,
    sum, M2, max and min per key; windows are unions of segments, combined with Chan's formula."""
    if pop is not None:  # per-entity figures do not depend on the population: subset the full table
        memo = ("inc_pop", inc.t.name, pop.model_dump_json())
        if memo not in ctx.memo:
            ctx.memo[memo] = [r[0] for r in ctx.con.execute(
                f"SELECT DISTINCT CAST({ident(inc.t.entity)} AS VARCHAR) FROM {ident(inc.t.name)} "
                f"WHERE {pop_cond(pop)}").fetchall()]
        full = entity_table(ctx, inc, None)
        return full[full.index.isin(ctx.memo[memo])]
    memo = ("inc_table", inc.id)
    if memo in ctx.memo:
        return ctx.memo[memo]
    ws = windows_of(ctx, inc)
    keys = list(dict.fromkeys(m.key for m in [*inc.measures, *inc.calm] if m.key is not None))
    edges = sorted({x for w in ws.values() for x in (w.start_dt, w.end_dt)})
    tc = ident(inc.t.time)
    seg = "CASE " + " ".join(f"WHEN {tc} < {ts(iso(e))} THEN {i}" for i, e in enumerate(edges)) + \
        f" ELSE {len(edges)} END"
    parts = []
    for j, k in enumerate(keys):
        kk = ident(k)
        parts += [f"count({kk}) AS n{j}", f"sum(CAST({kk} AS DOUBLE)) AS s{j}",
                  f"coalesce(var_pop({kk}), 0) * count({kk}) AS m{j}",
                  f"max(CAST({kk} AS DOUBLE)) AS hi{j}", f"min(CAST({kk} AS DOUBLE)) AS lo{j}"]
    if not parts:
        ctx.memo[memo] = pd.DataFrame()
        return ctx.memo[memo]
    span = "TRUE" if inc.baseline is None else f"{tc} >= {ts(iso(edges[0]))} AND {tc} < {ts(iso(edges[-1]))}"
    df = ctx.con.execute(
        f"SELECT CAST({ident(inc.t.entity)} AS VARCHAR) AS e, {seg} AS seg, {', '.join(parts)} "
        f"FROM {ident(inc.t.name)} WHERE {span} GROUP BY 1, 2").df()
    segs = {name: [i + 1 for i in range(len(edges) - 1) if edges[i] >= w.start_dt and edges[i + 1] <= w.end_dt]
            for name, w in ws.items()}
    if inc.baseline is None:
        segs["rest"] = [i for i in range(len(edges) + 1) if i not in segs["w"]]
    codes, uniq = pd.factorize(df["e"])
    E, segv, cols = len(uniq), df["seg"].to_numpy(), {}
    for j, k in enumerate(keys):
        n, sm, m2, hi, lo = (df[f"{x}{j}"].to_numpy(dtype=float, na_value=np.nan) for x in ("n", "s", "m", "hi", "lo"))
        for name, ids in segs.items():
            sel = np.isin(segv, ids) & (n > 0)
            c = codes[sel]
            cnt = np.bincount(c, weights=n[sel], minlength=E)
            tot = np.bincount(c, weights=sm[sel], minlength=E)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(cnt > 0, tot / cnt, np.nan)
                dev = m2[sel] + n[sel] * (sm[sel] / n[sel] - mean[c]) ** 2
                std = np.where(cnt >= 2, np.sqrt(np.bincount(c, weights=dev, minlength=E) / (cnt - 1)), np.nan)
            mx, mn = np.full(E, -np.inf), np.full(E, np.inf)
            np.maximum.at(mx, c, hi[sel])
            np.minimum.at(mn, c, lo[sel])
            mx, mn = np.where(cnt > 0, mx, np.nan), np.where(cnt > 0, mn, np.nan)
            for agg, arr in (("mean", mean), ("sum", np.where(cnt > 0, tot, np.nan)), ("max", mx), ("min", mn),
                             ("std", std), ("range", np.where(cnt >= 2, mx - mn, np.nan))):
                cols[col(agg, k, name)] = arr
    ctx.memo[memo] = pd.DataFrame(cols, index=pd.Index([str(x) for x in uniq]))
    return ctx.memo[memo]


def ranking(table: pd.DataFrame, c: str, order: str, k: int) -> list[tuple[str, float]]:
    """Top ``k`` entities by column ``c`` (NaN left out), ties by id ascending."""
    if c not in table:
        return []
    f = pd.DataFrame({"e": table.index.astype(str), "v": table[c].to_numpy()}).dropna()
    f = f.sort_values(["v", "e"], ascending=[order == "asc", True]).head(k)
    return list(zip(f["e"], f["v"].astype(float), strict=True))


def stable(table: pd.DataFrame, agg: str, key: str, base: str, order: str, k: int, rel: float = 0.10) -> bool:
    """Whether the top-k over window ``base`` keeps its labels, and values within ``rel``, when the
    window moves one step either way: evaluate's window-robustness rule, read off the exploration
    table so unstable rankings are not even proposed (evaluate still checks every candidate)."""
    top = ranking(table, col(agg, key, base), order, k)
    if len(top) < k:
        return False
    for s in ("+", "-"):
        other = ranking(table, col(agg, key, base + s), order, k)
        if [e for e, _ in other] != [e for e, _ in top]:
            return False
        if any(abs(a - b) > rel * max(abs(a), 1e-12) for (_, a), (_, b) in zip(top, other, strict=True)):
            return False
    return True


def population_values(ctx: SynthContext, inc: Inc, items: list[tuple[EntityFilter | None, Measure, Window]]) -> list:
    """One aggregate per (population, measure, window), all in one scan."""
    exprs, spans = [], []
    for pop, m, w in items:
        q = inc.view_spec("x", params=m.params())
        ef = " AND ".join(pred(p) for p in m.event_filter) or "TRUE"
        cond = f"{pop_cond(pop)} AND {ef} AND {_between(inc.t.time, w)}"
        exprs.append(f"CAST({agg_sql(q, cond)} AS DOUBLE)")
        spans.append(_between(inc.t.time, w))
    if not exprs:
        return []
    span = " OR ".join(dict.fromkeys(spans))
    return list(ctx.con.execute(f"SELECT {', '.join(exprs)} FROM {ident(inc.t.name)} WHERE {span}").fetchone())


def _hours(w: Window) -> tuple[int, int]:
    return math.floor(w.start_dt.timestamp() / 3600), math.ceil(w.end_dt.timestamp() / 3600)


def hour_extremes(ctx: SynthContext, inc: Inc, pop: EntityFilter | None, hourly: list[tuple[dict, tuple]],
                  pairs: list[tuple[Window, Window]], ups: list[bool]) -> list[list[tuple]]:
    """For each (search window S, contrast window C) and each hourly aggregate: (extreme over the
    incident's clock hours [and entities], extreme over every other clock hour of S and C). One scan."""
    t = inc.t
    h = f"CAST(floor(epoch({ident(t.time)}) / 3600) AS BIGINT)"
    lo, hi = _hours(inc.window)
    spans = sorted({_hours(w) for pair in pairs for w in pair})
    inany = " OR ".join(_between(t.time, w) for pair in pairs for w in pair)
    vals = []
    for i, (hp, ef) in enumerate(hourly):
        cond = " AND ".join(pred(p) for p in ef) or None
        vals.append(f"{agg_sql(inc.view_spec('x', params=hp), cond)} AS v{i}")
    src = f"FROM {ident(t.name)} WHERE {pop_cond(pop)} AND ({inany})"
    if inc.per_entity:
        isinc = f"e IN ({', '.join(lit(x) for x in inc.ids)}) AND h >= {lo} AND h < {hi}"
        g = f"SELECT {ident(t.entity)} AS e, {h} AS h, {', '.join(vals)} {src} GROUP BY 1, 2"
    else:
        isinc = f"h >= {lo} AND h < {hi}"
        grid = " UNION ".join(f"SELECT unnest(range({a}, {b})) AS h" for a, b in spans)
        fills = ", ".join(
            f"coalesce(a.v{i}, {'0' if hp['agg'] in ('rows', 'nulls', 'entities') else 'NULL'}) AS v{i}"
            for i, (hp, _) in enumerate(hourly))
        g = (f"WITH a AS (SELECT {h} AS h, {', '.join(vals)} {src} GROUP BY 1), grid AS ({grid}) "
             f"SELECT grid.h, {fills} FROM grid LEFT JOIN a ON a.h = grid.h")
    sel = []
    for S, C in pairs:
        (sa, sb), (ca, cb) = _hours(S), _hours(C)
        both = f"((h >= {sa} AND h < {sb}) OR (h >= {ca} AND h < {cb}))"
        for i, up in enumerate(ups):
            ext = "max" if up else "min"
            sel += [f"{ext}(v{i}) FILTER (WHERE {isinc})", f"{ext}(v{i}) FILTER (WHERE {both} AND NOT ({isinc}))"]
    row = ctx.con.execute(f"WITH g AS ({g}) SELECT {', '.join(sel)} FROM g").fetchone()
    n = len(ups)
    return [[(row[2 * (p * n + i)], row[2 * (p * n + i) + 1]) for i in range(n)] for p in range(len(pairs))]
