"""The per-entity sequence checks: duplicate keys, monotonic timestamps, cadence, state transitions
and terminal states.

Canonical definition (the SQL stored in checks.json): every row of the table with the previous row of
its entity in (timestamp, rowid) order (``seq_sql``: a window ``PARTITION BY id ORDER BY ts, rowid``)
and one predicate per check; the check counts the rows where its predicate holds. A duplicate key is a
row with its predecessor's timestamp; the file order (DuckDB ``rowid`` = insertion order = Parquet
order) is monotonic exactly when no row's rowid is smaller than its time-order predecessor's (any
descent in file order leaves such a pair). Checks that read one row only (known states of a periodic
table) are counted on the rows themselves (``row_sql``), without a window.

Fast path (same counts, no sort). The canonical window sorts the whole table, which dominates the
checks on large worlds. The writer stores each entity's rows together and in time order, so the
predecessor of a row in file order is usually its predecessor in time order too. That is *verified*,
not assumed: one scan in storage order (``lag() OVER ()``, DuckDB's streaming window) pairs each row
with the row stored before it and counts, besides every paired predicate,

- rows whose rowid is not larger than the previous one's (the scan was not in rowid order),
- runs of equal ``hash(id)``, to compare with the distinct ids and distinct hashes of the table
  (``Bundle.id_stats``): one run per entity and no hash collision means each entity's rows are
  contiguous in file order,
- rows whose timestamp is null, or smaller than the previous row's of the same entity (file order
  is not time order); null ids are ruled out by ``id_stats``.

When all of these hold, the file-order predecessor of every row *is* its (timestamp, rowid)
predecessor, so each predicate counts exactly the canonical rows. Otherwise the canonical sorted
pass runs.

Faster still, for periodic tables without lagged states: one parallel ``GROUP BY`` per entity
(``certified_clean``) can prove that duplicate keys, monotonic timestamps and cadence have nothing to
count at all (contiguous rowids, ``t_us - step * rowid`` constant, first row on the grid): then the
three counts are 0 without any pass over pairs; if it cannot, the scans above count them.

Whichever path counts, a failing check quotes its examples from the canonical SQL, and the recorded
SQL is the canonical one.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.bundle.opened import Bundle
from tools.checks.model import Check, in_list, iso_to_us, qi, ql
from tools.checks.quality import check_duplicates, result, windows
from tools.checks.tables import (
    NULL_LABEL,
    TableInfo,
    allowed_state_pairs,
    epoch_starts_us,
    initial_states,
    label,
)
from tools.common.durations import parse_duration
from tools.patterns.registry import all_kinds


@dataclass
class SeqCheck:
    """One check over the per-entity sequence: ``pred`` marks an offending row, ``what`` describes it.
    ``paired`` predicates read the previous row (``prev_us``, ``prev_rid``, ``prev_i``); the others read
    only the row's states ``cur_i`` (they are counted per distinct state combination)."""

    name: str
    pred: str
    what: str
    ok: str
    problem: str
    paired: bool = True


def _lagged(t: TableInfo) -> bool:
    """Do the state checks read the previous state? (periodic tables only check known states, unless a
    terminal state must never be left)."""
    sm = t.entity.states
    return t.kind != "periodic" or bool(sm and sm.terminal)


def _cur(t: TableInfo) -> str:
    return "".join(f", coalesce({qi(c)}, {ql(NULL_LABEL)}) AS cur_{i}" for i, c in enumerate(t.labels))


def row_sql(t: TableInfo) -> str:
    """Every row alone: entity, t_us, rid and, per visible state column i, cur_i."""
    return (f"SELECT {t.key} AS entity, epoch_us({qi(t.ts_col)}) AS t_us, rowid AS rid{_cur(t)} "
            f"FROM {qi(t.name)}")


def seq_sql(t: TableInfo) -> str:
    """Every row with the previous row of its entity in (timestamp, rowid) order: prev_us, prev_rid
    and, per visible state column i, cur_i / prev_i (the canonical relation of the paired checks)."""
    ts, idc = qi(t.ts_col), t.key
    prev = "".join(f", lag(coalesce({qi(c)}, {ql(NULL_LABEL)})) OVER w AS prev_{i}"
                   for i, c in enumerate(t.labels)) if _lagged(t) else ""
    return (f"SELECT {idc} AS entity, epoch_us({ts}) AS t_us, rowid AS rid, lag(epoch_us({ts})) OVER w AS prev_us, "
            f"lag(rowid) OVER w AS prev_rid{_cur(t)}{prev} FROM {qi(t.name)} "
            f"WINDOW w AS (PARTITION BY {idc} ORDER BY {ts}, rowid)")


def stream_sql(t: TableInfo) -> str:
    """The same columns as ``seq_sql`` with the previous row taken in storage order (a streaming
    window, no sort), plus ``raw_prev`` (the previous row's rowid, any entity) and ``same`` (the
    previous row has the same ``hash(id)``). Equal to ``seq_sql`` only under the conditions checked
    by ``stream_counts``."""
    ts, idc = qi(t.ts_col), t.key
    n = len(t.labels) if _lagged(t) else 0
    lag_states = "".join(f", lag(coalesce({qi(c)}, {ql(NULL_LABEL)})) OVER () AS p_{i}"
                         for i, c in enumerate(t.labels) if i < n)
    raw = (f"SELECT {idc} AS entity, hash({idc}) AS h, epoch_us({ts}) AS t_us, rowid AS rid{_cur(t)}, "
           f"lag(hash({idc})) OVER () AS p_h, lag(rowid) OVER () AS p_rid, lag(epoch_us({ts})) OVER () AS p_us"
           f"{lag_states} FROM {qi(t.name)}")
    cur = "".join(f", cur_{i}" for i in range(len(t.labels)))
    prev = "".join(f", CASE WHEN same THEN p_{i} END AS prev_{i}" for i in range(n))
    return (f"SELECT entity, t_us, rid, p_rid AS raw_prev, same, CASE WHEN same THEN p_us END AS prev_us, "
            f"CASE WHEN same THEN p_rid END AS prev_rid{cur}{prev} "
            f"FROM (SELECT *, p_rid IS NOT NULL AND h = p_h AS same FROM ({raw}) r) s")


def seq_checks(b: Bundle, t: TableInfo) -> list[SeqCheck]:
    """The sequence checks of a table with a timestamp (duplicates, monotonic, cadence, states)."""
    out = [SeqCheck("duplicate_keys", "t_us = prev_us", "'duplicate of the previous row'",
                    f"({t.key_name}, {t.ts_col}) is unique", "duplicated keys"),
           SeqCheck("timestamps_monotonic", "rid < prev_rid",
                    "'stored after a later row of the entity (rowid ' || CAST(prev_rid AS VARCHAR) || ')'",
                    "timestamps never decrease within an entity (file order)", "timestamps that go back in time")]
    em = t.entity.emission
    if t.kind == "periodic" and em is not None:
        out.append(_cadence(b, t, em))
    if t.labels:
        out += _state_checks(b, t)
    return out


def _floormod(a: str, c: int) -> str:
    """SQL ``a mod c`` in [0, c) for negative ``a`` too (DuckDB's ``%`` keeps the sign of ``a``)."""
    return f"((({a}) % {c} + {c}) % {c})"


def _floordiv(a: str, c: int) -> str:
    """SQL floor division (DuckDB's ``//`` on integers rounds toward zero)."""
    return f"((({a}) - {_floormod(a, c)}) // {c})"


def _cadence(b: Bundle, t: TableInfo, em) -> SeqCheck:
    c = int(round(parse_duration(em.cadence) * 1e6))
    tol = max(int(round(parse_duration(em.jitter) * 1e6)), 1)
    s0 = iso_to_us(b.spec.start_dt.isoformat())
    off, prev = f"(t_us - {s0})", f"(prev_us - {s0})"
    ticks = f"({_floordiv(off, c)} - {_floordiv(prev, c)})"
    allow = ["TRUE"] if em.missing_rate > 0 else []
    for r in windows(b, t, {k.name for k in all_kinds() if k.removes_rows}):
        allow.append(f"(entity IN {in_list(r['entities'])} AND prev_us < {iso_to_us(r['end'])} "
                     f"AND t_us >= {iso_to_us(r['start'])})")
    epochs = epoch_starts_us(b.spec, t.entity)
    allow += [f"(prev_us < {x} AND t_us >= {x})" for x in epochs]
    gap_ok = f"({ticks} = 1 OR ({ticks} > 1 AND ({' OR '.join(allow)})))" if allow else f"{ticks} = 1"
    why = "missing_rate > 0 allows longer gaps" if em.missing_rate > 0 else \
        "longer gaps only across data_outage windows" + (" and epoch starts" if epochs else "")
    return SeqCheck("cadence", f"{_floormod(off, c)} >= {tol} OR (prev_us IS NOT NULL AND NOT {gap_ok})",
                    f"CASE WHEN {_floormod(off, c)} >= {tol} THEN 'off the {em.cadence} grid' ELSE "
                    f"CAST({ticks} AS VARCHAR) || ' cadence steps after the previous row' END",
                    f"every row on the {em.cadence} grid, one step apart per entity ({why})", "rows off the cadence")


def _state_checks(b: Bundle, t: TableInfo) -> list[SeqCheck]:
    e, sm = t.entity, t.entity.states
    pairs = allowed_state_pairs(b.spec, e)
    restarts = epoch_starts_us(b.spec, e)
    preds, whats, terms, names = [], [], [], []
    for i, (col, mapping) in enumerate(t.labels.items()):
        known = sorted({label(mapping, s) for s in mapping})
        bad = f"cur_{i} NOT IN {in_list(known)}"
        if t.kind != "periodic":
            ok = sorted({f"{label(mapping, a)} -> {label(mapping, z)}" for a, z in pairs})
            init = sorted({label(mapping, s) for s in initial_states(e)})
            restart = f" AND NOT (t_us IN {in_list(restarts)} AND cur_{i} IN {in_list(init)})" if restarts else ""
            pair_bad = f"prev_{i} || ' -> ' || cur_{i} NOT IN {in_list(ok)}" if ok else "TRUE"
            bad += f" OR (prev_{i} IS NOT NULL AND {pair_bad}{restart})"
        preds.append(f"({bad})")
        arrow = f"coalesce(prev_{i} || ' -> ', '') || " if t.kind != "periodic" else ""
        whats.append(f"WHEN {bad} THEN {ql(col + ': ')} || {arrow}cur_{i}")
        by_label: dict[str, set[str]] = {}
        for st in mapping:
            by_label.setdefault(label(mapping, st), set()).add(st)
        terminal = sorted(lb for lb, states in by_label.items() if sm and sm.terminal and states <= set(sm.terminal))
        if terminal:
            restart = f" AND t_us NOT IN {in_list(restarts)}" if restarts else ""
            cond = f"prev_{i} IN {in_list(terminal)}{restart}"
            terms.append((f"({cond})", f"WHEN {cond} THEN {ql(col + ': row after terminal ')} || prev_{i}"))
            names.append(f"{col} ({', '.join(terminal)})")
    how = "known states" if t.kind == "periodic" else "allowed transitions (probability > 0 in the spec, " \
        "its overrides, exemplars, behavior_shift incidents or timeouts)"
    out = [SeqCheck("state_transitions", " OR ".join(preds), f"CASE {' '.join(whats)} END",
                    f"{', '.join(t.labels)}: only {how}", "disallowed states or transitions",
                    paired=t.kind != "periodic")]
    if terms:
        out.append(SeqCheck("terminal_states", " OR ".join(p for p, _ in terms),
                            f"CASE {' '.join(w for _, w in terms)} END",
                            "no entity has a row after a terminal state: " + "; ".join(names),
                            "rows after a terminal state"))
    return out


def _counts(checks: list[SeqCheck]) -> str:
    return "".join(f", count(*) FILTER (WHERE {c.pred})" for c in checks)


def certified_clean(b: Bundle, t: TableInfo, paired: list[SeqCheck]) -> bool:
    """True when one parallel ``GROUP BY`` proves that a periodic table's paired checks (duplicate keys,
    monotonic timestamps, cadence; no lagged states) have nothing to count. Per entity: its rowids are
    contiguous (count = max - min + 1), no timestamp is null, ``t_us - step * rowid`` is constant (so each
    row is exactly one cadence step after the row stored before it: time order is file order, strictly
    increasing) and its first row is on the grid at or after the spec start (so every row is, and
    consecutive rows are exactly one tick apart). Any other table (jitter, gaps, outages, reordered
    rows...) returns False and gets counted."""
    em = t.entity.emission
    if t.kind != "periodic" or em is None or {c.name for c in paired} - {"duplicate_keys", "timestamps_monotonic",
                                                                       "cadence"}:
        return False
    step = int(round(parse_duration(em.cadence) * 1e6))
    tol = max(int(round(parse_duration(em.jitter) * 1e6)), 1)
    s0 = iso_to_us(b.spec.start_dt.isoformat())
    rows = int(b.one(f"SELECT count(*) FROM {qi(t.name)}")[0])
    if step <= 0 or step * (rows + 1) >= 2**62:  # keep step * rowid far from BIGINT overflow
        return False
    bad = b.one(f"SELECT count(*) FILTER (WHERE NOT ok) FROM (SELECT count(*) = max(rid) - min(rid) + 1 "
                f"AND count(t_us) = count(*) AND min(t_us - {step} * rid) = max(t_us - {step} * rid) "
                f"AND min(t_us) >= {s0} AND (min(t_us) - {s0}) % {step} < {tol} AS ok "
                f"FROM ({row_sql(t)}) r GROUP BY entity) g")[0]
    return bad == 0


def stream_counts(b: Bundle, t: TableInfo, paired: list[SeqCheck]) -> list[int] | None:
    """The counts of the paired checks from one scan in storage order, or None when that order is
    not each entity's (timestamp, rowid) order (see the module docstring)."""
    if t.key_parts:  # a composite key (small tables): the canonical pass
        return None
    ids, hashes, null_id = b.id_stats(t.name, t.id_col)
    if null_id or ids != hashes:
        return None
    disorder, runs, descents, null_ts, *counts = b.one(
        "SELECT count(*) FILTER (WHERE rid <= raw_prev), count(*) FILTER (WHERE NOT same), "
        f"count(*) FILTER (WHERE t_us < prev_us), count(*) FILTER (WHERE t_us IS NULL){_counts(paired)} "
        f"FROM ({stream_sql(t)}) s")
    if disorder or descents or null_ts or runs != ids:
        return None
    return [int(n) for n in counts]


def single_counts(b: Bundle, t: TableInfo, single: list[SeqCheck]) -> list[int]:
    """The counts of the single-row checks (their predicates read only the states ``cur_i``): one
    parallel scan grouped by the state values, each group weighted by its rows."""
    if not single:
        return []
    cols = ", ".join(f"cur_{i}" for i in range(len(t.labels)))
    sums = ", ".join(f"coalesce(sum(n) FILTER (WHERE {c.pred}), 0)" for c in single)
    return [int(n) for n in b.one(f"SELECT {sums} FROM (SELECT {cols}, count(*) AS n FROM ({row_sql(t)}) r "
                                  f"GROUP BY {cols}) g")]


def run_seq_checks(b: Bundle, t: TableInfo) -> list[Check]:
    """All sequence checks of a table; each records its canonical standalone SQL (over ``seq_sql`` or
    ``row_sql``). The single-row checks are counted on the rows; the paired checks are 0 when
    ``certified_clean``, else counted by the storage-order scan when it is provably equivalent, else by
    one canonical sorted pass for all of them together."""
    if t.ts_col is None:
        return [check_duplicates(b, t)]
    checks = seq_checks(b, t)
    paired = [c for c in checks if c.paired]
    single = [c for c in checks if not c.paired]
    if certified_clean(b, t, paired):
        got = [0] * len(paired)
    elif (got := stream_counts(b, t, paired)) is None:
        got = b.one(f"SELECT count(*){_counts(paired)} FROM ({seq_sql(t)}) s")[1:]
    by_name = dict(zip([c.name for c in paired + single], [*got, *single_counts(b, t, single)], strict=True))
    out = []
    for c in checks:
        inner = f"SELECT entity, t_us, {c.what} AS what FROM ({seq_sql(t) if c.paired else row_sql(t)}) s WHERE {c.pred}"
        out.append(result(b, c.name, t, inner, int(by_name[c.name]), c.ok, c.problem))
    return out
