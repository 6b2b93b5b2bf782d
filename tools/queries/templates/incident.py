"""Incident templates: questions about the incidents of incidents.json, with contrast variants.

Semantics (both executors; see tools/queries/reference/incident.py):

- ``incident_exists``: does some (entity, UTC clock hour) — for event logs, some clock hour over the
  whole population — have an hourly aggregate beyond a stated threshold inside an explicit window;
- ``incident_kpi``: an aggregate over the affected entities' rows during the incident;
- ``incident_affected_count``: how many entities deviate during the incident by a stated rule (kept
  only when the rule finds exactly the manifest's affected entities);
- ``incident_top_k``: the k entities with the largest (smallest) aggregate during the incident;
- ``incident_worst_entity``: the entity whose aggregate moved most against its own baseline;
- ``incident_vs_baseline``: the aggregate during the incident against a baseline window, with the factor;
- ``incident_cross_entity``: an aggregate over the entities related to the incident's entities through
  a cascade's foreign key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import zip_longest

from tools.queries.context import SynthContext
from tools.queries.natural import incident_pop as natural_pop
from tools.queries.reference import incident as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_num, plural, pred_words, rounding_words, unit_words
from tools.queries.sql import incident as sql
from tools.queries.templates import incident_pop as pop
from tools.queries.templates.incident_cands import (
    cross_candidates,
    kpi_candidates,
    top_k_candidates,
    vs_baseline_candidates,
    worst_candidates,
)
from tools.queries.templates.incident_facts import Inc, incidents
from tools.queries.templates.incident_search import affected_candidates, exists_candidates
from tools.queries.templates.incident_words import (
    key_words,
    measure_words,
    op_words,
    rows_noun,
    threshold_words,
)


def _inc(ctx: SynthContext, c: Candidate) -> Inc:
    return next(i for i in incidents(ctx) if i.id == c.incident_id)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _count_words(inc: Inc, c: Candidate) -> str:
    """'how many events where page is 'purchase' were there from sessions whose ...'."""
    q, who = c.spec, c.hints["who"].removeprefix("all ")
    if q.p("agg") == "entities":
        return f"how many distinct {who} had at least one {rows_noun(inc)[:-1]}"
    if q.p("agg") == "nulls":
        return f"how many {rows_noun(inc)} with no {key_words(inc, q.p('key'))} value were there from {who}"
    cond = " and ".join(pred_words(p, inc.t) for p in q.event_filter)
    return f"how many {rows_noun(inc)}{' where ' + cond if cond else ''} were there from {who}"


def render_kpi(c: Candidate, ctx: SynthContext) -> str:
    """'During the ... on 2 January, what was the mean X over all readings of the affected link?'."""
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    if q.p("agg") in ("rows", "entities", "nulls"):
        return f"{_cap(h['when'])}, {_count_words(inc, c)}?"
    return (f"{_cap(h['when'])}, what was the {measure_words(inc, q.params, q.event_filter)} over all "
            f"{rows_noun(inc)} of {h['who']}? {rounding_words(c.decimals)}")


def render_vs_baseline(c: Candidate, ctx: SynthContext) -> str:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    mw = measure_words(inc, q.params, q.event_filter)
    counts = q.p("agg") in ("rows", "entities", "nulls")
    scope = f"from {h['who'].removeprefix('all ')}" if counts else f"over all {rows_noun(inc)} of {h['who']}"
    if q.p("agg") == "entities":
        mw, scope = f"number of distinct {h['who'].removeprefix('all ')}", f"with at least one {rows_noun(inc)[:-1]}"
    dirw = "higher" if q.p("direction") == "up" else "lower"
    if q.p("figure") == "ratio":
        fig = ("and by what factor (the value during the incident divided by the value over those baseline "
               "hours)? Round the factor to 2 decimal places.")
    else:
        unit = f", in {unit_words(c.unit)}" if c.unit and c.unit != "count" else ""
        fig = (f"and by how much (the value during the incident minus the value over those baseline hours"
               f"{unit})? {rounding_words(c.decimals)}")
    return f"{_cap(h['when'])}, was the {mw} {scope} {dirw} than during {h['baseline']}, {fig}"


def _hourly_words(inc: Inc, q) -> str:
    agg, kw = q.p("agg"), key_words(inc, q.p("key")) if q.p("key") else ""
    return {"mean": f"a mean {kw} over its readings in that hour",
            "sum": f"a total {kw} over its readings in that hour",
            "std": f"a sample standard deviation of {kw} over its readings in that hour",
            "nulls": f"a number of readings with no {kw} value in that hour"}.get(agg, agg)


def render_exists(c: Candidate, ctx: SynthContext) -> str:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    hour = "a UTC clock hour (from hh:00 up to but not including the next hh:00)"
    thr = threshold_words(inc, q.params, q.p("value"))
    if q.p("per") == "all":
        agg, ef = q.p("agg"), q.event_filter[h.get("pop_conds", 0):]  # the leading conditions are the population
        what = f"number of distinct {h['pop']} with at least one {rows_noun(inc)[:-1]} in that hour" \
            if agg == "entities" else f"{measure_words(inc, q.params, ef)} from {h['pop']} in that hour"
        cmp = "was 0" if (q.p("op"), q.p("value")) == ("<=", 0) else f"was {op_words(q.p('op'))} {thr}"
        return (f"{_cap(h['when'])}, was there {hour} in which the {what} {cmp}? "
                f"Hours without any {rows_noun(inc)[:-1]} count as 0.")
    if q.p("agg") == "range":
        return (f"{_cap(h['when'])}, did any of the {h['pop']} report the same {key_words(inc, q.p('key'))} value "
                f"in every one of its readings within {hour}, counting only hours in which it has at least two "
                f"readings?")
    return (f"{_cap(h['when'])}, did any of the {h['pop']} have, within {hour}, "
            f"{_hourly_words(inc, q)} {op_words(q.p('op'))} {thr}?")


def render_affected(c: Candidate, ctx: SynthContext) -> str:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    kw = key_words(inc, q.p("key"))
    if q.p("rule") == "flat":
        return (f"{_cap(h['when'])}, how many {h['pop']} reported the same {kw} value in every one of their "
                f"readings in that period (counting only {plural(inc.t.noun)} with at least two readings in it)?")
    base = h.get("base") or "the rest of the data (all readings outside that period)"
    side = "above" if q.p("direction") == "up" else "below"
    return (f"{_cap(h['when'])}, how many {h['pop']} had a mean {kw} more than {fmt_num(q.p('n'))} standard "
            f"deviations {side} their own mean over {base}? For each {inc.t.noun}, use the mean and the sample "
            f"standard deviation of its own readings over {base}.")


def render_top_k(c: Candidate, ctx: SynthContext) -> str:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    hi = q.p("order") == "desc"
    big, small = ("largest", "smallest") if hi else ("smallest", "largest")
    return (f"{_cap(h['when'])}, which {q.p('k')} {h['pop']} had the {big} "
            f"{measure_words(inc, q.params, q.event_filter)} over their readings in that period? List them from "
            f"{big} to {small} with their values, breaking ties by {inc.key_words} in ascending order. "
            + ("Give the values as whole numbers." if c.decimals == 0 else
               f"Round the values to {c.decimals} decimal places."))


def render_worst(c: Candidate, ctx: SynthContext) -> str:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    mw = measure_words(inc, q.params, q.event_filter)
    up = q.p("order") == "desc"
    tie = f"Break ties by {inc.key_words} in ascending order."
    if q.p("baseline") is None:
        return (f"{_cap(h['when'])}, which one of the {h['pop']} had the {'largest' if up else 'smallest'} {mw} "
                f"over its readings in that period? {tie}")
    base = h["baseline"] if isinstance(q.p("baseline"), dict) else "all of its readings outside that period"
    move = "rise" if up else "drop"
    return (f"{_cap(h['when'])}, which one of the {h['pop']} had the largest {move} in {mw} compared with its "
            f"own {mw} over {base} (the {move} being the value in that period minus the baseline value"
            f"{'' if up else ', most negative first'})? {tie}")


def balanced(gen: Callable[[SynthContext], Iterable[Candidate]]) -> Callable[[SynthContext], Iterator[Candidate]]:
    """Per incident: every main question and at most as many contrasts (at least one), taking the
    contrast kinds in turn, so a suite is not mostly contrasts."""
    def run(ctx: SynthContext) -> Iterator[Candidate]:
        by: dict[str | None, list[Candidate]] = {}
        for c in gen(ctx):
            by.setdefault(c.incident_id, []).append(c)
        for cs in by.values():
            mains = [c for c in cs if not c.contrast]
            kinds: dict[str, list[Candidate]] = {}
            for c in cs:
                if c.contrast:
                    kinds.setdefault(c.hints.get("variant", ""), []).append(c)
            turns = [c for group in zip_longest(*kinds.values()) for c in group if c is not None]
            yield from mains
            yield from turns[:max(1, len(mains))]
    return run


register(Template("incident_exists", "incident", "boolean", ref.incident_exists, sql.incident_exists,
                  render_exists, balanced(exists_candidates), difficulty="hard"))
register(Template("incident_kpi", "incident", "number", ref.incident_kpi, sql.incident_kpi,
                  render_kpi, balanced(kpi_candidates), difficulty="hard"))
register(Template("incident_affected_count", "incident", "integer", pop.affected_reference, pop.affected_sql,
                  pop.either(render_affected, pop.render_threshold, lambda q: q.p("rule") == "threshold"),
                  balanced(pop.chain(affected_candidates, pop.threshold_candidates)), difficulty="hard",
                  naive=pop.pref.threshold_count_naive, natural=natural_pop.incident_affected_count))
register(Template("incident_top_k", "incident", "ranking", ref.incident_top_k, sql.incident_top_k,
                  render_top_k, balanced(top_k_candidates), difficulty="hard"))
register(Template("incident_worst_entity", "incident", "entity", ref.incident_worst_entity,
                  sql.incident_worst_entity, render_worst, balanced(worst_candidates), difficulty="hard"))
register(Template("incident_vs_baseline", "incident", "boolean", pop.vs_baseline_reference, pop.vs_baseline_sql,
                  pop.either(render_vs_baseline, pop.render_population, lambda q: q.p("baseline_entities") is not None),
                  balanced(pop.chain(vs_baseline_candidates, pop.population_candidates)), difficulty="hard",
                  naive=pop.pref.vs_population_naive, natural=natural_pop.incident_vs_baseline))
register(Template("incident_cross_entity", "incident", "number", ref.incident_kpi, sql.incident_kpi,
                  render_kpi, balanced(cross_candidates), difficulty="hard"))
