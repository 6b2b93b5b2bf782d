"""Grouped state-machine questions and the global transition ranking (issue 19).

- ``transition_count_by``: "How many times did sessions go from page product to page cart, by country?"
- ``occupancy_by``: "What share of their time did sessions spend on page cart on 2 January, by referrer?"
- ``reached_by``: "How many sessions reached page checkout on 2 January, by country?"
- ``top_transitions``: "What were the 3 most frequent page transitions on 2 January?"

Answers: a mapping group → figure (the first three), a ranking of "A > B" transitions with counts.
Executors: ``reference/states_grouped.py`` (pandas), ``sql/states_grouped.py``. Candidates reuse the
state statistics of ``templates/states_candidates.py`` (visible state columns only: a predicated
state's "in"/"out" has no transitions worth ranking).
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.natural.words import article, clean, period, population, rows, spaced
from tools.queries.natural.words import state as state_words
from tools.queries.reference import states_grouped as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import humanize, plural
from tools.queries.sql import states_grouped as sql
from tools.queries.templates.common import base_spec
from tools.queries.templates.states_candidates import capped, filters, states, windows


def _grouped(name: str, info, attr, w, ef, **params) -> Candidate:
    via = {"table": attr.table, "key": attr.key, "ref": attr.ref} if attr.table else None
    p = {"state": info.state, **params, **({"group_via": via} if via else {})}
    return Candidate(base_spec(name, info.t, window=w, entity_filter=ef, group_by=attr.name, params=p),
                     hints={"group_table": attr.table}, unit="%" if name == "occupancy_by" else None,
                     decimals=2 if name == "occupancy_by" else 0)


def transition_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        for a in info.ending()[:3]:
            for b, _n, _m in info.successors(a)[:2]:
                for attr in ctx.pick(list(info.t.attrs), 2):
                    for w in windows(ctx, info.t, 1):
                        by.setdefault(info.t.name, []).append(
                            _grouped("transition_count_by", info, attr, w, None, value=a, to=b))
    return capped(ctx, by)


def occupancy_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        if info.t.periodic:  # regular cadence: share of time is share of rows
            continue
        for a in info.ending()[:3]:
            for attr in ctx.pick(list(info.t.attrs), 2):
                for w in windows(ctx, info.t, 1):
                    by.setdefault(info.t.name, []).append(_grouped("occupancy_by", info, attr, w, None, value=a))
    return capped(ctx, by)


def reached_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        targets = sorted({b for _a, b, _n, _m in info.pairs} - {info.start, info.baseline})
        for a in targets[:4]:
            for attr in ctx.pick(list(info.t.attrs), 2):
                for w in windows(ctx, info.t, 1, none=False):
                    by.setdefault(info.t.name, []).append(_grouped("reached_by", info, attr, w, None, value=a))
    return capped(ctx, by)


def top_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        if not info.repeats or len(info.pairs) < 5:
            continue
        for k in (3, 5):
            for w in windows(ctx, info.t, 2):
                for ef in filters(ctx, info.t):
                    by.setdefault(info.t.name, []).append(Candidate(
                        base_spec("top_transitions", info.t, window=w, entity_filter=ef,
                                  params={"state": info.state, "k": k}), decimals=0))
    return capped(ctx, by)


# ---------------------------------------------------------------- wording
def _col(q) -> str:
    st = q.p("state")
    return humanize(st["column"]) if "column" in st else "condition"


def _group(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    """('country', 'the country of the user it belongs to' / 'the referrer on that event')."""
    q, t = c.spec, ctx.catalog[c.spec.table]
    g = humanize(q.group_by)
    via = q.p("group_via")
    if via is None:
        return g, f"the {g} on that {rows(t)[:-1]}"
    owner = via["table"].removesuffix("s")
    return g, (f"the {t.noun}'s {g}" if via["key"] == t.entity else f"the {g} of the {owner} it belongs to")


def _natural_transition(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    st, g = q.p("state"), _group(c, ctx)
    a, b = state_words(st, q.p("value"), t), state_words(st, q.p("to"), t)
    return (clean(f"How many times did {population(q.entity_filter, t)} go from {a} to {b}"
                  f"{spaced(period(q.window))}, by {g[0]}?"),
            f"A transition is a change of {article(t.noun)}'s {_col(q)} from '{q.p('value')}' directly to "
            f"'{q.p('to')}' between two consecutive {rows(t)} of it, counted at the first {rows(t)[:-1]} with "
            f"'{q.p('to')}'{' (in the period)' if q.window else ''} and grouped by {g[1]}.")


def _natural_occupancy(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    g = _group(c, ctx)
    name = state_words(q.p("state"), q.p("value"), t)
    return (clean(f"What share of their time did {population(q.entity_filter, t)} spend in {name}"
                  f"{spaced(period(q.window))}, by {g[0]}?"),
            f"By time, not {rows(t)}: each {rows(t)[:-1]}'s {_col(q)} lasts until the same {t.noun}'s next "
            f"{rows(t)[:-1]} (last {rows(t)} left out{'; intervals starting in the period' if q.window else ''}), "
            f"grouped by {g[1]}. Percent of each group's time, 2 decimals.")


def _natural_reached(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    g = _group(c, ctx)
    name = state_words(q.p("state"), q.p("value"), t)
    return (clean(f"How many {population(q.entity_filter, t)} reached {name}{spaced(period(q.window))}, "
                  f"by {g[0]}?"),
            f"Reaching it = the first {rows(t)[:-1]} of a run of {rows(t)} with it{' in the period' if q.window else ''}"
            f"; count distinct {plural(t.noun)} per group, the group being {g[1]}.")


def _natural_top(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    k, col = q.p("k", 3), _col(q)
    return (clean(f"What were the {k} most frequent {col} transitions of {population(q.entity_filter, t)}"
                  f"{spaced(period(q.window))}?"),
            f"A transition 'x > y' is a change of {article(t.noun)}'s {col} from x to y between two consecutive "
            f"{rows(t)} of it (staying is none){', counted when y starts in the period' if q.window else ''}; "
            "all of them together, ranked by count, ties alphabetically, with each count.")


def _precise(fn):
    def render(c: Candidate, ctx: SynthContext) -> str:
        question, evidence = fn(c, ctx)
        return f"{question} {evidence}"
    return render


for _name, _atype, _cands, _nat in (
        ("transition_count_by", "mapping", transition_candidates, _natural_transition),
        ("occupancy_by", "mapping", occupancy_candidates, _natural_occupancy),
        ("reached_by", "mapping", reached_candidates, _natural_reached),
        ("top_transitions", "ranking", top_candidates, _natural_top)):
    register(Template(_name, "stateful", _atype, getattr(ref, _name), getattr(sql, _name), _precise(_nat), _cands,
                      naive=getattr(ref, f"{_name}_naive"), natural=_nat))
