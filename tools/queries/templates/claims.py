"""``claim_check``: "is it true that ...?" — a claim about the data that is true or false, in equal share.

Three claims per (table, key, day): every entity reached a level (``every``), no reading passed a
level (``none``), the mean was above a level (``mean``). Levels are placed from one exploration scan
on both sides of the deciding statistic, so some claims are true and others false; the suite keeps
as many of each (``Template.balance``). The expected answer text states the fact that decides the
claim (how many entities did not, how many readings did, the mean).
"""

from __future__ import annotations

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext
from tools.queries.reference import claims as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_num, key_words, plural, row_noun, value_words, window_words
from tools.queries.spec import Predicate
from tools.queries.sql import claims as sql
from tools.queries.sql.common import ident, ts
from tools.queries.templates.common import base_spec, round_to
from tools.queries.templates.field_common import DAY_EVIDENCE, day_words, days, numeric_keys, per_entity

_OPW = {">": "above", "<": "below"}


def _levels(ctx: SynthContext, t: TableView):
    for w in ctx.pick(days(t), 2):
        keys = numeric_keys(t, 3)
        if not keys:
            return
        stats = [f"max({ident(k.name)})" for k in keys] + [f"avg({ident(k.name)})" for k in keys]
        rows = per_entity(ctx, t, w, stats)
        if len(rows) < 3:
            continue
        for i, k in enumerate(keys):
            mx = sorted(r[1 + i] for r in rows if r[1 + i] is not None)
            means = [r[1 + len(keys) + i] for r in rows if r[1 + len(keys) + i] is not None]
            if len(mx) < 3 or mx[0] == mx[-1]:
                continue
            m = sum(means) / len(means)
            yield w, k, {"every": [round_to(mx[0] - 0.05 * abs(mx[0]) - 1e-9, k), round_to(mx[len(mx) // 2], k)],
                         "none": [round_to(mx[-1] + 0.05 * abs(mx[-1]) + 1, k), round_to(mx[len(mx) // 2], k)],
                         "mean": [round_to(m * 0.9, k), round_to(m * 1.1, k)] if abs(m) > 1e-6 else []}


def _state_claims(ctx: SynthContext, t: TableView):
    """Claims on a state/event column: how many entities reached a value, none did, every one did."""
    for w in ctx.pick(days(t), 2):
        for s in t.states:
            got = dict(ctx.con.execute(
                f"SELECT CAST({ident(s.name)} AS VARCHAR), count(DISTINCT {ident(t.entity)}) FROM {ident(t.name)} "
                f"WHERE {ident(t.time)} >= {ts(w.start)} AND {ident(t.time)} < {ts(w.end)} GROUP BY 1").fetchall())
            total = ctx.scalar(f"SELECT count(DISTINCT {ident(t.entity)}) FROM {ident(t.name)} WHERE "
                               f"{ident(t.time)} >= {ts(w.start)} AND {ident(t.time)} < {ts(w.end)}")
            if not total or total < 3:
                continue
            for v in ctx.pick([v for v in s.values if got.get(str(v), 0) >= 5], 2):
                pr = {"column": s.name, "op": "==", "value": str(v)}
                c = got[str(v)]
                for n in dict.fromkeys([int(c * 0.8), int(c * 1.2) + 1]):
                    yield w, {"kind": "count", "pred": pr, "n": n}
                if c == total:
                    yield w, {"kind": "every", "pred": pr}
                elif c >= total / 2:
                    yield w, {"kind": "every", "pred": pr}
            for v in ctx.pick([v for v in s.values if got.get(str(v), 0) == 0], 1):
                yield w, {"kind": "none", "pred": {"column": s.name, "op": "==", "value": str(v)}}
            rare = [v for v in s.values if 0 < got.get(str(v), 0) <= 3]
            for v in ctx.pick(rare, 1):
                yield w, {"kind": "none", "pred": {"column": s.name, "op": "==", "value": str(v)}}


def _candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        for w, k, levels in _levels(ctx, t):
            for kind, xs in levels.items():
                for x in dict.fromkeys(xs):
                    q = base_spec("claim_check", t, window=w, params={"kind": kind, "key": k.name, "op": ">",
                                                                        "value": x})
                    yield Candidate(q, negative=True, decimals=0, hints=_words(ctx, t, q))
        for w, params in _state_claims(ctx, t):
            q = base_spec("claim_check", t, window=w, params=params)
            yield Candidate(q, negative=True, decimals=0, hints=_words(ctx, t, q))


def _claim(t: TableView, q, precise: bool) -> str:
    when = window_words(q.window) if precise else f"on {day_words(q.window)}"
    nouns, row = plural(t.noun), row_noun(t)[:-1]
    if q.p("pred"):
        pr = Predicate.model_validate(q.p("pred"))
        lvl = f"{pr.column} '{pr.value}'"
    else:
        k = t.key(q.p("key"))
        lvl = f"{key_words(k)} {_OPW[q.p('op')]} {value_words(q.p('value'), t, k.name)}"
    if q.p("kind") == "count":
        return f"more than {q.p('n')} {nouns} had at least one {row} with {lvl} {when}"
    if q.p("kind") == "every":
        who = f"every {t.noun} with a {row} {when}" if precise else f"every {t.noun}"
        return f"{who} had at least one {row} with {lvl}{' in that window' if precise else ' ' + when}"
    if q.p("kind") == "none":
        return f"no {t.noun} had a {row} with {lvl} {when}"
    k = t.key(q.p("key"))
    return f"the mean {key_words(k)} of all {nouns} {when} was {_OPW[q.p('op')]} " \
           f"{value_words(q.p('value'), t, k.name)}"


def _words(ctx: SynthContext, t: TableView, q) -> dict:
    ev = DAY_EVIDENCE
    if q.p("kind") == "every":
        ev += f" Only {plural(t.noun)} with at least one {row_noun(t)[:-1]} that day count."
    if q.p("kind") == "mean":
        ev += " The mean is over every reading of that day (missing values skipped)."
    return {"precise": f"Is it true that {_claim(t, q, True)}? Answer yes or no.", "evidence": ev}


def _render(c: Candidate, ctx: SynthContext) -> str:
    return f"Is it true that {_claim(ctx.catalog[c.spec.table], c.spec, False)}?"


def _explain(ctx: SynthContext, c: Candidate, answer) -> str:
    """'No: 3 sensors had none (e.g. sensor_0004)' — the fact that decides the claim."""
    t, q = ctx.catalog[c.spec.table], c.spec
    with ctx.pandas_lock:
        fact, example = ref.claim_fact(ctx.frames, q)
    yes = "Yes" if answer else "No"
    if q.p("kind") == "mean":
        return f"{yes}: the mean was {fmt_num(fact, 2)}"
    if q.p("kind") == "count":
        return f"{yes}: {fact} {plural(t.noun)} did"
    if q.p("kind") == "none":
        return f"{yes}: {fact} matching {row_noun(t)}" + (f" (e.g. {t.noun} {example})" if example else "")
    return f"{yes}: {fact} {t.noun}(s) had no such reading" + (f" (e.g. {example})" if example else "")


register(Template("claim_check", "claim", "boolean", ref.claim_check, sql.claim_check, _render, _candidates,
                  difficulty="medium", balance=True, explain=_explain))
