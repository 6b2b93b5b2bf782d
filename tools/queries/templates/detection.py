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
from tools.queries.render import humanize, key_words, plural, row_noun, window_words
from tools.queries.sql import detection as sql
from tools.queries.templates.common import base_spec
from tools.queries.templates.field_common import DAY_EVIDENCE, day_words, days, numeric_keys
from tools.queries.templates.shapes import MAX_LISTED, _hourly_series, _series

COUNT_TOLERANCE = 0.05


def _flag_counts(base: dict, target: dict, pct: float) -> dict[str, int]:
    """Flagged values per entity (exploration only): above the entity's reference percentile."""
    thr = {e: ref.nearest_rank(x, pct) for e, x in base.items() if len(x)}
    return {e: int((x > thr[e]).sum()) for e, x in target.items() if e in thr}


def _what(ctx: SynthContext, t: TableView, r, w):
    """(base params, reference series, target series) per measured key, or per column of an event log."""
    if t.periodic:
        return [({"key": k.name}, _series(ctx, t, k, r), _series(ctx, t, k, w))
                for k in ctx.pick(numeric_keys(t, 4), 3)]
    cols = [c.name for c in t.states] + [a.name for a in t.attrs if a.table is None]
    return [({"key": None, "series": "hourly_count", "by": c}, _hourly_series(ctx, t, c, r),
             _hourly_series(ctx, t, c, w)) for c in ctx.pick(cols, 3)]


def _candidates_for(name: str):
    def enum(ctx: SynthContext):
        for t in ctx.catalog.tables.values():
            ds = days(t)
            if len(ds) < 2:
                continue
            r = ds[0]
            for w in ctx.pick(ds[1:], 3):
                for base, ref_s, tgt_s in _what(ctx, t, r, w):
                    for pct in (99, 95):
                        counts = _flag_counts(ref_s, tgt_s, pct)
                        p = {**base, "pct": pct, "ref": {"start": r.start, "end": r.end}}
                        if name == "detect_count":
                            if sum(counts.values()) >= (20 if t.periodic else 6):
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


def _subject(t: TableView, q) -> tuple[str, str, str]:
    """(entity noun, what is flagged, its measure): sensors' readings, or pages' hours of events."""
    if q.p("series") == "hourly_count":
        return humanize(q.p("by")), "hours", f"hourly {row_noun(t)[:-1]} count"
    return t.noun, f"{humanize(q.p('key'))} readings", key_words(t.key(q.p("key")))


def _definition(t: TableView, q) -> str:
    (noun, flagged, k), pct, r = _subject(t, q), q.p("pct"), q.p("ref")
    unit = "An hour" if q.p("series") == "hourly_count" else "A reading"
    hourly = (f" Hours are the UTC clock hours of the day; a {noun}'s hourly count is its number of "
              f"{row_noun(t)} in that hour (0 when none)." if q.p("series") == "hourly_count" else "")
    return (f"{unit} is flagged when its {k} is above its own {noun}'s {pct}th percentile of {day_words(r['start'])} "
            f"(nearest rank: the smallest of that day's values with at least {pct}% of them at or below it). "
            f"A {noun} without {flagged} on {day_words(r['start'])} flags nothing.{hourly}")


def _words(t: TableView, q) -> dict:
    noun, flagged, _k = _subject(t, q)
    if q.template == "detect_count":
        ask = (f"How many {flagged} were flagged {window_words(q.window)}? Answers within "
               f"{COUNT_TOLERANCE:.0%} of the count are accepted.")
    else:
        ask = (f"Which {plural(noun)} had more than {q.p('min_count')} flagged {flagged} "
               f"{window_words(q.window)}? List them.")
    return {"precise": f"{_definition(t, q)} {ask}", "evidence": f"{_definition(t, q)} {DAY_EVIDENCE}"}


def _render(c: Candidate, ctx: SynthContext) -> str:
    t, q = ctx.catalog[c.spec.table], c.spec
    (noun, flagged, k), pct = _subject(t, q), q.p("pct")
    r, day = day_words(q.p("ref")["start"]), day_words(q.window)
    what = f"{flagged} whose {k} is" if q.p("series") == "hourly_count" else flagged
    if q.template == "detect_count":
        return (f"Flagging {what} above each {noun}'s {pct}th percentile of {r}, how many {flagged} were "
                f"flagged on {day}? (within {COUNT_TOLERANCE:.0%})")
    return (f"Flagging {what} above each {noun}'s {pct}th percentile of {r}, which {plural(noun)} had "
            f"more than {q.p('min_count')} flagged on {day}?")


register(Template("detect_entities", "detection", "entity_list", ref.detect_entities, sql.detect_entities, _render,
                  _candidates_for("detect_entities"), naive=ref.detect_entities_naive, difficulty="hard",
                  screen_with="sql"))
register(Template("detect_count", "detection", "integer", ref.detect_count, sql.detect_count, _render,
                  _candidates_for("detect_count"), naive=ref.detect_count_naive, difficulty="medium",
                  screen_with="sql"))
