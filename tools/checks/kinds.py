"""Checks for the kinds that change rows rather than values: data_outage (missing rows),
behavior_shift (state/transition frequencies) and flash_crowd on arriving entities (arrival counts)."""

from __future__ import annotations

import numpy as np

from tools.checks.model import (
    ARRIVAL_Z,
    BEHAVIOR_P,
    BEHAVIOR_TV,
    DETECT_FRACTION,
    DWELL_LOG_RATIO,
    FP_BOUND,
    MAX_AFFECTED,
    Check,
    in_list,
    iso_to_us,
    key_sql,
    qi,
    rec_key,
)
from tools.checks.patterns import Ctx, allowed_fp, needed, pattern, peers, table_columns, value_checks
from tools.checks.series import control_windows, fetch, robust_scale, spread
from tools.checks.tables import NULL_LABEL, label, label_maps
from tools.common.durations import parse_duration
from tools.patterns.registry import get_kind


def missing_checks(ctx: Ctx) -> tuple[Check, Check]:
    """data_outage: the affected entities have no rows in the window (but rows outside it); other
    windows of theirs and unaffected entities in the window are not empty (periodic tables)."""
    rec, b = ctx.rec, ctx.b
    e = b.spec.entity(rec["entity_type"])
    periodic = e.emission is not None and e.emission.kind == "periodic"
    step = int(parse_duration(e.emission.cadence) * 1e6) if periodic else 0
    affected = spread(sorted(rec["entities"]), MAX_AFFECTED)
    others = peers(ctx) if periodic else []
    series, sql = fetch(b, rec["table"], rec_key(rec), rec["timestamp_column"], affected + others, [])
    hits = fp_c = n_c = fp_p = n_p = 0
    for ent in affected:
        s = series.get(ent)
        if s is None:
            continue
        inside = int(((s.t >= ctx.start) & (s.t < ctx.end)).sum())
        hits += inside == 0 and s.t.size > 0
        if periodic:
            for w in control_windows(s.t, ctx.start, ctx.end, ctx.excl(ent) + [ctx.window]):
                if w[0] >= s.t.min() and w[1] <= s.t.max() + step:
                    n_c += 1
                    fp_c += not ((s.t >= w[0]) & (s.t < w[1])).any()
    for ent in others:
        s = series.get(ent)
        if s is not None and s.t.min() < ctx.start and s.t.max() >= ctx.end - step:
            n_p += 1
            fp_p += not ((s.t >= ctx.start) & (s.t < ctx.end)).any()
    removed = rec.get("rows_removed")
    ok = hits >= needed(len(affected)) and removed != 0
    det = (f"{hits}/{len(affected)} affected entities have no rows in the window and rows outside it "
           f"(need >= {DETECT_FRACTION:.0%}); rows removed by the outage: {removed}")
    if periodic:
        loc_ok = fp_c <= allowed_fp(n_c) and fp_p <= allowed_fp(n_p)
        loc = (f"{fp_c}/{n_c} other windows of the affected entities and {fp_p}/{n_p} unaffected entities are "
               f"empty (allowed <= {FP_BOUND:.0%}: {allowed_fp(n_c)} and {allowed_fp(n_p)})")
    else:
        loc_ok, loc = True, "event table: windows without events are normal, so only detectability is checked"
    return pattern(ctx, "detectable", ok, det, sql), pattern(ctx, "localized", loc_ok, loc, sql)


def _acts_on_rows(kind: str) -> bool:
    """Whether a kind changes which rows exist or their states (behaviour shifts, outages)."""
    k = get_kind(kind)
    return k is not None and (k.shifts_behaviour or k.removes_rows)


def _differs(a: dict[str, int], z: dict[str, int]) -> tuple[bool, float, float]:
    """(significant?, total-variation distance, chi-square p) of two label count tables."""
    from scipy.stats import chi2_contingency

    labels = sorted(set(a) | set(z))
    m = np.array([[a.get(k, 0) for k in labels], [z.get(k, 0) for k in labels]], float)
    m = m[:, m.sum(0) > 0]
    if m.shape[1] < 2 or (m.sum(1) == 0).any():
        return False, 0.0, 1.0
    tv = 0.5 * float(np.abs(m[0] / m[0].sum() - m[1] / m[1].sum()).sum())
    p = float(chi2_contingency(m)[1])
    return (p < BEHAVIOR_P and tv >= BEHAVIOR_TV), tv, p


def _dwell_differs(a: tuple[float, float, float], z: tuple[float, float, float]) -> tuple[bool, float, float]:
    """(significant?, ratio of geometric-mean dwell times, Welch p) from (n, sum log, sum log^2)."""
    from scipy.stats import norm

    (n1, s1, q1), (n2, s2, q2) = a, z
    if n1 < 3 or n2 < 3:
        return False, 1.0, 1.0
    m1, m2 = s1 / n1, s2 / n2
    v1, v2 = max(q1 / n1 - m1**2, 0) * n1 / (n1 - 1), max(q2 / n2 - m2**2, 0) * n2 / (n2 - 1)
    se = np.sqrt(v1 / n1 + v2 / n2)
    p = float(2 * norm.sf(abs(m1 - m2) / se)) if se > 0 else (0.0 if m1 != m2 else 1.0)
    return (p < BEHAVIOR_P and abs(m1 - m2) >= DWELL_LOG_RATIO), float(np.exp(m1 - m2)), p


def behavior_checks(ctx: Ctx) -> tuple[Check, Check]:
    """behavior_shift: among the affected entities' rows that leave a shifted state (the states named
    in the shift's transitions/dwell), the next-state frequencies (chi-square + total variation) or
    the time spent in the state (log dwell, event tables) differ inside the window vs outside it;
    other windows of theirs and the unaffected entities show no such difference."""
    rec, b = ctx.rec, ctx.b
    e = b.spec.entity(rec["entity_type"])
    maps = {c: m for c, m in label_maps(e).items() if c in table_columns(b, rec["table"])}
    if not maps:
        return _hidden_behavior(ctx)
    col, mapping = next(iter(maps.items()))
    params = rec.get("params") or {}
    shifted = set(params.get("transitions") or {}) | set(params.get("dwell") or {}) or set(mapping)
    sources = sorted({label(mapping, st) for st in shifted})
    idc, ts, length = key_sql(rec_key(rec)), qi(rec["timestamp_column"]), ctx.end - ctx.start
    lab = f"coalesce({qi(col)}, '{NULL_LABEL}')"
    mine = set(rec.get("targets") or rec["entities"])  # the whole targeted population: its rows outside
    # the window are the baseline (for arriving entities, the sessions active in the window are few)
    others = sorted({x for r in b.incidents if r.get("table") == rec["table"] and r["id"] != rec["id"]
                     and _acts_on_rows(r["kind"]) for x in r.get("targets") or r["entities"]} - mine)
    group = f"CASE WHEN {idc} IN {in_list(sorted(mine))} THEN 1 WHEN {idc} IN {in_list(others)} THEN 2 ELSE 0 END"
    sql = (f"WITH s AS (SELECT {group} AS affected, epoch_us({ts}) AS t, {lab} AS cur, "
           f"lag({lab}) OVER w AS prev, lag(epoch_us({ts})) OVER w AS prev_t FROM {qi(rec['table'])} "
           f"WINDOW w AS (PARTITION BY {idc} ORDER BY {ts}, rowid)) "
           f"SELECT affected, CAST(floor((prev_t - {ctx.start}) / {length}) AS BIGINT) AS k, cur, count(*) AS n, "
           f"sum(ln(greatest(t - prev_t, 1))) AS s1, sum(ln(greatest(t - prev_t, 1)) ^ 2) AS s2 "
           f"FROM s WHERE prev IN {in_list(sources)} GROUP BY ALL")
    counts: dict[tuple[bool, int], dict[str, int]] = {}
    dwell: dict[tuple[bool, int], np.ndarray] = {}
    for aff, k, cur, n, s1, s2 in b.sql(sql):
        if aff == 2:  # entities of other behaviour shifts / outages: neither affected nor clean peers
            continue
        counts.setdefault((bool(aff), int(k)), {})[cur] = int(n)
        dwell[(bool(aff), int(k))] = dwell.get((bool(aff), int(k)), np.zeros(3)) + [n, s1, s2]
    events = e.emission is not None and e.emission.kind == "on_transition"
    busy = {k for _, k in counts for r in b.incidents if r.get("table") == rec["table"]
            and mine & set(r.get("targets") or r["entities"])
            and iso_to_us(r["start"]) < ctx.start + (k + 1) * length and ctx.start + k * length < iso_to_us(r["end"])}

    def test(affected: bool, inside, outside) -> tuple[bool, str]:
        ca: dict[str, int] = {}
        cz: dict[str, int] = {}
        da, dz = np.zeros(3), np.zeros(3)
        for (a, k), c in counts.items():
            if a != affected or not (inside(k) or outside(k)):
                continue
            tgt, d = (ca, da) if inside(k) else (cz, dz)
            for x, n in c.items():
                tgt[x] = tgt.get(x, 0) + n
            d += dwell[(a, k)]
        hit, tv, p = _differs(ca, cz)
        dhit, ratio, dp = _dwell_differs(tuple(da), tuple(dz)) if events else (False, 1.0, 1.0)
        return hit or dhit, (f"next-state TV {tv:.2f} (p {p:.1e})" + (f", dwell x{ratio:.2f} (p {dp:.1e})"
                                                                      if events else ""))

    hit, txt = test(True, lambda k: k == 0, lambda k: k not in busy)
    need = f"p < {BEHAVIOR_P:g} and TV >= {BEHAVIOR_TV:g}" + (f" or dwell ratio >= {np.exp(DWELL_LOG_RATIO):.1f}"
                                                               if events else "")
    det = f"{col} after {', '.join(sources)}, affected entities in the window vs outside: {txt} (need {need})"
    ks = sorted(k for a, k in counts if a and k not in busy)
    fp = sum(test(True, lambda j, k=k: j == k, lambda j, k=k: j != k and j not in busy)[0] for k in ks)
    has_peers = any(not a for a, _ in counts)
    peer_hit, ptxt = test(False, lambda k: k == 0, lambda k: k != 0) if has_peers else (False, "no unaffected rows")
    loc_ok = fp <= allowed_fp(len(ks)) and not peer_hit
    loc = (f"{fp}/{len(ks)} other windows of the affected entities differ (allowed <= {FP_BOUND:.0%}: "
           f"{allowed_fp(len(ks))}); unaffected entities, window vs outside: {ptxt}")
    return pattern(ctx, "detectable", hit, det, sql), pattern(ctx, "localized", loc_ok, loc, sql)


def _hidden_behavior(ctx: Ctx) -> tuple[Check, Check]:
    """Hidden states: the shift shows through measurements with state effects (residual RMS)."""
    e = ctx.b.spec.entity(ctx.rec["entity_type"])
    keys = [m.name for m in e.measurements if m.states and not m.hidden]
    tried = []
    for key in keys:
        rec = dict(ctx.rec, keys=[key], signature={key: {"direction": "spread"}})
        det, loc = value_checks(Ctx(ctx.b, rec, ctx.start, ctx.end, ctx.model, ctx.excluded))
        if det.passed:
            return det.model_copy(update={"detail": "hidden states, seen through " + det.detail}), loc
        tried.append(det.detail)
    why = "; ".join(tried) or "the states are hidden and no measurement depends on them"
    none = Check(name="detectable", table=ctx.rec["table"], kind="pattern", passed=False,
                 detail=f"no visible state column; {why}", sql="", incident=ctx.rec["id"])
    return none, none.model_copy(update={"name": "localized", "detail": "not checked: the shift is not detectable"})


def arrival_checks(ctx: Ctx) -> tuple[Check, Check]:
    """flash_crowd on arriving entities: more entities start in the window than in the same clock
    window on other days (z of the count vs their median, Poisson floor on the scale)."""
    rec, b = ctx.rec, ctx.b
    idc, ts = key_sql(rec_key(rec)), qi(rec["timestamp_column"])
    sql = f"SELECT {idc} AS entity, min(epoch_us({ts})) AS first_us FROM {qi(rec['table'])} GROUP BY {idc}"
    d = b.numpy(sql)
    first = np.asarray(d["first_us"], np.int64)
    ids = np.asarray(d["entity"], dtype=object)
    day, length = 86_400_000_000, ctx.end - ctx.start
    other = [(iso_to_us(r["start"]), iso_to_us(r["end"])) for r in b.incidents
             if r.get("table") == rec["table"] and r["id"] != rec["id"]]
    span = (int(first.min()), int(first.max()) + 1) if first.size else (ctx.start, ctx.end)
    ctrl = [(ctx.start + k * day, ctx.end + k * day) for k in range(-60, 61) if k
            and span[0] <= ctx.start + k * day and ctx.end + k * day <= span[1]] if length <= day else []
    if len(ctrl) < 3:
        ctrl = control_windows(np.array(span), ctx.start, ctx.end, [])
    ctrl = [w for w in ctrl if not any(w[0] < oe and os_ < w[1] for os_, oe in other + [ctx.window])]
    n = [int(((first >= s) & (first < e)).sum()) for s, e in ctrl]

    def z(count: int, ref: list[int]) -> float:
        if not ref:
            return float("nan")
        med = float(np.median(ref))
        return (count - med) / max(np.sqrt(med), robust_scale(np.array(ref, float)), 1.0)

    n_w = int(((first >= ctx.start) & (first < ctx.end)).sum())
    zw = z(n_w, n)
    crowd = set(rec["entities"])
    in_win = sum(1 for i, f in zip(ids, first, strict=True) if i in crowd and ctx.start <= f < ctx.end)
    ok = bool(np.isfinite(zw) and zw >= ARRIVAL_Z and in_win >= needed(len(crowd)))
    det = (f"{n_w} entities start in the window vs median {np.median(n) if n else float('nan'):.0f} in {len(n)} "
           f"control windows (z {zw:+.1f}, need >= {ARRIVAL_Z:g}); {in_win}/{len(crowd)} surge entities start "
           "inside the window")
    fp = sum(bool(z(c, n[:i] + n[i + 1:]) >= ARRIVAL_Z) for i, c in enumerate(n))
    loc = f"{fp}/{len(n)} control windows show a surge (allowed <= {FP_BOUND:.0%}: {allowed_fp(len(n))})"
    return pattern(ctx, "detectable", ok, det, sql), pattern(ctx, "localized", fp <= allowed_fp(len(n)), loc, sql)
