"""Transition overrides: when a label of the entity (its own attribute, or its parent's reached through a
foreign key, e.g. a session's user's ``subscription_type``) changes where the entity goes next from some
state, that label gets its own transition rows (chi-square test of homogeneity, p < 0.001, and a row at
least 0.1 total variation away from the others)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from tools.infer.fit_states import StateFit, normalised
from tools.infer.profile import Profile
from tools.spec.entity import Condition, TransitionOverride

P_MAX = 1e-3
TV_MIN = 0.10
MIN_EXITS = 30  # exits from a state by one label before it can get its own row
MAX_LABELS = 10


@dataclass
class LabelSource:
    """Labels per entity code of one candidate attribute; ``via``/``attribute`` when it is a parent's."""

    name: str
    labels: np.ndarray
    via: str | None = None
    attribute: str | None = None


def _exits(prof: Profile, fit: StateFit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(entity, from state, to state) of every observed transition."""
    st, ent = fit.row_state, prof.entity_codes
    entry = np.ones(st.size, bool)
    if prof.emission == "periodic":
        entry = np.r_[True, (st[1:] != st[:-1]) | (ent[1:] != ent[:-1])]
    st, ent = st[entry], ent[entry]
    same = ent[1:] == ent[:-1]
    return ent[:-1][same], st[:-1][same], st[1:][same]


def _tv(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p / p.sum() - q / q.sum()).sum())


def fit_overrides(prof: Profile, fit: StateFit, sources: list[LabelSource]) -> tuple[list[TransitionOverride],
                                                                                   dict[str, dict[str, float]], list[LabelSource]]:
    """Overrides per (attribute, label), the base rows re-estimated without the overridden labels, and the
    sources used (a parent's label must be copied onto the entity as a ``parent_attribute``)."""
    ent, a, b = _exits(prof, fit)
    n = len(fit.names)
    taken: set[int] = set()  # a state row is overridden by one attribute only (overrides would stack)
    found: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    exclude: dict[int, np.ndarray] = {}
    used: list[LabelSource] = []
    for src in sources:
        lab = src.labels[ent]
        labels = pd.unique(lab)
        if not 2 <= len(labels) <= MAX_LABELS:
            continue
        hit = False
        for s in range(n):
            if s in taken or s in fit.machine.terminal:
                continue
            m = a == s
            if m.sum() < MIN_EXITS * 2:
                continue
            table = pd.crosstab(lab[m], b[m]).to_numpy(dtype=float)
            if table.shape[0] < 2 or table.shape[1] < 2 or chi2_contingency(table).pvalue >= P_MAX:
                continue
            pooled = table.sum(axis=0)
            for i, label in enumerate(pd.crosstab(lab[m], b[m]).index):
                row = table[i]
                rest = pooled - row
                if row.sum() >= MIN_EXITS and rest.sum() > 0 and _tv(row, rest) >= TV_MIN:
                    targets = pd.crosstab(lab[m], b[m]).columns
                    found.setdefault((src.name, str(label)), {})[fit.names[s]] = normalised(
                        {fit.names[int(t)]: float(c) for t, c in zip(targets, row, strict=True) if c > 0})
                    exclude[s] = exclude.get(s, np.zeros(a.size, bool)) | (m & (lab == label))
                    taken.add(s)
                    hit = True
        if hit:
            used.append(src)
    base = {}
    for s, drop in exclude.items():
        keep = (a == s) & ~drop
        counts = np.bincount(b[keep], minlength=n)
        if counts.sum():
            base[fit.names[s]] = normalised({fit.names[k]: float(counts[k]) for k in range(n) if counts[k]})
    overrides = [TransitionOverride(when=[Condition(attribute=attr, equals=label)], transitions=rows,
                                    description=f"{attr} = {label} moves on differently")
                 for (attr, label), rows in sorted(found.items())]
    return overrides, base, used
