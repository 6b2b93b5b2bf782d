"""Rows in (entity, time) order and integer codes of label columns, computed once per fidelity report and
shared by every check (sorting and factorising a 1M-row table is the costly part, not the checks)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.infer.profile import seconds

_CACHE: dict[tuple, tuple] = {}  # filled during one fidelity report; every entry keeps its frame alive


def clear() -> None:
    """Forget the cached orders and codes (the end of a fidelity report)."""
    _CACHE.clear()


def seed_order(frame: pd.DataFrame, keys: list[str], time: str, sorted_frame: pd.DataFrame, ent: np.ndarray) -> None:
    """Record an order already computed (a Profile's sorted frame and entity codes) for ``frame``."""
    _CACHE[("order", id(frame), tuple(keys), time)] = (frame, sorted_frame, ent)


def _key_codes(s: pd.Series) -> np.ndarray:
    try:
        return pd.factorize(s, sort=True)[0]
    except TypeError:  # mixed types that do not sort: any consistent order groups the rows
        return pd.factorize(s.astype(str), sort=True)[0]


def ordered(frame: pd.DataFrame, keys: list[str], time: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The frame in (entity, time) order and an entity number per row (factorised keys and a lexsort; a
    frame already in that order is not copied)."""
    k = ("order", id(frame), tuple(keys), time)
    hit = _CACHE.get(k)
    if hit is not None and hit[0] is frame:
        return hit[1], hit[2]
    codes = [_key_codes(frame[c]) for c in keys]
    order = np.lexsort([seconds(frame[time]), *reversed(codes)])
    f = frame if bool(np.all(order[1:] > order[:-1])) else frame.take(order)
    change = np.zeros(len(frame), bool)
    for c in codes:
        cs = c[order]
        change[1:] |= cs[1:] != cs[:-1]
    ent = np.cumsum(change, dtype=np.int64)
    _CACHE[k] = (frame, f, ent)
    return f, ent


def label_codes(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """An integer code per row and the text label of each code (missing is ''), the labels being what
    ``astype("string")`` would write, without converting every row."""
    k = ("labels", id(frame), column)
    hit = _CACHE.get(k)
    if hit is not None and hit[0] is frame:
        return hit[1], hit[2]
    codes, uniq = pd.factorize(frame[column], sort=False)
    text = np.asarray(pd.Index(uniq).astype("string").fillna(""), dtype=object)
    labels, inverse = np.unique(np.r_[text, np.array([""], dtype=object)].astype(str), return_inverse=True)
    codes = inverse[np.where(codes < 0, text.size, codes)].astype(np.int64)
    labels = labels.astype(object)
    _CACHE[k] = (frame, codes, labels)
    return codes, labels


def state_codes(frame: pd.DataFrame, keys: list[str], time: str, states: list[str]):
    """Rows in (entity, time) order: a combined-state code per row, the label of each code (``a|b`` for
    several columns; missing is ''), and an entity number per row."""
    f, ent = ordered(frame, keys, time)
    codes, labels = [], []
    for c in states:
        k, u = label_codes(f, c)
        codes.append(k)
        labels.append(u)
    combined = codes[0]
    for k, u in zip(codes[1:], labels[1:], strict=True):
        combined = combined * len(u) + k
    uniq, code = np.unique(combined, return_inverse=True)
    parts = []
    rest = uniq.copy()
    for u in reversed(labels):
        parts.append(u[rest % len(u)])
        rest = rest // len(u)
    parts.reverse()
    names = parts[0].astype(object)
    for p in parts[1:]:
        names = np.array([f"{a}|{b}" for a, b in zip(names, p, strict=True)], dtype=object)
    return code.astype(np.int64), names, ent


def label_shares(s: pd.Series) -> pd.Series:
    """Share of each label of a column (missing is the label '<null>'; whole floats read as integers)."""
    if pd.api.types.is_float_dtype(s) and np.all(np.mod(s.dropna(), 1) == 0):
        s = s.astype("Int64")
    vc = s.value_counts(dropna=False)
    labels = pd.Index(vc.index).astype("string").fillna("<null>")
    out = pd.Series(vc.to_numpy(dtype=float), index=labels).groupby(level=0, sort=False).sum()
    return out / max(float(out.sum()), 1.0)
