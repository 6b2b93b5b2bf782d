"""Change an existing suite without rebuilding it: re-check kept questions on regenerated data,
add questions of some families (optionally about a topic), drop questions about a topic.

Every answer still comes from both executors: a kept question is re-run by the pandas reference
and its gold SQL, and stays only if both still give its recorded answer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tools.queries.answers import agree, canonical
from tools.queries.context import open_context
from tools.queries.evaluate import run_reference, run_sql
from tools.queries.registry import load_templates
from tools.queries.spec import QuerySpec
from tools.queries.suite import Suite, candidate_key, synthesize


def read_qa(bundle: Path | str) -> list[dict[str, Any]]:
    """The records of a bundle's qa.jsonl (empty when there is none)."""
    path = Path(bundle) / "qa.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []


def write_qa(bundle: Path | str, records: list[dict[str, Any]]) -> None:
    """Write qa.jsonl atomically."""
    from tools.generate.atomic import atomic_write_text

    atomic_write_text(Path(bundle) / "qa.jsonl", "".join(json.dumps(r) + "\n" for r in records))


def still_true(bundle: Path | str, records: list[dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    """(kept, dropped) canonical records: kept when both executors still give the recorded answer on
    the bundle's (regenerated) data. Paraphrases follow their canonical question."""
    templates = load_templates()
    ctx = open_context(bundle)
    kept_ids, kept, dropped = set(), [], []
    try:
        for r in records:
            if r.get("variant_of"):
                continue
            t = templates[r["template"]]
            q = QuerySpec.model_validate(r["params"])
            atype = r["answer_type"]
            ref = canonical(run_reference(ctx, t, q), atype)
            sql = run_sql(ctx, r["gold_sql"], atype)
            if agree(ref, r["answer"]) and agree(sql, r["answer"]):
                kept.append(r)
                kept_ids.add(r["id"])
            else:
                dropped.append(r)
    finally:
        ctx.close()
    variants = [r for r in records if r.get("variant_of") in kept_ids]
    return kept + variants, dropped


def next_ids(records: list[dict[str, Any]], n: int) -> list[str]:
    """``n`` fresh canonical ids after the largest one in use."""
    used = [int(m.group(1)) for r in records if (m := re.fullmatch(r"q(\d+)", r["id"]))]
    start = max(used, default=0) + 1
    return [f"q{i:04d}" for i in range(start, start + n)]


def add_questions(bundle: Path | str, records: list[dict[str, Any]], only: dict[str, int], topic: str | None = None,
                  seed: int = 0) -> tuple[list[dict[str, Any]], Suite]:
    """New canonical records (fresh ids) for the families in ``only``, about ``topic`` when given
    (a word of the query: a state, key, attribute value, table), never repeating a question."""
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
    ids = next_ids(records, len(fresh))
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


__all__ = ["about_topic", "add_questions", "next_ids", "read_qa", "still_true", "write_qa"]
