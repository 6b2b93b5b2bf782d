"""Per-table profile: entity key (single or composite), static vs dynamic columns, state, derived and
measurement columns, counters vs gauges, cadence and missing rate."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np
import pandas as pd

from tools.infer.errors import InferError
from tools.infer.read import Table

_ID_NAME = re.compile(r"(^id$|_id$|id$|_key$|_code$|^key$)", re.IGNORECASE)
_COUNT_NAME = re.compile(r"(count|cnt|num|nbr|att|succ|fail|total|requests|errors|bytes|packets)", re.IGNORECASE)
MAX_STATE_LABELS = 50     # a dynamic label column with more values is not a state
MAX_ATTRIBUTE_LABELS = 200  # a static label column with more values is not a reusable category
UNIQUE_ENOUGH = 0.99      # share of rows an entity key plus time must identify
PROBE_ROWS = 50_000


@dataclass
class ColumnRole:
    """What a column is: role (time, key, attribute, state, derived, measurement, skipped) and kind."""

    name: str
    role: str
    kind: str
    missing: float
    distinct: int
    note: str = ""


@dataclass
class Profile:
    """Detected roles and shape of one table."""

    table: Table
    keys: list[str]
    entities: int
    series: int = 0  # series when several share an id at the same time (0: one series per entity)
    columns: dict[str, ColumnRole] = field(default_factory=dict)
    emission: str | None = None          # periodic, on_transition, or None (static table)
    cadence: float | None = None         # seconds between rows (periodic) or median gap (events)
    regularity: float = 0.0              # share of gaps that are whole multiples of the cadence
    jitter: float = 0.0                  # seconds rows may lag their grid tick (periodic)
    missing_rate: float = 0.0            # share of expected periodic rows that are absent
    warnings: list[str] = field(default_factory=list)
    order: np.ndarray | None = None      # row order sorted by entity then time
    entity_codes: np.ndarray | None = None  # entity index per row (in sorted order)

    @property
    def name(self) -> str:
        """The table name."""
        return self.table.name

    def by_role(self, role: str) -> list[str]:
        """Names of the columns with this role."""
        return [c.name for c in self.columns.values() if c.role == role]

    @cached_property
    def sorted_frame(self) -> pd.DataFrame:
        """The rows sorted by entity, then time (computed once)."""
        return self.table.frame.iloc[self.order].reset_index(drop=True)


def _is_key_type(s: pd.Series) -> bool:
    if pd.api.types.is_float_dtype(s) or pd.api.types.is_bool_dtype(s):
        return False
    return pd.api.types.is_integer_dtype(s) or pd.api.types.is_string_dtype(s) or s.dtype == object


def _uniqueness(frame: pd.DataFrame, cols: list[str]) -> float:
    """Share of the rows that are the first of their ``cols`` combination (``1 - duplicated().mean()``),
    from factorised codes (a 1M-row table is scanned once per column, not once per candidate key)."""
    if not len(frame):
        return 1.0
    combined = np.zeros(len(frame), np.int64)
    for c in cols:
        codes = _codes(frame, c)
        combined = pd.factorize(combined * (int(codes.max()) + 2) + codes + 1)[0].astype(np.int64)
    return float(combined.max() + 1) / len(frame)


_CODES: dict[tuple, tuple] = {}


def _codes(frame: pd.DataFrame, col: str) -> np.ndarray:
    """Factorised codes of one column (missing is -1), remembered for the last frames seen."""
    k = (id(frame), col)
    hit = _CODES.get(k)
    if hit is not None and hit[0] is frame:
        return hit[1]
    if len(_CODES) > 64:
        _CODES.clear()
    codes = pd.factorize(frame[col])[0].astype(np.int64)
    _CODES[k] = (frame, codes)
    return codes


def find_keys(table: Table) -> tuple[list[str], list[str]]:
    """The entity key columns and warnings. With a time column, the key plus time must identify a row
    (a composite key such as Device_ID + Interface_ID when no single column does)."""
    try:
        return _find_keys(table)
    finally:
        _CODES.clear()


def _find_keys(table: Table) -> tuple[list[str], list[str]]:
    f, time = table.frame, table.time.column if table.time else None
    n = len(f)
    cands = [c for c in f.columns if c != time and _is_key_type(f[c]) and f[c].notna().mean() >= 0.99]
    named = [c for c in cands if _ID_NAME.search(c)]
    if time is None:
        unique = [c for c in cands if f[c].nunique() == n]
        if not unique:
            raise InferError(table.path, "is not a time-series table (no column holds timestamps) and no column "
                             "identifies its rows; add a timestamp column, or an id column for a dimension table")
        return [sorted(unique, key=lambda c: (not _ID_NAME.search(c), cands.index(c)))[0]], []
    small = [c for c in cands if 1 < f[c].nunique() < n]
    pool = [c for c in named if c in small] or small
    singles = [c for c in pool if _uniqueness(f, [c, time]) >= UNIQUE_ENOUGH]
    if singles:
        return [max(singles, key=lambda c: (f[c].nunique(), -cands.index(c)))], []
    probe = f.iloc[:PROBE_ROWS]  # a pair repeating within the first rows cannot be a key: skip the full check

    def pair_keys(cols: list[str]) -> list[list[str]]:
        return [list(p) for p in combinations(cols[:8], 2)  # at most 28 pairs
                if _uniqueness(probe, [*p, time]) >= UNIQUE_ENOUGH and _uniqueness(f, [*p, time]) >= UNIQUE_ENOUGH]

    pairs = pair_keys([c for c in small if c in named])  # Device_ID + Interface_ID
    if pairs:
        return max(pairs, key=lambda p: -f[p].nunique().sum()), []
    per_row = [c for c in named if f[c].nunique() == n]
    if per_row:  # an id on every row, never repeated: one row per entity (a dimension table, see profile)
        return [per_row[0]], []
    pairs = pair_keys([c for c in small if c in named or f[c].nunique() <= MAX_ATTRIBUTE_LABELS])
    if pairs:
        best = max(pairs, key=lambda p: (sum(bool(_ID_NAME.search(c)) for c in p), -f[p].nunique().sum()))
        return best, []
    if pool:
        best = max(pool, key=lambda c: (bool(_ID_NAME.search(c)), _uniqueness(f, [c, time])))
        dup = int(f.duplicated(subset=[best, time]).sum())
        return [best], [f"({best}, {time}) is not unique: {dup} row(s) repeat an id at the same time, so "
                        "several series share an id; they are fitted as one series per id"]
    return [], [f"no entity column found: the table is read as a single series (the spec adds the id column "
                f"'{table.name}_id')"]


def _changes(k: np.ndarray, same: np.ndarray) -> np.ndarray:
    """Rows (after the first of each entity) whose value differs from the previous row's (missing equals
    missing), from the column's factorised codes."""
    return np.r_[False, k[1:] != k[:-1]] & same


def _numeric_kind(s: pd.Series, same: np.ndarray, name: str) -> str:
    v = s.dropna().to_numpy(dtype=float)
    integer = v.size > 0 and bool(np.all(np.mod(v, 1) == 0))
    if not integer:
        return "gauge"
    x = s.to_numpy(dtype=float)
    step = np.diff(x)[same[1:]]
    step = step[np.isfinite(step)]
    if step.size > 10 and (step >= 0).mean() > 0.99 and (step > 0).mean() > 0.5:
        return "cumulative counter"
    if v.min() >= 0 and (_COUNT_NAME.search(name) or v.max() > 1):
        return "count"
    return "integer"


def profile_table(table: Table) -> Profile:
    """Detect the roles of every column of ``table`` (see Profile)."""
    keys, warnings = find_keys(table)
    if keys and table.frame[keys].isna().any(axis=None):
        lost = table.frame[keys].isna().any(axis=1)
        warnings.append(f"{int(lost.sum())} row(s) without a {' + '.join(keys)} value dropped")
        table.frame = table.frame[~lost.to_numpy()].reset_index(drop=True)
    f = table.frame
    time = table.time.column if table.time else None
    sort_cols = [*keys, *([time] if time else [])]
    arrays = [seconds(f[c]) if c == time else pd.factorize(f[c], sort=True)[0] for c in reversed(sort_cols)]
    order = np.lexsort(arrays) if sort_cols else np.arange(len(f))
    sf = f.iloc[order].reset_index(drop=True)
    if keys:
        codes = sf.groupby(keys, sort=False).ngroup().to_numpy()
    else:
        codes = np.zeros(len(sf), dtype=np.int64)
    same = np.r_[False, codes[1:] == codes[:-1]]
    entities = int(codes.max()) + 1 if len(codes) else 0
    prof = Profile(table, keys, entities, warnings=list(warnings), order=order, entity_codes=codes)
    prof.__dict__["sorted_frame"] = sf  # seed the cached property: the sort is the costly part
    for c in f.columns:
        s = sf[c]
        vcodes = pd.factorize(s)[0]  # one pass: missing share, distinct values and row-to-row changes
        miss, distinct = float(np.mean(vcodes < 0)), int(vcodes.max(initial=-1)) + 1
        if c == time:
            prof.columns[c] = ColumnRole(c, "time", ", ".join(table.time.zones), miss, distinct, table.time.fmt)
        elif c in keys:
            prof.columns[c] = ColumnRole(c, "key", "composite" if len(keys) > 1 else "id", miss, distinct)
        elif distinct == 0:
            prof.columns[c] = ColumnRole(c, "skipped", "empty", miss, 0, "no values")
        elif time is None or not _changes(vcodes, same).any():
            prof.columns[c] = _static_role(s, c, miss, distinct, entities)
        else:
            prof.columns[c] = _dynamic_role(s, c, miss, distinct, same, len(sf))
    if time:
        _cadence(prof, sf[time], codes, same)
        if prof.emission and keys and sf.duplicated(subset=[*keys, time]).any():
            per = pd.DataFrame({"e": codes, "t": seconds(sf[time])}).groupby(["e", "t"]).size().groupby(level=0).max()
            prof.series = int(per.sum())
    return prof


def _static_role(s: pd.Series, c: str, miss: float, distinct: int, entities: int) -> ColumnRole:
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        return ColumnRole(c, "attribute", "numeric", miss, distinct)
    if distinct > MAX_ATTRIBUTE_LABELS or (entities > 20 and distinct >= 0.9 * entities):
        return ColumnRole(c, "attribute", "high-cardinality", miss, distinct,
                          f"{distinct} distinct labels; kept only if it is a relation")
    return ColumnRole(c, "attribute", "categorical", miss, distinct)


def _dynamic_role(s: pd.Series, c: str, miss: float, distinct: int, same: np.ndarray, n: int) -> ColumnRole:
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        if distinct <= 2:
            return ColumnRole(c, "state", "flag", miss, distinct)
        return ColumnRole(c, "measurement", _numeric_kind(s, same, c), miss, distinct)
    if distinct > MAX_STATE_LABELS:
        return ColumnRole(c, "skipped", "high-cardinality", miss, distinct,
                          f"{distinct} distinct labels changing row to row; not a state column, not modelled")
    return ColumnRole(c, "state", "categorical", miss, distinct)


def seconds(t: pd.Series) -> np.ndarray:
    """UTC timestamps as whole epoch seconds (int64)."""
    return pd.DatetimeIndex(t).as_unit("s").asi8


NICE_CADENCES = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400]


def grid(sec: np.ndarray, gaps: np.ndarray) -> tuple[float, float, float]:
    """(cadence, share of gaps on the grid, jitter): the most common gap when most gaps are its whole
    multiples; else the nearest round cadence when rows sit just after its wall-clock ticks (jitter)."""
    values, counts = np.unique(gaps, return_counts=True)
    mode = float(values[np.argmax(counts)])
    regular = float(np.mean(np.abs(gaps / mode - np.rint(gaps / mode)) < 0.01)) if mode > 0 else 0.0
    if regular >= 0.9:
        return mode, regular, 0.0
    med = float(np.median(gaps))
    nice = float(min(NICE_CADENCES, key=lambda c: abs(np.log(med / c))))
    late = float(np.quantile(sec % nice, 0.99))
    if abs(med / nice - 1) > 0.2 or late >= nice / 2:
        return mode, regular, 0.0
    tol = late / nice + 0.01
    on_grid = float(np.mean(np.abs(gaps / nice - np.rint(gaps / nice)) <= tol))
    return nice, on_grid, float(np.ceil(late) + 1)


def _cadence(prof: Profile, t: pd.Series, codes: np.ndarray, same: np.ndarray) -> None:
    """Periodic (a regular grid the entities live through) or event-driven rows, and the missing rate."""
    sec = seconds(t)
    gaps = np.diff(sec)[same[1:]]
    gaps = gaps[gaps > 0]
    if gaps.size == 0:
        prof.emission = None
        prof.warnings.append("one row per entity: not a time series; read as a dimension table (the time column "
                             "is dropped, spec attributes cannot hold timestamps)")
        return
    mode, regular, jitter = grid(sec, gaps)
    first = np.r_[True, ~same[1:]]
    t0 = sec[first]
    t1 = np.r_[sec[np.flatnonzero(first)[1:] - 1], sec[-1]]
    span = max(sec.max() - sec.min(), 1)
    lives_through = float(np.mean((t1 - t0) >= 0.8 * span))
    prof.regularity = regular
    if regular >= 0.9 and lives_through >= 0.8:
        prof.emission, prof.cadence, prof.jitter = "periodic", mode, jitter
        expected = ((t1 - t0) // mode + 1).sum()
        prof.missing_rate = max(0.0, 1.0 - len(sec) / max(expected, 1)) if expected else 0.0
    else:
        prof.emission, prof.cadence = "on_transition", float(np.median(gaps))
