"""Candidate enumerators for the state-machine templates (``templates/states.py`` registers them).

States come from the data: visible state/event columns without nulls (ecommerce ``page``, iot
``device_state``, observability ``status``) and, on periodic tables without such a column,
predicated states on measurements at data quantiles. Episode statistics (which states end, which
follow which, how long episodes last) come from the pandas episode stream of each state (cached,
so the evaluations that follow reuse it), so ``to`` states and horizons are chosen where answers
are neither empty nor everything. Randomness only through ``ctx``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext
from tools.queries.reference import states as ref
from tools.queries.registry import Candidate
from tools.queries.sql.common import ident
from tools.queries.templates.common import base_spec, entity_filters, threshold

MAX_PER_TEMPLATE = 30  # candidates per template and pack, at most
MAX_PER_TABLE = 16


@dataclass(frozen=True)
class StateInfo:
    """A state spec on a table and its episode statistics."""

    t: TableView
    state: dict
    pairs: tuple[tuple[str, str, int, float], ...]  # (state, next state, transitions, median seconds)
    repeats: bool  # some episode spans more than one row
    revisited: frozenset[str]  # states some entity has two or more episodes of
    baseline: str | None  # the state of most rows, if it holds a majority of them
    start: str | None  # the state every entity starts in, if there is one

    @property
    def visible(self) -> bool:
        return "column" in self.state

    def ending(self) -> list[str]:
        """States with at least one completed episode, most transitions first."""
        seen: dict[str, int] = {}
        for a, _b, n, _m in self.pairs:
            seen[a] = seen.get(a, 0) + n
        return sorted(seen, key=lambda s: (-seen[s], s))

    def successors(self, a: str) -> list[tuple[str, int, float]]:
        return [(b, n, m) for x, b, n, m in self.pairs if x == a]


def _stats(ctx: SynthContext, t: TableView, state: dict) -> StateInfo:
    """Episode statistics from the pandas stream (cached, and reused by the evaluations that follow)."""
    key = ("states_stats", t.name, repr(sorted(state.items())))
    if key not in ctx.memo:
        q = base_spec("state_duration", t, params={"state": state})
        with ctx.pandas_lock:  # the reference executor's caches are built under this lock
            s, e = ref.episodes(ctx.frames, q)
        closed = ~e.open
        pairs = []
        if closed.any():
            df = pd.DataFrame({"a": e.code[closed], "b": e.nxt[closed], "d": (e.end - e.start)[closed] / 1e9})
            g = df.groupby(["a", "b"]).agg(n=("d", "size"), m=("d", "median")).reset_index()
            pairs = sorted(((s.labels[a], s.labels[b], int(n), float(m)) for a, b, n, m in g.itertuples(index=False)),
                           key=lambda x: (-x[2], x[0], x[1]))
        per = pd.Series(1, index=pd.MultiIndex.from_arrays([e.gid, e.code])).groupby(level=[0, 1]).size()
        again = frozenset(s.labels[c] for c in per[per >= 2].index.get_level_values(1).unique())
        rows = np.bincount(s.code, minlength=len(s.labels))
        top = int(np.argmax(rows)) if rows.size else -1
        base = s.labels[top] if top >= 0 and 2 * rows[top] > s.code.size else None
        firsts = np.unique(s.code[s.first])
        start = s.labels[firsts[0]] if firsts.size == 1 else None
        ctx.memo[key] = StateInfo(t, state, tuple(pairs), bool(e.row.size < s.code.size), again, base, start)
    return ctx.memo[key]


def _no_nulls(ctx: SynthContext, t: TableView, column: str) -> bool:
    return not ctx.scalar(f"SELECT count(*) FROM {ident(t.name)} WHERE {ident(column)} IS NULL")


COMMON = (0.9, 0.95)  # quantiles for states that should occur often
RARE = (0.97, 0.99)  # quantiles for states some entities never (or only once) reach


def predicates(ctx: SynthContext, t: TableView, keys: int = 3, qs: tuple[float, float] = COMMON) -> list[dict]:
    """'key above its q-th percentile', 'key below its (1-q)-th percentile' for a few keys, q from ``qs``."""
    out = []
    for k in ctx.pick(list(t.keys), keys):
        qq = float(ctx.pick(list(qs), 1)[0])
        hi, lo = threshold(ctx, t, k, qq), threshold(ctx, t, k, round(1 - qq, 4))
        mx = ctx.scalar(f"SELECT max({ident(k.name)}) FROM {ident(t.name)}")
        mn = ctx.scalar(f"SELECT min({ident(k.name)}) FROM {ident(t.name)}")
        if hi is not None and mx is not None and hi < mx:
            out.append({"predicate": {"column": k.name, "op": ">", "value": hi}})
        if lo is not None and mn is not None and lo > mn:
            out.append({"predicate": {"column": k.name, "op": "<", "value": lo}})
    return out


def states(ctx: SynthContext, *, visible: bool = True, predicated: bool = True,
           qs: tuple[float, float] = COMMON, keys: int = 3) -> list[StateInfo]:
    """Visible state columns without nulls on every table; predicated states (quantiles ``qs``) on
    periodic tables that have no such column."""
    out = []
    for t in ctx.catalog.tables.values():
        cols = [s.name for s in t.states if _no_nulls(ctx, t, s.name)]
        if visible:
            out += [_stats(ctx, t, {"column": c}) for c in cols]
        if predicated and t.periodic and not cols:
            out += [_stats(ctx, t, st) for st in predicates(ctx, t, keys, qs)]
    return [s for s in out if s.pairs]


def windows(ctx: SynthContext, t: TableView, count: int = 2, none: bool = True, margin_s: float = 0.0,
            hours: float | None = None) -> list:
    """Windows of ``hours`` (default: a day on event logs, two days on periodic tables), ending
    ``margin_s`` before the data ends, plus the whole data (None) if ``none``."""
    hours = hours or (48 if t.periodic else 24)
    ws = [w for w in ctx.windows(t, hours, count + 1)
          if (t.end - w.end_dt).total_seconds() >= margin_s][:count]
    return ([None] if none else []) + ws


def filters(ctx: SynthContext, t: TableView, k: int = 1) -> list:
    """No entity filter, plus ``k`` filters on static attributes."""
    return [None, *ctx.pick(entity_filters(t), k)]


_LADDER_MIN = (1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 360, 480, 720, 1440, 2880)


def nice_horizon(t: TableView, seconds: float) -> int:
    """The round horizon (1, 2, 5, 10 ... minutes, hours, days) nearest to ``seconds`` on a log
    scale, among those that are whole cadence steps (periodic tables)."""
    step = t.cadence_s or 60.0
    ok = [m * 60 for m in _LADDER_MIN if (m * 60) % step == 0] or [int(step)]
    return int(min(ok, key=lambda h: abs(math.log(h / max(seconds, 1.0)))))


def capped(ctx: SynthContext, by_table: dict[str, list[Candidate]]) -> list[Candidate]:
    """At most MAX_PER_TABLE per table and MAX_PER_TEMPLATE in all, chosen by seed."""
    out: list[Candidate] = []
    for name in sorted(by_table):
        out += ctx.pick(by_table[name], MAX_PER_TABLE)
    return ctx.pick(out, MAX_PER_TEMPLATE)


def spec(name: str, info: StateInfo, w, ef, **params):
    return base_spec(name, info.t, window=w, entity_filter=ef, params={"state": info.state, **params})


# ---------------------------------------------------------------- per template
def duration_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx):
        for a in (info.ending()[:4] if info.visible else ["in"]):
            nexts = info.successors(a)
            tos = ([None] if a in info.revisited else []) + ([nexts[0][0]] if len(nexts) >= 2 else [])
            for w in windows(ctx, info.t, 2):
                for ef in filters(ctx, info.t):
                    for to in tos:
                        extra = {"to": to} if to else {}
                        by.setdefault(info.t.name, []).append(
                            Candidate(spec("state_duration", info, w, ef, value=a, **extra), decimals=0))
    return capped(ctx, by)


def passage_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, qs=RARE):
        targets = {b for _a, b, _n, _m in info.pairs} - {info.start}
        for a in sorted(targets)[:6] if info.visible else ["in"]:
            ws = [None] if info.t.periodic else windows(ctx, info.t, 2)
            for w in ws:
                for ef in filters(ctx, info.t, 2):
                    by.setdefault(info.t.name, []).append(
                        Candidate(spec("first_passage_time", info, w, ef, value=a), decimals=0))
    return capped(ctx, by)


def transition_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        if not info.repeats:  # row pairs are episode pairs: the naive reading cannot differ
            continue
        for a in info.ending():
            if len(info.successors(a)) < 2:
                continue
            for w in windows(ctx, info.t, 2):
                for ef in filters(ctx, info.t):
                    by.setdefault(info.t.name, []).append(
                        Candidate(spec("transition_counts", info, w, ef, value=a), decimals=0))
    return capped(ctx, by)


def path_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        if not (info.repeats or info.revisited):  # first states = every run of rows: nothing to misread
            continue
        ws = [None] if info.t.periodic else windows(ctx, info.t, 1)
        for n in (3, 4):
            for k in (3, 5):
                for w in ws:
                    for ef in filters(ctx, info.t, 2):
                        by.setdefault(info.t.name, []).append(
                            Candidate(spec("common_paths", info, w, ef, n=n, k=k), decimals=0))
    return capped(ctx, by)


def revisit_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, qs=RARE, keys=6):
        if not info.repeats:
            continue
        for a in (info.ending()[:4] if info.visible else ["in"]):
            for w in windows(ctx, info.t, 2, none=False, hours=24):
                for ef in filters(ctx, info.t):
                    by.setdefault(info.t.name, []).append(
                        Candidate(spec("revisit_count", info, w, ef, value=a), decimals=0))
    return capped(ctx, by)


def occupancy_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        if info.t.periodic:  # regular cadence: share of time is share of rows
            continue
        for w in windows(ctx, info.t, 3):
            for ef in filters(ctx, info.t, 2):
                by.setdefault(info.t.name, []).append(Candidate(spec("state_occupancy", info, w, ef), unit="%"))
    return capped(ctx, by)


def _outcomes(ctx: SynthContext, info: StateInfo) -> list[tuple[str, dict | None, str, float]]:
    """(A, outcome state spec or None, B, typical delay in seconds) choices."""
    out = []
    if info.visible:
        for a in [x for x in info.ending() if x != info.baseline][:4]:
            for b, _n, med in info.successors(a)[:2]:
                out.append((a, None, b, med))
    else:
        for b, _n, med in info.successors("in")[:1]:
            out.append(("in", None, b, med))
        others = [p for p in predicates(ctx, info.t, 2) if p["predicate"]["column"] != info.state["predicate"]["column"]]
        for o in others[:1]:
            out.append(("in", o, "in", 4 * (info.t.cadence_s or 60.0)))
    return out


def threshold_candidates(ctx: SynthContext) -> list[Candidate]:
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx):
        for a, ostate, b, med in _outcomes(ctx, info):
            for h in sorted({nice_horizon(info.t, med), nice_horizon(info.t, 2 * med)}):
                for w in windows(ctx, info.t, 2, none=False, margin_s=h):
                    for ef in filters(ctx, info.t):
                        extra = {"outcome_state": ostate} if ostate else {}
                        by.setdefault(info.t.name, []).append(Candidate(
                            spec("threshold_without_outcome", info, w, ef, value=a, outcome=b, horizon_s=h,
                                 **extra), decimals=0))
    return capped(ctx, by)


def grouped_duration_candidates(ctx: SynthContext) -> list[Candidate]:
    """state_duration broken down by a static attribute (answer: mapping group → seconds)."""
    by: dict[str, list[Candidate]] = {}
    for info in states(ctx, predicated=False):
        for a in info.ending()[:4]:
            nexts = info.successors(a)
            for attr in info.t.attrs:
                via = {"table": attr.table, "key": attr.key, "ref": attr.ref} if attr.table else None
                for to in ([None] if a in info.revisited else []) + ([nexts[0][0]] if len(nexts) >= 2 else []):
                    params = {"value": a, **({"to": to} if to else {}), **({"group_via": via} if via else {})}
                    by.setdefault(info.t.name, []).append(Candidate(
                        base_spec("state_duration", info.t, group_by=attr.name,
                                  params={"state": info.state, **params}), decimals=0))
    return capped(ctx, by)
