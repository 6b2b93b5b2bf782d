"""Cascade order: each child's deviation starts at/after the root's start plus the child's lag,
and not before the root's own deviation shows."""

from __future__ import annotations

import numpy as np

from tools.checks.model import MAX_AFFECTED, Z_THRESHOLD, Check, rec_key, us_to_iso
from tools.checks.patterns import Ctx, checked_keys, direction, fit_for, make_ctx, pattern
from tools.checks.series import fetch, spread

LEVEL = {"up", "down"}


def onset(ctx: Ctx, lo: int, hi: int) -> tuple[int | None, str, str]:
    """First timestamp in [lo, hi) where the median directional z across the affected entities (max
    over keys) reaches the threshold at two consecutive timestamps (or at the last one)."""
    rec = ctx.rec
    keys = [k for k in checked_keys(rec, set(ctx.b.columns(rec["table"])))[0] if direction(rec, k) in LEVEL | {"derived"}]
    if not keys:
        return None, f"no level keys ({rec['kind']})", ""
    ents = spread(sorted(rec["entities"]), MAX_AFFECTED)
    series, sql = fetch(ctx.b, rec["table"], rec_key(rec), rec["timestamp_column"], ents, keys)
    per_key: dict[str, dict[int, list[float]]] = {k: {} for k in keys}
    for s in series.values():
        rows = (s.t >= lo) & (s.t < hi)
        for k in keys:
            fit = fit_for(ctx, s, k, ctx.excl(s.entity) + [ctx.window])
            if fit is None or fit.sigma <= 0:
                continue
            z = (fit.r[rows] - fit.center) / fit.sigma * (-1 if direction(rec, k) == "down" else 1)
            z = np.abs(z) if direction(rec, k) == "derived" else z
            for t, v in zip(s.t[rows], z, strict=True):
                if np.isfinite(v):
                    per_key[k].setdefault(int(t), []).append(float(v))
    score: dict[int, float] = {}
    for by_t in per_key.values():
        for t, vs in by_t.items():
            score[t] = max(score.get(t, -np.inf), float(np.median(vs)))
    times = sorted(score)
    for i, t in enumerate(times):
        if score[t] >= Z_THRESHOLD and (i + 1 == len(times) or score[times[i + 1]] >= Z_THRESHOLD):
            return t, f"{rec['id']} deviates from {us_to_iso(t)}", sql
    return None, f"{rec['id']} never reaches z {Z_THRESHOLD:g} between {us_to_iso(lo)} and {us_to_iso(hi)}", sql


def cascade_order(b, child: dict, root: dict) -> Check:
    c_ctx, r_ctx = make_ctx(b, child), make_ctx(b, root)
    lo = r_ctx.start - (c_ctx.end - r_ctx.start)
    c_on, c_txt, sql = onset(c_ctx, lo, c_ctx.end)
    r_on, r_txt, _ = onset(r_ctx, lo, max(r_ctx.end, c_ctx.end))
    expected = r_ctx.start + int(round(float(child.get("lag_seconds") or 0) * 1e6))
    root_level = any(direction(root, k) in LEVEL | {"derived"} for k in root["keys"])
    if r_on is None and not root_level:
        r_on, r_txt = r_ctx.start, f"{root['id']} ({root['kind']}) taken to start at its window start"
    ok = c_on is not None and c_on >= expected and r_on is not None and r_on <= c_on
    why = []
    if c_on is not None and c_on < expected:
        why.append(f"the child deviates before root start + lag ({us_to_iso(expected)})")
    if c_on is not None and r_on is not None and r_on > c_on:
        why.append("the child deviates before the root does")
    detail = f"{c_txt}; {r_txt}; expected child start {us_to_iso(expected)} (root start + lag " \
             f"{float(child.get('lag_seconds') or 0):g}s)" + ("; " + "; ".join(why) if why else "")
    return pattern(c_ctx, "cascade_order", ok, detail, sql)
