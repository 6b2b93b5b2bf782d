"""``parent_sequence_count`` (issue 19): scoping by the parent entity.

"How many users had a session with a product view followed by an add-to-cart on 2 January?" — the
children (sessions) satisfy a stateful condition (an A event, later a B event, in the same child),
the answer counts their parents (users). The naive reading counts the children. Executors:
``reference/parents.py`` (pandas) and ``sql/parents.py``.
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.natural.words import article, clean, cond, period, population, rows, spaced
from tools.queries.reference import parents as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import plural, row_noun, window_words
from tools.queries.sql import parents as sql
from tools.queries.templates.common import base_spec
from tools.queries.templates.stateless import cond as precise_cond
from tools.queries.templates.stateless import event_filters, live_filters, parent_columns

NAME = "parent_sequence_count"


def candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        preds = [p for p in event_filters(ctx, t) if p.op == "=="]
        for par in parent_columns(t):
            efs = [None, *[f for f in live_filters(ctx, t) if f.table == par.table][:1]]
            pairs = [(a, b) for a in preds for b in preds if a.column == b.column and a != b]
            for a, b in [ab for ab in ctx.pick(pairs, 8) if _occurs(ctx, t, par.key, *ab)][:3]:
                for w in [None, *ctx.windows(t, 24, 1)]:
                    for ef in efs:
                        yield Candidate(base_spec(NAME, t, window=w, entity_filter=ef,
                                                  params={"of": par.key, "a": a.model_dump(mode="json"),
                                                          "b": b.model_dump(mode="json")}),
                                        hints={"parent": par.table}, decimals=0)


def _occurs(ctx: SynthContext, t, of: str, a, b) -> bool:
    """Some child has an A row before a B row (else every question on the pair answers 0)."""
    q = base_spec(NAME, t, params={"of": of, "a": a.model_dump(mode="json"), "b": b.model_dump(mode="json")})
    return bool(ctx.scalar(sql.parent_sequence_count(q)))


def _parent(c: Candidate) -> str:
    p = c.hints.get("parent") or str(c.spec.p("of")).removesuffix("_id")
    return p if p.endswith("s") else plural(p)


def render(c: Candidate, ctx: SynthContext) -> str:
    q, t = c.spec, ctx.catalog[c.spec.table]
    r, parent = row_noun(t), _parent(c)
    x, y = (precise_cond(ref_pred(q.p(k)), t) for k in ("a", "b"))
    when = window_words(q.window) if q.window else "over the whole data set"
    return (f"How many distinct {parent} (by {q.p('of')}) had at least one {t.noun} with {article(r[:-1])} with {x} "
            f"followed later in the same {t.noun} by {article(r[:-1])} with {y}, counting {r} {when}? "
            f"{plural(t.noun).capitalize()} are taken from {population(q.entity_filter, t)}; count {parent}, not "
            f"{plural(t.noun)}.")


def ref_pred(d):
    from tools.queries.spec import Predicate

    return Predicate.model_validate(d)


def natural(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    parent = _parent(c)
    who = population(q.entity_filter, t).removeprefix(plural(t.noun)).strip().removeprefix(f"of {parent}").strip()
    x, y = cond(q.p("a"), t), cond(q.p("b"), t)
    return (clean(f"How many {parent}{spaced(who)} had {article(t.noun)} with {x} followed by {y}"
                  f"{spaced(period(q.window))}?"),
            f"A {parent.removesuffix('s')} counts once if one of their {plural(t.noun)} has {article(rows(t)[:-1])} "
            f"with {x} and, later in that {t.noun}, one with {y}{' (both in the period)' if q.window else ''}. Count distinct "
            f"{q.p('of')}, not {plural(t.noun)}.")


register(Template(NAME, "stateful", "integer", ref.parent_sequence_count, sql.parent_sequence_count, render,
                  candidates, naive=ref.parent_sequence_count_naive, natural=natural))
