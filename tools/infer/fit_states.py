"""The state machine of a table: states from its categorical state column(s), empirical transitions
from consecutive state changes per entity, a dwell distribution per state, initial and terminal states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tools.infer.fit_dist import censored_exponential, fit_dwell
from tools.infer.profile import ColumnRole, Profile, seconds
from tools.spec.entity import StateDef, StateMachine

MIN_COMPLETED_RUNS = 5  # fewer finished stays than this: exponential from censored time instead


@dataclass
class StateFit:
    """The fitted machine plus what the measurement fits need (state index per sorted row)."""

    machine: StateMachine
    names: list[str]
    row_state: np.ndarray
    transitions: int
    derived: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    matrix: dict[str, dict[str, float]] = field(default_factory=dict)
    hidden: bool = False  # a regime found in the measurements (no state column: never written)


def normalised(counts: dict[str, float], digits: int = 4) -> dict[str, float]:
    """Shares rounded to ``digits`` that sum to exactly 1 (the largest absorbs the rounding)."""
    total = float(sum(counts.values()))
    out = {k: round(v / total, digits) for k, v in counts.items() if v > 0}
    out = {k: v for k, v in out.items() if v > 0} or {max(counts, key=counts.get): 1.0}
    top = max(out, key=out.get)
    out[top] = round(1.0 - sum(v for k, v in out.items() if k != top), digits)
    return out


def _state_names(labels: pd.DataFrame) -> list[str]:
    names, seen = [], set()
    for row in labels.itertuples(index=False):
        parts = [str(v) for v in row if isinstance(v, str) and v != ""]
        base = re.sub(r"[^\w]+", "_", "_".join(parts)).strip("_") or "none"
        name, k = base, 2
        while name in seen:
            name, k = f"{base}_{k}", k + 1
        seen.add(name)
        names.append(name)
    return names


def _codes(sf: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """A state index per row and the distinct label combinations (columns as strings, NaN as '')."""
    parts = [pd.factorize(sf[c].astype("string").fillna("")) for c in cols]  # per column: fast on 1M rows
    combined = parts[0][0].astype(np.int64)
    for k, u in parts[1:]:
        combined = combined * len(u) + k
    codes, uniq = pd.factorize(combined)  # combinations in order of first appearance
    labels, rest = {}, np.asarray(uniq, dtype=np.int64)
    for c, (_, u) in reversed(list(zip(cols, parts, strict=True))):
        labels[c] = [str(x) for x in np.asarray(u, dtype=object)[rest % len(u)]]
        rest = rest // len(u)
    return codes.astype(np.int64), pd.DataFrame({c: labels[c] for c in cols})


def fit_states(prof: Profile, sf: pd.DataFrame, seed: int = 0) -> StateFit | None:
    """Fit the machine of an event/metric table; None when it has no state column and is periodic."""
    cats = [c.name for c in prof.columns.values() if c.role == "state" and c.kind == "categorical"]
    flags = [c.name for c in prof.columns.values() if c.role == "state" and c.kind == "flag"]
    if not cats:
        for f in flags:
            prof.columns[f] = ColumnRole(f, "measurement", "integer", prof.columns[f].missing, prof.columns[f].distinct)
        if prof.emission != "on_transition":
            return None
    t = seconds(sf[prof.table.time.column])
    ent = prof.entity_codes
    if cats:
        st, labels = _codes(sf, cats)
        single = len(cats) == 1 and not (labels[cats[0]] == "").any()
        names = list(labels[cats[0]]) if single else _state_names(labels)
    else:
        st, names, single, labels = np.zeros(len(sf), np.int64), ["active"], False, None
    derived: dict[str, dict[str, str | None]] = {}
    if cats and not single:
        for c in cats:
            derived[c] = {n: (v or None) for n, v in zip(names, labels[c], strict=True)}
    for f in flags:
        g = pd.DataFrame({"s": st, "v": sf[f].astype("string").fillna("")}).drop_duplicates()
        if cats and g["s"].is_unique:
            mapping = dict(zip(g["s"], g["v"], strict=True))
            derived[f] = {names[s]: (mapping[s] or None) for s in range(len(names)) if s in mapping}
            prof.columns[f] = ColumnRole(f, "derived", "flag", prof.columns[f].missing, prof.columns[f].distinct,
                                         "a function of the state")
        else:
            prof.columns[f] = ColumnRole(f, "measurement", "integer", prof.columns[f].missing, prof.columns[f].distinct)
    for c in cats:
        prof.columns[c].role = "state"
        prof.columns[c].kind = "state column" if single else "state (combined)"
    return machine_from_codes(prof, st, t, ent, names, cats[0] if single else None, derived, seed)


def machine_from_codes(prof: Profile, st: np.ndarray, t: np.ndarray, ent: np.ndarray, names: list[str],
                       column: str | None, derived: dict, seed: int) -> StateFit:
    """The machine of state codes per sorted row: transitions from consecutive changes, a dwell per state
    (exponential from censored time with few finished stays), initial and terminal states."""
    n = len(names)
    first = np.r_[True, ent[1:] != ent[:-1]]
    if prof.emission == "periodic":  # collapse each run of equal states into one entry
        entry = first | np.r_[True, st[1:] != st[:-1]]
    else:
        entry = np.ones(st.size, bool)
    idx = np.flatnonzero(entry)
    e_st, e_t, e_ent = st[idx], t[idx], ent[idx]
    has_next = np.r_[e_ent[1:] == e_ent[:-1], False]
    nxt = np.r_[e_st[1:], -1]
    counts = np.zeros((n, n))
    np.add.at(counts, (e_st[has_next], nxt[has_next]), 1)
    last_row_t = pd.Series(t).groupby(ent).transform("max").to_numpy()[idx]
    step = prof.cadence if prof.emission == "periodic" else 0.0
    dwell_done = np.r_[e_t[1:], 0] - e_t
    censored_time = last_row_t - e_t + step
    last_states = set(e_st[~has_next].tolist())
    terminal = [s for s in range(n) if s in last_states and counts[s].sum() == 0 and prof.emission != "periodic"]
    states, trans, notes = {}, {}, []
    for s in range(n):
        name = names[s]
        if s in terminal:
            states[name] = StateDef()
            continue
        done = dwell_done[(e_st == s) & has_next]
        if done.size >= MIN_COMPLETED_RUNS:
            cens = censored_time[(e_st == s) & ~has_next].astype(float)
            states[name] = StateDef(dwell=fit_dwell(done.astype(float), seed + s, cens).dist)
        else:
            total = float(done.sum() + censored_time[(e_st == s) & ~has_next].sum())
            states[name] = StateDef(dwell=censored_exponential(total, done.size))
            notes.append(f"state '{name}': {done.size} finished stay(s); exponential dwell from censored time")
        row = counts[s]
        if row.sum() == 0:
            other = int(np.argmax(np.where(np.arange(n) == s, -1, np.bincount(st, minlength=n)))) if n > 1 else s
            row = np.zeros(n)
            row[other] = 1.0
            notes.append(f"state '{name}' is never left in the sample; it moves to '{names[other]}' (a guess)")
        trans[name] = normalised({names[k]: float(row[k]) for k in range(n) if row[k] > 0})
    init_counts = np.bincount(st[first], minlength=n)
    initial = normalised({names[k]: float(init_counts[k]) for k in range(n) if init_counts[k]})
    init = next(iter(initial)) if len(initial) == 1 else initial
    machine = StateMachine(column=column, states=states, initial=init, terminal=[names[s] for s in terminal],
                           transitions=trans, derived_columns=derived)
    return StateFit(machine, names, st, int(has_next.sum()), list(derived), notes, transition_matrix(counts, names))


def transition_matrix(counts: np.ndarray, names: list[str]) -> dict[str, dict[str, float]]:
    """Row-normalised empirical transition probabilities (rows with no exits left out)."""
    out = {}
    for i, name in enumerate(names):
        total = counts[i].sum()
        if total:
            out[name] = {names[j]: float(counts[i, j] / total) for j in range(len(names)) if counts[i, j]}
    return out


def trajectory_flags(fit: StateFit, codes: np.ndarray, ents: pd.DataFrame, candidates: list[str]) -> dict[str, str]:
    """0/1 entity attributes that say whether the entity ever entered one state (``did_purchase``):
    attribute name -> state, for the machine's ``flags``."""
    n_ent = int(codes.max()) + 1 if codes.size else 0
    visited = np.zeros((n_ent, len(fit.names)), bool)
    visited[codes, fit.row_state] = True
    out = {}
    for col in candidates:
        v = pd.to_numeric(ents[col], errors="coerce").to_numpy()
        if np.isnan(v).any() or not set(np.unique(v)) <= {0.0, 1.0} or v.size != n_ent:
            continue
        match = [s for s in range(len(fit.names)) if np.array_equal(visited[:, s], v == 1)]
        if match:
            out[col] = fit.names[match[0]]
    return out
