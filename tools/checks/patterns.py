"""Per-incident checks: detectable, localized and (for cascade children) cascade order.

See tools/checks/__init__.py for the statistics and thresholds. Value kinds are checked per key
on a sample of the affected entities (``MAX_AFFECTED``) and of the unaffected peers (``MAX_PEERS``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tools.bundle.opened import Bundle
from tools.checks.model import (
    DETECT_FRACTION,
    FP_BOUND,
    MAX_AFFECTED,
    MAX_PEERS,
    NULL_FRACTION,
    RMS_RATIO,
    Z_THRESHOLD,
    Check,
    in_list,
    iso_to_us,
    key_sql,
    qi,
    ql,
    rec_key,
)
from tools.checks.series import (
    Fit,
    Model,
    Series,
    Window,
    control_windows,
    fetch,
    in_windows,
    spread,
    table_entities,
)
from tools.checks.tables import has_trend, seasonal_periods
from tools.patterns.registry import get_kind
from tools.spec.formula import formula_names

RESIDUAL = {"variance", "decoupled", "seasonality", "spread"}  # spread: hidden-state behaviour shifts


def direction(rec: dict, key: str) -> str:
    d = (rec.get("signature") or {}).get(key, {}).get("direction")
    kind = get_kind(rec["kind"])
    return d or (kind.direction if kind is not None and kind.direction else "up")


def allowed_fp(n: int) -> int:
    return math.floor(FP_BOUND * n + 1e-9)


def needed(n: int) -> int:
    return math.ceil(DETECT_FRACTION * n - 1e-9)


@dataclass
class Ctx:
    """What the checks of one incident share: its window, the other windows, the fitted model."""

    b: Bundle
    rec: dict
    start: int
    end: int
    model: Model
    excluded: dict[str, list[Window]] = field(default_factory=dict)

    @property
    def window(self) -> Window:
        return (self.start, self.end)

    def excl(self, entity: str) -> list[Window]:
        return self.excluded.get(entity, [])


def make_ctx(b: Bundle, rec: dict) -> Ctx:
    e = b.spec.entity(rec["entity_type"])
    model = Model(iso_to_us(b.spec.start_dt.isoformat()), seasonal_periods(b.spec, e), has_trend(b.spec, e),
                  b.spec.horizon_seconds)
    excluded: dict[str, list[Window]] = {}
    for r in b.incidents:
        if r.get("table") == rec["table"]:
            for ent in r["entities"]:
                excluded.setdefault(ent, []).append((iso_to_us(r["start"]), iso_to_us(r["end"])))
    return Ctx(b, rec, iso_to_us(rec["start"]), iso_to_us(rec["end"]), model, excluded)


def peers(ctx: Ctx) -> list[str]:
    """Unaffected entities of the table: touched by no incident whose window overlaps this one."""
    rec = ctx.rec
    busy = {ent for r in ctx.b.incidents if r.get("table") == rec["table"]
            and iso_to_us(r["start"]) < ctx.end and ctx.start < iso_to_us(r["end"]) for ent in r["entities"]}
    return spread([x for x in table_entities(ctx.b, rec["table"], rec_key(rec)) if x not in busy], MAX_PEERS)


def checked_keys(rec: dict, present: set[str]) -> tuple[list[str], list[str]]:
    """(keys to check, derived keys left out). Keys whose signature direction is ``derived`` move as
    their formula says (either way): they are checked two-sided, and only when the record has no
    injected visible key."""
    keys = [k for k in rec["keys"] if k in present]
    own = [k for k in keys if direction(rec, k) != "derived"]
    return (own, [k for k in keys if k not in own]) if own else (keys, [])


def table_columns(b: Bundle, table: str) -> set[str]:
    return set(b.columns(table))


def inputs_of(ctx: Ctx, key: str) -> list[str]:
    """Visible columns a formula key is computed from (for correlation breaks)."""
    e = ctx.b.spec.entity(ctx.rec["entity_type"])
    m = next((m for m in e.measurements if m.name == key), None)
    if m is None or not m.formula:
        return []
    visible = table_columns(ctx.b, ctx.rec["table"])
    return sorted(n for n in formula_names(m.formula) if n in visible and n != key)


def window_rows(ctx: Ctx, s: Series, w: Window, kind: str) -> np.ndarray:
    rows = (s.t >= w[0]) & (s.t < w[1])
    last = getattr(get_kind(kind), "check_last", 1)
    if last > 1 and rows.any():  # e.g. a drift is largest at the end: use the last quarter
        rows &= s.t >= w[1] - (w[1] - w[0]) // last
    return rows


def statistic(ctx: Ctx, s: Series, key: str, fit: Fit | None, rows: np.ndarray) -> tuple[float, bool]:
    """(value, deviates?) of one window of one entity in the incident's direction."""
    d = direction(ctx.rec, key)
    x = s.x[key][rows]
    if d == "null":
        frac = float(np.mean(~np.isfinite(x))) if x.size else 0.0
        return frac, x.size > 0 and frac >= NULL_FRACTION
    if d == "flat":
        v = x[np.isfinite(x)]
        return float(np.ptp(v)) if v.size else float("nan"), v.size >= 2 and float(np.ptp(v)) == 0.0
    if fit is None:
        return float("nan"), False
    if d in RESIDUAL:
        q = fit.spread(rows) if d == "spread" else fit.rms(rows)
        return q, bool(q >= RMS_RATIO)
    z = fit.z(rows)
    signed = abs(z) if d == "derived" else -z if d == "down" else z
    return z, bool(signed >= Z_THRESHOLD)


def resolution(ctx: Ctx, key: str) -> float:
    """The smallest step of a key's values: 1 for counts, 10^-decimals for rounded values, else 0."""
    e = ctx.b.spec.entity(ctx.rec["entity_type"])
    m = next((m for m in e.measurements if m.name == key), None)
    if m is None:
        return 0.0
    if m.integer or m.noise.kind == "poisson":
        return 1.0
    return 10.0 ** -m.decimals if m.decimals is not None else 0.0


def fit_for(ctx: Ctx, s: Series, key: str, exclude: list[Window]) -> Fit | None:
    if direction(ctx.rec, key) in ("null", "flat"):  # these statistics read the raw values
        return None
    ins = [s.x[k] for k in inputs_of(ctx, key)] if direction(ctx.rec, key) == "decoupled" else None
    return ctx.model.fit(s.t, s.x[key], in_windows(s.t, exclude), ins, resolution(ctx, key))


def _fmt(v: float) -> str:
    return "nan" if not np.isfinite(v) else f"{v:+.1f}" if abs(v) < 1e4 else f"{v:+.2e}"


def _need(d: str) -> str:
    return {"up": f"z >= {Z_THRESHOLD:g}", "down": f"z <= -{Z_THRESHOLD:g}", "derived": f"|z| >= {Z_THRESHOLD:g}",
            "null": f"null share >= {NULL_FRACTION:g}",
            "flat": "range = 0 in the window, > 0 outside", "spread": f"1.4826 x median |residual| >= {RMS_RATIO:g} sigma",
            }.get(d, f"residual RMS >= {RMS_RATIO:g} sigma")


def value_checks(ctx: Ctx) -> tuple[Check, Check]:
    """detectable + localized for kinds that change values of keys."""
    rec, b = ctx.rec, ctx.b
    present = table_columns(b, rec["table"])
    hidden = [k for k in rec["keys"] if k not in present]
    keys, derived = checked_keys(rec, present)
    cols = sorted(set(keys) | {k for key in keys if direction(rec, key) == "decoupled" for k in inputs_of(ctx, key)})
    affected = spread(sorted(rec["entities"]), MAX_AFFECTED)
    unaffected = peers(ctx)
    series, sql = fetch(b, rec["table"], rec_key(rec), rec["timestamp_column"], affected + unaffected, cols)
    det = [f"{k}: not a column of {rec['table']} (hidden), not checked" for k in hidden]
    det += [f"{k}: derived by formula from the injected keys, not checked" for k in derived]
    loc, det_ok, loc_ok = [], bool(keys), True
    for key in keys:
        d = direction(rec, key)
        hits, vals, n = 0, [], 0
        fp_c = n_c = fp_p = n_p = 0
        for ent in affected:
            s = series.get(ent)
            if s is None:
                n += 1
                continue
            excl = ctx.excl(ent) + [ctx.window]
            fit = fit_for(ctx, s, key, excl)
            v, hit = statistic(ctx, s, key, fit, window_rows(ctx, s, ctx.window, rec["kind"]))
            if d == "flat":
                base = s.x[key][~in_windows(s.t, excl)]
                base = base[np.isfinite(base)]
                hit = hit and base.size >= 2 and float(np.ptp(base)) > 0
            n, hits = n + 1, hits + hit
            vals.append(v)
            for w in control_windows(s.t, ctx.start, ctx.end, excl):
                rows = window_rows(ctx, s, w, rec["kind"])
                if rows.any():
                    n_c += 1
                    fp_c += statistic(ctx, s, key, fit, rows)[1]
        for ent in unaffected:
            s = series.get(ent)
            if s is None or not window_rows(ctx, s, ctx.window, rec["kind"]).any():
                continue
            fit = fit_for(ctx, s, key, ctx.excl(ent) + [ctx.window])
            n_p += 1
            fp_p += statistic(ctx, s, key, fit, window_rows(ctx, s, ctx.window, rec["kind"]))[1]
        ok = n > 0 and hits >= needed(n)
        det_ok &= ok
        label = {"up": "z", "down": "z", "derived": "z", "null": "null share", "flat": "range",
                 "spread": "robust std ratio"}.get(d, "RMS ratio")
        good = [v for v in vals if not np.isnan(v)]
        stat = f"median {label} {_fmt(float(np.median(good)))}" if good else "no data"
        det.append(f"{key} ({d}): {hits}/{n} affected entities deviate ({stat}; need {_need(d)} "
                   f"in >= {DETECT_FRACTION:.0%} of them)")
        ok_c, ok_p = fp_c <= allowed_fp(n_c), fp_p <= allowed_fp(n_p)
        loc_ok &= ok_c and ok_p
        loc.append(f"{key}: {fp_c}/{n_c} out-of-window windows of the affected entities and {fp_p}/{n_p} unaffected "
                   f"entities in the window show it (allowed <= {FP_BOUND:.0%}: {allowed_fp(n_c)} and "
                   f"{allowed_fp(n_p)})")
    base_note, base_ok = baseline_identity(ctx)
    if base_note:
        loc.append(base_note)
        loc_ok &= base_ok
    return (pattern(ctx, "detectable", det_ok, "; ".join(det), sql),
            pattern(ctx, "localized", loc_ok, "; ".join(loc), sql))


def baseline_identity(ctx: Ctx) -> tuple[str, bool]:
    """With a baseline world: the incident's keys equal the baseline outside every incident window."""
    rec, b = ctx.rec, ctx.b
    keys = [k for k in rec["keys"] if k in table_columns(b, rec["table"])]
    if not b.has("baseline." + rec["table"]) or not keys:
        return "", True
    key, ts = rec_key(rec), qi(rec["timestamp_column"])
    windows = [r for r in b.incidents if r.get("table") == rec["table"]]
    # a behaviour shift changes its targets' paths for good (a different state after the window)
    shifted = sorted({x for r in windows if getattr(get_kind(r["kind"]), "shifts_behaviour", False)
                      for x in r.get("targets") or r["entities"]})
    ents = [x for x in rec["entities"] if x not in set(shifted)]
    if not ents:
        return "", True
    outside = " AND ".join(f"NOT ({key_sql(key, 'm')} IN {in_list(r['entities'])} AND m.{ts} >= TIMESTAMPTZ {ql(r['start'])} "
                           f"AND m.{ts} < TIMESTAMPTZ {ql(r['end'])})" for r in windows) or "TRUE"
    diff = " OR ".join(f"m.{qi(k)} IS DISTINCT FROM w.{qi(k)}" for k in keys)
    on = " AND ".join(f"m.{qi(c)} = w.{qi(c)}" for c in ([key] if isinstance(key, str) else key))
    sql = (f"SELECT count(*) FROM {qi(rec['table'])} m JOIN {qi('baseline.' + rec['table'])} w "
           f"ON {on} AND m.{ts} = w.{ts} WHERE {key_sql(key, 'm')} IN {in_list(ents)} "
           f"AND ({diff}) AND {outside}")
    n = int(b.one(sql)[0])
    return f"baseline world: {n} rows of the affected entities differ outside the incident windows", n == 0


def pattern(ctx: Ctx, name: str, passed: bool, detail: str, sql: str) -> Check:
    return Check(name=name, table=ctx.rec["table"], kind="pattern", passed=bool(passed), detail=detail, sql=sql,
                 incident=ctx.rec["id"])
