"""Synthesize a balanced question suite for a bundle and write ``qa.jsonl``.

Quotas per family come from the spec's query plan (at least 12 each; a pack without incidents
gives the incident share to the other families). Within a family, templates take turns so the
suite covers as many templates as the data allows. Deterministic for a given bundle and seed.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.bundle.files import FIGURES_DIR, QA, REPORT, SPEC, SUITE_HEADER
from tools.queries.closed import close_candidates, is_closed
from tools.queries.context import SynthContext, open_context
from tools.queries.evaluate import Outcome, evaluate
from tools.queries.natural import natural
from tools.queries.registry import CORE_FAMILIES, EXTRA_FAMILIES, FAMILIES, Candidate, load_templates
from tools.queries.render import answer_text

MIN_PER_FAMILY = 12
WORKERS = 2
IN_FLIGHT = 2 * WORKERS  # evaluations running or queued ahead of the outcome being taken


@dataclass
class Suite:
    """Kept questions (as qa.jsonl records), dropped candidates and executor disagreements."""

    records: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[Outcome] = field(default_factory=list)
    disagreements: list[Outcome] = field(default_factory=list)
    quotas: dict[str, int] = field(default_factory=dict)
    shortfall: dict[str, int] = field(default_factory=dict)


def quotas(ctx: SynthContext, n: int | None) -> dict[str, int]:
    """Questions per family from the query plan's mix, at least MIN_PER_FAMILY each."""
    plan = ctx.spec.query_plan
    extra = [f for f in EXTRA_FAMILIES if plan.mix.get(f, 0.0) > 0 and (f != "forecast" or ctx.holdout)]
    total = n if n is not None else max(plan.n_questions, MIN_PER_FAMILY * (len(CORE_FAMILIES) + len(extra)))
    fams = [f for f in CORE_FAMILIES if f != "incident" or ctx.incidents] + extra
    weights = {f: plan.mix.get(f, 0.0) for f in fams}
    s = sum(weights.values()) or 1.0
    out = {f: max(round(total * w / s), MIN_PER_FAMILY if n is None else 0) for f, w in weights.items()}
    if n is not None:  # an explicit --n is honoured exactly
        while sum(out.values()) > n:
            out[max(out, key=out.get)] -= 1
        while sum(out.values()) < n:
            out[min(out, key=out.get)] += 1
    return out


def outcome_record(o: Outcome, qid: str, ctx: SynthContext) -> dict[str, Any]:
    """The qa.jsonl record of a kept outcome (DESIGN contract)."""
    from tools.queries.dialects import gold_sql_dialects
    from tools.queries.stream import explain

    t, c = o.template, o.candidate
    src = c.spec.p("source")  # incident_cross_table: the incident is found on another table
    tables = sorted({c.spec.table, *([c.spec.entity_filter.table] if c.spec.entity_filter and
                                     c.spec.entity_filter.table else []),
                     *([src["table"]] if isinstance(src, dict) and src.get("table") else [])})
    text = explain(ctx, t, c, o.answer) if t.explain else answer_text(o.answer, t.type_of(c.spec), c.unit, c.decimals)
    extra = {"precise_question": c.hints.get("precise") or o.precise_question or o.question,
             "evidence": c.hints.get("evidence") or o.evidence}
    return {
        "id": qid, "question": o.question, "canonical_question": o.question, "variant_of": None,
        "persona": None, "family": t.family, "template": t.name, "params": c.spec.to_json(),
        "answer": o.answer, "answer_type": t.type_of(c.spec),
        "answer_text": text,
        "tolerance": o.tolerance, "gold_sql": o.gold_sql, "gold_sql_dialects": gold_sql_dialects(o.gold_sql),
        "tables": tables,
        "incident_id": c.incident_id, "contrast": c.contrast, "naive_answer": o.naive,
        "difficulty": c.hints.get("difficulty", t.difficulty), **extra,
    }


def candidate_key(params: dict, contrast: bool) -> str:
    """What makes two questions the same question (their QuerySpec and contrast flag)."""
    return json.dumps(params, sort_keys=True) + str(contrast)


def _turns(pools: dict[str, list], seen: set[str], accept: Callable[[Candidate], bool] | None = None,
           prefer: frozenset[str] = frozenset()) -> Iterator[tuple[str, Candidate]]:
    """Candidates in evaluation order: templates take turns (those in ``prefer`` first, two turns a
    round), duplicates (and ones ``accept`` refuses) are skipped."""
    order = [n for n in pools if n in prefer] + [n for n in pools if n not in prefer]
    while any(pools.values()):
        for name in order:
            pool = pools[name]
            for _ in range(2 if name in prefer else 1):
                if not pool:
                    break
                c = pool.pop(0)
                key = candidate_key(c.spec.to_json(), c.contrast)
                if key not in seen and (accept is None or accept(c)):
                    seen.add(key)
                    yield name, c


def family_pools(ctx: SynthContext, templates: dict, fam: str, quota: int) -> dict[str, list[Candidate]]:
    """Every candidate of one family's templates, each template's list shuffled by seed."""
    pools: dict[str, list[Candidate]] = {}
    for name in sorted(templates):
        t = templates[name]
        if t.family == fam and quota:
            cands = list(t.candidates(ctx))
            if is_closed(ctx.spec):
                cands = close_candidates(name, cands)
            order = ctx.rng.permutation(len(cands)) if cands else []
            pools[name] = [cands[i] for i in order]
    return pools


def synthesize(ctx: SynthContext, n: int | None = None,
               progress: Callable[[int, int], None] | None = None, *, only: dict[str, int] | None = None,
               accept: Callable[[Candidate], bool] | None = None, seen: set[str] | None = None,
               prefer: Iterable[str] = ()) -> Suite:
    """Enumerate candidates per template, evaluate them in turns, keep each family's quota.

    Three things overlap, without changing the result: one thread enumerates the families'
    candidates ahead, in family order (the only user of ``ctx.rng``, so its draws are the same as
    a one-by-one run); WORKERS threads evaluate candidates, up to IN_FLIGHT ahead of the one being
    taken; this thread takes outcomes strictly in turn order and renders them. Same bundle and
    seed, same bytes. ``only`` replaces the plan's quotas (family → count), ``accept`` filters
    candidates, ``seen`` holds the keys of questions a suite already has (to add to it) and
    templates in ``prefer`` get two turns a round (agents are known to fail them)."""
    templates = load_templates()
    suite = Suite(quotas=dict(only) if only is not None else quotas(ctx, n))
    total = sum(suite.quotas.values())
    kept: list[Outcome] = []
    asked: dict[str, str] = {}  # natural question → id of the kept question that has it
    seen = set(seen or ())
    with ThreadPoolExecutor(1, thread_name_prefix="chronoeval-enum") as ahead, \
            ThreadPoolExecutor(WORKERS, thread_name_prefix="chronoeval-eval") as pool:
        enumerated = {fam: ahead.submit(family_pools, ctx, templates, fam, suite.quotas.get(fam, 0))
                      for fam in FAMILIES}
        for fam in FAMILIES:
            quota = suite.quotas.get(fam, 0)
            turns = _turns(enumerated[fam].result(), seen, accept, frozenset(prefer))
            window: deque[Future] = deque()
            got = 0
            per_answer: dict[str, int] = {}  # balanced templates: kept questions per yes/no answer
            while got < quota:
                while len(window) < IN_FLIGHT and (nc := next(turns, None)) is not None:
                    window.append(pool.submit(evaluate, templates[nc[0]], nc[1], ctx, render=False))
                if not window:
                    break
                o = window.popleft().result()
                if o.disagreement:
                    suite.disagreements.append(o)
                if not o.kept:
                    suite.dropped.append(o)
                    continue
                if o.template.balance:
                    side = str(o.answer.get("value") if isinstance(o.answer, dict) else o.answer)
                    if per_answer.get(side, 0) >= (quota + 1) // 2:
                        suite.dropped.append(o)
                        o.reason = f"balance: enough questions answered {side}"
                        continue
                    per_answer[side] = per_answer.get(side, 0) + 1
                o.precise_question = o.template.render(o.candidate, ctx)
                o.question, o.evidence = natural(o.template, o.candidate, ctx, o.precise_question)
                if o.question in asked:  # users would word both the same: one question, not two
                    o.reason = f"same natural question as {asked[o.question]}"
                    suite.dropped.append(o)
                    continue
                asked[o.question] = f"q{len(kept) + 1:04d}"
                kept.append(o)
                got += 1
                if progress:
                    progress(len(kept), total)
            for f in window:  # evaluations past the quota: their outcomes are not used
                f.cancel()
            wait(window)
            if got < quota:
                suite.shortfall[fam] = quota - got
    suite.records = [outcome_record(o, f"q{i:04d}", ctx) for i, o in enumerate(kept, 1)]
    return suite


def write_suite(out: Path | str, suite: Suite) -> Path:
    """Write ``qa.jsonl`` atomically (temp file, then rename)."""
    from tools.bundle.atomic import atomic_write_text

    path = Path(out) / QA
    atomic_write_text(path, "".join(json.dumps(r, sort_keys=False) + "\n" for r in suite.records))
    return path


DEFAULT_HOLDOUT = "1d"


def _plan_asks_forecast(bundle: Path) -> bool:
    """The spec's query plan names the forecast family (then the build holds the last day back)."""
    from tools.spec.io import load_spec

    return load_spec(bundle / SPEC).query_plan.mix.get("forecast", 0.0) > 0


def family_quotas(ctx: SynthContext, n: int | None, families: Iterable[str]) -> dict[str, int]:
    """The plan's quotas plus MIN_PER_FAMILY questions of each extra family asked for (``forecast``
    only on a bundle with a held-back horizon)."""
    from tools.queries.holdout import HoldoutError

    out = quotas(ctx, n)
    for f in families:
        if f not in FAMILIES:
            raise HoldoutError(f"--family {f}: unknown question family; choose from {', '.join(FAMILIES)}")
        if f == "forecast" and not ctx.holdout:
            raise HoldoutError("--family forecast needs a held-back horizon: pass --holdout 1d")
        out.setdefault(f, MIN_PER_FAMILY)
    return out


def build_suite(bundle: Path | str, n: int | None = None, seed: int = 0,
                progress: Callable[[int, int], None] | None = None, prefer: Iterable[str] = (),
                holdout: str | None = None, families: Iterable[str] = ()) -> Suite:
    """Open a bundle, synthesize its suite, write qa.jsonl, the report section and the manifest hashes.
    ``holdout`` (e.g. ``1d``) first holds the last part of every table back (tools/queries/holdout.py);
    ``families`` adds extra families (shape, detection, forecast, claim, false_premise, unanswerable).
    Asking for forecasts (``families`` or the plan's mix) holds back DEFAULT_HOLDOUT unless told otherwise;
    nothing else holds anything back, so a bundle's tables stay as generated."""
    from tools.bundle.layout import is_partitioned
    from tools.bundle.manifest import refresh_manifest
    from tools.queries.conventions import suite_header, write_header
    from tools.queries.holdout import read_holdout
    from tools.queries.report import write_questions_report
    from tools.queries.stream import explore_on_sample

    bundle, families = Path(bundle), list(families)
    if holdout is None and read_holdout(bundle) is None and ("forecast" in families or _plan_asks_forecast(bundle)):
        holdout = DEFAULT_HOLDOUT  # forecasts are checked on held-back data: hold back the default horizon
    if holdout:
        from tools.queries.holdout import split_holdout

        split_holdout(bundle, holdout)
    ctx = open_context(bundle, seed)
    if not any(is_partitioned(bundle, name) for name in ctx.catalog.tables):  # parts are read as needed
        ctx.prefetch()
    else:
        explore_on_sample(ctx)
    try:
        only = family_quotas(ctx, n, families) if families else None
        suite = synthesize(ctx, n, progress, prefer=prefer, only=only)
    finally:
        ctx.close()
    write_suite(bundle, suite)
    write_header(bundle, suite_header(ctx.catalog, ctx.spec.start_dt.year))
    write_questions_report(bundle, suite, ctx.spec.name)
    refresh_manifest(bundle, [QA, SUITE_HEADER, REPORT, FIGURES_DIR])
    return suite
