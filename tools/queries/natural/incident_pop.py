"""Natural wording of issue 19's incident variants (``tools/queries/templates/incident_pop.py``): a baseline
over another population and affected counts by a threshold. Other candidates of the two templates go to
their usual renderers in ``tools/queries/natural/incident.py``."""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.natural import incident as words
from tools.queries.natural.incident import _h, _inc, _measure, _named, _with_defs, compact
from tools.queries.natural.stateless import rounding
from tools.queries.natural.words import clean
from tools.queries.registry import Candidate
from tools.queries.render import fmt_num, plural, unit_words
from tools.queries.templates.incident_pop import OP_WORDS


@_with_defs
def _vs_population(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    dirw = "higher" if q.p("direction") == "up" else "lower"
    nouns = plural(inc.t.noun)
    if h["scope"] == "peers":
        versus = _h(c, "versus", ctx=ctx).removeprefix("the ")
        than = f"the other {versus.removesuffix(' not affected by it')}" if versus.endswith(" not affected by it") \
            else f"the {versus}"
        base = f"Baseline: {than} (all but the affected ones), over the same period."
    else:
        than = f"all {nouns} at baseline"
        base = f"Baseline: all {nouns}, the affected ones included, over {_named(ctx, h['baseline'])}."
    if q.p("figure") == "ratio":
        fig, ev = "by what factor", "Factor = the first value divided by the baseline value, 2 decimals."
    else:
        fig, ev = "by how much", "Difference = the first value minus the baseline value. " + rounding(c.decimals)
    return (clean(f"{_h(c, 'when', ctx=ctx)}, was {_measure(inc, c)} {dirw} for {_h(c, 'who', ctx=ctx)} than for "
                  f"{than}, and {fig}?"),
            f"{base} Over all their {words.rows_noun(inc)} in those periods. Answer yes or no with the figure. {ev}")


@_with_defs
def _threshold(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q = _inc(ctx, c), c.spec
    kw = compact(words.key_words(inc, q.p("key")))
    thr = fmt_num(q.p("value"), 6)
    u = unit_words(inc.t.key(q.p("key")).unit)
    op = OP_WORDS[q.p("op")]
    one = words.rows_noun(inc)[:-1]
    of = "of " if op.startswith("at ") else ""  # 'had latency of at least 20', 'had latency above 20'
    return (clean(f"{_h(c, 'when', ctx=ctx)}, how many {_h(c, 'pop', ctx=ctx)} had {kw} {of}{op} {thr}?"),
            f"A {inc.t.noun} counts when at least one of its {one}s in that period has {kw} {op} {thr}"
            f"{' ' + u if u else ''}.")


def incident_vs_baseline(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    """Baselines over another population here; the rest as ``natural/incident.py`` words them."""
    if c.spec.p("baseline_entities") is not None:
        return _vs_population(c, ctx)
    return words.incident_vs_baseline(c, ctx)


def incident_affected_count(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    """Threshold counts here; the rest as ``natural/incident.py`` words them."""
    if c.spec.p("rule") == "threshold":
        return _threshold(c, ctx)
    return words.incident_affected_count(c, ctx)
