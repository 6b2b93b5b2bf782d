"""Natural wording of the incident templates: (question, evidence).

The incident templates name their population, period and measure with phrases built for the
precise wording; ``compact`` turns those into the short forms the preamble defines (periods,
'with country IND' for "whose country is 'IND'", measures without their unit).
"""

from __future__ import annotations

import re
from datetime import datetime

from tools.queries.context import SynthContext
from tools.queries.natural.stateless import rounding
from tools.queries.natural.words import clean, day, period
from tools.queries.registry import Candidate
from tools.queries.render import fmt_num
from tools.queries.spec import Window
from tools.queries.templates.incident_facts import Inc, incidents
from tools.queries.templates.incident_words import (
    key_words,
    measure_words,
    op_words,
    rows_noun,
    threshold_words,
)

_WHEN = r"(\d{2}:\d{2}(?::\d{2})?) UTC on (\d{1,2} \w+ \d{4})"
_WINDOW = re.compile(rf"from {_WHEN} \(included\) up to {_WHEN} \(excluded\)")
_SUBS = [
    (re.compile(r"belonging to (\w+) whose "), r"of \1 with "),
    (re.compile(r"\b(whose|where) ([\w ]+?) is '([^']+)'"), r"with \2 \3"),
    (re.compile(r"\b(whose|where) ([\w ]+?) is one of "), r"with \2 "),
    (re.compile(r" is '([^']+)'"), r" \1"),
    (re.compile(r"'([^'\s]+)'"), r"\1"),
    (re.compile(r" \((percent|°C|ms|[A-Za-z%/ ]{1,12})\)"), ""),
    (re.compile(r"^all "), ""),
    (re.compile(r"whose \w+ is (the [\w ]+ affected by)"), r"served by \1"),
    (re.compile(r" \(one day (earlier|later)\)"), ""),
    (re.compile(r" that (?:were|was) not affected by (it|the [\w ]+? incident(?: \d+)?)"), r" not affected by \1"),
]
_SAME_HOURS = re.compile(r", (the same hours one day (?:before|after) .+?|before the .+?)(?=,|$)")


def _period(m: re.Match) -> str:
    s = datetime.strptime(f"{m[2]} {m[1][:5]}", "%d %B %Y %H:%M")
    e = datetime.strptime(f"{m[4]} {m[3][:5]}", "%d %B %Y %H:%M")
    return period(Window(start=s.isoformat() + "+00:00", end=e.isoformat() + "+00:00"))


def compact(s: str) -> str:
    """Precise phrases → the short forms the preamble defines."""
    s = _WINDOW.sub(_period, s)
    for rx, rep in _SUBS:
        s = rx.sub(rep, s)
    return s


def _inc(ctx: SynthContext, c: Candidate) -> Inc:
    return next(i for i in incidents(ctx) if i.id == c.incident_id)


def short_names(ctx: SynthContext) -> dict[str, str]:
    """Incident phrase → short name users say ('the 2 January transport link incident'), longest
    phrase first (a knock-on's phrase contains its root's)."""
    key = ("natural", "incident-names")
    if key not in ctx.memo:
        names: dict[str, str] = {}
        for inc in incidents(ctx):
            base = f"the {day(inc.window.start_dt)} {inc.t.noun} incident"
            name, n = base, 2
            while name in names.values():
                name, n = f"{base} {n}", n + 1
            names[inc.phrase] = name
        ctx.memo[key] = dict(sorted(names.items(), key=lambda kv: -len(kv[0])))
    return ctx.memo[key]


def _named(ctx: SynthContext, s: str) -> str:
    for phrase, name in short_names(ctx).items():
        s = s.replace(phrase, name)
    return s


def _h(c: Candidate, name: str, default: str = "", ctx: SynthContext | None = None) -> str:
    s = c.hints.get(name, default)
    if ctx is not None:
        s = _named(ctx, s)
        s = _SAME_HOURS.sub("", s)
    return compact(s)


def _defs(c: Candidate, ctx: SynthContext) -> str:
    """Evidence naming the incident and, for a baseline period, what it is relative to."""
    inc = _inc(ctx, c)
    name = short_names(ctx)[inc.phrase]
    out = [f"{name[0].upper()}{name[1:]} is {inc.phrase}."]
    m = _SAME_HOURS.search(_named(ctx, c.hints.get("when", "")))
    if m:
        out.append(f"That period is {m.group(1)}.")
    return " ".join(out) + " "


def _measure(inc: Inc, c: Candidate) -> str:
    return compact(measure_words(inc, c.spec.params, c.spec.event_filter))


def _count(inc: Inc, c: Candidate, ctx: SynthContext) -> str:
    q, who = c.spec, _h(c, 'who', ctx=ctx)
    if q.p("agg") == "entities":
        return f"how many {who} had any {rows_noun(inc)[:-1]}"
    if q.p("agg") == "nulls":
        return f"how many {rows_noun(inc)} of {who} had no {compact(key_words(inc, q.p('key')))} value"
    cond = _measure(inc, c).removeprefix(f"number of {rows_noun(inc)}").strip()
    return f"how many {rows_noun(inc)}{' ' + cond if cond else ''} did {who} log"


def _with_defs(fn):
    """Prefix the evidence with the incident's name (and a baseline period's meaning)."""
    def run(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
        q, ev = fn(c, ctx)
        return q, _defs(c, ctx) + ev
    run.__doc__ = fn.__doc__
    return run


@_with_defs
def incident_kpi(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q = _inc(ctx, c), c.spec
    when = _h(c, 'when', ctx=ctx)
    if q.p("agg") in ("rows", "entities", "nulls"):
        return clean(f"{when}, {_count(inc, c, ctx)}?"), "Answer with a whole number."
    return (clean(f"{when}, what was the {_measure(inc, c)} of {_h(c, 'who', ctx=ctx)}?"),
            f"Over all their {rows_noun(inc)} in that period. " + rounding(c.decimals))


@_with_defs
def incident_vs_baseline(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q = _inc(ctx, c), c.spec
    who = _h(c, 'who', ctx=ctx)
    dirw = "higher" if q.p("direction") == "up" else "lower"
    mw = f"number of {who} with any {rows_noun(inc)[:-1]}" if q.p("agg") == "entities" else \
        f"{_measure(inc, c)} of {who}"
    base = _named(ctx, c.hints["baseline"])
    if q.p("figure") == "ratio":
        fig, ev = "by what factor", "Factor = the value during the incident divided by the value over the baseline " \
            "hours, 2 decimals."
    else:
        fig, ev = "by how much", ("Difference = the value during the incident minus the baseline value. "
                                  + rounding(c.decimals))
    return (clean(f"{_h(c, 'when', ctx=ctx)}, was the {mw} {dirw} than at baseline, and {fig}?"),
            f"Baseline: {base}. Answer yes or no with the figure. {ev}")


@_with_defs
def incident_exists(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    thr = fmt_num(q.p("value"), 6)
    hour = "An hour is a UTC clock hour (hh:00 up to the next hh:00)."
    if q.p("per") == "all":
        agg = q.p("agg")
        ef = q.event_filter[h.get("pop_conds", 0):]
        what = f"{_h(c, 'pop', ctx=ctx)} with any {rows_noun(inc)[:-1]}" if agg == "entities" else \
            compact(f"{measure_words(inc, q.params, ef)} from {h['pop']}").removeprefix("number of ")
        more = {">": "more than", ">=": "at least", "<": "fewer than", "<=": "at most"}
        words = more if agg in ("rows", "entities") else {o: op_words(o) for o in more}
        cmp = "no" if (q.p("op"), q.p("value")) == ("<=", 0) else f"{words[q.p('op')]} {thr}"
        if cmp == "no":
            return (clean(f"{_h(c, 'when', ctx=ctx)}, was there an hour with no {what}?"),
                    f"{hour} Hours without any {rows_noun(inc)[:-1]} count as 0.")
        ask = f"an hour with {cmp} {what}" if agg in ("rows", "entities") else f"an hour in which the {what} was {cmp}"
        return (clean(f"{_h(c, 'when', ctx=ctx)}, was there {ask}?"),
                f"{hour} Count per hour; hours without any {rows_noun(inc)[:-1]} count as 0. "
                f"Threshold: {threshold_words(inc, q.params, q.p('value'))}.")
    kw = compact(key_words(inc, q.p("key"))) if q.p("key") else ""
    if q.p("agg") == "range":
        return (clean(f"{_h(c, 'when', ctx=ctx)}, did any of the {_h(c, 'pop', ctx=ctx)} report a flat {kw} for an hour?"),
                f"Flat: the same {kw} value in every reading of the hour, counting only hours with at least two "
                f"readings. {hour}")
    agg = {"mean": "average", "sum": "total", "std": "standard deviation of", "nulls": "missing"}[q.p("agg")]
    return (clean(f"{_h(c, 'when', ctx=ctx)}, did any of the {_h(c, 'pop', ctx=ctx)} have an hourly {agg} {kw} "
                  f"{op_words(q.p('op'))} {thr}?"),
            f"{hour} Hourly value over each entity's own readings in that hour"
            f"{' (sample standard deviation)' if q.p('agg') == 'std' else ''}"
            f"{' (readings with no value)' if q.p('agg') == 'nulls' else ''}.")


@_with_defs
def incident_affected_count(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q, h = _inc(ctx, c), c.spec, c.hints
    kw = compact(key_words(inc, q.p("key")))
    pop = _h(c, 'pop', ctx=ctx)
    if q.p("rule") == "flat":
        return (clean(f"{_h(c, 'when', ctx=ctx)}, how many {pop} reported a flat {kw}?"),
                f"Flat: the same {kw} value in every one of their readings in that period; only those with at "
                "least two readings in it count.")
    base = h.get("base") or "the rest of the data (all readings outside that period)"
    side = "above" if q.p("direction") == "up" else "below"
    n = fmt_num(q.p("n"))
    return (clean(f"{_h(c, 'when', ctx=ctx)}, how many {pop} had {kw} more than {n} standard deviations {side} normal?"),
            f"Normal: each one's own mean and sample standard deviation over {base}; compare its mean {kw} in "
            f"the period with mean {'+' if side == 'above' else '-'} {n} × std.")


@_with_defs
def incident_top_k(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q = _inc(ctx, c), c.spec
    big = "largest" if q.p("order") == "desc" else "smallest"
    return (clean(f"{_h(c, 'when', ctx=ctx)}, which {q.p('k')} {_h(c, 'pop', ctx=ctx)} had the {big} {_measure(inc, c)}?"),
            f"Over their readings in that period, {big} first with their values; ties by {inc.t.entity} "
            f"ascending. " + rounding(c.decimals))


@_with_defs
def incident_worst_entity(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    inc, q = _inc(ctx, c), c.spec
    mw = _measure(inc, c)
    up = q.p("order") == "desc"
    tie = f"Ties by {inc.t.entity} ascending."
    pop = _h(c, 'pop', ctx=ctx)
    if q.p("baseline") is None:
        return (clean(f"{_h(c, 'when', ctx=ctx)}, which of the {pop} had the {'largest' if up else 'smallest'} {mw}?"),
                f"Over its readings in that period. {tie}")
    base = _h(c, 'baseline', ctx=ctx) if isinstance(q.p("baseline"), dict) else "all of its readings outside that period"
    move = "rise" if up else "drop"
    return (clean(f"{_h(c, 'when', ctx=ctx)}, which of the {pop} had the biggest {move} in {mw} against its own baseline?"),
            f"Baseline: its own {mw} over {base}; the {move} is the value in the period minus the baseline"
            f"{'' if up else ' (most negative first)'}. {tie}")


incident_cross_entity = incident_kpi
