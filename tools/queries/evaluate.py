"""Run one candidate through both executors and the synthesizer's filters.

Order: pandas reference and SQL must agree (a disagreement is a bug, reported, never kept); then
non-degenerate, discriminative (naive answer differs), window-robust (edges moved by one cadence
step) and rendered. Each rejection says why, for report.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from tools.queries.answers import agree, canonical, is_degenerate
from tools.queries.composite import key_columns
from tools.queries.context import SynthContext, iso
from tools.queries.registry import Candidate, Template
from tools.queries.screens import degenerate_reason, naive_in_domain
from tools.queries.spec import QuerySpec, Window
from tools.queries.stream import executor, views_only
from tools.queries.stream_entity import NotStreamed

WINDOW_REL_BOUND = 0.10  # drop questions whose answer moves more than this with a one-step edge shift
EVENT_STEP_S = 60.0      # "one cadence step" for event logs


@dataclass
class Outcome:
    """The result of evaluating one candidate: kept (``record`` set) or dropped (``reason``)."""

    template: Template
    candidate: Candidate
    answer: Any = None
    sql_answer: Any = None
    naive: Any = None
    gold_sql: str = ""
    question: str = ""
    precise_question: str = ""  # the full specification wording (question is the natural one)
    evidence: str = ""  # definitions of the question's derived terms
    tolerance: dict = field(default_factory=lambda: {"rel": 0.0, "abs": 0.0})
    reason: str | None = None
    disagreement: bool = False

    @property
    def kept(self) -> bool:
        return self.reason is None


def run_sql(ctx: SynthContext, sql: str, answer_type: str) -> Any:
    """Execute gold SQL and read its canonical answer (first column of the single row)."""
    row = ctx.cursor().execute(sql).fetchone()
    return canonical(None if row is None else row[0], answer_type)


def run_reference(ctx: SynthContext, t: Template, q: QuerySpec) -> Any:
    """The pandas reference answer of one query, canonical (one pandas computation at a time: the
    reference executors share caches; SQL runs concurrently on other threads)."""
    with ctx.pandas_lock:
        return canonical(executor(ctx).run(t, q, ctx.frames), t.type_of(q))


def run_naive(ctx: SynthContext, t: Template, q: QuerySpec) -> Any:
    """The naive misreading's answer, canonical (same executor as ``run_reference``)."""
    with ctx.pandas_lock:
        return canonical(executor(ctx).run(t, q, ctx.frames, naive=True), t.type_of(q))


def screener(t: Template, ctx: SynthContext, q: QuerySpec) -> str:
    """The template's screening executor (``Template.screener``), except on a world whose data.duckdb
    only holds views over Parquet parts (above the size threshold): there a template the pandas
    executor streams per entity (one pass over the parts, seconds at 100M rows, where DuckDB sorts
    the whole table for each re-run) keeps pandas, and any other goes to DuckDB, pandas running once."""
    if t.screener == "reference" and views_only(ctx, q.table) and not executor(ctx).streams(t, q):
        return "sql"
    return t.screener


def screen(t: Template, q: QuerySpec, ctx: SynthContext) -> Any:
    """One answer from the template's screening executor (see ``screener``)."""
    if screener(t, ctx, q) == "reference":
        return run_reference(ctx, t, q)
    return run_sql(ctx, t.sql(q), t.type_of(q))


def _shifted(w: Window, step: float, sign: int) -> Window:
    d = timedelta(seconds=step)
    return w.model_copy(update={"start": iso(w.start_dt + sign * d), "end": iso(w.end_dt + sign * d)})


def _is_ranking(x: Any) -> bool:
    return isinstance(x, list) and all(isinstance(i, list) and len(i) == 2 for i in x)


def _distance(a: Any, b: Any) -> tuple[float, float]:
    """(absolute, relative) distance between two answers; inf when they differ in kind."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return (0.0, 0.0) if a == b else (math.inf, math.inf)
    if isinstance(a, int | float) and isinstance(b, int | float):
        d = abs(a - b)
        return d, d / max(abs(a), 1e-12)
    if _is_ranking(a) and _is_ranking(b) and [x[0] for x in a] == [x[0] for x in b]:
        parts = [_distance(x[1], y[1]) for x, y in zip(a, b, strict=True)]
        return max((p[0] for p in parts), default=0.0), max((p[1] for p in parts), default=0.0)
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        parts = [_distance(a[k], b[k]) for k in a]
        return max((p[0] for p in parts), default=0.0), max((p[1] for p in parts), default=0.0)
    return (0.0, 0.0) if agree(a, b) else (math.inf, math.inf)


def moved_windows(c: Candidate, ctx: SynthContext) -> list[QuerySpec]:
    """The query with its window one step (a cadence, or a minute on event logs) later and earlier."""
    q = c.spec
    if q.window is None:
        return []
    step = ctx.catalog[q.table].cadence_s or EVENT_STEP_S
    return [q.model_copy(update={"window": _shifted(q.window, step, sign)}) for sign in (1, -1)]


def window_sensitivity(t: Template, c: Candidate, ctx: SynthContext, answer: Any) -> tuple[float, float]:
    """Largest (abs, rel) change of the answer when the window moves one step earlier or later
    (computed with the SQL executor: it is the cheap one on large tables)."""
    worst = (0.0, 0.0)
    for moved in moved_windows(c, ctx):
        d = _distance(answer, screen(t, moved, ctx))
        worst = (max(worst[0], d[0]), max(worst[1], d[1]))
    return worst


CLAUSES = (("entity_filter", "entity filter"), ("while_", "'while' condition"))


def without_clauses(q: QuerySpec) -> list[tuple[str, QuerySpec]]:
    """(label, the query without that filter clause) for each clause ``q`` has."""
    return [(label, q.model_copy(update={f: None})) for f, label in CLAUSES if getattr(q, f) is not None]


def idle_clause(t: Template, c: Candidate, ctx: SynthContext, answer: Any) -> str | None:
    """QUESTION-STYLE rule 9: the name of a filter clause (entity filter, while-predicate) whose
    removal leaves the answer unchanged, or None."""
    for label, q in without_clauses(c.spec):
        try:
            without = screen(t, q, ctx)
        except ValueError:
            continue
        if agree(without, answer):
            return label
    return None


def prefetch_screening(t: Template, c: Candidate, ctx: SynthContext) -> None:
    """Where pandas screens a template on its per-entity form (views-only worlds), the answer and its
    screening re-runs (each clause dropped, the window moved) in one pass over the parts instead of
    one pass each; the answers are the same, only read once."""
    q = c.spec
    if screener(t, ctx, q) != "reference" or not views_only(ctx, q.table):
        return
    also = [x for _, x in without_clauses(q)] + moved_windows(c, ctx)
    with ctx.pandas_lock:
        executor(ctx).prefetch(t, q, also)


def evaluate(t: Template, c: Candidate, ctx: SynthContext, render: bool = True) -> Outcome:
    """The filters, cheapest first, then the second executor on what survives.

    Screening executor answer → non-degenerate → every clause filters something → window-robust →
    the other executor must agree (a disagreement is a bug) → naive reading must differ →
    rendered (``render=False`` leaves that to the caller: rendering may query the context, which
    only the main thread does). Every kept question has been computed by both executors.
    """
    out = Outcome(t, c)
    q = c.spec
    atype = t.type_of(q)
    try:
        key_columns(q.model_copy(update={"template": t.name}))  # a composite key only where the template takes it
        out.gold_sql = t.sql(q)
    except ValueError as exc:  # the template cannot express this candidate
        out.reason = f"not expressible: {exc}"
        return out
    prefetch_screening(t, c, ctx)
    first = screen(t, q, ctx)
    if is_degenerate(first) and not (c.contrast or c.negative):
        out.reason = f"degenerate answer {first!r}"
        return out
    if (why := degenerate_reason(t, c, first)) is not None:
        out.reason = why
        return out
    idle = idle_clause(t, c, ctx, first)
    if idle:
        out.reason = f"clause filters nothing: the answer is the same without the {idle}"
        return out
    sens_abs, sens_rel = window_sensitivity(t, c, ctx, first)
    if sens_rel > WINDOW_REL_BOUND:
        out.reason = f"window-unstable: moving the window by one step changes the answer by {sens_rel:.0%}"
        return out
    try:
        if screener(t, ctx, q) == "reference":
            out.answer, out.sql_answer = first, run_sql(ctx, out.gold_sql, atype)
        else:
            out.answer, out.sql_answer = run_reference(ctx, t, q), first
    except NotStreamed as exc:  # a world too big for this template's pandas reference
        out.reason = f"not answered: {exc}"
        return out
    if not agree(out.answer, out.sql_answer):
        out.reason = f"executors disagree: pandas {out.answer!r} vs SQL {out.sql_answer!r}"
        out.disagreement = True
        return out
    if t.naive is not None:
        try:
            out.naive = run_naive(ctx, t, q)
        except NotStreamed as exc:
            out.reason = f"not answered: {exc}"
            return out
        if not naive_in_domain(t, c, out.naive):  # no agent would answer that: not a misreading to record
            if t.family == "stateful":  # a stateful question exists to show its misreading: drop it
                out.reason = "no plausible naive reading: the misreading falls outside the answer's domain"
                return out
            out.naive = None
        elif agree(out.naive, out.answer):
            out.reason = "not discriminative: the naive reading gives the same answer"
            return out
        stated = c.hints.get("tolerance")
        if stated and isinstance(out.naive, int | float) and isinstance(out.answer, int | float) and \
                abs(out.naive - out.answer) <= max(stated["abs"], stated["rel"] * abs(out.answer)):
            out.reason = "not discriminative: the naive reading is within the stated tolerance"
            return out
    out.tolerance = dict(c.hints["tolerance"]) if "tolerance" in c.hints else \
        tolerance(atype, c.decimals, sens_rel, out.answer)  # a tolerance the question states is the tolerance
    if render:
        out.question = t.render(c, ctx)
    return out


def tolerance(answer_type: str, decimals: int, sens_rel: float, answer: Any = None) -> dict[str, float]:
    """Half a unit of the stated precision, plus a quarter of the window sensitivity (at most 1%).
    A yes/no answer with figures (``{"value": true, "ratio": 3.2}``) gets the tolerance of its figures."""
    if answer_type == "boolean" and isinstance(answer, dict):
        answer_type = "number"
    if answer_type in ("integer", "boolean", "label", "entity", "entity_list", "timestamp"):
        return {"rel": 0.0, "abs": 0.0}
    if answer_type == "duration":
        return {"rel": round(min(sens_rel / 4, 0.01), 6), "abs": 1.0}
    return {"rel": round(min(sens_rel / 4, 0.01), 6), "abs": 0.5 * 10.0 ** -decimals}
