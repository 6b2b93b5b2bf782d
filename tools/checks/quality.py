"""Data-quality checks, one DuckDB query per (check, table).

Each check is an *inner* query listing the offending rows as ``(entity, t_us, what)``; the SQL
stored in checks.json is ``SELECT count(*) AS violations FROM (inner)`` and the check passes when
that count is 0. A few offending rows are quoted in the detail.

The per-entity checks (duplicates, monotonic timestamps, cadence, transitions, terminal states) are in
sequence.py: they share one pass per table (see there for the storage-order fast path).
"""

from __future__ import annotations

from tools.bundle.opened import Bundle
from tools.checks.model import Check, in_list, qi, ql, us_to_iso
from tools.checks.tables import TableInfo, parent_table, table_infos
from tools.patterns.registry import all_kinds

EXAMPLES = 3
NULL_KINDS = {k.name for k in all_kinds() if k.direction == "null"}  # kinds whose nulls are injected


def _run(b: Bundle, name: str, t: TableInfo, inner: str, ok: str, what: str) -> Check:
    return result(b, name, t, inner, int(b.one(f"SELECT count(*) AS violations FROM ({inner}) v")[0]), ok, what)


def result(b: Bundle, name: str, t: TableInfo, inner: str, n: int, ok: str, what: str) -> Check:
    sql = f"SELECT count(*) AS violations FROM ({inner}) v"
    if n == 0:
        return Check(name=name, table=t.name, kind="quality", passed=True, detail=ok, sql=sql)
    rows = b.sql(f"SELECT * FROM ({inner}) v LIMIT {EXAMPLES}")
    ex = "; ".join(f"{e}{' at ' + us_to_iso(u) if u is not None else ''}: {w}" for e, u, w in rows)
    return Check(name=name, table=t.name, kind="quality", passed=False, detail=f"{n:,} {what}; e.g. {ex}", sql=sql)


def _ent_ts(t: TableInfo) -> str:
    ts = f"epoch_us({qi(t.ts_col)})" if t.ts_col else "NULL::BIGINT"
    return f"{t.key} AS entity, {ts} AS t_us"


def windows(b: Bundle, t: TableInfo, kinds: set[str], key: str | None = None) -> list[dict]:
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
    return (f"({t.key} IN {in_list(r['entities'])} AND {ts} >= TIMESTAMPTZ {ql(r['start'])} "
            f"AND {ts} < TIMESTAMPTZ {ql(r['end'])})")


def check_nulls(b: Bundle, t: TableInfo) -> Check:
    parts = [f"SELECT {_ent_ts(t)}, {ql(c)} AS what FROM {qi(t.name)} WHERE {qi(c)} IS NULL" for c in t.strict_cols]
    for m in t.measurements:
        allowed = " OR ".join(_in_window(t, r) for r in windows(b, t, NULL_KINDS, m.name))
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
    inner = (f"SELECT {t.key} AS entity, NULL::BIGINT AS t_us, CAST(count(*) AS VARCHAR) || ' rows' "
             f"AS what FROM {qi(t.name)} GROUP BY {t.key} HAVING count(*) > 1")
    return _run(b, "duplicate_keys", t, inner, f"{t.key_name} is unique", "duplicated keys")


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
    from tools.checks.sequence import run_seq_checks

    out: list[Check] = []
    for t in table_infos(b.spec, b.tables):
        out.append(check_nulls(b, t))
        out += [c for c in (check_ranges(b, t),) if c is not None]
        out += run_seq_checks(b, t)
        out += [c for c in (check_foreign_keys(b, t),) if c is not None]
    from tools.checks.plausibility import plausibility_checks

    return out + plausibility_checks(b)
