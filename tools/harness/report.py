"""RUN/summary.json, RUN/report.md and RUN/report.html (figures under RUN/figures), and the
side-by-side comparison of several runs."""

from __future__ import annotations

import json
from pathlib import Path

from tools.harness import plots
from tools.harness.context import HarnessError
from tools.harness.html_report import render_compare_html, render_run_html
from tools.harness.metrics import summarize
from tools.harness.prompting import context_section, context_summary
from tools.harness.runner import load_responses
from tools.harness.template_heatmap import template_heatmap


def load_run(run_dir: Path) -> tuple[dict, list[dict], list[dict]]:
    """(run.json, suite records, responses) of a run directory."""
    run_dir = Path(run_dir)
    if not (run_dir / "run.json").is_file():
        raise HarnessError(f"{run_dir} is not a chronoeval run (no run.json); create one with chronoeval eval")
    meta = json.loads((run_dir / "run.json").read_text())
    records = [json.loads(x) for x in (run_dir / "suite.jsonl").read_text().splitlines() if x.strip()]
    return meta, records, load_responses(run_dir)


def _pct(v) -> str:
    return "n/a" if v is None else f"{v:.1%}"


def _worst(summary: dict, records: list[dict], responses: list[dict], n: int = 5) -> list[tuple[str, dict, list]]:
    """The n templates with the lowest accuracy and up to two example failures of each."""
    question = {r["id"]: r for r in records}
    worst = sorted(((t, s) for t, s in summary["by_template"].items() if s["accuracy"] is not None and s["accuracy"] < 1),
                   key=lambda ts: (ts[1]["accuracy"], ts[0]))[:n]
    out = []
    for t, s in worst:
        fails = list({r["id"]: r for r in reversed(responses)
                      if r["template"] == t and r["label"] != "correct"}.values())[::-1][:2]  # distinct questions
        out.append((t, s, [(question[r["id"]], r) for r in fails]))
    return out


def _markdown(meta: dict, s: dict, worst, figs: dict[str, str]) -> str:
    lines = [f"# chronoeval run: {meta.get('agent')} on {meta.get('bundle')}", "",
             f"{s['questions']} questions × {s['trials']} trials = {s['answers']} answers; backend "
             f"{meta.get('backend')}.", "",
             "| metric | value |", "|---|---|",
             f"| accuracy | {_pct(s['accuracy'])} |"]
    lines += [f"| accuracy ({f}) | {_pct(v['accuracy'])} (n={v['n']}) |" for f, v in s["by_family"].items()]
    lines += [f"| pass@{k} | {_pct(v)} |" for k, v in s["pass_at_k"].items()]
    lines += [f"| self-consistency | {_pct(s['self_consistency'])} |",
              f"| paraphrase consistency | {_pct(s['paraphrase_consistency'])} |",
              f"| naive-trap rate | {_pct(s['naive_trap_rate'])} (of {s['naive_trap_n']} wrong answers to questions with a naive reading) |",
              f"| runtime errors | {_pct(s['runtime_error_rate'])} |",
              f"| latency per question (mean / p95) | {_sec(s['latency_s']['mean'])} / {_sec(s['latency_s']['p95'])} |",
              f"| cost per question | {'n/a' if s['cost']['per_question'] is None else format(s['cost']['per_question'], '.4g')} |",
              "", *[f"![{k}]({v})" for k, v in figs.items()], "", "## Worst templates", ""]
    for t, ts, fails in worst:
        lines.append(f"### `{t}`: {_pct(ts['accuracy'])} of {ts['n']}")
        for rec, row in fails:
            said = row["error"] or str(row["response"])
            lines += ["", f"- **{rec['id']}** (trial {row['trial'] + 1}) {rec['question']}",
                      f"  - expected: {rec['answer_text']}", f"  - answer: {_one_line(said)}",
                      f"  - grade: {row['label']} — {row['detail']}"]
        lines.append("")
    lines += family_metric_lines(s.get("families"))
    lines += _grading_lines(s.get("grading"))
    if s["undecided"]:
        lines += ["## Undecided grades (counted as incorrect; review or configure a judge)", ""]
        lines += [f"- {u['id']} trial {u['trial'] + 1}: [{u.get('reason', '')}] {u['detail']}" for u in s["undecided"]]
    return "\n".join(lines).rstrip() + "\n"


def family_metric_lines(fams: dict | None) -> list[str]:
    """The 'Question families' section: each new family's own metrics (summary.json ``families``)."""
    if not fams:
        return []
    lines = ["## Question families", "", "| family | metric | value |", "|---|---|---|"]
    for fam, m in fams.items():
        for k, v in m.items():
            if k != "n":
                val = "n/a" if v is None else (_pct(v) if "rate" in k or "accuracy" in k or k in
                                               ("precision", "recall", "f1", "mape") else format(v, ".3g"))
                lines.append(f"| {fam} (n={m.get('n', '')}) | {k.replace('_', ' ')} | {val} |")
    return [*lines, ""]


def _grading_lines(g: dict | None) -> list[str]:
    """The 'Grading' section: answers per label and reason code, and the judge's verdicts (marked)."""
    if not g:
        return []
    lines = ["## Grading", "", "| label | reason | answers |", "|---|---|---|"]
    lines += [f"| {lab} | {reason} | {n} |" for lab, rs in g["reasons"].items() for reason, n in rs.items()]
    by = ", ".join(f"{k}: {v}" for k, v in sorted(g["graded_by"].items()))
    lines += ["", f"Graded by: {by}.", ""]
    if g["judge_verdicts"]:
        lines += ["### Judge verdicts (LLM judge, on answers the rules left undecided)", ""]
        lines += [f"- {j['id']} trial {j['trial'] + 1}: **{j['label']}** (judge verdict) — {j['detail']}"
                  for j in g["judge_verdicts"]]
        lines.append("")
    return lines


def _one_line(text: str, limit: int = 300) -> str:
    """An answer on one markdown line: whitespace runs (newlines too) become one space, cut at ``limit``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _sec(v) -> str:
    return "n/a" if v is None else f"{v:.3f} s"


def write_report(run_dir: Path) -> dict:
    """Compute RUN/summary.json and write report.md, report.html and the figures; returns the summary."""
    run_dir = Path(run_dir)
    meta, records, responses = load_run(run_dir)
    s = summarize(records, responses, {k: meta.get(k) for k in ("agent", "bundle", "backend")})
    s.update(context_summary(responses))
    fig_dir = run_dir / "figures"
    fig_dir.mkdir(exist_ok=True)
    figs = {"template × trial": template_heatmap(records, responses, max(s["trials"], 1), fig_dir / "heatmap.png"),
            "accuracy by family": plots.family_bars(s, fig_dir / "accuracy_by_family.png"),
            "pass@k": plots.pass_at_k_plot(s, fig_dir / "pass_at_k.png"),
            "self-consistency": plots.consistency_plot(s, fig_dir / "self_consistency.png")}
    rel = {k: str(v.relative_to(run_dir)) for k, v in figs.items()}
    md = _markdown(meta, s, _worst(s, records, responses), rel) + context_section(s)
    atomic_write_text(run_dir / "summary.json", json.dumps(s, indent=2, default=str) + "\n")
    atomic_write_text(run_dir / "report.md", md)
    atomic_write_text(run_dir / "report.html", render_run_html(meta, s, records, responses, rel))
    return s


def compare_runs(run_dirs: list[Path]) -> str:
    """A markdown table putting several runs side by side (summaries are recomputed from responses)."""
    from tools.harness.compare_context import context_metrics, with_context

    cols, rows, sums = [], {}, []
    for d in run_dirs:
        meta, records, responses = load_run(d)
        s = with_context(summarize(records, responses), responses)
        sums.append(s)
        cols.append(f"{meta.get('agent')} ({Path(d).name})")
        metrics = {"accuracy": s["accuracy"], **{f"accuracy {f}": v["accuracy"] for f, v in s["by_family"].items()},
                   **{f"pass@{k}": v for k, v in s["pass_at_k"].items()},
                   "self-consistency": s["self_consistency"], "naive-trap rate": s["naive_trap_rate"],
                   "runtime errors": s["runtime_error_rate"]}
        for k, v in metrics.items():
            rows.setdefault(k, {})[cols[-1]] = _pct(v)
    for k, vals in context_metrics(sums).items():
        rows[k] = {c: _pct(v) for c, v in zip(cols, vals, strict=True) if v is not None}
    lines = ["| metric | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    lines += [f"| {k} | " + " | ".join(v.get(c, "n/a") for c in cols) + " |" for k, v in rows.items()]
    return "\n".join(lines) + "\n"


def compare_html(run_dirs: list[Path]) -> str:
    """The agents of several runs side by side as an HTML page (metrics, families, template × agent)."""
    from tools.harness.compare_context import with_context

    runs, family_of = [], {}
    for d in run_dirs:
        meta, records, responses = load_run(d)
        family_of.update({r["template"]: r.get("family", "") for r in records})
        runs.append((f"{meta.get('agent')} ({Path(d).name})", with_context(summarize(records, responses), responses)))
    return render_compare_html(runs, family_of)


def atomic_write_text(path: Path, text: str) -> None:
    """tools.bundle.atomic.atomic_write_text, imported on first use."""
    from tools.bundle.atomic import atomic_write_text as write

    write(path, text)
