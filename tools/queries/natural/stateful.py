"""Natural wording of the stateful templates: (question, evidence).

The question names the events and states as users say them; the evidence carries the pairing rule,
what entering or an episode means, which window selects what, and the rounding. Generic
definitions (episode, entering) are in the preamble too; evidence repeats the ones a question needs.
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.natural.words import article, clean, cond, event, period, population, rows, spaced, state
from tools.queries.registry import Candidate
from tools.queries.render import fmt_duration, humanize, plural
from tools.queries.templates.sequences_words import earlier, entry_words
from tools.queries.templates.states_words import episode_def


def _parts(c: Candidate, ctx: SynthContext):
    q = c.spec
    t = ctx.catalog[q.table]
    return q, t, c.hints.get("noun", t.noun)


def _who(c: Candidate, ctx: SynthContext) -> str:
    q, t, n = _parts(c, ctx)
    return population(q.entity_filter, t, n)


def _note(c: Candidate) -> str:
    return f" {c.hints['note']}" if c.hints.get("note") else ""


def _started(w) -> str:
    """' that started on 3 January' (entities selected by their first row)."""
    return f" that started {period(w)}" if w is not None else ""


def _anchor(c: Candidate, ctx: SynthContext, a: str) -> str:
    """Evidence on which entities the period selects (by their first A)."""
    q, _t, n = _parts(c, ctx)
    if q.window is None:
        return ""
    return f" Only {plural(n)} whose first {a} (over all the data) falls in the period count."


def avg_time_between(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    a, b = cond(q.p("a"), t), cond(q.p("b"), t)
    r = rows(t)[:-1]
    if q.p("pairing") == "each":
        return (clean(f"On average, how long after each {r} with {a} did {_who(c, ctx)} next log one with {b}"
                      f"{spaced(period(q.window))}?"),
                f"Pairing: every {r} with {a} (in the period) to the first {r} with {b} of the same {n} strictly "
                f"after it; one with no such later {r} is left out, several may pair with the same one. Mean over "
                "all pairs, to the nearest second." + _note(c))
    return (clean(f"How long did {_who(c, ctx)} take on average to go from {a} to {b}{spaced(period(q.window))}?"),
            f"Pairing: per {n}, from its first {r} with {a} to its first {r} with {b} after that one; "
            f"{plural(n)} with no such later {r} are left out. Mean over {plural(n)}, to the nearest second."
            + _anchor(c, ctx, f"{r} with {a}") + _note(c))


def sequence_match(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    chain = ", then ".join(cond(s, t) for s in q.p("steps"))
    only = "" if q.window is None else f" Only {rows(t)} in the period count."
    return (clean(f"How many {_who(c, ctx)} went through {chain}{spaced(period(q.window))}?"),
            f"In this order, as a sub-sequence: other {rows(t)} may come in between; each step is a different, "
            f"later {rows(t)[:-1]} than the one before. Count {plural(n)}.{only}" + _note(c))


def count_after_trigger(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    x, y, h = cond(q.p("x"), t), cond(q.p("y"), t), fmt_duration(q.p("horizon_s"))
    when = "" if q.window is None else f" The period selects the later {rows(t)}; the earlier one may fall before it."
    return (clean(f"How many {event(q.p('x'), t, many=True)} from {_who(c, ctx)} came within {h} after {y}"
                  f"{spaced(period(q.window))}?"),
            f"'Within {h}': at most {h} after a strictly earlier {rows(t)[:-1]} with {y} of the same {n} "
            f"(both ends included). Count each {rows(t)[:-1]} with {x} once, however many precede it.{when}"
            + _note(c))


def conversion_rate(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    a, b = cond(q.p("a"), t), cond(q.p("b"), t)
    r = rows(t)[:-1]
    later = "" if q.window is None else " (even after the period)"
    return (clean(f"What share of {_who(c, ctx)} with {a} later had {b}{spaced(period(q.window))}?"),
            f"Among {plural(n)} with {article(r)} with {a}: the percentage with {article(r)} with {b} at any time after their "
            f"first {r} with {a}{later}. Count {plural(n)}, not {rows(t)}. Percentage to 1 decimal."
            + _anchor(c, ctx, f"{r} with {a}") + _note(c))


def count_in_state(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    o, z = cond(q.p("open"), t), q.p("close")
    cart = "cart" in str(q.p("open").get("value", ""))
    term = "the cart is open" if cart else "flagged"
    until = f"its first {rows(t)[:-1]} with {cond(z, t)} after that (or the end of the data)" if z else \
        "the end of the data"
    when = spaced(period(q.window))
    question = (f"How many {event(q.p('x'), t, many=True)} did {_who(c, ctx)} log while "
                f"{'the cart was open' if cart else 'flagged'}{when}?")
    return (clean(question),
            f"'{term.capitalize()}': {article(n)} from its first {rows(t)[:-1]} with {o} until {until}; the opening and "
            f"closing {rows(t)} are not inside, and it opens only once." + _note(c))


def state_reached(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    v = q.p("value")
    return (clean(f"How many {_who(c, ctx)} entered {state(q.p('state'), v, t)}{spaced(period(q.window))}?"),
            entry_words(c, t, v) + f" Count {plural(n)}, not {rows(t)}: once however often; one already in it "
            "when the period starts counts only if it enters again inside." + _note(c))


def alternating_count(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    st, k = q.p("state"), q.p("k")
    a, b = state(st, q.p("a"), t), state(st, q.p("b"), t)
    trip = (f"A round trip is a run of consecutive {rows(t)} with {b} directly preceded and followed by "
            f"{rows(t)} with {a} of the same {n}; back-to-back trips share the run between them.")
    if q.window is not None:
        trip += f" A trip counts when the first {rows(t)[:-1]} of its {b} run falls in the period."
    when = spaced(period(q.window))
    if k is None:
        return (clean(f"How many round trips from {a} to {b} and back did {_who(c, ctx)} make{when}?"),
                trip + _note(c))
    return (clean(f"How many {_who(c, ctx)} went from {a} to {b} and back at least {k} times{when}?"),
            trip + f" Count {plural(n)}, not trips." + _note(c))


def cross_window_delta(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    m = q.p("measure")
    early = earlier(q.window, q.p("offset_s"))
    extra, tail = "", "Whole number."
    if m == "entries":
        what = f"entries into {state(q.p('state'), q.p('value'), t)}"
        extra = " " + entry_words(c, t, q.p("value")) + f" An entry belongs to the period its {rows(t)[:-1]} is in."
    elif m == "events":
        what = event(q.p("event"), t, many=True)
    else:
        what = f"the average {humanize(q.p('key'))}"
        tail = "Round to 2 decimals."
    how = "How much did" if m == "mean" else "By how much did the number of"
    return (clean(f"{how} {what} of {_who(c, ctx)} change {period(q.window)}, against the same hours a day "
                  "earlier?"),
            f"The earlier period is {period(early)}. The later period's value minus the earlier one's "
            f"(negative if it fell).{extra} {tail}" + _note(c))


def _episode(c: Candidate, ctx: SynthContext, v=None) -> str:
    q, t, _n = _parts(c, ctx)
    return episode_def(q.p("state"), q.p("value") if v is None else v, t, ctx)


def state_duration(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    name = state(q.p("state"), q.p("value"), t)
    to = q.p("to")
    ending = f" before going to {state(q.p('state'), to, t)}" if to else ""
    by = f" per {humanize(q.group_by)}" if q.group_by else ""
    ev = [f"Average over completed episodes{' that started in the period' if q.window else ''}"
          + (f"; only those that ended by entering {state(q.p('state'), to, t)} count" if to else "") + ".",
          _episode(c, ctx), "An episode still open at the end of the data is left out; each "
          f"{n}'s whole history is used to find where an episode ends."]
    if q.group_by:
        via = q.p("group_via")
        src = f"from the {via['table']} table, matched on {via['key']}" if via else \
            f"the value on the {rows(t)[:-1]} where the episode starts"
        ev.append(f"{humanize(q.group_by)}: {src}; episodes without one are left out.")
    ev.append("Durations to the nearest second.")
    return (clean(f"How long did {_who(c, ctx)} stay in {name}{ending} on average{by}"
                  f"{spaced(period(q.window))}?"), " ".join(ev))


def first_passage_time(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    name = state(q.p("state"), q.p("value"), t)
    r = rows(t)[:-1]
    started = f" Only {plural(n)} whose first {r} falls in the period count." if q.window else ""
    return (clean(f"How long on average did {_who(c, ctx)}{_started(q.window)} take to first reach {name}?"),
            f"Measured from each {n}'s first {r}; reaching it = the first {r} of an episode of it. {_episode(c, ctx)} {article(n).capitalize()} already in it at its "
            f"first {r} counts 0 seconds; {plural(n)} that never reach it are left out.{started} "
            "Nearest second.")


def transition_counts(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    st, v = q.p("state"), q.p("value")
    col = humanize(st["column"]) if "column" in st else "condition"
    return (clean(f"Where did {_who(c, ctx)} go next after {state(st, v, t)}{spaced(period(q.window))}?"),
            f"Count transitions out of '{v}' per next {col}: a change of {article(n)}'s {col} from '{v}' to another "
            f"value between two consecutive {rows(t)} of it (staying is not a transition), timed at the first "
            f"{rows(t)[:-1]} with the new value; each {n}'s whole history is used.")


def common_paths(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    st = q.p("state")
    col = humanize(st["column"]) if "column" in st else "condition"
    m, k = q.p("n", 3), q.p("k", 3)
    started = f" Only {plural(n)} whose first {rows(t)[:-1]} falls in the period count." if q.window else ""
    return (clean(f"What were the top {k} {m}-step {col} paths of {_who(c, ctx)}"
                  f"{_started(q.window)}?"),
            f"A path is {article(n)}'s first {m} {col} values in time order, consecutive repeats merged into one step, "
            f"written 'x > y > z'; {plural(n)} with fewer steps are left out. Rank by number of {plural(n)}, "
            f"ties alphabetically by path, with each path's count.{started}")


def revisit_count(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    name = state(q.p("state"), q.p("value"), t)
    return (clean(f"How many {_who(c, ctx)} returned to {name} after leaving it{spaced(period(q.window))}?"),
            f"{article(n).capitalize()} counts with at least 2 separate episodes of it starting in the period; separate = at least "
            f"one {rows(t)[:-1]} not in it between them. {_episode(c, ctx)} Episodes that began before the "
            "period do not count.")


def state_occupancy(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    st = q.p("state")
    col = humanize(st["column"]) if "column" in st else "condition"
    which = "intervals that start in the period count in full; " if q.window else ""
    return (clean(f"What share of their time did {_who(c, ctx)} spend in each {col}{spaced(period(q.window))}?"),
            f"By time, not {rows(t)}: each {rows(t)[:-1]}'s {col} lasts until the same {n}'s next "
            f"{rows(t)[:-1]}; {which}each {n}'s last {rows(t)[:-1]} is left out. Percentage of the total time "
            "per value, 2 decimals.")


def threshold_without_outcome(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t, n = _parts(c, ctx)
    st = q.p("state")
    ost = q.p("outcome_state") or st
    a, b = state(st, q.p("value"), t), state(ost, q.p("outcome"), t)
    h = fmt_duration(float(q.p("horizon_s")))
    return (clean(f"How many {_who(c, ctx)} hit {a} without reaching {b} within {h}"
                  f"{spaced(period(q.window))}?"),
            f"For each entry into {a} (the first {rows(t)[:-1]} of an episode) in the period, look for "
            f"{article(rows(t)[:-1])} with {b} from the entry (included) to {h} later (included); {article(n)} counts if one of "
            f"its entries has none. Only that {h} matters. {_episode(c, ctx)}")
