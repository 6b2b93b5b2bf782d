"""Forecast questions, checked on the held-back horizon: "what will the mean load of cell 7 be
tomorrow?" (``forecast_mean``), "how many checkouts will there be tomorrow?" (``forecast_count``).

Only bundles with a held-back horizon (tools/queries/holdout.py) have them. "Tomorrow" is the first
day after the visible data ([cut, cut + 1 day)). Each question states its tolerance, chosen from a
ladder (2, 5, 10, 20, 30%) as the smallest one within which a Holt-Winters model of the visible data
lands (with a margin) while the seasonal-naive forecast (the last visible day again) does not: a
question that a copy of yesterday answers is not asked.
"""

from __future__ import annotations

from datetime import timedelta

import pandas as pd

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext, iso
from tools.queries.reference import forecast as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import humanize, key_words, plural, row_noun, when_words, window_words
from tools.queries.spec import Predicate, Window
from tools.queries.sql import forecast as sql
from tools.queries.sql.common import ident, lit, pred, ts
from tools.queries.templates.common import base_spec
from tools.queries.templates.field_common import day_words, is_day

LADDER = (0.02, 0.05, 0.10, 0.20, 0.30)
MODEL_MARGIN, NAIVE_MARGIN = 0.9, 1.1  # model error at most 0.9 τ, naive error at least 1.1 τ


def _targets(ctx: SynthContext) -> list[Window]:
    """The first held-back day and its four 6-hour blocks (whole hours after the cut)."""
    h = ctx.holdout
    if not h:
        return []
    cut = pd.Timestamp(h["cut"]).to_pydatetime()
    end = min(pd.Timestamp(h["end"]).to_pydatetime(), cut + timedelta(days=1))
    out = [Window(start=iso(cut), end=iso(end))]
    for b in range(4):
        s, e = cut + timedelta(hours=6 * b), cut + timedelta(hours=6 * b + 6)
        if e <= end:
            out.append(Window(start=iso(s), end=iso(e)))
    return out


def _hours(w: Window, cut: str) -> tuple[int, int]:
    c = pd.Timestamp(cut).to_pydatetime()
    return (int((w.start_dt - c).total_seconds() // 3600), int((w.end_dt - c).total_seconds() // 3600))


def _tolerance(truth, naive, model) -> float | None:
    if truth is None or naive is None or model is None or not truth:
        return None
    for tau in LADDER:
        if abs(model - truth) <= MODEL_MARGIN * tau * abs(truth) and abs(naive - truth) >= NAIVE_MARGIN * tau * abs(truth):
            return tau
    return None


def _hourly(ctx: SynthContext, t: TableView, value: str, where: str, end: str, count: bool):
    """Hourly values of the visible data up to ``end`` (exploration for calibration only)."""
    rows = ctx.con.execute(
        f"SELECT date_trunc('hour', {ident(t.time)}) AS h, {value} FROM {ident(t.name)} WHERE {where} AND "
        f"{ident(t.time)} < {ts(end)} GROUP BY 1 ORDER BY 1").fetchall()
    if not rows:
        return None
    s = pd.Series([float(r[1]) for r in rows], index=pd.DatetimeIndex([r[0] for r in rows]))
    s = s.reindex(pd.date_range(s.index.min(), pd.Timestamp(end) - pd.Timedelta(hours=1), freq="h"))
    return (s.fillna(0) if count else s.interpolate(limit_direction="both")).to_numpy(dtype=float)


def _scalar(ctx: SynthContext, sql_text: str):
    row = ctx.con.execute(sql_text).fetchone()
    return None if row is None else row[0]


def _mean_candidates(ctx: SynthContext):
    ws = _targets(ctx)
    if not ws:
        return
    cut = ctx.holdout["cut"]
    for t in ctx.catalog.tables.values():
        if not t.periodic or not t.keys:
            continue
        ids = [r[0] for r in ctx.con.execute(f"SELECT DISTINCT CAST({ident(t.entity)} AS VARCHAR) FROM "
                                             f"{ident(t.name)} ORDER BY 1").fetchall()]
        for e in ctx.pick(ids, 12):
            for k in ctx.pick(list(t.keys), 3):
                me = f"CAST({ident(t.entity)} AS VARCHAR) = {lit(e)} AND {ident(k.name)} IS NOT NULL"
                series = _hourly(ctx, t, f"avg({ident(k.name)})", me, cut, False)
                for w in ws:
                    model = None if series is None else ref.model_forecast(series, _hours(w, cut), False)
                    q = base_spec("forecast_mean", t, window=w, params={"key": k.name, "id": e})
                    truth = _scalar(ctx, sql.forecast_mean(q))
                    naive = _scalar(ctx, f"SELECT avg({ident(k.name)}) FROM {ident(t.name)} WHERE {me} AND "
                                         f"{_prev(t, w)}")
                    tau = _tolerance(truth, naive, model)
                    if tau is not None:
                        yield _cand(t, q, tau, naive, model, cut)
                        break


def _prev(t: TableView, w: Window) -> str:
    d = timedelta(days=1)
    return f"{ident(t.time)} >= {ts(iso(w.start_dt - d))} AND {ident(t.time)} < {ts(iso(w.end_dt - d))}"


def _count_candidates(ctx: SynthContext):
    ws = _targets(ctx)
    if not ws:
        return
    cut = ctx.holdout["cut"]
    for t in ctx.catalog.tables.values():
        preds: list = [] if t.periodic else [None]
        for s in t.states:
            preds += [Predicate(column=s.name, op="==", value=str(v)) for v, _n in ctx.frequent(t.name, s.name, 6)]
        for p in preds:
            where = pred(p) if p else "TRUE"
            series = _hourly(ctx, t, "count(*)", where, cut, True)
            for w in ws:
                model = None if series is None else ref.model_forecast(series, _hours(w, cut), True)
                q = base_spec("forecast_count", t, window=w, params={"pred": p.model_dump()} if p else {})
                truth = _scalar(ctx, sql.forecast_count(q))
                naive = _scalar(ctx, f"SELECT count(*) FROM {ident(t.name)} WHERE {where} AND {_prev(t, w)}")
                tau = _tolerance(truth, naive, model)
                if tau is not None:
                    yield _cand(t, q, tau, naive, model, cut)
                    break


def _cand(t: TableView, q, tau: float, naive, model, cut: str) -> Candidate:
    q = q.model_copy(update={"params": {**q.params, "tol_pct": round(tau * 100), "naive_forecast": naive,
                                        "model_forecast": model, "data_end": cut}})
    return Candidate(q, decimals=2, hints={**_words(t, q), "tolerance": {"rel": tau, "abs": 0.0}})


def _what(t: TableView, q) -> str:
    if q.template == "forecast_mean":
        return f"the mean {key_words(t.key(q.p('key')))} of {t.noun} {q.p('id')}"
    p = q.p("pred")
    cond = f" with {p['column']} '{p['value']}'" if p else ""
    return f"the number of {row_noun(t)}{cond} (all {plural(t.noun)})"


def _when(w: Window) -> str:
    """'on 7 January 2026' for a whole day, else 'between 06:00 and 12:00 UTC on 7 January 2026'."""
    if is_day(w):
        return f"on {day_words(w)}"
    return f"between {w.start_dt:%H:%M} and {w.end_dt:%H:%M} UTC on {day_words(w)}"


def _words(t: TableView, q) -> dict:
    tol = q.p("tol_pct")
    ev = (f"The data ends at {when_words(pd.Timestamp(q.p('data_end')).to_pydatetime())}; "
          f"the question asks about a time after it, which the data does not contain. Answers within {tol}% of the "
          f"actual value count as correct.")
    precise = (f"What will {_what(t, q)} be {window_words(q.window)}, after the data ends? Give one number; answers "
               f"within {tol}% of the actual value are accepted.")
    return {"precise": precise, "evidence": ev}


def _render(c: Candidate, ctx: SynthContext) -> str:
    t, q = ctx.catalog[c.spec.table], c.spec
    if q.template == "forecast_mean":
        return (f"What will the mean {humanize(q.p('key'))} of {t.noun} {q.p('id')} be {_when(q.window)}? "
                f"(within {q.p('tol_pct')}%)")
    p = q.p("pred")
    what = f"{row_noun(t)} with {p['column']} '{p['value']}'" if p else row_noun(t)
    return f"How many {what} will there be {_when(q.window)}? (within {q.p('tol_pct')}%)"


def _naive(frames, q):
    return ref.seasonal_naive(frames, q)


register(Template("forecast_mean", "forecast", "number", ref.forecast_actual, sql.forecast_mean, _render,
                  _mean_candidates, naive=_naive, difficulty="hard", screen_with="sql"))
register(Template("forecast_count", "forecast", "integer", ref.forecast_actual, sql.forecast_count, _render,
                  _count_candidates, naive=_naive, difficulty="hard", screen_with="sql"))
