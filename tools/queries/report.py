"""report.md's "Questions" section and its figure: counts by family and template, dropped
candidates and why, executor disagreements, and a sample of questions with answers."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tools.bundle.atomic import upsert_section
from tools.bundle.files import FIGURES_DIR, REPORT
from tools.queries.suite import Suite

BEGIN, END = "<!-- chronoeval:questions:begin -->", "<!-- chronoeval:questions:end -->"
SAMPLE = 12


def _reason_kind(reason: str) -> str:
    return re.split(r"[:(]", reason, maxsplit=1)[0].strip()


def _cell(s: object) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def questions_section(suite: Suite, figure: str | None = None) -> str:
    """The markdown section (between markers, so a re-run replaces it)."""
    recs = suite.records
    lines = [BEGIN, "## Questions", "",
             f"{len(recs)} canonical questions in `qa.jsonl` "
             f"(quotas: {', '.join(f'{k} {v}' for k, v in suite.quotas.items())}).", ""]
    for fam, short in suite.shortfall.items():
        lines += [f"**{fam}: {short} question(s) short of the quota**: not enough candidates passed the "
                  "filters below (the data has too few distinct situations for more).", ""]
    if figure:
        lines += [f"![questions by template]({figure})", ""]
    lines += ["| family | template | questions | contrast |", "|---|---|---|---|"]
    per = Counter((r["family"], r["template"]) for r in recs)
    con = Counter((r["family"], r["template"]) for r in recs if r["contrast"])
    for (fam, tpl), n in sorted(per.items()):
        lines.append(f"| {fam} | {tpl} | {n} | {con.get((fam, tpl), 0)} |")
    lines += ["", "### Dropped candidates", ""]
    if suite.dropped:
        why = Counter((o.template.name, _reason_kind(o.reason)) for o in suite.dropped)
        lines += ["| template | reason | candidates |", "|---|---|---|"]
        lines += [f"| {t} | {r} | {n} |" for (t, r), n in sorted(why.items())]
    else:
        lines.append("None.")
    lines += ["", "### Executor disagreements", ""]
    if suite.disagreements:
        lines.append("**These are bugs** (pandas reference and SQL differ); the questions were dropped.")
        lines.append("")
        lines += [f"- `{o.template.name}` `{_cell(o.candidate.spec.to_json())}`: {o.reason}"
                  for o in suite.disagreements]
    else:
        lines.append("None: both executors agreed on every evaluated candidate.")
    lines += ["", "### Sample", "", "| id | family | question | answer |", "|---|---|---|---|"]
    step = max(1, len(recs) // SAMPLE)
    for r in recs[::step][:SAMPLE]:
        lines.append(f"| {r['id']} | {r['family']} | {_cell(r['question'])} | {_cell(r['answer_text'])} |")
    return "\n".join(lines) + "\n" + END + "\n"


def questions_figure(suite: Suite, path: Path) -> Path:
    """A horizontal bar chart of questions per template, coloured by family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per = Counter((r["family"], r["template"]) for r in suite.records)
    items = sorted(per.items())
    colors = {"stateless": "#4c72b0", "stateful": "#dd8452", "incident": "#c44e52", "shape": "#55a868",
              "detection": "#8172b3", "forecast": "#937860", "claim": "#da8bc3", "false_premise": "#8c8c8c",
              "unanswerable": "#ccb974"}
    fig, ax = plt.subplots(figsize=(7, 0.28 * max(len(items), 4) + 1))
    ax.barh([t for (_, t), _ in items], [n for _, n in items], color=[colors[f] for (f, _), _ in items])
    ax.invert_yaxis()
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts of questions: whole ticks
    ax.set_xlabel("questions")
    ax.set_title("Questions per template (blue stateless, orange stateful, red incident)", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def write_questions_report(out: Path, suite: Suite, title: str = "") -> Path:
    """Write figures/questions.png and the Questions section of report.md."""
    fig = questions_figure(suite, out / FIGURES_DIR / "questions.png") if suite.records else None
    return upsert_section(out / REPORT, questions_section(suite, fig and f"{FIGURES_DIR}/questions.png"),
                          BEGIN, END, title)
