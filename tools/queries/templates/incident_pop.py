"""Issue 19's incident variants, asked only when the spec's ``query_plan.variants`` names them (default
suites are unchanged): parameters of two contract templates, not new templates.

- ``incident_vs_baseline`` with ``params.baseline_entities`` (``peer_baseline``, ``fleet_baseline``): "During
  the outage, was mean availability of the affected cells lower than that of the other cells?" (the peers
  in the same window) or "... than that of all cells at baseline?" (the whole fleet, the affected ones
  included, in the baseline window). Naive reading: the other baseline population (peers: every cell, the
  affected ones included; fleet: the affected cells' own history).
- ``incident_affected_count`` with ``rule: threshold`` (``threshold_count``): "How many cells had availability
  below 98 during the outage?": entities with at least one reading past a stated threshold in the incident
  window (what operators mean by "had availability below X": the KPI crossed X at some point). Naive
  reading: the same threshold over the whole data. The threshold is a round number between two entities'
  in-window extremes, chosen so the count is neither 0 nor every entity and differs from the naive one.

Executors: ``reference/incident_pop.py`` (pandas) and ``sql/incident_pop.py``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator

from tools.queries.context import SynthContext
from tools.queries.reference import incident as iref
from tools.queries.reference import incident_pop as pref
from tools.queries.registry import Candidate
from tools.queries.render import fmt_num, plural, rounding_words, unit_words
from tools.queries.spec import EntityFilter, QuerySpec
from tools.queries.sql import incident as isql
from tools.queries.sql import incident_pop as psql
from tools.queries.sql.common import ident, ts
from tools.queries.templates.incident_cands import base_note, cand
from tools.queries.templates.incident_explore import pop_cond, population_values
from tools.queries.templates.incident_facts import incidents, nonnegative
from tools.queries.templates.incident_model import Inc, Measure
from tools.queries.templates.incident_search import COUNT, nice_between, per_moved_key
from tools.queries.templates.incident_words import (
    during,
    explicit,
    key_words,
    measure_words,
    pop_noun,
    rows_noun,
    who,
)

VALUE_AGGS = ("mean", "max", "min", "std")  # aggregates comparable between populations of different sizes
_CMP = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
NAIVE_MARGIN = 0.01  # the naive figure must lie beyond the grading tolerance (at most 1% relative)
OP_WORDS = {">": "above", ">=": "at least", "<": "below", "<=": "at most"}


def asked(ctx: SynthContext, variant: str) -> bool:
    """Whether the spec's query plan opts in to ``variant``."""
    return variant in (getattr(getattr(ctx.spec, "query_plan", None), "variants", None) or ())


# -- executors: the variants dispatch on their parameter -------------------------------------------------
def vs_baseline_reference(frames, q: QuerySpec):
    return pref.vs_population(frames, q) if q.p("baseline_entities") is not None else iref.incident_vs_baseline(frames, q)


def vs_baseline_sql(q: QuerySpec) -> str:
    return psql.vs_population(q) if q.p("baseline_entities") is not None else isql.incident_vs_baseline(q)


def affected_reference(frames, q: QuerySpec):
    return pref.threshold_count(frames, q) if q.p("rule") == "threshold" else iref.incident_affected_count(frames, q)


def affected_sql(q: QuerySpec) -> str:
    return psql.threshold_count(q) if q.p("rule") == "threshold" else isql.incident_affected_count(q)


def either(old: Callable, new: Callable, is_new: Callable[[QuerySpec], bool]) -> Callable:
    """A renderer that gives a variant's candidates to ``new`` and every other one to ``old``."""
    def run(c: Candidate, ctx: SynthContext):
        return new(c, ctx) if is_new(c.spec) else old(c, ctx)
    return run


def chain(*gens: Callable[[SynthContext], Iterator[Candidate]]) -> Callable[[SynthContext], Iterator[Candidate]]:
    def run(ctx: SynthContext) -> Iterator[Candidate]:
        for g in gens:
            yield from g(ctx)
    return run


# -- a baseline over another population ----------------------------------------------------------------
def _filter_json(f: EntityFilter | None):
    return "all" if f is None else f.model_dump(mode="json", exclude_defaults=True)


def _versus(pop, m: Measure, window, base, others, direction: str, **h) -> tuple:
    """One comparison to ask: (window population, measure, window, baseline window, baseline population,
    direction, hints)."""
    return (pop, m, window, base, others, direction, h)


def population_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """Peers in the same window and the whole fleet in the baseline window, with contrasts (the same
    comparison in the baseline window, an unaffected population, a calm key)."""
    peer, fleet = asked(ctx, "peer_baseline"), asked(ctx, "fleet_baseline")
    if not (peer or fleet):
        return
    for inc in incidents(ctx):
        if not inc.per_entity:
            continue
        ms = [m for m in inc.measures if m.agg in VALUE_AGGS]
        todo = []
        if peer:
            for f in inc.others[:2]:
                peers = {"versus": who(inc, "others", f), "scope": "peers"}
                todo += [_versus(inc.affected, m, inc.window, inc.window, f, m.direction, variant="main",
                                 when=during(inc), who=who(inc, "affected"), **peers) for m in ms]
                if inc.baseline is not None:
                    todo += [_versus(inc.affected, m, inc.baseline, inc.baseline, f, m.direction,
                                     variant="baseline_window", who=who(inc, "affected_ref"),
                                     when=explicit(inc.baseline, inc, base_note(inc)), **peers) for m in ms[:1]]
                todo += [_versus(inc.affected, m, inc.window, inc.window, f, "up", variant="calm_key",
                                 when=during(inc), who=who(inc, "affected"), **peers) for m in inc.calm[:1]]
        if fleet and inc.baseline is not None:
            fl = {"versus": f"all {plural(inc.t.noun)}", "scope": "fleet", "baseline": inc.baseline_rel}
            todo += [_versus(inc.affected, m, inc.window, inc.baseline, None, m.direction, variant="main",
                             when=during(inc), who=who(inc, "affected"), **fl) for m in ms]
            todo += [_versus(f, m, inc.window, inc.baseline, None, m.direction, variant="other_pop",
                             when=during(inc), who=who(inc, "others", f), **fl) for f in inc.others[-1:] for m in ms[:1]]
            todo += [_versus(inc.affected, m, inc.window, inc.baseline, None, "up", variant="calm_key",
                             when=during(inc), who=who(inc, "affected"), **fl) for m in inc.calm[:1]]
        items = [x for pop, m, w, b, o, *_ in todo for x in ((pop, m, w), (o, m, b), (None, m, w))]
        vals = population_values(ctx, inc, items)
        for i, (pop, m, w, b, others, direction, h) in enumerate(todo):
            c = _population_candidate(ctx, inc, vals[3 * i: 3 * i + 3], pop, m, w, b, others, direction, h)
            if c is not None:
                yield c


def _figure(vi: float, vb: float, fig: str) -> float:
    return vi / vb if fig == "ratio" else vi - vb


def _population_candidate(ctx: SynthContext, inc: Inc, vals: list, pop, m: Measure, w, b, others, direction: str,
                          h: dict) -> Candidate | None:
    """The candidate, unless its figure is undefined, its baseline says nothing, a main question's verdict is
    not the incident's direction, or the naive baseline (every entity over the question's window) gives a
    figure within the grading tolerance of the answer's."""
    vi, vb, vn = vals
    if vi is None or vb is None or vn is None or math.isclose(vi, vb, rel_tol=1e-9, abs_tol=1e-12):
        return None
    if h["variant"] == "main" and (vi > vb) != (direction == "up"):
        return None  # the populations differ more than the incident moved them: no question about the incident
    positive = m.agg == "std" or nonnegative(ctx, inc, m.key)
    fig = "ratio" if positive and vb and vn else "difference"
    params = {**m.params(), "direction": direction, "baseline": {"start": b.start, "end": b.end},
              "baseline_entities": _filter_json(others), "figure": fig}
    q = inc.spec("incident_vs_baseline", window=w, entity_filter=pop, event_filter=list(m.event_filter), params=params)
    c = cand(inc, q, m, contrast=h["variant"] != "main", **h)
    decimals = 2 if fig == "ratio" else c.decimals
    a, n = _figure(vi, vb, fig), _figure(vi, vn, fig)
    if abs(a - n) <= max(NAIVE_MARGIN * abs(a), 10.0 ** -decimals):
        return None
    return Candidate(c.spec, c.hints, c.incident_id, c.contrast, unit=c.unit if fig == "difference" else None,
                     decimals=decimals)


def render_population(c: Candidate, ctx: SynthContext) -> str:
    """The precise wording of a baseline over another population."""
    inc = next(i for i in incidents(ctx) if i.id == c.incident_id)
    q, h = c.spec, c.hints
    mw, rn = measure_words(inc, q.params, q.event_filter), rows_noun(inc)
    dirw = "higher" if q.p("direction") == "up" else "lower"
    if h["scope"] == "peers":
        base = f"over all {rn} of {h['versus']} in the same period"
    else:
        base = f"over all {rn} of {h['versus']} (including the affected ones) in {h['baseline']}"
    if q.p("figure") == "ratio":
        fig = ("and by what factor (the first value divided by the second)? Round the factor to 2 decimal "
               "places.")
    else:
        unit = f", in {unit_words(c.unit)}" if c.unit and c.unit != "count" else ""
        fig = f"and by how much (the first value minus the second{unit})? {rounding_words(c.decimals)}"
    when = h["when"][:1].upper() + h["when"][1:]
    return f"{when}, was the {mw} over all {rn} of {h['who']} {dirw} than the {mw} {base}, {fig}"


# -- affected counts by a numeric threshold -------------------------------------------------------------
def _extremes(ctx: SynthContext, inc: Inc, key: str, up: bool, pop: EntityFilter | None) -> list[tuple]:
    """Per entity of ``pop``: (extreme in the incident window, in the baseline window, over all data)."""
    ext, k, tc = ("max" if up else "min"), ident(key), ident(inc.t.time)
    inw = f"{tc} >= {ts(inc.window.start)} AND {tc} < {ts(inc.window.end)}"
    b = inc.baseline
    inb = f"{tc} >= {ts(b.start)} AND {tc} < {ts(b.end)}" if b is not None else "FALSE"
    key_ = ("inc_threshold", inc.id, key, up, None if pop is None else pop.model_dump_json())
    if key_ not in ctx.memo:
        ctx.memo[key_] = ctx.con.execute(
            f"SELECT CAST({ext}({k}) FILTER (WHERE {inw}) AS DOUBLE), CAST({ext}({k}) FILTER (WHERE {inb}) AS DOUBLE), "
            f"CAST({ext}({k}) AS DOUBLE) FROM {ident(inc.t.name)} WHERE {pop_cond(pop)} "
            f"GROUP BY {ident(inc.t.entity)} ORDER BY 1").fetchall()
    return ctx.memo[key_]


def _passing(xs: list, op: str, v: float) -> int:
    return sum(1 for x in xs if x is not None and _CMP[op](x, v))


def pick_threshold(window_ext: list[float], all_ext: list[float], up: bool, target: int,
                   integer: bool) -> tuple[str, float | int, int] | None:
    """(op, round threshold, in-window count): a round number between two consecutive in-window extremes,
    counting neither none nor all entities and not the same count as over the whole data; the count closest
    to ``target`` (the manifest's affected entities) wins, then the widest gap."""
    n = len(all_ext)
    vals = sorted({v for v in window_ext if v is not None})
    best = None
    for lo, hi in zip(vals, vals[1:], strict=False):
        v = nice_between(lo, hi)
        if v is None:
            continue
        op = ">" if up else "<"
        if integer and v != int(v):
            op, v = (">=", math.ceil(v)) if up else ("<=", math.floor(v))
        cw, ca = _passing(window_ext, op, v), _passing(all_ext, op, v)
        if not 0 < cw < n or ca == cw:
            continue
        score = (abs(cw - target), -(hi - lo) / max(abs(hi), abs(lo), 1e-12))
        if best is None or score < best[0]:
            best = (score, op, v, cw)
    return None if best is None else best[1:]


def threshold_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """Main question per moved key (widest population that works), with a baseline-window contrast and an
    unaffected-population negative control."""
    if not asked(ctx, "threshold_count"):
        return
    yield from per_moved_key(ctx, lambda m: m.agg in ("mean", "max", "min") and m.direction in ("up", "down"),
                             _threshold_for)


def _threshold_for(ctx: SynthContext, inc: Inc, m: Measure, pop: EntityFilter | None) -> Iterator[Candidate]:
    up = m.direction == "up"
    rows = _extremes(ctx, inc, m.key, up, pop)
    pick = pick_threshold([r[0] for r in rows], [r[2] for r in rows], up, len(inc.ids), inc.t.key(m.key).integer)
    if pick is None:
        return
    op, value, _n = pick
    params = {"key": m.key, "rule": "threshold", "op": op, "value": value}
    q = inc.spec("incident_affected_count", window=inc.window, entity_filter=pop, params=params)
    h = {"pop": pop_noun(inc, pop)}
    yield cand(inc, q, COUNT, contrast=False, variant="main", when=during(inc), **h)
    if inc.baseline is not None:
        yield cand(inc, q.model_copy(update={"window": inc.baseline}), COUNT, contrast=True,
                   variant="baseline_window", when=explicit(inc.baseline, inc, base_note(inc)), **h)
    for f in inc.others[-1:]:
        yield cand(inc, q.model_copy(update={"entity_filter": f}), COUNT, contrast=True, variant="other_pop",
                   when=during(inc), pop=pop_noun(inc, f))


def threshold_words(inc: Inc, q: QuerySpec) -> str:
    """'Cell_Availability below 98 percent'."""
    u = unit_words(inc.t.key(q.p("key")).unit)
    return f"{key_words(inc, q.p('key'))} {OP_WORDS[q.p('op')]} {fmt_num(q.p('value'), 6)}{' ' + u if u else ''}"


def render_threshold(c: Candidate, ctx: SynthContext) -> str:
    """The precise wording of an affected count by a threshold."""
    inc = next(i for i in incidents(ctx) if i.id == c.incident_id)
    when = c.hints["when"][:1].upper() + c.hints["when"][1:]
    return (f"{when}, how many {c.hints['pop']} had at least one {rows_noun(inc)[:-1]} in that period with "
            f"{threshold_words(inc, c.spec)}? Count {plural(inc.t.noun)}.")
