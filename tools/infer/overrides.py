"""Transition and dwell overrides: when a label of the entity (its own attribute, or its parent's reached
through a foreign key, e.g. a session's user's ``subscription_type``) changes where the entity goes next
from a state, or how long it stays there, each label with enough data gets its own row and/or dwell.

Chosen by their effect, not only by a row's total-variation distance:
- rows: likelihood-ratio (G) test of homogeneity across labels (p < 0.001), and an effect worth
  keeping: a label row at least 0.05 TV from the rest, or a self-loop implying a run length (dwell in
  rows) at least 1.2x different;
- dwell: likelihood-ratio test of equal exit rates across labels when dwell times look exponential, else
  the Kruskal-Wallis rank test (p < 0.001), and a mean dwell at least 1.2x different between two labels
  (the occupancy the state gets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2, chi2_contingency, kruskal

from tools.common.conditions import Condition
from tools.infer.fit_dist import fit_dwell
from tools.infer.fit_states import StateFit, normalised
from tools.infer.profile import Profile, seconds
from tools.spec.entity import TransitionOverride

P_MAX = 1e-3
TV_MIN = 0.05
RATIO_MIN = 1.2  # dwell (or implied run length) ratio between labels worth its own override
MIN_EXITS = 30  # exits from a state by one label before it can get its own row or dwell
MAX_LABELS = 10


@dataclass
class LabelSource:
    """Labels per entity code of one candidate attribute; ``via``/``attribute`` when it is a parent's."""

    name: str
    labels: np.ndarray
    via: str | None = None
    attribute: str | None = None


@dataclass
class Exits:
    """Every observed state entry that was left: entity, state, next state and time spent."""

    ent: np.ndarray
    a: np.ndarray
    b: np.ndarray
    dwell: np.ndarray
    cut_ent: np.ndarray  # the stays still running at each entity's last row: entity, state, time so far
    cut_a: np.ndarray
    cut_t: np.ndarray


def exits(prof: Profile, fit: StateFit) -> Exits:
    """(entity, from state, to state, seconds in the state) of every observed transition, and each
    entity's last stay, cut off by the end of the sample (for censored dwell fits)."""
    st, ent = fit.row_state, prof.entity_codes
    t = seconds(prof.sorted_frame[prof.table.time.column]).astype(float)
    last_row = np.flatnonzero(np.r_[ent[1:] != ent[:-1], True])
    end = np.zeros(int(ent.max(initial=0)) + 1)
    end[ent[last_row]] = t[last_row] + (float(prof.cadence or 0.0) if prof.emission == "periodic" else 0.0)
    entry = np.ones(st.size, bool)
    if prof.emission == "periodic":
        entry = np.r_[True, (st[1:] != st[:-1]) | (ent[1:] != ent[:-1])]
    st, ent, t = st[entry], ent[entry], t[entry]
    same = ent[1:] == ent[:-1]
    cut = np.r_[~same, True]
    return Exits(ent[:-1][same], st[:-1][same], st[1:][same], (t[1:] - t[:-1])[same],
                 ent[cut], st[cut], end[ent[cut]] - t[cut])


def _tv(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p / p.sum() - q / q.sum()).sum())


def dwell_pvalue(durations: list[np.ndarray]) -> float:
    """p-value that the dwell times of the groups come from one distribution: the likelihood-ratio test of
    equal exponential rates when the durations look exponential (coefficient of variation near 1), else the
    Kruskal-Wallis rank test (right for any shape; an exponential test on heavy-tailed dwell is too bold)."""
    pooled = np.concatenate(durations)
    cv = float(np.std(pooled) / max(np.mean(pooled), 1e-12))
    if 0.8 <= cv <= 1.25:
        return rate_lr_pvalue(durations)
    if all(np.ptp(d) == 0 for d in durations) and len({float(d[0]) for d in durations}) == 1:
        return 1.0
    return float(kruskal(*durations).pvalue)


def rate_lr_pvalue(durations: list[np.ndarray]) -> float:
    """p-value of the likelihood-ratio test that exponential exit rates are equal across the groups."""
    n = np.array([d.size for d in durations], float)
    tot = np.array([max(float(d.sum()), 1e-9) for d in durations])
    ll = float(np.sum(n * np.log(n / tot) - n))
    pooled = float(n.sum() * np.log(n.sum() / tot.sum()) - n.sum())
    return float(chi2.sf(max(2 * (ll - pooled), 0.0), len(durations) - 1))


def _row_effect(row: np.ndarray, rest: np.ndarray, s: int) -> bool:
    """A label row worth its own override: 0.05 TV from the rest, or a self-loop whose run length
    1/(1 - p_self) differs 1.2x from the rest's."""
    if _tv(row, rest) >= TV_MIN:
        return True
    if s < row.size:
        p, q = row[s] / row.sum(), rest[s] / rest.sum()
        if max(p, q) > 0:
            ratio = (1 - min(q, 0.999)) / (1 - min(p, 0.999))
            return ratio >= RATIO_MIN or ratio <= 1 / RATIO_MIN
    return False


def _rows(lab, x: Exits, s: int, names: list[str]) -> tuple[dict[str, dict[str, float]], float]:
    """Each label's own row out of state ``s`` when the labels move on differently (G test + effect)."""
    m = x.a == s
    tab = pd.crosstab(lab[m], x.b[m])
    table = tab.to_numpy(dtype=float)
    if table.shape[0] < 2 or table.shape[1] < 2:
        return {}, 1.0
    pvalue = float(chi2_contingency(table, lambda_="log-likelihood").pvalue)
    if pvalue >= P_MAX:
        return {}, 1.0
    pooled = table.sum(axis=0)
    cols = list(tab.columns)
    self_col = cols.index(s) if s in cols else table.shape[1]
    enough = [i for i in range(table.shape[0]) if table[i].sum() >= MIN_EXITS]
    if not any(pooled.sum() > table[i].sum() and _row_effect(table[i], pooled - table[i], self_col) for i in enough):
        return {}, 1.0
    return {str(tab.index[i]): normalised({names[int(t)]: float(c) for t, c in zip(cols, table[i], strict=True)
                                           if c > 0}) for i in enough}, pvalue


def _dwells(lab, lab_cut, x: Exits, s: int, seed: int):
    """Each label's own dwell in state ``s`` when the exit rates differ (LR test) by 1.2x or more (fitted
    with the label's stays cut off by the end of the sample)."""
    m, c = x.a == s, x.cut_a == s
    groups = {str(k): x.dwell[m][lab[m] == k] for k in pd.unique(lab[m])}
    enough = {k: d for k, d in groups.items() if d.size >= MIN_EXITS}
    pvalue = dwell_pvalue(list(enough.values())) if len(enough) >= 2 else 1.0
    if pvalue >= P_MAX:
        return {}, 1.0
    means = [float(d.mean()) for d in enough.values()]
    if max(means) < RATIO_MIN * max(min(means), 1e-9):
        return {}, 1.0
    cut = {str(k): x.cut_t[c][lab_cut[c] == k] for k in pd.unique(lab_cut[c])}
    return {k: fit_dwell(d, seed + s, cut.get(k)).dist for k, d in enough.items()}, pvalue


def fit_overrides(prof: Profile, fit: StateFit, sources: list[LabelSource], seed: int = 0):
    """Overrides per (attribute, label), the base rows re-estimated without the overridden labels, the base
    dwell re-fitted likewise, and the sources used (a parent's label must be copied onto the entity as a
    ``parent_attribute``). Returns ``(overrides, base_rows, base_dwell, used)``."""
    x = exits(prof, fit)
    n = len(fit.names)
    # a state is overridden by one attribute only (overrides would stack)
    found: dict[tuple[str, str], dict] = {}
    exclude: dict[int, np.ndarray] = {}
    exclude_dwell: dict[int, np.ndarray] = {}
    used: list[LabelSource] = []
    labels = {src.name: src.labels[x.ent] for src in sources if 2 <= len(pd.unique(src.labels[x.ent])) <= MAX_LABELS}
    labels_cut = {src.name: src.labels[x.cut_ent].astype(str) for src in sources if src.name in labels}
    exclude_cut: dict[int, np.ndarray] = {}
    for s in range(n):
        if fit.names[s] in fit.machine.terminal or int((x.a == s).sum()) < MIN_EXITS * 2:
            continue
        # per state, the attribute with the strongest evidence (smallest p-value) gets the rows, and likewise
        # the dwell (a row and a dwell override of different attributes combine, they do not stack)
        best_rows, best_dwell = None, None
        for src in sources:
            if src.name not in labels:
                continue
            rows, p_rows = _rows(labels[src.name], x, s, fit.names)
            dwells, p_dwell = _dwells(labels[src.name], labels_cut[src.name], x, s, seed)
            if rows and (best_rows is None or p_rows < best_rows[0]):
                best_rows = (p_rows, src, rows)
            if dwells and (best_dwell is None or p_dwell < best_dwell[0]):
                best_dwell = (p_dwell, src, dwells)
        for best, field, excl in ((best_rows, "transitions", exclude), (best_dwell, "dwell", exclude_dwell)):
            if best is None:
                continue
            _, src, values = best
            lab = labels[src.name]
            for label, value in values.items():
                found.setdefault((src.name, label), {"transitions": {}, "dwell": {}})[field][fit.names[s]] = value
                excl[s] = excl.get(s, np.zeros(x.a.size, bool)) | ((x.a == s) & (lab == label))
                if field == "dwell":
                    lc = labels_cut[src.name]
                    exclude_cut[s] = exclude_cut.get(s, np.zeros(lc.size, bool)) | ((x.cut_a == s) & (lc == label))
            if src not in used:
                used.append(src)
    base = {}
    for s, drop in exclude.items():
        counts = np.bincount(x.b[(x.a == s) & ~drop], minlength=n)
        if counts.sum():
            base[fit.names[s]] = normalised({fit.names[k]: float(counts[k]) for k in range(n) if counts[k]})
    base_dwell = {}
    for s, drop in exclude_dwell.items():
        rest = x.dwell[(x.a == s) & ~drop]
        if rest.size >= 5:
            cut = x.cut_t[(x.cut_a == s) & ~exclude_cut.get(s, np.zeros(x.cut_a.size, bool))]
            base_dwell[fit.names[s]] = fit_dwell(rest, seed + s, cut).dist
    overrides = [TransitionOverride(when=[Condition(attribute=attr, equals=label)], transitions=v["transitions"],
                                    dwell=v["dwell"], description=_describe(attr, label, v))
                 for (attr, label), v in sorted(found.items())]
    return overrides, base, base_dwell, used


def _describe(attr: str, label: str, v: dict) -> str:
    parts = []
    if v["transitions"]:
        parts.append("moves on differently from " + ", ".join(v["transitions"]))
    if v["dwell"]:
        parts.append("stays a different time in " + ", ".join(v["dwell"]))
    return f"{attr} = {label} " + " and ".join(parts)
