"""Data-quality checks, one DuckDB query per (check, table).

Each check is an *inner* query listing the offending rows as ``(entity, t_us, what)``; the SQL
stored in checks.json is ``SELECT count(*) AS violations FROM (inner)`` and the check passes when
that count is 0. A few offending rows are quoted in the detail.

The per-entity checks (duplicates, monotonic timestamps, cadence, transitions, terminal states) share
one window pass per table: the rows of each entity in (timestamp, rowid) order with the previous
row's timestamp, rowid and states. A duplicate key is a row with its predecessor's timestamp; the
file order (DuckDB ``rowid`` = insertion order = Parquet order) is monotonic exactly when no row's
rowid is smaller than its time-order predecessor's (any descent in file order leaves such a pair).
One query counts all of them; each check still records its own standalone SQL.
"""

from __future__ import annotations

from tools.checks.model import Bundle, Check, in_list, iso_to_us, qi, ql, us_to_iso
from tools.checks.tables import (
    NULL_LABEL,
    TableInfo,
    allowed_state_pairs,
    epoch_starts_us,
    initial_states,
    label,
    parent_table,
    table_infos,
)
from tools.spec.durations import parse_duration

EXAMPLES = 3


def _run(b: Bundle, name: str, t: TableInfo, inner: str, ok: str, what: str) -> Check:
    return _result(b, name, t, inner, int(b.one(f"SELECT count(*) AS violations FROM ({inner}) v")[0]), ok, what)


def _result(b: Bundle, name: str, t: TableInfo, inner: str, n: int, ok: str, what: str) -> Check:
    sql = f"SELECT count(*) AS violations FROM ({inner}) v"
    if n == 0:
        return Check(name=name, table=t.name, kind="quality", passed=True, detail=ok, sql=sql)
    rows = b.sql(f"SELECT * FROM ({inner}) v LIMIT {EXAMPLES}")
    ex = "; ".join(f"{e}{' at ' + us_to_iso(u) if u is not None else ''}: {w}" for e, u, w in rows)
    return Check(name=name, table=t.name, kind="quality", passed=False, detail=f"{n:,} {what}; e.g. {ex}", sql=sql)


def _ent_ts(t: TableInfo) -> str:
    ts = f"epoch_us({qi(t.ts_col)})" if t.ts_col else "NULL::BIGINT"
    return f"{qi(t.id_col)} AS entity, {ts} AS t_us"


def _windows(b: Bundle, t: TableInfo, kinds: set[str], key: str | None = None) -> list[dict]:
    """Incidents of these kinds on the table (and touching ``key`` or a key it is computed from)."""
    if t.is_baseline:
        return []
    return [r for r in b.incidents if r.get("table") == t.base and r.get("kind") in kinds
            and (key is None or set(r.get("keys", [])) & _sources(t, key))]


def _sources(t: TableInfo, key: str) -> set[str]:
    """``key`` and every measurement its formula reads, transitively (a null input gives a null value)."""
    from tools.spec.formula import formula_names

    by_name = {m.name: m for m in t.entity.measurements}
    out, todo = set(), [key]
    while todo:
        k = todo.pop()
        if k in out or k not in by_name:
            continue
        out.add(k)
        todo += sorted(formula_names(by_name[k].formula)) if by_name[k].formula else []
    return out


def _in_window(t: TableInfo, r: dict) -> str:
    ts = qi(t.ts_col)
    return (f"({qi(t.id_col)} IN {in_list(r['entities'])} AND {ts} >= TIMESTAMPTZ {ql(r['start'])} "
            f"AND {ts} < TIMESTAMPTZ {ql(r['end'])})")


def check_nulls(b: Bundle, t: TableInfo) -> Check:
    parts = [f"SELECT {_ent_ts(t)}, {ql(c)} AS what FROM {qi(t.name)} WHERE {qi(c)} IS NULL" for c in t.strict_cols]
    for m in t.measurements:
        allowed = " OR ".join(_in_window(t, r) for r in _windows(b, t, {"null_burst"}, m.name))
        cond = f"{qi(m.name)} IS NULL" + (f" AND NOT ({allowed})" if allowed else "")
        parts.append(f"SELECT {_ent_ts(t)}, {ql(m.name)} AS what FROM {qi(t.name)} WHERE {cond}")
    cols = len(t.strict_cols) + len(t.measurements)
    note = " (measurements may be null only inside null_burst windows)" if t.measurements else ""
    return _run(b, "nulls", t, " UNION ALL ".join(parts), f"no unexpected nulls in {cols} columns{note}",
                "unexpected null values")


def _tolerance(m) -> float:
    if m.integer or m.noise.kind == "poisson":
        return 0.0
    return 0.5 * 10.0 ** -m.decimals if m.decimals is not None else 1e-9


def check_ranges(b: Bundle, t: TableInfo) -> Check | None:
    parts, shown = [], []
    for m in t.measurements:
        lo, hi = m.bounds
        if lo is None and hi is None:
            continue
        tol = _tolerance(m)
        conds = ([f"{qi(m.name)} < {lo - tol!r}"] if lo is not None else []) + \
                ([f"{qi(m.name)} > {hi + tol!r}"] if hi is not None else [])
        parts.append(f"SELECT {_ent_ts(t)}, {ql(m.name + '=')} || CAST({qi(m.name)} AS VARCHAR) AS what "
                     f"FROM {qi(t.name)} WHERE {' OR '.join(conds)}")
        shown.append(f"{m.name} in [{'-inf' if lo is None else f'{lo:g}'}, {'inf' if hi is None else f'{hi:g}'}]")
    if not parts:
        return None
    return _run(b, "ranges", t, " UNION ALL ".join(parts), "every value within its spec bounds: " + ", ".join(shown),
                "values outside their spec bounds")


def check_duplicates(b: Bundle, t: TableInfo) -> Check:
    """Static tables: the id is unique."""
    inner = (f"SELECT {qi(t.id_col)} AS entity, NULL::BIGINT AS t_us, CAST(count(*) AS VARCHAR) || ' rows' "
             f"AS what FROM {qi(t.name)} GROUP BY {qi(t.id_col)} HAVING count(*) > 1")
    return _run(b, "duplicate_keys", t, inner, f"{t.id_col} is unique", "duplicated keys")


class SeqCheck:
    """A check over the table in per-entity time order (one shared window pass per table)."""

    def __init__(self, name: str, pred: str, what: str, ok: str, problem: str):
        self.name, self.pred, self.what, self.ok, self.problem = name, pred, what, ok, problem


def seq_sql(t: TableInfo) -> str:
    """Every row with the previous row of its entity in (timestamp, rowid) order: prev_us, prev_rid
    and, per visible state column i, cur_i / prev_i."""
    ts, idc = qi(t.ts_col), qi(t.id_col)
    sm = t.entity.states
    lagged = t.kind != "periodic" or bool(sm and sm.terminal)  # periodic tables only check known states
    cols = "".join(f", coalesce({qi(c)}, {ql(NULL_LABEL)}) AS cur_{i}"
                   + (f", lag(coalesce({qi(c)}, {ql(NULL_LABEL)})) OVER w AS prev_{i}" if lagged else "")
                   for i, c in enumerate(t.labels))
    return (f"SELECT {idc} AS entity, epoch_us({ts}) AS t_us, rowid AS rid, lag(epoch_us({ts})) OVER w AS prev_us, "
            f"lag(rowid) OVER w AS prev_rid{cols} FROM {qi(t.name)} WINDOW w AS (PARTITION BY {idc} ORDER BY {ts}, rowid)")


def seq_checks(b: Bundle, t: TableInfo) -> list[SeqCheck]:
    out = [SeqCheck("duplicate_keys", "t_us = prev_us", "'duplicate of the previous row'",
                    f"({t.id_col}, {t.ts_col}) is unique", "duplicated keys"),
           SeqCheck("timestamps_monotonic", "rid < prev_rid",
                    "'stored after a later row of the entity (rowid ' || CAST(prev_rid AS VARCHAR) || ')'",
                    "timestamps never decrease within an entity (file order)", "timestamps that go back in time")]
    em = t.entity.emission
    if t.kind == "periodic" and em is not None:
        out.append(_cadence(b, t, em))
    if t.labels:
        out += _state_checks(b, t)
    return out


def _cadence(b: Bundle, t: TableInfo, em) -> SeqCheck:
    c = int(round(parse_duration(em.cadence) * 1e6))
    tol = max(int(round(parse_duration(em.jitter) * 1e6)), 1)
    s0 = iso_to_us(b.spec.start_dt.isoformat())
    off, prev = f"(t_us - {s0})", f"(prev_us - {s0})"
    ticks = f"({off} // {c} - {prev} // {c})"
    allow = ["TRUE"] if em.missing_rate > 0 else []
    for r in _windows(b, t, {"data_outage"}):
        allow.append(f"(entity IN {in_list(r['entities'])} AND prev_us < {iso_to_us(r['end'])} "
                     f"AND t_us >= {iso_to_us(r['start'])})")
    epochs = epoch_starts_us(b.spec, t.entity)
    allow += [f"(prev_us < {x} AND t_us >= {x})" for x in epochs]
    gap_ok = f"({ticks} = 1 OR ({ticks} > 1 AND ({' OR '.join(allow)})))" if allow else f"{ticks} = 1"
    why = "missing_rate > 0 allows longer gaps" if em.missing_rate > 0 else \
        "longer gaps only across data_outage windows" + (" and epoch starts" if epochs else "")
    return SeqCheck("cadence", f"{off} % {c} >= {tol} OR (prev_us IS NOT NULL AND NOT {gap_ok})",
                    f"CASE WHEN {off} % {c} >= {tol} THEN 'off the {em.cadence} grid' ELSE "
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
                    f"{', '.join(t.labels)}: only {how}", "disallowed states or transitions")]
    if terms:
        out.append(SeqCheck("terminal_states", " OR ".join(p for p, _ in terms),
                            f"CASE {' '.join(w for _, w in terms)} END",
                            "no entity has a row after a terminal state: " + "; ".join(names),
                            "rows after a terminal state"))
    return out


def run_seq_checks(b: Bundle, t: TableInfo) -> list[Check]:
    """All per-entity sequence checks of a table from one window pass; each check records its own
    standalone SQL (the same predicate over the same ordered sequence)."""
    if t.ts_col is None:
        return [check_duplicates(b, t)]
    seq, checks = seq_sql(t), seq_checks(b, t)
    counts = b.one("SELECT " + ", ".join(f"count(*) FILTER (WHERE {c.pred})" for c in checks) + f" FROM ({seq}) s")
    out = []
    for c, n in zip(checks, counts, strict=True):
        inner = f"SELECT entity, t_us, {c.what} AS what FROM ({seq}) s WHERE {c.pred}"
        out.append(_result(b, c.name, t, inner, int(n), c.ok, c.problem))
    return out


def check_foreign_keys(b: Bundle, t: TableInfo) -> Check | None:
    if not t.fks:
        return None
    parts, shown = [], []
    for col, parent in t.fks:
        ptable, pid = parent_table(b.spec, parent)
        parts.append(f"SELECT {_ent_ts(t)}, {ql(col + '=')} || {qi(col)} AS what FROM {qi(t.name)} "
                     f"WHERE {qi(col)} IS NOT NULL AND {qi(col)} NOT IN (SELECT {qi(pid)} FROM {qi(ptable)})")
        shown.append(f"{col} -> {ptable}.{pid}")
    return _run(b, "foreign_keys", t, " UNION ALL ".join(parts), "every reference resolves: " + ", ".join(shown),
                "references that resolve to no parent")


def quality_checks(b: Bundle) -> list[Check]:
    """Every data-quality check of every table in the bundle (baseline tables included)."""
    out: list[Check] = []
    for t in table_infos(b.spec, b.tables):
        out.append(check_nulls(b, t))
        out += [c for c in (check_ranges(b, t),) if c is not None]
        out += run_seq_checks(b, t)
        out += [c for c in (check_foreign_keys(b, t),) if c is not None]
    return out
