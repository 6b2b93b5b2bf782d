"""Calibrated detection: "flag the readings above each sensor's 99th percentile of 1 January: which
sensors have more than three on 3 January?" (``detect_entities``) and "how many readings are flagged?"
(``detect_count``, graded within a stated 5% tolerance).

The reference period is the first whole day of the data; thresholds are each entity's own (the naive
reading pools all entities into one threshold). Definitions in tools/queries/reference/detection.py.
"""

from __future__ import annotations

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext
from tools.queries.reference import detection as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import humanize, key_words, plural, window_words
from tools.queries.sql import detection as sql
from tools.queries.templates.common import base_spec
from tools.queries.templates.field_common import DAY_EVIDENCE, day_words, days, numeric_keys
from tools.queries.templates.shapes import MAX_LISTED, _series

COUNT_TOLERANCE = 0.05


def _flag_counts(ctx: SynthContext, t: TableView, k, ref_w, w, pct: float) -> dict[str, int]:
    base = _series(ctx, t, k, ref_w)
    thr = {e: ref.nearest_rank(x, pct) for e, x in base.items() if len(x)}
    return {e: int((x > thr[e]).sum()) for e, x in _series(ctx, t, k, w).items() if e in thr}


def _candidates_for(name: str):
    def enum(ctx: SynthContext):
        for t in ctx.catalog.tables.values():
            ds = days(t)
            if not t.periodic or len(ds) < 2:
                continue
            r = ds[0]
            for w in ctx.pick(ds[1:], 3):
                for k in ctx.pick(numeric_keys(t, 4), 3):
                    for pct in (99, 95):
                        counts = _flag_counts(ctx, t, k, r, w, pct)
                        p = {"key": k.name, "pct": pct, "ref": {"start": r.start, "end": r.end}}
                        if name == "detect_count":
                            if sum(counts.values()) >= 20:
                                q = base_spec(name, t, window=w, params=p)
                                yield Candidate(q, decimals=0, hints={
                                    **_words(t, q), "tolerance": {"rel": COUNT_TOLERANCE, "abs": 0.0}})
                            continue
                        for m in (12, 8, 5, 3, 2, 1, 0):
                            n = sum(c > m for c in counts.values())
                            if 0 < n <= MAX_LISTED and n < len(counts):
                                q = base_spec(name, t, window=w, params={**p, "min_count": m,
                                                                           "universe": sorted(counts)})
                                yield Candidate(q, decimals=0, hints=_words(t, q))
                                break
    return enum


def _definition(t: TableView, q) -> str:
    k, pct, r = key_words(t.key(q.p("key"))), q.p("pct"), q.p("ref")
    return (f"A reading is flagged when its {k} is above its own {t.noun}'s {pct}th percentile of {day_words(r['start'])} "
            f"(nearest rank: the smallest of that day's values with at least {pct}% of them at or below it). "
            f"A {t.noun} without readings on {day_words(r['start'])} flags nothing.")


def _words(t: TableView, q) -> dict:
    if q.template == "detect_count":
        ask = (f"How many {humanize(q.p('key'))} readings were flagged {window_words(q.window)}? Answers within "
               f"{COUNT_TOLERANCE:.0%} of the count are accepted.")
    else:
        ask = (f"Which {plural(t.noun)} had more than {q.p('min_count')} flagged {humanize(q.p('key'))} readings "
               f"{window_words(q.window)}? List their ids.")
    return {"precise": f"{_definition(t, q)} {ask}", "evidence": f"{_definition(t, q)} {DAY_EVIDENCE}"}


def _render(c: Candidate, ctx: SynthContext) -> str:
    t, q = ctx.catalog[c.spec.table], c.spec
    k, pct, r, day = humanize(q.p("key")), q.p("pct"), day_words(q.p("ref")["start"]), day_words(q.window)
    if q.template == "detect_count":
        return (f"Flagging {k} readings above each {t.noun}'s {pct}th percentile of {r}, how many readings were "
                f"flagged on {day}? (within {COUNT_TOLERANCE:.0%})")
    return (f"Flagging {k} readings above each {t.noun}'s {pct}th percentile of {r}, which {plural(t.noun)} had "
            f"more than {q.p('min_count')} flagged on {day}?")


register(Template("detect_entities", "detection", "entity_list", ref.detect_entities, sql.detect_entities, _render,
                  _candidates_for("detect_entities"), naive=ref.detect_entities_naive, difficulty="hard",
                  screen_with="sql"))
register(Template("detect_count", "detection", "integer", ref.detect_count, sql.detect_count, _render,
                  _candidates_for("detect_count"), naive=ref.detect_count_naive, difficulty="medium",
                  screen_with="sql"))
