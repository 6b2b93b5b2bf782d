"""Shared parts of the sequence templates: which streams to replay, English for events and states,
and the event vocabularies candidates are drawn from (state values, transitions, data quantiles).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import numpy as np

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext, iso
from tools.queries.reference.sequences import NULL_STATE, labels, stream
from tools.queries.registry import Candidate
from tools.queries.render import entity_filter_words, plural, pred_words, row_noun, window_words
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window
from tools.queries.sql.common import ident
from tools.queries.templates.common import entity_filters, round_to

EVENT_HORIZONS_S = (60, 120, 300, 600)  # count_after_trigger horizons on event logs
MAX_PER_TABLE = 12  # candidates per template and stream, at most
QUANTILES = (0.01, 0.05, 0.1, 0.5, 0.9, 0.95, 0.99)


@dataclass(frozen=True)
class Source:
    """A stream to replay: a table's rows grouped by ``entity`` (the table's own entity, or a parent
    such as a deploy's service when the table's own entities pass through their states only once)."""

    t: TableView
    entity: str
    noun: str
    filters: tuple[EntityFilter, ...]
    note: str = ""  # a sentence saying how the stream is formed, for parent streams

    def spec(self, template: str, window: Window | None, ef: EntityFilter | None, params: dict) -> QuerySpec:
        parts = list(self.t.entity_parts) if self.entity == self.t.entity else []  # a parent stream: one id
        return QuerySpec(template=template, table=self.t.name, entity=self.entity, time=self.t.time,
                         window=window, entity_filter=ef, params=params, entity_parts=parts)

    def hints(self) -> dict:
        return {"noun": self.noun, "note": self.note}


def sources(ctx: SynthContext) -> list[Source]:
    """Every table's own stream, plus parent streams for event logs whose entities are one pass long
    (the parent key must identify rows with the time: unique (parent, time))."""
    out = []
    for t in ctx.catalog.tables.values():
        out.append(Source(t, t.entity, t.noun, tuple(entity_filters(t))))
        if t.periodic or not t.states:
            continue
        longest = ctx.scalar(f"SELECT max(n) FROM (SELECT count(*) AS n FROM {ident(t.name)} "
                             f"GROUP BY {ident(t.entity)})")
        if longest is None or longest > max(len(s.values) for s in t.states):
            continue
        for key in dict.fromkeys(a.key for a in t.attrs if a.table and a.key and a.key != t.entity):
            k, ts_ = ident(key), ident(t.time)
            if ctx.scalar(f"SELECT count(*) = count(DISTINCT ({k}, {ts_})) AND count({k}) = count(*) "
                          f"FROM {ident(t.name)}"):
                ent = next((e for e in ctx.spec.entities if e.id.column == key), None)
                noun = ent.name.replace("_", " ") if ent else key
                fs = tuple(f for f in entity_filters(t) if f.key == key)
                out.append(Source(t, key, noun, fs, f"Each {noun}'s events are the {t.noun} events of all its "
                                                    f"{plural(t.noun)}, in time order."))
    return out


def noun(c: Candidate, t: TableView) -> str:
    return c.hints.get("noun", t.noun)


def note(c: Candidate) -> str:
    return (" " + c.hints["note"]) if c.hints.get("note") else ""


def who(c: Candidate, t: TableView) -> str:
    """'sessions belonging to users whose country is 'US'' / 'services whose tier is 'api''."""
    f = c.spec.entity_filter
    n = plural(noun(c, t))
    if f is None:
        return n
    if f.table is not None and f.key == c.spec.entity:
        return f"{n} whose " + " and ".join(pred_words(p, t) for p in f.predicates)
    return f"{n} {entity_filter_words(f, t)}"


def row1(t: TableView) -> str:
    """One row: 'event' or 'reading'."""
    return row_noun(t)[:-1]


def article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def ev(p: dict, t: TableView, *, many: bool = False, art: bool = False) -> str:
    """'event with action 'view_product'', 'readings with CPU load above 80 percent'."""
    pr = Predicate.model_validate(p)
    n = row_noun(t) if many else row1(t)
    if pr.op == "==" and isinstance(pr.value, str):
        s = f"{n} with {pr.column} '{pr.value}'"
    elif isinstance(pr.value, str | list):
        s = f"{n} whose {pred_words(pr, t)}"
    else:
        s = f"{n} with {pred_words(pr, t)}"
    return article(s) if art and not many else s


def scope(w: Window | None) -> str:
    return "over the whole data" if w is None else window_words(w)


def state_name(state: dict, value: str, t: TableView) -> str:
    """'page 'cart'', ''CPU above 80 percent'', ''not CPU above 80 percent''."""
    if "column" in state:
        return f"{state['column']} '{value}'"
    pw = pred_words(Predicate.model_validate(state["predicate"]), t)
    return f"'{pw}'" if value == "in" else f"'not {pw}'"


def state_rows(state: dict, value: str, t: TableView) -> str:
    """'events with page 'cart'', 'readings with CPU above 80 percent', 'readings without ... value)'."""
    if "column" in state:
        return f"{row_noun(t)} with {state['column']} '{value}'"
    pw = pred_words(Predicate.model_validate(state["predicate"]), t)
    return f"{row_noun(t)} with {pw}" if value == "in" else f"{row_noun(t)} without {pw} (or with no value)"


def entry_words(c: Candidate, t: TableView, value: str) -> str:
    """The sentence that defines entering a state, for the question text."""
    state, n, r = c.spec.p("state"), noun(c, t), row1(t)
    if "column" in state:
        col = state["column"]
        prev = f"had another {col} value (a missing value counts as another value)"
        at = f"{article(r)} with {col} '{value}'"
    else:
        pw = pred_words(Predicate.model_validate(state["predicate"]), t)
        holds = value == "in"
        at = f"{article(r)} {'with' if holds else 'without'} {pw}"
        prev = f"{'did not have' if holds else 'had'} it (a missing value does not have it)"
    return (f"A {n} enters {state_name(state, value, t)} at {at} whose previous {r} of the same {n} "
            f"(over the whole data) {prev}, or at its very first {r}.")


# ---------------------------------------------------------------- vocabularies
def eq(column: str, value) -> dict:
    return {"column": column, "op": "==", "value": value}


def transitions(ctx: SynthContext, src: Source, column: str) -> list[tuple[str, str, int]]:
    """Observed direct changes of a state column in a stream (from, to, count), most frequent first.

    Read from the reference executor's cached arrays (built once per table and reused by every
    evaluation), which is much cheaper than a window query on large tables."""
    key = ("seq_transitions", src.t.name, src.entity, column)
    if key not in ctx.memo:
        with ctx.pandas_lock:  # the reference executor's caches are built under this lock
            s = stream(ctx.frames, src.spec("sequence_match", None, None, {}))
            codes, uniq = labels(s, {"column": column})
        same = (s.gid[1:] == s.gid[:-1]) & (codes[1:] != codes[:-1])
        pair = codes[:-1][same].astype(np.int64) * len(uniq) + codes[1:][same]
        vals, counts = np.unique(pair, return_counts=True)
        out = [(uniq[v // len(uniq)], uniq[v % len(uniq)], int(n)) for v, n in zip(vals, counts, strict=True)]
        out = [(a, b, n) for a, b, n in out if NULL_STATE not in (a, b)]
        ctx.memo[key] = sorted(out, key=lambda x: (-x[2], x[0], x[1]))
    return ctx.memo[key]


def quantiles(ctx: SynthContext, t: TableView, key: str) -> dict[float, float | int]:
    """A key's data quantiles (one scan for all of them), rounded so questions can state them."""
    mk = ("seq_quantiles", t.name, key)
    if mk not in ctx.memo:
        row = ctx.con.execute(f"SELECT quantile_cont({ident(key)}, {list(QUANTILES)}) FROM {ident(t.name)}").fetchone()
        qs = row[0] if row else None
        ctx.memo[mk] = {} if qs is None else {p: round_to(v, t.key(key)) for p, v in zip(QUANTILES, qs, strict=True)
                                               if v is not None}
    return ctx.memo[mk]


def numeric_events(ctx: SynthContext, t: TableView, hi: float = 0.95, lo: float = 0.05) -> list[dict]:
    """Per key: 'above its ``hi`` quantile' and 'below its ``lo`` quantile' row predicates."""
    out = []
    for k in t.keys:
        qs = quantiles(ctx, t, k.name)
        a, b = qs.get(hi), qs.get(lo)
        if a is not None:
            out.append({"column": k.name, "op": ">", "value": a})
        if b is not None and b != a:
            out.append({"column": k.name, "op": "<", "value": b})
    return out


def event_pairs(ctx: SynthContext, src: Source) -> list[tuple[dict, dict]]:
    """(A, B) pairs where B plausibly follows A: observed state changes (direct and two-step) and,
    on periodic tables, 'key above p95' → another key high, or → the same key back below its median."""
    t = src.t
    pairs: list[tuple[dict, dict]] = []
    for s in t.states:
        tr = transitions(ctx, src, s.name)[:8]
        direct = [(a, b) for a, b, _ in tr]
        two = [(a, c) for a, b, _ in tr for b2, c, _ in tr if b2 == b and c != a]
        pairs += [(eq(s.name, a), eq(s.name, b)) for a, b in dict.fromkeys(direct + two)]
    if t.periodic:
        highs = [p for p in numeric_events(ctx, t) if p["op"] == ">"]
        for i, a in enumerate(highs):
            pairs += [(a, b) for b in highs[i + 1:i + 3]]
            med = quantiles(ctx, t, a["column"]).get(0.5)
            if med is not None:
                pairs.append((a, {"column": a["column"], "op": "<", "value": med}))
    return pairs


def walks(ctx: SynthContext, src: Source, column: str, length: int, count: int) -> list[list[str]]:
    """``count`` random walks of ``length`` values over the observed transitions of a column."""
    tr = transitions(ctx, src, column)
    nxt: dict[str, list[str]] = {}
    for a, b, _ in tr:
        nxt.setdefault(a, []).append(b)
    starts = [a for a, _b, _n in tr[:10]]
    out: list[list[str]] = []
    for _ in range(count * 3):
        if not starts or len(out) >= count:
            break
        w = [ctx.pick(starts, 1)[0]]
        while len(w) < length and nxt.get(w[-1]):
            w.append(ctx.pick(nxt[w[-1]], 1)[0])
        if len(w) == length and w not in out:
            out.append(w)
    return out


def day_windows(ctx: SynthContext, t: TableView, hours: float = 24, count: int = 1) -> list[Window | None]:
    """The whole data (None) plus ``count`` windows of ``hours`` placed by seed."""
    return [None, *ctx.windows(t, hours, count)]


def paired_windows(ctx: SynthContext, t: TableView, hours: float, count: int) -> list[Window]:
    """Later windows of ``hours`` whose same hours one day earlier are still inside the data."""
    out = [w for w in ctx.windows(t, hours, count * 2) if w.start_dt - timedelta(days=1) >= t.start]
    return out[:count]


def earlier(w: Window, offset_s: float) -> Window:
    """The earlier window of a cross-window comparison (for the question text)."""
    d = timedelta(seconds=offset_s)
    return Window(start=iso(w.start_dt - d), end=iso(w.end_dt - d))


def filters(ctx: SynthContext, src: Source) -> list[EntityFilter | None]:
    """No filter, and one entity filter chosen by seed."""
    return [None, *ctx.pick(list(src.filters), 1)]
