"""Stateful episode templates: state_reached, alternating_count, cross_window_delta.

States are a visible state/event column's values or, on periodic tables, a predicate at a data
quantile ("in" while it holds). Entering a state = the first row of an episode of it, replayed over
each entity's whole history; the window selects episodes by their start, as the questions say.
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.reference import sequences_states as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import key_words, row_noun, window_words
from tools.queries.sql import sequences_states as sql
from tools.queries.templates.sequences_words import (
    MAX_PER_TABLE,
    earlier,
    entry_words,
    eq,
    ev,
    filters,
    note,
    noun,
    numeric_events,
    paired_windows,
    row1,
    scope,
    sources,
    state_name,
    state_rows,
    transitions,
    who,
)

DAY_S = 86400


def _states(ctx: SynthContext, src) -> list[tuple[dict, str]]:
    """(state, value) pairs: frequent values of visible columns; on periodic tables, rare predicates."""
    t = src.t
    out = [({"column": s.name}, str(v)) for s in t.states for v, _n in ctx.frequent(t.name, s.name, 8)]
    if t.periodic:
        out += [({"predicate": p}, "in") for p in numeric_events(ctx, t, 0.99, 0.01)]
    return out


def _emit(ctx: SynthContext, src, name: str, params: list[dict], windows: list, **cand):
    out = [Candidate(src.spec(name, w, ef, p), hints=src.hints(), **cand)
           for p in params for w in windows for ef in filters(ctx, src)]
    return ctx.pick(out, MAX_PER_TABLE)


# ---------------------------------------------------------------- state_reached
def _reached_candidates(ctx: SynthContext):
    for src in sources(ctx):
        t = src.t
        params = [{"state": s, "value": v} for s, v in ctx.pick(_states(ctx, src), 5)]
        yield from _emit(ctx, src, "state_reached", params, ctx.windows(t, 24, 1) + ctx.windows(t, 12, 1),
                         decimals=0)


def _render_reached(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    n, v = noun(c, t), c.spec.p("value")
    return (f"How many {who(c, t)} entered {state_name(c.spec.p('state'), v, t)} {scope(c.spec.window)}?"
            f"{note(c)} {entry_words(c, t, v)} Count {n}s, not {row_noun(t)}: a {n} counts once however often it "
            f"enters, and a {n} already in that state when the window starts counts only if it enters it again "
            "inside the window.")


# ---------------------------------------------------------------- alternating_count
def _alternating_candidates(ctx: SynthContext):
    for src in sources(ctx):
        t = src.t
        trips: list[tuple[dict, str, str]] = []
        for s in t.states:
            tr = transitions(ctx, src, s.name)
            seen = {(a, b) for a, b, _n in tr}
            trips += [({"column": s.name}, a, b) for a, b, _n in tr if (b, a) in seen]
        if t.periodic:
            trips += [({"predicate": p}, "out", "in") for p in numeric_events(ctx, t, 0.95, 0.05)]
        params = [{"state": s, "a": a, "b": b, "k": k} for s, a, b in ctx.pick(trips, 5) for k in (None, 2, 3)]
        yield from _emit(ctx, src, "alternating_count", params, [None, *ctx.windows(t, 24, 1)], decimals=0)


def _render_alternating(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q, n = c.spec, noun(c, t)
    st, k = q.p("state"), q.p("k")
    a, b = state_name(st, q.p("a"), t), state_name(st, q.p("b"), t)
    rows_a, rows_b = state_rows(st, q.p("a"), t), state_rows(st, q.p("b"), t)
    trip = (f"A round trip is a run of consecutive {rows_b} directly preceded and directly followed by "
            f"{rows_a} of the same {n}; back-to-back trips share the run between them.")
    if q.window is not None:
        trip += (f" A trip counts when the first {row1(t)} of its {b} run falls {window_words(q.window)}, even "
                 "if the return comes later.")
    if k is None:
        return f"How many round trips from {a} to {b} and back did {who(c, t)} make?{note(c)} {trip}"
    return (f"How many {who(c, t)} made at least {k} round trips from {a} to {b} and back?{note(c)} {trip} "
            f"Count {n}s, not trips.")


# ---------------------------------------------------------------- cross_window_delta
def _delta_candidates(ctx: SynthContext):
    for src in sources(ctx):
        t = src.t
        measures: list[dict] = [{"measure": "entries", "state": s, "value": v} for s, v in ctx.pick(_states(ctx, src), 3)]
        if t.periodic:
            measures += [{"measure": "mean", "key": k.name} for k in ctx.pick(list(t.keys), 2)]
        else:
            measures += [{"measure": "events", "event": eq(s.name, v)} for s in t.states
                         for v, _n in ctx.frequent(t.name, s.name, 2)]
        out = []
        for m in measures:
            mean = m["measure"] == "mean"
            params = [{**m, "offset_s": DAY_S}]
            out += _emit(ctx, src, "cross_window_delta", params,
                         paired_windows(ctx, t, 6, 1) + paired_windows(ctx, t, 24, 1),
                         decimals=2 if mean else 0, unit=t.key(m["key"]).unit if mean else None)
        yield from ctx.pick(out, MAX_PER_TABLE)


def _render_delta(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    m = q.p("measure")
    early, late = window_words(earlier(q.window, q.p("offset_s"))), window_words(q.window)
    extra, tail = "", "Give a whole number."
    if m == "entries":
        what = f"number of entries into {state_name(q.p('state'), q.p('value'), t)} by {who(c, t)}"
        extra = f" {entry_words(c, t, q.p('value'))} An entry belongs to the window its {row1(t)} falls in."
    elif m == "events":
        what = f"number of {ev(q.p('event'), t, many=True)} from {who(c, t)}"
    else:
        what = f"mean {key_words(t.key(q.p('key')))} over all {row_noun(t)} from {who(c, t)}"
        tail = "Round to 2 decimal places."
    return (f"By how much did the {what} change from the earlier window ({early}) to the later window ({late})?"
            f"{note(c)}{extra} Answer the later value minus the earlier value (negative if it fell). {tail}")


register(Template("state_reached", "stateful", "integer", ref.state_reached, sql.state_reached,
                  _render_reached, _reached_candidates, naive=ref.state_reached_naive, difficulty="easy"))
register(Template("alternating_count", "stateful", "integer", ref.alternating_count, sql.alternating_count,
                  _render_alternating, _alternating_candidates, naive=ref.alternating_count_naive,
                  difficulty="hard"))
register(Template("cross_window_delta", "stateful", "number", ref.cross_window_delta, sql.cross_window_delta,
                  _render_delta, _delta_candidates, naive=ref.cross_window_delta_naive))
