"""Metrics of the shape, detection, forecast, claim and premise families (summary.json ``families``).

- ``false_premise``: premise-rejection rate (share of answers that reject the false premise) and the
  fabrication rate (answers that accept it);
- ``unanswerable``: share of answers that decline naming the missing data;
- ``claim``: accuracy on true and on false claims separately (an agent that agrees with everything
  scores 1 and 0);
- ``detection``: micro precision / recall / F1 of the entities listed against the ground truth;
- ``forecast``: MAPE and MASE of the figures stated, MASE scaled by the seasonal-naive forecast's
  error stored with each question (``params.params.naive_forecast``): below 1 beats seasonal naive.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any


def _rate(rows: list[dict], label: str = "correct") -> float | None:
    return sum(r["label"] == label for r in rows) / len(rows) if rows else None


def _prf(pairs: list[tuple[set, set]]) -> dict[str, Any]:
    tp = sum(len(g & w) for g, w in pairs)
    fp = sum(len(g - w) for g, w in pairs)
    fn = sum(len(w - g) for g, w in pairs)
    p = tp / (tp + fp) if tp + fp else (1.0 if not fn else 0.0)
    r = tp / (tp + fn) if tp + fn else 1.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0, "n": len(pairs)}


def _listed(row: dict, expected: list[str], universe: set[str]) -> set[str]:
    """The entities an answer lists (canonical ids: 'MME_000' and 'MME_0' are one): the grader's parse,
    else the known ids found in its text."""
    from tools.grade.ids import canon_id

    parsed = row.get("parsed")
    if isinstance(parsed, list) and all(isinstance(x, str) for x in parsed):
        return {canon_id(x) for x in parsed}
    text = str(row.get("response") or "")
    return {canon_id(e) for e in universe | set(expected) if re.search(rf"(?<![\w-]){re.escape(e)}(?![\w-])", text)}


def _figure(row: dict) -> float | None:
    parsed = row.get("parsed")
    if isinstance(parsed, int | float) and not isinstance(parsed, bool):
        return float(parsed)
    from tools.grade.text import mask_dates, numbers

    nums = numbers(mask_dates(str(row.get("response") or "")))
    return nums[0].value if len(nums) == 1 else None


def family_metrics(records: list[dict], rows: list[dict]) -> dict[str, Any]:
    """Per new family, its own metric (see module docstring); families without answers are left out."""
    rec = {r["id"]: r for r in records}
    by: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["id"] in rec:
            by[rec[row["id"]]["family"]].append(row)
    out: dict[str, Any] = {}
    if by.get("false_premise"):
        rs = by["false_premise"]
        out["false_premise"] = {"premise_rejection_rate": _rate(rs),
                                "fabrication_rate": sum(r.get("reason") == "fabricated" for r in rs) / len(rs),
                                "n": len(rs)}
    if by.get("unanswerable"):
        rs = by["unanswerable"]
        out["unanswerable"] = {"missing_data_named_rate": _rate(rs),
                               "fabrication_rate": sum(r.get("reason") == "fabricated" for r in rs) / len(rs),
                               "n": len(rs)}
    if by.get("claim"):
        rs = by["claim"]
        truth = {i: bool(rec[i]["answer"]["value"] if isinstance(rec[i]["answer"], dict) else rec[i]["answer"])
                 for i in {r["id"] for r in rs}}
        out["claim"] = {"accuracy_true_claims": _rate([r for r in rs if truth[r["id"]]]),
                        "accuracy_false_claims": _rate([r for r in rs if not truth[r["id"]]]), "n": len(rs)}
    if by.get("detection"):
        from tools.grade.ids import canon_id

        pairs = []
        for r in by["detection"]:
            want = rec[r["id"]]["answer"]
            if isinstance(want, list):
                universe = set((rec[r["id"]].get("params") or {}).get("params", {}).get("universe", []))
                pairs.append((_listed(r, want, universe), {canon_id(x) for x in want}))
        if pairs:
            out["detection"] = _prf(pairs)
    if by.get("forecast"):
        ape, scaled = [], []
        for r in by["forecast"]:
            q = rec[r["id"]]
            truth, p = q["answer"], (q.get("params") or {}).get("params", {})
            got = _figure(r)
            if not isinstance(truth, int | float) or isinstance(truth, bool) or got is None:
                continue
            if truth:
                ape.append(abs(got - truth) / abs(truth))
            if p.get("naive_forecast") is not None and abs(p["naive_forecast"] - truth) > 0:
                scaled.append(abs(got - truth) / abs(p["naive_forecast"] - truth))
        out["forecast"] = {"mape": sum(ape) / len(ape) if ape else None,
                           "mase": sum(scaled) / len(scaled) if scaled else None,
                           "answered_with_a_figure": len(ape), "n": len(by["forecast"])}
    return out
