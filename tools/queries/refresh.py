"""Change an existing suite without rebuilding it: re-answer its questions on regenerated data,
add questions of some families (optionally about a topic), drop questions about a topic.

Every answer still comes from both executors: a kept question is re-run by the pandas reference
and its gold SQL; one whose answer changed goes through every synthesis filter again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tools.bundle.files import QA
from tools.queries.answers import agree, canonical
from tools.queries.context import open_context
from tools.queries.evaluate import run_reference, run_sql
from tools.queries.registry import FAMILIES, load_templates
from tools.queries.spec import QuerySpec
from tools.queries.suite import Suite, candidate_key, synthesize


def read_qa(bundle: Path | str) -> list[dict[str, Any]]:
    """The records of a bundle's qa.jsonl (empty when there is none)."""
    path = Path(bundle) / QA
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []


def write_qa(bundle: Path | str, records: list[dict[str, Any]]) -> None:
    """Write qa.jsonl atomically."""
    from tools.bundle.atomic import atomic_write_text

    atomic_write_text(Path(bundle) / QA, "".join(json.dumps(r) + "\n" for r in records))


def refresh_answers(bundle: Path | str, records: list[dict[str, Any]], seed: int = 0
                    ) -> tuple[list[dict], list[dict], list[dict]]:
    """Re-answer canonical records on the bundle's (regenerated) data: (unchanged, updated, lost).

    Unchanged: both executors still give the recorded answer. Updated: the same question (found
    again among its template's candidates) passes every filter with a new answer from both
    executors; its paraphrases get the new answer too. Lost: neither (the caller replaces them)."""
    from tools.queries.evaluate import evaluate
    from tools.queries.suite import family_pools, outcome_record

    templates = load_templates()
    ctx = open_context(bundle, seed)
    same_ids, unchanged, updated, lost, pending = set(), [], {}, [], []
    try:
        for r in records:
            if r.get("variant_of"):
                continue
            t = templates[r["template"]]
            q = QuerySpec.model_validate(r["params"])
            ref = canonical(run_reference(ctx, t, q), r["answer_type"])
            sql = run_sql(ctx, r["gold_sql"], r["answer_type"])
            if agree(ref, r["answer"]) and agree(sql, r["answer"]):
                unchanged.append(r)
                same_ids.add(r["id"])
            else:
                pending.append(r)
        # the candidates are enumerated as synthesis did (same seed, family order), so the random
        # choices (windows, filters, thresholds) fall the same way and the questions are found again
        found: dict[str, tuple] = {}
        wanted = {r["family"] for r in pending}
        for fam in FAMILIES[:max((FAMILIES.index(f) + 1 for f in wanted), default=0)]:
            for name, cands in family_pools(ctx, templates, fam, 1).items():
                for c in cands:
                    found.setdefault(candidate_key(c.spec.to_json(), c.contrast), (templates[name], c))
        for r in pending:
            hit = found.get(candidate_key(r["params"], bool(r.get("contrast"))))
            o = evaluate(hit[0], hit[1], ctx) if hit else None
            if o is not None and o.kept:  # the same question: it keeps its wording, only its answer changes
                wording = {k: r[k] for k in ("question", "canonical_question", "precise_question", "evidence") if k in r}
                updated[r["id"]] = {**outcome_record(o, r["id"], ctx), **wording}
            else:
                lost.append(r)
    finally:
        ctx.close()
    fresh = {"answer", "answer_text", "tolerance", "naive_answer", "gold_sql", "gold_sql_dialects"}
    variants = [r for r in records if r.get("variant_of") in same_ids] + [
        {**r, **{k: updated[r["variant_of"]][k] for k in fresh if k in updated[r["variant_of"]]}}
        for r in records if r.get("variant_of") in updated]
    return unchanged + variants, list(updated.values()), lost


def next_ids(records: list[dict[str, Any]], n: int) -> list[str]:
    """``n`` fresh canonical ids after the largest one in use."""
    used = [int(m.group(1)) for r in records if (m := re.fullmatch(r"q(\d+)", r["id"]))]
    start = max(used, default=0) + 1
    return [f"q{i:04d}" for i in range(start, start + n)]


def add_questions(bundle: Path | str, records: list[dict[str, Any]], only: dict[str, int], topic: str | None = None,
                  seed: int = 0, retired: list[dict[str, Any]] = ()) -> tuple[list[dict[str, Any]], Suite]:
    """New canonical records for the families in ``only``, about ``topic`` when given (a word of the
    query: a state, key, attribute value, table), never repeating a question of ``records``; their
    ids come after every id of ``records`` and ``retired`` (an id is never given to another question)."""
    word = topic.lower().strip() if topic else None

    def about(c) -> bool:
        return word is None or word in json.dumps(c.spec.to_json()).lower() or word in json.dumps(c.hints).lower()

    seen = {candidate_key(r["params"], bool(r.get("contrast"))) for r in records if not r.get("variant_of")}
    ctx = open_context(bundle, seed)
    try:
        suite = synthesize(ctx, only=only, accept=about, seen=seen)
    finally:
        ctx.close()
    fresh = suite.records
    ids = next_ids([*records, *retired], len(fresh))
    renumbered = []
    for rec, qid in zip(fresh, ids, strict=True):
        renumbered.append({**rec, "id": qid})
    return renumbered, suite


# topics users name that no column is called: the words such questions are made of
TOPIC_WORDS = {
    "security": ["login", "auth", "password", "compromis", "intrusion", "malware", "firewall", "outbound", "attack"],
    "performance": ["latency", "p95", "p99", "response", "throughput", "cpu", "slow"],
    "availability": ["availab", "outage", "offline", "uptime", "down"],
    "reliability": ["error", "fail", "restart", "crash", "offline", "critical"],
    "conversion": ["purchase", "checkout", "cart", "conversion", "funnel"],
    "battery": ["battery"], "network": ["packet", "latency", "jitter", "signal", "link"],
}


def about_topic(record: dict[str, Any], topic: str) -> bool:
    """Whether a question is about ``topic``: its family, template, tables, query or wording (or, for
    topics such as 'security' or 'performance', the words those questions are made of)."""
    t = topic.lower().strip()
    blob = " ".join([record.get("family", ""), record.get("template", ""), " ".join(record.get("tables", [])),
                     json.dumps(record.get("params", {})), record.get("canonical_question", "")]).lower()
    words = TOPIC_WORDS.get(t, TOPIC_WORDS.get(t.rstrip("s"), []))
    return t in blob or t.rstrip("s") in blob or any(w in blob for w in words)


__all__ = ["about_topic", "add_questions", "next_ids", "read_qa", "refresh_answers", "write_qa"]
