"""Stateful event-sequence templates: avg_time_between, sequence_match, count_after_trigger,
conversion_rate, count_in_state (state_reached, alternating_count and cross_window_delta live in
``sequences_states``).

Events are row predicates on a visible state/event column ("events with action 'add_to_cart'",
"readings with device_state 'warning'") or, on periodic tables, on a measurement at a data quantile
("readings with CPU above 80 percent"). Streams are replayed over each entity's whole history;
the window selects the anchor events, as every question says.
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.reference import sequences as ref
from tools.queries.reference import sequences_rates as rates
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_duration, row_noun, window_words
from tools.queries.sql import sequences as sql
from tools.queries.templates.sequences_words import (
    EVENT_HORIZONS_S,
    MAX_PER_TABLE,
    day_windows,
    eq,
    ev,
    event_pairs,
    filters,
    note,
    noun,
    numeric_events,
    quantiles,
    sources,
    walks,
    who,
)


def _emit(ctx: SynthContext, src, name: str, params: list[dict], windows_per: int = 1, **cand):
    """Candidates for each params × (whole data + ``windows_per`` windows) × filters, at most MAX_PER_TABLE."""
    out = []
    for p in params:
        for w in day_windows(ctx, src.t, 24, windows_per):
            for ef in filters(ctx, src):
                out.append(Candidate(src.spec(name, w, ef, p), hints=src.hints(), **cand))
    return ctx.pick(out, MAX_PER_TABLE)


def _pair_candidates(name: str, **cand):
    def gen(ctx: SynthContext):
        for src in sources(ctx):
            pairs = [{"a": a, "b": b} for a, b in ctx.pick(event_pairs(ctx, src), 5)]
            if name == "avg_time_between":  # issue 19: each A paired with the next B, beside first A to first B
                pairs += [{**p, "pairing": "each"} for p in pairs[::2]]
            yield from _emit(ctx, src, name, pairs, **cand)
    return gen


def _first_a(c: Candidate, ctx: SynthContext) -> str:
    """'the sessions ... whose first event with X occurred <window>' (who the question is about)."""
    t = ctx.catalog[c.spec.table]
    a = ev(c.spec.p("a"), t)
    if c.spec.window is None:
        return f"the {who(c, t)} that had at least one {a}"
    return f"the {who(c, t)} whose first {a} (over the whole data) occurred {window_words(c.spec.window)}"


# ---------------------------------------------------------------- avg_time_between
def _render_avg(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    n = noun(c, t)
    a, b = ev(c.spec.p("a"), t), ev(c.spec.p("b"), t)
    if c.spec.p("pairing") == "each":
        when = "" if c.spec.window is None else f" {window_words(c.spec.window)}"
        return (f"For every {a} of the {who(c, t)}{when}, take the time to the first {b} of the same {n} "
                f"strictly after it (each {a.split(' ', 1)[0]} is paired with the next {b}; one with no {b} after "
                f"it is left out; several of them may pair with the same {b}).{note(c)} What is the mean of these "
                f"times over all such pairs? Round to the nearest second.")
    return (f"Consider {_first_a(c, ctx)}.{note(c)} For each of them, take the time from its first {a} to "
            f"the first {b} after that first {a} (only this pairing; a {n} with no {b} after it is left out). "
            f"What is the mean of these times over the {n}s? Round to the nearest second.")


# ---------------------------------------------------------------- sequence_match
def _sequence_candidates(ctx: SynthContext):
    for src in sources(ctx):
        t = src.t
        seqs: list[list[dict]] = []
        for s in t.states:
            for n in (3, 4):
                seqs += [[eq(s.name, v) for v in w] for w in walks(ctx, src, s.name, n, 2)]
        if t.periodic:
            nums = numeric_events(ctx, t, 0.99, 0.01)
            for _ in range(3):
                seq = ctx.pick(nums, 3)
                if len(seq) == 3:
                    seqs.append([seq[1], seq[0], seq[2]])
        yield from _emit(ctx, src, "sequence_match", [{"steps": s} for s in seqs], decimals=0)


def _render_sequence(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    steps = c.spec.p("steps")
    chain = ", then a later ".join([ev(steps[0], t, art=True)] + [ev(p, t) for p in steps[1:]])
    only = "" if c.spec.window is None else f" Count only {row_noun(t)} {window_words(c.spec.window)}."
    return (f"How many {who(c, t)} have {chain}, in this order?{note(c)} Other {row_noun(t)} may come in "
            f"between, and each step must be a different, later {row_noun(t)[:-1]} than the step before it.{only}")


# ---------------------------------------------------------------- count_after_trigger
def _trigger_candidates(ctx: SynthContext):
    for src in sources(ctx):
        t = src.t
        hs = [k * t.cadence_s for k in (1, 2, 4)] if t.periodic and t.cadence_s else list(EVENT_HORIZONS_S)
        params = [{"x": x, "y": y, "horizon_s": h} for y, x in ctx.pick(event_pairs(ctx, src), 5)
                  for h in ctx.pick(hs, 2)]
        yield from _emit(ctx, src, "count_after_trigger", params, decimals=0)


def _render_trigger(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q, n = c.spec, noun(c, t)
    x, y, h = ev(q.p("x"), t), ev(q.p("y"), t), fmt_duration(q.p("horizon_s"))
    when = "" if q.window is None else f", {window_words(q.window)},"
    before = "" if q.window is None else " (it may fall before the window)"
    return (f"How many {ev(q.p('x'), t, many=True)} from {who(c, t)}{when} occurred within {h} or less after an "
            f"earlier {y} of the same {n}{before}?{note(c)} The earlier {y} must be strictly earlier; count each "
            f"{x} once, however many {ev(q.p('y'), t, many=True)} precede it.")


# ---------------------------------------------------------------- conversion_rate
def _render_conversion(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    n = noun(c, t)
    a, b = ev(c.spec.p("a"), t), ev(c.spec.p("b"), t, art=True)
    later = "" if c.spec.window is None else ", even after the window"
    return (f"Of {_first_a(c, ctx)}, what percentage had {b} after their first {a} (at any later time"
            f"{later})?{note(c)} Count {n}s, not {row_noun(t)}. Give a percentage rounded to 1 decimal place.")


# ---------------------------------------------------------------- count_in_state
def _visible_periods(ctx: SynthContext, src, s) -> tuple[list[dict], list[dict]]:
    """(all, cart) count_in_state params on a visible column: a period opens at a value that changes
    into something (top transitions) and closes at a value seen after it or at the first terminal
    value; X is another frequent non-terminal value. ``cart``: periods opened by a cart value."""
    term = set(s.terminal)
    ends = [{"column": s.name, "op": "in", "value": list(s.terminal)}] if s.terminal else []
    freq = [str(v) for v, _n in ctx.frequent(src.t.name, s.name, 8)]
    pairs = [(a, b) for a, b in event_pairs(ctx, src) if a["column"] == s.name]
    opens = list(dict.fromkeys(a["value"] for a, _b in pairs if a["value"] not in term))
    out = []
    for o in opens:
        closes = [b for a, b in pairs if a["value"] == o][:3] + ends
        out += [{"x": eq(s.name, x), "open": eq(s.name, o), "close": z} for z in closes for x in freq
                if x not in term and x != o and eq(s.name, x) != z]
    cart = [p for p in out if "cart" in p["open"]["value"] and p["close"] in ends and p["x"]["value"] == next(
        (v for v in freq if v not in term and v != p["open"]["value"]), None)]
    return out, cart


def _in_state_candidates(ctx: SynthContext):
    for src in sources(ctx):
        t = src.t
        specs, cart = [], []
        for s in t.states:
            a, c = _visible_periods(ctx, src, s)
            specs, cart = specs + a, cart + c
        if t.periodic:
            highs = [p for p in numeric_events(ctx, t, 0.9, 0.1) if p["op"] == ">"]
            for o in highs:
                med = quantiles(ctx, t, o["column"]).get(0.5)
                close = None if med is None else {"column": o["column"], "op": "<", "value": med}
                specs += [{"x": x, "open": o, "close": close} for x in highs if x["column"] != o["column"]]
        # "views while the cart is open" first, when the data has a cart
        yield from _emit(ctx, src, "count_in_state", ctx.pick(cart, 1) + ctx.pick(specs, 5), decimals=0)


def _render_in_state(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q, n = c.spec, noun(c, t)
    o, z = ev(q.p("open"), t), q.p("close")
    cart = "cart" in str(q.p("open").get("value", ""))
    thing, is_on = (f"a {n}'s cart is open", f"their {n}'s cart was open") if cart else \
        (f"a {n} is flagged", f"their {n} was flagged")
    until = (f"until its first {ev(z, t)} after that (or to the end of the data if there is none)" if z
             else "until the end of the data")
    when = "" if q.window is None else f", counting only {row_noun(t)} {window_words(q.window)}"
    return (f"Say {thing} from its first {o} {until}; the opening and closing {row_noun(t)} themselves are "
            f"not inside, and it opens only once.{note(c)} How many {ev(q.p('x'), t, many=True)} from "
            f"{who(c, t)} occurred while {is_on}{when}?")


register(Template("avg_time_between", "stateful", "duration", ref.avg_time_between, sql.avg_time_between,
                  _render_avg, _pair_candidates("avg_time_between"), naive=ref.avg_time_between_naive,
                  difficulty="hard"))
register(Template("sequence_match", "stateful", "integer", ref.sequence_match, sql.sequence_match,
                  _render_sequence, _sequence_candidates, naive=ref.sequence_match_naive))
register(Template("count_after_trigger", "stateful", "integer", ref.count_after_trigger,
                  sql.count_after_trigger, _render_trigger, _trigger_candidates,
                  naive=ref.count_after_trigger_naive))
register(Template("conversion_rate", "stateful", "number", rates.conversion_rate, sql.conversion_rate,
                  _render_conversion, _pair_candidates("conversion_rate", unit="%", decimals=1),
                  naive=rates.conversion_rate_naive))
register(Template("count_in_state", "stateful", "integer", rates.count_in_state, sql.count_in_state,
                  _render_in_state, _in_state_candidates, naive=rates.count_in_state_naive, difficulty="hard"))
