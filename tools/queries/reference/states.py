"""pandas reference for the state-machine templates: state_duration, first_passage_time,
transition_counts, common_paths, revisit_count, state_occupancy (threshold_without_outcome: in
``states_outcome.py``).

A row's state is the state column's value (null is a state of its own, ``<null>``) or, for a
predicated state, ``in``/``out`` (null → ``out``). An episode is a maximal run of consecutive rows of
one entity (time order) with the same state; it starts at its first row and ends at the time of the
entity's next row (the first row of the next episode); without such a row it is open. Entering a
state is the first row of one of its episodes. Streams are replayed over each entity's whole
history (entity filter applied); the window only selects what counts, as each template says.
Vectorized numpy over the (entity, time)-ordered rows; no SQL here.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, entity_rows, mask
from tools.queries.spec import Predicate, QuerySpec

NULL_STATE = "<null>"
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CACHE_SIZE = 4  # streams of 10M rows take ~200 MB each


@dataclass
class Stream:
    """The rows of the selected entities in (entity, time) order (``frame()`` gives the rows
    themselves: not kept in the cache, a filtered copy of a 10M-row table is large)."""

    frame: Callable[[], pd.DataFrame]
    gid: np.ndarray      # entity number per row (0..n_groups-1, in order)
    t: np.ndarray        # time per row, int64 nanoseconds since the epoch (UTC)
    code: np.ndarray     # state code per row
    labels: list[str]    # code → state label
    first: np.ndarray    # bool: the entity's first row
    last: np.ndarray     # bool: the entity's last row

    def code_of(self, value: str | None) -> int:
        """The code of a state label (-2: no row has it)."""
        return self.labels.index(value) if value in self.labels else -2


@dataclass
class Episodes:
    """One entry per episode, in (entity, start) order."""

    row: np.ndarray    # row position of the episode's first row
    gid: np.ndarray
    code: np.ndarray
    start: np.ndarray  # ns
    end: np.ndarray    # ns, the next episode's start (meaningless when open)
    nxt: np.ndarray    # code of the next episode, -1 when open
    open: np.ndarray   # bool


def check(q: QuerySpec) -> None:
    """These templates replay whole streams: a ``while`` window or event filter is not supported."""
    if q.while_ is not None or q.event_filter:
        raise ValueError(f"{q.template} takes no while window or event filter")


def ns(ts) -> int:
    """A timestamp (ISO string or pandas Timestamp) as int64 nanoseconds since the epoch, UTC."""
    t = pd.Timestamp(ts)
    t = t.tz_convert("UTC").tz_localize(None) if t.tzinfo is not None else t
    return int(np.datetime64(t, "ns").astype(np.int64))


def in_win(q: QuerySpec, t: np.ndarray) -> np.ndarray:
    """``t`` (ns) in the half-open window (everything without a window)."""
    if q.window is None:
        return np.ones(t.shape, dtype=bool)
    return (t >= ns(q.window.start)) & (t < ns(q.window.end))


def _codes(col: pd.Series) -> tuple[np.ndarray, list[str]]:
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy().astype(np.int64)
        labels = [str(c) for c in col.cat.categories]
    else:
        c, uniq = pd.factorize(col, use_na_sentinel=True)
        codes, labels = c.astype(np.int64), [str(u) for u in uniq]
    if (codes < 0).any():
        codes = np.where(codes < 0, len(labels), codes)
        labels = [*labels, NULL_STATE]
    return codes, labels


def state_codes(df: pd.DataFrame, state: dict) -> tuple[np.ndarray, list[str]]:
    """Per-row state codes and the code → label table for a state spec."""
    if "column" in state:
        return _codes(df[state["column"]])
    m = mask(df, Predicate.model_validate(state["predicate"]))
    return m.astype(np.int64), ["out", "in"]


def _key(q: QuerySpec, state: dict) -> str:
    ef = q.entity_filter.model_dump(mode="json") if q.entity_filter else None
    return json.dumps([q.table, q.entity, q.time, state, ef], sort_keys=True)


def _cached(frames: Frames, key: str, build):
    per = _CACHE.setdefault(frames, {})
    if key not in per:
        if len(per) >= _CACHE_SIZE:
            per.pop(next(iter(per)))
        per[key] = build()
    return per[key]


def stream(frames: Frames, q: QuerySpec, state: dict | None = None) -> Stream:
    """The selected entities' rows with their state codes (``params.state`` unless given)."""
    state = state if state is not None else q.p("state")
    check(q)

    def build() -> Stream:
        df = entity_rows(frames, q)
        n = len(df)
        ent = df[q.entity]
        ec = ent.cat.codes.to_numpy() if isinstance(ent.dtype, pd.CategoricalDtype) else pd.factorize(ent)[0]
        first = np.ones(n, dtype=bool)
        first[1:] = ec[1:] != ec[:-1]
        last = np.ones(n, dtype=bool)
        last[:-1] = first[1:]
        t = df[q.time].to_numpy(dtype="datetime64[ns]").astype(np.int64)
        code, labels = state_codes(df, state)
        gid = (np.cumsum(first) - 1).astype(np.int32)
        ref = weakref.ref(frames)  # a strong reference would keep the cache's key alive
        return Stream(lambda: entity_rows(ref(), q), gid, t, code.astype(np.int32), labels, first, last)

    return _cached(frames, "s" + _key(q, state), build)


def episodes(frames: Frames, q: QuerySpec) -> tuple[Stream, Episodes]:
    """The stream of ``params.state`` and its episodes."""
    s = stream(frames, q)

    def build() -> Episodes:
        n = len(s.code)
        new = s.first.copy()
        new[1:] |= s.code[1:] != s.code[:-1]
        row = np.flatnonzero(new)
        gid = s.gid[row]
        closed = np.zeros(row.size, dtype=bool)
        closed[:-1] = gid[1:] == gid[:-1]
        nxt_row = np.append(row[1:], n - 1) if row.size else row
        end = s.t[nxt_row] if row.size else s.t[:0]
        nxt = np.where(closed, s.code[nxt_row] if row.size else s.code[:0], -1)
        return Episodes(row, gid, s.code[row], s.t[row], end, nxt, ~closed)

    return s, _cached(frames, "e" + _key(q, q.p("state")), build)


def group_values(frames: Frames, q: QuerySpec, s: Stream, rows: np.ndarray) -> pd.Series:
    """The ``group_by`` attribute at the given rows, read from the row itself or, with
    ``params.group_via`` ({table, key, ref}), from the static table through the row's key."""
    via = q.p("group_via")
    if via is None:
        return s.frame()[q.group_by].iloc[rows].astype("string").reset_index(drop=True)
    ref = frames.table(via["table"])
    lookup = pd.Series(ref[q.group_by].astype("string").to_numpy(), index=ref[via["ref"]].astype("string"))
    keys = s.frame()[via["key"]].iloc[rows].astype("string").reset_index(drop=True)
    return keys.map(lookup)


def _mean_by_group(frames: Frames, q: QuerySpec, s: Stream, rows: np.ndarray, values: np.ndarray):
    """The mean of ``values``, or per ``group_by`` value a mapping of means (None when empty)."""
    if q.group_by is None:
        return float(np.mean(values)) if values.size else None
    g = group_values(frames, q, s, rows)
    res = pd.Series(values).groupby(g.to_numpy(), dropna=True).mean()
    return {str(k): float(v) for k, v in res.items()} or None


# ---------------------------------------------------------------- templates
def state_duration(frames: Frames, q: QuerySpec):
    """Mean duration (s) of completed episodes of ``value`` starting in the window; with ``to``,
    only episodes directly followed by an episode of ``to``; per ``group_by`` value if set."""
    s, e = episodes(frames, q)
    m = (e.code == s.code_of(q.p("value"))) & ~e.open & in_win(q, e.start)
    if q.p("to") is not None:
        m &= e.nxt == s.code_of(q.p("to"))
    return _mean_by_group(frames, q, s, e.row[m], (e.end[m] - e.start[m]) / 1e9)


def first_passage_time(frames: Frames, q: QuerySpec) -> float | None:
    """Mean over entities whose first row is in the window and that ever enter ``value`` of the
    time (s) from their first row to their first entry (0 if the first row is in it)."""
    s = stream(frames, q)
    hit = np.flatnonzero(s.code == s.code_of(q.p("value")))
    firsts = hit[np.r_[True, s.gid[hit][1:] != s.gid[hit][:-1]]] if hit.size else hit
    t0 = s.t[s.first]
    g = s.gid[firsts]
    ok = in_win(q, t0[g])
    d = (s.t[firsts] - t0[g])[ok] / 1e9
    return float(np.mean(d)) if d.size else None


def transition_counts(frames: Frames, q: QuerySpec) -> dict | None:
    """Transitions out of ``value`` (an episode of it followed directly by another episode) per
    next state, counted when the next episode starts in the window."""
    s, e = episodes(frames, q)
    m = (e.code == s.code_of(q.p("value"))) & ~e.open & in_win(q, e.end)
    nx, counts = np.unique(e.nxt[m], return_counts=True)
    return {s.labels[c]: int(n) for c, n in zip(nx, counts, strict=True)} or None


def rank_paths(cols: list[np.ndarray], labels: list[str], k: int) -> list | None:
    """Top ``k`` paths by count, ties by the path text; ``cols[j]`` holds the j-th state code of
    every path (equal-length arrays)."""
    if cols[0].size == 0:
        return None
    base, n = len(labels), len(cols)
    if base ** n < 2 ** 62:  # one integer per path: fast counting on 10M-row tables
        flat = np.zeros(cols[0].size, dtype=np.int64)
        for c in cols:
            flat = flat * base + c
        if base ** n <= 1_000_000:
            counts = np.bincount(flat, minlength=base ** n)
            u = np.flatnonzero(counts)
            counts = counts[u]
        else:
            u, counts = np.unique(flat, return_counts=True)
        uniq = np.stack([(u // base ** (n - 1 - j)) % base for j in range(n)], axis=1)
    else:
        uniq, counts = np.unique(np.stack(cols, axis=1), axis=0, return_counts=True)
    texts = [" > ".join(labels[c] for c in row) for row in uniq]
    order = sorted(range(len(texts)), key=lambda i: (-counts[i], texts[i]))
    return [[texts[i], int(counts[i])] for i in order[:k]]


def common_paths(frames: Frames, q: QuerySpec) -> list | None:
    """The ``k`` most common paths of the first ``n`` episodes' states per entity (entities whose
    first row is in the window and that have at least ``n`` episodes), by entity count."""
    s, e = episodes(frames, q)
    n, k = int(q.p("n", 3)), int(q.p("k", 3))
    if e.row.size == 0:
        return None
    head = np.flatnonzero(np.r_[True, e.gid[1:] != e.gid[:-1]])
    size = np.diff(np.append(head, e.row.size))
    ok = (size >= n) & in_win(q, e.start[head])
    p0 = head[ok]
    return rank_paths([e.code[p0 + j] for j in range(n)], s.labels, k)


def revisit_count(frames: Frames, q: QuerySpec) -> int:
    """Entities with at least 2 episodes of ``value`` starting in the window."""
    s, e = episodes(frames, q)
    m = (e.code == s.code_of(q.p("value"))) & in_win(q, e.start)
    _g, counts = np.unique(e.gid[m], return_counts=True)
    return int(np.count_nonzero(counts >= 2))


def row_intervals(s: Stream, rows: np.ndarray) -> np.ndarray:
    """Seconds from each of ``rows`` to the entity's next row (NaN for an entity's last row)."""
    nxt = np.minimum(rows + 1, max(s.t.size - 1, 0))
    return np.where(s.last[rows], np.nan, (s.t[nxt] - s.t[rows]) / 1e9)


def state_occupancy(frames: Frames, q: QuerySpec) -> dict | None:
    """Percent of time per state: each row's state holds until the entity's next row; intervals
    starting in the window count; the last row of each entity (open) is left out."""
    s = stream(frames, q)
    rows = np.flatnonzero(~s.last & in_win(q, s.t))
    if rows.size == 0:
        return None
    d = row_intervals(s, rows)
    tot = np.bincount(s.code[rows], weights=d, minlength=len(s.labels))
    seen = np.bincount(s.code[rows], minlength=len(s.labels)) > 0
    total = tot.sum()
    if total <= 0:
        return None
    return {s.labels[c]: float(100.0 * tot[c] / total) for c in np.flatnonzero(seen)}
