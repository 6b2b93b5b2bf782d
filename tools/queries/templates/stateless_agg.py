"""Stateless templates on one key's values: attribute_mean, attribute_std, attribute_percentile,
attribute_extreme, conditional_aggregate and group_aggregate (executors in reference/sql ``stateless``)."""

from __future__ import annotations

from tools.queries.catalog import Key, TableView
from tools.queries.context import SynthContext
from tools.queries.reference import stateless as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import (
    humanize,
    key_words,
    plural,
    rounding_words,
    row_noun,
    unit_words,
    window_words,
)
from tools.queries.spec import Predicate
from tools.queries.sql import stateless as sql
from tools.queries.templates.common import base_spec, state_predicates
from tools.queries.templates.stateless import (
    answer_unit,
    cond,
    conds,
    counter_keys,
    event_filters,
    fit_hours,
    group_words,
    live_filters,
    who,
)

PERCENTILES = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99)


def _dec(k: Key) -> int:
    """Decimals for a statistic of ``k``: at least 2, more for finely recorded keys."""
    return max(2, k.decimals or 0)


def _rows(c: Candidate, ctx: SynthContext) -> str:
    """'readings with device_state 'operational' from sensors whose zone is 'office''."""
    t = ctx.catalog[c.spec.table]
    flt = f" with {conds(c.spec.event_filter, t)}" if c.spec.event_filter else ""
    return f"{row_noun(t)}{flt} from {who(c, ctx)}"


def _state_filters(ctx: SynthContext, t: TableView) -> list[list[Predicate]]:
    return [[p] for p in state_predicates(ctx, t, 2)]


def _key_candidates(name: str, hours=(6, 12, 24), params=None, decimals=_dec):
    """Per table and key: windows of several lengths, with/without an entity filter or state filter."""
    def gen(ctx: SynthContext):
        for t in ctx.catalog.tables.values():
            if not t.keys:
                continue
            efs = [None, *ctx.pick(live_filters(ctx, t), 1)]
            flts = [[], *ctx.pick(_state_filters(ctx, t), 1)]
            for k in ctx.pick(list(t.keys), 3):
                for h in ctx.pick(list(hours), 2):
                    for w in ctx.windows(t, h, 1):
                        for ef in efs:
                            for flt in flts:
                                extra = params(ctx, k) if params else {}
                                yield Candidate(base_spec(name, t, window=w, entity_filter=ef, event_filter=flt,
                                                          params={"key": k.name, **extra}),
                                                unit=answer_unit(k), decimals=decimals(k))
    return gen


def _render_mean(c: Candidate, ctx: SynthContext) -> str:
    k = ctx.catalog[c.spec.table].key(c.spec.p("key"))
    return (f"What was the mean {key_words(k)} over all {_rows(c, ctx)}, {window_words(c.spec.window)}? "
            f"{rounding_words(c.decimals)}")


def _render_std(c: Candidate, ctx: SynthContext) -> str:
    k = ctx.catalog[c.spec.table].key(c.spec.p("key"))
    return (f"What was the sample standard deviation (dividing by n - 1) of {key_words(k)} over all "
            f"{_rows(c, ctx)}, {window_words(c.spec.window)}? {rounding_words(c.decimals)}")


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 95th."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _pick_p(ctx: SynthContext, k: Key) -> dict:
    return {"p": ctx.pick(list(PERCENTILES), 1)[0]}


def _render_percentile(c: Candidate, ctx: SynthContext) -> str:
    k = ctx.catalog[c.spec.table].key(c.spec.p("key"))
    n = round(100 * c.spec.p("p"))
    what = "median (50th percentile)" if n == 50 else f"{ordinal(n)} percentile"
    return (f"What was the {what} of {key_words(k)} over all {_rows(c, ctx)}, {window_words(c.spec.window)}? "
            f"Interpolate linearly between the two closest ranks (numpy's default percentile method). "
            f"{rounding_words(c.decimals)}")


def _pick_extreme(ctx: SynthContext, k: Key) -> dict:
    return {"agg": ctx.pick(["max", "min"], 1)[0]}


def _extreme_dec(k: Key) -> int:
    return 0 if k.integer else (k.decimals if k.decimals is not None else 2)


def _render_extreme(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    k = t.key(c.spec.p("key"))
    word = "highest" if c.spec.p("agg") == "max" else "lowest"
    u = unit_words(k.unit)
    return (f"What was the {word} {humanize(k.name)} value recorded in any single one of the {_rows(c, ctx)}, "
            f"{window_words(c.spec.window)}? Give the value as recorded{', in ' + u if u else ''}.")


# ---------------------------------------------------------------- conditional_aggregate

def _conditional_candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        if not t.keys:
            continue
        efs = [None, *ctx.pick(live_filters(ctx, t), 1)]
        counters = {k.name for k in counter_keys(t)}
        for k in ctx.pick(list(t.keys), 3):
            conds_ = [p for p in event_filters(ctx, t) if p.column != k.name]
            for p in ctx.pick(conds_, 2):
                for w in ctx.windows(t, fit_hours(ctx, t, 2000, (6, 12, 24)), 1):
                    for ef in efs:
                        agg = "sum" if k.name in counters and ctx.rng.random() < 0.5 else "mean"
                        yield Candidate(base_spec("conditional_aggregate", t, window=w, entity_filter=ef,
                                                  while_=p, params={"key": k.name, "agg": agg}),
                                        unit=answer_unit(k), decimals=0 if agg == "sum" else _dec(k))


def _render_conditional(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    k = t.key(q.p("key"))
    rows = row_noun(t)
    what = {"mean": f"mean {key_words(k)}", "sum": f"total {key_words(k)} (summed over those {rows})",
            "max": f"highest {key_words(k)}", "min": f"lowest {key_words(k)}"}[q.p("agg", "mean")]
    return (f"Considering only the {rows} from {who(c, ctx)}, {window_words(q.window)}, in which "
            f"{clause(q.while_, t)}, what was the {what}? {rounding_words(c.decimals)}")


def clause(p: Predicate, t: TableView) -> str:
    """'the temperature value was below 4.92 °C', "device_state was 'warning'"."""
    if any(k.name == p.column for k in t.keys):
        return "the " + cond(p, t).replace(humanize(p.column), f"{humanize(p.column)} value was", 1)
    return cond(p, t, "was")


# ---------------------------------------------------------------- group_aggregate

def _group_spec(t: TableView, a, w, **params):
    extra = {} if a.table is None else {"group_table": a.table, "group_key": a.key, "group_ref": a.ref}
    return base_spec("group_aggregate", t, window=w, group_by=a.name, params={**params, **extra})


def _group_candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        attrs = list(t.attrs)
        h = fit_hours(ctx, t, 3000, (12, 24))
        counters = {k.name for k in counter_keys(t)}
        for a in ctx.pick(attrs, 3):
            for k in ctx.pick(list(t.keys), 2):
                agg = "sum" if k.name in counters else ctx.pick(["mean", "mean", "max"], 1)[0]
                for w in ctx.windows(t, h, 1):
                    yield Candidate(_group_spec(t, a, w, key=k.name, agg=agg), unit=answer_unit(k),
                                    decimals=0 if agg == "sum" or (agg == "max" and k.integer) else _dec(k))
            if not t.periodic:
                for p in ctx.pick(state_predicates(ctx, t), 3):
                    for w in ctx.windows(t, h, 1):
                        for agg in ("count", "distinct"):
                            s = _group_spec(t, a, w, agg=agg).model_copy(update={"event_filter": [p]})
                            yield Candidate(s, decimals=0)


def _render_group(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    a = next(x for x in t.attrs if x.name == q.group_by)
    g = group_words(a, t)
    when = window_words(q.window)
    agg = q.p("agg", "mean")
    if agg in ("count", "distinct"):
        cnd = conds(q.event_filter, t)
        leave = f"List only the {a.name} values with at least one."
        if agg == "count":
            return f"For each {g}, how many {row_noun(t)} with {cnd} were recorded, {when}? {leave}"
        return (f"For each {g}, how many distinct {plural(t.noun)} had at least one {row_noun(t)[:-1]} with "
                f"{cnd}, {when}? {leave}")
    k = t.key(q.p("key"))
    rows = f"{row_noun(t)} from {plural(t.noun)}"
    what = {"mean": f"mean {key_words(k)} over all {rows}",
            "sum": f"total {key_words(k)}, summed over all {rows}",
            "max": f"highest {key_words(k)} in any single one of the {rows}",
            "min": f"lowest {key_words(k)} in any single one of the {rows}"}[agg]
    return f"For each {g}, what was the {what}, {when}? {rounding_words(c.decimals)}"


register(Template("attribute_mean", "stateless", "number", ref.attribute_mean, sql.attribute_mean,
                  _render_mean, _key_candidates("attribute_mean", (6, 12)), difficulty="easy"))
register(Template("attribute_std", "stateless", "number", ref.attribute_std, sql.attribute_std,
                  _render_std, _key_candidates("attribute_std", (6, 12, 24))))
register(Template("attribute_percentile", "stateless", "number", ref.attribute_percentile,
                  sql.attribute_percentile, _render_percentile,
                  _key_candidates("attribute_percentile", (6, 12, 24), _pick_p)))
register(Template("attribute_extreme", "stateless", "number", ref.attribute_extreme, sql.attribute_extreme,
                  _render_extreme, _key_candidates("attribute_extreme", (3, 6, 12), _pick_extreme, _extreme_dec),
                  difficulty="easy"))
register(Template("conditional_aggregate", "stateless", "number", ref.conditional_aggregate,
                  sql.conditional_aggregate, _render_conditional, _conditional_candidates,
                  naive=ref.conditional_aggregate_naive))
register(Template("group_aggregate", "stateless", "mapping", ref.group_aggregate, sql.group_aggregate,
                  _render_group, _group_candidates))
