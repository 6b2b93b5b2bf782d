"""pandas reference of the claim, false-premise and unanswerable templates.

``claim_check`` (``params.kind``): ``every`` — every entity with a row in the window has at least one
row with ``key op value`` (fact: how many do not); ``none`` — no row has ``key op value`` (fact: how
many rows do); ``mean`` — the mean of ``key`` over the selected rows is ``op value`` (fact: the mean); ``count`` — more
than ``n`` entities have a row with ``pred`` (fact: how many do). ``every``/``none``/``count`` test
``params.pred`` when given, else ``key op value``.
The answer is the claim's truth (None when the window selects no row).

``false_premise`` (``params.kind``): ``entity`` — the entity ``id`` has no row at all; ``date`` —
no row of any entity falls in the window; ``event`` — the entity ``id`` has rows in the window but
none with ``params.event``. ``unanswerable``: no column (or, for ``entity``, no table) of the bundle
is named by ``params.missing``. Their answer is the message saying which premise is false or which
data is missing (:func:`premise_message`), None when the premise holds.
"""

from __future__ import annotations

import operator

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from tools.bundle.layout import table_files, table_names
from tools.queries.reference.frames import Frames, mask, selected_rows
from tools.queries.spec import Predicate, QuerySpec

OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def claim_pred(q: QuerySpec) -> Predicate:
    """The row predicate of an ``every``/``none``/``count`` claim: ``params.pred``, else ``key op value``."""
    if q.p("pred"):
        return Predicate.model_validate(q.p("pred"))
    return Predicate(column=q.p("key"), op=q.p("op"), value=q.p("value"))


def claim_fact(frames: Frames, q: QuerySpec):
    """(the fact that decides the claim, an example entity or None); fact None on no rows."""
    df = selected_rows(frames, q, events=False)
    if not len(df):
        return None, None
    kind = q.p("kind")
    if kind == "mean":
        v = df[q.p("key")].dropna().to_numpy(dtype=float)
        return (float(v.mean()) if v.size else None), None
    hit = mask(df, claim_pred(q))
    if kind == "count":
        return int(df.loc[hit, q.entity].nunique()), None
    if kind == "none":
        ex = df.loc[hit, q.entity]
        return int(hit.sum()), (str(ex.iloc[0]) if len(ex) else None)
    pop = pd.unique(df[q.entity].astype(str))
    ok = set(pd.unique(df.loc[hit, q.entity].astype(str)))
    missing = sorted(e for e in pop if e not in ok)
    return len(missing), (missing[0] if missing else None)


def claim_check(frames: Frames, q: QuerySpec) -> bool | None:
    """The truth of the claim (see module docstring)."""
    fact, _ = claim_fact(frames, q)
    if fact is None:
        return None
    if q.p("kind") == "mean":
        return bool(OPS[q.p("op")](fact, q.p("value")))
    if q.p("kind") == "count":
        return fact > q.p("n")
    return fact == 0


def premise_message(q: QuerySpec, noun: str = "entity") -> str:
    """The expected answer of a false-premise / unanswerable question: which premise, and why."""
    kind, day = q.p("kind"), q.p("day", "")
    if q.template == "unanswerable":
        what = {"column": "column", "attribute": "attribute", "entity": "table or column"}[kind]
        return f"unanswerable: the data has no {q.p('missing')} {what}"
    if kind == "entity":
        return f"false premise: there is no {noun} {q.p('id')} in the data"
    if kind == "date":
        return f"false premise: the data has no rows on {day}"
    ev = Predicate.model_validate(q.p("event"))
    return f"false premise: {q.p('id')} has no row with {ev.column} {ev.op} {ev.value} on {day}"


def premise_held(frames: Frames, q: QuerySpec) -> int | None:
    """How many rows hold the premise (0: it is false); None for an ``event`` premise whose entity has no
    row in the window at all (not this kind of premise)."""
    df = frames.ordered(q.table, q.entity, q.time)
    ids = df[q.entity].astype(str)
    if q.p("kind") == "entity":
        return int((ids == str(q.p("id"))).sum())
    t = df[q.time]
    inw = ((t >= pd.Timestamp(q.window.start)) & (t < pd.Timestamp(q.window.end))).to_numpy(dtype=bool)
    if q.p("kind") == "date":
        return int(inw.sum())
    mine = inw & (ids == str(q.p("id"))).to_numpy(dtype=bool)
    if not mine.any():
        return None
    return int((mine & mask(df, Predicate.model_validate(q.p("event")))).sum())


def premise_answer(held: int | None, q: QuerySpec) -> str | None:
    """The premise message when no row holds the premise, else None."""
    return premise_message(q, q.p("noun", "entity")) if held == 0 else None


def false_premise(frames: Frames, q: QuerySpec) -> str | None:
    """The premise message when the premise is false, else None (see module docstring)."""
    return premise_answer(premise_held(frames, q), q)


def _norm(s: str) -> str:
    return "".join(c for c in s.lower() if c.isalnum())


def unanswerable(frames: Frames, q: QuerySpec) -> str | None:
    """The message when no column (or table, for ``entity``) of the bundle is named by ``missing``."""
    word = _norm(q.p("missing"))
    names = []
    for table in table_names(frames.bundle):  # one file per table, or a directory of parts
        names += list(pq.read_schema(table_files(frames.bundle, table)[0]).names)
        names += [table] if q.p("kind") == "entity" else []
    return None if any(word in _norm(n) for n in names) else premise_message(q)


def fabricated_part(frames: Frames, q: QuerySpec) -> int | np.ndarray:
    """What :func:`fabricated` reads of the data: a count (of entities or rows), or the values whose
    mean it gives. Entity-local, so parts' counts add and their values concatenate."""
    key = q.p("key")
    if q.template == "unanswerable" and q.p("kind") == "entity":
        return int(selected_rows(frames, q, events=False)[q.entity].nunique())
    if q.template == "false_premise" and q.p("kind") == "date":
        df = frames.ordered(q.table, q.entity, q.time)
        v = df.loc[(df[q.entity].astype(str) == str(q.p("id"))).to_numpy(dtype=bool), key or q.entity]
    else:
        sel = selected_rows(frames, q, events=False)
        if q.p("kind") == "event":
            sel = sel[(sel[q.entity].astype(str) == str(q.p("id"))).to_numpy(dtype=bool)]
        v = sel[key or q.entity]
    return int(len(v)) if key is None else v.dropna().to_numpy(dtype=float)


def fabricated_text(parts: list, q: QuerySpec) -> str | None:
    """:func:`fabricated`'s text from the parts' :func:`fabricated_part` results, in part order."""
    if not parts or not isinstance(parts[0], np.ndarray):
        return str(int(sum(parts)))
    v = np.concatenate(parts)
    return f"{float(np.mean(v)):.2f}" if v.size else None


def fabricated(frames: Frames, q: QuerySpec) -> str | None:
    """What an agent that accepts the premise answers: a figure about the nearest thing the data has
    (all entities, the entity's whole history, another column), as text."""
    return fabricated_text([fabricated_part(frames, q)], q)
