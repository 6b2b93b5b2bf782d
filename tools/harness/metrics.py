"""Run metrics (RUN/summary.json): accuracy overall and by family / template / persona, pass@k
(unbiased estimator), self-consistency, paraphrase consistency, naive-trap rate, runtime errors,
latency and cost per question, and the undecided grades to review."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from math import comb
from typing import Any

from tools.harness.family_metrics import family_metrics


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one question (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def _acc(rows: list[dict]) -> dict:
    n = len(rows)
    return {"accuracy": sum(r["label"] == "correct" for r in rows) / n if n else None, "n": n}


def _group(rows: list[dict], key: str) -> dict[str, dict]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r.get(key) is not None:
            groups[str(r[key])].append(r)
    return {k: _acc(v) for k, v in sorted(groups.items())}


def _majority(labels: list[str]) -> tuple[str, float]:
    label, count = Counter(labels).most_common(1)[0]
    return label, count / len(labels)


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def summarize(records: list[dict], responses: list[dict], meta: dict | None = None) -> dict[str, Any]:
    """The summary of a run from its suite and its responses (one row per question and trial)."""
    ids = {r["id"] for r in records}
    rows = [r for r in responses if r["id"] in ids]
    by_q: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_q[r["id"]].append(r)
    trials = max((len(v) for v in by_q.values()), default=0)
    per_q = []
    for qid, rs in sorted(by_q.items()):
        n, c = len(rs), sum(x["label"] == "correct" for x in rs)
        label, share = _majority([x["label"] for x in rs])
        per_q.append({"id": qid, "n": n, "c": c, "majority": label, "share": share,
                      "latency_s": statistics.fmean(x["latency_s"] for x in rs)})
    pass_k = {}
    for k in range(1, trials + 1):
        vals = [pass_at_k(q["n"], q["c"], k) for q in per_q if q["n"] >= k]
        pass_k[str(k)] = sum(vals) / len(vals) if vals else None
    wrong_with_naive = [r for r in rows if r.get("naive_match") is not None]
    lat = [q["latency_s"] for q in per_q]
    costs = [r["cost"] for r in rows if r.get("cost") is not None]
    tokens = [r["tokens"] for r in rows if r.get("tokens") is not None]
    return {
        **(meta or {}),
        "questions": len(by_q), "answers": len(rows), "trials": trials,
        "accuracy": _acc(rows)["accuracy"],
        "by_family": _group(rows, "family"),
        "by_template": _group(rows, "template"),
        "by_persona": _group([{**r, "persona": r.get("persona") or "canonical"} for r in rows], "persona"),
        "pass_at_k": pass_k,
        "self_consistency": statistics.fmean(q["share"] for q in per_q) if per_q else None,
        "paraphrase_consistency": _paraphrase_consistency(records, per_q),
        "naive_trap_rate": (sum(r["naive_match"] for r in wrong_with_naive) / len(wrong_with_naive)
                            if wrong_with_naive else None),
        "naive_trap_n": len(wrong_with_naive),
        "runtime_error_rate": sum(r["label"] == "runtime_error" for r in rows) / len(rows) if rows else None,
        "labels": dict(Counter(r["label"] for r in rows)),
        "latency_s": {"mean": statistics.fmean(lat) if lat else None, "p50": _pct(lat, 0.5), "p95": _pct(lat, 0.95)},
        "cost": {"total": sum(costs) if costs else None, "per_question": sum(costs) / len(by_q) if costs else None,
                 "tokens_per_question": sum(tokens) / len(by_q) if tokens else None},
        "undecided": [{"id": r["id"], "trial": r["trial"], "detail": r["detail"], "reason": r.get("reason", "")}
                      for r in rows if not r.get("decided", True)],
        "grading": _grading(rows),
        "families": family_metrics(records, rows),
        "per_question": per_q,
    }


def _grading(rows: list[dict]) -> dict[str, Any]:
    """How the answers were graded: reason codes per label, counts by grader (rules / judge / none),
    and every judge verdict (marked as such)."""
    reasons: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        reasons[r["label"] if r.get("decided", True) else "undecided"][r.get("reason") or "unspecified"] += 1
    return {"reasons": {k: dict(sorted(v.items())) for k, v in sorted(reasons.items())},
            "graded_by": dict(Counter(r.get("graded_by", "rules") for r in rows)),
            "judge_verdicts": [{"id": r["id"], "trial": r["trial"], "label": r["label"], "detail": r["detail"]}
                               for r in rows if r.get("graded_by") == "judge"]}


def _paraphrase_consistency(records: list[dict], per_q: list[dict]) -> float | None:
    """Share of paraphrases whose majority label equals their canonical question's (None: no paraphrases)."""
    maj = {q["id"]: q["majority"] for q in per_q}
    pairs = [(maj[r["id"]], maj[r["variant_of"]]) for r in records
             if r.get("variant_of") and r["id"] in maj and r["variant_of"] in maj]
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def failure_lessons(summary: dict[str, Any], *, below: float = 0.5, min_answers: int = 2) -> list[tuple[str, str]]:
    """(template, experience-note text) for each template the agent got mostly wrong, e.g. "agent
    naive failed 6/6 answers to sequence_match questions (stateful)": what the build's query
    synthesizer reads to favour those templates next time."""
    families = {q["template"]: q.get("family", "") for q in summary.get("per_question", []) if q.get("template")}
    out = []
    for template, g in sorted(summary.get("by_template", {}).items()):
        n, acc = g.get("n", 0), g.get("accuracy")
        if acc is None or n < min_answers or acc >= below:
            continue
        wrong = round(n * (1 - acc))
        fam = f" ({families[template]})" if families.get(template) else ""
        out.append((template, f"agent {summary.get('agent', '?')} failed {wrong}/{n} answers to {template} "
                              f"questions{fam}"))
    return out
