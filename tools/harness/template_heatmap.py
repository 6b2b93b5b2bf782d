"""The run's heatmap as a PNG: one row per template (grouped by family), one column per trial,
each cell the share of that template's answers that were correct. A suite of hundreds of questions
fits in one glance (templates are a few dozen), unlike a row per question."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def template_heatmap(records: list[dict], responses: list[dict], trials: int, path: Path) -> Path:
    """Template × trial accuracy (red 0% → green 100%, blank: not asked), annotated with correct/asked."""
    family = {r["template"]: r.get("family", "") for r in records}
    fam_order = list(dict.fromkeys(r.get("family", "") for r in records))
    counts: dict[str, np.ndarray] = {}
    for r in responses:
        c = counts.setdefault(r["template"], np.zeros((trials, 2)))
        if 0 <= r["trial"] < trials:
            c[r["trial"]] += (r["label"] == "correct", 1)
    templates = sorted(counts, key=lambda t: (fam_order.index(family[t]) if family.get(t) in fam_order else 99, t))
    if not templates:
        templates = ["(no answers)"]
        counts = {"(no answers)": np.zeros((trials, 2))}
    grid = np.array([[c / n if n else np.nan for c, n in counts[t]] for t in templates])
    fig, ax = plt.subplots(figsize=(max(4.8, 2.6 + 0.9 * trials), max(2.4, 0.28 * len(templates) + 1.3)))
    ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap="RdYlGn", vmin=0, vmax=1, interpolation="nearest")
    for i, t in enumerate(templates):
        for j in range(trials):
            c, n = counts[t][j]
            if n:
                ax.text(j, i, f"{int(c)}/{int(n)}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(trials), [f"trial {j + 1}" for j in range(trials)], fontsize=8)
    ax.set_yticks(range(len(templates)), [f"{t}  ({family.get(t, '')})" for t in templates], fontsize=7)
    prev = None
    for i, t in enumerate(templates):
        if prev is not None and family.get(t) != prev:
            ax.axhline(i - 0.5, color="black", lw=1)
        prev = family.get(t)
    ax.set_title("correct answers per template and trial", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path
