"""report.html and compare.html: a run (or several) rendered with a jinja2 template.

Everything shown comes from summary.json, the suite and the responses, and the page renders
whatever they hold: families, templates and per-family metrics added later appear without a change
here. Agents' answers are markdown more often than not (bold, tables, code), so they are rendered
with markdown-it (raw HTML disabled); everything else is escaped text. Figures are PNGs under
``RUN/figures`` referenced relatively, so the run directory can be moved or zipped as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                          autoescape=jinja2.select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True)
MAX_FAILURES = 60  # failing answers listed in full; the rest are counted (all are in responses.jsonl)
MAX_ANSWER = 2000  # characters of an answer shown


def _md(text: Any) -> str:
    """An agent's answer as HTML (markdown rendered, raw HTML escaped)."""
    text = str(text or "")
    cut = len(text) > MAX_ANSWER
    return _MD.render(text[:MAX_ANSWER] + (" …" if cut else ""))


_ENV.filters["markdown"] = lambda t: Markup(_md(t))


def _pct(v) -> str:
    return "n/a" if v is None else f"{v:.1%}"


def _shade(v) -> str:
    """A red → amber → green cell colour for an accuracy in [0, 1] (grey when there is none)."""
    if v is None:
        return "#e5e7eb"
    hue = int(120 * max(0.0, min(1.0, v)))
    return f"hsl({hue}, 65%, {82 - 22 * abs(v - 0.5):.0f}%)"


_ENV.filters["pct"] = _pct
_ENV.filters["shade"] = _shade


def _fmt(key: str, v) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        ratio = any(w in key for w in ("rate", "accuracy", "share", "consistency")) or key in (
            "precision", "recall", "f1", "mape")
        return _pct(v) if ratio and 0 <= v <= 1 else format(v, ".4g")
    return str(v)


def _cards(s: dict) -> list[dict]:
    """The headline numbers: accuracy, each family, best pass@k, consistency, traps, errors, latency."""
    cards = [{"label": "accuracy", "value": _pct(s.get("accuracy")), "sub": f"{s.get('answers', 0)} answers",
              "level": s.get("accuracy")}]
    for fam, v in (s.get("by_family") or {}).items():
        cards.append({"label": fam, "value": _pct(v.get("accuracy")), "sub": f"n={v.get('n')}",
                      "level": v.get("accuracy")})
    pk = {k: v for k, v in (s.get("pass_at_k") or {}).items() if v is not None}
    if pk:
        k = max(pk, key=lambda x: int(x))
        cards.append({"label": f"pass@{k}", "value": _pct(pk[k]), "sub": "any of k trials right", "level": pk[k]})
    for key, label, sub in (("self_consistency", "self-consistency", "same label across trials"),
                            ("naive_trap_rate", "naive-trap rate", "wrong answers that are the naive reading"),
                            ("runtime_error_rate", "runtime errors", "crashes, timeouts, no answer")):
        if key in s:
            cards.append({"label": label, "value": _pct(s[key]), "sub": sub, "level": None})
    lat = (s.get("latency_s") or {}).get("p95")
    if lat is not None:
        cards.append({"label": "latency p95", "value": f"{lat:.2f} s", "sub": "per answer", "level": None})
    return cards


def _template_rows(records: list[dict], responses: list[dict], trials: int) -> list[dict]:
    """Template × trial grid: per template (in family order) the accuracy in each trial and overall."""
    family = {r["template"]: r.get("family", "") for r in records}
    order = list(dict.fromkeys(r.get("family", "") for r in records))
    cells: dict[str, list[list[int]]] = {}
    for r in responses:
        grid = cells.setdefault(r["template"], [[0, 0] for _ in range(trials)])
        if 0 <= r["trial"] < trials:
            grid[r["trial"]][0] += r["label"] == "correct"
            grid[r["trial"]][1] += 1
    rows = []
    for t, grid in cells.items():
        c, n = sum(g[0] for g in grid), sum(g[1] for g in grid)
        rows.append({"template": t, "family": family.get(t, ""), "n": n, "accuracy": c / n if n else None,
                     "trials": [g[0] / g[1] if g[1] else None for g in grid],
                     "counts": [f"{g[0]}/{g[1]}" for g in grid]})
    rank = {f: i for i, f in enumerate(order)}
    return sorted(rows, key=lambda r: (rank.get(r["family"], 99), r["accuracy"] if r["accuracy"] is not None else 2,
                                       r["template"]))


def _failures(records: list[dict], responses: list[dict]) -> tuple[list[dict], int]:
    """Failing answers (first trial of each question that failed), worst templates first."""
    question = {r["id"]: r for r in records}
    seen, out = set(), []
    for r in sorted(responses, key=lambda r: (r["template"], r["id"], r["trial"])):
        if r["label"] == "correct" or r["id"] in seen:
            continue
        seen.add(r["id"])
        q = question.get(r["id"], {})
        out.append({"id": r["id"], "trial": r["trial"] + 1, "template": r["template"], "family": r.get("family"),
                    "persona": r.get("persona"), "question": q.get("question", ""),
                    "expected": q.get("answer_text", q.get("answer", "")), "answer": r.get("error") or r.get("response"),
                    "is_error": bool(r.get("error")), "label": r["label"].replace("_", " "),
                    "reason": (r.get("reason") or "").replace("_", " "), "detail": r.get("detail") or ""})
    return out[:MAX_FAILURES], max(0, len(out) - MAX_FAILURES)


def _extra_sections(s: dict) -> list[dict]:
    """Per-family metric tables (summary.json ``families``) and any other metric map added later."""
    out = []
    for fam, metrics in (s.get("families") or {}).items():
        if isinstance(metrics, dict):
            out.append({"title": f"{fam} questions (n={metrics.get('n', '?')})",
                        "rows": [(k.replace("_", " "), _fmt(k, v)) for k, v in metrics.items()
                                 if k != "n" and not isinstance(v, dict | list)]})
    known = {"agent", "bundle", "backend", "questions", "answers", "trials", "accuracy", "by_family", "by_template",
             "by_persona", "pass_at_k", "self_consistency", "paraphrase_consistency", "naive_trap_rate",
             "naive_trap_n", "runtime_error_rate", "labels", "latency_s", "cost", "undecided", "grading",
             "families", "per_question"}
    other = [(k.replace("_", " "), _fmt(k, v)) for k, v in s.items() if k not in known and not isinstance(v, dict | list)]
    for k, v in s.items():
        if k not in known and isinstance(v, dict) and all(not isinstance(x, dict | list) for x in v.values()):
            out.append({"title": k.replace("_", " "), "rows": [(str(a), _fmt(str(a), b)) for a, b in v.items()]})
    if other:
        out.append({"title": "other metrics", "rows": other})
    return out


def render_run_html(meta: dict, summary: dict, records: list[dict], responses: list[dict],
                    figures: dict[str, str]) -> str:
    """The HTML page of one run (``figures``: caption → path relative to the run directory)."""
    trials = max(int(summary.get("trials") or 1), 1)
    failures, more = _failures(records, responses)
    grading = summary.get("grading") or {}
    reasons = [(lab.replace("_", " "), reason.replace("_", " "), n)
               for lab, rs in (grading.get("reasons") or {}).items() for reason, n in rs.items()]
    return _ENV.get_template("report.html.j2").render(
        kind="run", title=f"chronoeval run: {meta.get('agent')}", meta=meta, s=summary, cards=_cards(summary),
        families=[(f, v) for f, v in (summary.get("by_family") or {}).items()],
        personas=[(p, v) for p, v in (summary.get("by_persona") or {}).items()],
        templates=_template_rows(records, responses, trials), trials=trials, failures=failures, more=more,
        reasons=reasons, judge=grading.get("judge_verdicts") or [], undecided=summary.get("undecided") or [],
        extra=_extra_sections(summary), figures=figures)


def render_compare_html(runs: list[tuple[str, dict]], family_of: dict[str, str]) -> str:
    """The agents side by side: ``runs`` is [(column name, summary)], ``family_of`` maps templates to
    their family; headline metrics, families and a template × agent grid."""
    names = [n for n, _ in runs]
    metrics: dict[str, list] = {"accuracy": [s.get("accuracy") for _, s in runs]}
    fams = list(dict.fromkeys(f for _, s in runs for f in (s.get("by_family") or {})))
    for f in fams:
        metrics[f] = [((s.get("by_family") or {}).get(f) or {}).get("accuracy") for _, s in runs]
    ks = sorted({k for _, s in runs for k in (s.get("pass_at_k") or {})}, key=int)
    for k in ks:
        metrics[f"pass@{k}"] = [(s.get("pass_at_k") or {}).get(k) for _, s in runs]
    for key, label in (("self_consistency", "self-consistency"), ("naive_trap_rate", "naive-trap rate"),
                       ("runtime_error_rate", "runtime errors")):
        metrics[label] = [s.get(key) for _, s in runs]
    from tools.harness.compare_context import context_metrics

    metrics.update(context_metrics([s for _, s in runs]))
    rank = {f: i for i, f in enumerate(dict.fromkeys(family_of.values()))}  # the suite's family order
    templates = sorted({t for _, s in runs for t in (s.get("by_template") or {})},
                       key=lambda t: (rank.get(family_of.get(t, ""), 99), t))
    grid = [{"template": t, "family": family_of.get(t, ""),
             "cells": [((s.get("by_template") or {}).get(t) or {}) for _, s in runs]} for t in templates]
    return _ENV.get_template("report.html.j2").render(
        kind="compare", title="chronoeval: agents side by side", names=names,
        metrics=[(k, v, k not in ("runtime errors", "naive-trap rate")) for k, v in metrics.items()],
        grid=grid, summaries=[s for _, s in runs])
