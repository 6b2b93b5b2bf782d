"""matplotlib figures of a run (PNG, Agg backend): the questions × trials heatmap grouped by
family, accuracy by family, pass@k and the self-consistency histogram."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from tools.queries.registry import FAMILIES  # noqa: E402

_CODES = {"correct": 2, "incorrect": 1, "runtime_error": 0}
_COLORS = ["#7f7f7f", "#d62728", "#2ca02c"]  # runtime_error, incorrect, correct


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def heatmap(records: list[dict], responses: list[dict], trials: int, path: Path) -> Path:
    """One row per question (grouped by family), one column per trial, coloured by label."""
    cell = {(r["id"], r["trial"]): _CODES[r["label"]] for r in responses}
    order = [r for f in FAMILIES for r in records if r["family"] == f]
    grid = [[cell.get((r["id"], t), -1) for t in range(trials)] for r in order]
    h = max(2.5, min(40.0, 0.16 * len(order) + 1.2))
    fig, ax = plt.subplots(figsize=(max(5.0, 2.5 + 0.5 * trials), h))
    import numpy as np

    data = np.ma.masked_less(np.array(grid, dtype=float).reshape(len(order), trials), 0)
    ax.imshow(data, aspect="auto", cmap=ListedColormap(_COLORS), vmin=0, vmax=2, interpolation="nearest")
    ax.set_xticks(range(trials), [f"trial {t + 1}" for t in range(trials)], fontsize=7)
    ax.set_yticks(range(len(order)), [f"{r['id']} {r['template']}" for r in order], fontsize=5)
    start = 0
    for f in FAMILIES:
        n = sum(r["family"] == f for r in order)
        if n:
            ax.axhline(start - 0.5, color="black", lw=1)
            ax.text(trials - 0.45, start + n / 2 - 0.5, f, rotation=270, va="center", fontsize=8)
            start += n
    ax.set_title("green correct · red incorrect · grey runtime error", fontsize=7)
    return _save(fig, path)


def family_bars(summary: dict, path: Path) -> Path:
    fams = [f for f in FAMILIES if f in summary["by_family"]]
    vals = [summary["by_family"][f]["accuracy"] or 0.0 for f in fams]
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.bar(fams, vals, color=["#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
                             "#7f7f7f", "#2ca02c"][: len(fams)])
    if len(fams) > 3:
        ax.tick_params(axis="x", labelsize=6, labelrotation=30)
    for i, v in enumerate(vals):
        ax.text(i, v + 0.02, f"{v:.0%}", ha="center", fontsize=8)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("accuracy")
    ax.set_title("accuracy by family", fontsize=9)
    return _save(fig, path)


def pass_at_k_plot(summary: dict, path: Path) -> Path:
    ks = sorted(int(k) for k, v in summary["pass_at_k"].items() if v is not None)
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.plot(ks, [summary["pass_at_k"][str(k)] for k in ks], marker="o")
    ax.set_xticks(ks)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_title("pass@k (unbiased estimator)", fontsize=9)
    return _save(fig, path)


def consistency_plot(summary: dict, path: Path) -> Path:
    shares = [q["share"] for q in summary["per_question"]]
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.hist(shares, bins=[i / 10 for i in range(11)], color="#17becf", edgecolor="white")
    ax.set_xlabel("majority label share over trials")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of questions: whole ticks
    ax.set_ylabel("questions")
    ax.set_title(f"self-consistency (mean {summary['self_consistency'] or 0:.2f})", fontsize=9)
    return _save(fig, path)
