"""Shape questions: "which freezers rose steadily on 2 January?", "which links had a spike?".

Five templates (definitions in tools/queries/reference/shapes.py, stated in each question's
evidence): ``shape_spike``, ``shape_rise``, ``shape_plateau``, ``shape_oscillation``,
``shape_level_shift``. For each (periodic table, key, day) the enumerator walks a ladder of
parameters from strict to loose and keeps the first one under which between 1 and 8 entities (and
not all of them) show the shape, asking the SQL executor; both executors then answer the question.
"""

from __future__ import annotations

from tools.queries.catalog import Key, TableView
from tools.queries.context import SynthContext
from tools.queries.reference import shapes as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_num, humanize, key_words, plural, row_noun, window_words
from tools.queries.sql import shapes as sql
from tools.queries.sql.common import ident, ts
from tools.queries.templates.field_common import DAY_EVIDENCE, day_words, days, numeric_keys

MAX_LISTED = 8


def _readings(t: TableView, seconds: float) -> int:
    return max(2, int(round(seconds / (t.cadence_s or 900))))


def _r(x: float) -> float:
    return float(f"{x:.3g}")


def _cadence(t: TableView, q=None) -> float:
    """Seconds between readings: the table's cadence, an hour for hourly counts."""
    return 3600.0 if (q is not None and q.p("series") == "hourly_count") or not t.periodic else (t.cadence_s or 900)


def _ladders(series: dict, cadence: float) -> dict[str, list[dict]]:
    import numpy as np

    vals = [x for x in series.values() if len(x)]
    sd = float(np.std(np.concatenate(vals), ddof=1)) if vals and sum(map(len, vals)) > 1 else 0.0
    hour = max(1 if cadence >= 3600 else 2, int(round(3600 / cadence)))
    return {
        "shape_spike": [{"width": 3, "mult": m} for m in (7.41, 5.93, 4.45)],
        "shape_rise": [{"lag": hour, "min_len": 3, "delta": _r(sd * f)} for f in (2.0, 1.5, 1.0, 0.5)] if sd else [],
        "shape_plateau": [{"min_len": n} for n in (24, 12, 8, 6, 4) if n < 0.5 * 86400 / cadence],
        "shape_oscillation": [{"rate_pct": r} for r in (80, 70, 60, 50, 40)],
        "shape_level_shift": [{"span": max(hour, 3), "delta": _r(sd * f)} for f in (1.0, 0.5, 0.25)] if sd else [],
    }


def _hourly_series(ctx: SynthContext, t: TableView, by: str, w) -> dict[str, object]:
    """Exploration for event logs: rows per UTC hour of the day per value of ``by`` (zeros filled)."""
    import numpy as np

    key = ("shape_hourly", t.name, by, w.start)
    if key not in ctx.memo:
        rows = ctx.con.execute(
            f"SELECT CAST({ident(by)} AS VARCHAR), CAST(date_part('hour', {ident(t.time)}) AS INTEGER), count(*) "
            f"FROM {ident(t.name)} WHERE {ident(t.time)} >= {ts(w.start)} AND {ident(t.time)} < {ts(w.end)} AND "
            f"{ident(by)} IS NOT NULL GROUP BY 1, 2").fetchall()
        out: dict[str, np.ndarray] = {}
        for e, h, n in rows:
            out.setdefault(e, np.zeros(24))[h] = n
        ctx.memo[key] = out
    return ctx.memo[key]


def _series(ctx: SynthContext, t: TableView, k: Key, w) -> dict[str, object]:
    """Exploration: each entity's values that day in time order (one DuckDB query, memoised)."""
    import numpy as np

    key = ("shape_series", t.name, k.name, w.start)
    if key not in ctx.memo:
        rows = ctx.con.execute(
            f"SELECT CAST({ident(t.entity)} AS VARCHAR), list(CAST({ident(k.name)} AS DOUBLE) ORDER BY "
            f"{ident(t.time)}) FROM {ident(t.name)} WHERE {ident(t.time)} >= {ts(w.start)} AND {ident(t.time)} < "
            f"{ts(w.end)} AND {ident(k.name)} IS NOT NULL GROUP BY 1").fetchall()
        ctx.memo[key] = {e: np.asarray(v, dtype=float) for e, v in rows}
    return ctx.memo[key]


def _found(series: dict, q) -> tuple[int, int]:
    """(entities showing the shape, entities) under the candidate's parameters (exploration only)."""
    test = ref.TESTS[q.template]
    return sum(1 for x in series.values() if len(x) and test(x, q)), len(series)


def load_sql(name: str):
    return getattr(sql, name)


def _candidates_for(name: str):
    def enum(ctx: SynthContext):
        from tools.queries.templates.common import base_spec

        for t in ctx.catalog.tables.values():
            all_days = days(t)
            picked = ctx.pick(all_days, 2 if t.periodic else 3)
            # the seeded picks first; then the other days, so a small world still offers enough shapes
            for w in picked + [d for d in all_days if d not in picked]:
                if t.periodic:
                    keys = numeric_keys(t, 4)
                    chosen = ctx.pick(keys, 2)
                    what = [({"key": k.name}, _series(ctx, t, k, w)) for k in chosen + [k for k in keys if k not in chosen]]
                else:  # event logs: rows per hour per value of a column on the rows
                    cols = [c.name for c in t.states] + [a.name for a in t.attrs if a.table is None]
                    what = [({"key": None, "series": "hourly_count", "by": c}, _hourly_series(ctx, t, c, w))
                            for c in ctx.pick(cols, 3)]
                for base, series in what:
                    for params in _ladders(series, _cadence(t))[name]:
                        q = base_spec(name, t, window=w, params={**base, **params})
                        n, n_ent = _found(series, q)
                        if n and n <= MAX_LISTED and n < n_ent:
                            yield Candidate(q, decimals=0, hints=_words(t, q))
                            break
    return enum


_SHORT = {
    "shape_spike": "Which {nouns} had a spike in {key} on {day}?",
    "shape_rise": "Which {nouns} saw their {key} rise steadily on {day}?",
    "shape_plateau": "Which {nouns} had a plateau in {key} on {day}?",
    "shape_oscillation": "Which {nouns} had an oscillating {key} on {day}?",
    "shape_level_shift": "Which {nouns} had a level shift in {key} on {day}?",
}


def _subject(t: TableView, q) -> tuple[str, str]:
    """(what is listed, what is measured): ('sensor', 'temperature (°C)') or ('referrer', 'hourly events')."""
    if q.p("series") == "hourly_count":
        return humanize(q.p("by")), f"hourly {row_noun(t)}"
    return t.noun, key_words(t.key(q.p("key")))


def definition(t: TableView, q) -> str:
    """The stated definition of the question's shape, in the domain's words."""
    (noun, k), p, cad = _subject(t, q), q.params, _cadence(t, q)
    mins = fmt_num(p.get("lag", p.get("span", 1)) * cad / 60, 0)
    return {
        "shape_spike": lambda: f"A spike is a run of at most {p.get('width')} consecutive readings whose {k} is more than "
                       f"{p.get('mult')} times the median absolute deviation (about {round(p.get('mult', 0) / 1.4826)} "
                       f"robust standard deviations) above the {noun}'s own median {k} that day.",
        "shape_rise": lambda: f"A steady rise is at least {p.get('min_len')} consecutive readings each more than "
                      f"{fmt_num(p.get('delta'), 6)} above the reading {p.get('lag')} readings ({mins} min) before it.",
        "shape_plateau": lambda: f"A plateau is at least {p.get('min_len')} consecutive readings with exactly the same {k}.",
        "shape_oscillation": lambda: f"A {noun}'s {k} oscillates when the sign of (value minus its own median that day) "
                             f"changes between consecutive readings at least {p.get('rate_pct')}% of the time "
                             f"(readings equal to the median skipped).",
        "shape_level_shift": lambda: f"A level shift is a reading from which the next {p.get('span')} readings ({mins} min) "
                             f"all lie more than {fmt_num(p.get('delta'), 6)} above every one of the {p.get('span')} "
                             f"readings before it, or all that much below.",
    }[q.template]()


def _words(t: TableView, q) -> dict:
    noun, k = _subject(t, q)
    rows = (f"Hourly {row_noun(t)} are the {noun}'s rows in each UTC hour of the day (hours without any "
            f"counted 0)" if q.p("series") == "hourly_count" else
            f"Readings are each {noun}'s rows in time order, missing values skipped")
    ev = (f"{definition(t, q)} {rows} (the lower median is used: the middle value, the lower of the two middle "
          f"ones for an even count). {DAY_EVIDENCE}")
    precise = (f"Which {plural(noun)} had a {q.template.split('_', 1)[1].replace('_', ' ')} in {k} "
               f"{window_words(q.window)}? {definition(t, q)} List them.")
    return {"precise": precise, "evidence": ev}


def _render(c: Candidate, ctx: SynthContext) -> str:
    t, q = ctx.catalog[c.spec.table], c.spec
    noun, _k = _subject(t, q)
    key = f"hourly {row_noun(t)}" if q.p("series") == "hourly_count" else humanize(q.p("key"))
    return _SHORT[q.template].format(nouns=plural(noun), key=key, day=day_words(q.window))


for _name in ref.TESTS:
    register(Template(_name, "shape", "entity_list", ref.entities_with_shape, load_sql(_name), _render,
                      _candidates_for(_name), naive=ref.spike_naive if _name == "shape_spike" else None,
                      difficulty="hard", screen_with="sql"))
