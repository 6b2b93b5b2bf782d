"""Natural wording of the stateless templates: (question, evidence)."""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.natural.words import article, clean, conds, period, population, rows, spaced
from tools.queries.reference import stateless as ref_stateless
from tools.queries.registry import Candidate
from tools.queries.render import fmt_num, humanize, plural


def rounding(decimals: int) -> str:
    """Evidence sentence on rounding."""
    return "Whole numbers." if decimals == 0 else f"Round to {decimals} decimals."


def _ctx(c: Candidate, ctx: SynthContext):
    q = c.spec
    return q, ctx.catalog[q.table]


def _with(q, t) -> str:
    return f" with {conds(q.event_filter, t)}" if q.event_filter else ""


def event_count(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    return (clean(f"How many {rows(t)}{_with(q, t)} did {population(q.entity_filter, t)} log{spaced(period(q.window))}?"),
            f"Count every matching {rows(t)[:-1]} (rows, not {plural(t.noun)}).")


def distinct_count(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    if q.p("of") is not None:
        parent = c.hints["parent"]
        ef = population(q.entity_filter, t).removeprefix(plural(t.noun)).strip()
        ef = ef.removeprefix(f"of {parent}").strip()
        return (clean(f"How many {parent}{spaced(ef)} had {article(t.noun)} with {article(rows(t)[:-1])} with "
                      f"{conds(q.event_filter, t)}{spaced(period(q.window))}?"),
                f"Count distinct {parent} ({q.p('of')}), not {plural(t.noun)}.")
    return (clean(f"How many {population(q.entity_filter, t)} had {article(rows(t)[:-1])} with {conds(q.event_filter, t)}"
                  f"{spaced(period(q.window))}?"),
            f"Count distinct {plural(t.noun)} ({q.entity}) with at least one such {rows(t)[:-1]}.")


def event_rate(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    hours = fmt_num(ref_stateless.window_hours(q), 2)
    pop = population(q.entity_filter, t)
    if q.p("key") is not None:
        name = humanize(q.p("key"))
        return (clean(f"What was the hourly rate of {name} for {pop}{spaced(period(q.window))}?"),
                f"Hourly rate = the sum of {name} over those {rows(t)} divided by the period's {hours} hours. "
                + rounding(c.decimals))
    return (clean(f"How many {rows(t)}{_with(q, t)} per hour did {pop} log{spaced(period(q.window))}?"),
            f"Per hour = the number of such {rows(t)} divided by the period's {hours} hours. " + rounding(c.decimals))


def _over(c: Candidate, ctx: SynthContext) -> str:
    q, t = _ctx(c, ctx)
    return f"{population(q.entity_filter, t)}{_with(q, t).replace(' with ', ' in ' + rows(t) + ' with ', 1)}"


def attribute_mean(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    return (clean(f"What was the average {humanize(q.p('key'))} of {_over(c, ctx)}{spaced(period(q.window))}?"),
            f"Average = the mean over all matching {rows(t)}. " + rounding(c.decimals))


def attribute_std(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    return (clean(f"What was the standard deviation of {humanize(q.p('key'))} of {_over(c, ctx)}"
                  f"{spaced(period(q.window))}?"),
            f"Sample standard deviation (dividing by n - 1) over all matching {rows(t)}. " + rounding(c.decimals))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def attribute_percentile(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    n = round(100 * q.p("p"))
    what = "median" if n == 50 else f"{_ordinal(n)} percentile"
    return (clean(f"What was the {what} {humanize(q.p('key'))} of {_over(c, ctx)}{spaced(period(q.window))}?"),
            f"The {_ordinal(n)} percentile over all matching {rows(t)}, interpolating linearly between the two "
            f"closest ranks (numpy's default). " + rounding(c.decimals))


def attribute_extreme(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    word = "highest" if q.p("agg") == "max" else "lowest"
    return (clean(f"What was the {word} {humanize(q.p('key'))} reading of {_over(c, ctx)}"
                  f"{spaced(period(q.window))}?"),
            f"The {word} single value, as recorded, over all matching {rows(t)}.")


def conditional_aggregate(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    agg = q.p("agg", "mean")
    word = {"mean": "average", "sum": "total", "max": "highest", "min": "lowest"}[agg]
    key = humanize(q.p("key"))
    return (clean(f"What was the {word} {key} of {population(q.entity_filter, t)} in {rows(t)} with {conds([q.while_], t)}"
                  f"{spaced(period(q.window))}?"),
            f"Only the {rows(t)} with {conds([q.while_], t)} count; the {word} is over those {rows(t)}"
            f"{' (summed)' if agg == 'sum' else ''}. " + rounding(c.decimals))


def group_aggregate(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    a = next(x for x in t.attrs if x.name == q.group_by)
    by = a.name if a.table is None or a.key == t.entity else f"{a.name} of the {a.table.rstrip('s')}"
    where = "" if a.table is None or a.key == t.entity else \
        f" The {a.name} is the one of the {a.table.rstrip('s')} the {t.noun} belongs to ({a.key})."
    agg = q.p("agg", "mean")
    when = spaced(period(q.window))
    if agg == "count":
        return (clean(f"How many {rows(t)} with {conds(q.event_filter, t)} were logged per {by}{when}?"),
                f"List only {a.name} values with at least one such {rows(t)[:-1]}.{where}")
    if agg == "distinct":
        return (clean(f"How many {plural(t.noun)} had {article(rows(t)[:-1])} with {conds(q.event_filter, t)}, per {by}"
                      f"{when}?"),
                f"Count distinct {plural(t.noun)}; list only {a.name} values with at least one.{where}")
    word = {"mean": "average", "sum": "total", "max": "highest", "min": "lowest"}[agg]
    single = " single reading" if agg in ("max", "min") else ""
    return (clean(f"What was the {word} {humanize(q.p('key'))}{single} per {by}{when}?"),
            f"Over all {rows(t)} of {plural(t.noun)}{' (summed)' if agg == 'sum' else ''}.{where} "
            + rounding(c.decimals))


def exists(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    pop = population(q.entity_filter, t)
    return (clean(f"Did any {pop} have {article(rows(t)[:-1])} with {conds(q.event_filter, t)}"
                  f"{spaced(period(q.window))}?"),
            "Answer yes or no.")


def top_k_by_aggregate(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = _ctx(c, ctx)
    k, agg = q.p("k"), q.p("agg")
    pop = population(q.entity_filter, t)
    when = spaced(period(q.window))
    if agg == "count":
        return (clean(f"Which {k} {pop} had the most {rows(t)} with {conds(q.event_filter, t)}{when}?"),
                f"List them from most to fewest with each one's number of such {rows(t)}.")
    best = "highest" if q.p("order") == "desc" else "lowest"
    key = humanize(q.p("key"))
    what = {"mean": f"{best} average {key}", "sum": f"{best} total {key}", "max": f"{best} peak {key}"}[agg]
    defn = {"mean": f"the mean of its {rows(t)}", "sum": f"the sum over its {rows(t)}",
            "max": f"its largest single {rows(t)[:-1]}"}[agg]
    scope = f" Only {plural(t.noun)} with at least one {key} value in the period are ranked." \
        if best == "lowest" else ""
    return (clean(f"Which {k} {pop} had the {what}{when}?"),
            f"Each {t.noun}'s value is {defn}. List them {best} first with each one's value.{scope} "
            + rounding(c.decimals))
