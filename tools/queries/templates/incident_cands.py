"""Candidate enumerators of the incident templates (kpi, vs_baseline, cross_entity, top_k, worst_entity).

Each incident yields a main question (the incident named only by its phrase; ground truth on the
manifest window and entities) and contrasts: an unaffected population, a key the incident did not
move, and a disjoint baseline window (the same hours one day earlier), named explicitly.
"""

from __future__ import annotations

from collections.abc import Iterator

from tools.queries.context import SynthContext
from tools.queries.registry import Candidate
from tools.queries.spec import EntityFilter, QuerySpec
from tools.queries.templates.incident_explore import col, entity_table, population_values, ranking, stable
from tools.queries.templates.incident_facts import incidents, nonnegative
from tools.queries.templates.incident_model import Inc, Measure
from tools.queries.templates.incident_words import decimals_for, during, explicit, pop_noun, unit_of, who


def cand(inc: Inc, q: QuerySpec, m: Measure | dict, *, contrast: bool, variant: str, **hints) -> Candidate:
    """A candidate of incident ``inc`` with its rendering hints."""
    mp = m.params() if isinstance(m, Measure) else m
    return Candidate(q, hints={"variant": variant, "difficulty": "medium" if contrast else "hard", **hints},
                     incident_id=inc.id, contrast=contrast, unit=unit_of(inc, mp), decimals=decimals_for(inc, mp))


def base_note(inc: Inc) -> str:
    """'the same hours one day before the ... degradation on 2 January'."""
    if "one day earlier" in inc.baseline_rel:
        return f"the same hours one day before {inc.phrase}"
    if "one day later" in inc.baseline_rel:
        return f"the same hours one day after {inc.phrase}"
    return f"before {inc.phrase}"


def _kpi_measures(inc: Inc) -> list[Measure]:
    """Degraded measures, with a stuck key's range replaced by its mean (the stuck value)."""
    out = []
    for m in inc.measures:
        m2 = Measure(m.key, "mean", m.direction) if m.agg == "range" else m
        if m2 not in out:
            out.append(m2)
    return out


def values(inc: Inc, template: str, window, pop, m: Measure, **params) -> QuerySpec:
    """The QuerySpec of measure ``m`` over population ``pop`` in ``window``."""
    return inc.spec(template, window=window, entity_filter=pop, event_filter=list(m.event_filter),
                    params={**m.params(), **params})


def _aggregates(inc: Inc, template: str, pop: EntityFilter | None, who_main: str, who_ref: str,
                rest: list[tuple[EntityFilter, str]]) -> Iterator[Candidate]:
    """Main, unaffected-population (``rest``), baseline-window and calm-key variants of an aggregate."""
    ms = _kpi_measures(inc)
    for m in ms:
        yield cand(inc, values(inc, template, inc.window, pop, m), m, contrast=False, variant="main",
                   when=during(inc), who=who_main)
    for m in ms[:2]:
        for f, words in rest:
            yield cand(inc, values(inc, template, inc.window, f, m), m, contrast=True, variant="other_pop",
                       when=during(inc), who=words)
        if inc.baseline is not None:
            yield cand(inc, values(inc, template, inc.baseline, pop, m), m, contrast=True,
                       variant="baseline_window", when=explicit(inc.baseline, inc, base_note(inc)), who=who_ref)
    for m in inc.calm[:2]:
        yield cand(inc, values(inc, template, inc.window, pop, m), m, contrast=True, variant="calm_key",
                   when=during(inc), who=who_main)


def kpi_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """Aggregate over the affected entities during the incident, plus contrasts."""
    for inc in incidents(ctx):
        rest = [(f, who(inc, "others", f)) for f in inc.others[:2]]
        yield from _aggregates(inc, "incident_kpi", inc.affected, who(inc, "affected"), who(inc, "affected_ref"), rest)


def cross_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """Cascade children: an aggregate over the entities related to the previous level."""
    for inc in incidents(ctx):
        if inc.relation is not None:
            rest = [inc.relation_not] if inc.relation_not else []
            yield from _aggregates(inc, "incident_cross_entity", inc.relation, inc.relation_words,
                                   inc.relation_words, rest)


def vs_baseline_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """In-incident aggregate against the same population's baseline window ("by what factor")."""
    for inc in incidents(ctx):
        if inc.baseline is None:
            continue
        b = {"start": inc.baseline.start, "end": inc.baseline.end}
        ms = [m for m in inc.measures if m.agg != "sum" or Measure(m.key, "mean", m.direction) not in inc.measures]
        todo = [(m, inc.affected, m.direction, False, "main", who(inc, "affected")) for m in ms]
        todo += [(m, f, m.direction, True, "other_pop", who(inc, "others", f)) for m in ms[:2] for f in inc.others[:2]]
        todo += [(m, inc.affected, "up", True, "calm_key", who(inc, "affected")) for m in inc.calm[:2]]
        bases = population_values(ctx, inc, [(pop, m, inc.baseline) for m, pop, *_ in todo])
        for (m, pop, direction, contrast, variant, words), vb in zip(todo, bases, strict=True):
            positive = m.agg in ("range", "std", "rows", "nulls", "entities") or nonnegative(ctx, inc, m.key)
            fig = "ratio" if positive and vb else "difference"  # no factor of a zero (or signed) baseline
            q = values(inc, "incident_vs_baseline", inc.window, pop, m, direction=direction, baseline=b, figure=fig)
            c = cand(inc, q, m, contrast=contrast, variant=variant, when=during(inc), baseline=inc.baseline_rel,
                     who=words)
            yield Candidate(c.spec, c.hints, c.incident_id, c.contrast, unit=c.unit if fig == "difference" else None,
                            decimals=2 if fig == "ratio" else c.decimals)


def populations(inc: Inc) -> list[EntityFilter | None]:
    """Populations to rank or count in, widest first: the whole table, the cascade relation, the
    sub-population. Enumerators stop at the first that works: a narrower one giving the same answer
    would be a clause that filters nothing (QUESTION-STYLE rule 9)."""
    out: list[EntityFilter | None] = []
    for f in [None] + ([inc.relation] if inc.relation is not None else []) + [inc.subpop]:
        if f not in out:
            out.append(f)
    return out


def _rank_measures(inc: Inc) -> list[Measure]:
    return [m for m in inc.measures if m.agg in ("mean", "max", "min", "sum", "range", "std")]


def top_k_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """The k entities with the largest (smallest, for drops) aggregate during the incident. Kept only
    where the ranking's labels survive a one-step window shift (checked here: see ``stable``)."""
    for inc in incidents(ctx):
        if not inc.per_entity:
            continue
        k = len(inc.ids) if 2 <= len(inc.ids) <= 5 else 3
        for m in _rank_measures(inc):
            order = "desc" if m.direction == "up" else "asc"
            for pop in populations(inc):
                table = entity_table(ctx, inc, pop)
                top = ranking(table, col(m.agg, m.key, "w"), order, k)
                if top and top[0][0] in inc.ids and stable(table, m.agg, m.key, "w", order, k):
                    break
            else:
                continue
            h = {"pop": pop_noun(inc, pop)}
            q = values(inc, "incident_top_k", inc.window, pop, m, k=k, order=order)
            yield cand(inc, q, m, contrast=False, variant="main", when=during(inc), **h)
            if inc.baseline is not None and stable(table, m.agg, m.key, "b", order, k):
                yield cand(inc, q.model_copy(update={"window": inc.baseline}), m, contrast=True,
                           variant="baseline_window", when=explicit(inc.baseline, inc, base_note(inc)), **h)
        table = entity_table(ctx, inc, None)
        for c in inc.calm[:2]:
            if stable(table, c.agg, c.key, "w", "desc", k):
                q = values(inc, "incident_top_k", inc.window, None, c, k=k, order="desc")
                yield cand(inc, q, c, contrast=True, variant="calm_key", when=during(inc), pop=pop_noun(inc, None))


def _worst(table, m: Measure, base: str | None, order: str) -> str | None:
    """The worst entity by the exploration table (score: in-window aggregate minus the baseline's)."""
    if col(m.agg, m.key, "w") not in table:
        return None
    s = table[col(m.agg, m.key, "w")] - (table[col(m.agg, m.key, base)] if base else 0.0)
    top = ranking(s.to_frame("s"), "s", order, 1)
    return top[0][0] if top else None


def worst_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """The entity whose aggregate moved most against its own baseline during the incident."""
    for inc in incidents(ctx):
        if not inc.per_entity:
            continue
        b = {"start": inc.baseline.start, "end": inc.baseline.end} if inc.baseline is not None else "rest"
        bname = "b" if inc.baseline is not None else "rest"
        for m in _rank_measures(inc):
            flat = m.agg == "range"
            order = "desc" if m.direction == "up" else "asc"
            pop = next((p for p in populations(inc) if _worst(entity_table(ctx, inc, p), m, None if flat else bname,
                                                               order) in inc.ids), False)
            if pop is False:
                continue
            h = {"pop": pop_noun(inc, pop), "baseline": inc.baseline_rel}
            q = values(inc, "incident_worst_entity", inc.window, pop, m, order=order, baseline=None if flat else b)
            yield cand(inc, q, m, contrast=False, variant="main", when=during(inc), **h)
            for f in inc.others[:1]:
                yield cand(inc, q.model_copy(update={"entity_filter": f}), m, contrast=True, variant="other_pop",
                           when=during(inc), **{**h, "pop": pop_noun(inc, f)})
        for c in inc.calm[:1]:
            cq = values(inc, "incident_worst_entity", inc.window, None, c, order="desc", baseline=b)
            yield cand(inc, cq, c, contrast=True, variant="calm_key", when=during(inc), pop=pop_noun(inc, None),
                       baseline=inc.baseline_rel)
