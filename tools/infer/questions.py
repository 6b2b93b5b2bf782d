"""Question-level fidelity: a handful of question templates answered, with the pandas reference executors
of ``tools.queries``, on the sample and on the data regenerated from the fitted spec, side by side.

Per event/metric table: the mean of two measurements and the 95th percentile of the first
(``attribute_mean``, ``attribute_percentile``); with a state column, the share of time per state
(``state_occupancy``) and the mean duration of the most frequent non-initial state, per label of the
attribute the machine's overrides use when there is one (``state_duration`` with ``group_by``).
An answer passes when it is within 10% of the sample's (a mapping: every entry, occupancy entries
under 5% left out)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tools.infer.fidelity import FidelityRow
from tools.infer.profile import Profile
from tools.infer.rowcodes import label_codes

QUESTION_REL = 0.10
MIN_SHARE = 5.0  # occupancy entries (percent) below this are left out of the comparison


def memory_frames(tables: dict[str, pd.DataFrame]):
    """A ``tools.queries`` Frames over in-memory tables (labels as categories, times as UTC datetimes)."""
    from tools.queries.reference.frames import Frames

    fr = Frames(Path("."))
    for name, df in tables.items():
        df = df.copy(deep=False)
        for c in df.columns:
            if isinstance(df[c].dtype, pd.CategoricalDtype):
                continue
            if pd.api.types.is_string_dtype(df[c].dtype) or df[c].dtype == object:
                df[c] = _category(df[c])
        fr.derived(name, lambda df=df: df)  # served from memory instead of read from Parquet
    return fr


def _category(s: pd.Series) -> pd.Series:
    """``s.astype("string").astype("category")`` from the distinct values only (one factorisation, not a
    text conversion of every row)."""
    codes, uniq = pd.factorize(s, sort=False)
    cats = pd.Index(uniq).astype("string")
    if not cats.is_unique or cats.hasnans:
        return s.astype("string").astype("category")
    perm = np.argsort(np.asarray(cats, dtype=object).astype(str), kind="stable")
    rank = np.empty(perm.size, np.int64)
    rank[perm] = np.arange(perm.size)
    codes = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=cats[perm]), index=s.index, name=s.name)


@dataclass
class Question:
    """One template call: its name, its executor and its QuerySpec."""

    label: str
    run: object
    query: object


def _questions(p: Profile, groups: list[str], state_col: str | None) -> list[Question]:
    from tools.queries.reference import stateless as sl
    from tools.queries.reference import states as st
    from tools.queries.spec import QuerySpec

    key, time = p.keys[0], p.table.time.column
    base = {"table": p.name, "entity": key, "time": time}
    out = []
    ms = [c.name for c in p.columns.values() if c.role == "measurement"]
    for m in ms[:2]:
        out.append(Question(f"attribute_mean({m})", sl.attribute_mean,
                            QuerySpec(template="attribute_mean", params={"key": m}, **base)))
    if ms:
        out.append(Question(f"attribute_percentile({ms[0]}, 0.95)", sl.attribute_percentile,
                            QuerySpec(template="attribute_percentile", params={"key": ms[0], "p": 0.95}, **base)))
    if state_col is None or len(p.keys) > 1:
        return out
    state = {"column": state_col}
    out.append(Question(f"state_occupancy({state_col})", st.state_occupancy,
                        QuerySpec(template="state_occupancy", params={"state": state}, **base)))
    f = p.sorted_frame
    code, names = label_codes(f, state_col)
    ent = p.entity_codes
    entry = np.r_[True, (code[1:] != code[:-1]) | (ent[1:] != ent[:-1])]
    first = pd.Series(names[code[np.r_[True, ent[1:] != ent[:-1]]]]).mode()
    counts = pd.Series(names[code[entry]]).value_counts()
    counts = counts[~counts.index.isin(list(first))]
    if len(counts):
        value = str(counts.index[0])
        by = next((g for g in groups if g in f.columns), None)
        params = {"state": state, "value": value}
        out.append(Question(f"state_duration({value}{', by ' + by if by else ''})", st.state_duration,
                            QuerySpec(template="state_duration", params=params, group_by=by, **base)))
    return out


def _distance(a, b) -> float:
    if a is None or b is None:
        return 0.0 if a is None and b is None else 1.0
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return 1.0
        return max((_distance(a[k], b.get(k)) for k in a), default=0.0)
    return abs(float(b) - float(a)) / abs(float(a)) if a else (0.0 if b == 0 else 1.0)


def _show(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k} {x:.4g}" for k, x in list(v.items())[:6])
    return "none" if v is None else f"{v:.4g}"


def _columns(qs: list[Question]) -> list[str]:
    """The columns the questions read (the rest of the table is not converted)."""
    cols = []
    for q in qs:
        qq = q.query
        state = qq.params.get("state")
        cols += [qq.entity, qq.time, qq.params.get("key"), state.get("column") if isinstance(state, dict) else None,
                 qq.group_by]
    return [c for c in dict.fromkeys(cols) if c]


def question_rows(profiles: list[Profile], gen: dict[str, pd.DataFrame], groups: dict[str, list[str]],
                  state_cols: dict[str, str]) -> list[FidelityRow]:
    """Each question answered on the sample and on the regenerated tables (the relative difference)."""
    asked = {p.name: _questions(p, groups.get(p.name, []), state_cols.get(p.name))
             for p in profiles if p.emission and p.keys and p.name in gen}
    cols = {name: _columns(qs) for name, qs in asked.items()}
    sample = memory_frames({p.name: p.table.frame[[c for c in cols[p.name] if c in p.table.frame.columns]]
                            for p in profiles if p.name in asked})
    regen = memory_frames({name: gen[name][[c for c in cols[name] if c in gen[name].columns]] for name in asked})
    rows = []
    for p in profiles:
        for q in asked.get(p.name, []):
            a, b = q.run(sample, q.query), q.run(regen, q.query)
            if isinstance(a, dict) and "occupancy" in q.label:
                a = {k: v for k, v in a.items() if v >= MIN_SHARE}
            rows.append(FidelityRow(p.name, q.label, "question (rel. diff)", _distance(a, b), QUESTION_REL,
                                    f"{_show(a)} | {_show(b)}"))
    return rows
